/**
 * The meio step's planner for one item across its network of sites: where to hold safety stock (the guaranteed-
 * service model when stock flows through more than one stocking site), the exact single-echelon policy at every
 * stocking site over the replenishment time it must cover (its own target at every demand site), and the greedy
 * service-versus-investment curve of the item's demand sites, on which a budget too small for those targets is spent.
 *
 * Demand at a site feeds the site that supplies it (its preferred inbound supply route), so an internal site sees the
 * pooled demand of everything below it (means and variances add: sites' demands are taken as independent).
 *
 * An item whose failed units come back (a demand site with a RETURN or REPAIR route that leads back into its supply
 * chain, repairLoops.ts) is a repairable: its spares circulate instead of being consumed, so it is planned with
 * VARI-METRIC instead (metricTree.ts): one-for-one base stock at every stocking site, Sherbrooke's curve of
 * investment against the customers' expected backorders, and its first point that meets the group target.
 */
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import { discreteDistribution, negativeBinomialPmf, poissonPmf } from './discrete';
import { eoqConstrained } from './eoq';
import { solveGsm, type GsmStage } from './gsm';
import { leadTimeDemand, normalDistribution, periodMoments, type DemandDistribution, type LeadTimeDemand } from './leadTimeDemand';
import { levelsAt, pickByBudget, traceCurve, type CurvePoint, type MarginalSku } from './marginalAnalysis';
import type { MetricMethod } from './metric';
import { evaluateMetricTree, metricTreeCurve, type MetricStream, type MetricTree, type MetricTreeOptions } from './metricTree';
import { buildRouteGraph, detectCycle, formatCycle, SUPPLY_ROUTE_TYPES, topologicalOrder } from './network';
import { preferredReverseRoutes, repairLoop, type RepairLoop } from './repairLoops';
import { dependentVarianceFactor } from './serialDependence';
import { evaluatePeriodic, levelForPeriodicCycleService, levelForPeriodicFillRate, lowestPosition, periodicFillRate, type PeriodicDemand } from './periodicReview';
import type { Policy, ServiceType } from './serviceTargets';


export interface SiteTarget {
  service_type: ServiceType;
  target_service: number;
  /** annual holding cost as a fraction of unit cost */
  holding_rate: number;
  ordering_cost: number;
  policy: Policy;
  review_period_weeks: number;
  /** where the target came from: scenario, segment:<id>, parameter_set:<id>, override */
  source: string;
}

export interface MeioSite {
  siteId: number;
  /** weekly demand at the site itself; null when it has no series or no fitted distribution */
  demand: DemandDistribution | null;
  /**
   * the lag-1, 2, … autocorrelations of its weekly demand (serialDependence.ts): weeks that move together widen the
   * demand over a protection interval beyond k weekly spreads; absent or empty for independent weeks
   */
  autocorrelation?: readonly number[] | null;
  hasSeries: boolean;
  unitCost: number;
  /** item-site master lead time, used when no supply route leads into the site */
  masterLeadTime: number | null;
  moq: number;
  orderMultiple: number;
  target: SiteTarget;
  eoqOverride?: number | null;
}

export interface MeioRoute {
  from: number;
  to: number;
  type: string;
  leadTime: number;
  priority: number;
}

export interface MeioOptions {
  /** money available for the item's demand sites; the curve point within it is taken when it binds first */
  budget?: number | null;
  /** the greedy walks until this much above the target to draw the curve's upper end (default 0.005) */
  curveHeadroom?: number;
  /** how a repairable item's pipelines are modelled (default vari-metric) */
  metricMethod?: MetricMethod;
  /** how far the METRIC search goes on large pipelines (metricTree.ts defaults) */
  metricSearch?: Omit<MetricTreeOptions, 'method'>;
}

export type DiagnosticCode = 'no_distribution' | 'no_route' | 'no_unit_cost' | 'budget' | 'long_lead_time' | 'group_allocation' | 'pass_through';

export interface Diagnostic {
  code: DiagnosticCode;
  detail: string;
}

/** single: one stocking site; gsm: safety stock placed by the guaranteed-service model; metric: a repairable item (VARI-METRIC) */
export type EchelonModel = 'single' | 'gsm' | 'metric';

export interface CurvePointOut {
  investment: number;
  fill_rate: number;
  /** the customers' expected backorders at the point (METRIC curves) */
  expected_backorders?: number;
}

export interface MeioSkuResult {
  siteId: number;
  policy: Policy;
  serviceType: ServiceType;
  targetService: number;
  targetSource: string;
  echelonModel: EchelonModel;
  distributionType: string | null;
  weeklyMean: number | null;
  weeklyStd: number | null;
  leadTimeWeeks: number | null;
  netLeadTimeWeeks: number | null;
  reviewPeriodWeeks: number;
  ltdMean: number | null;
  ltdStd: number | null;
  orderQty: number | null;
  reorderPoint: number | null;
  orderUpTo: number | null;
  safetyStock: number | null;
  expectedFillRate: number | null;
  expectedCsl: number | null;
  expectedBackorders: number | null;
  expectedOnHand: number | null;
  unitCost: number;
  investment: number | null;
  meetsTarget: boolean;
  diagnostics: Diagnostic[];
}

export interface MeioGroupResult {
  nSkus: number;
  targetService: number | null;
  expectedFillRate: number | null;
  investment: number;
  meetsTarget: boolean;
  curve: CurvePointOut[];
  /**
   * the chosen point's investment on the curve (the demand sites' stock; for METRIC every site's spares), what a
   * portfolio budget is shared out in
   */
  curveInvestment: number | null;
  /** mean weekly demand of the demand sites on the curve: the weight of the item's fill rate in a portfolio */
  weeklyDemand: number;
  echelonModel: EchelonModel;
  /** METRIC: units owed to the item's customers at the chosen point, what its curve trades against investment */
  expectedBackorders: number | null;
}

export class NetworkCycleError extends Error {}

const WEEKS_PER_YEAR = 52;
/** lead times beyond this many weeks are flagged: a target met over years of cover is a data problem, not a plan */
const LONG_LEAD_TIME = 52;
const CURVE_POINTS = 40;

/** Preferred inbound supply route of each site: lowest priority number, then shortest lead time, then lowest source id. */
function inboundRoutes(routes: readonly MeioRoute[]): Map<number, MeioRoute> {
  const best = new Map<number, MeioRoute>();
  for (const r of routes) {
    if (!SUPPLY_ROUTE_TYPES.includes(r.type) || r.from === r.to) continue;
    const b = best.get(r.to);
    if (!b || r.priority < b.priority || (r.priority === b.priority && (r.leadTime < b.leadTime || (r.leadTime === b.leadTime && r.from < b.from)))) best.set(r.to, r);
  }
  return best;
}

/** One site's weekly demand as it feeds a stocking site, with the autocorrelations of its weeks. */
interface DemandPart {
  demand: DemandDistribution;
  autocorrelation: readonly number[];
}

/**
 * Demand over a replenishment time: exact for a site's own demand with independent weeks; for pooled demand, or
 * weeks that move together (serialDependence.ts), a distribution matched on the first two moments in the family that
 * keeps its nature (Poisson when the variance is the mean's and every part counts, negative binomial for
 * over-dispersed counts, else normal).
 */
function demandOver(parts: readonly DemandPart[], weeks: number): LeadTimeDemand {
  const factors = parts.map((p) => dependentVarianceFactor(p.autocorrelation, weeks));
  if (parts.length === 1 && factors[0] === 1) return leadTimeDemand(parts[0].demand, weeks);
  let mean = 0, variance = 0;
  parts.forEach((p, i) => {
    const m = periodMoments(p.demand);
    mean += m.mean;
    variance += m.variance * factors[i];
  });
  mean *= weeks;
  variance *= weeks;
  if (mean <= 0) return discreteDistribution([1]);
  const counts = parts.every((p) => p.demand.type === 'poisson' || p.demand.type === 'negative_binomial' || p.demand.type === 'empirical');
  if (counts && parts.every((p, i) => p.demand.type === 'poisson' && factors[i] <= 1)) return discreteDistribution(poissonPmf(mean), { mean, variance: mean });
  if (counts && variance > mean) {
    return discreteDistribution(negativeBinomialPmf((mean * mean) / (variance - mean), mean / variance), { mean, variance });
  }
  return normalDistribution(mean, Math.sqrt(Math.max(variance, 1e-12)));
}

function orderQuantity(site: MeioSite, weeklyMean: number, discrete: boolean, diagnostics: Diagnostic[]): number {
  if (site.eoqOverride && site.eoqOverride > 0) return discrete ? Math.max(1, Math.round(site.eoqOverride)) : site.eoqOverride;
  const annual = weeklyMean * WEEKS_PER_YEAR;
  const h = site.target.holding_rate * site.unitCost;
  let q: number;
  if (annual <= 0) q = 1;
  else if (!(h > 0) || !(site.target.ordering_cost > 0)) {
    // without a holding or ordering cost the EOQ is undefined: order four weeks of demand
    if (!(site.unitCost > 0)) diagnostics.push({ code: 'no_unit_cost', detail: 'no unit cost: order quantity set to four weeks of demand and investment is zero' });
    q = Math.max(1, weeklyMean * 4);
  } else {
    const multiple = site.orderMultiple > 0 ? site.orderMultiple : undefined;
    q = eoqConstrained(site.target.ordering_cost, h, annual, { min: site.moq > 0 ? site.moq : undefined, multiple: discrete ? Math.max(1, multiple ?? 1) : multiple }).orderQuantity;
  }
  return discrete ? Math.max(1, Math.round(q)) : Math.max(q, 1e-9);
}

interface Stocked {
  site: MeioSite;
  parts: DemandPart[];
  leadTime: number;
  upstream: number | null;
}

/** Plans one item across its network. Throws NetworkCycleError when the supply routes close a cycle. */
export function planItemNetwork(sites: readonly MeioSite[], routes: readonly MeioRoute[], options: MeioOptions = {}): { skus: MeioSkuResult[]; group: MeioGroupResult } {
  const byId = new Map(sites.map((s) => [s.siteId, s]));
  const supply = routes.filter((r) => SUPPLY_ROUTE_TYPES.includes(r.type) && byId.has(r.from) && byId.has(r.to));
  const graph = buildRouteGraph(supply, sites.map((s) => s.siteId));
  const cycle = detectCycle(graph);
  if (cycle) throw new NetworkCycleError(formatCycle(cycle));
  const inbound = inboundRoutes(supply);
  const order = topologicalOrder(buildRouteGraph([...inbound.values()], sites.map((s) => s.siteId)))!;

  // pooled demand, pushed from the bottom of the tree of preferred routes to the top
  const pooled = new Map<number, DemandPart[]>(sites.map((s) => [s.siteId, s.demand ? [{ demand: s.demand, autocorrelation: s.autocorrelation ?? [] }] : []]));
  for (const id of [...order].reverse()) {
    const up = inbound.get(id)?.from;
    if (up !== undefined) pooled.get(up)!.push(...pooled.get(id)!);
  }

  const diagnostics = new Map<number, Diagnostic[]>(sites.map((s) => [s.siteId, []]));
  const stocked: Stocked[] = [];
  for (const id of order) {
    const site = byId.get(id)!;
    const parts = pooled.get(id)!;
    const route = inbound.get(id);
    const own = diagnostics.get(id)!;
    if (site.hasSeries && !site.demand) own.push({ code: 'no_distribution', detail: 'no fitted demand distribution for this pipeline: run the distribution step' });
    if (!parts.length) continue;
    const leadTime = route ? route.leadTime : site.masterLeadTime;
    if (leadTime === null || leadTime === undefined) {
      // a source without a lead time and without demand of its own is an outside supplier, not a stocking site
      if (site.hasSeries) own.push({ code: 'no_route', detail: 'no supply route leads into this site and the item-site has no lead time' });
      continue;
    }
    if (leadTime > LONG_LEAD_TIME) own.push({ code: 'long_lead_time', detail: `lead time of ${leadTime} weeks` });
    stocked.push({ site, parts, leadTime, upstream: route ? route.from : null });
  }

  const stockedIds = new Set(stocked.map((s) => s.site.siteId));
  const reverse = preferredReverseRoutes(routes.filter((r) => byId.has(r.from) && byId.has(r.to)));
  if (reverse.size) {
    const loops = new Map<number, RepairLoop | null>();
    for (const s of stocked) if (ownRate(s.site) > 0) loops.set(s.site.siteId, repairLoop(s.site.siteId, reverse, inbound, supply, stockedIds));
    if ([...loops.values()].some(Boolean)) {
      const planned = planRepairable(stocked, loops, diagnostics, options);
      return finish(sites, planned.skus, planned.group, diagnostics, 'metric');
    }
  }

  // safety-stock placement: GSM decides the net lead time each stocking site covers when stock passes through several
  const arcs = stocked.filter((s) => s.upstream !== null && stockedIds.has(s.upstream)).map((s) => ({ from: s.upstream!, to: s.site.siteId }));
  const netLeadTime = new Map<number, number>(stocked.map((s) => [s.site.siteId, s.leadTime]));
  const multiEchelon = arcs.length > 0;
  if (multiEchelon) {
    const stages: GsmStage[] = stocked.map((s) => {
      const own = s.site.demand ? periodMoments(s.site.demand) : { mean: 0, variance: 0 };
      return {
        id: s.site.siteId,
        processingTime: Math.max(0, Math.round(s.leadTime)),
        holdingCost: Math.max(s.site.target.holding_rate * s.site.unitCost, 1e-9),
        demandStd: Math.sqrt(own.variance),
        demandMean: own.mean,
        maxServiceTime: s.site.hasSeries ? 0 : undefined,
        safetyFactor: normalQuantile(s.site.target.target_service, 0, 1),
      };
    });
    const solution = solveGsm({ stages, arcs });
    for (const st of solution.stages) {
      const s = stocked.find((x) => x.site.siteId === st.id)!;
      // GSM works in whole weeks; keep the fractional part of the real lead time where the site covers it all
      netLeadTime.set(st.id, st.netLeadTime === Math.round(s.leadTime) ? s.leadTime : st.netLeadTime);
      if (st.netLeadTime === 0) diagnostics.get(st.id)!.push({ code: 'pass_through', detail: 'the guaranteed-service model holds no safety stock here: downstream sites cover the lead time' });
    }
  }

  interface Planned { s: Stocked; demand: PeriodicDemand; cover: LeadTimeDemand; Q: number; window: number; level: number; weeklyMean: number; weeklyStd: number; review: number }
  const planned: Planned[] = [];
  for (const s of stocked) {
    const t = s.site.target;
    // weekly buckets: an (r,Q) position is looked at once a week, a one-week review; reviews fall on whole weeks
    const review = t.policy === 'rQ' ? 1 : Math.max(1, Math.round(t.review_period_weeks));
    const lead = netLeadTime.get(s.site.siteId)!;
    const ends = Array.from({ length: review }, (_, k) => demandOver(s.parts, lead + k + 1));
    const cover = ends[review - 1];
    const weekly = demandOver(s.parts, 1);
    const discrete = cover.kind === 'discrete';
    const demand: PeriodicDemand = { lead: demandOver(s.parts, lead), ends, periodMean: weekly.mean };
    const isBase = t.policy === 'base_stock';
    const Q = isBase
      ? Math.max(discrete ? 1 : 1e-9, discrete ? Math.round(weekly.mean * review) || 1 : weekly.mean * review)
      : orderQuantity(s.site, weekly.mean, discrete, diagnostics.get(s.site.siteId)!);
    // base stock lifts the position to S itself (r = S − 1 on the integers); (r,Q) and (s,S) into the Q levels above r
    const window = isBase ? (discrete ? 1 : 0) : Q;
    const level = t.service_type === 'fill_rate' ? levelForPeriodicFillRate(demand, window, t.target_service) : levelForPeriodicCycleService(demand, t.target_service);
    planned.push({ s, demand, cover, Q, window, level, weeklyMean: weekly.mean, weeklyStd: Math.sqrt(weekly.variance), review });
  }

  // the group: the item's demand sites, scored by demand-weighted service; the greedy buys the cheapest service first
  const demandSites = planned.filter((p) => p.s.site.hasSeries && p.s.site.demand && p.weeklyMean > 0 && p.cover.kind === 'discrete');
  const weightTotal = demandSites.reduce((n, p) => n + periodMoments(p.s.site.demand!).mean, 0);
  const echelonModel: EchelonModel = multiEchelon ? 'gsm' : 'single';
  let group: MeioGroupResult = {
    nSkus: planned.length, targetService: null, expectedFillRate: null, investment: 0, meetsTarget: true, curve: [], curveInvestment: null, weeklyDemand: 0,
    echelonModel, expectedBackorders: null,
  };
  if (demandSites.length > 0 && weightTotal > 0) {
    const weights = demandSites.map((p) => periodMoments(p.s.site.demand!).mean / weightTotal);
    const serviceOf = (p: Planned, r: number) => (p.s.site.target.service_type === 'fill_rate' ? periodicFillRate(p.demand, r, p.window) : p.cover.cdf(lowestPosition(p.cover, r)));
    const target = demandSites.reduce((n, p, i) => n + weights[i] * p.s.site.target.target_service, 0);
    // overrides are promises to one SKU-site: the greedy starts them at their own target, never below
    // below these levels a unit buys (next to) no service, which would stall the greedy on zero gains: the start is
    // the last level before the lead-time demand's support begins (its 1e-9 quantile), Q positions lower for fill rate
    const floors = demandSites.map((p) => {
      if (p.s.site.target.source === 'override') return p.level;
      const low = p.cover.quantile(1e-9) - 1;
      return Math.min(p.level, p.s.site.target.service_type === 'fill_rate' ? low - Math.max(1, p.window) + 1 : low);
    });
    const costOf = (p: Planned, r: number) => Math.max(p.s.site.unitCost, 1e-9) * evaluatePeriodic(p.demand, r, p.window).expectedOnHand;
    const skus: MarginalSku[] = demandSites.map((p, i) => ({
      unitCost: Math.max(p.s.site.unitCost, 1e-9),
      levelCost: (r: number) => costOf(p, r),
      score: (r: number) => weights[i] * serviceOf(p, r),
      minLevel: floors[i],
      maxLevel: Math.max(floors[i], p.level + Math.ceil(4 * Math.sqrt(p.cover.variance)) + 2),
    }));
    // every SKU-site's own target binds: it is a promise to that site's customers, and the item's demand-weighted
    // target met more cheaply by leaving its small sites below theirs (as the greedy alone would) broke it for them
    // (docs/SERVICE_BACKTEST.md). The greedy's curve decides where a budget too small for that puts its money.
    const own = demandSites.map((p) => p.level);
    let pick: Pick<CurvePoint, 'index' | 'investment' | 'score'> = {
      index: -1, investment: demandSites.reduce((n, p, i) => n + costOf(p, own[i]), 0), score: demandSites.reduce((n, p, i) => n + weights[i] * serviceOf(p, own[i]), 0),
    };
    const headroom = options.curveHeadroom ?? 0.005;
    const curve = traceCurve(skus, { lookahead: 8, stopAtScore: Math.min(0.999999, Math.max(target, pick.score) + headroom) });
    let budgetBinds = false;
    if (options.budget != null && pick.investment > options.budget + 1e-9) {
      const within = pickByBudget(curve, options.budget);
      if (within) {
        pick = within;
        budgetBinds = true;
      }
    }
    if (budgetBinds) {
      const levels = levelsAt(curve, pick.index);
      demandSites.forEach((p, i) => {
        p.level = levels[i];
        diagnostics.get(p.s.site.siteId)!.push({ code: 'budget', detail: `the budget of ${options.budget} stops the optimiser at ${pick.investment.toFixed(2)}` });
      });
    }
    const step = Math.max(1, Math.floor(curve.length / CURVE_POINTS));
    const points: Array<{ investment: number; fill_rate: number }> = [];
    for (let k = 0; k < curve.length; k += step) points.push({ investment: curve.investment[k], fill_rate: curve.score[k] });
    if ((curve.length - 1) % step !== 0) points.push({ investment: curve.investment[curve.length - 1], fill_rate: curve.score[curve.length - 1] });
    group = {
      nSkus: planned.length, targetService: target, expectedFillRate: pick.score, investment: 0, meetsTarget: pick.score + 1e-9 >= target, curve: points,
      curveInvestment: pick.investment, weeklyDemand: weightTotal, echelonModel, expectedBackorders: null,
    };
  }

  const results: MeioSkuResult[] = [];
  for (const p of planned) {
    const t = p.s.site.target;
    const e = evaluatePeriodic(p.demand, p.level, p.window);
    const achieved = t.service_type === 'fill_rate' ? e.fillRate : e.cycleServiceLevel;
    const orderUpTo = p.level + p.window;
    const unitCost = p.s.site.unitCost;
    results.push({
      siteId: p.s.site.siteId, policy: t.policy, serviceType: t.service_type, targetService: t.target_service, targetSource: t.source,
      echelonModel,
      distributionType: p.s.parts.length === 1 ? p.s.parts[0].demand.type : 'pooled',
      weeklyMean: p.weeklyMean, weeklyStd: p.weeklyStd,
      leadTimeWeeks: p.s.leadTime, netLeadTimeWeeks: netLeadTime.get(p.s.site.siteId)!, reviewPeriodWeeks: p.review,
      ltdMean: p.cover.mean, ltdStd: Math.sqrt(p.cover.variance),
      orderQty: p.Q,
      reorderPoint: p.level,
      orderUpTo,
      // textbook: the reorder point (order-up-to level for base stock) less the protection interval's mean demand
      safetyStock: (t.policy === 'base_stock' ? orderUpTo : p.level) - p.cover.mean,
      expectedFillRate: e.fillRate, expectedCsl: e.cycleServiceLevel, expectedBackorders: e.expectedBackorders, expectedOnHand: e.expectedOnHand,
      unitCost, investment: unitCost * e.expectedOnHand,
      meetsTarget: achieved + 1e-9 >= t.target_service,
      diagnostics: diagnostics.get(p.s.site.siteId)!,
    });
  }
  return finish(sites, results, group, diagnostics, echelonModel);
}

/** Rows for the sites that could not be planned, the order of the rows and the group's totals. */
function finish(sites: readonly MeioSite[], results: MeioSkuResult[], group: MeioGroupResult, diagnostics: Map<number, Diagnostic[]>, echelonModel: EchelonModel): { skus: MeioSkuResult[]; group: MeioGroupResult } {
  const planned = new Set(results.map((r) => r.siteId));
  // sites with demand that could not be planned still get a row that says why
  for (const s of sites) {
    if (planned.has(s.siteId)) continue;
    const d = diagnostics.get(s.siteId)!;
    if (!s.hasSeries && !d.length) continue;
    const m = s.demand ? periodMoments(s.demand) : null;
    results.push({
      siteId: s.siteId, policy: s.target.policy, serviceType: s.target.service_type, targetService: s.target.target_service, targetSource: s.target.source,
      echelonModel, distributionType: s.demand?.type ?? null, weeklyMean: m?.mean ?? null, weeklyStd: m ? Math.sqrt(m.variance) : null,
      leadTimeWeeks: s.masterLeadTime, netLeadTimeWeeks: null, reviewPeriodWeeks: s.target.review_period_weeks, ltdMean: null, ltdStd: null,
      orderQty: null, reorderPoint: null, orderUpTo: null, safetyStock: null, expectedFillRate: null, expectedCsl: null, expectedBackorders: null,
      expectedOnHand: null, unitCost: s.unitCost, investment: null, meetsTarget: false, diagnostics: d,
    });
  }
  results.sort((a, b) => a.siteId - b.siteId);
  group.investment = results.reduce((n, r) => n + (r.investment ?? 0), 0);
  if (group.expectedFillRate === null) {
    const rated = results.filter((r) => r.expectedFillRate !== null && r.weeklyMean);
    const w = rated.reduce((n, r) => n + r.weeklyMean!, 0);
    group.expectedFillRate = w > 0 ? rated.reduce((n, r) => n + r.expectedFillRate! * r.weeklyMean!, 0) / w : null;
    group.targetService = w > 0 ? rated.reduce((n, r) => n + r.targetService * r.weeklyMean!, 0) / w : null;
    group.meetsTarget = results.every((r) => r.meetsTarget || !r.weeklyMean);
  }
  return { skus: results, group };
}

/** Failures per week at the site itself: the mean of its own fitted demand (METRIC takes them as Poisson). */
function ownRate(site: MeioSite): number {
  return site.hasSeries && site.demand ? periodMoments(site.demand).mean : 0;
}

/**
 * A repairable item: the stocking sites form METRIC's tree (each under the stocking site that supplies it), every
 * demand site's failures are one stream that lands where its repair loop brings the unit back (or, without a loop,
 * at the root, bought anew over the root's lead time), and the point of Sherbrooke's curve that first meets the
 * demand-weighted target (or the last within the budget) gives every site its base stock.
 */
function planRepairable(stocked: readonly Stocked[], loops: ReadonlyMap<number, RepairLoop | null>, diagnostics: Map<number, Diagnostic[]>, options: MeioOptions): { skus: MeioSkuResult[]; group: MeioGroupResult } {
  const method = options.metricMethod ?? 'vari-metric';
  const index = new Map(stocked.map((s, i) => [s.site.siteId, i]));
  const tree: MetricTree = {
    nodes: stocked.map((s) => ({
      parent: s.upstream !== null && index.has(s.upstream) ? index.get(s.upstream)! : null,
      unitCost: s.site.unitCost,
      transitTime: s.leadTime,
      minFillRate: s.site.target.source === 'override' ? s.site.target.target_service : null,
    })),
    streams: [],
  };
  const rootOf = (i: number): number => {
    for (let p = tree.nodes[i].parent; p !== null; p = tree.nodes[i].parent) i = p;
    return i;
  };
  const streams: MetricStream[] = [];
  stocked.forEach((s, i) => {
    const rate = ownRate(s.site);
    if (!(rate > 0)) return;
    const loop = loops.get(s.site.siteId);
    const root = rootOf(i);
    const varianceToMean = periodMoments(s.site.demand!).variance / rate;
    streams.push(loop ? { origin: i, landing: index.get(loop.landing)!, rate, time: loop.time, varianceToMean } : { origin: i, landing: root, rate, time: stocked[root].leadTime, varianceToMean });
  });
  tree.streams = streams;

  const weightTotal = streams.reduce((n, x) => n + x.rate, 0);
  const target = streams.reduce((n, x) => n + (x.rate / weightTotal) * stocked[x.origin].site.target.target_service, 0);
  const curve = metricTreeCurve(tree, { ...options.metricSearch, method });
  let pick = curve.length - 1;
  for (let k = 0; k < curve.length; k++) {
    if (curve.fillRate[k] + 1e-12 >= target) {
      pick = k;
      break;
    }
  }
  let budgetBinds = false;
  if (options.budget != null) {
    let within = -1;
    for (let k = 0; k < curve.length && curve.investment[k] <= options.budget + 1e-9; k++) within = k;
    if (within >= 0 && within < pick) {
      pick = within;
      budgetBinds = true;
    }
  }
  const levels = curve.levelsAt(pick);
  const ev = evaluateMetricTree(tree, levels, method);

  const skus = stocked.map((s, i): MeioSkuResult => {
    const t = s.site.target;
    const st = ev.nodes[i];
    const S = levels[i];
    const own = diagnostics.get(s.site.siteId)!;
    if (!(s.site.unitCost > 0)) own.push({ code: 'no_unit_cost', detail: 'no unit cost: its spares cost the optimiser nothing, so it stocks them fully, and the investment is zero' });
    if (st.ownRate > 0) {
      if (budgetBinds) own.push({ code: 'budget', detail: `the budget of ${options.budget} stops the optimiser at ${curve.investment[pick].toFixed(2)}` });
      else if (st.fillRate + 1e-9 < t.target_service) own.push({ code: 'group_allocation', detail: `below its own target: the group target ${target.toFixed(4)} is met more cheaply by stock at other sites` });
    }
    return {
      siteId: s.site.siteId, policy: 'base_stock', serviceType: t.service_type, targetService: t.target_service, targetSource: t.source,
      echelonModel: 'metric',
      distributionType: st.lambda > st.ownRate + 1e-12 ? 'pooled' : s.site.demand?.type ?? null,
      weeklyMean: st.lambda, weeklyStd: Math.sqrt(method === 'metric' ? st.lambda : st.demandVariance),
      leadTimeWeeks: s.leadTime, netLeadTimeWeeks: st.lambda > 0 ? st.pipeline.mean / st.lambda : 0, reviewPeriodWeeks: 0,
      ltdMean: st.pipeline.mean, ltdStd: Math.sqrt(st.pipeline.variance),
      orderQty: 1, reorderPoint: S - 1, orderUpTo: S, safetyStock: S - st.pipeline.mean,
      expectedFillRate: st.fillRate, expectedCsl: st.fillRate, expectedBackorders: st.ebo, expectedOnHand: S - st.pipeline.mean + st.ebo,
      unitCost: s.site.unitCost, investment: s.site.unitCost * S,
      // a site without customers of its own serves only the sites below it, whose service the target is about
      meetsTarget: st.ownRate > 0 ? st.fillRate + 1e-9 >= t.target_service : true,
      diagnostics: own,
    };
  });

  const headroom = options.curveHeadroom ?? 0.005;
  let end = curve.length - 1;
  for (let k = 0; k < curve.length; k++) {
    if (curve.fillRate[k] >= Math.min(0.999999, target + headroom)) {
      end = Math.max(k, pick);
      break;
    }
  }
  const step = Math.max(1, Math.floor((end + 1) / CURVE_POINTS));
  const points: CurvePointOut[] = [];
  const point = (k: number) => ({ investment: curve.investment[k], fill_rate: curve.fillRate[k], expected_backorders: curve.ebo[k] });
  for (let k = 0; k <= end; k += step) {
    // the chosen point is always on the stored curve, where a planner looks for it
    if (pick < k && pick > k - step) points.push(point(pick));
    points.push(point(k));
  }
  if (end % step !== 0) {
    if (pick > end - (end % step)) points.push(point(pick));
    if (pick !== end) points.push(point(end));
  }
  const fill = ev.fillRate ?? 0;
  return {
    skus,
    group: {
      nSkus: stocked.length, targetService: target, expectedFillRate: fill, investment: 0, meetsTarget: fill + 1e-9 >= target, curve: points,
      curveInvestment: curve.investment[pick], weeklyDemand: weightTotal, echelonModel: 'metric', expectedBackorders: ev.totalEbo,
    },
  };
}
