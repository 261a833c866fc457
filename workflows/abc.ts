import { proxyActivities } from '@temporalio/workflow';
// Types only: the workflow bundle must not pull in slonik or node built-ins.
import type * as activities from '../activities';
import type { AbcClassifyResult } from '../activities/abc/activity';
import { asJob, bookkeeping } from './asJob';

const work = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

export interface AbcRunInput {
  jobId: string;
  accountId: string;
  /** configurations to classify, in order (run-all passes every active one) */
  configIds: number[];
}

/** ABC classification as a job (kind 'abc'): one activity per configuration, each replacing its own results. */
export async function abcRun(input: AbcRunInput): Promise<{ configurations: AbcClassifyResult[] }> {
  const ref = { accountId: input.accountId, jobId: input.jobId };
  return asJob(ref, `abc: ${input.configIds.length} configuration(s)`, async () => {
    const done: AbcClassifyResult[] = [];
    for (const [i, configId] of input.configIds.entries()) {
      done.push(await work.abcClassify({ ...ref, configId }));
      await bookkeeping.jobProgress({ ...ref, done: i + 1, total: input.configIds.length });
    }
    return { configurations: done };
  });
}
