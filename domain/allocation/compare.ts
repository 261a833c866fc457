/**
 * Both allocators on the same instance, objectives side by side. The LP is optimal for the model, so
 * greedy_pct_of_lp <= 100 up to float noise; it says how much value the fast allocator leaves on the table.
 */
import { allocateGreedy } from './greedy';
import { type LpAllocationResult, type LpOptions, allocateLp } from './lp';
import type { AllocationParams, AllocationProblem, AllocationResult } from './model';

export interface AllocationComparison {
  greedy: AllocationResult;
  lp: LpAllocationResult;
  greedy_objective: number;
  lp_objective: number;
  /** 100 * greedy / lp; 100 when both are 0 (nothing can be served). */
  greedy_pct_of_lp: number;
  greedy_ms: number;
  lp_ms: number;
}

export function greedyPercentOfLp(greedyObjective: number, lpObjective: number): number {
  if (lpObjective === 0) return greedyObjective === 0 ? 100 : Infinity;
  return (100 * greedyObjective) / lpObjective;
}

export async function compareAllocations(
  problem: AllocationProblem,
  params: Partial<AllocationParams> = {},
  lpOptions: Partial<LpOptions> = {},
): Promise<AllocationComparison> {
  const greedy = allocateGreedy(problem, params);
  const lp = await allocateLp(problem, params, lpOptions);
  return {
    greedy,
    lp,
    greedy_objective: greedy.objective,
    lp_objective: lp.objective,
    greedy_pct_of_lp: greedyPercentOfLp(greedy.objective, lp.objective),
    greedy_ms: greedy.elapsed_ms,
    lp_ms: lp.elapsed_ms,
  };
}
