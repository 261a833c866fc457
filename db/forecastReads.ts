/**
 * Reads of the forecasting results (migration 007) for the origins, sparkline, analytics and summary routes (one
 * series' forecasts and best method are db/seriesDetail.ts's, its metrics db/forecastResults.ts's). Every read is scoped by pipeline_id; lists take a SeriesFilter (permission scope and segment sets
 * on series alias `s`) so a user never sees results of series outside their segments.
 */
import type { SeriesAccuracy } from '../domain/analytics/analytics';
import { STEP_IDS } from '../lib/steps';
import { sql, type Tx } from './pool';
import type { Fragment } from './segments';
import { filterSql, type SeriesFilter } from './series';

export interface SeriesKey {
  itemId: number;
  siteId: number;
}

/** Which stored results a read uses: a pipeline's rows, optionally only the forecasts stored under one scenario. */
export interface ResultScope {
  pipelineId: number;
  /** when set, only forecast_results rows with this scenario_id (and only series that have such rows) count */
  scenarioId: number | null;
}

/** A weekly float8[] as stored: element i is the week start_week + 7·i days; NULL (a closed week) reads as null. */
export type Vector = Array<number | null>;

/** Steps whose completed jobs mean "this pipeline has results": every pipeline step but etl, which writes the series. */
export const RESULT_STEPS: readonly string[] = STEP_IDS.filter((id) => id !== 'etl');

/**
 * THE default pipeline: the one a read shows when the caller names none (docs/API.md, "Which pipeline a read uses").
 * Every route that takes an optional pipeline_id resolves the omission here and nowhere else, so two reads of the same
 * tenant never disagree. Order of preference:
 *   1. pipelines with results — the pipeline of a completed job of a result step, or 0 for such jobs outside any
 *      pipeline — before pipelines that only started a run (last_run_at is set at launch, before anything is written);
 *   2. among those, an active pipeline of the baseline forecast scenario first: the planner chose it as the plan of
 *      record, so a what-if run elsewhere does not move every default view;
 *   3. then the latest results written (finished_at of the newest such job), then the latest last_run_at, then the
 *      highest id, so the answer is deterministic;
 *   4. nothing at all: 0.
 * Inactive pipelines never qualify. Jobs, not the result tables, are the evidence: they are small, and a job's
 * pipeline_id says whose rows it wrote.
 */
export async function defaultResultsPipeline(tx: Tx): Promise<number> {
  const id = (await tx.maybeOneFirst(sql.unsafe`
    WITH written AS (
      SELECT COALESCE(j.pipeline_id, 0) AS pipeline_id, max(j.finished_at) AS at FROM jobs j
      WHERE j.status = 'completed' AND j.step = ANY(${sql.array([...RESULT_STEPS], 'text')})
      GROUP BY 1
    ), candidates AS (
      SELECT p.id, COALESCE(fs.is_baseline, false) AS baseline, w.at AS written_at, p.last_run_at
      FROM scenario_pipelines p
      LEFT JOIN forecast_scenarios fs ON fs.id = p.forecast_scenario_id
      LEFT JOIN written w ON w.pipeline_id = p.id
      WHERE p.is_active AND (w.at IS NOT NULL OR p.last_run_at IS NOT NULL)
      UNION ALL
      SELECT 0, false, w.at, NULL FROM written w WHERE w.pipeline_id = 0
    )
    SELECT id FROM candidates
    ORDER BY (written_at IS NOT NULL) DESC, baseline DESC, written_at DESC NULLS LAST, last_run_at DESC NULLS LAST, id DESC
    LIMIT 1`)) as number | null;
  return id ?? 0;
}

/** The pipeline a scenario's results live in: the most recently updated pipeline using it, or null. */
export async function latestPipelineOfScenario(tx: Tx, scenarioId: number): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT id FROM scenario_pipelines WHERE forecast_scenario_id = ${scenarioId} ORDER BY updated_at DESC, id DESC LIMIT 1`)) as number | null;
}

const scenarioRows = (scope: ResultScope, alias = 'fr'): Fragment =>
  scope.scenarioId === null ? sql.fragment`TRUE` : sql.fragment`${sql.identifier([alias])}.scenario_id = ${scope.scenarioId}`;

/**
 * The series condition of a list read: the caller's filter, plus (scenario-filtered scopes) only series that have
 * forecasts stored under the scenario.
 */
export function scopedSeries(f: SeriesFilter, scope: ResultScope): Fragment {
  if (scope.scenarioId === null) return filterSql(f);
  return sql.fragment`${filterSql(f)} AND EXISTS (SELECT 1 FROM forecast_results scn
    WHERE scn.pipeline_id = ${scope.pipelineId} AND scn.scenario_id = ${scope.scenarioId} AND scn.item_id = s.item_id AND scn.site_id = s.site_id)`;
}

// ------------------------------------------------------------------------------------------------ one series

export type OriginKind = 'origin' | 'window';

export interface OriginRow {
  origin_date: string;
  kinds: OriginKind[];
  methods: string[];
}

export async function seriesOrigins(tx: Tx, k: SeriesKey, pipelineId: number, kind?: OriginKind): Promise<OriginRow[]> {
  const kindCond = kind ? sql.fragment`kind = ${kind}` : sql.fragment`TRUE`;
  return [...((await tx.any(sql.unsafe`
    SELECT origin_week AS origin_date, array_agg(DISTINCT kind ORDER BY kind) AS kinds, array_agg(DISTINCT method ORDER BY method) AS methods
    FROM backtest_forecasts
    WHERE pipeline_id = ${pipelineId} AND item_id = ${k.itemId} AND site_id = ${k.siteId} AND ${kindCond}
    GROUP BY origin_week ORDER BY origin_week`)) as OriginRow[])];
}

export interface OriginForecastRow {
  method: string;
  kind: OriginKind;
  yhat: Vector;
  yhat_lower: Vector;
  yhat_upper: Vector;
  actual: Vector | null;
}

/**
 * The forecasts made at one origin, one per method: the full-horizon 'origin' forecast when the backtest-forecast
 * step stored one, else the backtest's scored 'window' (which carries the actuals).
 */
export async function originForecasts(tx: Tx, k: SeriesKey, pipelineId: number, originWeek: string, kind?: OriginKind): Promise<OriginForecastRow[]> {
  const kindCond = kind ? sql.fragment`kind = ${kind}` : sql.fragment`TRUE`;
  return [...((await tx.any(sql.unsafe`
    SELECT DISTINCT ON (method) method, kind, yhat, yhat_lower, yhat_upper, actual
    FROM backtest_forecasts
    WHERE pipeline_id = ${pipelineId} AND item_id = ${k.itemId} AND site_id = ${k.siteId} AND origin_week = ${originWeek}::date AND ${kindCond}
    ORDER BY method, (kind = 'origin') DESC`)) as OriginForecastRow[])];
}

/** Actual demand of the weeks after an origin, for origins whose stored forecast has no actuals ('origin' kind). */
export async function actualsAfter(tx: Tx, k: SeriesKey, originWeek: string, weeks: number): Promise<Map<string, number | null>> {
  const rows = (await tx.any(sql.unsafe`
    SELECT week, y::float8 AS y FROM series_weekly
    WHERE item_id = ${k.itemId} AND site_id = ${k.siteId} AND week > ${originWeek}::date AND week <= ${originWeek}::date + ${7 * weeks}::int
    ORDER BY week`)) as Array<{ week: string; y: number | null }>;
  return new Map(rows.map((r) => [r.week, r.y]));
}

// ------------------------------------------------------------------------------------------------ sparklines

export interface SparkRow {
  item_id: number;
  site_id: number;
  points: Array<[string, number | null]>;
}

/** The latest week any series has: the common right edge of every sparkline. */
export async function lastHistoryWeek(tx: Tx): Promise<string | null> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT max(week) FROM series_weekly`)) as string | null;
}

/**
 * The weekly history of the given series over the `weeks` weeks ending at `lastWeek`, oldest first; closed weeks are
 * null. `corrected`: the outlier step's corrected_y of the pipeline where it stored one, else the raw demand.
 */
export async function sparklineRows(tx: Tx, keys: SeriesKey[], f: SeriesFilter, lastWeek: string, weeks: number, corrected: { pipelineId: number } | null): Promise<SparkRow[]> {
  const items = keys.map((k) => k.itemId);
  const sites = keys.map((k) => k.siteId);
  const value = corrected
    ? sql.fragment`CASE WHEN o.item_id IS NOT NULL AND w.week >= o.start_week
        AND (w.week - o.start_week) / 7 < cardinality(o.corrected_y)
        THEN o.corrected_y[(w.week - o.start_week) / 7 + 1] ELSE w.y::float8 END`
    : sql.fragment`w.y::float8`;
  const outlierJoin = corrected
    ? sql.fragment`LEFT JOIN series_outliers o ON o.pipeline_id = ${corrected.pipelineId} AND o.item_id = s.item_id AND o.site_id = s.site_id`
    : sql.fragment``;
  const rows = (await tx.any(sql.unsafe`
    WITH wanted AS (SELECT DISTINCT u.item_id, u.site_id FROM unnest(${sql.array(items, 'int4')}::int[], ${sql.array(sites, 'int4')}::int[]) AS u(item_id, site_id))
    SELECT s.item_id, s.site_id,
      COALESCE((SELECT json_agg(json_build_array(w.week, CASE WHEN v.val = 'NaN'::float8 THEN NULL ELSE v.val END) ORDER BY w.week)
        FROM series_weekly w CROSS JOIN LATERAL (SELECT ${value} AS val) v
        WHERE w.item_id = s.item_id AND w.site_id = s.site_id
          AND w.week > ${lastWeek}::date - ${7 * weeks}::int AND w.week <= ${lastWeek}::date), '[]'::json) AS points
    FROM series s JOIN wanted ON wanted.item_id = s.item_id AND wanted.site_id = s.site_id
    ${outlierJoin}
    WHERE ${filterSql(f)}
    ORDER BY s.item_id, s.site_id`)) as SparkRow[];
  return [...rows];
}

/** Of the given series, the ones that exist and the caller may see. */
export async function visibleKeys(tx: Tx, keys: SeriesKey[], f: SeriesFilter): Promise<SeriesKey[]> {
  const rows = (await tx.any(sql.unsafe`
    SELECT DISTINCT s.item_id, s.site_id
    FROM unnest(${sql.array(keys.map((k) => k.itemId), 'int4')}::int[], ${sql.array(keys.map((k) => k.siteId), 'int4')}::int[]) AS u(item_id, site_id)
    JOIN series s ON s.item_id = u.item_id AND s.site_id = u.site_id
    WHERE ${filterSql(f)}`)) as Array<{ item_id: number; site_id: number }>;
  return rows.map((r) => ({ itemId: r.item_id, siteId: r.site_id }));
}

/** A series condition restricting a list read to the given series. */
export function keysCondition(keys: SeriesKey[]): Fragment {
  return sql.fragment`(s.item_id, s.site_id) IN (SELECT * FROM unnest(${sql.array(keys.map((k) => k.itemId), 'int4')}::int[], ${sql.array(keys.map((k) => k.siteId), 'int4')}::int[]))`;
}

// ------------------------------------------------------------------------------------------------ analytics

/**
 * One series' accuracy inputs for the portfolio analytics: its demand class, best method and that method's backtest
 * metrics, the sums over the best method's scored backtest windows (errors e = forecast − actual), and the sums over
 * the best method's current forecast.
 */
export interface SeriesAccuracyRow extends Omit<SeriesAccuracy, 'unique_id'> {
  item_id: number;
  site_id: number;
  mae: number | null;
  origins_evaluated: number | null;
}

/**
 * For the rest of the transaction, no nested loops. These reads join whole result tables; right after a step rewrites
 * them (or a scenario is set on them) the planner's statistics can be stale and estimate one row where there are
 * 100,000, and a nested loop over two such sets never finishes. Hash joins are right at every size here.
 */
async function preferHashJoins(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT set_config('enable_nestloop', 'off', true)`);
}

export async function seriesAccuracy(tx: Tx, f: SeriesFilter, scope: ResultScope): Promise<SeriesAccuracyRow[]> {
  const p = scope.pipelineId;
  // Set-based (one aggregate per table, hash-joined), not a subquery per series: 100,000 series stay one pass each.
  await preferHashJoins(tx);
  const rows = (await tx.any(sql.unsafe`
    WITH sc AS (
      SELECT s.item_id, s.site_id FROM series s WHERE ${scopedSeries(f, scope)}
    ), best AS (
      SELECT b.item_id, b.site_id, b.best_method, b.best_score FROM series_best_method b
      JOIN sc ON sc.item_id = b.item_id AND sc.site_id = b.site_id WHERE b.pipeline_id = ${p}
    ), win AS (
      SELECT bf.item_id, bf.site_id, count(*) AS n, sum(abs(u.f - u.a)) AS abs_error, sum(abs(u.a)) AS abs_actual, sum(u.f - u.a) AS error,
        sum(abs(u.f - u.a) / abs(u.a)) FILTER (WHERE u.a <> 0) AS ape_sum, count(*) FILTER (WHERE u.a <> 0) AS ape_points
      FROM backtest_forecasts bf JOIN best ON best.item_id = bf.item_id AND best.site_id = bf.site_id AND bf.method = best.best_method
      CROSS JOIN LATERAL unnest(bf.yhat, bf.actual) AS u(f, a)
      WHERE bf.pipeline_id = ${p} AND bf.kind = 'window'
        AND u.a IS NOT NULL AND u.f IS NOT NULL AND u.a <> 'NaN'::float8 AND u.f <> 'NaN'::float8
      GROUP BY bf.item_id, bf.site_id
    ), fc AS (
      SELECT fr.item_id, fr.site_id, sum(u.v) AS volume, sum(u.hi - u.lo) AS width
      FROM forecast_results fr JOIN best ON best.item_id = fr.item_id AND best.site_id = fr.site_id AND fr.method = best.best_method
      CROSS JOIN LATERAL unnest(fr.yhat, fr.yhat_lower, fr.yhat_upper) AS u(v, lo, hi)
      WHERE fr.pipeline_id = ${p} AND ${scenarioRows(scope)}
        AND u.v <> 'NaN'::float8 AND u.lo <> 'NaN'::float8 AND u.hi <> 'NaN'::float8
      GROUP BY fr.item_id, fr.site_id
    ), hasf AS (
      SELECT DISTINCT fr.item_id, fr.site_id FROM forecast_results fr WHERE fr.pipeline_id = ${p} AND ${scenarioRows(scope)}
    )
    SELECT sc.item_id, sc.site_id, c.demand_class, best.best_method, best.best_score, (hasf.item_id IS NOT NULL) AS has_forecast,
      m.mae, m.mase, m.smape, m.bias, m.coverage_90, m.origins_evaluated,
      COALESCE(win.n, 0)::int AS window_points, COALESCE(win.abs_error, 0) AS abs_error, COALESCE(win.abs_actual, 0) AS abs_actual,
      COALESCE(win.error, 0) AS error, COALESCE(win.ape_sum, 0) AS ape_sum, COALESCE(win.ape_points, 0)::int AS ape_points,
      fc.volume AS forecast_volume, fc.width AS interval_width
    FROM sc
    LEFT JOIN series_characteristics c ON c.pipeline_id = ${p} AND c.item_id = sc.item_id AND c.site_id = sc.site_id
    LEFT JOIN best ON best.item_id = sc.item_id AND best.site_id = sc.site_id
    LEFT JOIN backtest_metrics m ON m.pipeline_id = ${p} AND m.item_id = sc.item_id AND m.site_id = sc.site_id AND m.method = best.best_method
    LEFT JOIN win ON win.item_id = sc.item_id AND win.site_id = sc.site_id
    LEFT JOIN fc ON fc.item_id = sc.item_id AND fc.site_id = sc.site_id
    LEFT JOIN hasf ON hasf.item_id = sc.item_id AND hasf.site_id = sc.site_id
    ORDER BY sc.item_id, sc.site_id`)) as SeriesAccuracyRow[];
  return [...rows];
}

/** Best method per series in scope, counted. */
export async function bestMethodCounts(tx: Tx, f: SeriesFilter, scope: ResultScope): Promise<{ counts: Record<string, number>; inScope: number }> {
  const rows = (await tx.any(sql.unsafe`
    SELECT b.best_method, count(*)::int AS n FROM series s
    JOIN series_best_method b ON b.pipeline_id = ${scope.pipelineId} AND b.item_id = s.item_id AND b.site_id = s.site_id
    WHERE ${scopedSeries(f, scope)} GROUP BY b.best_method ORDER BY b.best_method`)) as Array<{ best_method: string; n: number }>;
  const inScope = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM series s WHERE ${scopedSeries(f, scope)}`)) as number;
  return { counts: Object.fromEntries(rows.map((r) => [r.best_method, r.n])), inScope };
}

export interface DatedValue {
  date: string;
  value: number;
}

/** Weekly demand summed over the series in scope (closed weeks contribute nothing), oldest week first. */
export async function aggregateHistory(tx: Tx, where: Fragment): Promise<DatedValue[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT w.week AS date, sum(w.y)::float8 AS value
    FROM series s JOIN series_weekly w ON w.item_id = s.item_id AND w.site_id = s.site_id
    WHERE ${where} AND w.y IS NOT NULL
    GROUP BY w.week ORDER BY w.week`)) as DatedValue[])];
}

/** Each series' best-method forecast, summed per week over the series in scope. */
export async function aggregateBestForecast(tx: Tx, where: Fragment, scope: ResultScope): Promise<{ points: DatedValue[]; series: number }> {
  await preferHashJoins(tx);
  const rows = (await tx.any(sql.unsafe`
    SELECT (fr.start_week + 7 * (u.i - 1)::int) AS date, sum(u.v)::float8 AS value
    FROM series s
    JOIN series_best_method b ON b.pipeline_id = ${scope.pipelineId} AND b.item_id = s.item_id AND b.site_id = s.site_id
    JOIN forecast_results fr ON fr.pipeline_id = ${scope.pipelineId} AND fr.item_id = s.item_id AND fr.site_id = s.site_id AND fr.method = b.best_method
    CROSS JOIN LATERAL unnest(fr.yhat) WITH ORDINALITY AS u(v, i)
    WHERE ${where} AND ${scenarioRows(scope)} AND u.v <> 'NaN'::float8
    GROUP BY 1 ORDER BY 1`)) as DatedValue[];
  const series = (await tx.oneFirst(sql.unsafe`
    SELECT count(*)::int FROM series s
    JOIN series_best_method b ON b.pipeline_id = ${scope.pipelineId} AND b.item_id = s.item_id AND b.site_id = s.site_id
    WHERE ${where} AND EXISTS (SELECT 1 FROM forecast_results fr WHERE fr.pipeline_id = ${scope.pipelineId} AND fr.item_id = s.item_id
      AND fr.site_id = s.site_id AND fr.method = b.best_method AND ${scenarioRows(scope)})`)) as number;
  return { points: rows.map((r) => ({ date: r.date, value: r.value })), series };
}

export async function countSeries(tx: Tx, where: Fragment): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM series s WHERE ${where}`)) as number;
}

// ------------------------------------------------------------------------------------------------ scenario summary

export interface PipelineResultSummary {
  series_forecasted: number;
  methods_count: number;
  methods: string[];
  best_method_counts: Record<string, number>;
  total_forecast_volume: number;
  mean_backtest_score: number | null;
  score_metrics: string[];
  last_forecast_at: string | null;
}

/**
 * What one pipeline's stored results say for a scenario, over the series the caller may see: forecast rows of the
 * pipeline (only those stored under `scope.scenarioId` when set), the best method of each forecasted series, and the
 * best method's forecast summed over the first `horizonWeeks` weeks.
 */
export async function pipelineResultSummary(tx: Tx, scopeSql: Fragment, scope: ResultScope, horizonWeeks: number): Promise<PipelineResultSummary> {
  const p = scope.pipelineId;
  await preferHashJoins(tx);
  return (await tx.one(sql.unsafe`
    WITH fr AS (
      SELECT fr.item_id, fr.site_id, fr.method, fr.updated_at FROM forecast_results fr
      JOIN series s ON s.item_id = fr.item_id AND s.site_id = fr.site_id
      WHERE fr.pipeline_id = ${p} AND ${scenarioRows(scope)} AND ${scopeSql}
    ), keys AS (
      SELECT DISTINCT item_id, site_id FROM fr
    ), best AS (
      SELECT b.item_id, b.site_id, b.best_method, b.best_score, b.metric FROM series_best_method b
      JOIN keys ON keys.item_id = b.item_id AND keys.site_id = b.site_id WHERE b.pipeline_id = ${p}
    ), vol AS (
      SELECT sum(u.v) AS v FROM best
      JOIN forecast_results f ON f.pipeline_id = ${p} AND f.item_id = best.item_id AND f.site_id = best.site_id AND f.method = best.best_method
      CROSS JOIN LATERAL unnest(f.yhat[1:${horizonWeeks}]) AS u(v)
      WHERE ${scenarioRows(scope, 'f')} AND u.v <> 'NaN'::float8
    )
    SELECT
      (SELECT count(*) FROM keys)::int AS series_forecasted,
      (SELECT count(DISTINCT method) FROM fr)::int AS methods_count,
      ARRAY(SELECT DISTINCT method FROM fr ORDER BY method) AS methods,
      COALESCE((SELECT jsonb_object_agg(best_method, n) FROM (SELECT best_method, count(*)::int AS n FROM best GROUP BY best_method) x), '{}'::jsonb) AS best_method_counts,
      COALESCE((SELECT v FROM vol), 0)::float8 AS total_forecast_volume,
      (SELECT avg(best_score) FILTER (WHERE best_score <> 'NaN'::float8) FROM best)::float8 AS mean_backtest_score,
      ARRAY(SELECT DISTINCT metric FROM best ORDER BY metric) AS score_metrics,
      (SELECT max(updated_at) FROM fr) AS last_forecast_at`)) as PipelineResultSummary;
}

/** Whether pipeline 0 (runs outside any pipeline) holds forecasts stored under the scenario. */
export async function defaultResultsHaveScenario(tx: Tx, scenarioId: number): Promise<boolean> {
  return Boolean(await tx.maybeOneFirst(sql.unsafe`SELECT true FROM forecast_results WHERE pipeline_id = 0 AND scenario_id = ${scenarioId} LIMIT 1`));
}

export async function scenarioPipelines(tx: Tx, scenarioId: number): Promise<Array<{ id: number; name: string; last_run_at: string | null; updated_at: string }>> {
  return [...((await tx.any(sql.unsafe`
    SELECT id, name, last_run_at, updated_at FROM scenario_pipelines WHERE forecast_scenario_id = ${scenarioId} ORDER BY id`)) as Array<{ id: number; name: string; last_run_at: string | null; updated_at: string }>)];
}
