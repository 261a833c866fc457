/**
 * The two peers the backtest replays beside our stock targets (docs/SERVICE_BACKTEST.md "Peers"), sized on the same
 * pre-origin history and over the same protection interval (replenishment time + review period):
 *
 * - normal: what most ERPs do. Weekly demand taken as normal with the history's mean μ and standard deviation σ;
 *   safety stock z·σ·√P with z = Φ⁻¹(target), level = μ·P + safety stock. The target is read as a probability, so a
 *   fill-rate target is used as if it were a cycle service level: the usual shortcut, and part of what is compared.
 * - bootstrap: Willemain, Smart & Schwarz (2004), simplified: the zero / non-zero pattern of the next P weeks follows a
 *   two-state Markov chain estimated on the history (starting from the last week's state), each non-zero week takes
 *   a size resampled from the history's non-zero weeks and jittered (1 + ⌊X + Z√X⌋, X itself when that is not
 *   positive); the level is the target quantile of many such lead-time demands.
 */
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import { createRng, sampleStandardNormal, sampleUniformIndex } from '../inventory/random';

export interface WeeklyMoments {
  mean: number;
  std: number;
  n: number;
}

/** Mean and sample standard deviation of the open weeks (non-finite weeks are closed and left out). */
export function weeklyMoments(history: ArrayLike<number>): WeeklyMoments {
  let n = 0, sum = 0;
  for (let i = 0; i < history.length; i++) if (Number.isFinite(history[i])) { n += 1; sum += Math.max(0, history[i]); }
  const mean = n ? sum / n : 0;
  let ss = 0;
  for (let i = 0; i < history.length; i++) if (Number.isFinite(history[i])) ss += (Math.max(0, history[i]) - mean) ** 2;
  return { mean, std: n > 1 ? Math.sqrt(ss / (n - 1)) : 0, n };
}

/** The textbook level over `protectionWeeks`: μ·P + z·σ·√P, z = Φ⁻¹(target). */
export function normalPeerLevel(m: WeeklyMoments, protectionWeeks: number, target: number): { level: number; safetyStock: number } {
  const p = Math.max(0, protectionWeeks);
  const z = normalQuantile(Math.min(Math.max(target, 1e-6), 1 - 1e-9), 0, 1);
  const safetyStock = z * m.std * Math.sqrt(p);
  return { level: Math.max(0, m.mean * p + safetyStock), safetyStock };
}

export interface BootstrapOptions {
  samples?: number;
  seed?: number;
}

/**
 * Willemain-style bootstrap of demand over `protectionWeeks` whole weeks; returns the sorted sample. Empty history
 * or no non-zero week: all zeros.
 */
export function bootstrapLeadTimeDemand(history: ArrayLike<number>, protectionWeeks: number, options: BootstrapOptions = {}): Float64Array {
  const samples = options.samples ?? 1000;
  const weeks = Math.max(1, Math.round(protectionWeeks));
  const x: number[] = [];
  for (let i = 0; i < history.length; i++) if (Number.isFinite(history[i])) x.push(Math.max(0, history[i]));
  const sizes = x.filter((v) => v > 0);
  const out = new Float64Array(samples);
  if (!sizes.length) return out;
  // transition counts of the occurrence chain; a Laplace count of one keeps a state never left from being absorbing
  const n = [[1, 1], [1, 1]];
  for (let i = 1; i < x.length; i++) n[x[i - 1] > 0 ? 1 : 0][x[i] > 0 ? 1 : 0] += 1;
  const pNonZero = [n[0][1] / (n[0][0] + n[0][1]), n[1][1] / (n[1][0] + n[1][1])];
  const rng = createRng(options.seed ?? 1);
  const last = x.length && x[x.length - 1] > 0 ? 1 : 0;
  for (let s = 0; s < samples; s++) {
    let state = last, total = 0;
    for (let w = 0; w < weeks; w++) {
      state = rng() < pNonZero[state] ? 1 : 0;
      if (!state) continue;
      const size = sizes[sampleUniformIndex(rng, sizes.length)];
      const jittered = 1 + Math.floor(size + sampleStandardNormal(rng) * Math.sqrt(size));
      total += jittered > 0 ? jittered : size;
    }
    out[s] = total;
  }
  return out.sort();
}

/** The target quantile of a sorted sample (the smallest value with at least that share of the sample at or below). */
export function sampleQuantile(sorted: Float64Array, q: number): number {
  if (!sorted.length) return 0;
  const k = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[k];
}
