/**
 * Lead-time demand (LTD) from a per-period demand distribution, as the distribution object every policy engine
 * consumes: an exact pmf for count distributions, cdf/quantile/loss functions for continuous ones.
 */
import gammaCdf from '@stdlib/stats-base-dists-gamma-cdf';
import gammaQuantile from '@stdlib/stats-base-dists-gamma-quantile';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import {
  convolutionPower,
  discreteDistribution,
  empiricalPmf,
  mixPmfs,
  negativeBinomialPmf,
  pmfMean,
  pmfVariance,
  poissonPmf,
  type DiscreteDistribution,
} from './discrete';

export type { DiscreteDistribution } from './discrete';

/**
 * Per-period demand. negative_binomial counts failures before the r-th success (scipy/@stdlib convention):
 * mean r(1-p)/p, variance r(1-p)/p^2; r need not be an integer. gamma uses shape and rate (mean shape/rate).
 * empirical is a sample of per-period demands, each value equally likely, rounded to integers.
 */
export type DemandDistribution =
  | { type: 'poisson'; lambda: number }
  | { type: 'negative_binomial'; r: number; p: number }
  | { type: 'normal'; mu: number; sigma: number }
  | { type: 'gamma'; shape: number; rate: number }
  | { type: 'empirical'; values: readonly number[] };

/** A lead time in periods: fixed (possibly fractional), random by moments, or random by a pmf over lead times. */
export type LeadTime =
  | number
  | { mean: number; sd: number }
  | { pmf: readonly { leadTime: number; probability: number }[] };

export interface ContinuousDistribution {
  readonly kind: 'continuous';
  readonly mean: number;
  readonly variance: number;
  cdf(x: number): number;
  quantile(p: number): number;
  /** E[(D - x)+] */
  loss(x: number): number;
  /** 1/2 E[((D - x)+)^2] = integral_x^inf n(y) dy, so E[backorders] of (r,Q) is [n2(r) - n2(r+Q)] / Q. */
  secondLoss(x: number): number;
}

export type LeadTimeDemand = DiscreteDistribution | ContinuousDistribution;

export function isDiscreteDemand(demand: DemandDistribution): boolean {
  return demand.type === 'poisson' || demand.type === 'negative_binomial' || demand.type === 'empirical';
}

export function periodMoments(demand: DemandDistribution): { mean: number; variance: number } {
  switch (demand.type) {
    case 'poisson':
      return { mean: demand.lambda, variance: demand.lambda };
    case 'negative_binomial': {
      const q = 1 - demand.p;
      return { mean: (demand.r * q) / demand.p, variance: (demand.r * q) / (demand.p * demand.p) };
    }
    case 'normal':
      return { mean: demand.mu, variance: demand.sigma * demand.sigma };
    case 'gamma':
      return { mean: demand.shape / demand.rate, variance: demand.shape / (demand.rate * demand.rate) };
    case 'empirical': {
      const pmf = empiricalPmf(demand.values);
      const mean = pmfMean(pmf);
      return { mean, variance: pmfVariance(pmf, mean) };
    }
  }
}

export function leadTimeDemand(demand: DemandDistribution, leadTime: LeadTime): LeadTimeDemand {
  validateDemand(demand);
  if (typeof leadTime === 'number') return fixedLeadTimeDemand(demand, leadTime);
  if ('pmf' in leadTime) return randomLeadTimeByPmf(demand, leadTime.pmf);
  return randomLeadTimeByMoments(demand, leadTime.mean, leadTime.sd);
}

function fixedLeadTimeDemand(demand: DemandDistribution, L: number): LeadTimeDemand {
  if (!(L >= 0) || !Number.isFinite(L)) throw new RangeError(`lead time must be finite and >= 0, got ${L}`);
  if (L === 0) return isDiscreteDemand(demand) ? discreteDistribution([1]) : pointMass(0);
  switch (demand.type) {
    case 'poisson': {
      const m = demand.lambda * L;
      return discreteDistribution(poissonPmf(m), { mean: m, variance: m });
    }
    case 'negative_binomial': {
      // A sum of iid NB(r, p) is NB(sum r, p); infinite divisibility extends this to fractional L.
      const r = demand.r * L;
      const q = 1 - demand.p;
      return discreteDistribution(negativeBinomialPmf(r, demand.p), {
        mean: (r * q) / demand.p,
        variance: (r * q) / (demand.p * demand.p),
      });
    }
    case 'normal':
      return normalDistribution(demand.mu * L, demand.sigma * Math.sqrt(L));
    case 'gamma':
      return gammaDistribution(demand.shape * L, demand.rate);
    case 'empirical':
      return discreteDistribution(empiricalLeadTimePmf(demand.values, L));
  }
}

/**
 * An empirical sample is not infinitely divisible, so a fractional L is read as "floor(L) periods with probability
 * 1 - frac, ceil(L) periods with probability frac": the mean is exactly L * mean and the support stays that of real
 * sums of observed demands, at the price of an extra frac(1-frac) * mean^2 of variance.
 */
function empiricalLeadTimePmf(values: readonly number[], L: number): number[] {
  const period = empiricalPmf(values);
  const lower = Math.floor(L);
  const frac = L - lower;
  const low = convolutionPower(period, lower);
  if (frac < 1e-12) return low;
  return mixPmfs([
    { weight: 1 - frac, pmf: low },
    { weight: frac, pmf: convolutionPower(period, lower + 1) },
  ]);
}

/** Law of total probability: LTD is the mixture of the fixed-lead-time LTDs weighted by P(L = l). */
function randomLeadTimeByPmf(
  demand: DemandDistribution,
  pmf: readonly { leadTime: number; probability: number }[],
): LeadTimeDemand {
  const total = pmf.reduce((s, e) => s + e.probability, 0);
  if (pmf.length === 0 || !(Math.abs(total - 1) < 1e-9) || pmf.some((e) => !(e.probability >= 0))) {
    throw new RangeError('lead-time pmf must have non-negative probabilities summing to 1');
  }
  const parts = pmf
    .filter((e) => e.probability > 0)
    .map((e) => ({ weight: e.probability, ltd: fixedLeadTimeDemand(demand, e.leadTime) }));
  const mean = parts.reduce((s, p) => s + p.weight * p.ltd.mean, 0);
  const secondMoment = parts.reduce((s, p) => s + p.weight * (p.ltd.variance + p.ltd.mean * p.ltd.mean), 0);
  const variance = Math.max(0, secondMoment - mean * mean);
  if (isDiscreteDemand(demand)) {
    const pmfs = parts.map((p) => ({ weight: p.weight, pmf: (p.ltd as DiscreteDistribution).pmf }));
    return discreteDistribution(mixPmfs(pmfs), { mean, variance });
  }
  return mixtureDistribution(parts.map((p) => ({ weight: p.weight, dist: p.ltd as ContinuousDistribution })));
}

/**
 * With only E[L] and sd(L) known the compound law is not determined, so we match its first two moments
 * (E[D_L] = mu E[L], Var[D_L] = E[L] sigma^2 + mu^2 Var[L], by the laws of total expectation and variance) within a
 * family that keeps the demand's nature: count demand becomes negative binomial (Poisson if not over-dispersed),
 * normal stays normal and gamma stays gamma.
 */
function randomLeadTimeByMoments(demand: DemandDistribution, meanL: number, sdL: number): LeadTimeDemand {
  if (!(meanL >= 0) || !(sdL >= 0)) throw new RangeError('lead-time mean and sd must be >= 0');
  if (sdL === 0) return fixedLeadTimeDemand(demand, meanL);
  const { mean: mu, variance: s2 } = periodMoments(demand);
  const m = mu * meanL;
  const v = meanL * s2 + mu * mu * sdL * sdL;
  if (m === 0) return isDiscreteDemand(demand) ? discreteDistribution([1]) : pointMass(0);
  switch (demand.type) {
    case 'normal':
      return normalDistribution(m, Math.sqrt(v));
    case 'gamma':
      return gammaDistribution((m * m) / v, m / v);
    default:
      if (v <= m) return discreteDistribution(poissonPmf(m), { mean: m, variance: m });
      return discreteDistribution(negativeBinomialPmf((m * m) / (v - m), m / v), { mean: m, variance: v });
  }
}

export function pointMass(c: number): ContinuousDistribution {
  return {
    kind: 'continuous',
    mean: c,
    variance: 0,
    cdf: (x) => (x >= c ? 1 : 0),
    quantile: () => c,
    loss: (x) => Math.max(c - x, 0),
    secondLoss: (x) => 0.5 * Math.max(c - x, 0) ** 2,
  };
}

export function normalDistribution(mu: number, sigma: number): ContinuousDistribution {
  if (!(sigma >= 0)) throw new RangeError(`sigma must be >= 0, got ${sigma}`);
  if (sigma === 0) return pointMass(mu);
  const phi = (z: number) => Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
  // Upper tail via Φ(-z), not 1 - Φ(z), so far-tail losses keep relative precision.
  const upper = (z: number) => normalCdf(-z, 0, 1);
  return {
    kind: 'continuous',
    mean: mu,
    variance: sigma * sigma,
    cdf: (x) => normalCdf(x, mu, sigma),
    quantile: (p) => normalQuantile(p, mu, sigma),
    loss: (x) => {
      const z = (x - mu) / sigma;
      return sigma * (phi(z) - z * upper(z));
    },
    secondLoss: (x) => {
      const z = (x - mu) / sigma;
      return 0.5 * sigma * sigma * ((z * z + 1) * upper(z) - z * phi(z));
    },
  };
}

/**
 * Gamma(shape a, rate b). Partial expectations reduce to gamma tails with shifted shape:
 * E[D; D > x] = (a/b) P(G_{a+1} > x) and E[D^2; D > x] = a(a+1)/b^2 P(G_{a+2} > x).
 */
export function gammaDistribution(shape: number, rate: number): ContinuousDistribution {
  if (!(shape >= 0) || !(rate > 0)) throw new RangeError(`gamma needs shape >= 0 and rate > 0, got ${shape}, ${rate}`);
  if (shape === 0) return pointMass(0);
  const mean = shape / rate;
  const variance = shape / (rate * rate);
  const over = (x: number, a: number) => 1 - gammaCdf(x, a, rate);
  return {
    kind: 'continuous',
    mean,
    variance,
    cdf: (x) => gammaCdf(x, shape, rate),
    quantile: (p) => gammaQuantile(p, shape, rate),
    loss: (x) => (x <= 0 ? mean - x : mean * over(x, shape + 1) - x * over(x, shape)),
    secondLoss: (x) => {
      if (x <= 0) return 0.5 * ((mean - x) ** 2 + variance);
      const m2 = (shape * (shape + 1)) / (rate * rate);
      const value = 0.5 * (m2 * over(x, shape + 2) - 2 * x * mean * over(x, shape + 1) + x * x * over(x, shape));
      return Math.max(0, value);
    },
  };
}

export function mixtureDistribution(parts: readonly { weight: number; dist: ContinuousDistribution }[]): ContinuousDistribution {
  const mean = parts.reduce((s, p) => s + p.weight * p.dist.mean, 0);
  const second = parts.reduce((s, p) => s + p.weight * (p.dist.variance + p.dist.mean ** 2), 0);
  const cdf = (x: number) => parts.reduce((s, p) => s + p.weight * p.dist.cdf(x), 0);
  return {
    kind: 'continuous',
    mean,
    variance: Math.max(0, second - mean * mean),
    cdf,
    quantile: (p) => {
      if (p <= 0 || p >= 1) return p <= 0 ? Math.min(...parts.map((c) => c.dist.quantile(0))) : Infinity;
      let lo = Math.min(...parts.map((c) => c.dist.quantile(p)));
      let hi = Math.max(...parts.map((c) => c.dist.quantile(p)));
      for (let i = 0; i < 200 && hi - lo > 1e-10 * Math.max(1, Math.abs(hi)); i++) {
        const mid = 0.5 * (lo + hi);
        if (cdf(mid) >= p) hi = mid;
        else lo = mid;
      }
      return hi;
    },
    loss: (x) => parts.reduce((s, p) => s + p.weight * p.dist.loss(x), 0),
    secondLoss: (x) => parts.reduce((s, p) => s + p.weight * p.dist.secondLoss(x), 0),
  };
}

function validateDemand(demand: DemandDistribution): void {
  const bad = (msg: string) => {
    throw new RangeError(`${demand.type} demand: ${msg}`);
  };
  switch (demand.type) {
    case 'poisson':
      if (!(demand.lambda >= 0) || !Number.isFinite(demand.lambda)) bad('lambda must be finite and >= 0');
      break;
    case 'negative_binomial':
      if (!(demand.r > 0) || !(demand.p > 0 && demand.p <= 1)) bad('needs r > 0 and 0 < p <= 1');
      break;
    case 'normal':
      if (!Number.isFinite(demand.mu) || !(demand.sigma >= 0)) bad('needs finite mu and sigma >= 0');
      break;
    case 'gamma':
      if (!(demand.shape > 0) || !(demand.rate > 0)) bad('needs shape > 0 and rate > 0');
      break;
    case 'empirical':
      if (demand.values.length === 0) bad('needs at least one value');
      break;
  }
}
