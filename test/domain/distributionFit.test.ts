import {
  digamma, fitDistributions, gammaShapeMle, kolmogorovCdf, ksPValue, ksStatistic, trigamma, type DistributionType, type Fit,
} from '../../domain/distribution/fit';

/** mulberry32: tiny seeded PRNG, uniform on [0, 1) */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}
/** Marsaglia-Tsang gamma(shape, rate) */
function gammaSample(r: () => number, shape: number, rate: number): number {
  if (shape < 1) return gammaSample(r, shape + 1, rate) * Math.pow(1 - r(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x = 0;
    let v = 0;
    do {
      x = gaussian(r);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - r();
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return (d * v) / rate;
  }
}
/** Knuth's Poisson sampler (small lambda) */
function poissonSample(r: () => number, lambda: number): number {
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= r();
  } while (p > l);
  return k - 1;
}
/** negative binomial (failures before the r-th success, success probability p) as a gamma-Poisson mixture */
function nbSample(r: () => number, size: number, p: number): number {
  return poissonSample(r, gammaSample(r, size, p / (1 - p)));
}

const N = 156;
function family(gen: (r: () => number) => number, check: (fit: Fit) => void, expected: DistributionType): void {
  let right = 0;
  for (let seed = 1; seed <= 10; seed++) {
    const r = prng(1000 + seed);
    const y = Array.from({ length: N }, () => gen(r));
    const res = fitDistributions(y);
    expect(res.n).toBe(N);
    if (res.best.distribution_type === expected) right++;
    const fit = res.candidates.find((c) => c.distribution_type === expected);
    expect(fit).toBeDefined();
    check(fit!);
  }
  expect(right).toBeGreaterThanOrEqual(8);
}

describe('special functions', () => {
  test('digamma, trigamma and the gamma shape MLE', () => {
    expect(digamma(1)).toBeCloseTo(-0.5772156649015329, 12);
    expect(digamma(0.5)).toBeCloseTo(-1.9635100260214235, 12);
    expect(digamma(10)).toBeCloseTo(2.251752589066721, 12);
    expect(trigamma(1)).toBeCloseTo((Math.PI * Math.PI) / 6, 12);
    expect(trigamma(0.5)).toBeCloseTo((Math.PI * Math.PI) / 2, 12);
    for (const k of [0.3, 1, 2.5, 40]) {
      const s = Math.log(k) - digamma(k);
      expect(gammaShapeMle(s)).toBeCloseTo(k, 8);
    }
  });

  test('the Kolmogorov distribution against known values (both series)', () => {
    expect(kolmogorovCdf(1.36)).toBeCloseTo(0.9505, 4);
    expect(kolmogorovCdf(1.224)).toBeCloseTo(0.9, 3);
    expect(kolmogorovCdf(1.628)).toBeCloseTo(0.99, 3);
    expect(kolmogorovCdf(1)).toBeCloseTo(0.7300, 4);
    expect(kolmogorovCdf(0.8276)).toBeCloseTo(0.5, 3);
    expect(kolmogorovCdf(0.5)).toBeCloseTo(0.0361, 4);
    expect(kolmogorovCdf(0)).toBe(0);
    expect(kolmogorovCdf(5)).toBe(1);
    // the two series meet continuously at the switch point
    expect(Math.abs(kolmogorovCdf(1.18 - 1e-9) - kolmogorovCdf(1.18))).toBeLessThan(1e-9);
    // p-value with Stephens' adjustment: n = 100, D = 0.136 → λ ≈ 1.3779 → p ≈ 0.045
    expect(ksPValue(0.136, 100)).toBeCloseTo(1 - kolmogorovCdf((10 + 0.12 + 0.011) * 0.136), 12);
    expect(ksPValue(0.136, 100)).toBeCloseTo(0.0449, 3);
  });

  test('KS statistic on tiny samples, continuous and discrete, checked by hand', () => {
    // uniform(0,1), sample .1 .4 .7: steps at 1/3, 2/3, 1 → max(|1/3-.1|, |2/3-.4|, |1-.7|) = 0.3
    expect(ksStatistic([0.1, 0.4, 0.7], (x) => Math.min(1, Math.max(0, x)))).toBeCloseTo(0.3, 12);
    // ties: 0.5, 0.5 → ECDF jumps from 0 to 1 at 0.5 → D = 0.5
    expect(ksStatistic([0.5, 0.5], (x) => x)).toBeCloseTo(0.5, 12);
    // Poisson(1), sample 0 1 1 3: F = .3679 .7358 .9197 .9810 at 0..3, ECDF .25 .75 .75 1 → D = |.75 - .9197| at k = 2
    const pois = (k: number): number => {
      let s = 0;
      for (let j = 0; j <= Math.floor(k); j++) s += Math.exp(-1) / [1, 1, 2, 6, 24][j];
      return k < 0 ? 0 : s;
    };
    expect(ksStatistic([0, 1, 1, 3], pois, true)).toBeCloseTo(2.5 * Math.exp(-1) - 0.75, 12);
  });
});

describe('fitDistributions', () => {
  test('normal samples → normal, parameters within tolerance', () => {
    family((r) => 100 + 30 * gaussian(r), (f) => {
      expect(f.params.mu).toBeGreaterThan(92);
      expect(f.params.mu).toBeLessThan(108);
      expect(f.params.sigma).toBeGreaterThan(24);
      expect(f.params.sigma).toBeLessThan(36);
    }, 'normal');
  });

  test('gamma samples → gamma (shape 2, rate 0.1)', () => {
    family((r) => gammaSample(r, 2, 0.1), (f) => {
      expect(f.params.shape).toBeGreaterThan(1.4);
      expect(f.params.shape).toBeLessThan(2.8);
      expect(f.params.rate).toBeGreaterThan(0.065);
      expect(f.params.rate).toBeLessThan(0.14);
      expect(f.mean).toBeCloseTo(f.params.shape / f.params.rate, 9);
    }, 'gamma');
  });

  test('Poisson samples → poisson (lambda 5)', () => {
    family((r) => poissonSample(r, 5), (f) => {
      expect(f.params.lambda).toBeGreaterThan(4.4);
      expect(f.params.lambda).toBeLessThan(5.6);
      expect(f.std).toBeCloseTo(Math.sqrt(f.params.lambda), 12);
    }, 'poisson');
  });

  test('negative binomial samples → negative_binomial (r 2, p 0.2: mean 8, variance 40)', () => {
    family((r) => nbSample(r, 2, 0.2), (f) => {
      expect(f.params.r).toBeGreaterThan(1.2);
      expect(f.params.r).toBeLessThan(3.2);
      expect(f.params.p).toBeGreaterThan(0.12);
      expect(f.params.p).toBeLessThan(0.3);
      expect(f.mean).toBeCloseTo((f.params.r * (1 - f.params.p)) / f.params.p, 9);
    }, 'negative_binomial');
  });

  test('normal quantiles are mu + z·sigma, keyed by the quantile as a string', () => {
    const r = prng(1);
    const y = Array.from({ length: N }, () => 100 + 30 * gaussian(r));
    const normal = fitDistributions(y).candidates.find((c) => c.distribution_type === 'normal')!;
    const z: Record<string, number> = {
      '0.5': 0, '0.8': 0.8416212335729143, '0.9': 1.2815515655446004, '0.95': 1.6448536269514722,
      '0.98': 2.053748910631823, '0.99': 2.3263478740408408,
    };
    expect(Object.keys(normal.service_level_quantiles)).toEqual(Object.keys(z));
    const { mu, sigma } = normal.params;
    for (const [q, zq] of Object.entries(z)) expect(normal.service_level_quantiles[q]).toBeCloseTo(mu + zq * sigma, 9);
    const custom = fitDistributions(y, { quantiles: [0.975] }).candidates.find((c) => c.distribution_type === 'normal')!;
    expect(custom.service_level_quantiles).toEqual({ '0.975': expect.closeTo(mu + 1.959963984540054 * sigma, 9) });
  });

  test('candidate families depend on the data: no gamma with zeros, no discrete family for fractional data', () => {
    const r = prng(2);
    const frac = Array.from({ length: 60 }, () => 10 + 3 * gaussian(r));
    expect(fitDistributions(frac).candidates.map((c) => c.distribution_type).sort()).toEqual(['gamma', 'normal']);
    const counts = Array.from({ length: 60 }, () => poissonSample(r, 1.5)); // has zeros, variance ≈ mean
    const types = fitDistributions(counts).candidates.map((c) => c.distribution_type);
    expect(types).not.toContain('gamma');
    expect(types).toContain('poisson');
    expect(types).not.toContain('negative_binomial');
    // candidates are sorted by KS statistic, best first
    const res = fitDistributions(counts);
    expect(res.best).toBe(res.candidates[0]);
    for (let i = 1; i < res.candidates.length; i++) expect(res.candidates[i].ks_statistic).toBeGreaterThanOrEqual(res.candidates[i - 1].ks_statistic);
  });

  test('falls back to the empirical distribution when every parametric fit is rejected', () => {
    const r = prng(3);
    const y = Array.from({ length: 200 }, (_, i) => (i % 2 ? 10 : 1000) + gaussian(r)); // two far-apart modes
    const res = fitDistributions(y);
    expect(res.selection).toBe('empirical_fallback');
    expect(res.best.distribution_type).toBe('empirical');
    expect(res.best.params).toEqual({ n: 200 });
    for (const c of res.candidates.slice(0, -1)) expect(c.ks_pvalue).toBeLessThan(0.05);
    const sorted = [...y].sort((a, b) => a - b);
    const h = 199 * 0.9; // type-7 quantile
    expect(res.best.service_level_quantiles['0.9']).toBeCloseTo(sorted[Math.floor(h)] + (h % 1) * (sorted[Math.floor(h) + 1] - sorted[Math.floor(h)]), 9);
  });

  test('all-zero, constant and empty input give a degenerate fit', () => {
    const z = fitDistributions(new Array(52).fill(0));
    expect(z.selection).toBe('degenerate');
    expect(z.best).toMatchObject({ distribution_type: 'empirical', mean: 0, std: 0, ks_statistic: 0, ks_pvalue: 1 });
    expect(Object.values(z.best.service_level_quantiles)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(fitDistributions([7, 7, 7, NaN, 7]).best.service_level_quantiles['0.99']).toBe(7);
    expect(fitDistributions([NaN]).best).toMatchObject({ mean: 0, params: { n: 0 } });
  });

  test('lead-time aggregation sums blocks ending at the latest period', () => {
    const y = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    // blocks 3..6 = 18 and 7..10 = 34 (1, 2 dropped); too few for a parametric fit → empirical
    const res = fitDistributions(y, { aggregate: 4 });
    expect(res.n).toBe(2);
    expect(res.best.distribution_type).toBe('empirical');
    expect(res.best.mean).toBe(26);
    expect(res.best.service_level_quantiles['0.5']).toBe(26);
    expect(fitDistributions(y, { aggregate: 4, overlapping: true }).n).toBe(7);
    expect(fitDistributions([...y, NaN], { aggregate: 5 }).best.mean).toBe((15 + 40) / 2);
    expect(() => fitDistributions(y, { aggregate: 0 })).toThrow(RangeError);
    expect(() => fitDistributions(y, { quantiles: [1] })).toThrow(RangeError);
  });

  test('discrete quantiles are integers and non-negative data never get negative quantiles', () => {
    const r = prng(4);
    const y = Array.from({ length: N }, () => nbSample(r, 2, 0.2));
    for (const c of fitDistributions(y, { quantiles: [0.01, 0.5, 0.99] }).candidates) {
      for (const v of Object.values(c.service_level_quantiles)) {
        expect(v).toBeGreaterThanOrEqual(0);
        if (c.distribution_type === 'poisson' || c.distribution_type === 'negative_binomial') expect(Number.isInteger(v)).toBe(true);
      }
    }
  });
});
