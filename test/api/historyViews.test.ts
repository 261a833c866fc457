import { sql, withTenant } from '../../db/pool';
import { seedHistory, V1, V2, V3, type HistorySeed } from '../support/historySeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/** Hand-computed numbers: test/support/historySeed.ts describes the three versions they come from. */

let t: TestApp;
let a: TestTenant;
let admin: string;
let s: HistorySeed;
let P: number;
let uid: Record<'A' | 'B' | 'C' | 'D', string>;
let watch: number;
let other: number;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('history-views');
  admin = await t.login(a.admin);
  s = await seedHistory(t.db, a.accountId);
  P = s.pipelineId;
  const u = (item: number) => `${item}_${s.site}`;
  uid = { A: u(s.items.I1), B: u(s.items.I2), C: u(s.items.I3), D: u(s.items.I4) };
  await withTenant(t.db, a.accountId, async (tx) => {
    watch = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Watch') RETURNING id`)) as number;
    other = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Other') RETURNING id`)) as number;
    for (const item of [s.items.I1, s.items.I4]) await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${watch}, ${item}, ${s.site})`);
  });
});
afterAll(() => t.close());

const compare = (query: Record<string, unknown>, token = admin) => t.call('get', '/api/compare/versions', { token, query: { pipeline_id: P, ...query } });
const pva = (query: Record<string, unknown>, token = admin) => t.call('get', '/api/compare/plan-vs-actual', { token, query: { pipeline_id: P, ...query } });
const timeline = (query: Record<string, unknown> = {}) => t.call('get', '/api/history/timeline', { token: admin, query: { pipeline_id: P, ...query } });
const ids = (rows: Array<{ unique_id: string }>) => rows.map((r) => r.unique_id);
const close = (v: number) => expect.closeTo(v, 10);

describe('GET /api/compare/versions', () => {
  test('kpi: the registry KPIs and rows per table side by side', async () => {
    const res = await compare({ base: V1, target: V2, dimension: 'kpi' });
    expect(res.status).toBe(200);
    expect(res.body.base).toEqual({ kind: 'version', archive_date: V1, snapshot_ts: expect.any(String), pinned: false, frozen: true, comment: 'week 23', source: 'api' });
    expect(res.body.target).toMatchObject({ kind: 'version', archive_date: V2, comment: null });
    const by = Object.fromEntries(res.body.rows.map((r: any) => [r.metric, r]));
    expect(res.body.rows.slice(0, 6).map((r: any) => r.metric)).toEqual(['fill_rate', 'inventory_value', 'shortage_qty', 'forecast_mase', 'series', 'row_count_total']);
    expect(by.fill_rate).toEqual({ metric: 'fill_rate', base: 0.85, target: 0.95, delta: close(0.1), pct_delta: close(0.1 / 0.85), better: 'higher', improved: true });
    expect(by.inventory_value).toEqual({ metric: 'inventory_value', base: 36, target: 53, delta: 17, pct_delta: close(17 / 36), better: 'lower', improved: false });
    expect(by.shortage_qty).toEqual({ metric: 'shortage_qty', base: 6, target: 1, delta: -5, pct_delta: close(-5 / 6), better: 'lower', improved: true });
    expect(by.forecast_mase).toEqual({ metric: 'forecast_mase', base: close(1), target: close(0.8), delta: close(-0.2), pct_delta: close(-0.2), better: 'lower', improved: true });
    expect(by.series).toEqual({ metric: 'series', base: 3, target: 3, delta: 0, pct_delta: 0, better: null, improved: null });
    expect(by.row_count_total).toEqual({ metric: 'row_count_total', base: 22, target: 18, delta: -4, pct_delta: close(-4 / 22), better: null, improved: null });
    expect(by['table_counts.supply_orders']).toMatchObject({ base: 5, target: 3, delta: -2 });
    expect(by['table_counts.forecast_results']).toMatchObject({ base: 4, target: 4, delta: 0 });
    expect(by['table_counts.on_hand']).toMatchObject({ base: 0, target: 0, delta: 0, pct_delta: null });
    expect(res.headers['x-total-count']).toBeUndefined();
  });

  test('kpi against live: the live rows read as a freeze would store them, so right after a freeze nothing differs', async () => {
    const res = await compare({ base: V3, target: 'live', dimension: 'kpi' });
    expect(res.status).toBe(200);
    expect(res.body.target).toEqual({ kind: 'live', archive_date: null, snapshot_ts: null, pinned: null, frozen: null, comment: null, source: null });
    expect(res.body.rows.filter((r: any) => r.delta !== 0)).toEqual([]);
    expect(res.body.rows.find((r: any) => r.metric === 'row_count_total')).toMatchObject({ base: 17, target: 17 });
    expect((await compare({ base: V3, target: 'live', dimension: 'kpi', only_changed: true })).body.rows).toEqual([]);
  });

  test('base = target is allowed and changes nothing', async () => {
    const kpi = await compare({ base: V1, target: V1, dimension: 'kpi', only_changed: true });
    expect([kpi.status, kpi.body.rows]).toEqual([200, []]);
    const f = await compare({ base: V1, target: V1, dimension: 'forecast' });
    expect(f.body.window).toEqual({ from_week: V1, to_week: '2026-06-22', weeks: 4 });
    expect(f.body.totals).toMatchObject({ series: 3, both: 3, changed: 0, base_total: 68, target_total: 68, delta: 0 });
  });

  test('forecast: best-method totals over the common window, one-sided series with the other side null', async () => {
    const res = await compare({ base: V1, target: V2, dimension: 'forecast' });
    expect(res.status).toBe(200);
    expect(res.body.window).toEqual({ from_week: V2, to_week: '2026-06-22', weeks: 3 });
    expect([res.body.total, res.body.skip, res.body.limit, res.headers['x-total-count']]).toEqual([4, 0, 100, '4']);
    expect(res.body.rows).toEqual([
      { unique_id: uid.D, item_id: s.items.I4, site_id: s.site, item_xuid: 'I4', item_name: 'Item I4', site_xuid: 'S1', presence: 'target_only', changed: true,
        base_method: null, target_method: 'ses', base_total: null, target_total: 21, delta: null, pct_delta: null, base_weeks: null, target_weeks: 3 },
      expect.objectContaining({ unique_id: uid.C, presence: 'base_only', base_method: 'naive', target_method: null, base_total: 15, target_total: null, delta: null, base_weeks: 3, target_weeks: null }),
      expect.objectContaining({ unique_id: uid.A, presence: 'both', changed: true, base_method: 'ses', target_method: 'ses', base_total: 30, target_total: 33, delta: 3, pct_delta: close(0.1) }),
      expect.objectContaining({ unique_id: uid.B, presence: 'both', base_method: 'croston', target_method: 'naive', base_total: 6, target_total: 9, delta: 3, pct_delta: 0.5 }),
    ]);
    expect(res.body.rows[0]).not.toHaveProperty('base_weekly');
    expect(res.body.totals).toEqual({
      series: 4, both: 2, base_only: 1, target_only: 1, changed: 4, base_total: 51, target_total: 63, delta: 12, pct_delta: close(12 / 51), delta_common: 6,
    });
  });

  test('forecast: per-week values with detail, sort by series, filters and paging', async () => {
    const detail = await compare({ base: V1, target: V2, dimension: 'forecast', detail: true, item_id: s.items.I1 });
    expect(detail.body.rows).toEqual([expect.objectContaining({ unique_id: uid.A, base_weekly: [10, 10, 10], target_weekly: [11, 11, 11] })]);
    expect(detail.body.totals).toMatchObject({ series: 1, base_total: 30, target_total: 33, delta: 3 });
    expect(ids((await compare({ base: V1, target: V2, dimension: 'forecast', sort: 'series' })).body.rows)).toEqual([uid.A, uid.B, uid.C, uid.D]);
    const paged = await compare({ base: V1, target: V2, dimension: 'forecast', skip: 1, limit: 2 });
    expect([ids(paged.body.rows), paged.body.total, paged.headers['x-total-count'], paged.body.totals.series]).toEqual([[uid.C, uid.A], 4, '4', 4]);
    expect((await compare({ base: V1, target: V2, dimension: 'forecast', skip: 10 })).body).toMatchObject({ rows: [], total: 4 });
    expect((await compare({ base: V1, target: V2, dimension: 'forecast', site_id: s.site + 1000 })).body).toMatchObject({ rows: [], total: 0, totals: { series: 0, base_total: 0 } });
    const seg = await compare({ base: V1, target: V2, dimension: 'forecast', segment_id: watch });
    expect([ids(seg.body.rows), seg.body.totals.base_total, seg.body.totals.target_total]).toEqual([[uid.D, uid.A], 30, 54]);
  });

  test('forecast against live: only_changed lists what moved since the version, totals still cover every series', async () => {
    const res = await compare({ base: V2, target: 'live', dimension: 'forecast', only_changed: true });
    expect(res.body.window).toEqual({ from_week: V2, to_week: '2026-06-29', weeks: 4 });
    expect(res.body.rows).toEqual([expect.objectContaining({ unique_id: uid.A, base_total: 44, target_total: 53, delta: 9 })]);
    expect(res.body.total).toBe(1);
    expect(res.body.totals).toMatchObject({ series: 3, both: 3, changed: 1, base_total: 84, target_total: 93, delta: 9 });
  });

  test('a user restricted to segments sees only their series', async () => {
    const restricted = await t.login(await t.addUser(a.accountId, { role: 'user', allowed_segments: [watch] }));
    const res = await compare({ base: V1, target: V2, dimension: 'forecast' }, restricted);
    expect([ids(res.body.rows), res.body.totals.series]).toEqual([[uid.D, uid.A], 2]);
    const denied = await compare({ base: V1, target: V2, dimension: 'forecast', segment_id: other }, restricted);
    expect([denied.status, denied.body.detail]).toEqual([403, `segment_id: access to segment ${other} denied (it is not one of your segments)`]);
  });

  test('order: count, quantity and value per series and order type', async () => {
    const res = await compare({ base: V1, target: V2, dimension: 'order' });
    expect(res.status).toBe(200);
    expect(ids(res.body.rows)).toEqual([uid.D, uid.A, uid.C, uid.B]);
    const [D, A, C, B] = res.body.rows;
    expect(A).toEqual({
      unique_id: uid.A, item_id: s.items.I1, site_id: s.site, item_xuid: 'I1', item_name: 'Item I1', site_xuid: 'S1', supply_scenario_id: s.supplyScenario,
      presence: 'both', changed: true, base_n_orders: 3, target_n_orders: 1, delta_n_orders: -2, base_qty: 19, target_qty: 12, delta_qty: -7, pct_delta_qty: close(-7 / 19),
      base_value: 34, target_value: 24, delta_value: -10, pct_delta_value: close(-10 / 34),
      by_type: {
        BUY: { base_n_orders: 2, base_qty: 15, base_value: 30, target_n_orders: 1, target_qty: 12, target_value: 24, delta_qty: -3, delta_value: -6 },
        TRANSFER: { base_n_orders: 1, base_qty: 4, base_value: 4, target_n_orders: 0, target_qty: 0, target_value: 0, delta_qty: -4, delta_value: -4 },
      },
    });
    expect(D).toMatchObject({ presence: 'target_only', base_n_orders: null, base_qty: null, base_value: null, target_n_orders: 1, target_qty: 3, target_value: 15, delta_value: null,
      by_type: { BUILD: { base_n_orders: null, base_qty: null, base_value: null, target_n_orders: 1, target_qty: 3, target_value: 15, delta_qty: 3, delta_value: 15 } } });
    expect(C).toMatchObject({ presence: 'base_only', base_n_orders: 1, base_qty: 8, base_value: 8, target_n_orders: null, target_value: null });
    expect(B).toMatchObject({ presence: 'both', changed: false, base_value: 18, target_value: 18, delta_value: 0, delta_n_orders: 0 });
    expect(res.body.totals).toEqual({
      series: 4, both: 2, base_only: 1, target_only: 1, changed: 3, base_n_orders: 5, target_n_orders: 3, delta_n_orders: -2,
      base_qty: 33, target_qty: 21, delta_qty: -12, base_value: 60, target_value: 57, delta_value: -3,
      by_type: [
        { order_type: 'BUILD', base_n_orders: 0, target_n_orders: 1, base_qty: 0, target_qty: 3, delta_qty: 3, base_value: 0, target_value: 15, delta_value: 15 },
        { order_type: 'BUY', base_n_orders: 4, target_n_orders: 2, base_qty: 29, target_qty: 18, delta_qty: -11, base_value: 56, target_value: 42, delta_value: -14 },
        { order_type: 'TRANSFER', base_n_orders: 1, target_n_orders: 0, base_qty: 4, target_qty: 0, delta_qty: -4, base_value: 4, target_value: 0, delta_value: -4 },
      ],
    });
    expect(ids((await compare({ base: V1, target: V2, dimension: 'order', only_changed: true })).body.rows)).toEqual([uid.D, uid.A, uid.C]);
    expect((await compare({ base: V1, target: V2, dimension: 'order', supply_scenario_id: s.supplyScenario })).body.total).toBe(4);
    expect((await compare({ base: V1, target: V2, dimension: 'order', supply_scenario_id: s.supplyScenario + 1000 })).body).toMatchObject({ total: 0, rows: [] });
  });

  test('inventory: projected stock, values, shortage and fill rate per series', async () => {
    const res = await compare({ base: V1, target: V2, dimension: 'inventory' });
    expect(ids(res.body.rows)).toEqual([uid.D, uid.B, uid.A]);
    const [D, B, A] = res.body.rows;
    expect(A).toMatchObject({
      presence: 'both', changed: true, supply_scenario_id: s.supplyScenario,
      base_avg_projected: 15, target_avg_projected: 14, delta_avg_projected: -1, base_ending_inventory_value: 40, target_ending_inventory_value: 32, delta_ending_inventory_value: -8,
      base_avg_inventory_value: 30, target_avg_inventory_value: 28, delta_avg_inventory_value: -2, base_shortage_qty: 2, target_shortage_qty: 0, delta_shortage_qty: -2,
      base_fill_rate: 0.9, target_fill_rate: 1, delta_fill_rate: close(0.1),
    });
    // a backlog week (projected −4) counts as no stock
    expect(B).toMatchObject({ presence: 'base_only', base_avg_projected: 3, base_ending_inventory_value: 12, base_fill_rate: 0.8, target_avg_projected: null, delta_avg_projected: null, target_fill_rate: null });
    expect(D).toMatchObject({ presence: 'target_only', base_ending_inventory_value: null, target_avg_projected: 5, target_ending_inventory_value: 25, target_shortage_qty: 1 });
    expect(res.body.totals).toEqual({
      series: 3, both: 1, base_only: 1, target_only: 1, changed: 3,
      base_avg_projected: 18, target_avg_projected: 19, base_ending_inventory_value: 52, target_ending_inventory_value: 57, base_avg_inventory_value: 36, target_avg_inventory_value: 53,
      base_shortage_qty: 6, target_shortage_qty: 1, base_demand_qty: 40, target_demand_qty: 30, base_fill_rate: 0.85, target_fill_rate: close(29 / 30),
      delta_ending_inventory_value: 5, delta_avg_inventory_value: 17, delta_shortage_qty: -5, delta_fill_rate: close(29 / 30 - 0.85),
    });
  });

  test('meio_buffer: the policy per SKU-site and MEIO scenario', async () => {
    const res = await compare({ base: V1, target: V2, dimension: 'meio_buffer' });
    expect(ids(res.body.rows)).toEqual([uid.A, uid.C, uid.B]);
    expect(res.body.rows[0]).toMatchObject({
      meio_scenario_id: s.meioScenario, presence: 'both', changed: true, base_policy: 'rQ', target_policy: 'rQ',
      base_safety_stock: 5, target_safety_stock: 6, delta_safety_stock: 1, base_reorder_point: 15, target_reorder_point: 16, delta_reorder_point: 1,
      base_order_up_to: 25, target_order_up_to: 26, delta_order_up_to: 1, base_investment: 50, target_investment: 60, delta_investment: 10,
      base_expected_fill_rate: 0.95, target_expected_fill_rate: 0.96, delta_expected_fill_rate: close(0.01),
    });
    expect(res.body.rows[1]).toMatchObject({ presence: 'base_only', base_investment: 4, target_investment: null, delta_investment: null });
    expect(res.body.rows[2]).toMatchObject({ presence: 'both', changed: false, delta_investment: 0 });
    expect(res.body.totals).toEqual({
      series: 3, both: 2, base_only: 1, target_only: 0, changed: 2,
      base_safety_stock: 8, target_safety_stock: 8, base_reorder_point: 22, target_reorder_point: 20, base_order_up_to: 39, target_order_up_to: 34,
      base_investment: 64, target_investment: 70, delta_safety_stock: 0, delta_investment: 6,
      base_expected_fill_rate: close(12.29 / 13), target_expected_fill_rate: close(0.95),
    });
    expect((await compare({ base: V1, target: V2, dimension: 'meio_buffer', meio_scenario_id: s.meioScenario + 1000 })).body.total).toBe(0);
    const live = await compare({ base: V2, target: 'live', dimension: 'meio_buffer', only_changed: true });
    expect(live.body.rows).toEqual([expect.objectContaining({ unique_id: uid.B, presence: 'base_only', base_investment: 10 })]);
  });

  test('exceptions: counts per type and severity, new, resolved and persisting', async () => {
    const res = await compare({ base: V1, target: V2, dimension: 'exceptions' });
    expect(res.body.rows.map((r: any) => [r.unique_id, r.type, r.severity, r.status, r.base_count, r.target_count, r.delta, r.base_qty, r.target_qty, r.delta_qty])).toEqual([
      [uid.A, 'shortage', 'high', 'persisting', 2, 1, -1, 7, 2, -5],
      [uid.D, 'shortage', 'high', 'new', 0, 1, 1, 0, 5, 5],
      [uid.B, 'below_safety_stock', 'medium', 'new', 0, 1, 1, 0, 1, 1],
      [uid.B, 'late_order', 'medium', 'resolved', 1, 0, -1, 6, 0, -6],
      [uid.A, 'excess', 'low', 'resolved', 1, 0, -1, 10, 0, -10],
    ]);
    expect(res.body.rows[0]).toMatchObject({ supply_scenario_id: s.supplyScenario, changed: true, item_xuid: 'I1' });
    expect(res.body.totals).toEqual({
      groups: 5, changed: 5, base_count: 4, target_count: 3, delta: -1, new: 2, resolved: 2, persisting: 1,
      by_type: [
        { type: 'below_safety_stock', severity: 'medium', base_count: 0, target_count: 1, delta: 1, new: 1, resolved: 0, persisting: 0 },
        { type: 'excess', severity: 'low', base_count: 1, target_count: 0, delta: -1, new: 0, resolved: 1, persisting: 0 },
        { type: 'late_order', severity: 'medium', base_count: 1, target_count: 0, delta: -1, new: 0, resolved: 1, persisting: 0 },
        { type: 'shortage', severity: 'high', base_count: 2, target_count: 2, delta: 0, new: 1, resolved: 0, persisting: 1 },
      ],
    });
    const a1 = await compare({ base: V1, target: V2, dimension: 'exceptions', item_id: s.items.I1, sort: 'series' });
    expect(a1.body.rows.map((r: any) => r.type)).toEqual(['shortage', 'excess']);
    expect(a1.body.totals).toMatchObject({ groups: 2, base_count: 3, target_count: 1, resolved: 1, persisting: 1, new: 0 });
  });

  test('best_method: the series whose best method changed, counts per method and transitions', async () => {
    const res = await compare({ base: V1, target: V2, dimension: 'best_method' });
    expect(res.body.rows).toEqual([
      { unique_id: uid.D, item_id: s.items.I4, site_id: s.site, item_xuid: 'I4', item_name: 'Item I4', site_xuid: 'S1', presence: 'target_only',
        base_method: null, target_method: 'ses', base_score: null, target_score: 0.8, base_metric: null, target_metric: 'mase' },
      expect.objectContaining({ unique_id: uid.B, presence: 'both', base_method: 'croston', target_method: 'naive', base_score: 1.5, target_score: 1.2 }),
      expect.objectContaining({ unique_id: uid.C, presence: 'base_only', base_method: 'naive', target_method: null }),
    ]);
    expect(res.body.total).toBe(3);
    expect(res.body.totals).toEqual({
      series: 4, unchanged: 1, changed: 1, base_only: 1, target_only: 1,
      by_method: [
        { method: 'croston', base_count: 1, target_count: 0, delta: -1, gained: 0, lost: 1 },
        { method: 'naive', base_count: 1, target_count: 1, delta: 0, gained: 1, lost: 1 },
        { method: 'ses', base_count: 1, target_count: 2, delta: 1, gained: 1, lost: 0 },
      ],
      transitions: [{ from: null, to: 'ses', series: 1 }, { from: 'croston', to: 'naive', series: 1 }, { from: 'naive', to: null, series: 1 }],
    });
    expect((await compare({ base: V2, target: V3, dimension: 'best_method' })).body).toMatchObject({ rows: [], total: 0, totals: { series: 3, unchanged: 3 } });
  });

  test('bad input is a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ pipeline_id: undefined, base: V1, target: V2, dimension: 'kpi' }, 'pipeline_id is required (a positive pipeline id; 0 is not a pipeline)'],
      [{ pipeline_id: 0, base: V1, target: V2, dimension: 'kpi' }, 'pipeline_id is required (a positive pipeline id; 0 is not a pipeline)'],
      [{ pipeline_id: 'x', base: V1, target: V2, dimension: 'kpi' }, 'query.pipeline_id must be integer'],
      [{ base: V1, target: V2 }, 'query.dimension is required'],
      [{ base: V1, target: V2, dimension: 'stock' }, 'query.dimension must be one of: kpi, forecast, order, inventory, meio_buffer, exceptions, best_method'],
      [{ base: '2026-6-1', target: V2, dimension: 'kpi' }, 'query.base must match format "date"'],
      [{ base: 'live', target: V2, dimension: 'kpi' }, 'query.base must match format "date"'],
      [{ base: '2026-02-30', target: V2, dimension: 'kpi' }, 'query.base must match format "date"'],
      [{ base: '2026-06-03', target: V2, dimension: 'kpi' }, 'query.base: 2026-06-03 is not a Monday; archive dates are Mondays (that week\'s is 2026-06-01)'],
      [{ base: V1, target: 'latest', dimension: 'kpi' }, /^query\.target must match pattern/],
      [{ base: V1, target: '2026-06-14', dimension: 'kpi' }, 'query.target: 2026-06-14 is not a Monday; archive dates are Mondays (that week\'s is 2026-06-08)'],
      [{ base: V1, target: V2, dimension: 'forecast', skip: -1 }, 'query.skip must be >= 0'],
      [{ base: V1, target: V2, dimension: 'forecast', limit: 0 }, 'query.limit must be >= 1'],
      [{ base: V1, target: V2, dimension: 'forecast', limit: 1001 }, 'query.limit must be <= 1000'],
      [{ base: V1, target: V2, dimension: 'forecast', sort: 'delta' }, 'query.sort must be one of: abs_delta, series'],
      [{ base: V1, target: V2, dimension: 'forecast', only_changed: 'maybe' }, 'query.only_changed must be boolean'],
      [{ base: V1, target: V2, dimension: 'forecast', item_id: 0 }, 'query.item_id must be >= 1'],
      [{ base: V1, target: V2, dimension: 'forecast', version: 3 }, 'query: unknown field \'version\''],
      [{ base: V1, target: V2, dimension: 'kpi', item_id: 1 }, 'query.item_id: applies to dimension forecast, order, inventory, meio_buffer, exceptions, best_method, not kpi'],
      [{ base: V1, target: V2, dimension: 'kpi', segment_id: 1 }, 'query.segment_id: applies to dimension forecast, order, inventory, meio_buffer, exceptions, best_method, not kpi'],
      [{ base: V1, target: V2, dimension: 'order', detail: true }, 'query.detail: applies to dimension forecast, not order'],
      [{ base: V1, target: V2, dimension: 'forecast', supply_scenario_id: 1 }, 'query.supply_scenario_id: applies to dimension order, inventory, exceptions, not forecast'],
      [{ base: V1, target: V2, dimension: 'order', meio_scenario_id: 1 }, 'query.meio_scenario_id: applies to dimension meio_buffer, not order'],
    ];
    for (const [query, detail] of cases) {
      const res = await compare(query);
      expect([query, res.status]).toEqual([query, 400]);
      if (typeof detail === 'string') expect([query, res.body.detail]).toEqual([query, detail]);
      else expect(res.body.detail).toMatch(detail);
    }
  });

  test('an unknown pipeline, version or segment is a 404 naming it', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ pipeline_id: 999999, base: V1, target: V2, dimension: 'kpi' }, 'pipeline_id: pipeline 999999 not found'],
      [{ base: '2026-05-25', target: V2, dimension: 'kpi' }, `query.base: pipeline ${P} has no version for archive date 2026-05-25`],
      [{ base: V1, target: '2026-06-22', dimension: 'forecast' }, `query.target: pipeline ${P} has no version for archive date 2026-06-22`],
      [{ base: V1, target: V2, dimension: 'forecast', segment_id: 999999 }, 'segment_id: segment 999999 not found'],
    ];
    for (const [query, detail] of cases) {
      const res = await compare(query);
      expect([query, res.status, res.body.detail]).toEqual([query, 404, detail]);
    }
    // another tenant's pipeline with the same id does not exist here
    const b = await t.newTenant('history-views-other');
    const res = await compare({ base: V1, target: V2, dimension: 'kpi' }, await t.login(b.admin));
    expect([res.status, res.body.detail]).toEqual([404, `pipeline_id: pipeline ${P} not found`]);
  });

  test('without dates: the newest frozen version against the one before it (freeze rule 6)', async () => {
    const bare = await compare({ dimension: 'best_method' });
    expect([bare.status, bare.body.base.archive_date, bare.body.target.archive_date, bare.body.target.pinned]).toEqual([200, V2, V3, true]);
    const sinceFreeze = await compare({ target: 'live', dimension: 'kpi', only_changed: true });
    expect([sinceFreeze.body.base.archive_date, sinceFreeze.body.target.kind, sinceFreeze.body.rows]).toEqual([V3, 'live', []]);
    const toV2 = await compare({ target: V2, dimension: 'forecast' });
    expect([toV2.body.base.archive_date, toV2.body.totals.delta]).toEqual([V1, 12]);
    const fromV1 = await compare({ base: V1, dimension: 'best_method' });
    expect([fromV1.body.base.archive_date, fromV1.body.target.archive_date]).toEqual([V1, V3]);
    const first = await compare({ target: V1, dimension: 'kpi' });
    expect([first.status, first.body.detail]).toEqual([404, `query.base: pipeline ${P} has no frozen version before ${V1}`]);
    const empty = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('Never frozen') RETURNING id`)) as number;
    for (const query of [{ dimension: 'kpi' }, { target: 'live', dimension: 'kpi' }]) {
      const res = await compare({ ...query, pipeline_id: empty });
      expect([res.status, res.body.detail]).toEqual([404, `query.${query.target ? 'base' : 'target'}: pipeline ${empty} has no frozen version yet`]);
    }
    const res = await pva({ pipeline_id: empty });
    expect([res.status, res.body.detail]).toEqual([404, `query.archive_date: pipeline ${empty} has no frozen version yet`]);
  });

  test('a registry row that is not frozen is a 409', async () => {
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
      INSERT INTO history_versions (pipeline_id, archive_date, frozen, pinned) VALUES (${P}, '2026-06-29', false, true)`));
    try {
      const res = await compare({ base: V1, target: '2026-06-29', dimension: 'kpi' });
      expect([res.status, res.body.detail]).toEqual([409, 'query.target: the version of 2026-06-29 is not frozen yet']);
    } finally {
      await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM history_versions WHERE pipeline_id = ${P} AND archive_date = '2026-06-29'`));
    }
  });
});

describe('GET /api/compare/plan-vs-actual', () => {
  test('the version\'s forecast against the demand that arrived since, per series, per week and in total', async () => {
    const res = await pva({ archive_date: V1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pipeline_id: P, archive_date: V1, dimension: 'demand', actuals: 'series_weekly', total: 2, skip: 0, limit: 100 });
    expect(res.body.version).toMatchObject({ kind: 'version', archive_date: V1, comment: 'week 23' });
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.body.rows).toEqual([
      { unique_id: uid.A, item_id: s.items.I1, site_id: s.site, item_xuid: 'I1', item_name: 'Item I1', site_xuid: 'S1', method: 'ses', weeks: 3, first_week: V1, last_week: V3,
        forecast: 30, actual: 28, error: 2, abs_error: 6, bias: close(2 / 28), mape: close((2 / 12 + 4 / 6 + 0) / 3), wape: close(6 / 28) },
      // 06-15 is closed: no actual; 06-01 has actual 0, which MAPE leaves out
      { unique_id: uid.B, item_id: s.items.I2, site_id: s.site, item_xuid: 'I2', item_name: 'Item I2', site_xuid: 'S1', method: 'croston', weeks: 2, first_week: V1, last_week: V2,
        forecast: 4, actual: 4, error: 0, abs_error: 4, bias: 0, mape: 0.5, wape: 1 },
    ]);
    expect(res.body.totals).toEqual({
      series: 2, series_in_version: 3, weeks: 5, first_week: V1, last_week: V3, forecast: 34, actual: 32, error: 2, abs_error: 10,
      bias: 0.0625, mape: close((2 / 12 + 4 / 6 + 0 + 0.5) / 4), wape: 0.3125,
    });
    expect(res.body.by_week).toEqual([
      { week: V1, series: 2, forecast: 12, actual: 12, error: 0, abs_error: 4, wape: close(4 / 12) },
      { week: V2, series: 2, forecast: 12, actual: 10, error: 2, abs_error: 6, wape: 0.6 },
      { week: V3, series: 1, forecast: 10, actual: 10, error: 0, abs_error: 0, wape: 0 },
    ]);
  });

  test('without archive_date: the newest frozen version', async () => {
    const res = await pva({ sort: 'series' });
    expect([res.status, res.body.archive_date, res.body.version.pinned]).toEqual([200, V3, true]);
    // v3 forecasts A from 06-08 as 11, 11, 20, 11: from its archive date 06-15 on only that week has an actual (11 against 10);
    // 06-22 (20) has none yet, B's 06-15 is closed, D has no week after 06-08
    expect(res.body.rows.map((r: any) => [r.unique_id, r.weeks, r.forecast, r.actual])).toEqual([[uid.A, 1, 11, 10]]);
    expect(res.body.totals).toMatchObject({ series: 1, series_in_version: 3, error: 1, first_week: V3, last_week: V3 });
  });

  test('horizon, detail, filters, sort and paging', async () => {
    const first = await pva({ archive_date: V1, horizon_weeks: 1 });
    expect(first.body.rows.map((r: any) => [r.unique_id, r.weeks, r.forecast, r.actual, r.error, r.abs_error, r.bias, r.mape, r.wape])).toEqual([
      [uid.A, 1, 10, 12, -2, 2, close(-2 / 12), close(2 / 12), close(2 / 12)],
      [uid.B, 1, 2, 0, 2, 2, null, null, null],
    ]);
    expect(first.body.totals).toMatchObject({ weeks: 2, forecast: 12, actual: 12, error: 0, bias: 0, last_week: V1 });
    const detail = await pva({ archive_date: V1, detail: true, item_id: s.items.I1 });
    expect(detail.body.rows[0].weeks_detail).toEqual([
      { week: V1, forecast: 10, actual: 12, error: -2 }, { week: V2, forecast: 10, actual: 6, error: 4 }, { week: V3, forecast: 10, actual: 10, error: 0 },
    ]);
    expect(detail.body.totals).toMatchObject({ series: 1, series_in_version: 1, forecast: 30 });
    expect(ids((await pva({ archive_date: V1, sort: 'series', skip: 1, limit: 1 })).body.rows)).toEqual([uid.B]);
    expect(ids((await pva({ archive_date: V1, segment_id: watch })).body.rows)).toEqual([uid.A]);
    // v2 forecasts from 06-08: D's only actual week is there
    const v2 = await pva({ archive_date: V2, sort: 'series' });
    expect(v2.body.rows.map((r: any) => [r.unique_id, r.method, r.weeks, r.forecast, r.actual])).toEqual([
      [uid.A, 'ses', 2, 22, 16], [uid.B, 'naive', 1, 3, 4], [uid.D, 'ses', 1, 7, 7],
    ]);
  });

  test('bad input is a 400, an unknown version a 404', async () => {
    const cases: Array<[Record<string, unknown>, number, string | RegExp]> = [
      [{ archive_date: V1, dimension: 'order' }, 400, 'query.dimension must be one of: demand'],
      [{ pipeline_id: 0, archive_date: V1 }, 400, 'pipeline_id is required (a positive pipeline id; 0 is not a pipeline)'],
      [{ archive_date: '01/06/2026' }, 400, 'query.archive_date must match format "date"'],
      [{ archive_date: '2026-06-02' }, 400, 'query.archive_date: 2026-06-02 is not a Monday; archive dates are Mondays (that week\'s is 2026-06-01)'],
      [{ archive_date: V1, horizon_weeks: 0 }, 400, 'query.horizon_weeks must be >= 1'],
      [{ archive_date: V1, sort: 'abs_delta' }, 400, 'query.sort must be one of: abs_error, series'],
      [{ archive_date: '2026-05-25' }, 404, `query.archive_date: pipeline ${P} has no version for archive date 2026-05-25`],
      [{ pipeline_id: 999999, archive_date: V1 }, 404, 'pipeline_id: pipeline 999999 not found'],
      [{ archive_date: V1, segment_id: 999999 }, 404, 'segment_id: segment 999999 not found'],
    ];
    for (const [query, status, detail] of cases) {
      const res = await pva(query);
      expect([query, res.status]).toEqual([query, status]);
      if (typeof detail === 'string') expect([query, res.body.detail]).toEqual([query, detail]);
      else expect(res.body.detail).toMatch(detail);
    }
  });
});

describe('GET /api/history/timeline', () => {
  test('every version in date order with its KPIs and the change from the one before', async () => {
    const res = await timeline();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pipeline_id: P, from: null, to: null, count: 3 });
    const [e1, e2, e3] = res.body.entries;
    expect(e1).toEqual({
      archive_date: V1, snapshot_ts: expect.any(String), created_by: 'seed@example.com', comment: 'week 23', source: 'api', frozen: true, pinned: false, latest: false,
      parent_archive_date: null, replaced_archive_date: null, row_count_total: 22, table_counts: expect.objectContaining({ supply_orders: 5, forecast_results: 4, on_hand: 0 }),
      kpis: { fill_rate: 0.85, inventory_value: 36, shortage_qty: 6, forecast_mase: close(1), series: 3 }, previous_archive_date: null, delta: null,
    });
    expect(e2).toMatchObject({
      archive_date: V2, comment: null, pinned: false, latest: false, parent_archive_date: V1, row_count_total: 18, previous_archive_date: V1,
      kpis: { fill_rate: 0.95, inventory_value: 53, shortage_qty: 1, forecast_mase: close(0.8), series: 3 },
    });
    expect(e2.delta).toEqual({
      fill_rate: close(0.1), inventory_value: 17, shortage_qty: -5, forecast_mase: close(-0.2), series: 0, row_count_total: -4,
      table_counts: expect.objectContaining({ supply_orders: -2, supply_exceptions: -1, meio_results: -1, forecast_results: 0, on_hand: 0 }),
    });
    expect(e3).toMatchObject({
      archive_date: V3, comment: 'quarter close', pinned: true, latest: true, parent_archive_date: V2, row_count_total: 17, previous_archive_date: V2,
      delta: { fill_rate: 0, inventory_value: 0, shortage_qty: 0, series: 0, row_count_total: -1, table_counts: expect.objectContaining({ meio_results: -1 }) },
    });
  });

  test('from and to bound the entries; the first one still has its delta', async () => {
    const from = await timeline({ from: '2026-06-02' });
    expect(from.body.entries.map((e: any) => [e.archive_date, e.previous_archive_date, e.delta?.row_count_total])).toEqual([[V2, V1, -4], [V3, V2, -1]]);
    expect(from.body).toMatchObject({ from: '2026-06-02', to: null, count: 2 });
    expect((await timeline({ to: V2 })).body.entries.map((e: any) => e.archive_date)).toEqual([V1, V2]);
    expect((await timeline({ from: V2, to: V2 })).body.entries.map((e: any) => e.archive_date)).toEqual([V2]);
    expect((await timeline({ from: '2027-01-04' })).body).toMatchObject({ count: 0, entries: [] });
  });

  test('bad input is a 400, an unknown pipeline a 404', async () => {
    const cases: Array<[Record<string, unknown>, number, string | RegExp]> = [
      [{ pipeline_id: undefined }, 400, 'pipeline_id is required (a positive pipeline id; 0 is not a pipeline)'],
      [{ from: 'June' }, 400, 'query.from must match format "date"'],
      [{ from: '2026-13-01' }, 400, 'query.from must match format "date"'],
      [{ to: '2026-02-29' }, 400, 'query.to must match format "date"'],
      [{ from: '0000-01-03' }, 400, 'query.from must match format "date"'],
      [{ from: V3, to: V1 }, 400, `query.from: ${V3} is after query.to ${V1}`],
      [{ pipeline_id: 999999 }, 404, 'pipeline_id: pipeline 999999 not found'],
    ];
    for (const [query, status, detail] of cases) {
      const res = await timeline(query);
      expect([query, res.status]).toEqual([query, status]);
      if (typeof detail === 'string') expect([query, res.body.detail]).toEqual([query, detail]);
      else expect(res.body.detail).toMatch(detail);
    }
  });
});
