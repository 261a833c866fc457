/**
 * The allocation step's activities in the order workflows/runStep.ts runAllocation runs them (plan, every chunk,
 * finalize; fail on an error), in this process through Temporal's activity environment, so a test can shrink the
 * chunk size and the solver limits, or stop between chunks.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import type { AllocationPlan, AllocationRunResult } from '../../activities/allocation/activity';
import type { Db } from '../../db/pool';
import type { AllocationLimits } from '../../domain/allocation/solve';

export interface AllocationRunOptions {
  accountId: string;
  jobId: string;
  pipelineId: number;
  supplyScenarioId?: number | null;
  /** SKU-sites per chunk; the workflow passes the tenant's chunk_size (500 unless set) */
  chunkSize?: number;
  limits?: Partial<AllocationLimits>;
}

export function allocationActivities(db: Db) {
  const acts = createActivities({ db });
  const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A): Promise<R> => new MockActivityEnvironment().run(fn, ...args);
  return {
    plan: (o: AllocationRunOptions) => run(acts.allocationPlan, {
      accountId: o.accountId, jobId: o.jobId, pipelineId: o.pipelineId, supplyScenarioId: o.supplyScenarioId ?? null, chunkSize: o.chunkSize ?? 500,
    }),
    chunk: (o: AllocationRunOptions, plan: AllocationPlan, index: number) => {
      const c = plan.chunks[index]!;
      return run(acts.allocationChunk, {
        accountId: o.accountId, jobId: o.jobId, scope: plan.scope, range: { after: c.after, through: c.through }, index, of: plan.chunks.length, limits: o.limits,
      });
    },
    finalize: (o: AllocationRunOptions, plan: AllocationPlan) => run(acts.allocationFinalize, {
      accountId: o.accountId, jobId: o.jobId, scope: plan.scope, chunks: plan.chunks.length, limits: o.limits,
    }),
    fail: (o: AllocationRunOptions, error: string) => run(acts.allocationFail, { accountId: o.accountId, jobId: o.jobId, error }),
  };
}

/** The whole step: plan, the chunks one after another, finalize; on an error the run is failed as the workflow does. */
export async function runAllocationActivities(db: Db, o: AllocationRunOptions): Promise<AllocationRunResult & { plan: AllocationPlan }> {
  const a = allocationActivities(db);
  try {
    const plan = await a.plan(o);
    for (let i = 0; i < plan.chunks.length; i++) await a.chunk(o, plan, i);
    return { ...(await a.finalize(o, plan)), plan };
  } catch (err) {
    await a.fail(o, err instanceof Error ? err.message : String(err));
    throw err;
  }
}
