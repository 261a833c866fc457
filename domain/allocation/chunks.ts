/**
 * The allocation step in chunks of items (docs/SUPPLY.md "Allocation step"): what one chunk's solve reports, and the
 * run's totals added up from those reports. The model is block diagonal by (item, site), so the chunks' allocations
 * together are the run's allocation, and counts, quantities and objectives add up.
 *
 * The LP rule is per chunk: a chunk stores the LP's allocation when it has at most `maxLpArcs` arcs and HiGHS
 * solves it, else the greedy's. The run's `method` is `lp` only when every chunk stored the LP's (then the whole
 * allocation is optimal and `lp_objective` is the run's); otherwise `greedy`, with `lp_objective` null, and the
 * summary says how many chunks ran the LP and the greedy's share of the LP over those chunks. A run of one chunk
 * gives exactly what the unchunked solve gave.
 */
import { greedyPercentOfLp } from './compare';
import type { LpStats, SolvedAllocation } from './solve';

export interface SolverFigures {
  objective: number;
  served_qty: number;
  late_qty: number;
  ms: number;
}

/** The figures a chunk reports and the run adds up over its chunks. */
interface ChunkTotals {
  arcs: number;
  groups: number;
  slices: number;
  rows: number;
  greedy: SolverFigures;
  /** a chunk's LP when it ran; over a run, the chunks that ran it (all of them when method is lp); null when none did */
  lp: (SolverFigures & LpStats) | null;
  /** the stored allocation's quantities */
  chosen: { supply_qty: number; demand_qty: number; served_qty: number; late_qty: number };
  pool: ChunkPool;
  demand: ChunkDemand;
}

/** One chunk's report, stored next to its rows. */
export interface ChunkStats extends ChunkTotals {
  method: 'lp' | 'greedy';
  /** why the chunk kept the greedy's allocation; null when it stored the LP's */
  lp_skipped: string | null;
}

export interface ChunkDemand {
  sku_sites: number;
  forecast_qty: number;
  opening_served_qty: number;
  lines: number;
  unclassified_sku_sites: number;
}

export interface ChunkPool {
  engine: number;
  firm: number;
  engine_qty: number;
  firm_qty: number;
  /** rows the SQL selected and the pool rule refused */
  refused: number;
}

export function chunkStatsOf(solved: SolvedAllocation, rows: number, pool: ChunkPool, demand: ChunkDemand): ChunkStats {
  const figures = (r: { objective: number; served_qty: number; late_qty: number }, ms: number): SolverFigures => ({
    objective: r.objective, served_qty: r.served_qty, late_qty: r.late_qty, ms,
  });
  return {
    method: solved.method,
    lp_skipped: solved.lp_skipped,
    arcs: solved.arcs,
    groups: solved.groups,
    slices: solved.slices,
    rows,
    greedy: figures(solved.greedy, solved.greedy_ms),
    lp: solved.lp ? { ...figures(solved.lp, solved.lp_ms), ...solved.lp_stats! } : null,
    chosen: { supply_qty: solved.chosen.supply_qty, demand_qty: solved.chosen.demand_qty, served_qty: solved.chosen.served_qty, late_qty: solved.chosen.late_qty },
    pool,
    demand,
  };
}

export interface CombinedChunks extends ChunkTotals {
  method: 'lp' | 'greedy';
  chunks: number;
  lp_chunks: number;
  /** the run's LP objective: only when every chunk stored the LP's allocation */
  lp_objective: number | null;
  /** 100 × greedy / LP over the chunks that ran both; null when none did */
  greedy_pct_of_lp: number | null;
  method_reason: string | null;
}

function addFigures(a: SolverFigures, b: SolverFigures): SolverFigures {
  return { objective: a.objective + b.objective, served_qty: a.served_qty + b.served_qty, late_qty: a.late_qty + b.late_qty, ms: a.ms + b.ms };
}

function addInto<T extends { [K in keyof T]: number }>(into: T, x: T): T {
  const out = { ...into };
  for (const k of Object.keys(x) as Array<keyof T>) (out[k] as number) = (into[k] as number) + (x[k] as number);
  return out;
}

function methodReason(stats: readonly ChunkStats[], lpChunks: number, arcs: number, maxLpArcs: number): string | null {
  if (stats.length === 1) {
    const only = stats[0]!;
    return only.method === 'lp' ? `${only.arcs} arcs within the LP limit of ${maxLpArcs}` : only.lp_skipped;
  }
  if (lpChunks === stats.length) return `${arcs} arcs in ${stats.length} chunks, each within the LP limit of ${maxLpArcs}`;
  const first = stats.find((s) => s.method !== 'lp')!;
  return `LP in ${lpChunks} of ${stats.length} chunks (the LP limit of ${maxLpArcs} arcs is per chunk); the others keep the greedy's allocation, e.g. ${first.lp_skipped}`;
}

/** The run's figures from its chunks' reports, in chunk order (so a run gives the same sums however it was retried). */
export function combineChunks(stats: readonly ChunkStats[], maxLpArcs: number): CombinedChunks {
  const zero: SolverFigures = { objective: 0, served_qty: 0, late_qty: 0, ms: 0 };
  let greedy = zero;
  let greedyInLp = 0;
  let lp: (SolverFigures & LpStats) | null = null;
  let lpChunks = 0;
  let chosen: ChunkStats['chosen'] = { supply_qty: 0, demand_qty: 0, served_qty: 0, late_qty: 0 };
  let pool: ChunkPool = { engine: 0, firm: 0, engine_qty: 0, firm_qty: 0, refused: 0 };
  let demand: ChunkDemand = { sku_sites: 0, forecast_qty: 0, opening_served_qty: 0, lines: 0, unclassified_sku_sites: 0 };
  let arcs = 0;
  let groups = 0;
  let slices = 0;
  let rows = 0;
  for (const s of stats) {
    greedy = addFigures(greedy, s.greedy);
    if (s.lp) {
      lpChunks += 1;
      greedyInLp += s.greedy.objective;
      lp = lp === null
        ? { ...s.lp }
        : {
          ...addFigures(lp, s.lp), highs_version: s.lp.highs_version ?? lp.highs_version,
          batches: lp.batches + s.lp.batches, columns: lp.columns + s.lp.columns, rows: lp.rows + s.lp.rows, reloads: lp.reloads + s.lp.reloads,
          // reports stored before certify.ts existed have no count
          certified_groups: (lp.certified_groups ?? 0) + (s.lp.certified_groups ?? 0),
        };
    }
    chosen = addInto(chosen, s.chosen);
    pool = addInto(pool, s.pool);
    demand = addInto(demand, s.demand);
    arcs += s.arcs;
    groups += s.groups;
    slices += s.slices;
    rows += s.rows;
  }
  const everyLp = stats.length > 0 && lpChunks === stats.length;
  return {
    method: everyLp ? 'lp' : 'greedy',
    chunks: stats.length,
    lp_chunks: lpChunks,
    lp_objective: everyLp ? lp!.objective : null,
    greedy_pct_of_lp: lp ? greedyPercentOfLp(greedyInLp, lp.objective) : null,
    method_reason: methodReason(stats, lpChunks, arcs, maxLpArcs),
    arcs, groups, slices, rows, greedy, lp, chosen, pool, demand,
  };
}
