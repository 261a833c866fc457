/**
 * The best-method step's choice for one series, from what the forecast and backtest steps stored. Pure: the ranking
 * and the combination are the tournament's own building blocks (domain/forecast/tournament.ts rankEntry, rankMethods,
 * buildCombination), so a series gets the same choice whether it runs through the pipeline or runTournament.
 * docs/FORECASTING.md, "Best-method step".
 */
import type { AccuracyMetrics, MetricName } from './metrics';
import { COMBINATION } from './registry';
import type { MethodBacktest } from './backtest';
import { buildCombination, combinationMembers, rankEntry, rankMethods, type RankEntry } from './tournament';
import { addWeeks } from '../time/weeks';
import { applyFutureAdjustments, finiteOrNull, type Adjustment, type CalendarBand, type CalendarWindow } from './prepare';

export interface StoredMethod {
  method: string;
  /** the forecast step's row */
  forecast: { start_week: string; yhat: number[]; lower: number[]; upper: number[] };
  /** the backtest step's metrics (null: not backtested) */
  metrics: (AccuracyMetrics & { origins_evaluated: number }) | null;
  /** the backtest step's windows */
  windows: Array<Pick<CalendarWindow, 'origin_week' | 'mean' | 'lower' | 'upper' | 'actual'>>;
}

export interface BestInput {
  methods: readonly StoredMethod[];
  metric: MetricName;
  includeBenchmarks: boolean;
  locked: { method: string; by: string | null } | null;
  /** build the combination (false when the scenario lists methods without it) */
  combine: boolean;
  /** MASE scale of the training window that ends with this origin week (undefined: the week is not in the history) */
  scaleOf: (originWeek: string) => number | undefined;
  /** future adjustments, re-applied to the combination's forecast */
  adjustments: readonly Adjustment[];
}

export interface CombinationRows {
  members: string[];
  weights: number[];
  forecast: CalendarBand & { start_week: string; adjusted_weeks: string[] };
  metrics: AccuracyMetrics & { origins_evaluated: number };
  windows: CalendarWindow[];
}

export interface BestChoice {
  best: string;
  runner_up: string | null;
  /** the best method's score (null: not scored) */
  best_score: number | null;
  metric: MetricName;
  locked: boolean;
  ranking: Array<{ method: string; score: number | null; origins_evaluated: number }>;
  reason: string;
  combination: CombinationRows | null;
  /** why there is no combination, when one was wanted */
  combination_skipped: string | null;
}

const BENCHMARKS = ['naive', 'seasonal_naive'];
const fmt = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(4)).toString() : 'n/a');

const NO_METRICS = { mae: NaN, rmse: NaN, mase: NaN, smape: NaN, bias: NaN, coverage_90: NaN, interval_score_90: NaN, n: 0, origins_evaluated: 0 };

/** The methods that compete (benchmarks out unless asked for or locked) and their ranking on the stored metrics. */
function contest<M extends Pick<StoredMethod, 'method' | 'metrics'>>(o: { methods: readonly M[]; metric: MetricName; includeBenchmarks: boolean; locked: BestInput['locked'] }) {
  const lockedName = o.locked?.method ?? null;
  let pool = o.methods.filter((m) => o.includeBenchmarks || !BENCHMARKS.includes(m.method) || m.method === lockedName);
  if (!pool.length) pool = [...o.methods];
  const noBacktest = pool.every((m) => !m.metrics || m.metrics.origins_evaluated === 0);
  const singles = rankMethods(pool.map((m) => rankEntry(m.method, m.metrics ?? NO_METRICS, (m.metrics ?? NO_METRICS).origins_evaluated, o.metric)), noBacktest);
  return { pool, noBacktest, singles, lockedName };
}

/**
 * The methods whose backtest windows chooseBest uses: the combination's members, which the stored metrics decide.
 * Every other method's windows change nothing in the choice, so the best-method step reads only these (a third of a
 * tournament's windows at most).
 */
export function windowMethods(o: { methods: ReadonlyArray<Pick<StoredMethod, 'method' | 'metrics'>>; metric: MetricName; includeBenchmarks: boolean; locked: BestInput['locked']; combine: boolean }): string[] {
  if (!o.combine || !o.methods.length) return [];
  const { pool, noBacktest, singles } = contest(o);
  if (noBacktest) return [];
  const names = new Set(pool.map((m) => m.method));
  return combinationMembers(singles, (m) => names.has(m));
}

export function chooseBest(o: BestInput): BestChoice {
  if (!o.methods.length) throw new Error('no forecast to choose from (run the forecast step first)');
  const { pool, noBacktest, singles, lockedName } = contest(o);

  // origins: the distinct origin weeks of the stored windows, oldest first, with the scale of their training window
  const originWeeks = [...new Set(pool.flatMap((m) => m.windows.map((w) => w.origin_week)))].sort();
  const scales: number[] = [];
  const originIndex = new Map<string, number>();
  for (const w of originWeeks) {
    const s = o.scaleOf(w);
    if (s === undefined) continue;
    originIndex.set(w, scales.length);
    scales.push(s);
  }
  const backtests: Record<string, MethodBacktest> = {};
  const bands: Record<string, { mean: number[]; lower: number[]; upper: number[] }> = {};
  for (const m of pool) {
    const forecasts = m.windows
      .filter((w) => originIndex.has(w.origin_week))
      .map((w) => ({ origin: originIndex.get(w.origin_week)!, train_end: 0, mean: w.mean, lower: w.lower, upper: w.upper, actual: w.actual }))
      .sort((a, b) => a.origin - b.origin);
    const metrics = m.metrics ?? NO_METRICS;
    backtests[m.method] = { method: m.method, metrics, origins_evaluated: metrics.origins_evaluated, forecasts, skipped: [] };
    bands[m.method] = { mean: m.forecast.yhat, lower: m.forecast.lower, upper: m.forecast.upper };
  }

  let combination: CombinationRows | null = null;
  let combinationSkipped: string | null = null;
  let ranking: RankEntry[] = singles;
  if (o.combine) {
    const starts = new Set(pool.map((m) => m.forecast.start_week));
    if (noBacktest) combinationSkipped = 'no backtest origin: members cannot be ranked';
    else if (starts.size > 1) combinationSkipped = 'the forecasts start on different weeks (re-run the forecast step)';
    else {
      const built = buildCombination({ ranking: singles, backtests, origins: scales.map((_, i) => i), scales, forecasts: bands, metric: o.metric });
      if (!built.ok) combinationSkipped = built.reason;
      else {
        const start = pool[0].forecast.start_week;
        const band: CalendarBand = { yhat: Array.from(built.band.mean), lower: Array.from(built.band.lower), upper: Array.from(built.band.upper) };
        const weeks = band.yhat.map((_, i) => addWeeks(start, i));
        const adjusted = applyFutureAdjustments(band, weeks, o.adjustments);
        const metrics = { ...built.metrics, origins_evaluated: built.originForecasts.length };
        combination = {
          members: built.members,
          weights: built.weights,
          forecast: { ...band, start_week: start, adjusted_weeks: adjusted },
          metrics,
          windows: built.originForecasts.map((f) => ({ ...f, origin_week: originWeeks.find((w) => originIndex.get(w) === f.origin)! })),
        };
        ranking = rankMethods([...singles, rankEntry(COMBINATION, built.metrics, built.originForecasts.length, o.metric)], noBacktest);
      }
    }
  }

  const top = ranking[0];
  let best = top.method;
  let locked = false;
  let reason: string;
  const scored = ranking.filter((r) => r.origins_evaluated > 0).length;
  if (noBacktest) {
    reason = `no backtest origin (history shorter than backtest.min_train_weeks + 1): ${best} is the first of the ${ranking.length} forecast method(s) in the preference order ses, theta, croston, moving_average, naive, then registry order`;
  } else {
    reason = `ranked first by the tournament's rule on ${o.metric} (${fmt(top.score)} over ${top.origins_evaluated} backtest origin(s)) among ${scored} scored method(s)`;
    if (best === COMBINATION) reason += `; combination of ${combination!.members.join(', ')}`;
  }
  if (lockedName) {
    if (ranking.some((r) => r.method === lockedName)) {
      const rank = ranking.findIndex((r) => r.method === lockedName) + 1;
      best = lockedName;
      locked = true;
      reason = `locked method ${lockedName}${o.locked!.by ? ` (locked by ${o.locked!.by})` : ''} always wins; it ranks ${rank} of ${ranking.length} on ${o.metric}`;
    } else {
      reason += `; locked method ${lockedName} has no forecast (not fitted for this series), so the ranking decides`;
    }
  }
  const bestEntry = ranking.find((r) => r.method === best)!;
  const runner = ranking.find((r) => r.method !== best) ?? null;
  return {
    best,
    runner_up: runner ? runner.method : null,
    best_score: finiteOrNull(bestEntry.score),
    metric: o.metric,
    locked,
    ranking: ranking.map((r) => ({ method: r.method, score: finiteOrNull(r.score), origins_evaluated: r.origins_evaluated })),
    reason,
    combination,
    combination_skipped: combinationSkipped,
  };
}

