/**
 * Forecast combination: a weighted mean of the members' forecasts.
 *
 * Weights. 'equal': 1/k each (the robust default: equal weights are hard to beat, Clemen 1989, Smith & Wallis 2009).
 * 'inverse_score': w_i ∝ 1/score_i (the members' backtest scores, lower is better); a member with score 0 (a
 * perfect backtest) takes all the weight, shared equally with any other zero-score member; non-finite scores fall
 * back to equal weights.
 *
 * Point forecast: Σ w_i·mean_i.
 * Prediction interval: the same weighted mean of the members' bounds, lower = Σ w_i·lower_i, upper = Σ w_i·upper_i
 * — "quantile averaging" (Vincentization, Lichtendahl, Grushka-Cockayne & Winkler 2013): each bound is a quantile
 * of its member's predictive distribution, and averaging quantiles gives the quantile of a distribution whose
 * location is the combined mean and whose spread is the members' mean spread. Because every member has
 * lower <= mean <= upper, so has the combination. The alternative, the mixture of the members' distributions
 * ("probability averaging"), is wider whenever the members disagree and is over-dispersed when they are all
 * calibrated; averaging quantiles stays sharp, and the backtest's coverage_90 of the combination shows how it does.
 */

export type CombinationWeights = 'equal' | 'inverse_score';

/**
 * What the default-and-override choice (preferCombination) needs of a ranked candidate: tournament.ts RankEntry.
 * selection_score is the backtest score, × (1 − margin) for the combination.
 */
export interface RankedCandidate {
  method: string;
  selection_score: number;
  origins_evaluated: number;
}

export interface CombinationOptions {
  /** number of best-ranked methods combined (default 3) */
  top?: number;
  /** default DEFAULT_WEIGHTS ('equal') */
  weights?: CombinationWeights;
  /**
   * methods the members are taken from, best backtest scores first (default DEFAULT_POOL); when fewer than 2 of them
   * are candidates scored on every origin, the members come from all such candidates
   */
  pool?: readonly string[];
  /**
   * preference for the combination in the tournament's choice (default 0.5): a single method is chosen over it only
   * when its backtest score is below (1 − margin) × the combination's. 0: plain lowest score.
   */
  margin?: number;
  /**
   * backtest origins a single method must have been scored on to override the combination (default
   * DEFAULT_MIN_ORIGINS, and never fewer than the combination's own); with fewer the combination stands
   */
  minOrigins?: number;
}

/**
 * The default member pool: the three automatic methods of different families — exponential smoothing (ETS by
 * AICc), ARIMA (auto.arima's search) and Theta. Their equal- or inverse-error-weighted mean is the classic strong
 * combination (Makridakis et al. 2020, M4; Petropoulos & Svetunkov 2020), and on M1 it beats both every member and
 * a pool of all methods, whose top 3 by a short backtest are a noisy pick (docs/BENCHMARKS.md, Forecast accuracy).
 */
export const DEFAULT_POOL: readonly string[] = ['ets', 'arima', 'theta'];
export const DEFAULT_MARGIN = 0.5;
/** equal weights by default: weights estimated from three short backtest windows mostly fit their noise (the "forecast combination puzzle", Smith & Wallis 2009) */
export const DEFAULT_WEIGHTS: CombinationWeights = 'equal';
export const DEFAULT_MIN_ORIGINS = 3;

/**
 * The tournament's choice rule, applied to candidates already sorted by the plain ranking key (tournament.ts):
 * the combination is the default choice, and a single method comes before it only when it
 *   - was scored on at least max(minOrigins, the combination's origins) backtest origins (origins are nested, so it
 *     covers every origin the combination was scored on), and
 *   - has a lower selection_score, i.e. its backtest score is below (1 − margin) × the combination's (margin is
 *     already folded into the combination's selection_score);
 * both scores finite. Returns those overriding singles (in their ranking order), then the combination, then the
 * other candidates (in their ranking order). Without a combination the order is unchanged. Why the combination by
 * default: a single method's lead over three short backtest windows is mostly noise (the best of a dozen scores is
 * optimistic), while the equal-weight mean of ETS, ARIMA and Theta is robustly good; on series too short for
 * `minOrigins` origins the backtest cannot tell the methods apart at all, so the combination stands.
 */
export function preferCombination<T extends RankedCandidate>(sorted: readonly T[], combination: string, minOrigins: number = DEFAULT_MIN_ORIGINS): T[] {
  const c = sorted.find((r) => r.method === combination);
  if (!c) return [...sorted];
  const need = Math.max(Math.floor(minOrigins), c.origins_evaluated, 1);
  const overrides = (r: T) =>
    r !== c && r.origins_evaluated >= need && Number.isFinite(r.selection_score) && Number.isFinite(c.selection_score) && r.selection_score < c.selection_score;
  const first = sorted.filter(overrides);
  return [...first, c, ...sorted.filter((r) => r !== c && !first.includes(r))];
}

export interface Band {
  mean: ArrayLike<number>;
  lower: ArrayLike<number>;
  upper: ArrayLike<number>;
}

/** Member weights (sum 1) from their scores. */
export function combinationWeights(scores: readonly number[], kind: CombinationWeights = 'equal'): number[] {
  const k = scores.length;
  if (k === 0) return [];
  const equal = () => new Array<number>(k).fill(1 / k);
  if (kind === 'equal' || scores.some((s) => !Number.isFinite(s) || s < 0)) return equal();
  const zeros = scores.filter((s) => s === 0).length;
  if (zeros > 0) return scores.map((s) => (s === 0 ? 1 / zeros : 0));
  const inv = scores.map((s) => 1 / s);
  const tot = inv.reduce((a, b) => a + b, 0);
  return inv.map((v) => v / tot);
}

/** Weighted mean of the members' means and bounds (quantile averaging, see the module comment). */
export function combineBands(members: readonly Band[], weights: readonly number[]): { mean: Float64Array; lower: Float64Array; upper: Float64Array } {
  if (members.length === 0) throw new Error('combination needs at least one member');
  if (members.length !== weights.length) throw new Error('one weight per member');
  const h = Math.min(...members.map((m) => m.mean.length));
  const mean = new Float64Array(h);
  const lower = new Float64Array(h);
  const upper = new Float64Array(h);
  for (let j = 0; j < members.length; j++) {
    const w = weights[j];
    if (w === 0) continue;
    const m = members[j];
    for (let i = 0; i < h; i++) {
      mean[i] += w * m.mean[i];
      lower[i] += w * m.lower[i];
      upper[i] += w * m.upper[i];
    }
  }
  return { mean, lower, upper };
}
