import { drift, movingAverage, movingAverageWindow, naive, seasonalNaive } from '../../../domain/forecast/simple';

const Z90 = 1.6448536269514722; // qnorm(0.95)

describe('naive', () => {
  test('repeats the last value; σ is the RMS of the first differences and se_h = σ√h', () => {
    const r = naive([1, 3, 2, 5], 3, { period: 1, level: 0.9 });
    const sigma = Math.sqrt((4 + 1 + 9) / 3);
    expect(Array.from(r.mean)).toEqual([5, 5, 5]);
    for (let h = 1; h <= 3; h++) {
      expect(r.upper[h - 1]).toBeCloseTo(5 + Z90 * sigma * Math.sqrt(h), 12);
      expect(r.lower[h - 1]).toBeCloseTo(5 - Z90 * sigma * Math.sqrt(h), 12);
    }
    expect(Array.from(r.fitted!)).toEqual([NaN, 1, 3, 2]);
    expect(r.params.sigma).toBeCloseTo(sigma, 12);
  });

  test('one observation: flat forecast, zero-width interval', () => {
    const r = naive([7], 2, { period: 1, level: 0.9 });
    expect(Array.from(r.mean)).toEqual([7, 7]);
    expect(Array.from(r.lower)).toEqual([7, 7]);
    expect(Array.from(r.upper)).toEqual([7, 7]);
  });
});

describe('seasonalNaive', () => {
  const base = [10, 20, 30, 40];
  const y = [...base, 12, 19, 33, 41, 9, 22, 29, 43];

  test('repeats the last season; se_h = σ√(k+1), k = ⌊(h−1)/m⌋', () => {
    const r = seasonalNaive(y, 9, { period: 4, level: 0.9 });
    expect(Array.from(r.mean)).toEqual([9, 22, 29, 43, 9, 22, 29, 43, 9]);
    const d = [2, -1, 3, 1, -3, 3, -4, 2];
    const sigma = Math.sqrt(d.reduce((s, v) => s + v * v, 0) / d.length);
    const width = (i: number) => r.upper[i] - r.mean[i];
    expect(width(0)).toBeCloseTo(Z90 * sigma, 12);
    expect(width(3)).toBeCloseTo(Z90 * sigma, 12);
    expect(width(4)).toBeCloseTo(Z90 * sigma * Math.sqrt(2), 12);
    expect(width(8)).toBeCloseTo(Z90 * sigma * Math.sqrt(3), 12);
    expect(r.fitted![4]).toBe(10);
    expect(Number.isNaN(r.fitted![3])).toBe(true);
  });

  test('a perfectly seasonal series is forecast exactly with zero width', () => {
    const r = seasonalNaive([...base, ...base, ...base], 6, { period: 4, level: 0.95 });
    expect(Array.from(r.mean)).toEqual([10, 20, 30, 40, 10, 20]);
    expect(Array.from(r.upper)).toEqual(Array.from(r.mean));
  });

  test('falls back to naive when shorter than one period or non-seasonal', () => {
    const short = seasonalNaive([1, 2, 3], 2, { period: 12, level: 0.9 });
    expect(Array.from(short.mean)).toEqual([3, 3]);
    expect(String(short.params.fallback)).toMatch(/naive/);
    const ns = seasonalNaive([1, 2, 3], 2, { period: 1, level: 0.9 });
    expect(Array.from(ns.mean)).toEqual([3, 3]);
  });

  test('exactly one period: repeats it, zero width (no residual yet)', () => {
    const r = seasonalNaive([1, 2, 3, 4], 5, { period: 4, level: 0.9 });
    expect(Array.from(r.mean)).toEqual([1, 2, 3, 4, 1]);
    expect(Array.from(r.upper)).toEqual(Array.from(r.mean));
  });
});

describe('movingAverage', () => {
  test('default window: min(period, n) clipped to 3..52, never above n', () => {
    expect(movingAverageWindow(100, { period: 12, level: 0.9 })).toBe(12);
    expect(movingAverageWindow(100, { period: 1, level: 0.9 })).toBe(3);
    expect(movingAverageWindow(200, { period: 52, level: 0.9 })).toBe(52);
    expect(movingAverageWindow(20, { period: 52, level: 0.9 })).toBe(20);
    expect(movingAverageWindow(2, { period: 1, level: 0.9 })).toBe(2);
    expect(movingAverageWindow(100, { period: 12, level: 0.9, params: { window: 5 } })).toBe(5);
  });

  test('forecast is the mean of the last window; σ is the RMS of the in-sample one-step errors, constant in h', () => {
    const y = [1, 2, 3, 4, 5, 6];
    const r = movingAverage(y, 3, { period: 1, level: 0.9, params: { window: 3 } });
    expect(Array.from(r.mean)).toEqual([5, 5, 5]);
    // fitted at t = 3, 4, 5: 2, 3, 4 → errors 2, 2, 2
    expect(Array.from(r.fitted!)).toEqual([NaN, NaN, NaN, 2, 3, 4]);
    for (let i = 0; i < 3; i++) expect(r.upper[i] - r.mean[i]).toBeCloseTo(Z90 * 2, 12);
  });

  test('no in-sample error yet: sd(y)·√(1 + 1/w)', () => {
    const r = movingAverage([1, 3], 1, { period: 1, level: 0.9 });
    expect(r.mean[0]).toBe(2);
    expect(r.upper[0] - 2).toBeCloseTo(Z90 * Math.SQRT2 * Math.sqrt(1.5), 12);
  });
});

describe('drift', () => {
  test('extrapolates a line exactly, zero width', () => {
    const y = Array.from({ length: 10 }, (_, t) => 3 + 2 * t);
    const r = drift(y, 4, { period: 1, level: 0.9 });
    expect(Array.from(r.mean)).toEqual([23, 25, 27, 29]);
    for (let i = 0; i < 4; i++) expect(r.upper[i] - r.mean[i]).toBeCloseTo(0, 10);
    expect(r.params.drift).toBe(2);
  });

  test('se_h = σ√(h(1 + h/(n−1))) with σ the sd of the differences (n − 2 degrees of freedom)', () => {
    const y = [1, 4, 3, 7, 8];
    const r = drift(y, 3, { period: 1, level: 0.9 });
    const b = (8 - 1) / 4;
    const d = [3, -1, 4, 1].map((v) => v - b);
    const sigma = Math.sqrt(d.reduce((s, v) => s + v * v, 0) / 3);
    for (let h = 1; h <= 3; h++) {
      expect(r.mean[h - 1]).toBeCloseTo(8 + h * b, 12);
      expect(r.upper[h - 1] - r.mean[h - 1]).toBeCloseTo(Z90 * sigma * Math.sqrt(h * (1 + h / 4)), 12);
    }
  });

  test('two observations use the naive σ; one gives a flat zero-width forecast', () => {
    const two = drift([1, 3], 2, { period: 1, level: 0.9 });
    expect(Array.from(two.mean)).toEqual([5, 7]);
    expect(two.upper[0] - two.mean[0]).toBeCloseTo(Z90 * 2 * Math.sqrt(2), 12);
    const one = drift([4], 2, { period: 1, level: 0.9 });
    expect(Array.from(one.mean)).toEqual([4, 4]);
    expect(Array.from(one.upper)).toEqual([4, 4]);
  });
});

describe('edge cases for every simple method', () => {
  const methods = { naive, seasonalNaive, movingAverage, drift };
  for (const [name, f] of Object.entries(methods)) {
    test(`${name}: empty, short, zero, negative series and h = 0 never throw or give NaN`, () => {
      const cases: number[][] = [[], [5], [5, 6], [1, 2, 3], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [-5, -3, -8, -2, -6, -4, -7, -1]];
      for (const y of cases) {
        for (const h of [0, 1, 8]) {
          const r = f(y, h, { period: 4, level: 0.9 });
          expect(r.mean.length).toBe(h);
          for (let i = 0; i < h; i++) {
            expect(Number.isFinite(r.mean[i]) && Number.isFinite(r.lower[i]) && Number.isFinite(r.upper[i])).toBe(true);
            expect(r.lower[i]).toBeLessThanOrEqual(r.mean[i]);
            expect(r.mean[i]).toBeLessThanOrEqual(r.upper[i]);
          }
        }
      }
      const z = f(new Array(20).fill(0), 5, { period: 4, level: 0.9 });
      expect(Array.from(z.mean)).toEqual([0, 0, 0, 0, 0]);
      expect(Array.from(z.upper)).toEqual([0, 0, 0, 0, 0]);
    });
  }
});
