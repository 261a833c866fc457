/**
 * What the per-series steps do around the engines: the history every step models (historyFor) and, for the forecast,
 * backtest and backtest-forecast steps, the history a method is fitted on, the calendar weeks its steps land on,
 * demand adjustments and the method list. Pure: arrays in, arrays out; no database, no Temporal (docs/FORECASTING.md,
 * "Forecast step" and "Backtest steps").
 *
 * Two index spaces. The engines see only open weeks, one after the other, divided by their capacity factor (a
 * half-capacity week with 2 sold counts as 4 at full capacity), so they never see a NaN nor a calendar effect.
 * Everything stored is in calendar weeks again: a closed week forecasts 0 (its actual is null) and an open week is
 * the engine's next step times the week's factor.
 */
import { addWeeks, dateOfDay, dayNumber, weeksBetween } from '../time/weeks';
import { characterize } from '../characterization/characterize';
import { canRun, COMBINATION, isMethod, methodOrder, profileOf } from './registry';
import type { OriginForecast } from './backtest';

// The steps have always taken the week helpers from here; their one definition is etl/weekly's.

/** A number that is not finite (NaN: not scored, a closed week) is stored and reported as null. */
export const finiteOrNull = (v: number | null | undefined): number | null => (v !== null && v !== undefined && Number.isFinite(v) ? v : null);

export interface WeeklyInput {
  /** Monday of y[0] */
  start: string;
  /** weekly demand, NaN = closed week */
  y: ArrayLike<number>;
  /** capacity factor per week, 0 = closed */
  factor: ArrayLike<number>;
}

/** The outlier step's corrected history of a series (db/seriesResults.ts correctedHistoryInRange). */
export interface CorrectedInput {
  /** Monday of corrected_y[0] */
  start_week: string;
  /** outlier-corrected demand per week; NaN = closed */
  corrected_y: ArrayLike<number>;
}

/**
 * The history every per-series step models, in calendar weeks (aligned with `series.start`, as long as `series.y`):
 * the corrected value where the outlier step's row has a finite one for that week, the weekly y elsewhere (weeks a
 * later etl run added), and NaN wherever the current weekly series has a closed week, whatever the corrected row's own
 * start and length.
 *
 * A week is closed when its capacity factor is 0: that is the calendar's definition (etl stores y NULL for exactly
 * those weeks), so a caller that carries a closed week as y = 0 still gets it closed rather than modelled as a week
 * without demand, which would bias every statistic downwards.
 */
export function historyFor(series: Pick<WeeklyInput, 'start' | 'y'> & { factor?: ArrayLike<number> }, corrected: CorrectedInput | undefined): Float64Array {
  const out = Float64Array.from(series.y);
  if (series.factor) for (let i = 0; i < out.length; i++) if (series.factor[i] === 0) out[i] = Number.NaN;
  if (!corrected) return out;
  const shift = weeksBetween(series.start, corrected.start_week);
  for (let i = 0; i < out.length; i++) {
    const j = i - shift;
    if (!Number.isFinite(out[i]) || j < 0 || j >= corrected.corrected_y.length) continue;
    const c = corrected.corrected_y[j];
    if (Number.isFinite(c)) out[i] = c;
  }
  return out;
}

export interface Adjustment {
  /** Monday of the week */
  ds: string;
  corrected_y: number;
}

export interface FitHistory {
  /** open weeks only, each divided by its capacity factor: what the engines are fitted on */
  y: Float64Array;
  /** Monday of each point of y */
  weeks: string[];
  /** capacity factor of each point of y (> 0) */
  factors: number[];
  /** the last week of the weekly history (open or closed); the forecast starts the week after */
  lastWeek: string;
  /** the history's factor of any of its weeks (0 = closed), undefined outside it */
  factorOf: (week: string) => number | undefined;
  /** past weeks a demand adjustment replaced */
  adjustedWeeks: string[];
  /** outlier-corrected values were used */
  corrected: boolean;
}

/**
 * The history a method is fitted on: historyFor (corrected_y of the outlier step where present, else y), past demand
 * adjustments (ds <= last history week) replacing their weeks, closed weeks left out and open weeks divided by their
 * factor. An adjustment dated on a closed week is ignored: the week had no capacity, so it stays out of the fit.
 */
export function fitHistory(s: WeeklyInput, corrected: CorrectedInput | undefined, adjustments: readonly Adjustment[]): FitHistory {
  const n = s.y.length;
  const start = dayNumber(s.start);
  const lastWeek = dateOfDay(start + 7 * (n - 1));
  const closed = (i: number) => Number.isNaN(s.y[i]) || !(s.factor[i] > 0);
  const base = historyFor(s, corrected);
  const correctedY = corrected?.corrected_y;
  const shift = corrected ? weeksBetween(s.start, corrected.start_week) : 0;
  const usedCorrected = correctedY !== undefined && base.some((v, i) => Number.isFinite(v) && Number.isFinite(correctedY[i - shift]));
  const adjustedWeeks: string[] = [];
  for (const a of adjustments) {
    const i = (dayNumber(a.ds) - start) / 7;
    if (!Number.isInteger(i) || i < 0 || i >= n || closed(i)) continue;
    base[i] = a.corrected_y;
    adjustedWeeks.push(a.ds);
  }
  const y: number[] = [];
  const weeks: string[] = [];
  const factors: number[] = [];
  for (let i = 0; i < n; i++) {
    if (closed(i)) continue;
    y.push(base[i] / s.factor[i]);
    weeks.push(dateOfDay(start + 7 * i));
    factors.push(s.factor[i]);
  }
  const factorOf = (week: string): number | undefined => {
    const i = (dayNumber(week) - start) / 7;
    if (!Number.isInteger(i) || i < 0 || i >= n) return undefined;
    return closed(i) ? 0 : s.factor[i];
  };
  return { y: Float64Array.from(y), weeks, factors, lastWeek, factorOf, adjustedWeeks: adjustedWeeks.sort(), corrected: usedCorrected };
}

export interface CalendarSpan {
  /** Monday of each calendar week */
  weeks: string[];
  /** capacity factor of each week (0 = closed) */
  factors: number[];
  /** number of open weeks: the engine steps the span needs */
  open: number;
}

/** `count` consecutive calendar weeks from `from` with their factors (factorOf: undefined = 1, a normal week). */
export function spanOfWeeks(from: string, count: number, factorOf: (week: string) => number | undefined): CalendarSpan {
  const weeks: string[] = [];
  const factors: number[] = [];
  let open = 0;
  for (let k = 0; k < count; k++) {
    const w = addWeeks(from, k);
    const f = factorOf(w) ?? 1;
    weeks.push(w);
    factors.push(f);
    if (f > 0) open++;
  }
  return { weeks, factors, open };
}

export interface Band {
  mean: ArrayLike<number>;
  lower: ArrayLike<number>;
  upper: ArrayLike<number>;
}

export interface CalendarBand {
  yhat: number[];
  lower: number[];
  upper: number[];
}

/**
 * Engine steps onto calendar weeks: the k-th open week gets step k times its factor, a closed week 0. Clipped at 0:
 * demand is never negative, so neither is its forecast nor a bound.
 */
export function placeOnCalendar(steps: Band, span: Pick<CalendarSpan, 'factors'>): CalendarBand {
  const yhat: number[] = [];
  const lower: number[] = [];
  const upper: number[] = [];
  let k = 0;
  for (const f of span.factors) {
    if (f > 0) {
      yhat.push(Math.max(0, steps.mean[k] * f));
      lower.push(Math.max(0, steps.lower[k] * f));
      upper.push(Math.max(0, steps.upper[k] * f));
      k++;
    } else {
      yhat.push(0);
      lower.push(0);
      upper.push(0);
    }
  }
  return { yhat, lower, upper };
}

/**
 * Future demand adjustments: each replaces yhat of its week (closed or not: the planner's word is final); the bounds
 * move by the same delta, clipped at 0. Returns the adjusted weeks.
 */
export function applyFutureAdjustments(band: CalendarBand, weeks: readonly string[], adjustments: readonly Adjustment[]): string[] {
  const at = new Map(weeks.map((w, i) => [w, i]));
  const done: string[] = [];
  for (const a of adjustments) {
    const i = at.get(a.ds);
    if (i === undefined) continue;
    const delta = a.corrected_y - band.yhat[i];
    band.yhat[i] = a.corrected_y;
    band.lower[i] = Math.max(0, band.lower[i] + delta);
    band.upper[i] = Math.max(0, band.upper[i] + delta);
    done.push(a.ds);
  }
  return done.sort();
}

export interface MethodChoiceInput {
  /** run-forecast's methods (null: not a run-forecast, or all methods) */
  runMethods: readonly string[] | null;
  /** the forecast scenario's methods (empty: not set) */
  scenarioMethods: readonly string[];
  /** the characterization's recommendation (stored, or computed on the fly) */
  recommended: () => readonly string[];
  includeBenchmarks: boolean;
  locked: string | null;
  /** fewer open weeks than npi.min_history_weeks */
  npi: { isNpi: boolean; fallback: string };
  /** the fit history */
  y: ArrayLike<number>;
  period: number;
}

export interface MethodChoice {
  methods: string[];
  source: 'run' | 'scenario' | 'recommended' | 'npi';
  skipped: { method: string; reason: string }[];
}

const BENCHMARKS = ['naive', 'seasonal_naive'];

/**
 * The methods the forecast step fits for one series (docs/FORECASTING.md): run-forecast's list, else the scenario's,
 * else the characterization's recommendation (benchmarks added or removed by best_method.include_benchmarks); a new
 * part (NPI) gets only npi.fallback_method; the locked method is always added. Methods that cannot run on the history
 * (registry canRun) are skipped with the reason, except the locked method and the NPI fallback, which run below their
 * minimum history on the engine's own short-series fallback. `combination` is left to the best-method step.
 */
export function chooseMethods(o: MethodChoiceInput): MethodChoice {
  let source: MethodChoice['source'];
  let wanted: string[];
  const forced = new Set<string>();
  const skipped: { method: string; reason: string }[] = [];
  if (o.npi.isNpi) {
    source = 'npi';
    const fb = isMethod(o.npi.fallback) ? o.npi.fallback : 'moving_average';
    if (fb !== o.npi.fallback) skipped.push({ method: o.npi.fallback, reason: `npi.fallback_method '${o.npi.fallback}' is not a single method: moving_average used` });
    wanted = [fb];
    forced.add(fb);
  } else if (o.runMethods && o.runMethods.length) {
    source = 'run';
    wanted = [...o.runMethods];
  } else if (o.scenarioMethods.length) {
    source = 'scenario';
    wanted = [...o.scenarioMethods];
  } else {
    source = 'recommended';
    wanted = [...o.recommended()];
    if (o.includeBenchmarks) wanted.push(...BENCHMARKS);
    else wanted = wanted.filter((m) => !BENCHMARKS.includes(m));
  }
  if (o.locked && o.locked !== COMBINATION) {
    wanted.push(o.locked);
    forced.add(o.locked);
  }
  const profile = profileOf(o.y);
  const methods: string[] = [];
  for (const m of new Set(wanted)) {
    if (m === COMBINATION) {
      if (source === 'run') skipped.push({ method: m, reason: 'combination is built by the best-method step' });
      continue;
    }
    if (!isMethod(m)) {
      skipped.push({ method: m, reason: `unknown method '${m}'` });
      continue;
    }
    const c = canRun(m, profile, o.period);
    if (!c.ok && !forced.has(m)) skipped.push({ method: m, reason: c.reason ?? 'cannot run' });
    else methods.push(m);
  }
  methods.sort((a, b) => methodOrder(a) - methodOrder(b));
  return { methods, source, skipped };
}

/** Recommended methods of a series the characterization step has not seen, from the engine on the fit history. */
export function recommendOnTheFly(y: ArrayLike<number>, period: number): string[] {
  return [...characterize(y, { period }).recommended_methods];
}

/** A forecast made at a past origin, in calendar weeks: what backtest_forecasts stores. */
export interface CalendarWindow extends OriginForecast {
  /** last week of training data (Monday) */
  origin_week: string;
}

/**
 * A backtest window (engine space: open points train_end … train_end + h − 1) in calendar weeks: from the week after
 * the origin through the week of the last scored point; a closed week in between forecasts 0 with a NaN actual (so
 * the metrics skip it), an open week is the engine's step times its factor, clipped at 0, against its actual demand.
 */
export function windowOnCalendar(f: OriginForecast, h: FitHistory): CalendarWindow {
  const originWeek = h.weeks[f.train_end - 1];
  const lastWeek = h.weeks[f.train_end + f.mean.length - 1];
  const span = spanOfWeeks(addWeeks(originWeek, 1), weeksBetween(originWeek, lastWeek), h.factorOf);
  const band = placeOnCalendar(f, span);
  const actual: number[] = [];
  let k = 0;
  for (const fac of span.factors) {
    if (fac > 0) actual.push(f.actual[k++] * fac);
    else actual.push(Number.NaN);
  }
  return { origin: f.origin, train_end: f.train_end, origin_week: originWeek, mean: band.yhat, lower: band.lower, upper: band.upper, actual };
}

/**
 * The calendar span of a full-horizon forecast made at a past origin: `count` weeks after the origin week, with the
 * history's factors for weeks it covers and `futureFactorOf` (site calendar, default 1) after it; `actual` holds the
 * demand known for each week (NaN when closed or not yet known).
 */
export function originSpan(h: FitHistory, trainEnd: number, count: number, futureFactorOf: (week: string) => number | undefined): CalendarSpan & { origin_week: string; actual: number[] } {
  const originWeek = h.weeks[trainEnd - 1];
  const span = spanOfWeeks(addWeeks(originWeek, 1), count, (w) => h.factorOf(w) ?? futureFactorOf(w));
  const at = new Map(h.weeks.map((w, i) => [w, i]));
  const actual = span.weeks.map((w, i) => {
    const j = at.get(w);
    return j === undefined ? Number.NaN : h.y[j] * span.factors[i];
  });
  return { ...span, origin_week: originWeek, actual };
}
