/**
 * Exchange curve (Brown 1967; Silver, Pyke & Thomas, Inventory and Production Management in Supply Chains): with a
 * common ordering cost A and holding rate r for a whole portfolio, every item's EOQ is Q_i = k sqrt(D_i / c_i) with
 * k = sqrt(2A / r). Sweeping k trades total cycle-stock value V(k) = Σ c_i Q_i / 2 = k S / 2 against total orders
 * N(k) = Σ D_i / Q_i = S / k, S = Σ sqrt(D_i c_i), so the unconstrained curve is the hyperbola V N = S^2 / 2 and
 * every target has a closed-form k.
 */

export interface ExchangeItem {
  id?: string;
  /** Units per year. */
  annualDemand: number;
  /** Value per unit. */
  unitCost: number;
  /** Overrides the portfolio-wide allowed orders-per-year set for this item. */
  allowedOrdersPerYear?: readonly number[];
}

export interface CurvePoint {
  k: number;
  inv_val: number;
  orders_per_year: number;
}

export interface FrequencyOption {
  freq: string;
  freq_label: string;
  orders_per_year: number;
  eoq: number;
  cycle_stock_value: number;
  /** A f + r c D / (2f) with A = r k^2 / 2; in units of the holding rate when none is given. */
  total_annual_cost: number;
  /** The k at which this frequency is the item's unconstrained optimum, sqrt(D c) / f. */
  k_equivalent: number;
  is_selected: boolean;
}

export interface FrequencyConstraint {
  param_name: string;
  allowed_orders_per_year: number[];
  selected_orders_per_year: number;
  /** True when an allowed set applies to the item, so its frequency was snapped to that set. */
  constrained: boolean;
}

export interface ItemFrequencyPlan {
  id?: string;
  unconstrained_orders_per_year: number;
  unconstrained_eoq: number;
  freq_options: FrequencyOption[];
  freq_constraint: FrequencyConstraint;
}

export interface CurveOptions {
  points?: number;
  kMin?: number;
  kMax?: number;
  /** Explicit k values; overrides points/kMin/kMax. */
  kValues?: readonly number[];
}

export interface ConstrainedCurveOptions extends CurveOptions {
  /** Portfolio-wide allowed orders per year, e.g. [1, 2, 4, 6, 12, 24, 52]. */
  allowedOrdersPerYear?: readonly number[];
}

export const DEFAULT_ALLOWED_ORDERS_PER_YEAR: readonly number[] = [1, 2, 4, 6, 12, 24, 52];

export function sumSqrtDemandValue(items: readonly ExchangeItem[]): number {
  let s = 0;
  for (const item of items) s += Math.sqrt(checkedItem(item).annualDemand * item.unitCost);
  return s;
}

/** Geometric grid, because the curve is a hyperbola and equal ratios of k give evenly spread points along it. */
export function kGrid(kMin: number, kMax: number, points: number): number[] {
  if (!(kMin > 0) || !(kMax >= kMin) || !(points >= 1)) throw new RangeError('k grid needs 0 < kMin <= kMax and points >= 1');
  if (points === 1) return [kMin];
  const ratio = Math.log(kMax / kMin) / (points - 1);
  return Array.from({ length: points }, (_, i) => kMin * Math.exp(ratio * i));
}

/**
 * Default k range: from every item ordered `maxOrdersPerItem` times a year on average down to `minOrdersPerItem`,
 * which brackets the frequencies planners actually use.
 */
export function defaultKRange(
  items: readonly ExchangeItem[],
  minOrdersPerItem = 1,
  maxOrdersPerItem = 52,
): { kMin: number; kMax: number } {
  const n = Math.max(1, items.filter((i) => i.annualDemand > 0).length);
  const s = sumSqrtDemandValue(items);
  if (!(s > 0)) throw new RangeError('exchange curve needs at least one item with positive demand and cost');
  return { kMin: s / (n * maxOrdersPerItem), kMax: s / (n * minOrdersPerItem) };
}

export function exchangeCurve(
  items: readonly ExchangeItem[],
  options: CurveOptions = {},
): { sum_sqrt_dc: number; alternatives: CurvePoint[] } {
  const s = sumSqrtDemandValue(items);
  const ks = resolveGrid(items, options);
  return { sum_sqrt_dc: s, alternatives: ks.map((k) => ({ k, inv_val: (k * s) / 2, orders_per_year: s / k })) };
}

export function kForTargetOrders(items: readonly ExchangeItem[], totalOrdersPerYear: number): number {
  if (!(totalOrdersPerYear > 0)) throw new RangeError('target orders per year must be > 0');
  return sumSqrtDemandValue(items) / totalOrdersPerYear;
}

export function kForTargetInventoryValue(items: readonly ExchangeItem[], cycleStockValue: number): number {
  const s = sumSqrtDemandValue(items);
  if (!(cycleStockValue > 0) || !(s > 0)) throw new RangeError('target value and Σ sqrt(D c) must be > 0');
  return (2 * cycleStockValue) / s;
}

/**
 * Curve when each item may only be ordered at allowed frequencies. For a given k the item cost, in units of r, is
 * (k^2 f + c D / f) / 2, convex in f; so between neighbours f_a < f_b the higher one wins iff f_a f_b < f*^2 with
 * f* = sqrt(D c) / k the unconstrained frequency, and a forward scan over the sorted set finds the optimum.
 * Items without an allowed set keep their unconstrained EOQ.
 */
export function constrainedExchangeCurve(
  items: readonly ExchangeItem[],
  options: ConstrainedCurveOptions = {},
): { alternatives: CurvePoint[] } {
  const ks = resolveGrid(items, options);
  const portfolioSet = options.allowedOrdersPerYear ? sortedFrequencies(options.allowedOrdersPerYear) : undefined;
  const n = items.length;
  const sqrtDc = new Float64Array(n);
  const dc = new Float64Array(n);
  const sets: (number[] | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const item = checkedItem(items[i]!);
    dc[i] = item.annualDemand * item.unitCost;
    sqrtDc[i] = Math.sqrt(dc[i]!);
    sets[i] = item.allowedOrdersPerYear ? sortedFrequencies(item.allowedOrdersPerYear) : portfolioSet;
  }
  const alternatives = ks.map((k) => {
    let invVal = 0;
    let orders = 0;
    for (let i = 0; i < n; i++) {
      if (dc[i] === 0) continue;
      const set = sets[i];
      const fStar = sqrtDc[i]! / k;
      const f = set ? snapFrequency(set, fStar) : fStar;
      invVal += dc[i]! / (2 * f);
      orders += f;
    }
    return { k, inv_val: invVal, orders_per_year: orders };
  });
  return { alternatives };
}

/** Per-item detail at one k: every allowed frequency with its cost, and which one the curve selected. */
export function itemFrequencyPlan(
  item: ExchangeItem,
  k: number,
  options: { allowedOrdersPerYear?: readonly number[]; holdingRate?: number; paramName?: string } = {},
): ItemFrequencyPlan {
  checkedItem(item);
  if (!(k > 0)) throw new RangeError('k must be > 0');
  const r = options.holdingRate ?? 1;
  const orderingCost = (r * k * k) / 2;
  const D = item.annualDemand;
  const c = item.unitCost;
  const fStar = Math.sqrt(D * c) / k;
  const rawSet = item.allowedOrdersPerYear ?? options.allowedOrdersPerYear;
  const set = rawSet ? sortedFrequencies(rawSet) : [];
  const selected = set.length > 0 && D > 0 ? snapFrequency(set, fStar) : fStar;
  const freq_options = set.map((f) => ({
    freq: frequencyCode(f),
    freq_label: frequencyLabel(f),
    orders_per_year: f,
    eoq: D / f,
    cycle_stock_value: (c * D) / (2 * f),
    total_annual_cost: orderingCost * f + (r * c * D) / (2 * f),
    k_equivalent: Math.sqrt(D * c) / f,
    is_selected: f === selected,
  }));
  return {
    ...(item.id === undefined ? {} : { id: item.id }),
    unconstrained_orders_per_year: fStar,
    unconstrained_eoq: k * Math.sqrt(D / c),
    freq_options,
    freq_constraint: {
      param_name: options.paramName ?? 'allowed_orders_per_year',
      allowed_orders_per_year: set,
      selected_orders_per_year: selected,
      constrained: set.length > 0,
    },
  };
}

function snapFrequency(sorted: readonly number[], fStar: number): number {
  const target = fStar * fStar;
  let j = 0;
  while (j + 1 < sorted.length && sorted[j]! * sorted[j + 1]! < target) j++;
  return sorted[j]!;
}

const LABELS: Record<number, [string, string]> = {
  1: ['Y', 'yearly'],
  2: ['H', 'half-yearly'],
  3: ['4M', 'every 4 months'],
  4: ['Q', 'quarterly'],
  6: ['2M', 'every 2 months'],
  12: ['M', 'monthly'],
  24: ['SM', 'twice a month'],
  26: ['2W', 'every 2 weeks'],
  52: ['W', 'weekly'],
  104: ['SW', 'twice a week'],
  365: ['D', 'daily'],
};

export function frequencyCode(ordersPerYear: number): string {
  return LABELS[ordersPerYear]?.[0] ?? `${ordersPerYear}/Y`;
}

export function frequencyLabel(ordersPerYear: number): string {
  return LABELS[ordersPerYear]?.[1] ?? `${ordersPerYear} times a year`;
}

function sortedFrequencies(set: readonly number[]): number[] {
  if (set.length === 0 || set.some((f) => !(f > 0))) {
    throw new RangeError('allowed orders per year must be a non-empty set of positive numbers');
  }
  return [...new Set(set)].sort((a, b) => a - b);
}

function resolveGrid(items: readonly ExchangeItem[], options: CurveOptions): number[] {
  if (options.kValues) return [...options.kValues];
  const range = options.kMin !== undefined && options.kMax !== undefined ? undefined : defaultKRange(items);
  return kGrid(options.kMin ?? range!.kMin, options.kMax ?? range!.kMax, options.points ?? 50);
}

function checkedItem(item: ExchangeItem): ExchangeItem {
  if (!(item.annualDemand >= 0) || !(item.unitCost > 0)) {
    throw new RangeError(`item ${item.id ?? ''}: annual demand must be >= 0 and unit cost > 0`);
  }
  return item;
}
