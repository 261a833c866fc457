/**
 * The per-series tournament: every candidate method is backtested on rolling origins, fitted on the full history,
 * and ranked by a documented score; the best (or the locked method) is the series' forecast.
 *
 * Candidates. `methods` when given; else `characteristics.recommended_methods` when given; else every method of the
 * characterization catalogue (naive … adida, combination) that can run on the series (registry.canRun) — the registry
 * extras drift and imapa only when named. A locked method is always a candidate, even below its minimum history (it
 * then gets the engine's own short-series fallback, which the forecast's params.fallback names, and is scored on the
 * origins where it can run). Other names that are unknown or cannot run on the full history are listed in `skipped`
 * with the reason. `combination` is a candidate when it is in that list or `combination` options are given
 * (`combination: false` disables it).
 *
 * Score. `score` names a backtest metric (metrics.ts; default 'mase'); the tournament minimises metrics.scoreOf:
 * the metric itself, |bias| for 'bias', |coverage_90 − 0.9| for 'coverage_90'. Each candidate's `score` is that value
 * over all its backtest points. Its `selection_score` is the same, except for the combination: score × (1 − margin)
 * (combination.margin, default 0.5), i.e. a single method is preferred to the combination only when its backtest
 * score is below half the combination's. Why: the best of a dozen scores measured on three short windows is an
 * optimistic (winner's-curse) estimate, while the combination is one robust candidate; on M1 the plain lowest score
 * (margin 0) picks a worse forecast than ETS alone, margin 0.5 beats every single method and every peer
 * (docs/BENCHMARKS.md has the measurements for margins 0 to 1). Ranking key, in order:
 *   1. more backtest origins evaluated first (a method too long-winded for the early origins is less proven);
 *   2. lower selection_score first (NaN — nothing scored — last);
 *   3. registry order (naive, seasonal_naive, drift, moving_average, ses, holt, damped_trend, holt_winters, ets,
 *      theta, optimized_theta, arima, croston, sba, tsb, adida, imapa, then combination): on a tie the simpler
 *      method wins. So the ranking, best and runner-up are deterministic.
 * A method whose full-history fit fails (throws or returns non-finite values) is dropped from the ranking.
 *
 * best / runner_up / best_score. best = the locked method when given (whatever its score), else the top of the
 * ranking; runner_up = the best-ranked other method; best_score and runner_up_score are their `score` (the plain
 * metric; NaN when nothing was scored). With no backtest origin at all (series shorter than minTrain + 1) every score
 * is NaN and the ranking falls back to the preference order ses, theta, croston, moving_average, naive, then registry
 * order.
 *
 * Combination (combination.ts). Members: the `top` (default 3) best-ranked methods of the pool (default ets, arima,
 * theta) among the candidates scored on at least one backtest origin; when fewer than 2 pool methods qualify, the
 * top of all qualifying candidates (e.g. croston, sba, tsb on an intermittent series). At least 2 members, else no
 * combination. Its backtest covers the origins every member ran on (on a short series ARIMA, which needs 10 points,
 * misses the early ones; the combination then counts fewer origins and ranks after the methods scored on all of
 * them, so a short series gets the best single method — which is also what measures best on M1's short yearly
 * series). Weights: 'inverse_score' (default, w ∝ 1/score, the members' scores on those common origins) or 'equal'.
 * Forecast: the weighted mean of the members' full-history forecasts; interval: the weighted mean of their bounds
 * (quantile averaging). Its backtest: the same weights applied to the members' forecasts at each common origin,
 * scored like any method, and it is ranked with the others. The members and weights come from those same backtest windows, so the
 * combination's backtest score is slightly optimistic (an in-sample choice); bench/accuracy.ts measures the
 * tournament out of sample.
 */
import { type Characteristics, METHODS } from '../../characterization/engine';
import { backtest, type BacktestResult, type MethodBacktest, type OriginForecast, scoreOriginForecasts } from './backtest';
import { combinationWeights, combineBands, type CombinationOptions, DEFAULT_MARGIN, DEFAULT_POOL } from './combination';
import { type AccuracyMetrics, isMetricName, type MetricName, scoreOf } from './metrics';
import { canRun, COMBINATION, isMethod, methodOrder, profileOf, runMethod } from './registry';
import type { ForecastOptions, ForecastResult } from './types';

export interface TournamentOptions {
  period: number;
  /** forecast horizon */
  h: number;
  /** coverage of the full-history forecasts' intervals (default 0.9); the backtest always scores the 90 % interval */
  level?: number;
  methods?: readonly string[];
  characteristics?: Pick<Characteristics, 'recommended_methods'> & Partial<Characteristics>;
  backtest?: { origins?: number; step?: number; horizon?: number; minTrain?: number };
  /** metric to minimise (default 'mase') */
  score?: MetricName;
  /** a method that is "best" regardless of the scores */
  locked?: string | null;
  combination?: CombinationOptions | false;
  /** per-method hyperparameters (opts.params of each forecaster) */
  params?: Record<string, ForecastOptions['params']>;
}

export interface MethodForecast {
  method: string;
  mean: Float64Array;
  lower: Float64Array;
  upper: Float64Array;
  params: ForecastResult['params'];
}

export interface RankEntry {
  method: string;
  /** the score metric over the method's backtest points */
  score: number;
  /** what the ranking sorts on: score, or score × (1 − margin) for the combination */
  selection_score: number;
  origins_evaluated: number;
}

export interface CombinationResult {
  members: string[];
  weights: number[];
  forecast: MethodForecast;
  metrics: AccuracyMetrics;
}

export interface TournamentResult {
  /** candidates that were run (singles, then combination when built) */
  methods: string[];
  skipped: { method: string; reason: string }[];
  /** full-history forecasts, h ahead, at `level` */
  forecasts: Record<string, MethodForecast>;
  backtest: Omit<BacktestResult, 'methods'> & { methods: Record<string, MethodBacktest> };
  score: MetricName;
  ranking: RankEntry[];
  best: string;
  runner_up: string | null;
  best_score: number;
  runner_up_score: number;
  locked: string | null;
  combination: CombinationResult | null;
}

const NO_BACKTEST_PREFERENCE = ['ses', 'theta', 'croston', 'moving_average', 'naive'];

function allFinite(x: ArrayLike<number>): boolean {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i])) return false;
  return true;
}

function compareRank(a: RankEntry, b: RankEntry, noBacktest: boolean): number {
  if (noBacktest) {
    const pa = NO_BACKTEST_PREFERENCE.indexOf(a.method);
    const pb = NO_BACKTEST_PREFERENCE.indexOf(b.method);
    const ka = pa < 0 ? NO_BACKTEST_PREFERENCE.length : pa;
    const kb = pb < 0 ? NO_BACKTEST_PREFERENCE.length : pb;
    if (ka !== kb) return ka - kb;
    return methodOrder(a.method) - methodOrder(b.method);
  }
  if (a.origins_evaluated !== b.origins_evaluated) return b.origins_evaluated - a.origins_evaluated;
  const sa = Number.isNaN(a.selection_score) ? Infinity : a.selection_score;
  const sb = Number.isNaN(b.selection_score) ? Infinity : b.selection_score;
  if (sa !== sb) return sa < sb ? -1 : 1;
  return methodOrder(a.method) - methodOrder(b.method);
}

/** The candidate list (see the module comment) and what was left out. */
export function candidateMethods(
  y: ArrayLike<number>,
  o: Pick<TournamentOptions, 'period' | 'methods' | 'characteristics' | 'locked' | 'combination'>,
): { singles: string[]; combination: boolean; skipped: { method: string; reason: string }[] } {
  const requested: string[] = o.methods ? [...o.methods] : o.characteristics ? [...o.characteristics.recommended_methods] : [...METHODS];
  if (o.locked && !requested.includes(o.locked)) requested.push(o.locked);
  const profile = profileOf(y);
  const singles: string[] = [];
  const skipped: { method: string; reason: string }[] = [];
  let combination = o.combination !== undefined && o.combination !== false;
  const seen = new Set<string>();
  for (const name of requested) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (name === COMBINATION) {
      if (o.combination !== false) combination = true;
      continue;
    }
    if (!isMethod(name)) {
      skipped.push({ method: name, reason: `unknown method '${name}'` });
      continue;
    }
    const c = canRun(name, profile, o.period);
    // a locked method runs even below its minimum history: the engine's own fallback (params.fallback) applies
    if (!c.ok && name !== o.locked) skipped.push({ method: name, reason: c.reason ?? 'cannot run' });
    else singles.push(name);
  }
  singles.sort((a, b) => methodOrder(a) - methodOrder(b));
  return { singles, combination, skipped };
}

function combineAtOrigins(members: MethodBacktest[], weights: number[]): OriginForecast[] {
  const out: OriginForecast[] = [];
  const first = members[0];
  for (const f of first.forecasts) {
    const at = members.map((m) => m.forecasts.find((x) => x.origin === f.origin));
    if (at.some((x) => !x)) continue;
    const band = combineBands(at as OriginForecast[], weights);
    out.push({ origin: f.origin, train_end: f.train_end, mean: Array.from(band.mean), lower: Array.from(band.lower), upper: Array.from(band.upper), actual: f.actual });
  }
  return out;
}

export function runTournament(yIn: ArrayLike<number>, o: TournamentOptions): TournamentResult {
  const y = yIn instanceof Float64Array ? yIn : Float64Array.from(yIn);
  const period = Math.max(1, Math.floor(o.period || 1));
  const h = Math.max(0, Math.floor(o.h));
  const level = o.level ?? 0.9;
  const metric: MetricName = o.score ?? 'mase';
  if (!isMetricName(metric)) throw new Error(`unknown score metric '${String(metric)}'`);
  const locked = o.locked ?? null;
  if (locked !== null && locked !== COMBINATION && !isMethod(locked)) throw new Error(`locked method '${locked}' is not a forecasting method`);

  const cand = candidateMethods(y, { ...o, period });
  const skipped = [...cand.skipped];
  const bt = backtest(y, cand.singles, { h, period, ...o.backtest, params: o.params });

  // full-history forecasts
  const forecasts: Record<string, MethodForecast> = {};
  const ran: string[] = [];
  for (const name of cand.singles) {
    try {
      const r = runMethod(name, y, h, { period, level, params: o.params?.[name] });
      if (!allFinite(r.mean) || r.mean.length !== h) throw new Error('non-finite forecast');
      forecasts[name] = { method: name, mean: r.mean, lower: r.lower, upper: r.upper, params: r.params };
      ran.push(name);
    } catch (e) {
      skipped.push({ method: name, reason: `failed on the full history: ${(e as Error).message}` });
    }
  }

  const noBacktest = bt.origins.length === 0;
  const copt: CombinationOptions = o.combination || {};
  const margin = Math.min(1, Math.max(0, copt.margin ?? DEFAULT_MARGIN));
  const entry = (name: string, m: MethodBacktest): RankEntry => {
    const score = scoreOf(m.metrics, metric);
    return { method: name, score, selection_score: name === COMBINATION ? score * (1 - margin) : score, origins_evaluated: m.origins_evaluated };
  };
  const singleRanking = ran.map((name) => entry(name, bt.methods[name])).sort((a, b) => compareRank(a, b, noBacktest));

  // combination
  let combination: CombinationResult | null = null;
  const methodsBt: Record<string, MethodBacktest> = { ...bt.methods };
  if (cand.combination && !noBacktest) {
    const top = Math.max(2, Math.floor(copt.top ?? 3));
    const eligible = singleRanking.filter((r) => r.origins_evaluated > 0 && Number.isFinite(r.score));
    const pool = copt.pool ?? DEFAULT_POOL;
    const fromPool = eligible.filter((r) => pool.includes(r.method));
    const members = (fromPool.length >= 2 ? fromPool : eligible).slice(0, top);
    if (members.length >= 2) {
      const names = members.map((m) => m.method);
      // the origins every member ran on (nested: a method with a longer minimum history runs on the later origins)
      const common = bt.origins.map((x) => x.index).filter((i) => names.every((n) => bt.methods[n].forecasts.some((f) => f.origin === i)));
      const onCommon = (n: string) => scoreOf(scoreOriginForecasts(bt.methods[n].forecasts.filter((f) => common.includes(f.origin)), bt.scales), metric);
      const weights = combinationWeights(names.map(onCommon), copt.weights ?? 'inverse_score');
      const band = combineBands(names.map((n) => forecasts[n]), weights);
      const originFc = combineAtOrigins(names.map((n) => bt.methods[n]), weights).filter((f) => common.includes(f.origin));
      const metrics = scoreOriginForecasts(originFc, bt.scales);
      const fc: MethodForecast = { method: COMBINATION, ...band, params: { members: names.join(','), weights: weights.map((w) => w.toFixed(4)).join(',') } };
      forecasts[COMBINATION] = fc;
      methodsBt[COMBINATION] = { method: COMBINATION, metrics, origins_evaluated: originFc.length, forecasts: originFc, skipped: [] };
      combination = { members: names, weights, forecast: fc, metrics };
      ran.push(COMBINATION);
    } else {
      skipped.push({ method: COMBINATION, reason: `needs at least 2 methods scored on a backtest origin, got ${members.length}` });
    }
  } else if (cand.combination) {
    skipped.push({ method: COMBINATION, reason: 'no backtest origin: members cannot be ranked' });
  }

  const ranking = ran.map((name) => entry(name, methodsBt[name])).sort((a, b) => compareRank(a, b, noBacktest));
  if (ranking.length === 0) throw new Error(`no forecasting method could run on this series (${skipped.map((s) => `${s.method}: ${s.reason}`).join('; ')})`);

  let best = ranking[0].method;
  if (locked !== null) {
    if (!forecasts[locked]) throw new Error(`locked method '${locked}' could not run: ${skipped.find((s) => s.method === locked)?.reason ?? 'not a candidate'}`);
    best = locked;
  }
  const runner = ranking.find((r) => r.method !== best) ?? null;
  const bestEntry = ranking.find((r) => r.method === best)!;
  return {
    methods: ran,
    skipped,
    forecasts,
    backtest: { origins: bt.origins, horizon: bt.horizon, step: bt.step, minTrain: bt.minTrain, scales: bt.scales, methods: methodsBt },
    score: metric,
    ranking,
    best,
    runner_up: runner ? runner.method : null,
    best_score: bestEntry.score,
    runner_up_score: runner ? runner.score : NaN,
    locked,
    combination,
  };
}
