import { sql, withTenant, type Db } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;

const WEEKS = ['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26', '2026-02-02', '2026-02-09', '2026-02-16', '2026-02-23'];

/** items I1..I4 at DC1 / ST1 with weekly demand; I4@ST1 has no history. */
async function seed(db: Db, accountId: string) {
  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name, site_type, attributes) VALUES ('DC1', 'Central DC', 'dc', '{"region": "north"}'), ('ST1', 'Store Lyon', 'store', '{}')`);
    await tx.query(sql.unsafe`
      INSERT INTO items (xuid, name, unit_price, avg_unit_cost, image_url, attributes) VALUES
        ('I1', 'Cola', 2, 1.25, 'https://img.example.com/cola.png', '{"category": "Drinks"}'), ('I2', 'Bread', 0, 0, NULL, '{}'),
        ('I3', 'Chips', 4, 3, NULL, '{}'), ('I4', 'Tea', 5, 4, NULL, '{}')`);
    const spec: Array<[string, string, number[] | null]> = [
      ['I1', 'DC1', [5, 6, 5, 7, 6, 5, 6, 5]], ['I2', 'DC1', [0, 0, 4, 0, 0, 5, 0, 0]], ['I3', 'ST1', [0, 0, 1, 0, 0, 20, 0, 0]],
      ['I1', 'ST1', [1, 20, 1, 20, 1, 20, 1, 20]], ['I4', 'ST1', null],
    ];
    for (const [item, site, y] of spec) {
      const ids = (await tx.one(sql.unsafe`SELECT i.id AS item_id, s.id AS site_id FROM items i, sites s WHERE i.xuid = ${item} AND s.xuid = ${site}`)) as { item_id: number; site_id: number };
      if (!y) {
        await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${ids.item_id}, ${ids.site_id})`);
        continue;
      }
      await tx.query(sql.unsafe`
        INSERT INTO series_weekly (item_id, site_id, week, y)
        SELECT ${ids.item_id}, ${ids.site_id}, w, v FROM unnest(${sql.array(WEEKS, 'date')}::date[], ${sql.array(y, 'float8')}::float8[]) AS u(w, v)`);
      const total = y.reduce((s, v) => s + v, 0);
      await tx.query(sql.unsafe`
        INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end, mean, zero_ratio, total_demand)
        VALUES (${ids.item_id}, ${ids.site_id}, ${y.length}, ${WEEKS[0]}, ${WEEKS[7]}, ${total / y.length}, ${y.filter((v) => v === 0).length / y.length}, ${total})`);
    }
  });
}

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('series');
  await seed(t.db, a.accountId);
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
});
afterAll(() => t.close());

const key = (s: { item_xuid: string; site_xuid: string }) => `${s.item_xuid}@${s.site_xuid}`;

test('every field of §2.3, filled from the data', async () => {
  const res = await t.call('get', '/api/series', { token: planner });
  expect(res.status).toBe(200);
  expect(res.headers['x-total-count']).toBe('5');
  expect(res.body.map(key)).toEqual(['I1@DC1', 'I1@ST1', 'I2@DC1', 'I3@ST1', 'I4@ST1']);
  const [s] = res.body;
  expect(s).toEqual({
    unique_id: `${s.item_id}_${s.site_id}`, item_id: expect.any(Number), site_id: expect.any(Number),
    item_name: 'Cola', site_name: 'Central DC', item_xuid: 'I1', site_xuid: 'DC1', item_image_url: 'https://img.example.com/cola.png',
    item_attributes: { category: 'Drinks' }, site_attributes: { region: 'north' },
    n_observations: 8, date_range_start: '2026-01-05', date_range_end: '2026-02-23', mean: 5.625, adi: 1, zero_ratio: 0, cov: expect.closeTo(0.13227, 4),
    is_intermittent: false, has_seasonality: null, has_trend: null, complexity_level: null, recommended_methods: null,
    best_method: null, runner_up_method: null, best_score: null, classifications: {}, avg_unit_cost: 1.25, unit_price: 2,
    total_demand: 45, demand_class: 'smooth', characterized: false,
  });
  const intermittent = res.body.find((r: any) => key(r) === 'I2@DC1');
  expect(intermittent).toMatchObject({ adi: 4, zero_ratio: 0.75, is_intermittent: true, demand_class: 'intermittent' });
  expect(intermittent.cov).toBeCloseTo(Math.sqrt(((4 - 1.125) ** 2 + (5 - 1.125) ** 2 + 6 * 1.125 ** 2) / 7) / 1.125, 9);
  expect(res.body.find((r: any) => key(r) === 'I3@ST1')).toMatchObject({ demand_class: 'lumpy', is_intermittent: true });
  expect(res.body.find((r: any) => key(r) === 'I1@ST1')).toMatchObject({ demand_class: 'erratic', is_intermittent: false });
  expect(res.body.find((r: any) => key(r) === 'I4@ST1')).toMatchObject({ n_observations: null, mean: null, adi: null, cov: null, is_intermittent: null, demand_class: null, total_demand: null });
});

test('classifications come from ABC results', async () => {
  const cfg = await t.call('post', '/api/abc/configurations', { token: admin, body: { name: 'Volume ABC', metric: 'volume' } });
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
    INSERT INTO abc_results (config_id, item_id, site_id, class_label, rank, metric_value, share, cumulative_share, annual_volume, annual_value)
    SELECT ${cfg.body.id}, item_id, site_id, 'B', 1, 1, 1, 1, 1, 1 FROM series`));
  const res = await t.call('get', '/api/series', { token: planner, query: { limit: 1 } });
  expect(res.body[0].classifications).toEqual({ 'Volume ABC': 'B' });
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM abc_results WHERE config_id = ${cfg.body.id}`));
});

test('skip and limit: default 200, at most 50000', async () => {
  const page = await t.call('get', '/api/series', { token: planner, query: { skip: 1, limit: 2 } });
  expect(page.body.map(key)).toEqual(['I1@ST1', 'I2@DC1']);
  expect(page.headers['x-total-count']).toBe('5');
  expect((await t.call('get', '/api/series', { token: planner, query: { limit: 50000 } })).status).toBe(200);
  const tooMany = await t.call('get', '/api/series', { token: planner, query: { limit: 50001 } });
  expect([tooMany.status, tooMany.body.detail]).toEqual([400, 'query.limit must be <= 50000']);
  expect(t.table.routes.find((r) => r.path === '/api/series')!.query).toMatchObject({ properties: { limit: { default: 200, maximum: 50000 } } });
});

test('filters: segment_id, pipeline_id (its segments), scenario_id; unknown ids are 404s naming the field', async () => {
  const seg = await t.call('post', '/api/segments', { token: admin, body: { name: 'Stores', rules: [{ field: 'site_type', operator: '=', value: 'store' }] } });
  await t.call('post', `/api/segments/${seg.body.id}/assign`, { token: admin });
  const bySeg = await t.call('get', '/api/series', { token: planner, query: { segment_id: seg.body.id } });
  expect(bySeg.body.map(key)).toEqual(['I1@ST1', 'I3@ST1', 'I4@ST1']);

  const withSeg = await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'Store pipeline', segment_ids: [seg.body.id] } });
  const noSeg = await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'All pipeline' } });
  expect((await t.call('get', '/api/series', { token: planner, query: { pipeline_id: withSeg.body.id } })).body.map(key)).toEqual(['I1@ST1', 'I3@ST1', 'I4@ST1']);
  expect((await t.call('get', '/api/series', { token: planner, query: { pipeline_id: noSeg.body.id } })).headers['x-total-count']).toBe('5');

  const scenario = await t.call('post', '/api/forecast/scenarios', { token: planner, body: { name: 'Base' } });
  expect((await t.call('get', '/api/series', { token: planner, query: { scenario_id: scenario.body.id } })).headers['x-total-count']).toBe('5');

  for (const [q, detail] of [
    [{ segment_id: 999999 }, 'Segment 999999 not found'],
    [{ pipeline_id: 999999 }, 'pipeline_id: pipeline 999999 not found'],
    [{ scenario_id: 999999 }, 'scenario_id: forecast scenario 999999 not found'],
  ] as const) {
    const res = await t.call('get', '/api/series', { token: planner, query: q });
    expect([res.status, res.body.detail]).toEqual([404, detail]);
  }
  expect((await t.call('get', '/api/series', { token: planner, query: { segment_id: 'x' } })).status).toBe(400);

  const counts = await t.call('get', '/api/series/type-counts', { token: planner, query: { pipeline_id: withSeg.body.id } });
  expect(counts.body).toEqual({ intermittent: 0, smooth: 0, lumpy: 1, causal: 0, maintenance: 0, erratic: 1, no_history: 1, total: 3 });
});

test('type-counts: Syntetos-Boylan classes; causal and maintenance are 0', async () => {
  const res = await t.call('get', '/api/series/type-counts', { token: planner });
  expect(res.body).toEqual({ intermittent: 1, smooth: 1, lumpy: 1, causal: 0, maintenance: 0, erratic: 1, no_history: 1, total: 5 });
});

test('characterization and best-method results of the results pipeline fill the list; type-counts use their class', async () => {
  const pipeline = await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'Characterized' } });
  const scenario = await t.call('post', '/api/forecast/scenarios', { token: planner, body: { name: 'With results' } });
  await t.call('put', `/api/scenario-pipeline/${pipeline.body.id}`, { token: planner, body: { forecast_scenario_id: scenario.body.id } });
  const series = (await t.call('get', '/api/series', { token: planner })).body;
  const cola = series.find((r: any) => key(r) === 'I1@DC1');
  const bread = series.find((r: any) => key(r) === 'I2@DC1');
  await withTenant(t.db, a.accountId, async (tx) => {
    for (const p of [0, pipeline.body.id]) {
      // I1@DC1 (smooth from its weekly history) is characterized as lumpy, so the class visibly comes from the step.
      await tx.query(sql.unsafe`
        INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, mean, adi, cv2, zero_ratio, cov, demand_class, is_intermittent,
          has_seasonality, seasonal_period, has_trend, complexity_level, recommended_methods)
        VALUES (${p}, ${cola.item_id}, ${cola.site_id}, 8, 5.625, ${p === 0 ? 1.5 : 2.5}, 0.6, 0, 0.7, 'lumpy', true, true, 52, false, 'high', ${sql.array(['naive', 'croston'], 'text')})`);
    }
    await tx.query(sql.unsafe`
      INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, runner_up_method, best_score, metric)
      VALUES (0, ${cola.item_id}, ${cola.site_id}, 'croston', 'naive', 0.42, 'mase'), (0, ${bread.item_id}, ${bread.site_id}, 'sba', NULL, 1.5, 'mase')`);
  });
  const res = await t.call('get', '/api/series', { token: planner });
  const c = res.body.find((r: any) => key(r) === 'I1@DC1');
  expect(c).toMatchObject({
    adi: 1.5, cov: 0.7, demand_class: 'lumpy', is_intermittent: true, has_seasonality: true, has_trend: false, complexity_level: 'high',
    recommended_methods: ['naive', 'croston'], best_method: 'croston', runner_up_method: 'naive', best_score: 0.42, characterized: true,
    n_observations: 8, mean: 5.625, zero_ratio: 0,
  });
  // Not characterized: weekly statistics stay, best method shows on its own.
  expect(res.body.find((r: any) => key(r) === 'I2@DC1')).toMatchObject({
    adi: 4, demand_class: 'intermittent', characterized: false, has_seasonality: null, recommended_methods: null, best_method: 'sba', runner_up_method: null, best_score: 1.5,
  });
  // Another pipeline's results: its characterization, no best method.
  for (const q of [{ pipeline_id: pipeline.body.id }, { scenario_id: scenario.body.id }]) {
    const other = (await t.call('get', '/api/series', { token: planner, query: q })).body.find((r: any) => key(r) === 'I1@DC1');
    expect(other).toMatchObject({ adi: 2.5, demand_class: 'lumpy', characterized: true, best_method: null, best_score: null });
  }

  expect((await t.call('get', '/api/series/type-counts', { token: planner })).body).toEqual({ intermittent: 1, smooth: 0, lumpy: 2, causal: 0, maintenance: 0, erratic: 1, no_history: 1, total: 5 });
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM series_characteristics WHERE pipeline_id = 0`));
  expect((await t.call('get', '/api/series/type-counts', { token: planner })).body).toMatchObject({ smooth: 1, lumpy: 1 });
  expect((await t.call('get', '/api/series/type-counts', { token: planner, query: { pipeline_id: pipeline.body.id } })).body).toMatchObject({ smooth: 0, lumpy: 2, total: 5 });
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`DELETE FROM series_characteristics`);
    await tx.query(sql.unsafe`DELETE FROM series_best_method`);
  });
});

test('tenant isolation: another tenant sees none of these series', async () => {
  const b = await t.newTenant('series-b');
  const token = await t.login(b.planner);
  const res = await t.call('get', '/api/series', { token });
  expect([res.body, res.headers['x-total-count']]).toEqual([[], '0']);
  expect((await t.call('get', '/api/series/type-counts', { token })).body.total).toBe(0);
  expect((await t.call('get', '/api/series')).status).toBe(401);
});
