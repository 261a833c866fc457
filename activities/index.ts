import type { Db } from '../db/pool';
import { createHealthActivities } from './health/activity';

export type { DatabaseHealth } from './health/activity';

/** Activities close over their dependencies, so the worker owns the pool and tests can hand in their own. */
export function createActivities(deps: { db: Db }) {
  return {
    ...createHealthActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
