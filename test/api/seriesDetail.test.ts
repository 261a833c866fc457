import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { addWeeks, mondayOf } from '../../domain/time/weeks';
import { correctedHistory, forecastConvergence, forecastEvolution } from '../../domain/series/detail';
import { setTenantParameter } from '../../db/parameters';
import { sql, withTenant } from '../../db/pool';
import { FORECAST_METHOD_NAMES } from '../../domain/parameters/defaults';
import { explainMethod, explanationMessages, improvementPct, type ExplanationFacts } from '../../domain/explain/methodExplanation';
import { buildVegaSpec } from '../../domain/charts/vegaSpec';
import { writeForecastFixture, type ForecastFixture } from '../support/forecastFixtures';
import { createPipeline } from '../support/jobs';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let planner: string;
let admin: string;
let plain: string;
let restricted: string;
let f: ForecastFixture; // everything computed, pipeline 0
let bare: ForecastFixture; // history only: no step has run
let pf: ForecastFixture; // the same item in a scenario pipeline, other results
let pipelineId: number;

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
/** what a value looks like after JSON (NaN → null) */
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const get = (path: string, token = plain, query?: Record<string, unknown>) => t.call('get', path, { token, query });

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('series-detail');
  planner = await t.login(a.planner);
  admin = await t.login(a.admin);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  f = await writeForecastFixture(t.db, a.accountId, { item: 'SD-1', site: 'DC1' });
  bare = await writeForecastFixture(t.db, a.accountId, {
    item: 'SD-2', site: 'DC1', outliers: false, characteristics: false, forecasts: false, backtest: false, bestMethod: false, distribution: false,
  });
  pipelineId = await createPipeline(t, admin, 'what-if');
  pf = await writeForecastFixture(t.db, a.accountId, { item: 'SD-1', site: 'DC1', pipelineId, outliers: 'iqr', methods: ['naive', 'ses'], metric: 'mae' });
  const segmentId = await withTenant(t.db, a.accountId, async (tx) => {
    const id = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('only SD-2') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${id}, ${bare.item_id}, ${bare.site_id})`);
    return id;
  });
  restricted = await t.login(await t.addUser(a.accountId, { role: 'user', can_create_override: true, allowed_segments: [segmentId] }));
});
afterAll(() => t.close());

const READS = ['data', 'distributions', 'outliers', 'best-method', 'method-explanation', 'forecast-evolution', 'forecast-convergence', 'backtest-forecasts', 'vega-spec'];

describe('pure helpers', () => {
  test('mondayOf snaps any day to the Monday of its ISO week; addWeeks steps by 7 days', () => {
    expect(['2026-03-02', '2026-03-04', '2026-03-08', '2026-03-09'].map(mondayOf)).toEqual(['2026-03-02', '2026-03-02', '2026-03-02', '2026-03-09']);
    expect(addWeeks('2025-12-29', 1)).toBe('2026-01-05');
  });

  test('correctedHistory: a manual correction wins over the outlier step, which wins over y; closed weeks stay null', () => {
    const h = [{ ds: '2026-01-05', y: 10 }, { ds: '2026-01-12', y: 90 }, { ds: '2026-01-19', y: null }, { ds: '2026-01-26', y: 12 }];
    const out = { start_week: '2026-01-05', values: [10, 11, null, 12] };
    expect(correctedHistory(h, out, [{ ds: '2026-01-26', corrected_y: 5 }])).toEqual([
      { ds: '2026-01-05', y: 10, corrected_y: 10, correction: null },
      { ds: '2026-01-12', y: 90, corrected_y: 11, correction: 'outlier' },
      { ds: '2026-01-19', y: null, corrected_y: null, correction: null },
      { ds: '2026-01-26', y: 12, corrected_y: 5, correction: 'adjustment' },
    ]);
  });

  test('evolution groups forecasts by target week; convergence scores them by lead where actuals are known', () => {
    const fc = [
      { origin: '2026-01-05', current: false, yhat: [10, 11], yhat_lower: [8, 8], yhat_upper: [12, 14] },
      { origin: '2026-01-12', current: true, yhat: [13, 14], yhat_lower: [9, 9], yhat_upper: [15, 17] },
    ];
    const actual = (ds: string) => ({ '2026-01-12': 12, '2026-01-19': 15 } as Record<string, number>)[ds] ?? null;
    const ev = forecastEvolution(fc, actual);
    expect(ev.origins).toEqual([
      { origin: '2026-01-05', current: false, first_week: '2026-01-12', last_week: '2026-01-19', weeks: 2 },
      { origin: '2026-01-12', current: true, first_week: '2026-01-19', last_week: '2026-01-26', weeks: 2 },
    ]);
    expect(ev.targets[1]).toEqual({
      ds: '2026-01-19', actual: 15, forecasts: [
        { origin: '2026-01-05', lead_weeks: 2, yhat: 11, yhat_lower: 8, yhat_upper: 14, current: false },
        { origin: '2026-01-12', lead_weeks: 1, yhat: 13, yhat_lower: 9, yhat_upper: 15, current: true },
      ],
    });
    expect(ev.targets.map((x) => [x.ds, x.actual])).toEqual([['2026-01-12', 12], ['2026-01-19', 15], ['2026-01-26', null]]);
    expect(forecastConvergence(fc, actual)).toEqual([
      { lead_weeks: 1, n: 2, mae: 2, bias: -2, points: [{ origin: '2026-01-05', ds: '2026-01-12', yhat: 10, actual: 12, error: -2 }, { origin: '2026-01-12', ds: '2026-01-19', yhat: 13, actual: 15, error: -2 }] },
      { lead_weeks: 2, n: 1, mae: 4, bias: -4, points: [{ origin: '2026-01-05', ds: '2026-01-19', yhat: 11, actual: 15, error: -4 }] },
    ]);
  });

  test('the deterministic explanation states class, ADI, CV², season, trend and the margin over the runner-up', () => {
    const facts: ExplanationFacts = {
      unique_id: '7_2', pipeline_id: 0, best_method: 'croston', runner_up_method: 'ses', metric: 'mase', best_score: 0.8, runner_up_score: 1,
      improvement_pct: improvementPct('mase', 0.8, 1), methods_compared: 5, locked: false, locked_method: null, locked_by: null,
      characteristics: {
        demand_class: 'intermittent', n_observations: 104, mean: 1.5, adi: 2.5, cv2: 0.3, zero_ratio: 0.6, has_seasonality: false, seasonal_period: 52,
        has_trend: true, trend_direction: -1, complexity_level: 'medium',
      },
      best_metrics: { mae: 1.25, rmse: 1.5, mase: 0.8, bias: -0.2, coverage_90: 0.875, origins_evaluated: 4 },
      runner_up_metrics: { mae: 1.6, rmse: 1.9, mase: 1, bias: 0.4, coverage_90: 0.8, origins_evaluated: 4 },
    };
    expect(facts.improvement_pct).toBeCloseTo(20, 10);
    expect(explainMethod(facts)).toBe(
      'The demand of series 7_2 is intermittent (many weeks without demand, with stable sizes): over 104 weeks of history it has an average demand interval (ADI) of 2.50 weeks (above the 1.32 cut-off) and a squared coefficient of variation of demand sizes (CV²) of 0.30 (at or below 0.49), and 60 % of its weeks have no demand. ' +
      'No seasonal pattern was detected, and a downward trend was detected. ' +
      "The method chosen is croston: Croston's method (demand sizes and intervals between demands smoothed separately). " +
      'In the backtest over 4 rolling origins, croston had the lowest mean absolute scaled error (MASE) of the 5 methods compared: 0.800 against 1.000 for the runner-up, ses, 20.0 % lower. ' +
      'Its forecasts missed actual demand by 1.25 units a week on average (mean absolute error), against 1.60 for ses. ' +
      'It showed a tendency to under-forecast by 0.20 units a week, and its 90 % prediction interval contained 88 % of the actual weeks.',
    );
    const locked = explainMethod({ ...facts, locked: true, locked_method: 'croston', locked_by: 'p@example.com', characteristics: null });
    expect(locked).toMatch(/^Series 7_2 has not been characterised yet, so only the backtest explains the choice\. croston is used because a planner locked it \(p@example\.com\), whatever the backtest scores\./);
    expect(explainMethod({ ...facts, locked_method: 'ses' })).toMatch(/ ses has been locked since the last run; it will be used from the next forecast run\.$/);
    expect(improvementPct('bias', -0.5, 1)).toBe(50);
    const msgs = explanationMessages(facts);
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user']);
    expect(msgs[1].content).toContain('"best_method": "croston"');
    expect(msgs[1].content).toContain(`Draft explanation:\n${explainMethod(facts)}`);
  });
});

describe('GET /api/series/{unique_id}/data', () => {
  test('weekly history with the outlier correction; closed weeks are null', async () => {
    const res = await get(`/api/series/${f.unique_id}/data`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(52);
    expect(res.body[0]).toEqual({ ds: '2025-01-06', y: f.y[0], corrected_y: f.y[0], correction: null });
    // the spike of week 30 is flagged and corrected by the Hampel filter
    const spike = f.outliers!.points.find((p) => p.ds === f.weeks[30])!;
    expect(spike).toMatchObject({ y: 90, direction: 'up' });
    expect(res.body[30]).toEqual({ ds: f.weeks[30], y: 90, corrected_y: spike.corrected_y, correction: 'outlier' });
    expect(spike.corrected_y).toBeLessThan(30);
    expect(res.body[40]).toEqual({ ds: '2025-10-13', y: null, corrected_y: null, correction: null });
    expect(res.body.map((p: any) => p.corrected_y)).toEqual(f.corrected);
  });

  test('pipeline_id selects the pipeline\'s outlier result; an unknown pipeline is a 404', async () => {
    const res = await get(`/api/series/${f.unique_id}/data`, plain, { pipeline_id: pipelineId });
    expect(res.body.map((p: any) => p.corrected_y)).toEqual(pf.corrected);
    expect(pf.outliers!.method).toBe('iqr');
    const missing = await get(`/api/series/${f.unique_id}/data`, plain, { pipeline_id: 987654 });
    expect([missing.status, missing.body]).toEqual([404, { detail: 'pipeline_id: pipeline 987654 not found' }]);
    const bad = await get(`/api/series/${f.unique_id}/data`, plain, { pipeline_id: -1 });
    expect([bad.status, bad.body]).toEqual([400, { detail: 'query.pipeline_id must be >= 0' }]);
  });

  test('a series without results still has its history', async () => {
    const res = await get(`/api/series/${bare.unique_id}/data`);
    expect(res.body.map((p: any) => [p.y, p.corrected_y])).toEqual(bare.y.map((v) => [v, v]));
  });
});

describe('distributions, outliers, best method', () => {
  test('the fitted distribution with its candidates; 404 when not fitted yet', async () => {
    const res = await get(`/api/series/${f.unique_id}/distributions`);
    const d = f.distribution!;
    expect(res.body).toEqual(json({
      unique_id: f.unique_id, pipeline_id: 0, distribution_type: d.best.distribution_type, mean: d.best.mean, std: d.best.std, params: d.best.params,
      ks_statistic: d.best.ks_statistic, ks_pvalue: d.best.ks_pvalue, service_level_quantiles: d.best.service_level_quantiles, candidates: d.candidates,
      basis: 'weekly', lead_time_weeks: null, n: 51, updated_at: res.body.updated_at,
    }));
    expect(Object.keys(res.body.service_level_quantiles)).toEqual(['0.5', '0.8', '0.9', '0.95', '0.98', '0.99']);
    expect(res.body.service_level_quantiles['0.99']).toBeGreaterThan(res.body.service_level_quantiles['0.5']);
    const none = await get(`/api/series/${bare.unique_id}/distributions`);
    expect([none.status, none.body]).toEqual([404, { detail: `Series ${bare.unique_id} has no fitted distribution for pipeline 0 (runs outside any pipeline) yet (run the distribution step)` }]);
  });

  test('the detected outliers; 404 when the step has not run', async () => {
    const res = await get(`/api/series/${f.unique_id}/outliers`);
    expect(res.body).toEqual({
      unique_id: f.unique_id, pipeline_id: 0, method: 'hampel', params: { method: 'hampel', window: 6, threshold: 3, correction: 'median' },
      n_outliers: f.outliers!.points.length, points: json(f.outliers!.points), start_week: '2025-01-06', updated_at: ts,
    });
    expect(res.body.points.map((p: any) => p.ds)).toContain(f.weeks[30]);
    const p = await get(`/api/series/${f.unique_id}/outliers`, plain, { pipeline_id: pipelineId });
    expect([p.body.method, p.body.points]).toEqual(['iqr', json(pf.outliers!.points)]);
    const none = await get(`/api/series/${bare.unique_id}/outliers`);
    expect([none.status, none.body.detail]).toEqual([404, `Series ${bare.unique_id} has no outlier detection for pipeline 0 (runs outside any pipeline) yet (run the outlier step)`]);
  });

  test('the best method with runner-up, score and ranking, per pipeline', async () => {
    const res = await get(`/api/series/${f.unique_id}/best-method`);
    const b = f.best!;
    expect(res.body).toEqual({
      unique_id: f.unique_id, pipeline_id: 0, best_method: b.best_method, runner_up_method: b.runner_up_method, best_score: b.best_score, metric: 'mase',
      locked: false, locked_method: null, locked_by: null, ranking: b.ranking, reason: 'lowest mase over 3 backtest origins', updated_at: ts,
    });
    expect(b.ranking).toHaveLength(4);
    expect(b.best_score).toBe(f.metrics[b.best_method].mase);
    expect(b.best_score).toBeLessThanOrEqual(f.metrics[b.runner_up_method!].mase);
    const p = await get(`/api/series/${f.unique_id}/best-method`, plain, { pipeline_id: pipelineId });
    expect([p.body.metric, p.body.best_method, p.body.best_score]).toEqual(['mae', pf.best!.best_method, pf.metrics[pf.best!.best_method].mae]);
    const none = await get(`/api/series/${bare.unique_id}/best-method`);
    expect([none.status, none.body.detail]).toEqual([404, `Series ${bare.unique_id} has no best method for pipeline 0 (runs outside any pipeline) yet (run the best-method step)`]);
  });
});

describe('locked method', () => {
  const put = (uid: string, body: unknown, token = planner) => t.call('put', `/api/series/${uid}/locked-method`, { token, body });

  test('method must be a forecasting method; the permission and the segments are checked', async () => {
    const bad = await put(f.unique_id, { method: 'magic' });
    expect([bad.status, bad.body.detail]).toEqual([400, `body.method must be one of: ${FORECAST_METHOD_NAMES.join(', ')}`]);
    expect((await put(f.unique_id, {})).body.detail).toBe('body.method is required');
    const denied = await put(f.unique_id, { method: 'ses' }, plain);
    expect([denied.status, denied.body.detail]).toEqual([403, 'Permission can_create_override required for overrides and locked methods']);
    const outside = await put(f.unique_id, { method: 'ses' }, restricted);
    expect(outside.status).toBe(403);
    expect(outside.body.detail).toMatch(new RegExp(`^Access to series ${f.unique_id} denied`));
    const unknown = await put('999999_1', { method: 'ses' });
    expect([unknown.status, unknown.body.detail]).toEqual([404, 'Series 999999_1 not found (item 999999, site 1)']);
  });

  test('PUT locks (audited), best-method shows it, DELETE removes it, a second DELETE is a 404', async () => {
    const res = await put(f.unique_id, { method: 'croston' });
    expect(res.body).toEqual({ unique_id: f.unique_id, item_id: f.item_id, site_id: f.site_id, method: 'croston', locked_by: a.planner.email, locked_at: ts, previous_method: null });
    const again = await put(f.unique_id, { method: 'theta' }, admin);
    expect([again.body.method, again.body.previous_method, again.body.locked_by]).toEqual(['theta', 'croston', a.admin.email]);
    const best = await get(`/api/series/${f.unique_id}/best-method`);
    expect([best.body.best_method, best.body.locked, best.body.locked_method, best.body.locked_by]).toEqual([f.best!.best_method, false, 'theta', a.admin.email]);
    const audit = await withTenant(t.db, a.accountId, (tx) =>
      tx.any(sql.unsafe`SELECT entity_id, action, old_value, new_value FROM audit_log WHERE entity_type = 'locked_method' AND outcome = 'success' ORDER BY id`));
    expect(audit).toEqual([
      { entity_id: f.unique_id, action: 'update', old_value: null, new_value: { method: 'croston' } },
      { entity_id: f.unique_id, action: 'update', old_value: { method: 'croston', locked_by: a.planner.email }, new_value: { method: 'theta' } },
    ]);
    const del = await t.call('delete', `/api/series/${f.unique_id}/locked-method`, { token: planner });
    expect(del.body).toEqual({ status: 'deleted', unique_id: f.unique_id, method: 'theta' });
    const del2 = await t.call('delete', `/api/series/${f.unique_id}/locked-method`, { token: planner });
    expect([del2.status, del2.body.detail]).toEqual([404, `Series ${f.unique_id} has no locked method`]);
    expect((await t.call('delete', `/api/series/${f.unique_id}/locked-method`, { token: plain })).status).toBe(403);
  });

  test('a choice the best-method step made under a lock says so, with the backtest of the locked method', async () => {
    const l = await writeForecastFixture(t.db, a.accountId, { item: 'SD-LOCK', site: 'DC1', locked: 'naive' });
    const best = await get(`/api/series/${l.unique_id}/best-method`);
    expect(best.body).toMatchObject({
      best_method: 'naive', locked: true, locked_method: 'naive', locked_by: 'fixture@example.com', best_score: l.metrics.naive.mase,
      runner_up_method: l.best!.ranking[1].method, reason: 'locked by a planner (naive)',
    });
    const ex = await get(`/api/series/${l.unique_id}/method-explanation`);
    expect(ex.body.facts).toMatchObject({ locked: true, locked_method: 'naive', best_metrics: { ...pick(l.metrics.naive), origins_evaluated: 3 } });
    expect(ex.body.explanation).toContain('naive is used because a planner locked it (fixture@example.com), whatever the backtest scores.');
    expect(ex.body.explanation).not.toContain('has been locked since the last run');
    const [lockedScore, other] = [l.metrics.naive.mase, l.best!.ranking[1]];
    const diff = ((other.score - lockedScore) / other.score) * 100;
    expect(ex.body.explanation).toContain(
      `In the backtest over 3 rolling origins, naive scored a mean absolute scaled error (MASE) of ${lockedScore.toFixed(3)} against ${other.score.toFixed(3)} for ${other.method}, the best of the other methods, ${Math.abs(diff).toFixed(1)} % ${diff > 0 ? 'lower' : 'higher'}.`,
    );
  });

  test('a lock without a stored choice is answered by best-method and method-explanation', async () => {
    await put(bare.unique_id, { method: 'sba' }, restricted);
    const best = await get(`/api/series/${bare.unique_id}/best-method`);
    expect(best.body).toEqual({
      unique_id: bare.unique_id, pipeline_id: 0, best_method: 'sba', runner_up_method: null, best_score: null, metric: null, locked: true,
      locked_method: 'sba', locked_by: expect.stringMatching(/@example\.com$/), ranking: [], updated_at: ts,
      reason: `locked by ${best.body.locked_by}; the best-method step has not run for this series yet`,
    });
    const ex = await get(`/api/series/${bare.unique_id}/method-explanation`);
    expect(ex.body.source).toBe('deterministic');
    expect(ex.body.explanation).toBe(
      `Series ${bare.unique_id} has not been characterised yet, so only the backtest explains the choice. sba is used because a planner locked it (${best.body.locked_by}), whatever the backtest scores. No backtest ranked the methods for this series (too little history), so sba was chosen by default.`,
    );
    expect((await t.call('delete', `/api/series/${bare.unique_id}/locked-method`, { token: restricted })).status).toBe(200);
  });
});

describe('GET /api/series/{unique_id}/method-explanation', () => {
  test('deterministic without a language model, from the characterisation and the backtest', async () => {
    const res = await get(`/api/series/${f.unique_id}/method-explanation`);
    const b = f.best!;
    const c = f.characteristics!;
    const runner = b.ranking[1];
    expect(res.body).toMatchObject({ unique_id: f.unique_id, pipeline_id: 0, best_method: b.best_method, source: 'deterministic', warning: null });
    expect(res.body.facts).toEqual(json({
      unique_id: f.unique_id, pipeline_id: 0, best_method: b.best_method, runner_up_method: runner.method, metric: 'mase', best_score: b.best_score,
      runner_up_score: runner.score, improvement_pct: ((runner.score - b.best_score) / runner.score) * 100, methods_compared: 4, locked: false,
      locked_method: null, locked_by: null,
      characteristics: {
        demand_class: c.demand_class, n_observations: 51, mean: c.mean, adi: c.adi, cv2: c.cv2, zero_ratio: c.zero_ratio, has_seasonality: c.has_seasonality,
        seasonal_period: 52, has_trend: c.has_trend, trend_direction: c.trend_z > 0 ? 1 : c.trend_z < 0 ? -1 : null, complexity_level: c.complexity_level,
      },
      best_metrics: { ...pick(f.metrics[b.best_method]), origins_evaluated: 3 },
      runner_up_metrics: { ...pick(f.metrics[runner.method]), origins_evaluated: 3 },
    }));
    expect(c.demand_class).toBe('smooth');
    expect(res.body.explanation).toBe(explainMethod(res.body.facts));
    expect(res.body.explanation).toContain(`The demand of series ${f.unique_id} is smooth (demand almost every week, with stable sizes): over 51 weeks of history it has an average demand interval (ADI) of 1.00 weeks (at or below the 1.32 cut-off)`);
    expect(res.body.explanation).toContain(
      `In the backtest over 3 rolling origins, ${b.best_method} had the lowest mean absolute scaled error (MASE) of the 4 methods compared: ${b.best_score.toFixed(3)} against ${runner.score.toFixed(3)} for the runner-up, ${runner.method}`,
    );
    const none = await get(`/api/series/${bare.unique_id}/method-explanation`);
    expect([none.status, none.body.detail]).toEqual([404, `Series ${bare.unique_id} has no best method for pipeline 0 (runs outside any pipeline) yet (run the best-method step)`]);
  });

  describe('through a language model (a local fake speaking chat completions)', () => {
    let server: http.Server;
    let seen: any;
    let reply: string;
    let tenant: TestTenant;
    let token: string;
    let g: ForecastFixture;
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          seen = { url: req.url, auth: req.headers.authorization, body: JSON.parse(body) };
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({
            id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: seen.body.model,
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply } }],
          }));
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      tenant = await t.newTenant('explain-llm');
      token = await t.login(tenant.planner);
      g = await writeForecastFixture(t.db, tenant.accountId, { item: 'L-1', site: 'DC1' });
      await withTenant(t.db, tenant.accountId, async (tx) => {
        await setTenantParameter(tx, 'llm', 'base_url', `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
        await setTenantParameter(tx, 'llm', 'model', 'tiny-test-model');
        await setTenantParameter(tx, 'llm', 'api_key', 'sk-test');
      });
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    test("the model's text is returned; the prompt carries the facts and the deterministic draft", async () => {
      reply = '```\nSES wins because the demand is steady.\n```';
      const res = await get(`/api/series/${g.unique_id}/method-explanation`, token);
      expect(res.body).toMatchObject({ source: 'llm', explanation: 'SES wins because the demand is steady.', warning: null, best_method: g.best!.best_method });
      expect(seen.url).toBe('/v1/chat/completions');
      expect(seen.auth).toBe('Bearer sk-test');
      expect(seen.body.model).toBe('tiny-test-model');
      expect(seen.body.response_format).toBeUndefined();
      expect(seen.body.messages).toEqual(explanationMessages(res.body.facts));
      expect(seen.body.messages[1].content).toContain(`"best_score": ${g.best!.best_score}`);
    });

    test('an empty answer or an unreachable model falls back to the deterministic text with a warning', async () => {
      reply = '   ';
      const empty = await get(`/api/series/${g.unique_id}/method-explanation`, token);
      expect(empty.body).toMatchObject({ source: 'deterministic', warning: 'language model unavailable (the model returned no content); deterministic explanation given' });
      expect(empty.body.explanation).toBe(explainMethod(empty.body.facts));
      await withTenant(t.db, tenant.accountId, (tx) => setTenantParameter(tx, 'llm', 'base_url', 'http://127.0.0.1:9/v1'));
      const down = await get(`/api/series/${g.unique_id}/method-explanation`, token);
      expect(down.body.source).toBe('deterministic');
      expect(down.body.warning).toMatch(/^language model unavailable \(.+\); deterministic explanation given$/);
      expect(down.body.explanation).toBe(empty.body.explanation);
    });
  });
});

const pick = (m: { mae: number; rmse: number; mase: number; bias: number; coverage_90: number }) => ({ mae: m.mae, rmse: m.rmse, mase: m.mase, bias: m.bias, coverage_90: m.coverage_90 });

describe('forecast evolution and convergence', () => {
  test('evolution: every forecast of each target week, from each origin and the current forecast', async () => {
    const best = f.best!.best_method;
    const res = await get(`/api/series/${f.unique_id}/forecast-evolution`);
    expect(res.status).toBe(200);
    expect(res.body.method).toBe(best);
    expect(f.origins).toEqual([f.weeks[39], f.weeks[43], f.weeks[47]]);
    expect(res.body.origins).toEqual([
      ...f.origins.map((o) => ({ origin: o, current: false, first_week: addWeeks(o, 1), last_week: addWeeks(o, 13), weeks: 13 })),
      { origin: f.weeks[51], current: true, first_week: f.forecastStart, last_week: addWeeks(f.forecastStart, 12), weeks: 13 },
    ]);
    const of = (o: number) => f.originForecasts.find((x) => x.method === best && x.origin === f.weeks[o])!;
    // the last history week: forecast 12, 8 and 4 weeks ahead, actual known
    const last = res.body.targets.find((x: any) => x.ds === f.weeks[51]);
    expect(last).toEqual({
      ds: f.weeks[51], actual: f.y[51],
      forecasts: [[39, 12], [43, 8], [47, 4]].map(([o, lead]) => ({
        origin: f.weeks[o], lead_weeks: lead, yhat: of(o).yhat[lead - 1], yhat_lower: of(o).yhat_lower[lead - 1], yhat_upper: of(o).yhat_upper[lead - 1], current: false,
      })),
    });
    // the first forecast week: three past origins and the current forecast, no actual yet
    const next = res.body.targets.find((x: any) => x.ds === f.forecastStart);
    expect(next.actual).toBeNull();
    expect(next.forecasts.map((x: any) => [x.origin, x.lead_weeks, x.current])).toEqual([[f.weeks[39], 13], [f.weeks[43], 9], [f.weeks[47], 5]].map((x) => [...x, false]).concat([[f.weeks[51], 1, true]]));
    expect(next.forecasts[3].yhat).toBe(f.forecasts[best].yhat[0]);
    // the closed week 40 has no actual
    expect(res.body.targets[0]).toMatchObject({ ds: f.weeks[40], actual: null });
    // weeks 40 to 64: the oldest origin's first week to the current forecast's last
    expect(res.body.targets).toHaveLength(25);
    expect(res.body.targets[24].ds).toBe(addWeeks(f.forecastStart, 12));
  });

  test('evolution of a chosen method; a method without forecasts is a 404, an unknown one a 400', async () => {
    const res = await get(`/api/series/${f.unique_id}/forecast-evolution`, plain, { method: 'naive' });
    expect(res.body.method).toBe('naive');
    expect(res.body.targets.find((x: any) => x.ds === f.forecastStart).forecasts[3].yhat).toBe(f.forecasts.naive.yhat[0]);
    const none = await get(`/api/series/${f.unique_id}/forecast-evolution`, plain, { method: 'arima' });
    expect([none.status, none.body.detail]).toEqual([404, `Series ${f.unique_id} has no arima forecast for pipeline 0 (runs outside any pipeline) (run the forecast and backtest-forecast steps)`]);
    const bad = await get(`/api/series/${f.unique_id}/forecast-evolution`, plain, { method: 'magic' });
    expect([bad.status, bad.body.detail]).toEqual([400, `query.method must be one of: ${FORECAST_METHOD_NAMES.join(', ')}`]);
    const noBest = await get(`/api/series/${bare.unique_id}/forecast-convergence`);
    expect([noBest.status, noBest.body.detail]).toEqual([404, `Series ${bare.unique_id} has no best method for pipeline 0 (runs outside any pipeline) yet (run the best-method step) and no locked method; pass ?method=`]);
  });

  test('convergence: error by lead over the origins whose target week has an actual (closed week 40 excluded)', async () => {
    const best = f.best!.best_method;
    const res = await get(`/api/series/${f.unique_id}/forecast-convergence`);
    const leads = res.body.leads;
    expect(leads.map((l: any) => [l.lead_weeks, l.n])).toEqual([
      [1, 2], [2, 3], [3, 3], [4, 3], [5, 2], [6, 2], [7, 2], [8, 2], [9, 1], [10, 1], [11, 1], [12, 1],
    ]);
    const of = (o: number) => f.originForecasts.find((x) => x.method === best && x.origin === f.weeks[o])!;
    const e1 = [of(43).yhat[0] - f.y[44]!, of(47).yhat[0] - f.y[48]!];
    expect(leads[0]).toEqual({
      lead_weeks: 1, n: 2, mae: (Math.abs(e1[0]) + Math.abs(e1[1])) / 2, bias: (e1[0] + e1[1]) / 2,
      points: [
        { origin: f.weeks[43], ds: f.weeks[44], yhat: of(43).yhat[0], actual: f.y[44], error: e1[0] },
        { origin: f.weeks[47], ds: f.weeks[48], yhat: of(47).yhat[0], actual: f.y[48], error: e1[1] },
      ],
    });
    expect(leads[11].points).toEqual([{ origin: f.weeks[39], ds: f.weeks[51], yhat: of(39).yhat[11], actual: f.y[51], error: of(39).yhat[11] - f.y[51]! }]);
  });
});

describe('GET /api/series/{unique_id}/backtest-forecasts', () => {
  test('every window of every method with its actuals, oldest origin first', async () => {
    const res = await get(`/api/series/${f.unique_id}/backtest-forecasts`);
    expect(res.body).toMatchObject({ unique_id: f.unique_id, pipeline_id: 0, kind: 'window', methods: ['moving_average', 'naive', 'ses', 'theta'] });
    expect(res.body.windows).toHaveLength(12);
    expect(res.body.windows).toEqual(f.windows.map((w) => ({
      method: w.method, origin: w.origin,
      points: w.yhat.map((y, i) => ({ ds: addWeeks(w.origin, i + 1), yhat: y, yhat_lower: w.yhat_lower[i], yhat_upper: w.yhat_upper[i], actual: w.actual[i] })),
    })));
    expect(res.body.windows[0].points[0]).toMatchObject({ ds: f.weeks[40], actual: null });
    expect(res.body.windows[0].points[1].actual).toBe(f.y[41]);
  });

  test('kind=origin gives the full-horizon forecasts; method filters; a series without backtests has none', async () => {
    const res = await get(`/api/series/${f.unique_id}/backtest-forecasts`, plain, { kind: 'origin', method: 'ses' });
    expect(res.body.methods).toEqual(['ses']);
    expect(res.body.windows.map((w: any) => [w.origin, w.points.length])).toEqual(f.origins.map((o) => [o, 13]));
    const lastWindow = res.body.windows[2];
    expect(lastWindow.points.map((p: any) => p.actual)).toEqual([...f.y.slice(48, 52), ...Array(9).fill(null)]);
    const none = await get(`/api/series/${bare.unique_id}/backtest-forecasts`);
    expect(none.body).toEqual({ unique_id: bare.unique_id, pipeline_id: 0, kind: 'window', methods: [], windows: [] });
    const bad = await get(`/api/series/${f.unique_id}/backtest-forecasts`, plain, { kind: 'future' });
    expect([bad.status, bad.body.detail]).toEqual([400, 'query.kind must be one of: window, origin']);
  });
});

describe('GET /api/series/{unique_id}/vega-spec', () => {
  test('a Vega-Lite v5 spec of history, corrected history and the best forecast with its band', async () => {
    const best = f.best!.best_method;
    const res = await get(`/api/series/${f.unique_id}/vega-spec`);
    const spec = res.body;
    expect(Object.keys(spec).sort()).toEqual(['$schema', 'data', 'description', 'encoding', 'height', 'layer', 'title', 'width']);
    expect(spec.$schema).toBe('https://vega.github.io/schema/vega-lite/v5.json');
    expect(spec.encoding).toEqual({ x: { field: 'ds', type: 'temporal', title: 'week' } });
    const values = spec.data.values;
    expect(values).toHaveLength(52 + 52 + 13);
    expect(values[30]).toEqual({ ds: f.weeks[30], series: 'history', value: 90, lower: null, upper: null });
    expect(values[52 + 30]).toEqual({ ds: f.weeks[30], series: 'corrected history', value: f.corrected[30], lower: null, upper: null });
    expect(values[40]).toEqual({ ds: f.weeks[40], series: 'history', value: null, lower: null, upper: null });
    expect(values[104]).toEqual({ ds: f.forecastStart, series: `forecast: ${best}`, value: f.forecasts[best].yhat[0], lower: f.forecasts[best].yhat_lower[0], upper: f.forecasts[best].yhat_upper[0] });
    const [band, line] = spec.layer;
    expect(band.mark).toEqual({ type: 'area', opacity: 0.2 });
    expect(band.transform).toEqual([{ filter: 'isValid(datum.lower) && isValid(datum.upper)' }]);
    expect(band.encoding.y).toEqual({ field: 'lower', type: 'quantitative', title: 'demand' });
    expect(band.encoding.y2).toEqual({ field: 'upper' });
    expect(line.mark).toEqual({ type: 'line', point: false, strokeWidth: 1.5 });
    expect(line.encoding.y).toEqual({ field: 'value', type: 'quantitative', title: 'demand' });
    expect(line.encoding.color.scale.domain).toEqual(['history', 'corrected history', `forecast: ${best}`]);
    expect(line.encoding.color.scale.range).toHaveLength(3);
    expect(line.encoding.strokeDash.scale).toEqual({ domain: line.encoding.color.scale.domain, range: [[1, 0], [4, 2], [1, 0]] });
    expect(spec.description).toBe(`Weekly demand of series ${f.unique_id}: history, corrected history and forecasts with their 90 % prediction intervals`);
    // it is exactly the pure builder's output for the same rows
    expect(spec).toEqual(json(buildVegaSpec({
      unique_id: f.unique_id,
      history: f.y.map((y, i) => ({ ds: f.weeks[i], y, corrected_y: f.corrected[i] })),
      forecasts: [{ method: best, level: 0.9, points: f.forecasts[best].yhat.map((v, i) => ({ ds: addWeeks(f.forecastStart, i), yhat: v, yhat_lower: f.forecasts[best].yhat_lower[i], yhat_upper: f.forecasts[best].yhat_upper[i] })) }],
    })));
  });

  test('methods= draws several forecasts; one without a forecast is a 404; a series without a method draws its history', async () => {
    const res = await get(`/api/series/${f.unique_id}/vega-spec`, plain, { methods: 'ses,naive' });
    expect(res.body.layer[1].encoding.color.scale.domain).toEqual(['history', 'corrected history', 'forecast: ses', 'forecast: naive']);
    expect(res.body.data.values.filter((v: any) => v.series === 'forecast: naive').map((v: any) => v.value)).toEqual(f.forecasts.naive.yhat);
    const missing = await get(`/api/series/${f.unique_id}/vega-spec`, plain, { methods: 'ses,arima' });
    expect([missing.status, missing.body.detail]).toEqual([404, `query.methods: series ${f.unique_id} has no stored forecast for arima in pipeline 0 (runs outside any pipeline)`]);
    const bad = await get(`/api/series/${f.unique_id}/vega-spec`, plain, { methods: 'ses;drop' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/^query\.methods must match pattern/);
    const hist = await get(`/api/series/${bare.unique_id}/vega-spec`);
    expect(hist.body.data.values).toHaveLength(104);
    expect(hist.body.layer[1].encoding.color.scale.domain).toEqual(['history', 'corrected history']);
  });
});

describe('copy-forecast and adjustments', () => {
  const copy = (body: unknown, token = planner, uid = f.unique_id, query?: Record<string, unknown>) => t.call('post', `/api/series/${uid}/copy-forecast`, { token, body, query });

  test('bad periods and methods are 400s naming the field; no forecast is a 404; permission and segments are checked', async () => {
    const last = addWeeks(f.forecastStart, 12);
    const cases: Array<[unknown, number, string]> = [
      [{ method: 'magic', start: f.forecastStart, end: last }, 400, `body.method must be one of: ${FORECAST_METHOD_NAMES.join(', ')}`],
      [{ method: 'ses', start: last, end: f.forecastStart }, 400, `body.start: ${last} is after body.end (${f.forecastStart})`],
      [{ method: 'ses', start: f.weeks[51], end: last }, 400, `body.start: the week of ${f.weeks[51]} (${f.weeks[51]}) is before the first forecast week; the ses forecast covers the weeks ${f.forecastStart} to ${last}`],
      [{ method: 'ses', start: f.forecastStart, end: addWeeks(last, 1) }, 400, `body.end: the week of ${addWeeks(last, 1)} (${addWeeks(last, 1)}) is after the last forecast week; the ses forecast covers the weeks ${f.forecastStart} to ${last}`],
      [{ method: 'ses', start: '2026-02-30', end: last }, 400, 'body.start must match format "date"'],
      [{ method: 'ses', start: f.forecastStart }, 400, 'body.end is required'],
      [{ method: 'arima', start: f.forecastStart, end: last }, 404, `Series ${f.unique_id} has no arima forecast for pipeline 0 (runs outside any pipeline) (run the forecast step)`],
    ];
    for (const [body, status, detail] of cases) {
      const res = await copy(body);
      expect([res.status, res.body.detail]).toEqual([status, detail]);
    }
    const denied = await copy({ method: 'ses', start: f.forecastStart, end: last }, plain);
    expect([denied.status, denied.body.detail]).toEqual([403, 'Permission can_create_override required for overrides and locked methods']);
    expect((await copy({ method: 'ses', start: f.forecastStart, end: last }, restricted)).status).toBe(403);
    expect((await copy({ method: 'ses', start: f.forecastStart, end: last }, planner, '999999_1')).status).toBe(404);
  });

  test("copies the method's forecast of the weeks in [start, end] into corrections, and replaces them on a second copy", async () => {
    const start = addWeeks(f.forecastStart, 1);
    const res = await copy({ method: 'ses', start: mondayPlus(start, 2), end: addWeeks(start, 2) });
    expect(res.status).toBe(201);
    const expected = [0, 1, 2].map((i) => ({
      id: expect.any(Number), ds: addWeeks(start, i), corrected_y: Math.max(0, f.forecasts.ses.yhat[1 + i]), reason: 'copied from the ses forecast (pipeline 0)',
      source: 'copy_forecast', created_by: a.planner.email, created_at: ts,
    }));
    expect(res.body).toEqual({ unique_id: f.unique_id, pipeline_id: 0, method: 'ses', n_written: 3, n_replaced: 0, rows: expected });
    const list = await get(`/api/adjustments/${f.unique_id}`);
    expect(list.body).toEqual({ unique_id: f.unique_id, item_id: f.item_id, site_id: f.site_id, adjustments: expected });
    // the same weeks from another pipeline's forecast replace them
    const again = await copy({ method: 'naive', start, end: start }, planner, f.unique_id, { pipeline_id: pipelineId });
    expect(again.body).toMatchObject({ pipeline_id: pipelineId, n_written: 1, n_replaced: 1, rows: [{ ds: start, corrected_y: Math.max(0, pf.forecasts.naive.yhat[1]), reason: `copied from the naive forecast (pipeline ${pipelineId})` }] });
    const audit = await withTenant(t.db, a.accountId, (tx) =>
      tx.one(sql.unsafe`SELECT entity_id, action, old_value, new_value FROM audit_log WHERE entity_type = 'demand_adjustment' ORDER BY id DESC LIMIT 1`));
    expect(audit).toEqual({
      entity_id: f.unique_id, action: 'copy_forecast', old_value: [{ ds: start, corrected_y: Math.max(0, f.forecasts.ses.yhat[1]), source: 'copy_forecast' }],
      new_value: { method: 'naive', start, end: start, weeks: [{ ds: start, corrected_y: Math.max(0, pf.forecasts.naive.yhat[1]) }] },
    });
    const del = await t.call('delete', `/api/adjustments/${f.unique_id}`, { token: planner });
    expect(del.body).toEqual({ status: 'deleted', unique_id: f.unique_id, count: 3 });
  });

  test('POST a correction: any day of the week is stored as its Monday; it overrides the outlier correction in /data', async () => {
    const post = (body: unknown, token = planner) => t.call('post', `/api/adjustments/${f.unique_id}`, { token, body });
    const wed = mondayPlus(f.weeks[30], 2);
    const res = await post({ ds: wed, corrected_y: 25, reason: 'promotion week' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      unique_id: f.unique_id, replaced: null,
      adjustment: { id: expect.any(Number), ds: f.weeks[30], corrected_y: 25, reason: 'promotion week', source: 'manual', created_by: a.planner.email, created_at: ts },
    });
    const again = await post({ ds: f.weeks[30], corrected_y: 24.5, reason: 'promotion week, revised' }, admin);
    expect(again.body.replaced).toMatchObject({ ds: f.weeks[30], corrected_y: 25, reason: 'promotion week' });
    expect(again.body.adjustment).toMatchObject({ ds: f.weeks[30], corrected_y: 24.5, created_by: a.admin.email });
    await post({ ds: f.weeks[40], corrected_y: 0, reason: 'closed: no demand' });
    const data = await get(`/api/series/${f.unique_id}/data`);
    expect(data.body[30]).toEqual({ ds: f.weeks[30], y: 90, corrected_y: 24.5, correction: 'adjustment' });
    expect(data.body[40]).toEqual({ ds: f.weeks[40], y: null, corrected_y: 0, correction: 'adjustment' });
    const vega = await get(`/api/series/${f.unique_id}/vega-spec`);
    expect(vega.body.data.values[52 + 30].value).toBe(24.5);

    const bad: Array<[unknown, string]> = [
      [{ ds: wed, corrected_y: -1, reason: 'x' }, 'body.corrected_y must be >= 0'],
      [{ ds: wed, corrected_y: 1 }, 'body.reason is required'],
      [{ ds: '2025-13-01', corrected_y: 1, reason: 'x' }, 'body.ds must match format "date"'],
      [{ ds: wed, corrected_y: 1, reason: 'x', week: 3 }, "body: unknown field 'week'"],
    ];
    for (const [body, detail] of bad) {
      const r = await post(body);
      expect([r.status, r.body.detail]).toEqual([400, detail]);
    }
    expect((await post({ ds: wed, corrected_y: 1, reason: 'x' }, plain)).status).toBe(403);
    expect((await post({ ds: wed, corrected_y: 1, reason: 'x' }, restricted)).status).toBe(403);
    expect((await t.call('delete', `/api/adjustments/${f.unique_id}`, { token: plain })).status).toBe(403);

    const list = await get(`/api/adjustments/${f.unique_id}`);
    expect(list.body.adjustments.map((x: any) => [x.ds, x.corrected_y, x.source])).toEqual([[f.weeks[30], 24.5, 'manual'], [f.weeks[40], 0, 'manual']]);
    const del = await t.call('delete', `/api/adjustments/${f.unique_id}`, { token: planner });
    expect(del.body).toEqual({ status: 'deleted', unique_id: f.unique_id, count: 2 });
    expect((await t.call('delete', `/api/adjustments/${f.unique_id}`, { token: planner })).body.count).toBe(0);
    expect((await get(`/api/series/${f.unique_id}/data`)).body[30].correction).toBe('outlier');
    const audit = await withTenant(t.db, a.accountId, (tx) =>
      tx.any(sql.unsafe`SELECT action, old_value, new_value FROM audit_log WHERE entity_type = 'demand_adjustment' AND outcome = 'success' AND action = 'create' ORDER BY id`));
    expect(audit.slice(0, 2)).toEqual([
      { action: 'create', old_value: null, new_value: { ds: f.weeks[30], corrected_y: 25, reason: 'promotion week' } },
      { action: 'create', old_value: { ds: f.weeks[30], corrected_y: 25, reason: 'promotion week', source: 'manual' }, new_value: { ds: f.weeks[30], corrected_y: 24.5, reason: 'promotion week, revised' } },
    ]);
  });
});

describe('access', () => {
  test('every route: 404 naming an unknown series, 403 outside the caller\'s segments, 400 for a malformed id', async () => {
    const routes: Array<[string, string]> = [
      ...READS.map((r) => ['get', `/api/series/{}/${r}`] as [string, string]),
      ['get', '/api/adjustments/{}'], ['post', '/api/adjustments/{}'], ['delete', '/api/adjustments/{}'],
      ['put', '/api/series/{}/locked-method'], ['delete', '/api/series/{}/locked-method'], ['post', '/api/series/{}/copy-forecast'],
    ];
    const bodies: Record<string, unknown> = {
      'post /api/adjustments/{}': { ds: '2025-01-06', corrected_y: 1, reason: 'x' },
      'put /api/series/{}/locked-method': { method: 'ses' },
      'post /api/series/{}/copy-forecast': { method: 'ses', start: f.forecastStart, end: f.forecastStart },
    };
    for (const [m, p] of routes) {
      const body = bodies[`${m} ${p}`];
      const unknown = await t.call(m, p.replace('{}', '424242_7'), { token: admin, body });
      expect([m, p, unknown.status, unknown.body.detail]).toEqual([m, p, 404, 'Series 424242_7 not found (item 424242, site 7)']);
      const hidden = await t.call(m, p.replace('{}', f.unique_id), { token: restricted, body });
      expect([m, p, hidden.status]).toEqual([m, p, 403]);
      expect(hidden.body.detail).toMatch(new RegExp(`^Access to series ${f.unique_id} denied: it is in none of your segments: \\d+$`));
      const malformed = await t.call(m, p.replace('{}', 'abc'), { token: admin, body });
      expect([m, p, malformed.status, malformed.body.detail]).toEqual([m, p, 400, 'path.unique_id must match pattern "^[1-9][0-9]{0,8}_[1-9][0-9]{0,8}$"']);
    }
    // the restricted user sees its own segment's series
    expect((await get(`/api/series/${bare.unique_id}/data`, restricted)).status).toBe(200);
    expect((await get(`/api/adjustments/${bare.unique_id}`, restricted)).status).toBe(200);
  });

  test('without a token every route is a 401', async () => {
    for (const r of READS) expect((await t.call('get', `/api/series/${f.unique_id}/${r}`)).status).toBe(401);
    expect((await t.call('get', `/api/adjustments/${f.unique_id}`)).status).toBe(401);
  });
});

/** the day `days` after a Monday, in the same week */
function mondayPlus(monday: string, days: number): string {
  return new Date(Date.parse(`${monday}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
