/**
 * Forecast consumption (forecast netting), the textbook rule of SAP's planning strategies with consumption: actual
 * demand of a bucket consumes the forecast of its own bucket first, then the forecast of earlier buckets going back
 * one bucket at a time up to `backward` buckets, then the forecast of later buckets going forward one at a time up to
 * `forward` buckets. Demand buckets are taken in calendar order, so an earlier bucket's demand has already taken what
 * it consumed when a later one looks back. What no bucket of the window can cover is over-consumption, charged to the
 * demand's own bucket; what is left of the forecast is the netted forecast.
 *
 * Buckets outside the arrays do not exist: the window is clipped at both ends (the period's first bucket cannot look
 * back into history, its last cannot look forward past the period).
 *
 * Exactness: the rule only takes minima and subtracts, so integer inputs give integer outputs and
 * forecast[i] = consumed[i] + netted[i], Σ demand = Σ consumed + Σ over, with no rounding at all. Callers that need
 * totals to reconcile to the last digit (docs/NETTING.md) pass integer quantities (thousandths of a unit).
 */

export interface ConsumptionWindow {
  /** buckets before the demand's own that its demand may consume, nearest first (0: none) */
  backward: number;
  /** buckets after the demand's own that its demand may consume, nearest first, after the backward ones (0: none) */
  forward: number;
}

export type NettingDirection = 'backward' | 'forward' | 'both' | 'none';

/** One step of the consumption: `qty` of demand bucket `demand` consumed forecast bucket `forecast`. */
export interface Allocation {
  demand: number;
  forecast: number;
  qty: number;
}

export interface Consumption {
  /** per forecast bucket: how much of its forecast was consumed, by any bucket's demand */
  consumed: number[];
  /** per forecast bucket: forecast − consumed, what is left to plan for */
  netted: number[];
  /** per demand bucket: demand no forecast inside its window could cover */
  over: number[];
  /** every consumption step, in the order the rule took them */
  allocations: Allocation[];
  /** consumed quantity by where it was found: the demand's own bucket, an earlier one, a later one */
  same: number;
  backward: number;
  forward: number;
  direction: NettingDirection;
}

/** Which way consumption had to move out of the demand's own bucket; 'none' when it never had to (or nothing was consumed). */
export function directionOf(backward: number, forward: number): NettingDirection {
  if (backward > 0 && forward > 0) return 'both';
  if (backward > 0) return 'backward';
  if (forward > 0) return 'forward';
  return 'none';
}

/** Missing, non-finite and negative quantities count as nothing: a bucket can neither consume nor offer less than 0. */
const quantity = (v: number | null | undefined): number => (v !== null && v !== undefined && Number.isFinite(v) && v > 0 ? v : 0);

function checkWindow(w: ConsumptionWindow): void {
  for (const [name, v] of [['backward', w.backward], ['forward', w.forward]] as const) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`consume: window.${name} must be a whole number of buckets ≥ 0 (got ${v})`);
  }
}

/**
 * Consumes `forecast` (one value per bucket) by `demand` (same buckets) within the window. Both arrays must have the
 * same length; null, NaN and negative values count as 0.
 */
export function consume(forecast: ReadonlyArray<number | null>, demand: ReadonlyArray<number | null>, window: ConsumptionWindow): Consumption {
  if (forecast.length !== demand.length) throw new RangeError(`consume: forecast has ${forecast.length} buckets, demand ${demand.length}`);
  checkWindow(window);
  const n = forecast.length;
  const open = forecast.map(quantity);
  const consumed = new Array<number>(n).fill(0);
  const over = new Array<number>(n).fill(0);
  const allocations: Allocation[] = [];
  const moved = { same: 0, backward: 0, forward: 0 };

  for (let d = 0; d < n; d += 1) {
    let left = quantity(demand[d]);
    if (left === 0) continue;
    const take = (f: number, kind: 'same' | 'backward' | 'forward') => {
      const q = Math.min(left, open[f]);
      if (q <= 0) return;
      open[f] -= q;
      consumed[f] += q;
      left -= q;
      moved[kind] += q;
      allocations.push({ demand: d, forecast: f, qty: q });
    };
    take(d, 'same');
    for (let k = 1; k <= window.backward && left > 0 && d - k >= 0; k += 1) take(d - k, 'backward');
    for (let k = 1; k <= window.forward && left > 0 && d + k < n; k += 1) take(d + k, 'forward');
    over[d] = left;
  }

  return {
    consumed, netted: open, over, allocations, ...moved, direction: directionOf(moved.backward, moved.forward),
  };
}
