/**
 * The K-curve API and the eoq step over a portfolio of SKU-sites: annual demand and cost per SKU-site, which k applies,
 * each SKU-site's EOQ (IO override, frequency snapping), the curve and Wagner-Whitin lot sizing. The engines are
 * eoq.ts, exchangeCurve.ts and wagnerWhitin.ts; this file only decides what goes into them and shapes what comes out.
 *
 * Units: demand per year, money per unit, holding rate per year; the lot-sizing periods are the forecast's weeks.
 */
import { eoq as eoqOf, eoqCost } from './eoq';
import {
  constrainedExchangeCurve, DEFAULT_ALLOWED_ORDERS_PER_YEAR, defaultKRange, exchangeCurve, itemFrequencyPlan, kForTargetInventoryValue,
  kForTargetOrders, sumSqrtDemandValue, type CurvePoint, type ExchangeItem, type FrequencyConstraint, type FrequencyOption,
} from './exchangeCurve';
import { wagnerWhitin } from './wagnerWhitin';

export const WEEKS_PER_YEAR = 52;

/** Names of the parameter an allowed frequency set came from (`freq_param_name`, `freq_constraint.param_name`). */
export const FREQ_PARAMS = {
  item: 'item.allowed_orders_per_year',
  scenario: 'scenario.allowed_orders_per_year',
  default: 'default.allowed_orders_per_year',
} as const;

/** What db/kcurve.ts reads per SKU-site. */
export interface KcurveSource {
  item_id: number;
  site_id: number;
  /** mean of the best method's forecast over its horizon; null when the pipeline has none */
  forecast_weekly_mean: number | null;
  /** mean of the open weeks of the history */
  history_weekly_mean: number | null;
  /** item_site.unit_cost, else items.avg_unit_cost; null when neither is above 0 */
  unit_cost: number | null;
  /** items.attributes.allowed_orders_per_year as stored (any JSON) */
  item_allowed: unknown;
}

export type DemandSource = 'forecast' | 'history' | 'none';

export interface PortfolioItem {
  item_id: number;
  site_id: number;
  annual_demand: number;
  demand_source: DemandSource;
  unit_cost: number | null;
  /** the item's own allowed set, when its attribute holds a valid one */
  item_allowed_orders_per_year: number[] | null;
  /** false without a unit cost: the curve needs c > 0 */
  in_curve: boolean;
}

/** A non-empty array of finite positive numbers, else null (a malformed attribute is ignored, not an error). */
export function parseAllowedSet(raw: unknown): number[] | null {
  if (!Array.isArray(raw) || raw.length === 0) return null;
  if (!raw.every((v) => typeof v === 'number' && Number.isFinite(v) && v > 0)) return null;
  return [...new Set(raw as number[])].sort((a, b) => a - b);
}

/** Negative forecasts (a trend run below zero) are no demand; annual = 52 × weekly mean. */
export function portfolioItem(src: KcurveSource): PortfolioItem {
  const forecast = finiteOrNull(src.forecast_weekly_mean);
  const history = finiteOrNull(src.history_weekly_mean);
  const weekly = forecast ?? history;
  const unitCost = src.unit_cost !== null && src.unit_cost > 0 && Number.isFinite(src.unit_cost) ? src.unit_cost : null;
  return {
    item_id: src.item_id,
    site_id: src.site_id,
    annual_demand: weekly === null ? 0 : Math.max(0, weekly) * WEEKS_PER_YEAR,
    demand_source: forecast !== null ? 'forecast' : history !== null ? 'history' : 'none',
    unit_cost: unitCost,
    item_allowed_orders_per_year: parseAllowedSet(src.item_allowed),
    in_curve: unitCost !== null,
  };
}

const finiteOrNull = (v: number | null) => (v === null || !Number.isFinite(v) ? null : v);

const exchangeItem = (p: PortfolioItem): ExchangeItem => ({ annualDemand: p.annual_demand, unitCost: p.unit_cost! });

// ------------------------------------------------------------------------------------------------ settings

export interface ScenarioSettings {
  ordering_cost: number;
  holding_rate: number;
  k: number | null;
  target_orders_per_year: number | null;
  target_inventory_value: number | null;
  allowed_orders_per_year: number[] | null;
}

export interface KRequest {
  k?: number;
  target_orders_per_year?: number;
  target_inventory_value?: number;
}

export type KSource = 'request.k' | 'request.target_orders_per_year' | 'request.target_inventory_value'
  | 'scenario.target_orders_per_year' | 'scenario.target_inventory_value' | 'scenario.k' | 'ordering_cost';

export interface KcurveSettings {
  /** A as configured */
  ordering_cost: number;
  holding_rate: number;
  k: number;
  k_source: KSource;
  /** the A at which k is the optimum, r k² / 2: what costs are computed with (equals ordering_cost when k comes from it) */
  implied_ordering_cost: number;
  /** the portfolio set (scenario's, else the default) */
  allowed_orders_per_year: number[];
  allowed_param_name: string;
}

/**
 * k, first found: asked for (k, or a target solved in closed form over the portfolio), the scenario's target, the
 * scenario's k (its last solve), sqrt(2A/r). A target over a portfolio without demand has no k: null.
 */
export function resolveSettings(items: readonly PortfolioItem[], scenario: ScenarioSettings, request: KRequest = {}): KcurveSettings | null {
  const A = scenario.ordering_cost;
  const r = scenario.holding_rate;
  const curveItems = items.filter((p) => p.in_curve).map(exchangeItem);
  const hasDemand = sumSqrtDemandValue(curveItems) > 0;
  let k: number;
  let source: KSource;
  if (request.k !== undefined) [k, source] = [request.k, 'request.k'];
  else if (request.target_orders_per_year !== undefined) {
    if (!hasDemand) return null;
    [k, source] = [kForTargetOrders(curveItems, request.target_orders_per_year), 'request.target_orders_per_year'];
  } else if (request.target_inventory_value !== undefined) {
    if (!hasDemand) return null;
    [k, source] = [kForTargetInventoryValue(curveItems, request.target_inventory_value), 'request.target_inventory_value'];
  } else if (scenario.target_orders_per_year !== null && hasDemand) {
    [k, source] = [kForTargetOrders(curveItems, scenario.target_orders_per_year), 'scenario.target_orders_per_year'];
  } else if (scenario.target_inventory_value !== null && hasDemand) {
    [k, source] = [kForTargetInventoryValue(curveItems, scenario.target_inventory_value), 'scenario.target_inventory_value'];
  } else if (scenario.k !== null) [k, source] = [scenario.k, 'scenario.k'];
  else [k, source] = [Math.sqrt((2 * A) / r), 'ordering_cost'];
  const set = parseAllowedSet(scenario.allowed_orders_per_year);
  return {
    ordering_cost: A,
    holding_rate: r,
    k,
    k_source: source,
    implied_ordering_cost: source === 'ordering_cost' ? A : (r * k * k) / 2,
    allowed_orders_per_year: set ?? [...DEFAULT_ALLOWED_ORDERS_PER_YEAR],
    allowed_param_name: set ? FREQ_PARAMS.scenario : FREQ_PARAMS.default,
  };
}

/**
 * The first quantity derived from the settings and a SKU-site's demand and cost that leaves the doubles: a holding
 * cost r c / 52 that underflows to 0, or an ordering or holding cost so large that an EOQ or its cost overflows. The
 * engines refuse such inputs (eoq.ts throws), so a caller checks before computing and names the setting to change.
 * null when every SKU-site of the curve is computable.
 */
export function settingsRangeProblem(items: readonly PortfolioItem[], s: KcurveSettings): { field: string; detail: string } | null {
  const A = s.implied_ordering_cost;
  // the setting k came from; the scenario's own are named by the cost that replaces them
  const kField = s.k_source.startsWith('request.') ? s.k_source.slice('request.'.length) : 'ordering_cost';
  if (!(s.k > 0 && Number.isFinite(s.k))) return { field: kField, detail: `k = ${s.k} is not a finite positive number` };
  if (!(A > 0 && Number.isFinite(A))) return { field: kField, detail: `the ordering cost r k² / 2 = ${A} at k = ${s.k} is not a finite positive number` };
  for (const it of items) {
    if (!it.in_curve) continue;
    const c = it.unit_cost!;
    const weeklyHolding = (s.holding_rate * c) / WEEKS_PER_YEAR;
    if (!(weeklyHolding > 0 && Number.isFinite(weeklyHolding))) {
      return { field: 'holding_rate', detail: `the holding cost r c / 52 of SKU-site ${it.item_id}_${it.site_id} (unit cost ${c}) is ${weeklyHolding}, not a finite positive number` };
    }
    const D = it.annual_demand;
    const eoq = Math.sqrt((2 * A * D) / (s.holding_rate * c));
    const cost = Math.sqrt(2 * A * D * s.holding_rate * c) + A * WEEKS_PER_YEAR;
    if (!Number.isFinite(eoq) || !Number.isFinite(cost) || !Number.isFinite(s.k * Math.sqrt(D / c))) {
      return { field: kField, detail: `the EOQ or its annual cost of SKU-site ${it.item_id}_${it.site_id} (demand ${D}, unit cost ${c}) overflows at ordering cost ${A}` };
    }
  }
  return null;
}

export function allowedSetOf(item: PortfolioItem, s: KcurveSettings): { set: number[]; param_name: string } {
  return item.item_allowed_orders_per_year
    ? { set: item.item_allowed_orders_per_year, param_name: FREQ_PARAMS.item }
    : { set: s.allowed_orders_per_year, param_name: s.allowed_param_name };
}

// ------------------------------------------------------------------------------------------------ one SKU-site

export interface ItemEoq {
  item_id: number;
  site_id: number;
  annual_demand: number;
  demand_source: DemandSource;
  unit_cost: number;
  k: number;
  /** k sqrt(D / c): the EOQ before snapping and overrides */
  unconstrained_eoq: number;
  unconstrained_orders_per_year: number;
  /** the quantity in force: override, else snapped (constrained), else unconstrained */
  eoq: number;
  eoq_override: number | null;
  eoq_source: 'override' | 'frequency' | 'eoq';
  orders_per_year: number;
  cycle_stock_value: number;
  total_annual_cost: number;
  /** true when snapping to the allowed set changed the EOQ */
  freq_constrained: boolean;
  /** the parameter whose set the frequency was snapped to; null when frequencies were not constrained */
  freq_param_name: string | null;
  freq_options: FrequencyOption[];
  freq_constraint: FrequencyConstraint;
}

const RELATIVE_TOLERANCE = 1e-9;

/**
 * One SKU-site at the settings' k. An IO override fixes the quantity whatever the frequency set says (a planner's
 * decision wins over the rule); without demand nothing is ordered.
 */
export function itemEoq(item: PortfolioItem, s: KcurveSettings, eoqOverride: number | null, constrained: boolean): ItemEoq {
  if (!item.in_curve) throw new RangeError(`item ${item.item_id} at site ${item.site_id} has no unit cost`);
  const D = item.annual_demand;
  const c = item.unit_cost!;
  const A = s.implied_ordering_cost;
  const h = s.holding_rate * c;
  const { set, param_name } = allowedSetOf(item, s);
  const plan = itemFrequencyPlan(exchangeItem(item), s.k, { allowedOrdersPerYear: set, holdingRate: s.holding_rate, paramName: param_name });
  const free = D > 0 ? eoqOf(A, h, D).orderQuantity : 0;
  let q = free;
  let source: ItemEoq['eoq_source'] = 'eoq';
  let snapped = false;
  if (eoqOverride !== null) [q, source] = [eoqOverride, 'override'];
  else if (constrained && D > 0) {
    q = D / plan.freq_constraint.selected_orders_per_year;
    snapped = Math.abs(q - free) > RELATIVE_TOLERANCE * free;
    if (snapped) source = 'frequency';
  }
  return {
    item_id: item.item_id,
    site_id: item.site_id,
    annual_demand: D,
    demand_source: item.demand_source,
    unit_cost: c,
    k: s.k,
    unconstrained_eoq: free,
    unconstrained_orders_per_year: plan.unconstrained_orders_per_year,
    eoq: q,
    eoq_override: eoqOverride,
    eoq_source: source,
    orders_per_year: q > 0 ? D / q : 0,
    cycle_stock_value: (c * q) / 2,
    total_annual_cost: q > 0 ? eoqCost(q, A, h, D) : 0,
    freq_constrained: snapped,
    freq_param_name: constrained ? param_name : null,
    freq_options: plan.freq_options,
    freq_constraint: plan.freq_constraint,
  };
}

export interface EoqTotals {
  n_items: number;
  n_overridden: number;
  n_freq_constrained: number;
  total_orders_per_year: number;
  total_cycle_stock_value: number;
  total_annual_cost: number;
}

export function eoqTotals(rows: readonly ItemEoq[]): EoqTotals {
  const t: EoqTotals = { n_items: rows.length, n_overridden: 0, n_freq_constrained: 0, total_orders_per_year: 0, total_cycle_stock_value: 0, total_annual_cost: 0 };
  for (const r of rows) {
    if (r.eoq_override !== null) t.n_overridden += 1;
    if (r.freq_constrained) t.n_freq_constrained += 1;
    t.total_orders_per_year += r.orders_per_year;
    t.total_cycle_stock_value += r.cycle_stock_value;
    t.total_annual_cost += r.total_annual_cost;
  }
  return t;
}

// ------------------------------------------------------------------------------------------------ the curve

export interface CurveRequest {
  constrained: boolean;
  points: number;
  k_min?: number;
  k_max?: number;
}

export interface ConstrainedPoint {
  k: number;
  inv_val: number;
  orders: number;
}

export interface CurveView {
  n_items: number;
  sum_sqrt_dc: number;
  k_min: number | null;
  k_max: number | null;
  alternatives: CurvePoint[];
  current: CurvePoint;
  constrained_curve?: ConstrainedPoint[];
  constrained_current?: ConstrainedPoint;
}

export class CurveRangeError extends Error {}

/**
 * The curve over the SKU-sites with a cost. IO overrides are left out: the curve shows what the rule gives at each k,
 * and /eoq shows what is in force. Without demand the default range has no meaning, so the curve is empty unless both
 * bounds are given.
 */
export function curveView(items: readonly PortfolioItem[], s: KcurveSettings, q: CurveRequest): CurveView {
  const inCurve = items.filter((p) => p.in_curve);
  const ex = inCurve.map(exchangeItem);
  const S = sumSqrtDemandValue(ex);
  let range: { kMin: number; kMax: number } | null = null;
  if (q.k_min !== undefined && q.k_max !== undefined) range = { kMin: q.k_min, kMax: q.k_max };
  else if (S > 0) {
    const d = defaultKRange(ex);
    range = { kMin: q.k_min ?? d.kMin, kMax: q.k_max ?? d.kMax };
  }
  if (range && range.kMin > range.kMax) throw new CurveRangeError(`query.k_max (${range.kMax}) must be >= k_min (${range.kMin})`);
  const grid = range ? { kMin: range.kMin, kMax: range.kMax, points: q.points } : { kValues: [] };
  const view: CurveView = {
    n_items: inCurve.length,
    sum_sqrt_dc: S,
    k_min: range?.kMin ?? null,
    k_max: range?.kMax ?? null,
    alternatives: exchangeCurve(ex, grid).alternatives,
    current: { k: s.k, inv_val: (s.k * S) / 2, orders_per_year: S / s.k },
  };
  if (q.constrained) {
    const withSets = inCurve.map((p) => ({ ...exchangeItem(p), allowedOrdersPerYear: allowedSetOf(p, s).set }));
    const toPoint = (c: CurvePoint): ConstrainedPoint => ({ k: c.k, inv_val: c.inv_val, orders: c.orders_per_year });
    view.constrained_curve = constrainedExchangeCurve(withSets, grid).alternatives.map(toPoint);
    view.constrained_current = toPoint(constrainedExchangeCurve(withSets, { kValues: [s.k] }).alternatives[0]!);
  }
  return view;
}

// ------------------------------------------------------------------------------------------------ lot sizing

export interface LotOrder {
  /** 0-based week of the forecast */
  period: number;
  quantity: number;
  /** the weeks whose demand the order serves */
  covers: number[];
}

export interface LotPlan {
  method: 'wagner_whitin' | 'eoq_override';
  orders: LotOrder[];
  n_orders: number;
  avg_lot_size: number;
  total_quantity: number;
  setup_cost: number;
  holding_cost: number;
  total_cost: number;
}

/**
 * Weekly demands of a forecast: a missing week (NaN, null) or a negative value is no demand, so the plan never orders
 * to cover a gap or a forecast below zero.
 */
export const lotDemands = (yhat: ReadonlyArray<number | null>): number[] => yhat.map((v) => (v === null || !Number.isFinite(v) || v < 0 ? 0 : v));

/**
 * The schedule of one SKU-site over its forecast weeks: Wagner-Whitin with setup cost A and holding r c / 52 per unit
 * and week, or, under an IO override Q, fixed lots: whenever the stock left would not cover the week, order the
 * smallest multiple of Q that does (the override is the lot size in force, as for the classic EOQ). Holding is
 * charged on the stock at the end of each week in both.
 */
export function lotPlan(demands: readonly number[], setupCost: number, weeklyHolding: number, eoqOverride: number | null): LotPlan {
  if (eoqOverride === null) {
    const p = wagnerWhitin(demands, setupCost, weeklyHolding);
    return {
      method: 'wagner_whitin', orders: p.orders, n_orders: p.n_orders, avg_lot_size: p.avg_lot_size,
      total_quantity: p.orders.reduce((s, o) => s + o.quantity, 0), setup_cost: p.setup_cost, holding_cost: p.holding_cost, total_cost: p.total_cost,
    };
  }
  const orders: LotOrder[] = [];
  let onHand = 0;
  let holding = 0;
  demands.forEach((d, t) => {
    if (onHand + RELATIVE_TOLERANCE * d < d) {
      const lots = Math.ceil((d - onHand) / eoqOverride - RELATIVE_TOLERANCE);
      orders.push({ period: t, quantity: lots * eoqOverride, covers: [] });
      onHand += lots * eoqOverride;
    }
    if (orders.length) orders[orders.length - 1]!.covers.push(t);
    onHand = Math.max(0, onHand - d);
    holding += weeklyHolding * onHand;
  });
  const total = orders.reduce((s, o) => s + o.quantity, 0);
  const setup = orders.length * setupCost;
  return {
    method: 'eoq_override', orders, n_orders: orders.length, avg_lot_size: orders.length ? total / orders.length : 0,
    total_quantity: total, setup_cost: setup, holding_cost: holding, total_cost: setup + holding,
  };
}

export interface LotTotals {
  n_items: number;
  total_orders: number;
  total_quantity: number;
  setup_cost: number;
  holding_cost: number;
  total_cost: number;
}

export function lotTotals(plans: readonly LotPlan[]): LotTotals {
  const t: LotTotals = { n_items: plans.length, total_orders: 0, total_quantity: 0, setup_cost: 0, holding_cost: 0, total_cost: 0 };
  for (const p of plans) {
    t.total_orders += p.n_orders;
    t.total_quantity += p.total_quantity;
    t.setup_cost += p.setup_cost;
    t.holding_cost += p.holding_cost;
    t.total_cost += p.total_cost;
  }
  return t;
}
