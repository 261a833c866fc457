/**
 * Runs the two allocators of domain/allocation over a whole run in slices of (item, site) groups, so the activity
 * heartbeats between slices: the model is block diagonal by (item, site), so the slices' answers together are the
 * answer for the whole problem.
 *
 * The greedy always runs. The LP runs too when the run has at most `maxLpArcs` arcs; its allocation is then the one
 * stored (it is optimal), and both objectives are reported side by side. Past the limit, or when HiGHS fails or
 * reaches its time limit, the greedy's allocation is stored and lp_objective stays null.
 *
 * "The LP runs" means: each group's greedy allocation is first checked for optimality (certify.ts, a negative-cycle
 * test far cheaper than a solve), and only the groups it cannot prove optimal go to HiGHS. A proven group's greedy
 * rows are an optimal solution of its LP block, so the LP's allocation has the LP's objective either way; where the
 * block has several optima it may be another vertex than HiGHS would have returned.
 */
import { greedyPercentOfLp } from './compare';
import { isOptimalForGroup } from './certify';
import { allocateGreedyGroup } from './greedy';
import { AllocationLpError, allocateLp } from './lp';
import {
  type AllocationParams, type AllocationProblem, type AllocationResult, type AllocationRow, type ConservationViolation, type Group,
  arcValue, checkAllocation, demandWeight, groupByItemSite, resolveParams, summarise, validateProblem,
} from './model';

export interface AllocationLimits {
  /**
   * The LP runs when the whole run has at most this many arcs. bench:allocation solves about 1M arcs in 7 s and 3.2M
   * in 24 s on two cores; 1M keeps the LP a few seconds per run even on a loaded worker, far inside the activity's
   * start-to-close timeout, and the greedy (within a few % of it) takes over beyond.
   */
  maxLpArcs: number;
  /** Arcs per slice: a slice's LP takes well under a second, far below the 10 s heartbeat timeout. */
  sliceArcs: number;
  /** Wall-clock budget of all LP slices together; past it the run keeps the greedy's allocation. */
  lpTimeLimitSeconds: number;
}

export const ALLOCATION_LIMITS: AllocationLimits = Object.freeze({ maxLpArcs: 1_000_000, sliceArcs: 50_000, lpTimeLimitSeconds: 600 });

export interface LpStats {
  /** null when every group was proven optimal and HiGHS was not needed */
  highs_version: string | null;
  batches: number;
  columns: number;
  rows: number;
  reloads: number;
  /** groups whose greedy allocation was proven optimal (certify.ts) and so needed no HiGHS model */
  certified_groups: number;
}

export interface SolvedAllocation {
  method: 'lp' | 'greedy';
  /** The allocation stored: the LP's when it ran, else the greedy's. */
  chosen: AllocationResult;
  greedy: AllocationResult;
  lp: AllocationResult | null;
  greedy_pct_of_lp: number | null;
  arcs: number;
  groups: number;
  slices: number;
  /** Why the LP's allocation is not the one stored; null when it is. */
  lp_skipped: string | null;
  lp_stats: LpStats | null;
  greedy_ms: number;
  lp_ms: number;
  violations: { greedy: ConservationViolation[]; lp: ConservationViolation[] };
}

function arcCount(g: Group, params: AllocationParams): number {
  let n = 0;
  for (const d of g.demands) {
    const w = demandWeight(d, params);
    for (const s of g.supplies) if (arcValue(s, d, w, params) !== null) n++;
  }
  return n;
}

/** Whole groups per slice up to `sliceArcs` arcs; a larger group is a slice of its own. Groups without arcs are left out. */
function slicesOf(groups: Group[], arcs: number[], sliceArcs: number): Group[][] {
  const out: Group[][] = [];
  let current: Group[] = [];
  let size = 0;
  groups.forEach((g, i) => {
    const n = arcs[i]!;
    if (n === 0) return;
    if (current.length > 0 && size + n > sliceArcs) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(g);
    size += n;
  });
  if (current.length > 0) out.push(current);
  return out;
}

function subProblem(slice: Group[]): AllocationProblem {
  const supplies = [];
  const demands = [];
  for (const g of slice) {
    for (const s of g.supplies) supplies.push(s);
    for (const d of g.demands) demands.push(d);
  }
  return { supplies, demands };
}

function append(into: AllocationRow[], rows: readonly AllocationRow[]): void {
  for (const r of rows) into.push(r);
}

/** Called after each slice and between the closing passes over every row, so the caller can heartbeat. */
export interface SolveProgress {
  phase: 'solve' | 'summarise' | 'check';
  done: number;
  of: number;
}

export async function solveAllocation(
  problem: AllocationProblem,
  limits: AllocationLimits = ALLOCATION_LIMITS,
  progress: (p: SolveProgress) => Promise<void> = async () => {},
  paramsIn: Partial<AllocationParams> = {},
): Promise<SolvedAllocation> {
  const params = resolveParams(paramsIn);
  const { supplies, demands } = validateProblem(problem);
  const groups = groupByItemSite(supplies, demands);
  const arcsPerGroup = groups.map((g) => arcCount(g, params));
  const arcs = arcsPerGroup.reduce((a, b) => a + b, 0);
  const slices = slicesOf(groups, arcsPerGroup, limits.sliceArcs);

  await progress({ phase: 'solve', done: 0, of: slices.length });

  let useLp = arcs <= limits.maxLpArcs;
  let lpSkipped: string | null = useLp ? null : `${arcs} arcs exceed the LP limit of ${limits.maxLpArcs}`;
  const greedyRows: AllocationRow[] = [];
  let lpRows: AllocationRow[] = [];
  // running totals over the slices; reported only when every slice's LP block was solved or proven
  const lpStats: LpStats = { highs_version: null, batches: 0, columns: 0, rows: 0, reloads: 0, certified_groups: 0 };
  let greedyMs = 0;
  let lpMs = 0;
  for (const [i, slice] of slices.entries()) {
    const t0 = Date.now();
    const sliceRows = slice.map((g) => {
      const rows: AllocationRow[] = [];
      allocateGreedyGroup(g.supplies, g.demands, params, rows);
      return rows;
    });
    greedyMs += Date.now() - t0;
    for (const rows of sliceRows) append(greedyRows, rows);
    if (useLp) {
      const t1 = Date.now();
      const unproven: Group[] = [];
      slice.forEach((g, k) => {
        if (isOptimalForGroup(g, sliceRows[k]!, params)) {
          append(lpRows, sliceRows[k]!);
          lpStats.certified_groups += 1;
        } else unproven.push(g);
      });
      lpMs += Date.now() - t1;
      const remaining = limits.lpTimeLimitSeconds - lpMs / 1000;
      try {
        if (unproven.length > 0) {
          if (remaining <= 0) throw new AllocationLpError('time limit reached before every slice was solved', 'timeLimit');
          const l = await allocateLp(subProblem(unproven), params, { timeLimitSeconds: remaining });
          lpMs += l.elapsed_ms;
          append(lpRows, l.allocations);
          lpStats.highs_version = l.lp.highs_version;
          lpStats.batches += l.lp.batches;
          lpStats.columns += l.lp.columns;
          lpStats.rows += l.lp.rows;
          lpStats.reloads += l.lp.reloads;
        }
      } catch (err) {
        // A solver that gives up leaves the greedy's answer, which is always there; anything else is a fault.
        if (!(err instanceof AllocationLpError)) throw err;
        useLp = false;
        lpSkipped = `HiGHS: ${err.message}`;
        lpRows = [];
      }
    }
    await progress({ phase: 'solve', done: i + 1, of: slices.length });
  }

  // Summed in the domain's order over the whole problem, so the objectives are those the domain gives for it.
  const greedy = summarise('greedy', supplies, demands, greedyRows, greedyMs);
  await progress({ phase: 'summarise', done: slices.length, of: slices.length });
  const lp = useLp ? summarise('lp', supplies, demands, lpRows, lpMs) : null;
  await progress({ phase: 'summarise', done: slices.length, of: slices.length });
  const greedyViolations = checkAllocation(problem, greedy, params);
  await progress({ phase: 'check', done: slices.length, of: slices.length });
  const lpViolations = lp ? checkAllocation(problem, lp, params) : [];
  return {
    method: lp ? 'lp' : 'greedy',
    chosen: lp ?? greedy,
    greedy,
    lp,
    greedy_pct_of_lp: lp ? greedyPercentOfLp(greedy.objective, lp.objective) : null,
    arcs,
    groups: groups.length,
    slices: slices.length,
    lp_skipped: lpSkipped,
    lp_stats: lp ? lpStats : null,
    greedy_ms: greedyMs,
    lp_ms: lpMs,
    violations: { greedy: greedyViolations, lp: lpViolations },
  };
}
