/**
 * Wagner-Whitin (1958) dynamic lot sizing: deterministic demands d[0..T-1], setup cost K_t when ordering in period t,
 * holding cost h_t per unit on hand at the end of period t, no backorders, zero lead time and starting stock.
 * By the zero-inventory property an order in period j covers exactly the demands of periods j..i, so
 * F(i) = min_j F(j-1) + K_j + H(j, i), with H in O(1) from prefix sums.
 */

export interface LotSizingOrder {
  period: number;
  quantity: number;
  /** Periods whose demand this order serves, first to last. */
  covers: number[];
}

export interface LotSizingPlan {
  orders: LotSizingOrder[];
  /** Order quantity per period (0 where no order). */
  orderQuantities: number[];
  total_cost: number;
  setup_cost: number;
  holding_cost: number;
  n_orders: number;
  avg_lot_size: number;
}

export function wagnerWhitin(
  demands: readonly number[],
  setupCost: number | readonly number[],
  holdingCost: number | readonly number[],
): LotSizingPlan {
  const T = demands.length;
  const K = perPeriod(setupCost, T, 'setup cost');
  const h = perPeriod(holdingCost, T, 'holding cost');
  for (const d of demands) if (!(d >= 0) || !Number.isFinite(d)) throw new RangeError(`demands must be finite and >= 0, got ${d}`);

  // cumH[t]: cost of holding one unit from the start of period 0 to the start of period t.
  // cumD[t], cumDH[t]: prefix sums of d_u and d_u * cumH[u] over u < t.
  const cumH = new Float64Array(T + 1);
  const cumD = new Float64Array(T + 1);
  const cumDH = new Float64Array(T + 1);
  for (let t = 0; t < T; t++) {
    cumH[t + 1] = cumH[t]! + h[t]!;
    cumD[t + 1] = cumD[t]! + demands[t]!;
    cumDH[t + 1] = cumDH[t]! + demands[t]! * cumH[t]!;
  }
  const holding = (j: number, i: number) => cumDH[i + 1]! - cumDH[j]! - cumH[j]! * (cumD[i + 1]! - cumD[j]!);

  // best[i + 1]: optimal cost of periods 0..i; lastOrder[i]: period of the last order in that solution (-1: none).
  const best = new Float64Array(T + 1);
  const lastOrder = new Int32Array(T).fill(-1);
  // Planning-horizon theorem (Wagner & Whitin 1958): with non-negative holding costs the last order for
  // horizon i+1 is never earlier than the last order for horizon i, which bounds the inner loop.
  let horizonStart = 0;
  for (let i = 0; i < T; i++) {
    if (cumD[i + 1] === 0) {
      best[i + 1] = 0;
      continue;
    }
    let bestCost = Infinity;
    let bestJ = horizonStart;
    for (let j = horizonStart; j <= i; j++) {
      const cost = best[j]! + K[j]! + holding(j, i);
      if (cost < bestCost) {
        bestCost = cost;
        bestJ = j;
      }
    }
    best[i + 1] = bestCost;
    lastOrder[i] = bestJ;
    horizonStart = bestJ;
  }

  const orders: LotSizingOrder[] = [];
  let setup = 0;
  for (let i = T - 1; i >= 0 && lastOrder[i]! >= 0; ) {
    const j = lastOrder[i]!;
    const quantity = cumD[i + 1]! - cumD[j]!;
    if (quantity > 0) {
      orders.push({ period: j, quantity, covers: Array.from({ length: i - j + 1 }, (_, u) => j + u) });
      setup += K[j]!;
    }
    i = j - 1;
  }
  orders.reverse();
  const orderQuantities = new Array<number>(T).fill(0);
  for (const o of orders) orderQuantities[o.period] = o.quantity;
  const total = T === 0 ? 0 : best[T]!;
  const totalQuantity = orders.reduce((s, o) => s + o.quantity, 0);
  return {
    orders,
    orderQuantities,
    total_cost: total,
    setup_cost: setup,
    holding_cost: total - setup,
    n_orders: orders.length,
    avg_lot_size: orders.length === 0 ? 0 : totalQuantity / orders.length,
  };
}

function perPeriod(value: number | readonly number[], T: number, name: string): Float64Array {
  const out = typeof value === 'number' ? new Float64Array(T).fill(value) : Float64Array.from(value);
  if (out.length !== T) throw new RangeError(`${name} must be a scalar or have one value per period (${T}), got ${out.length}`);
  for (const v of out) if (!(v >= 0) || !Number.isFinite(v)) throw new RangeError(`${name} must be finite and >= 0, got ${v}`);
  return out;
}
