import { getMeioScenario, loadMeioSettings } from '../../db/meioConfig';
import {
  dropMeioResultsOutside, groupCurves, meioScenarioForRun, meioSummary, networkSites, overridesOf, replaceMeioResults, weeklyValuesOfItems,
} from '../../db/meioResults';
import { routesOfItems } from '../../db/routes';
import type { Tx } from '../../db/pool';
import { resolvePlanningDate } from '../../db/planningDate';
import { plannedWeeklyDistribution, type MeioDemandStreamSwitches } from '../../domain/demand/streams';
import { weeklyDemandOf } from '../../domain/inventory/fittedDemand';
import { NetworkCycleError, planItemNetwork, type MeioGroupResult, type MeioRoute, type MeioSite, type MeioSkuResult } from '../../domain/inventory/meio';
import { allocateBudget } from '../../domain/inventory/portfolioBudget';
import { plannedAutocorrelation } from '../../domain/inventory/serialDependence';
import { resolveServiceTarget, type MeioSettings } from '../../domain/inventory/serviceTargets';
import { DEFAULT_HORIZON } from '../../domain/supply/types';
import { extraStreamsOfItems } from '../demand/streams';
import { checkpoint } from '../jobs/activity';
import type { SeriesStepHandler } from '../steps/types';

const CHECKPOINT_EVERY = 200;
/** items re-planned per transaction when a budget cuts their curves */
const BUDGET_BATCH = 200;

async function scenarioOf(run: { tx: Tx; meioScenarioId?: number | null }): Promise<number> {
  const id = await meioScenarioForRun(run.tx, run.meioScenarioId ?? null);
  if (id === null) throw new Error(`MEIO scenario ${run.meioScenarioId} not found`);
  return id;
}

/** The demand streams the scenario plans against (docs/INVENTORY_CONFIG.md "Which demand MEIO plans"). */
async function streamsOf(tx: Tx, scenarioId: number): Promise<MeioDemandStreamSwitches> {
  const row = (await getMeioScenario(tx, scenarioId))!;
  return { statistical: row.demand_statistical, causal: row.demand_causal, maintenance: row.demand_maintenance };
}

interface Planned {
  skus: Array<{ itemId: number; r: MeioSkuResult }>;
  groups: Array<{ itemId: number; g: MeioGroupResult; cap?: number | null }>;
  cycles: string[];
}

/**
 * Loads the items' networks, resolves every site's target and plans each item (domain/inventory/meio.ts). `caps`
 * bounds the investment on an item's curve (a scenario budget's share); `history` holds the weekly demand an
 * empirical fit stands for, and whose autocorrelations widen the demand over a protection interval.
 */
async function planItems(
  tx: Tx, pipelineId: number, planningDate: string, scenarioId: number, settings: MeioSettings, on: MeioDemandStreamSwitches, itemIds: readonly number[],
  history: Map<string, number[]>, caps: Map<number, number> = new Map(), onItem: (i: number) => void = () => {},
): Promise<Planned> {
  const [sites, routes, overrides] = await Promise.all([
    networkSites(tx, pipelineId, itemIds), routesOfItems(tx, itemIds), overridesOf(tx, pipelineId, scenarioId, itemIds),
  ]);
  // the extra streams over the 52 weeks the supply step would plan from the same pipeline's planning date
  const extra = await extraStreamsOfItems(tx, pipelineId, itemIds, on, planningDate, DEFAULT_HORIZON);
  const sitesOf = new Map<number, typeof sites>();
  for (const s of sites) sitesOf.set(s.item_id, [...(sitesOf.get(s.item_id) ?? []), s]);
  const out: Planned = { skus: [], groups: [], cycles: [] };
  itemIds.forEach((itemId, i) => {
    onItem(i);
    const input: MeioSite[] = (sitesOf.get(itemId) ?? []).map((s) => {
      const uid = `${s.item_id}_${s.site_id}`;
      const o = overrides.get(uid);
      const t = resolveServiceTarget(settings, s.segment_ids, o ? { sl_override: o.sl_override, fr_override: o.fr_override } : undefined);
      const weeks = history.get(uid) ?? [];
      const fit = s.has_series ? weeklyDemandOf({ ...s, lead_time_weeks: s.dist_lead_time_weeks, mean: s.dist_mean, std: s.dist_std }, weeks) : null;
      const demand = s.has_series ? plannedWeeklyDistribution(fit, { causal: extra.causal.get(uid), maintenance: extra.maintenance.get(uid) }, on, DEFAULT_HORIZON) : null;
      return {
        siteId: s.site_id,
        demand,
        autocorrelation: plannedAutocorrelation(weeks, on.statistical ? fit : null, demand),
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
      const cap = caps.get(itemId);
      const planned = planItemNetwork(input, network, { budget: cap ?? null });
      for (const r of planned.skus) out.skus.push({ itemId, r });
      out.groups.push({ itemId, g: planned.group, cap: cap ?? null });
    } catch (err) {
      // a cycle in one item's routes must not stop the other items: the item is reported and left without a plan
      if (!(err instanceof NetworkCycleError)) throw err;
      out.cycles.push(`item ${itemId}: ${err.message}`);
    }
  });
  return out;
}

/**
 * The planning date of a meio job, resolved once per job in this process. Every chunk asked for it: without a stored
 * date that reads the newest start week of all the pipeline's forecasts or the last of all weekly rows (15 million at
 * 100,000 series), so each chunk's cost grew with the tenant; and a date changed during the run planned the chunks
 * after the change from another date than those before it.
 */
const planningDates = new Map<string, Promise<string>>();
export function planningDateOf(tx: Tx, jobId: string, pipelineId: number): Promise<string> {
  let date = planningDates.get(jobId);
  if (!date) {
    date = resolvePlanningDate(tx, pipelineId).then((d) => d.date);
    date.catch(() => planningDates.delete(jobId));
    planningDates.set(jobId, date);
    // a worker runs one job's chunks after another; the last few jobs are plenty
    if (planningDates.size > 32) planningDates.delete(planningDates.keys().next().value!);
  }
  return date;
}

/**
 * A scenario budget is for the whole portfolio, which no chunk sees: after the chunks, the items' curves share it out
 * (domain/inventory/portfolioBudget.ts) and the items it cuts short are planned again within their share.
 */
async function applyBudget(tx: Tx, jobId: string, pipelineId: number, scenarioId: number, settings: MeioSettings): Promise<string | null> {
  const budget = settings.scenario.budget;
  if (budget === null || budget === undefined) return null;
  const planningDate = await planningDateOf(tx, jobId, pipelineId);
  const curves = await groupCurves(tx, pipelineId, scenarioId);
  const allocation = allocateBudget(curves.map((c) => ({ itemId: c.item_id, weeklyDemand: c.weekly_demand, points: c.curve })), budget);
  if (!allocation.caps.size) return `budget ${budget.toFixed(2)} does not bind (the targets need ${allocation.spent.toFixed(2)})`;
  const items = [...allocation.caps.keys()];
  for (let k = 0; k < items.length; k += BUDGET_BATCH) {
    checkpoint({ phase: 'budget', done: k });
    const batch = items.slice(k, k + BUDGET_BATCH);
    const planned = await planItems(tx, pipelineId, planningDate, scenarioId, settings, await streamsOf(tx, scenarioId), batch, await weeklyValuesOfItems(tx, batch), allocation.caps);
    await replaceMeioResults(tx, pipelineId, scenarioId, batch, planned.skus, planned.groups, jobId);
  }
  return `budget ${budget.toFixed(2)} binds: ${items.length} items planned again within their share; portfolio fill rate on the curves ${(100 * allocation.fillRate).toFixed(2)} %`;
}

/**
 * The meio step: per item across its network of sites, the safety-stock placement, the exact policy of every
 * stocking site and the item's service-versus-investment curve (domain/inventory/meio.ts) for the demand streams the
 * scenario switches on (domain/demand/streams.ts), or for a repairable item
 * (failed units coming back along RETURN/REPAIR routes) VARI-METRIC's base stocks and curve; then a scenario budget,
 * if any, shared out over the items. Chunks hold whole items.
 */
export const meioStep: SeriesStepHandler = {
  parameterTypes: [],
  chunkBy: 'item',
  async run(run, series) {
    const pipelineId = run.scope.pipelineId;
    const scenarioId = await scenarioOf(run);
    const settings = (await loadMeioSettings(run.tx, scenarioId))!;
    const itemIds = [...new Set(series.map((s) => s.item_id))];
    const history = new Map(series.map((s) => [s.unique_id, Array.from(s.y)]));
    const planningDate = await planningDateOf(run.tx, run.jobId, pipelineId);
    const planned = await planItems(run.tx, pipelineId, planningDate, scenarioId, settings, await streamsOf(run.tx, scenarioId), itemIds, history, new Map(), (i) => {
      if (i > 0 && i % CHECKPOINT_EVERY === 0) checkpoint({ index: run.index, phase: 'meio', done: i });
    });
    const rows = await replaceMeioResults(run.tx, pipelineId, scenarioId, itemIds, planned.skus, planned.groups, run.jobId);
    const missed = planned.skus.filter((s) => !s.r.meetsTarget).length;
    const repairable = planned.groups.filter((g) => g.g.echelonModel === 'metric').length;
    const metric = repairable ? `, ${repairable} repairable ${repairable === 1 ? 'item' : 'items'} planned with METRIC` : '';
    return { rows, note: `scenario ${scenarioId}: ${itemIds.length} items, ${rows} SKU-sites, ${missed} below target${metric}${planned.cycles.length ? `; skipped ${planned.cycles.join('; ')}` : ''}` };
  },
  async finalize(run) {
    const scenarioId = await scenarioOf(run);
    const dropped = await dropMeioResultsOutside(run.tx, run.scope.pipelineId, scenarioId, run.jobId);
    const settings = (await loadMeioSettings(run.tx, scenarioId))!;
    const budget = await applyBudget(run.tx, run.jobId, run.scope.pipelineId, scenarioId, settings);
    const s = await meioSummary(run.tx, run.scope.pipelineId, scenarioId);
    const fr = s.fill_rate === null ? 'n/a' : `${(100 * s.fill_rate).toFixed(2)} %`;
    return `scenario ${scenarioId}: ${s.sku_sites} SKU-sites, ${s.meeting_target} meet their target, fill rate ${fr}, investment ${s.investment.toFixed(2)}${budget ? `; ${budget}` : ''}${dropped ? `; dropped ${dropped} rows of items out of scope` : ''}`;
  },
};
