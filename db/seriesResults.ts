/**
 * Rows of the outlier, characterization and distribution steps (migration 007): their writes, and the reads other
 * steps and routes use; and what every per-series result table shares, which db/forecastResults.ts uses for the
 * forecasting tables too: array literals, NULL as NaN, dropOutOfScope. Every row belongs to one pipeline (0 = outside
 * any pipeline). A chunk rewrites exactly its own series: delete by key list, then one multi-row insert per table, so a
 * retried chunk writes the same rows again.
 *
 * Arrays of arrays cannot travel through `unnest` (PostgreSQL would flatten them), so each row's float8[] / text[]
 * here travels as an array literal and each jsonb value as JSON text, both cast in SQL; the forecasting tables, with
 * far more arrays, pack theirs in binary instead (db/floatColumns.ts). A NULL element of a float8[] (a closed week, a
 * week whose actual is not known yet) is NaN in memory.
 */
import type { Fit } from '../domain/distribution/fit';
import { finiteOrNull, type CorrectedInput } from '../domain/forecast/prepare';
import { sql, type Tx } from './pool';
import type { SeriesKey } from './etl';
import { keysIn } from './seriesSteps';

/** `<item_id>_<site_id>`: the key the steps' maps use, as WeeklySeries.unique_id. */
export const uniqueId = (k: SeriesKey): string => `${k.item_id}_${k.site_id}`;

/** A NULL read back from the database (a closed week, an unscored metric) as NaN, how the engines carry it. */
export const nanIfNull = (v: number | null): number => (v === null ? Number.NaN : v);

/** `{1,2,NULL}`: NaN (a closed week) becomes NULL. Numbers are written with full round-trip precision. */
export function floatArrayLiteral(values: ArrayLike<number>): string {
  const parts: string[] = [];
  for (let i = 0; i < values.length; i++) parts.push(Number.isFinite(values[i]) ? String(values[i]) : 'NULL');
  return `{${parts.join(',')}}`;
}

/** `{"a","b"}`: every element quoted, so commas or braces inside a value cannot split it. */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

// ---------------------------------------------------------------- series_outliers

export interface OutlierPointRow {
  ds: string;
  y: number;
  corrected_y: number;
  score?: number;
  direction?: 'up' | 'down';
}

export interface OutlierWrite extends SeriesKey {
  start_week: string;
  /** aligned with start_week; NaN (closed week) is stored as NULL */
  corrected_y: ArrayLike<number>;
  method: string;
  params: Record<string, unknown>;
  outliers: OutlierPointRow[];
}

export async function writeOutliers(tx: Tx, pipelineId: number, keys: readonly SeriesKey[], rows: readonly OutlierWrite[], jobId: string | null): Promise<number> {
  if (keys.length) await tx.query(sql.unsafe`DELETE FROM series_outliers WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`);
  if (!rows.length) return 0;
  await tx.query(sql.unsafe`
    INSERT INTO series_outliers (pipeline_id, item_id, site_id, start_week, corrected_y, method, params, outliers, n_outliers, job_id, updated_at)
    SELECT ${pipelineId}, u.item_id, u.site_id, u.start_week, u.corrected_y::float8[], u.method, u.params::jsonb, u.outliers::jsonb, u.n_outliers, ${jobId}, now()
    FROM ${sql.unnest(
      rows.map((r) => [r.item_id, r.site_id, r.start_week, floatArrayLiteral(r.corrected_y), r.method, JSON.stringify(r.params), JSON.stringify(r.outliers), r.outliers.length]),
      ['int4', 'int4', 'date', 'text', 'text', 'text', 'text', 'int4'],
    )} AS u(item_id, site_id, start_week, corrected_y, method, params, outliers, n_outliers)`);
  return rows.length;
}

export interface CorrectedHistory extends CorrectedInput {
  /** NaN where the stored value is NULL (a closed week) */
  corrected_y: Float64Array;
  method: string;
  n_outliers: number;
}

/**
 * The stored corrected history of these series under the pipeline, by unique id; series without a row are absent.
 * What every later step models (historyFor and fitHistory in domain/forecast/prepare.ts).
 */
export async function correctedHistoryInRange(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, CorrectedHistory>> {
  const out = new Map<string, CorrectedHistory>();
  if (!keys.length) return out;
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, start_week, corrected_y, method, n_outliers FROM series_outliers
    WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`)) as Array<SeriesKey & { start_week: string; corrected_y: Array<number | null>; method: string; n_outliers: number }>;
  for (const r of rows) out.set(uniqueId(r), { start_week: r.start_week, corrected_y: Float64Array.from(r.corrected_y, nanIfNull), method: r.method, n_outliers: r.n_outliers });
  return out;
}

export interface SeriesOutliersRow {
  start_week: string;
  /** aligned with start_week; null at closed weeks */
  corrected_y: Array<number | null>;
  method: string;
  params: Record<string, unknown>;
  outliers: OutlierPointRow[];
  n_outliers: number;
  job_id: string | null;
  updated_at: string;
}

/** One series' outlier row as stored (GET /api/series/{unique_id}/data and /outliers), or null when the step has not run for it. */
export async function outliersOf(tx: Tx, pipelineId: number, key: SeriesKey): Promise<SeriesOutliersRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT start_week, corrected_y, method, params, outliers, n_outliers, job_id, updated_at FROM series_outliers
    WHERE pipeline_id = ${pipelineId} AND item_id = ${key.item_id} AND site_id = ${key.site_id}`)) as SeriesOutliersRow | null;
}

// ---------------------------------------------------------------- series_characteristics

export interface CharacteristicsWrite extends SeriesKey {
  n_observations: number;
  mean: number;
  adi: number;
  cv2: number;
  zero_ratio: number;
  cov: number;
  demand_class: 'smooth' | 'erratic' | 'intermittent' | 'lumpy';
  is_intermittent: boolean;
  has_seasonality: boolean;
  seasonal_period: number;
  has_trend: boolean;
  complexity_level: string;
  recommended_methods: string[];
  details: Record<string, unknown>;
}

export type CharacteristicsRow = CharacteristicsWrite & { pipeline_id: number; job_id: string | null; updated_at: string };

export async function writeCharacteristics(tx: Tx, pipelineId: number, keys: readonly SeriesKey[], rows: readonly CharacteristicsWrite[], jobId: string | null): Promise<number> {
  if (keys.length) await tx.query(sql.unsafe`DELETE FROM series_characteristics WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`);
  if (!rows.length) return 0;
  await tx.query(sql.unsafe`
    INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, mean, adi, cv2, zero_ratio, cov, demand_class,
      is_intermittent, has_seasonality, seasonal_period, has_trend, complexity_level, recommended_methods, details, job_id, updated_at)
    SELECT ${pipelineId}, u.item_id, u.site_id, u.n, u.mean, u.adi, u.cv2, u.zero_ratio, u.cov, u.demand_class,
      u.is_intermittent, u.has_seasonality, u.seasonal_period, u.has_trend, u.complexity_level, u.recommended_methods::text[], u.details::jsonb, ${jobId}, now()
    FROM ${sql.unnest(
      rows.map((r) => [
        r.item_id, r.site_id, r.n_observations, finiteOrNull(r.mean), finiteOrNull(r.adi), finiteOrNull(r.cv2), finiteOrNull(r.zero_ratio), finiteOrNull(r.cov),
        r.demand_class, r.is_intermittent, r.has_seasonality, r.seasonal_period, r.has_trend, r.complexity_level,
        textArrayLiteral(r.recommended_methods), JSON.stringify(r.details),
      ]),
      ['int4', 'int4', 'int4', 'float8', 'float8', 'float8', 'float8', 'float8', 'text', 'bool', 'bool', 'int4', 'bool', 'text', 'text', 'text'],
    )} AS u(item_id, site_id, n, mean, adi, cv2, zero_ratio, cov, demand_class, is_intermittent, has_seasonality, seasonal_period, has_trend,
      complexity_level, recommended_methods, details)`);
  return rows.length;
}

/** The stored characteristics of these series under the pipeline, by unique id; series without a row are absent. */
export async function characteristicsFor(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, CharacteristicsRow>> {
  const out = new Map<string, CharacteristicsRow>();
  if (!keys.length) return out;
  const rows = (await tx.any(sql.unsafe`
    SELECT pipeline_id, item_id, site_id, n_observations, mean, adi, cv2, zero_ratio, cov, demand_class, is_intermittent, has_seasonality,
      seasonal_period, has_trend, complexity_level, recommended_methods, details, job_id, updated_at
    FROM series_characteristics WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`)) as CharacteristicsRow[];
  for (const r of rows) out.set(uniqueId(r), { ...r, recommended_methods: [...r.recommended_methods] });
  return out;
}

// ---------------------------------------------------------------- series_distributions

/** One fitted distribution as stored (the best one's columns, and each element of `candidates`): the engine's Fit. */
export type DistributionFitRow = Fit;

export interface DistributionWrite extends SeriesKey, DistributionFitRow {
  candidates: DistributionFitRow[];
  basis: 'weekly' | 'lead_time';
  lead_time_weeks: number | null;
  n: number;
}

export type DistributionRow = DistributionWrite & { pipeline_id: number; job_id: string | null; updated_at: string };

export async function writeDistributions(tx: Tx, pipelineId: number, keys: readonly SeriesKey[], rows: readonly DistributionWrite[], jobId: string | null): Promise<number> {
  if (keys.length) await tx.query(sql.unsafe`DELETE FROM series_distributions WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`);
  if (!rows.length) return 0;
  await tx.query(sql.unsafe`
    INSERT INTO series_distributions (pipeline_id, item_id, site_id, distribution_type, mean, std, params, ks_statistic, ks_pvalue,
      service_level_quantiles, candidates, basis, lead_time_weeks, n, job_id, updated_at)
    SELECT ${pipelineId}, u.item_id, u.site_id, u.distribution_type, u.mean, u.std, u.params::jsonb, u.ks_statistic, u.ks_pvalue,
      u.quantiles::jsonb, u.candidates::jsonb, u.basis, u.lead_time_weeks, u.n, ${jobId}, now()
    FROM ${sql.unnest(
      rows.map((r) => [
        r.item_id, r.site_id, r.distribution_type, finiteOrNull(r.mean), finiteOrNull(r.std), JSON.stringify(r.params), finiteOrNull(r.ks_statistic),
        finiteOrNull(r.ks_pvalue), JSON.stringify(r.service_level_quantiles), JSON.stringify(r.candidates), r.basis, r.lead_time_weeks, r.n,
      ]),
      ['int4', 'int4', 'text', 'float8', 'float8', 'text', 'float8', 'float8', 'text', 'text', 'text', 'float8', 'int4'],
    )} AS u(item_id, site_id, distribution_type, mean, std, params, ks_statistic, ks_pvalue, quantiles, candidates, basis, lead_time_weeks, n)`);
  return rows.length;
}

/** The stored fits of these series under the pipeline, by unique id; series without a row are absent. */
export async function distributionsFor(tx: Tx, pipelineId: number, keys: readonly SeriesKey[]): Promise<Map<string, DistributionRow>> {
  const out = new Map<string, DistributionRow>();
  if (!keys.length) return out;
  const rows = (await tx.any(sql.unsafe`
    SELECT pipeline_id, item_id, site_id, distribution_type, mean, std, params, ks_statistic, ks_pvalue, service_level_quantiles, candidates,
      basis, lead_time_weeks, n, job_id, updated_at
    FROM series_distributions WHERE pipeline_id = ${pipelineId} AND ${keysIn(keys)}`)) as DistributionRow[];
  for (const r of rows) out.set(uniqueId(r), r);
  return out;
}

// ---------------------------------------------------------------- inputs and housekeeping

/** Item-site lead times in weeks (item_site.lead_time_weeks) of these series; series without a row or value are absent. */
export async function leadTimesFor(tx: Tx, keys: readonly SeriesKey[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!keys.length) return out;
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, lead_time_weeks FROM item_site WHERE lead_time_weeks IS NOT NULL AND ${keysIn(keys)}`)) as Array<SeriesKey & { lead_time_weeks: number }>;
  for (const r of rows) out.set(uniqueId(r), r.lead_time_weeks);
  return out;
}

/**
 * The rows each per-series step owns: its tables and, in backtest_forecasts (which two steps share), its kind. The
 * combination's rows that best-method writes into forecast_results, backtest_metrics and the 'window' forecasts are
 * covered by the forecast and backtest steps' entries, which take every method.
 */
export const STEP_TABLES = {
  outlier: [['series_outliers', null]],
  characterization: [['series_characteristics', null]],
  distribution: [['series_distributions', null]],
  forecast: [['forecast_results', null]],
  backtest: [['backtest_metrics', null], ['backtest_forecasts', 'window']],
  'backtest-forecast': [['backtest_forecasts', 'origin']],
  'best-method': [['series_best_method', null]],
} as const;

export type ResultStep = keyof typeof STEP_TABLES;

/**
 * After a full run of a pipeline that has segments: drops the step's rows of that pipeline for series outside its
 * segments (a segment was removed from the pipeline, or a series left the segment), so the pipeline's results are
 * exactly its scope. A pipeline without segments covers every series and keeps all its rows; so does pipeline 0.
 */
export async function dropOutOfScope(tx: Tx, step: ResultStep, pipelineId: number): Promise<number> {
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
