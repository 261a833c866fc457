import type { SeriesKey } from './etl';
import { sql, type Tx } from './pool';

/**
 * Reads and writes of the per-series forecasting routes (/api/series/{unique_id}/*, /api/adjustments/*) on the result
 * tables of migration 007. Results are read for one pipeline (0 = runs outside any pipeline); locks and demand
 * corrections are tenant-wide.
 */

type Vec = Array<number | null>;

/**
 * Weekly vectors are read through to_json, so a NULL member (a closed week, a missing actual) stays null whatever the
 * float8 type parser does with array elements (before db/pool.ts handled null it became 0), and NaN and ±Infinity,
 * which arrive as strings, become null too: JSON has neither.
 */
const vec = (xs: unknown[] | null): Vec => (xs ?? []).map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null));
const vecs = <T extends object>(row: T, cols: Array<keyof T>): T => {
  for (const c of cols) if (row[c] !== null) (row as any)[c] = vec(row[c] as unknown[]);
  return row;
};

const key = (k: SeriesKey) => sql.fragment`item_id = ${k.item_id} AND site_id = ${k.site_id}`;

/** The weekly history, oldest first; y is null for a closed week. */
export async function weeklyHistory(tx: Tx, k: SeriesKey): Promise<Array<{ ds: string; y: number | null }>> {
  return [...((await tx.any(sql.unsafe`
    SELECT week AS ds, CASE WHEN closed THEN NULL ELSE y::float8 END AS y
    FROM series_weekly WHERE ${key(k)} ORDER BY week`)) as Array<{ ds: string; y: number | null }>)];
}

export interface OutlierRow {
  start_week: string;
  corrected_y: Vec;
  method: string;
  params: Record<string, unknown>;
  outliers: Array<Record<string, unknown>>;
  n_outliers: number;
  job_id: string | null;
  updated_at: string;
}

export async function getOutliers(tx: Tx, k: SeriesKey, pipelineId: number): Promise<OutlierRow | null> {
  const row = (await tx.maybeOne(sql.unsafe`
    SELECT start_week, to_json(corrected_y) AS corrected_y, method, params, outliers, n_outliers, job_id, updated_at
    FROM series_outliers WHERE pipeline_id = ${pipelineId} AND ${key(k)}`)) as OutlierRow | null;
  return row && vecs({ ...row }, ['corrected_y']);
}

export interface CharacteristicsRow {
  n_observations: number;
  mean: number | null;
  adi: number | null;
  cv2: number | null;
  zero_ratio: number | null;
  cov: number | null;
  demand_class: 'smooth' | 'erratic' | 'intermittent' | 'lumpy';
  is_intermittent: boolean;
  has_seasonality: boolean;
  seasonal_period: number;
  has_trend: boolean;
  complexity_level: string;
  recommended_methods: string[];
  details: Record<string, unknown>;
}

export async function getCharacteristics(tx: Tx, k: SeriesKey, pipelineId: number): Promise<CharacteristicsRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT n_observations, mean, adi, cv2, zero_ratio, cov, demand_class, is_intermittent, has_seasonality, seasonal_period,
      has_trend, complexity_level, recommended_methods, details
    FROM series_characteristics WHERE pipeline_id = ${pipelineId} AND ${key(k)}`)) as CharacteristicsRow | null;
}

export interface DistributionRow {
  distribution_type: string;
  mean: number | null;
  std: number | null;
  params: Record<string, unknown>;
  ks_statistic: number | null;
  ks_pvalue: number | null;
  service_level_quantiles: Record<string, number>;
  candidates: Array<Record<string, unknown>>;
  basis: string;
  lead_time_weeks: number | null;
  n: number;
  job_id: string | null;
  updated_at: string;
}

export async function getDistribution(tx: Tx, k: SeriesKey, pipelineId: number): Promise<DistributionRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT distribution_type, mean, std, params, ks_statistic, ks_pvalue, service_level_quantiles, candidates, basis,
      lead_time_weeks, n, job_id, updated_at
    FROM series_distributions WHERE pipeline_id = ${pipelineId} AND ${key(k)}`)) as DistributionRow | null;
}

export interface BestMethodRow {
  best_method: string;
  runner_up_method: string | null;
  best_score: number | null;
  metric: string;
  locked: boolean;
  ranking: Array<{ method: string; score: number | null; origins_evaluated?: number }>;
  reason: string | null;
  updated_at: string;
}

export async function getBestMethod(tx: Tx, k: SeriesKey, pipelineId: number): Promise<BestMethodRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT best_method, runner_up_method, best_score, metric, locked, ranking, reason, updated_at
    FROM series_best_method WHERE pipeline_id = ${pipelineId} AND ${key(k)}`)) as BestMethodRow | null;
}

export interface LockRow {
  method: string;
  locked_by: string | null;
  locked_at: string;
}

export async function getLockedMethod(tx: Tx, k: SeriesKey): Promise<LockRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT method, locked_by, locked_at FROM series_locked_methods WHERE ${key(k)}`)) as LockRow | null;
}

/** Sets the lock; returns the previous one, if any. */
export async function setLockedMethod(tx: Tx, k: SeriesKey, method: string, by: string | null): Promise<{ old: LockRow | null; row: LockRow }> {
  const old = (await tx.maybeOne(sql.unsafe`SELECT method, locked_by, locked_at FROM series_locked_methods WHERE ${key(k)} FOR UPDATE`)) as LockRow | null;
  const row = (await tx.one(sql.unsafe`
    INSERT INTO series_locked_methods (item_id, site_id, method, locked_by) VALUES (${k.item_id}, ${k.site_id}, ${method}, ${by})
    ON CONFLICT (item_id, site_id) DO UPDATE SET method = EXCLUDED.method, locked_by = EXCLUDED.locked_by, locked_at = now()
    RETURNING method, locked_by, locked_at`)) as LockRow;
  return { old, row };
}

export async function deleteLockedMethod(tx: Tx, k: SeriesKey): Promise<LockRow | null> {
  return (await tx.maybeOne(sql.unsafe`DELETE FROM series_locked_methods WHERE ${key(k)} RETURNING method, locked_by, locked_at`)) as LockRow | null;
}

export interface MetricsRow {
  method: string;
  mae: number | null;
  rmse: number | null;
  mase: number | null;
  bias: number | null;
  coverage_90: number | null;
  smape: number | null;
  origins_evaluated: number;
  points: number;
}

export async function backtestMetrics(tx: Tx, k: SeriesKey, pipelineId: number): Promise<MetricsRow[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points
    FROM backtest_metrics WHERE pipeline_id = ${pipelineId} AND ${key(k)} ORDER BY method`)) as MetricsRow[])];
}

export interface ForecastRow {
  method: string;
  start_week: string;
  yhat: Vec;
  yhat_lower: Vec;
  yhat_upper: Vec;
  level: number;
  params: Record<string, unknown>;
  updated_at: string;
}

/** The current forecasts of the series, of the given methods (all when null), by method name. */
export async function forecastResults(tx: Tx, k: SeriesKey, pipelineId: number, methods: readonly string[] | null = null): Promise<ForecastRow[]> {
  const which = methods === null ? sql.fragment`TRUE` : sql.fragment`method = ANY(${sql.array([...methods], 'text')})`;
  const rows = (await tx.any(sql.unsafe`
    SELECT method, start_week, to_json(yhat) AS yhat, to_json(yhat_lower) AS yhat_lower, to_json(yhat_upper) AS yhat_upper, level, params, updated_at
    FROM forecast_results WHERE pipeline_id = ${pipelineId} AND ${key(k)} AND ${which} ORDER BY method`)) as ForecastRow[];
  return rows.map((r) => vecs({ ...r }, ['yhat', 'yhat_lower', 'yhat_upper']));
}

export interface BacktestForecastRow {
  method: string;
  origin_week: string;
  yhat: Vec;
  yhat_lower: Vec;
  yhat_upper: Vec;
  actual: Vec | null;
}

export async function backtestForecasts(tx: Tx, k: SeriesKey, pipelineId: number, kind: 'window' | 'origin', method?: string): Promise<BacktestForecastRow[]> {
  const which = method === undefined ? sql.fragment`TRUE` : sql.fragment`method = ${method}`;
  const rows = (await tx.any(sql.unsafe`
    SELECT method, origin_week, to_json(yhat) AS yhat, to_json(yhat_lower) AS yhat_lower, to_json(yhat_upper) AS yhat_upper, to_json(actual) AS actual
    FROM backtest_forecasts WHERE pipeline_id = ${pipelineId} AND ${key(k)} AND kind = ${kind} AND ${which}
    ORDER BY origin_week, method`)) as BacktestForecastRow[];
  return rows.map((r) => vecs({ ...r }, ['yhat', 'yhat_lower', 'yhat_upper', 'actual']));
}

export interface AdjustmentRow {
  id: number;
  ds: string;
  corrected_y: number;
  reason: string | null;
  source: 'manual' | 'copy_forecast';
  created_by: string | null;
  created_at: string;
}

const ADJ = sql.fragment`id, ds, corrected_y, reason, source, created_by, created_at`;

export async function listAdjustments(tx: Tx, k: SeriesKey): Promise<AdjustmentRow[]> {
  return [...((await tx.any(sql.unsafe`SELECT ${ADJ} FROM demand_adjustments WHERE ${key(k)} ORDER BY ds`)) as AdjustmentRow[])];
}

export interface AdjustmentInput {
  ds: string;
  corrected_y: number;
  reason: string | null;
}

/** Writes one correction per week (replacing the week's previous one); returns the rows written and those replaced. */
export async function upsertAdjustments(
  tx: Tx, k: SeriesKey, rows: readonly AdjustmentInput[], source: 'manual' | 'copy_forecast', by: string | null,
): Promise<{ written: AdjustmentRow[]; replaced: AdjustmentRow[] }> {
  if (!rows.length) return { written: [], replaced: [] };
  const days = sql.array(rows.map((r) => r.ds), 'date');
  const replaced = [...((await tx.any(sql.unsafe`
    SELECT ${ADJ} FROM demand_adjustments WHERE ${key(k)} AND ds = ANY(${days}) ORDER BY ds FOR UPDATE`)) as AdjustmentRow[])];
  const written = [...((await tx.any(sql.unsafe`
    INSERT INTO demand_adjustments (item_id, site_id, ds, corrected_y, reason, source, created_by)
    SELECT ${k.item_id}, ${k.site_id}, r.ds, r.corrected_y, r.reason, ${source}, ${by}
    FROM ${sql.unnest(rows.map((r) => [r.ds, r.corrected_y, r.reason]), ['date', 'float8', 'text'])} AS r(ds, corrected_y, reason)
    ON CONFLICT (item_id, site_id, ds) DO UPDATE SET corrected_y = EXCLUDED.corrected_y, reason = EXCLUDED.reason,
      source = EXCLUDED.source, created_by = EXCLUDED.created_by, created_at = now()
    RETURNING ${ADJ}`)) as AdjustmentRow[])].sort((a, b) => (a.ds < b.ds ? -1 : 1));
  return { written, replaced };
}

export async function deleteAdjustments(tx: Tx, k: SeriesKey): Promise<AdjustmentRow[]> {
  return [...((await tx.any(sql.unsafe`DELETE FROM demand_adjustments WHERE ${key(k)} RETURNING ${ADJ}`)) as AdjustmentRow[])];
}
