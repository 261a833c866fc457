import negativeBinomialCdf from '@stdlib/stats-base-dists-negative-binomial-cdf';
import poissonCdf from '@stdlib/stats-base-dists-poisson-cdf';
import {
  convolutionPower,
  discreteDistribution,
  empiricalPmf,
  logGamma,
  negativeBinomialPmf,
  poissonPmf,
  trimUpperTail,
} from '../../../domain/inventory/discrete';

describe('pmf utilities', () => {
  it('Poisson pmf stays accurate for large means (no exp(-mean) underflow)', () => {
    const pmf = poissonPmf(2500);
    expect(pmf.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 13);
    let cdf = 0;
    for (let k = 0; k <= 2550; k++) cdf += pmf[k]!;
    expect(cdf).toBeCloseTo(poissonCdf(2550, 2500), 10);
  });

  it('negative binomial pmf with r < 1 and with r > 1 matches the @stdlib cdf', () => {
    for (const [r, p] of [[0.4, 0.1], [7.5, 0.35]] as const) {
      const pmf = negativeBinomialPmf(r, p);
      let cdf = 0;
      for (let k = 0; k <= 40; k++) {
        cdf += pmf[k]!;
        expect(cdf).toBeCloseTo(negativeBinomialCdf(k, r, p), 12);
      }
    }
  });

  it('convolution power of a Bernoulli is a binomial', () => {
    const pmf = convolutionPower([0.7, 0.3], 5);
    const binom = [0.16807, 0.36015, 0.3087, 0.1323, 0.02835, 0.00243];
    binom.forEach((p, k) => expect(pmf[k]).toBeCloseTo(p, 14));
    expect(convolutionPower([0.5, 0.5], 0)).toEqual([1]);
  });

  it('trims only an upper tail lighter than the threshold', () => {
    expect(trimUpperTail([0.5, 0.5 - 1e-16, 5e-17, 5e-17], 1e-15)).toEqual([0.5, 0.5 - 1e-16]);
  });

  it('empirical pmf rounds to integers and weighs observations equally', () => {
    expect(empiricalPmf([1, 1.2, 3, 0])).toEqual([0.25, 0.5, 0, 0.25]);
    expect(() => empiricalPmf([1, -1])).toThrow(RangeError);
  });

  it('quantile is the smallest k with F(k) >= p', () => {
    const d = discreteDistribution([0.1, 0.2, 0.3, 0.4]);
    expect([0.05, 0.1, 0.11, 0.3, 0.6, 0.61, 1].map((p) => d.quantile(p))).toEqual([0, 0, 1, 1, 2, 3, 3]);
  });

  it('log-gamma agrees with log factorials', () => {
    expect(logGamma(11)).toBeCloseTo(Math.log(3628800), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 13);
  });
});
