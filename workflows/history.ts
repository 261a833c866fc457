import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type * as activities from '../activities';
import { asJob } from './asJob';

const bookkeeping = proxyActivities<activities.Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 10, initialInterval: '500 milliseconds' },
});

// The freeze is one transaction: a retry starts it over from nothing. It beats every few seconds, so a lost worker is
// noticed in half a minute.
const copy = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '2 seconds' },
});

export interface FreezeWorkflowInput {
  accountId: string;
  pipelineId: number;
  comment?: string | null;
  pin?: boolean;
  createdBy?: string | null;
  /** 'schedule': started by the pipeline's weekly Temporal Schedule (its job row is made here, retention follows) */
  source: 'api' | 'schedule';
  /** the job id; a scheduled run uses its workflow id */
  jobId?: string | null;
  /** run retention after the freeze (always after a scheduled one) */
  retention?: boolean;
}

export interface FreezeWorkflowResult extends activities.FreezeResult {
  retention_deleted: string[];
}

/** A weekly plan version (document 2 §4.5): the freeze, then retention for scheduled runs. */
export async function freezePipeline(input: FreezeWorkflowInput): Promise<FreezeWorkflowResult> {
  const jobId = input.jobId ?? workflowInfo().workflowId;
  const ref = { accountId: input.accountId, jobId };
  if (input.source === 'schedule') {
    await bookkeeping.historyEnsureJob({ ...ref, pipelineId: input.pipelineId, createdBy: input.createdBy ?? 'schedule', source: input.source });
  }
  return asJob(ref, `freeze: pipeline ${input.pipelineId} (${input.source})`, async () => {
    const frozen = await copy.historyFreeze({
      ...ref, pipelineId: input.pipelineId, comment: input.comment ?? null, pin: input.pin ?? false, createdBy: input.createdBy ?? null, source: input.source,
    });
    const deleted = input.source === 'schedule' || input.retention ? await bookkeeping.historyRetention({ ...ref, pipelineId: input.pipelineId }) : [];
    return { ...frozen, retention_deleted: deleted };
  });
}
