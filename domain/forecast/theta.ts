/**
 * The Theta method and the Optimised Theta Method.
 *
 * Standard Theta (Assimakopoulos & Nikolopoulos 2000), in the form Hyndman & Billah (2003) proved equivalent and R's
 * forecast::thetaf implements: simple exponential smoothing (ETS(A,N,N) by maximum likelihood) plus a drift of half the
 * slope b of the least-squares line through the (seasonally adjusted) data:
 *     ŷ_{n+h} = ℓ_n + w·b·(h − 1 + (1 − (1 − α)^n)/α),   w = 1 − 1/θ = ½ for θ = 2.
 * Seasonality (as thetaf): when period m > 1, n > 2m and the lag-m autocorrelation is significant at 90 %
 * (|r_m| > 1.645·√((1 + 2·Σ_{k<m} r_k²)/n)), the data are divided by the classical multiplicative decomposition's
 * seasonal indices before, and the forecasts multiplied by them after. Deviation: we also require min(y) > 0 (R
 * decomposes non-positive data multiplicatively and may get nonsense or division by zero).
 *
 * Optimised Theta (Fiorucci, Pellegrini, Louzada, Petropoulos & Koehler 2016, "OTM"): the same forecast function with
 * θ >= 1 (w ∈ [0, 0.99], i.e. θ <= 100) estimated jointly with α ∈ [1e-4, 0.9999] and ℓ_0 by minimising the in-sample
 * one-step squared error of ŷ_{t|t−1} = ℓ_{t−1} + w·b·(1 − (1 − α)^{t−1})/α (Nelder–Mead, started from the standard
 * Theta fit). The slope b is the full-sample regression slope (the "static" OTM, not the dynamic DOTM).
 *
 * Prediction intervals as forecast::thetaf: the SES intervals, se_h = σ·√(1 + (h − 1)·α²), with σ² the SES model's
 * σ² (SSE/(n − 2)) for Theta and SSE/(n − 3) of the one-step errors for OTM. Deviation: for seasonal data the
 * standard error is multiplied by the seasonal index too (R leaves it in seasonally adjusted units).
 *
 * Fitted values are the one-step Theta forecasts (R's thetaf returns the SES fitted values without the drift).
 * Short series: below 7 points SES uses the first observation as initial level (n >= 4) or α ≈ 1 (n <= 3); OTM needs
 * 10 points and is standard Theta below that (params.fallback says so). A constant series gives a flat forecast with
 * zero-width intervals, an empty one a zero forecast.
 */
import type { ForecastOptions, ForecastResult, Forecaster } from './types';
import { fitEts } from './ets';
import { nelderMeadBounded } from './optim';
import { acf, decompose, horizon, isConstant, levelToZ, linearFit, min as minOf, qnorm, sd, seasonalPeriod, toFloat64 } from './stats';

/** forecast::thetaf's seasonality test (90 %, lag-m autocorrelation). Needs n > 2m. */
export function seasonalityTest(y: ArrayLike<number>, m: number): boolean {
  const n = y.length;
  if (m <= 1 || n <= 2 * m || isConstant(y)) return false;
  const r = acf(y, m);
  let s = 0;
  for (let k = 1; k < m; k++) s += r[k] * r[k];
  const stat = Math.sqrt((1 + 2 * s) / n);
  return Math.abs(r[m]) / stat > qnorm(0.95);
}

interface SesCore {
  alpha: number;
  l0: number;
  /** ℓ_n */
  level: number;
  sigma2: number;
}

/** SES for Theta: MLE (n >= 7), first value as initial level (4 <= n < 7), α = 0.9999 (n <= 3). */
function sesCore(x: Float64Array, alphaFixed: number | undefined): SesCore {
  const n = x.length;
  if (n >= 4) {
    const fit = fitEts(x, { error: 'A', trend: 'N', damped: false, season: 'N' }, 1, n >= 7 ? { alpha: alphaFixed } : { alpha: alphaFixed, l0: x[0], allowShort: true });
    if (fit) return { alpha: fit.alpha, l0: fit.l0, level: fit.level, sigma2: fit.sigma2 };
  }
  const alpha = alphaFixed ?? 0.9999;
  let l = x[0];
  let ss = 0;
  for (let t = 1; t < n; t++) {
    ss += (x[t] - l) ** 2;
    l += alpha * (x[t] - l);
  }
  return { alpha, l0: x[0], level: l, sigma2: n > 1 ? ss / (n - 1) : 0 };
}

/** One-step fitted values of the theta forecast function and their SSE; ℓ_n in out[0]. */
function thetaPass(x: Float64Array, alpha: number, w: number, b: number, l0: number, fitted: Float64Array | null, out: Float64Array): number {
  const n = x.length;
  const q = 1 - alpha;
  let l = l0;
  let qp = 1; // q^(t−1)
  let sse = 0;
  for (let t = 0; t < n; t++) {
    const f = l + (w * b * (1 - qp)) / alpha;
    const e = x[t] - f;
    sse += e * e;
    if (fitted) fitted[t] = f;
    l = alpha * x[t] + q * l;
    qp *= q;
  }
  out[0] = l;
  return sse;
}

function emptyOrConstant(method: string, y: Float64Array, h: number): ForecastResult | null {
  if (y.length === 0) {
    return { method, mean: new Float64Array(h), lower: new Float64Array(h), upper: new Float64Array(h), fitted: new Float64Array(0), params: { fallback: 'empty history: zero forecast' } };
  }
  if (isConstant(y)) {
    const v = y[0];
    return {
      method,
      mean: new Float64Array(h).fill(v),
      lower: new Float64Array(h).fill(v),
      upper: new Float64Array(h).fill(v),
      fitted: new Float64Array(y.length).fill(v),
      params: { fallback: 'constant series: flat forecast, zero-width intervals' },
    };
  }
  return null;
}

function thetaImpl(method: 'theta' | 'optimizedTheta', yIn: ArrayLike<number>, hIn: number, opts: ForecastOptions): ForecastResult {
  const y = toFloat64(yIn);
  const h = horizon(hIn);
  const early = emptyOrConstant(method, y, h);
  if (early) return early;
  const n = y.length;
  const m = seasonalPeriod(opts.period);

  // seasonal adjustment
  let figure: Float64Array | null = null;
  if (minOf(y) > 0 && seasonalityTest(y, m)) {
    const dec = decompose(y, m, 'multiplicative');
    if (dec && dec.figure.every((v) => Math.abs(v) >= 1e-4)) figure = dec.figure;
  }
  const x = new Float64Array(n);
  for (let t = 0; t < n; t++) x[t] = figure ? y[t] / figure[t % m] : y[t];

  const alphaParam = opts.params?.alpha;
  const ses = sesCore(x, typeof alphaParam === 'number' ? alphaParam : undefined);
  const b = linearFit(x, 0).slope;
  let alpha = ses.alpha;
  let w = 0.5;
  let l0 = ses.l0;
  let sigma2 = ses.sigma2;
  const params: ForecastResult['params'] = {};
  const out = new Float64Array(1);
  const fittedX = new Float64Array(n);

  if (method === 'optimizedTheta') {
    if (n >= 10) {
      const s = sd(x) || 1;
      const res = nelderMeadBounded(
        (p) => thetaPass(x, p[0], p[1], b, p[2], null, out),
        [Math.min(Math.max(alpha, 0.01), 0.99), 0.5, l0],
        [1e-4, 0, -Infinity],
        [0.9999, 0.99, Infinity],
        { step: [1, 1, 0.2 * s], maxEvals: 600, ftol: 1e-9, restarts: 1 },
      );
      if (Number.isFinite(res.f)) {
        alpha = res.x[0];
        w = res.x[1];
        l0 = res.x[2];
        sigma2 = res.f / (n - 3);
      }
    } else params.fallback = 'fewer than 10 points: standard theta';
  }
  const sse = thetaPass(x, alpha, w, b, l0, fittedX, out);
  if (method === 'optimizedTheta' && params.fallback === undefined) sigma2 = sse / (n - 3);
  const level = out[0];

  const mean = new Float64Array(h);
  const lower = new Float64Array(h);
  const upper = new Float64Array(h);
  const z = levelToZ(opts.level);
  const sig = Math.sqrt(Math.max(sigma2, 0));
  const drift0 = (1 - Math.pow(1 - alpha, n)) / alpha;
  for (let i = 0; i < h; i++) {
    const si = figure ? figure[(n + i) % m] : 1;
    mean[i] = (level + w * b * (i + drift0)) * si;
    const se = sig * Math.sqrt(1 + i * alpha * alpha) * si;
    lower[i] = mean[i] - z * se;
    upper[i] = mean[i] + z * se;
  }
  const fitted = new Float64Array(n);
  for (let t = 0; t < n; t++) fitted[t] = figure ? fittedX[t] * figure[t % m] : fittedX[t];

  Object.assign(params, { alpha, theta: 1 / (1 - w), slope: b, l0, sigma2, seasonal: figure !== null });
  if (figure) params.period = m;
  return { method, mean, lower, upper, fitted, params };
}

/** Standard Theta method (θ = 2), as forecast::thetaf. params: alpha (fixed SES α). */
export const theta: Forecaster = (y, h, opts) => thetaImpl('theta', y, h, opts);

/** Optimised Theta Method (Fiorucci et al. 2016): θ, α and ℓ_0 estimated by least squares. */
export const optimizedTheta: Forecaster = (y, h, opts) => thetaImpl('optimizedTheta', y, h, opts);
