import type { Db } from '../db/pool';
import { createAbcActivities } from './abc/activity';
import { createAlertActivities } from './alerts/activity';
import { createAllocationActivities } from './allocation/activity';
import { createCausalActivities } from './causal/activity';
import { createEtlActivities } from './etl/activity';
import { createExceptionLogActivities } from './exceptionLog/activity';
import { createHealthActivities } from './health/activity';
import { createHistoryActivities } from './history/activity';
import { createImportActivities } from './import/activity';
import { createJobActivities } from './jobs/activity';
import { createNettingActivities } from './netting/activity';
import { createParameterActivities } from './parameters/activity';
import { createSeriesStepActivities } from './steps/activity';

export type { DatabaseHealth } from './health/activity';
export type { EtlPlan } from './etl/activity';
export type { FreezeInput, FreezeResult } from './history/activity';
export type { StepSettings } from './jobs/activity';

/** Activities close over their dependencies, so the worker owns the pool and tests can hand in their own. */
export function createActivities(deps: { db: Db }) {
  return {
    ...createHealthActivities(deps),
    ...createImportActivities(deps),
    ...createJobActivities(deps),
    ...createEtlActivities(deps),
    ...createAbcActivities(deps),
    ...createParameterActivities(deps),
    ...createSeriesStepActivities(deps),
    ...createAllocationActivities(deps),
    ...createHistoryActivities(deps),
    ...createNettingActivities(deps),
    ...createAlertActivities(deps),
    ...createExceptionLogActivities(deps),
    ...createCausalActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
