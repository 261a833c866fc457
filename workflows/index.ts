import { proxyActivities } from '@temporalio/workflow';
// Types only: the workflow bundle runs in a deterministic sandbox and must not pull in slonik or node built-ins.
import type * as activities from '../activities';

const { databaseHealth } = proxyActivities<activities.Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

export async function healthCheck(): Promise<activities.DatabaseHealth> {
  return databaseHealth();
}

export { runSequence, runStep } from './runStep';
export type { RunSequenceInput, RunStepInput, StepResult } from './runStep';

export * from './importRun';
export * from './parametersResolve';
export * from './abc';
export * from './history';
export * from './netting';
export * from './alerts';
export * from './exceptionLog';
export * from './causal';
