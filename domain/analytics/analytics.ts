/**
 * Portfolio accuracy from per-series inputs (db/forecastReads.seriesAccuracy): pure functions of arrays.
 *
 * Definitions (errors e = forecast − actual over the scored backtest windows of each series' best method):
 * - wape = Σ|e| / Σ|actual| · 100, pooled over every series and point: the volume-weighted MAPE, so large series
 *   weigh in proportion to their volume and weeks without demand never divide by zero.
 * - weighted_mape = Σ_i w_i·MAPE_i / Σ_i w_i with w_i = Σ|actual| of series i and MAPE_i = mean(|e|/|actual|)·100 over
 *   its points with a non-zero actual. Unlike WAPE it punishes a series' small-demand weeks as hard as its big ones.
 * - bias_pct = Σe / Σ|actual| · 100: > 0 the portfolio over-forecasts.
 * - mean_mase, mean_smape, mean_coverage_90, mean_bias: plain means of the backtest step's per-series metrics of the
 *   best method (series without a finite value are left out).
 * - accuracy of a series = clip(1 − Σ|e|/Σ|actual|, 0, 1) (1 − its WAPE as a fraction; with no actual demand: 1 when
 *   every error is 0, else 0).
 * - precision of a series = clip(1 − Σ(yhat_upper − yhat_lower) / (2·Σ|yhat|), 0, 1) over the best method's current
 *   forecast: 1 minus the interval's relative half-width, so a forecast of 100 ± 10 scores 0.9 (with a zero forecast:
 *   1 when the interval has no width, else 0).
 */

export interface SeriesAccuracy {
  unique_id: string;
  demand_class: string | null;
  best_method: string | null;
  best_score: number | null;
  has_forecast: boolean;
  mase: number | null;
  smape: number | null;
  bias: number | null;
  coverage_90: number | null;
  window_points: number;
  abs_error: number;
  abs_actual: number;
  error: number;
  ape_sum: number;
  ape_points: number;
  forecast_volume: number | null;
  interval_width: number | null;
}

export interface GroupAccuracy {
  series_count: number;
  forecasted_count: number;
  with_best_method: number;
  backtested_count: number;
  wape: number | null;
  weighted_mape: number | null;
  bias_pct: number | null;
  mean_mase: number | null;
  mean_smape: number | null;
  mean_bias: number | null;
  mean_coverage_90: number | null;
  mean_best_score: number | null;
  forecast_volume: number;
}

const isNum = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

function mean(values: Array<number | null>): number | null {
  const xs = values.filter(isNum);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** Σ|e|/Σ|actual| as a fraction; null without scored points. */
function pooledRatio(rows: SeriesAccuracy[], num: (r: SeriesAccuracy) => number): number | null {
  const scored = rows.filter((r) => r.window_points > 0);
  if (!scored.length) return null;
  const den = scored.reduce((a, r) => a + r.abs_actual, 0);
  const n = scored.reduce((a, r) => a + num(r), 0);
  if (den === 0) return n === 0 ? 0 : null;
  return n / den;
}

export function groupAccuracy(rows: SeriesAccuracy[]): GroupAccuracy {
  const wape = pooledRatio(rows, (r) => r.abs_error);
  const biasPct = pooledRatio(rows, (r) => r.error);
  const withMape = rows.filter((r) => r.ape_points > 0 && r.abs_actual > 0);
  const weight = withMape.reduce((a, r) => a + r.abs_actual, 0);
  const weightedMape = weight > 0 ? withMape.reduce((a, r) => a + r.abs_actual * (r.ape_sum / r.ape_points), 0) / weight : null;
  return {
    series_count: rows.length,
    forecasted_count: rows.filter((r) => r.has_forecast).length,
    with_best_method: rows.filter((r) => r.best_method !== null).length,
    backtested_count: rows.filter((r) => r.window_points > 0).length,
    wape: wape === null ? null : wape * 100,
    weighted_mape: weightedMape === null ? null : weightedMape * 100,
    bias_pct: biasPct === null ? null : biasPct * 100,
    mean_mase: mean(rows.map((r) => r.mase)),
    mean_smape: mean(rows.map((r) => r.smape)),
    mean_bias: mean(rows.map((r) => r.bias)),
    mean_coverage_90: mean(rows.map((r) => r.coverage_90)),
    mean_best_score: mean(rows.map((r) => r.best_score)),
    forecast_volume: rows.reduce((a, r) => a + (isNum(r.forecast_volume) ? r.forecast_volume : 0), 0),
  };
}

/** Rows grouped by a key (null keys under `nullKey`), each group summarised; keys in alphabetical order. */
export function groupBy(rows: SeriesAccuracy[], key: (r: SeriesAccuracy) => string | null, nullKey: string): Record<string, GroupAccuracy> {
  const groups = new Map<string, SeriesAccuracy[]>();
  for (const r of rows) {
    const k = key(r) ?? nullKey;
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  return Object.fromEntries([...groups.keys()].sort().map((k) => [k, groupAccuracy(groups.get(k)!)]));
}

/** Number and share of series per best method (series without one are not counted). */
export function methodDistribution(rows: SeriesAccuracy[]): Record<string, { count: number; share: number }> {
  const counts = new Map<string, number>();
  for (const r of rows) if (r.best_method !== null) counts.set(r.best_method, (counts.get(r.best_method) ?? 0) + 1);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return Object.fromEntries([...counts.keys()].sort().map((m) => [m, { count: counts.get(m)!, share: counts.get(m)! / total }]));
}

export const clip01 = (v: number): number => Math.min(1, Math.max(0, v));

/** See the header; null when the series has no scored backtest point. */
export function seriesAccuracyScore(r: Pick<SeriesAccuracy, 'window_points' | 'abs_error' | 'abs_actual'>): number | null {
  if (r.window_points <= 0) return null;
  if (r.abs_actual === 0) return r.abs_error === 0 ? 1 : 0;
  return clip01(1 - r.abs_error / r.abs_actual);
}

/** See the header; null when the series has no current forecast of its best method. */
export function seriesPrecisionScore(r: Pick<SeriesAccuracy, 'forecast_volume' | 'interval_width'>): number | null {
  if (!isNum(r.forecast_volume) || !isNum(r.interval_width)) return null;
  const level = Math.abs(r.forecast_volume);
  if (level === 0) return r.interval_width === 0 ? 1 : 0;
  return clip01(1 - r.interval_width / (2 * level));
}

export interface AccuracyPrecisionPoint {
  unique_id: string;
  accuracy: number;
  precision: number;
  method: string;
}

export interface AccuracyPrecision {
  points: AccuracyPrecisionPoint[];
  summary: {
    avg_accuracy: number | null;
    avg_precision: number | null;
    series_count: number;
    by_method: Record<string, { count: number; avg_accuracy: number; avg_precision: number }>;
  };
}

/** One point per series that has a best method, a scored backtest and a current forecast of that method. */
export function accuracyPrecision(rows: SeriesAccuracy[]): AccuracyPrecision {
  const points: AccuracyPrecisionPoint[] = [];
  for (const r of rows) {
    if (r.best_method === null) continue;
    const accuracy = seriesAccuracyScore(r);
    const precision = seriesPrecisionScore(r);
    if (accuracy === null || precision === null) continue;
    points.push({ unique_id: r.unique_id, accuracy, precision, method: r.best_method });
  }
  const byMethod: Record<string, { count: number; avg_accuracy: number; avg_precision: number }> = {};
  for (const m of [...new Set(points.map((p) => p.method))].sort()) {
    const ps = points.filter((p) => p.method === m);
    byMethod[m] = { count: ps.length, avg_accuracy: mean(ps.map((p) => p.accuracy))!, avg_precision: mean(ps.map((p) => p.precision))! };
  }
  return {
    points,
    summary: {
      avg_accuracy: mean(points.map((p) => p.accuracy)),
      avg_precision: mean(points.map((p) => p.precision)),
      series_count: points.length,
      by_method: byMethod,
    },
  };
}
