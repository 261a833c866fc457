/**
 * The SQL of the K-curve (migration 010): scenarios, the per-SKU-site inputs (best-method forecast or history, unit
 * cost, the item's allowed frequencies), the best forecasts Wagner-Whitin sizes lots over, and eoq_results.
 */
import { defaultValues } from '../domain/parameters/defaults';
import type { SeriesKey } from './etl';
import { sql, type Tx } from './pool';
import type { RecordTable } from './records';
import type { Fragment } from './segments';
import { filterSql, type SeriesFilter } from './series';

export const KCURVE_SCENARIO_RECORD: RecordTable = {
  table: 'kcurve_scenarios', key: 'id', orderBy: ['id'], uniqueIgnoringCase: 'name', touch: 'updated_at',
  columns: {
    id: { type: 'int', writable: false }, name: { type: 'text' }, description: { type: 'text' }, pipeline_id: { type: 'int' },
    ordering_cost: { type: 'numeric' }, holding_rate: { type: 'numeric' }, k: { type: 'numeric' },
    target_orders_per_year: { type: 'numeric' }, target_inventory_value: { type: 'numeric' }, constrained: { type: 'bool' },
    allowed_orders_per_year: { type: 'int[]' }, created_by: { type: 'text' },
    created_at: { type: 'timestamptz', writable: false }, updated_at: { type: 'timestamptz', writable: false },
  },
};

export interface KcurveScenarioRow {
  id: number;
  name: string;
  description: string | null;
  pipeline_id: number;
  ordering_cost: number;
  holding_rate: number;
  k: number | null;
  target_orders_per_year: number | null;
  target_inventory_value: number | null;
  constrained: boolean;
  allowed_orders_per_year: number[] | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

const SCENARIO_COLUMNS = sql.fragment`id, name, description, pipeline_id, ordering_cost, holding_rate, k, target_orders_per_year,
  target_inventory_value, constrained, allowed_orders_per_year, created_by, created_at, updated_at`;

export async function getKcurveScenario(tx: Tx, id: number): Promise<KcurveScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${SCENARIO_COLUMNS} FROM kcurve_scenarios WHERE id = ${id}`)) as KcurveScenarioRow | null;
}

/** Locked until the transaction ends: a solve that persists and a delete of the scenario do not interleave. */
export async function lockKcurveScenario(tx: Tx, id: number): Promise<KcurveScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${SCENARIO_COLUMNS} FROM kcurve_scenarios WHERE id = ${id} FOR UPDATE`)) as KcurveScenarioRow | null;
}

/** The pipeline's default scenario: its oldest. */
export async function defaultKcurveScenario(tx: Tx, pipelineId: number): Promise<KcurveScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${SCENARIO_COLUMNS} FROM kcurve_scenarios WHERE pipeline_id = ${pipelineId} ORDER BY id LIMIT 1`)) as KcurveScenarioRow | null;
}

/**
 * The scenario an eoq run writes under: the pipeline's default, else one created with the catalogue's eoq costs, so
 * the step runs on a pipeline nobody configured. The lock is only taken when none exists, so parallel chunks do not
 * queue behind each other once it does.
 */
export async function kcurveScenarioForRun(tx: Tx, pipelineId: number): Promise<KcurveScenarioRow> {
  const found = await defaultKcurveScenario(tx, pipelineId);
  if (found) return found;
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('kcurve_scenarios'))`);
  const again = await defaultKcurveScenario(tx, pipelineId);
  if (again) return again;
  const d = defaultValues('eoq');
  const base = `Default (pipeline ${pipelineId})`;
  // a planner may already use the name for another pipeline's scenario: the id of the row keeps it unique then
  const taken = Boolean(await tx.maybeOneFirst(sql.unsafe`SELECT 1 FROM kcurve_scenarios WHERE lower(name) = lower(${base})`));
  const id = (await tx.oneFirst(sql.unsafe`
    INSERT INTO kcurve_scenarios (name, description, pipeline_id, ordering_cost, holding_rate, created_by)
    VALUES (${taken ? `${base} ${Date.now()}` : base}, 'created by the first eoq run: catalogue ordering cost and holding rate', ${pipelineId},
      ${d.ordering_cost as number}, ${d.holding_cost_rate as number}, 'system')
    RETURNING id`)) as number;
  return (await getKcurveScenario(tx, id))!;
}

/** The k a solve chose becomes the scenario's operating point. */
export async function setScenarioK(tx: Tx, id: number, k: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE kcurve_scenarios SET k = ${k}, updated_at = now() WHERE id = ${id}`);
}

// ------------------------------------------------------------------------------------------------ inputs

export interface KcurveItemRow {
  item_id: number;
  site_id: number;
  item_xuid: string;
  item_name: string;
  site_xuid: string;
  site_name: string;
  best_method: string | null;
  forecast_weekly_mean: number | null;
  forecast_weeks: number;
  /** null where the forecast has a finite mean: only read where it stands in for the forecast */
  history_weekly_mean: number | null;
  unit_cost: number | null;
  cost_source: 'item_site' | 'item' | null;
  item_allowed: unknown;
}

/** Which series: a list read's filter (alias `s`), or the keys of a step chunk. */
export type KcurveSelection = { filter: SeriesFilter } | { keys: readonly SeriesKey[] };

function selectionSql(sel: KcurveSelection): Fragment {
  if ('filter' in sel) return filterSql(sel.filter);
  return sql.fragment`(s.item_id, s.site_id) IN (SELECT * FROM ${sql.unnest(sel.keys.map((k) => [k.item_id, k.site_id]), ['int4', 'int4'])})`;
}

/**
 * Per SKU-site: the mean weekly best-method forecast of the pipeline (missing weeks skipped), the mean of the open
 * history weeks, and the unit cost (item_site's, else the item's; 0 counts as unknown).
 */
export async function kcurveItems(tx: Tx, pipelineId: number, sel: KcurveSelection): Promise<KcurveItemRow[]> {
  if ('keys' in sel && !sel.keys.length) return [];
  return [...(await tx.any(sql.unsafe`
    SELECT s.item_id, s.site_id, it.xuid AS item_xuid, it.name AS item_name, si.xuid AS site_xuid, si.name AS site_name,
      b.best_method, f.weekly_mean AS forecast_weekly_mean, COALESCE(f.weeks, 0) AS forecast_weeks, h.weekly_mean AS history_weekly_mean,
      COALESCE(NULLIF(x.unit_cost, 0), NULLIF(it.avg_unit_cost, 0))::float8 AS unit_cost,
      CASE WHEN NULLIF(x.unit_cost, 0) IS NOT NULL THEN 'item_site' WHEN NULLIF(it.avg_unit_cost, 0) IS NOT NULL THEN 'item' END AS cost_source,
      it.attributes -> 'allowed_orders_per_year' AS item_allowed
    FROM series s
    JOIN items it ON it.id = s.item_id
    JOIN sites si ON si.id = s.site_id
    LEFT JOIN item_site x ON x.item_id = s.item_id AND x.site_id = s.site_id
    LEFT JOIN series_best_method b ON b.pipeline_id = ${pipelineId} AND b.item_id = s.item_id AND b.site_id = s.site_id
    LEFT JOIN LATERAL (
      SELECT avg(v)::float8 AS weekly_mean, count(v)::int AS weeks
      FROM forecast_results fr CROSS JOIN LATERAL unnest(fr.yhat) v
      WHERE fr.pipeline_id = ${pipelineId} AND fr.item_id = s.item_id AND fr.site_id = s.site_id AND fr.method = b.best_method
        AND v IS NOT NULL AND v <> 'NaN'::float8
    ) f ON true
    -- the history's mean stands in only where the forecast has no finite mean (domain/inventory/kcurveViews.ts
    -- portfolioItem): elsewhere the condition on f gates the read of the series' weeks off
    LEFT JOIN LATERAL (
      SELECT avg(w.y)::float8 AS weekly_mean FROM series_weekly w
      WHERE w.item_id = s.item_id AND w.site_id = s.site_id AND w.y IS NOT NULL AND NOT w.closed
        AND (f.weekly_mean IS NULL OR NOT (f.weekly_mean > '-Infinity'::float8 AND f.weekly_mean < 'Infinity'::float8))
    ) h ON true
    WHERE ${selectionSql(sel)}
    ORDER BY s.item_id, s.site_id`))] as KcurveItemRow[];
}

export interface BestForecastRow {
  item_id: number;
  site_id: number;
  best_method: string;
  start_week: string;
  yhat: Array<number | null>;
}

/** The best method's stored forecast of each selected series that has one. */
export async function bestForecasts(tx: Tx, pipelineId: number, sel: KcurveSelection): Promise<BestForecastRow[]> {
  if ('keys' in sel && !sel.keys.length) return [];
  return [...(await tx.any(sql.unsafe`
    SELECT s.item_id, s.site_id, b.best_method, fr.start_week, fr.yhat
    FROM series s
    JOIN series_best_method b ON b.pipeline_id = ${pipelineId} AND b.item_id = s.item_id AND b.site_id = s.site_id
    JOIN forecast_results fr ON fr.pipeline_id = ${pipelineId} AND fr.item_id = s.item_id AND fr.site_id = s.site_id AND fr.method = b.best_method
    WHERE ${selectionSql(sel)}
    ORDER BY s.item_id, s.site_id`))] as BestForecastRow[];
}

// ------------------------------------------------------------------------------------------------ results

export interface EoqResultWrite {
  item_id: number;
  site_id: number;
  annual_demand: number;
  unit_cost: number;
  k: number;
  eoq: number;
  eoq_override: number | null;
  orders_per_year: number;
  cycle_stock_value: number;
  total_annual_cost: number;
  freq_constrained: boolean;
  freq_param_name: string | null;
}

/** Insert or update the rows of these SKU-sites; rows of other SKU-sites of the pipeline and scenario stay. */
export async function upsertEoqResults(tx: Tx, pipelineId: number, scenarioId: number, rows: readonly EoqResultWrite[], jobId: string | null): Promise<number> {
  if (!rows.length) return 0;
  const r = await tx.query(sql.unsafe`
    INSERT INTO eoq_results (pipeline_id, scenario_id, item_id, site_id, annual_demand, unit_cost, k, eoq, eoq_override, orders_per_year,
      cycle_stock_value, total_annual_cost, freq_constrained, freq_param_name, job_id)
    SELECT ${pipelineId}, ${scenarioId}, u.item_id, u.site_id, u.annual_demand, u.unit_cost, u.k, u.eoq, u.eoq_override, u.orders_per_year,
      u.cycle_stock_value, u.total_annual_cost, u.freq_constrained, u.freq_param_name, ${jobId}
    FROM ${sql.unnest(rows.map((w) => [
      w.item_id, w.site_id, w.annual_demand, w.unit_cost, w.k, w.eoq, w.eoq_override, w.orders_per_year, w.cycle_stock_value, w.total_annual_cost,
      w.freq_constrained, w.freq_param_name,
    ]), ['int4', 'int4', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'bool', 'text'])}
      AS u(item_id, site_id, annual_demand, unit_cost, k, eoq, eoq_override, orders_per_year, cycle_stock_value, total_annual_cost, freq_constrained, freq_param_name)
    ON CONFLICT (pipeline_id, scenario_id, item_id, site_id) DO UPDATE SET
      annual_demand = EXCLUDED.annual_demand, unit_cost = EXCLUDED.unit_cost, k = EXCLUDED.k, eoq = EXCLUDED.eoq, eoq_override = EXCLUDED.eoq_override,
      orders_per_year = EXCLUDED.orders_per_year, cycle_stock_value = EXCLUDED.cycle_stock_value, total_annual_cost = EXCLUDED.total_annual_cost,
      freq_constrained = EXCLUDED.freq_constrained, freq_param_name = EXCLUDED.freq_param_name, job_id = EXCLUDED.job_id, updated_at = now()`);
  return r.rowCount;
}

/** A chunk of the eoq step rewrites its series: one whose cost went away loses its row instead of keeping a stale one. */
export async function replaceEoqResults(tx: Tx, pipelineId: number, scenarioId: number, keys: readonly SeriesKey[], rows: readonly EoqResultWrite[], jobId: string): Promise<number> {
  if (keys.length) {
    await tx.query(sql.unsafe`
      DELETE FROM eoq_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId}
        AND (item_id, site_id) IN (SELECT * FROM ${sql.unnest(keys.map((k) => [k.item_id, k.site_id]), ['int4', 'int4'])})`);
  }
  return upsertEoqResults(tx, pipelineId, scenarioId, rows, jobId);
}

/** After a full run: rows this run did not write are of series that left the pipeline's scope. */
export async function dropEoqResultsOutside(tx: Tx, pipelineId: number, scenarioId: number, jobId: string): Promise<number> {
  const r = await tx.query(sql.unsafe`DELETE FROM eoq_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId} AND job_id IS DISTINCT FROM ${jobId}`);
  return r.rowCount;
}

export interface EoqResultRow extends EoqResultWrite {
  item_xuid: string;
  item_name: string;
  site_xuid: string;
  site_name: string;
  job_id: string | null;
  updated_at: string;
}

/** Stored results of a pipeline and scenario for the series the filter lets through. */
export async function eoqResults(tx: Tx, pipelineId: number, scenarioId: number, filter: SeriesFilter): Promise<EoqResultRow[]> {
  return [...(await tx.any(sql.unsafe`
    SELECT r.item_id, r.site_id, it.xuid AS item_xuid, it.name AS item_name, si.xuid AS site_xuid, si.name AS site_name,
      r.annual_demand, r.unit_cost, r.k, r.eoq, r.eoq_override, r.orders_per_year, r.cycle_stock_value, r.total_annual_cost,
      r.freq_constrained, r.freq_param_name, r.job_id, r.updated_at
    FROM eoq_results r
    JOIN series s ON s.item_id = r.item_id AND s.site_id = r.site_id
    JOIN items it ON it.id = r.item_id
    JOIN sites si ON si.id = r.site_id
    WHERE r.pipeline_id = ${pipelineId} AND r.scenario_id = ${scenarioId} AND ${filterSql(filter)}
    ORDER BY r.item_id, r.site_id`))] as EoqResultRow[];
}

/** The pipeline's scenarios with stored results and how many rows each holds. */
export async function eoqResultScenarios(tx: Tx, pipelineId: number): Promise<Array<{ scenario_id: number; name: string; rows: number; updated_at: string }>> {
  return [...(await tx.any(sql.unsafe`
    SELECT r.scenario_id, ks.name, count(*)::int AS rows, max(r.updated_at) AS updated_at
    FROM eoq_results r JOIN kcurve_scenarios ks ON ks.id = r.scenario_id
    WHERE r.pipeline_id = ${pipelineId} GROUP BY r.scenario_id, ks.name ORDER BY r.scenario_id`))] as Array<{ scenario_id: number; name: string; rows: number; updated_at: string }>;
}
