import { leadTimeDemand } from '../../../domain/inventory/leadTimeDemand';
import { NetworkCycleError, planItemNetwork, type MeioSite, type SiteTarget } from '../../../domain/inventory/meio';
import { fillRate } from '../../../domain/inventory/rq';

const target = (over: Partial<SiteTarget> = {}): SiteTarget => ({
  service_type: 'fill_rate', target_service: 0.95, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ', review_period_weeks: 1, source: 'scenario', ...over,
});

const site = (siteId: number, over: Partial<MeioSite> = {}): MeioSite => ({
  siteId, demand: null, hasSeries: false, unitCost: 10, masterLeadTime: null, moq: 0, orderMultiple: 1, target: target(), ...over,
});

describe('planItemNetwork', () => {
  test('one site: EOQ order quantity and the smallest reorder point that meets the fill-rate target, exactly', () => {
    const { skus } = planItemNetwork([site(1, { demand: { type: 'poisson', lambda: 5 }, hasSeries: true, masterLeadTime: 2 })], []);
    expect(skus).toHaveLength(1);
    const s = skus[0];
    // Q* = sqrt(2 K D / h) = sqrt(2 · 50 · 260 / 2.5) = 101.98 → 102 units
    expect(s.orderQty).toBe(102);
    const ltd = leadTimeDemand({ type: 'poisson', lambda: 5 }, 2);
    expect(fillRate(ltd, s.reorderPoint!, 102)).toBeGreaterThanOrEqual(0.95);
    expect(fillRate(ltd, s.reorderPoint! - 1, 102)).toBeLessThan(0.95);
    expect(s).toMatchObject({ echelonModel: 'single', netLeadTimeWeeks: 2, ltdMean: 10, meetsTarget: true, safetyStock: s.reorderPoint! - 10 });
    expect(s.investment).toBeCloseTo(10 * s.expectedOnHand!, 9);
  });

  test('cycle-service target: the reorder point is the LTD quantile', () => {
    const { skus } = planItemNetwork([site(1, { demand: { type: 'poisson', lambda: 5 }, hasSeries: true, masterLeadTime: 2, target: target({ service_type: 'cycle_service', target_service: 0.9 }) })], []);
    // Poisson(10): P(D <= 13) = 0.8645, P(D <= 14) = 0.9165
    expect(skus[0].reorderPoint).toBe(14);
    expect(skus[0].expectedCsl).toBeCloseTo(0.9165, 4);
  });

  test('a warehouse feeding two stores: pooled Poisson demand upstream and GSM net lead times', () => {
    const sites = [
      site(1, { masterLeadTime: 4, unitCost: 5 }),
      site(2, { demand: { type: 'poisson', lambda: 3 }, hasSeries: true }),
      site(3, { demand: { type: 'poisson', lambda: 2 }, hasSeries: true }),
    ];
    const routes = [
      { from: 1, to: 2, type: 'REPLENISHMENT', leadTime: 1, priority: 1 },
      { from: 1, to: 3, type: 'TRANSFER', leadTime: 1, priority: 1 },
      { from: 3, to: 2, type: 'RETURN', leadTime: 1, priority: 1 },
    ];
    const { skus, group } = planItemNetwork(sites, routes);
    expect(skus.map((s) => s.siteId)).toEqual([1, 2, 3]);
    expect(skus.every((s) => s.echelonModel === 'gsm')).toBe(true);
    // the warehouse sees the stores' pooled demand, 3 + 2 per week
    expect(skus[0].weeklyMean).toBeCloseTo(5, 12);
    // every stage's net lead time is between 0 and its lead time plus what it waits for upstream
    for (const s of skus) expect(s.netLeadTimeWeeks!).toBeGreaterThanOrEqual(0);
    expect(skus[1].netLeadTimeWeeks! + skus[0].netLeadTimeWeeks!).toBeCloseTo(5, 12);
    expect(group.nSkus).toBe(3);
    expect(group.meetsTarget).toBe(true);
    expect(group.curve.length).toBeGreaterThan(2);
    // the curve rises in both investment and service
    for (let k = 1; k < group.curve.length; k++) {
      expect(group.curve[k].fill_rate).toBeGreaterThanOrEqual(group.curve[k - 1].fill_rate);
    }
  });

  test('the group target is met at least investment: the cheaper store carries more of the service', () => {
    const sites = [
      site(1, { demand: { type: 'poisson', lambda: 4 }, hasSeries: true, masterLeadTime: 2, unitCost: 1 }),
      site(2, { demand: { type: 'poisson', lambda: 4 }, hasSeries: true, masterLeadTime: 2, unitCost: 100 }),
    ];
    const { skus, group } = planItemNetwork(sites, []);
    expect(group.targetService).toBeCloseTo(0.95, 12);
    expect(group.expectedFillRate!).toBeGreaterThanOrEqual(0.95);
    expect(skus[0].expectedFillRate!).toBeGreaterThan(skus[1].expectedFillRate!);
    // the same targets met site by site cost more than the group's allocation
    const single = [planItemNetwork([sites[0]], []).skus[0], planItemNetwork([sites[1]], []).skus[0]];
    expect(group.investment).toBeLessThan(single[0].investment! + single[1].investment!);
    expect(skus[1].diagnostics.map((d) => d.code)).toContain('group_allocation');
  });

  test('a budget stops the optimiser and says so', () => {
    const sites = [
      site(1, { demand: { type: 'poisson', lambda: 4 }, hasSeries: true, masterLeadTime: 2, unitCost: 10 }),
      site(2, { demand: { type: 'poisson', lambda: 4 }, hasSeries: true, masterLeadTime: 2, unitCost: 10 }),
    ];
    const free = planItemNetwork(sites, []);
    const tight = planItemNetwork(sites, [], { budget: free.group.investment * 0.8 });
    expect(tight.group.meetsTarget).toBe(false);
    expect(tight.skus[0].diagnostics.map((d) => d.code)).toContain('budget');
  });

  test('an IO override is a floor the optimiser never goes under', () => {
    const sites = [
      site(1, { demand: { type: 'poisson', lambda: 4 }, hasSeries: true, masterLeadTime: 2, unitCost: 100, target: target({ target_service: 0.99, source: 'override' }) }),
      site(2, { demand: { type: 'poisson', lambda: 4 }, hasSeries: true, masterLeadTime: 2, unitCost: 1 }),
    ];
    const { skus } = planItemNetwork(sites, []);
    expect(skus[0].expectedFillRate!).toBeGreaterThanOrEqual(0.99);
  });

  test('large demand: the greedy starts where the lead-time demand begins, so it reaches the target instead of stalling on zero gains', () => {
    const big = (siteId: number, unitCost: number) => site(siteId, { demand: { type: 'poisson', lambda: 400 }, hasSeries: true, masterLeadTime: 4, unitCost, target: target({ service_type: 'cycle_service' }) });
    const { skus, group } = planItemNetwork([big(1, 1), big(2, 50)], []);
    expect(group.meetsTarget).toBe(true);
    expect(group.expectedFillRate!).toBeGreaterThanOrEqual(0.95);
    // lead-time demand Poisson(1600): both reorder points sit near its upper quantiles, the cheap site higher
    expect(skus[0].reorderPoint!).toBeGreaterThan(1600);
    expect(skus[0].reorderPoint!).toBeGreaterThan(skus[1].reorderPoint!);
  });

  test('diagnostics: no distribution, no route', () => {
    const { skus } = planItemNetwork([site(1, { hasSeries: true, masterLeadTime: 2 }), site(2, { hasSeries: true, demand: { type: 'poisson', lambda: 1 } })], []);
    expect(skus.map((s) => [s.siteId, s.reorderPoint, s.diagnostics.map((d) => d.code)])).toEqual([[1, null, ['no_distribution']], [2, null, ['no_route']]]);
  });

  test('a supply cycle is refused naming the sites', () => {
    const routes = [
      { from: 1, to: 2, type: 'TRANSFER', leadTime: 1, priority: 1 },
      { from: 2, to: 1, type: 'BUY', leadTime: 1, priority: 1 },
    ];
    expect(() => planItemNetwork([site(1), site(2)], routes)).toThrow(new NetworkCycleError('route cycle: 1 → 2 → 1'));
  });
});
