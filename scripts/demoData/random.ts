/**
 * A small seeded pseudo-random number generator (sfc32, seeded through splitmix32) with the distributions the demo
 * data generator needs. Pure integer arithmetic on 32-bit state, so a seed always yields the same stream; the
 * continuous helpers use only Math.log/exp/sqrt/cos, which V8 implements identically on every platform.
 *
 * Streams are derived, not shared: `Rng.derive(seed, tag, index)` gives an independent generator per (seed, purpose,
 * index), so series k's numbers do not depend on how many numbers series k-1 consumed, and a streaming writer and an
 * in-memory builder produce the same values.
 */

/** splitmix32 step: a well-mixed 32-bit value from a 32-bit counter. */
function splitmix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  let z = x;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Folds any number of integers (or strings) into one 32-bit hash (murmur3-style mixing). */
export function hash32(...keys: Array<number | string>): number {
  let h = 0x811c9dc5;
  const mix = (k: number): void => {
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  };
  for (const key of keys) {
    if (typeof key === 'string') {
      for (let i = 0; i < key.length; i++) mix(key.charCodeAt(i));
      mix(key.length);
    } else {
      if (!Number.isFinite(key)) throw new Error(`hash32: not a finite number: ${key}`);
      const int = Math.trunc(key);
      mix(int | 0); // low 32 bits
      mix(Math.floor(int / 4294967296) | 0); // high bits (safe integers)
      if (int !== key) mix(Math.round((key - int) * 4294967296) | 0); // fractional part, if any
    }
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const TWO_PI = 2 * Math.PI;
const INV_2_32 = 1 / 4294967296;

/** log Γ(x) for x > 0 (Lanczos, g = 7, n = 9), accurate to ~1e-14; used by the Poisson sampler. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(TWO_PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    const s = hash32(seed);
    this.a = splitmix32(s);
    this.b = splitmix32(s ^ 0x6a09e667);
    this.c = splitmix32(s ^ 0xbb67ae85);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.nextUint32(); // warm up
  }

  /** An independent generator for one purpose: e.g. `Rng.derive(seed, 'series', k)`. */
  static derive(...keys: Array<number | string>): Rng {
    return new Rng(hash32(...keys));
  }

  /** sfc32: 32 random bits. */
  nextUint32(): number {
    const a = this.a, b = this.b, c = this.c, d = this.d;
    const t = (((a + b) | 0) + d) | 0;
    this.d = (d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    const r = (c << 21) | (c >>> 11);
    this.c = (r + t) | 0;
    return t >>> 0;
  }

  /** Uniform on the open interval (0, 1): never 0 nor 1, so log() is always safe. */
  next(): number {
    return (this.nextUint32() + 0.5) * INV_2_32;
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number {
    if (hi < lo) throw new Error(`Rng.int: empty range [${lo}, ${hi}]`);
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  bernoulli(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal by Box-Muller (one value per call, no cached state). */
  normal(mean = 0, sd = 1): number {
    const u = this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(TWO_PI * v);
  }

  /** exp(N(mu, sigma²)). */
  lognormal(mu: number, sigma: number): number {
    return Math.exp(this.normal(mu, sigma));
  }

  /** A lognormal with the given mean and coefficient of variation. */
  lognormalMeanCv(mean: number, cv: number): number {
    const s2 = Math.log(1 + cv * cv);
    return this.lognormal(Math.log(mean) - s2 / 2, Math.sqrt(s2));
  }

  exponential(rate = 1): number {
    return -Math.log(this.next()) / rate;
  }

  /** Gamma(shape k, scale θ): Marsaglia & Tsang (2000); shape < 1 by the boost Gamma(k+1)·U^(1/k). */
  gamma(shape: number, scale = 1): number {
    if (!(shape > 0) || !(scale > 0)) throw new Error(`Rng.gamma: shape and scale must be > 0 (got ${shape}, ${scale})`);
    if (shape < 1) return this.gamma(shape + 1, scale) * Math.pow(this.next(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.next();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
    }
  }

  /** A gamma variate with the given mean and coefficient of variation (shape 1/cv², scale mean·cv²). */
  gammaMeanCv(mean: number, cv: number): number {
    if (cv <= 0) return mean;
    const shape = 1 / (cv * cv);
    return this.gamma(shape, mean / shape);
  }

  /** Poisson(λ): multiplication method below 30, Hörmann's PTRS transformed rejection above. */
  poisson(lambda: number): number {
    if (!(lambda >= 0)) throw new Error(`Rng.poisson: lambda must be >= 0 (got ${lambda})`);
    if (lambda === 0) return 0;
    if (lambda < 30) {
      const limit = Math.exp(-lambda);
      let k = 0;
      let p = this.next();
      while (p > limit) {
        k++;
        p *= this.next();
      }
      return k;
    }
    const slam = Math.sqrt(lambda);
    const loglam = Math.log(lambda);
    const b = 0.931 + 2.53 * slam;
    const a = -0.059 + 0.02483 * b;
    const invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const u = this.next() - 0.5;
      const v = this.next();
      const us = 0.5 - Math.abs(u);
      const k = Math.floor(((2 * a) / us + b) * u + lambda + 0.43);
      if (us >= 0.07 && v <= vr) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (Math.log(v) + Math.log(invalpha) - Math.log(a / (us * us) + b) <= -lambda + k * loglam - logGamma(k + 1)) return k;
    }
  }

  /**
   * Binomial(n, p): exact (Bernoulli sum or inversion) when n is small or the mean is small on either side, otherwise
   * a rounded normal approximation clipped to [0, n] — ample for synthetic data.
   */
  binomial(n: number, p: number): number {
    if (n <= 0 || p <= 0) return 0;
    if (p >= 1) return n;
    if (n <= 40) {
      let k = 0;
      for (let i = 0; i < n; i++) if (this.next() < p) k++;
      return k;
    }
    if (p > 0.5) return n - this.binomial(n, 1 - p);
    if (n * p < 12) {
      // inversion from k = 0 using the pmf recurrence
      const q = 1 - p;
      const r = p / q;
      let pmf = Math.exp(n * Math.log(q));
      let cdf = pmf;
      const u = this.next();
      let k = 0;
      while (u > cdf && k < n) {
        pmf *= (r * (n - k)) / (k + 1);
        cdf += pmf;
        k++;
      }
      return k;
    }
    const k = Math.round(this.normal(n * p, Math.sqrt(n * p * (1 - p))));
    return Math.min(n, Math.max(0, k));
  }

  /** Index drawn with probability proportional to weights[i]. */
  weightedIndex(weights: ArrayLike<number>): number {
    let total = 0;
    for (let i = 0; i < weights.length; i++) total += weights[i];
    let u = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      u -= weights[i];
      if (u < 0) return i;
    }
    return weights.length - 1;
  }

  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.next() * values.length)];
  }

  /** Fisher-Yates, in place. */
  shuffle<T>(values: T[]): T[] {
    for (let i = values.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const t = values[i];
      values[i] = values[j];
      values[j] = t;
    }
    return values;
  }
}
