/**
 * Intervals of causal demand (core-service.md §4.10 `POST uncertainty`; docs/CAUSAL.md). A week's causal demand μ is
 * the mean of a count: Poisson (variance μ) when failures are independent, negative binomial with size r (variance
 * μ + μ²/r) when they cluster. The interval is [q(α/2), q(1 − α/2)] of that distribution, α = 1 − confidence; q(p) is
 * the smallest count whose CDF reaches p.
 */

import gammaQuantile from '@stdlib/stats-base-dists-gamma-quantile';

export type CountDistribution = 'poisson' | 'negative_binomial';

/** Beyond this many terms the sum is replaced by a gamma of the same mean and variance (accurate for large counts). */
const MAX_TERMS = 200_000;

/** Quantiles of a count of mean mu and variance v from the gamma with the same two moments, rounded up. */
function gammaApprox(mu: number, v: number, ps: readonly number[]): number[] {
  const shape = (mu * mu) / v;
  const rate = mu / v;
  return ps.map((p) => Math.max(0, Math.ceil(gammaQuantile(p, shape, rate) - 0.5)));
}

/** Log of the count's probabilities k = 0, 1, ... by the ratio of consecutive terms (no factorials, no overflow). */
function quantiles(logP0: number, ratio: (k: number) => number, ps: readonly number[], maxK: number): number[] {
  const out: number[] = new Array(ps.length).fill(maxK);
  const done = ps.map(() => false);
  let logP = logP0;
  let cdf = 0;
  for (let k = 0; k <= maxK; k += 1) {
    cdf += Math.exp(logP);
    for (let i = 0; i < ps.length; i += 1) {
      if (!done[i] && cdf >= ps[i] - 1e-12) {
        out[i] = k;
        done[i] = true;
      }
    }
    if (done.every(Boolean)) break;
    logP += Math.log(ratio(k));
  }
  return out;
}

export function poissonQuantiles(mu: number, ps: readonly number[]): number[] {
  if (!(mu > 0)) return ps.map(() => 0);
  const maxK = Math.ceil(mu + 40 * Math.sqrt(mu) + 40);
  if (maxK > MAX_TERMS) return gammaApprox(mu, mu, ps);
  return quantiles(-mu, (k) => mu / (k + 1), ps, maxK);
}

/** Negative binomial of mean mu and size r (variance mu + mu²/r). */
export function negBinomialQuantiles(mu: number, r: number, ps: readonly number[]): number[] {
  if (!(mu > 0)) return ps.map(() => 0);
  if (!(r > 0)) throw new RangeError('dispersion (size r) must be above 0');
  const q = mu / (r + mu);
  const sd = Math.sqrt(mu + (mu * mu) / r);
  const maxK = Math.ceil(mu + 60 * sd + 60);
  if (maxK > MAX_TERMS) return gammaApprox(mu, sd * sd, ps);
  return quantiles(r * Math.log(r / (r + mu)), (k) => ((k + r) / (k + 1)) * q, ps, maxK);
}

export interface Interval { lower: number; upper: number }

export function countInterval(mu: number, confidence: number, distribution: CountDistribution, dispersion?: number): Interval {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError('confidence must lie strictly between 0 and 1');
  const a = 1 - confidence;
  const ps = [a / 2, 1 - a / 2];
  const [lower, upper] = distribution === 'poisson' ? poissonQuantiles(mu, ps) : negBinomialQuantiles(mu, dispersion ?? 1, ps);
  return { lower, upper };
}
