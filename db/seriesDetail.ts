import type { SeriesKey } from './etl';
import { sql, tenantSchemaName, type Tx } from './pool';
import { float8ArrayOf, preparedQuery } from './preparedReads';

/**
 * Reads and writes of the per-series forecasting routes (/api/series/{unique_id}/*, /api/forecasts/{unique_id},
 * /api/adjustments/*) on the result tables of migration 007. Results are read for one pipeline (0 = runs outside any
 * pipeline); locks and demand corrections are tenant-wide. The outlier, characterization and distribution rows and the
 * backtest metrics are read where the steps read them (db/seriesResults.ts, db/forecastResults.ts).
 */

/** A weekly float8[]: element i is the week start_week + 7·i days; NULL (a closed week, an unknown actual) reads as null. */
type Vec = Array<number | null>;

const key = (k: SeriesKey) => sql.fragment`item_id = ${k.item_id} AND site_id = ${k.site_id}`;

/** The weekly history, oldest first; y is null for a closed week. */
export async function weeklyHistory(tx: Tx, k: SeriesKey): Promise<Array<{ ds: string; y: number | null }>> {
  return [...((await tx.any(sql.unsafe`
    SELECT week AS ds, CASE WHEN closed THEN NULL ELSE y::float8 END AS y
    FROM series_weekly WHERE ${key(k)} ORDER BY week`)) as Array<{ ds: string; y: number | null }>)];
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

export interface ForecastRow {
  method: string;
  scenario_id: number | null;
  start_week: string;
  yhat: Vec;
  yhat_lower: Vec;
  yhat_upper: Vec;
  level: number;
  params: Record<string, unknown>;
  updated_at: string;
}

/**
 * The current forecasts of the series, of the given methods (all when null), by method name; with `scenarioId`, only
 * those stored under that forecast scenario.
 */
export async function forecastResults(
  tx: Tx, k: SeriesKey, pipelineId: number, methods: readonly string[] | null = null, scenarioId: number | null = null,
): Promise<ForecastRow[]> {
  const which = methods === null ? sql.fragment`TRUE` : sql.fragment`method = ANY(${sql.array([...methods], 'text')})`;
  const scenario = scenarioId === null ? sql.fragment`TRUE` : sql.fragment`scenario_id = ${scenarioId}`;
  return [...((await tx.any(sql.unsafe`
    SELECT method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level, params, updated_at
    FROM forecast_results WHERE pipeline_id = ${pipelineId} AND ${key(k)} AND ${which} AND ${scenario} ORDER BY method`)) as ForecastRow[])];
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
  return [...((await tx.any(sql.unsafe`
    SELECT method, origin_week, yhat, yhat_lower, yhat_upper, actual
    FROM backtest_forecasts WHERE pipeline_id = ${pipelineId} AND ${key(k)} AND kind = ${kind} AND ${which}
    ORDER BY origin_week, method`)) as BacktestForecastRow[])];
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

/**
 * The forecasts of one series (all methods, any scenario) and its best method, in one prepared statement outside a
 * transaction (db/preparedReads.ts): the tenant's schema is named in the SQL (tenantSchemaName of the verified account
 * id) instead of set as search_path, which would take BEGIN, set_config and COMMIT around it. This is the read behind
 * GET /api/forecasts/{unique_id} when the API's memory does not hold the series yet.
 */
export async function seriesForecastsOf(databaseUrl: string, accountId: string, pipelineId: number, k: SeriesKey): Promise<{ rows: ForecastRow[]; best_method: string | null }> {
  const schema = tenantSchemaName(accountId);
  // pg's own parsers: dates stay text here, timestamps become ISO strings below, as slonik's parsers (db/pool.ts) give them
  // The vectors in PostgreSQL's binary array format: pg's text parser for float8[] was a third of the API's CPU on
  // this read at 100,000 series, where most requests miss the API's memory (npm run bench:api, 2026-11-29).
  type Packed = Omit<ForecastRow, 'updated_at' | 'yhat' | 'yhat_lower' | 'yhat_upper'> & {
    updated_at: Date | null; yhat: Buffer; yhat_lower: Buffer; yhat_upper: Buffer; best_method: string | null;
  };
  const rows = await preparedQuery<Packed>(databaseUrl, `forecasts_${schema}`, `
    SELECT f.method, f.scenario_id, f.start_week::text AS start_week,
      array_send(f.yhat) AS yhat, array_send(f.yhat_lower) AS yhat_lower, array_send(f.yhat_upper) AS yhat_upper, f.level, f.params, f.updated_at,
      (SELECT b.best_method FROM "${schema}".series_best_method b WHERE b.pipeline_id = $1 AND b.item_id = $2 AND b.site_id = $3) AS best_method
    FROM (SELECT 1) one
    LEFT JOIN "${schema}".forecast_results f ON f.pipeline_id = $1 AND f.item_id = $2 AND f.site_id = $3
    ORDER BY f.method`, [pipelineId, k.item_id, k.site_id]);
  return {
    rows: rows.filter((r) => r.method !== null).map(({ best_method: _, ...r }) => ({
      ...r, yhat: float8ArrayOf(r.yhat), yhat_lower: float8ArrayOf(r.yhat_lower), yhat_upper: float8ArrayOf(r.yhat_upper), updated_at: r.updated_at!.toISOString(),
    })),
    best_method: rows[0]?.best_method ?? null,
  };
}

