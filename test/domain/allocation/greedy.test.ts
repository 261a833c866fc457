import { allocateGreedy } from '../../../domain/allocation/greedy';
import {
  arcValue,
  checkAllocation,
  DEFAULT_ALLOCATION_PARAMS,
  demandWeight,
  resolveParams,
} from '../../../domain/allocation/model';
import { randomInstance, shuffled } from '../../../bench/lib/allocationInstances';
import { dem, sup } from '../../support/allocationBuilders';

const pairs = (r: { allocations: { supply_id: string; demand_id: string; qty: number }[] }) =>
  r.allocations.map((a) => `${a.supply_id}->${a.demand_id}:${a.qty}`);

describe('the model', () => {
  const p = DEFAULT_ALLOCATION_PARAMS;

  it('v = weight * reliability - penalty * weeks late; no arc past the cap, at value <= 0 or across item/site', () => {
    expect(arcValue(sup('SO_1', 5, 3), dem('D', 5, 3, 'A'), 3, p)).toBeCloseTo(2.55, 15);
    expect(arcValue(sup('FIRM_1', 5, 0), dem('D', 5, 3, 'C'), 1, p)).toBe(1); // early: no holding cost
    expect(arcValue(sup('SO_1', 5, 7), dem('D', 5, 3, 'B'), 2, p)).toBeCloseTo(1.7 - 0.2, 15);
    expect(arcValue(sup('SO_1', 5, 11), dem('D', 5, 3, 'C'), 1, p)).toBeCloseTo(0.85 - 0.4, 15); // 8 weeks: the cap
    expect(arcValue(sup('SO_1', 5, 12), dem('D', 5, 3, 'A'), 3, p)).toBeNull(); // 9 weeks
    expect(arcValue(sup('SO_1', 5, 3, { site_id: 2 }), dem('D', 5, 3, 'A'), 3, p)).toBeNull();
    expect(arcValue(sup('SO_1', 5, 3, { item_id: 2 }), dem('D', 5, 3, 'A'), 3, p)).toBeNull();
    const steep = resolveParams({ latenessPenaltyPerWeek: 0.5, maxLatenessWeeks: 20 });
    expect(arcValue(sup('SO_1', 5, 5), dem('D', 5, 3, 'C'), 1, steep)).toBeNull(); // 0.85 - 1.0 < 0
    expect(arcValue(sup('FIRM_1', 5, 4), dem('D', 5, 3, 'C'), 1, steep)).toBeCloseTo(0.5, 15);
  });

  it('weights: A/B/C 3/2/1 by default, null and unknown classes take defaultWeight', () => {
    const p2 = resolveParams();
    expect(['A', 'B', 'C', null, 'Z', 'toString'].map((c) => demandWeight(dem('D', 1, 0, c), p2))).toEqual([3, 2, 1, 1, 1, 1]);
    expect(demandWeight(dem('D', 1, 0, 'gold'), resolveParams({ classWeights: { gold: 10 }, defaultWeight: 0.5 }))).toBe(10);
    expect(demandWeight(dem('D', 1, 0, 'A'), resolveParams({ classWeights: { gold: 10 }, defaultWeight: 0.5 }))).toBe(0.5);
  });

  it('rejects bad parameters and bad rows', () => {
    expect(() => resolveParams({ latenessPenaltyPerWeek: -1 })).toThrow(RangeError);
    expect(() => resolveParams({ maxLatenessWeeks: 1.5 })).toThrow(RangeError);
    expect(() => resolveParams({ classWeights: { A: 0 } })).toThrow(RangeError);
    expect(() => allocateGreedy({ supplies: [sup('SO_1', 1, 0), sup('SO_1', 2, 0)], demands: [] })).toThrow(/duplicate supply_id/);
    expect(() => allocateGreedy({ supplies: [], demands: [dem('D', 1, 0, 'A'), dem('D', 1, 0, 'A')] })).toThrow(/duplicate demand_id/);
    expect(() => allocateGreedy({ supplies: [sup('SO_1', NaN, 0)], demands: [] })).toThrow(RangeError);
  });

  it('checkAllocation finds over-allocation of a supply, of a line, and rows off the model', () => {
    const problem = { supplies: [sup('SO_1', 5, 0)], demands: [dem('D1', 4, 2, 'A'), dem('D2', 4, 2, 'A')] };
    const row = (demand_id: string, qty: number, value = 2.55) => ({ ...allocateGreedy(problem).allocations[0]!, demand_id, qty, value });
    expect(checkAllocation(problem, { allocations: [row('D1', 4), row('D2', 1)] })).toEqual([]);
    expect(checkAllocation(problem, { allocations: [row('D1', 4), row('D2', 2)] }).map((v) => v.kind)).toEqual(['supply']);
    expect(checkAllocation(problem, { allocations: [row('D1', 5)] }).map((v) => v.kind)).toEqual(['demand']);
    expect(checkAllocation(problem, { allocations: [row('D1', 1, 3)] }).map((v) => v.kind)).toEqual(['arc']);
  });
});

describe('greedy order', () => {
  it('serves by weight, then due week; on time first, then reliability, then arrival', () => {
    const r = allocateGreedy({
      supplies: [sup('SO_1', 10, 0), sup('FIRM_1', 4, 2), sup('SO_2', 10, 20), sup('FIRM_2', 10, 40)],
      demands: [dem('C1', 10, 1, 'C'), dem('A1', 6, 10, 'A'), dem('B1', 5, 0, 'B'), dem('A2', 6, 5, 'A')],
    });
    // A2 (A, due 5): FIRM_1 (on time, firm) 4, then SO_1 (on time, engine) 2.
    // A1 (A, due 10): SO_1 6 (on time; FIRM_1 is gone).
    // B1 (B, due 0): SO_1 2 on time, then late: no firm within 8 weeks; SO_2 is 20 weeks late: 3 short.
    // C1 (C, due 1): nothing on time; FIRM_2 (39 late) and SO_2 (19 late) are past the cap: unserved.
    expect(pairs(r)).toEqual(['SO_1->A1:6', 'FIRM_1->A2:4', 'SO_1->A2:2', 'SO_1->B1:2']); // rows sorted by demand_id, supply_id
    expect(r.objective).toBeCloseTo(4 * 3 + 8 * 2.55 + 2 * 1.7, 12);
    expect(r.served_qty).toBe(14);
    expect(r.late_qty).toBe(0);
  });

  it('late supply: firm before engine, then the least late; is_firm and late_weeks on the rows', () => {
    const r = allocateGreedy({
      supplies: [sup('SO_1', 3, 4), sup('SO_2', 3, 6), sup('FIRM_1', 2, 7)],
      demands: [dem('D1', 6, 2, 'B')],
    });
    expect(pairs(r)).toEqual(['FIRM_1->D1:2', 'SO_1->D1:3', 'SO_2->D1:1']);
    expect(r.allocations.map((a) => [a.is_firm, a.late_weeks])).toEqual([[1, 5], [0, 2], [0, 4]]);
    expect(r.late_qty).toBe(6);
    expect(r.objective).toBeCloseTo(2 * (2 - 0.25) + 3 * (1.7 - 0.1) + 1 * (1.7 - 0.2), 12);
  });

  it('supply of another item or site is never used; qty <= 0 rows take no part', () => {
    const r = allocateGreedy({
      supplies: [sup('SO_1', 5, 0, { site_id: 2 }), sup('SO_2', 5, 0, { item_id: 2 }), sup('SO_3', 0, 0), sup('SO_4', -3, 0)],
      demands: [dem('D1', 5, 3, 'A'), dem('D2', 0, 3, 'A')],
    });
    expect(r.allocations).toEqual([]);
    expect(r.objective).toBe(0);
  });

  it('conserves supply and demand on random instances, and is independent of input order', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const problem = randomInstance(seed, { demands: 300, linesPerGroup: 1 + (seed % 25), integral: seed % 2 === 0 });
      const r = allocateGreedy(problem);
      expect(checkAllocation(problem, r)).toEqual([]);
      const again = allocateGreedy({ supplies: shuffled(problem.supplies, seed), demands: shuffled(problem.demands, seed + 1) });
      expect(again.allocations).toEqual(r.allocations);
      expect(again.objective).toBe(r.objective);
    }
  });
});
