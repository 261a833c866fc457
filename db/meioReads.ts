/** Reads of the meio step's results: SKU-site and item rows, the fill-rate heatmap and the diagnostics. */
import { sql, type Tx } from './pool';

export interface MeioResultFilter {
  pipelineId: number;
  scenarioId: number;
  itemId?: number;
  siteId?: number;
  meetsTarget?: boolean;
  diagnostic?: string;
}

const RESULT_COLUMNS = sql.fragment`r.item_id, r.site_id, r.item_id::text || '_' || r.site_id::text AS unique_id, i.xuid AS item_xuid, i.name AS item_name,
  s.xuid AS site_xuid, s.name AS site_name, r.policy, r.service_type, r.target_service, r.target_source, r.echelon_model, r.distribution_type,
  r.weekly_mean, r.weekly_std, r.lead_time_weeks, r.net_lead_time_weeks, r.review_period_weeks, r.ltd_mean, r.ltd_std, r.order_qty,
  r.reorder_point, r.order_up_to, r.safety_stock, r.expected_fill_rate, r.expected_csl, r.expected_backorders, r.expected_on_hand,
  r.unit_cost, r.investment, r.meets_target, r.diagnostics, r.job_id, r.updated_at`;

function where(f: MeioResultFilter) {
  const parts = [sql.fragment`r.pipeline_id = ${f.pipelineId}`, sql.fragment`r.scenario_id = ${f.scenarioId}`];
  if (f.itemId !== undefined) parts.push(sql.fragment`r.item_id = ${f.itemId}`);
  if (f.siteId !== undefined) parts.push(sql.fragment`r.site_id = ${f.siteId}`);
  if (f.meetsTarget !== undefined) parts.push(sql.fragment`r.meets_target = ${f.meetsTarget}`);
  if (f.diagnostic !== undefined) parts.push(sql.fragment`r.diagnostics @> ${sql.jsonb([{ code: f.diagnostic }])}`);
  return sql.join(parts, sql.fragment` AND `);
}

export async function meioResults(tx: Tx, f: MeioResultFilter, page: { skip: number; limit: number }): Promise<{ rows: Record<string, unknown>[]; total: number }> {
  const rows = await tx.any(sql.unsafe`
    SELECT ${RESULT_COLUMNS} FROM meio_results r JOIN items i ON i.id = r.item_id JOIN sites s ON s.id = r.site_id
    WHERE ${where(f)} ORDER BY r.item_id, r.site_id LIMIT ${page.limit} OFFSET ${page.skip}`);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM meio_results r WHERE ${where(f)}`)) as number;
  return { rows: [...rows] as Record<string, unknown>[], total };
}

export async function meioGroupResults(tx: Tx, f: MeioResultFilter, page: { skip: number; limit: number }): Promise<{ rows: Record<string, unknown>[]; total: number }> {
  const w = where({ pipelineId: f.pipelineId, scenarioId: f.scenarioId, itemId: f.itemId, meetsTarget: f.meetsTarget });
  const rows = await tx.any(sql.unsafe`
    SELECT r.item_id, i.xuid AS item_xuid, i.name AS item_name, r.n_skus, r.echelon_model, r.target_service, r.expected_fill_rate, r.expected_backorders,
      r.investment, r.meets_target, r.curve, r.curve_investment, r.weekly_demand, r.budget_cap
    FROM meio_group_results r JOIN items i ON i.id = r.item_id WHERE ${w} ORDER BY r.item_id LIMIT ${page.limit} OFFSET ${page.skip}`);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM meio_group_results r WHERE ${w}`)) as number;
  return { rows: [...rows] as Record<string, unknown>[], total };
}

/** The pipeline and scenario of the latest meio run, for reads that name neither. */
export async function latestMeioRun(tx: Tx, pipelineId?: number, scenarioId?: number): Promise<{ pipeline_id: number; scenario_id: number } | null> {
  const parts = [sql.fragment`true`];
  if (pipelineId !== undefined) parts.push(sql.fragment`pipeline_id = ${pipelineId}`);
  if (scenarioId !== undefined) parts.push(sql.fragment`scenario_id = ${scenarioId}`);
  return (await tx.maybeOne(sql.unsafe`
    SELECT pipeline_id, scenario_id FROM meio_results WHERE ${sql.join(parts, sql.fragment` AND `)} ORDER BY updated_at DESC LIMIT 1`)) as { pipeline_id: number; scenario_id: number } | null;
}

export interface HeatmapCell {
  segment_id: number | null;
  segment_name: string;
  site_id: number;
  site_xuid: string;
  sku_sites: number;
  fill_rate: number | null;
  target_service: number | null;
  below_target: number;
  investment: number;
}

/**
 * Demand-weighted expected fill rate per segment and site. A SKU-site counts in every segment it belongs to; those
 * in none are the row "(no segment)". `segmentIds` limits the rows to those segments.
 */
export async function fillRateHeatmap(tx: Tx, pipelineId: number, scenarioId: number, segmentIds?: readonly number[]): Promise<HeatmapCell[]> {
  const seg = segmentIds ? sql.fragment`AND g.segment_id = ANY(${sql.array(segmentIds, 'int4')})` : sql.fragment``;
  return [...(await tx.any(sql.unsafe`
    WITH rows AS (
      SELECT m.segment_id, r.* FROM meio_results r
      LEFT JOIN segment_members m ON m.item_id = r.item_id AND m.site_id = r.site_id
      WHERE r.pipeline_id = ${pipelineId} AND r.scenario_id = ${scenarioId} AND r.weekly_mean > 0
    )
    SELECT g.segment_id, COALESCE(sg.name, '(no segment)') AS segment_name, g.site_id, s.xuid AS site_xuid, count(*)::int AS sku_sites,
      (sum(g.expected_fill_rate * g.weekly_mean) / NULLIF(sum(g.weekly_mean) FILTER (WHERE g.expected_fill_rate IS NOT NULL), 0))::float8 AS fill_rate,
      (sum(g.target_service * g.weekly_mean) / NULLIF(sum(g.weekly_mean), 0))::float8 AS target_service,
      count(*) FILTER (WHERE NOT g.meets_target)::int AS below_target, COALESCE(sum(g.investment), 0)::float8 AS investment
    FROM rows g JOIN sites s ON s.id = g.site_id LEFT JOIN segments sg ON sg.id = g.segment_id
    WHERE true ${seg}
    GROUP BY g.segment_id, sg.name, g.site_id, s.xuid ORDER BY g.segment_id NULLS LAST, g.site_id`))] as HeatmapCell[];
}

/** How many SKU-sites carry each diagnostic code, and how many miss their target. */
export async function diagnosticCounts(tx: Tx, pipelineId: number, scenarioId: number): Promise<{ below_target: number; sku_sites: number; by_code: Record<string, number> }> {
  const totals = (await tx.one(sql.unsafe`
    SELECT count(*)::int AS sku_sites, count(*) FILTER (WHERE NOT meets_target)::int AS below_target
    FROM meio_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId}`)) as { sku_sites: number; below_target: number };
  const codes = (await tx.any(sql.unsafe`
    SELECT d->>'code' AS code, count(*)::int AS n FROM meio_results r, jsonb_array_elements(r.diagnostics) d
    WHERE r.pipeline_id = ${pipelineId} AND r.scenario_id = ${scenarioId} GROUP BY 1 ORDER BY 1`)) as ReadonlyArray<{ code: string; n: number }>;
  return { ...totals, by_code: Object.fromEntries(codes.map((c) => [c.code, c.n])) };
}

/** What the diagnostic of one SKU-site needs besides its result row: its series, route and distribution facts. */
export async function skuFacts(tx: Tx, pipelineId: number, itemId: number, siteId: number): Promise<{ has_series: boolean; has_distribution: boolean; inbound_routes: number; master_lead_time: number | null }> {
  return (await tx.one(sql.unsafe`
    SELECT EXISTS (SELECT 1 FROM series WHERE item_id = ${itemId} AND site_id = ${siteId}) AS has_series,
      EXISTS (SELECT 1 FROM series_distributions WHERE pipeline_id = ${pipelineId} AND item_id = ${itemId} AND site_id = ${siteId}) AS has_distribution,
      (SELECT count(*)::int FROM routes WHERE to_site_id = ${siteId} AND (item_id = ${itemId} OR item_id IS NULL)
        AND route_type IN ('REPLENISHMENT', 'BUY', 'BUILD', 'TRANSFER')) AS inbound_routes,
      (SELECT lead_time_weeks::float8 FROM item_site WHERE item_id = ${itemId} AND site_id = ${siteId}) AS master_lead_time`)) as {
    has_series: boolean; has_distribution: boolean; inbound_routes: number; master_lead_time: number | null;
  };
}

/** Nodes of one item's network for the io-network view: stock, forecast level and the latest meio result per site. */
export async function networkNodes(tx: Tx, itemId: number, siteIds: readonly number[], pipelineId: number, scenarioId: number | null): Promise<Array<Record<string, unknown>>> {
  if (!siteIds.length) return [];
  return [...(await tx.any(sql.unsafe`
    SELECT s.id AS site_id, s.xuid AS site_xuid, s.name AS site_name,
      EXISTS (SELECT 1 FROM series se WHERE se.item_id = ${itemId} AND se.site_id = s.id) AS has_series,
      COALESCE(x.on_hand, 0)::float8 AS on_hand, x.safety_stock::float8 AS master_safety_stock,
      (SELECT avg(v)::float8 FROM series_best_method b JOIN forecast_results f ON f.pipeline_id = b.pipeline_id AND f.item_id = b.item_id
         AND f.site_id = b.site_id AND f.method = b.best_method, unnest(f.yhat) v
       WHERE b.pipeline_id = ${pipelineId} AND b.item_id = ${itemId} AND b.site_id = s.id) AS forecast_weekly_mean,
      r.safety_stock AS meio_safety_stock, r.reorder_point, r.target_service, r.expected_fill_rate, r.echelon_model
    FROM sites s
    LEFT JOIN item_site x ON x.item_id = ${itemId} AND x.site_id = s.id
    LEFT JOIN meio_results r ON r.pipeline_id = ${pipelineId} AND r.scenario_id = ${scenarioId ?? 0} AND r.item_id = ${itemId} AND r.site_id = s.id
    WHERE s.id = ANY(${sql.array(siteIds, 'int4')}) ORDER BY s.id`))] as Array<Record<string, unknown>>;
}
