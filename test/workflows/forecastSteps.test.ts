import { backtest } from '../../domain/forecast/backtest';
import { rankEntry, rankMethods } from '../../domain/forecast/tournament';
import { chooseBest } from '../../domain/forecast/best';
import { addWeeks } from '../../domain/time/weeks';
import { applyFutureAdjustments, chooseMethods, fitHistory, placeOnCalendar, spanOfWeeks, windowOnCalendar } from '../../domain/forecast/prepare';
import { roadsTaken } from '../../db/heldReferences';
import { sql, withTenant } from '../../db/pool';
import { createPipeline, isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

const close = (a: number, b: number, digits = 9) => expect(a).toBeCloseTo(b, digits);

describe('forecast step preparation (pure)', () => {
  test('fitHistory: corrected values, past adjustments, closed weeks left out, open weeks divided by their factor', () => {
    const h = fitHistory(
      { start: '2026-01-05', y: [4, NaN, 2, 6, 3], factor: [1, 0, 0.5, 1, 1] },
      { start_week: '2026-01-12', corrected_y: [NaN, 3, 9, NaN] },
      [{ ds: '2026-02-02', corrected_y: 5 }, { ds: '2026-01-12', corrected_y: 8 }, { ds: '2026-03-02', corrected_y: 1 }],
    );
    // week 2 corrected to 3 then halved; week 3 corrected to 9; the adjustment on the closed week is ignored
    expect(Array.from(h.y)).toEqual([4, 6, 9, 5]);
    expect(h.weeks).toEqual(['2026-01-05', '2026-01-19', '2026-01-26', '2026-02-02']);
    expect(h.lastWeek).toBe('2026-02-02');
    expect(h.adjustedWeeks).toEqual(['2026-02-02']);
    expect(h.corrected).toBe(true);
    expect([h.factorOf('2026-01-12'), h.factorOf('2026-01-19'), h.factorOf('2026-02-09')]).toEqual([0, 0.5, undefined]);
    // a corrected row counts as used only where it has a value for an open week of the history
    const s = { start: '2026-01-05', y: [4, NaN, 2], factor: [1, 0, 1] };
    expect(fitHistory(s, { start_week: '2026-01-12', corrected_y: [5] }, []).corrected).toBe(false);
    expect(fitHistory(s, { start_week: '2026-01-26', corrected_y: [5, 6] }, []).corrected).toBe(false);
    expect(fitHistory(s, { start_week: '2025-12-29', corrected_y: [5, NaN, 7] }, []).corrected).toBe(false);
    const shifted = fitHistory(s, { start_week: '2025-12-29', corrected_y: [5, 6, 7, 8] }, []);
    expect([shifted.corrected, Array.from(shifted.y)]).toEqual([true, [6, 8]]);
  });

  test('placeOnCalendar and adjustments: closed weeks 0, open weeks step × factor, clipped at 0; an adjustment moves the band', () => {
    const span = spanOfWeeks('2026-01-05', 4, (w) => ({ '2026-01-12': 0, '2026-01-19': 0.5 } as Record<string, number>)[w]);
    expect(span).toEqual({ weeks: ['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26'], factors: [1, 0, 0.5, 1], open: 3 });
    const band = placeOnCalendar({ mean: [10, 8, -1], lower: [-2, 4, -3], upper: [12, 12, 1] }, span);
    expect(band).toEqual({ yhat: [10, 0, 4, 0], lower: [0, 0, 2, 0], upper: [12, 0, 6, 1] });
    expect(applyFutureAdjustments(band, span.weeks, [{ ds: '2026-01-05', corrected_y: 3 }, { ds: '2027-01-04', corrected_y: 9 }])).toEqual(['2026-01-05']);
    expect([band.yhat[0], band.lower[0], band.upper[0]]).toEqual([3, 0, 5]);
  });

  test('chooseMethods: run list, scenario list, recommendation with benchmarks, NPI fallback, lock, skipped with reasons', () => {
    const y = Float64Array.from({ length: 20 }, (_, i) => 10 + (i % 3));
    const base = { runMethods: null, scenarioMethods: [], recommended: () => ['naive', 'ses', 'arima', 'combination'], includeBenchmarks: true, locked: null, npi: { isNpi: false, fallback: 'moving_average' }, y, period: 52 };
    expect(chooseMethods(base)).toEqual({
      methods: ['naive', 'ses', 'arima'], source: 'recommended',
      skipped: [{ method: 'seasonal_naive', reason: expect.stringContaining('seasonal_naive') }],
    });
    expect(chooseMethods({ ...base, includeBenchmarks: false }).methods).toEqual(['ses', 'arima']);
    expect(chooseMethods({ ...base, scenarioMethods: ['theta', 'combination'] })).toMatchObject({ methods: ['theta'], source: 'scenario', skipped: [] });
    expect(chooseMethods({ ...base, runMethods: ['croston', 'bogus', 'combination'], locked: 'holt_winters' })).toEqual({
      methods: ['holt_winters', 'croston'], source: 'run',
      skipped: [{ method: 'bogus', reason: "unknown method 'bogus'" }, { method: 'combination', reason: 'combination is built by the best-method step' }],
    });
    expect(chooseMethods({ ...base, npi: { isNpi: true, fallback: 'holt_winters' }, locked: 'ses' })).toEqual({ methods: ['ses', 'holt_winters'], source: 'npi', skipped: [] });
  });

  test('windowOnCalendar: a closed week inside a backtest window forecasts 0 with a missing actual', () => {
    const h = fitHistory({ start: '2026-01-05', y: [1, 2, NaN, 3, 4], factor: [1, 1, 0, 0.5, 1] }, undefined, []);
    const w = windowOnCalendar({ origin: 0, train_end: 2, mean: [5, 6], lower: [4, 5], upper: [7, 8], actual: [6, 4] }, h);
    expect(w).toEqual({ origin: 0, train_end: 2, origin_week: '2026-01-12', mean: [0, 2.5, 6], lower: [0, 2, 5], upper: [0, 3.5, 8], actual: [NaN, 3, 4] });
  });

  test('chooseBest: a series without backtest gets the first method of the preference order', () => {
    const f = { start_week: '2026-01-05', yhat: [1], lower: [1], upper: [1] };
    const r = chooseBest({
      methods: [{ method: 'naive', forecast: f, metrics: null, windows: [] }, { method: 'ses', forecast: f, metrics: null, windows: [] }],
      metric: 'mase', includeBenchmarks: true, locked: null, combine: true, scaleOf: () => 1, adjustments: [],
    });
    expect(r).toMatchObject({ best: 'ses', runner_up: 'naive', best_score: null, locked: false, combination: null, combination_skipped: 'no backtest origin: members cannot be ranked' });
    expect(r.reason).toContain('no backtest origin');
  });

  test('chooseBest: bias ranks by its absolute value; without benchmarks naive cannot win', () => {
    const f = { start_week: '2026-01-05', yhat: [1], lower: [1], upper: [1] };
    const m = (bias: number, mae: number) => ({ mae, rmse: mae, mase: mae, smape: 1, bias, coverage_90: 0.9, interval_score_90: NaN, n: 13, origins_evaluated: 1 });
    const methods = [
      { method: 'naive', forecast: f, metrics: m(0.5, 1), windows: [] },
      { method: 'ses', forecast: f, metrics: m(-3, 2), windows: [] },
      { method: 'theta', forecast: f, metrics: m(1, 3), windows: [] },
    ];
    const base = { methods, includeBenchmarks: true, locked: null, combine: false, scaleOf: () => 1, adjustments: [] };
    expect(chooseBest({ ...base, metric: 'bias' }).ranking.map((r) => [r.method, r.score])).toEqual([['naive', 0.5], ['theta', 1], ['ses', 3]]);
    expect(chooseBest({ ...base, metric: 'bias', includeBenchmarks: false })).toMatchObject({ best: 'theta', runner_up: 'ses', best_score: 1 });
    expect(chooseBest({ ...base, metric: 'mae', includeBenchmarks: false, locked: { method: 'naive', by: null } })).toMatchObject({
      best: 'naive', locked: true, reason: 'locked method naive always wins; it ranks 1 of 3 on mae',
    });
  });
});

// ------------------------------------------------------------------------------------------------ end to end

const N = 156;
const LAST = '2026-11-16';
const FIRST = addWeeks(LAST, -(N - 1));
const H = 26;

/** Deterministic noise in [-0.5, 0.5). */
function noise(seed: number) {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647 - 0.5;
  };
}

const r1 = noise(7);
const r2 = noise(11);
const SERIES: Record<string, { site: string; y: (t: number) => number; from?: number }> = {
  SMOOTH: { site: 'S1', y: (t) => Math.round(100 + 30 * Math.sin((2 * Math.PI * t) / 52) + 8 * r1()) },
  TREND: { site: 'S1', y: (t) => Math.round(50 + 2 * t + 10 * r2()) },
  INTER: { site: 'S1', y: (t) => (t % 4 === 0 ? 3 + (t % 3) : 0) },
  NPI: { site: 'S1', y: (t) => 5 + (t % 2), from: N - 8 },
  CONST: { site: 'S1', y: () => 7 },
  CLOSED: { site: 'S2', y: (t) => 20 + (t % 4) },
};

describe('forecast, backtest, backtest-forecast and best-method steps (real worker)', () => {
  let tw: TestWorker;
  let t: TestApp;
  let a: TestTenant;
  let planner: string;
  let pipelineId: number;
  let scenarioId: number;
  const uid: Record<string, string> = {};
  const history: Record<string, number[]> = {};

  beforeAll(async () => {
    tw = await startTestWorker();
    t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
    a = await t.newTenant('fc-steps');
    planner = await t.login(a.planner);
    pipelineId = await createPipeline(t, planner, 'Forecasting');
    const demand: Array<[string, string, string, number]> = [];
    for (const [item, s] of Object.entries(SERIES)) {
      history[item] = [];
      for (let k = s.from ?? 0; k < N; k++) {
        const v = s.y(k);
        history[item].push(v);
        demand.push([item, s.site, addWeeks(FIRST, k), v]);
      }
    }
    await withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT x, 'Item ' || x FROM unnest(${sql.array(Object.keys(SERIES), 'text')}::text[]) x`);
      await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Main'), ('S2', 'Plant')`);
      await tx.query(sql.unsafe`
        INSERT INTO demand_history (item_id, site_id, ds, qty)
        SELECT i.id, s.id, d.ds, d.qty FROM ${sql.unnest(demand, ['text', 'text', 'date', 'float8'])} AS d(item, site, ds, qty)
        JOIN items i ON i.xuid = d.item JOIN sites s ON s.xuid = d.site`);
      const ids = (await tx.any(sql.unsafe`SELECT i.xuid, i.id AS item_id, s.id AS site_id FROM items i JOIN sites s ON s.xuid = CASE WHEN i.xuid = 'CLOSED' THEN 'S2' ELSE 'S1' END`)) as any[];
      for (const r of ids) uid[r.xuid] = `${r.item_id}_${r.site_id}`;
      scenarioId = (await tx.oneFirst(sql.unsafe`INSERT INTO forecast_scenarios (name, horizon_weeks) VALUES ('Half year', ${H}) RETURNING id`)) as number;
      await tx.query(sql.unsafe`UPDATE scenario_pipelines SET forecast_scenario_id = ${scenarioId} WHERE id = ${pipelineId}`);
    });
    const s2 = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT id FROM sites WHERE xuid = 'S2'`))) as number;
    // S2: a closed week in the history, a closed and a half-capacity week in the future
    const cal = await t.call('post', '/api/calendars', {
      token: planner,
      body: { name: 'Plant', site_ids: [s2], entries: [{ ds: '2026-06-01', factor: 0 }, { ds: '2026-11-30', factor: 0 }, { ds: '2026-12-14', factor: 0.5 }] },
    });
    expect(cal.status).toBe(201);
    const etl = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
    expect((await waitForJob(t, planner, etl.body.job_id, isFinished)).status).toBe('completed');
    // locks and adjustments need the series rows the etl step creates
    await withTenant(t.db, a.accountId, async (tx) => {
      const [ti, ts] = uid.TREND.split('_').map(Number);
      await tx.query(sql.unsafe`INSERT INTO series_locked_methods (item_id, site_id, method, locked_by) VALUES (${ti}, ${ts}, 'naive', 'planner@test')`);
      const [si, ss] = uid.SMOOTH.split('_').map(Number);
      const [ci, cs] = uid.CLOSED.split('_').map(Number);
      // a future adjustment of SMOOTH and a past one (the last history week) of CLOSED
      await tx.query(sql.unsafe`INSERT INTO demand_adjustments (item_id, site_id, ds, corrected_y, reason) VALUES
        (${si}, ${ss}, '2026-12-07', 500, 'promotion'), (${ci}, ${cs}, ${LAST}, 40, 'late booking')`);
    });
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await tw.close();
  });

  const runStep = async (step: string, body: Record<string, unknown> = {}) => {
    const res = await t.call('post', `/api/pipeline/run/${step}`, { token: planner, body: { pipeline_id: pipelineId, ...body } });
    expect(res.status).toBe(200);
    const job = await waitForJob(t, planner, res.body.job_id, isFinished, 180_000);
    expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });
    return job;
  };
  const q = (query: ReturnType<typeof sql.unsafe>) => withTenant(t.db, a.accountId, (tx) => tx.any(query)) as Promise<any[]>;
  const forecasts = (pid = pipelineId) =>
    q(sql.unsafe`SELECT i.xuid AS item, f.* FROM forecast_results f JOIN items i ON i.id = f.item_id WHERE f.pipeline_id = ${pid} ORDER BY i.xuid, f.method`);
  const byItem = (rows: any[], item: string) => rows.filter((r) => r.item === item);

  test('forecast: horizon of the pipeline scenario, methods per series, constant, NPI, calendar and adjustments', async () => {
    const job = await runStep('forecast');
    expect(job.result).toEqual({ step: 'forecast', series: 6, rows: expect.any(Number), chunks: 1, signals: expect.any(Object) });
    // the step ends with the pipeline's alerts and exception log (docs/ALERTS.md), as the API lists them
    const alerts = (await t.call('get', '/api/alerts', { token: planner, query: { pipeline_id: pipelineId, page_size: 1 } })).body.total;
    const logged = (await t.call('get', '/api/exception-log', { token: planner, query: { pipeline_id: pipelineId, page_size: 1 } })).body.total;
    expect(job.result.signals).toEqual({ pipeline_id: pipelineId, alerts, alerts_cleared: 0, exception_rows: logged });
    const rows = await forecasts();
    expect(rows.length).toBe(job.result.rows);
    for (const r of rows) {
      expect(r).toMatchObject({ pipeline_id: pipelineId, scenario_id: scenarioId, start_week: '2026-11-23', level: 0.9, job_id: job.job_id });
      expect(r.yhat).toHaveLength(H);
      expect(r.yhat.every((v: number) => v >= 0)).toBe(true);
      expect(r.yhat_lower.every((v: number, i: number) => v <= r.yhat[i] + 1e-9 && r.yhat_upper[i] >= r.yhat[i] - 1e-9)).toBe(true);
    }
    expect(rows.some((r) => r.method === 'combination')).toBe(false);
    // the characterization step has not run: recommendations on the fly, plus both benchmarks
    expect(byItem(rows, 'SMOOTH').map((r) => r.method)).toEqual(['arima', 'ets', 'holt_winters', 'naive', 'optimized_theta', 'seasonal_naive', 'ses', 'theta']);
    expect(byItem(rows, 'INTER').map((r) => r.method)).toEqual(['adida', 'croston', 'moving_average', 'naive', 'sba', 'seasonal_naive', 'tsb']);
    // a constant series forecasts the constant, whatever the method
    const constant = byItem(rows, 'CONST');
    expect(constant.length).toBeGreaterThanOrEqual(5);
    for (const r of constant) for (const v of r.yhat) expect(v).toBeCloseTo(7, 6);
    // a new part: only the NPI fallback
    expect(byItem(rows, 'NPI').map((r) => [r.method, r.params.npi, r.params.method_source, r.params.history_weeks])).toEqual([['moving_average', true, 'npi', 8]]);
    // the locked method is fitted even though the recommendation has it anyway
    expect(byItem(rows, 'TREND').map((r) => r.method)).toContain('naive');
    // a future adjustment replaces that week's yhat for every method
    for (const r of byItem(rows, 'SMOOTH')) {
      expect(r.yhat[2]).toBe(500);
      expect(r.params.adjusted_weeks).toEqual(['2026-12-07']);
    }
    // calendar: the closed future week forecasts 0, the half week half; the past adjustment (40) is naive's last value
    const naive = byItem(rows, 'CLOSED').find((r) => r.method === 'naive');
    expect(naive.yhat.slice(0, 5)).toEqual([40, 0, 40, 20, 40]);
    expect(naive.params).toMatchObject({ closed_weeks: ['2026-11-30'], past_adjusted_weeks: [LAST], history_weeks: N - 1 });
    for (const r of byItem(rows, 'CLOSED')) expect([r.yhat[1], r.yhat_lower[1], r.yhat_upper[1]]).toEqual([0, 0, 0]);
  }, 200_000);

  test('backtest: metrics equal the pure engine on the same history; windows stored with the origin weeks and actuals', async () => {
    const job = await runStep('backtest');
    const methods = (await forecasts()).filter((r) => r.item === 'SMOOTH').map((r) => r.method);
    const metrics = await q(sql.unsafe`SELECT i.xuid AS item, m.* FROM backtest_metrics m JOIN items i ON i.id = m.item_id WHERE m.pipeline_id = ${pipelineId} ORDER BY i.xuid, m.method`);
    expect(metrics.every((m) => m.job_id === job.job_id)).toBe(true);
    // the forecast and backtest steps' rows had their series key checked set-based, none row by row (db/heldReferences.ts)
    for (const table of ['forecast_results', 'backtest_metrics', 'backtest_forecasts']) {
      expect([table, roadsTaken.get(table)?.ordinary, (roadsTaken.get(table)?.held ?? 0) > 0]).toEqual([table, 0, true]);
    }
    // the defaults: 4 windows of 13 weeks, 4 weeks apart, at least 26 weeks of training
    const bt = backtest(Float64Array.from(history.SMOOTH), methods, { h: 13, horizon: 13, origins: 4, step: 4, minTrain: 26, period: 52 });
    const stored = byItem(metrics, 'SMOOTH');
    expect(stored.map((m) => m.method)).toEqual(methods);
    for (const m of stored) {
      const e = bt.methods[m.method];
      expect([m.origins_evaluated, m.points]).toEqual([4, 52]);
      for (const k of ['mae', 'rmse', 'mase', 'bias', 'coverage_90', 'smape'] as const) close(m[k], e.metrics[k]);
    }
    // constant: every method perfect
    for (const m of byItem(metrics, 'CONST')) for (const v of [m.mae, m.rmse, m.bias]) close(v, 0, 6);
    // the NPI series is too short for any origin
    expect(byItem(metrics, 'NPI')).toEqual([]);
    const windows = await q(sql.unsafe`
      SELECT b.origin_week, b.yhat, b.actual FROM backtest_forecasts b JOIN items i ON i.id = b.item_id
      WHERE b.pipeline_id = ${pipelineId} AND b.kind = 'window' AND i.xuid = 'SMOOTH' AND b.method = 'ses' ORDER BY b.origin_week`);
    // train_end = 131, 135, 139, 143: the origin week is the last training week
    expect(windows.map((w) => w.origin_week)).toEqual([130, 134, 138, 142].map((i) => addWeeks(FIRST, i)));
    expect(windows.map((w) => w.origin_week)).toEqual(['2026-05-25', '2026-06-22', '2026-07-20', '2026-08-17']);
    for (const [j, w] of windows.entries()) {
      expect(w.actual).toEqual(history.SMOOTH.slice(131 + 4 * j, 144 + 4 * j));
      expect(w.yhat.map((v: number) => Number(v.toFixed(9)))).toEqual(bt.methods.ses.forecasts[j].mean.map((v) => Number(v.toFixed(9))));
    }
    // the closed history week of CLOSED: inside a window it forecasts 0 and has no actual
    const closedWin = await q(sql.unsafe`
      SELECT b.origin_week, b.yhat, b.actual FROM backtest_forecasts b JOIN items i ON i.id = b.item_id
      WHERE b.pipeline_id = ${pipelineId} AND b.kind = 'window' AND i.xuid = 'CLOSED' AND b.method = 'naive' ORDER BY b.origin_week`);
    const first = closedWin[0];
    const k = (Date.parse('2026-06-01') - Date.parse(addWeeks(first.origin_week, 1))) / (7 * 86_400_000);
    expect([first.yhat[k], first.actual[k]]).toEqual([0, null]);
    expect(first.yhat).toHaveLength(14);

    // a re-run rewrites the same rows, no duplicates
    const count = async () => (await q(sql.unsafe`SELECT count(*)::int AS n FROM backtest_forecasts WHERE pipeline_id = ${pipelineId} AND kind = 'window'`))[0].n;
    const before = await count();
    const again = await runStep('backtest');
    expect(await count()).toBe(before);
    expect((await q(sql.unsafe`SELECT DISTINCT job_id FROM backtest_metrics WHERE pipeline_id = ${pipelineId}`)).map((r) => r.job_id)).toEqual([again.job_id]);
  }, 200_000);

  test('backtest-forecast: the full-horizon forecast of every method from the same origins, with what is known', async () => {
    const originRows = () => q(sql.unsafe`
      SELECT i.xuid AS item, b.method, b.origin_week, b.yhat, b.actual, b.job_id FROM backtest_forecasts b JOIN items i ON i.id = b.item_id
      WHERE b.pipeline_id = ${pipelineId} AND b.kind = 'origin' ORDER BY i.xuid, b.method, b.origin_week`);
    // the backtest step already stored them from its own fits: backtest-forecast finds every series complete
    const fromBacktest = await originRows();
    expect(fromBacktest.length).toBeGreaterThan(0);
    const check = await runStep('backtest-forecast');
    expect(check.log.map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringMatching(/series already had every origin forecast from the backtest step/)]));
    expect(await originRows()).toEqual(fromBacktest);
    // a longer horizon makes them out of date: backtest-forecast refits them all at the new length, then a rerun is a no-op
    await q(sql.unsafe`UPDATE forecast_scenarios SET horizon_weeks = ${H + 4} WHERE id = ${scenarioId}`);
    const refit = await runStep('backtest-forecast');
    const longer = await originRows();
    expect(longer.every((r) => r.yhat.length === H + 4 && r.job_id === refit.job_id)).toBe(true);
    expect(longer.map((r) => [r.item, r.method, r.origin_week])).toEqual(fromBacktest.map((r) => [r.item, r.method, r.origin_week]));
    // the first H weeks are the same forecasts: one fit, whichever step made it
    for (const [i, r] of longer.entries()) r.yhat.slice(0, H).forEach((v: number, j: number) => close(v, fromBacktest[i].yhat[j]));
    await q(sql.unsafe`UPDATE forecast_scenarios SET horizon_weeks = ${H} WHERE id = ${scenarioId}`);
    await runStep('backtest-forecast');
    const rows = (await originRows()).filter((r) => r.item === 'SMOOTH');
    const ses = rows.filter((r) => r.method === 'ses');
    expect(ses.map((r) => r.origin_week)).toEqual(['2026-05-25', '2026-06-22', '2026-07-20', '2026-08-17']);
    for (const r of ses) expect(r.yhat).toHaveLength(H);
    // from the last origin, 13 weeks are history, the rest is not known yet
    const last = ses[3];
    expect(last.actual.slice(0, 13)).toEqual(history.SMOOTH.slice(143));
    expect(last.actual.slice(13)).toEqual(new Array(13).fill(null));
    // a window is the first 13 weeks of the full-horizon forecast from the same origin (level aside, the mean is the same)
    const win = await q(sql.unsafe`
      SELECT b.yhat FROM backtest_forecasts b JOIN items i ON i.id = b.item_id
      WHERE b.pipeline_id = ${pipelineId} AND b.kind = 'window' AND i.xuid = 'SMOOTH' AND b.method = 'ses' AND b.origin_week = '2026-08-17'`);
    last.yhat.slice(0, 13).forEach((v: number, i: number) => close(v, win[0].yhat[i]));
    expect(new Set(rows.map((r) => r.method))).toEqual(new Set((await forecasts()).filter((r) => r.item === 'SMOOTH').map((r) => r.method)));
  }, 200_000);

  test('best-method: ranking by MASE, a locked method wins, the combination is the weighted mean of its members', async () => {
    const job = await runStep('best-method');
    const best = await q(sql.unsafe`SELECT i.xuid AS item, b.* FROM series_best_method b JOIN items i ON i.id = b.item_id WHERE b.pipeline_id = ${pipelineId} ORDER BY i.xuid`);
    expect(best.map((b) => b.item)).toEqual(['CLOSED', 'CONST', 'INTER', 'NPI', 'SMOOTH', 'TREND']);
    for (const b of best) expect(b).toMatchObject({ pipeline_id: pipelineId, metric: 'mase', job_id: job.job_id });
    const of = (item: string) => best.find((b) => b.item === item);
    expect(of('TREND')).toMatchObject({ best_method: 'naive', locked: true });
    expect(of('TREND').reason).toContain('locked method naive (locked by planner@test) always wins');
    expect(of('TREND').runner_up_method).toBe(of('TREND').ranking.find((r: any) => r.method !== 'naive').method);
    expect(of('NPI')).toMatchObject({ best_method: 'moving_average', runner_up_method: null, best_score: null, locked: false, ranking: [{ method: 'moving_average', score: null, origins_evaluated: 0 }] });
    expect(of('NPI').reason).toContain('no backtest origin');
    // constant: every method is perfect
    expect(of('CONST')).toMatchObject({ best_method: of('CONST').ranking[0].method, best_score: 0, locked: false });
    expect(of('CONST').ranking.every((r: any) => r.score === 0)).toBe(true);
    // the ranking is the tournament's own ranking (rankEntry, rankMethods) of the stored MASE metrics
    const smooth = of('SMOOTH');
    const metrics = await q(sql.unsafe`SELECT m.* FROM backtest_metrics m JOIN items i ON i.id = m.item_id WHERE m.pipeline_id = ${pipelineId} AND i.xuid = 'SMOOTH'`);
    const entries = metrics.map((m) => rankEntry(m.method, { ...m, interval_score_90: NaN, n: m.points }, m.origins_evaluated, 'mase'));
    expect(smooth.ranking.map((r: any) => r.method)).toEqual(rankMethods(entries, false).map((e) => e.method));
    for (const r of smooth.ranking) close(r.score, metrics.find((x) => x.method === r.method).mase);
    expect(smooth.best_method).toBe(smooth.ranking[0].method);
    close(smooth.best_score, smooth.ranking[0].score);

    // the combination of SMOOTH: members and weights in its params, forecast = weighted mean of the members' rows
    const rows = byItem(await forecasts(), 'SMOOTH');
    const comb = rows.find((r) => r.method === 'combination');
    expect(comb.params.members.length).toBeGreaterThanOrEqual(2);
    expect(comb.params.members.every((m: string) => ['ets', 'arima', 'theta'].includes(m))).toBe(true);
    close(comb.params.weights.reduce((s: number, w: number) => s + w, 0), 1);
    for (let i = 0; i < H; i++) {
      const expected = comb.params.members.reduce((s: number, m: string, j: number) => s + comb.params.weights[j] * rows.find((r) => r.method === m).yhat[i], 0);
      close(comb.yhat[i], expected);
    }
    expect(comb.yhat[2]).toBe(500);
    expect(comb.params.adjusted_weeks).toEqual(['2026-12-07']);
    const combMetrics = metrics.find((m) => m.method === 'combination');
    expect(combMetrics.origins_evaluated).toBe(4);
    expect(smooth.ranking.map((r: any) => r.method)).toContain('combination');
  }, 200_000);

  test('run-forecast rewrites only the given series with the given methods; another pipeline keeps its own results', async () => {
    const before = await forecasts();
    const res = await t.call('post', '/api/pipeline/run-forecast', { token: planner, body: { pipeline_id: pipelineId, series: [uid.INTER], methods: ['croston', 'sba'] } });
    expect(res.status).toBe(200);
    const job = await waitForJob(t, planner, res.body.job_id, isFinished, 120_000);
    expect(job.status).toBe('completed');
    const after = await forecasts();
    expect(byItem(after, 'INTER').map((r) => [r.method, r.job_id])).toEqual([['croston', job.job_id], ['sba', job.job_id]]);
    const others = (rows: any[]) => rows.filter((r) => r.item !== 'INTER').map((r) => [r.item, r.method, r.job_id, r.yhat]);
    expect(others(after)).toEqual(others(before));

    // an unknown method is refused before any job starts; all_methods asks for every method the step fits
    const bad = await t.call('post', '/api/pipeline/run-forecast', { token: planner, body: { pipeline_id: pipelineId, series: [uid.INTER], methods: ['prophet'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/body\.methods\[0\]/);
    const all = await t.call('post', '/api/pipeline/run-forecast', { token: planner, body: { pipeline_id: pipelineId, series: [uid.INTER], all_methods: true } });
    const allJob = await waitForJob(t, planner, all.body.job_id, isFinished, 120_000);
    expect(allJob.status).toBe('completed');
    const fitted = byItem(await forecasts(), 'INTER').map((r) => r.method);
    expect(fitted).toEqual(expect.arrayContaining(['naive', 'seasonal_naive', 'moving_average', 'ses', 'croston', 'sba', 'tsb', 'adida', 'theta']));
    expect(fitted).not.toContain('combination');
    // restore the two-method state the rest of this test compares against
    const again = await t.call('post', '/api/pipeline/run-forecast', { token: planner, body: { pipeline_id: pipelineId, series: [uid.INTER], methods: ['croston', 'sba'] } });
    expect((await waitForJob(t, planner, again.body.job_id, isFinished, 120_000)).status).toBe('completed');
    const restored = await forecasts();

    // a second pipeline without a scenario: horizon 52, its own rows; the first pipeline's rows are untouched
    const other = await createPipeline(t, planner, 'Other');
    const r2 = await t.call('post', '/api/pipeline/run/forecast', { token: planner, body: { pipeline_id: other } });
    expect((await waitForJob(t, planner, r2.body.job_id, isFinished, 180_000)).status).toBe('completed');
    const second = await forecasts(other);
    expect(second.length).toBeGreaterThan(0);
    expect(second.every((r) => r.yhat.length === 52 && r.scenario_id === null && r.pipeline_id === other)).toBe(true);
    expect(await forecasts()).toEqual(restored);
    expect(await q(sql.unsafe`SELECT 1 FROM forecast_results WHERE pipeline_id = 0`)).toEqual([]);
  }, 300_000);

  test('a pipeline with segments: only its series get rows; a series that leaves the segment loses them at the next full run', async () => {
    const [ci, cs] = uid.CONST.split('_').map(Number);
    const [ni, ns] = uid.NPI.split('_').map(Number);
    const segment = (await withTenant(t.db, a.accountId, async (tx) => {
      const id = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Forecast scope') RETURNING id`)) as number;
      await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${id}, ${ci}, ${cs}), (${id}, ${ni}, ${ns})`);
      return id;
    })) as number;
    const p = await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'Scoped forecast', segment_ids: [segment] } });
    expect(p.status).toBe(201);
    const run = async (step: string) => {
      const res = await t.call('post', `/api/pipeline/run/${step}`, { token: planner, body: { pipeline_id: p.body.id } });
      const job = await waitForJob(t, planner, res.body.job_id, isFinished, 120_000);
      expect(job.status).toBe('completed');
      return job;
    };
    await run('forecast');
    await run('backtest');
    expect([...new Set((await forecasts(p.body.id)).map((r) => r.item))]).toEqual(['CONST', 'NPI']);
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM segment_members WHERE segment_id = ${segment} AND item_id = ${ci}`));
    const again = await run('forecast');
    expect(again.log.map((l) => l.message)).toContain(`forecast: ${(await forecasts()).filter((r) => r.item === 'CONST' && r.method !== 'combination').length} rows of series outside the pipeline's segments removed`);
    expect([...new Set((await forecasts(p.body.id)).map((r) => r.item))]).toEqual(['NPI']);
    const bt = await run('backtest');
    expect(bt.log.map((l) => l.message).some((m) => /^backtest: \d+ rows of series outside the pipeline's segments removed$/.test(m))).toBe(true);
    expect(await q(sql.unsafe`SELECT 1 FROM backtest_metrics WHERE pipeline_id = ${p.body.id}`)).toEqual([]);
  }, 300_000);

  test('run-all runs every step to completion: the forecasting steps, meio, eoq, supply and its allocation child', async () => {
    const res = await t.call('post', '/api/pipeline/run-all', { token: planner, body: { pipeline_id: pipelineId } });
    expect(res.status).toBe(200);
    const job = await waitForJob(t, planner, res.body.job_id, isFinished, 400_000);
    expect(job.children.map((c) => [c.step, c.status])).toEqual([
      ['etl', 'completed'], ['outlier', 'completed'], ['characterization', 'completed'], ['forecast', 'completed'], ['backtest', 'completed'],
      ['backtest-forecast', 'completed'], ['best-method', 'completed'], ['distribution', 'completed'], ['meio', 'completed'], ['eoq', 'completed'],
      ['supply', 'completed'],
    ]);
    expect([job.status, job.error]).toEqual(['completed', null]);
    // the allocation is logged as the supply job's child, over the supply run the supply job wrote
    const supplyJob = job.children.find((c) => c.step === 'supply')!;
    const supply = await waitForJob(t, planner, supplyJob.job_id, isFinished, 10_000);
    expect(supply.children.map((c) => [c.step, c.status])).toEqual([['allocation', 'completed']]);
    const runs = await q(sql.unsafe`SELECT r.run_id, r.status, r.n_sku_sites, (r.checks->>'ok')::boolean AS ok, a.supply_run_id, a.status AS allocation
      FROM supply_runs r LEFT JOIN allocation_runs a ON a.supply_run_id = r.run_id WHERE r.pipeline_id = ${pipelineId}`);
    expect(runs).toEqual([{ run_id: supplyJob.job_id, status: 'completed', n_sku_sites: 6, ok: true, supply_run_id: supplyJob.job_id, allocation: 'completed' }]);
    // meio planned every series of the pipeline under the tenant's default MEIO scenario, created by the run
    const meio = await q(sql.unsafe`SELECT count(*)::int AS n, count(DISTINCT scenario_id)::int AS scenarios FROM meio_results WHERE pipeline_id = ${pipelineId}`);
    expect(meio[0].scenarios).toBe(1);
    expect(meio[0].n).toBeGreaterThan(0);
    // with the characterization stored, the forecast step used its recommendations; best-method covered every series
    const rows = await forecasts();
    expect(rows.find((r) => r.item === 'SMOOTH' && r.method !== 'combination').params.method_source).toBe('recommended');
    // the outlier step ran first: every series it corrected was fitted on its corrected history
    const corrected = (await q(sql.unsafe`SELECT i.xuid FROM series_outliers o JOIN items i ON i.id = o.item_id WHERE o.pipeline_id = ${pipelineId}`)).map((r) => r.xuid);
    expect(corrected.length).toBe(6);
    for (const r of rows.filter((x) => x.method !== 'combination')) expect(r.params.corrected_history).toBe(true);
    expect((await q(sql.unsafe`SELECT count(*)::int AS n FROM series_best_method WHERE pipeline_id = ${pipelineId}`))[0].n).toBe(6);
  }, 420_000);
});
