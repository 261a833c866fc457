import { leadTimeDemand } from '../../../domain/inventory/leadTimeDemand';
import { NetworkCycleError, planItemNetwork, type MeioSite, type SiteTarget } from '../../../domain/inventory/meio';
import { evaluateMetric, type MetricSystem } from '../../../domain/inventory/metric';
import { evaluateMetricTree, metricTreeCurve } from '../../../domain/inventory/metricTree';
import { periodicFillRate } from '../../../domain/inventory/periodicReview';

const target = (over: Partial<SiteTarget> = {}): SiteTarget => ({
  service_type: 'fill_rate', target_service: 0.95, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ', review_period_weeks: 1, source: 'scenario', ...over,
});

const site = (siteId: number, over: Partial<MeioSite> = {}): MeioSite => ({
  siteId, demand: null, hasSeries: false, unitCost: 10, masterLeadTime: null, moq: 0, orderMultiple: 1, target: target(), ...over,
});

describe('planItemNetwork', () => {
  test('one site: EOQ order quantity and the smallest reorder point that meets the fill-rate target with weekly review, exactly', () => {
    const { skus } = planItemNetwork([site(1, { demand: { type: 'poisson', lambda: 5 }, hasSeries: true, masterLeadTime: 2 })], []);
    expect(skus).toHaveLength(1);
    const s = skus[0];
    // Q* = sqrt(2 K D / h) = sqrt(2 · 50 · 260 / 2.5) = 101.98 → 102 units
    expect(s.orderQty).toBe(102);
    // weekly buckets: the position is seen once a week, so the level covers the lead time plus that week (2 + 1)
    const periodic = { lead: leadTimeDemand({ type: 'poisson', lambda: 5 }, 2), ends: [leadTimeDemand({ type: 'poisson', lambda: 5 }, 3)], periodMean: 5 };
    expect(periodicFillRate(periodic, s.reorderPoint!, 102)).toBeGreaterThanOrEqual(0.95);
    expect(periodicFillRate(periodic, s.reorderPoint! - 1, 102)).toBeLessThan(0.95);
    expect(s).toMatchObject({ echelonModel: 'single', netLeadTimeWeeks: 2, reviewPeriodWeeks: 1, ltdMean: 15, orderUpTo: s.reorderPoint! + 102, meetsTarget: true, safetyStock: s.reorderPoint! - 15 });
    expect(s.expectedFillRate).toBeCloseTo(periodicFillRate(periodic, s.reorderPoint!, 102), 12);
    expect(s.investment).toBeCloseTo(10 * s.expectedOnHand!, 9);
  });

  test('cycle-service target: the lowest position a weekly review leaves is the protection interval\'s quantile', () => {
    const { skus } = planItemNetwork([site(1, { demand: { type: 'poisson', lambda: 5 }, hasSeries: true, masterLeadTime: 2, target: target({ service_type: 'cycle_service', target_service: 0.9 }) })], []);
    // demand over 2 + 1 weeks is Poisson(15): P(D <= 19) = 0.8752, P(D <= 20) = 0.9170; the position after a review is at least r + 1
    expect(skus[0].reorderPoint).toBe(19);
    expect(skus[0].expectedCsl).toBeCloseTo(0.917029, 5);
  });

  test('base stock lifts the position to S every review: the exact periodic fill rate at S, and S - 1 falls short', () => {
    const { skus } = planItemNetwork([site(1, { demand: { type: 'poisson', lambda: 4 }, hasSeries: true, masterLeadTime: 1, target: target({ policy: 'base_stock', review_period_weeks: 2 }) })], []);
    const s = skus[0];
    expect(s).toMatchObject({ policy: 'base_stock', reviewPeriodWeeks: 2, orderQty: 8, reorderPoint: s.orderUpTo! - 1, ltdMean: 12 });
    // one-for-one at S: short per two-week cycle = E(D(3) − S)⁺ − E(D(1) − S)⁺, over the cycle's demand of 8
    const exact = (S: number) => 1 - (leadTimeDemand({ type: 'poisson', lambda: 4 }, 3).loss(S) - leadTimeDemand({ type: 'poisson', lambda: 4 }, 1).loss(S)) / 8;
    expect(s.expectedFillRate).toBeCloseTo(exact(s.orderUpTo!), 12);
    expect(exact(s.orderUpTo!)).toBeGreaterThanOrEqual(0.95);
    expect(exact(s.orderUpTo! - 1)).toBeLessThan(0.95);
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

  test('every demand site stands at its own target, as planned alone; the curve meets the group target for less, which a budget spends', () => {
    const sites = [
      site(1, { demand: { type: 'poisson', lambda: 4 }, hasSeries: true, masterLeadTime: 2, unitCost: 1 }),
      site(2, { demand: { type: 'poisson', lambda: 4 }, hasSeries: true, masterLeadTime: 2, unitCost: 100 }),
    ];
    const { skus, group } = planItemNetwork(sites, []);
    const single = [planItemNetwork([sites[0]], []).skus[0], planItemNetwork([sites[1]], []).skus[0]];
    expect(skus.map((s) => s.reorderPoint)).toEqual(single.map((s) => s.reorderPoint));
    for (const s of skus) {
      expect(s.expectedFillRate!).toBeGreaterThanOrEqual(0.95);
      expect(s.meetsTarget).toBe(true);
      expect(s.diagnostics).toEqual([]);
    }
    expect(group.targetService).toBeCloseTo(0.95, 12);
    expect(group.expectedFillRate!).toBeCloseTo((single[0].expectedFillRate! + single[1].expectedFillRate!) / 2, 12);
    expect(group.investment).toBeCloseTo(single[0].investment! + single[1].investment!, 9);
    expect(group.curveInvestment!).toBeCloseTo(group.investment, 9);
    // the greedy meets the demand-weighted 95 % for less, with the cheap store carrying more of the service
    const cheaper = group.curve.find((p) => p.fill_rate >= 0.95)!;
    expect(cheaper.investment).toBeLessThan(group.curveInvestment!);
    // and that is where a budget between the two stops
    const within = planItemNetwork(sites, [], { budget: (cheaper.investment + group.curveInvestment!) / 2 });
    expect(within.group.expectedFillRate!).toBeGreaterThanOrEqual(0.95);
    expect(within.skus[0].expectedFillRate!).toBeGreaterThan(within.skus[1].expectedFillRate!);
    expect(within.skus[1].expectedFillRate!).toBeLessThan(0.95);
    expect(within.skus[1].diagnostics.map((d) => d.code)).toEqual(['budget']);
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
    // cover demand Poisson(2000) (4 weeks of lead time and the week of review): each site at its own 95 % quantile
    expect(skus[0].reorderPoint!).toBeGreaterThan(2000);
    expect(skus[1].reorderPoint).toBe(skus[0].reorderPoint);
    // and the curve climbs past the target rather than stalling where a unit buys no service
    expect(group.curve[group.curve.length - 1].fill_rate).toBeGreaterThanOrEqual(0.95);
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

describe('planItemNetwork: repairable items (METRIC)', () => {
  // SUP sells new units to the DEPOT (6 weeks); the depot ships to bases B1, B2 in a week; the bases return failed units
  // to the depot (1 week), which sends them to a repair SHOP (REPAIR, 2 weeks including the repair), which sends them
  // back to the depot (TRANSFER, 1 week, a second-choice supply route): a 4-week loop that lands at the depot
  const [SUP, DEPOT, B1, B2, SHOP, B3, BENCH] = [1, 2, 3, 4, 5, 6, 7];
  const spares = (over: Partial<SiteTarget> = {}) => target({ policy: 'rQ', ...over });
  const depotSites = (): MeioSite[] => [
    site(SUP),
    site(DEPOT, { unitCost: 100, target: spares() }),
    site(B1, { demand: { type: 'poisson', lambda: 0.5 }, hasSeries: true, unitCost: 100, target: spares() }),
    site(B2, { demand: { type: 'poisson', lambda: 0.3 }, hasSeries: true, unitCost: 100, target: spares() }),
    site(SHOP),
  ];
  const depotRoutes = [
    { from: SUP, to: DEPOT, type: 'BUY', leadTime: 6, priority: 1 },
    { from: DEPOT, to: B1, type: 'REPLENISHMENT', leadTime: 1, priority: 1 },
    { from: DEPOT, to: B2, type: 'REPLENISHMENT', leadTime: 1, priority: 1 },
    { from: B1, to: DEPOT, type: 'RETURN', leadTime: 1, priority: 1 },
    { from: B2, to: DEPOT, type: 'RETURN', leadTime: 1, priority: 1 },
    { from: DEPOT, to: SHOP, type: 'REPAIR', leadTime: 2, priority: 1 },
    { from: SHOP, to: DEPOT, type: 'TRANSFER', leadTime: 1, priority: 2 },
  ];
  /** the same system in metric.ts's terms: depot repair time = the loop, order-and-ship = the replenishment route */
  const textbook = (levels: number[]): MetricSystem => ({
    depotRepairTime: 4,
    depotSpares: levels[0],
    bases: [
      { demandRate: 0.5, repairProbability: 0, repairTime: 0, orderShipTime: 1, spares: levels[1] },
      { demandRate: 0.3, repairProbability: 0, repairTime: 0, orderShipTime: 1, spares: levels[2] },
    ],
  });

  test('a depot and its bases on repair loops: one-for-one base stock from the first point of Sherbrooke\'s curve that meets the target', () => {
    const { skus, group } = planItemNetwork(depotSites(), depotRoutes);
    expect(skus.map((s) => [s.siteId, s.echelonModel, s.policy, s.orderQty, s.reviewPeriodWeeks])).toEqual([
      [DEPOT, 'metric', 'base_stock', 1, 0], [B1, 'metric', 'base_stock', 1, 0], [B2, 'metric', 'base_stock', 1, 0],
    ]);
    const levels = skus.map((s) => s.orderUpTo!);
    // the textbook engine at the chosen levels gives every number the rows show
    const ref = evaluateMetric(textbook(levels), 'vari-metric');
    const [depot, b1, b2] = skus;
    expect(depot).toMatchObject({ weeklyMean: 0.8, leadTimeWeeks: 6, distributionType: 'pooled', meetsTarget: true });
    expect(depot.netLeadTimeWeeks).toBeCloseTo(4, 12);
    expect(depot.ltdMean).toBeCloseTo(ref.depot.pipeline.mean, 12);
    expect(depot.expectedBackorders).toBeCloseTo(ref.depot.ebo, 12);
    [b1, b2].forEach((b, j) => {
      expect(b.ltdMean).toBeCloseTo(ref.bases[j].pipeline.mean, 12);
      expect(b.ltdStd! ** 2).toBeCloseTo(ref.bases[j].pipeline.variance, 11);
      expect(b.expectedBackorders).toBeCloseTo(ref.bases[j].ebo, 12);
      expect(b.expectedFillRate).toBeCloseTo(ref.bases[j].fillRate, 12);
      expect(b.expectedCsl).toBe(b.expectedFillRate);
      expect(b.netLeadTimeWeeks).toBeCloseTo(1 + ref.depot.delay, 12);
      expect(b.distributionType).toBe('poisson');
    });
    for (const s of skus) {
      expect(s.reorderPoint).toBe(s.orderUpTo! - 1);
      expect(s.safetyStock).toBeCloseTo(s.orderUpTo! - s.ltdMean!, 12);
      expect(s.expectedOnHand).toBeCloseTo(s.orderUpTo! - s.ltdMean! + s.expectedBackorders!, 12);
      expect(s.investment).toBe(100 * s.orderUpTo!);
    }
    // the group is the chosen point: 95 % demand-weighted, the customers' backorders, every spare's value
    expect(group).toMatchObject({ echelonModel: 'metric', nSkus: 3, weeklyDemand: 0.8, meetsTarget: true });
    expect(group.targetService).toBeCloseTo(0.95, 12);
    expect(group.expectedFillRate).toBeCloseTo((0.5 * ref.bases[0].fillRate + 0.3 * ref.bases[1].fillRate) / 0.8, 12);
    expect(group.expectedBackorders).toBeCloseTo(ref.totalBaseEbo, 12);
    expect(group.investment).toBe(100 * (levels[0] + levels[1] + levels[2]));
    expect(group.curveInvestment).toBeCloseTo(group.investment, 9);
    // and it is the first such point: the curve point before it misses the target
    const curve = metricTreeCurve({
      nodes: [{ parent: null, unitCost: 100, transitTime: 6 }, { parent: 0, unitCost: 100, transitTime: 1 }, { parent: 0, unitCost: 100, transitTime: 1 }],
      streams: [{ origin: 1, landing: 0, rate: 0.5, time: 4 }, { origin: 2, landing: 0, rate: 0.3, time: 4 }],
    });
    const k = Array.from(curve.fillRate).findIndex((f) => f >= 0.95);
    expect(curve.levelsAt(k)).toEqual(levels);
    expect(curve.fillRate[k - 1]).toBeLessThan(0.95);
    // the curve as stored: cheapest first, with the backorders it trades against
    expect(group.curve[0]).toEqual({ investment: 0, fill_rate: 0, expected_backorders: 0.5 * (1 + 4) + 0.3 * (1 + 4) });
    expect(group.curve.some((p) => p.investment === group.curveInvestment)).toBe(true);
    for (let i = 1; i < group.curve.length; i++) expect(group.curve[i].expected_backorders!).toBeLessThan(group.curve[i - 1].expected_backorders!);
  });

  test('a base without a return is consumed (bought anew over the depot\'s lead time); a base with its own repair bench repairs locally', () => {
    const sites = [
      ...depotSites(),
      site(B3, { demand: { type: 'poisson', lambda: 0.2 }, hasSeries: true, unitCost: 100, target: spares() }),
      site(BENCH),
    ];
    const routes = [
      ...depotRoutes,
      { from: DEPOT, to: B3, type: 'REPLENISHMENT', leadTime: 2, priority: 1 },
      { from: B2, to: BENCH, type: 'REPAIR', leadTime: 0.5, priority: 0 },
      { from: BENCH, to: B2, type: 'TRANSFER', leadTime: 0.25, priority: 2 },
    ];
    const { skus } = planItemNetwork(sites, routes);
    const levels = skus.map((s) => s.orderUpTo!);
    const by = new Map(skus.map((s) => [s.siteId, s]));
    // the depot: B1's loop of 4 weeks and B3's purchases over 6; B2 never asks it for anything
    expect(by.get(DEPOT)!.weeklyMean).toBeCloseTo(0.7, 12);
    expect(by.get(DEPOT)!.ltdMean).toBeCloseTo(0.5 * 4 + 0.2 * 6, 12);
    // B2 repairs on its bench in 0.75 weeks: a Poisson pipeline of its own, whatever the depot holds
    expect(by.get(B2)!.ltdMean).toBeCloseTo(0.3 * 0.75, 12);
    expect(by.get(B2)!.ltdStd! ** 2).toBeCloseTo(0.3 * 0.75, 12);
    const ev = evaluateMetricTree({
      nodes: [{ parent: null, unitCost: 100, transitTime: 6 }, { parent: 0, unitCost: 100, transitTime: 1 }, { parent: 0, unitCost: 100, transitTime: 1 }, { parent: 0, unitCost: 100, transitTime: 2 }],
      streams: [{ origin: 1, landing: 0, rate: 0.5, time: 4 }, { origin: 2, landing: 2, rate: 0.3, time: 0.75 }, { origin: 3, landing: 0, rate: 0.2, time: 6 }],
    }, [by.get(DEPOT)!.orderUpTo!, by.get(B1)!.orderUpTo!, by.get(B2)!.orderUpTo!, by.get(B3)!.orderUpTo!]);
    expect(levels).toHaveLength(4);
    expect(by.get(B3)!.expectedBackorders).toBeCloseTo(ev.nodes[3].ebo, 12);
    expect(by.get(B3)!.ltdMean).toBeCloseTo(0.2 * 2 + (0.2 / 0.7) * ev.nodes[0].ebo, 12);
  });

  test('a budget stops the curve early and says so; an override is a floor; METRIC\'s Poisson pipelines are an option', () => {
    const free = planItemNetwork(depotSites(), depotRoutes);
    const tight = planItemNetwork(depotSites(), depotRoutes, { budget: free.group.investment - 250 });
    expect(tight.group.meetsTarget).toBe(false);
    expect(tight.group.investment).toBeLessThanOrEqual(free.group.investment - 250);
    expect(tight.skus.filter((s) => s.siteId !== DEPOT).every((s) => s.diagnostics.some((d) => d.code === 'budget'))).toBe(true);

    const pinned = depotSites();
    pinned[3] = { ...pinned[3], target: spares({ target_service: 0.995, source: 'override' }) };
    const withOverride = planItemNetwork(pinned, depotRoutes);
    expect(withOverride.skus.find((s) => s.siteId === B2)!.expectedFillRate!).toBeGreaterThanOrEqual(0.995);

    const metric = planItemNetwork(depotSites(), depotRoutes, { metricMethod: 'metric' });
    for (const s of metric.skus) expect(s.ltdStd! ** 2).toBeCloseTo(s.ltdMean!, 12);
    const b1 = metric.skus.find((s) => s.siteId === B1)!;
    const ref = evaluateMetric(textbook(metric.skus.map((s) => s.orderUpTo!)), 'metric');
    expect(b1.expectedBackorders).toBeCloseTo(ref.bases[0].ebo, 12);
  });

  test('over-dispersed demand keeps its variance-to-mean ratio in the pipelines', () => {
    const sites = depotSites();
    // negative binomial with mean 0.5 and variance 1: r = 0.5, p = 0.5
    sites[2] = { ...sites[2], demand: { type: 'negative_binomial', r: 0.5, p: 0.5 } };
    const { skus } = planItemNetwork(sites, depotRoutes);
    const depot = skus.find((s) => s.siteId === DEPOT)!;
    expect(depot.ltdMean).toBeCloseTo(0.8 * 4, 12);
    expect(depot.ltdStd! ** 2).toBeCloseTo(2 * 0.5 * 4 + 0.3 * 4, 12);
    expect(depot.weeklyStd! ** 2).toBeCloseTo(1 + 0.3, 12);
    expect(skus.find((s) => s.siteId === B1)!.distributionType).toBe('negative_binomial');
  });

  test('reverse routes that bring nothing back leave the item to GSM', () => {
    // a return from the depot, which has no demand of its own, and one from a base to a site off its chain
    const routes = [
      ...depotRoutes.filter((r) => r.type !== 'RETURN' && r.type !== 'REPAIR'),
      { from: DEPOT, to: SUP, type: 'RETURN', leadTime: 1, priority: 1 },
      { from: B1, to: B2, type: 'RETURN', leadTime: 1, priority: 1 },
    ];
    const { skus, group } = planItemNetwork(depotSites(), routes);
    expect(new Set(skus.map((s) => s.echelonModel))).toEqual(new Set(['gsm']));
    expect(group).toMatchObject({ echelonModel: 'gsm', expectedBackorders: null });
  });
});
