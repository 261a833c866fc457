/**
 * The forecast, backtest, backtest-forecast and best-method pipeline steps (handlers of the generic chunked activity,
 * activities/steps). Each loads what its chunk needs, calls the pure engines (./engine, ./steps) and rewrites its own
 * rows for exactly the chunk's series and the run's pipeline. The rules are in docs/FORECASTING.md.
 */
import { calendarWeeksForSites } from '../../db/calendars';
import type { SeriesKey } from '../../db/etl';
import {
  adjustmentsOf, backtestMetricsOf, forecastMethodsOf, forecastRowsOf, forecastScenarioOf, lockedMethodsOf, replaceBacktest, replaceBestMethods,
  originInventoryOf, replaceForecastResults, replaceOriginForecasts, windowForecastsOf, type BestWrite, type ForecastWrite, type MetricsRow, type OriginWrite,
} from '../../db/forecastResults';
import { supersedeForecasts } from '../../db/forecastSupersession';
import { appendLog } from '../../db/jobs';
import type { Tx } from '../../db/pool';
import { characteristicsFor, correctedHistoryInRange } from '../../db/seriesResults';
import type { WeeklySeries } from '../../db/seriesSteps';
import { defaultValues, methodParams } from '../../domain/parameters/defaults';
import { checkpoint } from '../jobs/activity';
import { dropStale } from '../outlier/step';
import type { ResolvedParameters } from '../../domain/parameters/resolve';
import type { SeriesStepHandler, StepRun } from '../steps/types';
import { backtest, BACKTEST_LEVEL, planOrigins, scoreOriginForecasts, SpecificationPins } from '../../domain/forecast/backtest';
import { maseScale, type MetricName } from '../../domain/forecast/metrics';
import { canRun, COMBINATION, profileOf, runMethod } from '../../domain/forecast/registry';
import type { ForecastOptions, ForecastResult } from '../../domain/forecast/types';
import { chooseBest, type StoredMethod, windowMethods } from '../../domain/forecast/best';
import { addWeeks } from '../../domain/time/weeks';
import {
  applyFutureAdjustments, chooseMethods, fitHistory, originSpan, placeOnCalendar, recommendOnTheFly, spanOfWeeks, windowOnCalendar,
  type Adjustment, type Band, type FitHistory,
} from '../../domain/forecast/prepare';

/**
 * Heartbeat (and honour a kill) every this many series, and at least every CHECKPOINT_MS: a seasonal series with ETS
 * and ARIMA takes about a second per step, and 20 of them would outlast the work activities' 10 s heartbeat timeout.
 */
const CHECKPOINT_EVERY = 20;
const CHECKPOINT_MS = 2000;
/**
 * Between two series the loop yields to the event loop once this many ms have passed: the chunk activities, the
 * workflow tasks and the SDK's polling of a worker process share its one thread, so while a chunk computes, the next
 * chunk of another worker process waits for this process to schedule it (bench:forecast reports that gap).
 */
const YIELD_MS = 100;

function ticker(run: StepRun, phase: string): ((i: number) => Promise<void>) & { fit: () => void } {
  let last = 0;
  let lastYield = Date.now();
  let series = 0;
  const tick = async (i: number) => {
    series = i;
    const now = Date.now();
    if (now - lastYield >= YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = Date.now();
    }
    if (i % CHECKPOINT_EVERY !== 0 && now - last < CHECKPOINT_MS) return;
    last = now;
    checkpoint({ index: run.index, phase, series: i });
  };
  // between two fits of one series too: on a CPU shared with other work, one seasonal series' fits at several origins
  // can take longer than the heartbeat timeout
  const fit = () => {
    if (Date.now() - last < CHECKPOINT_MS) return;
    last = Date.now();
    checkpoint({ index: run.index, phase, series });
  };
  return Object.assign(tick, { fit });
}
const DEFAULT_HORIZON = 52;
/** Log lines name at most this many skipped methods per chunk. */
const MAX_LOGGED = 50;

const keyOf = (s: SeriesKey): SeriesKey => ({ item_id: s.item_id, site_id: s.site_id });

/** Resolved values of one parameter type for a series, the catalogue defaults when the resolver gave none. */
function valuesOf(params: Map<string, ResolvedParameters>, uid: string, type: string): Record<string, any> {
  return params.get(uid)?.[type]?.values ?? defaultValues(type);
}

const periodOf = (params: Map<string, ResolvedParameters>, uid: string) => Math.max(1, Math.floor(Number(valuesOf(params, uid, 'characterization').season_length ?? 52)));

function allFinite(x: ArrayLike<number>): boolean {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i])) return false;
  return true;
}

/** What every handler reads about a chunk: corrected histories, adjustments, locks. */
async function chunkInputs(tx: Tx, pipelineId: number, keys: SeriesKey[]) {
  return {
    corrected: await correctedHistoryInRange(tx, pipelineId, keys),
    adjustments: await adjustmentsOf(tx, keys),
    locked: await lockedMethodsOf(tx, keys),
  };
}

function historyOf(s: WeeklySeries, inputs: Awaited<ReturnType<typeof chunkInputs>>): FitHistory {
  return fitHistory(s, inputs.corrected.get(s.unique_id), inputs.adjustments.get(s.unique_id) ?? []);
}

/**
 * Future site calendars of the chunk's series from the week after their history through `weeks` more weeks: site →
 * week → factor (weeks without an entry are normal weeks, factor 1).
 */
async function futureCalendars(tx: Tx, series: readonly WeeklySeries[], weeks: number): Promise<(siteId: number) => (week: string) => number | undefined> {
  const out = new Map<number, Map<string, number>>();
  if (series.length && weeks > 0) {
    const lasts = series.map((s) => addWeeks(s.start, s.y.length - 1)).sort();
    const rows = await calendarWeeksForSites(tx, [...new Set(series.map((s) => s.site_id))], addWeeks(lasts[0], 1), addWeeks(lasts[lasts.length - 1], weeks));
    for (const r of rows) {
      const m = out.get(r.site_id) ?? new Map<string, number>();
      m.set(r.week, r.factor);
      out.set(r.site_id, m);
    }
  }
  return (siteId) => (week) => out.get(siteId)?.get(week);
}

async function logSkipped(run: StepRun, step: string, skipped: string[]): Promise<string | undefined> {
  if (!skipped.length) return undefined;
  const shown = skipped.slice(0, MAX_LOGGED).join('; ');
  await appendLog(run.tx, run.jobId, `${step}: chunk ${run.index + 1}/${run.of}: skipped ${shown}${skipped.length > MAX_LOGGED ? ` (+${skipped.length - MAX_LOGGED} more)` : ''}`);
  return `${skipped.length} skipped`;
}

/** An interval bound with non-finite values replaced by the mean (a plain loop: Float64Array.from with a map is ~20× slower). */
function boundOrMean(bound: ArrayLike<number>, mean: ArrayLike<number>): Float64Array {
  const out = new Float64Array(bound.length);
  for (let i = 0; i < bound.length; i++) out[i] = Number.isFinite(bound[i]) ? bound[i] : mean[i];
  return out;
}

/** The engine's forecast of `steps` open weeks, or the reason it could not be made. */
function engineForecast(method: string, y: Float64Array, steps: number, opts: ForecastOptions): { band: Band; params: ForecastResult['params'] } | { error: string } {
  if (steps === 0) return { band: { mean: [], lower: [], upper: [] }, params: {} };
  try {
    const r = runMethod(method, y, steps, opts);
    if (r.mean.length !== steps || !allFinite(r.mean)) return { error: 'non-finite forecast' };
    return { band: { mean: r.mean, lower: boundOrMean(r.lower, r.mean), upper: boundOrMean(r.upper, r.mean) }, params: r.params };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

// ------------------------------------------------------------------------------------------------ forecast

const dropStaleForecasts = dropStale('forecast');

export const forecastStep: SeriesStepHandler = {
  // supersession after every chunk: a predecessor and its successor may be forecast in different chunks (rule 3)
  async finalize(run) {
    const stale = await dropStaleForecasts(run);
    const moved = await supersedeForecasts(run.tx, run.scope.pipelineId, run.jobId);
    const note = moved.edges || moved.written || moved.removed
      ? `supersession: ${moved.movedSeries} series moved to their successors by ${moved.edges} edges (${moved.written} rows written, ${moved.removed} removed)`
      : null;
    return [stale, note].filter(Boolean).join('; ') || null;
  },
  parameterTypes: ['forecast', 'best_method', 'npi', 'characterization'],
  async run(run, series, params) {
    const { tx, scope } = run;
    const keys = series.map(keyOf);
    const scenario = await forecastScenarioOf(tx, run.scenarioId, scope.pipelineId);
    const horizon = scenario?.horizon_weeks ?? DEFAULT_HORIZON;
    const inputs = await chunkInputs(tx, scope.pipelineId, keys);
    const characteristics = await characteristicsFor(tx, scope.pipelineId, keys);
    const calendarOf = await futureCalendars(tx, series, horizon);
    const rows: ForecastWrite[] = [];
    const skipped: string[] = [];
    const tick = ticker(run, 'forecast');
    for (const [i, s] of series.entries()) {
      await tick(i);
      const fv = valuesOf(params, s.unique_id, 'forecast');
      const bm = valuesOf(params, s.unique_id, 'best_method');
      const npi = valuesOf(params, s.unique_id, 'npi');
      const period = periodOf(params, s.unique_id);
      const level = Number(fv.interval_level ?? 0.9);
      const hist = historyOf(s, inputs);
      const adjustments: Adjustment[] = inputs.adjustments.get(s.unique_id) ?? [];
      const choice = chooseMethods({
        runMethods: run.methods,
        scenarioMethods: scenario?.methods ?? [],
        recommended: () => characteristics.get(s.unique_id)?.recommended_methods ?? recommendOnTheFly(hist.y, period),
        includeBenchmarks: bm.include_benchmarks !== false,
        locked: inputs.locked.get(s.unique_id)?.method ?? null,
        npi: { isNpi: hist.y.length < Number(npi.min_history_weeks ?? 13), fallback: String(npi.fallback_method ?? 'moving_average') },
        y: hist.y,
        period,
      });
      for (const k of choice.skipped) skipped.push(`${s.unique_id} ${k.method} (${k.reason})`);
      const span = spanOfWeeks(addWeeks(hist.lastWeek, 1), horizon, calendarOf(s.site_id));
      const closedWeeks = span.weeks.filter((_, j) => span.factors[j] === 0);
      for (const method of choice.methods) {
        const fc = engineForecast(method, hist.y, span.open, { period, level, params: methodParams(fv, method) });
        tick.fit();
        if ('error' in fc) {
          skipped.push(`${s.unique_id} ${method} (failed on the history: ${fc.error})`);
          continue;
        }
        const band = placeOnCalendar(fc.band, span);
        const adjusted = applyFutureAdjustments(band, span.weeks, adjustments);
        rows.push({
          ...keyOf(s), method, scenario_id: scenario?.id ?? null, start_week: span.weeks[0], yhat: band.yhat, yhat_lower: band.lower, yhat_upper: band.upper, level,
          params: {
            ...fc.params, method_source: choice.source, history_weeks: hist.y.length, corrected_history: hist.corrected,
            past_adjusted_weeks: hist.adjustedWeeks, adjusted_weeks: adjusted, closed_weeks: closedWeeks, ...(choice.source === 'npi' ? { npi: true } : {}),
          },
        });
      }
    }
    const note = await logSkipped(run, 'forecast', skipped);
    return { rows: await replaceForecastResults(tx, scope.pipelineId, keys, rows, run.jobId), note };
  },
};

// ------------------------------------------------------------------------------------------------ backtests

function backtestOptions(params: Map<string, ResolvedParameters>, uid: string) {
  const b = valuesOf(params, uid, 'backtest');
  const H = Number(b.horizon_weeks ?? 13);
  return { h: H, horizon: H, origins: Number(b.windows ?? 4), step: Number(b.step_weeks ?? 4), minTrain: Number(b.min_train_weeks ?? 26), period: periodOf(params, uid) };
}

/**
 * The loop of both backtest steps: `fn` gets each series of the chunk, in order, with the single methods the forecast
 * step stored for it (what the backtests evaluate) and its fit history. A series without a stored forecast has
 * nothing to evaluate: it is skipped, and the note counts it.
 */
async function forEachForecasted(
  run: StepRun,
  series: readonly WeeklySeries[],
  phase: string,
  fn: (s: WeeklySeries, methods: string[], hist: FitHistory, onFit: () => void) => void,
): Promise<{ keys: SeriesKey[]; note: string | null }> {
  const keys = series.map(keyOf);
  const methodsOf = await forecastMethodsOf(run.tx, run.scope.pipelineId, keys);
  const inputs = await chunkInputs(run.tx, run.scope.pipelineId, keys);
  const tick = ticker(run, phase);
  let noForecast = 0;
  for (const [i, s] of series.entries()) {
    await tick(i);
    const methods = methodsOf.get(s.unique_id);
    if (methods?.length) fn(s, methods, historyOf(s, inputs), tick.fit);
    else noForecast++;
  }
  return { keys, note: noForecast ? `${noForecast} series without forecast (run the forecast step first)` : null };
}

/** A full-horizon forecast at a past origin placed on its calendar span, as an 'origin' row. */
function originRow(s: WeeklySeries, method: string, steps: Band, span: ReturnType<typeof originSpan>): OriginWrite {
  const band = placeOnCalendar(steps, span);
  return { ...keyOf(s), method, origin_week: span.origin_week, yhat: band.yhat, yhat_lower: band.lower, yhat_upper: band.upper, actual: span.actual };
}

/**
 * The backtest fits each method once per origin for the full forecast horizon: its first horizon_weeks are scored
 * (window rows, metrics) and the whole forecast is stored as that origin's forecast (origin rows), which the
 * backtest-forecast step would otherwise have to fit again. Origin rows need the interval level of the forecast step;
 * when it is not the backtest's 90 %, they are left to backtest-forecast.
 */
export const backtestStep: SeriesStepHandler = {
  finalize: dropStale('backtest'),
  parameterTypes: ['backtest', 'forecast', 'characterization'],
  async run(run, series, params) {
    const scenario = await forecastScenarioOf(run.tx, run.scenarioId, run.scope.pipelineId);
    const horizon = scenario?.horizon_weeks ?? DEFAULT_HORIZON;
    const calendarOf = await futureCalendars(run.tx, series, horizon);
    const metrics: MetricsRow[] = [];
    const windows: OriginWrite[] = [];
    const origins: OriginWrite[] = [];
    const withOrigins: SeriesKey[] = [];
    let tooShort = 0;
    const { keys, note } = await forEachForecasted(run, series, 'backtest', (s, methods, hist, onFit) => {
      const fv = valuesOf(params, s.unique_id, 'forecast');
      const opts = backtestOptions(params, s.unique_id);
      const sameLevel = Number(fv.interval_level ?? 0.9) === BACKTEST_LEVEL;
      const spans = new Map(planOrigins(hist.y.length, opts).origins.map((o) => [o.train_end, originSpan(hist, o.train_end, horizon, calendarOf(s.site_id))]));
      const forecastLength = sameLevel ? Math.max(0, ...[...spans.values()].map((sp) => sp.open)) : 0;
      const bt = backtest(hist.y, methods, { ...opts, forecastLength, onFit, params: Object.fromEntries(methods.map((m) => [m, methodParams(fv, m)])) });
      if (!bt.origins.length) tooShort++;
      if (sameLevel && bt.origins.length) withOrigins.push(keyOf(s));
      for (const m of methods) {
        const mb = bt.methods[m];
        if (!mb.origins_evaluated) continue;
        const wins = mb.forecasts.map((f) => windowOnCalendar(f, hist));
        const acc = scoreOriginForecasts(wins, bt.scales);
        metrics.push({
          ...keyOf(s), method: m, mae: acc.mae, rmse: acc.rmse, mase: acc.mase, bias: acc.bias, coverage_90: acc.coverage_90, smape: acc.smape,
          origins_evaluated: wins.length, points: acc.n,
        });
        for (const w of wins) windows.push({ ...keyOf(s), method: m, origin_week: w.origin_week, yhat: w.mean, yhat_lower: w.lower, yhat_upper: w.upper, actual: w.actual });
        if (!sameLevel) continue;
        for (const f of mb.forecasts) {
          const span = spans.get(f.train_end)!;
          const full = f.extended ?? f;
          origins.push(originRow(s, m, { mean: full.mean.slice(0, span.open), lower: full.lower.slice(0, span.open), upper: full.upper.slice(0, span.open) }, span));
        }
      }
    });
    const notes = [note, tooShort ? `${tooShort} series too short for a backtest origin` : null].filter(Boolean);
    const rows = await replaceBacktest(run.tx, run.scope.pipelineId, keys, metrics, windows, run.jobId);
    const originRows = await replaceOriginForecasts(run.tx, run.scope.pipelineId, withOrigins, origins, run.jobId);
    return { rows: rows + originRows, note: notes.join('; ') || undefined };
  },
};

/**
 * The forecasts made at each backtest origin over the full horizon. The backtest step stores them from its own fits;
 * this step fits what is missing or out of date — a series whose origin rows do not cover every (method, origin) of
 * the forecast step's methods and the backtest's origins with the current horizon (the horizon changed, methods were
 * added by run-forecast, the interval level is not 90 %, or backtest has not run) — and leaves complete series alone.
 */
export const backtestForecastStep: SeriesStepHandler = {
  finalize: dropStale('backtest-forecast'),
  parameterTypes: ['backtest', 'forecast', 'characterization'],
  async run(run, series, params) {
    const scenario = await forecastScenarioOf(run.tx, run.scenarioId, run.scope.pipelineId);
    const horizon = scenario?.horizon_weeks ?? DEFAULT_HORIZON;
    const calendarOf = await futureCalendars(run.tx, series, horizon);
    const inventory = await originInventoryOf(run.tx, run.scope.pipelineId, series.map(keyOf));
    const rows: OriginWrite[] = [];
    const refitted: SeriesKey[] = [];
    let upToDate = 0;
    const { note } = await forEachForecasted(run, series, 'backtest-forecast', (s, methods, hist, onFit) => {
      const fv = valuesOf(params, s.unique_id, 'forecast');
      const level = Number(fv.interval_level ?? 0.9);
      const opts = backtestOptions(params, s.unique_id);
      const plan = planOrigins(hist.y.length, opts).origins.map((o) => ({ o, span: originSpan(hist, o.train_end, horizon, calendarOf(s.site_id)), profile: profileOf(hist.y.subarray(0, o.train_end)) }));
      const have = inventory.get(s.unique_id) ?? new Map<string, number>();
      const needed = plan.flatMap(({ span, profile }) => methods.filter((m) => canRun(m, profile, opts.period).ok).map((m) => `${m}@${span.origin_week}`));
      const complete = level === BACKTEST_LEVEL && needed.length === have.size && needed.every((k) => have.get(k) === horizon);
      if (complete) {
        upToDate++;
        return;
      }
      refitted.push(keyOf(s));
      // the same fits as the backtest's: specifications identified at the earliest origin (plan is oldest first)
      const pins = new SpecificationPins();
      for (const { o, span, profile } of plan) {
        const train = hist.y.subarray(0, o.train_end);
        for (const m of methods) {
          if (!canRun(m, profile, opts.period).ok) continue;
          const fc = engineForecast(m, train, span.open, { period: opts.period, level, params: pins.paramsFor(m, methodParams(fv, m)) });
          onFit();
          if ('error' in fc) continue;
          pins.record(m, fc.params);
          rows.push(originRow(s, m, fc.band, span));
        }
      }
    });
    const notes = [note, upToDate ? `${upToDate} series already had every origin forecast from the backtest step` : null].filter(Boolean);
    return { rows: await replaceOriginForecasts(run.tx, run.scope.pipelineId, refitted, rows, run.jobId), note: notes.join('; ') || undefined };
  },
};

// ------------------------------------------------------------------------------------------------ best method

export const bestMethodStep: SeriesStepHandler = {
  finalize: dropStale('best-method'),
  parameterTypes: ['best_method', 'characterization'],
  async run(run, series, params) {
    const { tx, scope } = run;
    const keys = series.map(keyOf);
    const scenario = await forecastScenarioOf(tx, run.scenarioId, scope.pipelineId);
    const forecasts = await forecastRowsOf(tx, scope.pipelineId, keys);
    const metricsOf = await backtestMetricsOf(tx, scope.pipelineId, keys);
    const inputs = await chunkInputs(tx, scope.pipelineId, keys);
    // the combination is wanted unless the scenario lists its methods and leaves it out
    const combine = !scenario?.methods.length || scenario.methods.includes(COMBINATION);
    // What each series competes with, from the stored forecasts and metrics; the backtest windows are read after, and
    // only the combination members' (windowMethods), because every other method's windows cannot change the choice.
    const contests = series.map((s) => {
      const rows = (forecasts.get(s.unique_id) ?? []).filter((r) => r.method !== COMBINATION);
      const bm = valuesOf(params, s.unique_id, 'best_method');
      const metrics = new Map((metricsOf.get(s.unique_id) ?? []).map((m) => [m.method, m]));
      const stored: StoredMethod[] = rows.map((r) => {
        const m = metrics.get(r.method);
        return {
          method: r.method,
          forecast: { start_week: r.start_week, yhat: r.yhat, lower: r.yhat_lower, upper: r.yhat_upper },
          metrics: m ? { mae: m.mae, rmse: m.rmse, mase: m.mase, smape: m.smape, bias: m.bias, coverage_90: m.coverage_90, interval_score_90: NaN, n: m.points, origins_evaluated: m.origins_evaluated } : null,
          windows: [],
        };
      });
      const lock = inputs.locked.get(s.unique_id);
      const locked = lock ? { method: lock.method, by: lock.locked_by } : null;
      const metric = String(bm.metric ?? 'mase') as MetricName;
      const includeBenchmarks = bm.include_benchmarks !== false;
      return { rows, stored, locked, metric, includeBenchmarks, members: windowMethods({ methods: stored, metric, includeBenchmarks, locked, combine }) };
    });
    const windowsOf = await windowForecastsOf(tx, scope.pipelineId, series.flatMap((s, i) => contests[i]!.members.map((method) => ({ ...keyOf(s), method }))));
    const best: BestWrite[] = [];
    const comb = { forecasts: [] as ForecastWrite[], metrics: [] as MetricsRow[], windows: [] as OriginWrite[] };
    let noForecast = 0;
    const skipped: string[] = [];
    const tick = ticker(run, 'best-method');
    for (const [i, s] of series.entries()) {
      await tick(i);
      const { rows, stored, locked, metric, includeBenchmarks } = contests[i]!;
      if (!rows.length) {
        noForecast++;
        continue;
      }
      const period = periodOf(params, s.unique_id);
      const hist = historyOf(s, inputs);
      const at = new Map(hist.weeks.map((w, j) => [w, j]));
      const wins = windowsOf.get(s.unique_id) ?? [];
      for (const m of stored) {
        m.windows = wins.filter((w) => w.method === m.method).map((w) => ({ origin_week: w.origin_week, mean: w.yhat, lower: w.yhat_lower, upper: w.yhat_upper, actual: w.actual }));
      }
      const choice = chooseBest({
        methods: stored,
        metric,
        includeBenchmarks,
        locked,
        combine,
        scaleOf: (week) => {
          const j = at.get(week);
          return j === undefined ? undefined : maseScale(hist.y.subarray(0, j + 1), period).scale;
        },
        adjustments: inputs.adjustments.get(s.unique_id) ?? [],
      });
      // a series without backtest cannot have a combination: not worth a log line each
      if (choice.combination_skipped && choice.ranking.some((r) => r.origins_evaluated > 0)) skipped.push(`${s.unique_id} combination (${choice.combination_skipped})`);
      best.push({ ...keyOf(s), best_method: choice.best, runner_up_method: choice.runner_up, best_score: choice.best_score, metric: choice.metric, locked: choice.locked, ranking: choice.ranking, reason: choice.reason });
      const c = choice.combination;
      if (c) {
        const first = rows.find((r) => r.method === c.members[0])!;
        comb.forecasts.push({
          ...keyOf(s), method: COMBINATION, scenario_id: scenario?.id ?? null, start_week: c.forecast.start_week, yhat: c.forecast.yhat, yhat_lower: c.forecast.lower,
          yhat_upper: c.forecast.upper, level: first.level, params: { members: c.members, weights: c.weights, adjusted_weeks: c.forecast.adjusted_weeks },
        });
        comb.metrics.push({ ...keyOf(s), method: COMBINATION, mae: c.metrics.mae, rmse: c.metrics.rmse, mase: c.metrics.mase, bias: c.metrics.bias, coverage_90: c.metrics.coverage_90, smape: c.metrics.smape, origins_evaluated: c.metrics.origins_evaluated, points: c.metrics.n });
        for (const w of c.windows) comb.windows.push({ ...keyOf(s), method: COMBINATION, origin_week: w.origin_week, yhat: w.mean, yhat_lower: w.lower, yhat_upper: w.upper, actual: w.actual });
      }
    }
    const note = [noForecast ? `${noForecast} series without forecast (run the forecast step first)` : '', (await logSkipped(run, 'best-method', skipped)) ?? ''].filter(Boolean).join('; ');
    return { rows: await replaceBestMethods(tx, scope.pipelineId, keys, best, comb, run.jobId), note: note || undefined };
  },
};
