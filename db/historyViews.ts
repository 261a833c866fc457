/**
 * Reads over weekly plan versions (document 2 §4.5; docs/HISTORY.md, "Comparing versions, plan vs actual, timeline"):
 * one version against another (or against the live rows) per dimension, a version's forecast against the demand that
 * arrived since, and the timeline of a pipeline's versions.
 *
 * Every comparison is one statement: each side's rows are aggregated to one row per key, the two sides meet in a FULL
 * JOIN (a hash join: no index order is needed, and a version's rows sit in partitions of their own), and the totals,
 * the row count and the requested page come back together as JSON, so a page never costs a second pass.
 */
import { HISTORY_TABLES, pipelineKpis, versionSupplyRuns, type VersionRow } from './history';
import { sql, type Tx } from './pool';
import { seriesScope, type Fragment, type ScopeUser } from './segments';

/** One side of a comparison: a version (its partitions, by snapshot id) or the pipeline's live rows. */
export type Side = { kind: 'version'; version: VersionRow } | { kind: 'live' };

export const COMPARE_DIMENSIONS = ['kpi', 'forecast', 'order', 'inventory', 'meio_buffer', 'exceptions', 'best_method'] as const;
export type CompareDimension = (typeof COMPARE_DIMENSIONS)[number];

export interface SeriesFilter {
  user: ScopeUser;
  itemId?: number;
  siteId?: number;
  segmentId?: number;
}

export interface CompareQuery {
  pipelineId: number;
  base: Side;
  target: Side;
  filter: SeriesFilter;
  supplyScenarioId?: number;
  meioScenarioId?: number;
  onlyChanged: boolean;
  detail: boolean;
  sort: 'abs_delta' | 'series';
  skip: number;
  limit: number;
}

export interface ComparePage {
  total: number;
  totals: Record<string, unknown>;
  rows: Array<Record<string, unknown>>;
  window?: { from_week: string; to_week: string; weeks: number } | null;
}

// Live table → its history table, spelled out so that no table name is ever built from a string.
const TABLES = {
  series_best_method: [sql.fragment`series_best_method`, sql.fragment`history_series_best_method`],
  forecast_results: [sql.fragment`forecast_results`, sql.fragment`history_forecast_results`],
  meio_results: [sql.fragment`meio_results`, sql.fragment`history_meio_results`],
  supply_runs: [sql.fragment`supply_runs`, sql.fragment`history_supply_runs`],
  supply_orders: [sql.fragment`supply_orders`, sql.fragment`history_supply_orders`],
  supply_plans: [sql.fragment`supply_plans`, sql.fragment`history_supply_plans`],
  supply_exceptions: [sql.fragment`supply_exceptions`, sql.fragment`history_supply_exceptions`],
} as const;
type PipelineTable = 'series_best_method' | 'forecast_results' | 'meio_results';
type RunTable = 'supply_orders' | 'supply_plans' | 'supply_exceptions';

/**
 * The supply runs a version holds are those freezeVersion copied: per supply scenario of the pipeline, the newest
 * completed run. The live side takes the same runs, so a version compared with the live rows right after its freeze
 * shows no difference.
 */
// the live side reads the supply runs a freeze would copy
const liveRuns = versionSupplyRuns;

/** A pipeline-scoped table's rows of one side. */
function rowsOf(side: Side, pipelineId: number, table: PipelineTable): Fragment {
  const [live, history] = TABLES[table];
  return side.kind === 'version'
    ? sql.fragment`(SELECT * FROM ${history} WHERE snapshot_id = ${side.version.id})`
    : sql.fragment`(SELECT * FROM ${live} WHERE pipeline_id = ${pipelineId})`;
}

/** A supply table's rows of one side, with the supply scenario of their run as `supply_scenario_id`. */
function runRowsOf(side: Side, pipelineId: number, table: RunTable): Fragment {
  const [live, history] = TABLES[table];
  const [, historyRuns] = TABLES.supply_runs;
  return side.kind === 'version'
    ? sql.fragment`(SELECT x.*, r.scenario_id AS supply_scenario_id FROM ${history} x
        JOIN ${historyRuns} r ON r.snapshot_id = ${side.version.id} AND r.run_id = x.run_id WHERE x.snapshot_id = ${side.version.id})`
    : sql.fragment`(SELECT x.*, r.scenario_id AS supply_scenario_id FROM ${live} x JOIN ${liveRuns(pipelineId)} r ON r.run_id = x.run_id)`;
}

/** The series a comparison lists: the caller's segments (§5.12), then item, site and segment filters. */
function seriesWhere(f: SeriesFilter, alias: string): Fragment {
  const col = (c: string) => sql.identifier([alias, c]);
  const parts = [seriesScope(f.user, alias)];
  if (f.itemId !== undefined) parts.push(sql.fragment`${col('item_id')} = ${f.itemId}`);
  if (f.siteId !== undefined) parts.push(sql.fragment`${col('site_id')} = ${f.siteId}`);
  if (f.segmentId !== undefined) {
    parts.push(sql.fragment`EXISTS (SELECT 1 FROM segment_members sm
      WHERE sm.segment_id = ${f.segmentId} AND sm.item_id = ${col('item_id')} AND sm.site_id = ${col('site_id')})`);
  }
  return sql.fragment`${sql.join(parts, sql.fragment` AND `)}`;
}

const scenarioWhere = (alias: string, column: string, id: number | undefined): Fragment =>
  id === undefined ? sql.fragment`TRUE` : sql.fragment`${sql.identifier([alias, column])} = ${id}`;

/** `(target − base) / |base|`, null when base is 0 or missing. */
const pct = (delta: Fragment, base: Fragment): Fragment => sql.fragment`CASE WHEN ${base} <> 0 THEN (${delta}) / abs(${base}) END`;

const SERIES_COLUMNS = sql.fragment`p.item_id || '_' || p.site_id AS unique_id, p.item_id, p.site_id, i.xuid AS item_xuid, i.name AS item_name, s.xuid AS site_xuid`;

interface Shape {
  /** CTEs ending in `j`: one row per key with `item_id`, `site_id`, `sort_key` (the size of the change) and `changed` */
  ctes: Fragment;
  /** which rows of j are listed (before only_changed) */
  listed?: Fragment;
  /** tie-breakers after the sort key, over j's columns */
  order: Fragment;
  /** the listed fields, over the page row `p`, items `i` and sites `s` */
  columns: Fragment;
  /** a scalar JSON expression over the CTEs: the totals of every listed row, all pages */
  totals: Fragment;
  /** a scalar JSON expression returned as `window` */
  window?: Fragment;
}

async function runShape(tx: Tx, q: CompareQuery, shape: Shape): Promise<ComparePage> {
  const keep = [shape.listed ?? sql.fragment`TRUE`];
  if (q.onlyChanged) keep.push(sql.fragment`changed`);
  const order = q.sort === 'abs_delta' ? sql.fragment`sort_key DESC NULLS LAST, ${shape.order}` : shape.order;
  const row = (await tx.one(sql.unsafe`
    WITH ${shape.ctes},
    listed AS (SELECT * FROM j WHERE ${sql.join(keep, sql.fragment` AND `)}),
    pg AS (SELECT l.*, row_number() OVER (ORDER BY ${order}) AS ord FROM listed l ORDER BY ord OFFSET ${q.skip} LIMIT ${q.limit})
    SELECT (SELECT count(*) FROM listed)::int AS total, ${shape.totals} AS totals, ${shape.window ?? sql.fragment`NULL::json`} AS "window",
      (SELECT coalesce(json_agg(r ORDER BY r.ord), '[]'::json) FROM (
        SELECT p.ord, ${shape.columns} FROM pg p LEFT JOIN items i ON i.id = p.item_id LEFT JOIN sites s ON s.id = p.site_id
      ) r) AS rows`)) as { total: number; totals: Record<string, unknown>; window: ComparePage['window']; rows: Array<Record<string, unknown>> };
  // `ord` only carries the page order through json_agg
  const rows = row.rows.map(({ ord: _ord, ...rest }) => rest);
  return { total: row.total, totals: row.totals, rows, ...(shape.window ? { window: row.window } : {}) };
}

const presence = (b: string, t: string) => sql.fragment`CASE WHEN ${sql.identifier([b, 'item_id'])} IS NULL THEN 'target_only'
  WHEN ${sql.identifier([t, 'item_id'])} IS NULL THEN 'base_only' ELSE 'both' END`;

const presenceCounts = sql.fragment`'series', count(*), 'both', count(*) FILTER (WHERE presence = 'both'),
  'base_only', count(*) FILTER (WHERE presence = 'base_only'), 'target_only', count(*) FILTER (WHERE presence = 'target_only'),
  'changed', count(*) FILTER (WHERE changed)`;

/**
 * forecast: per series, each side's best method and the sum of that method's forecast over the comparison window —
 * the weeks from the later of the two versions' first forecast weeks to the earlier of their last ones — so both
 * sides add up the same weeks. A series whose best method has no forecast row has a null total.
 */
function forecastShape(q: CompareQuery): Shape {
  const side = (s: Side, name: string) => {
    const n = sql.identifier([name]);
    return sql.fragment`${n} AS (SELECT m.item_id, m.site_id, m.best_method AS method, f.start_week, f.yhat
      FROM ${rowsOf(s, q.pipelineId, 'series_best_method')} m
      LEFT JOIN ${rowsOf(s, q.pipelineId, 'forecast_results')} f ON f.item_id = m.item_id AND f.site_id = m.site_id AND f.method = m.best_method)`;
  };
  const span = (name: string) => sql.fragment`(SELECT min(start_week) AS w0, max(start_week + 7 * (cardinality(yhat) - 1)) AS w1 FROM ${sql.identifier([name])})`;
  // the stored arrays carry a missing week as NaN (db/floatColumns.ts): it counts as no value, not as a number. The
  // per-week values need one entry per window week (null where the forecast has none); the sums alone unnest the
  // window's slice of the array instead of subscripting it week by week, a third of a 10,000-series comparison's time
  // less, and add up the same values (a slice is clamped to the array where out-of-range subscripts give null).
  const window = q.detail
    ? sql.fragment`SELECT sum(v) AS total, count(v)::int AS weeks, array_agg(v ORDER BY k) AS weekly
      FROM (SELECT k, nullif(f.yhat[(win.w0 - f.start_week) / 7 + k + 1], 'NaN'::float8) AS v FROM generate_series(0, (win.w1 - win.w0) / 7) AS k) z`
    : sql.fragment`SELECT sum(nullif(x, 'NaN'::float8)) AS total, count(nullif(x, 'NaN'::float8))::int AS weeks, NULL::float8[] AS weekly
      FROM unnest(f.yhat[(win.w0 - f.start_week) / 7 + 1 : (win.w1 - f.start_week) / 7 + 1]) AS x`;
  const sums = (from: string, name: string) => sql.fragment`${sql.identifier([name])} AS (
    SELECT f.item_id, f.site_id, f.method,
      CASE WHEN f.yhat IS NOT NULL AND win.w0 <= win.w1 THEN coalesce(a.total, 0) END AS total,
      CASE WHEN f.yhat IS NOT NULL AND win.w0 <= win.w1 THEN a.weeks END AS weeks, a.weekly
    FROM ${sql.identifier([from])} f CROSS JOIN win
    LEFT JOIN LATERAL (${window}) a ON f.yhat IS NOT NULL AND win.w0 <= win.w1
    WHERE ${seriesWhere(q.filter, 'f')})`;
  const ctes = sql.fragment`${side(q.base, 'fb')}, ${side(q.target, 'ft')},
    win AS (SELECT greatest(b.w0, t.w0) AS w0, least(b.w1, t.w1) AS w1 FROM ${span('fb')} b, ${span('ft')} t),
    ${sums('fb', 'sb')}, ${sums('ft', 'st')},
    j AS (
      SELECT item_id, site_id, b.method AS base_method, t.method AS target_method, b.total AS base_total, t.total AS target_total,
        b.weeks AS base_weeks, t.weeks AS target_weeks, b.weekly AS base_weekly, t.weekly AS target_weekly, t.total - b.total AS delta,
        ${presence('b', 't')} AS presence, abs(coalesce(t.total, 0) - coalesce(b.total, 0)) AS sort_key,
        (b.item_id IS NULL OR t.item_id IS NULL OR t.total IS DISTINCT FROM b.total) AS changed
      FROM sb b FULL JOIN st t USING (item_id, site_id))`;
  const detail = q.detail ? sql.fragment`, p.base_weekly, p.target_weekly` : sql.fragment``;
  return {
    ctes,
    order: sql.fragment`item_id, site_id`,
    columns: sql.fragment`${SERIES_COLUMNS}, p.presence, p.changed, p.base_method, p.target_method, p.base_total, p.target_total,
      p.delta, ${pct(sql.fragment`p.delta`, sql.fragment`p.base_total`)} AS pct_delta, p.base_weeks, p.target_weeks ${detail}`,
    totals: sql.fragment`(SELECT json_build_object(${presenceCounts},
      'base_total', coalesce(sum(base_total), 0), 'target_total', coalesce(sum(target_total), 0),
      'delta', coalesce(sum(target_total), 0) - coalesce(sum(base_total), 0),
      'pct_delta', ${pct(sql.fragment`coalesce(sum(target_total), 0) - sum(base_total)`, sql.fragment`sum(base_total)`)},
      'delta_common', coalesce(sum(delta), 0)) FROM j)`,
    window: sql.fragment`(SELECT json_build_object('from_week', w0, 'to_week', w1, 'weeks', (w1 - w0) / 7 + 1) FROM win WHERE w0 <= w1)`,
  };
}

/**
 * A float8 sum over rows depends on the order PostgreSQL reads them in, and a frozen copy is read in another order than
 * the live rows it was copied from: summed as float8, 48 identical orders came out 1e-10 apart and the row was
 * "changed". Summed as numeric (exact), the same rows give the same total in any order.
 */
const exactSum = (x: ReturnType<typeof sql.fragment>) => sql.fragment`sum((${x})::numeric)::float8`;

/** order: engine supply orders per supply scenario and series (count, quantity, value = qty × unit cost), by order type. */
function orderShape(q: CompareQuery): Shape {
  const side = (s: Side, name: string) => sql.fragment`${sql.identifier([name])} AS (
    SELECT x.supply_scenario_id, x.item_id, x.site_id, x.order_type, count(*)::int AS n, ${exactSum(sql.fragment`x.qty`)} AS qty,
      ${exactSum(sql.fragment`x.qty * x.unit_cost`)} AS value
    FROM ${runRowsOf(s, q.pipelineId, 'supply_orders')} x
    WHERE ${seriesWhere(q.filter, 'x')} AND ${scenarioWhere('x', 'supply_scenario_id', q.supplyScenarioId)}
    GROUP BY 1, 2, 3, 4)`;
  const ctes = sql.fragment`${side(q.base, 'ob')}, ${side(q.target, 'ot')},
    jt AS (
      SELECT supply_scenario_id, item_id, site_id, order_type, b.n AS bn, b.qty AS bq, b.value AS bv, t.n AS tn, t.qty AS tq, t.value AS tv,
        bool_or(b.n IS NOT NULL) OVER w AS in_base, bool_or(t.n IS NOT NULL) OVER w AS in_target
      FROM ob b FULL JOIN ot t USING (supply_scenario_id, item_id, site_id, order_type)
      WINDOW w AS (PARTITION BY supply_scenario_id, item_id, site_id)),
    j0 AS (
      SELECT supply_scenario_id, item_id, site_id, bool_or(in_base) AS in_base, bool_or(in_target) AS in_target,
        sum(bn)::int AS base_n_orders, sum(bq) AS base_qty, sum(bv) AS base_value, sum(tn)::int AS target_n_orders, sum(tq) AS target_qty, sum(tv) AS target_value,
        bool_or(bn IS DISTINCT FROM tn OR bq IS DISTINCT FROM tq OR bv IS DISTINCT FROM tv) AS type_changed,
        json_object_agg(order_type, json_build_object(
          'base_n_orders', CASE WHEN in_base THEN coalesce(bn, 0) END, 'base_qty', CASE WHEN in_base THEN coalesce(bq, 0) END,
          'base_value', CASE WHEN in_base THEN coalesce(bv, 0) END, 'target_n_orders', CASE WHEN in_target THEN coalesce(tn, 0) END,
          'target_qty', CASE WHEN in_target THEN coalesce(tq, 0) END, 'target_value', CASE WHEN in_target THEN coalesce(tv, 0) END,
          'delta_qty', coalesce(tq, 0) - coalesce(bq, 0), 'delta_value', coalesce(tv, 0) - coalesce(bv, 0)) ORDER BY order_type) AS by_type
      FROM jt GROUP BY 1, 2, 3),
    j AS (
      SELECT *, CASE WHEN NOT in_base THEN 'target_only' WHEN NOT in_target THEN 'base_only' ELSE 'both' END AS presence,
        abs(coalesce(target_value, 0) - coalesce(base_value, 0)) AS sort_key,
        (NOT (in_base AND in_target) OR type_changed) AS changed
      FROM j0)`;
  return {
    ctes,
    order: sql.fragment`item_id, site_id, supply_scenario_id`,
    columns: sql.fragment`${SERIES_COLUMNS}, p.supply_scenario_id, p.presence, p.changed,
      p.base_n_orders, p.target_n_orders, p.target_n_orders - p.base_n_orders AS delta_n_orders,
      p.base_qty, p.target_qty, p.target_qty - p.base_qty AS delta_qty, ${pct(sql.fragment`p.target_qty - p.base_qty`, sql.fragment`p.base_qty`)} AS pct_delta_qty,
      p.base_value, p.target_value, p.target_value - p.base_value AS delta_value, ${pct(sql.fragment`p.target_value - p.base_value`, sql.fragment`p.base_value`)} AS pct_delta_value,
      p.by_type`,
    totals: sql.fragment`(SELECT json_build_object(${presenceCounts},
      'base_n_orders', coalesce(sum(base_n_orders), 0), 'target_n_orders', coalesce(sum(target_n_orders), 0),
      'delta_n_orders', coalesce(sum(target_n_orders), 0) - coalesce(sum(base_n_orders), 0),
      'base_qty', coalesce(sum(base_qty), 0), 'target_qty', coalesce(sum(target_qty), 0), 'delta_qty', coalesce(sum(target_qty), 0) - coalesce(sum(base_qty), 0),
      'base_value', coalesce(sum(base_value), 0), 'target_value', coalesce(sum(target_value), 0),
      'delta_value', coalesce(sum(target_value), 0) - coalesce(sum(base_value), 0),
      'by_type', (SELECT coalesce(json_agg(json_build_object('order_type', order_type, 'base_n_orders', bn, 'target_n_orders', tn, 'base_qty', bq, 'target_qty', tq,
          'delta_qty', tq - bq, 'base_value', bv, 'target_value', tv, 'delta_value', tv - bv) ORDER BY order_type), '[]'::json)
        FROM (SELECT order_type, coalesce(sum(bn), 0)::int AS bn, coalesce(sum(tn), 0)::int AS tn, coalesce(sum(bq), 0) AS bq, coalesce(sum(tq), 0) AS tq,
          coalesce(sum(bv), 0) AS bv, coalesce(sum(tv), 0) AS tv FROM jt GROUP BY order_type) bt)) FROM j)`,
  };
}

/**
 * inventory: the projected plan per supply scenario and series. avg_projected is the mean projected on-hand over the
 * horizon with a backlog week counted as 0, as avg_inventory_value counts it (domain/supply/report.ts); demand_qty the
 * positive gross demand, which weighs the fill rate of the totals.
 */
function inventoryShape(q: CompareQuery): Shape {
  // a version's copy of a plan carries both, computed when it was frozen (migration 021), by the functions used here
  // for the live rows
  const derived = (s: Side) => s.kind === 'version'
    ? sql.fragment`x.avg_projected, x.demand_qty`
    : sql.fragment`history_mean_positive(x.projected) AS avg_projected, history_sum_positive(x.gross) AS demand_qty`;
  const side = (s: Side, name: string) => sql.fragment`${sql.identifier([name])} AS (
    SELECT x.supply_scenario_id, x.item_id, x.site_id, ${derived(s)},
      x.ending_inventory_value, x.avg_inventory_value, x.shortage_qty, x.fill_rate
    FROM ${runRowsOf(s, q.pipelineId, 'supply_plans')} x
    WHERE ${seriesWhere(q.filter, 'x')} AND ${scenarioWhere('x', 'supply_scenario_id', q.supplyScenarioId)})`;
  const fields = ['avg_projected', 'ending_inventory_value', 'avg_inventory_value', 'shortage_qty', 'fill_rate', 'demand_qty'];
  const both = sql.join(fields.map((f) => sql.fragment`b.${sql.identifier([f])} AS ${sql.identifier([`base_${f}`])}, t.${sql.identifier([f])} AS ${sql.identifier([`target_${f}`])}`), sql.fragment`, `);
  const listed = sql.join(fields.filter((f) => f !== 'demand_qty').map((f) => sql.fragment`p.${sql.identifier([`base_${f}`])}, p.${sql.identifier([`target_${f}`])},
    p.${sql.identifier([`target_${f}`])} - p.${sql.identifier([`base_${f}`])} AS ${sql.identifier([`delta_${f}`])}`), sql.fragment`, `);
  const changedAny = sql.join(fields.map((f) => sql.fragment`b.${sql.identifier([f])} IS DISTINCT FROM t.${sql.identifier([f])}`), sql.fragment` OR `);
  const sums = (prefix: string) => sql.join(['avg_projected', 'ending_inventory_value', 'avg_inventory_value', 'shortage_qty', 'demand_qty'].map((f) =>
    sql.fragment`${`${prefix}_${f}`}::text, coalesce(sum(${sql.identifier([`${prefix}_${f}`])}), 0)`), sql.fragment`, `);
  const fill = (prefix: string) => {
    const d = sql.identifier([`${prefix}_demand_qty`]);
    const s = sql.identifier([`${prefix}_shortage_qty`]);
    return sql.fragment`CASE WHEN sum(${d}) > 0 THEN (sum(${d}) - sum(${s})) / sum(${d}) END`;
  };
  return {
    ctes: sql.fragment`${side(q.base, 'pb')}, ${side(q.target, 'pt')},
      j AS (
        SELECT supply_scenario_id, item_id, site_id, ${both}, ${presence('b', 't')} AS presence,
          abs(coalesce(t.ending_inventory_value, 0) - coalesce(b.ending_inventory_value, 0)) AS sort_key,
          (b.item_id IS NULL OR t.item_id IS NULL OR ${changedAny}) AS changed
        FROM pb b FULL JOIN pt t USING (supply_scenario_id, item_id, site_id))`,
    order: sql.fragment`item_id, site_id, supply_scenario_id`,
    columns: sql.fragment`${SERIES_COLUMNS}, p.supply_scenario_id, p.presence, p.changed, ${listed}`,
    totals: sql.fragment`(SELECT json_build_object(${presenceCounts}, ${sums('base')}, ${sums('target')},
      'base_fill_rate', ${fill('base')}, 'target_fill_rate', ${fill('target')},
      'delta_ending_inventory_value', coalesce(sum(target_ending_inventory_value), 0) - coalesce(sum(base_ending_inventory_value), 0),
      'delta_avg_inventory_value', coalesce(sum(target_avg_inventory_value), 0) - coalesce(sum(base_avg_inventory_value), 0),
      'delta_shortage_qty', coalesce(sum(target_shortage_qty), 0) - coalesce(sum(base_shortage_qty), 0),
      'delta_fill_rate', ${fill('target')} - ${fill('base')}) FROM j)`,
  };
}

/** meio_buffer: the MEIO policy per MEIO scenario and SKU-site; the fill rate of the totals is weighted by mean weekly demand. */
function meioShape(q: CompareQuery): Shape {
  const fields = ['safety_stock', 'reorder_point', 'order_up_to', 'investment', 'expected_fill_rate'];
  const side = (s: Side, name: string) => sql.fragment`${sql.identifier([name])} AS (
    SELECT x.scenario_id AS meio_scenario_id, x.item_id, x.site_id, x.policy, x.weekly_mean, ${sql.join(fields.map((f) => sql.fragment`x.${sql.identifier([f])}`), sql.fragment`, `)}
    FROM ${rowsOf(s, q.pipelineId, 'meio_results')} x
    WHERE ${seriesWhere(q.filter, 'x')} AND ${scenarioWhere('x', 'scenario_id', q.meioScenarioId)})`;
  const both = sql.join(fields.map((f) => sql.fragment`b.${sql.identifier([f])} AS ${sql.identifier([`base_${f}`])}, t.${sql.identifier([f])} AS ${sql.identifier([`target_${f}`])}`), sql.fragment`, `);
  const listed = sql.join(fields.map((f) => sql.fragment`p.${sql.identifier([`base_${f}`])}, p.${sql.identifier([`target_${f}`])},
    p.${sql.identifier([`target_${f}`])} - p.${sql.identifier([`base_${f}`])} AS ${sql.identifier([`delta_${f}`])}`), sql.fragment`, `);
  const changedAny = sql.join([...fields, 'policy'].map((f) => sql.fragment`b.${sql.identifier([f])} IS DISTINCT FROM t.${sql.identifier([f])}`), sql.fragment` OR `);
  const sums = (prefix: string) => sql.join(['safety_stock', 'reorder_point', 'order_up_to', 'investment'].map((f) =>
    sql.fragment`${`${prefix}_${f}`}::text, coalesce(sum(${sql.identifier([`${prefix}_${f}`])}), 0)`), sql.fragment`, `);
  const fill = (prefix: string) => {
    const fr = sql.identifier([`${prefix}_expected_fill_rate`]);
    const w = sql.identifier([`${prefix}_weekly_mean`]);
    return sql.fragment`sum(${fr} * ${w}) FILTER (WHERE ${fr} IS NOT NULL AND ${w} > 0) / nullif(sum(${w}) FILTER (WHERE ${fr} IS NOT NULL AND ${w} > 0), 0)`;
  };
  return {
    ctes: sql.fragment`${side(q.base, 'mb')}, ${side(q.target, 'mt')},
      j AS (
        SELECT meio_scenario_id, item_id, site_id, b.policy AS base_policy, t.policy AS target_policy, b.weekly_mean AS base_weekly_mean,
          t.weekly_mean AS target_weekly_mean, ${both}, ${presence('b', 't')} AS presence,
          abs(coalesce(t.investment, 0) - coalesce(b.investment, 0)) AS sort_key,
          (b.item_id IS NULL OR t.item_id IS NULL OR ${changedAny}) AS changed
        FROM mb b FULL JOIN mt t USING (meio_scenario_id, item_id, site_id))`,
    order: sql.fragment`item_id, site_id, meio_scenario_id`,
    columns: sql.fragment`${SERIES_COLUMNS}, p.meio_scenario_id, p.presence, p.changed, p.base_policy, p.target_policy, ${listed}`,
    totals: sql.fragment`(SELECT json_build_object(${presenceCounts}, ${sums('base')}, ${sums('target')},
      'delta_safety_stock', coalesce(sum(target_safety_stock), 0) - coalesce(sum(base_safety_stock), 0),
      'delta_investment', coalesce(sum(target_investment), 0) - coalesce(sum(base_investment), 0),
      'base_expected_fill_rate', ${fill('base')}, 'target_expected_fill_rate', ${fill('target')}) FROM j)`,
  };
}

/**
 * exceptions: supply exceptions counted per supply scenario, series, type and severity. Weeks are not matched: an
 * exception's week is counted from its run's planning date, which moves with every version, so a group is new (none
 * in base), resolved (none in target) or persisting (in both).
 */
function exceptionShape(q: CompareQuery): Shape {
  const side = (s: Side, name: string) => sql.fragment`${sql.identifier([name])} AS (
    SELECT x.supply_scenario_id, x.item_id, x.site_id, x.type, x.severity, count(*)::int AS n, ${exactSum(sql.fragment`x.qty`)} AS qty
    FROM ${runRowsOf(s, q.pipelineId, 'supply_exceptions')} x
    WHERE ${seriesWhere(q.filter, 'x')} AND ${scenarioWhere('x', 'supply_scenario_id', q.supplyScenarioId)}
    GROUP BY 1, 2, 3, 4, 5)`;
  return {
    ctes: sql.fragment`${side(q.base, 'eb')}, ${side(q.target, 'et')},
      j AS (
        SELECT supply_scenario_id, item_id, site_id, type, severity, coalesce(b.n, 0) AS base_count, coalesce(t.n, 0) AS target_count,
          coalesce(b.qty, 0) AS base_qty, coalesce(t.qty, 0) AS target_qty,
          CASE WHEN b.n IS NULL THEN 'new' WHEN t.n IS NULL THEN 'resolved' ELSE 'persisting' END AS status,
          abs(coalesce(t.n, 0) - coalesce(b.n, 0)) AS sort_key,
          CASE severity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 WHEN 'low' THEN 2 ELSE 3 END AS severity_rank,
          (b.n IS NULL OR t.n IS NULL OR b.n <> t.n OR b.qty IS DISTINCT FROM t.qty) AS changed
        FROM eb b FULL JOIN et t USING (supply_scenario_id, item_id, site_id, type, severity))`,
    order: sql.fragment`severity_rank, item_id, site_id, supply_scenario_id, type`,
    columns: sql.fragment`${SERIES_COLUMNS}, p.supply_scenario_id, p.type, p.severity, p.status, p.changed, p.base_count, p.target_count,
      p.target_count - p.base_count AS delta, p.base_qty, p.target_qty, p.target_qty - p.base_qty AS delta_qty`,
    totals: sql.fragment`(SELECT json_build_object('groups', count(*), 'changed', count(*) FILTER (WHERE changed),
      'base_count', coalesce(sum(base_count), 0), 'target_count', coalesce(sum(target_count), 0), 'delta', coalesce(sum(target_count - base_count), 0),
      'new', coalesce(sum(target_count) FILTER (WHERE status = 'new'), 0), 'resolved', coalesce(sum(base_count) FILTER (WHERE status = 'resolved'), 0),
      'persisting', coalesce(sum(target_count) FILTER (WHERE status = 'persisting'), 0),
      'by_type', (SELECT coalesce(json_agg(json_build_object('type', type, 'severity', severity, 'base_count', bc, 'target_count', tc, 'delta', tc - bc,
          'new', nw, 'resolved', rs, 'persisting', ps) ORDER BY type, severity_rank), '[]'::json)
        FROM (SELECT type, severity, min(severity_rank) AS severity_rank, sum(base_count) AS bc, sum(target_count) AS tc,
          coalesce(sum(target_count) FILTER (WHERE status = 'new'), 0) AS nw, coalesce(sum(base_count) FILTER (WHERE status = 'resolved'), 0) AS rs,
          coalesce(sum(target_count) FILTER (WHERE status = 'persisting'), 0) AS ps FROM j GROUP BY type, severity) g)) FROM j)`,
  };
}

/** best_method: the series whose best method changed (or that only one side has), with counts per method. */
function bestMethodShape(q: CompareQuery): Shape {
  const side = (s: Side, name: string) => sql.fragment`${sql.identifier([name])} AS (
    SELECT x.item_id, x.site_id, x.best_method, x.best_score, x.metric FROM ${rowsOf(s, q.pipelineId, 'series_best_method')} x WHERE ${seriesWhere(q.filter, 'x')})`;
  return {
    ctes: sql.fragment`${side(q.base, 'bb')}, ${side(q.target, 'bt')},
      j AS (
        SELECT item_id, site_id, b.best_method AS base_method, t.best_method AS target_method, b.best_score AS base_score, t.best_score AS target_score,
          b.metric AS base_metric, t.metric AS target_metric, ${presence('b', 't')} AS presence, NULL::int AS sort_key,
          (b.best_method IS DISTINCT FROM t.best_method) AS changed
        FROM bb b FULL JOIN bt t USING (item_id, site_id))`,
    listed: sql.fragment`changed`,
    order: sql.fragment`base_method NULLS FIRST, target_method NULLS FIRST, item_id, site_id`,
    columns: sql.fragment`${SERIES_COLUMNS}, p.presence, p.base_method, p.target_method, p.base_score, p.target_score, p.base_metric, p.target_metric`,
    totals: sql.fragment`(SELECT json_build_object('series', count(*), 'unchanged', count(*) FILTER (WHERE NOT changed),
      'changed', count(*) FILTER (WHERE changed AND presence = 'both'), 'base_only', count(*) FILTER (WHERE presence = 'base_only'),
      'target_only', count(*) FILTER (WHERE presence = 'target_only'),
      'by_method', (SELECT coalesce(json_agg(json_build_object('method', method, 'base_count', bc, 'target_count', tc, 'delta', tc - bc,
          'gained', gained, 'lost', lost) ORDER BY method), '[]'::json)
        FROM (SELECT method, count(*) FILTER (WHERE side = 'b') AS bc, count(*) FILTER (WHERE side = 't') AS tc,
          count(*) FILTER (WHERE side = 't' AND changed) AS gained, count(*) FILTER (WHERE side = 'b' AND changed) AS lost
          FROM (SELECT base_method AS method, 'b' AS side, changed FROM j WHERE base_method IS NOT NULL
                UNION ALL SELECT target_method, 't', changed FROM j WHERE target_method IS NOT NULL) m GROUP BY method) bm),
      'transitions', (SELECT coalesce(json_agg(json_build_object('from', base_method, 'to', target_method, 'series', n)
          ORDER BY n DESC, base_method NULLS FIRST, target_method NULLS FIRST), '[]'::json)
        FROM (SELECT base_method, target_method, count(*) AS n FROM j WHERE changed GROUP BY 1, 2) tr)) FROM j)`,
  };
}

const SHAPES: Record<Exclude<CompareDimension, 'kpi'>, (q: CompareQuery) => Shape> = {
  forecast: forecastShape, order: orderShape, inventory: inventoryShape, meio_buffer: meioShape, exceptions: exceptionShape, best_method: bestMethodShape,
};

/** One page of a per-series comparison, with the totals of every series the filters select. */
export function compareSeries(tx: Tx, dimension: Exclude<CompareDimension, 'kpi'>, q: CompareQuery): Promise<ComparePage> {
  return runShape(tx, q, SHAPES[dimension](q));
}

// ---------------------------------------------------------------------------------------------------------------
// KPIs

export interface SnapshotFigures {
  kpis: { fill_rate: number | null; inventory_value: number | null; shortage_qty: number | null; forecast_mase: number | null; series: number | null };
  row_count_total: number;
  table_counts: Record<string, number>;
}

export const versionFigures = (v: VersionRow): SnapshotFigures => ({
  kpis: { fill_rate: v.kpi_fill_rate, inventory_value: v.kpi_inventory_value, shortage_qty: v.kpi_shortage_qty, forecast_mase: v.kpi_forecast_mase, series: v.kpi_series },
  row_count_total: v.row_count_total,
  table_counts: v.table_counts,
});

/**
 * What a freeze of the pipeline would store now: the registry's KPIs and the rows per table, by the rules of
 * freezeVersion (db/history.ts), so the live side of a KPI comparison reads like a version.
 */
export async function liveFigures(tx: Tx, pipelineId: number): Promise<SnapshotFigures> {
  const runs = (await tx.any(sql.unsafe`SELECT run_id, scenario_id, started_at, kpis FROM ${liveRuns(pipelineId)} r`)) as ReadonlyArray<{ run_id: string }>;
  const runIds = sql.array(runs.map((r) => r.run_id), 'text');
  const kpis = await pipelineKpis(tx, pipelineId);
  const allocationRuns = sql.fragment`(SELECT DISTINCT ON (supply_run_id) run_id FROM allocation_runs
    WHERE supply_run_id = ANY(${runIds}) AND status = 'completed' ORDER BY supply_run_id, started_at DESC)`;
  const counts = sql.join(HISTORY_TABLES.map(([table, scope]) => {
    const t = sql.identifier([table]);
    const where = scope === 'pipeline'
      ? sql.fragment`pipeline_id = ${pipelineId}`
      : table.startsWith('allocation_') ? sql.fragment`run_id IN ${allocationRuns}` : sql.fragment`run_id = ANY(${runIds})`;
    return sql.fragment`${table}::text, (SELECT count(*) FROM ${t} WHERE ${where})`;
  }), sql.fragment`, `);
  const tableCounts = (await tx.oneFirst(sql.unsafe`
    SELECT json_build_object(${counts}, 'on_hand', (SELECT count(*) FROM item_site))`)) as Record<string, number>;
  return { kpis, table_counts: tableCounts, row_count_total: Object.values(tableCounts).reduce((n, c) => n + c, 0) };
}

// ---------------------------------------------------------------------------------------------------------------
// Plan vs actual

export interface PlanVsActualQuery {
  version: VersionRow;
  filter: SeriesFilter;
  /** only the first n weeks from the archive date */
  horizonWeeks?: number;
  detail: boolean;
  sort: 'abs_error' | 'series';
  skip: number;
  limit: number;
}

export interface PlanVsActualPage {
  total: number;
  totals: Record<string, unknown>;
  by_week: Array<Record<string, unknown>>;
  rows: Array<Record<string, unknown>>;
}

/**
 * The version's best-method forecast for each week from its archive date on against the clean weekly demand
 * (series_weekly, written by the etl step) of the weeks that have it: closed weeks and weeks the etl has not yet
 * brought in have no actual and are left out, as are weeks the forecast has no value for.
 */
export async function planVsActual(tx: Tx, q: PlanVsActualQuery): Promise<PlanVsActualPage> {
  const v = q.version;
  const last = q.horizonWeeks === undefined ? sql.fragment`TRUE` : sql.fragment`w.week < ${v.archive_date}::date + ${7 * q.horizonWeeks}::int`;
  const order = q.sort === 'abs_error' ? sql.fragment`abs_error DESC, item_id, site_id` : sql.fragment`item_id, site_id`;
  const points = q.detail
    ? sql.fragment`, (SELECT json_agg(json_build_object('week', x.week, 'forecast', x.fc, 'actual', x.actual, 'error', x.fc - x.actual) ORDER BY x.week)
        FROM pts x WHERE x.item_id = p.item_id AND x.site_id = p.site_id) AS weeks_detail`
    : sql.fragment``;
  const row = (await tx.one(sql.unsafe`
    WITH f AS (
      SELECT m.item_id, m.site_id, m.best_method AS method, fr.start_week, fr.yhat
      FROM history_series_best_method m
      JOIN history_forecast_results fr ON fr.snapshot_id = ${v.id} AND fr.item_id = m.item_id AND fr.site_id = m.site_id AND fr.method = m.best_method
      WHERE m.snapshot_id = ${v.id} AND ${seriesWhere(q.filter, 'm')}),
    pts AS (
      SELECT f.item_id, f.site_id, f.method, w.week, nullif(f.yhat[(w.week - f.start_week) / 7 + 1], 'NaN'::float8) AS fc, w.y::float8 AS actual
      FROM f JOIN series_weekly w ON w.item_id = f.item_id AND w.site_id = f.site_id
      WHERE w.week >= greatest(f.start_week, ${v.archive_date}::date) AND w.week < f.start_week + 7 * cardinality(f.yhat) AND w.y IS NOT NULL AND ${last}
        AND nullif(f.yhat[(w.week - f.start_week) / 7 + 1], 'NaN'::float8) IS NOT NULL),
    s AS (
      SELECT item_id, site_id, min(method) AS method, count(*)::int AS weeks, min(week) AS first_week, max(week) AS last_week,
        sum(fc) AS forecast, sum(actual) AS actual, sum(fc - actual) AS error, sum(abs(fc - actual)) AS abs_error,
        sum(abs(actual)) AS abs_actual, avg(abs(fc - actual) / abs(actual)) FILTER (WHERE actual <> 0) AS mape
      FROM pts GROUP BY item_id, site_id),
    pg AS (SELECT s.*, row_number() OVER (ORDER BY ${order}) AS ord FROM s ORDER BY ord OFFSET ${q.skip} LIMIT ${q.limit})
    SELECT (SELECT count(*) FROM s)::int AS total,
      (SELECT json_build_object('series', count(*), 'series_in_version', (SELECT count(*) FROM f), 'weeks', coalesce(sum(weeks), 0),
          'first_week', min(first_week), 'last_week', max(last_week),
          'forecast', coalesce(sum(forecast), 0), 'actual', coalesce(sum(actual), 0), 'error', coalesce(sum(error), 0), 'abs_error', coalesce(sum(abs_error), 0),
          'bias', CASE WHEN sum(actual) <> 0 THEN sum(error) / sum(actual) END,
          'mape', (SELECT avg(abs(fc - actual) / abs(actual)) FROM pts WHERE actual <> 0),
          'wape', CASE WHEN sum(abs_actual) > 0 THEN sum(abs_error) / sum(abs_actual) END) FROM s) AS totals,
      (SELECT coalesce(json_agg(json_build_object('week', week, 'series', n, 'forecast', fc, 'actual', a, 'error', fc - a, 'abs_error', ae,
          'wape', CASE WHEN aa > 0 THEN ae / aa END) ORDER BY week), '[]'::json)
        FROM (SELECT week, count(*) AS n, sum(fc) AS fc, sum(actual) AS a, sum(abs(fc - actual)) AS ae, sum(abs(actual)) AS aa FROM pts GROUP BY week) bw) AS by_week,
      (SELECT coalesce(json_agg(r ORDER BY r.ord), '[]'::json) FROM (
        SELECT p.ord, ${SERIES_COLUMNS}, p.method, p.weeks, p.first_week, p.last_week, p.forecast, p.actual, p.error, p.abs_error,
          CASE WHEN p.actual <> 0 THEN p.error / p.actual END AS bias, p.mape,
          CASE WHEN p.abs_actual > 0 THEN p.abs_error / p.abs_actual END AS wape ${points}
        FROM pg p LEFT JOIN items i ON i.id = p.item_id LEFT JOIN sites s ON s.id = p.site_id) r) AS rows`)) as PlanVsActualPage;
  return { ...row, rows: row.rows.map(({ ord: _ord, ...rest }) => rest) };
}

// ---------------------------------------------------------------------------------------------------------------
// Timeline

/** Every version of the pipeline in date order (per week: snapshot time), up to `to`. */
export async function versionsInOrder(tx: Tx, pipelineId: number, to: string | undefined): Promise<VersionRow[]> {
  const upTo = to === undefined ? sql.fragment`TRUE` : sql.fragment`archive_date <= ${to}::date`;
  const rows = (await tx.any(sql.unsafe`
    SELECT id, pipeline_id, scenario_id, to_char(archive_date, 'YYYY-MM-DD') AS archive_date, snapshot_ts, created_by, comment, frozen, pinned,
      to_char(parent_archive_date, 'YYYY-MM-DD') AS parent_archive_date, to_char(replaced_archive_date, 'YYYY-MM-DD') AS replaced_archive_date,
      row_count_total::float8 AS row_count_total, table_counts, kpi_fill_rate, kpi_inventory_value, kpi_shortage_qty, kpi_forecast_mase, kpi_series, job_id, source
    FROM history_versions WHERE pipeline_id = ${pipelineId} AND ${upTo}
    ORDER BY archive_date, snapshot_ts, id`)) as readonly VersionRow[];
  return [...rows];
}

/** The archive date of the pipeline's newest frozen version before `date` (a comparison's default base), or null. */
export async function frozenDateBefore(tx: Tx, pipelineId: number, date: string): Promise<string | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT to_char(max(archive_date), 'YYYY-MM-DD') FROM history_versions WHERE pipeline_id = ${pipelineId} AND frozen AND archive_date < ${date}::date`)) as string | null;
}
