import { planningDateOf } from '../../activities/meio/step';
import { sql, withTenant } from '../../db/pool';
import { planItemNetwork, type MeioSite } from '../../domain/inventory/meio';
import { isFinished, waitForJob } from '../support/jobs';
import { seedInventory, type InventorySeed } from '../support/inventorySeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let seed: InventorySeed;
let scenario: number;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('meio-step');
  planner = await t.login(a.planner);
  seed = await seedInventory(t.db, a.accountId);
  const res = await t.call('post', '/api/meio/scenarios', { token: planner, body: { name: 'Spares 97', target_service: 0.97 } });
  expect(res.status).toBe(201);
  scenario = res.body.id;
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

const target = { service_type: 'fill_rate' as const, target_service: 0.97, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ' as const, review_period_weeks: 1, source: 'scenario' };

test('the meio step plans the item across its network through Temporal, with the engine\'s exact numbers', async () => {
  const started = await t.call('post', `/api/meio/scenarios/${scenario}/run`, { token: planner, body: { pipeline_id: 0 } });
  expect(started.status).toBe(200);
  const job = await waitForJob(t, planner, started.body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
  // two items with series (X at S1 and S2, Y at S1), cut into whole items
  expect(job.result).toMatchObject({ step: 'meio', series: 3 });
  expect(job.log.map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^meio: scenario ${scenario}: \\d+ SKU-sites, \\d+ meet their target`))]));

  const res = await t.call('get', `/api/meio/scenarios/${scenario}/results`, { token: planner, query: { pipeline_id: 0, item_id: seed.items.X } });
  expect(res.status).toBe(200);
  expect(res.body.map((r: any) => r.site_xuid)).toEqual(['DC', 'S1', 'S2']);

  // the same network straight through the engine: the step must store exactly its answer
  const s = seed.sites;
  const sites: MeioSite[] = [
    { siteId: s.SUP, demand: null, hasSeries: false, unitCost: 10, masterLeadTime: null, moq: 0, orderMultiple: 1, target },
    { siteId: s.DC, demand: null, hasSeries: false, unitCost: 10, masterLeadTime: null, moq: 0, orderMultiple: 1, target },
    { siteId: s.S1, demand: { type: 'poisson', lambda: 3 }, hasSeries: true, unitCost: 10, masterLeadTime: null, moq: 0, orderMultiple: 1, target },
    { siteId: s.S2, demand: { type: 'poisson', lambda: 2 }, hasSeries: true, unitCost: 10, masterLeadTime: null, moq: 0, orderMultiple: 1, target },
  ];
  const routes = [
    { from: s.SUP, to: s.DC, type: 'BUY', leadTime: 4, priority: 1 },
    { from: s.DC, to: s.S1, type: 'REPLENISHMENT', leadTime: 1, priority: 1 },
    { from: s.DC, to: s.S2, type: 'REPLENISHMENT', leadTime: 1, priority: 1 },
  ];
  const expected = planItemNetwork(sites, routes);
  expect(res.body.map((r: any) => [r.site_id, r.echelon_model, r.order_qty, r.reorder_point, r.net_lead_time_weeks, r.expected_fill_rate, r.investment])).toEqual(
    expected.skus.map((e) => [e.siteId, e.echelonModel, e.orderQty, e.reorderPoint, e.netLeadTimeWeeks, expect.closeTo(e.expectedFillRate!, 12), expect.closeTo(e.investment!, 9)]),
  );
  expect(res.body[1]).toMatchObject({ unique_id: `${seed.items.X}_${s.S1}`, policy: 'rQ', service_type: 'fill_rate', target_service: 0.97, target_source: 'scenario', distribution_type: 'poisson' });

  const group = await t.call('get', `/api/meio/scenarios/${scenario}/results`, { token: planner, query: { pipeline_id: 0, level: 'group', item_id: seed.items.X } });
  expect(group.body).toHaveLength(1);
  expect(group.body[0]).toMatchObject({ item_id: seed.items.X, n_skus: 3, meets_target: expected.group.meetsTarget, weekly_demand: 5, budget_cap: null });
  expect(group.body[0].curve_investment).toBeCloseTo(expected.group.curveInvestment!, 9);
  expect(group.body[0].expected_fill_rate).toBeCloseTo(expected.group.expectedFillRate!, 12);
  expect(group.body[0].curve.length).toBeGreaterThan(2);

  // Y has a series but no fitted distribution: a row that says why, and the diagnostic explains it
  const diag = await t.call('get', '/api/meio/diagnostic', { token: planner, query: { pipeline_id: 0, scenario_id: scenario, unique_id: `${seed.items.Y}_${s.S1}` } });
  expect(diag.status).toBe(200);
  expect(diag.body.reasons.map((r: any) => r.code)).toEqual(['no_distribution']);
  expect(diag.body.facts).toEqual({ has_series: true, has_distribution: false, inbound_routes: 1, master_lead_time: null });
  const counts = await t.call('get', '/api/meio/diagnostic', { token: planner, query: { scenario_id: scenario } });
  expect(counts.body).toMatchObject({ pipeline_id: 0, scenario_id: scenario, sku_sites: 4, by_code: { no_distribution: 1 } });

  const heat = await t.call('get', '/api/meio/fr-heatmap', { token: planner, query: { scenario_id: scenario } });
  expect(heat.status).toBe(200);
  expect(heat.body.segments).toEqual([{ segment_id: null, segment_name: '(no segment)' }]);
  expect(heat.body.cells.map((c: any) => [c.site_xuid, c.sku_sites])).toEqual([['DC', 1], ['S1', 1], ['S2', 1]]);
  const s1 = expected.skus.find((e) => e.siteId === s.S1)!;
  expect(heat.body.cells[1].fill_rate).toBeCloseTo(s1.expectedFillRate!, 12);
}, 180_000);

test('an IO override raises the target of one SKU-site at the next run; a run again rewrites the same rows', async () => {
  const o = await t.call('post', '/api/io-overrides', { token: planner, body: { item_id: seed.items.X, site_id: seed.sites.S2, scenario_id: scenario, fr_override: 0.995 } });
  expect(o.status).toBe(200);
  const job = await waitForJob(t, planner, (await t.call('post', `/api/meio/scenarios/${scenario}/run`, { token: planner, body: { pipeline_id: 0 } })).body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
  const rows = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT site_id, target_service, target_source, expected_fill_rate FROM meio_results WHERE scenario_id = ${scenario} AND item_id = ${seed.items.X} ORDER BY site_id`)) as any[];
  const s2 = rows.find((r) => r.site_id === seed.sites.S2);
  expect(s2).toMatchObject({ target_service: 0.995, target_source: 'override' });
  expect(s2.expected_fill_rate).toBeGreaterThanOrEqual(0.995);
  expect(rows).toHaveLength(3);
}, 180_000);

test('the pipeline\'s meio step runs under the default scenario; unknown scenarios are 404s', async () => {
  const missing = await t.call('post', '/api/meio/scenarios/999999/run', { token: planner, body: { pipeline_id: 0 } });
  expect([missing.status, missing.body.detail]).toEqual([404, 'MEIO scenario 999999 not found']);
  const res = await t.call('post', '/api/pipeline/run/meio', { token: planner, body: { pipeline_id: (await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'P-meio' } })).body.id } });
  expect(res.status).toBe(200);
  const job = await waitForJob(t, planner, res.body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
}, 180_000);

test('a scenario budget is shared out over the items\' curves: the plan stays within it and says the budget binds', async () => {
  const free = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`
    SELECT sum(curve_investment)::float8 FROM meio_group_results WHERE scenario_id = ${scenario} AND pipeline_id = 0`)) as number;
  expect(free).toBeGreaterThan(0);
  const budget = Math.round(free * 0.6);
  const sc = await t.call('post', '/api/meio/scenarios', { token: planner, body: { name: 'Tight budget', target_service: 0.97, budget } });
  expect(sc.status).toBe(201);
  const job = await waitForJob(t, planner, (await t.call('post', `/api/meio/scenarios/${sc.body.id}/run`, { token: planner, body: { pipeline_id: 0 } })).body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
  expect(job.log.map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringContaining(`budget ${budget.toFixed(2)} binds: 1 items planned again within their share`)]));
  const group = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`
    SELECT curve_investment, budget_cap, meets_target FROM meio_group_results WHERE scenario_id = ${sc.body.id} AND item_id = ${seed.items.X}`)) as any;
  expect(group.budget_cap).toBeCloseTo(budget, 6);
  expect(group.curve_investment).toBeLessThanOrEqual(budget + 1e-6);
  expect(group.meets_target).toBe(false);
  const diag = await t.call('get', `/api/meio/scenarios/${sc.body.id}/results`, { token: planner, query: { pipeline_id: 0, diagnostic: 'budget' } });
  expect(diag.body.map((r: any) => r.site_xuid)).toEqual(['S1', 'S2']);
}, 180_000);

test('a meio job plans all its chunks from the planning date its first chunk resolved; a date stored meanwhile is the next job\'s', async () => {
  const store = (date: string) => withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
    INSERT INTO pipeline_planning_dates (pipeline_id, planning_date) VALUES (-1, ${date}) ON CONFLICT (pipeline_id) DO UPDATE SET planning_date = EXCLUDED.planning_date`));
  const dateOf = (jobId: string) => withTenant(t.db, a.accountId, (tx) => planningDateOf(tx, jobId, -1));
  await store('2026-03-02');
  expect(await dateOf('meio-job-a')).toBe('2026-03-02');
  await store('2026-04-06');
  // chunks of the same job, however many and whenever they run in this worker
  expect(await Promise.all([dateOf('meio-job-a'), dateOf('meio-job-a')])).toEqual(['2026-03-02', '2026-03-02']);
  expect(await dateOf('meio-job-b')).toBe('2026-04-06');
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM pipeline_planning_dates WHERE pipeline_id = -1`));
});
