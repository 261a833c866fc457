import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities';
import type { ExceptionLogInput, ExceptionLogResult } from '../activities/exceptionLog/activity';
import { asJob } from './asJob';

// One transaction: a lost worker is noticed within half a minute, and a retry starts over (nothing was committed).
const work = proxyActivities<activities.Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

export type ExceptionLogWorkflowInput = ExceptionLogInput;

/** The exception-log refresh of one pipeline as a job (kind 'exception_log'; docs/EXCEPTIONS.md). */
export async function exceptionLogGenerate(input: ExceptionLogWorkflowInput): Promise<ExceptionLogResult> {
  return asJob({ accountId: input.accountId, jobId: input.jobId }, `exception log: pipeline ${input.pipelineId}`, () => work.exceptionLogGenerate(input));
}
