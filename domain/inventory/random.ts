/**
 * Seeded random numbers: the engines must give the same answer for the same seed on every run and machine, so
 * nothing here touches Math.random.
 */
import { logFactorial } from './discrete';

export type Rng = () => number;

// Module-level aliases: inside vm contexts (jest, workers with sandboxes) every lookup of a global such as Math goes
// through an interceptor, which made the samplers ~40x slower; these run millions of times per simulation.
const { imul, log, sqrt, exp, abs, floor, pow, min } = Math;

/** splitmix32 step, used only to spread a user seed over the 128-bit xoshiro state. */
function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/**
 * xoshiro128** (Blackman & Vigna 2018). Two 32-bit outputs are combined into a 53-bit mantissa so that uniforms are
 * fine enough for far-tail quantiles; the result lies in [0, 1).
 */
export function createRng(seed: number): Rng {
  const init = splitmix32(seed);
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const next32 = (): number => {
    const result = imul(rotl(imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result;
  };
  return () => ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Uniform on (0, 1), for logs and ratios that must not see 0. */
export function uniformOpen(rng: Rng): number {
  let u = rng();
  while (u === 0) u = rng();
  return u;
}

/** Marsaglia polar method; the second variate is dropped so the sampler carries no hidden state. */
export function sampleStandardNormal(rng: Rng): number {
  for (;;) {
    const u = 2 * rng() - 1;
    const v = 2 * rng() - 1;
    const s = u * u + v * v;
    if (s > 0 && s < 1) return u * sqrt((-2 * log(s)) / s);
  }
}

export function sampleNormal(rng: Rng, mu: number, sigma: number): number {
  return mu + sigma * sampleStandardNormal(rng);
}

/** Marsaglia & Tsang (2000); shape < 1 via the boost G(a) = G(a+1) U^(1/a). */
export function sampleGamma(rng: Rng, shape: number, rate: number): number {
  if (!(shape > 0) || !(rate > 0)) throw new RangeError('gamma sampler needs shape > 0 and rate > 0');
  if (shape < 1) return sampleGamma(rng, shape + 1, rate) * pow(uniformOpen(rng), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = sampleStandardNormal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = uniformOpen(rng);
    if (u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v))) return (d * v) / rate;
  }
}

/** Inversion for small means; PTRS transformed rejection (Hörmann 1993) otherwise, exact and O(1) per draw. */
export function samplePoisson(rng: Rng, mean: number): number {
  if (!(mean >= 0)) throw new RangeError('Poisson sampler needs mean >= 0');
  if (mean === 0) return 0;
  if (mean < 10) {
    let k = 0;
    let prob = exp(-mean);
    let u = rng();
    while (u > prob && k < 1000) {
      u -= prob;
      k++;
      prob *= mean / k;
    }
    return k;
  }
  const slam = sqrt(mean);
  const logLam = log(mean);
  const b = 0.931 + 2.53 * slam;
  const a = -0.059 + 0.02483 * b;
  const invAlpha = 1.1239 + 1.1328 / (b - 3.4);
  const vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const U = rng() - 0.5;
    const V = uniformOpen(rng);
    const us = 0.5 - abs(U);
    const k = floor(((2 * a) / us + b) * U + mean + 0.43);
    if (us >= 0.07 && V <= vr) return k;
    if (k < 0 || (us < 0.013 && V > us)) continue;
    if (log(V) + log(invAlpha) - log(a / (us * us) + b) <= -mean + k * logLam - logFactorial(k)) return k;
  }
}

/** Gamma-Poisson mixture: NB(r, p) failures = Poisson(Gamma(shape r, rate p/(1-p))). */
export function sampleNegativeBinomial(rng: Rng, r: number, p: number): number {
  if (p >= 1) return 0;
  return samplePoisson(rng, sampleGamma(rng, r, p / (1 - p)));
}

export function sampleUniformIndex(rng: Rng, n: number): number {
  return min(n - 1, floor(rng() * n));
}
