import { sql, withTenant } from '../../db/pool';
import { accuracyPrecision, groupAccuracy, seriesAccuracyScore, seriesPrecisionScore, type SeriesAccuracy } from '../../domain/analytics/analytics';
import { insertBest, insertForecast, insertWindow, seedForecastReads, type Seeded } from '../support/forecastReadsSeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let restricted: string;
let d: Seeded;
let pipeline: number;
let segBread: number;

// From the seed (test/support/forecastReadsSeed.ts): A Σ|e| 4, Σ|A| 44, Σe 0; B Σ|e| 5, Σ|A| 5, Σe −1.
const WAPE = (9 / 49) * 100;
const BIAS_PCT = (-1 / 49) * 100;
// MAPE: A over its 4 points (1/12 + 1/10 + 1/10 + 1/12) / 4; B over its one non-zero actual |2 − 5| / 5.
const MAPE_A = ((1 / 12 + 1 / 10 + 1 / 10 + 1 / 12) / 4) * 100;
const MAPE_B = 60;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('analytics');
  d = await seedForecastReads(t.db, a.accountId);
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  const seg = await t.call('post', '/api/segments', { token: admin, body: { name: 'Bread only', rules: [{ field: 'item_xuid', operator: '=', value: 'I2' }] } });
  segBread = seg.body.id;
  await t.call('post', `/api/segments/${segBread}/assign`, { token: admin });
  restricted = await t.login(await t.addUser(a.accountId, { allowed_segments: [segBread] }));
  pipeline = (await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'Bread pipeline', segment_ids: [segBread] } })).body.id;
  await withTenant(t.db, a.accountId, async (tx) => {
    await insertForecast(tx, pipeline, d.keys.B, 'tsb', '2026-03-02', [4, 4], [2, 2], [6, 6]);
    await insertBest(tx, pipeline, d.keys.B, 'tsb', null, 1, 'mase');
    await insertWindow(tx, pipeline, d.keys.B, 'window', 'tsb', '2026-02-02', [4, 4], [2, 2], [6, 6], [5, 0]);
  });
});
afterAll(() => t.close());

describe('GET /api/analytics', () => {
  test('overall, by demand class, by best method, distribution: the hand-computed values', async () => {
    const res = await t.call('get', '/api/analytics', { token: planner });
    expect(res.status).toBe(200);
    const o = res.body.overall;
    expect(o).toMatchObject({ series_count: 3, forecasted_count: 2, with_best_method: 2, backtested_count: 2, forecast_volume: 33 + 6 });
    expect(o.wape).toBeCloseTo(WAPE, 10);
    expect(o.bias_pct).toBeCloseTo(BIAS_PCT, 10);
    expect(o.weighted_mape).toBeCloseTo((44 * MAPE_A + 5 * MAPE_B) / 49, 10);
    expect(o.mean_mase).toBeCloseTo((0.5 + 1.5) / 2, 12);
    expect(o.mean_smape).toBeCloseTo((9 + 150) / 2, 12);
    expect(o.mean_bias).toBeCloseTo(-0.25, 12);
    expect(o.mean_coverage_90).toBeCloseTo(0.75, 12);
    expect(o.mean_best_score).toBeCloseTo(1.75, 12);
    expect(Object.keys(res.body.by_demand_class)).toEqual(['lumpy', 'smooth', 'unclassified']);
    expect(res.body.by_demand_class.smooth.wape).toBeCloseTo((4 / 44) * 100, 10);
    expect(res.body.by_demand_class.lumpy).toMatchObject({ series_count: 1, wape: 100, bias_pct: -20, weighted_mape: 60, mean_mase: 1.5 });
    expect(res.body.by_demand_class.unclassified).toEqual({
      series_count: 1, forecasted_count: 0, with_best_method: 0, backtested_count: 0, wape: null, weighted_mape: null, bias_pct: null,
      mean_mase: null, mean_smape: null, mean_bias: null, mean_coverage_90: null, mean_best_score: null, forecast_volume: 0,
    });
    expect(Object.keys(res.body.by_best_method)).toEqual(['croston', 'none', 'ses']);
    expect(res.body.by_best_method.ses).toMatchObject({ series_count: 1, bias_pct: 0, mean_mase: 0.5, forecast_volume: 33 });
    expect(res.body.best_method_distribution).toEqual({ croston: { count: 1, share: 0.5 }, ses: { count: 1, share: 0.5 } });
    expect([res.body.pipeline_id, res.body.scenario_id]).toEqual([0, null]);
  });

  test('pipeline scope (its segments), segment_id, user segment scope', async () => {
    const byPipeline = await t.call('get', '/api/analytics', { token: planner, query: { pipeline_id: pipeline } });
    // B in the pipeline: tsb 4 4 vs 5 0 → Σ|e| 5, Σ|A| 5, Σe 3
    expect(byPipeline.body.overall).toMatchObject({ series_count: 1, forecasted_count: 1, wape: 100, bias_pct: 60, forecast_volume: 8 });
    expect(byPipeline.body.by_demand_class).toEqual({ unclassified: expect.objectContaining({ series_count: 1 }) });
    expect(byPipeline.body.best_method_distribution).toEqual({ tsb: { count: 1, share: 1 } });

    const bySegment = await t.call('get', '/api/analytics', { token: planner, query: { segment_id: segBread } });
    expect(bySegment.body.overall).toMatchObject({ series_count: 1, wape: 100, bias_pct: -20 });
    const scoped = await t.call('get', '/api/analytics', { token: restricted });
    expect(scoped.body.overall).toMatchObject({ series_count: 1, wape: 100 });
    expect(Object.keys(scoped.body.by_best_method)).toEqual(['croston']);
  });

  test('scenario_id: pipeline 0 rows stored under the scenario; 404s and 400s name the field', async () => {
    const scenario = (await t.call('post', '/api/forecast/scenarios', { token: planner, body: { name: 'Stat' } })).body.id;
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE forecast_results SET scenario_id = ${scenario} WHERE pipeline_id = 0 AND item_id = ${d.keys.A.item_id}`));
    const res = await t.call('get', '/api/analytics', { token: planner, query: { scenario_id: scenario } });
    expect(res.body).toMatchObject({ pipeline_id: 0, scenario_id: scenario, overall: { series_count: 1, forecast_volume: 33 } });
    expect(res.body.overall.wape).toBeCloseTo((4 / 44) * 100, 10);
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE forecast_results SET scenario_id = NULL WHERE pipeline_id = 0`));

    for (const [q, status, detail] of [
      [{ pipeline_id: 999999 }, 404, 'pipeline_id: pipeline 999999 not found'],
      [{ scenario_id: 999999 }, 404, 'scenario_id: forecast scenario 999999 not found'],
      [{ segment_id: 999999 }, 404, 'Segment 999999 not found'],
      [{ pipeline_id: 'x' }, 400, 'query.pipeline_id must be integer'],
      [{ colour: 'red' }, 400, "query: unknown field 'colour'"],
    ] as const) {
      const r = await t.call('get', '/api/analytics', { token: planner, query: q });
      expect([r.status, r.body.detail]).toEqual([status, detail]);
    }
  });

  test('a tenant without results: zero counts and null ratios', async () => {
    const b = await t.newTenant('analytics-empty');
    const res = await t.call('get', '/api/analytics', { token: await t.login(b.planner) });
    expect(res.body.overall).toMatchObject({ series_count: 0, wape: null, mean_mase: null, forecast_volume: 0 });
    expect([res.body.by_demand_class, res.body.best_method_distribution]).toEqual([{}, {}]);
  });
});

describe('GET /api/analytics/accuracy-precision', () => {
  test('accuracy = 1 − WAPE, precision = 1 − relative half-width, both clipped; summary per method', async () => {
    const res = await t.call('get', '/api/analytics/accuracy-precision', { token: planner });
    expect(res.status).toBe(200);
    // A: 1 − 4/44; ses forecast 11 ×3 with width 4 → 1 − 12 / 66. B: 1 − 5/5 = 0; croston 2 ×3, width 5 → 1 − 15/12 < 0 → 0.
    const accA = 1 - 4 / 44;
    const precA = 1 - 12 / 66;
    expect(res.body.points).toEqual([
      { unique_id: d.A, accuracy: expect.closeTo(accA, 12), precision: expect.closeTo(precA, 12), method: 'ses' },
      { unique_id: d.B, accuracy: 0, precision: 0, method: 'croston' },
    ]);
    expect(res.body.summary.avg_accuracy).toBeCloseTo(accA / 2, 12);
    expect(res.body.summary.avg_precision).toBeCloseTo(precA / 2, 12);
    expect(res.body.summary.series_count).toBe(2);
    expect(res.body.summary.by_method).toEqual({
      croston: { count: 1, avg_accuracy: 0, avg_precision: 0 },
      ses: { count: 1, avg_accuracy: expect.closeTo(accA, 12), avg_precision: expect.closeTo(precA, 12) },
    });
  });

  test('pipeline and user scope; empty summary', async () => {
    const inPipeline = await t.call('get', '/api/analytics/accuracy-precision', { token: planner, query: { pipeline_id: pipeline } });
    // tsb 4 4 vs 5 0 → accuracy 0; forecast 4 4 width 4 4 → 1 − 8/16 = 0.5
    expect(inPipeline.body.points).toEqual([{ unique_id: d.B, accuracy: 0, precision: 0.5, method: 'tsb' }]);
    expect((await t.call('get', '/api/analytics/accuracy-precision', { token: restricted })).body.points.map((p: any) => p.unique_id)).toEqual([d.B]);
    const b = await t.newTenant('ap-empty');
    expect((await t.call('get', '/api/analytics/accuracy-precision', { token: await t.login(b.planner) })).body).toEqual({
      points: [], summary: { avg_accuracy: null, avg_precision: null, series_count: 0, by_method: {} },
    });
  });
});

describe('aggregate demand', () => {
  const HISTORY = [
    { date: '2026-01-05', value: 11 }, { date: '2026-01-12', value: 18 }, { date: '2026-01-19', value: 11 }, { date: '2026-01-26', value: 13 },
    { date: '2026-02-02', value: 11 }, { date: '2026-02-09', value: 18 }, { date: '2026-02-16', value: 10 }, { date: '2026-02-23', value: 13 },
  ];

  test('GET: history summed (closed weeks add nothing), best-method forecasts summed; causal and maintenance empty', async () => {
    const res = await t.call('get', '/api/analytics/aggregate-demand', { token: planner });
    expect(res.body).toEqual({
      historical: HISTORY,
      forecast: [{ date: '2026-03-02', value: 13 }, { date: '2026-03-09', value: 13 }, { date: '2026-03-16', value: 13 }],
      forecast_causal: [], forecast_maint: [], pipeline_id: 0, series_count: 3, forecast_series_count: 2,
    });
    const inPipeline = await t.call('get', '/api/analytics/aggregate-demand', { token: planner, query: { pipeline_id: pipeline } });
    expect(inPipeline.body).toMatchObject({
      historical: [0, 5, 0, 0, 0, 5, 0, 0].map((value, i) => ({ date: HISTORY[i].date, value })),
      forecast: [{ date: '2026-03-02', value: 4 }, { date: '2026-03-09', value: 4 }], series_count: 1,
    });
    expect((await t.call('get', '/api/analytics/aggregate-demand', { token: restricted })).body.forecast).toEqual([
      { date: '2026-03-02', value: 2 }, { date: '2026-03-09', value: 2 }, { date: '2026-03-16', value: 2 },
    ]);
    const missing = await t.call('get', '/api/analytics/aggregate-demand', { token: planner, query: { series_scenario_id: 999999 } });
    expect([missing.status, missing.body.detail]).toEqual([404, 'series_scenario_id: forecast scenario 999999 not found']);
  });

  test('POST: the listed series; unknown and invisible ids listed, not summed', async () => {
    const res = await t.call('post', '/api/analytics/aggregate-demand', { token: planner, body: { unique_ids: [d.A, d.C, d.A, '999999_1'] } });
    expect(res.body).toMatchObject({
      historical: [11, 13, 11, 13, 11, 13, 10, 13].map((value, i) => ({ date: HISTORY[i].date, value })),
      forecast: [{ date: '2026-03-02', value: 11 }, { date: '2026-03-09', value: 11 }, { date: '2026-03-16', value: 11 }],
      forecast_causal: [], forecast_maint: [], series_count: 2, forecast_series_count: 1, unknown_ids: ['999999_1'],
    });
    const inPipeline = await t.call('post', '/api/analytics/aggregate-demand', { token: planner, body: { unique_ids: [d.B], pipeline_id: pipeline } });
    expect(inPipeline.body.forecast).toEqual([{ date: '2026-03-02', value: 4 }, { date: '2026-03-09', value: 4 }]);
    const scoped = await t.call('post', '/api/analytics/aggregate-demand', { token: restricted, body: { unique_ids: [d.A] } });
    expect(scoped.body).toMatchObject({ historical: [], forecast: [], series_count: 0, unknown_ids: [d.A] });
    const bad = await t.call('post', '/api/analytics/aggregate-demand', { token: planner, body: { unique_ids: [] } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'body.unique_ids must NOT have fewer than 1 items']);
    const badPipeline = await t.call('post', '/api/analytics/aggregate-demand', { token: planner, body: { unique_ids: [d.A], pipeline_id: 999999 } });
    expect([badPipeline.status, badPipeline.body.detail]).toEqual([404, 'pipeline_id: pipeline 999999 not found']);
  });
});

describe('domain/analytics edge cases', () => {
  const row = (over: Partial<SeriesAccuracy>): SeriesAccuracy => ({
    unique_id: '1_1', demand_class: null, best_method: 'naive', best_score: null, has_forecast: true, mase: null, smape: null, bias: null, coverage_90: null,
    window_points: 0, abs_error: 0, abs_actual: 0, error: 0, ape_sum: 0, ape_points: 0, forecast_volume: null, interval_width: null, ...over,
  });

  test('no actual demand: perfect zero forecasts score 1, anything else 0; WAPE 0 or null', () => {
    expect(seriesAccuracyScore(row({ window_points: 4 }))).toBe(1);
    expect(seriesAccuracyScore(row({ window_points: 4, abs_error: 2 }))).toBe(0);
    expect(seriesAccuracyScore(row({}))).toBeNull();
    expect(groupAccuracy([row({ window_points: 4 })]).wape).toBe(0);
    expect(groupAccuracy([row({ window_points: 4, abs_error: 1 })]).wape).toBeNull();
  });

  test('precision: zero forecast, over-wide interval, missing forecast', () => {
    expect(seriesPrecisionScore(row({ forecast_volume: 0, interval_width: 0 }))).toBe(1);
    expect(seriesPrecisionScore(row({ forecast_volume: 0, interval_width: 3 }))).toBe(0);
    expect(seriesPrecisionScore(row({ forecast_volume: 100, interval_width: 20 }))).toBeCloseTo(0.9, 12);
    expect(seriesPrecisionScore(row({}))).toBeNull();
    expect(accuracyPrecision([row({ window_points: 2, abs_actual: 10, abs_error: 1 })]).points).toEqual([]);
  });
});
