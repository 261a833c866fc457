import { compareAllocations } from '../../../domain/allocation/compare';
import { allocateGreedy } from '../../../domain/allocation/greedy';
import { allocateLp } from '../../../domain/allocation/lp';
import type { AllocationParams } from '../../../domain/allocation/model';
import { randomInstance } from '../../../bench/lib/allocationInstances';
import { dem, sup } from '../../support/allocationBuilders';

const pairs = (r: { allocations: { supply_id: string; demand_id: string; qty: number }[] }) =>
  r.allocations.map((a) => `${a.supply_id}->${a.demand_id}:${Math.round(a.qty * 1e9) / 1e9}`);

describe('greedy and LP pick the same supply for a line (document 2 §4.3 rule 3)', () => {
  it('a firm order one week late (1.0 - 0.05 = 0.95) beats an engine order on time (0.85), in both', async () => {
    const problem = { supplies: [sup('SO_1', 10, 4), sup('FIRM_1', 10, 5)], demands: [dem('D1', 10, 4, 'C')] };
    const cmp = await compareAllocations(problem);
    expect(pairs(cmp.lp)).toEqual(['FIRM_1->D1:10']);
    expect(pairs(cmp.greedy)).toEqual(['FIRM_1->D1:10']);
    expect(cmp.greedy.objective).toBeCloseTo(9.5, 12);
    expect(cmp.greedy_pct_of_lp).toBeCloseTo(100, 9);
  });

  it('while less than 3 weeks late for a C line (0.15 / 0.05), 6 for B, 9 for A; beyond, the engine order on time', async () => {
    for (const [cls, weeksLate, winner] of [
      ['C', 2, 'FIRM_1'], ['C', 4, 'SO_1'], ['A', 8, 'FIRM_1'], ['B', 5, 'FIRM_1'], ['B', 7, 'SO_1'],
    ] as const) {
      const problem = { supplies: [sup('SO_1', 10, 10), sup('FIRM_1', 10, 10 + weeksLate)], demands: [dem('D1', 10, 10, cls)] };
      const cmp = await compareAllocations(problem);
      expect([cls, weeksLate, pairs(cmp.greedy)]).toEqual([cls, weeksLate, [`${winner}->D1:10`]]);
      expect(pairs(cmp.lp)).toEqual(pairs(cmp.greedy));
    }
  });

  it('an on-time line takes the latest supply that is on time, leaving earlier ones for lines due earlier', async () => {
    // The A line (due 20) is served first; SO_1 (week 0) and SO_2 (week 10) are both on time for it and worth the
    // same. Taking SO_2 leaves SO_1 on time for the B line due 5: 25.5 + 17 = 42.5, the LP's optimum.
    const problem = { supplies: [sup('SO_1', 10, 0), sup('SO_2', 10, 10)], demands: [dem('D1', 10, 20, 'A'), dem('D2', 10, 5, 'B')] };
    const cmp = await compareAllocations(problem);
    expect(pairs(cmp.greedy)).toEqual(['SO_2->D1:10', 'SO_1->D2:10']);
    expect(pairs(cmp.lp)).toEqual(pairs(cmp.greedy));
    expect(cmp.greedy_objective).toBeCloseTo(42.5, 12);
  });
});

describe('agreement of greedy and LP on generated instances', () => {
  const paramSets: Partial<AllocationParams>[] = [
    {},
    { latenessPenaltyPerWeek: 0.3, maxLatenessWeeks: 20 },
    { maxLatenessWeeks: 0 },
    { classWeights: { A: 10, B: 3, C: 1 }, defaultWeight: 0.5, latenessPenaltyPerWeek: 0.01, maxLatenessWeeks: 51 },
  ];

  it('the greedy reaches the optimum on 40 % of 300 instances and 99 % of it on average, 90 % at worst', async () => {
    // Measured when the greedy moved from "on time first" to "highest value first": optimal on 58 → 132 of these
    // 300 instances, mean 96.9 → 99.3 % of the LP's objective, worst 78.0 → 91.9 %. The floors below guard that.
    let equal = 0;
    let sum = 0;
    let worst = Infinity;
    const n = 300;
    for (let seed = 1; seed <= n; seed++) {
      const params = paramSets[seed % paramSets.length]!;
      const problem = randomInstance(seed, {
        demands: 10 + (seed % 7) * 15,
        linesPerGroup: 1 + (seed % 13),
        suppliesPerLine: 0.2 + (seed % 5) * 0.3,
        coverage: 0.4 + (seed % 4) * 0.3,
        integral: seed % 3 !== 0,
      });
      const greedy = allocateGreedy(problem, params);
      const lp = await allocateLp(problem, params);
      const pct = lp.objective === 0 ? 100 : (100 * greedy.objective) / lp.objective;
      if (Math.abs(greedy.objective - lp.objective) <= 1e-7 * Math.max(1, lp.objective)) equal++;
      sum += pct;
      worst = Math.min(worst, pct);
    }
    console.log(`greedy vs LP on ${n} instances: optimal on ${equal} (${((100 * equal) / n).toFixed(1)} %), mean ${(sum / n).toFixed(2)} %, worst ${worst.toFixed(2)} % of the LP objective`);
    expect(equal / n).toBeGreaterThanOrEqual(0.4);
    expect(sum / n).toBeGreaterThanOrEqual(99);
    expect(worst).toBeGreaterThanOrEqual(90);
  });

  it('where they differ: a firm order a higher line could do without is still given to it', async () => {
    // FIRM_1 is worth 2.0 to the B line and 1.0 to the C line; SO_1 can serve only the B line (the C line is due 20
    // weeks before it arrives). The greedy takes the highest arc first, FIRM_1 -> D2, and D1 goes unserved: 20. The LP
    // gives FIRM_1 to D1 and SO_1 to D2: 10 + 17 = 27.
    const problem = { supplies: [sup('FIRM_1', 10, 10), sup('SO_1', 10, 30)], demands: [dem('D1', 10, 10, 'C'), dem('D2', 10, 40, 'B')] };
    const cmp = await compareAllocations(problem);
    expect(pairs(cmp.greedy)).toEqual(['FIRM_1->D2:10']);
    expect(pairs(cmp.lp)).toEqual(['FIRM_1->D1:10', 'SO_1->D2:10']);
    expect(cmp.greedy_pct_of_lp).toBeCloseTo((100 * 20) / 27, 9);
  });
});
