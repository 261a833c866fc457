import { seedDemoData } from '../../scripts/demoData/seed';
import { completedJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp } from '../support/testApp';

/**
 * The demo pipeline after run-all, a causal run and a freeze: wherever two routes report the same total, they agree.
 * Every figure below is read through the HTTP API from what the real steps stored; nothing is a fixture.
 * docs/API.md, "What agrees with what".
 */

const TOLERANCE = 0.01;
let tw: TestWorker;
let t: TestApp;
let admin: string;
let pipelineId: number;
let supplyScenarioId: number;
let meioScenarioId: number;
let causalScenarioId: number;
let planningDate: string;
let archiveDate: string;

type Row = Record<string, any>;

/** Every row of a paged read, whichever of the two paged shapes (a bare array or `{items}`) the route answers. */
async function all(path: string, query: Record<string, unknown>, limit = 1000): Promise<Row[]> {
  const rows: Row[] = [];
  for (let skip = 0; ; skip += limit) {
    const res = await t.call('get', path, { token: admin, query: { ...query, skip, limit } });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    const page: Row[] = Array.isArray(res.body) ? res.body : res.body.items ?? res.body.rows;
    rows.push(...page);
    if (page.length < limit) return rows;
  }
}

const sum = (xs: number[]) => xs.reduce((n, x) => n + x, 0);
const byKey = <T>(rows: T[], key: (r: T) => string, value: (r: T) => number) => {
  const m = new Map<string, number>();
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + value(r));
  return m;
};
/** The keys whose totals differ by more than the tolerance, with both totals: [] when the two sides agree. */
function disagreements(a: Map<string, number>, b: Map<string, number>): Array<[string, number, number]> {
  const out: Array<[string, number, number]> = [];
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k) ?? 0;
    const y = b.get(k) ?? 0;
    if (Math.abs(x - y) > TOLERANCE) out.push([k, x, y]);
  }
  return out;
}

const finished = (jobId: string, timeoutMs: number) => completedJob(t, admin, jobId, timeoutMs);

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  const tenant = await t.newTenant('consistency');
  admin = await t.login(tenant.admin);
  // a smaller demo than the start command's, with the same network, routes, firm orders, fleet and maintenance
  const seeded = await seedDemoData(t.db, { client: tw.client, taskQueue: tw.taskQueue }, tenant.accountId, { seed: 7, items: 30, sites: 6, seriesTarget: 50 }, 'test', 240_000);
  pipelineId = seeded.pipelineId;

  const run = await t.call('post', '/api/pipeline/run-all', { token: admin, body: { pipeline_id: pipelineId } });
  expect(run.status).toBe(200);
  await finished(run.body.job_id, 480_000);

  planningDate = (await t.call('get', '/api/history/planning-date', { token: admin, query: { pipeline_id: pipelineId } })).body.effective;
  supplyScenarioId = (await t.call('get', '/api/supply/scenarios', { token: admin })).body.find((s: Row) => s.is_default).id;
  meioScenarioId = (await t.call('get', '/api/meio/scenarios', { token: admin })).body.find((s: Row) => s.is_default).id;
  causalScenarioId = (await t.call('get', '/api/causal/scenarios', { token: admin })).body.find((s: Row) => s.name === 'Baseline').id;

  // run-all does not run the causal model: run it for the pipeline from its planning date
  const causal = await t.call('post', '/api/causal/scenarios/run', { token: admin, body: { scenario_id: causalScenarioId, pipeline_id: pipelineId, start_date: planningDate, horizon_weeks: 8 } });
  expect(causal.status).toBe(200);
  await finished(causal.body.job_id, 120_000);

  const freeze = await t.call('post', '/api/history/freeze', { token: admin, body: { pipeline_id: pipelineId } });
  expect(freeze.status).toBe(200);
  archiveDate = freeze.body.archive_date;
}, 900_000);
afterAll(async () => {
  await t?.close();
  await tw?.close();
});

test('causal: each stored site row is its breakdown\'s actual_demand and the sum of its terms; each part\'s aggregate is the sum of its sites', async () => {
  const scope = { scenario_id: causalScenarioId, pipeline_id: pipelineId };
  const sites = await all('/api/causal/results', scope);
  const aggregates = await all('/api/causal/results', { ...scope, aggregate: true });
  expect(sites.length).toBeGreaterThan(0);
  expect(sites.some((r) => r.demand > 0)).toBe(true);
  for (const row of sites) {
    const b = (await t.call('get', '/api/causal/results/breakdown', { token: admin, query: { ...scope, item_id: row.series_id, period: row.week } })).body;
    const terms = sum(b.breakdown.map((x: Row) => x.computed_demand));
    expect([row.series_id, row.week, b.actual_source]).toEqual([row.series_id, row.week, 'series']);
    expect(Math.abs(b.actual_demand - row.demand)).toBeLessThanOrEqual(TOLERANCE);
    expect(Math.abs(terms - b.actual_demand)).toBeLessThanOrEqual(TOLERANCE);
  }
  const perPart = byKey(sites, (r) => `${r.item_id}@${r.week}`, (r) => r.demand);
  expect(disagreements(byKey(aggregates, (r) => `${r.item_id}@${r.week}`, (r) => r.demand), perPart)).toEqual([]);
}, 300_000);

test('supply: the planned orders arriving at each SKU-site are its planned receipts, and each week\'s projected stock moves by receipts minus gross requirement', async () => {
  const scope = { pipeline_id: pipelineId, scenario_id: supplyScenarioId };
  const orders = await all('/api/supply/orders', { ...scope, include_firm: false }, 5000);
  const firm = await all('/api/supply/orders', { ...scope, firm_only: true }, 5000);
  const weeks = await all('/api/supply/inventory', scope, 5000);
  expect([orders.length > 0, firm.length > 0]).toEqual([true, true]);
  const sku = (r: Row) => `${r.item_id}_${r.site_id}`;
  expect(disagreements(byKey(orders, (r) => `${sku(r)}@${r.arrival_week}`, (r) => r.qty), byKey(weeks, (r) => `${sku(r)}@${r.week}`, (r) => r.receipts_planned))).toEqual([]);
  expect(disagreements(byKey(firm, (r) => `${sku(r)}@${r.arrival_week}`, (r) => r.qty), byKey(weeks, (r) => `${sku(r)}@${r.week}`, (r) => r.receipts_firm))).toEqual([]);
  const previous = new Map<string, number>();
  const broken: Row[] = [];
  for (const w of [...weeks].sort((x, y) => sku(x).localeCompare(sku(y)) || x.week - y.week)) {
    const moved = w.opening + w.receipts_firm + w.receipts_planned + w.returns - w.gross;
    const carried = previous.has(sku(w)) ? previous.get(sku(w))! : w.opening;
    if (Math.abs(moved - w.projected) > TOLERANCE || Math.abs(carried - w.opening) > TOLERANCE) broken.push(w);
    previous.set(sku(w), w.projected);
  }
  expect(broken).toEqual([]);
}, 120_000);

test('supply: the dashboard\'s KPIs are the totals of the orders and the projected weeks; a site\'s indirect demand is the transfers it ships', async () => {
  const scope = { pipeline_id: pipelineId, scenario_id: supplyScenarioId };
  const orders = await all('/api/supply/orders', { ...scope, include_firm: false }, 5000);
  const weeks = await all('/api/supply/inventory', scope, 5000);
  const k = (await t.call('get', '/api/supply/dashboard', { token: admin, query: scope })).body.kpis;
  expect(k.n_orders).toBe(orders.length);
  expect(disagreements(new Map(Object.entries(k.orders_by_type).map(([type, c]: [string, any]) => [type, c.qty])), byKey(orders, (o) => o.order_type, (o) => o.qty))).toEqual([]);
  expect(Math.abs(k.demand_qty - sum(weeks.map((w) => Math.max(0, w.gross))))).toBeLessThanOrEqual(TOLERANCE);
  expect(Math.abs(k.shortage_qty + k.served_qty - k.demand_qty)).toBeLessThanOrEqual(TOLERANCE);
  const lastWeek = Math.max(...weeks.map((w) => w.week));
  expect(Math.abs(k.ending_inventory_value - sum(weeks.filter((w) => w.week === lastWeek).map((w) => w.inventory_value)))).toBeLessThanOrEqual(TOLERANCE);

  // a TRANSFER order draws on its source in its release week (week 0 for a release in the past); a superseded
  // item's draws are dropped (document 2 §4.4 rule 5) and a firm transfer's draw is not an engine order, so those
  // SKU-sites are left out here. REPLENISH orders do not draw on their source (docs/SUPPLY.md, "REPLENISHMENT vs
  // TRANSFER"): the demo's network is all REPLENISHMENT routes, so its plan has no indirect demand at all
  const active = (await t.call('get', '/api/supersession/active', { token: admin, query: { pipeline_id: pipelineId } })).body;
  const superseded = new Set((Array.isArray(active) ? active : active.edges ?? active.items).map((e: Row) => e.from_item_id));
  const firmSources = new Set((await all('/api/supply/orders', { ...scope, firm_only: true }, 5000)).filter((f) => f.source_site_id !== null).map((f) => `${f.item_id}_${f.source_site_id}`));
  const counted = (item: number, site: number) => !superseded.has(item) && !firmSources.has(`${item}_${site}`);
  const draws = orders.filter((o) => o.order_type === 'TRANSFER' && counted(o.item_id, o.source_site_id));
  expect(disagreements(
    byKey(weeks.filter((w) => w.indirect !== 0 && counted(w.item_id, w.site_id)), (w) => `${w.item_id}_${w.site_id}@${w.week}`, (w) => w.indirect),
    byKey(draws, (o) => `${o.item_id}_${o.source_site_id}@${Math.max(0, o.release_week)}`, (o) => o.qty),
  )).toEqual([]);
}, 120_000);

test('allocation: the served quantity is the sum of its rows, within the pool of the supply run\'s orders and firm orders', async () => {
  const scope = { pipeline_id: pipelineId, scenario_id: supplyScenarioId };
  const [supplyRun] = (await t.call('get', '/api/supply/runs', { token: admin, query: scope })).body;
  const [alloc] = (await t.call('get', '/api/supply/allocations', { token: admin, query: { ...scope, supply_run_id: supplyRun.run_id } })).body;
  expect([alloc.status, alloc.supply_run_id]).toEqual(['completed', supplyRun.run_id]);
  const rows = await all(`/api/supply/allocations/${alloc.run_id}/results`, {});
  expect(Math.abs(sum(rows.map((r) => r.qty)) - alloc.allocated_qty)).toBeLessThanOrEqual(TOLERANCE);
  expect(alloc.allocated_qty).toBeGreaterThan(0);
  expect(alloc.allocated_qty).toBeLessThanOrEqual(Math.min(alloc.supply_qty, alloc.demand_qty) + TOLERANCE);

  // the pool: engine orders in a pool status and firm orders still open, each under its supply id
  const pooled = new Set(['planned', 'constrained', 'delayed', 'expedited']);
  const orders = (await all('/api/supply/orders', { ...scope, include_firm: false }, 5000)).filter((o) => pooled.has(o.status));
  const firm = await all('/api/supply/orders', { ...scope, firm_only: true }, 5000);
  const pool = new Map<string, number>([...orders.map((o) => [`SO_${o.order_id}`, o.qty] as [string, number]), ...firm.map((f) => [f.supply_id, f.qty] as [string, number])]);
  expect(Math.abs(sum([...pool.values()]) - alloc.supply_qty)).toBeLessThanOrEqual(TOLERANCE);
  const given = byKey(rows, (r) => r.supply_id, (r) => r.qty);
  const over = [...given].filter(([id, q]) => q > (pool.get(id) ?? 0) + TOLERANCE);
  expect(over).toEqual([]);
}, 120_000);

test('meio: each item\'s group row invests the sum of its SKU rows', async () => {
  const skus = await all(`/api/meio/scenarios/${meioScenarioId}/results`, { pipeline_id: pipelineId });
  const groups = await all(`/api/meio/scenarios/${meioScenarioId}/results`, { pipeline_id: pipelineId, level: 'group' });
  expect(groups.length).toBeGreaterThan(0);
  expect(disagreements(byKey(groups, (g) => String(g.item_id), (g) => g.investment ?? 0), byKey(skus, (r) => String(r.item_id), (r) => r.investment ?? 0))).toEqual([]);
  const planned = byKey(skus.filter((r) => r.reorder_point !== null), (r) => String(r.item_id), () => 1);
  expect(groups.map((g) => [g.item_id, g.n_skus])).toEqual(groups.map((g) => [g.item_id, planned.get(String(g.item_id)) ?? 0]));
}, 120_000);

test('history: the frozen version is the live plan it was frozen from, in every dimension of the comparison', async () => {
  const kpi = (await t.call('get', '/api/compare/versions', { token: admin, query: { pipeline_id: pipelineId, base: archiveDate, target: 'live', dimension: 'kpi' } })).body;
  expect(kpi.rows.length).toBeGreaterThan(0);
  expect(kpi.rows.filter((r: Row) => r.delta !== 0)).toEqual([]);
  for (const dimension of ['forecast', 'order', 'inventory', 'meio_buffer', 'exceptions', 'best_method']) {
    const res = await t.call('get', '/api/compare/versions', { token: admin, query: { pipeline_id: pipelineId, base: archiveDate, target: 'live', dimension, only_changed: true } });
    expect([dimension, res.status, res.body.total, res.body.rows]).toEqual([dimension, 200, 0, []]);
  }
}, 120_000);

test('aggregate-demand: the portfolio total is the sum of its parts (two halves of its series, the causal site rows, the maintenance series)', async () => {
  const query = { pipeline_id: pipelineId, causal_scenario_id: causalScenarioId };
  const whole = (await t.call('get', '/api/analytics/aggregate-demand', { token: admin, query })).body;
  const ids = (await all('/api/series', { pipeline_id: pipelineId })).map((s) => s.unique_id as string);
  expect(ids.length).toBe(whole.series_count);
  const half = Math.ceil(ids.length / 2);
  const parts = [];
  for (const chunk of [ids.slice(0, half), ids.slice(half)]) {
    parts.push((await t.call('post', '/api/analytics/aggregate-demand', { token: admin, body: { unique_ids: chunk, pipeline_id: pipelineId } })).body);
  }
  const weekly = (xs: Row[]) => byKey(xs, (p) => p.date, (p) => p.value);
  for (const key of ['historical', 'forecast', 'forecast_maint'] as const) {
    expect([key, disagreements(weekly(whole[key]), weekly(parts.flatMap((p) => p[key])))]).toEqual([key, []]);
  }
  expect(parts[0].series_count + parts[1].series_count).toBe(whole.series_count);
  expect(parts[0].forecast_series_count + parts[1].forecast_series_count).toBe(whole.forecast_series_count);

  // forecast_causal sums the causal site rows of the series in scope: a site the fleet reaches without a series of
  // the part there is not in the portfolio
  const inScope = new Set(ids);
  const causal = (await all('/api/causal/results', { scenario_id: causalScenarioId, pipeline_id: pipelineId })).filter((r) => inScope.has(r.series_id));
  expect(causal.some((r) => r.demand > 0)).toBe(true);
  expect(disagreements(weekly(whole.forecast_causal), byKey(causal, (r) => r.week, (r) => r.demand))).toEqual([]);

  const weeks = whole.forecast_maint.map((p: Row) => p.date);
  const maint = (await t.call('get', '/api/maintenance/demand/series', { token: admin, query: { start_week: weeks[0], horizon_weeks: weeks.length } })).body;
  const perWeek = new Map<string, number>();
  for (const s of maint.series) s.values.forEach((v: number, k: number) => perWeek.set(maint.weeks[k], (perWeek.get(maint.weeks[k]) ?? 0) + v));
  expect(whole.forecast_maint.length).toBeGreaterThan(0);
  expect(disagreements(weekly(whole.forecast_maint), perWeek)).toEqual([]);
}, 120_000);
