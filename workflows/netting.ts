import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities';
import type { NettingRefreshInput, NettingRefreshResult } from '../activities/netting/activity';
import { asJob } from './asJob';

// One transaction that beats between pages of series: a lost worker is noticed within half a minute, and a retry
// starts the refresh over (nothing of a failed attempt was committed).
const work = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

export type NettingWorkflowInput = NettingRefreshInput;

/** Forecast netting of one pipeline as a job (kind 'netting'; docs/NETTING.md). */
export async function nettingRefresh(input: NettingWorkflowInput): Promise<NettingRefreshResult> {
  const ref = { accountId: input.accountId, jobId: input.jobId };
  return asJob(ref, `netting: pipeline ${input.pipelineId}, ${input.period_weeks} weeks, window ${input.backward_weeks} back / ${input.forward_weeks} forward`,
    () => work.nettingCompute(input));
}
