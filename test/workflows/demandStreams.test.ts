import { sql, withTenant } from '../../db/pool';
import { planItemNetwork, type MeioSite } from '../../domain/inventory/meio';
import { plannedAutocorrelation } from '../../domain/inventory/serialDependence';
import { planSupply } from '../../domain/supply/engine';
import { completedJob } from '../support/jobs';
import { seedInventory, type InventorySeed } from '../support/inventorySeed';
import { PLANNING_DATE, seedInput, seedSupply, type SupplySeed } from '../support/supplySeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/*
 * Which demand the meio and supply steps plan against (docs/SUPPLY.md "Which demand a plan covers"): a maintenance
 * event's parts are ordered by the supply step and raise the meio step's demand, and a scenario that switches the
 * maintenance stream off plans without them. Through the real worker, against the engines' own answers.
 */
let tw: TestWorker;
let t: TestApp;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

async function finished(token: string, started: { status: number; body: any }) {
  expect(started.status).toBe(200);
  return completedJob(t, token, started.body.job_id);
}

describe('supply', () => {
  let a: TestTenant;
  let planner: string;
  let seed: SupplySeed;
  beforeAll(async () => {
    a = await t.newTenant('streams-supply');
    planner = await t.login(a.planner);
    seed = await seedSupply(t.db, a.accountId);
    // a C-check on Wednesday of plan week 10 (Monday 2026-08-10) takes 30 of Q at S1
    const admin = await t.login(a.admin);
    const ev = await t.call('post', '/api/maintenance/events', {
      token: admin, body: { name: 'C-check', event_type: 'C-check', dates: ['2026-08-12'], bom: [{ item_id: seed.items.Q, site_id: seed.sites.S1, qty_per_occurrence: 30 }] },
    });
    expect(ev.status).toBe(201);
  }, 120_000);

  const ordersOf = (runId: string, itemId: number) => withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT site_id, order_type, qty, release_week, arrival_week FROM supply_orders WHERE run_id = ${runId} AND item_id = ${itemId}
    ORDER BY site_id, arrival_week, engine_order_id`)) as Promise<any[]>;
  const engineOrders = (plan: ReturnType<typeof planSupply>, itemId: number) => plan.orders
    .filter((o) => o.item_id === itemId)
    .sort((x, y) => x.site_id - y.site_id || x.arrival_week - y.arrival_week || x.id - y.id)
    .map((o) => ({ site_id: o.site_id, order_type: o.order_type, qty: o.qty, release_week: o.release_week, arrival_week: o.arrival_week }));
  const flags = { firm_orders_block_horizon: false, respect_lead_time: false };

  test('the default scenario orders the C-check\'s parts; switching maintenance off plans the forecast alone', async () => {
    const withMaintenance = seedInput(seed);
    const q = withMaintenance[1].sites[0];
    expect([withMaintenance[1].item_id, q.site_id]).toEqual([seed.items.Q, seed.sites.S1]);
    const forecast = Float64Array.from(q.forecast);
    forecast[10] += 30;
    withMaintenance[1] = { ...withMaintenance[1], sites: [{ ...q, forecast }] };
    const expectedWith = planSupply({ planning_date: PLANNING_DATE, flags, items: withMaintenance });
    const expectedWithout = planSupply({ planning_date: PLANNING_DATE, flags, items: seedInput(seed) });
    const total = (p: ReturnType<typeof planSupply>) => p.orders.filter((o) => o.item_id === seed.items.Q).reduce((n, o) => n + o.qty, 0);
    // Q comes in multiples of 6: the 30 parts make 30 more ordered
    expect(total(expectedWith) - total(expectedWithout)).toBe(30);

    const on = await finished(planner, await t.call('post', '/api/pipeline/run/supply', { token: planner, body: { pipeline_id: seed.pipelineId } }));
    expect(await ordersOf(on.job_id, seed.items.Q)).toEqual(engineOrders(expectedWith, seed.items.Q));
    // the maintenance week's need: an order arriving in plan week 10 carries the C-check's parts
    const week10 = (await ordersOf(on.job_id, seed.items.Q)).filter((o) => o.arrival_week === 10);
    expect(week10.reduce((n, o) => n + o.qty, 0)).toBeGreaterThanOrEqual(30);
    // P is in no BOM: planned exactly as before
    expect(await ordersOf(on.job_id, seed.items.P)).toEqual(engineOrders(expectedWithout, seed.items.P));

    const sc = await t.call('post', '/api/supply/scenarios', { token: planner, body: { name: 'No maintenance', demand_maintenance: false } });
    expect(sc.status).toBe(201);
    const off = await finished(planner, await t.call('post', '/api/pipeline/run/supply', { token: planner, body: { pipeline_id: seed.pipelineId, scenario_id: sc.body.id } }));
    expect(await ordersOf(off.job_id, seed.items.Q)).toEqual(engineOrders(expectedWithout, seed.items.Q));
    expect((await ordersOf(off.job_id, seed.items.Q)).filter((o) => o.arrival_week === 10).reduce((n, o) => n + o.qty, 0)).toBeLessThan(30);
  }, 240_000);

  test('statistical off and maintenance on: only the C-check\'s parts are planned', async () => {
    const sc = await t.call('post', '/api/supply/scenarios', { token: planner, body: { name: 'Maintenance only', demand_statistical: false } });
    const job = await finished(planner, await t.call('post', '/api/pipeline/run/supply', { token: planner, body: { pipeline_id: seed.pipelineId, scenario_id: sc.body.id } }));
    const only = seedInput(seed).map((it) => ({ ...it, sites: it.sites.map((s) => ({ ...s, forecast: new Float64Array(52) })) }));
    only[1].sites[0].forecast[10] = 30;
    const expected = planSupply({ planning_date: PLANNING_DATE, flags, items: only });
    expect(await ordersOf(job.job_id, seed.items.Q)).toEqual(engineOrders(expected, seed.items.Q));
    expect((await ordersOf(job.job_id, seed.items.Q)).reduce((n, o) => n + o.qty, 0)).toBe(30);
  }, 240_000);

  test('netted: the netting period\'s weeks plan what booked orders left of the forecast', async () => {
    // 7 of P booked at S1 in the period's first week consume 7 of that week's 10 (docs/NETTING.md): netted 3, 10, 10, 10
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
      INSERT INTO demand_history (item_id, site_id, ds, qty) VALUES (${seed.items.P}, ${seed.sites.S1}, ${PLANNING_DATE}, 7)`));
    await finished(planner, await t.call('post', '/api/forecast/netting/refresh', { token: planner, body: { pipeline_id: seed.pipelineId } }));
    const netted = await t.call('get', `/api/forecast/netting/${seed.items.P}_${seed.sites.S1}`, { token: planner, query: { pipeline_id: seed.pipelineId } });
    expect(netted.body.netted).toEqual([3, 10, 10, 10]);

    const sc = await t.call('post', '/api/supply/scenarios', { token: planner, body: { name: 'Netted', demand_netted: true } });
    const job = await finished(planner, await t.call('post', '/api/pipeline/run/supply', { token: planner, body: { pipeline_id: seed.pipelineId, scenario_id: sc.body.id } }));
    const items = seedInput(seed);
    const pS1 = Float64Array.from(items[0].sites[1].forecast);
    pS1[0] = 3;
    items[0].sites[1] = { ...items[0].sites[1], forecast: pS1 };
    expect([items[0].item_id, items[0].sites[1].site_id]).toEqual([seed.items.P, seed.sites.S1]);
    const expected = planSupply({ planning_date: PLANNING_DATE, flags, items });
    expect(await ordersOf(job.job_id, seed.items.P)).toEqual(engineOrders(expected, seed.items.P));
    const demand = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`
      SELECT demand FROM supply_plans WHERE run_id = ${job.job_id} AND item_id = ${seed.items.P} AND site_id = ${seed.sites.S1}`)) as number[];
    expect(demand.slice(0, 6)).toEqual([3, 10, 10, 10, 10, 10]);
  }, 240_000);

  test('causal: the stored causal demand of the pipeline\'s last causal run, here instead of the forecast', async () => {
    // a causal run's site rows for Q at S1, 2 a week over the plan (and one row before it, which is not planned)
    await withTenant(t.db, a.accountId, async (tx) => {
      const scenario = await tx.oneFirst(sql.unsafe`INSERT INTO causal_scenarios (name) VALUES ('Fleet') RETURNING id`);
      await tx.query(sql.unsafe`
        INSERT INTO causal_results (scenario_id, pipeline_id, item_id, site_id, week, demand)
        SELECT ${scenario}, ${seed.pipelineId}, ${seed.items.Q}, ${seed.sites.S1}, (${PLANNING_DATE}::date + 7 * w), 2 FROM generate_series(-1, 51) w`);
      // the item aggregate (site 0) is not a site's demand
      await tx.query(sql.unsafe`
        INSERT INTO causal_results (scenario_id, pipeline_id, item_id, site_id, week, demand) VALUES (${scenario}, ${seed.pipelineId}, ${seed.items.Q}, 0, ${PLANNING_DATE}, 99)`);
    });
    const sc = await t.call('post', '/api/supply/scenarios', {
      token: planner, body: { name: 'Causal', demand_statistical: false, demand_causal: true, demand_maintenance: false },
    });
    const job = await finished(planner, await t.call('post', '/api/pipeline/run/supply', { token: planner, body: { pipeline_id: seed.pipelineId, scenario_id: sc.body.id } }));
    const items = seedInput(seed).map((it) => ({ ...it, sites: it.sites.map((x) => ({ ...x, forecast: new Float64Array(52) })) }));
    items[1].sites[0].forecast.fill(2);
    const expected = planSupply({ planning_date: PLANNING_DATE, flags, items });
    expect(await ordersOf(job.job_id, seed.items.Q)).toEqual(engineOrders(expected, seed.items.Q));
    expect(await ordersOf(job.job_id, seed.items.P)).toEqual(engineOrders(expected, seed.items.P));
  }, 240_000);
});

describe('meio', () => {
  let a: TestTenant;
  let planner: string;
  let seed: InventorySeed;
  beforeAll(async () => {
    a = await t.newTenant('streams-meio');
    planner = await t.login(a.planner);
    seed = await seedInventory(t.db, a.accountId);
    // pipeline 0 plans from the week after the last history week, 2026-05-25; a one-off event in its horizon takes 26 of X at S1
    const admin = await t.login(a.admin);
    const ev = await t.call('post', '/api/maintenance/events', {
      token: admin, body: { name: 'C-check', dates: ['2026-06-10'], bom: [{ item_id: seed.items.X, site_id: seed.sites.S1, qty_per_occurrence: 26 }] },
    });
    expect(ev.status).toBe(201);
  }, 120_000);

  const target = { service_type: 'fill_rate' as const, target_service: 0.97, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ' as const, review_period_weeks: 1, source: 'scenario' };
  // the seeded weeks (inventorySeed.ts) repeat every 3 weeks, so their autocorrelations count; the maintenance stream
  // dilutes them at S1
  const seededWeeks = (lambda: number) => Array.from({ length: 20 }, (_, w) => Math.max(0, lambda + (w % 3) - 1));
  const expectedOf = (s1Demand: MeioSite['demand']) => {
    const s = seed.sites;
    const site = (siteId: number, demand: MeioSite['demand'], lambda = 0): MeioSite => ({
      siteId, demand, hasSeries: demand !== null, unitCost: 10, masterLeadTime: null, moq: 0, orderMultiple: 1, target,
      autocorrelation: plannedAutocorrelation(seededWeeks(lambda), lambda ? { type: 'poisson', lambda } : null, demand),
    });
    return planItemNetwork(
      [site(s.SUP, null), site(s.DC, null), site(s.S1, s1Demand, 3), site(s.S2, { type: 'poisson', lambda: 2 }, 2)],
      [
        { from: s.SUP, to: s.DC, type: 'BUY', leadTime: 4, priority: 1 },
        { from: s.DC, to: s.S1, type: 'REPLENISHMENT', leadTime: 1, priority: 1 },
        { from: s.DC, to: s.S2, type: 'REPLENISHMENT', leadTime: 1, priority: 1 },
      ],
    );
  };
  const results = async (scenarioId: number) => (await t.call('get', `/api/meio/scenarios/${scenarioId}/results`, { token: planner, query: { pipeline_id: 0, item_id: seed.items.X } })).body;
  const compare = (rows: any[], expected: ReturnType<typeof planItemNetwork>) => {
    expect(rows.map((r: any) => [r.site_id, r.order_qty, r.reorder_point, r.expected_fill_rate, r.investment])).toEqual(
      expected.skus.map((e) => [e.siteId, e.orderQty, e.reorderPoint, expect.closeTo(e.expectedFillRate!, 12), expect.closeTo(e.investment!, 9)]),
    );
  };

  test('maintenance raises the site\'s weekly demand to the summed moments; switched off, the fit alone', async () => {
    const on = await t.call('post', '/api/meio/scenarios', { token: planner, body: { name: 'With maintenance', target_service: 0.97 } });
    const off = await t.call('post', '/api/meio/scenarios', { token: planner, body: { name: 'Without', target_service: 0.97, demand_maintenance: false } });
    expect([on.status, off.status, on.body.demand_maintenance, off.body.demand_maintenance]).toEqual([201, 201, true, false]);
    await finished(planner, await t.call('post', `/api/meio/scenarios/${on.body.id}/run`, { token: planner, body: { pipeline_id: 0 } }));
    await finished(planner, await t.call('post', `/api/meio/scenarios/${off.body.id}/run`, { token: planner, body: { pipeline_id: 0 } }));

    // 26 parts once in 52 weeks: mean 0.5, variance (25.5² + 51 × 0.5²) / 52 = 12.75; with Poisson 3: mean 3.5,
    // variance 15.75, the negative binomial r = 3.5² / 12.25 = 1, p = 3.5 / 15.75 = 2/9
    const withRows = await results(on.body.id);
    const s1 = withRows.find((r: any) => r.site_id === seed.sites.S1);
    expect(s1.distribution_type).toBe('negative_binomial');
    expect(s1.weekly_mean).toBeCloseTo(3.5, 9);
    expect(s1.weekly_std).toBeCloseTo(Math.sqrt(15.75), 9);
    compare(withRows, expectedOf({ type: 'negative_binomial', r: 1, p: 2 / 9 }));

    const withoutRows = await results(off.body.id);
    const s1Off = withoutRows.find((r: any) => r.site_id === seed.sites.S1);
    expect([s1Off.distribution_type, s1Off.weekly_mean]).toEqual(['poisson', 3]);
    compare(withoutRows, expectedOf({ type: 'poisson', lambda: 3 }));
    expect(s1.reorder_point).toBeGreaterThan(s1Off.reorder_point);

    const group = async (id: number) => (await t.call('get', `/api/meio/scenarios/${id}/results`, { token: planner, query: { pipeline_id: 0, level: 'group', item_id: seed.items.X } })).body[0];
    expect((await group(on.body.id)).weekly_demand).toBeCloseTo(5.5, 9);
    expect((await group(off.body.id)).weekly_demand).toBeCloseTo(5, 9);
  }, 240_000);
});
