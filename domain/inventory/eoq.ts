/**
 * Economic order quantity family (Snyder & Shen, Fundamentals of Supply Chain Theory, 2nd ed. 2019, ch. 3).
 * K: fixed cost per order, h: holding cost per unit per unit time, lambda: demand per unit time.
 */

export interface EoqResult {
  orderQuantity: number;
  /** Ordering plus holding cost per unit time. */
  cost: number;
  cycleTime: number;
  ordersPerTime: number;
}

export function eoqCost(orderQuantity: number, K: number, h: number, lambda: number): number {
  if (!(orderQuantity > 0)) throw new RangeError(`order quantity must be > 0, got ${orderQuantity}`);
  return (K * lambda) / orderQuantity + (h * orderQuantity) / 2;
}

export function eoq(K: number, h: number, lambda: number): EoqResult {
  checkPositive({ K, h, lambda });
  const orderQuantity = Math.sqrt((2 * K * lambda) / h);
  return summary(orderQuantity, Math.sqrt(2 * K * lambda * h), lambda);
}

export interface EoqBackorderResult extends EoqResult {
  /** Fraction of each cycle spent in backorder, x* = h / (h + p). */
  stockoutFraction: number;
  maxBackorder: number;
}

/** Planned backorders at p per unit per unit time (Snyder & Shen §3.5): Q* = sqrt(2Kλ(h+p)/(hp)). */
export function eoqWithBackorders(K: number, h: number, p: number, lambda: number): EoqBackorderResult {
  checkPositive({ K, h, p, lambda });
  const orderQuantity = Math.sqrt((2 * K * lambda * (h + p)) / (h * p));
  const stockoutFraction = h / (h + p);
  const cost = Math.sqrt((2 * K * lambda * h * p) / (h + p));
  return { ...summary(orderQuantity, cost, lambda), stockoutFraction, maxBackorder: stockoutFraction * orderQuantity };
}

export function eoqWithBackordersCost(
  orderQuantity: number,
  stockoutFraction: number,
  K: number,
  h: number,
  p: number,
  lambda: number,
): number {
  const x = stockoutFraction;
  return (h * (1 - x) ** 2 * orderQuantity) / 2 + (p * x * x * orderQuantity) / 2 + (K * lambda) / orderQuantity;
}

export interface PowerOfTwoResult extends EoqResult {
  /** Cycle time = baseInterval * 2^exponent. */
  exponent: number;
  /** cost / EOQ cost; never above (2^-1/2 + 2^1/2) / 2 ≈ 1.0607 (Roundy 1985). */
  costRatio: number;
}

/**
 * Best cycle time of the form base * 2^k (k any integer). Cost in T is convex, so the best k is one of the two powers
 * around the EOQ cycle time; the 6% bound of Roundy (1985) follows.
 */
export function powerOfTwoPolicy(K: number, h: number, lambda: number, baseInterval = 1): PowerOfTwoResult {
  checkPositive({ K, h, lambda, baseInterval });
  const best = eoq(K, h, lambda);
  const costOfT = (T: number) => K / T + (h * lambda * T) / 2;
  const kLow = Math.floor(Math.log2(best.cycleTime / baseInterval));
  const [exponent] = [kLow, kLow + 1]
    .map((k) => [k, costOfT(baseInterval * 2 ** k)] as const)
    .reduce((a, b) => (b[1] < a[1] ? b : a));
  const T = baseInterval * 2 ** exponent;
  const cost = costOfT(T);
  return { ...summary(lambda * T, cost, lambda), exponent, costRatio: cost / best.cost };
}

export interface QuantityConstraints {
  min?: number;
  max?: number;
  /** Orders must be whole multiples of this (pack or pallet size). */
  multiple?: number;
}

export interface ConstrainedEoqResult extends EoqResult {
  unconstrainedQuantity: number;
  binding: 'min' | 'max' | 'multiple' | null;
}

/**
 * The cost is convex in Q, so over the feasible lattice {multiple * n} ∩ [min, max] the optimum is one of the two
 * lattice points around the unconstrained EOQ after clipping to the bounds.
 */
export function eoqConstrained(K: number, h: number, lambda: number, constraints: QuantityConstraints): ConstrainedEoqResult {
  const free = eoq(K, h, lambda);
  const m = constraints.multiple ?? 0;
  if (m < 0) throw new RangeError('multiple must be >= 0');
  const lo = m > 0 ? Math.max(m, Math.ceil((constraints.min ?? 0) / m - 1e-12) * m) : Math.max(constraints.min ?? 0, Number.MIN_VALUE);
  const hi = m > 0 ? Math.floor((constraints.max ?? Infinity) / m + 1e-12) * m : (constraints.max ?? Infinity);
  if (!(lo <= hi)) throw new RangeError('quantity constraints leave no feasible order quantity');
  const clipped = Math.min(hi, Math.max(lo, free.orderQuantity));
  const candidates = m > 0 ? [Math.floor(clipped / m) * m, Math.ceil(clipped / m) * m].filter((q) => q >= lo && q <= hi) : [clipped];
  const orderQuantity = candidates.reduce((a, b) => (eoqCost(b, K, h, lambda) < eoqCost(a, K, h, lambda) ? b : a));
  const binding =
    Math.abs(orderQuantity - free.orderQuantity) <= 1e-9 * free.orderQuantity
      ? null
      : free.orderQuantity < (constraints.min ?? -Infinity)
        ? 'min'
        : free.orderQuantity > (constraints.max ?? Infinity)
          ? 'max'
          : 'multiple';
  return { ...summary(orderQuantity, eoqCost(orderQuantity, K, h, lambda), lambda), unconstrainedQuantity: free.orderQuantity, binding };
}

function summary(orderQuantity: number, cost: number, lambda: number): EoqResult {
  return { orderQuantity, cost, cycleTime: orderQuantity / lambda, ordersPerTime: lambda / orderQuantity };
}

function checkPositive(values: Record<string, number>): void {
  for (const [name, v] of Object.entries(values)) {
    if (!(v > 0) || !Number.isFinite(v)) throw new RangeError(`${name} must be finite and > 0, got ${v}`);
  }
}
