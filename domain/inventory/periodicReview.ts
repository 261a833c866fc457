/**
 * Policies reviewed every R periods (weekly buckets: the meio step's (r,Q), (s,S) and base stock), evaluated exactly
 * in the (R, nQ) sense of Hadley & Whitin (1963, ch. 5) and Zipkin (2000, §6.7).
 *
 * At a review the position is lifted into a window of levels just above r: uniform on {r+1, ..., r+w} for an (R,nQ)
 * policy (w = Q; exact in steady state, whatever the size of the demands, because the position is raised by whole
 * multiples of Q), the single level S for order-up-to (w = 1, r = S − 1; on the line w = 0, r = S). An order placed
 * at a review arrives L periods later, and the next review's order another R periods after that, so the net stock at
 * the end of the k-th period after an arrival is IP − D(L + k):
 *
 *   short in a review cycle   = E[B(L+R, IP)] − E[B(L, IP)]          (B(t, y) = E[(D(t) − y)⁺])
 *   fill rate                 = 1 − short / (μ R)
 *   end-of-period on hand     = (1/R) Σ_{k=1..R} E[(IP − D(L+k))⁺]
 *
 * A continuous-review (r,Q) formula over the lead time alone, which the meio step used before, leaves out both the
 * review period and the position's undershoot below r when a large demand crosses it: with weekly releases it promised
 * 95 % and delivered 82–87 % in the service backtest (docs/SERVICE_BACKTEST.md).
 */
import type { LeadTimeDemand } from './leadTimeDemand';
import { smallestLevel } from './rq';

export interface PeriodicDemand {
  /** demand over the net lead time L */
  lead: LeadTimeDemand;
  /** demand over L + k periods for k = 1..R; the last is the protection interval */
  ends: readonly LeadTimeDemand[];
  /** mean demand per period */
  periodMean: number;
}

export interface PeriodicEvaluation {
  fillRate: number;
  /** P(D(L+R) ≤ lowest position after a review): no stock-out in a cycle that starts as low as the policy lets it */
  cycleServiceLevel: number;
  /** backorders at the end of a period, averaged over the review cycle */
  expectedBackorders: number;
  /** on hand at the end of a period, averaged over the review cycle */
  expectedOnHand: number;
}

/** E[B(t, IP)] with IP uniform on the window above r (w = 0: IP = r). */
export function windowBackorders(d: LeadTimeDemand, r: number, window: number): number {
  if (!(window > 0)) return d.loss(r);
  return (d.secondLoss(r) - d.secondLoss(r + window)) / window;
}

/** The mean position in the window: r + (w + 1)/2 on the integers, r + w/2 on the line. */
export function meanPosition(d: LeadTimeDemand, r: number, window: number): number {
  return d.kind === 'discrete' ? r + (window + 1) / 2 : r + window / 2;
}

export function periodicFillRate(p: PeriodicDemand, r: number, window: number): number {
  const cover = p.ends[p.ends.length - 1];
  const perCycle = p.periodMean * p.ends.length;
  if (!(perCycle > 0)) return 1;
  const short = windowBackorders(cover, r, window) - windowBackorders(p.lead, r, window);
  return Math.min(1, Math.max(0, 1 - short / perCycle));
}

/** The lowest level a review leaves the position at: r + 1 on the integers (r itself triggers an order), r on the line. */
export function lowestPosition(d: LeadTimeDemand, r: number): number {
  return d.kind === 'discrete' ? r + 1 : r;
}

export function evaluatePeriodic(p: PeriodicDemand, r: number, window: number): PeriodicEvaluation {
  const position = meanPosition(p.lead, r, window);
  let backorders = 0, onHand = 0;
  for (const d of p.ends) {
    const b = windowBackorders(d, r, window);
    backorders += b;
    onHand += position - d.mean + b;
  }
  const R = p.ends.length;
  return {
    fillRate: periodicFillRate(p, r, window),
    cycleServiceLevel: p.ends[R - 1].cdf(lowestPosition(p.ends[R - 1], r)),
    expectedBackorders: backorders / R,
    expectedOnHand: onHand / R,
  };
}

/**
 * The smallest r whose fill rate reaches beta. The shortage per cycle, E[(D(L+R) − y)⁺ − (D(L) − y)⁺] averaged over
 * the window, falls as y rises (its slope is P(D(L) > y) − P(D(L+R) > y) ≤ 0), so the fill rate rises with r and a
 * bisection is exact on the integers.
 */
export function levelForPeriodicFillRate(p: PeriodicDemand, window: number, beta: number): number {
  if (!(beta > 0 && beta < 1)) throw new RangeError(`fill rate target must lie in (0,1), got ${beta}`);
  // every position of the window at or below zero fills nothing; the cover's top fills everything
  return smallestLevel((r) => periodicFillRate(p, r, window) >= beta, p.ends[p.ends.length - 1], -Math.max(1, Math.ceil(window)), window);
}

/** The smallest r whose lowest position after a review is the protection interval's alpha quantile. */
export function levelForPeriodicCycleService(p: PeriodicDemand, alpha: number): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`cycle service level must lie in (0,1), got ${alpha}`);
  const cover = p.ends[p.ends.length - 1];
  const q = cover.quantile(alpha);
  return cover.kind === 'discrete' ? q - 1 : q;
}
