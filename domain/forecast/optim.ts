/**
 * Nelder–Mead simplex minimisation (Nelder & Mead 1965, with the Lagarias et al. 1998 acceptance rules), written for
 * small problems evaluated many thousands of times: all work buffers are allocated once per call, the objective gets
 * the same Float64Array every time (it must not keep it), and the dimension-adaptive coefficients of Gao & Han (2012)
 * are used from 4 dimensions on, which keeps the simplex from collapsing in 10–20 dimensions.
 *
 * Box constraints are handled by a change of variables (nelderMeadBounded): a coordinate bounded on both sides is
 * optimised as z with x = lo + (hi - lo)/(1 + e^-z), one bounded on one side as x = lo + e^z (or hi - e^z), so the
 * search itself is unconstrained and never wastes evaluations outside the box. Objectives may also return Infinity
 * (or NaN, read as Infinity) for inadmissible points. The price of the logistic map: near a bound the objective is flat
 * in z, so a search that wanders onto a bound which is not active at the optimum can stall there (start inside, with
 * moderate steps).
 */

export type Objective = (x: Float64Array) => number;

export interface NelderMeadOptions {
  /** maximum number of objective evaluations (default 200·d + 200) */
  maxEvals?: number;
  /** stop when (f_worst − f_best) <= ftol·(|f_best| + ftol) (default 1e-8, R optim's reltol scale) */
  ftol?: number;
  /** stop when every vertex is within xtol of the best in every coordinate (default 1e-10) */
  xtol?: number;
  /** initial simplex step per coordinate, or one for all (default 5 % of |x0_i|, or 0.00025 where x0_i is 0, as scipy) */
  step?: number | ArrayLike<number>;
  /** rerun from the best point with a fresh simplex this many times while that still improves by more than ftol (default 0) */
  restarts?: number;
  /** use the Gao–Han dimension-dependent coefficients (default: when d >= 4) */
  adaptive?: boolean;
}

export interface NelderMeadResult {
  x: Float64Array;
  f: number;
  evaluations: number;
  iterations: number;
  /** true when a tolerance was met (false: the evaluation budget ran out) */
  converged: boolean;
}

/** Minimises f from x0. Deterministic: the same inputs always give the same result. */
export function nelderMead(f: Objective, x0: ArrayLike<number>, opts: NelderMeadOptions = {}): NelderMeadResult {
  const d = x0.length;
  const maxEvals = opts.maxEvals ?? 200 * d + 200;
  const ftol = opts.ftol ?? 1e-8;
  const xtol = opts.xtol ?? 1e-10;
  const adaptive = opts.adaptive ?? d >= 4;
  const rho = 1;
  const chi = adaptive ? 1 + 2 / d : 2;
  const gam = adaptive ? 0.75 - 1 / (2 * d) : 0.5;
  const sig = adaptive ? 1 - 1 / d : 0.5;

  const steps = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    const s = opts.step === undefined ? undefined : typeof opts.step === 'number' ? opts.step : opts.step[i];
    steps[i] = s !== undefined ? s : x0[i] !== 0 ? 0.05 * Math.abs(x0[i]) : 0.00025;
    if (steps[i] === 0) steps[i] = 0.00025;
  }

  const eval1 = (x: Float64Array): number => {
    const v = f(x);
    return Number.isNaN(v) ? Infinity : v;
  };

  if (d === 0) {
    const x = new Float64Array(0);
    return { x, f: eval1(x), evaluations: 1, iterations: 0, converged: true };
  }

  const V = new Float64Array((d + 1) * d); // vertex j at V[j*d .. j*d+d)
  const F = new Float64Array(d + 1);
  const order = new Int32Array(d + 1);
  const c = new Float64Array(d);
  const xr = new Float64Array(d);
  const xe = new Float64Array(d);
  const xc = new Float64Array(d);
  const arg = new Float64Array(d);
  const best = Float64Array.from(x0 as ArrayLike<number>);
  let fbest = Infinity;
  let evals = 0;
  let iters = 0;
  let converged = false;

  const evalInto = (src: Float64Array, off: number): number => {
    for (let i = 0; i < d; i++) arg[i] = src[off + i];
    evals++;
    return eval1(arg);
  };

  const restarts = opts.restarts ?? 0;
  for (let round = 0; round <= restarts; round++) {
    // initial simplex around `best`
    for (let j = 0; j <= d; j++) {
      for (let i = 0; i < d; i++) V[j * d + i] = best[i];
      if (j > 0) V[j * d + j - 1] += steps[j - 1];
    }
    for (let j = 0; j <= d; j++) {
      F[j] = round > 0 && j === 0 ? fbest : evalInto(V, j * d);
      order[j] = j;
    }
    const fStart = round > 0 ? fbest : F[0];
    converged = false;
    // running sum of the vertices, so the centroid costs O(d) per iteration
    const sumV = c;
    const resum = (): void => {
      sumV.fill(0);
      for (let j = 0; j <= d; j++) for (let i = 0; i < d; i++) sumV[i] += V[j * d + i];
    };
    resum();
    const replaceWorst = (iw: number, src: Float64Array, fv: number): void => {
      for (let i = 0; i < d; i++) {
        sumV[i] += src[i] - V[iw * d + i];
        V[iw * d + i] = src[i];
      }
      F[iw] = fv;
    };
    let sinceCheck = 0;

    while (evals < maxEvals) {
      // insertion sort of the vertex order by value (d is small and the order changes little)
      for (let a = 1; a <= d; a++) {
        const k = order[a];
        const fk = F[k];
        let b = a - 1;
        while (b >= 0 && F[order[b]] > fk) {
          order[b + 1] = order[b];
          b--;
        }
        order[b + 1] = k;
      }
      const ib = order[0];
      const iw = order[d];
      const is = order[d - 1];
      const fb = F[ib];
      const fw = F[iw];
      if (Number.isFinite(fw) && fw - fb <= ftol * (Math.abs(fb) + ftol)) {
        converged = true;
        break;
      }
      // the O(d²) simplex-size test only every d iterations
      if (++sinceCheck >= d) {
        sinceCheck = 0;
        resum(); // also keeps the running sum from drifting
        let spread = 0;
        for (let j = 0; j <= d; j++) {
          if (j === ib) continue;
          for (let i = 0; i < d; i++) spread = Math.max(spread, Math.abs(V[j * d + i] - V[ib * d + i]));
        }
        if (spread <= xtol) {
          converged = true;
          break;
        }
      }
      iters++;
      // reflect the worst through the centroid of the others: c = (sum − worst)/d
      for (let i = 0; i < d; i++) {
        const ci = (sumV[i] - V[iw * d + i]) / d;
        xr[i] = ci + rho * (ci - V[iw * d + i]);
      }
      const fr = evalInto(xr, 0);
      if (fr < fb) {
        for (let i = 0; i < d; i++) {
          const ci = (sumV[i] - V[iw * d + i]) / d;
          xe[i] = ci + chi * (xr[i] - ci);
        }
        const fe = evalInto(xe, 0);
        if (fe < fr) replaceWorst(iw, xe, fe);
        else replaceWorst(iw, xr, fr);
        continue;
      }
      if (fr < F[is]) {
        replaceWorst(iw, xr, fr);
        continue;
      }
      let shrink = false;
      if (fr < fw) {
        // outside contraction
        for (let i = 0; i < d; i++) {
          const ci = (sumV[i] - V[iw * d + i]) / d;
          xc[i] = ci + gam * (xr[i] - ci);
        }
        const fc = evalInto(xc, 0);
        if (fc <= fr) replaceWorst(iw, xc, fc);
        else shrink = true;
      } else {
        // inside contraction
        for (let i = 0; i < d; i++) {
          const ci = (sumV[i] - V[iw * d + i]) / d;
          xc[i] = ci + gam * (V[iw * d + i] - ci);
        }
        const fc = evalInto(xc, 0);
        if (fc < fw) replaceWorst(iw, xc, fc);
        else shrink = true;
      }
      if (shrink) {
        for (let j = 0; j <= d; j++) {
          if (j === ib) continue;
          for (let i = 0; i < d; i++) V[j * d + i] = V[ib * d + i] + sig * (V[j * d + i] - V[ib * d + i]);
          F[j] = evalInto(V, j * d);
        }
        resum();
      }
    }
    let jb = 0;
    for (let j = 1; j <= d; j++) if (F[j] < F[jb]) jb = j;
    const improved = F[jb] < fbest;
    if (improved) {
      fbest = F[jb];
      for (let i = 0; i < d; i++) best[i] = V[jb * d + i];
    }
    if (evals >= maxEvals) break;
    // another round only pays while the last one still moved the optimum noticeably
    if (round > 0 && !(fStart - fbest > ftol * (Math.abs(fbest) + ftol))) break;
  }
  return { x: best, f: fbest, evaluations: evals, iterations: iters, converged };
}

/** Logistic map R → (lo, hi). */
export function toBox(z: number, lo: number, hi: number): number {
  return lo + (hi - lo) / (1 + Math.exp(-z));
}

/** Inverse of toBox; x is first pulled a hair inside (lo, hi) so the result is finite. */
export function fromBox(x: number, lo: number, hi: number): number {
  const eps = 1e-9 * (hi - lo);
  const u = (Math.min(Math.max(x, lo + eps), hi - eps) - lo) / (hi - lo);
  return Math.log(u / (1 - u));
}

/**
 * Nelder–Mead within the box lower <= x <= upper (either bound may be ±Infinity) via the change of variables in the
 * module comment. `step` is in the transformed space (default 0.5 for bounded coordinates, 5 % of |x0| for free
 * ones). The returned x is in the original space.
 */
export function nelderMeadBounded(
  f: Objective,
  x0: ArrayLike<number>,
  lower: ArrayLike<number>,
  upper: ArrayLike<number>,
  opts: NelderMeadOptions = {},
): NelderMeadResult {
  const d = x0.length;
  const kind = new Int8Array(d); // 0 free, 1 both, 2 lower only, 3 upper only
  const z0 = new Float64Array(d);
  const step = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    const lo = lower[i];
    const hi = upper[i];
    if (lo > hi) throw new Error(`nelderMeadBounded: lower[${i}] > upper[${i}]`);
    const loF = Number.isFinite(lo);
    const hiF = Number.isFinite(hi);
    if (loF && hiF) {
      kind[i] = 1;
      z0[i] = lo === hi ? 0 : fromBox(x0[i], lo, hi);
    } else if (loF) {
      kind[i] = 2;
      z0[i] = Math.log(Math.max(x0[i] - lo, 1e-12));
    } else if (hiF) {
      kind[i] = 3;
      z0[i] = Math.log(Math.max(hi - x0[i], 1e-12));
    } else {
      z0[i] = x0[i];
    }
    const s = opts.step === undefined ? undefined : typeof opts.step === 'number' ? opts.step : opts.step[i];
    step[i] = s !== undefined ? s : kind[i] === 0 ? (x0[i] !== 0 ? 0.05 * Math.abs(x0[i]) : 0.00025) : 0.5;
  }
  const x = new Float64Array(d);
  const map = (z: ArrayLike<number>, out: Float64Array): Float64Array => {
    for (let i = 0; i < d; i++) {
      const k = kind[i];
      if (k === 1) out[i] = lower[i] === upper[i] ? lower[i] : toBox(z[i], lower[i], upper[i]);
      else if (k === 2) out[i] = lower[i] + Math.exp(z[i]);
      else if (k === 3) out[i] = upper[i] - Math.exp(z[i]);
      else out[i] = z[i];
    }
    return out;
  };
  const res = nelderMead((z) => f(map(z, x)), z0, { ...opts, step });
  return { ...res, x: map(res.x, new Float64Array(d)) };
}
