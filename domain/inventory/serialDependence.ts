/**
 * Weeks whose demand moves together. The engines convolve weekly demand over a protection interval of k weeks as if
 * the weeks were independent, Var D(k) = k σ². A seasonal or trending part's neighbouring weeks share their level, so
 * the spread over k weeks grows faster than that:
 *
 *   Var D(k) = k σ² (1 + 2 Σ_{j=1}^{⌈k⌉−1} (1 − j/k) ρ_j)
 *
 * (the variance of a sum of k terms of a stationary series with lag-j autocorrelations ρ_j; Box, Jenkins & Reinsel,
 * 2008, §2.1). A policy sized once and held through the season meets the weeks of high level with the stock of the
 * average one: the term above is the part of the spread that the level's own movement adds over the interval.
 *
 * Only the run of autocorrelations from lag 1 that lie outside the white-noise band ±2/√n counts (the band of an ACF
 * plot: Bartlett's standard error of a sample autocorrelation when the series has none). The sample autocorrelations
 * of an independent series scatter by about 1/√n around 0, one lag in twenty outside the band, and taking that
 * scatter as dependence would move the levels of every smooth part by noise; a level or season that neighbouring
 * weeks share shows from lag 1 on, lag after lag.
 */
import { acf } from '../forecast/stats';
import { periodMoments, type DemandDistribution } from './leadTimeDemand';

/** Lags looked at: a protection interval beyond this many weeks takes the autocorrelations up to it (ρ beyond = 0). */
export const MAX_DEPENDENCE_LAG = 26;

/**
 * The autocorrelations ρ_1, ρ_2, … of a weekly history (closed weeks, NaN, left out) up to the first lag inside the
 * band (or maxLag); none for a history too short to tell (fewer than 13 open weeks), a constant one, or one whose
 * lag-1 autocorrelation is inside the band.
 */
export function weeklyAutocorrelation(history: ArrayLike<number>, maxLag = MAX_DEPENDENCE_LAG): number[] {
  const open = Array.from(history).filter((v) => Number.isFinite(v));
  const n = open.length;
  if (n < 13) return [];
  const r = acf(open, Math.min(maxLag, n - 1));
  const band = 2 / Math.sqrt(n);
  const out: number[] = [];
  for (let j = 1; j < r.length && Math.abs(r[j]) > band; j++) out.push(r[j]);
  return out;
}

/**
 * The autocorrelations of a week's demand when a part of it with `ownVariance` carries them and the rest (`variance` −
 * `ownVariance`: other demand streams, independent from week to week) does not: the covariances stay, the variance
 * they are read against grows.
 */
export function diluteAutocorrelation(rho: readonly number[], ownVariance: number, variance: number): number[] {
  if (!(variance > ownVariance) || !(ownVariance >= 0)) return [...rho];
  const share = ownVariance / variance;
  return rho.map((r) => r * share);
}

/**
 * Var D(k) / (k σ²) for autocorrelations rho[j − 1] = ρ_j: 1 for independent weeks (or k ≤ 1), more when neighbouring
 * weeks move together. A fractional k keeps the same weights (1 − j/k) over the whole lags below it. Never below 0.
 */
export function dependentVarianceFactor(rho: readonly number[], k: number): number {
  if (!(k > 1) || !rho.length) return 1;
  let s = 0;
  for (let j = 1; j < k && j <= rho.length; j++) s += (1 - j / k) * rho[j - 1];
  return Math.max(0, 1 + 2 * s);
}

/**
 * The autocorrelations of the weekly demand a site is planned against (`planned`), when only its statistical demand
 * (`statistical`, null when the scenario leaves it out) has the weekly history they are read from: the meio step's
 * and the service backtest's one reading of a site's weeks.
 */
export function plannedAutocorrelation(history: ArrayLike<number>, statistical: DemandDistribution | null, planned: DemandDistribution | null): number[] {
  if (!statistical || !planned) return [];
  const rho = weeklyAutocorrelation(history);
  return rho.length ? diluteAutocorrelation(rho, periodMoments(statistical).variance, periodMoments(planned).variance) : rho;
}
