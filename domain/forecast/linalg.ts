import { qnorm } from './stats';
/**
 * Small dense numerical helpers for the forecasting engines: a linear solve, polynomial roots and the standard normal
 * quantile. They run inside likelihood loops (thousands of calls per series), so they work on typed arrays and
 * allocate little; mathjs is far slower for matrices of this size (n <= ~60).
 */

/**
 * Solves A x = b in place by Gaussian elimination with partial pivoting. A is n×n row-major and is destroyed; b
 * receives x. Returns false when the matrix is numerically singular.
 */
export function solveInPlace(A: Float64Array, b: Float64Array, n: number): boolean {
  for (let k = 0; k < n; k++) {
    let piv = k;
    let best = Math.abs(A[k * n + k]);
    for (let i = k + 1; i < n; i++) {
      const v = Math.abs(A[i * n + k]);
      if (v > best) {
        best = v;
        piv = i;
      }
    }
    if (!(best > 1e-300)) return false;
    if (piv !== k) {
      for (let j = k; j < n; j++) {
        const t = A[k * n + j];
        A[k * n + j] = A[piv * n + j];
        A[piv * n + j] = t;
      }
      const t = b[k];
      b[k] = b[piv];
      b[piv] = t;
    }
    const akk = A[k * n + k];
    for (let i = k + 1; i < n; i++) {
      const f = A[i * n + k] / akk;
      if (f === 0) continue;
      for (let j = k + 1; j < n; j++) A[i * n + j] -= f * A[k * n + j];
      b[i] -= f * b[k];
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let j = i + 1; j < n; j++) s -= A[i * n + j] * b[j];
    b[i] = s / A[i * n + i];
  }
  for (let i = 0; i < n; i++) if (!Number.isFinite(b[i])) return false;
  return true;
}

export interface ComplexRoots {
  re: Float64Array;
  im: Float64Array;
}

/**
 * Roots of c[0] + c[1] z + ... + c[k] z^k (trailing zero coefficients are dropped), by closed form up to degree 2
 * and by the Aberth–Ehrlich simultaneous iteration above. Meant for the small degrees of ARMA polynomials (<= ~10).
 */
export function polyRoots(c: ArrayLike<number>): ComplexRoots {
  let deg = c.length - 1;
  while (deg > 0 && c[deg] === 0) deg--;
  const re = new Float64Array(deg);
  const im = new Float64Array(deg);
  if (deg === 0) return { re, im };
  if (deg === 1) {
    re[0] = -c[0] / c[1];
    return { re, im };
  }
  if (deg === 2) {
    const a = c[2];
    const b = c[1];
    const cc = c[0];
    const disc = b * b - 4 * a * cc;
    if (disc >= 0) {
      // numerically stable form
      const s = Math.sqrt(disc);
      const qq = -0.5 * (b + (b >= 0 ? s : -s));
      re[0] = qq / a;
      re[1] = qq !== 0 ? cc / qq : -b / a - re[0];
    } else {
      re[0] = re[1] = -b / (2 * a);
      im[0] = Math.sqrt(-disc) / (2 * a);
      im[1] = -im[0];
    }
    return { re, im };
  }
  // monic coefficients, highest first for Horner
  const an = c[deg];
  const a = new Float64Array(deg + 1);
  for (let i = 0; i <= deg; i++) a[i] = c[deg - i] / an;
  const radius = Math.max(1e-3, Math.pow(Math.abs(a[deg]) || 1e-3, 1 / deg));
  for (let k = 0; k < deg; k++) {
    const ang = (2 * Math.PI * k) / deg + 0.4;
    re[k] = radius * Math.cos(ang);
    im[k] = radius * Math.sin(ang);
  }
  for (let iter = 0; iter < 500; iter++) {
    let maxStep = 0;
    for (let k = 0; k < deg; k++) {
      // p and p' at z_k by Horner
      const zr = re[k];
      const zi = im[k];
      let pr = 1;
      let pi = 0;
      let dr = 0;
      let di = 0;
      for (let i = 1; i <= deg; i++) {
        // d = d*z + p ; p = p*z + a[i]
        const ndr = dr * zr - di * zi + pr;
        const ndi = dr * zi + di * zr + pi;
        dr = ndr;
        di = ndi;
        const npr = pr * zr - pi * zi + a[i];
        const npi = pr * zi + pi * zr;
        pr = npr;
        pi = npi;
      }
      // N = p / p'
      const dd = dr * dr + di * di;
      if (dd === 0) continue;
      const nr = (pr * dr + pi * di) / dd;
      const ni = (pi * dr - pr * di) / dd;
      // S = sum 1/(z_k - z_j)
      let sr = 0;
      let si = 0;
      for (let j = 0; j < deg; j++) {
        if (j === k) continue;
        const xr = zr - re[j];
        const xi = zi - im[j];
        const xx = xr * xr + xi * xi;
        if (xx === 0) continue;
        sr += xr / xx;
        si -= xi / xx;
      }
      // w = N / (1 - N S)
      const br = 1 - (nr * sr - ni * si);
      const bi = -(nr * si + ni * sr);
      const bb = br * br + bi * bi;
      if (bb === 0) continue;
      const wr = (nr * br + ni * bi) / bb;
      const wi = (ni * br - nr * bi) / bb;
      re[k] = zr - wr;
      im[k] = zi - wi;
      const step = Math.hypot(wr, wi) / Math.max(1, Math.hypot(re[k], im[k]));
      if (step > maxStep) maxStep = step;
    }
    if (maxStep < 1e-15) break;
  }
  return { re, im };
}

/** The standard normal quantile; one implementation serves the whole engine (stats.ts). */
export const normalQuantile = qnorm;
