import { sql, withTenant } from '../../db/pool';
import { planItemNetwork, type MeioRoute, type MeioSite, type SiteTarget } from '../../domain/inventory/meio';
import { evaluateMetric } from '../../domain/inventory/metric';
import { isFinished, waitForJob } from '../support/jobs';
import { REPAIR_SEED_DEMAND, seedRepairNetwork, type RepairSeed } from '../support/repairSeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let seed: RepairSeed;
let scenario: number;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('meio-metric');
  planner = await t.login(a.planner);
  seed = await seedRepairNetwork(t.db, a.accountId);
  const res = await t.call('post', '/api/meio/scenarios', { token: planner, body: { name: 'Spares 95', target_service: 0.95 } });
  expect(res.status).toBe(201);
  scenario = res.body.id;
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

const target: SiteTarget = { service_type: 'fill_rate', target_service: 0.95, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ', review_period_weeks: 1, source: 'scenario' };

/** Item R's network as the step loads it, given by hand. */
function itemR(): { sites: MeioSite[]; routes: MeioRoute[] } {
  const s = seed.sites;
  const none = { demand: null, hasSeries: false, masterLeadTime: null, moq: 0, orderMultiple: 1, target };
  const base = (siteId: number, lambda: number): MeioSite => ({ ...none, siteId, demand: { type: 'poisson', lambda }, hasSeries: true, unitCost: 1000 });
  return {
    sites: [
      { ...none, siteId: s.SUP, unitCost: 1000 },
      { ...none, siteId: s.DEPOT, unitCost: 1000 },
      base(s.B1, REPAIR_SEED_DEMAND.B1), base(s.B2, REPAIR_SEED_DEMAND.B2), base(s.B3, REPAIR_SEED_DEMAND.B3),
      { ...none, siteId: s.SHOP, unitCost: 1000 },
    ],
    routes: [
      { from: s.SUP, to: s.DEPOT, type: 'BUY', leadTime: 6, priority: 1 },
      ...[s.B1, s.B2, s.B3].map((b) => ({ from: s.DEPOT, to: b, type: 'REPLENISHMENT', leadTime: 1, priority: 1 })),
      { from: s.B1, to: s.DEPOT, type: 'RETURN', leadTime: 1, priority: 1 },
      { from: s.B2, to: s.DEPOT, type: 'RETURN', leadTime: 1, priority: 1 },
      { from: s.DEPOT, to: s.SHOP, type: 'REPAIR', leadTime: 2, priority: 1 },
      { from: s.SHOP, to: s.DEPOT, type: 'TRANSFER', leadTime: 1, priority: 2 },
    ],
  };
}

test('the meio step plans a repairable item with VARI-METRIC through Temporal and stores the engine\'s answer', async () => {
  const started = await t.call('post', `/api/meio/scenarios/${scenario}/run`, { token: planner, body: { pipeline_id: 0 } });
  expect(started.status).toBe(200);
  const job = await waitForJob(t, planner, started.body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
  expect(job.result).toMatchObject({ step: 'meio', series: 4 });
  expect(job.log.map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringMatching(/ below target, 1 repairable item planned with METRIC/)]));

  const res = await t.call('get', `/api/meio/scenarios/${scenario}/results`, { token: planner, query: { pipeline_id: 0, item_id: seed.items.R } });
  expect(res.status).toBe(200);
  expect(res.body.map((r: any) => r.site_xuid)).toEqual(['DEPOT', 'B1', 'B2', 'B3']);

  // the same network straight through the engine: the stored rows are its answer, number for number
  const { sites, routes } = itemR();
  const expected = planItemNetwork(sites, routes);
  const columns = (r: any) => [r.site_id, r.echelon_model, r.policy, r.order_qty, r.reorder_point, r.order_up_to, r.review_period_weeks, r.lead_time_weeks, r.investment, r.meets_target];
  expect(res.body.map(columns)).toEqual(expected.skus.map((e) => columns({
    site_id: e.siteId, echelon_model: e.echelonModel, policy: e.policy, order_qty: e.orderQty, reorder_point: e.reorderPoint, order_up_to: e.orderUpTo,
    review_period_weeks: e.reviewPeriodWeeks, lead_time_weeks: e.leadTimeWeeks, investment: e.investment, meets_target: e.meetsTarget,
  })));
  res.body.forEach((r: any, i: number) => {
    const e = expected.skus[i];
    expect(r.echelon_model).toBe('metric');
    for (const [col, v] of [['ltd_mean', e.ltdMean], ['ltd_std', e.ltdStd], ['net_lead_time_weeks', e.netLeadTimeWeeks], ['expected_fill_rate', e.expectedFillRate],
      ['expected_backorders', e.expectedBackorders], ['expected_on_hand', e.expectedOnHand], ['safety_stock', e.safetyStock], ['weekly_mean', e.weeklyMean]] as const) {
      expect(r[col]).toBeCloseTo(v!, 12);
    }
  });

  // and the engine's answer is the textbook's: the depot pipeline holds B1's and B2's 4-week loops and B3's 6-week
  // purchases (Palm: Poisson with mean 0.8 × 4 + 0.2 × 6), which metric.ts takes as one depot repair time of 4.4 weeks
  // for the depot's demand of 1 a week
  const [depot, b1, b2, b3] = res.body;
  expect(depot.ltd_mean).toBeCloseTo(0.8 * 4 + 0.2 * 6, 12);
  expect(depot.net_lead_time_weeks).toBeCloseTo(4.4, 12);
  const ref = evaluateMetric({
    depotRepairTime: 4.4,
    depotSpares: depot.order_up_to,
    bases: [b1, b2, b3].map((b, j) => ({ demandRate: [0.5, 0.3, 0.2][j], repairProbability: 0, repairTime: 0, orderShipTime: 1, spares: b.order_up_to })),
  }, 'vari-metric');
  expect(depot.expected_backorders).toBeCloseTo(ref.depot.ebo, 12);
  [b1, b2, b3].forEach((b, j) => {
    expect(b.expected_backorders).toBeCloseTo(ref.bases[j].ebo, 12);
    expect(b.expected_fill_rate).toBeCloseTo(ref.bases[j].fillRate, 12);
  });

  const group = await t.call('get', `/api/meio/scenarios/${scenario}/results`, { token: planner, query: { pipeline_id: 0, level: 'group' } });
  expect(group.status).toBe(200);
  const [r, c] = group.body;
  expect(r).toMatchObject({ item_id: seed.items.R, echelon_model: 'metric', n_skus: 4, meets_target: expected.group.meetsTarget, budget_cap: null });
  expect(r.expected_backorders).toBeCloseTo(ref.totalBaseEbo, 12);
  expect(r.expected_backorders).toBeCloseTo(expected.group.expectedBackorders!, 12);
  expect(r.expected_fill_rate).toBeCloseTo(expected.group.expectedFillRate!, 12);
  expect(r.investment).toBeCloseTo(1000 * res.body.reduce((n: number, x: any) => n + x.order_up_to, 0), 9);
  expect(r.weekly_demand).toBeCloseTo(1, 12);
  expect(r.curve).toEqual(expected.group.curve.map((p) => ({ investment: expect.closeTo(p.investment, 9), fill_rate: expect.closeTo(p.fill_rate, 12), expected_backorders: expect.closeTo(p.expected_backorders!, 12) })));
  expect(r.curve.find((p: any) => Math.abs(p.investment - r.curve_investment) < 1e-6)).toBeDefined();
  // the consumable beside it is still placed by GSM
  expect(c).toMatchObject({ item_id: seed.items.C, echelon_model: 'gsm', expected_backorders: null });
  const cRows = await withTenant(t.db, a.accountId, (tx) => tx.anyFirst(sql.unsafe`
    SELECT DISTINCT echelon_model FROM meio_results WHERE scenario_id = ${scenario} AND item_id = ${seed.items.C}`));
  expect(cRows).toEqual(['gsm']);

  // the network view shows the loop's routes and which model planned each node
  const net = await t.call('get', `/api/series/${seed.items.R}_${seed.sites.B1}/io-network`, { token: planner, query: { pipeline_id: 0, scenario_id: scenario } });
  expect(net.status).toBe(200);
  expect(net.body.nodes.filter((n: any) => n.echelon_model).map((n: any) => [n.site_xuid, n.echelon_model, n.reorder_point])).toEqual(
    [['DEPOT', 'metric', depot.reorder_point], ['B1', 'metric', b1.reorder_point], ['B2', 'metric', b2.reorder_point], ['B3', 'metric', b3.reorder_point]],
  );
  expect(net.body.edges.map((e: any) => e.route_type).sort()).toEqual(['BUY', 'REPAIR', 'REPLENISHMENT', 'REPLENISHMENT', 'REPLENISHMENT', 'RETURN', 'RETURN', 'TRANSFER']);
}, 180_000);

test('a budget shared over the portfolio cuts the repairable\'s curve and the re-plan stays on it', async () => {
  const free = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`
    SELECT curve_investment FROM meio_group_results WHERE scenario_id = ${scenario} AND pipeline_id = 0 AND item_id = ${seed.items.R}`)) as { curve_investment: number };
  const budget = Math.round(free.curve_investment * 0.6);
  const sc = await t.call('post', '/api/meio/scenarios', { token: planner, body: { name: 'Spares on a budget', target_service: 0.95, budget } });
  expect(sc.status).toBe(201);
  const job = await waitForJob(t, planner, (await t.call('post', `/api/meio/scenarios/${sc.body.id}/run`, { token: planner, body: { pipeline_id: 0 } })).body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
  expect(job.log.map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`budget ${budget.toFixed(2)} binds`))]));
  const g = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`
    SELECT echelon_model, curve_investment, budget_cap, meets_target, investment FROM meio_group_results WHERE scenario_id = ${sc.body.id} AND item_id = ${seed.items.R}`)) as any;
  expect(g.echelon_model).toBe('metric');
  expect(g.budget_cap).toBeGreaterThan(0);
  expect(g.curve_investment).toBeLessThanOrEqual(g.budget_cap + 1e-6);
  expect(g.meets_target).toBe(false);
  // the stored plan is the engine's for that cap
  const { sites, routes } = itemR();
  const capped = planItemNetwork(sites, routes, { budget: g.budget_cap });
  const rows = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT site_id, order_up_to, diagnostics FROM meio_results WHERE scenario_id = ${sc.body.id} AND item_id = ${seed.items.R} ORDER BY site_id`)) as any[];
  expect(rows.map((x) => [x.site_id, x.order_up_to])).toEqual(capped.skus.map((s) => [s.siteId, s.orderUpTo]));
  expect(rows.filter((x) => x.diagnostics.some((d: any) => d.code === 'budget')).length).toBe(3);
  expect(g.investment).toBeCloseTo(capped.group.investment, 9);
}, 180_000);
