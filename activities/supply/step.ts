import { ApplicationFailure } from '@temporalio/common';
import { defaultKcurveScenario } from '../../db/kcurve';
import type { Tx } from '../../db/pool';
import { firmOrdersOfItems, migrateLegacyFirmOrders } from '../../db/firmOrders';
import { salesReturnsOfItems } from '../../db/salesReturns';
import { onHandOfItems, seriesInSegments, supplyRoutes, supplySites, type SupplySiteRow } from '../../db/supplyInputs';
import { resolvePlanningDate } from '../../db/planningDate';
import { activeEdges } from '../../db/supersession';
import { defaultSupplyScenarioId, getSupplyScenario, supplyScenarioSegments, type SupplyScenario } from '../../db/supplyScenarios';
import {
  completeSupplyRun, ensureSupplyRun, freeCapacity, replaceSupplyChunk, storedSupplyChecks, type ChunkResult, type SupplyRunRow,
} from '../../db/supplyRuns';
import { planSupply } from '../../domain/supply/engine';
import { resolveSiteParameters } from '../../domain/supply/lotSizing';
import { DEFAULT_HORIZON, type SupplyItemInput } from '../../domain/supply/types';
import { rollStock, stockSources, supersededItems } from '../../domain/supersession/effects';
import { plannedWeeklyDemand } from '../../domain/demand/streams';
import { extraStreamsOfItems } from '../demand/streams';
import { checkpoint } from '../jobs/activity';
import type { StepRun, SeriesStepHandler } from '../steps/types';

const DAY_MS = 86_400_000;

async function settingsOf(run: Pick<StepRun, 'tx' | 'supplyScenarioId'>) {
  const id = run.supplyScenarioId ?? (await defaultSupplyScenarioId(run.tx));
  const scenario = id === null ? null : await getSupplyScenario(run.tx, id);
  if (!scenario) throw ApplicationFailure.nonRetryable(run.supplyScenarioId ? `supply scenario ${run.supplyScenarioId} not found` : 'no default supply scenario: mark one with PUT /api/supply/scenarios/{id}');
  return { scenario, segmentIds: await supplyScenarioSegments(run.tx, scenario.id) };
}

/** The run's row (first chunk makes it, running the one-time legacy firm-order migration before anything reads firm orders). */
async function runRowOf(run: Pick<StepRun, 'tx' | 'jobId' | 'scope' | 'supplyScenarioId'>): Promise<SupplyRunRow> {
  const s = await settingsOf(run);
  const pipelineId = run.scope.pipelineId;
  const { run: row, created } = await ensureSupplyRun(
    run.tx,
    { run_id: run.jobId, pipeline_id: pipelineId, scenario_id: s.scenario.id, horizon: DEFAULT_HORIZON, flags: { ...s.scenario.flags }, created_by: null },
    async () => (await resolvePlanningDate(run.tx, pipelineId)).date,
  );
  if (created) await migrateLegacyFirmOrders(run.tx);
  return row;
}

/** A forecast stored from another week than the planning date, shifted onto the plan's weeks 0 … horizon − 1. */
function alignedForecast(site: SupplySiteRow, planningDate: string, horizon: number): Float64Array {
  const out = new Float64Array(horizon);
  if (!site.yhat || !site.start_week) return out;
  const shift = Math.round((Date.parse(`${String(site.start_week).slice(0, 10)}T00:00:00Z`) - Date.parse(`${planningDate}T00:00:00Z`)) / (7 * DAY_MS));
  for (let t = 0; t < horizon; t++) {
    const v = site.yhat[t - shift];
    out[t] = v === null || v === undefined || !Number.isFinite(v) ? 0 : Math.max(0, v);
  }
  return out;
}

/** Loads the items' networks and assembles the engine's input, one SupplyItemInput per item. */
async function inputsOf(tx: Tx, run: SupplyRunRow, scenario: SupplyScenario, itemIds: readonly number[], seriesIds: ReadonlySet<string>): Promise<SupplyItemInput[]> {
  const kcurve = await defaultKcurveScenario(tx, run.pipeline_id);
  // which demand the plan covers is the scenario's (docs/SUPPLY.md "Which demand a plan covers")
  const on = { statistical: scenario.demand_statistical, netted: scenario.demand_netted, causal: scenario.demand_causal, maintenance: scenario.demand_maintenance };
  const extra = await extraStreamsOfItems(tx, run.pipeline_id, itemIds, on, run.planning_date, run.horizon);
  const [sites, routes, firm, returns] = await Promise.all([
    supplySites(tx, run.pipeline_id, kcurve?.id ?? null, itemIds),
    supplyRoutes(tx, itemIds),
    firmOrdersOfItems(tx, itemIds),
    salesReturnsOfItems(tx, itemIds, run.planning_date, run.horizon),
  ]);
  // document 2 §4.4 rule 4: items replaced on an active global edge are not sourced, and rollable stock moves on
  const edges = await activeEdges(tx, run.planning_date);
  const superseded = supersededItems(edges);
  const stock = new Map(sites.map((s) => [`${s.item_id}_${s.site_id}`, s.on_hand]));
  const sources = [...stockSources(edges, itemIds)];
  for (const r of await onHandOfItems(tx, sources)) stock.set(`${r.item_id}_${r.site_id}`, r.on_hand);
  const rolled = rollStock(edges, stock);
  const byItem = new Map<number, SupplyItemInput>(itemIds.map((id) => [id, { item_id: id, sites: [], routes: [], firm_orders: [], superseded: superseded.has(id) }]));
  const returnsOf = new Map<string, Float64Array>();
  for (const r of returns) {
    const key = `${r.item_id}_${r.site_id}`;
    const a = returnsOf.get(key) ?? new Float64Array(run.horizon);
    a[r.week] += r.qty;
    returnsOf.set(key, a);
  }
  for (const s of sites) {
    const key = `${s.item_id}_${s.site_id}`;
    const p = resolveSiteParameters({
      master: { safety_stock: s.master_safety_stock, moq: s.moq, order_multiple: s.order_multiple },
      meio: { safety_stock: s.meio_safety_stock, order_qty: s.meio_order_qty },
      eoq: { eoq: s.eoq },
      override: { eoq_override: s.eoq_override },
    });
    // a site with a series outside the scenario's segments is still netted (its network needs it) but plans no own demand
    const forecast = s.has_series && seriesIds.has(key)
      ? plannedWeeklyDemand({
        statistical: alignedForecast(s, run.planning_date, run.horizon), netted: extra.netted.get(key), causal: extra.causal.get(key), maintenance: extra.maintenance.get(key),
      }, on, run.horizon)
      : new Float64Array(run.horizon);
    byItem.get(s.item_id)!.sites.push({
      site_id: s.site_id, series_id: key, forecast, returns: returnsOf.get(key), on_hand: rolled.get(key) ?? s.on_hand, safety_stock: p.safety_stock, lot: p.lot, unit_cost: s.unit_cost,
    });
  }
  for (const it of byItem.values()) {
    it.routes = routes.filter((r) => r.item_id === null || r.item_id === it.item_id);
    it.firm_orders = firm.get(it.item_id) ?? [];
  }
  return [...byItem.values()];
}

/**
 * The supply step (spec §4.8, document 2 §4.2): per item across its network, the 52-week plan of the pure engine
 * (domain/supply/engine.ts) from the demand streams the scenario switches on (the best-method forecast, netted,
 * causal and maintenance demand; domain/demand/streams.ts), stock, firm orders, sales returns and the meio and eoq
 * results. Chunks hold whole items; they share site capacity through supply_capacity_used. The supply scenario's
 * segments, when it has any, narrow the series whose forecast is planned.
 */
export const supplyStep: SeriesStepHandler = {
  parameterTypes: [],
  chunkBy: 'item',
  reads: 'keys',
  async run(run, series) {
    const settings = await settingsOf(run);
    const row = await runRowOf(run);
    const inScope = settings.segmentIds.length
      ? await seriesInSegments(run.tx, series.map((s) => s.unique_id), settings.segmentIds)
      : new Set(series.map((s) => s.unique_id));
    const itemIds = [...new Set(series.filter((s) => inScope.has(s.unique_id)).map((s) => s.item_id))];
    const input = await inputsOf(run.tx, row, settings.scenario, itemIds, inScope);
    checkpoint({ index: run.index, phase: 'plan', items: itemIds.length });
    const capacity = await freeCapacity(run.tx, row.run_id, row.planning_date, row.horizon, itemIds);
    const result = planSupply({
      planning_date: row.planning_date, flags: settings.scenario.flags, items: input, capacity,
      options: { ...settings.scenario.options, horizon: row.horizon },
    });
    const notes: ChunkResult['notes'] = [
      ...result.errors.map((e) => ({ item_id: e.item_id, kind: 'error' as const, message: e.message })),
      ...result.diagnostics.map((d) => ({ item_id: d.item_id, kind: 'diagnostic' as const, message: d.message })),
      ...result.checks.violations.map((v) => ({ item_id: itemIds[0]!, kind: 'violation' as const, message: v })),
    ];
    const orders = await replaceSupplyChunk(run.tx, row, itemIds, {
      orders: result.orders, plans: result.plans, indirect: result.indirect, exceptions: result.exceptions, capacityUsed: result.capacity_used_by_item, notes,
    });
    const short = result.plans.filter((p) => p.shortage_qty > 1e-9).length;
    return {
      rows: orders,
      note: `${itemIds.length} items, ${result.plans.length} SKU-sites, ${orders} orders, ${result.exceptions.length} exceptions, ${short} SKU-sites short` +
        (result.errors.length ? `; not planned: ${result.errors.map((e) => `item ${e.item_id}: ${e.message}`).join('; ')}` : ''),
    };
  },
  async finalize(run) {
    const row = await runRowOf(run);
    const checks = await storedSupplyChecks(run.tx, row.run_id);
    const kpis = await completeSupplyRun(run.tx, row.run_id, checks);
    if (!checks.ok) throw ApplicationFailure.nonRetryable(`supply run ${row.run_id} failed its checks: ${JSON.stringify(checks)}`);
    const fr = kpis.projected_fill_rate === null ? 'n/a' : `${(100 * (kpis.projected_fill_rate as number)).toFixed(2)} %`;
    return `run ${row.run_id} from ${row.planning_date}: ${kpis.n_orders} orders, ${kpis.n_exceptions} exceptions, projected fill rate ${fr}, ` +
      `shortage ${(kpis.shortage_qty as number).toFixed(2)}; checks ok (conservation residual ${checks.max_conservation_residual.toExponential(1)}, pegging ${checks.max_pegging_residual.toExponential(1)})`;
  },
};
