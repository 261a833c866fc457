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

/**
 * Standard normal quantile, Wichura's algorithm AS 241 (PPND16, relative accuracy about 1e-16), the one R's qnorm uses.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) {
    if (p === 0) return -Infinity;
    if (p === 1) return Infinity;
    return NaN;
  }
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (
      (q *
        (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r + 67265.770927008700853) * r +
          45921.953931549871457) *
          r +
          13731.693765509461125) *
          r +
          1971.5909503065514427) *
          r +
          133.14166789178437745) *
          r +
          3.387132872796366608)) /
      (((((((r * 5226.495278852545925 + 28729.085735721942674) * r + 39307.89580009271061) * r +
        21213.794301586595867) *
        r +
        5394.1960214247511077) *
        r +
        687.1870074920579083) *
        r +
        42.313330701600911252) *
        r +
        1)
    );
  }
  let r = q < 0 ? p : 1 - p;
  r = Math.sqrt(-Math.log(r));
  let val: number;
  if (r <= 5) {
    r -= 1.6;
    val =
      (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r + 0.24178072517745061177) * r +
        1.27045825245236838258) *
        r +
        3.64784832476320460504) *
        r +
        5.7694972214606914055) *
        r +
        4.6303378461565452959) *
        r +
        1.42343711074968357734) /
      (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r +
        0.14810397642748007459) *
        r +
        0.68976733498510000455) *
        r +
        1.6763848301838038494) *
        r +
        2.05319162663775882187) *
        r +
        1);
  } else {
    r -= 5;
    val =
      (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r +
        0.026532189526576123093) *
        r +
        0.29656057182850489123) *
        r +
        1.7848265399172913358) *
        r +
        5.4637849111641143699) *
        r +
        6.6579046435011037772) /
      (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r +
        7.868691311456132591e-4) *
        r +
        0.0148753612908506148525) *
        r +
        0.13692988092273580531) *
        r +
        0.59983220655588793769) *
        r +
        1);
  }
  return q < 0 ? -val : val;
}
