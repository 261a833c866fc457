/**
 * Realistic forecasting results for one series, written straight into the migration-007 tables, so the read routes can
 * be tested before (and independently of) the steps that will write them. The numbers come from the real pure engines
 * (outlier detection, characterisation, the forecasting methods, the accuracy metrics, distribution fitting) run on the
 * fixture's history, and everything written is returned, so a test asserts what the API answers against the returned
 * values rather than against copies of the formulas.
 *
 * What is written for the series (all for `pipelineId`, default 0):
 * - items / sites / series rows (created when missing) and the `series` statistics of the etl step;
 * - series_weekly: the history from `start` (Monday), `null` = a closed calendar week;
 * - series_outliers: detectOutliers(method) on the history (NaN for closed weeks);
 * - series_characteristics: characterize(corrected history, period);
 * - forecast_results: each method fitted on the whole corrected history (closed weeks dropped), `horizon` weeks from
 *   the week after the last history week, at level 0.9;
 * - backtest_forecasts kind 'window': `windows` origins `step` weeks apart, each `windowHorizon` weeks long, the last
 *   window ending with the last history week, with the actuals; kind 'origin': the same origins, `horizon` weeks long
 *   (actuals where the history has them). An origin is the last week of the training data;
 * - backtest_metrics: accuracy() of every method over its windows (MASE scaled on the last origin's training data);
 * - series_best_method: the lowest `metric` wins (ties: the order of `methods`), runner-up second; with `locked`, the
 *   locked method wins, locked = true, and series_locked_methods holds the lock;
 * - series_distributions: fitDistributions on the corrected weekly history (basis 'weekly').
 * Every part can be switched off (false), so "not computed yet" cases can be tested as well.
 */
import { characterize, type Characteristics } from '../../domain/characterization/characterize';
import { fitDistributions, type Fit } from '../../domain/distribution/fit';
import { accuracy } from '../../domain/forecast/metrics';
import { runMethod } from '../../domain/forecast/registry';
import { detectOutliers, type OutlierMethod } from '../../domain/outlier/detect';
import { addWeeks } from '../../domain/time/weeks';
import type { SeriesKey } from '../../db/etl';
import type { MetricsRow } from '../../db/forecastResults';
import { sql, withTenant, type Db, type Tx } from '../../db/pool';
import type { CharacteristicsWrite, OutlierWrite } from '../../db/seriesResults';


export interface ForecastFixtureOptions {
  /** item code (created when missing); default a fresh `FX-<n>` */
  item?: string;
  /** site code (created when missing); default `FX-SITE` */
  site?: string;
  pipelineId?: number;
  /** Monday of the first history week (default 2025-01-06) */
  start?: string;
  /** weekly demand, oldest first; null = closed week (default DEFAULT_HISTORY: 52 weeks, a spike at week 30, week 40 closed) */
  y?: Array<number | null>;
  /** seasonal period given to the engines (default 52) */
  period?: number;
  /** methods fitted and backtested (default ['naive', 'moving_average', 'ses', 'theta']) */
  methods?: string[];
  /** weeks of the current and origin forecasts (default 13) */
  horizon?: number;
  /** backtest origins (default 3), weeks between them (default 4) and weeks scored per window (default 4) */
  windows?: number;
  step?: number;
  windowHorizon?: number;
  /** outlier detection method, or false for no outlier row (default 'hampel') */
  outliers?: OutlierMethod | false;
  characteristics?: boolean;
  forecasts?: boolean;
  backtest?: boolean;
  bestMethod?: boolean;
  /** ranking metric of the best method (default 'mase') */
  metric?: 'mase' | 'mae' | 'rmse' | 'bias';
  /** a planner's lock: written to series_locked_methods and honoured by the best method */
  locked?: string | null;
  distribution?: boolean;
}

export interface FixtureForecast {
  yhat: number[];
  yhat_lower: number[];
  yhat_upper: number[];
}

export interface FixtureWindow extends FixtureForecast {
  method: string;
  /** last training week */
  origin: string;
  actual: Array<number | null>;
}

/** One method's backtest metrics of the series, as the backtest step writes them. */
export type FixtureMetrics = Omit<MetricsRow, keyof SeriesKey | 'method'>;

export interface ForecastFixture {
  unique_id: string;
  item_id: number;
  site_id: number;
  pipeline_id: number;
  /** history Mondays, oldest first */
  weeks: string[];
  y: Array<number | null>;
  /** the outlier step's corrected history (null for closed weeks); y when outliers is false */
  corrected: Array<number | null>;
  outliers: { method: string; params: Record<string, unknown>; points: Array<{ ds: string; y: number; corrected_y: number; score: number; direction: 'up' | 'down' }> } | null;
  characteristics: Characteristics | null;
  /** first week of the current forecasts */
  forecastStart: string;
  horizon: number;
  forecasts: Record<string, FixtureForecast>;
  /** backtest origins, oldest first */
  origins: string[];
  windows: FixtureWindow[];
  originForecasts: FixtureWindow[];
  metrics: Record<string, FixtureMetrics>;
  best: { best_method: string; runner_up_method: string | null; best_score: number; metric: string; locked: boolean; ranking: Array<{ method: string; score: number; origins_evaluated: number }>; reason: string } | null;
  distribution: { best: Fit; candidates: Fit[]; n: number } | null;
}

/** 52 weeks of smooth demand around 20 with a 13-week cycle, a spike (90) at week 30 and week 40 closed. */
export const DEFAULT_HISTORY: Array<number | null> = Array.from({ length: 52 }, (_, i) =>
  i === 40 ? null : i === 30 ? 90 : Math.round(20 + 4 * Math.sin((2 * Math.PI * i) / 13) + (((i * 7) % 5) - 2)),
);

let counter = 0;

async function ensureSeries(tx: Tx, item: string, site: string): Promise<{ item_id: number; site_id: number }> {
  const item_id = (await tx.oneFirst(sql.unsafe`
    INSERT INTO items (xuid, name) VALUES (${item}, ${`Item ${item}`}) ON CONFLICT (xuid) DO UPDATE SET xuid = EXCLUDED.xuid RETURNING id`)) as number;
  const site_id = (await tx.oneFirst(sql.unsafe`
    INSERT INTO sites (xuid, name) VALUES (${site}, ${`Site ${site}`}) ON CONFLICT (xuid) DO UPDATE SET xuid = EXCLUDED.xuid RETURNING id`)) as number;
  await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${item_id}, ${site_id}) ON CONFLICT DO NOTHING`);
  return { item_id, site_id };
}

const finiteOnly = (xs: ReadonlyArray<number | null>) => xs.filter((v): v is number => v !== null && Number.isFinite(v));
/** float8[] that may hold NULL members (closed weeks, unknown actuals), bound as one array literal. */
const arr = (xs: ReadonlyArray<number | null>) => sql.fragment`${`{${xs.map((v) => (v === null || !Number.isFinite(v) ? 'NULL' : String(v))).join(',')}}`}::float8[]`;

// ------------------------------------------------------------------ one row per call, shared with forecastReadsSeed.ts

/** The week-by-week history of a series (tenant-wide), replacing any it had; null = a closed week. */
export async function writeWeeklyHistory(tx: Tx, k: SeriesKey, weeks: readonly string[], y: ReadonlyArray<number | null>): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM series_weekly WHERE item_id = ${k.item_id} AND site_id = ${k.site_id}`);
  await tx.query(sql.unsafe`
    INSERT INTO series_weekly (item_id, site_id, week, y, closed, factor)
    SELECT ${k.item_id}, ${k.site_id}, w.week, w.y, w.y IS NULL, CASE WHEN w.y IS NULL THEN 0 ELSE 1 END
    FROM ${sql.unnest(weeks.map((w, i) => [w, y[i]]), ['date', 'numeric'])} AS w(week, y)`);
}

export async function insertOutliers(tx: Tx, p: number, o: Omit<OutlierWrite, 'corrected_y'> & { corrected_y: ReadonlyArray<number | null> }): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO series_outliers (pipeline_id, item_id, site_id, start_week, corrected_y, method, params, outliers, n_outliers)
    VALUES (${p}, ${o.item_id}, ${o.site_id}, ${o.start_week}::date, ${arr(o.corrected_y)}, ${o.method}, ${sql.jsonb(o.params as any)},
      ${sql.jsonb(o.outliers as any)}, ${o.outliers.length})`);
}

export async function insertCharacteristics(tx: Tx, p: number, c: CharacteristicsWrite): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, mean, adi, cv2, zero_ratio, cov, demand_class, is_intermittent,
      has_seasonality, seasonal_period, has_trend, complexity_level, recommended_methods, details)
    VALUES (${p}, ${c.item_id}, ${c.site_id}, ${c.n_observations}, ${c.mean}, ${c.adi}, ${c.cv2}, ${c.zero_ratio}, ${c.cov}, ${c.demand_class},
      ${c.is_intermittent}, ${c.has_seasonality}, ${c.seasonal_period}, ${c.has_trend}, ${c.complexity_level}, ${sql.array([...c.recommended_methods], 'text')},
      ${sql.jsonb(c.details as any)})`);
}

export async function insertForecast(tx: Tx, p: number, k: SeriesKey, method: string, start: string, yhat: number[], lower: number[], upper: number[], scenarioId: number | null = null): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level)
    VALUES (${p}, ${k.item_id}, ${k.site_id}, ${method}, ${scenarioId}, ${start}::date, ${arr(yhat)}, ${arr(lower)}, ${arr(upper)}, 0.9)`);
}

export async function insertWindow(
  tx: Tx, p: number, k: SeriesKey, kind: 'window' | 'origin', method: string, origin: string, yhat: number[], lower: number[], upper: number[], actual: ReadonlyArray<number | null> | null,
): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO backtest_forecasts (pipeline_id, item_id, site_id, kind, method, origin_week, yhat, yhat_lower, yhat_upper, actual)
    VALUES (${p}, ${k.item_id}, ${k.site_id}, ${kind}, ${method}, ${origin}::date, ${arr(yhat)}, ${arr(lower)}, ${arr(upper)}, ${actual ? arr(actual) : null})`);
}

export async function insertMetrics(tx: Tx, p: number, k: SeriesKey, method: string, m: FixtureMetrics): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO backtest_metrics (pipeline_id, item_id, site_id, method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points)
    VALUES (${p}, ${k.item_id}, ${k.site_id}, ${method}, ${m.mae}, ${m.rmse}, ${m.mase}, ${m.bias}, ${m.coverage_90}, ${m.smape}, ${m.origins_evaluated}, ${m.points})`);
}

/** A stored choice; without `choice`: not locked, no ranking, no reason. */
export async function insertBest(
  tx: Tx, p: number, k: SeriesKey, best: string, runnerUp: string | null, score: number, metric: string,
  choice: { locked: boolean; ranking: Array<{ method: string; score: number; origins_evaluated: number }>; reason: string | null } = { locked: false, ranking: [], reason: null },
): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, runner_up_method, best_score, metric, locked, ranking, reason)
    VALUES (${p}, ${k.item_id}, ${k.site_id}, ${best}, ${runnerUp}, ${score}, ${metric}, ${choice.locked}, ${sql.jsonb(choice.ranking as any)}, ${choice.reason})`);
}

function fit(method: string, train: number[], h: number, period: number): FixtureForecast {
  const r = runMethod(method, train, h, { period, level: 0.9 });
  return { yhat: Array.from(r.mean), yhat_lower: Array.from(r.lower), yhat_upper: Array.from(r.upper) };
}

/**
 * Writes a complete set of forecasting results for one series (see the module comment) and returns every value
 * written. Calling it again for the same item and site replaces the series' weekly history (tenant-wide) and the
 * results of `pipelineId` only; a lock written earlier stays unless `locked` sets another.
 */
export async function writeForecastFixture(db: Db, accountId: string, o: ForecastFixtureOptions = {}): Promise<ForecastFixture> {
  const pipelineId = o.pipelineId ?? 0;
  const start = o.start ?? '2025-01-06';
  const y = o.y ?? DEFAULT_HISTORY;
  const period = o.period ?? 52;
  const methods = o.methods ?? ['naive', 'moving_average', 'ses', 'theta'];
  const horizon = o.horizon ?? 13;
  const nWindows = o.windows ?? 3;
  const step = o.step ?? 4;
  const windowHorizon = o.windowHorizon ?? 4;
  const metric = o.metric ?? 'mase';
  const n = y.length;
  const weeks = y.map((_, i) => addWeeks(start, i));
  const forecastStart = addWeeks(start, n);

  // outliers → corrected history
  const yNaN = y.map((v) => (v === null ? Number.NaN : v));
  let corrected: Array<number | null> = [...y];
  let outliers: ForecastFixture['outliers'] = null;
  if (o.outliers !== false) {
    const method = o.outliers ?? 'hampel';
    const r = detectOutliers(yNaN, { method });
    corrected = Array.from(r.corrected, (v) => (Number.isFinite(v) ? v : null));
    outliers = {
      method,
      params: { method, ...(method === 'hampel' ? { window: 6, threshold: 3, correction: 'median' } : method === 'iqr' ? { threshold: 1.5, correction: 'clip' } : {}) },
      points: r.outliers.map((p) => ({ ds: weeks[p.index], y: p.value, corrected_y: p.corrected, score: p.score, direction: p.value > p.corrected ? 'up' : 'down' })),
    };
  }
  const train = finiteOnly(corrected);
  const characteristics = o.characteristics === false ? null : characterize(train, { period });

  // current forecasts
  const forecasts: Record<string, FixtureForecast> = {};
  if (o.forecasts !== false) for (const m of methods) forecasts[m] = fit(m, train, horizon, period);

  // backtest: origins (index of the last training week), oldest first
  const originIdx = Array.from({ length: nWindows }, (_, k) => n - 1 - windowHorizon - step * (nWindows - 1 - k)).filter((i) => i >= 2);
  const origins = originIdx.map((i) => weeks[i]);
  const windows: FixtureWindow[] = [];
  const originForecasts: FixtureWindow[] = [];
  const metrics: Record<string, FixtureMetrics> = {};
  if (o.backtest !== false) {
    for (const m of methods) {
      const all = { a: [] as number[], f: [] as number[], lo: [] as number[], hi: [] as number[] };
      for (const oi of originIdx) {
        const t = finiteOnly(corrected.slice(0, oi + 1));
        const full = fit(m, t, horizon, period);
        const actual = Array.from({ length: horizon }, (_, h) => (oi + 1 + h < n ? y[oi + 1 + h] : null));
        originForecasts.push({ method: m, origin: weeks[oi], ...full, actual });
        const w = { yhat: full.yhat.slice(0, windowHorizon), yhat_lower: full.yhat_lower.slice(0, windowHorizon), yhat_upper: full.yhat_upper.slice(0, windowHorizon) };
        windows.push({ method: m, origin: weeks[oi], ...w, actual: actual.slice(0, windowHorizon) });
        actual.slice(0, windowHorizon).forEach((a, h) => {
          all.a.push(a === null ? Number.NaN : a);
          all.f.push(w.yhat[h]);
          all.lo.push(w.yhat_lower[h]);
          all.hi.push(w.yhat_upper[h]);
        });
      }
      const insample = finiteOnly(corrected.slice(0, originIdx[originIdx.length - 1] + 1));
      const acc = accuracy(all.a, all.f, insample, period, all.lo, all.hi);
      metrics[m] = { mae: acc.mae, rmse: acc.rmse, mase: acc.mase, bias: acc.bias, coverage_90: acc.coverage_90, smape: acc.smape, origins_evaluated: originIdx.length, points: acc.n };
    }
    windows.sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : a.method < b.method ? -1 : 1));
    originForecasts.sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : a.method < b.method ? -1 : 1));
  }

  let best: ForecastFixture['best'] = null;
  if (o.bestMethod !== false && Object.keys(metrics).length) {
    const score = (m: string) => (metric === 'bias' ? Math.abs(metrics[m].bias) : metrics[m][metric]);
    const ranking = methods
      .map((m, i) => ({ method: m, score: score(m), origins_evaluated: metrics[m].origins_evaluated, i }))
      .sort((a, b) => a.score - b.score || a.i - b.i)
      .map(({ method, score: s, origins_evaluated }) => ({ method, score: s, origins_evaluated }));
    const lockedFirst = o.locked ? [...ranking.filter((r) => r.method === o.locked), ...ranking.filter((r) => r.method !== o.locked)] : ranking;
    const winner = lockedFirst[0];
    best = {
      best_method: o.locked ?? winner.method,
      runner_up_method: lockedFirst[1]?.method ?? null,
      best_score: ranking.find((r) => r.method === (o.locked ?? winner.method))?.score ?? Number.NaN,
      metric,
      locked: Boolean(o.locked),
      ranking: lockedFirst,
      reason: o.locked ? `locked by a planner (${o.locked})` : `lowest ${metric} over ${originIdx.length} backtest origins`,
    };
  }

  const distribution = o.distribution === false ? null : (() => {
    const r = fitDistributions(train);
    return { best: r.best, candidates: r.candidates, n: r.n };
  })();

  const item = o.item ?? `FX-${process.pid}-${++counter}-${Date.now() % 100000}`;
  const site = o.site ?? 'FX-SITE';
  const key = await withTenant(db, accountId, async (tx) => {
    const k = await ensureSeries(tx, item, site);
    const where = sql.fragment`item_id = ${k.item_id} AND site_id = ${k.site_id}`;
    const wp = sql.fragment`pipeline_id = ${pipelineId} AND ${where}`;
    const open = train.length;
    const values = finiteOnly(y);
    await tx.query(sql.unsafe`
      UPDATE series SET n_observations = ${values.length}, date_range_start = ${weeks[0]}::date, date_range_end = ${weeks[n - 1]}::date,
        mean = ${values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)}, zero_ratio = ${values.filter((v) => v === 0).length / Math.max(1, values.length)},
        total_demand = ${values.reduce((a, b) => a + b, 0)}, closed_weeks = ${n - values.length}, updated_at = now()
      WHERE ${where}`);
    await writeWeeklyHistory(tx, k, weeks, y);
    for (const table of ['series_outliers', 'series_characteristics', 'forecast_results', 'backtest_metrics', 'backtest_forecasts', 'series_best_method', 'series_distributions']) {
      await tx.query(sql.unsafe`DELETE FROM ${sql.identifier([table])} WHERE ${wp}`);
    }
    if (outliers) await insertOutliers(tx, pipelineId, { ...k, start_week: start, corrected_y: corrected, method: outliers.method, params: outliers.params, outliers: outliers.points });
    if (characteristics) {
      const c = characteristics;
      await insertCharacteristics(tx, pipelineId, {
        ...k, n_observations: c.n_observations, mean: c.mean, adi: c.adi, cv2: c.cv2, zero_ratio: c.zero_ratio, cov: c.cov, demand_class: c.demand_class,
        is_intermittent: c.is_intermittent, has_seasonality: c.has_seasonality, seasonal_period: c.period, has_trend: c.has_trend, complexity_level: c.complexity_level,
        recommended_methods: [...c.recommended_methods],
        details: { trend_z: c.trend_z, trend_pvalue: c.trend_pvalue, seasonal_acf: c.seasonal_acf, seasonal_strength: c.seasonal_strength, open_weeks: open },
      });
    }
    for (const [m, f] of Object.entries(forecasts)) await insertForecast(tx, pipelineId, k, m, forecastStart, f.yhat, f.yhat_lower, f.yhat_upper);
    for (const [kind, list] of [['window', windows], ['origin', originForecasts]] as const) {
      for (const w of list) await insertWindow(tx, pipelineId, k, kind, w.method, w.origin, w.yhat, w.yhat_lower, w.yhat_upper, w.actual);
    }
    for (const [m, x] of Object.entries(metrics)) await insertMetrics(tx, pipelineId, k, m, x);
    if (best) await insertBest(tx, pipelineId, k, best.best_method, best.runner_up_method, best.best_score, best.metric, best);
    if (o.locked) {
      await tx.query(sql.unsafe`
        INSERT INTO series_locked_methods (item_id, site_id, method, locked_by) VALUES (${k.item_id}, ${k.site_id}, ${o.locked}, 'fixture@example.com')
        ON CONFLICT (item_id, site_id) DO UPDATE SET method = EXCLUDED.method, locked_by = EXCLUDED.locked_by`);
    }
    if (distribution) {
      const b = distribution.best;
      await tx.query(sql.unsafe`
        INSERT INTO series_distributions (pipeline_id, item_id, site_id, distribution_type, mean, std, params, ks_statistic, ks_pvalue, service_level_quantiles,
          candidates, basis, lead_time_weeks, n)
        VALUES (${pipelineId}, ${k.item_id}, ${k.site_id}, ${b.distribution_type}, ${b.mean}, ${b.std}, ${sql.jsonb(b.params)}, ${b.ks_statistic}, ${b.ks_pvalue},
          ${sql.jsonb(b.service_level_quantiles)}, ${sql.jsonb(distribution.candidates as any)}, 'weekly', NULL, ${distribution.n})`);
    }
    return k;
  });

  return {
    unique_id: `${key.item_id}_${key.site_id}`, ...key, pipeline_id: pipelineId, weeks, y, corrected, outliers, characteristics,
    forecastStart, horizon, forecasts, origins, windows, originForecasts, metrics, best, distribution,
  };
}
