/**
 * One function per model: a validated instance (scripts/inventory/schemas.ts) in, the policy and its cost out, through
 * the same domain/inventory functions the meio step and the benchmark call. Checks that a schema cannot express
 * (a discrete demand for (s,S), a budget or a target for METRIC) throw InputError naming the field.
 */
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import { periodicBaseStock } from '../../domain/inventory/baseStock';
import { optimizeSerialBaseStock, type PeriodDemand } from '../../domain/inventory/clarkScarf';
import { eoq, eoqConstrained, eoqWithBackorders } from '../../domain/inventory/eoq';
import { solveGsm, type GsmStage } from '../../domain/inventory/gsm';
import { isDiscreteDemand, leadTimeDemand, periodMoments, type DemandDistribution, type LeadTime, type LeadTimeDemand } from '../../domain/inventory/leadTimeDemand';
import { planItemNetwork, type MeioSite, type SiteTarget } from '../../domain/inventory/meio';
import { evaluateMetric, metricItemCurve, type MetricBase, type MetricMethod } from '../../domain/inventory/metric';
import {
  evaluateRQ,
  optimalReorderPointForQ,
  optimalRQContinuous,
  optimalRQDiscrete,
  reorderPointForCycleService,
  reorderPointForFillRate,
  rqCost,
  type ContinuousRQMethod,
} from '../../domain/inventory/rq';
import { optimalSS } from '../../domain/inventory/sS';
import { wagnerWhitin } from '../../domain/inventory/wagnerWhitin';
import type { ModelName } from './schemas';
import { InputError } from './validate';

type Json = Record<string, unknown>;
type LeadTimeInput = number | { mean: number; sd: number } | { pmf: Array<{ lead_time: number; probability: number }> };

function leadTimeOf(input: LeadTimeInput): LeadTime {
  if (typeof input === 'number') return input;
  if ('pmf' in input) return { pmf: input.pmf.map((e) => ({ leadTime: e.lead_time, probability: e.probability })) };
  return input;
}

/** meio_results columns are snake_case; the engines' results are camelCase. */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeKeys(v)]));
}

function ltdSummary(ltd: LeadTimeDemand): Json {
  return { kind: ltd.kind, mean: ltd.mean, sd: Math.sqrt(ltd.variance) };
}

// ------------------------------------------------------------------------------------------------------------ eoq

interface EoqInput {
  fixed_cost: number;
  holding_cost: number;
  demand_rate: number;
  stockout_cost?: number;
  min_quantity?: number;
  max_quantity?: number;
  order_multiple?: number;
}

function runEoq(x: EoqInput): Json {
  const constrained = x.min_quantity !== undefined || x.max_quantity !== undefined || x.order_multiple !== undefined;
  if (constrained && x.stockout_cost !== undefined) throw new InputError('eoq: stockout_cost (planned backorders) cannot be combined with min_quantity, max_quantity or order_multiple');
  if (x.stockout_cost !== undefined) {
    const r = eoqWithBackorders(x.fixed_cost, x.holding_cost, x.stockout_cost, x.demand_rate);
    return {
      model: 'eoq',
      variant: 'planned_backorders',
      policy: { order_quantity: r.orderQuantity, cycle_time: r.cycleTime, orders_per_time: r.ordersPerTime, stockout_fraction: r.stockoutFraction, max_backorder: r.maxBackorder },
      cost: r.cost,
    };
  }
  if (constrained) {
    const r = eoqConstrained(x.fixed_cost, x.holding_cost, x.demand_rate, { min: x.min_quantity, max: x.max_quantity, multiple: x.order_multiple });
    return {
      model: 'eoq',
      variant: 'constrained',
      policy: { order_quantity: r.orderQuantity, cycle_time: r.cycleTime, orders_per_time: r.ordersPerTime, unconstrained_quantity: r.unconstrainedQuantity, binding: r.binding },
      cost: r.cost,
    };
  }
  const r = eoq(x.fixed_cost, x.holding_cost, x.demand_rate);
  return { model: 'eoq', variant: 'classic', policy: { order_quantity: r.orderQuantity, cycle_time: r.cycleTime, orders_per_time: r.ordersPerTime }, cost: r.cost };
}

// ---------------------------------------------------------------------------------------------------- wagner-whitin

interface WagnerWhitinInput {
  demands: number[];
  setup_cost: number | number[];
  holding_cost: number | number[];
}

function runWagnerWhitin(x: WagnerWhitinInput): Json {
  for (const field of ['setup_cost', 'holding_cost'] as const) {
    const v = x[field];
    if (Array.isArray(v) && v.length !== x.demands.length) throw new InputError(`wagner-whitin: ${field} has ${v.length} values, demands has ${x.demands.length} periods (give one value, or one per period)`);
  }
  const plan = wagnerWhitin(x.demands, x.setup_cost, x.holding_cost);
  return {
    model: 'wagner-whitin',
    policy: { orders: plan.orders, order_quantities: plan.orderQuantities },
    cost: plan.total_cost,
    setup_cost: plan.setup_cost,
    holding_cost: plan.holding_cost,
    n_orders: plan.n_orders,
    avg_lot_size: plan.avg_lot_size,
  };
}

// ------------------------------------------------------------------------------------------------------------- rq

interface RqInput {
  demand: DemandDistribution;
  lead_time: LeadTimeInput;
  holding_cost: number;
  fixed_cost: number;
  stockout_cost?: number;
  service?: { type: 'fill_rate' | 'cycle_service'; target: number };
  order_quantity?: number;
  method?: ContinuousRQMethod;
  unit_cost?: number;
}

function runRq(x: RqInput): Json {
  const ltd = leadTimeDemand(x.demand, leadTimeOf(x.lead_time));
  const demandRate = periodMoments(x.demand).mean;
  if (!(demandRate > 0)) throw new InputError('rq: demand must have a positive mean');
  const discrete = ltd.kind === 'discrete';
  if (x.method !== undefined && discrete) throw new InputError(`rq: method applies to continuous demand only (demand.type ${x.demand.type} is optimised exactly by Federgruen-Zheng)`);
  if (x.order_quantity !== undefined && discrete && !Number.isInteger(x.order_quantity)) throw new InputError(`rq: order_quantity must be a whole number for discrete demand (got ${x.order_quantity})`);
  let r: number;
  let Q: number;
  let basis: string;
  if (x.service) {
    // the order quantity is the cost trade-off (EOQ) unless given; the reorder point is the smallest meeting the target
    Q = x.order_quantity ?? eoq(x.fixed_cost, x.holding_cost, demandRate).orderQuantity;
    if (discrete) Q = Math.max(1, Math.round(Q));
    r = x.service.type === 'fill_rate' ? reorderPointForFillRate(ltd, Q, x.service.target) : reorderPointForCycleService(ltd, x.service.target);
    basis = `${x.service.type} ${x.service.target}`;
  } else {
    if (x.stockout_cost === undefined) throw new InputError('rq: stockout_cost is required (or a service target in service)');
    const params = { holdingCost: x.holding_cost, stockoutCost: x.stockout_cost, fixedCost: x.fixed_cost, demandRate };
    if (x.order_quantity !== undefined) {
      Q = x.order_quantity;
      r = optimalReorderPointForQ(ltd, Q, params);
      basis = 'cost, given order quantity';
    } else {
      const best = ltd.kind === 'discrete' ? optimalRQDiscrete(ltd, params) : optimalRQContinuous(ltd, params, x.method ?? 'exact');
      r = best.reorderPoint;
      Q = best.orderQuantity;
      basis = ltd.kind === 'discrete' ? 'cost, exact (Federgruen-Zheng)' : `cost, ${x.method ?? 'exact'}`;
    }
  }
  const e = evaluateRQ(ltd, r, Q, x.unit_cost ?? 0);
  const p = x.stockout_cost ?? 0;
  const terms = { ordering: (x.fixed_cost * demandRate) / Q, holding: x.holding_cost * e.expectedOnHand, backorders: p * e.expectedBackorders };
  return {
    model: 'rq',
    basis,
    policy: { reorder_point: r, order_quantity: Q },
    cost: rqCost(ltd, r, Q, { holdingCost: x.holding_cost, stockoutCost: p, fixedCost: x.fixed_cost, demandRate }),
    cost_terms: terms,
    demand_rate: demandRate,
    lead_time_demand: ltdSummary(ltd),
    expected_on_hand: e.expectedOnHand,
    expected_backorders: e.expectedBackorders,
    fill_rate: e.fillRate,
    cycle_service_level: e.cycleServiceLevel,
    safety_stock: e.safetyStock,
    investment: e.investment,
  };
}

// ------------------------------------------------------------------------------------------------------------- ss

interface SsInput {
  demand: DemandDistribution;
  lead_time?: number;
  holding_cost: number;
  stockout_cost: number;
  fixed_cost: number;
}

function runSs(x: SsInput): Json {
  if (!isDiscreteDemand(x.demand)) throw new InputError(`ss: demand.type must be poisson, negative_binomial or empirical (the exact (s,S) algorithm needs integer demand; got ${x.demand.type})`);
  const periodDemand = leadTimeDemand(x.demand, 1);
  if (periodDemand.kind !== 'discrete') throw new InputError('ss: demand must be discrete');
  const best = optimalSS({ holdingCost: x.holding_cost, stockoutCost: x.stockout_cost, fixedCost: x.fixed_cost, periodDemand, leadTime: x.lead_time ?? 0 });
  return { model: 'ss', policy: { reorder_point: best.reorderPoint, order_up_to: best.orderUpToLevel }, cost: best.cost, demand_mean: periodDemand.mean };
}

// ----------------------------------------------------------------------------------------------------- base-stock

interface BaseStockInput {
  demand: DemandDistribution;
  lead_time: LeadTimeInput;
  holding_cost: number;
  stockout_cost: number;
  review_period?: number;
}

function runBaseStock(x: BaseStockInput): Json {
  const r = periodicBaseStock(x.demand, leadTimeOf(x.lead_time), x.holding_cost, x.stockout_cost, x.review_period ?? 1);
  return {
    model: 'base-stock',
    policy: { base_stock_level: r.baseStockLevel },
    cost: r.cost,
    critical_ratio: r.criticalRatio,
    protection_demand: ltdSummary(r.protectionDemand),
    expected_on_hand: r.expectedOnHand,
    expected_backorders: r.expectedBackorders,
    fill_rate: r.fillRate,
  };
}

// ------------------------------------------------------------------------------------------------------------ gsm

interface GsmStageInput {
  id: number;
  processing_time: number;
  holding_cost: number;
  demand_mean?: number;
  demand_std?: number;
  max_service_time?: number;
  inbound_service_time?: number;
  service_level?: number;
  safety_factor?: number;
}

interface GsmInput {
  stages: GsmStageInput[];
  arcs?: Array<{ from: number; to: number }>;
  service_level?: number;
  safety_factor?: number;
}

function safetyFactor(where: string, s: { service_level?: number; safety_factor?: number }): number | undefined {
  if (s.service_level !== undefined && s.safety_factor !== undefined) throw new InputError(`gsm: ${where} gives both service_level and safety_factor`);
  return s.service_level !== undefined ? normalQuantile(s.service_level, 0, 1) : s.safety_factor;
}

function runGsm(x: GsmInput): Json {
  const ids = new Set(x.stages.map((s) => s.id));
  (x.arcs ?? []).forEach((a, i) => {
    for (const end of ['from', 'to'] as const) if (!ids.has(a[end])) throw new InputError(`gsm: arcs[${i}].${end} names stage ${a[end]}, which is not in stages`);
  });
  const stages: GsmStage[] = x.stages.map((s, i) => ({
    id: s.id,
    processingTime: s.processing_time,
    holdingCost: s.holding_cost,
    demandMean: s.demand_mean,
    demandStd: s.demand_std,
    maxServiceTime: s.max_service_time,
    inboundServiceTime: s.inbound_service_time,
    safetyFactor: safetyFactor(`stages[${i}]`, s),
  }));
  const sol = solveGsm({ stages, arcs: x.arcs ?? [], safetyFactor: safetyFactor('the instance', x) });
  return { model: 'gsm', method: sol.method, exact: sol.exact, cost: sol.cost, lower_bound: sol.lowerBound, stages: snakeKeys(sol.stages) };
}

// --------------------------------------------------------------------------------------------------------- metric

interface MetricInput {
  method?: MetricMethod;
  unit_cost?: number;
  depot_repair_time: number;
  depot_spares?: number;
  bases: Array<{ demand_rate: number; repair_probability: number; repair_time: number; order_ship_time: number; spares?: number }>;
  target_backorders?: number;
  budget?: number;
  max_depot_spares?: number;
  max_base_spares?: number;
}

/** Levels beyond mean + 6 sd of a Poisson pipeline buy backorder reductions below 1e-6: enough for the curve. */
const coverOf = (mean: number) => Math.ceil(mean + 6 * Math.sqrt(mean) + 2);

function runMetric(x: MetricInput): Json {
  const method = x.method ?? 'vari-metric';
  const bases: MetricBase[] = x.bases.map((b) => ({ demandRate: b.demand_rate, repairProbability: b.repair_probability, repairTime: b.repair_time, orderShipTime: b.order_ship_time, spares: b.spares ?? 0 }));
  const evaluation = (depotSpares: number, baseSpares: number[]) => {
    const e = evaluateMetric({ bases: bases.map((b, j) => ({ ...b, spares: baseSpares[j] })), depotRepairTime: x.depot_repair_time, depotSpares }, method);
    return { depot: e.depot, bases: e.bases, total_base_ebo: e.totalBaseEbo };
  };
  const given = x.depot_spares !== undefined && x.bases.every((b) => b.spares !== undefined);
  if (given) {
    if (x.budget !== undefined || x.target_backorders !== undefined) throw new InputError('metric: budget and target_backorders optimise the spares, so depot_spares and bases[].spares must be left out');
    const baseSpares = x.bases.map((b) => b.spares!);
    const total = x.depot_spares! + baseSpares.reduce((a, b) => a + b, 0);
    return {
      model: 'metric',
      method,
      mode: 'evaluate',
      policy: { depot_spares: x.depot_spares, base_spares: baseSpares },
      cost: (x.unit_cost ?? 0) * total,
      ...(snakeKeys(evaluation(x.depot_spares!, baseSpares)) as Json),
    };
  }
  const missing = x.depot_spares === undefined ? 'depot_spares' : `bases[${x.bases.findIndex((b) => b.spares === undefined)}].spares`;
  if ((x.budget === undefined) === (x.target_backorders === undefined)) {
    throw new InputError(`metric: give exactly one of budget and target_backorders to optimise the spares (or ${missing} and every other spares level to evaluate them)`);
  }
  if (x.unit_cost === undefined) throw new InputError('metric: unit_cost is required to optimise the spares');
  const depotMean = bases.reduce((a, b) => a + (1 - b.repairProbability) * b.demandRate, 0) * x.depot_repair_time;
  const baseMean = Math.max(0, ...bases.map((b) => b.demandRate * (b.repairProbability * b.repairTime + (1 - b.repairProbability) * (b.orderShipTime + x.depot_repair_time))));
  const hull = metricItemCurve(
    {
      unitCost: x.unit_cost,
      system: { bases, depotRepairTime: x.depot_repair_time, depotSpares: 0 },
      maxDepotSpares: x.max_depot_spares ?? coverOf(depotMean),
      maxBaseSpares: x.max_base_spares ?? coverOf(baseMean),
    },
    method,
  );
  // the hull is cheapest first with falling backorders: a target takes its first point, a budget its last affordable
  const pick =
    x.target_backorders !== undefined
      ? hull.find((p) => p.totalBaseEbo <= x.target_backorders!)
      : [...hull].reverse().find((p) => p.investment <= x.budget! + 1e-9);
  if (!pick) {
    throw new InputError(
      x.target_backorders !== undefined
        ? `metric: target_backorders ${x.target_backorders} is not reached within max_depot_spares and max_base_spares (the lowest is ${hull[hull.length - 1].totalBaseEbo})`
        : `metric: budget ${x.budget} buys no point of the curve (the cheapest costs ${hull[0].investment})`,
    );
  }
  return {
    model: 'metric',
    method,
    mode: x.target_backorders !== undefined ? 'target_backorders' : 'budget',
    policy: { depot_spares: pick.depotSpares, base_spares: pick.baseSpares },
    cost: pick.investment,
    ...(snakeKeys(evaluation(pick.depotSpares, pick.baseSpares)) as Json),
    curve: hull.map((p) => ({ investment: p.investment, total_base_ebo: p.totalBaseEbo, depot_spares: p.depotSpares, base_spares: p.baseSpares })),
  };
}

// ---------------------------------------------------------------------------------------------------- clark-scarf

interface ClarkScarfInput {
  stages: Array<{ lead_time: number; echelon_holding_cost: number }>;
  stockout_cost: number;
  demand: DemandDistribution;
}

function runClarkScarf(x: ClarkScarfInput): Json {
  let demand: PeriodDemand;
  if (x.demand.type === 'poisson') demand = { kind: 'poisson', mean: x.demand.lambda };
  else if (x.demand.type === 'normal') demand = { kind: 'normal', mean: x.demand.mu, sd: x.demand.sigma };
  else throw new InputError(`clark-scarf: demand.type must be poisson or normal (got ${x.demand.type})`);
  const sol = optimizeSerialBaseStock({ stages: x.stages.map((s) => ({ leadTime: s.lead_time, echelonHoldingCost: s.echelon_holding_cost })), stockoutCost: x.stockout_cost, demand });
  return { model: 'clark-scarf', policy: { echelon_base_stock: sol.echelonBaseStock, local_base_stock: sol.localBaseStock }, cost: sol.expectedCost };
}

// ----------------------------------------------------------------------------------------------------------- meio

type TargetInput = Partial<SiteTarget>;

interface MeioInput {
  target?: TargetInput;
  budget?: number;
  sites: Array<{
    site_id: number;
    demand?: DemandDistribution | null;
    has_series?: boolean;
    unit_cost?: number;
    master_lead_time?: number | null;
    moq?: number;
    order_multiple?: number;
    eoq_override?: number;
    target?: TargetInput;
  }>;
  routes?: Array<{ from: number; to: number; type?: string; lead_time: number; priority?: number }>;
}

/** The meio scenario defaults (docs/INVENTORY_CONFIG.md) where neither the instance nor the site sets a field. */
const DEFAULT_TARGET: SiteTarget = { service_type: 'fill_rate', target_service: 0.95, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ', review_period_weeks: 1, source: 'scenario' };

function runMeio(x: MeioInput): Json {
  const seen = new Set<number>();
  x.sites.forEach((s, i) => {
    if (seen.has(s.site_id)) throw new InputError(`meio: sites[${i}].site_id ${s.site_id} appears twice`);
    seen.add(s.site_id);
  });
  (x.routes ?? []).forEach((r, i) => {
    for (const end of ['from', 'to'] as const) if (!seen.has(r[end])) throw new InputError(`meio: routes[${i}].${end} names site ${r[end]}, which is not in sites`);
  });
  const sites: MeioSite[] = x.sites.map((s) => ({
    siteId: s.site_id,
    demand: s.demand ?? null,
    hasSeries: s.has_series ?? !!s.demand,
    unitCost: s.unit_cost ?? 0,
    masterLeadTime: s.master_lead_time ?? null,
    moq: s.moq ?? 0,
    orderMultiple: s.order_multiple ?? 1,
    target: { ...DEFAULT_TARGET, ...x.target, ...s.target },
    eoqOverride: s.eoq_override ?? null,
  }));
  const routes = (x.routes ?? []).map((r) => ({ from: r.from, to: r.to, type: r.type ?? 'REPLENISHMENT', leadTime: r.lead_time, priority: r.priority ?? 1 }));
  const { skus, group } = planItemNetwork(sites, routes, { budget: x.budget ?? null });
  return { model: 'meio', skus: snakeKeys(skus), group: snakeKeys(group) };
}

// ------------------------------------------------------------------------------------------------------------------

const RUNNERS: Record<ModelName, (x: never) => Json> = {
  eoq: runEoq,
  'wagner-whitin': runWagnerWhitin,
  rq: runRq,
  ss: runSs,
  'base-stock': runBaseStock,
  gsm: runGsm,
  metric: runMetric,
  'clark-scarf': runClarkScarf,
  meio: runMeio,
};

/** Runs a validated instance; the engines' own range errors become InputError so the CLI reports them as bad input. */
export function runModel(model: ModelName, instance: unknown): Json {
  try {
    return (RUNNERS[model] as (x: unknown) => Json)(instance);
  } catch (err) {
    // a TypeError or ReferenceError is a bug here, not bad input, and keeps its stack
    if (err instanceof InputError || err instanceof TypeError || err instanceof ReferenceError || !(err instanceof Error)) throw err;
    throw new InputError(`${model}: ${err.message}`);
  }
}
