import { leadTimeDemand, type DemandDistribution, type LeadTime } from '../../../domain/inventory/leadTimeDemand';
import { sampleLeadTimeDemand, simulateLeadTimeDemand } from '../../../domain/inventory/monteCarlo';

const N = 200_000;

function ksDistance(samples: Float64Array, cdf: (x: number) => number, discrete: boolean): number {
  const sorted = samples.slice().sort();
  const n = sorted.length;
  let worst = 0;
  for (let i = 0; i < n; i++) {
    // For a discrete law compare only at the end of each run of equal values (the ECDF's jump points).
    if (discrete && i + 1 < n && sorted[i + 1] === sorted[i]) continue;
    const F = cdf(sorted[i]!);
    worst = Math.max(worst, Math.abs((i + 1) / n - F));
    if (!discrete) worst = Math.max(worst, Math.abs(F - i / n));
  }
  return worst;
}

const cases: [string, DemandDistribution, LeadTime][] = [
  ['poisson', { type: 'poisson', lambda: 4 }, 3],
  ['negative binomial, fractional L', { type: 'negative_binomial', r: 2, p: 0.3 }, 2.5],
  ['normal', { type: 'normal', mu: 50, sigma: 12 }, 3],
  ['gamma, fractional L', { type: 'gamma', shape: 2, rate: 0.1 }, 1.5],
  ['empirical', { type: 'empirical', values: [0, 2, 2, 5, 9, 14, 3] }, 3],
  ['empirical, fractional L', { type: 'empirical', values: [0, 2, 2, 5, 9, 14, 3] }, 2.4],
  ['poisson, lead time pmf', { type: 'poisson', lambda: 3 }, { pmf: [{ leadTime: 1, probability: 0.25 }, { leadTime: 4, probability: 0.75 }] }],
  ['gamma, lead time pmf', { type: 'gamma', shape: 3, rate: 0.2 }, { pmf: [{ leadTime: 2, probability: 0.6 }, { leadTime: 3, probability: 0.4 }] }],
];

describe('Monte Carlo lead-time demand agrees with the analytic LTD (n = 200k)', () => {
  it.each(cases)('%s', (_name, demand, leadTime) => {
    const ltd = leadTimeDemand(demand, leadTime);
    const sim = simulateLeadTimeDemand(demand, leadTime, { samples: N, seed: 12345 });
    for (const [p, value] of Object.entries(sim.quantiles)) {
      expect(Math.abs(value - ltd.quantile(Number(p)))).toBeLessThanOrEqual(1);
    }
    const sd = Math.sqrt(ltd.variance);
    expect(Math.abs(sim.mean - ltd.mean)).toBeLessThan((5 * sd) / Math.sqrt(N));
    expect(Math.abs(sim.sd / sd - 1)).toBeLessThan(0.01);
    const samples = sampleLeadTimeDemand(demand, leadTime, N, 12345);
    // 1.63/sqrt(n) is the 1% critical value of the KS statistic.
    expect(ksDistance(samples, (x) => ltd.cdf(x), ltd.kind === 'discrete')).toBeLessThan(1.63 / Math.sqrt(N));
  });

  it('a lead time given by mean and sd agrees in mean and variance with the moment-matched LTD', () => {
    const demand: DemandDistribution = { type: 'poisson', lambda: 6 };
    const leadTime = { mean: 3, sd: 1 };
    const ltd = leadTimeDemand(demand, leadTime);
    const sim = simulateLeadTimeDemand(demand, leadTime, { samples: N, seed: 7 });
    expect(Math.abs(sim.mean - 18)).toBeLessThan(0.1);
    expect(Math.abs(sim.sd / Math.sqrt(ltd.variance) - 1)).toBeLessThan(0.01);
  });
});

describe('Monte Carlo output', () => {
  const demand: DemandDistribution = { type: 'normal', mu: 20, sigma: 5 };

  it('is deterministic for a seed and changes with it', () => {
    const a = simulateLeadTimeDemand(demand, 2, { samples: 2000, seed: 1 });
    const b = simulateLeadTimeDemand(demand, 2, { samples: 2000, seed: 1 });
    const c = simulateLeadTimeDemand(demand, 2, { samples: 2000, seed: 2 });
    expect(b).toEqual(a);
    expect(c.mean).not.toBe(a.mean);
  });

  it('reports the default quantiles and a histogram that covers every sample', () => {
    const sim = simulateLeadTimeDemand(demand, 2, { samples: 5000, seed: 3, bins: 20 });
    expect(Object.keys(sim.quantiles)).toEqual(['0.5', '0.8', '0.9', '0.95', '0.99']);
    expect(sim.histogram.counts).toHaveLength(20);
    expect(sim.histogram.edges).toHaveLength(21);
    expect(sim.histogram.counts.reduce((s, c) => s + c, 0)).toBe(5000);
    const q = Object.values(sim.quantiles);
    for (let i = 1; i < q.length; i++) expect(q[i]).toBeGreaterThanOrEqual(q[i - 1]!);
  });

  it('uses integer-centred bins for count demand', () => {
    const sim = simulateLeadTimeDemand({ type: 'poisson', lambda: 2 }, 1, { samples: 3000, seed: 4, bins: 50 });
    expect(sim.histogram.edges[0]! % 1).toBe(-0.5);
    expect(sim.histogram.edges[1]! - sim.histogram.edges[0]!).toBe(1);
  });
});
