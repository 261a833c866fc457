/**
 * SQL of the forecast, backtest, backtest-forecast and best-method steps (tables of migration 007): what they read
 * about a chunk's series and how they rewrite their rows. Every write first deletes the rows of exactly the chunk's
 * series for the run's pipeline (keysIn) and then inserts with one unnest statement per table, so a retried chunk
 * writes the same rows again and never touches series outside the run's scope. Weekly vectors travel as `{…}` array
 * literals (unnest cannot carry arrays of arrays); a non-finite element is stored as NULL. Vectors that may hold NULLs
 * are read through array_to_json: the pool's float8 type parser maps each array element through Number(), which would
 * turn a NULL element into 0.
 */
import type { SeriesKey } from './etl';
import { sql, type Tx } from './pool';
import { keysIn } from './seriesSteps';

const uid = (r: SeriesKey) => `${r.item_id}_${r.site_id}`;

/** `{1,2.5,NULL}`: a float8[] literal, full precision (JS prints the shortest string that reads back the same double). */
export const float8Literal = (v: ArrayLike<number>): string => `{${Array.from(v, (x) => (Number.isFinite(x) ? String(x) : 'NULL')).join(',')}}`;

const nanOf = (v: ReadonlyArray<number | null>): number[] => v.map((x) => (x === null ? Number.NaN : x));
const nullOf = (v: number | null | undefined): number | null => (v === null || v === undefined || !Number.isFinite(v) ? null : v);

function groupBy<T extends SeriesKey>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = uid(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ reads

export interface ForecastScenario {
  id: number;
  horizon_weeks: number;
  methods: string[];
}

/** The run's forecast scenario: the given one, else the pipeline's forecast_scenario_id; null when neither is set. */
export async function forecastScenarioOf(tx: Tx, scenarioId: number | null, pipelineId: number): Promise<ForecastScenario | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT id, horizon_weeks, methods FROM forecast_scenarios
    WHERE id = COALESCE(${scenarioId}::int4, (SELECT forecast_scenario_id FROM scenario_pipelines WHERE id = ${pipelineId}))`)) as ForecastScenario | null;
}

/** Planner locks (series_locked_methods) of the series, by unique id. */
export async function lockedMethodsOf(tx: Tx, keys: readonly SeriesKey[]): Promise<Map<string, { method: string; locked_by: string | null }>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`SELECT item_id, site_id, method, locked_by FROM series_locked_methods WHERE ${keysIn(keys)}`)) as Array<SeriesKey & { method: string; locked_by: string | null }>;
  return new Map(rows.map((r) => [uid(r), { method: r.method, locked_by: r.locked_by }]));
}

/** Demand adjustments (demand_adjustments) of the series, by unique id, oldest week first. */
export async function adjustmentsOf(tx: Tx, keys: readonly SeriesKey[]): Promise<Map<string, Array<{ ds: string; corrected_y: number }>>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, ds, corrected_y FROM demand_adjustments WHERE ${keysIn(keys)} ORDER BY item_id, site_id, ds`)) as Array<SeriesKey & { ds: string; corrected_y: number }>;
  const out = new Map<string, Array<{ ds: string; corrected_y: number }>>();
  for (const [k, list] of groupBy(rows)) out.set(k, list.map((r) => ({ ds: r.ds, corrected_y: r.corrected_y })));
  return out;
}

/**
 * The outlier step's corrected history (series_outliers) of the series for the pipeline, by unique id. The same read
 * as db/seriesResults.ts's, kept here until the two are merged.
 */
export async function correctedHistoryOf(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, { start: string; values: Array<number | null> }>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, start_week, array_to_json(corrected_y) AS corrected_y FROM series_outliers WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`)) as Array<SeriesKey & { start_week: string; corrected_y: Array<number | null> }>;
  return new Map(rows.map((r) => [uid(r), { start: r.start_week, values: r.corrected_y }]));
}

/** The characterization step's recommended methods (series_characteristics) of the series for the pipeline. */
export async function recommendedMethodsOf(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, string[]>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, recommended_methods FROM series_characteristics WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`)) as Array<SeriesKey & { recommended_methods: string[] }>;
  return new Map(rows.map((r) => [uid(r), r.recommended_methods]));
}

export interface StoredForecast extends SeriesKey {
  method: string;
  start_week: string;
  yhat: number[];
  yhat_lower: number[];
  yhat_upper: number[];
  level: number;
  params: Record<string, unknown>;
}

/** The forecast step's rows of the series for the pipeline, by unique id. */
export async function forecastRowsOf(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, StoredForecast[]>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level, params
    FROM forecast_results WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)} ORDER BY item_id, site_id, method`)) as StoredForecast[];
  return groupBy(rows);
}

/** The single methods the forecast step stored per series (combination excluded): what the backtests evaluate. */
export async function forecastMethodsOf(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, string[]>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, array_agg(method ORDER BY method) AS methods FROM forecast_results
    WHERE pipeline_id = ${pipelineId} AND method <> 'combination' AND ${keysIn(keys)} GROUP BY item_id, site_id`)) as Array<SeriesKey & { methods: string[] }>;
  return new Map(rows.map((r) => [uid(r), r.methods]));
}

export interface StoredMetrics extends SeriesKey {
  method: string;
  mae: number;
  rmse: number;
  mase: number;
  bias: number;
  coverage_90: number;
  smape: number;
  origins_evaluated: number;
  points: number;
}

/** Backtest metrics of the series for the pipeline (NULL read as NaN), by unique id. */
export async function backtestMetricsOf(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, StoredMetrics[]>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points
    FROM backtest_metrics WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)} ORDER BY item_id, site_id, method`)) as Array<Record<string, any>>;
  const nan = (v: number | null) => (v === null ? Number.NaN : v);
  return groupBy(rows.map((r) => ({
    item_id: r.item_id, site_id: r.site_id, method: r.method, mae: nan(r.mae), rmse: nan(r.rmse), mase: nan(r.mase), bias: nan(r.bias),
    coverage_90: nan(r.coverage_90), smape: nan(r.smape), origins_evaluated: r.origins_evaluated, points: r.points,
  })));
}

export interface StoredWindow extends SeriesKey {
  method: string;
  origin_week: string;
  yhat: number[];
  yhat_lower: number[];
  yhat_upper: number[];
  /** NaN where NULL */
  actual: number[];
}

/** Backtest windows (kind 'window') of the series for the pipeline, by unique id, oldest origin first. */
export async function windowForecastsOf(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, StoredWindow[]>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, method, origin_week, yhat, yhat_lower, yhat_upper, array_to_json(actual) AS actual FROM backtest_forecasts
    WHERE pipeline_id = ${pipelineId} AND kind = 'window' AND ${keysIn(keys)} ORDER BY item_id, site_id, method, origin_week`)) as Array<Record<string, any>>;
  return groupBy(rows.map((r) => ({ ...r, actual: nanOf(r.actual ?? []) }) as StoredWindow));
}

// ------------------------------------------------------------------------------------------------ writes

export interface ForecastWrite extends SeriesKey {
  method: string;
  scenario_id: number | null;
  start_week: string;
  yhat: ArrayLike<number>;
  yhat_lower: ArrayLike<number>;
  yhat_upper: ArrayLike<number>;
  level: number;
  params: Record<string, unknown>;
}

async function insertForecasts(tx: Tx, pipelineId: number, rows: readonly ForecastWrite[], jobId: string): Promise<void> {
  if (!rows.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level, params, job_id)
    SELECT ${pipelineId}, u.item_id, u.site_id, u.method, u.scenario_id, u.start_week, u.yhat::float8[], u.lo::float8[], u.hi::float8[], u.level, u.params::jsonb, ${jobId}
    FROM ${sql.unnest(
      rows.map((r) => [r.item_id, r.site_id, r.method, r.scenario_id, r.start_week, float8Literal(r.yhat), float8Literal(r.yhat_lower), float8Literal(r.yhat_upper), r.level, JSON.stringify(r.params)]),
      ['int4', 'int4', 'text', 'int4', 'date', 'text', 'text', 'text', 'float8', 'text'],
    )} AS u(item_id, site_id, method, scenario_id, start_week, yhat, lo, hi, level, params)`);
}

/** Forecast step: replaces every forecast_results row (every method) of the chunk's series for the pipeline. */
export async function replaceForecastResults(tx: Tx, pipelineId: number, keys: readonly SeriesKey[], rows: readonly ForecastWrite[], jobId: string): Promise<number> {
  if (!keys.length) return 0;
  await tx.query(sql.unsafe`DELETE FROM forecast_results WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`);
  await insertForecasts(tx, pipelineId, rows, jobId);
  return rows.length;
}

export interface MetricsWrite extends SeriesKey {
  method: string;
  mae: number;
  rmse: number;
  mase: number;
  bias: number;
  coverage_90: number;
  smape: number;
  origins_evaluated: number;
  points: number;
}

export interface OriginWrite extends SeriesKey {
  method: string;
  origin_week: string;
  yhat: ArrayLike<number>;
  yhat_lower: ArrayLike<number>;
  yhat_upper: ArrayLike<number>;
  actual: ArrayLike<number> | null;
}

async function insertMetrics(tx: Tx, pipelineId: number, rows: readonly MetricsWrite[], jobId: string): Promise<void> {
  if (!rows.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO backtest_metrics (pipeline_id, item_id, site_id, method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points, job_id)
    SELECT ${pipelineId}, u.*, ${jobId}
    FROM ${sql.unnest(
      rows.map((r) => [r.item_id, r.site_id, r.method, nullOf(r.mae), nullOf(r.rmse), nullOf(r.mase), nullOf(r.bias), nullOf(r.coverage_90), nullOf(r.smape), r.origins_evaluated, r.points]),
      ['int4', 'int4', 'text', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'int4', 'int4'],
    )} AS u(item_id, site_id, method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points)`);
}

async function insertOrigins(tx: Tx, pipelineId: number, kind: 'window' | 'origin', rows: readonly OriginWrite[], jobId: string): Promise<void> {
  if (!rows.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO backtest_forecasts (pipeline_id, item_id, site_id, kind, method, origin_week, yhat, yhat_lower, yhat_upper, actual, job_id)
    SELECT ${pipelineId}, u.item_id, u.site_id, ${kind}, u.method, u.origin_week, u.yhat::float8[], u.lo::float8[], u.hi::float8[], u.actual::float8[], ${jobId}
    FROM ${sql.unnest(
      rows.map((r) => [r.item_id, r.site_id, r.method, r.origin_week, float8Literal(r.yhat), float8Literal(r.yhat_lower), float8Literal(r.yhat_upper), r.actual ? float8Literal(r.actual) : null]),
      ['int4', 'int4', 'text', 'date', 'text', 'text', 'text', 'text'],
    )} AS u(item_id, site_id, method, origin_week, yhat, lo, hi, actual)`);
}

/** Backtest step: replaces the metrics (every method, the combination's too) and the 'window' forecasts of the chunk's series. */
export async function replaceBacktest(tx: Tx, pipelineId: number, keys: readonly SeriesKey[], metrics: readonly MetricsWrite[], windows: readonly OriginWrite[], jobId: string): Promise<number> {
  if (!keys.length) return 0;
  await tx.query(sql.unsafe`DELETE FROM backtest_metrics WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`);
  await tx.query(sql.unsafe`DELETE FROM backtest_forecasts WHERE pipeline_id = ${pipelineId} AND kind = 'window' AND ${keysIn(keys)}`);
  await insertMetrics(tx, pipelineId, metrics, jobId);
  await insertOrigins(tx, pipelineId, 'window', windows, jobId);
  return metrics.length + windows.length;
}

/** Backtest-forecast step: replaces the 'origin' forecasts of the chunk's series. */
export async function replaceOriginForecasts(tx: Tx, pipelineId: number, keys: readonly SeriesKey[], rows: readonly OriginWrite[], jobId: string): Promise<number> {
  if (!keys.length) return 0;
  await tx.query(sql.unsafe`DELETE FROM backtest_forecasts WHERE pipeline_id = ${pipelineId} AND kind = 'origin' AND ${keysIn(keys)}`);
  await insertOrigins(tx, pipelineId, 'origin', rows, jobId);
  return rows.length;
}

export interface BestWrite extends SeriesKey {
  best_method: string;
  runner_up_method: string | null;
  best_score: number | null;
  metric: string;
  locked: boolean;
  ranking: Array<{ method: string; score: number | null; origins_evaluated: number }>;
  reason: string;
}

/**
 * Best-method step: replaces series_best_method and the combination's rows (forecast, metrics, windows) of the chunk's
 * series; the single methods' rows are the other steps' and stay.
 */
export async function replaceBestMethods(
  tx: Tx,
  pipelineId: number,
  keys: readonly SeriesKey[],
  best: readonly BestWrite[],
  combination: { forecasts: readonly ForecastWrite[]; metrics: readonly MetricsWrite[]; windows: readonly OriginWrite[] },
  jobId: string,
): Promise<number> {
  if (!keys.length) return 0;
  await tx.query(sql.unsafe`DELETE FROM series_best_method WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`);
  await tx.query(sql.unsafe`DELETE FROM forecast_results WHERE pipeline_id = ${pipelineId} AND method = 'combination' AND ${keysIn(keys)}`);
  await tx.query(sql.unsafe`DELETE FROM backtest_metrics WHERE pipeline_id = ${pipelineId} AND method = 'combination' AND ${keysIn(keys)}`);
  await tx.query(sql.unsafe`DELETE FROM backtest_forecasts WHERE pipeline_id = ${pipelineId} AND kind = 'window' AND method = 'combination' AND ${keysIn(keys)}`);
  if (best.length) {
    await tx.query(sql.unsafe`
      INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, runner_up_method, best_score, metric, locked, ranking, reason, job_id)
      SELECT ${pipelineId}, u.item_id, u.site_id, u.best, u.runner, u.score, u.metric, u.locked, u.ranking::jsonb, u.reason, ${jobId}
      FROM ${sql.unnest(
        best.map((b) => [b.item_id, b.site_id, b.best_method, b.runner_up_method, nullOf(b.best_score), b.metric, b.locked, JSON.stringify(b.ranking), b.reason]),
        ['int4', 'int4', 'text', 'text', 'float8', 'text', 'bool', 'text', 'text'],
      )} AS u(item_id, site_id, best, runner, score, metric, locked, ranking, reason)`);
  }
  await insertForecasts(tx, pipelineId, combination.forecasts, jobId);
  await insertMetrics(tx, pipelineId, combination.metrics, jobId);
  await insertOrigins(tx, pipelineId, 'window', combination.windows, jobId);
  return best.length + combination.forecasts.length + combination.metrics.length + combination.windows.length;
}

/** The rows each step owns, as (table, extra condition) pairs for dropOutOfScopeRows. */
export const STEP_TABLES = {
  forecast: [['forecast_results', null]],
  backtest: [['backtest_metrics', null], ['backtest_forecasts', 'window']],
  'backtest-forecast': [['backtest_forecasts', 'origin']],
  'best-method': [['series_best_method', null]],
} as const;

/**
 * After a full run of a pipeline that has segments: drops the step's rows of series outside those segments, so the
 * pipeline's results are exactly its scope (the same rule as db/seriesResults.ts dropOutOfScope for the outlier,
 * characterization and distribution tables). A pipeline without segments, or pipeline 0, keeps every row.
 */
export async function dropOutOfScopeRows(tx: Tx, step: keyof typeof STEP_TABLES, pipelineId: number): Promise<number> {
  if (pipelineId <= 0) return 0;
  let n = 0;
  for (const [table, kind] of STEP_TABLES[step]) {
    const r = await tx.query(sql.unsafe`
      DELETE FROM ${sql.identifier([table])} r
      WHERE r.pipeline_id = ${pipelineId} ${kind ? sql.fragment`AND r.kind = ${kind}` : sql.fragment``}
        AND EXISTS (SELECT 1 FROM pipeline_segments ps WHERE ps.pipeline_id = ${pipelineId})
        AND NOT EXISTS (SELECT 1 FROM pipeline_segments ps JOIN segment_members m ON m.segment_id = ps.segment_id
          WHERE ps.pipeline_id = ${pipelineId} AND m.item_id = r.item_id AND m.site_id = r.site_id)`);
    n += r.rowCount;
  }
  return n;
}
