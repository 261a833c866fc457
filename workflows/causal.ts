import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities';
import type { CausalRunInput as ActivityInput, CausalRunResult } from '../activities/causal/activity';
import { asJob } from './asJob';

// One transaction that beats between phases; a retry recomputes and rewrites the same results.
const work = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '60 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

export type CausalRunInput = ActivityInput;

/** A causal scenario run as a job (kind 'causal'; docs/CAUSAL.md). */
export async function causalRun(input: CausalRunInput): Promise<CausalRunResult> {
  return asJob({ accountId: input.accountId, jobId: input.jobId }, `causal: scenario ${input.scenarioId}`, () => work.causalRun(input));
}
