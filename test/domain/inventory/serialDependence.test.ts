import { planItemNetwork, type MeioSite, type SiteTarget } from '../../../domain/inventory/meio';
import { createRng, samplePoisson, sampleStandardNormal } from '../../../domain/inventory/random';
import { dependentVarianceFactor, diluteAutocorrelation, plannedAutocorrelation, weeklyAutocorrelation } from '../../../domain/inventory/serialDependence';
import { simulatePolicy } from '../../../domain/serviceBacktest/simulate';

const variance = (xs: readonly number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
};

describe('weeks that move together (serialDependence)', () => {
  test('the variance factor, by hand', () => {
    // k = 3: 1 + 2[(1 − 1/3)·0.5 + (1 − 2/3)·0.25] = 1 + 2(1/3 + 1/12) = 11/6
    expect(dependentVarianceFactor([0.5, 0.25], 3)).toBeCloseTo(11 / 6, 12);
    // k = 2: 1 + 2(1/2)(0.5); fractional k = 2.5: 1 + 2[(0.6)(0.5) + (0.2)(0.25)]
    expect(dependentVarianceFactor([0.5, 0.25], 2)).toBeCloseTo(1.5, 12);
    expect(dependentVarianceFactor([0.5, 0.25], 2.5)).toBeCloseTo(1.7, 12);
    // one week, or independent weeks: the convolution's own k σ²
    expect(dependentVarianceFactor([0.5, 0.25], 1)).toBe(1);
    expect(dependentVarianceFactor([], 6)).toBe(1);
    // weeks that alternate cancel out: never below 0
    expect(dependentVarianceFactor([-0.9, 0.9, -0.9], 4)).toBeCloseTo(1 + 2 * (-0.75 * 0.9 + 0.5 * 0.9 - 0.25 * 0.9), 12);
    expect(dependentVarianceFactor([-1], 2)).toBe(0);
  });

  test('the run of autocorrelations from lag 1 outside the white-noise band ±2/√n, by hand', () => {
    // 0, 10, 0, 10, … over 20 weeks: deviations ±5, ρ_k = (−1)^k (20 − k)/20; the band is 2/√20 = 0.447, so lags 1..11
    const y = Array.from({ length: 20 }, (_, t) => (t % 2 ? 10 : 0));
    const rho = weeklyAutocorrelation(y);
    expect(rho).toHaveLength(11);
    rho.forEach((r, i) => expect(r).toBeCloseTo(((i % 2 ? 1 : -1) * (19 - i)) / 20, 12));
    // 0, 0, 0, 12 repeated over 24 weeks: deviations −3, −3, −3, 9, Σ squares 648. Lag 1: every 4 pairs give
    // 9 + 9 − 27 − 27, 23 pairs −189, ρ_1 = −0.29 inside the band 2/√24 = 0.41; lag 4 (20 pairs of d²: 540, ρ_4 =
    // 0.83) is far outside, but the run from lag 1 has already stopped
    const every4 = Array.from({ length: 24 }, (_, t) => (t % 4 === 3 ? 12 : 0));
    const lag = (k: number) => { let n = 0; for (let t = 0; t + k < 24; t++) n += (every4[t] - 3) * (every4[t + k] - 3); return n / 648; };
    expect([lag(1), lag(4)]).toEqual([-189 / 648, 540 / 648]);
    expect(weeklyAutocorrelation(every4)).toEqual([]);
    // closed weeks are left out; too few open weeks (or a constant history) tell nothing
    expect(weeklyAutocorrelation([...y.slice(0, 12), NaN, NaN])).toEqual([]);
    expect(weeklyAutocorrelation(Array(30).fill(4))).toEqual([]);
  });

  test('independent weeks: a lag-1 autocorrelation inside the band is none at all', () => {
    const rng = createRng(5);
    const y = Array.from({ length: 130 }, () => samplePoisson(rng, 20));
    expect(weeklyAutocorrelation(y)).toEqual([]);
  });

  test('other streams that do not repeat from week to week dilute the autocorrelations; without the statistical stream there are none', () => {
    // covariances ρ_j σ² stay, the variance grows from 4 to 10
    expect(diluteAutocorrelation([0.5, 0.25], 4, 10)).toEqual([0.2, 0.1]);
    expect(diluteAutocorrelation([0.5], 4, 4)).toEqual([0.5]);
    const y = Array.from({ length: 20 }, (_, t) => (t % 2 ? 10 : 0));
    const statistical = { type: 'poisson' as const, lambda: 5 };
    const planned = { type: 'negative_binomial' as const, r: 5, p: 0.5 }; // mean 5, variance 10
    expect(plannedAutocorrelation(y, statistical, planned)[0]).toBeCloseTo(-0.95 * 0.5, 12);
    expect(plannedAutocorrelation(y, statistical, statistical)[0]).toBeCloseTo(-0.95, 12);
    expect(plannedAutocorrelation(y, null, planned)).toEqual([]);
  });

  test('the factor is the spread of k-week sums of a long autocorrelated series', () => {
    // AR(1) with φ = 0.8 around 50: ρ_j = 0.8^j; the variance of non-overlapping 4-week sums against 4 σ² × factor
    const rng = createRng(17);
    const y: number[] = [];
    let x = 0;
    for (let t = 0; t < 200_000; t++) {
      x = 0.8 * x + 3 * sampleStandardNormal(rng);
      y.push(50 + x);
    }
    const rho = weeklyAutocorrelation(y.slice(0, 5_000));
    rho.slice(0, 4).forEach((r, j) => expect(r).toBeCloseTo(0.8 ** (j + 1), 1));
    for (const k of [2, 4, 8]) {
      const sums: number[] = [];
      for (let t = 0; t + k <= y.length; t += k) sums.push(y.slice(t, t + k).reduce((a, b) => a + b, 0));
      const predicted = k * variance(y) * dependentVarianceFactor(rho, k);
      expect(variance(sums) / predicted).toBeGreaterThan(0.95);
      expect(variance(sums) / predicted).toBeLessThan(1.05);
    }
  });
});

describe('planItemNetwork with weeks that move together', () => {
  const target: SiteTarget = { service_type: 'fill_rate', target_service: 0.95, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ', review_period_weeks: 1, source: 'scenario' };
  // a seasonal store: Poisson around 20 a week with a ±50 % yearly swing, at a random point of the year
  const seasonal = (seed: number, weeks: number) => {
    const rng = createRng(seed);
    const phase = 2 * Math.PI * rng();
    return Array.from({ length: weeks }, (_, w) => samplePoisson(rng, 20 * (1 + 0.5 * Math.sin((2 * Math.PI * w) / 52 + phase))));
  };
  const moments = (y: readonly number[]) => ({ mean: y.reduce((a, b) => a + b, 0) / y.length, variance: variance(y) });

  test('a seasonal store sized on two years of history delivers its fill rate through the following years; with independent weeks it falls short', () => {
    const achieved = { dependent: { served: 0, asked: 0 }, independent: { served: 0, asked: 0 } };
    for (let seed = 1; seed <= 40; seed++) {
      const y = seasonal(seed, 104 + 5 * 52);
      const history = y.slice(0, 104);
      const { mean, variance: v } = moments(history);
      // the weekly fit as the distribution step makes it for over-dispersed counts: negative binomial by moments
      const demand = { type: 'negative_binomial' as const, r: (mean * mean) / (v - mean), p: mean / v };
      const planned = (autocorrelation: number[]) => planItemNetwork([{
        siteId: 1, demand, autocorrelation, hasSeries: true, unitCost: 10, masterLeadTime: 2, moq: 0, orderMultiple: 1, target,
      } satisfies MeioSite], []).skus[0];
      for (const [name, r] of [['dependent', planned(weeklyAutocorrelation(history))], ['independent', planned([])]] as const) {
        // 52 weeks of warm-up after the history, then four years measured
        const replay = simulatePolicy({ demand: y.slice(104), policy: { kind: 'sQ', reorderPoint: r.reorderPoint!, orderQty: r.orderQty! }, leadTimeWeeks: 2, mode: 'backorder', initialOnHand: r.orderUpTo!, measureFrom: 52 });
        achieved[name].served += replay.servedFromStock;
        achieved[name].asked += replay.demand;
      }
    }
    const fill = (a: { served: number; asked: number }) => a.served / a.asked;
    expect(fill(achieved.dependent)).toBeGreaterThan(0.94);
    expect(fill(achieved.dependent)).toBeLessThan(0.975);
    expect(fill(achieved.independent)).toBeLessThan(0.93);
  });

  test('the level widens with the dependence: the same store, the same fit, a higher reorder point and the promise it keeps', () => {
    const history = seasonal(3, 104);
    const { mean, variance: v } = moments(history);
    const base: MeioSite = {
      siteId: 1, demand: { type: 'negative_binomial', r: (mean * mean) / (v - mean), p: mean / v }, hasSeries: true, unitCost: 10, masterLeadTime: 2, moq: 0, orderMultiple: 1, target,
    };
    const rho = weeklyAutocorrelation(history);
    expect(rho[0]).toBeGreaterThan(0.5);
    const independent = planItemNetwork([base], []).skus[0];
    const dependent = planItemNetwork([{ ...base, autocorrelation: rho }], []).skus[0];
    // the three weeks of cover (2 lead + 1 review) spread by the factor, around the same mean
    expect(dependent.ltdMean).toBeCloseTo(independent.ltdMean!, 9);
    expect(dependent.ltdStd! ** 2).toBeCloseTo(independent.ltdStd! ** 2 * dependentVarianceFactor(rho, 3), 6);
    expect(dependent.reorderPoint!).toBeGreaterThan(independent.reorderPoint!);
    expect(dependent.expectedFillRate!).toBeGreaterThanOrEqual(0.95);
    expect(dependent.distributionType).toBe('negative_binomial');
  });
});
