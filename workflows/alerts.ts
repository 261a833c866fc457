import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities';
import type { AlertGenerateInput, AlertGenerateResult } from '../activities/alerts/activity';
import { asJob } from './asJob';

// One transaction that beats between pages of series; a retry starts the generation over.
const work = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

export type AlertsWorkflowInput = AlertGenerateInput;

/** Alert generation of one pipeline as a job (kind 'alerts'; docs/ALERTS.md). */
export async function alertsGenerate(input: AlertsWorkflowInput): Promise<AlertGenerateResult> {
  return asJob({ accountId: input.accountId, jobId: input.jobId }, `alerts: pipeline ${input.pipelineId}`, () => work.alertsGenerate(input));
}
