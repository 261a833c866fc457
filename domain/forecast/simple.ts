/**
 * Benchmark methods: naive, seasonal naive, moving average and random walk with drift.
 *
 * Prediction intervals follow Hyndman & Athanasopoulos, FPP3 §5.5, with σ̂ estimated as R's forecast::rwf/snaive do:
 * - naive:          σ̂ = RMS of the first differences;            se_h = σ̂·√h
 * - seasonal naive: σ̂ = RMS of the lag-m differences;            se_h = σ̂·√(k+1), k = ⌊(h−1)/m⌋
 * - drift:          b = mean first difference, σ̂ = their sd (denominator n−2, as lm);  se_h = σ̂·√(h·(1 + h/(n−1)))
 * - moving average: σ̂ = RMS of the in-sample one-step errors y_t − mean(y_{t−w..t−1}); se_h = σ̂, constant in h.
 *   Under an i.i.d. model that RMS estimates σ·√(1 + 1/w) — the variance of a new value around a w-point mean — which
 *   is FPP3's "mean method" interval with the window as the sample. It does not widen with h (the method assumes a
 *   stable level); when there are no in-sample errors yet (n <= w) it is sd(y)·√(1 + 1/w).
 *
 * Short series never throw: with no residual to estimate σ̂ (n = 1, or n <= m for seasonal naive) the interval has
 * zero width; seasonal naive falls back to naive when n < m; drift with n = 2 uses the naive σ̂ (no degree of
 * freedom is left for the sd); h <= 0 gives empty arrays, and an empty y gives a zero forecast.
 */
import type { ForecastOptions, ForecastResult, Forecaster } from './types';
import { horizon, mean, normalIntervals, sd, seasonalPeriod, toFloat64 } from './stats';

function result(
  method: string,
  meanF: Float64Array,
  se: Float64Array,
  level: number,
  fitted: Float64Array,
  params: ForecastResult['params'],
): ForecastResult {
  const { lower, upper } = normalIntervals(meanF, se, level);
  return { method, mean: meanF, lower, upper, fitted, params };
}

function emptyHistory(method: string, h: number): ForecastResult {
  return { method, mean: new Float64Array(h), lower: new Float64Array(h), upper: new Float64Array(h), fitted: new Float64Array(0), params: { fallback: 'empty history: zero forecast' } };
}

/** Naive: every forecast is the last observation. */
export const naive: Forecaster = (yIn, hIn, opts) => {
  const h = horizon(hIn);
  const n = yIn.length;
  if (n === 0) return emptyHistory('naive', h);
  const y = toFloat64(yIn);
  const fitted = new Float64Array(n);
  fitted[0] = NaN;
  let ss = 0;
  for (let t = 1; t < n; t++) {
    fitted[t] = y[t - 1];
    ss += (y[t] - y[t - 1]) ** 2;
  }
  const sigma = n > 1 ? Math.sqrt(ss / (n - 1)) : 0;
  const meanF = new Float64Array(h).fill(y[n - 1]);
  const se = new Float64Array(h);
  for (let i = 0; i < h; i++) se[i] = sigma * Math.sqrt(i + 1);
  return result('naive', meanF, se, opts.level, fitted, { sigma });
};

/** Seasonal naive: the value one season earlier; naive when y is shorter than one period (or period <= 1). */
export const seasonalNaive: Forecaster = (yIn, hIn, opts) => {
  const m = seasonalPeriod(opts.period);
  const n = yIn.length;
  if (m <= 1 || n < m) {
    const r = naive(yIn, hIn, opts);
    return { ...r, method: 'seasonalNaive', params: { ...r.params, fallback: m <= 1 ? 'period <= 1: naive' : 'shorter than one period: naive' } };
  }
  const h = horizon(hIn);
  const y = toFloat64(yIn);
  const fitted = new Float64Array(n);
  let ss = 0;
  for (let t = 0; t < n; t++) {
    if (t < m) fitted[t] = NaN;
    else {
      fitted[t] = y[t - m];
      ss += (y[t] - y[t - m]) ** 2;
    }
  }
  const sigma = n > m ? Math.sqrt(ss / (n - m)) : 0;
  const meanF = new Float64Array(h);
  const se = new Float64Array(h);
  for (let i = 0; i < h; i++) {
    meanF[i] = y[n - m + (i % m)];
    se[i] = sigma * Math.sqrt(Math.floor(i / m) + 1);
  }
  return result('seasonalNaive', meanF, se, opts.level, fitted, { sigma, period: m });
};

/**
 * Window of the moving average: params.window when given, else min(period, n) clipped to 3..52 (a year of weeks at
 * most, never fewer than 3 points), and never more than n.
 */
export function movingAverageWindow(n: number, opts: ForecastOptions): number {
  const p = opts.params?.window;
  let w: number;
  if (typeof p === 'number' && Number.isFinite(p) && p >= 1) w = Math.floor(p);
  else w = Math.min(Math.max(Math.min(seasonalPeriod(opts.period), n), 3), 52);
  return Math.max(1, Math.min(w, n));
}

/** Moving average of the last `window` observations, flat over the horizon. See the module comment for intervals. */
export const movingAverage: Forecaster = (yIn, hIn, opts) => {
  const h = horizon(hIn);
  const n = yIn.length;
  if (n === 0) return emptyHistory('movingAverage', h);
  const y = toFloat64(yIn);
  const w = movingAverageWindow(n, opts);
  const fitted = new Float64Array(n).fill(NaN);
  let run = 0;
  for (let t = 0; t < w; t++) run += y[t];
  let ss = 0;
  let cnt = 0;
  for (let t = w; t < n; t++) {
    fitted[t] = run / w;
    ss += (y[t] - fitted[t]) ** 2;
    cnt++;
    run += y[t] - y[t - w];
  }
  const level = mean(y, n - w, n);
  const sigma = cnt > 0 ? Math.sqrt(ss / cnt) : sd(y) * Math.sqrt(1 + 1 / w);
  const meanF = new Float64Array(h).fill(level);
  const se = new Float64Array(h).fill(sigma);
  return result('movingAverage', meanF, se, opts.level, fitted, { window: w, sigma });
};

/** Random walk with drift: last value plus h times the mean first difference. */
export const drift: Forecaster = (yIn, hIn, opts) => {
  const h = horizon(hIn);
  const n = yIn.length;
  if (n === 0) return emptyHistory('drift', h);
  const y = toFloat64(yIn);
  const b = n > 1 ? (y[n - 1] - y[0]) / (n - 1) : 0;
  const fitted = new Float64Array(n);
  fitted[0] = NaN;
  let ss = 0;
  let ssNaive = 0;
  for (let t = 1; t < n; t++) {
    fitted[t] = y[t - 1] + b;
    ss += (y[t] - fitted[t]) ** 2;
    ssNaive += (y[t] - y[t - 1]) ** 2;
  }
  const sigma = n > 2 ? Math.sqrt(ss / (n - 2)) : n === 2 ? Math.sqrt(ssNaive) : 0;
  const meanF = new Float64Array(h);
  const se = new Float64Array(h);
  for (let i = 0; i < h; i++) {
    const k = i + 1;
    meanF[i] = y[n - 1] + k * b;
    se[i] = n > 1 ? sigma * Math.sqrt(k * (1 + k / (n - 1))) : 0;
  }
  return result('drift', meanF, se, opts.level, fitted, { drift: b, sigma });
};
