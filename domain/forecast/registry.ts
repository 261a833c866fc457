/**
 * The forecasting methods by name: method name (the names of the characterization step and the parameter catalogue)
 * → Forecaster, with the minimum history each needs.
 *
 * | name | engine | minimum history |
 * | --- | --- | --- |
 * | naive | simple.naive | 1 |
 * | seasonal_naive | simple.seasonalNaive | period >= 2 and one full period |
 * | drift | simple.drift | 2 |
 * | moving_average | simple.movingAverage | 1 |
 * | ses | ets.ses, ETS(A,N,N) | 3 |
 * | holt | ets.holt, ETS(A,A,N) | 4 |
 * | damped_trend | ets.dampedTrend, ETS(A,Ad,N) | 5 |
 * | holt_winters | ets.holtWinters, ETS(A,A,A) | period >= 2 and two full periods (and 4) |
 * | ets | ets.ets, automatic by AICc | 3 |
 * | theta | theta.theta | 3 |
 * | optimized_theta | theta.optimizedTheta | 4 |
 * | arima | arima.autoArima | 10 |
 * | croston, sba, tsb, adida, imapa | intermittent.* | 2 non-zero demands, no negative value |
 *
 * The minimums are those of characterization's MIN_OBSERVATIONS / isCompatible (drift and imapa, which it does not
 * list, follow the same rules as naive's neighbours: drift 2 points, imapa as adida). Below its minimum a method is
 * not run by the tournament: every engine degrades gracefully on short input (simpler model, naive, zeros), but a
 * fallback's accuracy would then be reported under the method's name. `combination` is not a Forecaster: the
 * tournament builds it from the other methods' forecasts (see tournament.ts).
 *
 * Every forecaster is called through `runMethod`, which names the result after the registry (the engines use their
 * own names, e.g. seasonalNaive, auto_arima), so results can be keyed by the registry name throughout.
 */
import { isCompatible, METHODS, type MethodName } from '../characterization/characterize';
import { arimaSpecification, autoArima } from './arima';
import { dampedTrend, ets, etsSpecification, holt, holtWinters, ses } from './ets';
import { adida, croston, imapa, sba, tsb } from './intermittent';
import { drift, movingAverage, naive, seasonalNaive } from './simple';
import { optimizedTheta, theta } from './theta';
import type { ForecastOptions, ForecastResult, Forecaster } from './types';

export const COMBINATION = 'combination';

export type MethodFamily = 'benchmark' | 'smoothing' | 'theta' | 'arima' | 'intermittent';

export interface MethodSpec {
  name: string;
  forecaster: Forecaster;
  family: MethodFamily;
  /** minimum number of observations (seasonal and intermittent conditions on top, see `canRun`) */
  minObservations: number;
  /** needs period >= 2 and this many full periods */
  fullPeriods?: number;
  /** needs at least 2 non-zero, and no negative, observations */
  intermittent?: boolean;
  /**
   * For methods that identify a model before estimating it (auto ARIMA's orders, auto ETS's form): the params that
   * make a later fit re-estimate that model instead of searching again. See backtest.ts.
   */
  specification?: (fitParams: ForecastResult['params']) => Record<string, number | string | boolean> | undefined;
}

/**
 * Registry order is also the tournament's tie-break order: on equal scores the method listed first wins, so simpler
 * methods come first (benchmarks, then smoothing, theta, ARIMA, then the intermittent family).
 */
const SPECS: MethodSpec[] = [
  { name: 'naive', forecaster: naive, family: 'benchmark', minObservations: 1 },
  { name: 'seasonal_naive', forecaster: seasonalNaive, family: 'benchmark', minObservations: 1, fullPeriods: 1 },
  { name: 'drift', forecaster: drift, family: 'benchmark', minObservations: 2 },
  { name: 'moving_average', forecaster: movingAverage, family: 'benchmark', minObservations: 1 },
  { name: 'ses', forecaster: ses, family: 'smoothing', minObservations: 3 },
  { name: 'holt', forecaster: holt, family: 'smoothing', minObservations: 4 },
  { name: 'damped_trend', forecaster: dampedTrend, family: 'smoothing', minObservations: 5 },
  { name: 'holt_winters', forecaster: holtWinters, family: 'smoothing', minObservations: 4, fullPeriods: 2 },
  { name: 'ets', forecaster: ets, family: 'smoothing', minObservations: 3, specification: etsSpecification },
  { name: 'theta', forecaster: theta, family: 'theta', minObservations: 3 },
  { name: 'optimized_theta', forecaster: optimizedTheta, family: 'theta', minObservations: 4 },
  { name: 'arima', forecaster: autoArima, family: 'arima', minObservations: 10, specification: arimaSpecification },
  { name: 'croston', forecaster: croston, family: 'intermittent', minObservations: 2, intermittent: true },
  { name: 'sba', forecaster: sba, family: 'intermittent', minObservations: 2, intermittent: true },
  { name: 'tsb', forecaster: tsb, family: 'intermittent', minObservations: 2, intermittent: true },
  { name: 'adida', forecaster: adida, family: 'intermittent', minObservations: 2, intermittent: true },
  { name: 'imapa', forecaster: imapa, family: 'intermittent', minObservations: 2, intermittent: true },
];

export const REGISTRY: ReadonlyMap<string, MethodSpec> = new Map(SPECS.map((s) => [s.name, s]));

/** Every registered method name, in registry (tie-break) order; `combination` excluded. */
export const METHOD_NAMES: readonly string[] = SPECS.map((s) => s.name);

/** Position in the tie-break order (combination last, unknown names after it). */
export function methodOrder(name: string): number {
  const i = METHOD_NAMES.indexOf(name);
  if (i >= 0) return i;
  return name === COMBINATION ? METHOD_NAMES.length : METHOD_NAMES.length + 1;
}

export function isMethod(name: string): boolean {
  return REGISTRY.has(name);
}

export function getMethod(name: string): MethodSpec {
  const s = REGISTRY.get(name);
  if (!s) throw new Error(`unknown forecasting method '${name}' (known: ${METHOD_NAMES.join(', ')}, ${COMBINATION})`);
  return s;
}

export function getForecaster(name: string): Forecaster {
  return getMethod(name).forecaster;
}

/** What canRun needs to know about a history. */
export interface HistoryProfile {
  n: number;
  nonZero: number;
  min: number;
}

export function profileOf(y: ArrayLike<number>, from = 0, to = y.length): HistoryProfile {
  let nonZero = 0;
  let min = Infinity;
  let n = 0;
  for (let i = from; i < to; i++) {
    const v = y[i];
    if (!Number.isFinite(v)) continue;
    n++;
    if (v !== 0) nonZero++;
    if (v < min) min = v;
  }
  return { n, nonZero, min: n ? min : 0 };
}

/** Smallest history length at which `name` runs (ignoring the intermittent condition). */
export function minHistory(name: string, period: number): number {
  const s = getMethod(name);
  const m = Math.max(1, Math.floor(period || 1));
  return Math.max(s.minObservations, s.fullPeriods ? s.fullPeriods * m : 0);
}

/**
 * Whether `name` can run on a history with this profile: isCompatible of the characterization step for the methods
 * it knows, the same rules from this registry for the others (drift, imapa). Returns the reason when not.
 */
export function canRun(name: string, p: HistoryProfile, period: number): { ok: boolean; reason?: string } {
  const s = REGISTRY.get(name);
  if (!s) return { ok: false, reason: `unknown method '${name}'` };
  if ((METHODS as readonly string[]).includes(name)) {
    const c = isCompatible(name as MethodName, { n_observations: p.n, period, n_nonzero: p.nonZero, min: p.min });
    return c.compatible ? { ok: true } : { ok: false, reason: c.reason };
  }
  if (p.n < 1) return { ok: false, reason: 'no history' };
  const need = minHistory(name, period);
  if (s.fullPeriods && Math.floor(period || 1) < 2) return { ok: false, reason: `${name} needs a seasonal period >= 2` };
  if (p.n < need) return { ok: false, reason: `${name} needs at least ${need} observations, got ${p.n}` };
  if (s.intermittent) {
    if (p.nonZero < 2) return { ok: false, reason: `${name} needs at least 2 non-zero demands, got ${p.nonZero}` };
    if (p.min < 0) return { ok: false, reason: `${name} needs non-negative demand` };
  }
  return { ok: true };
}

/** The params pinning the specification of a fit of `name` (see MethodSpec.specification), undefined if it has none. */
export function specificationOf(name: string, fitParams: ForecastResult['params']): Record<string, number | string | boolean> | undefined {
  return REGISTRY.get(name)?.specification?.(fitParams);
}

/**
 * Runs a method by name; the result is named after the registry. Throws for an unknown name; the engine's own
 * errors propagate (the backtest and the tournament catch them per method).
 */
export function runMethod(name: string, y: ArrayLike<number>, h: number, opts: ForecastOptions): ForecastResult {
  const r = getForecaster(name)(y, h, opts);
  if (r.method !== name) r.method = name;
  return r;
}
