import { isOptimalForGroup } from '../../../domain/allocation/certify';
import { allocateGreedy } from '../../../domain/allocation/greedy';
import { allocateLp } from '../../../domain/allocation/lp';
import { type AllocationProblem, type AllocationRow, arcValue, demandWeight, groupByItemSite, makeRow, resolveParams } from '../../../domain/allocation/model';
import { solveAllocation } from '../../../domain/allocation/solve';
import { randomInstance } from '../../../bench/lib/allocationInstances';
import { dem, sup } from '../../support/allocationBuilders';

const params = resolveParams({});

function rowsFor(problem: AllocationProblem, pairs: Array<[string, string, number]>): AllocationRow[] {
  return pairs.map(([sid, did, qty]) => {
    const s = problem.supplies.find((x) => x.supply_id === sid)!;
    const d = problem.demands.find((x) => x.demand_id === did)!;
    return makeRow(s, d, qty, arcValue(s, d, demandWeight(d, params), params)!);
  });
}

const onlyGroup = (problem: AllocationProblem) => groupByItemSite(problem.supplies, problem.demands)[0]!;

describe('isOptimalForGroup: the negative-cycle test of a group allocation', () => {
  // A (weight 3) due week 2, C (weight 1) due week 0; supplies at weeks 0 and 3, one unit each.
  // A<-week 0: 3, A<-week 3: 2.95, C<-week 0: 1, C<-week 3: 0.85 (three weeks late).
  const problem: AllocationProblem = {
    supplies: [sup('FIRM_1', 1, 0), sup('FIRM_2', 1, 3)],
    demands: [dem('DA', 1, 2, 'A'), dem('DC', 1, 0, 'C')],
  };

  it('refuses the greedy answer the LP beats, and proves the LP answer', async () => {
    const greedy = allocateGreedy(problem);
    // The greedy serves the A line first from the on-time unit and leaves the C line the late one: 3 + 0.85.
    expect(greedy.allocations.map((r) => `${r.supply_id}->${r.demand_id}`)).toEqual(['FIRM_1->DA', 'FIRM_2->DC']);
    expect(greedy.objective).toBeCloseTo(3.85, 12);
    expect(isOptimalForGroup(onlyGroup(problem), greedy.allocations, params)).toBe(false);
    const lp = await allocateLp(problem);
    expect(lp.objective).toBeCloseTo(3.95, 9);
    expect(isOptimalForGroup(onlyGroup(problem), lp.allocations, params)).toBe(true);
  });

  it('refuses an allocation that leaves stock unused where a short line has an arc to it', () => {
    expect(isOptimalForGroup(onlyGroup(problem), rowsFor(problem, [['FIRM_2', 'DA', 1]]), params)).toBe(false);
    expect(isOptimalForGroup(onlyGroup(problem), [], params)).toBe(false);
  });

  it('refuses rows on an arc the model does not have or of another group', () => {
    const far: AllocationProblem = { supplies: [sup('SO_1', 5, 30)], demands: [dem('D1', 5, 0, 'A')] };
    const s = far.supplies[0]!;
    const d = far.demands[0]!;
    expect(isOptimalForGroup(onlyGroup(far), [makeRow(s, d, 5, 1)], params)).toBe(false);
    expect(isOptimalForGroup(onlyGroup(far), [], params)).toBe(true);
    const other = { ...makeRow(s, d, 5, 1), supply_id: 'SO_9' };
    expect(isOptimalForGroup(onlyGroup(far), [other], params)).toBe(false);
  });

  it('agrees with HiGHS on every group of generated instances: proven exactly where the greedy reaches the LP', async () => {
    let proven = 0;
    let groups = 0;
    for (const seed of [11, 12, 13]) {
      const problem = randomInstance(seed, { demands: 3_000 });
      const greedy = allocateGreedy(problem);
      const lp = await allocateLp(problem);
      const byGroup = (rows: AllocationRow[]) => {
        const m = new Map<string, { rows: AllocationRow[]; objective: number }>();
        for (const r of rows) {
          const k = `${r.item_id}|${r.site_id}`;
          const e = m.get(k) ?? m.set(k, { rows: [], objective: 0 }).get(k)!;
          e.rows.push(r);
          e.objective += r.value * r.qty;
        }
        return m;
      };
      const g = byGroup(greedy.allocations);
      const l = byGroup(lp.allocations);
      for (const group of groupByItemSite(problem.supplies, problem.demands)) {
        const k = `${group.item_id}|${group.site_id}`;
        const gObj = g.get(k)?.objective ?? 0;
        const lObj = l.get(k)?.objective ?? 0;
        const greedyOptimal = lObj - gObj <= 1e-7 * Math.max(1, lObj);
        groups += 1;
        const ok = isOptimalForGroup(group, g.get(k)?.rows ?? [], params);
        if (ok) proven += 1;
        expect([k, ok]).toEqual([k, greedyOptimal]);
        expect([k, isOptimalForGroup(group, l.get(k)?.rows ?? [], params)]).toEqual([k, true]);
      }
    }
    // Both kinds occur, so the test tells a proof from a refusal.
    expect(proven).toBeGreaterThan(groups * 0.2);
    expect(proven).toBeLessThan(groups * 0.9);
  });
});

describe('solveAllocation asks the certificate before HiGHS', () => {
  it('stores an allocation with the LP objective and sends only the unproven groups to HiGHS', async () => {
    const problem = randomInstance(21, { demands: 4_000 });
    const solved = await solveAllocation(problem);
    const lp = await allocateLp(problem);
    expect(solved.method).toBe('lp');
    expect(solved.lp!.objective).toBeCloseTo(lp.objective, 6);
    expect(solved.violations.lp).toEqual([]);
    const stats = solved.lp_stats!;
    expect(stats.certified_groups).toBeGreaterThan(0);
    expect(stats.certified_groups).toBeLessThan(solved.groups);
    expect(stats.columns).toBeLessThan(lp.lp.columns);
    expect(stats.highs_version).toEqual(lp.lp.highs_version);
  });

  it('needs no HiGHS model when the greedy is optimal in every group', async () => {
    const problem = { supplies: [sup('SO_1', 10, 0), sup('SO_2', 10, 10)], demands: [dem('D1', 10, 20, 'A'), dem('D2', 10, 5, 'B')] };
    const solved = await solveAllocation(problem);
    expect(solved.method).toBe('lp');
    expect(solved.lp!.objective).toBeCloseTo(42.5, 12);
    expect(solved.lp_stats).toEqual({ highs_version: null, batches: 0, columns: 0, rows: 0, reloads: 0, certified_groups: 1 });
  });
});
