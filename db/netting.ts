/**
 * Forecast netting (migration 023, docs/NETTING.md): the inputs a refresh reads (best-method forecasts of the
 * pipeline, actual orders, firm transfers, the supply plan), its writes, and the reads of the netting routes. Every
 * quantity is bucketed by date into the weeks of the period here; the rule itself is domain/netting.
 */
import type { NettingDirection } from '../domain/netting/consume';
import type { NettingSettings } from '../domain/netting/series';
import type { SeriesKey } from './etl';
import { sql, type Tx } from './pool';
import type { Fragment } from './segments';
import { filterSql, type SeriesFilter } from './series';

// ------------------------------------------------------------------------------------------------ the run

export interface NettingRunRow extends NettingSettings {
  pipeline_id: number;
  job_id: string;
  period_start: string | null;
  supply_scenario_id: number | null;
  supply_run_id: string | null;
  series_count: number;
  computed_at: string;
}

const RUN_COLUMNS = sql.fragment`pipeline_id, job_id, to_char(period_start, 'YYYY-MM-DD') AS period_start, period_weeks, backward_weeks, forward_weeks,
  supply_scenario_id, supply_run_id, series_count, computed_at`;

export async function getNettingRun(tx: Tx, pipelineId: number): Promise<NettingRunRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${RUN_COLUMNS} FROM netting_runs WHERE pipeline_id = ${pipelineId}`)) as NettingRunRow | null;
}

/**
 * Writes the pipeline's run row first: its row lock makes a second refresh of the same pipeline wait until this one
 * commits, so the second one's delete sees the first one's rows instead of colliding with them on insert.
 */
export async function beginNettingRun(tx: Tx, pipelineId: number, jobId: string, s: NettingSettings): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO netting_runs (pipeline_id, job_id, period_weeks, backward_weeks, forward_weeks, computed_at)
    VALUES (${pipelineId}, ${jobId}, ${s.period_weeks}, ${s.backward_weeks}, ${s.forward_weeks}, now())
    ON CONFLICT (pipeline_id) DO UPDATE SET job_id = EXCLUDED.job_id, period_weeks = EXCLUDED.period_weeks, backward_weeks = EXCLUDED.backward_weeks,
      forward_weeks = EXCLUDED.forward_weeks, period_start = NULL, supply_scenario_id = NULL, supply_run_id = NULL, series_count = 0, computed_at = now()`);
  await tx.query(sql.unsafe`DELETE FROM netting_results WHERE pipeline_id = ${pipelineId}`);
}

export async function finishNettingRun(tx: Tx, pipelineId: number, r: { period_start: string | null; supply_scenario_id: number | null; supply_run_id: string | null; series_count: number }): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE netting_runs SET period_start = ${r.period_start}::date, supply_scenario_id = ${r.supply_scenario_id}, supply_run_id = ${r.supply_run_id},
      series_count = ${r.series_count}
    WHERE pipeline_id = ${pipelineId}`);
}

// ------------------------------------------------------------------------------------------------ inputs

/**
 * The pipeline's forecast start: the latest start week of its best-method forecasts. The etl gives every series the
 * same last history week, so they normally agree; a series left from an older run is read from the same date on.
 */
export async function nettingPeriodStart(tx: Tx, pipelineId: number): Promise<string | null> {
  return (await tx.oneFirst(sql.unsafe`
    SELECT to_char(max(fr.start_week), 'YYYY-MM-DD')
    FROM series_best_method b
    JOIN forecast_results fr ON fr.pipeline_id = b.pipeline_id AND fr.item_id = b.item_id AND fr.site_id = b.site_id AND fr.method = b.best_method
    WHERE b.pipeline_id = ${pipelineId}`)) as string | null;
}

export interface NettingForecastRow {
  item_id: number;
  site_id: number;
  best_method: string;
  /** whole weeks from the forecast's start week to the period start (≥ 0): yhat[offset] is the period's first week */
  offset: number;
  yhat: Array<number | null>;
}

/** One page of the pipeline's best-method forecasts, in key order after `after`. */
export async function nettingForecastPage(tx: Tx, pipelineId: number, periodStart: string, after: SeriesKey | null, limit: number): Promise<NettingForecastRow[]> {
  const from = after ? sql.fragment`(b.item_id, b.site_id) > (${after.item_id}, ${after.site_id})` : sql.fragment`TRUE`;
  return [...((await tx.any(sql.unsafe`
    SELECT b.item_id, b.site_id, b.best_method, (${periodStart}::date - fr.start_week) / 7 AS "offset", fr.yhat
    FROM series_best_method b
    JOIN forecast_results fr ON fr.pipeline_id = b.pipeline_id AND fr.item_id = b.item_id AND fr.site_id = b.site_id AND fr.method = b.best_method
    WHERE b.pipeline_id = ${pipelineId} AND ${from}
    ORDER BY b.item_id, b.site_id
    LIMIT ${limit}`)) as NettingForecastRow[])];
}

export type BucketKind = 'actual' | 'firm_demand' | 'supply_plan';

export interface NettingBucketRow {
  kind: BucketKind;
  item_id: number;
  site_id: number;
  /** 0-based week of the period */
  week: number;
  qty: number;
}

/**
 * The weekly actual orders, firm demand and supply plan of these series over the period (docs/NETTING.md, "Inputs"):
 * - actual: demand_history rows dated inside the period, summed per week (a negative week sum counts 0 later);
 * - firm demand: what firm TRANSFER orders still have to ship out of the SKU-site (`source_site_id`), `firm` or
 *   `released` (in transit has left, received is history), qty − received_qty, in the week of the release date (UTC);
 *   overdue releases count in the first week, releases after the period not at all — the supply engine's rule;
 * - supply plan: orders of the given supply run arriving at the SKU-site inside the period, by arrival date.
 */
export async function nettingBuckets(tx: Tx, keys: readonly SeriesKey[], periodStart: string, weeks: number, supplyRunId: string | null): Promise<NettingBucketRow[]> {
  if (!keys.length) return [];
  const start = sql.fragment`${periodStart}::date`;
  const end = sql.fragment`(${periodStart}::date + ${7 * weeks}::int)`;
  const k = sql.fragment`(SELECT * FROM ${sql.unnest(keys.map((x) => [x.item_id, x.site_id]), ['int4', 'int4'])} AS k(item_id, site_id))`;
  const supply = supplyRunId === null ? sql.fragment`` : sql.fragment`
    UNION ALL
    SELECT 'supply_plan', o.item_id, o.site_id, (o.arrival_date - ${start}) / 7, sum(o.qty)::float8
    FROM supply_orders o JOIN ${k} k ON k.item_id = o.item_id AND k.site_id = o.site_id
    WHERE o.run_id = ${supplyRunId} AND o.arrival_date >= ${start} AND o.arrival_date < ${end}
    GROUP BY 2, 3, 4`;
  return [...((await tx.any(sql.unsafe`
    SELECT 'actual' AS kind, d.item_id, d.site_id, (d.ds - ${start}) / 7 AS week, sum(d.qty)::float8 AS qty
    FROM demand_history d JOIN ${k} k ON k.item_id = d.item_id AND k.site_id = d.site_id
    WHERE d.ds >= ${start} AND d.ds < ${end}
    GROUP BY 2, 3, 4
    UNION ALL
    SELECT 'firm_demand', f.item_id, f.source_site_id, GREATEST((f.release_dt AT TIME ZONE 'UTC')::date - ${start}, 0) / 7,
      sum(GREATEST(f.qty - f.received_qty, 0))::float8
    FROM firm_orders f JOIN ${k} k ON k.item_id = f.item_id AND k.site_id = f.source_site_id
    WHERE f.order_type = 'TRANSFER' AND f.erp_status IN ('firm', 'released') AND (f.release_dt AT TIME ZONE 'UTC')::date < ${end}
    GROUP BY 2, 3, 4
    ${supply}`)) as NettingBucketRow[])];
}

// ------------------------------------------------------------------------------------------------ writes

/** One series' result; quantities as exact decimal text (domain/netting/series.ts fromThousandths). */
export interface NettingResultWrite {
  item_id: number;
  site_id: number;
  best_method: string;
  weeks: number;
  forecast: string[];
  actual: string[];
  firm_demand: string[];
  consumed: string[];
  netted: string[];
  over_consumption: string[];
  supply_plan: string[];
  total_forecast: string;
  total_actual: string;
  total_firm_demand: string;
  total_consumed: string;
  total_netted: string;
  total_over_consumption: string;
  total_supply_plan: string;
  consumed_same: string;
  consumed_backward: string;
  consumed_forward: string;
  direction: NettingDirection;
  /** [demand week, forecast week, qty as decimal text] */
  allocations: Array<[number, number, string]>;
}

const literal = (xs: readonly string[]) => `{${xs.join(',')}}`;

export async function insertNettingResults(tx: Tx, pipelineId: number, jobId: string, rows: readonly NettingResultWrite[]): Promise<number> {
  if (!rows.length) return 0;
  // allocations: the quantity travels as a JSON number written from its exact decimal text
  const allocations = (r: NettingResultWrite) => `[${r.allocations.map(([d, f, q]) => `[${d},${f},${q}]`).join(',')}]`;
  await tx.query(sql.unsafe`
    INSERT INTO netting_results (pipeline_id, item_id, site_id, best_method, weeks, forecast, actual, firm_demand, consumed, netted, over_consumption,
      supply_plan, total_forecast, total_actual, total_firm_demand, total_consumed, total_netted, total_over_consumption, total_supply_plan,
      consumed_same, consumed_backward, consumed_forward, direction, allocations, computed_at, job_id)
    SELECT ${pipelineId}, u.item_id, u.site_id, u.best_method, u.weeks, u.forecast::numeric[], u.actual::numeric[], u.firm_demand::numeric[],
      u.consumed::numeric[], u.netted::numeric[], u.over_consumption::numeric[], u.supply_plan::numeric[], u.total_forecast::numeric,
      u.total_actual::numeric, u.total_firm_demand::numeric, u.total_consumed::numeric, u.total_netted::numeric, u.total_over_consumption::numeric,
      u.total_supply_plan::numeric, u.consumed_same::numeric, u.consumed_backward::numeric, u.consumed_forward::numeric, u.direction,
      u.allocations::jsonb, now(), ${jobId}
    FROM ${sql.unnest(
      rows.map((r) => [
        r.item_id, r.site_id, r.best_method, r.weeks, literal(r.forecast), literal(r.actual), literal(r.firm_demand), literal(r.consumed), literal(r.netted),
        literal(r.over_consumption), literal(r.supply_plan), r.total_forecast, r.total_actual, r.total_firm_demand, r.total_consumed, r.total_netted,
        r.total_over_consumption, r.total_supply_plan, r.consumed_same, r.consumed_backward, r.consumed_forward, r.direction, allocations(r),
      ]),
      ['int4', 'int4', 'text', 'int4', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text',
        'text', 'text', 'text', 'text'],
    )} AS u(item_id, site_id, best_method, weeks, forecast, actual, firm_demand, consumed, netted, over_consumption, supply_plan, total_forecast,
      total_actual, total_firm_demand, total_consumed, total_netted, total_over_consumption, total_supply_plan, consumed_same, consumed_backward,
      consumed_forward, direction, allocations)`);
  return rows.length;
}

// ------------------------------------------------------------------------------------------------ reads

const FROM = sql.fragment`netting_results n JOIN series s ON s.item_id = n.item_id AND s.site_id = n.site_id`;

export interface NettingTotals {
  series_count: number;
  total_forecast: number;
  total_consumed: number;
  total_netted: number;
  total_firm_demand: number;
  total_supply_plan: number;
  consumed_backward: number;
  consumed_forward: number;
}

/** Sums in numeric: exact, so total_forecast − total_consumed = total_netted holds as it does per row. */
export async function nettingTotals(tx: Tx, pipelineId: number, f: SeriesFilter): Promise<NettingTotals> {
  return (await tx.one(sql.unsafe`
    SELECT count(*)::int AS series_count, COALESCE(sum(n.total_forecast), 0) AS total_forecast, COALESCE(sum(n.total_consumed), 0) AS total_consumed,
      COALESCE(sum(n.total_netted), 0) AS total_netted, COALESCE(sum(n.total_firm_demand), 0) AS total_firm_demand,
      COALESCE(sum(n.total_supply_plan), 0) AS total_supply_plan, COALESCE(sum(n.consumed_backward), 0) AS consumed_backward,
      COALESCE(sum(n.consumed_forward), 0) AS consumed_forward
    FROM ${FROM} WHERE n.pipeline_id = ${pipelineId} AND ${filterSql(f)}`)) as NettingTotals;
}

export interface NettingSeriesRow {
  unique_id: string;
  item_id: number;
  site_id: number;
  item_xuid: string;
  item_name: string;
  site_xuid: string;
  site_name: string;
  best_method: string;
  weeks: number;
  total_forecast: number;
  total_actual: number;
  total_firm_demand: number;
  total_consumed: number;
  total_netted: number;
  total_over_consumption: number;
  total_supply_plan: number;
  consumption_rate: number | null;
  consumed_same: number;
  consumed_backward: number;
  consumed_forward: number;
  direction: NettingDirection;
  computed_at: string;
  job_id: string;
}

const SERIES_COLUMNS = sql.fragment`(n.item_id::text || '_' || n.site_id::text) AS unique_id, n.item_id, n.site_id, it.xuid AS item_xuid, it.name AS item_name,
  si.xuid AS site_xuid, si.name AS site_name, n.best_method, n.weeks, n.total_forecast, n.total_actual, n.total_firm_demand, n.total_consumed,
  n.total_netted, n.total_over_consumption, n.total_supply_plan, (n.total_consumed / NULLIF(n.total_forecast, 0))::float8 AS consumption_rate,
  n.consumed_same, n.consumed_backward, n.consumed_forward, n.direction, n.computed_at, n.job_id`;
const SERIES_FROM = sql.fragment`${FROM} JOIN items it ON it.id = n.item_id JOIN sites si ON si.id = n.site_id`;

export const NETTING_SORTS = ['unique_id', 'total_forecast', 'total_consumed', 'total_netted', 'total_over_consumption', 'total_firm_demand', 'total_supply_plan', 'consumption_rate'] as const;
export type NettingSort = (typeof NETTING_SORTS)[number];

export interface NettingSeriesQuery {
  item_id?: number;
  site_id?: number;
  direction?: NettingDirection;
  over_consumed?: boolean;
  sort_by: NettingSort;
  sort_dir: 'asc' | 'desc';
  skip: number;
  limit: number;
}

export async function nettingSeriesPage(tx: Tx, pipelineId: number, f: SeriesFilter, q: NettingSeriesQuery): Promise<{ rows: NettingSeriesRow[]; total: number }> {
  const conds: Fragment[] = [sql.fragment`n.pipeline_id = ${pipelineId}`, filterSql(f)];
  if (q.item_id !== undefined) conds.push(sql.fragment`n.item_id = ${q.item_id}`);
  if (q.site_id !== undefined) conds.push(sql.fragment`n.site_id = ${q.site_id}`);
  if (q.direction !== undefined) conds.push(sql.fragment`n.direction = ${q.direction}`);
  if (q.over_consumed !== undefined) conds.push(q.over_consumed ? sql.fragment`n.total_over_consumption > 0` : sql.fragment`n.total_over_consumption = 0`);
  const where = sql.join(conds, sql.fragment` AND `);
  const dir = q.sort_dir === 'desc' ? sql.fragment`DESC` : sql.fragment`ASC`;
  const key = q.sort_by === 'unique_id' ? sql.fragment`n.item_id ${dir}, n.site_id ${dir}`
    : q.sort_by === 'consumption_rate' ? sql.fragment`(n.total_consumed / NULLIF(n.total_forecast, 0)) ${dir} NULLS LAST, n.item_id, n.site_id`
      : sql.fragment`${sql.identifier(['n', q.sort_by])} ${dir}, n.item_id, n.site_id`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${FROM} WHERE ${where}`)) as number;
  const rows = (await tx.any(sql.unsafe`
    SELECT ${SERIES_COLUMNS} FROM ${SERIES_FROM} WHERE ${where} ORDER BY ${key} OFFSET ${q.skip} LIMIT ${q.limit}`)) as readonly NettingSeriesRow[];
  return { rows: [...rows], total };
}

export interface NettingSeriesDetail extends NettingSeriesRow {
  forecast: number[];
  actual: number[];
  firm_demand: number[];
  /** actual + firm demand, added in numeric */
  demand: number[];
  consumed: number[];
  netted: number[];
  over_consumption: number[];
  supply_plan: number[];
  allocations: Array<[number, number, number]>;
}

export async function nettingOfSeries(tx: Tx, pipelineId: number, k: SeriesKey): Promise<NettingSeriesDetail | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${SERIES_COLUMNS}, n.forecast::float8[] AS forecast, n.actual::float8[] AS actual, n.firm_demand::float8[] AS firm_demand,
      ARRAY(SELECT (x.a + x.f)::float8 FROM unnest(n.actual, n.firm_demand) WITH ORDINALITY AS x(a, f, i) ORDER BY x.i) AS demand,
      n.consumed::float8[] AS consumed, n.netted::float8[] AS netted, n.over_consumption::float8[] AS over_consumption,
      n.supply_plan::float8[] AS supply_plan, n.allocations
    FROM ${SERIES_FROM} WHERE n.pipeline_id = ${pipelineId} AND n.item_id = ${k.item_id} AND n.site_id = ${k.site_id}`)) as NettingSeriesDetail | null;
}
