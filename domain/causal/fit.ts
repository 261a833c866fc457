/**
 * Failure-rate fit from actual demand and usage (core-service.md §4.10 `POST failure-rate/fit`; docs/CAUSAL.md).
 * Part demand is taken as a Poisson process in usage: N events over an exposure E = Σ qty_per_asset × usage. The
 * maximum-likelihood rate is N / E and its exact (Garwood) interval comes from the gamma quantiles:
 *   lower = Γ⁻¹(α/2; N, 1) / E (0 when N = 0),  upper = Γ⁻¹(1 − α/2; N + 1, 1) / E,  α = 1 − confidence.
 */
import gammaQuantile from '@stdlib/stats-base-dists-gamma-quantile';
import { dayNumber } from '../time/weeks';
import type { UsageRow } from './engine';

export interface RateFit {
  rate: number;
  ci_lower: number;
  ci_upper: number;
  confidence: number;
  n_events: number;
  exposure: number;
}

export function fitPoissonRate(events: number, exposure: number, confidence = 0.95): RateFit {
  if (!(exposure > 0)) throw new RangeError('exposure must be above 0');
  if (!(events >= 0)) throw new RangeError('events must be 0 or more');
  if (!(confidence > 0 && confidence < 1)) throw new RangeError('confidence must lie strictly between 0 and 1');
  const a = 1 - confidence;
  const lower = events > 0 ? gammaQuantile(a / 2, events, 1) / exposure : 0;
  const upper = gammaQuantile(1 - a / 2, events + 1, 1) / exposure;
  return { rate: events / exposure, ci_lower: lower, ci_upper: upper, confidence, n_events: events, exposure };
}

/**
 * Usage inside [from, to] (both inclusive) of the rows: each period's total prorated by the days it shares with the
 * window (a 30-day period half inside counts half).
 */
export function usageInWindow(rows: readonly Pick<UsageRow, 'period_start' | 'period_end' | 'total_usage'>[], from: string, to: string): number {
  const f = dayNumber(from);
  const t = dayNumber(to);
  let sum = 0;
  for (const r of rows) {
    const s = dayNumber(r.period_start);
    const e = dayNumber(r.period_end);
    const overlap = Math.min(e, t) - Math.max(s, f) + 1;
    if (overlap > 0) sum += (r.total_usage * overlap) / (e - s + 1);
  }
  return sum;
}
