/**
 * Rolling-origin evaluation (time-series cross-validation with an expanding window, Tashman 2000).
 *
 * Origins. With n observations, `origins` = k, `step` = s and evaluation horizon H (default h):
 *     train_end_j = n − H − (k − 1 − j)·s,   j = 0 … k − 1 (oldest first)
 * origin j fits on y[0, train_end_j) and is scored on y[train_end_j, train_end_j + H): the last origin's window ends
 * with the last observation, the earlier ones step back s periods each (windows overlap when s < H). The default step
 * is max(1, round(H / k)) — three origins a third of the horizon apart cover the last 1⅔·H periods. An origin whose
 * training window would be shorter than `minTrain` is dropped; when even the last origin is too short, H shrinks to
 * n − minTrain (so a short series is still scored over a shorter horizon) and only origins that fit are kept; with
 * n − minTrain < 1 there is no origin and no score. The default minTrain is max(3, period + 1): every origin sees
 * more than one season (the MASE scale is then the seasonal naive one).
 *
 * Methods. At each origin every requested method that can run on that training window (registry.canRun: minimum
 * history, seasonal and intermittent conditions) is fitted and forecasts H steps with 90 % intervals — the backtest
 * always evaluates the 90 % interval so that `coverage_90` means what it says whatever level is displayed. A method
 * that throws, or returns a non-finite mean, is recorded as failed at that origin. Methods are independent: one
 * failure does not affect the others.
 *
 * Specification reuse (default; `reselect: true` turns it off). Methods that identify a model before estimating it —
 * auto ARIMA's orders and constant, auto ETS's error/trend/season form (registry MethodSpec.specification) — search at
 * the earliest origin where they run; the later origins re-estimate that model's coefficients on their longer window
 * without searching again, as a forecaster that re-identifies its models periodically and re-estimates them at every
 * forecast would. Nothing after an origin is used at that origin: the specification comes from an earlier, shorter
 * window. Why: the search is most of the backtest's cost (ARIMA tries about 10 models per fit), and on the benchmark
 * series the scores barely move (docs/BENCHMARKS.md). The full-history fit outside the backtest always searches.
 *
 * Metrics (metrics.ts): pooled over every (origin, step) point of the origins where the method ran; MASE scales each
 * origin's errors by that origin's own in-sample (seasonal) naive MAE. `origins_evaluated` says on how many origins
 * the metrics rest (the tournament ranks methods with fewer evaluated origins after those with more).
 *
 * Stored forecasts: per method and origin the point forecast and 90 % bounds (plain arrays, length H) with the
 * origin index, its train_end and the actuals, ready to be written to the database.
 */
import { MetricAccumulator, maseScale, type AccuracyMetrics } from './metrics';
import { canRun, profileOf, runMethod, specificationOf } from './registry';
import type { ForecastOptions, ForecastResult } from './types';

export const BACKTEST_LEVEL = 0.9;

export interface BacktestOptions {
  /** forecast horizon of the series; the evaluation horizon defaults to it */
  h: number;
  period: number;
  /** number of origins (default 3) */
  origins?: number;
  /** periods between origins (default max(1, round(H / origins))) */
  step?: number;
  /** evaluation horizon H (default h) */
  horizon?: number;
  /** shortest training window of an origin (default max(3, period + 1)) */
  minTrain?: number;
  /** per-method hyperparameters, passed to the forecaster as opts.params */
  params?: Record<string, ForecastOptions['params']>;
  /**
   * Forecast this many steps from every origin (at least the evaluation horizon): the first `horizon` are scored, the
   * whole forecast is kept in `extended`. One fit then serves both the scored window and a full-horizon forecast.
   */
  forecastLength?: number;
  /** called after every fit (e.g. to heartbeat: one series' backtest can outlast a heartbeat timeout) */
  onFit?: () => void;
  /** search the model specification again at every origin instead of reusing the earliest origin's (default false) */
  reselect?: boolean;
}

export interface BacktestOrigin {
  /** 0 = oldest */
  index: number;
  /** training window y[0, train_end), test window y[train_end, train_end + h) */
  train_end: number;
  h: number;
}

export interface OriginForecast {
  origin: number;
  train_end: number;
  mean: number[];
  lower: number[];
  upper: number[];
  actual: number[];
  /** the whole forecast when forecastLength exceeds the window (mean, lower, upper of forecastLength steps) */
  extended?: { mean: number[]; lower: number[]; upper: number[] };
}

export interface MethodBacktest {
  method: string;
  metrics: AccuracyMetrics;
  origins_evaluated: number;
  forecasts: OriginForecast[];
  /** origins where the method could not run (reason) or failed (error message) */
  skipped: { origin: number; reason: string }[];
}

export interface BacktestPlan {
  origins: BacktestOrigin[];
  horizon: number;
  step: number;
  minTrain: number;
}

export interface BacktestResult extends BacktestPlan {
  methods: Record<string, MethodBacktest>;
  /** MASE scale of each origin's training window */
  scales: number[];
}

/** Where the origins fall for a series of length n (see the module comment). */
export function planOrigins(n: number, o: Pick<BacktestOptions, 'h' | 'period' | 'origins' | 'step' | 'horizon' | 'minTrain'>): BacktestPlan {
  const k = Math.max(1, Math.floor(o.origins ?? 3));
  const m = Math.max(1, Math.floor(o.period || 1));
  const minTrain = Math.max(1, Math.floor(o.minTrain ?? Math.max(3, m + 1)));
  let H = Math.max(1, Math.floor(o.horizon ?? o.h));
  H = Math.min(H, n - minTrain);
  if (H < 1) return { origins: [], horizon: 0, step: 0, minTrain };
  const step = Math.max(1, Math.floor(o.step ?? Math.max(1, Math.round(H / k))));
  const ends: number[] = [];
  for (let j = k - 1; j >= 0; j--) {
    const T = n - H - j * step;
    if (T >= minTrain) ends.push(T);
  }
  return { origins: ends.map((train_end, index) => ({ index, train_end, h: H })), horizon: H, step, minTrain };
}

/** A plain copy; Array.prototype.slice.call on a typed array takes V8's generic path, several times slower. */
function toArray(x: ArrayLike<number>): number[] {
  const out = new Array<number>(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i];
  return out;
}

function allFinite(x: ArrayLike<number>): boolean {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i])) return false;
  return true;
}

type MethodParams = Record<string, number | string | boolean>;

/**
 * The specifications identified at the earliest origin, per method (see "Specification reuse" above). Feed it the
 * origins oldest first: `paramsFor` gives the params of the next fit, `record` keeps what a fit identified.
 */
export class SpecificationPins {
  private readonly pins = new Map<string, MethodParams>();
  constructor(private readonly reselect = false) {}
  paramsFor(method: string, own: MethodParams | undefined): MethodParams | undefined {
    const pin = this.pins.get(method);
    return pin ? { ...own, ...pin } : own;
  }
  record(method: string, fitParams: ForecastResult['params']): void {
    if (this.reselect || this.pins.has(method)) return;
    const spec = specificationOf(method, fitParams);
    if (spec) this.pins.set(method, spec);
  }
}

/**
 * Runs every method at every origin. `y` should be finite (the outlier-corrected history); non-finite actuals are
 * skipped by the metrics.
 */
export function backtest(yIn: ArrayLike<number>, methods: readonly string[], o: BacktestOptions): BacktestResult {
  const y = yIn instanceof Float64Array ? yIn : Float64Array.from(yIn);
  const plan = planOrigins(y.length, o);
  const period = Math.max(1, Math.floor(o.period || 1));
  const accs = new Map<string, MetricAccumulator>();
  const results: Record<string, MethodBacktest> = {};
  for (const name of methods) {
    accs.set(name, new MetricAccumulator());
    results[name] = { method: name, metrics: new MetricAccumulator().result(), origins_evaluated: 0, forecasts: [], skipped: [] };
  }
  const scales: number[] = [];
  const pins = new SpecificationPins(o.reselect);
  for (const origin of plan.origins) {
    const train = y.subarray(0, origin.train_end);
    const actual = y.subarray(origin.train_end, origin.train_end + origin.h);
    const scale = maseScale(train, period).scale;
    scales.push(scale);
    const profile = profileOf(train);
    for (const name of methods) {
      const r = results[name];
      const can = canRun(name, profile, period);
      if (!can.ok) {
        r.skipped.push({ origin: origin.index, reason: can.reason ?? 'cannot run' });
        continue;
      }
      const steps = Math.max(origin.h, Math.floor(o.forecastLength ?? 0));
      let fc;
      try {
        fc = runMethod(name, train, steps, { period, level: BACKTEST_LEVEL, params: pins.paramsFor(name, o.params?.[name]) });
        pins.record(name, fc.params);
      } catch (e) {
        r.skipped.push({ origin: origin.index, reason: `failed: ${(e as Error).message}` });
        continue;
      } finally {
        o.onFit?.();
      }
      const extended = steps > origin.h ? { mean: toArray(fc.mean), lower: toArray(fc.lower), upper: toArray(fc.upper) } : undefined;
      if (extended) fc = { ...fc, mean: fc.mean.subarray(0, origin.h), lower: fc.lower.subarray(0, origin.h), upper: fc.upper.subarray(0, origin.h) };
      if (fc.mean.length !== origin.h || !allFinite(fc.mean)) {
        r.skipped.push({ origin: origin.index, reason: 'failed: non-finite forecast' });
        continue;
      }
      accs.get(name)!.add(actual, fc.mean, scale, fc.lower, fc.upper);
      r.origins_evaluated++;
      r.forecasts.push({
        origin: origin.index,
        train_end: origin.train_end,
        mean: toArray(fc.mean),
        lower: toArray(fc.lower),
        upper: toArray(fc.upper),
        actual: toArray(actual),
        ...(extended ? { extended } : {}),
      });
    }
  }
  for (const name of methods) results[name].metrics = accs.get(name)!.result();
  return { ...plan, methods: results, scales };
}

/** Metrics of arbitrary per-origin forecasts on the same origins (used for the combination). */
export function scoreOriginForecasts(forecasts: OriginForecast[], scales: number[]): AccuracyMetrics {
  const acc = new MetricAccumulator();
  for (const f of forecasts) acc.add(f.actual, f.mean, scales[f.origin], f.lower, f.upper);
  return acc.result();
}
