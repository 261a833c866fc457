/**
 * Exponential smoothing in innovations state-space form, ETS(Error, Trend, Season), after Hyndman, Koehler, Ord &
 * Snyder (2008) "Forecasting with Exponential Smoothing" and R's forecast::ets.
 *
 * Models: error A|M × trend N|A|Ad × season N|A|M, except additive error with multiplicative season (R's
 * restrict = TRUE) and multiplicative trend (R's allow.multiplicative.trend = FALSE): ANN, AAN, AAdN, ANA, AAA, AAdA,
 * MNN, MAN, MAdN, MNA, MAA, MAdA, MNM, MAM, MAdM. Multiplicative error or season only when min(y) > 0.
 *
 * Estimation (as R): maximum likelihood, minimising n·log(SSE) + 2·Σ log|ŷ_t| (the last term for multiplicative error)
 * over α ∈ [1e-4, 0.9999], β ∈ [1e-4, α], γ ∈ [1e-4, 1 − α], φ ∈ [0.8, 0.98] and the initial states, with Nelder–Mead
 * (optim.ts). The relational bounds are built into the change of variables (β = 1e-4 + (α − 1e-4)·logistic(z), …), so
 * the search is unconstrained; seasonal models must also be admissible (forecastable: all roots of R's characteristic
 * polynomial inside the unit circle, checked with the Schur–Cohn recursion instead of a root finder). Starting values
 * are R's initparam() and initstate(): level/trend from a regression on the first max(10, 2m) seasonally adjusted
 * points, seasonal indices from a classical decomposition (n >= 3m) or, for 2m <= n < 3m, from the per-position mean
 * of the data detrended by R's trend + one-harmonic regression (R takes the first cycle only; the mean is less noisy).
 * Initial level and trend are always optimised; the m − 1 free initial seasonal states are optimised when m <= 24 (as
 * R, which refuses seasonal models above 24) and kept at the decomposition values for longer periods (weekly data,
 * m = 52), where optimising 51 more coordinates would cost two orders of magnitude more time for little likelihood.
 * They still count as estimated parameters in the information criteria.
 *
 * Speed (a few hundred µs per model): the recursion keeps the seasonal states in one array indexed by time (no
 * shifting, O(n) per evaluation, no allocation); seasonal models are optimised in two stages (smoothing parameters and
 * level/trend with the seasonal states fixed, then all coordinates from there with 40 evaluations per coordinate);
 * the O(m²) admissibility test is skipped where the usual bounds imply it (no trend) and otherwise applied only if the
 * unconstrained optimum turns out inadmissible (then the search is rerun with it); non-seasonal trend models get a
 * second start at large α, β, where R's single start often misses the better optimum. On R's datasets the
 * likelihoods reached are equal to or better than R's.
 *
 * Seasonal models need period > 1 and n >= 2·period (weekly: 104 points); otherwise only non-seasonal models are
 * fitted. A model is fitted only when n >= (number of estimated parameters) + 5, R's rule (ANN needs 7 points, AAN 9,
 * AAdN 10). With less data the fixed-model forecasters fall back to a simpler model (HW → Holt → SES), then to SES
 * with the first observation as initial level (R's ses(initial = "simple"), n >= 4), then to naive (n <= 3); the result's
 * params.fallback says what happened. A constant series (incl. all zeros) gives a flat forecast with zero-width
 * intervals, like R (which fits SES with α = 0.99999 there).
 *
 * Information criteria use the full Gaussian likelihood −2 log L = n·log(SSE/n) + n·(1 + log 2π) + 2·Σ log|ŷ_t|
 * (so they are comparable with other likelihood-based methods); R reports n·log(SSE) + 2·Σ log|ŷ_t|, i.e. ours minus
 * n·(1 + log 2π − log n). Model ranking is identical. The parameter count includes σ, as R.
 *
 * Forecast means are the point forecasts of the state equations (for multiplicative error that is the conditional
 * mean up to h = m; beyond, for multiplicative seasonality, it is the point forecast, not the slightly larger mean).
 * Prediction-interval variances (Hyndman et al. 2008, ch. 6; R's class1/class2):
 *   class 1 (ANN … AAdA):  v_h = σ²·(1 + Σ_{j<h} c_j²),  c_j = α + β·(φ + … + φ^j) + γ·[j ≡ 0 mod m]
 *   class 2 (MNN … MAdA):  v_h = (1 + σ²)·θ_h − μ_h²,  θ_h = μ_h² + σ²·Σ_{j<h} c_j²·θ_{h−j}
 *   class 3 (MNM, MAM, MAdM): the approximation of Hyndman, Koehler, Ord & Snyder (2005, J. Forecasting 24), which
 *     treats the seasonal and the level/trend components as independent:
 *     v_h = s_h²·[θ̃_h·(1 + σ²)·(1 + γ²σ²)^k − μ̃_h²], k = ⌊(h−1)/m⌋, with μ̃, θ̃, c̃ the non-seasonal part.
 *     It is exact for h <= m and close when γ·σ is small; R computes an exact but O((2m)³·h) recursion, far too
 *     slow for m = 52. No simulation is used anywhere, so results are deterministic.
 */
import type { ForecastOptions, ForecastResult, Forecaster } from './types';
import { nelderMead, toBox, fromBox } from './optim';
import { decompose, horizon, isConstant, linearFit, min as minOf, normalIntervals, sd, seasonalPeriod, solveLinear, toFloat64 } from './stats';
import { naive } from './simple';

export type EtsErrorType = 'A' | 'M';
export type EtsTrendType = 'N' | 'A';
export type EtsSeasonType = 'N' | 'A' | 'M';

export interface EtsSpec {
  error: EtsErrorType;
  trend: EtsTrendType;
  damped: boolean;
  season: EtsSeasonType;
}

export interface EtsFitOptions {
  /** fixed smoothing parameters (not estimated, not counted as parameters) */
  alpha?: number;
  beta?: number;
  gamma?: number;
  phi?: number;
  /** fixed initial level / trend (not estimated) */
  l0?: number;
  b0?: number;
  /** optimise the m − 1 free initial seasonal states (default: m <= 24) */
  optimizeSeasonalInit?: boolean;
  /** Nelder–Mead evaluation budget (default 120·d + 300 for d optimised coordinates) */
  maxEvals?: number;
  /** skip the minimum-length rule (used by the short-series fallback) */
  allowShort?: boolean;
}

export interface EtsFit {
  spec: EtsSpec;
  /** e.g. "ETS(M,Ad,N)" */
  name: string;
  m: number;
  n: number;
  alpha: number;
  beta: number;
  gamma: number;
  phi: number;
  l0: number;
  b0: number;
  /** initial seasonal states: s0[j] is the seasonal state applied to observation j (j < m) */
  s0: Float64Array;
  /** states after the last observation; season[k] applies to observations n + k, n + k + m, … */
  level: number;
  trend: number;
  season: Float64Array;
  fitted: Float64Array;
  /** y − ŷ (additive error) or (y − ŷ)/ŷ (multiplicative error) */
  residuals: Float64Array;
  sse: number;
  sigma2: number;
  /** estimated parameters excluding σ */
  k: number;
  loglik: number;
  aic: number;
  aicc: number;
  bic: number;
  evaluations: number;
}

export const ALPHA_LO = 1e-4;
export const ALPHA_HI = 0.9999;
export const PHI_LO = 0.8;
export const PHI_HI = 0.98;
/** longest period whose initial seasonal states are optimised */
export const MAX_OPTIMISED_SEASON = 24;
/** evaluation budget per coordinate of the joint (second) stage when the seasonal states are optimised */
let STAGE2_EVALS_PER_DIM = 40;
/** test hook for tuning */
export function setStage2Budget(v: number): void {
  STAGE2_EVALS_PER_DIM = v;
}

export function etsName(s: EtsSpec): string {
  return `ETS(${s.error},${s.trend}${s.trend !== 'N' && s.damped ? 'd' : ''},${s.season})`;
}

/**
 * Parses "AAdN", "MNM", "ZZZ", "AZN"… (R's model strings, 'd' after the trend for damping). Z means "select".
 * Throws on anything else.
 */
export function parseEtsModel(model: string): { error: string; trend: string; damped: boolean | undefined; season: string } {
  const m = /^([AMZ])([NAZ])(d?)([NAMZ])$/.exec(model);
  if (!m) throw new Error(`ets: unknown model "${model}" (expected e.g. ZZZ, ANN, AAdN, MAM)`);
  if (m[3] && m[2] !== 'A') throw new Error(`ets: damping needs an additive trend in "${model}"`);
  return { error: m[1], trend: m[2], damped: m[3] ? true : undefined, season: m[4] };
}

// ---------------------------------------------------------------------------------------------------------------
// the recursion

const SEASON_NONE = 0;
const SEASON_ADD = 1;
const SEASON_MULT = 2;

/**
 * One pass of the state equations. S[0..m) must hold the initial seasonal states (S[i] is the state applied to
 * observation i); S[i + m] receives the state updated with observation i. out = [level, trend, sse, Σ log ŷ].
 * Returns n·log(SSE) + 2·Σ log ŷ (R's "lik"), or Infinity when a one-step forecast is not positive under a
 * multiplicative error or the states blow up.
 */
function recurse(
  y: Float64Array,
  n: number,
  m: number,
  errM: boolean,
  season: number,
  alpha: number,
  beta: number,
  gamma: number,
  phi: number,
  l0: number,
  b0: number,
  S: Float64Array,
  fitted: Float64Array | null,
  out: Float64Array,
): number {
  let l = l0;
  let b = b0;
  let sse = 0;
  // Σ log ŷ is accumulated as the log of running products (one Math.log per ~100 steps instead of one per step)
  let slog = 0;
  let prod = 1;
  if (!errM) {
    // additive error: the same state updates for every seasonal type supported (none or additive)
    if (season === SEASON_ADD) {
      for (let i = 0; i < n; i++) {
        const phib = phi * b;
        const q = l + phib;
        const s = S[i];
        const f = q + s;
        const e = y[i] - f;
        l = q + alpha * e;
        b = phib + beta * e;
        S[i + m] = s + gamma * e;
        sse += e * e;
        if (fitted !== null) fitted[i] = f;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const phib = phi * b;
        const f = l + phib;
        const e = y[i] - f;
        l = f + alpha * e;
        b = phib + beta * e;
        sse += e * e;
        if (fitted !== null) fitted[i] = f;
      }
    }
  } else if (season === SEASON_MULT) {
    for (let i = 0; i < n; i++) {
      const phib = phi * b;
      const q = l + phib;
      const s = S[i];
      const f = q * s;
      if (!(f > 0)) return Infinity;
      const e = (y[i] - f) / f;
      const r = q * e;
      l = q + alpha * r;
      b = phib + beta * r;
      S[i + m] = s * (1 + gamma * e);
      sse += e * e;
      prod *= f;
      if (prod > 1e200 || prod < 1e-200) {
        slog += Math.log(prod);
        prod = 1;
      }
      if (fitted !== null) fitted[i] = f;
    }
  } else {
    const add = season === SEASON_ADD;
    for (let i = 0; i < n; i++) {
      const phib = phi * b;
      const q = l + phib;
      const s = add ? S[i] : 0;
      const f = q + s;
      if (!(f > 0)) return Infinity;
      const r = y[i] - f;
      const e = r / f;
      l = q + alpha * r;
      b = phib + beta * r;
      if (add) S[i + m] = s + gamma * r;
      sse += e * e;
      prod *= f;
      if (prod > 1e200 || prod < 1e-200) {
        slog += Math.log(prod);
        prod = 1;
      }
      if (fitted !== null) fitted[i] = f;
    }
  }
  slog += Math.log(prod);
  out[0] = l;
  out[1] = b;
  out[2] = sse;
  out[3] = slog;
  if (!Number.isFinite(sse) || !Number.isFinite(l)) return Infinity;
  const lik = n * Math.log(Math.max(sse, 1e-300)) + 2 * slog;
  return lik < -1e10 ? -1e10 : lik;
}

// Schur–Cohn scratch, grown on demand
let scBuf = new Float64Array(64);

/**
 * True when all roots of a[0]·z^d + a[1]·z^(d−1) + … + a[d] (a[0] ≠ 0) have modulus <= radius (strictly: < radius,
 * by the Schur–Cohn step-down recursion on the polynomial rescaled to the unit circle). O(d²), no allocation.
 */
export function rootsWithin(a: ArrayLike<number>, radius = 1): boolean {
  const d = a.length - 1;
  if (scBuf.length < d + 1) scBuf = new Float64Array(d + 1);
  const p = scBuf;
  const lead = a[0];
  let r = 1;
  for (let i = 0; i <= d; i++) {
    p[i] = a[i] / lead / r; // coefficient of z^(d−i) of P(radius·z)/radius^d
    r *= radius;
  }
  for (let deg = d; deg >= 1; deg--) {
    const p0 = p[0];
    const k = p[deg] / p0;
    if (!(Math.abs(k) < 1)) return false;
    // step down in place: p_i ← p_i − k·p_(deg−i) for i < deg, pairwise from both ends
    for (let i = 0, j = deg; i <= j; i++, j--) {
      const a = p[i];
      const b = p[j];
      p[i] = a - k * b;
      if (i !== j) p[j] = b - k * a;
    }
  }
  return true;
}

let polyBuf = new Float64Array(64);

/**
 * R's admissibility test for ETS parameters (forecast:::admissible / EtsTargetFunction::admissible): the damping and
 * the easy inequalities, then all roots of the characteristic polynomial of the discount matrix within the unit
 * circle (1e-6 slack, R allows 1e-10). beta = 0 without trend, phi = 1 without damping.
 */
export function etsAdmissible(alpha: number, beta: number, gamma: number, phi: number, m: number, seasonal: boolean, trend: boolean): boolean {
  if (phi < 0 || phi > 1 + 1e-8) return false;
  if (!seasonal) {
    if (alpha < 1 - 1 / phi || alpha > 1 + 1 / phi) return false;
    if (trend && (beta < alpha * (phi - 1) || beta > (1 + phi) * (2 - alpha))) return false;
    return true;
  }
  const b = trend ? beta : 0;
  if (gamma < Math.max(-alpha, 1 - 1 / phi - alpha) || gamma > 1 + 1 / phi - alpha) return false;
  if (alpha < 1 - 1 / phi - (gamma * (1 - m + phi + phi * m)) / (2 * phi * m)) return false;
  if (b < -(1 - phi) * (gamma / m + alpha)) return false;
  const d = m + 1;
  if (polyBuf.length < d + 1) polyBuf = new Float64Array(d + 1);
  const p = polyBuf.subarray(0, d + 1);
  p[0] = 1;
  p[1] = alpha + b - phi;
  for (let i = 2; i < m; i++) p[i] = alpha + b - alpha * phi;
  p[m] = alpha + b - alpha * phi + gamma - 1;
  p[m + 1] = phi * (1 - alpha - gamma);
  return rootsWithin(p, 1 + 1e-6);
}

// ---------------------------------------------------------------------------------------------------------------
// starting values

interface InitialStates {
  l0: number;
  b0: number;
  /** length m (1 for non-seasonal), seasonal state applied to observation j */
  s: Float64Array;
}

/** R's initstate(), see the module comment for the one deviation. */
export function initialStates(y: Float64Array, trend: EtsTrendType, season: EtsSeasonType, m: number): InitialStates {
  const n = y.length;
  let s = new Float64Array(1);
  const mult = season === 'M';
  const mm = season === 'N' ? 1 : m;
  const maxn = Math.min(Math.max(10, 2 * mm), n);
  const ysa = new Float64Array(maxn);
  if (season !== 'N') {
    let fig: Float64Array | null = null;
    if (n >= 3 * m) fig = decompose(y, m, mult ? 'multiplicative' : 'additive')?.figure ?? null;
    if (fig === null) fig = harmonicSeasonal(y, m, mult);
    s = new Float64Array(m);
    if (mult) {
      let tot = 0;
      for (let j = 0; j < m; j++) {
        s[j] = Math.max(fig[j], 0.01);
        tot += s[j];
      }
      for (let j = 0; j < m; j++) s[j] *= m / tot;
    } else {
      let tot = 0;
      for (let j = 0; j < m; j++) tot += fig[j];
      for (let j = 0; j < m; j++) s[j] = fig[j] - tot / m;
    }
    for (let t = 0; t < maxn; t++) ysa[t] = mult ? y[t] / s[t % m] : y[t] - s[t % m];
  } else {
    for (let t = 0; t < maxn; t++) ysa[t] = y[t];
  }
  let l0: number;
  let b0 = 0;
  if (trend === 'N') {
    l0 = 0;
    for (let t = 0; t < maxn; t++) l0 += ysa[t] / maxn;
  } else {
    const fit = linearFit(ysa, 1);
    l0 = fit.intercept;
    b0 = fit.slope;
    if (Math.abs(l0 + b0) < 1e-8) {
      l0 *= 1 + 1e-3;
      b0 *= 1 - 1e-3;
    }
  }
  return { l0, b0, s };
}

/**
 * Seasonal figure for 2m <= n < 3m (or when the decomposition fails): detrend with R's regression on
 * (1, t, sin 2πt/m, cos 2πt/m), then average the detrended values per position.
 */
function harmonicSeasonal(y: Float64Array, m: number, mult: boolean): Float64Array {
  const n = y.length;
  const k = m === 2 ? 3 : 4; // sin(πt) vanishes for m = 2
  const XtX = new Float64Array(k * k);
  const Xty = new Float64Array(k);
  const row = new Float64Array(k);
  for (let t = 1; t <= n; t++) {
    row[0] = 1;
    row[1] = t;
    if (k === 4) {
      row[2] = Math.sin((2 * Math.PI * t) / m);
      row[3] = Math.cos((2 * Math.PI * t) / m);
    } else row[2] = Math.cos(Math.PI * t);
    for (let i = 0; i < k; i++) {
      Xty[i] += row[i] * y[t - 1];
      for (let j = 0; j < k; j++) XtX[i * k + j] += row[i] * row[j];
    }
  }
  const beta = solveLinear(XtX, Xty, k);
  const lf = linearFit(y, 1);
  const a = beta ? beta[0] : lf.intercept;
  const b = beta ? beta[1] : lf.slope;
  const sum = new Float64Array(m);
  const cnt = new Float64Array(m);
  for (let t = 1; t <= n; t++) {
    const tr = a + b * t;
    const v = mult ? y[t - 1] / tr : y[t - 1] - tr;
    if (!Number.isFinite(v)) continue;
    sum[(t - 1) % m] += v;
    cnt[(t - 1) % m] += 1;
  }
  const fig = new Float64Array(m);
  for (let j = 0; j < m; j++) fig[j] = cnt[j] > 0 ? sum[j] / cnt[j] : mult ? 1 : 0;
  return fig;
}

// ---------------------------------------------------------------------------------------------------------------
// fitting

/** Number of estimated parameters (excluding σ) and whether the data suffice, per R's rule. */
function paramCount(spec: EtsSpec, m: number, o: EtsFitOptions): number {
  let k = 0;
  if (o.alpha === undefined) k++;
  if (spec.trend !== 'N' && o.beta === undefined) k++;
  if (spec.season !== 'N' && o.gamma === undefined) k++;
  if (spec.damped && spec.trend !== 'N' && o.phi === undefined) k++;
  if (o.l0 === undefined) k++;
  if (spec.trend !== 'N' && o.b0 === undefined) k++;
  if (spec.season !== 'N') k += m - 1;
  return k;
}

/** Whether spec can be fitted to y with period m (positivity, seasonal length, R's minimum length). */
export function etsFeasible(y: ArrayLike<number>, spec: EtsSpec, m: number, o: EtsFitOptions = {}): boolean {
  const n = y.length;
  if (spec.error === 'A' && spec.season === 'M') return false;
  if ((spec.error === 'M' || spec.season === 'M') && !(minOf(y) > 0)) return false;
  if (spec.season !== 'N' && (m < 2 || n < 2 * m)) return false;
  if (!o.allowShort && n < paramCount(spec, m, o) + 5) return false;
  return n >= 1;
}

/**
 * Fits one ETS model by maximum likelihood. Returns null when the model is not feasible for the data
 * (see etsFeasible). y must not be constant (the callers handle that case).
 */
export function fitEts(yIn: ArrayLike<number>, spec: EtsSpec, mIn: number, o: EtsFitOptions = {}): EtsFit | null {
  const y = yIn instanceof Float64Array ? yIn : toFloat64(yIn);
  const n = y.length;
  const m = spec.season === 'N' ? 1 : mIn;
  if (!etsFeasible(y, spec, m, o)) return null;
  const trend = spec.trend !== 'N';
  const damped = trend && spec.damped;
  const seasonal = spec.season !== 'N';
  const seasonCode = spec.season === 'A' ? SEASON_ADD : spec.season === 'M' ? SEASON_MULT : SEASON_NONE;
  const errM = spec.error === 'M';
  const mult = spec.season === 'M';

  const init = initialStates(y, spec.trend, spec.season, m);
  if (o.l0 !== undefined) init.l0 = o.l0;
  if (o.b0 !== undefined) init.b0 = o.b0;
  if (!trend) init.b0 = 0;

  // scales of the state coordinates, so that every optimised coordinate is O(1)
  let scale = sd(y);
  if (!(scale > 0)) scale = Math.max(Math.abs(init.l0), 1);
  const unitL = scale;
  const unitB = scale / 10;
  const unitS = mult ? 0.25 : scale;

  // smoothing-parameter ranges (R's etsmodel adjusts them when some are fixed)
  let aLo = ALPHA_LO;
  let aHi = ALPHA_HI;
  if (o.beta !== undefined) aLo = Math.max(aLo, o.beta);
  if (o.gamma !== undefined) aHi = Math.min(aHi, 1 - o.gamma);
  if (aHi < aLo) aHi = aLo;

  // coordinates
  const x0: number[] = [];
  const steps: number[] = [];
  const iA = o.alpha === undefined ? x0.length : -1;
  let alpha0 = o.alpha ?? aLo + (0.2 * (aHi - aLo)) / m;
  if (iA >= 0) {
    if (alpha0 > aHi || alpha0 < aLo) alpha0 = aLo + 2e-3;
    x0.push(fromBox(alpha0, aLo, aHi));
    steps.push(1.5);
  }
  const iB = trend && o.beta === undefined ? x0.length : -1;
  if (iB >= 0) {
    x0.push(fromBox(0.1, 0, 1));
    steps.push(1.5);
  }
  const iG = seasonal && o.gamma === undefined ? x0.length : -1;
  if (iG >= 0) {
    x0.push(fromBox(0.05, 0, 1));
    steps.push(1.5);
  }
  const iP = damped && o.phi === undefined ? x0.length : -1;
  if (iP >= 0) {
    x0.push(fromBox(0.99, 0, 1));
    steps.push(1.5);
  }
  const iL = o.l0 === undefined ? x0.length : -1;
  if (iL >= 0) {
    x0.push(init.l0 / unitL);
    steps.push(0.2);
  }
  const iBt = trend && o.b0 === undefined ? x0.length : -1;
  if (iBt >= 0) {
    x0.push(init.b0 / unitB);
    steps.push(0.2);
  }
  const optSeas = seasonal && (o.optimizeSeasonalInit ?? m <= MAX_OPTIMISED_SEASON);
  const iS = optSeas ? x0.length : -1;
  if (iS >= 0) {
    for (let j = 1; j < m; j++) {
      x0.push(init.s[j] / unitS);
      steps.push(0.2);
    }
  }

  const S = new Float64Array(n + m);
  for (let j = 0; j < m; j++) S[j] = seasonal ? init.s[j] : 0;
  const out = new Float64Array(4);
  const fixedPhi = damped ? (o.phi ?? 0) : 1;
  const fixedA = o.alpha ?? 0;
  const fixedB = trend ? (o.beta ?? 0) : 0;
  const fixedG = seasonal ? (o.gamma ?? 0) : 0;

  // Admissibility only binds for seasonal models with a trend: without one the usual bounds imply it (checked on
  // 10⁶ random points for m = 4, 12, 52). As the test costs O(m²) — as much as the likelihood itself for m = 52 —
  // the search first runs without it and is repeated with it only when its optimum turns out inadmissible.
  const admMatters = seasonal && trend;
  let checkAdm = false;
  // decoded parameters of the last evaluation
  let pa = 0;
  let pb = 0;
  let pg = 0;
  let pp = 1;
  let pl = init.l0;
  let pbt = init.b0;
  const decode = (x: Float64Array): boolean => {
    pa = iA >= 0 ? toBox(x[iA], aLo, aHi) : fixedA;
    pb = iB >= 0 ? toBox(x[iB], ALPHA_LO, Math.max(ALPHA_LO, Math.min(pa, ALPHA_HI))) : fixedB;
    pg = iG >= 0 ? toBox(x[iG], ALPHA_LO, Math.max(ALPHA_LO, 1 - pa)) : fixedG;
    pp = iP >= 0 ? toBox(x[iP], PHI_LO, PHI_HI) : fixedPhi;
    pl = iL >= 0 ? x[iL] * unitL : init.l0;
    pbt = iBt >= 0 ? x[iBt] * unitB : init.b0;
    if (iS >= 0) {
      let tot = 0;
      for (let j = 1; j < m; j++) {
        const v = x[iS + j - 1] * unitS;
        S[j] = v;
        tot += v;
        if (mult && !(v > 0)) return false;
      }
      S[0] = (mult ? m : 0) - tot;
      if (mult && !(S[0] > 0)) return false;
    }
    if (checkAdm && !etsAdmissible(pa, pb, pg, pp, m, true, trend)) return false;
    return true;
  };
  const objective = (x: Float64Array): number => {
    if (!decode(x)) return Infinity;
    return recurse(y, n, m, errM, seasonCode, pa, pb, pg, pp, pl, pbt, S, null, out);
  };

  const d = x0.length;
  const nmOpts = { ftol: 1e-7, xtol: 1e-7, restarts: 1 };
  const optimise = (): ReturnType<typeof nelderMead> => {
    if (iS > 0) {
      // two stages: first the smoothing parameters and level/trend with the seasonal states at their starting values
      // (cheap, few dimensions), then everything from there with a smaller budget
      const full = Float64Array.from(x0);
      const sub = (xs: Float64Array): number => {
        for (let i = 0; i < iS; i++) full[i] = xs[i];
        return objective(full);
      };
      const r1 = nelderMead(sub, x0.slice(0, iS), { ...nmOpts, maxEvals: o.maxEvals ?? 120 * iS + 300, step: steps.slice(0, iS) });
      const start = Float64Array.from(x0);
      for (let i = 0; i < iS; i++) start[i] = r1.x[i];
      const stage2Steps = steps.map((st, i) => (i < iS ? st / 3 : st));
      let r2 = nelderMead(objective, start, { ...nmOpts, maxEvals: o.maxEvals ?? STAGE2_EVALS_PER_DIM * d, step: stage2Steps });
      if (!(r2.f <= r1.f)) r2 = { ...r2, x: start, f: r1.f };
      r2.evaluations += r1.evaluations;
      return r2;
    }
    return nelderMead(objective, x0, { ...nmOpts, maxEvals: o.maxEvals ?? 120 * d + 300, step: steps });
  };
  let res = optimise();
  if (!seasonal && trend && iA >= 0 && iB >= 0) {
    // trend models have a second common optimum at large α and β (R's start at α = 0.2, β = 0.1·α can miss it):
    // a second start there is cheap for non-seasonal models
    const alt = Float64Array.from(x0);
    alt[iA] = fromBox(Math.min(Math.max(0.7, aLo), aHi), aLo, aHi);
    alt[iB] = fromBox(0.7, 0, 1);
    if (iP >= 0) alt[iP] = fromBox(0.5, 0, 1);
    const r2 = nelderMead(objective, alt, { ...nmOpts, maxEvals: o.maxEvals ?? 120 * d + 300, step: steps });
    r2.evaluations += res.evaluations;
    res = r2.f < res.f ? r2 : { ...res, evaluations: r2.evaluations };
  }
  if (admMatters) {
    checkAdm = true;
    if (!decode(res.x)) {
      const first = res.evaluations;
      res = optimise();
      res.evaluations += first;
    }
  }
  const xb = res.x;
  if (!decode(xb) || !Number.isFinite(res.f)) {
    // no admissible point found from the start: fall back to the start itself when it is admissible
    if (!decode(Float64Array.from(x0))) return null;
  }
  const fitted = new Float64Array(n);
  const lik = recurse(y, n, m, errM, seasonCode, pa, pb, pg, pp, pl, pbt, S, fitted, out);
  if (!Number.isFinite(lik)) return null;
  const residuals = new Float64Array(n);
  for (let i = 0; i < n; i++) residuals[i] = errM ? (y[i] - fitted[i]) / fitted[i] : y[i] - fitted[i];
  const sse = out[2];
  const k = paramCount(spec, m, o);
  const np = k + 1;
  const m2ll = n * Math.log(Math.max(sse, 1e-300) / n) + n * (1 + Math.log(2 * Math.PI)) + 2 * out[3];
  const aic = m2ll + 2 * np;
  const aicc = n - np - 1 > 0 ? aic + (2 * np * (np + 1)) / (n - np - 1) : Infinity;
  const bic = m2ll + Math.log(n) * np;
  const season = new Float64Array(m);
  const s0 = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    s0[j] = seasonal ? S[j] : 0;
    season[j] = seasonal ? S[n + j] : 0;
  }
  return {
    spec: { ...spec, damped },
    name: etsName({ ...spec, damped }),
    m,
    n,
    alpha: pa,
    beta: trend ? pb : 0,
    gamma: seasonal ? pg : 0,
    phi: damped ? pp : 1,
    l0: pl,
    b0: trend ? pbt : 0,
    s0,
    level: out[0],
    trend: trend ? out[1] : 0,
    season,
    fitted,
    residuals,
    sse,
    sigma2: sse / (n - k > 0 ? n - k : n),
    k,
    loglik: -0.5 * m2ll,
    aic,
    aicc,
    bic,
    evaluations: res.evaluations,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// forecasting

/** Point forecasts and prediction-interval variances of a fitted model (see the module comment). */
export function etsForecastMoments(fit: EtsFit, hIn: number): { mean: Float64Array; variance: Float64Array } {
  const h = horizon(hIn);
  const { alpha, beta, gamma, phi, m, sigma2 } = fit;
  const seasonal = fit.spec.season !== 'N';
  const multS = fit.spec.season === 'M';
  const errM = fit.spec.error === 'M';
  const mean = new Float64Array(h);
  const base = new Float64Array(h); // level + trend part μ̃
  const c = new Float64Array(h); // c_j, j = 1..h−1 (index j)
  let phiSum = 0;
  let phiPow = 1;
  for (let j = 1; j <= h; j++) {
    phiPow *= phi;
    phiSum += phiPow; // φ + … + φ^j
    const mu = fit.level + phiSum * fit.trend;
    base[j - 1] = mu;
    const s = seasonal ? fit.season[(j - 1) % m] : 0;
    mean[j - 1] = multS ? mu * s : mu + s;
    if (j < h) c[j] = alpha + beta * phiSum + (seasonal && !multS && j % m === 0 ? gamma : 0);
  }
  const variance = new Float64Array(h);
  if (!errM) {
    let acc = 0;
    for (let j = 1; j <= h; j++) {
      variance[j - 1] = sigma2 * (1 + acc);
      if (j < h) acc += c[j] * c[j];
    }
    return { mean, variance };
  }
  // class 2 (and the non-seasonal part of class 3): θ_j = μ_j² + σ² Σ_{i<j} c_i² θ_{j−i}
  const mu = multS ? base : mean;
  const theta = new Float64Array(h);
  for (let j = 1; j <= h; j++) {
    let s = 0;
    for (let i = 1; i < j; i++) s += c[i] * c[i] * theta[j - i - 1];
    theta[j - 1] = mu[j - 1] * mu[j - 1] + sigma2 * s;
  }
  for (let j = 1; j <= h; j++) {
    let v: number;
    if (!multS) v = (1 + sigma2) * theta[j - 1] - mu[j - 1] * mu[j - 1];
    else {
      const sj = fit.season[(j - 1) % m];
      const kk = Math.floor((j - 1) / m);
      v = sj * sj * (theta[j - 1] * (1 + sigma2) * Math.pow(1 + gamma * gamma * sigma2, kk) - base[j - 1] * base[j - 1]);
    }
    variance[j - 1] = v > 0 ? v : 0;
  }
  return { mean, variance };
}

function fitToResult(method: string, fit: EtsFit, h: number, level: number, extra: ForecastResult['params'] = {}): ForecastResult {
  const { mean, variance } = etsForecastMoments(fit, h);
  const se = new Float64Array(mean.length);
  for (let i = 0; i < se.length; i++) se[i] = Math.sqrt(variance[i]);
  const { lower, upper } = normalIntervals(mean, se, level);
  const params: ForecastResult['params'] = { model: fit.name, alpha: fit.alpha };
  if (fit.spec.trend !== 'N') params.beta = fit.beta;
  if (fit.spec.season !== 'N') params.gamma = fit.gamma;
  if (fit.spec.trend !== 'N' && fit.spec.damped) params.phi = fit.phi;
  params.l0 = fit.l0;
  if (fit.spec.trend !== 'N') params.b0 = fit.b0;
  if (fit.spec.season !== 'N') params.period = fit.m;
  params.sigma2 = fit.sigma2;
  params.loglik = fit.loglik;
  Object.assign(params, extra);
  return { method, mean, lower, upper, fitted: fit.fitted, params, aic: fit.aic, aicc: fit.aicc, bic: fit.bic };
}

function constantResult(method: string, y: Float64Array, h: number): ForecastResult {
  const v = y[0];
  const mean = new Float64Array(h).fill(v);
  return {
    method,
    mean,
    lower: new Float64Array(h).fill(v),
    upper: new Float64Array(h).fill(v),
    fitted: new Float64Array(y.length).fill(v),
    params: { model: 'ETS(A,N,N)', alpha: 0.9999, l0: v, sigma2: 0, fallback: 'constant series: flat forecast, zero-width intervals' },
  };
}

/** Reads the fixed smoothing parameters and initial states from the parameter hierarchy. */
function fixedFromParams(y: Float64Array, params: ForecastOptions['params']): EtsFitOptions {
  const o: EtsFitOptions = {};
  const num = (k: string): number | undefined => {
    const v = params?.[k];
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  o.alpha = num('alpha');
  o.beta = num('beta');
  o.gamma = num('gamma');
  o.phi = num('phi');
  o.l0 = num('l0');
  o.b0 = num('b0');
  if (params?.initial === 'simple' && y.length > 0) {
    o.l0 ??= y[0];
    if (y.length > 1) o.b0 ??= y[1] - y[0];
  }
  const me = num('maxEvals');
  if (me !== undefined) o.maxEvals = me;
  return o;
}

/**
 * The last resorts for short series: SES with the first observation as initial level (n >= 4), else naive.
 */
function shortSeriesFallback(method: string, y: Float64Array, h: number, opts: ForecastOptions, why: string): ForecastResult {
  if (y.length >= 4) {
    const fixed: EtsFitOptions = { l0: y[0], allowShort: true };
    const a = opts.params?.alpha;
    if (typeof a === 'number') fixed.alpha = a;
    const fit = fitEts(y, { error: 'A', trend: 'N', damped: false, season: 'N' }, 1, fixed);
    if (fit) {
      const r = fitToResult(method, fit, h, opts.level, { fallback: `${why}: SES with l0 = y[0]` });
      // too few points for meaningful information criteria
      delete r.aic;
      delete r.aicc;
      delete r.bic;
      return r;
    }
  }
  const r = naive(y, h, opts);
  return { ...r, method, params: { ...r.params, fallback: `${why}: naive` } };
}

function prepare(method: string, yIn: ArrayLike<number>, hIn: number): { y: Float64Array; h: number; early?: ForecastResult } {
  const y = toFloat64(yIn);
  const h = horizon(hIn);
  if (y.length === 0) {
    return {
      y,
      h,
      early: { method, mean: new Float64Array(h), lower: new Float64Array(h), upper: new Float64Array(h), fitted: new Float64Array(0), params: { fallback: 'empty history: zero forecast' } },
    };
  }
  if (isConstant(y)) return { y, h, early: constantResult(method, y, h) };
  return { y, h };
}

/** Fits the first feasible spec of a chain (the requested model, then simpler ones). */
function fitChain(method: string, y: Float64Array, h: number, opts: ForecastOptions, chain: EtsSpec[], m: number): ForecastResult {
  const fixed = fixedFromParams(y, opts.params);
  for (let i = 0; i < chain.length; i++) {
    const spec = chain[i];
    const fit = fitEts(y, spec, m, fixed);
    if (fit) return fitToResult(method, fit, h, opts.level, i > 0 ? { fallback: `${etsName(chain[0])} not estimable (too short, or non-positive data for a multiplicative model): ${fit.name}` } : {});
  }
  return shortSeriesFallback(method, y, h, opts, `${etsName(chain[0])} not estimable`);
}

const ANN: EtsSpec = { error: 'A', trend: 'N', damped: false, season: 'N' };

/** Simple exponential smoothing, ETS(A,N,N). params: alpha, l0 (fixed values), initial: 'simple'. */
export const ses: Forecaster = (yIn, hIn, opts) => {
  const { y, h, early } = prepare('ses', yIn, hIn);
  return early ?? fitChain('ses', y, h, opts, [ANN], 1);
};

/** Holt's linear trend, ETS(A,A,N). params: alpha, beta, l0, b0, initial: 'simple'. */
export const holt: Forecaster = (yIn, hIn, opts) => {
  const { y, h, early } = prepare('holt', yIn, hIn);
  return early ?? fitChain('holt', y, h, opts, [{ error: 'A', trend: 'A', damped: false, season: 'N' }, ANN], 1);
};

/** Additive damped trend, ETS(A,Ad,N). params: alpha, beta, phi, l0, b0. */
export const dampedTrend: Forecaster = (yIn, hIn, opts) => {
  const { y, h, early } = prepare('dampedTrend', yIn, hIn);
  return early ?? fitChain('dampedTrend', y, h, opts, [{ error: 'A', trend: 'A', damped: true, season: 'N' }, ANN], 1);
};

/**
 * Holt–Winters, additive by default: ETS(A,A,A), or ETS(A,Ad,A) with params.damped = true; params.seasonal =
 * 'multiplicative' gives ETS(M,A,M) / ETS(M,Ad,M) (positive data only, else the additive form). Falls back to the
 * non-seasonal trend model when period <= 1 or n < 2·period, then to SES.
 */
export const holtWinters: Forecaster = (yIn, hIn, opts) => {
  const { y, h, early } = prepare('holtWinters', yIn, hIn);
  if (early) return early;
  const m = seasonalPeriod(opts.period);
  const damped = opts.params?.damped === true;
  const chain: EtsSpec[] = [];
  if (opts.params?.seasonal === 'multiplicative') chain.push({ error: 'M', trend: 'A', damped, season: 'M' });
  chain.push({ error: 'A', trend: 'A', damped, season: 'A' }, { error: 'A', trend: 'A', damped, season: 'N' }, ANN);
  return fitChain('holtWinters', y, h, opts, chain, m);
};

export interface EtsSelection {
  best: EtsFit | null;
  /** every model fitted, with its criterion value */
  candidates: { model: string; ic: number }[];
}

/**
 * Fits every admissible model of R's default search (see the module comment) and returns the one with the lowest
 * information criterion. params: model (R string with Z for "select", default ZZZ), damped (boolean, default both),
 * ic ('aicc' | 'aic' | 'bic'), additiveOnly, and fixed alpha/beta/gamma/phi as for the single models.
 */
export function selectEts(yIn: ArrayLike<number>, period: number, params: ForecastOptions['params'] = {}): EtsSelection {
  const y = yIn instanceof Float64Array ? yIn : toFloat64(yIn);
  const n = y.length;
  const m = seasonalPeriod(period);
  const spec = parseEtsModel(typeof params.model === 'string' ? params.model : 'ZZZ');
  const positive = minOf(y) > 0;
  const additiveOnly = params.additiveOnly === true;
  const ic = params.ic === 'aic' || params.ic === 'bic' ? params.ic : 'aicc';
  const errors = spec.error === 'Z' ? ['A', 'M'] : [spec.error];
  const trends = spec.trend === 'Z' ? ['N', 'A'] : [spec.trend];
  const seasonOk = m > 1 && n >= 2 * m;
  const seasons = spec.season === 'Z' ? (seasonOk ? ['N', 'A', 'M'] : ['N']) : [spec.season];
  const dampings = typeof params.damped === 'boolean' ? [params.damped] : spec.damped !== undefined ? [spec.damped] : [false, true];
  const fixed = fixedFromParams(y, params);
  const candidates: { model: string; ic: number }[] = [];
  let best: EtsFit | null = null;
  let bestIc = Infinity;
  for (const e of errors) {
    for (const t of trends) {
      for (const s of seasons) {
        for (const dmp of dampings) {
          if (t === 'N' && dmp) continue;
          if (e === 'A' && s === 'M') continue;
          if (additiveOnly && (e === 'M' || s === 'M')) continue;
          if (!positive && (e === 'M' || s === 'M')) continue;
          const sp: EtsSpec = { error: e as EtsErrorType, trend: t as EtsTrendType, damped: dmp, season: s as EtsSeasonType };
          const fit = fitEts(y, sp, m, fixed);
          if (!fit) continue;
          const v = fit[ic];
          candidates.push({ model: fit.name, ic: v });
          if (Number.isFinite(v) && v < bestIc) {
            bestIc = v;
            best = fit;
          }
        }
      }
    }
  }
  return { best, candidates };
}

/** The params that pin an automatic ETS fit's model form ("ETS(A,Ad,N)" → model "AAdN") for a refit on more data. */
export function etsSpecification(fitParams: ForecastResult['params']): Record<string, string | boolean> | undefined {
  const m = typeof fitParams.model === 'string' ? /^ETS\(([AM]),(N|Ad?),([NAM])\)$/.exec(fitParams.model) : null;
  return m ? { model: `${m[1]}${m[2]}${m[3]}`, damped: m[2] === 'Ad', pinned: true } : undefined;
}

/**
 * Automatic ETS: the model with the lowest AICc among those selectEts fits (R's forecast::ets defaults), forecast
 * with analytic intervals. Short series fall back as described in the module comment.
 */
export const ets: Forecaster = (yIn, hIn, opts) => {
  const { y, h, early } = prepare('ets', yIn, hIn);
  if (early) return early;
  let sel = selectEts(y, opts.period, opts.params);
  const pinned = opts.params?.pinned === true;
  // a pinned form that this longer history cannot take (e.g. multiplicative after a zero): select as usual
  if (!sel.best && pinned) {
    const { model: _model, damped: _damped, pinned: _pinned, ...rest } = opts.params!;
    sel = selectEts(y, opts.period, rest);
  }
  if (!sel.best) return shortSeriesFallback('ets', y, h, opts, 'no ETS model estimable');
  return fitToResult('ets', sel.best, h, opts.level, { candidates: sel.candidates.length, ...(pinned && sel.candidates.length === 1 ? { specification: 'pinned' } : {}) });
};
