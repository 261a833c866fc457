import { canRun, METHOD_NAMES, minHistory, profileOf, runMethod } from '../../../domain/forecast/registry';

// Properties every method of the registry must have, whatever its family: the forecast step relies on them for
// every series, so they are checked here once per method rather than per engine.
const H = 12;
const opts = (period: number) => ({ period, level: 0.9 });

// deterministic noise, so a failure reproduces
const noise = (n: number, seed: number) => {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  });
};

const weekly = (n: number) => {
  const e = noise(n, 7);
  return Array.from({ length: n }, (_, t) => 50 + 15 * Math.sin((2 * Math.PI * t) / 52) + 0.1 * t + 6 * e[t]);
};
const intermittent = (n: number) => {
  const e = noise(n, 3);
  return e.map((v, t) => (t % 4 === 1 || v > 0.35 ? 3 + Math.round(4 * (v + 0.5)) : 0));
};

const runnable = (name: string, y: number[], period: number) => canRun(name, profileOf(y), period).ok;

describe.each(METHOD_NAMES.map((m) => [m]))('%s', (name) => {
  test('a constant series forecasts the constant (within 1e-6), every point finite', () => {
    const period = name === 'holt_winters' || name === 'seasonal_naive' ? 4 : 1;
    const y = new Array(Math.max(40, minHistory(name, period) + 4)).fill(8);
    if (!runnable(name, y, period)) return expect(canRun(name, profileOf(y), period).reason).toBeTruthy();
    const r = runMethod(name, y, H, opts(period));
    expect(r.mean).toHaveLength(H);
    // SBA deliberately scales Croston's rate by (1 - alpha/2) (Syntetos & Boylan 2005), alpha = 0.1 by default
    const expected = name === 'sba' ? 8 * (1 - 0.1 / 2) : 8;
    for (const v of r.mean) expect(v).toBeCloseTo(expected, 6);
    for (let i = 0; i < H; i++) {
      expect(Number.isFinite(r.lower[i]) && Number.isFinite(r.upper[i])).toBe(true);
      expect(r.lower[i]).toBeLessThanOrEqual(r.mean[i] + 1e-9);
      expect(r.upper[i]).toBeGreaterThanOrEqual(r.mean[i] - 1e-9);
    }
  });

  test('an all-zero series never yields NaN: a zero forecast or a refusal with a reason', () => {
    const y = new Array(60).fill(0);
    if (!runnable(name, y, 1)) return expect(canRun(name, profileOf(y), 1).reason).toMatch(/\w/);
    const r = runMethod(name, y, H, opts(1));
    for (const a of [r.mean, r.lower, r.upper]) for (const v of a) expect(Number.isNaN(v)).toBe(false);
    for (const v of r.mean) expect(Math.abs(v)).toBeLessThan(1e-9);
  });

  test('on a noisy weekly series: lower <= yhat <= upper, finite, and the interval is at least as wide at the end as at the start', () => {
    const y = name === 'croston' || name === 'sba' || name === 'tsb' || name === 'adida' || name === 'imapa' ? intermittent(156) : weekly(156);
    expect(runnable(name, y, 52)).toBe(true);
    const r = runMethod(name, y, H, opts(52));
    for (let i = 0; i < H; i++) {
      expect([r.mean[i], r.lower[i], r.upper[i]].every(Number.isFinite)).toBe(true);
      expect(r.lower[i]).toBeLessThanOrEqual(r.mean[i] + 1e-9);
      expect(r.upper[i]).toBeGreaterThanOrEqual(r.mean[i] - 1e-9);
    }
    expect(r.upper[H - 1] - r.lower[H - 1]).toBeGreaterThanOrEqual(r.upper[0] - r.lower[0] - 1e-9);
    expect(r.upper[0] - r.lower[0]).toBeGreaterThan(0);
  });
});
