/**
 * What the supply API reads: runs, orders merged with firm orders (document 2 §4.1), pegging, the weekly projection,
 * exceptions and the dashboard. Every read is of one supply run: the one named, else the newest completed run of
 * the (pipeline, supply scenario).
 */
import type { Fragment } from './segments';
import { sql, type Tx } from './pool';
import { tenantPreparedQuery } from './preparedReads';

export interface SupplyRunView {
  run_id: string;
  pipeline_id: number;
  scenario_id: number;
  scenario_name: string | null;
  status: string;
  planning_date: string;
  horizon: number;
  flags: Record<string, unknown>;
  kpis: Record<string, unknown> | null;
  checks: Record<string, unknown> | null;
  n_items: number;
  n_sku_sites: number;
  n_orders: number;
  n_exceptions: number;
  errors: unknown[];
  diagnostics: unknown[];
  created_by: string | null;
  started_at: string;
  finished_at: string | null;
  job_status: string | null;
  job_error: string | null;
}

// A run whose job ended without completing it shows the job's status: the run row itself is only ever completed.
const RUN_COLUMNS = sql.fragment`r.run_id, r.pipeline_id, r.scenario_id, sc.name AS scenario_name,
  CASE WHEN r.status = 'completed' THEN 'completed' WHEN j.status IN ('failed', 'killed') THEN 'failed' ELSE 'running' END AS status,
  to_char(r.planning_date, 'YYYY-MM-DD') AS planning_date, r.horizon, r.flags, r.kpis, r.checks, r.n_items, r.n_sku_sites, r.n_orders,
  r.n_exceptions, r.errors, r.diagnostics, COALESCE(r.created_by, j.created_by) AS created_by, r.started_at, r.finished_at,
  j.status AS job_status, j.error AS job_error`;
const RUN_FROM = sql.fragment`supply_runs r LEFT JOIN supply_scenarios sc ON sc.id = r.scenario_id LEFT JOIN jobs j ON j.job_id = r.run_id`;

export async function listSupplyRuns(tx: Tx, pipelineId: number, scenarioId: number, skip: number, limit: number): Promise<{ rows: SupplyRunView[]; total: number }> {
  const where = sql.fragment`r.pipeline_id = ${pipelineId} AND r.scenario_id = ${scenarioId}`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_runs r WHERE ${where}`)) as number;
  const rows = (await tx.any(sql.unsafe`SELECT ${RUN_COLUMNS} FROM ${RUN_FROM} WHERE ${where} ORDER BY r.started_at DESC, r.run_id DESC OFFSET ${skip} LIMIT ${limit}`)) as readonly SupplyRunView[];
  return { rows: [...rows], total };
}

/**
 * The newest completed run of the scope, newest by start: what every read without run_id shows and what an allocation
 * child allocates (its parent, just completed, started last).
 */
export async function latestSupplyRun(tx: Tx, pipelineId: number, scenarioId: number): Promise<SupplyRunView | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${RUN_COLUMNS} FROM ${RUN_FROM} WHERE r.pipeline_id = ${pipelineId} AND r.scenario_id = ${scenarioId} AND r.status = 'completed'
    ORDER BY r.started_at DESC, r.run_id DESC LIMIT 1`)) as SupplyRunView | null;
}

/**
 * What every supply read checks first, in one statement: that the pipeline and the supply scenario exist, and the run
 * it reads (`runId`, else the newest completed one of the scope; null when there is none or it is another scope's).
 */
export async function supplyReadScope(tx: Tx, pipelineId: number, scenarioId: number, runId?: string): Promise<{ pipeline: boolean; scenario: boolean; run: SupplyRunView | null }> {
  const row = (await tx.one(scopeQuery(pipelineId, scenarioId, runId, sql.fragment`SELECT ${RUN_COLUMNS} FROM ${RUN_FROM}`))) as SupplyRunView & { scope_pipeline: boolean; scope_scenario: boolean };
  const { scope_pipeline: pipeline, scope_scenario: scenario, ...run } = row;
  return { pipeline, scenario, run: run.run_id ? (run as SupplyRunView) : null };
}

/** The scope check and the run's `columns` (a select list and FROM over supply_runs r): the run_id named, else the newest completed run. */
function scopeQuery(pipelineId: number, scenarioId: number, runId: string | undefined, columns: Fragment) {
  const pick = runId === undefined
    ? sql.fragment`r.pipeline_id = ${pipelineId} AND r.scenario_id = ${scenarioId} AND r.status = 'completed' ORDER BY r.started_at DESC, r.run_id DESC`
    : sql.fragment`r.run_id = ${runId} AND r.pipeline_id = ${pipelineId} AND r.scenario_id = ${scenarioId}`;
  return sql.unsafe`
    SELECT EXISTS (SELECT 1 FROM scenario_pipelines WHERE id = ${pipelineId}) AS scope_pipeline,
      EXISTS (SELECT 1 FROM supply_scenarios WHERE id = ${scenarioId}) AS scope_scenario, x.*
    FROM (SELECT 1) one LEFT JOIN LATERAL (${columns} WHERE ${pick} LIMIT 1) x ON true`;
}

/**
 * supplyReadScope for GET /api/supply/orders, as a prepared statement on the tenant's connections (db/preparedReads.ts
 * tenantPreparedQuery): the run's id and planning date only.
 */
export async function orderReadScope(databaseUrl: string, accountId: string, pipelineId: number, scenarioId: number, runId?: string): Promise<{ pipeline: boolean; scenario: boolean; run: { run_id: string; planning_date: string } | null }> {
  const [row] = await tenantPreparedQuery<{ scope_pipeline: boolean; scope_scenario: boolean; run_id: string | null; planning_date: string | null }>(databaseUrl, accountId,
    scopeQuery(pipelineId, scenarioId, runId, sql.fragment`SELECT r.run_id, to_char(r.planning_date, 'YYYY-MM-DD') AS planning_date FROM supply_runs r`));
  return { pipeline: row.scope_pipeline, scenario: row.scope_scenario, run: row.run_id ? { run_id: row.run_id, planning_date: row.planning_date! } : null };
}

export async function deleteSupplyRun(tx: Tx, runId: string): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM supply_runs WHERE run_id = ${runId}`);
}

// ------------------------------------------------------------------------------------------------------------ orders

export interface OrderFilter {
  item_id?: number;
  site_id?: number;
  source_site_id?: number;
  order_type?: string;
  status?: string;
  week_from?: number;
  week_to?: number;
  include_firm: boolean;
  firm_only: boolean;
}

const FIRM_SUPPLY_STATUSES = sql.array(['firm', 'released', 'in_transit'], 'text');

/** A timestamptz as the pool's parser writes it (ISO 8601 in UTC, milliseconds, `Z`), so a row reads the same as text. */
const isoText = (col: Fragment) => sql.fragment`to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Engine orders of the run and firm orders as one list, firm rows with weeks counted from the run's planning date
 * (document 2 §4.2 rule 1's floor of days / 7). Without a status filter, firm rows are those that count as supply
 * (firm, released, in_transit); `status=received` shows the received ones. Each side comes back as its select list
 * and its conditions, so the page can take each side's first rows in list order before merging them.
 */
function mergedOrders(run: { run_id: string; planning_date: string }, f: OrderFilter): {
  engine: { columns: Fragment; where: Fragment; count: Fragment } | null;
  firm: { columns: Fragment; where: Fragment } | null;
} {
  const engine = [sql.fragment`o.run_id = ${run.run_id}`];
  const firm = [f.status ? sql.fragment`fo.erp_status = ${f.status}` : sql.fragment`fo.erp_status = ANY(${FIRM_SUPPLY_STATUSES}::text[])`];
  if (f.status) engine.push(sql.fragment`o.status = ${f.status}`);
  for (const [col, v] of [['item_id', f.item_id], ['site_id', f.site_id], ['source_site_id', f.source_site_id]] as const) {
    if (v === undefined) continue;
    engine.push(sql.fragment`o.${sql.identifier([col])} = ${v}`);
    firm.push(sql.fragment`fo.${sql.identifier([col])} = ${v}`);
  }
  if (f.order_type) {
    engine.push(sql.fragment`o.order_type = ${f.order_type}`);
    firm.push(sql.fragment`fo.order_type = ${f.order_type}`);
  }
  const firmArrivalWeek = sql.fragment`floor((fo.arrival_dt::date - ${run.planning_date}::date) / 7.0)::int`;
  // A firm row's arrival week is at least w when it arrives on or after the planning date + 7w, and at most w before
  // the planning date + 7(w + 1); as bounds on arrival_dt itself the index on it applies (the week is computed).
  const weekStart = (w: number) => sql.fragment`(${run.planning_date}::date + ${7 * w}::int)::timestamptz`;
  if (f.week_from !== undefined) {
    engine.push(sql.fragment`o.arrival_week >= ${f.week_from}`);
    firm.push(sql.fragment`fo.arrival_dt >= ${weekStart(f.week_from)}`);
  }
  if (f.week_to !== undefined) {
    engine.push(sql.fragment`o.arrival_week <= ${f.week_to}`);
    firm.push(sql.fragment`fo.arrival_dt < ${weekStart(f.week_to + 1)}`);
  }
  const where = sql.fragment`${sql.join(engine, sql.fragment` AND `)}`;
  // supply_order_counts (migration 018) holds the run's orders per item: enough when nothing else narrows them
  const perItem = [f.status, f.site_id, f.source_site_id, f.order_type, f.week_from, f.week_to].every((v) => v === undefined || v === '');
  const count = perItem
    ? sql.fragment`(SELECT COALESCE(sum(c.n), 0) FROM supply_order_counts c WHERE c.run_id = ${run.run_id}${f.item_id === undefined ? sql.fragment`` : sql.fragment` AND c.item_id = ${f.item_id}`})`
    : sql.fragment`(SELECT count(*) FROM supply_orders o WHERE ${where})`;
  return {
    engine: f.firm_only ? null : {
      columns: sql.fragment`o.order_id, 'SO_' || o.order_id AS supply_id, false AS is_firm, o.run_id, o.item_id, o.site_id, o.source_site_id, o.route_id,
        o.order_type, o.kind, o.status, o.qty, o.requested_qty, o.qty AS remaining_qty, o.release_week, o.arrival_week, o.need_week,
        to_char(o.release_date, 'YYYY-MM-DD') AS release_date, to_char(o.arrival_date, 'YYYY-MM-DD') AS arrival_date, o.late, o.unit_cost,
        o.engine_qty, o.edited_by, ${isoText(sql.fragment`o.edited_at`)} AS edited_at, o.approved_quantity,
        to_char(o.approved_availability_date, 'YYYY-MM-DD') AS approved_availability_date,
        o.approved_by, ${isoText(sql.fragment`o.approved_at`)} AS approved_at, NULL::text AS external_id, NULL::text AS source_system`,
      where,
      count,
    },
    firm: f.include_firm || f.firm_only ? {
      columns: sql.fragment`fo.id::int8 AS order_id, 'FIRM_' || fo.id AS supply_id, true AS is_firm, NULL::text AS run_id, fo.item_id, fo.site_id, fo.source_site_id,
        fo.route_id, fo.order_type, 'FIRM' AS kind, fo.erp_status AS status, fo.qty::float8 AS qty, fo.qty::float8 AS requested_qty,
        greatest(0, fo.qty - COALESCE(fo.received_qty, 0))::float8 AS remaining_qty,
        floor((fo.release_dt::date - ${run.planning_date}::date) / 7.0)::int AS release_week, ${firmArrivalWeek} AS arrival_week, NULL::int AS need_week,
        to_char(fo.release_dt, 'YYYY-MM-DD') AS release_date, to_char(fo.arrival_dt, 'YYYY-MM-DD') AS arrival_date, false AS late,
        COALESCE(fo.unit_cost, 0)::float8 AS unit_cost, NULL::float8 AS engine_qty, NULL::text AS edited_by, NULL::text AS edited_at,
        NULL::float8 AS approved_quantity, NULL::text AS approved_availability_date, NULL::text AS approved_by, NULL::text AS approved_at,
        fo.external_id, fo.source_system`,
      where: sql.fragment`${sql.join(firm, sql.fragment` AND `)}`,
    } : null,
  };
}

export interface MergedOrderRow {
  order_id: number;
  supply_id: string;
  is_firm: boolean;
  [key: string]: unknown;
}

/**
 * One page of the merged list, ordered by item, site, arrival week, engine rows before firm rows, id.
 *
 * The first skip + limit rows of the merged list are among the first skip + limit rows of each side, so each side
 * takes only those, in list order: the engine side straight from supply_orders_list_idx (run, item, site, arrival
 * week, order id; migration 018) without sorting the run's orders, the firm side sorting its filtered rows (the
 * week is computed from the run's planning date, so no index has that order; firm orders are few). Only the page's
 * rows are formatted and joined to items and sites. The total is each side's count in one statement.
 */
function mergedOrderQuery(run: { run_id: string; planning_date: string }, f: OrderFilter, skip: number, limit: number): { total: Fragment; page: Fragment } {
  const { engine, firm } = mergedOrders(run, f);
  const total = sql.fragment`(${engine ? engine.count : sql.fragment`0`} + ${firm ? sql.fragment`(SELECT count(*) FROM firm_orders fo WHERE ${firm.where})` : sql.fragment`0`})::int`;
  const upTo = skip + limit;
  const sides: Fragment[] = [];
  if (engine) sides.push(sql.fragment`(SELECT ${engine.columns} FROM supply_orders o WHERE ${engine.where} ORDER BY o.item_id, o.site_id, o.arrival_week, o.order_id LIMIT ${upTo})`);
  if (firm) sides.push(sql.fragment`(SELECT ${firm.columns} FROM firm_orders fo WHERE ${firm.where} ORDER BY item_id, site_id, arrival_week, order_id LIMIT ${upTo})`);
  const page = sql.fragment`
    SELECT m.*, i.xuid AS item_xuid, i.name AS item_name, s.xuid AS site_xuid, s.name AS site_name, src.xuid AS source_site_xuid,
      (m.qty * m.unit_cost)::float8 AS value
    FROM (SELECT * FROM (${sql.join(sides, sql.fragment` UNION ALL `)}) u ORDER BY u.item_id, u.site_id, u.arrival_week, u.is_firm, u.order_id OFFSET ${skip} LIMIT ${limit}) m
    JOIN items i ON i.id = m.item_id JOIN sites s ON s.id = m.site_id LEFT JOIN sites src ON src.id = m.source_site_id`;
  return { total, page };
}

export async function mergedOrderPage(tx: Tx, run: { run_id: string; planning_date: string }, f: OrderFilter, skip: number, limit: number): Promise<{ rows: MergedOrderRow[]; total: number }> {
  const q = mergedOrderQuery(run, f, skip, limit);
  const total = Number(await tx.oneFirst(sql.unsafe`SELECT ${q.total}`));
  const rows = (await tx.any(sql.unsafe`${q.page} ORDER BY m.item_id, m.site_id, m.arrival_week, m.is_firm, m.order_id`)) as readonly MergedOrderRow[];
  return { rows: [...rows], total };
}

/**
 * mergedOrderPage for GET /api/supply/orders: the total and the page as JSON text in one statement, the text as the
 * answer's body, byte for byte what serialising mergedOrderPage's rows gives (columns in order, no spaces; a replay of
 * a frozen week compares the two). A page of 200 orders is about 100 KB of JSON, and parsing its rows into objects and
 * serialising them again was most of the API thread's time per request (the exception log measured the same). A
 * prepared statement on the tenant's connections, one per set of filters given, without a transaction: planning the
 * union cost PostgreSQL more than running it.
 */
export async function mergedOrderPageJson(databaseUrl: string, accountId: string, run: { run_id: string; planning_date: string }, f: OrderFilter, skip: number, limit: number): Promise<{ body: string; total: number }> {
  const [row] = await tenantPreparedQuery<{ body: string; total: number }>(databaseUrl, accountId, mergedOrderPageJsonQuery(run, f, skip, limit));
  return row;
}

function mergedOrderPageJsonQuery(run: { run_id: string; planning_date: string }, f: OrderFilter, skip: number, limit: number) {
  const q = mergedOrderQuery(run, f, skip, limit);
  return sql.unsafe`
    SELECT ${q.total} AS total, '[' || COALESCE((
      SELECT string_agg(row_to_json(p)::text, ',' ORDER BY p.item_id, p.site_id, p.arrival_week, p.is_firm, p.order_id)
      FROM (${q.page}) p), '') || ']' AS body`;
}

export interface EngineOrderRow {
  order_id: number;
  run_id: string;
  pipeline_id: number;
  scenario_id: number;
  item_id: number;
  site_id: number;
  order_type: string;
  status: string;
  qty: number;
  release_week: number;
  arrival_week: number;
  release_date: string;
  arrival_date: string;
  engine_qty: number | null;
  engine_release_week: number | null;
  engine_arrival_week: number | null;
  planning_date: string;
}

export async function getEngineOrder(tx: Tx, orderId: number): Promise<EngineOrderRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT o.order_id, o.run_id, o.pipeline_id, o.scenario_id, o.item_id, o.site_id, o.order_type, o.status, o.qty, o.release_week, o.arrival_week,
      to_char(o.release_date, 'YYYY-MM-DD') AS release_date, to_char(o.arrival_date, 'YYYY-MM-DD') AS arrival_date,
      o.engine_qty, o.engine_release_week, o.engine_arrival_week, to_char(r.planning_date, 'YYYY-MM-DD') AS planning_date
    FROM supply_orders o JOIN supply_runs r ON r.run_id = o.run_id WHERE o.order_id = ${orderId}`)) as EngineOrderRow | null;
}

/** A planner's change of quantity or dates; the engine's values are kept beside the first change. */
export async function editEngineOrder(tx: Tx, orderId: number, c: { qty: number; release_date: string; arrival_date: string; release_week: number; arrival_week: number }, by: string | null): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE supply_orders SET
      engine_qty = COALESCE(engine_qty, qty), engine_release_week = COALESCE(engine_release_week, release_week),
      engine_arrival_week = COALESCE(engine_arrival_week, arrival_week),
      qty = ${c.qty}, release_date = ${c.release_date}, arrival_date = ${c.arrival_date}, release_week = ${c.release_week}, arrival_week = ${c.arrival_week},
      edited_by = ${by}, edited_at = now()
    WHERE order_id = ${orderId}`);
}

export async function approveEngineOrder(tx: Tx, orderId: number, qty: number, availability: string, by: string | null): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE supply_orders SET approved_quantity = ${qty}, approved_availability_date = ${availability}, approved_by = ${by}, approved_at = now()
    WHERE order_id = ${orderId}`);
}

/** The merged row of one engine order (what PUT and approve answer). */
export async function engineOrderView(tx: Tx, orderId: number): Promise<MergedOrderRow | null> {
  const o = await getEngineOrder(tx, orderId);
  if (!o) return null;
  const page = await mergedOrderPage(tx, { run_id: o.run_id, planning_date: o.planning_date }, { include_firm: false, firm_only: false, item_id: o.item_id, site_id: o.site_id }, 0, 100000);
  return page.rows.find((r) => Number(r.order_id) === orderId) ?? null;
}

// ----------------------------------------------------------------------------------------------------------- pegging

const PEG_COLUMNS = sql.fragment`p.order_id, p.demand_line, p.kind, p.site_id, p.week, to_char(r.planning_date + 7 * p.week, 'YYYY-MM-DD') AS week_start,
  p.qty, p.ref_id`;

export async function orderPegging(tx: Tx, orderId: number): Promise<Array<Record<string, unknown>>> {
  return [...(await tx.any(sql.unsafe`
    SELECT ${PEG_COLUMNS} FROM supply_pegging p JOIN supply_runs r ON r.run_id = p.run_id
    WHERE p.order_id = ${orderId} ORDER BY p.week, p.demand_line`))];
}

export async function runPegging(tx: Tx, runId: string, f: { item_id?: number; site_id?: number; kind?: string }, skip: number, limit: number): Promise<{ rows: Array<Record<string, unknown>>; total: number }> {
  const where = [sql.fragment`p.run_id = ${runId}`];
  if (f.item_id !== undefined) where.push(sql.fragment`o.item_id = ${f.item_id}`);
  if (f.site_id !== undefined) where.push(sql.fragment`o.site_id = ${f.site_id}`);
  if (f.kind) where.push(sql.fragment`p.kind = ${f.kind}`);
  const w = sql.join(where, sql.fragment` AND `);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_pegging p JOIN supply_orders o ON o.order_id = p.order_id WHERE ${w}`)) as number;
  const rows = await tx.any(sql.unsafe`
    SELECT ${PEG_COLUMNS}, o.item_id, o.order_type, o.arrival_week AS order_arrival_week
    FROM supply_pegging p JOIN supply_orders o ON o.order_id = p.order_id JOIN supply_runs r ON r.run_id = p.run_id
    WHERE ${w} ORDER BY o.item_id, p.site_id, p.order_id, p.week, p.demand_line OFFSET ${skip} LIMIT ${limit}`);
  return { rows: [...rows], total };
}

// ------------------------------------------------------------------------------------------------ breakdown, inventory

export async function orderBreakdown(tx: Tx, runId: string, f: { item_id?: number; site_id?: number }, skip: number, limit: number): Promise<{ rows: Array<Record<string, unknown>>; total: number }> {
  const where = [sql.fragment`o.run_id = ${runId}`];
  if (f.item_id !== undefined) where.push(sql.fragment`o.item_id = ${f.item_id}`);
  if (f.site_id !== undefined) where.push(sql.fragment`o.site_id = ${f.site_id}`);
  const w = sql.join(where, sql.fragment` AND `);
  const groups = sql.fragment`
    WITH g AS (
      SELECT o.item_id, o.site_id, o.arrival_week, o.order_type, count(*) AS n, sum(o.qty) AS qty, sum(o.qty * o.unit_cost) AS value, min(o.arrival_date) AS d
      FROM supply_orders o WHERE ${w} GROUP BY 1, 2, 3, 4
    )
    SELECT item_id, site_id, arrival_week, sum(n)::int AS n_orders, sum(qty)::float8 AS qty, sum(value)::float8 AS value, min(d) AS d,
      jsonb_object_agg(order_type, qty) AS qty_by_type
    FROM g GROUP BY 1, 2, 3`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM (${groups}) x`)) as number;
  const rows = await tx.any(sql.unsafe`
    SELECT x.item_id, i.xuid AS item_xuid, x.site_id, s.xuid AS site_xuid, x.arrival_week AS week, to_char(x.d, 'YYYY-MM-DD') AS period_start,
      x.n_orders, x.qty, x.value, x.qty_by_type
    FROM (${groups}) x JOIN items i ON i.id = x.item_id JOIN sites s ON s.id = x.site_id
    ORDER BY x.item_id, x.site_id, x.arrival_week OFFSET ${skip} LIMIT ${limit}`);
  return { rows: [...rows], total };
}

/** The projection, one row per SKU-site and week. */
export async function inventoryRows(
  tx: Tx, runId: string, f: { item_id?: number; site_id?: number; week_from?: number; week_to?: number; short_only?: boolean }, skip: number, limit: number,
): Promise<{ rows: Array<Record<string, unknown>>; total: number }> {
  const where = [sql.fragment`p.run_id = ${runId}`];
  if (f.item_id !== undefined) where.push(sql.fragment`p.item_id = ${f.item_id}`);
  if (f.site_id !== undefined) where.push(sql.fragment`p.site_id = ${f.site_id}`);
  const weeks = [sql.fragment`true`];
  if (f.week_from !== undefined) weeks.push(sql.fragment`t.i - 1 >= ${f.week_from}`);
  if (f.week_to !== undefined) weeks.push(sql.fragment`t.i - 1 <= ${f.week_to}`);
  if (f.short_only) weeks.push(sql.fragment`p.projected[t.i] < p.safety_stock[t.i]`);
  const from = sql.fragment`supply_plans p CROSS JOIN LATERAL generate_subscripts(p.projected, 1) AS t(i)
    WHERE ${sql.join(where, sql.fragment` AND `)} AND ${sql.join(weeks, sql.fragment` AND `)}`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${from}`)) as number;
  const rows = await tx.any(sql.unsafe`
    SELECT q.item_id, i.xuid AS item_xuid, q.site_id, s.xuid AS site_xuid, q.series_id AS unique_id, q.i - 1 AS week,
      to_char(r.planning_date + 7 * (q.i - 1), 'YYYY-MM-DD') AS week_start,
      CASE WHEN q.i = 1 THEN q.opening ELSE q.projected[q.i - 1] END AS opening,
      q.demand[q.i] AS demand, q.indirect[q.i] AS indirect, q.returns[q.i] AS returns, q.gross[q.i] AS gross,
      q.receipts_firm[q.i] AS receipts_firm, q.receipts_planned[q.i] AS receipts_planned, q.projected[q.i] AS projected,
      q.safety_stock[q.i] AS safety_stock, q.shortage[q.i] AS shortage, (greatest(0, q.projected[q.i]) * q.unit_cost)::float8 AS inventory_value
    FROM (SELECT p.*, t.i FROM ${from} ORDER BY p.item_id, p.site_id, t.i OFFSET ${skip} LIMIT ${limit}) AS q
    JOIN supply_runs r ON r.run_id = q.run_id JOIN items i ON i.id = q.item_id JOIN sites s ON s.id = q.site_id
    ORDER BY q.item_id, q.site_id, q.i`);
  return { rows: [...rows], total };
}

export async function exceptionRows(
  tx: Tx, runId: string, f: { item_id?: number; site_id?: number; type?: string; severity?: string }, skip: number, limit: number,
): Promise<{ rows: Array<Record<string, unknown>>; total: number }> {
  const where = [sql.fragment`e.run_id = ${runId}`];
  for (const [col, v] of [['item_id', f.item_id], ['site_id', f.site_id], ['type', f.type], ['severity', f.severity]] as const) {
    if (v !== undefined) where.push(sql.fragment`e.${sql.identifier([col])} = ${v}`);
  }
  const w = sql.join(where, sql.fragment` AND `);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_exceptions e WHERE ${w}`)) as number;
  const rows = await tx.any(sql.unsafe`
    SELECT e.id, e.item_id, i.xuid AS item_xuid, e.site_id, s.xuid AS site_xuid, e.item_id || '_' || e.site_id AS unique_id, e.type, e.severity,
      e.week, e.end_week, to_char(r.planning_date + 7 * e.week, 'YYYY-MM-DD') AS week_start, e.qty, e.description, e.order_id
    FROM supply_exceptions e JOIN supply_runs r ON r.run_id = e.run_id JOIN items i ON i.id = e.item_id JOIN sites s ON s.id = e.site_id
    WHERE ${w}
    ORDER BY CASE e.severity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, e.week, e.item_id, e.site_id, e.id OFFSET ${skip} LIMIT ${limit}`);
  return { rows: [...rows], total };
}

/** Counts of the run's exceptions by type and severity, and its SKU-sites with the largest shortage. */
export async function dashboardFacts(tx: Tx, runId: string): Promise<{ exceptions: Array<Record<string, unknown>>; top_shortages: Array<Record<string, unknown>>; late_orders: number; edited_orders: number; approved_orders: number }> {
  const exceptions = await tx.any(sql.unsafe`
    SELECT type, severity, count(*)::int AS count, sum(qty)::float8 AS qty FROM supply_exceptions WHERE run_id = ${runId} GROUP BY type, severity ORDER BY type, severity`);
  const top = await tx.any(sql.unsafe`
    SELECT p.item_id, i.xuid AS item_xuid, p.site_id, s.xuid AS site_xuid, p.shortage_qty, p.fill_rate
    FROM supply_plans p JOIN items i ON i.id = p.item_id JOIN sites s ON s.id = p.site_id
    WHERE p.run_id = ${runId} AND p.shortage_qty > 0 ORDER BY p.shortage_qty DESC, p.item_id, p.site_id LIMIT 10`);
  const c = (await tx.one(sql.unsafe`
    SELECT count(*) FILTER (WHERE late)::int AS late_orders, count(*) FILTER (WHERE edited_at IS NOT NULL)::int AS edited_orders,
      count(*) FILTER (WHERE approved_at IS NOT NULL)::int AS approved_orders
    FROM supply_orders WHERE run_id = ${runId}`)) as { late_orders: number; edited_orders: number; approved_orders: number };
  return { exceptions: [...exceptions], top_shortages: [...top], ...c };
}

/** The indirect demand at one SKU-site of a run: who draws on it, when, through which order; null when the run did not plan it. */
export async function indirectOfSku(tx: Tx, runId: string, itemId: number, siteId: number): Promise<{ plan: { indirect: number[]; planning_date: string }; rows: Array<Record<string, unknown>> } | null> {
  const plan = (await tx.maybeOne(sql.unsafe`
    SELECT p.indirect, to_char(r.planning_date, 'YYYY-MM-DD') AS planning_date FROM supply_plans p JOIN supply_runs r ON r.run_id = p.run_id
    WHERE p.run_id = ${runId} AND p.item_id = ${itemId} AND p.site_id = ${siteId}`)) as { indirect: number[]; planning_date: string } | null;
  if (!plan) return null;
  const rows = await tx.any(sql.unsafe`
    SELECT x.downstream_site_id, s.xuid AS downstream_site_xuid, x.week, to_char(r.planning_date + 7 * x.week, 'YYYY-MM-DD') AS week_start, x.qty, x.origin, x.order_id
    FROM supply_indirect x JOIN supply_runs r ON r.run_id = x.run_id JOIN sites s ON s.id = x.downstream_site_id
    WHERE x.run_id = ${runId} AND x.item_id = ${itemId} AND x.site_id = ${siteId}
    ORDER BY x.week, x.downstream_site_id, x.origin, x.order_id`);
  return { plan, rows: [...rows] };
}
