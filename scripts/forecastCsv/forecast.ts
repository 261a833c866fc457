/**
 * Pure forecasting side of the offline forecaster: one weekly series → outlier correction → characterize → the
 * method tournament → CSV text. The same engines as the pipeline's outlier, characterization, forecast and
 * best-method steps (domain/outlier/detect.ts with the outlier step's defaults, domain/characterization/
 * characterize.ts, domain/forecast/tournament.ts); no file system, no database.
 */
import { characterize } from '../../domain/characterization/characterize';
import { detectOutliers, HAMPEL_DEFAULT_THRESHOLD, HAMPEL_DEFAULT_WINDOW, IQR_DEFAULT_THRESHOLD, type OutlierMethod } from '../../domain/outlier/detect';
import { dateOfDay, dayNumber } from '../../domain/time/weeks';
import type { MetricName } from '../../domain/forecast/metrics';
import { runTournament } from '../../domain/forecast/tournament';
import type { WeeklyInput } from './parse';

export interface ForecastSettings {
  /** weeks forecast after the last history week */
  horizon: number;
  /** seasonal period in weeks (52 yearly, 1 non-seasonal) */
  period: number;
  /** coverage of yhat_lower..yhat_upper */
  level: number;
  /** candidate methods; undefined: the characterization's recommended methods */
  methods?: string[];
  backtest: { origins: number; horizon: number; step: number; minTrain: number };
  score: MetricName;
  /** outlier correction before everything else (the outlier step's default is hampel) */
  outliers: OutlierMethod;
}

export interface SeriesOutcome {
  item_id: string;
  site_id: string;
  n_weeks: number;
  /** Monday of the first forecast week */
  forecast_start: string;
  demand_class: string;
  best_method: string;
  runner_up: string;
  /** the best method's backtest score (NaN when no backtest origin fitted in the history) */
  score: number;
  methods_tried: string[];
  /** weeks the outlier correction replaced */
  n_outliers: number;
  mean: Float64Array;
  lower: Float64Array;
  upper: Float64Array;
  /** set when no method could forecast the series; the numbers are then empty */
  error?: string;
}

/** Runs the engine on one series. Engine failures become `error` so one bad series does not stop a whole file. */
export function forecastSeries(s: WeeklyInput, o: ForecastSettings): SeriesOutcome {
  const n = s.y.length;
  const base = {
    item_id: s.item_id,
    site_id: s.site_id,
    n_weeks: n,
    forecast_start: dateOfDay(dayNumber(s.start) + 7 * n),
    demand_class: '',
    best_method: '',
    runner_up: '',
    score: Number.NaN,
    methods_tried: [] as string[],
    n_outliers: 0,
    mean: new Float64Array(0),
    lower: new Float64Array(0),
    upper: new Float64Array(0),
  };
  try {
    let y = s.y;
    if (o.outliers !== 'none') {
      // the outlier step's defaults (activities/outlier/step.ts outlierRow): threshold, correction and, for Hampel,
      // the 13-week window with seasonal protection
      const hampel = o.outliers === 'hampel';
      const r = detectOutliers(y, {
        method: o.outliers,
        threshold: hampel ? HAMPEL_DEFAULT_THRESHOLD : IQR_DEFAULT_THRESHOLD,
        correction: hampel ? 'median' : 'clip',
        ...(hampel ? { window: HAMPEL_DEFAULT_WINDOW, period: o.period >= 2 ? o.period : undefined } : {}),
      });
      y = r.corrected;
      base.n_outliers = r.outliers.length;
    }
    const ch = characterize(y, { period: o.period });
    base.demand_class = ch.demand_class;
    const t = runTournament(y, {
      period: o.period,
      h: o.horizon,
      level: o.level,
      methods: o.methods,
      characteristics: ch,
      backtest: o.backtest,
      score: o.score,
    });
    const fc = t.forecasts[t.best];
    // weekly demand is never negative (the input refuses y < 0), but additive models and their intervals can dip
    // below zero; flooring all three at 0 keeps lower <= yhat <= upper
    const floor = (x: Float64Array) => x.map((v) => (v < 0 ? 0 : v));
    return {
      ...base,
      best_method: t.best,
      runner_up: t.runner_up ?? '',
      score: t.best_score,
      methods_tried: t.methods,
      mean: floor(fc.mean),
      lower: floor(fc.lower),
      upper: floor(fc.upper),
    };
  } catch (e) {
    return { ...base, error: (e as Error).message || String(e) };
  }
}

export const FORECAST_HEADER = ['item_id', 'site_id', 'ds', 'method', 'yhat', 'yhat_lower', 'yhat_upper'];
export const SUMMARY_HEADER = ['item_id', 'site_id', 'n_weeks', 'demand_class', 'best_method', 'runner_up', 'score', 'methods_tried', 'n_outliers', 'error'];

/** RFC 4180 quoting, only where needed. */
export function csvField(v: string): string {
  return /[",\r\n]/.test(v) || v !== v.trim() ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Six decimals are far below any demand unit and keep files small; non-finite numbers are empty cells. */
export function num(v: number): string {
  if (!Number.isFinite(v)) return '';
  const r = Math.round(v * 1e6) / 1e6;
  return String(Object.is(r, -0) ? 0 : r);
}

export const csvLine = (fields: readonly string[]): string => `${fields.map(csvField).join(',')}\n`;

/** The forecast rows of a series (one per future week), as CSV text without header. */
export function forecastLines(r: SeriesOutcome): string {
  const start = dayNumber(r.forecast_start);
  let out = '';
  for (let k = 0; k < r.mean.length; k += 1) {
    out += csvLine([r.item_id, r.site_id, dateOfDay(start + 7 * k), r.best_method, num(r.mean[k]), num(r.lower[k]), num(r.upper[k])]);
  }
  return out;
}

/** The summary row of a series; methods_tried is '|'-separated so that the cell needs no quoting. */
export function summaryLine(r: SeriesOutcome): string {
  return csvLine([r.item_id, r.site_id, String(r.n_weeks), r.demand_class, r.best_method, r.runner_up, num(r.score), r.methods_tried.join('|'), String(r.n_outliers), r.error ?? '']);
}
