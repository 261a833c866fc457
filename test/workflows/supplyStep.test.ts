import { roadsTaken } from '../../db/heldReferences';
import { sql, withTenant } from '../../db/pool';
import { planSupply } from '../../domain/supply/engine';
import { isFinished, waitForJob } from '../support/jobs';
import { PLANNING_DATE, seedInput, seedSupply, type SupplySeed } from '../support/supplySeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let seed: SupplySeed;
let base: number;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('supply-step');
  planner = await t.login(a.planner);
  seed = await seedSupply(t.db, a.accountId);
  base = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`))) as number;
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

async function runSupply(body: Record<string, unknown>) {
  const started = await t.call('post', '/api/pipeline/run/supply', { token: planner, body });
  expect(started.status).toBe(200);
  return waitForJob(t, planner, started.body.job_id, isFinished, 120_000);
}

const storedOrders = (runId: string) => withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
  SELECT item_id, site_id, source_site_id, route_id, order_type, kind, status, qty, release_week, arrival_week, need_week, late, release_date::text, arrival_date::text
  FROM supply_orders WHERE run_id = ${runId} ORDER BY item_id, site_id, arrival_week, engine_order_id`));

test('the supply step stores exactly the engine\'s plan of the seeded network, with dates from the planning date', async () => {
  const job = await runSupply({ pipeline_id: seed.pipelineId });
  expect([job.status, job.error]).toEqual(['completed', null]);
  expect(job.result).toMatchObject({ step: 'supply', series: 3 });
  // every table the step wrote had its foreign keys checked set-based, none row by row (db/heldReferences.ts), the
  // orders too: their counting triggers fire ALWAYS (migration 041), so the counts still match the orders
  const roads = [...roadsTaken].filter(([table]) => table.startsWith('supply_'));
  expect(roads.map(([table]) => table)).toEqual(expect.arrayContaining(['supply_orders', 'supply_pegging', 'supply_plans', 'supply_indirect', 'supply_exceptions']));
  for (const [table, taken] of roads) expect([table, taken.ordinary, taken.held > 0]).toEqual([table, 0, true]);
  const counts = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT item_id, n::int FROM supply_order_counts WHERE run_id = ${job.job_id} AND n <> 0 ORDER BY item_id`));
  const ordersPerItem = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT item_id, count(*)::int AS n FROM supply_orders WHERE run_id = ${job.job_id} GROUP BY item_id ORDER BY item_id`));
  expect(ordersPerItem.length).toBeGreaterThan(0);
  expect(counts).toEqual(ordersPerItem);

  const expected = planSupply({ planning_date: PLANNING_DATE, flags: { firm_orders_block_horizon: false, respect_lead_time: false }, items: seedInput(seed) });
  expect(expected.errors).toEqual([]);
  const day = (w: number) => new Date(Date.parse(`${PLANNING_DATE}T00:00:00Z`) + 7 * w * 86_400_000).toISOString().slice(0, 10);
  const rows = await storedOrders(job.job_id);
  expect(rows.length).toBe(expected.orders.length);
  const want = [...expected.orders]
    .sort((x, y) => x.item_id - y.item_id || x.site_id - y.site_id || x.arrival_week - y.arrival_week || x.id - y.id)
    .map((o) => ({
      item_id: o.item_id, site_id: o.site_id, source_site_id: o.source_site_id, route_id: o.route_id, order_type: o.order_type, kind: o.kind, status: o.status,
      qty: o.qty, release_week: o.release_week, arrival_week: o.arrival_week, need_week: o.need_week, late: o.late, release_date: day(o.release_week), arrival_date: day(o.arrival_week),
    }));
  expect(rows).toEqual(want);

  // hand check of one line: P at S1 has 12 on hand against 10 a week, so week 1 is short 8 and a TRANSFER from the DC
  // released in week 0 (lead time 1) brings exactly 8
  const s1 = rows.filter((r: any) => r.item_id === seed.items.P && r.site_id === seed.sites.S1);
  expect(s1[0]).toMatchObject({ order_type: 'TRANSFER', source_site_id: seed.sites.DC, qty: 8, release_week: 0, arrival_week: 1, status: 'planned' });
  expect(s1.slice(1, 5).map((r: any) => r.qty)).toEqual([10, 10, 10, 10]);
  // Q: 4 a week in multiples of 6 from the vendor, 3 weeks away: weeks 0-2 cannot be reached in time
  const q = rows.filter((r: any) => r.item_id === seed.items.Q);
  expect(q.every((r: any) => r.qty % 6 === 0)).toBe(true);

  const run = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`SELECT status, planning_date::text, scenario_id, n_orders, n_sku_sites, kpis, checks FROM supply_runs WHERE run_id = ${job.job_id}`));
  expect(run).toMatchObject({ status: 'completed', planning_date: PLANNING_DATE, scenario_id: base, n_orders: expected.orders.length, n_sku_sites: 4 });
  expect((run.checks as any).ok).toBe(true);
  const k = run.kpis as any;
  expect(k.n_orders).toBe(expected.kpis.n_orders);
  expect(k.n_exceptions).toBe(expected.kpis.n_exceptions);
  expect(k.demand_qty).toBeCloseTo(expected.kpis.demand_qty, 9);
  expect(k.shortage_qty).toBeCloseTo(expected.kpis.shortage_qty, 9);
  expect(k.projected_fill_rate).toBeCloseTo(expected.kpis.projected_fill_rate!, 12);
  expect(k.avg_inventory_value).toBeCloseTo(expected.kpis.avg_inventory_value, 9);
  expect(k.orders_by_type).toEqual(expected.kpis.orders_by_type);

  // indirect demand at the DC is the stores' TRANSFER orders, in their release weeks
  const indirect = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`
    SELECT sum(qty)::float8 FROM supply_indirect WHERE run_id = ${job.job_id} AND site_id = ${seed.sites.DC}`));
  expect(indirect).toBeCloseTo(expected.indirect.filter((r) => r.site_id === seed.sites.DC).reduce((n, r) => n + r.qty, 0), 9);
  // pegging: every order's lines sum to its quantity, and refer to stored orders
  const peg = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`
    SELECT max(abs(o.qty - p.total))::float8 AS residual, count(*)::int AS n FROM supply_orders o
    JOIN (SELECT order_id, sum(qty) AS total FROM supply_pegging GROUP BY order_id) p USING (order_id) WHERE o.run_id = ${job.job_id}`));
  expect(peg).toEqual({ residual: 0, n: expected.orders.length });
}, 180_000);

test('supply needs a scenario pipeline and a supply scenario that exists', async () => {
  const unknown = await t.call('post', '/api/pipeline/run/supply', { token: planner, body: { pipeline_id: seed.pipelineId, scenario_id: 999999 } });
  expect([unknown.status, unknown.body.detail]).toEqual([404, 'scenario_id: supply scenario 999999 not found']);
});

describe('the supply API over a completed run', () => {
  let runId: string;
  const scope = () => ({ pipeline_id: seed.pipelineId, scenario_id: base });
  beforeAll(async () => {
    const started = await t.call('post', '/api/supply/run', { token: planner, body: scope() });
    expect(started.status).toBe(200);
    runId = started.body.run_id;
    const job = await waitForJob(t, planner, started.body.job_id, isFinished, 120_000);
    expect([job.status, job.error]).toEqual(['completed', null]);
  }, 180_000);

  test('every supply read needs pipeline_id (not 0) and scenario_id, and names what is missing', async () => {
    for (const path of ['/api/supply/orders', '/api/supply/runs', '/api/supply/inventory', '/api/supply/exceptions', '/api/supply/dashboard', '/api/supply/pegging']) {
      const none = await t.call('get', path, { token: planner, query: { scenario_id: base } });
      expect([path, none.status, none.body.detail]).toEqual([path, 400, 'pipeline_id is required (a positive pipeline id; 0 is not a pipeline)']);
      const zero = await t.call('get', path, { token: planner, query: { pipeline_id: 0, scenario_id: base } });
      expect([path, zero.status]).toEqual([path, 400]);
      const noScenario = await t.call('get', path, { token: planner, query: { pipeline_id: seed.pipelineId } });
      expect([path, noScenario.status, noScenario.body.detail]).toEqual([path, 400, 'query.scenario_id is required']);
    }
    const other = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), run_id: 'nope' } });
    expect([other.status, other.body.detail]).toEqual([404, `run_id: supply run nope not found for pipeline ${seed.pipelineId} and supply scenario ${base}`]);
  });

  test('runs: the newest first, one by id, with KPIs; the default read is the newest completed run', async () => {
    const list = await t.call('get', '/api/supply/runs', { token: planner, query: scope() });
    expect(list.status).toBe(200);
    expect(list.body[0]).toMatchObject({ run_id: runId, status: 'completed', planning_date: PLANNING_DATE, horizon: 52, n_sku_sites: 4, job_status: 'completed' });
    expect(Number(list.headers['x-total-count'])).toBe(list.body.length);
    const one = await t.call('get', `/api/supply/runs/${runId}`, { token: planner, query: scope() });
    expect(one.body).toEqual(list.body[0]);
    expect(one.body.checks).toMatchObject({ ok: true, max_conservation_residual: 0, max_pegging_residual: 0 });
  });

  test('orders: filters, paging over the list, and the weeks of each row', async () => {
    const all = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), limit: 5000 } });
    expect(all.status).toBe(200);
    const n = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_orders WHERE run_id = ${runId}`))) as number;
    expect([all.body.length, Number(all.headers['x-total-count'])]).toEqual([n, n]);
    expect(all.body.every((o: any) => o.supply_id === `SO_${o.order_id}` && o.is_firm === false && o.run_id === runId)).toBe(true);
    const q = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), item_id: seed.items.Q, week_from: 4, week_to: 6 } });
    expect(q.body.length).toBeGreaterThan(0);
    expect(q.body.every((o: any) => o.item_id === seed.items.Q && o.arrival_week >= 4 && o.arrival_week <= 6 && o.item_xuid === 'Q' && o.order_type === 'BUY')).toBe(true);
    const pageOne = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), limit: 3 } });
    const pageTwo = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), limit: 3, skip: 3 } });
    expect([...pageOne.body, ...pageTwo.body]).toEqual(all.body.slice(0, 6));
    const transfers = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), order_type: 'TRANSFER', source_site_id: seed.sites.DC } });
    expect(transfers.body.length).toBe(all.body.filter((o: any) => o.order_type === 'TRANSFER').length);
    const bad = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), week_from: 5, week_to: 2 } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'week_from: must not be after week_to']);
    const badType = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), order_type: 'SHIP' } });
    expect(badType.status).toBe(400);
    expect(badType.body.detail).toContain('order_type');
  });

  test('breakdown sums the orders per item, site and week', async () => {
    const all = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), limit: 5000 } });
    const br = await t.call('get', '/api/supply/orders/breakdown', { token: planner, query: { ...scope(), limit: 5000 } });
    expect(br.status).toBe(200);
    const sum = new Map<string, number>();
    for (const o of all.body) sum.set(`${o.item_id}:${o.site_id}:${o.arrival_week}`, (sum.get(`${o.item_id}:${o.site_id}:${o.arrival_week}`) ?? 0) + o.qty);
    expect(br.body.length).toBe(sum.size);
    for (const b of br.body) expect(b.qty).toBeCloseTo(sum.get(`${b.item_id}:${b.site_id}:${b.week}`)!, 9);
  });

  test('pegging per order on both paths, and in bulk, sums to the order quantity', async () => {
    const orders = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), item_id: seed.items.P, site_id: seed.sites.DC } });
    const o = orders.body[0];
    const a1 = await t.call('get', `/api/supply/orders/${o.order_id}/pegging`, { token: planner, query: scope() });
    const a2 = await t.call('get', `/api/supply/pegging/${o.order_id}`, { token: planner, query: scope() });
    expect(a1.status).toBe(200);
    expect(a2.body).toEqual(a1.body);
    expect(a1.body.pegged_qty).toBeCloseTo(o.qty, 9);
    // an order at the DC serves the stores' transfers: indirect lines that name the store order
    expect(a1.body.lines.every((l: any) => ['indirect', 'safety_stock', 'excess', 'backlog'].includes(l.kind))).toBe(true);
    const store = a1.body.lines.find((l: any) => l.kind === 'indirect');
    expect(store.demand_line).toBe(`indirect:${store.ref_id}`);
    const bulk = await t.call('get', '/api/supply/pegging', { token: planner, query: { ...scope(), item_id: seed.items.P, limit: 5000 } });
    expect(bulk.body.filter((l: any) => l.order_id === o.order_id).map((l: any) => l.qty)).toEqual(a1.body.lines.map((l: any) => l.qty));
    const missing = await t.call('get', '/api/supply/pegging/999999999', { token: planner, query: scope() });
    expect(missing.status).toBe(404);
  });

  test('inventory is the weekly projection: opening + receipts − gross = closing, for every row', async () => {
    const inv = await t.call('get', '/api/supply/inventory', { token: planner, query: { ...scope(), limit: 5000 } });
    expect(inv.status).toBe(200);
    expect(inv.body.length).toBe(4 * 52);
    for (const r of inv.body) expect(r.opening + r.receipts_firm + r.receipts_planned - r.gross).toBeCloseTo(r.projected, 9);
    const s1 = inv.body.filter((r: any) => r.item_id === seed.items.P && r.site_id === seed.sites.S1);
    expect(s1[0]).toMatchObject({ week: 0, week_start: PLANNING_DATE, opening: 12, demand: 10, projected: 2 });
    const dc = inv.body.filter((r: any) => r.site_id === seed.sites.DC);
    expect(dc.reduce((n: number, r: any) => n + r.indirect, 0)).toBeGreaterThan(0);
    const window = await t.call('get', '/api/supply/inventory', { token: planner, query: { ...scope(), item_id: seed.items.Q, week_from: 10, week_to: 11 } });
    expect(window.body.map((r: any) => r.week)).toEqual([10, 11]);
  });

  test('exceptions and the dashboard agree with the run', async () => {
    const ex = await t.call('get', '/api/supply/exceptions', { token: planner, query: { ...scope(), limit: 5000 } });
    const dash = await t.call('get', '/api/supply/dashboard', { token: planner, query: scope() });
    expect(dash.status).toBe(200);
    expect(ex.body.length).toBe(dash.body.run.n_exceptions);
    expect(dash.body.exceptions.reduce((n: number, e: any) => n + e.count, 0)).toBe(ex.body.length);
    // Q is 3 weeks from its vendor with nothing on hand: its first orders had to be released before week 0, so they
    // are late, each with its late_order exception naming it
    const late = ex.body.filter((e: any) => e.item_id === seed.items.Q && e.type === 'late_order');
    expect(late.length).toBeGreaterThan(0);
    const qOrders = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), item_id: seed.items.Q, limit: 5000 } });
    const lateIds = qOrders.body.filter((o: any) => o.late).map((o: any) => o.order_id);
    expect(late.map((e: any) => e.order_id).sort()).toEqual(lateIds.sort());
    expect(qOrders.body.filter((o: any) => o.late).every((o: any) => o.release_week < 0 && o.status === 'delayed')).toBe(true);
    expect(dash.body.kpis).toEqual(dash.body.run.kpis);
    const allOrders = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), limit: 5000 } });
    expect(dash.body.late_orders).toBe(allOrders.body.filter((o: any) => o.late).length);
  });

  test('a planner edits an order and approves it; the engine values stay beside the change; bad input changes nothing', async () => {
    const orders = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), item_id: seed.items.Q, week_from: 8 } });
    const o = orders.body[0];
    const bad = await t.call('put', `/api/supply/orders/${o.order_id}`, { token: planner, query: scope(), body: { qty: -3 } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'body.qty must be > 0']);
    const before = await t.call('put', `/api/supply/orders/${o.order_id}`, { token: planner, query: scope(), body: { arrival_date: '2026-01-01' } });
    expect([before.status, before.body.detail]).toEqual([400, `body.arrival_date: 2026-01-01 is before the release date ${o.release_date}`]);
    const same = await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope(), item_id: seed.items.Q, week_from: 8 } });
    expect(same.body[0]).toEqual(o);

    const put = await t.call('put', `/api/supply/orders/${o.order_id}`, { token: planner, query: scope(), body: { qty: o.qty + 6, arrival_date: '2026-08-17' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ order_id: o.order_id, qty: o.qty + 6, engine_qty: o.qty, arrival_date: '2026-08-17', arrival_week: 11, edited_by: a.planner.email });
    const wrongScope = await t.call('put', `/api/supply/orders/${o.order_id}`, { token: planner, query: { ...scope(), scenario_id: 999999 }, body: { qty: 1 } });
    expect(wrongScope.status).toBe(404);

    const noDate = await t.call('patch', `/api/orders/${o.order_id}/approve`, { token: planner, body: { approved_quantity: 12 } });
    expect([noDate.status, noDate.body.detail]).toEqual([400, 'body.approved_availability_date is required']);
    const ok = await t.call('patch', `/api/orders/${o.order_id}/approve`, { token: planner, body: { approved_quantity: 12, approved_availability_date: '2026-08-24' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ approved_quantity: 12, approved_availability_date: '2026-08-24', approved_by: a.planner.email, qty: o.qty + 6 });
    const unknown = await t.call('patch', '/api/orders/999999999/approve', { token: planner, body: { approved_quantity: 1, approved_availability_date: '2026-08-24' } });
    expect(unknown.status).toBe(404);
  });

  test('sync-alerts writes the supply issues into the exception log once, keeping other issues and statuses', async () => {
    const skuSites = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(DISTINCT (item_id, site_id))::int FROM supply_exceptions WHERE run_id = ${runId}`))) as number;
    // the supply job refreshed the log already (workflows/runStep.ts SIGNAL_STEPS): a sync finds every row there
    const logged = await t.call('get', '/api/exception-log', { token: planner, query: { pipeline_id: seed.pipelineId, types: 'supply' } });
    expect(logged.body.total).toBe(skuSites);
    const first = await t.call('post', '/api/supply/sync-alerts', { token: planner, query: scope() });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ run_id: runId, sku_sites_with_issues: skuSites, created: 0, updated: skuSites, cleared: 0 });
    const again = await t.call('post', '/api/supply/sync-alerts', { token: planner, query: scope() });
    expect(again.body).toMatchObject({ created: 0, updated: skuSites, reopened: 0, cleared: 0 });
    const rows = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT item_id, site_id, exception_types, status, jsonb_array_length(issues) AS n FROM exception_log WHERE pipeline_id = ${seed.pipelineId}`));
    const nEx = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_exceptions WHERE run_id = ${runId}`))) as number;
    expect(rows.reduce((n: number, r: any) => n + r.n, 0)).toBe(nEx);
    expect(rows.every((r: any) => r.status === 'open' && r.exception_types.join() === 'supply')).toBe(true);
    // a planner resolves one: the same issues synced again leave it resolved
    const one = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT id FROM exception_log WHERE pipeline_id = ${seed.pipelineId} ORDER BY id LIMIT 1`))) as number;
    expect((await t.call('patch', `/api/exception-log/${one}/status`, { token: planner, body: { status: 'resolved' } })).status).toBe(200);
    const third = await t.call('post', '/api/supply/sync-alerts', { token: planner, query: scope() });
    expect(third.body).toMatchObject({ created: 0, updated: skuSites, reopened: 0 });
    expect(await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT status FROM exception_log WHERE id = ${one}`))).toBe('resolved');
  });

  test('consumption preview: booked demand consumes the forecast week by week', async () => {
    // P at S1 plans 10 a week; 7 booked in week 0 and 13 in week 1: consumed 7 + 10, 3 over
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
      INSERT INTO demand_history (item_id, site_id, ds, qty) VALUES (${seed.items.P}, ${seed.sites.S1}, '2026-06-02', 7), (${seed.items.P}, ${seed.sites.S1}, '2026-06-09', 13)`));
    const res = await t.call('get', '/api/supply/consumption-preview', { token: planner, query: { ...scope(), weeks: 2, item_id: seed.items.P, site_id: seed.sites.S1 } });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([{
      item_id: seed.items.P, site_id: seed.sites.S1, unique_id: `${seed.items.P}_${seed.sites.S1}`, forecast: 20, actual: 20, consumed: 17, remaining: 3, over_consumption: 3, consumption_rate: 0.85,
    }]);
    expect(res.body).toMatchObject({ run_id: runId, planning_date: PLANNING_DATE, weeks: 2 });
  });

  test('deleting a run removes what it wrote', async () => {
    const other = await t.call('post', '/api/supply/run', { token: planner, body: scope() });
    const job = await waitForJob(t, planner, other.body.job_id, isFinished, 120_000);
    expect(job.status).toBe('completed');
    const del = await t.call('delete', `/api/supply/runs/${other.body.run_id}`, { token: planner, query: scope() });
    expect([del.status, del.body]).toEqual([200, { run_id: other.body.run_id, deleted: true }]);
    const left = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_orders WHERE run_id = ${other.body.run_id}`));
    expect(left).toBe(0);
    const gone = await t.call('get', `/api/supply/runs/${other.body.run_id}`, { token: planner, query: scope() });
    expect(gone.status).toBe(404);
  }, 180_000);
});
