/**
 * Small numeric helpers shared by the forecasting engines. Pure and allocation-light; every function works on
 * ArrayLike<number> (plain arrays and typed arrays alike).
 */

/** A Float64Array copy of y (so engines never alias or mutate the caller's data). */
export function toFloat64(y: ArrayLike<number>): Float64Array {
  const out = new Float64Array(y.length);
  for (let i = 0; i < y.length; i++) out[i] = y[i];
  return out;
}

/** The horizon as a non-negative integer (NaN or negative → 0). */
export function horizon(h: number): number {
  return Number.isFinite(h) && h > 0 ? Math.floor(h) : 0;
}

/** The seasonal period as an integer >= 1 (non-integer periods are rounded, nonsense → 1). */
export function seasonalPeriod(period: number | undefined): number {
  return period !== undefined && Number.isFinite(period) && period >= 2 ? Math.round(period) : 1;
}

/** Mean of y[from..to). NaN for an empty range. */
export function mean(y: ArrayLike<number>, from = 0, to = y.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += y[i];
  return s / (to - from);
}

/** Sample variance (denominator n-1); 0 when fewer than two values. */
export function variance(y: ArrayLike<number>, from = 0, to = y.length): number {
  const n = to - from;
  if (n < 2) return 0;
  const mu = mean(y, from, to);
  let s = 0;
  for (let i = from; i < to; i++) s += (y[i] - mu) * (y[i] - mu);
  return s / (n - 1);
}

/** Sample standard deviation (denominator n-1); 0 when fewer than two values. */
export function sd(y: ArrayLike<number>, from = 0, to = y.length): number {
  return Math.sqrt(variance(y, from, to));
}

/** True when all values are equal up to a relative tolerance of 1e-10 (R's is.constant, with float slack). */
export function isConstant(y: ArrayLike<number>): boolean {
  if (y.length === 0) return true;
  let lo = y[0];
  let hi = y[0];
  for (let i = 1; i < y.length; i++) {
    if (y[i] < lo) lo = y[i];
    if (y[i] > hi) hi = y[i];
  }
  return hi - lo <= 1e-10 * Math.max(1, Math.abs(lo), Math.abs(hi));
}

/** Minimum of y (Infinity when empty). */
export function min(y: ArrayLike<number>): number {
  let m = Infinity;
  for (let i = 0; i < y.length; i++) if (y[i] < m) m = y[i];
  return m;
}

/**
 * Standard normal quantile, Wichura's algorithm AS241 (PPND16), accurate to about 1e-16 — the algorithm R's qnorm
 * uses. qnorm(0.975) = 1.959963984540054.
 */
export function qnorm(p: number): number {
  if (Number.isNaN(p)) return NaN;
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (
      (q *
        (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r + 67265.770927008700853) * r + 45921.953931549871457) * r +
          13731.693765509461125) *
          r +
          1971.5909503065514427) *
          r +
          133.14166789178437745) *
          r +
          3.387132872796366608)) /
      (((((((r * 5226.495278852545925 + 28729.085735721942674) * r + 39307.89580009271061) * r + 21213.794301586595867) * r +
        5394.1960214247511077) *
        r +
        687.1870074920579083) *
        r +
        42.313330701600911252) *
        r +
        1.0)
    );
  }
  let r = q < 0 ? p : 1 - p;
  r = Math.sqrt(-Math.log(r));
  let val: number;
  if (r <= 5) {
    r -= 1.6;
    val =
      (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r + 0.24178072517745061177) * r + 1.27045825245236838258) * r +
        3.64784832476320460504) *
        r +
        5.7694972214606914055) *
        r +
        4.6303378461565452959) *
        r +
        1.42343711074968357734) /
      (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r + 0.14810397642748007459) * r +
        0.68976733498510000455) *
        r +
        1.6763848301838038494) *
        r +
        2.05319162663775882187) *
        r +
        1.0);
  } else {
    r -= 5;
    val =
      (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r + 0.026532189526576123093) * r +
        0.29656057182850489123) *
        r +
        1.7848265399172913358) *
        r +
        5.4637849111641143699) *
        r +
        6.6579046435011037772) /
      (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r +
        0.0148753612908506148525) *
        r +
        0.13692988092273580531) *
        r +
        0.59983220655588793769) *
        r +
        1.0);
  }
  return q < 0 ? -val : val;
}

/**
 * The two-sided normal multiplier for a central interval of the given coverage: level 0.9 → 1.6449. A level above 1
 * (and below 100) is read as a percentage (90 → 0.9). Levels outside (0, 1) after that give 0 (a degenerate interval).
 */
export function levelToZ(level: number): number {
  let l = level;
  if (l > 1 && l < 100) l /= 100;
  if (!(l > 0 && l < 1)) return 0;
  return qnorm(0.5 + l / 2);
}

/**
 * Symmetric normal intervals mean ± z·se. A non-finite or negative standard error counts as 0, so the result never
 * holds NaN when the mean is finite and lower <= mean <= upper always holds.
 */
export function normalIntervals(meanF: Float64Array, se: Float64Array, level: number): { lower: Float64Array; upper: Float64Array } {
  const z = levelToZ(level);
  const h = meanF.length;
  const lower = new Float64Array(h);
  const upper = new Float64Array(h);
  for (let i = 0; i < h; i++) {
    const s = Number.isFinite(se[i]) && se[i] > 0 ? se[i] : 0;
    lower[i] = meanF[i] - z * s;
    upper[i] = meanF[i] + z * s;
  }
  return { lower, upper };
}

/**
 * Sample autocorrelations r_0..r_maxLag as R's acf: r_k = Σ (y_t - ȳ)(y_{t+k} - ȳ) / Σ (y_t - ȳ)². All zero (r_0 = 1)
 * for a constant series.
 */
export function acf(y: ArrayLike<number>, maxLag: number): Float64Array {
  const n = y.length;
  const out = new Float64Array(maxLag + 1);
  const mu = mean(y);
  let d = 0;
  for (let t = 0; t < n; t++) d += (y[t] - mu) * (y[t] - mu);
  out[0] = 1;
  if (d === 0) return out;
  for (let k = 1; k <= maxLag && k < n; k++) {
    let s = 0;
    for (let t = 0; t + k < n; t++) s += (y[t] - mu) * (y[t + k] - mu);
    out[k] = s / d;
  }
  return out;
}

/** Least-squares line through (t0 + i, y[i]) for i in [0, len): intercept at t = 0 and slope. One point → slope 0. */
export function linearFit(y: ArrayLike<number>, t0 = 0, len = y.length): { intercept: number; slope: number } {
  const n = len;
  if (n === 0) return { intercept: 0, slope: 0 };
  if (n === 1) return { intercept: y[0], slope: 0 };
  const tm = t0 + (n - 1) / 2;
  const ym = mean(y, 0, n);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    const dt = t0 + i - tm;
    sxy += dt * (y[i] - ym);
    sxx += dt * dt;
  }
  const slope = sxy / sxx;
  return { intercept: ym - slope * tm, slope };
}

/**
 * Solves the k×k system A x = b (A row-major, both copied) by Gaussian elimination with partial pivoting.
 * Returns null when A is (numerically) singular.
 */
export function solveLinear(A: ArrayLike<number>, b: ArrayLike<number>, k: number): Float64Array | null {
  const a = Float64Array.from(A as ArrayLike<number>);
  const x = Float64Array.from(b as ArrayLike<number>);
  let scale = 0;
  for (let i = 0; i < k * k; i++) scale = Math.max(scale, Math.abs(a[i]));
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(a[r * k + c]) > Math.abs(a[p * k + c])) p = r;
    if (Math.abs(a[p * k + c]) <= 1e-13 * scale || a[p * k + c] === 0) return null;
    if (p !== c) {
      for (let j = 0; j < k; j++) {
        const t = a[c * k + j];
        a[c * k + j] = a[p * k + j];
        a[p * k + j] = t;
      }
      const t = x[c];
      x[c] = x[p];
      x[p] = t;
    }
    for (let r = c + 1; r < k; r++) {
      const f = a[r * k + c] / a[c * k + c];
      if (f === 0) continue;
      for (let j = c; j < k; j++) a[r * k + j] -= f * a[c * k + j];
      x[r] -= f * x[c];
    }
  }
  for (let r = k - 1; r >= 0; r--) {
    let s = x[r];
    for (let j = r + 1; j < k; j++) s -= a[r * k + j] * x[j];
    x[r] = s / a[r * k + r];
  }
  return x;
}

export type DecompositionType = 'additive' | 'multiplicative';

/**
 * Classical decomposition as R's decompose(): centred moving-average trend (2×m MA for even m), seasonal figure = mean
 * of the detrended values per position (position 0 = the first observation), normalised to mean 0 (additive) or
 * mean 1 (multiplicative). Needs n >= 2m; returns null otherwise (or when a multiplicative figure is not finite).
 * `seasonal` is the figure repeated over the n observations.
 */
export function decompose(
  y: ArrayLike<number>,
  m: number,
  type: DecompositionType,
  n = y.length,
): { figure: Float64Array; seasonal: Float64Array; trend: Float64Array } | null {
  if (m < 2 || n < 2 * m) return null;
  const trend = new Float64Array(n).fill(NaN);
  const half = Math.floor(m / 2);
  const even = m % 2 === 0;
  for (let t = half; t < n - half; t++) {
    let s = 0;
    if (even) {
      s = 0.5 * (y[t - half] + y[t + half]);
      for (let j = -half + 1; j <= half - 1; j++) s += y[t + j];
    } else {
      for (let j = -half; j <= half; j++) s += y[t + j];
    }
    trend[t] = s / m;
  }
  const sum = new Float64Array(m);
  const cnt = new Float64Array(m);
  for (let t = 0; t < n; t++) {
    if (Number.isNaN(trend[t])) continue;
    const d = type === 'additive' ? y[t] - trend[t] : y[t] / trend[t];
    if (!Number.isFinite(d)) continue;
    sum[t % m] += d;
    cnt[t % m] += 1;
  }
  const figure = new Float64Array(m);
  let fm = 0;
  for (let j = 0; j < m; j++) {
    if (cnt[j] === 0) return null;
    figure[j] = sum[j] / cnt[j];
    fm += figure[j] / m;
  }
  for (let j = 0; j < m; j++) {
    if (type === 'additive') figure[j] -= fm;
    else figure[j] = fm === 0 ? NaN : figure[j] / fm;
    if (!Number.isFinite(figure[j])) return null;
  }
  const seasonal = new Float64Array(n);
  for (let t = 0; t < n; t++) seasonal[t] = figure[t % m];
  return { figure, seasonal, trend };
}
