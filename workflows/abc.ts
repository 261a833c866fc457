import { CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
// Types only: the workflow bundle must not pull in slonik or node built-ins.
import type * as activities from '../activities';
import type { AbcClassifyResult } from '../activities/abc/activity';

const bookkeeping = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10, initialInterval: '500 milliseconds' },
});

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

const messageOf = (err: unknown): string => {
  const e = err as { cause?: { message?: string }; message?: string };
  return e?.cause?.message ?? e?.message ?? String(err);
};

/** ABC classification as a job (kind 'abc'): one activity per configuration, each replacing its own results. */
export async function abcRun(input: AbcRunInput): Promise<{ configurations: AbcClassifyResult[] }> {
  const ref = { accountId: input.accountId, jobId: input.jobId };
  await bookkeeping.jobStarted({ ...ref, message: `abc: ${input.configIds.length} configuration(s)` });
  try {
    const done: AbcClassifyResult[] = [];
    for (const [i, configId] of input.configIds.entries()) {
      done.push(await work.abcClassify({ ...ref, configId }));
      await bookkeeping.jobProgress({ ...ref, done: i + 1, total: input.configIds.length });
    }
    const result = { configurations: done };
    await bookkeeping.jobFinished({ ...ref, status: 'completed', result });
    return result;
  } catch (err) {
    const killed = isCancellation(err);
    await CancellationScope.nonCancellable(() =>
      bookkeeping.jobFinished({ ...ref, status: killed ? 'killed' : 'failed', error: killed ? 'killed on request' : messageOf(err) }),
    );
    throw err;
  }
}
