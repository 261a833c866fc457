import {
  adida,
  compoundQuantile,
  croston,
  gammaP,
  gammaQuantile,
  imapa,
  sba,
  tsb,
} from '../../../domain/forecast/intermittent';
import type { ForecastResult, Forecaster } from '../../../domain/forecast/types';
import { normal, rng } from '../../support/random';

const opts = (params?: Record<string, number | string | boolean>) => ({ period: 1, level: 0.9, params });



/** Gamma(shape, scale) by Marsaglia–Tsang. */
function gammaDraw(u: () => number, shape: number, scale: number): number {
  if (shape < 1) return gammaDraw(u, shape + 1, scale) * Math.pow(u(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(u);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const w = u();
    if (w < 1 - 0.0331 * x ** 4 || Math.log(w) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
  }
}

function expectValid(r: ForecastResult, h: number): void {
  expect(r.mean).toHaveLength(h);
  for (let j = 0; j < h; j++) {
    expect(Number.isFinite(r.mean[j])).toBe(true);
    expect(Number.isFinite(r.lower[j])).toBe(true);
    expect(Number.isFinite(r.upper[j])).toBe(true);
    expect(r.lower[j]).toBeGreaterThanOrEqual(0);
    expect(r.lower[j]).toBeLessThanOrEqual(r.mean[j]);
    expect(r.upper[j]).toBeGreaterThanOrEqual(r.mean[j]);
  }
}

describe('gamma helpers', () => {
  it('match R qgamma / pgamma', () => {
    // R 4.x: qgamma(0.95, 2, 1) = 4.74386451839; qgamma(0.05, 0.3, scale = 2) = 6.42206939945e-05; qgamma(0.5, 50, 1) = 49.667064618
    expect(gammaQuantile(0.95, 2, 1)).toBeCloseTo(4.74386451839, 9);
    expect(gammaQuantile(0.05, 0.3, 2)).toBeCloseTo(6.42206939945e-5, 12);
    expect(gammaQuantile(0.5, 50, 1)).toBeCloseTo(49.667064618, 8);
    expect(gammaQuantile(0.9, 1, 3)).toBeCloseTo(-3 * Math.log(0.1), 10); // exponential
    expect(gammaP(2, 4.74386451839)).toBeCloseTo(0.95, 10);
  });

  it('compound quantile is 0 in the zero atom and a size quantile above it', () => {
    expect(compoundQuantile(0.5, 0.3, 10, 2)).toBe(0);
    // τ = 0.95, p = 0.5: size quantile at (0.95 - 0.5) / 0.5 = 0.9
    expect(compoundQuantile(0.95, 0.5, 10, 2)).toBeCloseTo(gammaQuantile(0.9, 2, 5), 8);
    expect(compoundQuantile(0.95, 0.5, 10, Infinity)).toBe(10);
  });
});

describe('Croston and SBA', () => {
  // demands 3, 5, 2 at t = 1, 4, 6 → intervals 2 (from the start), 3, 2; α = 0.1, smoothers start at the first value
  //   z: 3 → 3 + 0.1(5 − 3) = 3.2 → 3.2 + 0.1(2 − 3.2) = 3.08
  //   x: 2 → 2 + 0.1(3 − 2) = 2.1 → 2.1 + 0.1(2 − 2.1) = 2.09
  //   forecast 3.08 / 2.09 = 1.4736842105...
  const y = [0, 3, 0, 0, 5, 0, 2, 0, 0, 0];

  it('matches the hand computation', () => {
    const r = croston(y, 3, opts({ alpha: 0.1 }));
    expect(r.params.z).toBeCloseTo(3.08, 12);
    expect(r.params.x).toBeCloseTo(2.09, 12);
    for (const v of r.mean) expect(v).toBeCloseTo(3.08 / 2.09, 12);
    // one-step fitted values: NaN before the first demand, then z/x after each demand
    expect(Number.isNaN(r.fitted![0])).toBe(true);
    expect(Number.isNaN(r.fitted![1])).toBe(true);
    expect(r.fitted![2]).toBeCloseTo(3 / 2, 12);
    expect(r.fitted![4]).toBeCloseTo(3 / 2, 12);
    expect(r.fitted![5]).toBeCloseTo(3.2 / 2.1, 12);
    expect(r.fitted![9]).toBeCloseTo(3.08 / 2.09, 12);
  });

  it('interval: occurrence 1/x, gamma sizes with mean z and the sizes’ method-of-moments shape', () => {
    const r = croston(y, 2, opts({ alpha: 0.1 }));
    const p = 1 / 2.09;
    // sizes 3, 5, 2: mean 10/3, variance 7/3 → shape (10/3)² / (7/3) = 100/21
    const shape = 100 / 21;
    expect(r.params.sizeShape).toBeCloseTo(shape, 12);
    expect(r.params.occurrence).toBeCloseTo(p, 12);
    expect(r.lower[0]).toBe(0); // 5 % < P(no demand) = 1 − 1/2.09
    expect(r.upper[0]).toBeCloseTo(gammaQuantile((0.95 - (1 - p)) / p, shape, 3.08 / shape), 10);
  });

  it('SBA = Croston × (1 − α/2)', () => {
    for (const alpha of [0.1, 0.2, 0.3]) {
      const c = croston(y, 4, opts({ alpha }));
      const s = sba(y, 4, opts({ alpha }));
      for (let j = 0; j < 4; j++) expect(s.mean[j]).toBeCloseTo(c.mean[j] * (1 - alpha / 2), 12);
    }
  });

  it('optimised α stays in [0.05, 0.3] and does not increase the in-sample MSE over the default', () => {
    const u = rng(11);
    const yy = Array.from({ length: 104 }, () => (u() < 0.3 ? 1 + Math.floor(u() * 9) : 0));
    const mse = (r: ForecastResult) => {
      let s = 0;
      let c = 0;
      r.fitted!.forEach((f, t) => {
        if (!Number.isNaN(f)) {
          s += (yy[t] - f) ** 2;
          c++;
        }
      });
      return s / c;
    };
    const opt = croston(yy, 4, opts({ optimize: true }));
    const def = croston(yy, 4, opts());
    expect(opt.params.alpha).toBeGreaterThanOrEqual(0.05);
    expect(opt.params.alpha).toBeLessThanOrEqual(0.3);
    expect(mse(opt)).toBeLessThanOrEqual(mse(def) + 1e-12);
  });

  it('leading zeros count in the first interval unless trimmed', () => {
    const yy = [0, 0, 0, 0, 5, 0, 0];
    expect(croston(yy, 1, opts()).mean[0]).toBeCloseTo(5 / 5, 12);
    // trimmed: history starts at t = 4 (3 periods, 1 demand) → interval 3
    expect(croston(yy, 1, opts({ trimLeadingZeros: true })).mean[0]).toBeCloseTo(5 / 3, 12);
  });
});

describe('TSB', () => {
  it('matches the hand computation (α = 0.2 sizes, β = 0.3 probability)', () => {
    // p starts at the share of non-zero periods 2/4 = 0.5, z at the first size 4
    //   t0 y=0: p = 0.5·0.7 = 0.35
    //   t1 y=4: p = 0.35 + 0.3·0.65 = 0.545, z = 4
    //   t2 y=0: p = 0.545·0.7 = 0.3815
    //   t3 y=2: p = 0.3815 + 0.3·0.6185 = 0.56705, z = 4 + 0.2·(2 − 4) = 3.6
    const r = tsb([0, 4, 0, 2], 2, opts({ alpha: 0.2, beta: 0.3 }));
    expect(r.params.p).toBeCloseTo(0.56705, 12);
    expect(r.params.z).toBeCloseTo(3.6, 12);
    expect(r.mean[0]).toBeCloseTo(0.56705 * 3.6, 12);
    expect(r.mean[1]).toBeCloseTo(0.56705 * 3.6, 12);
    expect(r.fitted![2]).toBeCloseTo(0.545 * 4, 12);
    expect(r.fitted![3]).toBeCloseTo(0.3815 * 4, 12);
  });

  it('decays towards zero after demand stops (obsolescence), unlike Croston', () => {
    const yy = [...Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? 6 : 0)), ...new Array(30).fill(0)];
    expect(tsb(yy, 1, opts()).mean[0]).toBeLessThan(0.2 * croston(yy, 1, opts()).mean[0]);
  });

  it('optimisation keeps α, β in range', () => {
    const u = rng(5);
    const yy = Array.from({ length: 80 }, () => (u() < 0.25 ? 2 + 4 * u() : 0));
    const r = tsb(yy, 3, opts({ optimize: true }));
    for (const k of ['alpha', 'beta']) {
      expect(r.params[k]).toBeGreaterThanOrEqual(0.05);
      expect(r.params[k]).toBeLessThanOrEqual(0.3);
    }
    expectValid(r, 3);
  });
});

describe('ADIDA and IMAPA', () => {
  it('ADIDA matches the hand computation', () => {
    // demands at t = 2, 5, 8, 10 → intervals 3, 3, 3, 2 → mean 2.75 → k = 3
    // buckets [0 0 3] [0 0 1] [0 0 2] [0 4 0] = 3, 1, 2, 4; SES α = 0.1 from 3:
    //   3 → 2.8 → 2.72 → 2.848; per period 2.848 / 3
    const y = [0, 0, 3, 0, 0, 1, 0, 0, 2, 0, 4, 0];
    const r = adida(y, 2, opts({ alpha: 0.1 }));
    expect(r.params.k).toBe(3);
    expect(r.mean[0]).toBeCloseTo(2.848 / 3, 12);
    expect(r.fitted![3]).toBeCloseTo(3 / 3, 12); // bucket 1 is forecast by the level after bucket 0
    expect(r.fitted![11]).toBeCloseTo(2.72 / 3, 12);
    // one more leading period: intervals 4, 3, 3, 2 → k = 3 again; 13 periods → the oldest one is dropped
    const r2 = adida([0, ...y], 2, opts({ alpha: 0.1 }));
    expect(r2.mean[0]).toBeCloseTo(2.848 / 3, 12);
  });

  it('IMAPA averages ADIDA over aggregation levels 1..k', () => {
    const y = [0, 0, 3, 0, 0, 1, 0, 0, 2, 0, 4, 0];
    // level 1: SES on y with α = 0.1 from y[0]; level 2: buckets of 2; level 3: as above
    const ses = (x: number[]) => x.slice(1).reduce((l, v) => l + 0.1 * (v - l), x[0]);
    const l1 = ses(y);
    const l2 = ses([0 + 0, 3 + 0, 0 + 1, 0 + 0, 2 + 0, 4 + 0]) / 2;
    const l3 = 2.848 / 3;
    const r = imapa(y, 1, opts({ alpha: 0.1 }));
    expect(r.params.levels).toBe(3);
    expect(r.mean[0]).toBeCloseTo((l1 + l2 + l3) / 3, 12);
  });
});

describe('edge cases', () => {
  const methods: Array<[string, Forecaster]> = [
    ['croston', croston],
    ['sba', sba],
    ['tsb', tsb],
    ['adida', adida],
    ['imapa', imapa],
  ];

  it.each(methods)('%s: all-zero series forecasts 0 with [0, 0] and no NaN', (_name, f) => {
    for (const opt of [opts(), opts({ optimize: true }), opts({ trimLeadingZeros: true })]) {
      const r = f(new Array(20).fill(0), 5, opt);
      expectValid(r, 5);
      expect(Array.from(r.mean)).toEqual([0, 0, 0, 0, 0]);
      expect(Array.from(r.upper)).toEqual([0, 0, 0, 0, 0]);
      expect(r.fitted!.every((v) => v === 0)).toBe(true);
    }
    expectValid(f([], 3, opts()), 3);
  });

  it.each(methods)('%s: single non-zero, leading zeros, negative and NaN values', (_name, f) => {
    for (const y of [
      [0, 0, 0, 0, 0, 0, 7, 0, 0],
      [7],
      [0, 0, 0, 0, 2, 0, 0, 3, 0, 1],
      [0, -3, 0, NaN, 4, 0, 0, 2],
      [5, 5, 5, 5],
    ]) {
      for (const opt of [opts(), opts({ optimize: true }), opts({ trimLeadingZeros: true })]) {
        const r = f(y, 4, opt);
        expectValid(r, 4);
        expect(r.mean[0]).toBeGreaterThan(0);
        expect(r.fitted).toHaveLength(y.length);
      }
    }
  });
});

describe('prediction interval coverage on Bernoulli–gamma demand', () => {
  // 200 series of 104 weeks + 13 weeks ahead, known occurrence p and Gamma(shape, scale) sizes (seeded).
  // Nominal 90 % central interval: with an atom at 0 the realised coverage is ≈ 95 % when p < 0.95.
  const cases: Array<[number, number, number]> = [
    [0.3, 2, 5],
    [0.1, 1, 10],
    [0.6, 4, 3],
    [0.95, 3, 10],
  ];
  it.each(cases)('p = %s, shape = %s, scale = %s: coverage within 80–97 %% for every method', (p, shape, scale) => {
    const u = rng(Math.round(p * 1000 + shape));
    const hits: Record<string, [number, number]> = {};
    for (let s = 0; s < 200; s++) {
      const y = Array.from({ length: 117 }, () => (u() < p ? gammaDraw(u, shape, scale) : 0));
      const train = y.slice(0, 104);
      const test = y.slice(104);
      for (const f of [croston, sba, tsb, adida, imapa]) {
        const r = f(train, 13, { period: 52, level: 0.9 });
        const e = (hits[r.method] ??= [0, 0]);
        for (let j = 0; j < 13; j++) {
          if (test[j] >= r.lower[j] && test[j] <= r.upper[j]) e[0]++;
          e[1]++;
        }
      }
    }
    for (const [method, [c, total]] of Object.entries(hits)) {
      const cov = c / total;
      expect({ method, ok: cov >= 0.8 && cov <= 0.97, cov }).toEqual({ method, ok: true, cov });
    }
  });
});
