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
 * (combination.margin, default 0.5).
 *
 * Choice rule: the combination is the default, the backtest overrides it only on clear evidence
 * (combination.ts preferCombination). A single method is ranked before the combination only when (a) it was scored
 * on at least max(minOrigins, the combination's origins) backtest origins (combination.minOrigins, default 3) and
 * (b) its score is below (1 − margin) × the combination's, i.e. less than half of it by default. So a series whose
 * backtest has fewer than 3 origins (a short series) always gets the combination, whatever the scores. Everything is
 * decided from the training data: the backtest runs on the history given, never on anything after it. Why: the best
 * of a dozen scores measured on three short windows is an optimistic (winner's-curse) estimate, while the equal-weight
 * mean of ETS, ARIMA and Theta is one robust candidate. Honest caveat: the rule and its constants (pool, equal
 * weights, margin 0.5, 3 origins) were chosen while looking at the M1 results of bench/accuracy.ts (test part
 * included), so M1 flatters it; docs/BENCHMARKS.md shows the alternatives that were measured. Ranking, in order:
 *   0. the overriding singles, then the combination, then the rest (when a combination was built and there is a
 *      backtest); within each group:
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
 * theta) among the candidates fitted on the full history — also one too long-winded for any backtest origin (ARIMA
 * on a very short series: it joins the forecast, the combination's backtest comes from the others); when fewer than
 * 2 pool methods qualify, the top of the candidates scored on at least one backtest origin (e.g. croston, sba, tsb on
 * an intermittent series). At least 2 members, else no combination. Weights: 'equal' (default) or 'inverse_score'
 * (w ∝ 1/score, the members' scores on the origins every member ran on). Forecast: the weighted mean of the members' full-history forecasts; interval: the weighted mean of
 * their bounds (quantile averaging). Its backtest: at each origin where at least 2 members ran, the same weights
 * (rescaled to the members present) applied to their forecasts — so on a short series where ARIMA (10 points
 * minimum) misses the early origins the combination is still scored there, from ETS and Theta — scored like any
 * method and ranked with the others by the choice rule above. With inverse-score weights the weights come from those
 * same backtest windows, so its backtest score is then slightly optimistic; bench/accuracy.ts measures the
 * tournament out of sample.
 */
import { type Characteristics, METHODS } from '../characterization/characterize';
import { backtest, type BacktestResult, type MethodBacktest, type OriginForecast, scoreOriginForecasts } from './backtest';
import {
  type Band, combinationWeights, combineBands, type CombinationOptions, DEFAULT_MARGIN, DEFAULT_MIN_ORIGINS, DEFAULT_POOL, DEFAULT_WEIGHTS, preferCombination,
} from './combination';
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

/**
 * A method's ranking entry from its backtest metrics (see the module comment: score, and selection_score with the
 * combination's margin). Exported so the best-method pipeline step ranks stored metrics exactly as the tournament does.
 */
export function rankEntry(method: string, metrics: AccuracyMetrics, originsEvaluated: number, metric: MetricName, margin: number = DEFAULT_MARGIN): RankEntry {
  const score = scoreOf(metrics, metric);
  const m = Math.min(1, Math.max(0, margin));
  return { method, score, selection_score: method === COMBINATION ? score * (1 - m) : score, origins_evaluated: originsEvaluated };
}

/**
 * Sorts ranking entries best first by the tournament's ranking key; `noBacktest` (no origin at all) switches to the
 * preference order of the module comment.
 */
export function rankMethods(entries: readonly RankEntry[], noBacktest: boolean, minOrigins: number = DEFAULT_MIN_ORIGINS): RankEntry[] {
  const sorted = [...entries].sort((a, b) => compareRank(a, b, noBacktest));
  return noBacktest ? sorted : preferCombination(sorted, COMBINATION, minOrigins);
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

/** The combination at each origin where at least 2 members ran, from those members, their weights rescaled to sum 1. */
function combineAtOrigins(members: MethodBacktest[], weights: number[], origins: readonly number[]): OriginForecast[] {
  const out: OriginForecast[] = [];
  for (const origin of origins) {
    const at = members.map((m) => m.forecasts.find((x) => x.origin === origin));
    const k = at.flatMap((f, j) => (f ? [j] : []));
    const total = k.reduce((a, j) => a + weights[j], 0);
    if (k.length < 2 || !(total > 0)) continue;
    const f = at[k[0]]!;
    const band = combineBands(k.map((j) => at[j]!), k.map((j) => weights[j] / total));
    out.push({ origin, train_end: f.train_end, mean: Array.from(band.mean), lower: Array.from(band.lower), upper: Array.from(band.upper), actual: f.actual });
  }
  return out;
}

export interface CombinationInput {
  /** the single methods' ranking, best first (rankMethods) */
  ranking: readonly RankEntry[];
  /** each ranked method's backtest: its forecasts per origin (origin = index into `scales`) */
  backtests: Readonly<Record<string, MethodBacktest>>;
  /** the backtest's origin indices, oldest first */
  origins: readonly number[];
  /** MASE scale per origin index */
  scales: readonly number[];
  /** the members' full-history forecasts */
  forecasts: Readonly<Record<string, Band>>;
  metric: MetricName;
  options?: CombinationOptions;
}

export type CombinationBuild =
  | { ok: true; members: string[]; weights: number[]; band: { mean: Float64Array; lower: Float64Array; upper: Float64Array }; originForecasts: OriginForecast[]; metrics: AccuracyMetrics }
  | { ok: false; reason: string };

/**
 * The combination's members, best first: the top of the ranking among the pool's methods, or among the methods scored
 * on a backtest origin when fewer than two pool methods ran. Only the ranking decides, not the backtest windows, so the
 * best-method step knows whose windows it needs before it reads any (domain/forecast/best.ts windowMethods).
 */
export function combinationMembers(ranking: readonly RankEntry[], available: (method: string) => boolean, copt: CombinationOptions = {}): string[] {
  const top = Math.max(2, Math.floor(copt.top ?? 3));
  const eligible = ranking.filter((r) => r.method !== COMBINATION && r.origins_evaluated > 0 && Number.isFinite(r.score) && available(r.method));
  const pool = copt.pool ?? DEFAULT_POOL;
  // pool members need a full-history forecast, not a backtest score: ARIMA on a short series still joins the forecast
  const fromPool = ranking.filter((r) => r.method !== COMBINATION && pool.includes(r.method) && available(r.method));
  return (fromPool.length >= 2 ? fromPool : eligible).slice(0, top).map((m) => m.method);
}

/**
 * The combination of the module comment, from ranked single methods: members (pool, top), weights on the origins
 * every member ran on, the combined full-history forecast and the combined, scored backtest. runTournament and the
 * best-method pipeline step (which reads the members' forecasts and backtest windows from the database) both build it
 * here, so the two cannot drift apart.
 */
export function buildCombination(c: CombinationInput): CombinationBuild {
  const copt = c.options ?? {};
  const names = combinationMembers(c.ranking, (m) => Boolean(c.backtests[m] && c.forecasts[m]), copt);
  if (names.length < 2) return { ok: false, reason: `needs at least 2 methods scored on a backtest origin, got ${names.length}` };
  // the origins every member ran on (nested: a method with a longer minimum history runs on the later origins)
  const common = c.origins.filter((i) => names.every((n) => c.backtests[n].forecasts.some((f) => f.origin === i)));
  const scales = c.scales as number[];
  const onCommon = (n: string) => scoreOf(scoreOriginForecasts(c.backtests[n].forecasts.filter((f) => common.includes(f.origin)), scales), c.metric);
  const weights = combinationWeights(names.map(onCommon), copt.weights ?? DEFAULT_WEIGHTS);
  const band = combineBands(names.map((n) => c.forecasts[n]), weights);
  const originForecasts = combineAtOrigins(names.map((n) => c.backtests[n]), weights, c.origins);
  return { ok: true, members: names, weights, band, originForecasts, metrics: scoreOriginForecasts(originForecasts, scales) };
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
  const margin = copt.margin ?? DEFAULT_MARGIN;
  const entry = (name: string, m: MethodBacktest): RankEntry => rankEntry(name, m.metrics, m.origins_evaluated, metric, margin);
  const singleRanking = rankMethods(ran.map((name) => entry(name, bt.methods[name])), noBacktest);

  // combination
  let combination: CombinationResult | null = null;
  const methodsBt: Record<string, MethodBacktest> = { ...bt.methods };
  if (cand.combination && !noBacktest) {
    const built = buildCombination({
      ranking: singleRanking, backtests: bt.methods, origins: bt.origins.map((x) => x.index), scales: bt.scales, forecasts, metric, options: copt,
    });
    if (built.ok) {
      const { members: names, weights, band, originForecasts: originFc, metrics } = built;
      const fc: MethodForecast = { method: COMBINATION, ...band, params: { members: names.join(','), weights: weights.map((w) => w.toFixed(4)).join(',') } };
      forecasts[COMBINATION] = fc;
      methodsBt[COMBINATION] = { method: COMBINATION, metrics, origins_evaluated: originFc.length, forecasts: originFc, skipped: [] };
      combination = { members: names, weights, forecast: fc, metrics };
      ran.push(COMBINATION);
    } else {
      skipped.push({ method: COMBINATION, reason: built.reason });
    }
  } else if (cand.combination) {
    skipped.push({ method: COMBINATION, reason: 'no backtest origin: members cannot be ranked' });
  }

  const ranking = rankMethods(ran.map((name) => entry(name, methodsBt[name])), noBacktest, copt.minOrigins);
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
