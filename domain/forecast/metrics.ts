/**
 * Forecast accuracy metrics. Pure functions of arrays; every function ignores positions where the actual or the
 * forecast is not finite (NaN marks a missing actual), so a partly observed test window still scores.
 *
 * Conventions
 * - error e_t = forecast_t − actual_t. So `bias` = mean(e) is positive when the method over-forecasts. (Hyndman &
 *   Koehler write e = actual − forecast; only the sign of bias depends on it, every other metric uses |e| or e².)
 * - mae  = mean |e|;  rmse = √(mean e²).
 * - mase (Hyndman & Koehler 2006): mae / scale, scale = in-sample MAE of the seasonal naive method on the training
 *   data, mean_{t>lag} |y_t − y_{t−lag}|, lag = period when n > period, else 1 (the non-seasonal naive). Zero scale
 *   (a constant in-sample stretch at that lag — e.g. an intermittent history whose demands fall exactly a season
 *   apart, or a flat line): we fall back to the lag-1 scale; if that is zero too (a constant history) to the mean
 *   absolute value of the history; if that is zero as well (all-zero history) to 1, so the MASE is then the MAE in
 *   the data's own units. The scale is therefore always finite and positive and the MASE always finite (a NaN only
 *   when nothing can be scored), which keeps a ranking by MASE total. maseScale() reports which rule applied.
 *   Intermittent series need no special case otherwise: the lag-1 in-sample MAE of a series with some demand is
 *   positive, which is why Hyndman & Koehler proposed MASE for intermittent demand in the first place.
 * - smape: the M3/M4-competition symmetric MAPE, 200·|F − A| / (|A| + |F|) averaged over the horizon, in 0..200 (the
 *   absolute values in the denominator keep it in range for negative data). A term with A = F = 0 counts as 0 (a
 *   perfect forecast of no demand), so zero-demand periods never produce NaN.
 * - coverage: share of actuals with lower <= actual <= upper (bounds inclusive); for the 90 % interval it is the
 *   pipeline's `coverage_90` (ideal 0.9).
 * - pinball (quantile) loss at τ: mean of τ·(A − q) when A >= q, else (1 − τ)·(q − A).
 * - intervalScore (Winkler 1972 / Gneiting & Raftery 2007) of a central (1 − a) interval:
 *   (u − l) + (2/a)·(l − A)·1[A < l] + (2/a)·(A − u)·1[A > u], averaged; lower is better; rewards narrow intervals
 *   that still cover.
 */

export type MetricName = 'mae' | 'rmse' | 'mase' | 'smape' | 'bias' | 'abs_bias' | 'coverage_90' | 'interval_score_90';

/** The metrics the backtest reports for one method. Lower is better for all but coverage_90 (ideal 0.9). */
export interface AccuracyMetrics {
  mae: number;
  rmse: number;
  mase: number;
  smape: number;
  /** mean(forecast − actual): > 0 over-forecast */
  bias: number;
  /** share of actuals inside the 90 % interval */
  coverage_90: number;
  /** Winkler score of the 90 % interval, in the data's units */
  interval_score_90: number;
  /** number of (origin, step) points scored */
  n: number;
}

function finitePair(a: number, f: number): boolean {
  return Number.isFinite(a) && Number.isFinite(f);
}

/** Mean absolute error; NaN when no point can be scored. */
export function mae(actual: ArrayLike<number>, forecast: ArrayLike<number>): number {
  let s = 0;
  let k = 0;
  const n = Math.min(actual.length, forecast.length);
  for (let i = 0; i < n; i++) {
    if (!finitePair(actual[i], forecast[i])) continue;
    s += Math.abs(forecast[i] - actual[i]);
    k++;
  }
  return k ? s / k : NaN;
}

/** Root mean squared error. */
export function rmse(actual: ArrayLike<number>, forecast: ArrayLike<number>): number {
  let s = 0;
  let k = 0;
  const n = Math.min(actual.length, forecast.length);
  for (let i = 0; i < n; i++) {
    if (!finitePair(actual[i], forecast[i])) continue;
    s += (forecast[i] - actual[i]) ** 2;
    k++;
  }
  return k ? Math.sqrt(s / k) : NaN;
}

/** Mean error, forecast − actual (> 0: over-forecast). */
export function bias(actual: ArrayLike<number>, forecast: ArrayLike<number>): number {
  let s = 0;
  let k = 0;
  const n = Math.min(actual.length, forecast.length);
  for (let i = 0; i < n; i++) {
    if (!finitePair(actual[i], forecast[i])) continue;
    s += forecast[i] - actual[i];
    k++;
  }
  return k ? s / k : NaN;
}

/** One sMAPE term, 200·|F − A| / (|A| + |F|), 0 when both are 0. */
export function smapeTerm(a: number, f: number): number {
  const d = Math.abs(a) + Math.abs(f);
  return d === 0 ? 0 : (200 * Math.abs(f - a)) / d;
}

/** Symmetric MAPE (M3/M4 definition), 0..200. */
export function smape(actual: ArrayLike<number>, forecast: ArrayLike<number>): number {
  let s = 0;
  let k = 0;
  const n = Math.min(actual.length, forecast.length);
  for (let i = 0; i < n; i++) {
    if (!finitePair(actual[i], forecast[i])) continue;
    s += smapeTerm(actual[i], forecast[i]);
    k++;
  }
  return k ? s / k : NaN;
}

export type MaseScaleRule = 'seasonal' | 'lag1' | 'mean_abs' | 'unit';

export interface MaseScale {
  scale: number;
  /** the lag of the naive method used (0 for the mean_abs and unit fallbacks) */
  lag: number;
  rule: MaseScaleRule;
}

function naiveMae(y: ArrayLike<number>, lag: number): number {
  let s = 0;
  let k = 0;
  for (let t = lag; t < y.length; t++) {
    if (!finitePair(y[t], y[t - lag])) continue;
    s += Math.abs(y[t] - y[t - lag]);
    k++;
  }
  return k ? s / k : 0;
}

/**
 * The MASE denominator for a training history (see the module comment): seasonal-naive in-sample MAE with lag =
 * period when n > period (and period > 1), else lag 1; zero-scale fallbacks lag 1 → mean |y| → 1.
 */
export function maseScale(insample: ArrayLike<number>, period: number): MaseScale {
  const n = insample.length;
  const m = Math.max(1, Math.floor(period || 1));
  const lag = m > 1 && n > m ? m : 1;
  let s = naiveMae(insample, lag);
  if (s > 0) return { scale: s, lag, rule: lag === 1 ? 'lag1' : 'seasonal' };
  if (lag !== 1) {
    s = naiveMae(insample, 1);
    if (s > 0) return { scale: s, lag: 1, rule: 'lag1' };
  }
  let a = 0;
  let k = 0;
  for (let t = 0; t < n; t++) {
    if (!Number.isFinite(insample[t])) continue;
    a += Math.abs(insample[t]);
    k++;
  }
  if (k && a > 0) return { scale: a / k, lag: 0, rule: 'mean_abs' };
  return { scale: 1, lag: 0, rule: 'unit' };
}

/** Mean absolute scaled error against the in-sample (seasonal) naive MAE of `insample`. */
export function mase(actual: ArrayLike<number>, forecast: ArrayLike<number>, insample: ArrayLike<number>, period: number): number {
  return mae(actual, forecast) / maseScale(insample, period).scale;
}

/** Share of actuals inside [lower, upper] (inclusive). */
export function coverage(actual: ArrayLike<number>, lower: ArrayLike<number>, upper: ArrayLike<number>): number {
  let inside = 0;
  let k = 0;
  const n = Math.min(actual.length, lower.length, upper.length);
  for (let i = 0; i < n; i++) {
    const a = actual[i];
    if (!Number.isFinite(a) || Number.isNaN(lower[i]) || Number.isNaN(upper[i])) continue;
    if (a >= lower[i] && a <= upper[i]) inside++;
    k++;
  }
  return k ? inside / k : NaN;
}

/** Pinball loss of the τ-quantile forecast q. */
export function pinball(actual: ArrayLike<number>, quantile: ArrayLike<number>, tau: number): number {
  let s = 0;
  let k = 0;
  const n = Math.min(actual.length, quantile.length);
  for (let i = 0; i < n; i++) {
    if (!finitePair(actual[i], quantile[i])) continue;
    const d = actual[i] - quantile[i];
    s += d >= 0 ? tau * d : (tau - 1) * d;
    k++;
  }
  return k ? s / k : NaN;
}

/** Winkler interval score of the central (1 − alpha) interval [lower, upper], e.g. alpha = 0.1 for 90 %. */
export function intervalScore(actual: ArrayLike<number>, lower: ArrayLike<number>, upper: ArrayLike<number>, alpha: number): number {
  let s = 0;
  let k = 0;
  const n = Math.min(actual.length, lower.length, upper.length);
  for (let i = 0; i < n; i++) {
    const a = actual[i];
    const l = lower[i];
    const u = upper[i];
    if (!Number.isFinite(a) || !Number.isFinite(l) || !Number.isFinite(u)) continue;
    let v = u - l;
    if (a < l) v += (2 / alpha) * (l - a);
    else if (a > u) v += (2 / alpha) * (a - u);
    s += v;
    k++;
  }
  return k ? s / k : NaN;
}

/**
 * Running sums from which AccuracyMetrics are computed, so points of several backtest origins (each with its own
 * MASE scale) can be pooled: MASE pools the scaled absolute errors |e_t|/scale_origin, every other metric pools the
 * raw terms. With equal-length windows that is the mean over origins of the per-origin metric (for rmse: the root
 * of the mean of the per-origin MSEs).
 */
export class MetricAccumulator {
  private sAbs = 0;
  private sSq = 0;
  private sErr = 0;
  private sScaled = 0;
  private sSmape = 0;
  private inside = 0;
  private nCov = 0;
  private sWinkler = 0;
  private k = 0;

  /** Adds one window. lower/upper are the 90 % bounds (optional: coverage and interval score then skip it). */
  add(actual: ArrayLike<number>, forecast: ArrayLike<number>, scale: number, lower?: ArrayLike<number>, upper?: ArrayLike<number>): void {
    const n = Math.min(actual.length, forecast.length);
    for (let i = 0; i < n; i++) {
      const a = actual[i];
      const f = forecast[i];
      if (!finitePair(a, f)) continue;
      const e = f - a;
      this.sAbs += Math.abs(e);
      this.sSq += e * e;
      this.sErr += e;
      this.sScaled += Math.abs(e) / scale;
      this.sSmape += smapeTerm(a, f);
      this.k++;
      if (lower && upper && Number.isFinite(lower[i]) && Number.isFinite(upper[i])) {
        const l = lower[i];
        const u = upper[i];
        if (a >= l && a <= u) this.inside++;
        this.nCov++;
        let w = u - l;
        if (a < l) w += 20 * (l - a);
        else if (a > u) w += 20 * (a - u);
        this.sWinkler += w;
      }
    }
  }

  get count(): number {
    return this.k;
  }

  result(): AccuracyMetrics {
    const k = this.k;
    const nan = NaN;
    return {
      mae: k ? this.sAbs / k : nan,
      rmse: k ? Math.sqrt(this.sSq / k) : nan,
      mase: k ? this.sScaled / k : nan,
      smape: k ? this.sSmape / k : nan,
      bias: k ? this.sErr / k : nan,
      coverage_90: this.nCov ? this.inside / this.nCov : nan,
      interval_score_90: this.nCov ? this.sWinkler / this.nCov : nan,
      n: k,
    };
  }
}

/** All AccuracyMetrics of one forecast window. */
export function accuracy(
  actual: ArrayLike<number>,
  forecast: ArrayLike<number>,
  insample: ArrayLike<number>,
  period: number,
  lower?: ArrayLike<number>,
  upper?: ArrayLike<number>,
): AccuracyMetrics {
  const acc = new MetricAccumulator();
  acc.add(actual, forecast, maseScale(insample, period).scale, lower, upper);
  return acc.result();
}

/**
 * The value a tournament minimises for a metric: the metric itself, |bias| for 'bias'/'abs_bias', and
 * |coverage_90 − 0.9| for 'coverage_90'. NaN stays NaN (ranked last).
 */
export function scoreOf(m: AccuracyMetrics, metric: MetricName): number {
  switch (metric) {
    case 'bias':
    case 'abs_bias':
      return Math.abs(m.bias);
    case 'coverage_90':
      return Math.abs(m.coverage_90 - 0.9);
    default:
      return m[metric];
  }
}

export const METRIC_NAMES: readonly MetricName[] = ['mae', 'rmse', 'mase', 'smape', 'bias', 'abs_bias', 'coverage_90', 'interval_score_90'];

export function isMetricName(x: unknown): x is MetricName {
  return typeof x === 'string' && (METRIC_NAMES as readonly string[]).includes(x);
}
