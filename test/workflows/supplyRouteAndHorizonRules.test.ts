/**
 * Three rules of the supply engine seen through the supply step and its allocation (docs/SUPPLY.md):
 * a route sent as MAKE is a BUILD route and gets BUILD orders; a firm order arriving after week 51 is supply in week 51
 * of both the supply plan and the allocation pool; a predecessor split between two rollable successors gives all its
 * stock to the lowest-id edge.
 */
import { sql, withTenant } from '../../db/pool';
import { isFinished, okBody, waitForJob } from '../support/jobs';
import { HORIZON, PLANNING_DATE, seedSupply, type SupplySeed } from '../support/supplySeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let admin: string;
let seed: SupplySeed;
let itemR: number;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('supply-route-rules');
  planner = await t.login(a.planner);
  admin = await t.login(a.admin);
  seed = await seedSupply(t.db, a.accountId);
  // R: a second successor of P, sold at S1, 3 a week, no stock of its own
  itemR = await withTenant(t.db, a.accountId, async (tx) => {
    const r = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name, avg_unit_cost) VALUES ('R', 'Item R', 2) RETURNING id`)) as number;
    const s1 = seed.sites.S1;
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${r}, ${s1}, 20, '2026-01-12', '2026-05-25')`);
    await tx.query(sql.unsafe`INSERT INTO series_weekly (item_id, site_id, week, y, factor) SELECT ${r}, ${s1}, (date '2026-01-12' + 7 * w)::date, 3, 1 FROM generate_series(0, 19) w`);
    await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id, unit_cost, on_hand) VALUES (${r}, ${s1}, 2, 0)`);
    const flat = sql.array(Array(HORIZON).fill(3), 'float8');
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      VALUES (${seed.pipelineId}, ${r}, ${s1}, 'naive', ${PLANNING_DATE}, ${flat}, ${flat}, ${flat}, 0.8)`);
    await tx.query(sql.unsafe`INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, metric) VALUES (${seed.pipelineId}, ${r}, ${s1}, 'naive', 'mase')`);
    return r;
  });
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

const ok = okBody;

test('MAKE route → BUILD orders, a firm order of week 60 → week 51 in plan and pool, a split → the lowest-id edge takes the stock', async () => {
  const s = seed.sites;
  const { P, Q } = seed.items;
  // R is made at S1 (from V), sent as MAKE
  const make = ok(await t.call('post', '/api/routes', { token: admin, body: { item_id: itemR, from_site_id: s.V, to_site_id: s.S1, lead_time: 1, route_type: 'MAKE' } }), 201);
  expect(make.route_type).toBe('BUILD');
  // Q has a firm order of 20 arriving 60 weeks after the planning date (2026-06-01 + 420 days)
  const firm = ok(await t.call('post', '/api/supply/firm-orders', {
    token: planner,
    body: { external_id: 'PO-60', item_id: Q, site_id: s.S1, source_site_id: s.V, order_type: 'BUY', qty: 20, release_dt: '2027-07-05T00:00:00Z', arrival_dt: '2027-07-26T00:00:00Z' },
  }), 201);
  // P is replaced by Q (the lower id) and by R, everywhere, since before the planning date
  const edges = await withTenant(t.db, a.accountId, async (tx) => [
    (await tx.oneFirst(sql.unsafe`INSERT INTO supersession (from_item_id, to_item_id, site_id, effective_date, stock_rollable) VALUES (${P}, ${Q}, NULL, '2026-05-01', true) RETURNING id`)) as number,
    (await tx.oneFirst(sql.unsafe`INSERT INTO supersession (from_item_id, to_item_id, site_id, effective_date, stock_rollable) VALUES (${P}, ${itemR}, NULL, '2026-05-01', true) RETURNING id`)) as number,
  ]);
  expect(edges[0]!).toBeLessThan(edges[1]!);

  const scenario = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`))) as number;
  const started = ok(await t.call('post', '/api/supply/run', { token: planner, body: { pipeline_id: seed.pipelineId, scenario_id: scenario } }));
  const job = await waitForJob(t, planner, started.job_id, isFinished, 120_000);
  expect([job.status, job.error]).toEqual(['completed', null]);

  const plans = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT item_id, site_id, opening, receipts_firm[52] AS firm_week_51, (SELECT sum(v) FROM unnest(receipts_firm) v)::float8 AS firm_total, firm_beyond_horizon
    FROM supply_plans WHERE run_id = ${job.job_id} AND site_id = ${s.S1} ORDER BY item_id`)) as any[];
  // the split: Q (edge of the lower id) opens with P's 12 at S1, R with its own 0
  // the horizon: Q's firm order counts in week 51, and the plan says it really arrives later
  expect(plans).toEqual([
    { item_id: P, site_id: s.S1, opening: 0, firm_week_51: 0, firm_total: 0, firm_beyond_horizon: 0 },
    { item_id: Q, site_id: s.S1, opening: 12, firm_week_51: 20, firm_total: 20, firm_beyond_horizon: 20 },
    { item_id: itemR, site_id: s.S1, opening: 0, firm_week_51: 0, firm_total: 0, firm_beyond_horizon: 0 },
  ]);

  // R's orders are BUILD orders on the route sent as MAKE, 3 a week for 52 weeks
  const rOrders = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT order_type, route_id, count(*)::int AS n, sum(qty)::float8 AS qty FROM supply_orders WHERE run_id = ${job.job_id} AND item_id = ${itemR} GROUP BY 1, 2`));
  expect(rOrders).toEqual([{ order_type: 'BUILD', route_id: make.id, n: 52, qty: 156 }]);

  // the allocation of that run finds the same firm order in week 51: it serves Q's week-51 line on time (and, worth
  // 1.0 − 0.05 a week late against 0.85 on time, lines of the weeks just before it)
  let alloc: any = null;
  for (let i = 0; i < 120 && alloc?.status !== 'completed'; i++) {
    alloc = await withTenant(t.db, a.accountId, (tx) => tx.maybeOne(sql.unsafe`SELECT run_id, status FROM allocation_runs WHERE supply_run_id = ${job.job_id}`));
    if (alloc?.status !== 'completed') await new Promise((r) => setTimeout(r, 500));
  }
  expect(alloc?.status).toBe('completed');
  const firmRows = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT arrival_week, due_week FROM allocation_results WHERE run_id = ${alloc.run_id} AND supply_id = ${`FIRM_${firm.id}`} ORDER BY due_week`)) as any[];
  expect(firmRows.length).toBeGreaterThan(0);
  expect(firmRows.every((r) => r.arrival_week === 51 && r.due_week >= 51 - 3)).toBe(true);
  expect(firmRows.at(-1)).toEqual({ arrival_week: 51, due_week: 51 });
}, 240_000);
