import { chunkStatsOf, combineChunks } from '../../../domain/allocation/chunks';
import type { AllocationProblem } from '../../../domain/allocation/model';
import { solveAllocation } from '../../../domain/allocation/solve';
import { dem, sup } from '../../support/allocationBuilders';

/** Two items at one site: item 1 has 4 arcs, item 2 has 1. */
const item = (n: number) => ({ item_id: n });
const problem1: AllocationProblem = {
  supplies: [sup('FIRM_1', 5, 2, item(1)), sup('SO_1', 5, 0, item(1))],
  demands: [dem('1_1:1', 4, 1, 'A', item(1)), dem('1_1:3', 6, 3, 'C', item(1))],
};
const problem2: AllocationProblem = { supplies: [sup('SO_2', 3, 0, item(2))], demands: [dem('2_1:0', 5, 0, 'B', item(2))] };
const whole: AllocationProblem = { supplies: [...problem1.supplies, ...problem2.supplies], demands: [...problem1.demands, ...problem2.demands] };

const pool = (n: number) => ({ engine: n, firm: 0, engine_qty: n, firm_qty: 0, refused: 0 });
const demand = (n: number) => ({ sku_sites: 1, forecast_qty: n, opening_served_qty: 0, lines: n, unclassified_sku_sites: 0 });

test('one chunk is the unchunked solve: figures and method reason unchanged', async () => {
  const s = await solveAllocation(whole);
  const c = combineChunks([chunkStatsOf(s, s.chosen.allocations.length, pool(3), demand(3))], 1_000_000);
  expect(c).toMatchObject({
    method: 'lp', chunks: 1, lp_chunks: 1, lp_objective: s.lp!.objective, arcs: 5, groups: 2, rows: s.chosen.allocations.length,
    method_reason: '5 arcs within the LP limit of 1000000',
    greedy: { objective: s.greedy.objective, served_qty: s.greedy.served_qty, late_qty: s.greedy.late_qty },
    chosen: { supply_qty: 13, demand_qty: 15, served_qty: s.chosen.served_qty },
  });
  expect(c.greedy_pct_of_lp).toBe(100 * s.greedy.objective / s.lp!.objective);
});

test('chunks add up to the whole; a chunk past the per-chunk LP limit makes the run greedy with the LP figures of the others', async () => {
  const s = await solveAllocation(whole);
  const [a, b] = [await solveAllocation(problem1), await solveAllocation(problem2)];
  const both = combineChunks([chunkStatsOf(a, 2, pool(2), demand(2)), chunkStatsOf(b, 1, pool(1), demand(1))], 1_000_000);
  expect(both).toMatchObject({ method: 'lp', chunks: 2, lp_chunks: 2, arcs: 5, groups: 2, rows: 3, method_reason: '5 arcs in 2 chunks, each within the LP limit of 1000000' });
  expect(both.lp_objective).toBeCloseTo(s.lp!.objective, 12);
  expect(both.greedy.objective).toBeCloseTo(s.greedy.objective, 12);
  expect(both.pool).toEqual({ engine: 3, firm: 0, engine_qty: 3, firm_qty: 0, refused: 0 });
  expect(both.demand).toEqual({ sku_sites: 2, forecast_qty: 3, opening_served_qty: 0, lines: 3, unclassified_sku_sites: 0 });

  const limits = { maxLpArcs: 2, sliceArcs: 50_000, lpTimeLimitSeconds: 600 };
  const [a2, b2] = [await solveAllocation(problem1, limits), await solveAllocation(problem2, limits)];
  expect([a2.method, b2.method]).toEqual(['greedy', 'lp']);
  const mixed = combineChunks([chunkStatsOf(a2, 2, pool(2), demand(2)), chunkStatsOf(b2, 1, pool(1), demand(1))], 2);
  expect(mixed).toMatchObject({
    method: 'greedy', chunks: 2, lp_chunks: 1, lp_objective: null,
    method_reason: 'LP in 1 of 2 chunks (the LP limit of 2 arcs is per chunk); the others keep the greedy\'s allocation, e.g. 4 arcs exceed the LP limit of 2',
    lp: { objective: b2.lp!.objective },
  });
  // the ratio is over the chunk that ran both, not the greedy's whole objective against part of the LP
  expect(mixed.greedy_pct_of_lp).toBe(100 * b2.greedy.objective / b2.lp!.objective);
  expect(mixed.greedy.objective).toBeCloseTo(a2.greedy.objective + b2.greedy.objective, 12);
});
