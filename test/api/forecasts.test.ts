import { ALL_METHODS } from '../../domain/forecast/compatibility';
import { sql, withTenant } from '../../db/pool';
import { addWeeks } from '../../domain/time/weeks';
import { writeForecastFixture, type ForecastFixture } from '../support/forecastFixtures';
import { seedForecastReads, insertBest, insertForecast, type Seeded } from '../support/forecastReadsSeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let restricted: string;
let d: Seeded;
let s1: number;
let s2: number;
let p1: number;
let p2: number;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('forecasts');
  d = await seedForecastReads(t.db, a.accountId);
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  // Scenario S1 is used by two pipelines (P2 updated last); S2 by none, its forecasts live in pipeline 0.
  s1 = (await t.call('post', '/api/forecast/scenarios', { token: planner, body: { name: 'S1', horizon_weeks: 2 } })).body.id;
  s2 = (await t.call('post', '/api/forecast/scenarios', { token: planner, body: { name: 'S2' } })).body.id;
  p1 = (await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'P1', forecast_scenario_id: s1 } })).body.id;
  p2 = (await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'P2', forecast_scenario_id: s1 } })).body.id;
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`UPDATE scenario_pipelines SET updated_at = now() - interval '1 day' WHERE id = ${p1}`);
    await insertForecast(tx, p1, d.keys.A, 'ets', '2026-03-02', [20, 20, 20], [18, 18, 18], [22, 22, 22], s1);
    await insertBest(tx, p1, d.keys.A, 'ets', null, 3, 'mase');
    await insertForecast(tx, p2, d.keys.A, 'theta', '2026-03-02', [30, 30, 30], [25, 25, 25], [35, 35, 35], s1);
    await insertForecast(tx, p2, d.keys.B, 'theta', '2026-03-02', [1, 1, 1], [0, 0, 0], [2, 2, 2], s1);
    await insertBest(tx, p2, d.keys.A, 'theta', null, 1, 'mase');
    await insertBest(tx, p2, d.keys.B, 'theta', null, 2, 'mase');
    await tx.query(sql.unsafe`UPDATE forecast_results SET scenario_id = ${s2} WHERE pipeline_id = 0 AND method = 'naive'`);
  });
  const seg = await t.call('post', '/api/segments', { token: admin, body: { name: 'Bread only', rules: [{ field: 'item_xuid', operator: '=', value: 'I2' }] } });
  await t.call('post', `/api/segments/${seg.body.id}/assign`, { token: admin });
  restricted = await t.login(await t.addUser(a.accountId, { allowed_segments: [seg.body.id] }));
});
afterAll(() => t.close());

describe('GET /api/forecasts/{unique_id}', () => {
  test('pipeline 0 by default: every method with weekly points and intervals', async () => {
    const res = await t.call('get', `/api/forecasts/${d.A}`, { token: planner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ unique_id: d.A, pipeline_id: 0, scenario_id: null, best_method: 'ses', levels: { naive: 0.9, ses: 0.9 } });
    expect(Object.keys(res.body.forecasts)).toEqual(['naive', 'ses']);
    expect(res.body.forecasts.naive).toEqual([
      { ds: '2026-03-02', yhat: 12, yhat_lower: 10, yhat_upper: 14 },
      { ds: '2026-03-09', yhat: 12, yhat_lower: 9, yhat_upper: 15 },
      { ds: '2026-03-16', yhat: 12, yhat_lower: 8, yhat_upper: 16 },
    ]);
    expect(res.body.forecasts.ses[2]).toEqual({ ds: '2026-03-16', yhat: 11, yhat_lower: 9, yhat_upper: 13 });
  });

  test('scenario_id alone: the latest pipeline using it, else pipeline 0 rows stored under it', async () => {
    const viaPipeline = await t.call('get', `/api/forecasts/${d.A}`, { token: planner, query: { scenario_id: s1 } });
    expect(viaPipeline.body).toMatchObject({ pipeline_id: p2, scenario_id: null, best_method: 'theta' });
    expect(Object.keys(viaPipeline.body.forecasts)).toEqual(['theta']);
    expect(viaPipeline.body.forecasts.theta[0]).toEqual({ ds: '2026-03-02', yhat: 30, yhat_lower: 25, yhat_upper: 35 });

    const viaRows = await t.call('get', `/api/forecasts/${d.A}`, { token: planner, query: { scenario_id: s2 } });
    expect(viaRows.body).toMatchObject({ pipeline_id: 0, scenario_id: s2 });
    expect(Object.keys(viaRows.body.forecasts)).toEqual(['naive']);

    const both = await t.call('get', `/api/forecasts/${d.A}`, { token: planner, query: { pipeline_id: p1, scenario_id: s1 } });
    expect([both.body.pipeline_id, Object.keys(both.body.forecasts), both.body.forecasts.ets[1].yhat]).toEqual([p1, ['ets'], 20]);
    const mismatch = await t.call('get', `/api/forecasts/${d.A}`, { token: planner, query: { pipeline_id: p1, scenario_id: s2 } });
    expect(mismatch.body.forecasts).toEqual({});
  });

  test('no pipeline_id: the last run pipeline, the baseline scenario\'s first; the series reads follow the same rule', async () => {
    const set = (fragment: ReturnType<typeof sql.unsafe>) => withTenant(t.db, a.accountId, (tx) => tx.query(fragment));
    try {
      await set(sql.unsafe`UPDATE scenario_pipelines SET last_run_at = CASE id WHEN ${p2} THEN now() ELSE now() - interval '1 day' END WHERE id IN (${p1}, ${p2})`);
      const latest = await t.call('get', `/api/forecasts/${d.A}`, { token: planner });
      expect(latest.body).toMatchObject({ pipeline_id: p2, best_method: 'theta' });
      expect((await t.call('get', `/api/series/${d.A}/best-method`, { token: planner })).body).toMatchObject({ pipeline_id: p2, best_method: 'theta' });
      // a pipeline of the baseline scenario wins over a more recent run
      await set(sql.unsafe`UPDATE forecast_scenarios SET is_baseline = (id = ${s2})`);
      await set(sql.unsafe`UPDATE scenario_pipelines SET forecast_scenario_id = ${s2} WHERE id = ${p1}`);
      expect((await t.call('get', `/api/forecasts/${d.A}`, { token: planner })).body).toMatchObject({ pipeline_id: p1, best_method: 'ets' });
      expect((await t.call('get', `/api/series/${d.A}/best-method`, { token: planner })).body).toMatchObject({ pipeline_id: p1, best_method: 'ets' });
      // an inactive pipeline is never the default
      await set(sql.unsafe`UPDATE scenario_pipelines SET is_active = false WHERE id = ${p1}`);
      expect((await t.call('get', `/api/forecasts/${d.A}`, { token: planner })).body.pipeline_id).toBe(p2);
    } finally {
      await set(sql.unsafe`UPDATE scenario_pipelines SET last_run_at = NULL, is_active = true, forecast_scenario_id = ${s1} WHERE id IN (${p1}, ${p2})`);
      await set(sql.unsafe`UPDATE forecast_scenarios SET is_baseline = false`);
    }
    expect((await t.call('get', `/api/forecasts/${d.A}`, { token: planner })).body.pipeline_id).toBe(0);
  });

  test('no pipeline_id: the pipeline whose results were written last wins over a later start; every read picks the same one', async () => {
    const set = (fragment: ReturnType<typeof sql.unsafe>) => withTenant(t.db, a.accountId, (tx) => tx.query(fragment));
    const job = (id: string, step: string, pipeline: number | null, minutesAgo: number, status = 'completed') => set(sql.unsafe`
      INSERT INTO jobs (job_id, kind, step, pipeline_id, status, created_at, finished_at)
      VALUES (${id}, 'step', ${step}, ${pipeline}, ${status}, now() - make_interval(mins => ${minutesAgo + 1}), now() - make_interval(mins => ${minutesAgo}))`);
    // the pipeline every read without pipeline_id answers with, read through each kind of route
    const defaults = async () => {
      const get = async (path: string) => (await t.call('get', path, { token: planner })).body.pipeline_id;
      const post = async (path: string, body: object) => {
        await t.call('post', path, { token: planner, body });
        const row = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`SELECT new_value FROM audit_log WHERE path = ${path} ORDER BY id DESC LIMIT 1`));
        return (row.new_value as { pipeline_id: number }).pipeline_id;
      };
      const answers = [
        await get(`/api/forecasts/${d.A}`), await get(`/api/metrics/${d.A}`), await get(`/api/forecasts/${d.A}/origins`), await get('/api/best-methods'),
        await get('/api/analytics'), await get('/api/analytics/aggregate-demand'), await get(`/api/series/${d.A}/best-method`),
        await post('/api/sparklines', { unique_ids: [d.A] }), await post('/api/analytics/aggregate-demand', { unique_ids: [d.A] }),
      ];
      expect(new Set(answers).size).toBe(1);
      return answers[0];
    };
    try {
      expect(await defaults()).toBe(0);
      // P2 started a run later, but only P1 has results: a completed job of a step after etl
      await set(sql.unsafe`UPDATE scenario_pipelines SET last_run_at = now() WHERE id = ${p2}`);
      expect(await defaults()).toBe(p2);
      await job('def-p1-forecast', 'forecast', p1, 30);
      expect(await defaults()).toBe(p1);
      expect((await t.call('get', `/api/forecasts/${d.A}`, { token: planner })).body).toMatchObject({ pipeline_id: p1, best_method: 'ets' });
      // an etl run writes series, not results; a failed run writes nothing that counts
      await job('def-p2-etl', 'etl', p2, 5);
      await job('def-p2-failed', 'forecast', p2, 4, 'failed');
      expect(await defaults()).toBe(p1);
      // results written later win, pipeline 0's included (a step job without a pipeline)
      await job('def-p2-best', 'best-method', p2, 20);
      expect(await defaults()).toBe(p2);
      await job('def-0-outlier', 'outlier', null, 10);
      expect(await defaults()).toBe(0);
      // of the pipelines with results, the baseline scenario's first, however old its results
      await set(sql.unsafe`UPDATE forecast_scenarios SET is_baseline = (id = ${s2})`);
      await set(sql.unsafe`UPDATE scenario_pipelines SET forecast_scenario_id = ${s2} WHERE id = ${p1}`);
      expect(await defaults()).toBe(p1);
      // an inactive pipeline never: the next with results written last
      await set(sql.unsafe`UPDATE scenario_pipelines SET is_active = false WHERE id = ${p1}`);
      expect(await defaults()).toBe(0);
    } finally {
      await set(sql.unsafe`DELETE FROM jobs WHERE job_id LIKE 'def-%'`);
      await set(sql.unsafe`UPDATE scenario_pipelines SET last_run_at = NULL, is_active = true, forecast_scenario_id = ${s1} WHERE id IN (${p1}, ${p2})`);
      await set(sql.unsafe`UPDATE forecast_scenarios SET is_baseline = false`);
    }
    expect(await defaults()).toBe(0);
  });

  test('a series without forecasts answers {}; unknown series, pipeline, scenario are 404s; bad ids 400', async () => {
    const none = await t.call('get', `/api/forecasts/${d.C}`, { token: planner });
    expect(none.body).toEqual({ unique_id: d.C, pipeline_id: 0, scenario_id: null, forecasts: {}, levels: {}, best_method: null, updated_at: null });
    const unknown = await t.call('get', '/api/forecasts/999999_1', { token: planner });
    expect([unknown.status, unknown.body.detail]).toEqual([404, 'Series 999999_1 not found (item 999999, site 1)']);
    expect((await t.call('get', `/api/forecasts/${d.A}`, { token: planner, query: { pipeline_id: 999999 } })).body.detail).toBe('pipeline_id: pipeline 999999 not found');
    expect((await t.call('get', `/api/forecasts/${d.A}`, { token: planner, query: { scenario_id: 999999 } })).body.detail).toBe('scenario_id: forecast scenario 999999 not found');
    const bad = await t.call('get', '/api/forecasts/abc', { token: planner });
    expect([bad.status, bad.body.detail]).toEqual([400, 'path.unique_id must match pattern "^[1-9][0-9]{0,8}_[1-9][0-9]{0,8}$"']);
    const badQuery = await t.call('get', `/api/forecasts/${d.A}`, { token: planner, query: { pipeline_id: -1 } });
    expect([badQuery.status, badQuery.body.detail]).toEqual([400, 'query.pipeline_id must be >= 0']);
  });

  test('segment permissions: 403 outside the user\'s segments', async () => {
    const res = await t.call('get', `/api/forecasts/${d.A}`, { token: restricted });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/^Access to series .* denied/);
    expect((await t.call('get', `/api/forecasts/${d.B}`, { token: restricted })).body.forecasts.croston[0]).toEqual({ ds: '2026-03-02', yhat: 2, yhat_lower: 0, yhat_upper: 5 });
    expect((await t.call('get', `/api/forecasts/${d.A}`)).status).toBe(401);
  });
});

describe('GET /api/metrics/{unique_id}', () => {
  test('backtest metrics per method, with the best method and its metric', async () => {
    const res = await t.call('get', `/api/metrics/${d.A}`, { token: planner });
    expect(res.body).toEqual({
      unique_id: d.A, pipeline_id: 0, best_method: 'ses', metric: 'mae',
      metrics: {
        naive: { mae: 2, rmse: 2, mase: 1, bias: 0, coverage_90: 1, smape: 18.5, origins_evaluated: 2 },
        ses: { mae: 1, rmse: 1, mase: 0.5, bias: 0, coverage_90: 1, smape: 9, origins_evaluated: 2 },
      },
    });
    expect((await t.call('get', `/api/metrics/${d.A}`, { token: planner, query: { pipeline_id: p2 } })).body).toMatchObject({ metrics: {}, best_method: 'theta', metric: 'mase' });
    expect((await t.call('get', `/api/metrics/${d.A}`, { token: restricted })).status).toBe(403);
    expect((await t.call('get', '/api/metrics/5_999999', { token: planner })).status).toBe(404);
  });
});

describe('backtest origins', () => {
  test('origin dates with their kinds and methods', async () => {
    const res = await t.call('get', `/api/forecasts/${d.A}/origins`, { token: planner });
    expect(res.body).toEqual({
      unique_id: d.A, pipeline_id: 0,
      origins: [
        { origin_date: '2026-02-02', kinds: ['origin', 'window'], methods: ['naive', 'ses'] },
        { origin_date: '2026-02-09', kinds: ['window'], methods: ['ses'] },
      ],
    });
    const onlyOrigin = await t.call('get', `/api/forecasts/${d.A}/origins`, { token: planner, query: { kind: 'origin' } });
    expect(onlyOrigin.body.origins).toEqual([{ origin_date: '2026-02-02', kinds: ['origin'], methods: ['ses'] }]);
    expect((await t.call('get', `/api/forecasts/${d.C}/origins`, { token: planner })).body.origins).toEqual([]);
    const badKind = await t.call('get', `/api/forecasts/${d.A}/origins`, { token: planner, query: { kind: 'x' } });
    expect([badKind.status, badKind.body.detail]).toEqual([400, 'query.kind must be one of: origin, window']);
  });

  test('forecasts at an origin: the full-horizon origin forecast preferred, actuals from the window or the history', async () => {
    const res = await t.call('get', `/api/forecasts/${d.A}/origins/2026-02-02`, { token: planner });
    expect(res.status).toBe(200);
    expect(res.body.kinds).toEqual({ naive: 'window', ses: 'origin' });
    expect(res.body.forecasts.ses).toEqual([
      { ds: '2026-02-09', yhat: 11, yhat_lower: 9, yhat_upper: 13, actual: 12 },
      { ds: '2026-02-16', yhat: 11, yhat_lower: 9, yhat_upper: 13, actual: 10 },
      { ds: '2026-02-23', yhat: 11, yhat_lower: 9, yhat_upper: 13, actual: 12 },
    ]);
    expect(res.body.forecasts.naive).toEqual([
      { ds: '2026-02-09', yhat: 10, yhat_lower: 8, yhat_upper: 12, actual: 12 },
      { ds: '2026-02-16', yhat: 10, yhat_lower: 7, yhat_upper: 13, actual: 10 },
    ]);
    const windows = await t.call('get', `/api/forecasts/${d.A}/origins/2026-02-02`, { token: planner, query: { kind: 'window' } });
    expect(windows.body.kinds).toEqual({ naive: 'window', ses: 'window' });
    expect(windows.body.forecasts.ses.map((p: any) => p.yhat)).toEqual([11, 11]);
  });

  test('400 for a malformed date or a non-Monday, 404 for an unknown origin', async () => {
    const malformed = await t.call('get', `/api/forecasts/${d.A}/origins/2026-02-30`, { token: planner });
    expect([malformed.status, malformed.body.detail]).toEqual([400, 'path.origin_date must match format "date"']);
    const words = await t.call('get', `/api/forecasts/${d.A}/origins/yesterday`, { token: planner });
    expect(words.status).toBe(400);
    const tuesday = await t.call('get', `/api/forecasts/${d.A}/origins/2026-02-03`, { token: planner });
    expect([tuesday.status, tuesday.body.detail]).toEqual([400, 'path.origin_date: 2026-02-03 is not a Monday (origins are week starts)']);
    const unknown = await t.call('get', `/api/forecasts/${d.A}/origins/2026-01-05`, { token: planner });
    expect([unknown.status, unknown.body.detail]).toEqual([404, `Series ${d.A} has no backtest forecast at origin 2026-01-05 in pipeline 0`]);
    expect((await t.call('get', `/api/forecasts/${d.A}/origins/2026-02-02`, { token: restricted })).status).toBe(403);
  });
});

describe('POST /api/sparklines', () => {
  test('the last weeks of history up to the tenant\'s latest week; closed weeks null; unknown ids omitted', async () => {
    const res = await t.call('post', '/api/sparklines', { token: planner, body: { unique_ids: [d.A, d.C, '999999_1'], weeks: 4 } });
    expect(res.body).toEqual({
      [d.A]: [['2026-02-02', 10], ['2026-02-09', 12], ['2026-02-16', 10], ['2026-02-23', 12]],
      [d.C]: [['2026-02-02', 1], ['2026-02-09', 1], ['2026-02-16', null], ['2026-02-23', 1]],
    });
    const corrected = await t.call('post', '/api/sparklines', { token: planner, body: { unique_ids: [d.A, d.B], weeks: 2, values: 'corrected' } });
    expect(corrected.body).toEqual({ [d.A]: [['2026-02-16', 10], ['2026-02-23', 12]], [d.B]: [['2026-02-16', 0], ['2026-02-23', 0]] });
    const correctedWeek = await t.call('post', '/api/sparklines', { token: planner, body: { unique_ids: [d.A], weeks: 3, values: 'corrected' } });
    expect(correctedWeek.body[d.A]).toEqual([['2026-02-09', 11], ['2026-02-16', 10], ['2026-02-23', 12]]);
    const full = await t.call('post', '/api/sparklines', { token: planner, body: { unique_ids: [d.B] } });
    expect(full.body[d.B].map((p: [string, number]) => p[1])).toEqual([0, 5, 0, 0, 0, 5, 0, 0]);
  });

  test('series outside the caller\'s segments are omitted; limits and bad ids are 400s', async () => {
    expect(Object.keys((await t.call('post', '/api/sparklines', { token: restricted, body: { unique_ids: [d.A, d.B], weeks: 1 } })).body)).toEqual([d.B]);
    const tooMany = await t.call('post', '/api/sparklines', { token: planner, body: { unique_ids: Array.from({ length: 1001 }, (_, i) => `${i + 1}_1`) } });
    expect([tooMany.status, tooMany.body.detail]).toEqual([400, 'body.unique_ids must NOT have more than 1000 items']);
    const bad = await t.call('post', '/api/sparklines', { token: planner, body: { unique_ids: ['x'] } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'body.unique_ids[0] must match pattern "^[1-9][0-9]{0,8}_[1-9][0-9]{0,8}$"']);
    expect((await t.call('post', '/api/sparklines', { token: planner, body: {} })).body.detail).toBe('body.unique_ids is required');
    expect((await t.call('post', '/api/sparklines', { token: planner, body: { unique_ids: [d.A], weeks: 0 } })).body.detail).toBe('body.weeks must be >= 1');
  });

  test('audited as a read with the id count, not the ids', async () => {
    await t.call('post', '/api/sparklines', { token: planner, body: { unique_ids: [d.A, d.B, d.C], weeks: 2 } });
    const row = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`
      SELECT entity_type, action, new_value, outcome FROM audit_log WHERE path = '/api/sparklines' ORDER BY id DESC LIMIT 1`));
    expect(row).toEqual({ entity_type: 'sparklines', action: 'read', new_value: { unique_ids: 3, weeks: 2, values: 'actual', pipeline_id: 0 }, outcome: 'success' });
  });
});

describe('GET /api/best-methods', () => {
  test('counts per best method in the scope; segment permissions filter', async () => {
    expect((await t.call('get', '/api/best-methods', { token: planner })).body).toEqual({ method_counts: { croston: 1, ses: 1 }, total_series: 2, series_in_scope: 3, pipeline_id: 0 });
    expect((await t.call('get', '/api/best-methods', { token: planner, query: { pipeline_id: p2 } })).body).toMatchObject({ method_counts: { theta: 2 }, total_series: 2 });
    expect((await t.call('get', '/api/best-methods', { token: planner, query: { scenario_id: s1 } })).body).toMatchObject({ method_counts: { theta: 2 }, pipeline_id: p2 });
    expect((await t.call('get', '/api/best-methods', { token: restricted })).body).toEqual({ method_counts: { croston: 1 }, total_series: 1, series_in_scope: 1, pipeline_id: 0 });
    const res = await t.call('get', '/api/best-methods', { token: planner, query: { pipeline_id: 424242 } });
    expect([res.status, res.body.detail]).toEqual([404, 'pipeline_id: pipeline 424242 not found']);
  });
});

describe('POST /api/methods/check-compatibility', () => {
  test('a short intermittent history: the rules of the forecast step, with reasons', async () => {
    const res = await t.call('post', '/api/methods/check-compatibility', { token: planner, body: { n_observations: 8, zero_ratio: 0.75, season_length: 52 } });
    expect(res.status).toBe(200);
    expect(res.body.characteristics).toEqual({ n_observations: 8, season_length: 52, n_nonzero: 2, is_intermittent: true, has_seasonality: false, has_trend: false });
    expect(res.body.compatible).toEqual(['naive', 'drift', 'moving_average', 'ses', 'holt', 'damped_trend', 'ets', 'theta', 'optimized_theta', 'croston', 'sba', 'tsb', 'adida', 'imapa', 'combination']);
    expect(res.body.incompatible).toEqual([
      { method: 'seasonal_naive', reason: 'seasonal_naive needs one full period (52 observations), got 8' },
      { method: 'holt_winters', reason: 'holt_winters needs two full periods (104 observations), got 8' },
      { method: 'arima', reason: 'arima needs at least 10 observations, got 8' },
    ]);
    expect(res.body.recommended).toEqual(['naive', 'moving_average', 'croston', 'sba', 'tsb', 'adida', 'combination']);
  });

  test('a long seasonal trended history; a method subset', async () => {
    const res = await t.call('post', '/api/methods/check-compatibility', {
      token: planner, body: { n_observations: 156, demand_class: 'smooth', has_seasonality: true, has_trend: true, methods: ['holt_winters', 'croston', 'arima'], n_nonzero: 1 },
    });
    expect(res.body).toEqual({
      characteristics: { n_observations: 156, season_length: 52, n_nonzero: 1, is_intermittent: false, has_seasonality: true, has_trend: true },
      compatible: ['holt_winters', 'arima'],
      incompatible: [{ method: 'croston', reason: 'croston needs at least 2 non-zero demands, got 1' }],
      recommended: ['holt_winters', 'arima'],
    });
  });

  test('bad input is a 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'body.n_observations is required'],
      [{ n_observations: -1 }, 'body.n_observations must be >= 0'],
      [{ n_observations: 'ten' }, 'body.n_observations must be integer'],
      [{ n_observations: 10, zero_ratio: 2 }, 'body.zero_ratio must be <= 1'],
      [{ n_observations: 10, demand_class: 'weird' }, 'body.demand_class must be one of: smooth, erratic, intermittent, lumpy'],
      [{ n_observations: 10, methods: ['magic'] }, `body.methods[0] must be one of: ${ALL_METHODS.join(', ')}`],
      [{ n_observations: 10, demand_class: 'lumpy', is_intermittent: false }, 'body.is_intermittent must be true'],
      [{ n_observations: 10, demand_class: 'smooth', is_intermittent: true }, 'body.is_intermittent must be false'],
      [{ n_observations: 10, n_nonzero: 11 }, 'body.n_nonzero: 11 non-zero periods cannot exceed n_observations (10)'],
      [{ n_observations: 10, colour: 'red' }, "body: unknown field 'colour'"],
    ];
    for (const [body, detail] of cases) {
      const res = await t.call('post', '/api/methods/check-compatibility', { token: planner, body });
      expect([res.status, res.body.detail]).toEqual([400, detail]);
    }
  });
});

describe('GET /api/forecast/scenarios/{id}/results/summary', () => {
  test('per pipeline using the scenario, and totals', async () => {
    const res = await t.call('get', `/api/forecast/scenarios/${s1}/results/summary`, { token: planner });
    expect(res.status).toBe(200);
    const last = res.body.pipelines.map((p: any) => p.last_run_at);
    expect(last.every((x: string) => typeof x === 'string')).toBe(true);
    expect(res.body).toEqual({
      scenario_id: s1, scenario_name: 'S1', horizon_weeks: 2,
      pipelines: [
        { pipeline_id: p1, name: 'P1', series_forecasted: 1, methods_count: 1, methods: ['ets'], best_method_counts: { ets: 1 }, total_forecast_volume: 40, mean_backtest_score: 3, score_metrics: ['mase'], last_run_at: last[0] },
        { pipeline_id: p2, name: 'P2', series_forecasted: 2, methods_count: 1, methods: ['theta'], best_method_counts: { theta: 2 }, total_forecast_volume: 62, mean_backtest_score: 1.5, score_metrics: ['mase'], last_run_at: last[1] },
      ],
      series_forecasted: 3, methods_count: 2, best_method_counts: { ets: 1, theta: 2 }, total_forecast_volume: 102, mean_backtest_score: 2,
      last_run_at: [...last].sort().at(-1),
    });
  });

  test('pipeline 0 rows stored under a scenario no pipeline uses; segment scope; 404', async () => {
    const res = await t.call('get', `/api/forecast/scenarios/${s2}/results/summary`, { token: planner });
    expect(res.body.pipelines).toEqual([
      { pipeline_id: 0, name: null, series_forecasted: 1, methods_count: 1, methods: ['naive'], best_method_counts: { ses: 1 }, total_forecast_volume: 0, mean_backtest_score: 1, score_metrics: ['mae'], last_run_at: expect.any(String) },
    ]);
    const scoped = await t.call('get', `/api/forecast/scenarios/${s1}/results/summary`, { token: restricted });
    expect(scoped.body).toMatchObject({ series_forecasted: 1, best_method_counts: { theta: 1 }, total_forecast_volume: 2, mean_backtest_score: 2 });
    const fresh = (await t.call('post', '/api/forecast/scenarios', { token: planner, body: { name: 'Nothing ran' } })).body.id;
    expect((await t.call('get', `/api/forecast/scenarios/${fresh}/results/summary`, { token: planner })).body).toEqual({
      scenario_id: fresh, scenario_name: 'Nothing ran', horizon_weeks: 52, pipelines: [], series_forecasted: 0, methods_count: 0,
      best_method_counts: {}, total_forecast_volume: 0, mean_backtest_score: null, last_run_at: null,
    });
    const missing = await t.call('get', '/api/forecast/scenarios/999999/results/summary', { token: planner });
    expect([missing.status, missing.body.detail]).toEqual([404, 'Forecast scenario 999999 not found']);
  });
});

describe('on engine-generated results (test/support/forecastFixtures.ts)', () => {
  let token: string;
  let fx: ForecastFixture;
  beforeAll(async () => {
    const b = await t.newTenant('forecasts-fixture');
    token = await t.login(b.planner);
    fx = await writeForecastFixture(t.db, b.accountId, { methods: ['naive', 'ses', 'theta'] });
  });

  test('forecasts and metrics are the stored engine values', async () => {
    const res = await t.call('get', `/api/forecasts/${fx.unique_id}`, { token });
    expect(res.body.best_method).toBe(fx.best!.best_method);
    for (const [m, f] of Object.entries(fx.forecasts)) {
      expect(res.body.forecasts[m]).toEqual(f.yhat.map((v, i) => ({ ds: addWeeks(fx.forecastStart, i), yhat: v, yhat_lower: f.yhat_lower[i], yhat_upper: f.yhat_upper[i] })));
    }
    const metrics = await t.call('get', `/api/metrics/${fx.unique_id}`, { token });
    expect(metrics.body.metrics).toEqual(Object.fromEntries(Object.entries(fx.metrics).map(([m, x]) => [m, {
      mae: x.mae, rmse: x.rmse, mase: x.mase, bias: x.bias, coverage_90: x.coverage_90, smape: x.smape, origins_evaluated: x.origins_evaluated,
    }])));
    expect(metrics.body.metric).toBe('mase');
  });

  test('origins and the forecasts at an origin, with the closed week\'s actual null', async () => {
    const res = await t.call('get', `/api/forecasts/${fx.unique_id}/origins`, { token });
    expect(res.body.origins).toEqual(fx.origins.map((o) => ({ origin_date: o, kinds: ['origin', 'window'], methods: ['naive', 'ses', 'theta'] })));
    const first = fx.origins[0];
    const at = await t.call('get', `/api/forecasts/${fx.unique_id}/origins/${first}`, { token });
    expect(at.body.kinds).toEqual({ naive: 'origin', ses: 'origin', theta: 'origin' });
    const ses = fx.originForecasts.find((w) => w.method === 'ses' && w.origin === first)!;
    expect(at.body.forecasts.ses).toEqual(ses.yhat.map((v, i) => ({
      ds: addWeeks(first, i + 1), yhat: v, yhat_lower: ses.yhat_lower[i], yhat_upper: ses.yhat_upper[i], actual: ses.actual[i],
    })));
    // the first origin's first forecast week is the closed week 40 of DEFAULT_HISTORY
    expect(fx.y[40]).toBeNull();
    expect([at.body.forecasts.ses[0].ds, at.body.forecasts.ses[0].actual]).toEqual([fx.weeks[40], null]);
  });

  test('accuracy-precision of the fixture series follows the documented formulas', async () => {
    const best = fx.best!.best_method;
    const scored = fx.windows.filter((w) => w.method === best).flatMap((w) => w.yhat.map((f, i) => [f, w.actual[i]] as const)).filter(([, a]) => a !== null);
    const absErr = scored.reduce((s, [f, a]) => s + Math.abs(f - a!), 0);
    const absAct = scored.reduce((s, [, a]) => s + Math.abs(a!), 0);
    const f = fx.forecasts[best];
    const width = f.yhat_upper.reduce((s, u, i) => s + u - f.yhat_lower[i], 0);
    const level = Math.abs(f.yhat.reduce((s, v) => s + v, 0));
    const res = await t.call('get', '/api/analytics/accuracy-precision', { token });
    expect(res.body.points).toEqual([{
      unique_id: fx.unique_id, method: best,
      accuracy: expect.closeTo(Math.min(1, Math.max(0, 1 - absErr / absAct)), 10),
      precision: expect.closeTo(Math.min(1, Math.max(0, 1 - width / (2 * level))), 10),
    }]);
    const agg = await t.call('get', '/api/analytics/aggregate-demand', { token });
    expect(agg.body.forecast.map((p: any) => p.value)).toEqual(f.yhat.map((v) => expect.closeTo(v, 9)));
    expect(agg.body.historical).toEqual(fx.weeks.flatMap((w, i) => (fx.y[i] === null ? [] : [{ date: w, value: fx.y[i] }])));
  });
});
