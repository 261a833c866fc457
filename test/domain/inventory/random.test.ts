import { createRng, sampleGamma, sampleNegativeBinomial, samplePoisson, sampleStandardNormal } from '../../../domain/inventory/random';

const moments = (draw: () => number, n: number) => {
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const x = draw();
    s += x;
    s2 += x * x;
  }
  const mean = s / n;
  return { mean, variance: s2 / n - mean * mean };
};

describe('seeded random numbers', () => {
  it('repeats a seed exactly and stays in [0, 1)', () => {
    const a = createRng(99);
    const b = createRng(99);
    for (let i = 0; i < 1000; i++) {
      const x = a();
      expect(x).toBe(b());
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
    expect(createRng(100)()).not.toBe(createRng(99)());
  });

  it('uniforms have mean 1/2 and variance 1/12', () => {
    const m = moments(createRng(1), 100_000);
    expect(Math.abs(m.mean - 0.5)).toBeLessThan(0.005);
    expect(Math.abs(m.variance - 1 / 12)).toBeLessThan(0.002);
  });

  it.each([
    ['standard normal', (r: () => number) => () => sampleStandardNormal(r), 0, 1],
    ['gamma(0.4, 2)', (r: () => number) => () => sampleGamma(r, 0.4, 2), 0.2, 0.1],
    ['gamma(5, 0.5)', (r: () => number) => () => sampleGamma(r, 5, 0.5), 10, 20],
    ['poisson(3.5), inversion', (r: () => number) => () => samplePoisson(r, 3.5), 3.5, 3.5],
    ['poisson(250), PTRS', (r: () => number) => () => samplePoisson(r, 250), 250, 250],
    ['negative binomial(3, 0.2)', (r: () => number) => () => sampleNegativeBinomial(r, 3, 0.2), 12, 60],
  ] as const)('%s has the right mean and variance', (_name, make, mean, variance) => {
    const m = moments(make(createRng(2024)), 100_000);
    expect(Math.abs(m.mean - mean)).toBeLessThan(5 * Math.sqrt(variance / 100_000));
    expect(Math.abs(m.variance / variance - 1)).toBeLessThan(0.03);
  });
});
