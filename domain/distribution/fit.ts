/**
 * Demand distribution fitting for one series. Pure: numbers in, numbers out; no database, no Temporal.
 *
 * Sample. The finite values of `y` (NaN dropped), optionally aggregated over `aggregate` = k periods (lead-time
 * demand): sums of consecutive non-overlapping blocks of k periods aligned on the most recent period (the oldest
 * n mod k periods are dropped), or with `overlapping: true` all n - k + 1 rolling sums (more samples, but dependent,
 * so the KS p-values are then optimistic).
 *
 * Candidates and estimation
 * - normal {mu, sigma}: sample mean and sample standard deviation (n - 1). Always tried.
 * - gamma {shape, rate}: maximum likelihood, Newton on the shape for log(shape) - digamma(shape) = log(mean) -
 *   mean(log y), rate = shape / mean (@stdlib's gamma uses the rate, not the scale). Only for strictly positive
 *   samples: with zeros the gamma likelihood is degenerate (log 0), and a zero-inflated gamma is not worth its extra
 *   parameter here (the empirical fallback covers such series), so gamma is skipped.
 * - poisson {lambda}: lambda = mean (the MLE). Only for non-negative integer samples (within 1e-6).
 * - negative_binomial {r, p}: method of moments in @stdlib's parameterisation, the number of failures before the r-th
 *   success with success probability p: mean = r(1-p)/p, variance = r(1-p)/p², so p = mean / var and r = mean² /
 *   (var - mean) (r need not be an integer). Only for non-negative integer samples whose variance exceeds the mean
 *   significantly: the dispersion index (n-1)·var/mean must exceed the 95 % point of χ²(n-1) (Wilson-Hilferty
 *   approximation). As r → ∞ the negative binomial tends to the Poisson, so with a merely larger sample variance it
 *   would win on the KS statistic by its extra parameter; the test keeps Poisson data Poisson.
 * Parametric candidates need at least 3 values.
 *
 * Selection. Each candidate gets the Kolmogorov-Smirnov statistic D = sup |F_n - F| against its fitted CDF. For the
 * discrete families the comparison is between two right-continuous step functions on the integers, so the supremum is
 * taken at each distinct sample value v and just before it (F at v - 1). For continuous families, at v and v⁻ (F(v)
 * compared with the ECDF before and after the jump; this handles ties). p-value: the asymptotic Kolmogorov
 * distribution, P(K > (√n + 0.12 + 0.11/√n)·D) (Stephens' small-sample adjustment). These p-values are approximate and
 * too large when parameters are estimated from the same sample (Lilliefors) and conservative for discrete families;
 * they serve as a sanity floor, not a formal test. The best candidate is the one with the smallest D; when every
 * parametric candidate has p < 0.05 (or none applies) the result falls back to the empirical distribution.
 *
 * Reported values. `mean` and `std` are those of the fitted distribution (empirical: sample mean and std, n - 1).
 * `service_level_quantiles` maps each quantile (as a string, e.g. "0.95") to the fitted distribution's quantile;
 * normal quantiles are floored at 0 when the sample is non-negative; empirical quantiles interpolate linearly between
 * order statistics (R type 7). The empirical fit has params {n}, ks_statistic 0 and ks_pvalue 1 (its own ECDF).
 *
 * Degenerate samples. No value, all zeros, or a constant sample → one empirical fit with std 0 and every quantile
 * equal to the value (0 when empty); `selection` = 'degenerate'.
 */
import gammaCdf from '@stdlib/stats-base-dists-gamma-cdf';
import gammaQuantile from '@stdlib/stats-base-dists-gamma-quantile';
import nbCdf from '@stdlib/stats-base-dists-negative-binomial-cdf';
import nbQuantile from '@stdlib/stats-base-dists-negative-binomial-quantile';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import poissonCdf from '@stdlib/stats-base-dists-poisson-cdf';
import poissonQuantile from '@stdlib/stats-base-dists-poisson-quantile';
import { sortedQuantile } from '../outlier/detect';

export type DistributionType = 'normal' | 'gamma' | 'poisson' | 'negative_binomial' | 'empirical';

export interface Fit {
  distribution_type: DistributionType;
  mean: number;
  std: number;
  /** normal {mu, sigma}; gamma {shape, rate}; poisson {lambda}; negative_binomial {r, p} (@stdlib); empirical {n} */
  params: Record<string, number>;
  ks_statistic: number;
  ks_pvalue: number;
  /** quantile (as a string, e.g. "0.95") → demand */
  service_level_quantiles: Record<string, number>;
}

export interface DistributionOptions {
  /** default [0.5, 0.8, 0.9, 0.95, 0.98, 0.99] */
  quantiles?: number[];
  /** lead-time aggregation in periods (default 1) */
  aggregate?: number;
  /** rolling instead of non-overlapping sums when aggregate > 1 (default false) */
  overlapping?: boolean;
}

export interface DistributionResult {
  best: Fit;
  /** parametric fits, smallest KS statistic first, then the empirical fit when it was chosen */
  candidates: Fit[];
  /** sample size after dropping NaN and aggregating */
  n: number;
  selection: 'ks' | 'empirical_fallback' | 'degenerate';
}

export const DEFAULT_QUANTILES: readonly number[] = [0.5, 0.8, 0.9, 0.95, 0.98, 0.99];
const MIN_PARAMETRIC = 3;
const INTEGER_TOLERANCE = 1e-6;
const FALLBACK_PVALUE = 0.05;

// ---------------------------------------------------------------- special functions

/** digamma ψ(x), x > 0: recurrence up to x ≥ 10, then the asymptotic series */
export function digamma(x: number): number {
  let r = 0;
  while (x < 10) {
    r -= 1 / x;
    x += 1;
  }
  const f = 1 / (x * x);
  return r + Math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))));
}

/** trigamma ψ'(x), x > 0 */
export function trigamma(x: number): number {
  let r = 0;
  while (x < 10) {
    r += 1 / (x * x);
    x += 1;
  }
  const f = 1 / (x * x);
  return r + 1 / x + f / 2 + (f / x) * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f * (1 / 30 - (f * 5) / 66))));
}

/**
 * Kolmogorov distribution P(K ≤ x), K = sup|B(t)| of the Brownian bridge:
 * x < 1.18: √(2π)/x Σ_{k≥1} exp(-(2k-1)²π²/(8x²)); otherwise 1 - 2 Σ_{k≥1} (-1)^{k-1} exp(-2k²x²).
 */
export function kolmogorovCdf(x: number): number {
  return 1 - kolmogorovSurvival(x);
}

/** P(K > x), computed directly for large x to keep precision */
export function kolmogorovSurvival(x: number): number {
  if (!(x > 0)) return 1;
  if (x < 1.18) {
    const w = (Math.PI * Math.PI) / (8 * x * x);
    let s = 0;
    for (let k = 1; k <= 20; k++) {
      const t = Math.exp(-(2 * k - 1) * (2 * k - 1) * w);
      s += t;
      if (t < 1e-17 * s) break;
    }
    return 1 - (Math.sqrt(2 * Math.PI) / x) * s;
  }
  let s = 0;
  for (let k = 1; k <= 100; k++) {
    const t = Math.exp(-2 * k * k * x * x);
    s += k % 2 === 1 ? t : -t;
    if (t < 1e-17) break;
  }
  return Math.min(1, Math.max(0, 2 * s));
}

/** approximate KS p-value for a sample of n: P(K > (√n + 0.12 + 0.11/√n)·D) */
export function ksPValue(d: number, n: number): number {
  if (n <= 0) return 1;
  const sn = Math.sqrt(n);
  return kolmogorovSurvival((sn + 0.12 + 0.11 / sn) * d);
}

/**
 * KS statistic of an ascending-sorted sample against a CDF. Discrete: integer support, both step functions are
 * compared at every distinct value v and at v - 1; continuous: F(v) against the ECDF just before and at v.
 */
export function ksStatistic(sorted: ArrayLike<number>, cdf: (x: number) => number, discrete = false): number {
  const n = sorted.length;
  let d = 0;
  let below = 0; // ECDF just before the current value
  for (let i = 0; i < n;) {
    const v = sorted[i];
    let j = i + 1;
    while (j < n && sorted[j] === v) j++;
    const at = j / n;
    const f = cdf(v);
    const fBefore = discrete ? cdf(v - 1) : f;
    d = Math.max(d, Math.abs(at - f), Math.abs(below - fBefore));
    below = at;
    i = j;
  }
  return d;
}

// ---------------------------------------------------------------- sample helpers

function sampleFrom(y: ArrayLike<number>, k: number, overlapping: boolean): Float64Array {
  const x: number[] = [];
  for (let i = 0; i < y.length; i++) if (Number.isFinite(y[i])) x.push(y[i]);
  if (k <= 1) return Float64Array.from(x);
  const out: number[] = [];
  if (overlapping) {
    let s = 0;
    for (let i = 0; i < x.length; i++) {
      s += x[i];
      if (i >= k) s -= x[i - k];
      if (i >= k - 1) out.push(s);
    }
    // recompute exactly to avoid drift from the running sum
    for (let b = 0; b < out.length; b++) {
      let t = 0;
      for (let i = b; i < b + k; i++) t += x[i];
      out[b] = t;
    }
  } else {
    for (let end = x.length; end - k >= 0; end -= k) {
      let s = 0;
      for (let i = end - k; i < end; i++) s += x[i];
      out.unshift(s);
    }
  }
  return Float64Array.from(out);
}

function quantileMap(quantiles: readonly number[], f: (q: number) => number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const q of quantiles) out[String(q)] = f(q);
  return out;
}

/** gamma MLE shape: Newton on log k - ψ(k) = s, s = log(mean) - mean(log x) > 0 */
export function gammaShapeMle(s: number): number {
  let k = (3 - s + Math.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s); // Minka's starting point, within 1.5 %
  for (let it = 0; it < 50; it++) {
    const f = Math.log(k) - digamma(k) - s;
    const fp = 1 / k - trigamma(k);
    let next = k - f / fp;
    if (!(next > 0)) next = k / 2;
    const done = Math.abs(next - k) <= 1e-12 * k;
    k = next;
    if (done) break;
  }
  return k;
}

/** upper 95 % point of χ²(ν), Wilson-Hilferty */
function chiSquare95(nu: number): number {
  const a = 2 / (9 * nu);
  return nu * (1 - a + 1.6448536269514722 * Math.sqrt(a)) ** 3;
}

// ---------------------------------------------------------------- fitting

/** Sample mean and standard deviation (n - 1; 0 below two values). */
function moments(sample: ArrayLike<number>): { mean: number; variance: number } {
  const n = sample.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sample[i];
  const mean = n ? sum / n : 0;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (sample[i] - mean) ** 2;
  return { mean, variance: n > 1 ? ss / (n - 1) : 0 };
}

/**
 * The empirical distribution of the sample: sample mean and std, quantiles interpolated between order statistics
 * (R type 7; 0 for an empty sample), params {n}, ks_statistic 0 and ks_pvalue 1 (its own ECDF).
 */
export function empiricalFit(sample: ArrayLike<number>, quantiles: readonly number[] = DEFAULT_QUANTILES): Fit {
  const n = sample.length;
  const sorted = Float64Array.from(sample).sort();
  const { mean, variance } = moments(sample);
  return {
    distribution_type: 'empirical', mean, std: Math.sqrt(variance), params: { n }, ks_statistic: 0, ks_pvalue: 1,
    service_level_quantiles: quantileMap(quantiles, (q) => (n ? sortedQuantile(sorted, q) : 0)),
  };
}

export function fitDistributions(y: ArrayLike<number>, opts: DistributionOptions = {}): DistributionResult {
  const quantiles = opts.quantiles ?? DEFAULT_QUANTILES;
  for (const q of quantiles) if (!(q > 0 && q < 1)) throw new RangeError(`quantile ${q} is not in (0, 1)`);
  const k = opts.aggregate ?? 1;
  if (!Number.isInteger(k) || k < 1) throw new RangeError('aggregate must be an integer >= 1');

  const sample = sampleFrom(y, k, opts.overlapping ?? false);
  const n = sample.length;
  const sorted = Float64Array.from(sample).sort();
  const { mean, variance } = moments(sample);
  const std = Math.sqrt(variance);

  if (n === 0 || sorted[0] === sorted[n - 1]) {
    const v = n ? sorted[0] : 0;
    const fit: Fit = {
      distribution_type: 'empirical', mean: v, std: 0, params: { n }, ks_statistic: 0, ks_pvalue: 1,
      service_level_quantiles: quantileMap(quantiles, () => v),
    };
    return { best: fit, candidates: [fit], n, selection: 'degenerate' };
  }

  const nonNegative = sorted[0] >= 0;
  const positive = sorted[0] > 0;
  const integer = nonNegative && sample.every((v) => Math.abs(v - Math.round(v)) <= INTEGER_TOLERANCE);
  // discrete families see the sample rounded to integers
  const ints = integer ? sorted.map(Math.round) : sorted;
  const candidates: Fit[] = [];
  const add = (type: DistributionType, fMean: number, fStd: number, params: Record<string, number>, x: ArrayLike<number>, cdf: (v: number) => number, discrete: boolean, quant: (q: number) => number): void => {
    const d = ksStatistic(x, cdf, discrete);
    candidates.push({
      distribution_type: type, mean: fMean, std: fStd, params, ks_statistic: d, ks_pvalue: ksPValue(d, n),
      service_level_quantiles: quantileMap(quantiles, quant),
    });
  };

  if (n >= MIN_PARAMETRIC) {
    const mu = mean;
    const sigma = std;
    add('normal', mu, sigma, { mu, sigma }, sorted, (v) => normalCdf(v, mu, sigma), false, (q) => {
      const v = normalQuantile(q, mu, sigma);
      return nonNegative ? Math.max(0, v) : v;
    });

    if (positive) {
      let logSum = 0;
      for (const v of sample) logSum += Math.log(v);
      const s = Math.log(mean) - logSum / n;
      if (s > 0) {
        const shape = gammaShapeMle(s);
        const rate = shape / mean;
        add('gamma', shape / rate, Math.sqrt(shape) / rate, { shape, rate }, sorted, (v) => gammaCdf(v, shape, rate), false, (q) => gammaQuantile(q, shape, rate));
      }
    }

    if (integer) {
      const lambda = mean;
      add('poisson', lambda, Math.sqrt(lambda), { lambda }, ints, (v) => poissonCdf(v, lambda), true, (q) => poissonQuantile(q, lambda));
      if (variance > mean && ((n - 1) * variance) / mean > chiSquare95(n - 1)) {
        const p = mean / variance;
        const r = (mean * mean) / (variance - mean);
        add('negative_binomial', (r * (1 - p)) / p, Math.sqrt(r * (1 - p)) / p, { r, p }, ints, (v) => nbCdf(v, r, p), true, (q) => nbQuantile(q, r, p));
      }
    }
  }

  candidates.sort((a, b) => a.ks_statistic - b.ks_statistic);
  if (candidates.length && candidates.some((c) => c.ks_pvalue >= FALLBACK_PVALUE)) {
    return { best: candidates[0], candidates, n, selection: 'ks' };
  }
  const empirical = empiricalFit(sample, quantiles);
  candidates.push(empirical);
  return { best: empirical, candidates, n, selection: 'empirical_fallback' };
}
