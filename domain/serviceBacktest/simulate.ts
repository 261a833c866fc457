/**
 * Week-by-week replay of one SKU-site's stocking policy against a demand path (docs/SERVICE_BACKTEST.md).
 *
 * Each week, in this order:
 *   1. orders due this week arrive; in backorder mode the stock first serves what is owed;
 *   2. on a review week the policy looks at the inventory position (on hand − backorders + on order) and orders;
 *      an order placed in week t arrives at the start of week t + L, so it is exposed to the demand of weeks
 *      t … t + L − 1: L weeks, the lead-time demand the policy was sized for;
 *   3. the week's demand is served from what is on hand; the rest is owed (backorder) or lost (lost sales);
 *   4. the end-of-week on hand is recorded.
 *
 * Figures are taken over the measured weeks only (`measureFrom` on): the weeks before are a warm-up that brings the
 * stock to the state the policy itself produces, so an arbitrary starting stock does not decide the result.
 */

/**
 * - sQ: reorder point s and quantity Q, reviewed every week: when the position is at or below s, order the smallest
 *   multiple of Q that lifts it above s.
 * - RsS: every R weeks, when the position is at or below s, order up to S.
 * - RS: every R weeks, order up to S (order-up-to with a review period).
 * - base_stock: order up to S every week (RS with R = 1): one-for-one replenishment in weekly buckets.
 */
export type SimPolicy =
  | { kind: 'sQ'; reorderPoint: number; orderQty: number }
  | { kind: 'RsS'; reviewWeeks: number; reorderPoint: number; orderUpTo: number }
  | { kind: 'RS'; reviewWeeks: number; orderUpTo: number }
  | { kind: 'base_stock'; orderUpTo: number };

export type ShortageMode = 'backorder' | 'lost_sales';
export const SHORTAGE_MODES: readonly ShortageMode[] = ['backorder', 'lost_sales'];

export interface SimulationInput {
  /** demand per week; missing, negative or non-finite weeks (closed weeks) have no demand */
  demand: ArrayLike<number>;
  policy: SimPolicy;
  /** weeks from order to arrival; rounded to whole weeks (weekly buckets cannot hold less) */
  leadTimeWeeks: number;
  mode: ShortageMode;
  /** on hand before week 0 */
  initialOnHand: number;
  /** orders already on their way: arriving at the start of `week` */
  initialOnOrder?: ReadonlyArray<{ week: number; qty: number }>;
  /** first measured week (default 0): earlier weeks are warm-up */
  measureFrom?: number;
  /** keep the week-by-week trace (tests, charts) */
  trace?: boolean;
}

export interface SimulatedWeek {
  week: number;
  arrived: number;
  /** inventory position the review saw (before ordering); null on a week without review */
  position: number | null;
  ordered: number;
  demand: number;
  servedFromStock: number;
  /** demand of this week not served from stock (owed or lost) */
  short: number;
  endOnHand: number;
  endBackorders: number;
}

export interface SimulationResult {
  weeks: number;
  demand: number;
  servedFromStock: number;
  /** units served from stock in the week they were asked for / units asked for; null without demand */
  fillRate: number | null;
  /** replenishment cycles in the measured weeks (see cycleServiceLevel) */
  cycles: number;
  cyclesWithoutStockout: number;
  /**
   * Share of replenishment cycles in which every unit of demand was served from stock. A cycle runs from one
   * arrival to the week before the next one; the first measured week opens a cycle and the last closes one, so a
   * window without any arrival is one cycle. Null when no measured week has demand in any cycle (nothing to miss).
   */
  cycleServiceLevel: number | null;
  /** mean end-of-week on hand over the measured weeks */
  averageOnHand: number;
  /** measured weeks with demand not fully served from stock */
  stockoutWeeks: number;
  /** orders placed in the measured weeks and their units */
  orders: number;
  orderedUnits: number;
  lostUnits: number;
  /** backorders still owed after the last week */
  endBackorders: number;
  trace?: SimulatedWeek[];
}

/** Whole weeks from order to arrival: a fractional lead time is rounded (documented in docs/SERVICE_BACKTEST.md). */
export function leadTimeInWeeks(leadTimeWeeks: number): number {
  return Number.isFinite(leadTimeWeeks) && leadTimeWeeks > 0 ? Math.round(leadTimeWeeks) : 0;
}

const quantity = (v: number): number => (Number.isFinite(v) && v > 0 ? v : 0);
const EPS = 1e-9;

function reviewWeeksOf(policy: SimPolicy): number {
  if (policy.kind === 'RsS' || policy.kind === 'RS') return Math.max(1, Math.round(policy.reviewWeeks));
  return 1;
}

/** What the policy orders at a review that sees `position`. */
export function orderFor(policy: SimPolicy, position: number): number {
  switch (policy.kind) {
    case 'sQ': {
      if (position > policy.reorderPoint + EPS || !(policy.orderQty > 0)) return 0;
      const n = Math.floor((policy.reorderPoint - position) / policy.orderQty + EPS) + 1;
      return n * policy.orderQty;
    }
    case 'RsS':
      return position <= policy.reorderPoint + EPS ? Math.max(0, policy.orderUpTo - position) : 0;
    case 'RS':
    case 'base_stock':
      return Math.max(0, policy.orderUpTo - position);
  }
}

export function simulatePolicy(input: SimulationInput): SimulationResult {
  const n = input.demand.length;
  const from = Math.min(Math.max(0, Math.floor(input.measureFrom ?? 0)), n);
  const lead = leadTimeInWeeks(input.leadTimeWeeks);
  const review = reviewWeeksOf(input.policy);
  // arrivals by week; index n and beyond are never read
  const due = new Float64Array(n + lead + 1);
  let onOrder = 0;
  for (const o of input.initialOnOrder ?? []) {
    if (o.week >= 0 && o.week < due.length && quantity(o.qty) > 0) {
      due[o.week] += o.qty;
      onOrder += o.qty;
    }
  }
  let onHand = quantity(input.initialOnHand);
  let backorders = 0;
  const r: SimulationResult = {
    weeks: n - from, demand: 0, servedFromStock: 0, fillRate: null, cycles: 0, cyclesWithoutStockout: 0, cycleServiceLevel: null,
    averageOnHand: 0, stockoutWeeks: 0, orders: 0, orderedUnits: 0, lostUnits: 0, endBackorders: 0,
  };
  const trace: SimulatedWeek[] | undefined = input.trace ? [] : undefined;
  let onHandSum = 0;
  // the open cycle: did it see demand, did it miss any
  let cycleOpen = false, cycleDemand = false, cycleMissed = false;
  const closeCycle = () => {
    if (cycleOpen && cycleDemand) {
      r.cycles += 1;
      if (!cycleMissed) r.cyclesWithoutStockout += 1;
    }
    cycleOpen = false;
  };

  for (let t = 0; t < n; t++) {
    const measured = t >= from;
    const arrived = due[t];
    if (arrived > 0) {
      onHand += arrived;
      onOrder -= arrived;
      if (onOrder < EPS) onOrder = 0;
      const paid = Math.min(onHand, backorders);
      onHand -= paid;
      backorders -= paid;
      if (measured) closeCycle();
    }
    if (measured && !cycleOpen) {
      cycleOpen = true;
      cycleDemand = false;
      cycleMissed = false;
    }

    let position: number | null = null;
    let ordered = 0;
    if (t % review === 0) {
      position = onHand - backorders + onOrder;
      ordered = orderFor(input.policy, position);
      if (ordered > 0) {
        if (lead === 0) {
          onHand += ordered;
          const paid = Math.min(onHand, backorders);
          onHand -= paid;
          backorders -= paid;
        } else {
          due[t + lead] += ordered;
          onOrder += ordered;
        }
        if (measured) {
          r.orders += 1;
          r.orderedUnits += ordered;
        }
      }
    }

    const d = quantity(input.demand[t]);
    const served = Math.min(onHand, d);
    const short = d - served;
    onHand -= served;
    if (short > EPS) {
      if (input.mode === 'backorder') backorders += short;
      else if (measured) r.lostUnits += short;
    }
    if (measured) {
      r.demand += d;
      r.servedFromStock += served;
      onHandSum += onHand;
      if (d > EPS) cycleDemand = true;
      if (short > EPS) {
        r.stockoutWeeks += 1;
        cycleMissed = true;
      }
    }
    trace?.push({ week: t, arrived, position, ordered, demand: d, servedFromStock: served, short, endOnHand: onHand, endBackorders: backorders });
  }
  closeCycle();
  r.fillRate = r.demand > EPS ? r.servedFromStock / r.demand : null;
  r.cycleServiceLevel = r.cycles > 0 ? r.cyclesWithoutStockout / r.cycles : null;
  r.averageOnHand = r.weeks > 0 ? onHandSum / r.weeks : 0;
  r.endBackorders = backorders;
  if (trace) r.trace = trace;
  return r;
}
