import { loadMeioSettings } from '../../db/meioConfig';
import { dropMeioResultsOutside, meioScenarioForRun, meioSummary, networkRoutes, networkSites, overridesOf, replaceMeioResults } from '../../db/meioResults';
import { weeklyDemandOf } from '../../domain/inventory/fittedDemand';
import { NetworkCycleError, planItemNetwork, type MeioGroupResult, type MeioRoute, type MeioSite, type MeioSkuResult } from '../../domain/inventory/meio';
import { resolveServiceTarget } from '../../domain/inventory/serviceTargets';
import { checkpoint } from '../jobs/activity';
import type { SeriesStepHandler } from '../steps/types';

const CHECKPOINT_EVERY = 200;

async function scenarioOf(run: { tx: Parameters<typeof meioScenarioForRun>[0]; meioScenarioId?: number | null }): Promise<number> {
  const id = await meioScenarioForRun(run.tx, run.meioScenarioId ?? null);
  if (id === null) throw new Error(`MEIO scenario ${run.meioScenarioId} not found`);
  return id;
}

/**
 * The meio step: per item across its network of sites, the safety-stock placement, the exact policy of every
 * stocking site and the item's service-versus-investment curve (domain/inventory/meio.ts). Chunks hold whole items.
 */
export const meioStep: SeriesStepHandler = {
  parameterTypes: [],
  chunkBy: 'item',
  async run(run, series) {
    const pipelineId = run.scope.pipelineId;
    const scenarioId = await scenarioOf(run);
    const settings = (await loadMeioSettings(run.tx, scenarioId))!;
    const itemIds = [...new Set(series.map((s) => s.item_id))];
    const [sites, routes, overrides] = await Promise.all([
      networkSites(run.tx, pipelineId, itemIds), networkRoutes(run.tx, itemIds), overridesOf(run.tx, pipelineId, scenarioId, itemIds),
    ]);
    const history = new Map(series.map((s) => [s.unique_id, Array.from(s.y)]));
    const sitesOf = new Map<number, typeof sites>();
    for (const s of sites) sitesOf.set(s.item_id, [...(sitesOf.get(s.item_id) ?? []), s]);

    const skus: Array<{ itemId: number; r: MeioSkuResult }> = [];
    const groups: Array<{ itemId: number; g: MeioGroupResult }> = [];
    const cycles: string[] = [];
    itemIds.forEach((itemId, i) => {
      if (i > 0 && i % CHECKPOINT_EVERY === 0) checkpoint({ index: run.index, phase: 'meio', done: i });
      const input: MeioSite[] = (sitesOf.get(itemId) ?? []).map((s) => {
        const uid = `${s.item_id}_${s.site_id}`;
        const o = overrides.get(uid);
        const t = resolveServiceTarget(settings, s.segment_ids, o ? { sl_override: o.sl_override, fr_override: o.fr_override } : undefined);
        return {
          siteId: s.site_id,
          demand: s.has_series ? weeklyDemandOf({ ...s, lead_time_weeks: s.dist_lead_time_weeks, mean: s.dist_mean, std: s.dist_std }, history.get(uid) ?? []) : null,
          hasSeries: s.has_series, unitCost: s.unit_cost, masterLeadTime: s.lead_time_weeks, moq: s.moq, orderMultiple: s.order_multiple,
          target: {
            service_type: t.service_type, target_service: t.target_service, holding_rate: t.holding_rate, ordering_cost: t.ordering_cost,
            policy: t.policy, review_period_weeks: t.review_period_weeks, source: t.source,
          },
          eoqOverride: o?.eoq_override ?? null,
        };
      });
      const network: MeioRoute[] = routes
        .filter((r) => r.item_id === null || r.item_id === itemId)
        .map((r) => ({ from: r.from_site_id, to: r.to_site_id, type: r.route_type, leadTime: Number(r.lead_time), priority: r.priority }));
      try {
        const planned = planItemNetwork(input, network);
        for (const r of planned.skus) skus.push({ itemId, r });
        groups.push({ itemId, g: planned.group });
      } catch (err) {
        // a cycle in one item's routes must not stop the other items: the item is reported and left without a plan
        if (!(err instanceof NetworkCycleError)) throw err;
        cycles.push(`item ${itemId}: ${err.message}`);
      }
    });
    const rows = await replaceMeioResults(run.tx, pipelineId, scenarioId, itemIds, skus, groups, run.jobId);
    const missed = skus.filter((s) => !s.r.meetsTarget).length;
    return { rows, note: `scenario ${scenarioId}: ${itemIds.length} items, ${rows} SKU-sites, ${missed} below target${cycles.length ? `; skipped ${cycles.join('; ')}` : ''}` };
  },
  async finalize(run) {
    const scenarioId = await scenarioOf(run);
    const dropped = await dropMeioResultsOutside(run.tx, run.scope.pipelineId, scenarioId, run.jobId);
    const s = await meioSummary(run.tx, run.scope.pipelineId, scenarioId);
    const fr = s.fill_rate === null ? 'n/a' : `${(100 * s.fill_rate).toFixed(2)} %`;
    return `scenario ${scenarioId}: ${s.sku_sites} SKU-sites, ${s.meeting_target} meet their target, fill rate ${fr}, investment ${s.investment.toFixed(2)}${dropped ? `; dropped ${dropped} rows of items out of scope` : ''}`;
  },
};
