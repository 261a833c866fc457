/**
 * SQL of the forecast, backtest, backtest-forecast and best-method steps (tables of migration 007): what they read
 * about a chunk's series and how they rewrite their rows. Every write first deletes the rows of exactly the chunk's
 * series for the run's pipeline (keysIn) and then inserts with one unnest statement per table, so a retried chunk
 * writes the same rows again and never touches series outside the run's scope. What all result tables share (array
 * literals, NULL as NaN, dropOutOfScope) and the reads of the earlier steps' rows (correctedHistoryInRange,
 * characteristicsFor) are db/seriesResults.ts's.
 */
import { finiteOrNull } from '../domain/forecast/prepare';
import type { SeriesKey } from './etl';
import { sql, type Tx } from './pool';
import type { TypeNameIdentifier } from 'slonik';
import { insertHoldingReferences, type RowKeys } from './heldReferences';
import { floatSlice, packFloatColumn, rowsWithPackedColumns, type PackedFloatColumn } from './floatColumns';
import { nanIfNull, uniqueId } from './seriesResults';
import { keysIn } from './seriesSteps';

function groupBy<T extends SeriesKey>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = uniqueId(r);
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
  return new Map(rows.map((r) => [uniqueId(r), { method: r.method, locked_by: r.locked_by }]));
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
  return new Map(rows.map((r) => [uniqueId(r), r.methods]));
}

/** One method's backtest metrics of a series, as the backtest step writes them and best-method reads them (NULL as NaN). */
export interface MetricsRow extends SeriesKey {
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
export async function backtestMetricsOf(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, MetricsRow[]>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points
    FROM backtest_metrics WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)} ORDER BY item_id, site_id, method`)) as Array<Record<string, any>>;
  return groupBy(rows.map((r) => ({
    item_id: r.item_id, site_id: r.site_id, method: r.method, mae: nanIfNull(r.mae), rmse: nanIfNull(r.rmse), mase: nanIfNull(r.mase), bias: nanIfNull(r.bias),
    coverage_90: nanIfNull(r.coverage_90), smape: nanIfNull(r.smape), origins_evaluated: r.origins_evaluated, points: r.points,
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

/**
 * Backtest windows (kind 'window') of the pipeline for the given (series, method) pairs, by unique id, by method and
 * oldest origin first. Pairs rather than whole series: the best-method step needs the combination's members only, and
 * the windows are most of what it reads (65 rows of four arrays per series at a tournament's size).
 */
export async function windowForecastsOf(tx: Tx, pipelineId: number, wanted: ReadonlyArray<SeriesKey & { method: string }>): Promise<Map<string, StoredWindow[]>> {
  if (!wanted.length) return new Map();
  const pairs = sql.unnest(wanted.map((w) => [w.item_id, w.site_id, w.method]), ['int4', 'int4', 'text']);
  const rows = (await tx.any(sql.unsafe`
    SELECT b.item_id, b.site_id, b.method, b.origin_week, b.yhat, b.yhat_lower, b.yhat_upper, b.actual
    FROM ${pairs} AS p(item_id, site_id, method)
    JOIN backtest_forecasts b ON b.pipeline_id = ${pipelineId} AND b.item_id = p.item_id AND b.site_id = p.site_id AND b.kind = 'window' AND b.method = p.method
    ORDER BY b.item_id, b.site_id, b.method, b.origin_week`)) as Array<Record<string, any>>;
  return groupBy(rows.map((r) => ({ ...r, actual: (r.actual ?? []).map(nanIfNull) }) as StoredWindow));
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

/** The series key every result table here carries: (item_id, site_id) → series, checked set-based (db/heldReferences.ts). */
export const seriesKeysOf = (rows: readonly SeriesKey[]): RowKeys[] => [{ columns: ['item_id', 'site_id'], types: ['int4', 'int4'], tuples: rows.map((r) => [r.item_id, r.site_id]) }];

async function insertForecasts(tx: Tx, pipelineId: number, rows: readonly ForecastWrite[], jobId: string): Promise<void> {
  if (!rows.length) return;
  await insertHoldingReferences(tx, 'forecast_results', seriesKeysOf(rows), sql.unsafe`
    INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level, params, job_id)
    SELECT ${pipelineId}, u.item_id, u.site_id, u.method, u.scenario_id, u.start_week, ${floatSlice('yhat')}, ${floatSlice('lo')}, ${floatSlice('hi')}, u.level, u.params::jsonb, ${jobId}
    ${bandsFrom(
      rows,
      (r) => [r.item_id, r.site_id, r.method, r.scenario_id, r.start_week, r.level, JSON.stringify(r.params)],
      ['int4', 'int4', 'text', 'int4', 'date', 'float8', 'text'],
      ['item_id', 'site_id', 'method', 'scenario_id', 'start_week', 'level', 'params'],
    )}`);
}

/**
 * The FROM clause of rows with a forecast band (yhat, lo, hi) and optionally `actual`: the other columns from
 * `scalars`, the arrays packed in binary (db/floatColumns.ts).
 */
function bandsFrom<R extends { yhat: ArrayLike<number>; yhat_lower: ArrayLike<number>; yhat_upper: ArrayLike<number>; actual?: ArrayLike<number> | null }>(
  rows: readonly R[],
  scalars: (r: R) => unknown[],
  types: readonly TypeNameIdentifier[],
  names: readonly string[],
  withActual = false,
) {
  const columns: Array<readonly [string, PackedFloatColumn]> = [
    ['yhat', packFloatColumn(rows.map((r) => r.yhat))],
    ['lo', packFloatColumn(rows.map((r) => r.yhat_lower))],
    ['hi', packFloatColumn(rows.map((r) => r.yhat_upper))],
    ...(withActual ? [['actual', packFloatColumn(rows.map((r) => r.actual ?? null))] as const] : []),
  ];
  return rowsWithPackedColumns(rows.map(scalars), types, names, columns);
}

/** Forecast step: replaces every forecast_results row (every method) of the chunk's series for the pipeline. */
export async function replaceForecastResults(tx: Tx, pipelineId: number, keys: readonly SeriesKey[], rows: readonly ForecastWrite[], jobId: string): Promise<number> {
  if (!keys.length) return 0;
  await tx.query(sql.unsafe`DELETE FROM forecast_results WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`);
  await insertForecasts(tx, pipelineId, rows, jobId);
  return rows.length;
}

export interface OriginWrite extends SeriesKey {
  method: string;
  origin_week: string;
  yhat: ArrayLike<number>;
  yhat_lower: ArrayLike<number>;
  yhat_upper: ArrayLike<number>;
  actual: ArrayLike<number> | null;
}

async function insertMetrics(tx: Tx, pipelineId: number, rows: readonly MetricsRow[], jobId: string): Promise<void> {
  if (!rows.length) return;
  await insertHoldingReferences(tx, 'backtest_metrics', seriesKeysOf(rows), sql.unsafe`
    INSERT INTO backtest_metrics (pipeline_id, item_id, site_id, method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points, job_id)
    SELECT ${pipelineId}, u.*, ${jobId}
    FROM ${sql.unnest(
      rows.map((r) => [r.item_id, r.site_id, r.method, finiteOrNull(r.mae), finiteOrNull(r.rmse), finiteOrNull(r.mase), finiteOrNull(r.bias), finiteOrNull(r.coverage_90), finiteOrNull(r.smape), r.origins_evaluated, r.points]),
      ['int4', 'int4', 'text', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'int4', 'int4'],
    )} AS u(item_id, site_id, method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points)`);
}

async function insertOrigins(tx: Tx, pipelineId: number, kind: 'window' | 'origin', rows: readonly OriginWrite[], jobId: string): Promise<void> {
  if (!rows.length) return;
  await insertHoldingReferences(tx, 'backtest_forecasts', seriesKeysOf(rows), sql.unsafe`
    INSERT INTO backtest_forecasts (pipeline_id, item_id, site_id, kind, method, origin_week, yhat, yhat_lower, yhat_upper, actual, job_id)
    SELECT ${pipelineId}, u.item_id, u.site_id, ${kind}, u.method, u.origin_week, ${floatSlice('yhat')}, ${floatSlice('lo')}, ${floatSlice('hi')}, ${floatSlice('actual')}, ${jobId}
    ${bandsFrom(rows, (r) => [r.item_id, r.site_id, r.method, r.origin_week], ['int4', 'int4', 'text', 'date'], ['item_id', 'site_id', 'method', 'origin_week'], true)}`);
}

/** Backtest step: replaces the metrics (every method, the combination's too) and the 'window' forecasts of the chunk's series. */
export async function replaceBacktest(tx: Tx, pipelineId: number, keys: readonly SeriesKey[], metrics: readonly MetricsRow[], windows: readonly OriginWrite[], jobId: string): Promise<number> {
  if (!keys.length) return 0;
  await tx.query(sql.unsafe`DELETE FROM backtest_metrics WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`);
  await tx.query(sql.unsafe`DELETE FROM backtest_forecasts WHERE pipeline_id = ${pipelineId} AND kind = 'window' AND ${keysIn(keys)}`);
  await insertMetrics(tx, pipelineId, metrics, jobId);
  await insertOrigins(tx, pipelineId, 'window', windows, jobId);
  return metrics.length + windows.length;
}

/** What 'origin' forecasts a chunk's series already have: `<method>@<origin_week>` → forecast length, per series. */
export async function originInventoryOf(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, Map<string, number>>> {
  if (!keys.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, method, origin_week, cardinality(yhat) AS weeks FROM backtest_forecasts
    WHERE pipeline_id = ${pipelineId} AND kind = 'origin' AND ${keysIn(keys)}`)) as Array<SeriesKey & { method: string; origin_week: string; weeks: number }>;
  const out = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const k = uniqueId(r);
    if (!out.has(k)) out.set(k, new Map());
    out.get(k)!.set(`${r.method}@${r.origin_week}`, r.weeks);
  }
  return out;
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
  combination: { forecasts: readonly ForecastWrite[]; metrics: readonly MetricsRow[]; windows: readonly OriginWrite[] },
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
        best.map((b) => [b.item_id, b.site_id, b.best_method, b.runner_up_method, finiteOrNull(b.best_score), b.metric, b.locked, JSON.stringify(b.ranking), b.reason]),
        ['int4', 'int4', 'text', 'text', 'float8', 'text', 'bool', 'text', 'text'],
      )} AS u(item_id, site_id, best, runner, score, metric, locked, ranking, reason)`);
  }
  await insertForecasts(tx, pipelineId, combination.forecasts, jobId);
  await insertMetrics(tx, pipelineId, combination.metrics, jobId);
  await insertOrigins(tx, pipelineId, 'window', combination.windows, jobId);
  return best.length + combination.forecasts.length + combination.metrics.length + combination.windows.length;
}
