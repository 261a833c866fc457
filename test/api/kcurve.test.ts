/**
 * The K-curve API over HTTP on real PostgreSQL. The portfolio of pipeline P (no segments: every series), with the
 * scenario "Base" (A = 15, r = 0.5, so k = sqrt(2A/r) = sqrt(60)):
 *   A = IA@DC1  c 104 (item_site)  best forecast ses 10 10 10 10 (a naive 99s forecast is not the best)  D = 520
 *   B = IB@DC1  c 26 (item)        no forecast, history 4 6 4 6 → mean 5                                D = 260
 *               item attribute allowed_orders_per_year [1, 2]
 *   C = IC@DC2  c 13 (item_site)   best forecast naive 20 20 20 20                                       D = 1040
 *               item attribute allowed_orders_per_year [4, 12]; IO override eoq 25 (pipeline P, every scenario)
 *   D = ID@DC1  no cost anywhere: listed, not in the curve
 * Σ sqrt(D c) = S = sqrt(54080) + sqrt(6760) + sqrt(13520).
 */
import type { SeriesKey } from '../../db/etl';
import { sql, withTenant } from '../../db/pool';
import { insertBest, insertForecast, writeWeeklyHistory } from '../support/forecastFixtures';
import { createPipeline } from '../support/jobs';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let plain: string;
let P: number;
let P2: number;
let base: { id: number };
let other: { id: number };
const key: Record<'A' | 'B' | 'C' | 'D', SeriesKey> = {} as any;
const uid = (k: SeriesKey) => `${k.item_id}_${k.site_id}`;
let emptySegment: number;

const WEEKS = ['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26'];
const FORECAST_START = '2026-02-02';
const A_ = 15;
const r = 0.5;
const k0 = Math.sqrt((2 * A_) / r);
const S = Math.sqrt(520 * 104) + Math.sqrt(260 * 26) + Math.sqrt(1040 * 13);
const eoq = (D: number, c: number) => Math.sqrt((2 * A_ * D) / (r * c));
const close = (x: number) => expect.closeTo(x, 9);

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('kcurve');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  P = await createPipeline(t, admin, 'Main');
  P2 = await createPipeline(t, admin, 'Other');
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('DC1', 'Central DC'), ('DC2', 'North DC')`);
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name, avg_unit_cost, attributes) VALUES
      ('IA', 'Cola', 0, '{}'), ('IB', 'Bread', 26, '{"allowed_orders_per_year": [2, 1]}'),
      ('IC', 'Chips', 999, '{"allowed_orders_per_year": [4, 12]}'), ('ID', 'Dust', 0, '{"allowed_orders_per_year": "monthly"}')`);
    const ids = async (item: string, site: string) =>
      (await tx.one(sql.unsafe`SELECT i.id AS item_id, s.id AS site_id FROM items i, sites s WHERE i.xuid = ${item} AND s.xuid = ${site}`)) as SeriesKey;
    key.A = await ids('IA', 'DC1');
    key.B = await ids('IB', 'DC1');
    key.C = await ids('IC', 'DC2');
    key.D = await ids('ID', 'DC1');
    const history: Array<[SeriesKey, number[]]> = [[key.A, [9, 11, 9, 11]], [key.B, [4, 6, 4, 6]], [key.C, [1, 1, 1, 1]], [key.D, [1, 1, 1, 1]]];
    for (const [k, y] of history) {
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${k.item_id}, ${k.site_id}, 4, ${WEEKS[0]}, ${WEEKS[3]})`);
      await writeWeeklyHistory(tx, k, WEEKS, y);
    }
    await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id, unit_cost) VALUES (${key.A.item_id}, ${key.A.site_id}, 104), (${key.C.item_id}, ${key.C.site_id}, 13)`);
    await insertForecast(tx, P, key.A, 'ses', FORECAST_START, [10, 10, 10, 10], [9, 9, 9, 9], [11, 11, 11, 11]);
    await insertForecast(tx, P, key.A, 'naive', FORECAST_START, [99, 99, 99, 99], [9, 9, 9, 9], [100, 100, 100, 100]);
    await insertBest(tx, P, key.A, 'ses', 'naive', 1, 'mae');
    await insertForecast(tx, P, key.C, 'naive', FORECAST_START, [20, 20, 20, 20], [19, 19, 19, 19], [21, 21, 21, 21]);
    await insertBest(tx, P, key.C, 'naive', null, 1, 'mae');
    await tx.query(sql.unsafe`INSERT INTO io_overrides (pipeline_id, scenario_id, item_id, site_id, eoq_override) VALUES (${P}, NULL, ${key.C.item_id}, ${key.C.site_id}, 25)`);
    emptySegment = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Nobody') RETURNING id`)) as number;
  });
  const created = await t.call('post', '/api/kcurve/scenarios', { token: planner, body: { name: 'Base', pipeline_id: P, ordering_cost: A_, holding_rate: r } });
  expect(created.status).toBe(201);
  base = created.body;
  other = (await t.call('post', '/api/kcurve/scenarios', { token: planner, body: { name: 'Elsewhere', pipeline_id: P2 } })).body;
});
afterAll(() => t.close());

const get = (path: string, query: Record<string, unknown> = {}, token = plain) => t.call('get', path, { token, query: { pipeline_id: P, ...query } });
const byUid = (items: Array<{ unique_id: string }>) => Object.fromEntries(items.map((i) => [i.unique_id, i])) as Record<string, any>;

describe('reads', () => {
  test('items: demand from the best forecast, else history; cost from item_site, else the item; no cost: out of the curve', async () => {
    const res = await get('/api/kcurve/items');
    expect(res.status).toBe(200);
    expect([res.body.pipeline_id, res.body.total, res.body.n_in_curve, res.headers['x-total-count']]).toEqual([P, 4, 3, '4']);
    const it = byUid(res.body.items);
    expect(it[uid(key.A)]).toEqual({
      unique_id: uid(key.A), item_id: key.A.item_id, site_id: key.A.site_id, item_xuid: 'IA', item_name: 'Cola', site_xuid: 'DC1', site_name: 'Central DC',
      annual_demand: 520, weekly_mean: 10, demand_source: 'forecast', best_method: 'ses', forecast_weeks: 4, unit_cost: 104, cost_source: 'item_site',
      sqrt_dc: close(Math.sqrt(54080)), allowed_orders_per_year: null, in_curve: true,
    });
    expect(it[uid(key.B)]).toMatchObject({ annual_demand: 260, demand_source: 'history', best_method: null, unit_cost: 26, cost_source: 'item', allowed_orders_per_year: [1, 2] });
    // item_site's cost wins over the item's 999
    expect(it[uid(key.C)]).toMatchObject({ annual_demand: 1040, unit_cost: 13, cost_source: 'item_site', allowed_orders_per_year: [4, 12] });
    // a malformed attribute is ignored
    expect(it[uid(key.D)]).toMatchObject({ unit_cost: null, cost_source: null, sqrt_dc: null, allowed_orders_per_year: null, in_curve: false });
    const paged = await get('/api/kcurve/items', { skip: 1, limit: 2 });
    expect([paged.body.items.length, paged.headers['x-total-count']]).toEqual([2, '4']);
  });

  test('eoq: sqrt(2AD/(rc)) per SKU-site under the default scenario, the IO override in force', async () => {
    const res = await get('/api/kcurve/eoq');
    expect(res.status).toBe(200);
    expect(res.body.settings).toEqual({
      scenario_id: base.id, ordering_cost: 15, holding_rate: 0.5, k: close(k0), k_source: 'ordering_cost', implied_ordering_cost: 15,
      constrained: false, allowed_orders_per_year: [1, 2, 4, 6, 12, 24, 52], allowed_param_name: 'default.allowed_orders_per_year',
    });
    const it = byUid(res.body.items);
    expect(Object.keys(it)).toHaveLength(3);
    const qa = eoq(520, 104);
    expect(qa).toBeCloseTo(Math.sqrt(300), 12);
    expect(it[uid(key.A)]).toMatchObject({
      annual_demand: 520, unit_cost: 104, unconstrained_eoq: close(qa), eoq: close(qa), eoq_override: null, eoq_source: 'eoq',
      orders_per_year: close(520 / qa), cycle_stock_value: close((104 * qa) / 2), total_annual_cost: close(Math.sqrt(2 * 15 * 520 * 0.5 * 104)),
      freq_constrained: false, freq_param_name: null,
    });
    expect(it[uid(key.B)]).toMatchObject({ eoq: close(eoq(260, 26)), demand_source: 'history' });
    expect(it[uid(key.C)]).toMatchObject({
      unconstrained_eoq: close(eoq(1040, 13)), eoq: 25, eoq_override: 25, eoq_source: 'override', orders_per_year: close(1040 / 25),
      cycle_stock_value: close(13 * 12.5), total_annual_cost: close((15 * 1040) / 25 + (0.5 * 13 * 25) / 2),
    });
    expect(res.body.totals).toEqual({
      n_items: 3, n_overridden: 1, n_freq_constrained: 0,
      total_orders_per_year: close(520 / qa + 260 / eoq(260, 26) + 1040 / 25),
      total_cycle_stock_value: close((104 * qa) / 2 + (26 * eoq(260, 26)) / 2 + 13 * 12.5),
      total_annual_cost: close(Math.sqrt(15 * 520 * 104) + Math.sqrt(15 * 260 * 26) + (15 * 1040) / 25 + (0.5 * 13 * 25) / 2),
    });
    // query costs set a new basis: k = sqrt(2 · 8 / 0.25) = 8
    const explicit = await get('/api/kcurve/eoq', { ordering_cost: 8, holding_rate: 0.25 });
    expect(explicit.body.settings).toMatchObject({ k: 8, k_source: 'ordering_cost', scenario_id: base.id });
    expect(byUid(explicit.body.items)[uid(key.A)].eoq).toBeCloseTo(8 * Math.sqrt(520 / 104), 9);
  });

  test('eoq constrained: frequencies snap to the item\'s set, else the default set; an override wins', async () => {
    const res = await get('/api/kcurve/eoq', { constrained: true });
    const it = byUid(res.body.items);
    // A: f* = sqrt(54080) / sqrt(60) ≈ 30.02; 12·24 = 288 < f*² ≈ 901 < 24·52 → 24 a year
    expect(it[uid(key.A)]).toMatchObject({ eoq: close(520 / 24), orders_per_year: close(24), eoq_source: 'frequency', freq_constrained: true, freq_param_name: 'default.allowed_orders_per_year' });
    // B: f* ≈ 10.6 → the item's set {1, 2} → 2
    expect(it[uid(key.B)]).toMatchObject({ eoq: close(130), freq_constrained: true, freq_param_name: 'item.allowed_orders_per_year' });
    expect(it[uid(key.C)]).toMatchObject({ eoq: 25, eoq_source: 'override', freq_constrained: false, freq_param_name: 'item.allowed_orders_per_year' });
    expect(it[uid(key.C)].freq_constraint).toEqual({ param_name: 'item.allowed_orders_per_year', allowed_orders_per_year: [4, 12], selected_orders_per_year: 12, constrained: true });
    expect(res.body.totals).toMatchObject({ n_freq_constrained: 2, n_overridden: 1 });
  });

  test('eoq/item: freq_constrained and freq_param_name, freq_options with their costs', async () => {
    const res = await get('/api/kcurve/eoq/item', { unique_id: uid(key.B) });
    expect(res.status).toBe(200);
    const fStar = Math.sqrt(6760) / k0;
    expect(res.body).toMatchObject({
      pipeline_id: P, unique_id: uid(key.B), item_xuid: 'IB', eoq: close(130), orders_per_year: close(2), freq_constrained: true,
      freq_param_name: 'item.allowed_orders_per_year', unconstrained_orders_per_year: close(fStar), unconstrained_eoq: close(eoq(260, 26)),
      settings: { constrained: true },
    });
    expect(res.body.freq_options).toEqual([
      { freq: 'Y', freq_label: 'yearly', orders_per_year: 1, eoq: 260, cycle_stock_value: 26 * 130, total_annual_cost: close(15 * 1 + (0.5 * 26 * 260) / 2), k_equivalent: close(Math.sqrt(6760)), is_selected: false },
      { freq: 'H', freq_label: 'half-yearly', orders_per_year: 2, eoq: 130, cycle_stock_value: 26 * 65, total_annual_cost: close(15 * 2 + (0.5 * 26 * 260) / 4), k_equivalent: close(Math.sqrt(6760) / 2), is_selected: true },
    ]);
    expect(res.body.freq_constraint).toEqual({ param_name: 'item.allowed_orders_per_year', allowed_orders_per_year: [1, 2], selected_orders_per_year: 2, constrained: true });
    const free = await get('/api/kcurve/eoq/item', { unique_id: uid(key.B), respect_frequency_constraints: false });
    expect(free.body).toMatchObject({ eoq: close(eoq(260, 26)), freq_constrained: false, freq_param_name: null, eoq_source: 'eoq' });
    expect((await get('/api/kcurve/eoq/item', { unique_id: uid(key.D) })).status).toBe(409);
    expect((await get('/api/kcurve/eoq/item', { unique_id: '999999_1' })).status).toBe(404);
  });

  test('curve: inv_val = k S / 2 and orders = S / k; constrained_curve snaps every SKU-site', async () => {
    const res = await get('/api/kcurve/curve', { k_min: 10, k_max: 10, points: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ n_items: 3, sum_sqrt_dc: close(S), k_min: 10, k_max: 10 });
    expect(res.body.alternatives).toEqual([{ k: 10, inv_val: close(5 * S), orders_per_year: close(S / 10) }]);
    expect(res.body.current).toEqual({ k: close(k0), inv_val: close((k0 * S) / 2), orders_per_year: close(S / k0) });
    expect(res.body.constrained_curve).toBeUndefined();
    const c = await get('/api/kcurve/curve', { k_min: 10, k_max: 10, points: 1, constrained: true });
    // at k = 10: A f* ≈ 23.3 → 24 (default set), B f* ≈ 8.2 → 2, C f* ≈ 11.6 → 12 (the curve ignores overrides)
    expect(c.body.constrained_curve).toEqual([{ k: 10, inv_val: close(54080 / 48 + 6760 / 4 + 13520 / 24), orders: close(24 + 2 + 12) }]);
    expect(c.body.constrained_current).toEqual({ k: close(k0), inv_val: close(54080 / 48 + 6760 / 4 + 13520 / 24), orders: close(38) });
    const grid = await get('/api/kcurve/curve', { points: 5 });
    const ks = grid.body.alternatives.map((p: { k: number }) => p.k);
    expect(ks).toHaveLength(5);
    expect(ks[0]).toBeCloseTo(S / (3 * 52), 9);
    expect(ks[4]).toBeCloseTo(S / 3, 9);
    for (const p of grid.body.alternatives) expect(p.inv_val * p.orders_per_year).toBeCloseTo((S * S) / 2, 6);
  });

  test('wagner-whitin: optimal lots over the best forecast; an IO override orders fixed lots of it', async () => {
    const res = await get('/api/kcurve/wagner-whitin');
    expect(res.status).toBe(200);
    expect([res.body.total, res.body.n_without_forecast, res.body.weekly_holding_rate]).toEqual([2, 1, 0.5 / 52]);
    const it = byUid(res.body.items);
    // A: setup 15, holding 0.5 · 104 / 52 = 1 a unit-week, demand 10 a week: two orders of 20 (15 + 10 each) = 50
    expect(it[uid(key.A)]).toEqual({
      unique_id: uid(key.A), item_id: key.A.item_id, site_id: key.A.site_id, item_xuid: 'IA', item_name: 'Cola', site_xuid: 'DC1', site_name: 'Central DC',
      best_method: 'ses', start_week: FORECAST_START, horizon_weeks: 4, unit_cost: 104, annual_demand: 520,
      eoq: close(Math.sqrt(300)), eoq_override: null, orders_per_year: close(520 / Math.sqrt(300)),
      lot_sizing: 'wagner_whitin', n_orders: 2, avg_lot_size: 20, total_quantity: 40, setup_cost: 30, holding_cost: close(20), total_cost: close(50),
      schedule: [{ period: 0, week: '2026-02-02', quantity: 20, covers: [0, 1] }, { period: 2, week: '2026-02-16', quantity: 20, covers: [2, 3] }],
    });
    // C: lots of 25 against 20 a week: stock left 5, 10, 15, 20, holding 0.125 a unit-week
    expect(it[uid(key.C)]).toMatchObject({
      eoq: 25, eoq_override: 25, orders_per_year: close(41.6), lot_sizing: 'eoq_override', n_orders: 4, avg_lot_size: 25, total_quantity: 100,
      setup_cost: 60, holding_cost: close(0.125 * 50), total_cost: close(66.25),
    });
    expect(it[uid(key.C)].schedule.map((o: { period: number; quantity: number }) => [o.period, o.quantity])).toEqual([[0, 25], [1, 25], [2, 25], [3, 25]]);
    expect(res.body.totals).toEqual({
      n_items: 2, total_orders: 6, total_quantity: 140, setup_cost: 90, holding_cost: close(26.25), total_cost: close(116.25),
      total_orders_per_year: close(520 / Math.sqrt(300) + 41.6),
    });
    const one = await get('/api/kcurve/wagner-whitin', { unique_id: uid(key.A) });
    expect(one.body.items.map((i: { unique_id: string }) => i.unique_id)).toEqual([uid(key.A)]);
  });
});

describe('scenarios', () => {
  test('create with defaults, list by pipeline, name unique ignoring case, delete takes the results along', async () => {
    const res = await t.call('post', '/api/kcurve/scenarios', { token: planner, body: { name: '  Trial  ', pipeline_id: P } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number), name: 'Trial', description: null, pipeline_id: P, ordering_cost: 50, holding_rate: 0.25, k: null,
      target_orders_per_year: null, target_inventory_value: null, constrained: false, allowed_orders_per_year: null,
      created_by: a.planner.email, created_at: expect.any(String), updated_at: expect.any(String),
    });
    const list = await t.call('get', '/api/kcurve/scenarios', { token: plain, query: { pipeline_id: P } });
    expect([list.status, list.headers['x-total-count'], list.body.map((s: { name: string }) => s.name)]).toEqual([200, '2', ['Base', 'Trial']]);
    expect((await t.call('post', '/api/kcurve/scenarios', { token: planner, body: { name: 'trial', pipeline_id: P2 } })).status).toBe(409);
    const solved = await t.call('post', '/api/kcurve/solve', { token: planner, body: { pipeline_id: P, scenario_id: res.body.id } });
    expect([solved.status, solved.body.rows_written]).toEqual([200, 3]);
    const del = await t.call('delete', `/api/kcurve/scenarios/${res.body.id}`, { token: planner });
    expect([del.status, del.body]).toEqual([200, { status: 'deleted', id: res.body.id }]);
    const left = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM eoq_results WHERE scenario_id = ${res.body.id}`));
    expect(left).toBe(0);
    expect((await t.call('delete', `/api/kcurve/scenarios/${res.body.id}`, { token: planner })).status).toBe(404);
  });

  test('400s name the field; a pipeline that does not exist is a 404', async () => {
    const bad = async (body: Record<string, unknown>, field: RegExp) => {
      const res = await t.call('post', '/api/kcurve/scenarios', { token: planner, body: { name: `Bad ${Math.random()}`, pipeline_id: P, ...body } });
      expect([res.status, res.body.detail]).toEqual([400, expect.stringMatching(field)]);
    };
    await bad({ ordering_cost: -5 }, /^body\.ordering_cost /);
    await bad({ ordering_cost: 0 }, /^body\.ordering_cost /);
    await bad({ holding_rate: 0 }, /^body\.holding_rate /);
    await bad({ allowed_orders_per_year: [0, 4] }, /^body\.allowed_orders_per_year/);
    await bad({ target_orders_per_year: 10, target_inventory_value: 1000 }, /^body\.target_inventory_value: set at most one/);
    await bad({ colour: 'red' }, /^body: unknown field 'colour'/);
    const missing = await t.call('post', '/api/kcurve/scenarios', { token: planner, body: { name: 'Nowhere', pipeline_id: 999999 } });
    expect([missing.status, missing.body.detail]).toEqual([404, 'body.pipeline_id: pipeline 999999 not found']);
    const q = await get('/api/kcurve/curve', { colour: 'red' });
    expect([q.status, q.body.detail]).toEqual([400, "query: unknown field 'colour'"]);
    const range = await get('/api/kcurve/curve', { k_min: 20, k_max: 10 });
    expect([range.status, range.body.detail]).toEqual([400, 'query.k_max (10) must be >= k_min (20)']);
    const neg = await get('/api/kcurve/eoq', { ordering_cost: -1 });
    expect([neg.status, neg.body.detail]).toEqual([400, expect.stringMatching(/^query\.ordering_cost /)]);
    const two = await t.call('post', '/api/kcurve/solve', { token: planner, body: { pipeline_id: P, k: 5, target_orders_per_year: 10 } });
    expect([two.status, two.body.detail]).toEqual([400, expect.stringMatching(/^body\.target_orders_per_year: give at most one/)]);
    const noScenario = await t.call('post', '/api/kcurve/solve', { token: planner, body: { pipeline_id: P, persist: true } });
    expect([noScenario.status, noScenario.body.detail]).toEqual([400, expect.stringMatching(/^body\.persist: persisting needs scenario_id/)]);
  });

  test('a scenario of another pipeline is a 404 everywhere', async () => {
    const solve = await t.call('post', '/api/kcurve/solve', { token: planner, body: { pipeline_id: P, scenario_id: other.id, k: 5 } });
    expect([solve.status, solve.body.detail]).toEqual([404, `scenario_id: K-curve scenario ${other.id} not found in pipeline ${P}`]);
    expect((await get('/api/kcurve/eoq', { scenario_id: other.id })).status).toBe(404);
    expect((await t.call('get', `/api/kcurve/pipeline/${P}`, { token: plain, query: { scenario_id: other.id } })).status).toBe(404);
    expect((await t.call('get', '/api/kcurve/pipeline/999999', { token: plain })).status).toBe(404);
    expect((await get('/api/kcurve/items', { pipeline_id: 999999 })).status).toBe(404);
    const none = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM eoq_results WHERE scenario_id = ${other.id}`));
    expect(none).toBe(0);
  });
});

describe('solve', () => {
  const master = () => withTenant(t.db, a.accountId, async (tx) => [
    ...(await tx.any(sql.unsafe`SELECT item_id, site_id, unit_cost, moq, order_multiple, updated_at FROM item_site ORDER BY 1, 2`)),
    ...(await tx.any(sql.unsafe`SELECT id, avg_unit_cost, attributes, updated_at FROM items ORDER BY id`)),
  ]);

  test('a target picks k in closed form; persisting merges the rows in one go and stores k, the item master untouched', async () => {
    const before = await master();
    await withTenant(t.db, a.accountId, async (tx) => {
      // a row of a SKU-site outside the solve (no cost) and a stale row of A: the first stays, the second is updated
      await tx.query(sql.unsafe`INSERT INTO eoq_results (pipeline_id, scenario_id, item_id, site_id, annual_demand, unit_cost, k, eoq, orders_per_year, cycle_stock_value, total_annual_cost, job_id)
        VALUES (${P}, ${base.id}, ${key.D.item_id}, ${key.D.site_id}, 1, 1, 1, 1, 1, 1, 1, 'earlier'), (${P}, ${base.id}, ${key.A.item_id}, ${key.A.site_id}, 1, 1, 1, 1, 1, 1, 1, 'earlier')`);
    });
    const res = await t.call('post', '/api/kcurve/solve', { token: planner, body: { pipeline_id: P, scenario_id: base.id, target_orders_per_year: 40 } });
    expect(res.status).toBe(200);
    const k = S / 40;
    expect(res.body).toMatchObject({
      pipeline_id: P, scenario_id: base.id, persisted: true, rows_written: 3,
      settings: { k: close(k), k_source: 'request.target_orders_per_year', implied_ordering_cost: close((r * k * k) / 2), constrained: false },
      current: { k: close(k), inv_val: close((k * S) / 2), orders_per_year: close(40) },
    });
    // the override stays in force, so the portfolio's orders differ from the curve's 40 by C's share
    expect(res.body.totals.total_orders_per_year).toBeCloseTo(40 - Math.sqrt(13520) / k + 1040 / 25, 9);
    const rows = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
      SELECT item_id, eoq, eoq_override, k, job_id FROM eoq_results WHERE pipeline_id = ${P} AND scenario_id = ${base.id} ORDER BY item_id`));
    expect(rows).toEqual([
      { item_id: key.A.item_id, eoq: close(k * Math.sqrt(520 / 104)), eoq_override: null, k: close(k), job_id: `solve:${a.planner.email}` },
      { item_id: key.B.item_id, eoq: close(k * Math.sqrt(260 / 26)), eoq_override: null, k: close(k), job_id: `solve:${a.planner.email}` },
      { item_id: key.C.item_id, eoq: 25, eoq_override: 25, k: close(k), job_id: `solve:${a.planner.email}` },
      { item_id: key.D.item_id, eoq: 1, eoq_override: null, k: 1, job_id: 'earlier' },
    ]);
    expect(await master()).toEqual(before);
    const scenario = (await t.call('get', '/api/kcurve/scenarios', { token: plain, query: { name: 'Base' } })).body[0];
    expect(scenario.k).toBeCloseTo(k, 9);
    // reads now use the solved k; the stored rows are served per pipeline
    expect((await get('/api/kcurve/eoq')).body.settings).toMatchObject({ k: close(k), k_source: 'scenario.k' });
    const stored = await t.call('get', `/api/kcurve/pipeline/${P}`, { token: plain });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ pipeline_id: P, scenario_id: base.id, total: 4, totals: { n_items: 4, n_overridden: 1 } });
    expect(stored.body.scenarios).toEqual([{ scenario_id: base.id, name: 'Base', rows: 4, updated_at: expect.any(String) }]);
    expect(byUid(stored.body.items)[uid(key.A)]).toMatchObject({ item_xuid: 'IA', eoq: close(k * Math.sqrt(5)), freq_param_name: null });
    // back to sqrt(2A/r) for the other tests
    const reset = await t.call('post', '/api/kcurve/solve', { token: planner, body: { pipeline_id: P, scenario_id: base.id, k: k0, include_items: false } });
    expect([reset.status, reset.body.items, reset.body.settings.k_source]).toEqual([200, [], 'request.k']);
  });

  test('constrained solve at a target value; without persist nothing is written', async () => {
    const k = (2 * 3000) / S;
    const before = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT * FROM eoq_results ORDER BY 1, 2, 3, 4`));
    const res = await t.call('post', '/api/kcurve/solve', { token: plain, body: { pipeline_id: P, target_inventory_value: 3000, constrained: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ persisted: false, rows_written: 0, scenario_id: base.id, settings: { k: close(k), constrained: true } });
    expect(res.body.current.inv_val).toBeCloseTo(3000, 9);
    expect(byUid(res.body.items)[uid(key.B)]).toMatchObject({ freq_constrained: true, freq_param_name: 'item.allowed_orders_per_year' });
    expect(await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT * FROM eoq_results ORDER BY 1, 2, 3, 4`))).toEqual(before);
  });

  test('a target over a portfolio without demand is a 409 and writes nothing', async () => {
    const res = await t.call('post', '/api/kcurve/solve', { token: planner, body: { pipeline_id: P, scenario_id: base.id, segment_id: emptySegment, target_orders_per_year: 10 } });
    expect(res.status).toBe(409);
    const sc = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT k FROM kcurve_scenarios WHERE id = ${base.id}`));
    expect(sc).toBeCloseTo(k0, 9);
  });
});

describe('permissions', () => {
  test('reads for every user; scenario writes and persisting need can_run_process or an admin role', async () => {
    expect((await get('/api/kcurve/items', {}, plain)).status).toBe(200);
    const create = await t.call('post', '/api/kcurve/scenarios', { token: plain, body: { name: 'Mine', pipeline_id: P } });
    expect(create.status).toBe(403);
    expect((await t.call('delete', `/api/kcurve/scenarios/${base.id}`, { token: plain })).status).toBe(403);
    const persist = await t.call('post', '/api/kcurve/solve', { token: plain, body: { pipeline_id: P, scenario_id: base.id } });
    expect([persist.status, persist.body.detail]).toEqual([403, 'Permission can_run_process (or an admin role) required to persist a solve']);
    const preview = await t.call('post', '/api/kcurve/solve', { token: plain, body: { pipeline_id: P, scenario_id: base.id, persist: false } });
    expect([preview.status, preview.body.persisted]).toEqual([200, false]);
    const byAdmin = await t.call('post', '/api/kcurve/scenarios', { token: admin, body: { name: 'Admin made', pipeline_id: P2 } });
    expect(byAdmin.status).toBe(201);
    expect((await t.call('get', '/api/kcurve/curve', { query: { pipeline_id: P } })).status).toBe(401);
  });
});
