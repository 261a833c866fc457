import { compareAllocations, greedyPercentOfLp } from '../../../domain/allocation/compare';
import { allocateGreedy } from '../../../domain/allocation/greedy';
import { AllocationLpError, allocateLp, discardHighs, getHighs } from '../../../domain/allocation/lp';
import { type AllocationParams, checkAllocation } from '../../../domain/allocation/model';
import { buildSupplyPool } from '../../../domain/allocation/pool';
import { randomInstance, shuffled } from '../../../bench/lib/allocationInstances';
import { dem, sup } from '../../support/allocationBuilders';

/** Allocation as "supply->demand:qty", rounded to 1e-9 to hide solver noise. */
const pairs = (r: { allocations: { supply_id: string; demand_id: string; qty: number }[] }) =>
  r.allocations.map((a) => `${a.supply_id}->${a.demand_id}:${Math.round(a.qty * 1e9) / 1e9}`);

describe('LP optimum on hand cases (default parameters: A/B/C 3/2/1, 0.05 per week late, at most 8 weeks)', () => {
  it('firm supply goes to the line where reliability is worth most', async () => {
    // FIRM_1 and SO_1 both cover both lines on time. A firm unit is worth 3 - 2.55 = 0.45 more on the A line and
    // 1 - 0.85 = 0.15 more on the C line, so the 10 firm units go A first: 8 to DA, 2 to DC, and SO_1 covers DC's 6.
    const problem = {
      supplies: [sup('FIRM_1', 10, 2), sup('SO_1', 10, 2)],
      demands: [dem('DA', 8, 5, 'A'), dem('DC', 8, 5, 'C')],
    };
    const r = await allocateLp(problem);
    expect(pairs(r)).toEqual(['FIRM_1->DA:8', 'FIRM_1->DC:2', 'SO_1->DC:6']);
    expect(r.objective).toBeCloseTo(8 * 3 + 2 * 1 + 6 * 0.85, 9); // 31.1
    expect(r.lp.solver_objective).toBeCloseTo(31.1, 9);
    expect(r.allocations.map((a) => a.is_firm)).toEqual([1, 1, 0]);
  });

  it('beats the greedy when a firm order the higher line could do without is all the lower line can use', async () => {
    // The greedy serves the highest arc first: FIRM_1 to the B line (2.0), and the C line (due 10) has nothing else
    // within 8 weeks: 10 * 2 = 20. The LP gives FIRM_1 to the C line and SO_1 (on time for the B line) to B: 27.
    const problem = {
      supplies: [sup('FIRM_1', 10, 10), sup('SO_1', 10, 30)],
      demands: [dem('D1', 10, 10, 'C'), dem('D2', 10, 40, 'B')],
    };
    const cmp = await compareAllocations(problem);
    expect(pairs(cmp.lp)).toEqual(['FIRM_1->D1:10', 'SO_1->D2:10']);
    expect(pairs(cmp.greedy)).toEqual(['FIRM_1->D2:10']);
    expect(cmp.lp_objective).toBeCloseTo(27, 9);
    expect(cmp.greedy_objective).toBeCloseTo(20, 12);
    expect(cmp.greedy_pct_of_lp).toBeCloseTo((100 * 20) / 27, 6);
  });

  it('short supply goes by priority; groups are independent', async () => {
    const problem = {
      supplies: [sup('FIRM_1', 10, 0), sup('SO_9', 7, 1, { item_id: 2 })],
      demands: [dem('DA', 6, 3, 'A'), dem('DB', 6, 1, 'B'), dem('DC', 6, 0, 'C'), dem('E', 5, 4, null, { item_id: 2 })],
    };
    const r = await allocateLp(problem);
    expect(pairs(r)).toEqual(['FIRM_1->DA:6', 'FIRM_1->DB:4', 'SO_9->E:5']);
    expect(r.objective).toBeCloseTo(18 + 8 + 5 * 0.85, 9);
    expect(r.served_qty).toBeCloseTo(15, 9);
    expect(r.demand_qty).toBe(23);
    expect(r.supply_qty).toBe(17);
  });

  it('late service is traded against reliability through the penalty', async () => {
    // FIRM_1 (week 0) to D1 (due 0) and SO_1 (week 6) to D2 (due 6): 5 + 4.25 = 9.25. The other way round SO_1 would
    // serve D1 6 weeks late: 5 * 1 + 5 * (0.85 - 0.3) = 7.75.
    const problem = {
      supplies: [sup('SO_1', 5, 6), sup('FIRM_1', 5, 0)],
      demands: [dem('D1', 5, 0, 'C'), dem('D2', 5, 6, 'C')],
    };
    const r = await allocateLp(problem);
    expect(pairs(r)).toEqual(['FIRM_1->D1:5', 'SO_1->D2:5']);
    expect(r.objective).toBeCloseTo(9.25, 9);
    // With a steep penalty and no cap, a firm order 3 weeks late (1 - 0.9 = 0.1) beats nothing, an engine one does not.
    const steep: Partial<AllocationParams> = { latenessPenaltyPerWeek: 0.3, maxLatenessWeeks: 51 };
    const late = await allocateLp({ supplies: [sup('SO_2', 5, 3), sup('FIRM_2', 2, 3)], demands: [dem('D', 5, 0, 'C')] }, steep);
    expect(pairs(late)).toEqual(['FIRM_2->D:2']);
    expect(late.late_qty).toBeCloseTo(2, 9);
    expect(late.objective).toBeCloseTo(0.2, 9);
  });

  it('no arcs: an empty model is not sent to HiGHS', async () => {
    const r = await allocateLp({ supplies: [sup('SO_1', 5, 20)], demands: [dem('D1', 5, 0, 'A'), dem('D2', 3, 0, 'A', { site_id: 3 })] });
    expect(r.allocations).toEqual([]);
    expect(r.objective).toBe(0);
    expect(r.lp.batches).toBe(0);
    expect(greedyPercentOfLp(0, 0)).toBe(100);
  });
});

describe('from the pool rows to allocation rows', () => {
  it('pool entries are allocation supplies as they are; rows carry is_firm', async () => {
    const now = new Date('2025-01-06T00:00:00Z');
    const pool = buildSupplyPool(
      [
        { id: 1, item_id: 1, site_id: 1, qty: 30, arrival_week: 1, status: 'planned' },
        { id: 2, item_id: 1, site_id: 1, qty: 30, arrival_week: 0, status: 'received' }, // not in the pool
      ],
      [{ id: 9, item_id: 1, site_id: 1, qty: 50, received_qty: 30, erp_status: 'in_transit', arrival_dt: '2025-01-20T00:00:00Z' }],
      now,
    );
    const demands = [dem('A1', 25, 2, 'A'), dem('C1', 25, 2, 'C')];
    const cmp = await compareAllocations({ supplies: pool, demands });
    // FIRM_9: 20 remaining, week 2. A1 takes all 20 firm units (worth 0.45 more there than on C1) and 5 of SO_1.
    expect(pairs(cmp.lp)).toEqual(['FIRM_9->A1:20', 'SO_1->A1:5', 'SO_1->C1:25']);
    expect(cmp.lp.allocations.map((a) => a.is_firm)).toEqual([1, 0, 0]);
    expect(cmp.greedy.allocations).toEqual(cmp.lp.allocations.map((a) => ({ ...a, qty: Math.round(a.qty) })));
  });
});

describe('LP against greedy on seeded random instances', () => {
  const paramSets: Partial<AllocationParams>[] = [
    {},
    { latenessPenaltyPerWeek: 0.3, maxLatenessWeeks: 20 },
    { maxLatenessWeeks: 0 },
    { classWeights: { A: 10, B: 3, C: 1 }, defaultWeight: 0.5, latenessPenaltyPerWeek: 0.01, maxLatenessWeeks: 51 },
  ];

  it('LP >= greedy, both conserve supply and demand, on 300 instances', async () => {
    let worst = Infinity;
    for (let seed = 1; seed <= 300; seed++) {
      const params = paramSets[seed % paramSets.length]!;
      const problem = randomInstance(seed, {
        demands: 10 + (seed % 7) * 15,
        linesPerGroup: 1 + (seed % 13),
        suppliesPerLine: 0.2 + (seed % 5) * 0.3,
        coverage: 0.4 + (seed % 4) * 0.3,
        integral: seed % 3 !== 0,
      });
      const cmp = await compareAllocations(problem, params);
      expect(checkAllocation(problem, cmp.greedy, params)).toEqual([]);
      expect(checkAllocation(problem, cmp.lp, params)).toEqual([]);
      expect(cmp.lp_objective).toBeGreaterThanOrEqual(cmp.greedy_objective - 1e-7 * Math.max(1, cmp.lp_objective));
      expect(cmp.lp.objective).toBeCloseTo(cmp.lp.lp.solver_objective, 6);
      worst = Math.min(worst, cmp.greedy_pct_of_lp);
    }
    console.log(`greedy as % of LP over 300 random instances: worst ${worst.toFixed(2)}%`);
  });

  it('the same optimum whatever the batching (one model per group, a few batches, one model)', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const problem = randomInstance(seed, { demands: 400, linesPerGroup: 2 + seed });
      const perGroup = await allocateLp(problem, {}, { batchColumns: 1 });
      const batched = await allocateLp(problem, {}, { batchColumns: 300 });
      const single = await allocateLp(problem, {}, { batchColumns: Infinity });
      expect(single.lp.batches).toBe(1);
      expect(perGroup.lp.batches).toBeGreaterThan(batched.lp.batches);
      expect(batched.objective).toBeCloseTo(single.objective, 6);
      expect(perGroup.objective).toBeCloseTo(single.objective, 6);
    }
  });
});

describe('determinism and errors', () => {
  it('the same allocation on every run and for any input order', async () => {
    for (const seed of [3, 4, 5]) {
      const problem = randomInstance(seed, { demands: 500, linesPerGroup: 8 });
      const a = await allocateLp(problem);
      const b = await allocateLp(problem);
      const c = await allocateLp({ supplies: shuffled(problem.supplies, seed), demands: shuffled(problem.demands, seed + 7) });
      expect(b.allocations).toEqual(a.allocations);
      expect(c.allocations).toEqual(a.allocations);
      expect(c.objective).toBe(a.objective);
    }
  });

  it('whole quantities give a whole allocation (the transportation matrix is totally unimodular)', async () => {
    const problem = randomInstance(11, { demands: 300, linesPerGroup: 6 });
    const r = await allocateLp(problem);
    for (const a of r.allocations) expect(Math.abs(a.qty - Math.round(a.qty))).toBeLessThan(1e-9);
  });

  it('a time limit already spent throws AllocationLpError; the runtime can be discarded and reloaded', async () => {
    const problem = randomInstance(2, { demands: 50 });
    await expect(allocateLp(problem, {}, { timeLimitSeconds: 0 })).rejects.toThrow(AllocationLpError);
    const before = await getHighs();
    discardHighs();
    const after = await getHighs();
    expect(after).not.toBe(before);
    expect((await allocateLp(problem)).objective).toBeCloseTo(allocateGreedy(problem).objective, -10); // solves at all
  });
});
