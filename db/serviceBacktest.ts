/**
 * The service backtest's SQL (docs/SERVICE_BACKTEST.md): its settings per pipeline, the ABC class it groups by, the
 * result rows a chunk rewrites, and the reads of the routes.
 */
import type { BacktestRow } from '../domain/serviceBacktest/derive';
import type { SummaryRow } from '../domain/serviceBacktest/summarize';
import type { ShortageMode } from '../domain/serviceBacktest/simulate';
import type { Fragment } from './segments';
import { sql, type Tx } from './pool';

export interface ServiceBacktestSettings {
  origin_weeks: number[];
  shortage_mode: ShortageMode;
  /** a SKU-site whose achieved fill rate is more than this below its target gets an exception-log issue */
  tolerance: number;
  warmup_weeks: number;
  peers: boolean;
  sweep_targets: number[];
}

export const DEFAULT_SERVICE_BACKTEST_SETTINGS: Readonly<ServiceBacktestSettings> = {
  origin_weeks: [26], shortage_mode: 'backorder', tolerance: 0.05, warmup_weeks: 52, peers: true, sweep_targets: [0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995],
};

const SETTINGS_COLUMNS = sql.fragment`origin_weeks, shortage_mode, tolerance, warmup_weeks, peers, sweep_targets`;

/** The pipeline's settings, the defaults where it has none. */
export async function serviceBacktestSettings(tx: Tx, pipelineId: number): Promise<ServiceBacktestSettings> {
  const row = (await tx.maybeOne(sql.unsafe`SELECT ${SETTINGS_COLUMNS} FROM service_backtest_settings WHERE pipeline_id = ${pipelineId}`)) as ServiceBacktestSettings | null;
  return row ?? { ...DEFAULT_SERVICE_BACKTEST_SETTINGS, origin_weeks: [...DEFAULT_SERVICE_BACKTEST_SETTINGS.origin_weeks], sweep_targets: [...DEFAULT_SERVICE_BACKTEST_SETTINGS.sweep_targets] };
}

export async function saveServiceBacktestSettings(tx: Tx, pipelineId: number, s: ServiceBacktestSettings, updatedBy: string | null): Promise<ServiceBacktestSettings> {
  return (await tx.one(sql.unsafe`
    INSERT INTO service_backtest_settings (pipeline_id, origin_weeks, shortage_mode, tolerance, warmup_weeks, peers, sweep_targets, updated_by)
    VALUES (${pipelineId}, ${sql.array(s.origin_weeks, 'int4')}, ${s.shortage_mode}, ${s.tolerance}, ${s.warmup_weeks}, ${s.peers}, ${sql.array(s.sweep_targets, 'float8')}, ${updatedBy})
    ON CONFLICT (pipeline_id) DO UPDATE SET origin_weeks = EXCLUDED.origin_weeks, shortage_mode = EXCLUDED.shortage_mode, tolerance = EXCLUDED.tolerance,
      warmup_weeks = EXCLUDED.warmup_weeks, peers = EXCLUDED.peers, sweep_targets = EXCLUDED.sweep_targets, updated_by = EXCLUDED.updated_by, updated_at = now()
    RETURNING ${SETTINGS_COLUMNS}`)) as ServiceBacktestSettings;
}

/**
 * The ABC class of each SKU-site of the items, from the active ABC configuration with the lowest id that classified
 * it (the one the ABC screens open first).
 */
export async function abcClassesOf(tx: Tx, itemIds: readonly number[]): Promise<Map<string, string>> {
  if (!itemIds.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT DISTINCT ON (r.item_id, r.site_id) r.item_id, r.site_id, r.class_label
    FROM abc_results r JOIN abc_configurations c ON c.id = r.config_id
    WHERE c.is_active AND r.item_id = ANY(${sql.array(itemIds, 'int4')}::int4[])
    ORDER BY r.item_id, r.site_id, c.id`)) as ReadonlyArray<{ item_id: number; site_id: number; class_label: string }>;
  return new Map(rows.map((r) => [`${r.item_id}_${r.site_id}`, r.class_label]));
}

const finite = (v: number | null | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Rewrites the rows of these items for the pipeline and scenario, so a retried chunk writes the same rows again. */
export async function replaceServiceBacktestResults(
  tx: Tx, pipelineId: number, scenarioId: number, itemIds: readonly number[], rows: readonly BacktestRow[], mode: ShortageMode, jobId: string | null,
): Promise<number> {
  await tx.query(sql.unsafe`DELETE FROM service_backtest_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId} AND item_id = ANY(${sql.array(itemIds, 'int4')}::int4[])`);
  if (!rows.length) return 0;
  await tx.query(sql.unsafe`
    INSERT INTO service_backtest_results (pipeline_id, scenario_id, item_id, site_id, origin_weeks, variant, target_service, service_type, policy,
      reorder_point, order_qty, order_up_to, review_weeks, lead_time_weeks, unit_cost, demand_class, abc_class, segment_ids, expected_fill_rate,
      expected_on_hand, shortage_mode, weeks, demand, served_from_stock, fill_rate, cycle_service_level, cycles, average_on_hand, stockout_weeks,
      orders, ordered_units, lost_units, end_backorders, job_id)
    SELECT ${pipelineId}, ${scenarioId}, u.item_id, u.site_id, u.origin_weeks, u.variant, u.target_service, u.service_type, u.policy,
      u.reorder_point, u.order_qty, u.order_up_to, u.review_weeks, u.lead_time_weeks, u.unit_cost, u.demand_class, u.abc_class,
      COALESCE((SELECT array_agg(x::int4) FROM jsonb_array_elements_text(u.segment_ids::jsonb) x), '{}'), u.expected_fill_rate,
      u.expected_on_hand, ${mode}, u.weeks, u.demand, u.served_from_stock, u.fill_rate, u.cycle_service_level, u.cycles, u.average_on_hand,
      u.stockout_weeks, u.orders, u.ordered_units, u.lost_units, u.end_backorders, ${jobId}
    FROM ${sql.unnest(rows.map((r) => [
      r.itemId, r.siteId, r.originWeeks, r.variant, r.targetService, r.serviceType, r.policy, finite(r.reorderPoint), finite(r.orderQty), finite(r.orderUpTo),
      r.reviewWeeks, r.leadTimeWeeks, r.unitCost, r.demandClass, r.abcClass, JSON.stringify(r.segmentIds), finite(r.expectedFillRate), finite(r.expectedOnHand),
      r.result.weeks, r.result.demand, r.result.servedFromStock, finite(r.result.fillRate), finite(r.result.cycleServiceLevel), r.result.cycles,
      r.result.averageOnHand, r.result.stockoutWeeks, r.result.orders, r.result.orderedUnits, r.result.lostUnits, r.result.endBackorders,
    ]), ['int4', 'int4', 'int4', 'text', 'float8', 'text', 'text', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'text', 'text', 'text',
      'float8', 'float8', 'int4', 'float8', 'float8', 'float8', 'float8', 'int4', 'float8', 'int4', 'int4', 'float8', 'float8', 'float8'])}
      AS u(item_id, site_id, origin_weeks, variant, target_service, service_type, policy, reorder_point, order_qty, order_up_to, review_weeks,
        lead_time_weeks, unit_cost, demand_class, abc_class, segment_ids, expected_fill_rate, expected_on_hand, weeks, demand, served_from_stock,
        fill_rate, cycle_service_level, cycles, average_on_hand, stockout_weeks, orders, ordered_units, lost_units, end_backorders)
    ON CONFLICT DO NOTHING`);
  return rows.length;
}

/** Rows of items that left the run's scope are dropped at the end of a run, so a run's results are exactly its scope. */
export async function dropServiceBacktestOutside(tx: Tx, pipelineId: number, scenarioId: number, jobId: string): Promise<number> {
  return (await tx.query(sql.unsafe`DELETE FROM service_backtest_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId} AND job_id IS DISTINCT FROM ${jobId}`)).rowCount;
}

/** The MEIO scenario a read shows when none is asked for: the default one that has results, else any that has. */
export async function scenarioWithResults(tx: Tx, pipelineId: number): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT r.scenario_id FROM (SELECT DISTINCT scenario_id FROM service_backtest_results WHERE pipeline_id = ${pipelineId}) r
    JOIN meio_scenarios s ON s.id = r.scenario_id ORDER BY s.is_default DESC, r.scenario_id LIMIT 1`)) as number | null;
}

export interface ServiceBacktestFilter {
  pipelineId: number;
  scenarioId: number;
  variant?: string;
  originWeeks?: number;
  itemId?: number;
  siteId?: number;
  demandClass?: string;
  abcClass?: string;
  segmentId?: number;
  /** only SKU-sites whose achieved fill rate is more than this below their target */
  missedBy?: number;
  /** the caller's series (seriesScope on alias r): a user limited to segments reads only theirs */
  scope?: Fragment;
}

function where(f: ServiceBacktestFilter) {
  const parts = [sql.fragment`r.pipeline_id = ${f.pipelineId}`, sql.fragment`r.scenario_id = ${f.scenarioId}`];
  if (f.variant !== undefined) parts.push(sql.fragment`r.variant = ${f.variant}`);
  if (f.originWeeks !== undefined) parts.push(sql.fragment`r.origin_weeks = ${f.originWeeks}`);
  if (f.itemId !== undefined) parts.push(sql.fragment`r.item_id = ${f.itemId}`);
  if (f.siteId !== undefined) parts.push(sql.fragment`r.site_id = ${f.siteId}`);
  if (f.demandClass !== undefined) parts.push(sql.fragment`r.demand_class = ${f.demandClass}`);
  if (f.abcClass !== undefined) parts.push(sql.fragment`r.abc_class = ${f.abcClass}`);
  if (f.segmentId !== undefined) parts.push(sql.fragment`${f.segmentId}::int4 = ANY(r.segment_ids)`);
  if (f.missedBy !== undefined) parts.push(sql.fragment`r.fill_rate < r.target_service - ${f.missedBy}::float8`);
  if (f.scope) parts.push(f.scope);
  return sql.join(parts, sql.fragment` AND `);
}

const RESULT_COLUMNS = sql.fragment`r.pipeline_id, r.scenario_id, r.item_id, r.site_id, r.item_id::text || '_' || r.site_id::text AS unique_id,
  r.origin_weeks, r.variant, r.target_service, r.service_type, r.policy, r.reorder_point, r.order_qty, r.order_up_to, r.review_weeks,
  r.lead_time_weeks, r.unit_cost, r.demand_class, r.abc_class, r.segment_ids, r.expected_fill_rate, r.expected_on_hand, r.shortage_mode, r.weeks,
  r.demand, r.served_from_stock, r.fill_rate, r.cycle_service_level, r.cycles, r.average_on_hand, r.average_on_hand * r.unit_cost AS average_inventory_value,
  r.stockout_weeks, r.orders, r.ordered_units, r.lost_units, r.end_backorders, r.job_id, r.updated_at`;

export async function serviceBacktestResults(tx: Tx, f: ServiceBacktestFilter, page: { skip: number; limit: number }): Promise<{ rows: Record<string, unknown>[]; total: number }> {
  const rows = await tx.any(sql.unsafe`
    SELECT ${RESULT_COLUMNS} FROM service_backtest_results r WHERE ${where(f)}
    ORDER BY r.item_id, r.site_id, r.origin_weeks, array_position(ARRAY['target', 'normal', 'bootstrap', 'sweep'], r.variant), r.target_service
    LIMIT ${page.limit} OFFSET ${page.skip}`);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM service_backtest_results r WHERE ${where(f)}`)) as number;
  return { rows: [...rows] as Record<string, unknown>[], total };
}

/** Every row of the pipeline and scenario (of a filter) in the form the summaries read. */
export async function serviceBacktestSummaryRows(tx: Tx, f: ServiceBacktestFilter): Promise<SummaryRow[]> {
  return [...(await tx.any(sql.unsafe`
    SELECT r.item_id, r.site_id, r.origin_weeks, r.variant, r.target_service, r.fill_rate, r.cycle_service_level, r.average_on_hand, r.unit_cost,
      r.demand, r.served_from_stock, r.stockout_weeks, r.demand_class, r.abc_class, r.segment_ids
    FROM service_backtest_results r WHERE ${where(f)}`))] as SummaryRow[];
}
