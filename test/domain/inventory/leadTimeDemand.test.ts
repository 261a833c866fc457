import negativeBinomialCdf from '@stdlib/stats-base-dists-negative-binomial-cdf';
import poissonCdf from '@stdlib/stats-base-dists-poisson-cdf';
import gammaCdf from '@stdlib/stats-base-dists-gamma-cdf';
import { convolve, poissonPmf, negativeBinomialPmf } from '../../../domain/inventory/discrete';
import {
  leadTimeDemand,
  normalDistribution,
  gammaDistribution,
  type LeadTimeDemand,
  type DiscreteDistribution,
  type ContinuousDistribution,
} from '../../../domain/inventory/leadTimeDemand';

const discrete = (ltd: LeadTimeDemand): DiscreteDistribution => {
  if (ltd.kind !== 'discrete') throw new Error('expected a discrete LTD');
  return ltd;
};
const continuous = (ltd: LeadTimeDemand): ContinuousDistribution => {
  if (ltd.kind !== 'continuous') throw new Error('expected a continuous LTD');
  return ltd;
};

/** Definitions, summed term by term, to check the O(1) tail-sum implementation against. */
const bruteLoss = (pmf: readonly number[], x: number) => pmf.reduce((s, f, d) => s + f * Math.max(d - x, 0), 0);
const bruteSecondLoss = (pmf: readonly number[], x: number) =>
  pmf.reduce((s, f, d) => s + 0.5 * f * Math.max(d - x, 0) * Math.max(d - x - 1, 0), 0);

/** Composite Simpson rule, enough to check a closed-form integral to ~1e-9. */
const integrate = (f: (x: number) => number, a: number, b: number, n = 4000) => {
  const h = (b - a) / n;
  let s = f(a) + f(b);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
};

describe('lead-time demand, fixed lead time', () => {
  it('Poisson: LTD is Poisson(λL), also for fractional L', () => {
    const ltd = discrete(leadTimeDemand({ type: 'poisson', lambda: 3.7 }, 2.5));
    expect(ltd.mean).toBeCloseTo(9.25, 12);
    expect(ltd.variance).toBeCloseTo(9.25, 12);
    for (const k of [0, 3, 9, 15, 30]) expect(ltd.cdf(k)).toBeCloseTo(poissonCdf(k, 9.25), 12);
    const mass = ltd.pmf.reduce((s, v) => s + v, 0);
    expect(1 - mass).toBeLessThan(1e-12);
  });

  it('Poisson: the pmf equals the convolution of the per-period pmfs', () => {
    const period = poissonPmf(2.2);
    const twice = convolve(period, period);
    const ltd = discrete(leadTimeDemand({ type: 'poisson', lambda: 2.2 }, 2));
    for (let k = 0; k < 20; k++) expect(ltd.pmf[k]).toBeCloseTo(twice[k]!, 13);
  });

  it('negative binomial: LTD is NB(rL, p) (failures before the r-th success, mean r(1-p)/p)', () => {
    const ltd = discrete(leadTimeDemand({ type: 'negative_binomial', r: 2.5, p: 0.3 }, 3));
    expect(ltd.mean).toBeCloseTo((7.5 * 0.7) / 0.3, 12);
    expect(ltd.variance).toBeCloseTo((7.5 * 0.7) / 0.09, 10);
    for (const k of [0, 5, 17, 40, 90]) expect(ltd.cdf(k)).toBeCloseTo(negativeBinomialCdf(k, 7.5, 0.3), 12);
    const period = negativeBinomialPmf(2.5, 0.3);
    const thrice = convolve(convolve(period, period), period);
    for (let k = 0; k < 60; k++) expect(ltd.pmf[k]).toBeCloseTo(thrice[k]!, 12);
  });

  it('normal: N(μL, σ√L)', () => {
    const ltd = continuous(leadTimeDemand({ type: 'normal', mu: 100, sigma: 30 }, 4));
    expect(ltd.mean).toBe(400);
    expect(ltd.variance).toBeCloseTo(3600, 9);
    expect(ltd.quantile(0.5)).toBeCloseTo(400, 9);
    expect(ltd.cdf(520)).toBeCloseTo(0.9772498680518208, 12); // z = (520 - 400) / 60 = 2
  });

  it('gamma: Gamma(shape·L, rate)', () => {
    const ltd = continuous(leadTimeDemand({ type: 'gamma', shape: 1.5, rate: 0.25 }, 2.5));
    expect(ltd.mean).toBeCloseTo(15, 12);
    expect(ltd.variance).toBeCloseTo(60, 12);
    expect(ltd.cdf(20)).toBeCloseTo(gammaCdf(20, 3.75, 0.25), 14);
    expect(ltd.cdf(ltd.quantile(0.9))).toBeCloseTo(0.9, 10);
  });

  it('empirical: L-fold convolution of the sample pmf', () => {
    // Per period: P(0)=1/4, P(1)=1/2, P(3)=1/4, so (1/4 + z/2 + z^3/4)^2 expands to the pmf below.
    const ltd = discrete(leadTimeDemand({ type: 'empirical', values: [0, 1, 1, 3] }, 2));
    const expected = [0.0625, 0.25, 0.25, 0.125, 0.25, 0, 0.0625];
    expected.forEach((p, k) => expect(ltd.pmf[k] ?? 0).toBeCloseTo(p, 15));
    expect(ltd.mean).toBeCloseTo(2.5, 14);
  });

  it('empirical: fractional L mixes floor and ceil, keeping the mean exactly L·mean', () => {
    const ltd = discrete(leadTimeDemand({ type: 'empirical', values: [0, 1, 1, 3] }, 1.25));
    expect(ltd.mean).toBeCloseTo(1.25 * 1.25, 14);
    const one = [0.25, 0.5, 0, 0.25];
    const two = [0.0625, 0.25, 0.25, 0.125, 0.25, 0, 0.0625];
    two.forEach((p, k) => expect(ltd.pmf[k] ?? 0).toBeCloseTo(0.75 * (one[k] ?? 0) + 0.25 * p, 15));
  });

  it('zero lead time is a point mass at 0 for every type', () => {
    for (const demand of [
      { type: 'poisson', lambda: 3 },
      { type: 'negative_binomial', r: 2, p: 0.5 },
      { type: 'normal', mu: 10, sigma: 2 },
      { type: 'gamma', shape: 2, rate: 1 },
      { type: 'empirical', values: [1, 2] },
    ] as const) {
      const ltd = leadTimeDemand(demand, 0);
      expect(ltd.mean).toBe(0);
      expect(ltd.loss(0)).toBe(0);
      expect(ltd.cdf(0)).toBe(1);
    }
  });

  it('rejects invalid parameters', () => {
    expect(() => leadTimeDemand({ type: 'poisson', lambda: -1 }, 1)).toThrow(RangeError);
    expect(() => leadTimeDemand({ type: 'negative_binomial', r: 1, p: 0 }, 1)).toThrow(RangeError);
    expect(() => leadTimeDemand({ type: 'empirical', values: [] }, 1)).toThrow(RangeError);
    expect(() => leadTimeDemand({ type: 'normal', mu: 1, sigma: 1 }, -1)).toThrow(RangeError);
  });
});

describe('lead-time demand, stochastic lead time', () => {
  it('pmf over lead times: law of total probability gives the mixture pmf and total-variance moments', () => {
    const lambda = 4;
    const ltd = discrete(
      leadTimeDemand({ type: 'poisson', lambda }, { pmf: [{ leadTime: 1, probability: 0.3 }, { leadTime: 3, probability: 0.7 }] }),
    );
    const a = poissonPmf(4);
    const b = poissonPmf(12);
    for (let k = 0; k < 30; k++) expect(ltd.pmf[k]).toBeCloseTo(0.3 * (a[k] ?? 0) + 0.7 * (b[k] ?? 0), 14);
    const EL = 0.3 + 2.1;
    const VL = 0.3 + 0.7 * 9 - EL * EL;
    expect(ltd.mean).toBeCloseTo(lambda * EL, 12);
    expect(ltd.variance).toBeCloseTo(lambda * EL + lambda * lambda * VL, 10);
    for (const x of [0, 5, 11.5, 20]) expect(ltd.loss(x)).toBeCloseTo(bruteLoss(ltd.pmf, x), 10);
  });

  it('pmf over lead times for continuous demand mixes the continuous LTDs', () => {
    const ltd = continuous(
      leadTimeDemand({ type: 'normal', mu: 50, sigma: 10 }, { pmf: [{ leadTime: 2, probability: 0.5 }, { leadTime: 4, probability: 0.5 }] }),
    );
    expect(ltd.mean).toBeCloseTo(150, 12);
    expect(ltd.variance).toBeCloseTo(3 * 100 + 2500 * 1, 9);
    const q = ltd.quantile(0.9);
    expect(ltd.cdf(q)).toBeCloseTo(0.9, 9);
    const n2 = normalDistribution(100, 10 * Math.SQRT2);
    const n4 = normalDistribution(200, 20);
    expect(ltd.loss(170)).toBeCloseTo(0.5 * n2.loss(170) + 0.5 * n4.loss(170), 12);
  });

  it('mean and sd of the lead time: two moments matched (E = μE[L], Var = E[L]σ² + μ²Var[L])', () => {
    const pois = discrete(leadTimeDemand({ type: 'poisson', lambda: 5 }, { mean: 3, sd: 1 }));
    expect(pois.mean).toBeCloseTo(15, 10);
    expect(pois.variance).toBeCloseTo(15 + 25, 10);
    expect(pois.pmf.reduce((s, f, k) => s + f * k, 0)).toBeCloseTo(15, 9);
    const norm = continuous(leadTimeDemand({ type: 'normal', mu: 20, sigma: 6 }, { mean: 2, sd: 0.5 }));
    expect(norm.variance).toBeCloseTo(2 * 36 + 400 * 0.25, 10);
    const gam = continuous(leadTimeDemand({ type: 'gamma', shape: 2, rate: 0.1 }, { mean: 2, sd: 0.5 }));
    expect(gam.mean).toBeCloseTo(40, 10);
    expect(gam.variance).toBeCloseTo(2 * 200 + 400 * 0.25, 8);
    const fixed = leadTimeDemand({ type: 'poisson', lambda: 5 }, 3);
    expect(leadTimeDemand({ type: 'poisson', lambda: 5 }, { mean: 3, sd: 0 }).loss(14)).toBe(fixed.loss(14));
  });
});

describe('loss functions', () => {
  // stockpyl 1.0.2 gives these values for loss_functions.poisson_loss / poisson_second_loss(18, 15),
  // negative_binomial_loss / negative_binomial_second_loss(14, 4, 0.2), normal_loss / normal_second_loss(18.6, 15, 3),
  // gamma_loss / gamma_second_loss(12, 3, 1/0.4) (scale 2.5 = rate 0.4).
  it('matches stockpyl reference values', () => {
    const pois = leadTimeDemand({ type: 'poisson', lambda: 15 }, 1);
    expect(pois.loss(18)).toBeCloseTo(0.5176095282584724, 12);
    expect(pois.secondLoss(18)).toBeCloseTo(0.848340302917789, 11);
    const nb = leadTimeDemand({ type: 'negative_binomial', r: 4, p: 0.2 }, 1);
    expect(nb.loss(14)).toBeCloseTo(4.447304632028364, 11);
    expect(nb.secondLoss(14)).toBeCloseTo(30.877804945158942, 9);
    const norm = leadTimeDemand({ type: 'normal', mu: 15, sigma: 3 }, 1);
    expect(norm.loss(18.6)).toBeCloseTo(0.1683073521514889, 14);
    expect(norm.secondLoss(18.6)).toBeCloseTo(0.21486028212500707, 13);
    const gam = leadTimeDemand({ type: 'gamma', shape: 3, rate: 0.4 }, 1);
    expect(gam.loss(12)).toBeCloseTo(0.4962537470559082, 12);
    expect(gam.secondLoss(12)).toBeCloseTo(1.641834536279495, 11);
  });

  it('standard normal loss at z = 1.3 (stockpyl 1.0.2 gives 0.04552796208651397)', () => {
    expect(normalDistribution(0, 1).loss(1.3)).toBeCloseTo(0.04552796208651397, 14);
  });

  it('discrete loss and second-order loss equal their definitions, including real and negative arguments', () => {
    for (const ltd of [
      discrete(leadTimeDemand({ type: 'poisson', lambda: 2.3 }, 3)),
      discrete(leadTimeDemand({ type: 'negative_binomial', r: 1.7, p: 0.25 }, 2)),
      discrete(leadTimeDemand({ type: 'empirical', values: [0, 0, 2, 5, 9, 4] }, 3)),
    ]) {
      for (const x of [-4, -1, 0, 1, 2.5, 4, 7, 11, 25]) {
        expect(ltd.loss(x)).toBeCloseTo(bruteLoss(ltd.pmf, x), 11);
        if (Number.isInteger(x)) expect(ltd.secondLoss(x)).toBeCloseTo(bruteSecondLoss(ltd.pmf, x), 10);
      }
    }
  });

  it('continuous second-order loss is the integral of the first-order loss', () => {
    for (const ltd of [normalDistribution(40, 12), gammaDistribution(2.5, 0.1)]) {
      for (const x of [0, 20, 40, 70]) {
        expect(ltd.secondLoss(x)).toBeCloseTo(integrate((y) => ltd.loss(y), x, x + 400), 7);
      }
    }
  });

  it('loss at a very low argument is mean - x, and the second loss its quadratic analogue', () => {
    const g = gammaDistribution(3, 0.5);
    expect(g.loss(-2)).toBeCloseTo(8, 12);
    expect(g.secondLoss(-2)).toBeCloseTo(0.5 * (64 + 12), 12);
  });
});
