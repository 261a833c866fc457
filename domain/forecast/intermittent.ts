/**
 * Intermittent-demand methods: Croston, SBA, TSB, ADIDA and IMAPA, with honest per-period prediction intervals.
 *
 * Conventions (all methods):
 * - Demand is y_t > 0; zero, negative and non-finite values count as "no demand" (negative corrected history is
 *   clipped to 0: these methods model a non-negative compound process).
 * - Inter-demand intervals follow R's forecast::croston and statsforecast: the first interval is the position of
 *   the first demand counted from the start of the series (leading zeros count). With params.trimLeadingZeros the
 *   periods before the first demand are treated as "not yet launched": they are dropped and the interval smoother
 *   starts at the mean interval of the remaining history (length / number of demands).
 * - Smoothers start at their first observation (first size, first interval), as R's croston and statsforecast.
 * - All-zero series: forecast 0, interval [0, 0], fitted 0. fitted is NaN before the first demand otherwise.
 *
 * Methods:
 * - croston: ẑ and x̂ are simple exponential smoothing of the non-zero sizes and of the intervals (one α for both,
 *   default 0.1); forecast ẑ/x̂. params.optimize picks α in [0.05, 0.3] minimising the in-sample MSE of the
 *   one-step demand forecasts (grid of 0.01 then golden section).
 * - sba: Croston × (1 − α/2) (Syntetos & Boylan 2005).
 * - tsb: Teunter, Syntetos & Babai (2011): occurrence probability p̂ updated every period (β, default 0.1:
 *   p̂ += β(1[y>0] − p̂)), size ẑ updated at demands only (α, default 0.1); forecast p̂·ẑ. p̂ starts at the share of
 *   non-zero periods, ẑ at the first size. params.optimize: α, β ∈ [0.05, 0.3] by in-sample MSE.
 * - adida: Nikolopoulos et al. (2011): k = round(mean inter-demand interval); sum y into non-overlapping buckets of k
 *   periods aligned to the end of the series (the oldest n mod k periods are dropped); SES on the bucket totals
 *   (level starts at the first bucket; α optimised in [0.1, 0.3] by in-sample SSE unless params.alpha is given or
 *   params.optimize is false, as statsforecast); forecast = SES level / k per period.
 * - imapa: mean of the ADIDA forecasts for every aggregation level 1..k (Petropoulos & Kourentzes 2015).
 *
 * Prediction intervals (all methods): a compound Bernoulli–gamma model of one period's demand. Demand occurs with
 * probability p̂ (Croston/SBA: 1/x̂; TSB: p̂; ADIDA/IMAPA: 1/mean interval); a demand's size is gamma with mean
 * f/p̂ (so the model's mean equals the point forecast f) and the shape 1/CV² of the observed non-zero sizes (method
 * of moments; exponential, shape 1, when fewer than two demands; a point mass when all sizes are equal). The bounds
 * are the per-period quantiles (1 ∓ level)/2 of that mixture: a quantile τ <= 1 − p̂ is 0, otherwise the size
 * quantile (τ − (1 − p̂))/p̂. They are not quantiles of cumulative demand over the horizon. Because the lower tail of
 * an intermittent series is an atom at 0, the realised coverage of [lower, upper] is usually above the nominal level
 * (e.g. ≈95 % for a 90 % interval when p̂ < 0.95): the interval is the central one the contract asks for, and a
 * planner reading the upper bound as the (1 + level)/2 quantile gets what it says. The test suite checks coverage
 * on simulated Bernoulli–gamma series.
 */
import { normalQuantile } from './linalg';
import type { ForecastOptions, ForecastResult, Forecaster } from './types';

// ---------------------------------------------------------------------------------------------------------------
// gamma distribution (regularised incomplete gamma and its inverse)

function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularised lower incomplete gamma P(a, x). */
export function gammaP(a: number, x: number): number {
  if (!(x > 0)) return 0;
  if (!Number.isFinite(x)) return 1;
  const lead = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    let ap = a;
    let del = 1 / a;
    let sum = del;
    for (let i = 0; i < 10000; i++) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * 1e-16) break;
    }
    return Math.min(1, sum * Math.exp(lead));
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return Math.max(0, 1 - Math.exp(lead) * h);
}

/** Quantile of a gamma distribution with the given shape and scale (Newton with bisection safeguard). */
export function gammaQuantile(p: number, shape: number, scale: number): number {
  if (!(p > 0)) return 0;
  if (p >= 1) return Infinity;
  const a = shape;
  // starting point: Wilson–Hilferty, or the lower-tail approximation for small shapes
  const z = normalQuantile(p);
  let x = a * Math.pow(1 - 1 / (9 * a) + z / (3 * Math.sqrt(a)), 3);
  if (!(x > 0) || a < 1) {
    const lower = Math.exp((Math.log(p) + logGamma(a + 1)) / a);
    if (!(x > 0) || lower < x) x = lower;
  }
  let lo = 0;
  let hi = Math.max(x, a) * 2 + 1;
  while (gammaP(a, hi) < p) hi *= 2;
  const lg = logGamma(a);
  for (let iter = 0; iter < 200; iter++) {
    const f = gammaP(a, x) - p;
    if (f < 0) lo = x;
    else hi = x;
    const dens = Math.exp((a - 1) * Math.log(x) - x - lg);
    let nx = dens > 0 ? x - f / dens : NaN;
    if (!(nx > lo && nx < hi)) nx = 0.5 * (lo + hi);
    if (Math.abs(nx - x) <= 1e-12 * Math.max(1e-300, x)) {
      x = nx;
      break;
    }
    x = nx;
    if (hi - lo <= 1e-14 * hi) break;
  }
  return x * scale;
}

// ---------------------------------------------------------------------------------------------------------------
// shared preparation

interface Prepared {
  y: Float64Array;
  n: number;
  /** indices of the demand periods */
  idx: number[];
  sizes: number[];
  /** first index considered part of the history (0, or the first demand when trimming leading zeros) */
  start: number;
  trim: boolean;
}

function prepare(yIn: ArrayLike<number>, params: ForecastOptions['params']): Prepared {
  const n = yIn.length;
  const y = new Float64Array(n);
  const idx: number[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = yIn[i];
    y[i] = Number.isFinite(v) && v > 0 ? v : 0;
    if (y[i] > 0) {
      idx.push(i);
      sizes.push(y[i]);
    }
  }
  const trim = params?.trimLeadingZeros === true;
  return { y, n, idx, sizes, start: trim && idx.length ? idx[0] : 0, trim };
}

function numParam(params: ForecastOptions['params'], key: string): number | undefined {
  const v = params?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Inter-demand intervals as the smoothers see them (the first one from the start of the series). */
function intervalsOf(pr: Prepared): number[] {
  const { idx, n, trim, start } = pr;
  const out: number[] = [];
  for (let k = 0; k < idx.length; k++) {
    if (k === 0) out.push(trim ? (n - start) / idx.length : idx[0] + 1);
    else out.push(idx[k] - idx[k - 1]);
  }
  return out;
}

function zeroResult(method: string, n: number, h: number, params: Record<string, number | string | boolean>): ForecastResult {
  return {
    method,
    mean: new Float64Array(h),
    lower: new Float64Array(h),
    upper: new Float64Array(h),
    fitted: new Float64Array(n),
    params,
  };
}

/** Shape of the size distribution: method of moments on the observed sizes (Infinity = all sizes equal). */
function sizeShape(sizes: number[]): number {
  if (sizes.length < 2) return 1;
  let mu = 0;
  for (const s of sizes) mu += s;
  mu /= sizes.length;
  let v = 0;
  for (const s of sizes) v += (s - mu) * (s - mu);
  v /= sizes.length - 1;
  if (!(v > 1e-12 * mu * mu)) return Infinity;
  return (mu * mu) / v;
}

/** Quantile τ of one period's demand: 0 with probability 1 − p, else Gamma(shape, mean sizeMean). */
export function compoundQuantile(tau: number, p: number, sizeMean: number, shape: number): number {
  if (!(p > 0) || !(sizeMean > 0)) return 0;
  const pp = Math.min(1, p);
  if (tau <= 1 - pp) return 0;
  const u = (tau - (1 - pp)) / pp;
  if (shape === Infinity || shape > 1e8) return sizeMean;
  return gammaQuantile(u, shape, sizeMean / shape);
}

function finish(
  method: string,
  pr: Prepared,
  f: number,
  p: number,
  h: number,
  level: number,
  fitted: Float64Array,
  params: Record<string, number | string | boolean>,
): ForecastResult {
  const mean = new Float64Array(h).fill(f);
  const pp = Math.min(1, Math.max(p, 0));
  const shape = sizeShape(pr.sizes);
  const sizeMean = pp > 0 ? f / pp : 0;
  const lo = compoundQuantile((1 - level) / 2, pp, sizeMean, shape);
  const hi = compoundQuantile((1 + level) / 2, pp, sizeMean, shape);
  const lower = new Float64Array(h).fill(Math.min(lo, f));
  const upper = new Float64Array(h).fill(Math.max(hi, f));
  return {
    method,
    mean,
    lower,
    upper,
    fitted,
    params: { ...params, occurrence: pp, sizeMean, sizeShape: Number.isFinite(shape) ? shape : -1 },
  };
}

function mse(y: Float64Array, fitted: Float64Array, from: number): number {
  let s = 0;
  let c = 0;
  for (let t = from; t < y.length; t++) {
    const f = fitted[t];
    if (Number.isNaN(f)) continue;
    s += (y[t] - f) * (y[t] - f);
    c++;
  }
  return c ? s / c : Infinity;
}

/** Minimises f on [lo, hi]: grid of step 0.01, then golden section around the best grid point. Deterministic. */
function minimise1d(f: (a: number) => number, lo: number, hi: number): number {
  const steps = Math.max(1, Math.round((hi - lo) / 0.01));
  let best = lo;
  let bestV = Infinity;
  for (let i = 0; i <= steps; i++) {
    const a = lo + ((hi - lo) * i) / steps;
    const v = f(a);
    if (v < bestV) {
      bestV = v;
      best = a;
    }
  }
  let a = Math.max(lo, best - (hi - lo) / steps);
  let b = Math.min(hi, best + (hi - lo) / steps);
  const gr = (Math.sqrt(5) - 1) / 2;
  let c = b - gr * (b - a);
  let d = a + gr * (b - a);
  let fc = f(c);
  let fd = f(d);
  for (let i = 0; i < 30; i++) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - gr * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + gr * (b - a);
      fd = f(d);
    }
  }
  const x = (a + b) / 2;
  return f(x) <= bestV ? x : best;
}

// ---------------------------------------------------------------------------------------------------------------
// Croston and SBA

interface CrostonState {
  z: number;
  x: number;
  fitted: Float64Array;
}

function crostonRun(pr: Prepared, alpha: number, factor: number): CrostonState {
  const { idx, n, y } = pr;
  const iv = intervalsOf(pr);
  const fitted = new Float64Array(n).fill(NaN);
  let z = y[idx[0]];
  let x = iv[0];
  for (let k = 1; k <= idx.length; k++) {
    if (k > 1) {
      z += alpha * (y[idx[k - 1]] - z);
      x += alpha * (iv[k - 1] - x);
    }
    const end = k < idx.length ? idx[k] : n - 1;
    const f = (factor * z) / x;
    for (let t = idx[k - 1] + 1; t <= end; t++) fitted[t] = f;
  }
  return { z, x, fitted };
}

function crostonFamily(name: 'croston' | 'sba', yIn: ArrayLike<number>, h: number, opts: ForecastOptions): ForecastResult {
  const pr = prepare(yIn, opts.params);
  if (pr.idx.length === 0) return zeroResult(name, pr.n, h, { alpha: numParam(opts.params, 'alpha') ?? 0.1, z: 0, x: 0 });
  const sbaFactor = (a: number) => (name === 'sba' ? 1 - a / 2 : 1);
  let alpha = numParam(opts.params, 'alpha') ?? 0.1;
  const optimize = opts.params?.optimize === true;
  if (optimize && pr.idx.length >= 3)
    alpha = minimise1d((a) => mse(pr.y, crostonRun(pr, a, sbaFactor(a)).fitted, pr.start), 0.05, 0.3);
  const st = crostonRun(pr, alpha, sbaFactor(alpha));
  const f = (sbaFactor(alpha) * st.z) / st.x;
  return finish(name, pr, f, 1 / st.x, h, opts.level, st.fitted, { alpha, z: st.z, x: st.x, optimized: optimize });
}

/** Croston's method (classic: one α for sizes and intervals, default 0.1; params.optimize for α ∈ [0.05, 0.3]). */
export const croston: Forecaster = (y, h, opts) => crostonFamily('croston', y, h, opts);

/** Syntetos–Boylan approximation: Croston × (1 − α/2). */
export const sba: Forecaster = (y, h, opts) => crostonFamily('sba', y, h, opts);

// ---------------------------------------------------------------------------------------------------------------
// TSB

function tsbRun(pr: Prepared, alpha: number, beta: number): { p: number; z: number; fitted: Float64Array } {
  const { y, n, idx, start } = pr;
  const fitted = new Float64Array(n).fill(NaN);
  let p = idx.length / (n - start);
  let z = y[idx[0]];
  for (let t = start; t < n; t++) {
    if (t > idx[0]) fitted[t] = p * z;
    if (y[t] > 0) {
      p += beta * (1 - p);
      z += alpha * (y[t] - z);
    } else {
      p -= beta * p;
    }
  }
  return { p, z, fitted };
}

/** Teunter–Syntetos–Babai: α smooths the sizes, β the occurrence probability (defaults 0.1, 0.1; params.optimize). */
export const tsb: Forecaster = (yIn, h, opts) => {
  const pr = prepare(yIn, opts.params);
  let alpha = numParam(opts.params, 'alpha') ?? 0.1;
  let beta = numParam(opts.params, 'beta') ?? 0.1;
  if (pr.idx.length === 0) return zeroResult('tsb', pr.n, h, { alpha, beta, p: 0, z: 0 });
  const optimize = opts.params?.optimize === true;
  if (optimize && pr.idx.length >= 3) {
    // coordinate search: β for fixed α, α for that β, β again
    const obj = (a: number, b: number) => mse(pr.y, tsbRun(pr, a, b).fitted, pr.start);
    beta = minimise1d((b) => obj(alpha, b), 0.05, 0.3);
    alpha = minimise1d((a) => obj(a, beta), 0.05, 0.3);
    beta = minimise1d((b) => obj(alpha, b), 0.05, 0.3);
  }
  const st = tsbRun(pr, alpha, beta);
  return finish('tsb', pr, st.p * st.z, st.p, h, opts.level, st.fitted, { alpha, beta, p: st.p, z: st.z, optimized: optimize });
};

// ---------------------------------------------------------------------------------------------------------------
// ADIDA and IMAPA

function sesRun(x: Float64Array, alpha: number): { level: number; sse: number } {
  let l = x[0];
  let sse = 0;
  for (let b = 1; b < x.length; b++) {
    const e = x[b] - l;
    sse += e * e;
    l += alpha * e;
  }
  return { level: l, sse };
}

function aggregate(pr: Prepared, k: number): { agg: Float64Array; start: number } {
  const from = pr.start;
  const len = pr.n - from;
  const nb = Math.max(1, Math.floor(len / k));
  const kk = Math.min(k, len);
  const start = pr.n - nb * kk;
  const agg = new Float64Array(nb);
  for (let b = 0; b < nb; b++) {
    let s = 0;
    for (let t = start + b * kk; t < start + (b + 1) * kk; t++) s += pr.y[t];
    agg[b] = s;
  }
  return { agg, start };
}

interface AdidaOut {
  f: number;
  alpha: number;
  fitted: Float64Array;
  k: number;
}

function adidaAt(pr: Prepared, k: number, alphaFixed: number | undefined, optimize: boolean): AdidaOut {
  const { agg, start } = aggregate(pr, k);
  const kk = agg.length > 0 ? Math.min(k, pr.n - pr.start) : k;
  let alpha = alphaFixed ?? 0.1;
  if (alphaFixed === undefined && optimize && agg.length >= 3) alpha = minimise1d((a) => sesRun(agg, a).sse, 0.1, 0.3);
  const fitted = new Float64Array(pr.n).fill(NaN);
  let l = agg[0];
  for (let b = 1; b < agg.length; b++) {
    for (let t = start + b * kk; t < start + (b + 1) * kk; t++) fitted[t] = l / kk;
    l += alpha * (agg[b] - l);
  }
  return { f: l / kk, alpha, fitted, k: kk };
}

function meanInterval(pr: Prepared): number {
  const iv = intervalsOf(pr);
  let s = 0;
  for (const v of iv) s += v;
  return s / iv.length;
}

/** ADIDA: SES on non-overlapping buckets of round(mean interval) periods, divided back per period. */
export const adida: Forecaster = (yIn, h, opts) => {
  const pr = prepare(yIn, opts.params);
  if (pr.idx.length === 0) return zeroResult('adida', pr.n, h, { k: 1, alpha: 0.1 });
  const xbar = meanInterval(pr);
  const k = Math.max(1, Math.round(xbar));
  const alphaFixed = numParam(opts.params, 'alpha');
  const optimize = opts.params?.optimize !== false;
  const out = adidaAt(pr, k, alphaFixed, optimize);
  return finish('adida', pr, out.f, 1 / xbar, h, opts.level, out.fitted, { k: out.k, alpha: out.alpha, meanInterval: xbar });
};

/** IMAPA: the mean of ADIDA forecasts over aggregation levels 1..round(mean interval). */
export const imapa: Forecaster = (yIn, h, opts) => {
  const pr = prepare(yIn, opts.params);
  if (pr.idx.length === 0) return zeroResult('imapa', pr.n, h, { levels: 1 });
  const xbar = meanInterval(pr);
  const kmax = Math.max(1, Math.round(xbar));
  const alphaFixed = numParam(opts.params, 'alpha');
  const optimize = opts.params?.optimize !== false;
  let f = 0;
  const fitted = new Float64Array(pr.n);
  const counts = new Float64Array(pr.n);
  for (let k = 1; k <= kmax; k++) {
    const out = adidaAt(pr, k, alphaFixed, optimize);
    f += out.f;
    for (let t = 0; t < pr.n; t++)
      if (!Number.isNaN(out.fitted[t])) {
        fitted[t] += out.fitted[t];
        counts[t]++;
      }
  }
  f /= kmax;
  // a period's fitted value is the mean over the levels that define it, NaN where none does
  for (let t = 0; t < pr.n; t++) fitted[t] = counts[t] ? fitted[t] / counts[t] : NaN;
  return finish('imapa', pr, f, 1 / xbar, h, opts.level, fitted, { levels: kmax, meanInterval: xbar });
};
