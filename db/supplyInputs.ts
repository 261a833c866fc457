/**
 * What the supply step reads for a chunk of items: every SKU-site of each item's network with its best-method
 * forecast, stock and planning parameters (item_site, the meio and eoq results, IO overrides), the routes, firm orders,
 * sales returns and site capacity. Rows come back close to the engine's input shapes (domain/supply/types.ts); the
 * step assembles them.
 */
import type { SupplyRoute } from '../domain/supply/types';
import { sql, type Tx } from './pool';

const items = (ids: readonly number[]) => sql.array(ids, 'int4');

export interface SupplySiteRow {
  item_id: number;
  site_id: number;
  has_series: boolean;
  unit_cost: number;
  on_hand: number;
  master_safety_stock: number | null;
  moq: number;
  order_multiple: number;
  /** best method's forecast: first week and values (null: no forecast) */
  start_week: string | null;
  yhat: Array<number | null> | null;
  meio_safety_stock: number | null;
  meio_order_qty: number | null;
  eoq: number | null;
  eoq_override: number | null;
}

/**
 * The SKU-sites supply plans per item: where it has a series, where a route of the item delivers, and the source of
 * every TRANSFER route (a transfer draws on its source's plan). A vendor at the start of a BUY route is not planned.
 * Safety stock and lot size come from the results of the tenant's default MEIO scenario and the pipeline's default
 * K-curve scenario (`kcurveScenarioId`), when those steps ran.
 */
export async function supplySites(tx: Tx, pipelineId: number, kcurveScenarioId: number | null, itemIds: readonly number[]): Promise<SupplySiteRow[]> {
  if (!itemIds.length) return [];
  return [...(await tx.any(sql.unsafe`
    WITH meio AS (SELECT COALESCE((SELECT id FROM meio_scenarios ORDER BY is_default DESC, id LIMIT 1), -1) AS id),
    its AS (SELECT unnest(${items(itemIds)}::int4[]) AS item_id),
    site_set AS (
      SELECT s.item_id, s.site_id FROM series s WHERE s.item_id = ANY(${items(itemIds)}::int4[])
      UNION SELECT i.item_id, r.to_site_id FROM its i JOIN routes r ON r.item_id = i.item_id OR r.item_id IS NULL
      UNION SELECT i.item_id, r.from_site_id FROM its i JOIN routes r ON (r.item_id = i.item_id OR r.item_id IS NULL) AND r.route_type = 'TRANSFER'
    )
    SELECT ss.item_id, ss.site_id, (se.item_id IS NOT NULL) AS has_series,
      COALESCE(x.unit_cost, it.avg_unit_cost, 0)::float8 AS unit_cost, COALESCE(x.on_hand, 0)::float8 AS on_hand,
      x.safety_stock::float8 AS master_safety_stock, COALESCE(x.moq, 0)::float8 AS moq, COALESCE(x.order_multiple, 1)::float8 AS order_multiple,
      fr.start_week, fr.yhat,
      mr.safety_stock AS meio_safety_stock, mr.order_qty AS meio_order_qty,
      eo.eoq AS eoq,
      (SELECT o.eoq_override::float8 FROM io_overrides o
        WHERE o.pipeline_id = ${pipelineId} AND o.item_id = ss.item_id AND o.site_id = ss.site_id
          AND (o.scenario_id = (SELECT id FROM meio) OR o.scenario_id IS NULL)
        ORDER BY o.scenario_id NULLS LAST LIMIT 1) AS eoq_override
    FROM site_set ss
    JOIN items it ON it.id = ss.item_id
    LEFT JOIN series se ON se.item_id = ss.item_id AND se.site_id = ss.site_id
    -- looked up row by row (each is at most one row of a primary key): as joins, PostgreSQL could hash whole tables
    -- (the pipeline's forecasts, of every method) for every chunk, a cost that grows with the tenant in each of them
    LEFT JOIN LATERAL (SELECT * FROM item_site x WHERE x.item_id = ss.item_id AND x.site_id = ss.site_id LIMIT 1) x ON true
    LEFT JOIN LATERAL (
      SELECT fr.start_week, fr.yhat FROM series_best_method b
      JOIN forecast_results fr ON fr.pipeline_id = b.pipeline_id AND fr.item_id = b.item_id AND fr.site_id = b.site_id AND fr.method = b.best_method
      WHERE b.pipeline_id = ${pipelineId} AND b.item_id = ss.item_id AND b.site_id = ss.site_id LIMIT 1
    ) fr ON true
    LEFT JOIN LATERAL (
      SELECT mr.safety_stock, mr.order_qty FROM meio_results mr
      WHERE mr.pipeline_id = ${pipelineId} AND mr.scenario_id = (SELECT id FROM meio) AND mr.item_id = ss.item_id AND mr.site_id = ss.site_id LIMIT 1
    ) mr ON true
    LEFT JOIN LATERAL (
      SELECT eo.eoq FROM eoq_results eo
      WHERE eo.pipeline_id = ${pipelineId} AND eo.scenario_id = ${kcurveScenarioId ?? -1} AND eo.item_id = ss.item_id AND eo.site_id = ss.site_id LIMIT 1
    ) eo ON true
    ORDER BY ss.item_id, ss.site_id`))] as SupplySiteRow[];
}

/** Routes that serve the items (their own and those for every item), as the engine takes them. */
export async function supplyRoutes(tx: Tx, itemIds: readonly number[]): Promise<Array<SupplyRoute & { item_id: number | null }>> {
  if (!itemIds.length) return [];
  return [...(await tx.any(sql.unsafe`
    SELECT id AS route_id, item_id, from_site_id, to_site_id, route_type, lead_time::float8 AS lead_time, priority FROM routes
    WHERE item_id = ANY(${items(itemIds)}::int4[]) OR item_id IS NULL ORDER BY id`))] as Array<SupplyRoute & { item_id: number | null }>;
}

/** Of these series (`<item_id>_<site_id>`), those that belong to one of the segments. */
export async function seriesInSegments(tx: Tx, uniqueIds: readonly string[], segmentIds: readonly number[]): Promise<Set<string>> {
  if (!uniqueIds.length || !segmentIds.length) return new Set();
  const rows = await tx.anyFirst(sql.unsafe`
    SELECT DISTINCT m.item_id || '_' || m.site_id FROM segment_members m
    WHERE m.segment_id = ANY(${sql.array(segmentIds, 'int4')}::int4[]) AND (m.item_id || '_' || m.site_id) = ANY(${sql.array(uniqueIds, 'text')}::text[])`);
  return new Set(rows as readonly string[]);
}

/** On-hand stock per SKU-site of these items (the stock a supersession may roll to a successor). */
export async function onHandOfItems(tx: Tx, itemIds: readonly number[]): Promise<Array<{ item_id: number; site_id: number; on_hand: number }>> {
  if (!itemIds.length) return [];
  return [...(await tx.any(sql.unsafe`
    SELECT item_id, site_id, on_hand::float8 AS on_hand FROM item_site WHERE item_id = ANY(${items(itemIds)}::int4[]) AND on_hand <> 0`))] as Array<{ item_id: number; site_id: number; on_hand: number }>;
}
