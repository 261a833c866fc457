/**
 * Pure shaping of the per-series results for the /api/series/{unique_id}/* routes: weekly vectors (float8[] aligned on a
 * Monday) become dated points, manual corrections are overlaid on the history, origin forecasts are regrouped by target
 * week (evolution) and by lead time (convergence). Plain arrays in, plain arrays out; no database.
 */
import { addWeeks, weeksBetween } from '../time/weeks';
import { finiteOrNull } from '../forecast/prepare';


/** JSON has no NaN or Infinity: a missing value is null (the steps store a non-finite number as NULL the same way). */
export const finite = finiteOrNull;

export interface HistoryWeek {
  ds: string;
  /** null for a closed (calendar) week */
  y: number | null;
}

export interface WeeklyVector {
  start_week: string;
  values: ReadonlyArray<number | null>;
}

/** The value of a weekly vector at ds, null outside it or where it holds no finite number. */
export function valueAt(v: WeeklyVector, ds: string): number | null {
  const i = weeksBetween(v.start_week, ds);
  return i >= 0 && i < v.values.length ? finite(v.values[i]) : null;
}

export interface DemandPoint {
  ds: string;
  y: number | null;
  corrected_y: number | null;
  /** what corrected_y comes from: a planner's correction, the outlier step, or nothing (the history itself) */
  correction: 'adjustment' | 'outlier' | null;
}

/**
 * corrected_y of every history week: the planner's correction of that week when there is one (it wins), else the
 * outlier step's corrected value when it differs from y, else y. A closed week keeps y null and is corrected only by
 * a planner's correction.
 */
export function correctedHistory(
  history: readonly HistoryWeek[],
  outliers: WeeklyVector | null,
  adjustments: ReadonlyArray<{ ds: string; corrected_y: number }>,
): DemandPoint[] {
  const manual = new Map(adjustments.map((a) => [a.ds, a.corrected_y]));
  return history.map(({ ds, y }) => {
    const m = manual.get(ds);
    if (m !== undefined) return { ds, y, corrected_y: m, correction: 'adjustment' };
    if (y === null) return { ds, y, corrected_y: null, correction: null };
    const c = outliers ? valueAt(outliers, ds) : null;
    if (c !== null && c !== y) return { ds, y, corrected_y: c, correction: 'outlier' };
    return { ds, y, corrected_y: y, correction: null };
  });
}

export interface ForecastVectors {
  yhat: ReadonlyArray<number | null>;
  yhat_lower: ReadonlyArray<number | null>;
  yhat_upper: ReadonlyArray<number | null>;
}

export interface ForecastPoint {
  ds: string;
  yhat: number | null;
  yhat_lower: number | null;
  yhat_upper: number | null;
}

/** Dated points of vectors whose element 0 is the week `first`. */
export function forecastPoints(first: string, v: ForecastVectors): ForecastPoint[] {
  return v.yhat.map((y, i) => ({ ds: addWeeks(first, i), yhat: finite(y), yhat_lower: finite(v.yhat_lower[i]), yhat_upper: finite(v.yhat_upper[i]) }));
}

/** A forecast made at an origin (origin = the last week of its training data; it starts the week after). */
export interface OriginForecast extends ForecastVectors {
  origin: string;
  /** the current forecast (forecast_results), as opposed to a past origin's (backtest_forecasts kind 'origin') */
  current: boolean;
}

export interface EvolutionForecast {
  origin: string;
  lead_weeks: number;
  yhat: number | null;
  yhat_lower: number | null;
  yhat_upper: number | null;
  current: boolean;
}

export interface Evolution {
  origins: Array<{ origin: string; current: boolean; first_week: string; last_week: string; weeks: number }>;
  targets: Array<{ ds: string; actual: number | null; forecasts: EvolutionForecast[] }>;
}

/**
 * For each target week, every forecast of it, oldest origin first: how the forecast of one week moved as the origin
 * came closer. `actual` is the week's demand when the history has it (null for a future or closed week).
 */
export function forecastEvolution(forecasts: readonly OriginForecast[], actual: (ds: string) => number | null): Evolution {
  const sorted = [...forecasts].sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : Number(a.current) - Number(b.current)));
  const byTarget = new Map<string, EvolutionForecast[]>();
  for (const f of sorted) {
    f.yhat.forEach((y, i) => {
      const ds = addWeeks(f.origin, i + 1);
      const list = byTarget.get(ds) ?? [];
      list.push({ origin: f.origin, lead_weeks: i + 1, yhat: finite(y), yhat_lower: finite(f.yhat_lower[i]), yhat_upper: finite(f.yhat_upper[i]), current: f.current });
      byTarget.set(ds, list);
    });
  }
  return {
    origins: sorted.map((f) => ({ origin: f.origin, current: f.current, first_week: addWeeks(f.origin, 1), last_week: addWeeks(f.origin, f.yhat.length), weeks: f.yhat.length })),
    targets: [...byTarget.keys()].sort().map((ds) => ({ ds, actual: actual(ds), forecasts: byTarget.get(ds)! })),
  };
}

export interface ConvergencePoint {
  origin: string;
  ds: string;
  yhat: number;
  actual: number;
  /** yhat − actual */
  error: number;
}

export interface ConvergenceLead {
  lead_weeks: number;
  n: number;
  mae: number;
  /** mean of yhat − actual: positive means over-forecast */
  bias: number;
  points: ConvergencePoint[];
}

/**
 * Error by lead time across origins: for each lead (weeks between the origin and the target) the forecasts whose target
 * week has a known actual, their mean absolute error and bias. Leads without a known actual are left out.
 */
export function forecastConvergence(forecasts: readonly OriginForecast[], actual: (ds: string) => number | null): ConvergenceLead[] {
  const byLead = new Map<number, ConvergencePoint[]>();
  for (const f of [...forecasts].sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0))) {
    f.yhat.forEach((y, i) => {
      const ds = addWeeks(f.origin, i + 1);
      const a = actual(ds);
      const yhat = finite(y);
      if (a === null || yhat === null) return;
      const list = byLead.get(i + 1) ?? [];
      list.push({ origin: f.origin, ds, yhat, actual: a, error: yhat - a });
      byLead.set(i + 1, list);
    });
  }
  return [...byLead.entries()]
    .sort(([a], [b]) => a - b)
    .map(([lead, points]) => ({
      lead_weeks: lead,
      n: points.length,
      mae: points.reduce((s, p) => s + Math.abs(p.error), 0) / points.length,
      bias: points.reduce((s, p) => s + p.error, 0) / points.length,
      points,
    }));
}

export interface WindowRow extends ForecastVectors {
  method: string;
  origin_week: string;
  actual: ReadonlyArray<number | null> | null;
}

/** Backtest windows as dated points; the stored actuals win, the history fills weeks stored without one. */
export function backtestWindows(rows: readonly WindowRow[], actual: (ds: string) => number | null) {
  return rows.map((r) => ({
    method: r.method,
    origin: r.origin_week,
    points: r.yhat.map((y, i) => {
      const ds = addWeeks(r.origin_week, i + 1);
      return { ds, yhat: finite(y), yhat_lower: finite(r.yhat_lower[i]), yhat_upper: finite(r.yhat_upper[i]), actual: finite(r.actual?.[i]) ?? actual(ds) };
    }),
  }));
}
