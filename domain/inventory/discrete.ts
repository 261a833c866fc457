/**
 * Probability mass functions on the non-negative integers, stored as plain arrays indexed by the demand value, and
 * the exact loss functions built from them. Every discrete engine (lead-time demand, (r,Q), (s,S), base stock) reads
 * its distribution through `DiscreteDistribution` so the formulas exist once.
 */

/**
 * Upper-tail mass dropped when a pmf has unbounded support. Far below 1e-12 because the dropped tail biases the
 * loss functions by about tail * support width (first order) and tail * width^2 / 2 (second order).
 */
export const TAIL_MASS = 1e-15;

export interface DiscreteDistribution {
  readonly kind: 'discrete';
  /** pmf[k] = P(D = k), k = 0..pmf.length-1; the dropped upper tail is below TAIL_MASS (1e-15). */
  readonly pmf: readonly number[];
  readonly mean: number;
  readonly variance: number;
  /** P(D <= x) for real x. */
  cdf(x: number): number;
  /** Smallest integer k with P(D <= k) >= p. */
  quantile(p: number): number;
  /** First-order loss n(x) = E[(D - x)+], exact for real x. */
  loss(x: number): number;
  /**
   * Second-order loss n2(x) = 1/2 E[(D - x)+ (D - x - 1)+] = sum_{y > x} n(y) for integer x (Zipkin 2000, C.2.3), so
   * that a discrete (r,Q) policy has E[backorders] = [n2(r) - n2(r+Q)] / Q. Non-integer x is rounded down because
   * the discrete (r,Q) formulas only ever evaluate it at integers.
   */
  secondLoss(x: number): number;
}

export function pmfMean(pmf: readonly number[]): number {
  let m = 0;
  for (let k = 1; k < pmf.length; k++) m += k * pmf[k]!;
  return m;
}

export function pmfVariance(pmf: readonly number[], mean = pmfMean(pmf)): number {
  let v = 0;
  for (let k = 0; k < pmf.length; k++) v += (k - mean) * (k - mean) * pmf[k]!;
  return v;
}

/** Drops the upper tail once it holds less than `tailMass`; keeps at least one entry. */
export function trimUpperTail(pmf: readonly number[], tailMass = TAIL_MASS): number[] {
  let tail = 0;
  let end = pmf.length;
  while (end > 1 && tail + pmf[end - 1]! < tailMass) {
    tail += pmf[end - 1]!;
    end--;
  }
  return pmf.slice(0, end);
}

export function convolve(a: readonly number[], b: readonly number[]): number[] {
  const out = new Array<number>(a.length + b.length - 1).fill(0);
  for (let i = 0; i < a.length; i++) {
    const ai = a[i]!;
    if (ai === 0) continue;
    for (let j = 0; j < b.length; j++) out[i + j]! += ai * b[j]!;
  }
  return out;
}

/** n-fold convolution by repeated squaring; trimming after each product keeps the work bounded by the real support. */
export function convolutionPower(pmf: readonly number[], n: number, tailMass = TAIL_MASS): number[] {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`convolution power must be a non-negative integer, got ${n}`);
  let result: number[] = [1];
  let base = trimUpperTail(pmf, tailMass);
  let k = n;
  while (k > 0) {
    if (k & 1) result = trimUpperTail(convolve(result, base), tailMass);
    k >>= 1;
    if (k > 0) base = trimUpperTail(convolve(base, base), tailMass);
  }
  return result;
}

export function mixPmfs(parts: readonly { weight: number; pmf: readonly number[] }[]): number[] {
  const length = Math.max(...parts.map((p) => p.pmf.length));
  const out = new Array<number>(length).fill(0);
  for (const { weight, pmf } of parts) for (let k = 0; k < pmf.length; k++) out[k]! += weight * pmf[k]!;
  return out;
}

/**
 * Builds a pmf from the ratio f(k+1)/f(k), starting at the mode in log space: recursing from the mode avoids the
 * underflow of exp(-mean) for large means, and the final normalisation removes the rounding error of the log start.
 * `ratioBound(k)` bounds f(j+1)/f(j) for all j >= k, so that f(k) * bound / (1 - bound) bounds the upper tail.
 */
function pmfFromRatios(
  mode: number,
  logPmfAtMode: number,
  ratio: (k: number) => number,
  ratioBound: (k: number) => number,
  tailMass: number,
): number[] {
  const values: number[] = [];
  values[mode] = Math.exp(logPmfAtMode);
  for (let k = mode; k > 0; k--) values[k - 1] = values[k]! / ratio(k - 1);
  let k = mode;
  for (;;) {
    const bound = ratioBound(k);
    if (bound < 1 && (values[k]! * bound) / (1 - bound) < tailMass * 1e-3) break;
    values[k + 1] = values[k]! * ratio(k);
    k++;
  }
  const total = values.reduce((s, v) => s + v, 0);
  return trimUpperTail(
    values.map((v) => v / total),
    tailMass,
  );
}

export function poissonPmf(mean: number, tailMass = TAIL_MASS): number[] {
  if (!(mean >= 0) || !Number.isFinite(mean)) throw new RangeError(`Poisson mean must be finite and >= 0, got ${mean}`);
  if (mean === 0) return [1];
  const mode = Math.floor(mean);
  const logAtMode = mode * Math.log(mean) - mean - logFactorial(mode);
  return pmfFromRatios(mode, logAtMode, (k) => mean / (k + 1), (k) => mean / (k + 1), tailMass);
}

/**
 * Negative binomial counting failures before the r-th success with success probability p (scipy's nbinom and
 * @stdlib's parameterisation): f(k) = C(k+r-1, k) p^r (1-p)^k, mean r(1-p)/p, variance r(1-p)/p^2. r may be real.
 */
export function negativeBinomialPmf(r: number, p: number, tailMass = TAIL_MASS): number[] {
  if (!(r > 0) || !(p > 0 && p <= 1)) throw new RangeError(`negative binomial needs r > 0 and 0 < p <= 1, got r=${r} p=${p}`);
  if (p === 1) return [1];
  const q = 1 - p;
  const mode = r > 1 ? Math.floor(((r - 1) * q) / p) : 0;
  const logAtMode = logGamma(mode + r) - logGamma(r) - logFactorial(mode) + r * Math.log(p) + mode * Math.log(q);
  const ratio = (k: number) => ((k + r) * q) / (k + 1);
  // The ratio decreases in k when r >= 1 and increases towards q when r < 1.
  const bound = r >= 1 ? ratio : () => q;
  return pmfFromRatios(mode, logAtMode, ratio, bound, tailMass);
}

/** Point mass at each value with equal weight; values are rounded to integers because the pmf lives on integers. */
export function empiricalPmf(values: readonly number[]): number[] {
  if (values.length === 0) throw new RangeError('empirical distribution needs at least one value');
  const counts: number[] = [];
  for (const v of values) {
    if (!(v >= 0) || !Number.isFinite(v)) throw new RangeError(`empirical demand values must be finite and >= 0, got ${v}`);
    const k = Math.round(v);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return Array.from(counts, (c) => (c ?? 0) / values.length);
}

/**
 * Wraps a pmf with precomputed tail sums so that cdf, loss and second-order loss are O(1) per call. Tail sums are
 * accumulated from the top, never as 1 - F, so far-tail losses keep their relative precision.
 */
export function discreteDistribution(
  pmfIn: readonly number[],
  moments?: { mean: number; variance: number },
): DiscreteDistribution {
  if (pmfIn.length === 0) throw new RangeError('pmf must not be empty');
  const pmf = pmfIn.slice();
  const n = pmf.length;
  const mean = moments?.mean ?? pmfMean(pmf);
  const variance = moments?.variance ?? pmfVariance(pmf, mean);
  // tail[k] = P(D > k), loss1[k] = n(k), loss2[k] = n2(k), for k = 0..n-1; all vanish at k >= n-1 except tail.
  const tail = new Float64Array(n);
  const loss1 = new Float64Array(n);
  const loss2 = new Float64Array(n);
  for (let k = n - 2; k >= 0; k--) {
    tail[k] = tail[k + 1]! + pmf[k + 1]!;
    loss1[k] = loss1[k + 1]! + tail[k]!;
    loss2[k] = loss2[k + 1]! + loss1[k + 1]!;
  }

  const cdf = (x: number): number => {
    if (x < 0) return 0;
    const k = Math.floor(x);
    return k >= n - 1 ? 1 : Math.min(1, 1 - tail[k]!);
  };
  const quantile = (p: number): number => {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`probability must lie in [0,1], got ${p}`);
    let lo = 0;
    let hi = n - 1;
    const below = (k: number) => cdf(k) >= p;
    if (!below(hi)) return hi;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (below(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const loss = (x: number): number => {
    if (x < 0) return mean - x;
    const k = Math.floor(x);
    if (k >= n - 1) return 0;
    return loss1[k]! - (x - k) * tail[k]!;
  };
  const secondLoss = (xIn: number): number => {
    const x = Math.floor(xIn);
    if (x < 0) {
      const d = mean - x;
      return 0.5 * (variance + d * d - d);
    }
    return x >= n - 1 ? 0 : loss2[x]!;
  };
  return { kind: 'discrete', pmf, mean, variance, cdf, quantile, loss, secondLoss };
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7, ~1e-15 relative). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

const SMALL_LOG_FACTORIALS: number[] = (() => {
  const out = [0];
  for (let k = 1; k <= 256; k++) out.push(out[k - 1]! + Math.log(k));
  return out;
})();

export function logFactorial(k: number): number {
  return k <= 256 ? SMALL_LOG_FACTORIALS[k]! : logGamma(k + 1);
}
