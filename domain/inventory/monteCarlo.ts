/**
 * Seeded Monte Carlo of lead-time demand. Demand is drawn period by period and summed, so it checks the closed-form
 * convolution rules of leadTimeDemand.ts rather than restating them. A fractional last period is drawn from the
 * same family with its parameters scaled by the fraction (infinite divisibility), except for empirical demand which,
 * like the analytic side, gets one extra whole period with probability equal to the fraction.
 * A lead time given only by mean and sd is drawn from a gamma law with those moments, which keeps it non-negative;
 * the analytic side only matches two moments there, so the two agree in mean and variance, not in shape.
 */
import type { DemandDistribution, LeadTime } from './leadTimeDemand';
import {
  createRng,
  sampleGamma,
  sampleNegativeBinomial,
  sampleNormal,
  samplePoisson,
  sampleUniformIndex,
  type Rng,
} from './random';

// Module-level aliases: global lookups are slow inside vm contexts (jest), and these run once per draw.
const { floor, round, sqrt } = Math;

export const DEFAULT_QUANTILES: readonly number[] = [0.5, 0.8, 0.9, 0.95, 0.99];

export interface MonteCarloOptions {
  samples?: number;
  seed?: number;
  bins?: number;
  quantiles?: readonly number[];
}

export interface LeadTimeDemandSimulation {
  samples: number;
  seed: number;
  mean: number;
  sd: number;
  /** Keyed by the probability as written, e.g. quantiles['0.95']; inverse empirical cdf (smallest x with F_n(x) >= p). */
  quantiles: Record<string, number>;
  histogram: { edges: number[]; counts: number[] };
}

export function sampleLeadTimeDemand(demand: DemandDistribution, leadTime: LeadTime, samples: number, seed: number): Float64Array {
  if (!Number.isInteger(samples) || samples < 1) throw new RangeError(`samples must be a positive integer, got ${samples}`);
  const rng = createRng(seed);
  const drawLeadTime = leadTimeSampler(leadTime);
  const out = new Float64Array(samples);
  for (let i = 0; i < samples; i++) out[i] = demandOver(rng, demand, drawLeadTime(rng));
  return out;
}

export function simulateLeadTimeDemand(
  demand: DemandDistribution,
  leadTime: LeadTime,
  options: MonteCarloOptions = {},
): LeadTimeDemandSimulation {
  const samples = options.samples ?? 10_000;
  const seed = options.seed ?? 1;
  const draws = sampleLeadTimeDemand(demand, leadTime, samples, seed);
  let sum = 0;
  for (const x of draws) sum += x;
  const mean = sum / samples;
  let sq = 0;
  for (const x of draws) sq += (x - mean) * (x - mean);
  const sorted = draws.slice().sort();
  const quantiles: Record<string, number> = {};
  for (const p of options.quantiles ?? DEFAULT_QUANTILES) quantiles[String(p)] = empiricalQuantile(sorted, p);
  return {
    samples,
    seed,
    mean,
    sd: samples > 1 ? Math.sqrt(sq / (samples - 1)) : 0,
    quantiles,
    histogram: histogram(sorted, options.bins ?? 50),
  };
}

export function empiricalQuantile(sorted: Float64Array, p: number): number {
  if (!(p > 0 && p <= 1)) throw new RangeError(`quantile probability must lie in (0,1], got ${p}`);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/** Integer-valued samples get integer-wide bins centred on the integers, so no bin straddles a value unevenly. */
function histogram(sorted: Float64Array, bins: number): { edges: number[]; counts: number[] } {
  const min = sorted[0]!;
  const max = sorted[sorted.length - 1]!;
  const integral = sorted.every(Number.isInteger);
  let start: number;
  let width: number;
  let count: number;
  if (integral) {
    width = Math.max(1, Math.ceil((max - min + 1) / bins));
    start = min - 0.5;
    count = Math.ceil((max - min + 1) / width);
  } else {
    width = max > min ? (max - min) / bins : 1;
    start = min;
    count = max > min ? bins : 1;
  }
  const counts = new Array<number>(count).fill(0);
  for (const x of sorted) counts[Math.min(count - 1, floor((x - start) / width))]!++;
  const edges = Array.from({ length: count + 1 }, (_, i) => start + i * width);
  return { edges, counts };
}

function leadTimeSampler(leadTime: LeadTime): (rng: Rng) => number {
  if (typeof leadTime === 'number') {
    if (!(leadTime >= 0)) throw new RangeError('lead time must be >= 0');
    return () => leadTime;
  }
  if ('pmf' in leadTime) {
    const values = leadTime.pmf.map((e) => e.leadTime);
    const cumulative: number[] = [];
    let acc = 0;
    for (const e of leadTime.pmf) cumulative.push((acc += e.probability));
    return (rng) => {
      const u = rng() * acc;
      const i = cumulative.findIndex((c) => u < c);
      return values[i < 0 ? values.length - 1 : i]!;
    };
  }
  const { mean, sd } = leadTime;
  if (sd === 0) return () => mean;
  const shape = (mean * mean) / (sd * sd);
  const rate = mean / (sd * sd);
  return (rng) => sampleGamma(rng, shape, rate);
}

function demandOver(rng: Rng, demand: DemandDistribution, L: number): number {
  const whole = floor(L);
  const frac = L - whole;
  let total = 0;
  for (let t = 0; t < whole; t++) total += periodDraw(rng, demand, 1);
  if (frac > 1e-12) {
    if (demand.type === 'empirical') {
      if (rng() < frac) total += periodDraw(rng, demand, 1);
    } else {
      total += periodDraw(rng, demand, frac);
    }
  }
  return total;
}

function periodDraw(rng: Rng, demand: DemandDistribution, scale: number): number {
  switch (demand.type) {
    case 'poisson':
      return samplePoisson(rng, demand.lambda * scale);
    case 'negative_binomial':
      return sampleNegativeBinomial(rng, demand.r * scale, demand.p);
    case 'normal':
      return sampleNormal(rng, demand.mu * scale, demand.sigma * sqrt(scale));
    case 'gamma':
      return sampleGamma(rng, demand.shape * scale, demand.rate);
    case 'empirical':
      return round(demand.values[sampleUniformIndex(rng, demand.values.length)]!);
  }
}
