import { causalDemandOfItems, maintenanceOfItems, nettedOfItems } from '../../db/demandStreams';
import type { Tx } from '../../db/pool';
import { alignToPlan, bucketToPlan, maintenanceOnPlan, type DemandStreamSwitches } from '../../domain/demand/streams';
import { addWeeks } from '../../domain/time/weeks';

/** The streams besides the statistical forecast, per series (`<item_id>_<site_id>`), on the plan's weeks. */
export interface ExtraStreams {
  causal: Map<string, number[]>;
  maintenance: Map<string, number[]>;
  netted: Map<string, Array<number | null>>;
}

/**
 * Reads the streams a scenario switches on for a chunk of items and places them on the plan's `horizon` weeks from
 * `planningDate` (domain/demand/streams.ts); a stream that is off is not read.
 */
export async function extraStreamsOfItems(
  tx: Tx, pipelineId: number, itemIds: readonly number[], on: Partial<DemandStreamSwitches>, planningDate: string, horizon: number,
): Promise<ExtraStreams> {
  const out: ExtraStreams = { causal: new Map(), maintenance: new Map(), netted: new Map() };
  if (!itemIds.length) return out;
  if (on.maintenance) out.maintenance = maintenanceOnPlan(await maintenanceOfItems(tx, itemIds), planningDate, horizon);
  if (on.causal) {
    const rows = new Map<string, Array<{ week: string; qty: number }>>();
    for (const r of await causalDemandOfItems(tx, pipelineId, itemIds, planningDate, addWeeks(planningDate, horizon))) {
      const key = `${r.item_id}_${r.site_id}`;
      rows.set(key, [...(rows.get(key) ?? []), r]);
    }
    for (const [key, list] of rows) out.causal.set(key, bucketToPlan(list, planningDate, horizon));
  }
  if (on.statistical && on.netted) {
    for (const r of await nettedOfItems(tx, pipelineId, itemIds)) out.netted.set(`${r.item_id}_${r.site_id}`, alignToPlan(r.netted, r.period_start, planningDate, horizon));
  }
  return out;
}
