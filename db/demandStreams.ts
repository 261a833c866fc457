/**
 * The demand streams besides the statistical forecast that the meio and supply steps may plan against
 * (domain/demand/streams.ts; docs/SUPPLY.md "Which demand a plan covers"): causal results, maintenance events with
 * their BOM lines, and the netted forecast, each read for a chunk of items only.
 */
import type { BomLine, MaintenanceEvent } from '../domain/maintenance/engine';
import { sql, type Tx } from './pool';

const items = (ids: readonly number[]) => sql.array(ids, 'int4');

/**
 * The maintenance events whose BOM names one of the items, as defined (no maintenance scenario), with the BOM lines
 * of those items.
 */
export async function maintenanceOfItems(tx: Tx, itemIds: readonly number[]): Promise<{ events: MaintenanceEvent[]; bom: BomLine[] }> {
  if (!itemIds.length) return { events: [], bom: [] };
  const bom = (await tx.any(sql.unsafe`
    SELECT event_id, item_id, site_id, qty_per_occurrence FROM maintenance_event_bom
    WHERE item_id = ANY(${items(itemIds)}::int4[]) ORDER BY event_id, item_id, site_id`)) as readonly BomLine[];
  if (!bom.length) return { events: [], bom: [] };
  const events = (await tx.any(sql.unsafe`
    SELECT id, name, to_char(start_date, 'YYYY-MM-DD') AS start_date, interval_weeks, to_char(end_date, 'YYYY-MM-DD') AS end_date,
      ARRAY(SELECT to_char(d, 'YYYY-MM-DD') FROM unnest(dates) AS d ORDER BY d) AS dates
    FROM maintenance_events WHERE id = ANY(${sql.array([...new Set(bom.map((b) => b.event_id))], 'int4')}::int4[]) ORDER BY id`)) as readonly MaintenanceEvent[];
  return { events: [...events], bom: [...bom] };
}

/**
 * The stored causal demand of the items' sites from `from` (inclusive) to `to` (exclusive): the site rows of the
 * causal scenario last run for the pipeline, or, when none was, of the one last run for no pipeline (0).
 */
export async function causalDemandOfItems(
  tx: Tx, pipelineId: number, itemIds: readonly number[], from: string, to: string,
): Promise<Array<{ item_id: number; site_id: number; week: string; qty: number }>> {
  if (!itemIds.length) return [];
  return [...(await tx.any(sql.unsafe`
    WITH chosen AS (
      SELECT r.scenario_id, r.pipeline_id FROM causal_results r
      WHERE r.pipeline_id IN (${pipelineId}, 0)
      GROUP BY r.scenario_id, r.pipeline_id
      ORDER BY (r.pipeline_id = ${pipelineId}) DESC, max(r.computed_at) DESC, r.scenario_id DESC LIMIT 1
    )
    SELECT r.item_id, r.site_id, to_char(r.week, 'YYYY-MM-DD') AS week, r.demand AS qty
    FROM causal_results r JOIN chosen c ON c.scenario_id = r.scenario_id AND c.pipeline_id = r.pipeline_id
    WHERE r.site_id > 0 AND r.item_id = ANY(${items(itemIds)}::int4[]) AND r.week >= ${from}::date AND r.week < ${to}::date
    ORDER BY r.item_id, r.site_id, r.week`))] as Array<{ item_id: number; site_id: number; week: string; qty: number }>;
}

/** The netted forecast of the items' series from the pipeline's last netting refresh, with its period's first week. */
export async function nettedOfItems(
  tx: Tx, pipelineId: number, itemIds: readonly number[],
): Promise<Array<{ item_id: number; site_id: number; period_start: string; netted: number[] }>> {
  if (!itemIds.length) return [];
  return [...(await tx.any(sql.unsafe`
    SELECT n.item_id, n.site_id, to_char(r.period_start, 'YYYY-MM-DD') AS period_start, n.netted::float8[] AS netted
    FROM netting_results n JOIN netting_runs r ON r.pipeline_id = n.pipeline_id
    WHERE n.pipeline_id = ${pipelineId} AND r.period_start IS NOT NULL AND n.item_id = ANY(${items(itemIds)}::int4[])
    ORDER BY n.item_id, n.site_id`))] as Array<{ item_id: number; site_id: number; period_start: string; netted: number[] }>;
}
