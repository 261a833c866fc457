/**
 * The SQL of the causal model (migration 028; core-service.md §4.10, document 2 §4.6; docs/CAUSAL.md): the record
 * declarations of the master data the API edits, customers and usage types, the loader the engine reads, and the
 * stored weekly results of scenario runs.
 */
import { sql, type Tx } from './pool';
import type { RecordTable } from './records';
import { filterSql, type SeriesFilter } from './series';
import type { BomEdge } from '../domain/causal/bom';
import type { CausalData, Levers, UsageMode, UsageRow, WeeklyDemand } from '../domain/causal/engine';

const ro = { writable: false } as const;
const stamps = { created_at: { type: 'timestamptz', ...ro }, updated_at: { type: 'timestamptz', ...ro } } as const;

export const ASSET_TYPE_RECORD: RecordTable = {
  table: 'causal_asset_types', key: 'id', orderBy: ['code'], uniqueIgnoringCase: 'code',
  columns: { id: { type: 'int', ...ro }, code: { type: 'text' }, name: { type: 'text' }, description: { type: 'text' }, created_at: { type: 'timestamptz', ...ro } },
};

export const ASSET_RECORD: RecordTable = {
  table: 'causal_assets', key: 'id', orderBy: ['serial_number'], uniqueIgnoringCase: 'serial_number', touch: 'updated_at',
  columns: {
    id: { type: 'int', ...ro }, asset_type_id: { type: 'int' }, serial_number: { type: 'text' }, name: { type: 'text' }, status: { type: 'text' },
    in_service_date: { type: 'date' }, ...stamps,
  },
};

export const DEPLOYMENT_RECORD: RecordTable = {
  table: 'causal_asset_deployments', key: 'id', orderBy: ['start_date'], touch: 'updated_at',
  columns: {
    id: { type: 'int', ...ro }, asset_id: { type: 'int' }, customer_id: { type: 'int' }, site_id: { type: 'int' },
    start_date: { type: 'date' }, end_date: { type: 'date' }, ...stamps,
  },
};

export const COVERAGE_RECORD: RecordTable = {
  table: 'causal_coverage', key: 'id', orderBy: ['asset_type_id', 'customer_id', 'site_id'],
  columns: {
    id: { type: 'int', ...ro }, asset_type_id: { type: 'int' }, customer_id: { type: 'int' }, site_id: { type: 'int' },
    coverage_pct: { type: 'numeric' }, created_at: { type: 'timestamptz', ...ro },
  },
};

export const BOM_RECORD: RecordTable = {
  table: 'causal_bom', key: 'id', orderBy: ['asset_type_id', 'parent_item_id', 'item_id'], touch: 'updated_at',
  columns: {
    id: { type: 'int', ...ro }, asset_type_id: { type: 'int' }, parent_item_id: { type: 'int' }, item_id: { type: 'int' },
    qty_per_asset: { type: 'numeric' }, ...stamps,
  },
};

export const FLEET_PLAN_RECORD: RecordTable = {
  table: 'causal_fleet_plan', key: 'id', orderBy: ['asset_type_id', 'customer_id', 'start_date'], touch: 'updated_at',
  columns: {
    id: { type: 'int', ...ro }, asset_type_id: { type: 'int' }, customer_id: { type: 'int' }, start_date: { type: 'date' },
    end_date: { type: 'date' }, quantity: { type: 'numeric' }, notes: { type: 'text' }, ...stamps,
  },
};

export const USAGE_RECORD: RecordTable = {
  table: 'causal_asset_usage', key: 'id', orderBy: ['asset_type_id', 'customer_id', 'usage_type_id', 'period_start'], touch: 'updated_at',
  columns: {
    id: { type: 'int', ...ro }, asset_type_id: { type: 'int' }, customer_id: { type: 'int' }, usage_type_id: { type: 'int' },
    period_start: { type: 'date' }, period_end: { type: 'date' }, total_usage: { type: 'numeric' }, ...stamps,
  },
};

export const FAILURE_RATE_RECORD: RecordTable = {
  table: 'causal_failure_rates', key: 'id', orderBy: ['asset_type_id', 'item_id', 'usage_type_id'], touch: 'updated_at',
  columns: {
    id: { type: 'int', ...ro }, asset_type_id: { type: 'int' }, item_id: { type: 'int' }, usage_type_id: { type: 'int' }, rate: { type: 'numeric' },
    ci_lower: { type: 'numeric' }, ci_upper: { type: 'numeric' }, confidence: { type: 'numeric' }, source: { type: 'text' },
    n_events: { type: 'numeric' }, exposure: { type: 'numeric' }, ...stamps,
  },
};

export const SCENARIO_RECORD: RecordTable = {
  table: 'causal_scenarios', key: 'id', orderBy: ['name'], uniqueIgnoringCase: 'name', touch: 'updated_at',
  columns: {
    id: { type: 'int', ...ro }, name: { type: 'text' }, description: { type: 'text' }, usage_mode: { type: 'text' }, start_date: { type: 'date' },
    horizon_weeks: { type: 'int' }, usage_multiplier: { type: 'numeric' }, fleet_multiplier: { type: 'numeric' },
    failure_rate_multiplier: { type: 'numeric' }, last_run_at: { type: 'timestamptz', ...ro }, ...stamps,
  },
};

// ------------------------------------------------------------------------------------------------ references

export type RefTable = 'items' | 'sites' | 'causal_asset_types' | 'causal_assets' | 'causal_customers' | 'causal_usage_types' | 'causal_scenarios';

export async function exists(tx: Tx, table: RefTable, id: number): Promise<boolean> {
  return Boolean(await tx.maybeOneFirst(sql.unsafe`SELECT true FROM ${sql.identifier([table])} WHERE id = ${id}`));
}

/** The customer of that code, created (named `name`, else the code) when new. */
export async function customerByCode(tx: Tx, code: string, name?: string | null): Promise<number> {
  await tx.query(sql.unsafe`INSERT INTO causal_customers (code, name) VALUES (${code}, ${name ?? code}) ON CONFLICT (code) DO NOTHING`);
  return (await tx.oneFirst(sql.unsafe`SELECT id FROM causal_customers WHERE code = ${code}`)) as number;
}

export async function itemIdByCode(tx: Tx, code: string): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM items WHERE xuid = ${code}`)) as number | null;
}

export async function assetTypeIdByCode(tx: Tx, code: string): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM causal_asset_types WHERE lower(code) = lower(${code})`)) as number | null;
}

export async function customerIdByCode(tx: Tx, code: string): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM causal_customers WHERE code = ${code}`)) as number | null;
}

export async function bomEdges(tx: Tx): Promise<BomEdge[]> {
  return [...(await tx.any(sql.unsafe`SELECT id, asset_type_id, parent_item_id, item_id, qty_per_asset FROM causal_bom ORDER BY id`))] as BomEdge[];
}

// ------------------------------------------------------------------------------------------------ read-only lists

export interface CustomerView { id: number; code: string; name: string; assets: number; sites: number; asset_types: number; created_at: string }

export async function listCustomers(tx: Tx, page: { skip: number; limit: number; search?: string }): Promise<{ rows: CustomerView[]; total: number }> {
  const where = page.search ? sql.fragment`WHERE c.code ILIKE ${`%${page.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`} OR c.name ILIKE ${`%${page.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`}` : sql.fragment``;
  const rows = await tx.any(sql.unsafe`
    SELECT c.id, c.code, c.name, c.created_at,
      (SELECT count(DISTINCT d.asset_id)::int FROM causal_asset_deployments d WHERE d.customer_id = c.id AND (d.end_date IS NULL OR d.end_date >= current_date)) AS assets,
      (SELECT count(DISTINCT d.site_id)::int FROM causal_asset_deployments d WHERE d.customer_id = c.id AND (d.end_date IS NULL OR d.end_date >= current_date)) AS sites,
      (SELECT count(DISTINCT a.asset_type_id)::int FROM causal_asset_deployments d JOIN causal_assets a ON a.id = d.asset_id WHERE d.customer_id = c.id) AS asset_types
    FROM causal_customers c ${where} ORDER BY c.code, c.id LIMIT ${page.limit} OFFSET ${page.skip}`);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM causal_customers c ${where}`)) as number;
  return { rows: [...rows] as CustomerView[], total };
}

export async function listUsageTypes(tx: Tx): Promise<Array<{ id: number; code: string; name: string; unit: string }>> {
  return [...(await tx.any(sql.unsafe`SELECT id, code, name, unit FROM causal_usage_types ORDER BY id`))] as Array<{ id: number; code: string; name: string; unit: string }>;
}

export interface UsageFilter { asset_type_id?: number; customer_id?: number; usage_type_id?: number }

export async function usageRows(tx: Tx, q: UsageFilter): Promise<UsageRow[]> {
  const parts = [sql.fragment`true`];
  if (q.asset_type_id !== undefined) parts.push(sql.fragment`asset_type_id = ${q.asset_type_id}`);
  if (q.customer_id !== undefined) parts.push(sql.fragment`customer_id = ${q.customer_id}`);
  if (q.usage_type_id !== undefined) parts.push(sql.fragment`usage_type_id = ${q.usage_type_id}`);
  return [...(await tx.any(sql.unsafe`
    SELECT asset_type_id, customer_id, usage_type_id, period_start, period_end, total_usage FROM causal_asset_usage
    WHERE ${sql.join(parts, sql.fragment` AND `)} ORDER BY asset_type_id, customer_id, usage_type_id, period_start, id`))] as UsageRow[];
}

// ------------------------------------------------------------------------------------------------ engine input

export async function loadCausalData(tx: Tx): Promise<CausalData> {
  const [bom, failureRates, usage, coverage, deployments, fleetPlan] = [
    await bomEdges(tx),
    await tx.any(sql.unsafe`SELECT asset_type_id, item_id, usage_type_id, rate FROM causal_failure_rates ORDER BY id`),
    await usageRows(tx, {}),
    await tx.any(sql.unsafe`SELECT asset_type_id, customer_id, site_id, coverage_pct FROM causal_coverage ORDER BY id`),
    await tx.any(sql.unsafe`
      SELECT a.asset_type_id, d.customer_id, d.site_id, d.start_date, d.end_date
      FROM causal_asset_deployments d JOIN causal_assets a ON a.id = d.asset_id WHERE a.status <> 'retired' ORDER BY d.id`),
    await tx.any(sql.unsafe`SELECT asset_type_id, customer_id, start_date, end_date, quantity FROM causal_fleet_plan ORDER BY id`),
  ];
  return { bom, failureRates: [...failureRates], usage, coverage: [...coverage], deployments: [...deployments], fleetPlan: [...fleetPlan] } as CausalData;
}

export interface ScenarioRow extends Levers {
  id: number;
  name: string;
  start_date: string | null;
  horizon_weeks: number;
  last_run_at: string | null;
}

export async function getScenario(tx: Tx, id: number): Promise<ScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT id, name, usage_mode, start_date, horizon_weeks, usage_multiplier, fleet_multiplier, failure_rate_multiplier, last_run_at
    FROM causal_scenarios WHERE id = ${id}`)) as ScenarioRow | null;
}

export const leversOf = (s: ScenarioRow): Levers => ({
  usage_mode: (s.usage_mode ?? 'fleet_total') as UsageMode, usage_multiplier: s.usage_multiplier, fleet_multiplier: s.fleet_multiplier,
  failure_rate_multiplier: s.failure_rate_multiplier,
});

/** Actual demand of an item over a date range: one site, or every site. */
export async function demandSum(tx: Tx, itemId: number, from: string, to: string, siteId?: number): Promise<{ qty: number; rows: number }> {
  const site = siteId === undefined ? sql.fragment`` : sql.fragment`AND site_id = ${siteId}`;
  return (await tx.one(sql.unsafe`
    SELECT COALESCE(sum(qty), 0)::float8 AS qty, count(*)::int AS rows FROM demand_history
    WHERE item_id = ${itemId} AND ds BETWEEN ${from}::date AND ${to}::date ${site}`)) as { qty: number; rows: number };
}

// ------------------------------------------------------------------------------------------------ results

/** Replaces the results of (scenario, pipeline) by `rows`, in the caller's transaction. */
export async function storeResults(tx: Tx, scenarioId: number, pipelineId: number, jobId: string, rows: readonly WeeklyDemand[]): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM causal_results WHERE scenario_id = ${scenarioId} AND pipeline_id = ${pipelineId}`);
  const CHUNK = 5000;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    await tx.query(sql.unsafe`
      INSERT INTO causal_results (scenario_id, pipeline_id, item_id, site_id, week, demand, job_id)
      SELECT ${scenarioId}, ${pipelineId}, i, s, w, d, ${jobId}
      FROM unnest(${sql.array(part.map((r) => r.item_id), 'int4')}::int4[], ${sql.array(part.map((r) => r.site_id), 'int4')}::int4[],
                  ${sql.array(part.map((r) => r.week), 'date')}::date[], ${sql.array(part.map((r) => r.demand), 'float8')}::float8[]) AS t(i, s, w, d)`);
  }
  await tx.query(sql.unsafe`UPDATE causal_scenarios SET last_run_at = now() WHERE id = ${scenarioId}`);
}

/** The pipeline of the scenario's stored results: the one asked, else the most recent run's. Null when none. */
export async function resultsPipeline(tx: Tx, scenarioId: number, pipelineId?: number): Promise<number | null> {
  if (pipelineId !== undefined) {
    return (await tx.maybeOneFirst(sql.unsafe`SELECT ${pipelineId}::int FROM causal_results WHERE scenario_id = ${scenarioId} AND pipeline_id = ${pipelineId} LIMIT 1`)) as number | null;
  }
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT pipeline_id FROM causal_results WHERE scenario_id = ${scenarioId} GROUP BY pipeline_id ORDER BY max(computed_at) DESC, pipeline_id LIMIT 1`)) as number | null;
}

export interface ResultRow { item_id: number; site_id: number; series_id: string; week: string; demand: number; lower: number | null; upper: number | null }

export interface ResultFilter { item_id?: number; site_id?: number; date_from?: string; date_to?: string; aggregate?: boolean }

function resultWhere(scenarioId: number, pipelineId: number, q: ResultFilter) {
  const parts = [sql.fragment`r.scenario_id = ${scenarioId}`, sql.fragment`r.pipeline_id = ${pipelineId}`];
  parts.push(q.aggregate ? sql.fragment`r.site_id = 0` : sql.fragment`r.site_id > 0`);
  if (q.item_id !== undefined) parts.push(sql.fragment`r.item_id = ${q.item_id}`);
  if (q.site_id !== undefined) parts.push(sql.fragment`r.site_id = ${q.site_id}`);
  if (q.date_from !== undefined) parts.push(sql.fragment`r.week >= ${q.date_from}::date`);
  if (q.date_to !== undefined) parts.push(sql.fragment`r.week <= ${q.date_to}::date`);
  return sql.join(parts, sql.fragment` AND `);
}

export async function listResults(tx: Tx, scenarioId: number, pipelineId: number, q: ResultFilter, page: { skip: number; limit: number }): Promise<{ rows: ResultRow[]; total: number }> {
  const where = resultWhere(scenarioId, pipelineId, q);
  const rows = await tx.any(sql.unsafe`
    SELECT r.item_id, r.site_id, CASE WHEN r.site_id = 0 THEN r.item_id::text ELSE r.item_id || '_' || r.site_id END AS series_id,
      r.week, r.demand, r.lower, r.upper
    FROM causal_results r WHERE ${where} ORDER BY r.item_id, r.site_id, r.week LIMIT ${page.limit} OFFSET ${page.skip}`);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM causal_results r WHERE ${where}`)) as number;
  return { rows: [...rows] as ResultRow[], total };
}

/**
 * The stored values of the exact series and of the item aggregate in one week, and whether the exact series has a
 * stored value in any week of the run (rule 5 picks between them).
 */
export async function resultCells(tx: Tx, scenarioId: number, pipelineId: number, itemId: number, siteId: number, week: string): Promise<{ exact: number | null; aggregate: number | null; seriesStored: boolean }> {
  const rows = (await tx.any(sql.unsafe`
    SELECT site_id, demand FROM causal_results
    WHERE scenario_id = ${scenarioId} AND pipeline_id = ${pipelineId} AND item_id = ${itemId} AND site_id IN (${siteId}, 0) AND week = ${week}::date`)) as ReadonlyArray<{ site_id: number; demand: number }>;
  const exact = rows.find((r) => r.site_id === siteId)?.demand ?? null;
  const seriesStored = exact !== null || ((await tx.oneFirst(sql.unsafe`
    SELECT EXISTS (SELECT 1 FROM causal_results WHERE scenario_id = ${scenarioId} AND pipeline_id = ${pipelineId} AND item_id = ${itemId} AND site_id = ${siteId})`)) as boolean);
  return { exact, aggregate: rows.find((r) => r.site_id === 0)?.demand ?? null, seriesStored };
}

export async function resultsSummary(tx: Tx, scenarioId: number, pipelineId: number) {
  const totals = (await tx.one(sql.unsafe`
    SELECT COALESCE(sum(demand), 0)::float8 AS total_demand, count(DISTINCT item_id)::int AS items, count(DISTINCT (item_id, site_id))::int AS series,
      count(DISTINCT week)::int AS weeks, min(week) AS first_week, max(week) AS last_week, max(job_id) AS job_id
    FROM causal_results WHERE scenario_id = ${scenarioId} AND pipeline_id = ${pipelineId} AND site_id > 0`)) as Record<string, unknown>;
  const weekly = await tx.any(sql.unsafe`
    SELECT week AS date, sum(demand)::float8 AS value FROM causal_results
    WHERE scenario_id = ${scenarioId} AND pipeline_id = ${pipelineId} AND site_id > 0 GROUP BY week ORDER BY week`);
  const byItem = await tx.any(sql.unsafe`
    SELECT r.item_id, i.xuid AS item_code, i.name AS item_name, sum(r.demand)::float8 AS total_demand
    FROM causal_results r JOIN items i ON i.id = r.item_id
    WHERE r.scenario_id = ${scenarioId} AND r.pipeline_id = ${pipelineId} AND r.site_id > 0 GROUP BY r.item_id, i.xuid, i.name ORDER BY total_demand DESC, r.item_id LIMIT 50`);
  const bySite = await tx.any(sql.unsafe`
    SELECT r.site_id, s.xuid AS site_code, s.name AS site_name, sum(r.demand)::float8 AS total_demand
    FROM causal_results r JOIN sites s ON s.id = r.site_id
    WHERE r.scenario_id = ${scenarioId} AND r.pipeline_id = ${pipelineId} AND r.site_id > 0 GROUP BY r.site_id, s.xuid, s.name ORDER BY total_demand DESC, r.site_id`);
  return { ...totals, weekly: [...weekly], by_item: [...byItem], by_site: [...bySite] };
}

/** Weekly totals of several scenarios' latest results (site rows). */
export async function weeklyTotals(tx: Tx, scenarioId: number, pipelineId: number, itemId?: number): Promise<Array<{ date: string; value: number }>> {
  const item = itemId === undefined ? sql.fragment`` : sql.fragment`AND item_id = ${itemId}`;
  return [...(await tx.any(sql.unsafe`
    SELECT week AS date, sum(demand)::float8 AS value FROM causal_results
    WHERE scenario_id = ${scenarioId} AND pipeline_id = ${pipelineId} AND site_id > 0 ${item} GROUP BY week ORDER BY week`))] as Array<{ date: string; value: number }>;
}

export async function storeIntervals(tx: Tx, scenarioId: number, pipelineId: number, rows: ReadonlyArray<{ item_id: number; site_id: number; week: string; lower: number; upper: number }>): Promise<void> {
  if (!rows.length) return;
  await tx.query(sql.unsafe`
    UPDATE causal_results r SET lower = t.l, upper = t.u
    FROM unnest(${sql.array(rows.map((r) => r.item_id), 'int4')}::int4[], ${sql.array(rows.map((r) => r.site_id), 'int4')}::int4[],
                ${sql.array(rows.map((r) => r.week), 'date')}::date[], ${sql.array(rows.map((r) => r.lower), 'float8')}::float8[],
                ${sql.array(rows.map((r) => r.upper), 'float8')}::float8[]) AS t(i, s, w, l, u)
    WHERE r.scenario_id = ${scenarioId} AND r.pipeline_id = ${pipelineId} AND r.item_id = t.i AND r.site_id = t.s AND r.week = t.w`);
}

export async function namesOf(tx: Tx): Promise<{ assetTypes: Map<number, { code: string; name: string }>; customers: Map<number, { code: string; name: string }>; usageTypes: Map<number, { code: string; name: string }> }> {
  const m = async (q: ReturnType<typeof sql.unsafe>) => new Map(((await tx.any(q)) as ReadonlyArray<{ id: number; code: string; name: string }>).map((r) => [r.id, { code: r.code, name: r.name }]));
  return {
    assetTypes: await m(sql.unsafe`SELECT id, code, name FROM causal_asset_types`),
    customers: await m(sql.unsafe`SELECT id, code, name FROM causal_customers`),
    usageTypes: await m(sql.unsafe`SELECT id, code, name FROM causal_usage_types`),
  };
}

// ------------------------------------------------------------------------------------------------ natural keys

/** Another coverage row of the same (asset type, customer or none, site). */
export async function coverageTwin(tx: Tx, v: { asset_type_id: number; customer_id: number | null; site_id: number }): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT id FROM causal_coverage WHERE asset_type_id = ${v.asset_type_id} AND COALESCE(customer_id, 0) = ${v.customer_id ?? 0} AND site_id = ${v.site_id}`)) as number | null;
}

/** Another BOM edge with the same (asset type or parent part, part). */
export async function bomTwin(tx: Tx, v: { asset_type_id: number | null; parent_item_id: number | null; item_id: number }, exceptId: number): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT id FROM causal_bom WHERE COALESCE(asset_type_id, 0) = ${v.asset_type_id ?? 0} AND COALESCE(parent_item_id, 0) = ${v.parent_item_id ?? 0}
      AND item_id = ${v.item_id} AND id <> ${exceptId}`)) as number | null;
}

/** Another failure rate of the same (asset type, part, usage type). */
export async function rateTwin(tx: Tx, v: { asset_type_id: number; item_id: number; usage_type_id: number }, exceptId: number): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT id FROM causal_failure_rates WHERE asset_type_id = ${v.asset_type_id} AND item_id = ${v.item_id} AND usage_type_id = ${v.usage_type_id} AND id <> ${exceptId}`)) as number | null;
}

export async function insertBomEdge(tx: Tx, v: { asset_type_id: number | null; parent_item_id: number | null; item_id: number; qty_per_asset: number }): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO causal_bom (asset_type_id, parent_item_id, item_id, qty_per_asset) VALUES (${v.asset_type_id}, ${v.parent_item_id}, ${v.item_id}, ${v.qty_per_asset})
    ON CONFLICT (COALESCE(asset_type_id, 0), COALESCE(parent_item_id, 0), item_id) DO UPDATE SET qty_per_asset = EXCLUDED.qty_per_asset, updated_at = now()
    RETURNING id`)) as number;
}

export async function insertFleetPlan(tx: Tx, v: { asset_type_id: number; customer_id: number; start_date: string; end_date: string | null; quantity: number; notes: string | null }): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO causal_fleet_plan (asset_type_id, customer_id, start_date, end_date, quantity, notes)
    VALUES (${v.asset_type_id}, ${v.customer_id}, ${v.start_date}::date, ${v.end_date}::date, ${v.quantity}, ${v.notes}) RETURNING id`)) as number;
}

export async function upsertFittedRate(tx: Tx, v: { asset_type_id: number; item_id: number; usage_type_id: number; rate: number; ci_lower: number; ci_upper: number; confidence: number; n_events: number; exposure: number }): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO causal_failure_rates (asset_type_id, item_id, usage_type_id, rate, ci_lower, ci_upper, confidence, source, n_events, exposure)
    VALUES (${v.asset_type_id}, ${v.item_id}, ${v.usage_type_id}, ${v.rate}, ${v.ci_lower}, ${v.ci_upper}, ${v.confidence}, 'fit', ${v.n_events}, ${v.exposure})
    ON CONFLICT (asset_type_id, item_id, usage_type_id) DO UPDATE SET rate = EXCLUDED.rate, ci_lower = EXCLUDED.ci_lower, ci_upper = EXCLUDED.ci_upper,
      confidence = EXCLUDED.confidence, source = 'fit', n_events = EXCLUDED.n_events, exposure = EXCLUDED.exposure, updated_at = now()
    RETURNING id`)) as number;
}

export async function itemNames(tx: Tx, ids: readonly number[]): Promise<Map<number, { code: string; name: string }>> {
  if (!ids.length) return new Map();
  const rows = (await tx.any(sql.unsafe`SELECT id, xuid AS code, name FROM items WHERE id = ANY(${sql.array([...new Set(ids)], 'int4')})`)) as ReadonlyArray<{ id: number; code: string; name: string }>;
  return new Map(rows.map((r) => [r.id, { code: r.code, name: r.name }]));
}

// ------------------------------------------------------------------------------------------------ other areas

/**
 * `forecast_causal` of GET /api/analytics/aggregate-demand: the scenario's stored site rows summed per week over the
 * series of `where` (alias s): the results stored for `pipelineId` when there are any, else its most recent run's;
 * [] when it was never run.
 */
export async function causalForecast(tx: Tx, scenarioId: number, pipelineId: number | null, where: ReturnType<typeof sql.fragment>): Promise<Array<{ date: string; value: number }>> {
  const p = (pipelineId !== null ? await resultsPipeline(tx, scenarioId, pipelineId) : null) ?? (await resultsPipeline(tx, scenarioId));
  if (p === null) return [];
  return [...(await tx.any(sql.unsafe`
    SELECT r.week AS date, sum(r.demand)::float8 AS value
    FROM causal_results r JOIN series s ON s.item_id = r.item_id AND s.site_id = r.site_id
    WHERE r.scenario_id = ${scenarioId} AND r.pipeline_id = ${p} AND r.site_id > 0 AND ${where}
    GROUP BY r.week ORDER BY r.week`))] as Array<{ date: string; value: number }>;
}

/** type-counts `causal`: series of the filter with a causal model (a failure rate of the part, the site covered for that asset type). */
export async function causalSeriesCount(tx: Tx, filter: SeriesFilter): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    SELECT count(*)::int FROM series s
    WHERE ${filterSql(filter)} AND EXISTS (
      SELECT 1 FROM causal_failure_rates fr JOIN causal_coverage c ON c.asset_type_id = fr.asset_type_id
      WHERE fr.item_id = s.item_id AND c.site_id = s.site_id AND c.coverage_pct > 0)`)) as number;
}

/** The first series by item and site id (the demo fleet takes its parts from them). */
export async function firstSeriesKeys(tx: Tx, limit: number): Promise<Array<{ item_id: number; site_id: number }>> {
  return [...(await tx.any(sql.unsafe`SELECT item_id, site_id FROM series ORDER BY item_id, site_id LIMIT ${limit}`))] as Array<{ item_id: number; site_id: number }>;
}

export async function assetTypeCount(tx: Tx): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM causal_asset_types`)) as number;
}

export async function usageTypeId(tx: Tx, code: string): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`SELECT id FROM causal_usage_types WHERE code = ${code}`)) as number;
}
