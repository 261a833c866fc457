/**
 * ARIMA and automatic ARIMA in the spirit of R's forecast::auto.arima (Hyndman & Khandakar 2008).
 *
 * Model: (1 − Σφ_i B^i)(1 − ΣΦ_j B^{jm}) (1−B)^d (1−B^m)^D (y_t − c·t) = (1 + Σθ_i B^i)(1 + ΣΘ_j B^{jm}) e_t.
 *
 * Estimation (as stats::arima, method "CSS-ML", R's default):
 * - Works on the differenced series w = (1−B)^d (1−B^m)^D y, an ARMA with mean μ: the mean when d + D = 0, the drift
 *   when d = 1, m·drift when D = 1 (reported as drift = μ/m), absent when d + D >= 2 — R's constant/drift rules
 *   (forecast::Arima include.constant, auto.arima allowdrift/allowmean). R keeps the differencing in the state with
 *   a diffuse prior (κ = 1e6) and drops the first d + Dm observations from the likelihood, i.e. it maximises the
 *   likelihood of w up to the κ approximation; working on w keeps the state small (no 52 extra states for a weekly
 *   seasonal difference).
 * - Conditional sum of squares by BFGS, stationarity check of the CSS AR part (R fails the model otherwise), then exact
 *   Gaussian ML by BFGS from the CSS estimates, AR blocks reparameterised through partial autocorrelations (R's
 *   transform.pars), MA roots inverted after the fit (maInvert). BFGS is a port of R's vmmin (reltol 1.5e-8, maxit
 *   100, parscale 10·se for μ); the ML stage uses optim's numerical gradient (central differences, ndeps 1e-3) as R, the
 *   CSS stage the exact gradient of the residual recursion (ArmaWork.cssGradient, in reverse mode: about two residual
 *   passes whatever the number of parameters, where central differences cost two per parameter; same models and
 *   estimates to the optimiser's tolerance; setCssGradient('numeric') restores R's). No Hessian is computed (R spends ~4k² extra likelihood evaluations on var.coef; we report no standard errors).
 * - Exact likelihood: Harvey's state space (R's form: T has φ in its first column, R = (1, θ), Z = e1) started at the
 *   stationary covariance, computed from the ARMA autocovariances (the matrix R's Gardner et al. 1980 routine gives).
 *   Inside the optimiser it runs the Chandrasekhar recursions (P_{t+1} − P_t has rank one from a stationary start), so
 *   one evaluation costs O(n·r) instead of the Kalman filter's O(n·r²) — what makes seasonal models cheap
 *   (r = p + Pm or q + Qm + 1, 53+ for weekly data). The final pass runs the Kalman filter for the state at n.
 *
 * auto.arima (autoArima / autoArimaSelect), R's defaults unless a param overrides them:
 * - D ∈ {0, 1} by forecast::nsdiffs(test = "seas"): STL (a port of R's stl, s.window 11, as forecast::mstl) seasonal
 *   strength 1 − Var(remainder)/Var(remainder + seasonal) > 0.64; D = 0 when n <= 2m. This is R's default test (the
 *   OCSB / Canova–Hansen alternatives are not implemented).
 * - d ∈ {0, 1, 2} by forecast::ndiffs: KPSS level test (urca::ur.kpss type "mu", lag trunc(3√n/13)), difference while
 *   the statistic exceeds the 5 % critical value 0.463.
 * - max.p = max.q = min(5, n/3), max.P = max.Q = min(2, n/3/m) (so seasonal ARMA terms need n >= 3m), p, q <= m − 1
 *   with seasonal terms; stepwise search with R's start models ((2,d,2)(1,D,1) or order <= 1 when n < 10, the null
 *   model, AR(1)/SAR(1), MA(1)/SMA(1), no constant), R's neighbour order and nmodels = 94; AICc (AIC when n <= 3);
 *   models with an AR or MA root of modulus < 1.01 get IC = ∞; sigma2 = SSR/(n* − npar + 1).
 * - approximation as R: when n > 150 or m > 12 the search ranks models by CSS with R's offset
 *   (−2·loglik − n·log σ² of an ARIMA(1,d,0)(0,D,0) CSS-ML fit), then the winner is refitted by CSS-ML.
 * - Constant or deterministic series (constant after differencing) get R's fixed-constant ARIMA(0,d,0)(0,D,0).
 *
 * Deviations from R (deliberate):
 * - Long periods (m > 12, weekly m = 52): at most one seasonal ARMA term, P + Q <= 1 (params.maxSeasonalTermsLong),
 *   on top of R's n >= 3m; R would also try (1,D,1)[52]. A winner with such a term keeps the CSS estimates of the
 *   search (params.longSeasonalMethod, default 'CSS'; 'CSS-ML' is R's exact-likelihood refit). The refit of a
 *   53-wide state, often crawling along the flat ridge of near-cancelling AR and MA roots for its 100 iterations, was
 *   half of auto ARIMA's time on 156 weekly points, and out of sample it does not pay: bench:accuracy's weekly study
 *   (docs/BENCHMARKS.md) scores both on generated weekly series, with equal MASE and a better interval score for CSS.
 *   The σ² of a CSS fit divides by the residuals it has (n − p − Pm − npar + 1), not by n as myarima does.
 * - When the ML refit of the approximated winner fails we take the next model in the CSS ranking (R reruns the whole
 *   search without approximation); when no model can be fitted we fall back to ARIMA(0,d,0)(0,D,0) (R stops).
 * - sigma2 omits R's artefact of the diffuse prior: R's first d + Dm standardised residuals are ≈ y_t/√κ (≈ y_t/1000)
 *   and enter its SSR, which inflates sigma2 for differenced series at a high level; here they are not residuals.
 * - fitted = y_t − v_t, the one-step-ahead prediction (R's fitted() is y − standardised residual), NaN for the first
 *   d + Dm periods. Non-finite inputs are linearly interpolated (R's arima handles NA inside the likelihood).
 *
 * Forecasts: the filtered ARMA state at n and its covariance are propagated with the differencing lags appended
 * (R's KalmanForecast on the full model, so short-sample MA uncertainty is included), mean ± z·sd intervals.
 */
import { normalQuantile, polyRoots } from './linalg';
import type { ForecastOptions, ForecastResult, Forecaster } from './types';

// ---------------------------------------------------------------------------------------------------------------
// small utilities

function isConstant(x: ArrayLike<number>, from = 0): boolean {
  if (x.length - from <= 1) return true;
  const x0 = x[from];
  let scale = 0;
  let maxDiff = 0;
  for (let i = from; i < x.length; i++) {
    scale = Math.max(scale, Math.abs(x[i]));
    maxDiff = Math.max(maxDiff, Math.abs(x[i] - x0));
  }
  return maxDiff <= 1e-8 * Math.max(scale, 1e-12) || maxDiff === 0;
}

function diffSeries(x: Float64Array, lag: number): Float64Array {
  const n = x.length - lag;
  if (n <= 0) return new Float64Array(0);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = x[i + lag] - x[i];
  return out;
}

function meanOf(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return x.length ? s / x.length : 0;
}

function varianceOf(x: ArrayLike<number>): number {
  const n = x.length;
  if (n < 2) return 0;
  const mu = meanOf(x);
  let s = 0;
  for (let i = 0; i < n; i++) s += (x[i] - mu) * (x[i] - mu);
  return s / (n - 1);
}

/** Coefficients δ_1..δ_nd of (1-B)^d (1-B^m)^D = 1 - Σ δ_k B^k. */
function differencingPolynomial(d: number, D: number, m: number): Float64Array {
  let poly = [1];
  const mul = (lag: number) => {
    const out = new Array(poly.length + lag).fill(0);
    for (let i = 0; i < poly.length; i++) {
      out[i] += poly[i];
      out[i + lag] -= poly[i];
    }
    poly = out;
  };
  for (let i = 0; i < d; i++) mul(1);
  for (let i = 0; i < D; i++) mul(m);
  const delta = new Float64Array(poly.length - 1);
  for (let k = 1; k < poly.length; k++) delta[k - 1] = -poly[k];
  return delta;
}

function applyDifferencing(y: Float64Array, d: number, D: number, m: number): Float64Array {
  let x = y;
  for (let i = 0; i < D; i++) x = diffSeries(x, m);
  for (let i = 0; i < d; i++) x = diffSeries(x, 1);
  return x;
}

/** Replaces non-finite values by linear interpolation (constant at the ends). */
function cleanSeries(y: ArrayLike<number>): Float64Array {
  const n = y.length;
  const out = Float64Array.from(y as ArrayLike<number>);
  let ok = true;
  for (let i = 0; i < n; i++) if (!Number.isFinite(out[i])) ok = false;
  if (ok) return out;
  let last = -1;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(out[i])) continue;
    if (last < 0) for (let j = 0; j < i; j++) out[j] = out[i];
    else for (let j = last + 1; j < i; j++) out[j] = out[last] + ((out[i] - out[last]) * (j - last)) / (i - last);
    last = i;
  }
  if (last < 0) out.fill(0);
  else for (let j = last + 1; j < n; j++) out[j] = out[last];
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// parameter transformations (R's partrans / invpartrans / maInvert)

/** PACF-space (unbounded) → AR coefficients (R's partrans: tanh then Durbin–Levinson). */
function partrans(raw: Float64Array, from: number, p: number, out: Float64Array, work: Float64Array): void {
  for (let j = 0; j < p; j++) work[j] = out[from + j] = Math.tanh(raw[from + j]);
  for (let j = 1; j < p; j++) {
    const a = out[from + j];
    for (let k = 0; k < j; k++) work[k] -= a * out[from + j - k - 1];
    for (let k = 0; k < j; k++) out[from + k] = work[k];
  }
}

/** AR coefficients → PACF (the reverse Durbin–Levinson recursion); returns false if not stationary. */
function arToPacf(phi: ArrayLike<number>, from: number, p: number, out: Float64Array): boolean {
  const nw = new Float64Array(p);
  const work = new Float64Array(p);
  for (let j = 0; j < p; j++) nw[j] = phi[from + j];
  for (let j = p - 1; j > 0; j--) {
    const a = nw[j];
    if (!(Math.abs(a) < 1)) return false;
    for (let k = 0; k < j; k++) work[k] = (nw[k] + a * nw[j - k - 1]) / (1 - a * a);
    for (let k = 0; k < j; k++) nw[k] = work[k];
  }
  if (p > 0 && !(Math.abs(nw[0]) < 1)) return false;
  for (let j = 0; j < p; j++) out[j] = nw[j];
  return true;
}

/** All roots of 1 - Σ φ_i z^i strictly outside the unit circle (Schur–Cohn via the reverse Durbin–Levinson). */
function arStationary(phi: ArrayLike<number>, from: number, p: number): boolean {
  let pp = p;
  while (pp > 0 && phi[from + pp - 1] === 0) pp--;
  if (pp === 0) return true;
  return arToPacf(phi, from, pp, new Float64Array(pp));
}

/** R's maInvert: reflect the roots of 1 + Σθ z^i that lie inside the unit circle. */
function maInvert(ma: Float64Array): Float64Array {
  const q = ma.length;
  let q0 = q;
  while (q0 > 0 && ma[q0 - 1] === 0) q0--;
  if (q0 === 0) return ma;
  const c = new Float64Array(q0 + 1);
  c[0] = 1;
  for (let i = 0; i < q0; i++) c[i + 1] = ma[i];
  const roots = polyRoots(c);
  let any = false;
  for (let i = 0; i < q0; i++) if (Math.hypot(roots.re[i], roots.im[i]) < 1) any = true;
  if (!any) return ma;
  const out = new Float64Array(q);
  if (q0 === 1) {
    out[0] = 1 / ma[0];
    return out;
  }
  for (let i = 0; i < q0; i++) {
    const mod2 = roots.re[i] * roots.re[i] + roots.im[i] * roots.im[i];
    if (mod2 < 1) {
      roots.re[i] = roots.re[i] / mod2;
      roots.im[i] = -roots.im[i] / mod2;
    }
  }
  // x <- 1; for (r in roots) x <- c(x, 0) - c(0, x)/r
  let xr = [1];
  let xi = [0];
  for (let k = 0; k < q0; k++) {
    const rr = roots.re[k];
    const ri = roots.im[k];
    const den = rr * rr + ri * ri;
    const ir = rr / den; // 1/r
    const ii = -ri / den;
    const nr = new Array(xr.length + 1).fill(0);
    const ni = new Array(xr.length + 1).fill(0);
    for (let j = 0; j < xr.length; j++) {
      nr[j] += xr[j];
      ni[j] += xi[j];
      nr[j + 1] -= xr[j] * ir - xi[j] * ii;
      ni[j + 1] -= xr[j] * ii + xi[j] * ir;
    }
    xr = nr;
    xi = ni;
  }
  for (let i = 0; i < q0; i++) out[i] = xr[i + 1];
  return out;
}

/** Smallest root modulus of 1 + sign·Σ c_i z^i (c of length k), +Infinity when the polynomial is constant. */
function minRootModulus(c: ArrayLike<number>, sign: number): number {
  let k = c.length;
  while (k > 0 && Math.abs(c[k - 1]) <= 1e-8) k--;
  if (k === 0) return Infinity;
  const poly = new Float64Array(k + 1);
  poly[0] = 1;
  for (let i = 0; i < k; i++) poly[i + 1] = sign * c[i];
  const r = polyRoots(poly);
  let best = Infinity;
  for (let i = 0; i < k; i++) best = Math.min(best, Math.hypot(r.re[i], r.im[i]));
  return best;
}

// ---------------------------------------------------------------------------------------------------------------
// the ARMA model on the differenced series: expansion, initial covariance, Kalman likelihood, CSS

export interface Orders {
  p: number;
  d: number;
  q: number;
  P: number;
  D: number;
  Q: number;
  m: number;
}

/** Preallocated buffers for one (p, q, P, Q, m) structure. */
export class ArmaWork {
  readonly pFull: number;
  readonly qFull: number;
  readonly r: number;
  readonly phi: Float64Array; // φ_1..φ_pFull (expanded)
  readonly theta: Float64Array; // θ_1..θ_qFull (expanded)
  readonly phiIdx: Int32Array; // structurally non-zero lags of phi (1-based)
  readonly thetaIdx: Int32Array;
  readonly phiR: Float64Array; // padded to r
  readonly Rv: Float64Array; // (1, θ_1, ..., θ_{r-1})
  readonly a: Float64Array;
  readonly af: Float64Array;
  readonly P: Float64Array;
  readonly Pf: Float64Array;
  readonly M: Float64Array;
  readonly Pc: Float64Array;
  readonly psi: Float64Array;
  readonly gam: Float64Array;
  readonly cc: Float64Array;
  readonly levBuf: Float64Array;
  readonly gu: Float64Array;
  readonly trans: Float64Array;
  readonly tw: Float64Array;
  /** for state i: lags k and coefficient lags (i + k) of its w-part and e-part, flattened with offsets */
  private readonly wOff: Int32Array;
  private readonly wK: Int32Array;
  private readonly wLag: Int32Array;
  private readonly eOff: Int32Array;
  private readonly eK: Int32Array;
  private readonly eLag: Int32Array;
  private readonly wVal: Float64Array;
  private readonly eVal: Float64Array;
  /** structurally non-zero positions of R = (1, θ_1, ..., θ_{r-1}), ascending */
  readonly rIdx: Int32Array;
  resid: Float64Array;
  /** cssGradient: ∂(ssq/2)/∂e_l, and ∂(ssq/2)/∂φ_j and ∂(ssq/2)/∂θ_j by lag j */
  private readonly adjBuf: Float64Array;
  private readonly gPhi: Float64Array;
  private readonly gTheta: Float64Array;
  /** css and cssGradient: w − μ, and φ and θ at their structural lags (phiIdx, thetaIdx), packed */
  private readonly xBuf: Float64Array;
  private readonly phiC: Float64Array;
  private readonly thetaC: Float64Array;

  constructor(readonly o: Orders, n: number) {
    const { p, q, P, Q, m } = o;
    this.pFull = p + P * m;
    this.qFull = q + Q * m;
    this.r = Math.max(this.pFull, this.qFull + 1, 1);
    const r = this.r;
    this.phi = new Float64Array(Math.max(this.pFull, 1));
    this.theta = new Float64Array(Math.max(this.qFull, 1));
    const lags = (k: number, K: number): Int32Array => {
      const set = new Set<number>();
      for (let i = 1; i <= k; i++) set.add(i);
      for (let j = 1; j <= K; j++) for (let i = 0; i <= k; i++) set.add(j * m + i);
      return Int32Array.from([...set].sort((a, b) => a - b));
    };
    this.phiIdx = lags(p, P);
    this.thetaIdx = lags(q, Q);
    this.phiR = new Float64Array(r);
    this.Rv = new Float64Array(r);
    this.a = new Float64Array(r);
    this.af = new Float64Array(r);
    this.P = new Float64Array(r * r);
    this.Pf = new Float64Array(r * r);
    this.M = new Float64Array(r * r);
    this.Pc = new Float64Array(r);
    const L = Math.max(this.pFull, this.qFull, r) + 2;
    this.psi = new Float64Array(L);
    this.gam = new Float64Array(L);
    this.cc = new Float64Array(L);
    this.levBuf = new Float64Array((this.pFull * (this.pFull + 1)) / 2 + 1);
    this.gu = new Float64Array(L + 2 * this.qFull + 1);
    this.trans = new Float64Array(p + q + P + Q + 1);
    this.tw = new Float64Array(Math.max(p, P, 1));
    this.resid = new Float64Array(n);
    this.xBuf = new Float64Array(n);
    this.adjBuf = new Float64Array(n);
    this.gPhi = new Float64Array(this.pFull + 1);
    this.gTheta = new Float64Array(this.qFull + 1);
    this.phiC = new Float64Array(this.phiIdx.length);
    this.thetaC = new Float64Array(this.thetaIdx.length);
    const pSet = new Set(this.phiIdx);
    const qSet = new Set(this.thetaIdx);
    const wOff = [0];
    const wK: number[] = [];
    const wLag: number[] = [];
    const eOff = [0];
    const eK: number[] = [];
    const eLag: number[] = [];
    for (let i = 0; i < r; i++) {
      for (let k = 1; i + k <= this.pFull; k++)
        if (pSet.has(i + k)) {
          wK.push(k);
          wLag.push(i + k);
        }
      wOff.push(wK.length);
      for (let k = 0; i + k <= this.qFull && k <= r - 1 - i; k++)
        if (i + k === 0 || qSet.has(i + k)) {
          eK.push(k);
          eLag.push(i + k);
        }
      eOff.push(eK.length);
    }
    this.wOff = Int32Array.from(wOff);
    this.wK = Int32Array.from(wK);
    this.wLag = Int32Array.from(wLag);
    this.eOff = Int32Array.from(eOff);
    this.eK = Int32Array.from(eK);
    this.eLag = Int32Array.from(eLag);
    this.wVal = new Float64Array(wK.length);
    this.eVal = new Float64Array(eK.length);
    this.rIdx = Int32Array.from([0, ...[...this.thetaIdx].filter((j) => j < r)]);
  }

  /** Expands (ar, ma, sar, sma) — already in coefficient space — into φ and θ of the full ARMA. */
  expand(coef: ArrayLike<number>): void {
    const { p, q, P, Q, m } = this.o;
    const phi = this.phi;
    const theta = this.theta;
    phi.fill(0);
    theta.fill(0);
    for (let i = 0; i < p; i++) phi[i] = coef[i];
    for (let i = 0; i < q; i++) theta[i] = coef[p + i];
    for (let j = 0; j < P; j++) {
      const s = coef[p + q + j];
      phi[(j + 1) * m - 1] += s;
      for (let i = 0; i < p; i++) phi[(j + 1) * m + i] -= coef[i] * s;
    }
    for (let j = 0; j < Q; j++) {
      const s = coef[p + q + P + j];
      theta[(j + 1) * m - 1] += s;
      for (let i = 0; i < q; i++) theta[(j + 1) * m + i] += coef[p + i] * s;
    }
    const r = this.r;
    this.phiR.fill(0);
    this.Rv.fill(0);
    for (let i = 0; i < this.pFull; i++) this.phiR[i] = phi[i];
    this.Rv[0] = 1;
    for (let i = 0; i < this.qFull && i + 1 < r; i++) this.Rv[i + 1] = theta[i];
  }

  /** Applies R's transform (partrans on the AR and seasonal AR blocks) to raw parameters, into this.trans. */
  transform(raw: ArrayLike<number>, nArma: number): Float64Array {
    const { p, q, P } = this.o;
    const t = this.trans;
    for (let i = 0; i < nArma; i++) t[i] = raw[i];
    if (p > 0) partrans(raw as Float64Array, 0, p, t, this.tw);
    if (P > 0) partrans(raw as Float64Array, p + q, P, t, this.tw);
    return t;
  }

  /**
   * Stationary covariance of the state (σ² = 1) into this.P, from the ARMA autocovariances. Returns false if the AR
   * part is not stationary (or numerically too close to it).
   */
  initialCovariance(firstRowOnly = false): boolean {
    const p = this.pFull;
    const q = this.qFull;
    const r = this.r;
    const phi = this.phi;
    const theta = this.theta;
    const psi = this.psi;
    const L = psi.length;
    // psi weights
    psi[0] = 1;
    for (let j = 1; j < L; j++) {
      let s = j <= q ? theta[j - 1] : 0;
      const lim = Math.min(j, p);
      for (let i = 1; i <= lim; i++) s += phi[i - 1] * psi[j - i];
      psi[j] = s;
    }
    // c_k = Σ_{j=k}^{q} θ_j ψ_{j-k}, θ_0 = 1
    const cc = this.cc;
    for (let k = 0; k < L; k++) {
      let s = 0;
      for (let j = k; j <= q; j++) s += (j === 0 ? 1 : theta[j - 1]) * psi[j - k];
      cc[k] = s;
    }
    const gam = this.gam;
    gam.fill(0);
    if (p === 0) {
      for (let k = 0; k < L; k++) gam[k] = cc[k];
    } else {
      // autocovariances of the pure AR process u = φ(B)^{-1} e in O(p²): the reverse Durbin–Levinson recursion gives
      // the partial autocorrelations κ_k and the order-k coefficient sets, then γ_u(0) = Π 1/(1 − κ_k²) and
      // γ_u(k) = Σ_j φ^{(k)}_j γ_u(k − j); finally γ(h) = Σ_{j,l} θ_j θ_l γ_u(|h − j + l|) for x = θ(B) u
      const co = this.levBuf; // φ^{(k)} stored at offset k(k−1)/2, k = 1..p
      const base = (p * (p - 1)) / 2;
      for (let j = 0; j < p; j++) co[base + j] = phi[j];
      let g0 = 1;
      for (let k = p; k >= 1; k--) {
        const off = (k * (k - 1)) / 2;
        const kap = co[off + k - 1];
        if (!(Math.abs(kap) < 1)) return false;
        const den = 1 - kap * kap;
        g0 /= den;
        if (k > 1) {
          const offD = ((k - 1) * (k - 2)) / 2;
          for (let j = 0; j < k - 1; j++) co[offD + j] = (co[off + j] + kap * co[off + k - 2 - j]) / den;
        }
      }
      const gu = this.gu;
      const G = gu.length;
      gu[0] = g0;
      for (let k = 1; k <= p && k < G; k++) {
        const off = (k * (k - 1)) / 2;
        let sum = 0;
        for (let j = 1; j <= k; j++) sum += co[off + j - 1] * gu[k - j];
        gu[k] = sum;
      }
      const idx = this.phiIdx;
      for (let k = p + 1; k < G; k++) {
        let sum = 0;
        for (let t = 0; t < idx.length; t++) sum += phi[idx[t] - 1] * gu[k - idx[t]];
        gu[k] = sum;
      }
      const tI = this.thetaIdx;
      for (let hh = 0; hh < L; hh++) {
        let sum = gu[hh];
        for (let a = 0; a < tI.length; a++) {
          const ja = tI[a];
          const ta = theta[ja - 1];
          // j = ja, l = 0 and j = 0, l = ja
          sum += ta * (gu[Math.abs(hh - ja)] + gu[hh + ja]);
          for (let b = 0; b < tI.length; b++) sum += ta * theta[tI[b] - 1] * gu[Math.abs(hh - ja + tI[b])];
        }
        gam[hh] = sum;
      }
    }
    if (!(gam[0] > 0) || !Number.isFinite(gam[0])) return false;
    // state i: α[i] = Σ_{k=1}^{r-i} φ_{i+k} w_{t-k} + Σ_{k=0}^{r-1-i} θ_{i+k} e_{t-k}; P0 = Cov(α)
    const Pm = this.P;
    const { wOff, wK, wLag, eOff, eK, eLag, wVal, eVal } = this;
    for (let t = 0; t < wLag.length; t++) wVal[t] = phi[wLag[t] - 1];
    for (let t = 0; t < eLag.length; t++) eVal[t] = eLag[t] === 0 ? 1 : theta[eLag[t] - 1];
    const iMax = firstRowOnly ? 1 : r;
    for (let i = 0; i < iMax; i++) {
      const wa = wOff[i];
      const wb = wOff[i + 1];
      const ea = eOff[i];
      const eb = eOff[i + 1];
      for (let l = i; l < r; l++) {
        const wc = wOff[l];
        const wd = wOff[l + 1];
        const ec = eOff[l];
        const ed = eOff[l + 1];
        let s = 0;
        for (let x = wa; x < wb; x++) {
          const kx = wK[x];
          const vx = wVal[x];
          let s2 = 0;
          for (let y = wc; y < wd; y++) s2 += wVal[y] * gam[Math.abs(kx - wK[y])];
          for (let y = ec; y < ed; y++) if (eK[y] >= kx) s2 += eVal[y] * psi[eK[y] - kx];
          s += vx * s2;
        }
        for (let x = ea; x < eb; x++) {
          const kx = eK[x];
          const vx = eVal[x];
          let s2 = 0;
          for (let y = wc; y < wd; y++) if (kx >= wK[y]) s2 += wVal[y] * psi[kx - wK[y]];
          for (let y = ec; y < ed; y++) if (kx === eK[y]) s2 += eVal[y];
          s += vx * s2;
        }
        Pm[i * r + l] = s;
        Pm[l * r + i] = s;
      }
    }
    return true;
  }

  /**
   * The same likelihood pieces as kalman() in O(n·r) instead of O(n·r²), by the Chandrasekhar recursions
   * (Morf, Sidhu & Kailath 1974; for ARMA models Mélard 1984): with the stationary start P_1 − P_0 = −K_0K_0'/F_0 has
   * rank one, and so has every later P_{t+1} − P_t = m_t w_t w_t', which is propagated instead of P:
   *   F_{t+1} = F_t + m_t z_t², K_{t+1} = K_t + m_t z_t T w_t, w_{t+1} = T w_t − (z_t/F_t) K_t, m_{t+1} = m_t F_t/F_{t+1}
   * with z_t = w_t[0], K_t = T P_t Z'. Only the first row of P_0 is needed. Used inside the optimiser; the final
   * pass (state and covariance for forecasting) runs kalman().
   */
  likelihood(w: Float64Array, mu: number): { ssq: number; sumlog: number } {
    if (!this.initialCovariance(true)) return { ssq: NaN, sumlog: NaN };
    const r = this.r;
    const n = w.length;
    const phiR = this.phiR;
    const P = this.P;
    const a = this.a;
    const K = this.af; // reuse buffers: K_t
    const W = this.Pc; // w_t
    a.fill(0);
    let F = P[0];
    for (let i = 0; i < r - 1; i++) K[i] = phiR[i] * F + P[i + 1];
    K[r - 1] = phiR[r - 1] * F;
    for (let i = 0; i < r; i++) W[i] = K[i];
    let m = -1 / F;
    let ssq = 0;
    let sumlog = 0;
    let converged = false;
    for (let t = 0; t < n; t++) {
      if (!(F > 0)) return { ssq: NaN, sumlog: NaN };
      const v = w[t] - mu - a[0];
      ssq += (v * v) / F;
      sumlog += Math.log(F);
      const g = v / F;
      const a0 = a[0];
      for (let i = 0; i < r - 1; i++) a[i] = phiR[i] * a0 + a[i + 1] + K[i] * g;
      a[r - 1] = phiR[r - 1] * a0 + K[r - 1] * g;
      if (converged) continue;
      const z = W[0];
      const mz = m * z;
      const Fn = F + mz * z;
      const c = z / F;
      // u = T w (in place, ascending: W[i+1] is still the old value when W[i] is written)
      const w0 = W[0];
      for (let i = 0; i < r - 1; i++) {
        const u = phiR[i] * w0 + W[i + 1];
        const kOld = K[i];
        K[i] = kOld + mz * u;
        W[i] = u - c * kOld;
      }
      {
        const u = phiR[r - 1] * w0;
        const kOld = K[r - 1];
        K[r - 1] = kOld + mz * u;
        W[r - 1] = u - c * kOld;
      }
      m = (m * F) / Fn;
      F = Fn;
      // once the rank-one increments vanish the gain is constant (the steady state)
      if (Math.abs(mz * z) < 1e-14 * F) {
        let wn = 0;
        for (let i = 0; i < r; i++) wn += W[i] * W[i];
        if (Math.abs(m) * wn < 1e-14) converged = true;
      }
    }
    return { ssq, sumlog };
  }

  /**
   * Exact Gaussian likelihood pieces of x = w - μ (σ² concentrated out): returns ssq = Σ v²/F and sumlog = Σ log F;
   * innovations go to this.resid, the filtered state at the end to this.af / this.Pf when keepState.
   *
   * With Z = e1 and no observation noise the filtered covariance has a zero first row and column (the first state
   * element is the observation itself), so T P_f T' is P_f shifted up-left by one and φ drops out of the covariance
   * recursion: P_{t+1} = S(P_t − P_t[:,0] P_t[0,:]/F_t) S' + RR'. Only the upper triangle of P is kept.
   */
  kalman(w: Float64Array, mu: number, keepState: boolean): { ssq: number; sumlog: number } {
    const r = this.r;
    const n = w.length;
    const phiR = this.phiR;
    const Rv = this.Rv;
    const a = this.a;
    const P = this.P;
    const Pc = this.Pc;
    const resid = this.resid;
    a.fill(0);
    let rr = 0;
    for (let i = 0; i < r; i++) rr += Rv[i] * Rv[i];
    let ssq = 0;
    let sumlog = 0;
    let fast = false;
    for (let t = 0; t < n; t++) {
      const xt = w[t] - mu;
      const v = xt - a[0];
      resid[t] = v;
      if (fast) {
        ssq += v * v;
        if (keepState && t === n - 1) {
          const af = this.af;
          for (let i = 0; i < r; i++) af[i] = a[i] + Rv[i] * v;
          this.Pf.fill(0);
          break;
        }
        for (let i = 0; i < r - 1; i++) a[i] = phiR[i] * xt + a[i + 1] + Rv[i + 1] * v;
        a[r - 1] = phiR[r - 1] * xt;
        continue;
      }
      const F = P[0];
      if (!(F > 0)) return { ssq: NaN, sumlog: NaN };
      const invF = 1 / F;
      ssq += v * v * invF;
      sumlog += Math.log(F);
      for (let i = 0; i < r; i++) Pc[i] = P[i];
      if (keepState && t === n - 1) {
        const af = this.af;
        const Pf = this.Pf;
        const g = v * invF;
        for (let i = 0; i < r; i++) af[i] = a[i] + Pc[i] * g;
        for (let i = 0; i < r; i++)
          for (let j = i; j < r; j++) Pf[i * r + j] = Pf[j * r + i] = P[i * r + j] - Pc[i] * Pc[j] * invF;
        break;
      }
      const g = v * invF;
      for (let i = 0; i < r - 1; i++) a[i] = phiR[i] * xt + a[i + 1] + Pc[i + 1] * g;
      a[r - 1] = phiR[r - 1] * xt;
      // shift and rank-one downdate (upper triangle), then + RR' on its non-zero pattern
      for (let i = 0; i < r - 1; i++) {
        const ci = Pc[i + 1] * invF;
        const row = i * r;
        const nrow = (i + 1) * r + 1;
        for (let j = i; j < r - 1; j++) P[row + j] = P[nrow + j] - ci * Pc[j + 1];
        P[row + r - 1] = 0;
      }
      P[r * r - 1] = 0;
      const rIdx = this.rIdx;
      for (let x = 0; x < rIdx.length; x++) {
        const i = rIdx[x];
        const ri = Rv[i];
        for (let y = x; y < rIdx.length; y++) P[i * r + rIdx[y]] += ri * Rv[rIdx[y]];
      }
      let tr = 0;
      for (let i = 0; i < r; i++) tr += P[i * r + i];
      if (tr - rr < 1e-12) fast = true;
    }
    return { ssq, sumlog };
  }

  /** Conditional sum of squares (R's ARIMA_CSS on the differenced series), residuals into this.resid. */
  css(w: Float64Array, mu: number, ncond: number): { ssq: number; nu: number } {
    const n = w.length;
    const resid = this.resid;
    const x = this.centred(w, mu);
    const { pIdx, phiC, tIdx, thetaC } = this.packedLags();
    const nT = tIdx.length;
    // from `full` on every MA lag reaches a residual past the conditioning ones: the loop needs no bound check
    const full = Math.min(n, ncond + (nT ? tIdx[nT - 1] : 0));
    let ssq = 0;
    let nu = 0;
    for (let l = 0; l < ncond && l < n; l++) resid[l] = 0;
    for (let l = ncond; l < n; l++) {
      let tmp = x[l];
      for (let k = 0; k < pIdx.length; k++) tmp -= phiC[k] * x[l - pIdx[k]];
      if (l < full) {
        const lim = l - ncond;
        for (let k = 0; k < nT; k++) {
          const j = tIdx[k];
          if (j > lim) break;
          tmp -= thetaC[k] * resid[l - j];
        }
      } else {
        for (let k = 0; k < nT; k++) tmp -= thetaC[k] * resid[l - tIdx[k]];
      }
      resid[l] = tmp;
      ssq += tmp * tmp;
      nu++;
    }
    return { ssq, nu };
  }

  /** w − μ into xBuf, once per pass instead of once per AR lag and observation */
  private centred(w: Float64Array, mu: number): Float64Array {
    const x = this.xBuf;
    for (let t = 0; t < w.length; t++) x[t] = w[t] - mu;
    return x;
  }

  /** the non-zero structure of φ and θ (set by expand) as lag and coefficient arrays */
  private packedLags(): { pIdx: Int32Array; phiC: Float64Array; tIdx: Int32Array; thetaC: Float64Array } {
    const { phiIdx: pIdx, thetaIdx: tIdx, phiC, thetaC } = this;
    for (let k = 0; k < pIdx.length; k++) phiC[k] = this.phi[pIdx[k] - 1];
    for (let k = 0; k < tIdx.length; k++) thetaC[k] = this.theta[tIdx[k] - 1];
    return { pIdx, phiC, tIdx, thetaC };
  }

  /**
   * Gradient of the CSS objective ½·log(ssq/nu) with respect to (ar, ma, sar, sma[, μ]) in coefficient space, into
   * `out`; phi/theta must be expanded from `coef`. Reverse mode through the residual recursion
   * e_l = x_l − Σ_j φ_j x_{l−j} − Σ_j θ_j e_{l−j} (x = w − μ): one backward pass gives a_l = ∂(ssq/2)/∂e_l
   * = e_l − Σ_j θ_j a_{l+j}, then ∂(ssq/2)/∂φ_j = −Σ_l a_l x_{l−j}, ∂(ssq/2)/∂θ_j = −Σ_l a_l e_{l−j} and
   * ∂(ssq/2)/∂μ = (Σ_j φ_j − 1)·Σ_l a_l, carried to the coefficients through the multiplicative expansion
   * (∂φ_i/∂ar_i = 1, ∂φ_{km+i}/∂ar_i = −sar_k, …). About two residual passes whatever the number of parameters, where
   * differentiating forward costs one per parameter and central differences two. Returns false when not finite.
   * `residualsSsq`: this.resid already holds the residuals at these coefficients (css just ran on them) and this is
   * their sum of squares; BFGS asks for the gradient at the point it has just evaluated, so the pass is saved.
   */
  cssGradient(
    w: Float64Array,
    mu: number,
    ncond: number,
    coef: ArrayLike<number>,
    withMean: boolean,
    out: Float64Array,
    residualsSsq?: number,
  ): boolean {
    const { p, q, P, Q, m } = this.o;
    const n = w.length;
    const resid = this.resid;
    const ssq = residualsSsq ?? this.css(w, mu, ncond).ssq;
    if (!(ssq > 0)) return false;
    const x = this.centred(w, mu);
    const { pIdx, phiC, tIdx, thetaC } = this.packedLags();
    const nT = tIdx.length;
    const adj = this.adjBuf;
    let sumAdj = 0;
    for (let l = n - 1; l >= ncond; l--) {
      let v = resid[l];
      for (let t = 0; t < nT; t++) {
        const lj = l + tIdx[t];
        if (lj >= n) break;
        v -= thetaC[t] * adj[lj];
      }
      adj[l] = v;
      sumAdj += v;
    }
    // by lag: ∂(ssq/2)/∂φ_j and ∂(ssq/2)/∂θ_j (zero off the structural lags, which expand never sets)
    const gPhi = this.gPhi;
    const gTheta = this.gTheta;
    let sumPhi = 0;
    for (let t = 0; t < pIdx.length; t++) {
      const j = pIdx[t];
      let g = 0;
      for (let l = ncond; l < n; l++) g -= adj[l] * x[l - j];
      gPhi[j] = g;
      sumPhi += phiC[t];
    }
    for (let t = 0; t < nT; t++) {
      const j = tIdx[t];
      let g = 0;
      for (let l = ncond + j; l < n; l++) g -= adj[l] * resid[l - j];
      gTheta[j] = g;
    }
    let c = 0;
    for (let i = 1; i <= p; i++) {
      let g = gPhi[i];
      for (let kk = 1; kk <= P; kk++) g -= coef[p + q + kk - 1] * gPhi[kk * m + i];
      out[c++] = g;
    }
    for (let i = 1; i <= q; i++) {
      let g = gTheta[i];
      for (let kk = 1; kk <= Q; kk++) g += coef[p + q + P + kk - 1] * gTheta[kk * m + i];
      out[c++] = g;
    }
    for (let kk = 1; kk <= P; kk++) {
      let g = gPhi[kk * m];
      for (let i = 1; i <= p; i++) g -= coef[i - 1] * gPhi[kk * m + i];
      out[c++] = g;
    }
    for (let kk = 1; kk <= Q; kk++) {
      let g = gTheta[kk * m];
      for (let i = 1; i <= q; i++) g += coef[p + i - 1] * gTheta[kk * m + i];
      out[c++] = g;
    }
    if (withMean) out[c++] = (sumPhi - 1) * sumAdj;
    for (let i = 0; i < c; i++) {
      out[i] /= ssq;
      if (!Number.isFinite(out[i])) return false;
    }
    return true;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// BFGS: a port of R's vmmin with optim's numerical gradient (central differences, ndeps on the scaled parameters)

class OptimError extends Error {}

function vmmin(
  b: Float64Array,
  fn: (x: Float64Array) => number,
  maxit: number,
  reltol = 1.4901161193847656e-8,
  ndeps = 1e-3,
  gr?: (x: Float64Array, out: Float64Array) => void,
): { value: number; converged: boolean } {
  const n = b.length;
  const stepredn = 0.2;
  const acctol = 0.0001;
  const reltest = 10.0;
  const g = new Float64Array(n);
  const t = new Float64Array(n);
  const X = new Float64Array(n);
  const c = new Float64Array(n);
  const B = new Float64Array(n * n);
  const grad = gr ?? ((x: Float64Array, out: Float64Array) => {
    for (let i = 0; i < n; i++) {
      const xi = x[i];
      x[i] = xi + ndeps;
      const v1 = fn(x);
      x[i] = xi - ndeps;
      const v2 = fn(x);
      x[i] = xi;
      const d = (v1 - v2) / (2 * ndeps);
      if (!Number.isFinite(d)) throw new OptimError('non-finite finite-difference value');
      out[i] = d;
    }
  });
  let f = fn(b);
  if (!Number.isFinite(f)) throw new OptimError('initial value in vmmin is not finite');
  if (maxit <= 0 || n === 0) return { value: f, converged: true };
  let Fmin = f;
  let gradcount = 1;
  grad(b, g);
  let iter = 1;
  let ilast = gradcount;
  let count = 0;
  do {
    if (ilast === gradcount) {
      B.fill(0);
      for (let i = 0; i < n; i++) B[i * n + i] = 1;
    }
    for (let i = 0; i < n; i++) {
      X[i] = b[i];
      c[i] = g[i];
    }
    let gradproj = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j <= i; j++) s -= B[i * n + j] * g[j];
      for (let j = i + 1; j < n; j++) s -= B[j * n + i] * g[j];
      t[i] = s;
      gradproj += s * g[i];
    }
    if (gradproj < 0) {
      let steplength = 1.0;
      let accpoint = false;
      do {
        count = 0;
        for (let i = 0; i < n; i++) {
          b[i] = X[i] + steplength * t[i];
          if (reltest + X[i] === reltest + b[i]) count++;
        }
        if (count < n) {
          f = fn(b);
          accpoint = Number.isFinite(f) && f <= Fmin + gradproj * steplength * acctol;
          if (!accpoint) steplength *= stepredn;
        }
      } while (!(count === n || accpoint));
      const enough = Math.abs(f - Fmin) > reltol * (Math.abs(Fmin) + reltol);
      if (!enough) {
        count = n;
        Fmin = f;
      }
      if (count < n) {
        Fmin = f;
        grad(b, g);
        gradcount++;
        iter++;
        let D1 = 0;
        for (let i = 0; i < n; i++) {
          t[i] = steplength * t[i];
          c[i] = g[i] - c[i];
          D1 += t[i] * c[i];
        }
        if (D1 > 0) {
          let D2 = 0;
          for (let i = 0; i < n; i++) {
            let s = 0;
            for (let j = 0; j <= i; j++) s += B[i * n + j] * c[j];
            for (let j = i + 1; j < n; j++) s += B[j * n + i] * c[j];
            X[i] = s;
            D2 += s * c[i];
          }
          D2 = 1.0 + D2 / D1;
          for (let i = 0; i < n; i++)
            for (let j = 0; j <= i; j++) B[i * n + j] += (D2 * t[i] * t[j] - X[i] * t[j] - t[i] * X[j]) / D1;
        } else {
          ilast = gradcount;
        }
      } else if (ilast < gradcount) {
        count = 0;
        ilast = gradcount;
      }
    } else {
      count = 0;
      if (ilast === gradcount) count = n;
      else ilast = gradcount;
    }
    if (iter >= maxit) break;
    if (gradcount - ilast > 2 * n) ilast = gradcount;
  } while (count !== n || ilast !== gradcount);
  // as in R, b holds the last accepted point (or one indistinguishable from it at reltest precision)
  return { value: Fmin, converged: iter < maxit };
}

// ---------------------------------------------------------------------------------------------------------------
// fitting one model (R's stats::arima + forecast's myarima bookkeeping)

export type ArimaMethod = 'CSS-ML' | 'ML' | 'CSS';
export type InformationCriterion = 'aicc' | 'aic' | 'bic';

export interface FittedArima {
  o: Orders;
  constant: boolean;
  /** ar(p), ma(q), sar(P), sma(Q) in coefficient space, then μ (mean of the differenced series) if constant */
  coef: Float64Array;
  mu: number;
  /** R's unbiased residual variance SSR / (n* − npar + 1) */
  sigma2: number;
  /** stats::arima's sigma2 (SSR / n for ML, SSR / (n − ncond) for CSS) */
  sigma2ml: number;
  loglik: number;
  aic: number;
  aicc: number;
  bic: number;
  ic: number;
  method: ArimaMethod;
  converged: boolean;
  work: ArmaWork;
  /** differenced series the model was fitted to */
  w: Float64Array;
  /** whether work holds the Kalman pass of this model (innovations, filtered state and covariance at n) */
  stateReady: boolean;
}

/** Runs the Kalman filter once for the chosen model: innovations (fitted values) and the state at n (forecasts). */
function ensureState(fit: FittedArima): void {
  if (fit.stateReady) return;
  const work = fit.work;
  work.expand(fit.coef);
  if (!work.initialCovariance()) {
    // a CSS estimate outside the stationary region: start from a vague state
    work.P.fill(0);
    for (let i = 0; i < work.r; i++) work.P[i * work.r + i] = 1e6;
  }
  work.kalman(fit.w, fit.mu, true);
  fit.stateReady = true;
}

const LOG_2PI = Math.log(2 * Math.PI);

/**
 * The CSS optimisation's gradient: 'analytic' (default; ArmaWork.cssGradient, about half the objective evaluations)
 * or 'numeric' (R's optim: central differences with ndeps 1e-3, for comparisons with R). Exported for benchmarks.
 */
let cssGradientMode: 'analytic' | 'numeric' = 'analytic';
export function setCssGradient(mode: 'analytic' | 'numeric'): void {
  cssGradientMode = mode;
}

/**
 * Fits an ARMA with optional mean to the differenced series w (n = length of the undifferenced series). Returns null
 * when R's arima would throw (non-stationary AR part from CSS, non-finite finite-difference gradient, ...).
 */
function fitModel(
  w: Float64Array,
  o: Orders,
  constant: boolean,
  method: ArimaMethod,
  icName: InformationCriterion,
  offset: number,
  fixed?: ArrayLike<number>,
): FittedArima | null {
  const { p, q, P, Q, m } = o;
  const nArma = p + q + P + Q;
  const k = nArma + (constant ? 1 : 0);
  const nw = w.length;
  const ncond = p + P * m;
  if (nw - (method === 'CSS' ? ncond : 0) < 1) return null;
  const work = new ArmaWork(o, nw);
  const coef = new Float64Array(k);
  const parscale = new Float64Array(k).fill(1);
  if (constant) {
    coef[nArma] = meanOf(w);
    const se = Math.sqrt(varianceOf(w) / nw);
    parscale[nArma] = se > 0 && Number.isFinite(se) ? 10 * se : 1;
  }
  const par = new Float64Array(k);
  let converged = true;
  const x = new Float64Array(k);
  try {
    if (fixed) {
      for (let i = 0; i < k; i++) coef[i] = fixed[i];
    } else if (method === 'CSS' || method === 'CSS-ML') {
      // the point of the last objective evaluation, whose residuals are still in work.resid
      const lastZ = new Float64Array(k);
      let lastSsq: number | undefined;
      const cssFn = (z: Float64Array): number => {
        for (let i = 0; i < k; i++) par[i] = z[i] * parscale[i];
        work.expand(par);
        const res = work.css(w, constant ? par[nArma] : 0, ncond);
        lastZ.set(z);
        lastSsq = res.ssq;
        return 0.5 * Math.log(res.ssq / res.nu);
      };
      const g = new Float64Array(k);
      const cssGr = (z: Float64Array, out: Float64Array): void => {
        let same = lastSsq !== undefined;
        for (let i = 0; i < k && same; i++) same = z[i] === lastZ[i];
        for (let i = 0; i < k; i++) par[i] = z[i] * parscale[i];
        work.expand(par);
        if (!work.cssGradient(w, constant ? par[nArma] : 0, ncond, par, constant, g, same ? lastSsq : undefined))
          throw new OptimError('non-finite CSS gradient');
        for (let i = 0; i < k; i++) out[i] = g[i] * parscale[i];
      };
      for (let i = 0; i < k; i++) x[i] = coef[i] / parscale[i];
      const res = vmmin(x, cssFn, 100, undefined, undefined, cssGradientMode === 'analytic' ? cssGr : undefined);
      converged = res.converged;
      if (res.converged || method === 'CSS') for (let i = 0; i < k; i++) coef[i] = x[i] * parscale[i];
      if (method === 'CSS-ML') {
        if (!arStationary(coef, 0, p)) return null;
        if (!arStationary(coef, p + q, P)) return null;
      }
    }
    if (!fixed && (method === 'ML' || method === 'CSS-ML')) {
      // to the transformed space (R: ARIMA_Invtrans, maInvert)
      const raw = Float64Array.from(coef);
      if (p > 0) {
        const pac = new Float64Array(p);
        if (!arToPacf(coef, 0, p, pac)) return null;
        for (let i = 0; i < p; i++) raw[i] = Math.atanh(pac[i]);
      }
      if (P > 0) {
        const pac = new Float64Array(P);
        if (!arToPacf(coef, p + q, P, pac)) return null;
        for (let i = 0; i < P; i++) raw[p + q + i] = Math.atanh(pac[i]);
      }
      if (q > 0) raw.set(maInvert(raw.slice(p, p + q)), p);
      if (Q > 0) raw.set(maInvert(raw.slice(p + q + P, p + q + P + Q)), p + q + P);
      const mlFn = (z: Float64Array): number => {
        for (let i = 0; i < k; i++) par[i] = z[i] * parscale[i];
        const tr = work.transform(par, nArma);
        work.expand(tr);
        const res = work.likelihood(w, constant ? par[nArma] : 0);
        if (!Number.isFinite(res.ssq) || !(res.ssq > 0)) return Number.MAX_VALUE;
        return 0.5 * (Math.log(res.ssq / nw) + res.sumlog / nw);
      };
      for (let i = 0; i < k; i++) x[i] = raw[i] / parscale[i];
      const res = vmmin(x, mlFn, 100);
      converged = res.converged;
      for (let i = 0; i < k; i++) raw[i] = x[i] * parscale[i];
      if (q > 0) raw.set(maInvert(raw.slice(p, p + q)), p);
      if (Q > 0) raw.set(maInvert(raw.slice(p + q + P, p + q + P + Q)), p + q + P);
      const tr = work.transform(raw, nArma);
      for (let i = 0; i < nArma; i++) coef[i] = tr[i];
      if (constant) coef[nArma] = raw[nArma];
    }
  } catch (e) {
    if (e instanceof OptimError) return null;
    throw e;
  }
  const mu = constant ? coef[nArma] : 0;
  work.expand(coef);
  const npar = k + 1;
  const nstar = nw;
  let loglik: number;
  let aic: number;
  let ssqResid: number;
  let sigma2ml: number;
  // residuals behind ssqResid: CSS conditions on the first p + Pm values
  let used = nw;
  if (method === 'CSS' && !fixed) {
    const res = work.css(w, mu, ncond);
    const s2 = res.ssq / res.nu;
    ssqResid = res.ssq;
    used = res.nu;
    sigma2ml = s2;
    loglik = -0.5 * (nw * Math.log(s2) + nw + nw * LOG_2PI);
    aic = offset + nstar * Math.log(s2) + 2 * npar;
  } else {
    const res = work.likelihood(w, mu);
    // a perfect fit (ssq = 0) is only legitimate with fixed coefficients (deterministic series)
    if (!Number.isFinite(res.ssq) || (!(res.ssq > 0) && !fixed)) return null;
    ssqResid = res.ssq;
    sigma2ml = res.ssq / nw;
    loglik = -0.5 * (nw * Math.log(res.ssq / nw) + res.sumlog + nw + nw * LOG_2PI);
    aic = -2 * loglik + 2 * npar;
  }
  const denom = nstar - npar - 1;
  const aicc = denom > 0 ? aic + (2 * npar * (npar + 1)) / denom : Infinity;
  const bic = aic + npar * (Math.log(nstar) - 2);
  let ic = icName === 'aic' ? aic : icName === 'bic' ? bic : aicc;
  if (!Number.isFinite(ic)) ic = Infinity;
  // forecast::myarima rejects near-unit roots
  let minroot = 2;
  if (p + P > 0) {
    minroot = Math.min(minroot, minRootModulus(coef.subarray(0, p), -1));
    minroot = Math.min(minroot, Math.pow(minRootModulus(coef.subarray(p + q, p + q + P), -1), 1 / m));
  }
  if (q + Q > 0 && ic < Infinity) {
    minroot = Math.min(minroot, minRootModulus(coef.subarray(p, p + q), 1));
    minroot = Math.min(minroot, Math.pow(minRootModulus(coef.subarray(p + q + P, p + q + P + Q), 1), 1 / m));
  }
  if (minroot < 1 + 1e-2) ic = Infinity;
  // myarima divides by n* − npar + 1 for every method; for a CSS fit that counts the ncond conditioning values, which
  // have no residual, and understates σ² (by a third for a seasonal AR at m = 52 on 156 weeks), so those are left out
  const sigma2 = used - npar + 1 > 0 ? ssqResid / (used - npar + 1) : ssqResid / Math.max(used, 1);
  return { stateReady: false, o, constant, coef, mu, sigma2, sigma2ml, loglik, aic, aicc, bic, ic, method, converged, work, w };
}

// ---------------------------------------------------------------------------------------------------------------
// forecasting from the state-space model

interface ArimaForecast {
  mean: Float64Array;
  se: Float64Array;
}

function forecastModel(fit: FittedArima, y: Float64Array, h: number): ArimaForecast {
  ensureState(fit);
  const { work, mu, sigma2 } = fit;
  const { d, D, m } = fit.o;
  const r = work.r;
  const phiR = work.phiR;
  const Rv = work.Rv;
  const delta = differencingPolynomial(d, D, m);
  const nd = delta.length;
  const n = y.length;
  const mean = new Float64Array(h);
  const se = new Float64Array(h);
  // point forecasts: propagate the filtered ARMA state, integrate
  const a = Float64Array.from(work.af);
  const ext = new Float64Array(n + h);
  ext.set(y);
  for (let j = 0; j < h; j++) {
    const a0 = a[0];
    for (let i = 0; i < r - 1; i++) a[i] = phiR[i] * a0 + a[i + 1];
    a[r - 1] = phiR[r - 1] * a0;
    let s = mu + a[0];
    for (let kk = 0; kk < nd; kk++) if (delta[kk] !== 0) s += delta[kk] * ext[n + j - kk - 1];
    ext[n + j] = s;
    mean[j] = s;
  }
  // variances: augmented state (α, y_{t-1..t-nd}) with transition F, covariance C_0 = blockdiag(P_{n|n}, 0) and
  // noise G = (R, 0). With the row vectors u_j = H F^j, Var(y_{n+j+1}) / σ² = u_{j+1} C_0 u_{j+1}' + Σ_{i≤j} (u_i G)²,
  // which needs O(K) per step for u and O(r²) for the quadratic form, where propagating C costs O(K²) per step.
  const K = r + nd;
  // sparse rows of F: row i maps to columns cols[i] with values vals[i]
  const rowsC: Int32Array[] = [];
  const rowsV: Float64Array[] = [];
  for (let i = 0; i < r; i++) {
    rowsC.push(i + 1 < r ? Int32Array.of(0, i + 1) : Int32Array.of(0));
    rowsV.push(i + 1 < r ? Float64Array.of(phiR[i], 1) : Float64Array.of(phiR[i]));
  }
  if (nd > 0) {
    const cols = [0];
    const vals = [1];
    for (let kk = 0; kk < nd; kk++)
      if (delta[kk] !== 0) {
        cols.push(r + kk);
        vals.push(delta[kk]);
      }
    rowsC.push(Int32Array.from(cols));
    rowsV.push(Float64Array.from(vals));
    for (let kk = 1; kk < nd; kk++) {
      rowsC.push(Int32Array.of(r + kk - 1));
      rowsV.push(Float64Array.of(1));
    }
  }
  const Pf = work.Pf;
  let withState = false;
  for (let i = 0; i < r * r && !withState; i++) if (Pf[i] !== 0) withState = true;
  // u_0 = H = (1, 0.., 0 | δ)
  let u = new Float64Array(K);
  let next = new Float64Array(K);
  u[0] = 1;
  for (let kk = 0; kk < nd; kk++) u[r + kk] = delta[kk];
  let noise = 0;
  for (let j = 0; j < h; j++) {
    let ug = 0;
    for (let i = 0; i < r; i++) ug += u[i] * Rv[i];
    noise += ug * ug;
    next.fill(0);
    for (let i = 0; i < K; i++) {
      const ui = u[i];
      if (ui === 0) continue;
      const cols = rowsC[i];
      const vals = rowsV[i];
      for (let t = 0; t < cols.length; t++) next[cols[t]] += ui * vals[t];
    }
    const swap = u;
    u = next;
    next = swap;
    let start = 0;
    if (withState) {
      for (let i = 0; i < r; i++) {
        const ui = u[i];
        if (ui === 0) continue;
        const row = i * r;
        let s = 0;
        for (let l = 0; l < r; l++) s += Pf[row + l] * u[l];
        start += ui * s;
      }
    }
    se[j] = Math.sqrt(Math.max(0, (noise + start) * sigma2));
  }
  return { mean, se };
}

// ---------------------------------------------------------------------------------------------------------------
// unit-root and seasonality tests

/** KPSS level-stationarity statistic with R forecast's lag choice trunc(3√n/13) (urca::ur.kpss, type "mu"). */
export function kpssStatistic(x: Float64Array): number {
  const n = x.length;
  const mu = meanOf(x);
  const e = new Float64Array(n);
  for (let i = 0; i < n; i++) e[i] = x[i] - mu;
  let S = 0;
  let num = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    S += e[i];
    num += S * S;
    s2 += e[i] * e[i];
  }
  num /= n * n;
  s2 /= n;
  const lmax = Math.trunc((3 * Math.sqrt(n)) / 13);
  let out = 0;
  for (let l = 1; l <= lmax; l++) {
    let c = 0;
    for (let t = l; t < n; t++) c += e[t] * e[t - l];
    out += (1 - l / (lmax + 1)) * c;
  }
  const den = s2 + (2 / n) * out;
  return num / den;
}

/** forecast::ndiffs(test = "kpss", alpha = 0.05): difference while the KPSS p-value < 0.05 (statistic > 0.463). */
export function ndiffs(x: Float64Array, maxD = 2): number {
  let d = 0;
  if (isConstant(x)) return d;
  let dodiff = kpssStatistic(x) > 0.463;
  let cur = x;
  while (dodiff && d < maxD) {
    d++;
    cur = diffSeries(cur, 1);
    if (cur.length < 3 || isConstant(cur)) return d;
    dodiff = kpssStatistic(cur) > 0.463;
  }
  return d;
}

// STL (Cleveland et al. 1990), a port of R's stl Fortran for the non-robust case (inner = 2, outer = 0).

function stlest(
  y: Float64Array,
  n: number,
  len: number,
  ideg: number,
  xs: number,
  nleft: number,
  nright: number,
  w: Float64Array,
): number {
  const range = n - 1;
  let h = Math.max(xs - nleft, nright - xs);
  if (len > n) h += Math.floor((len - n) / 2);
  const h9 = 0.999 * h;
  const h1 = 0.001 * h;
  let a = 0;
  for (let j = nleft; j <= nright; j++) {
    w[j - 1] = 0;
    const r = Math.abs(j - xs);
    if (r <= h9) {
      if (r <= h1) w[j - 1] = 1;
      else {
        const u = r / h;
        const v = 1 - u * u * u;
        w[j - 1] = v * v * v;
      }
      a += w[j - 1];
    }
  }
  if (a <= 0) return NaN;
  for (let j = nleft; j <= nright; j++) w[j - 1] /= a;
  if (h > 0 && ideg > 0) {
    a = 0;
    for (let j = nleft; j <= nright; j++) a += w[j - 1] * j;
    let b = xs - a;
    let c = 0;
    for (let j = nleft; j <= nright; j++) c += w[j - 1] * (j - a) * (j - a);
    if (Math.sqrt(c) > 0.001 * range) {
      b /= c;
      for (let j = nleft; j <= nright; j++) w[j - 1] = w[j - 1] * (b * (j - a) + 1);
    }
  }
  let ys = 0;
  for (let j = nleft; j <= nright; j++) ys += w[j - 1] * y[j - 1];
  return ys;
}

/** Loess smooth of y[0..n-1] into ys[off .. off+n-1]. */
function stless(
  y: Float64Array,
  n: number,
  len: number,
  ideg: number,
  njump: number,
  ys: Float64Array,
  off: number,
  w: Float64Array,
): void {
  if (n < 2) {
    ys[off] = y[0];
    return;
  }
  const newnj = Math.min(njump, n - 1);
  let nleft = 1;
  let nright = n;
  const est = (i: number) => {
    const v = stlest(y, n, len, ideg, i, nleft, nright, w);
    ys[off + i - 1] = Number.isNaN(v) ? y[i - 1] : v;
  };
  if (len >= n) {
    nleft = 1;
    nright = n;
    for (let i = 1; i <= n; i += newnj) est(i);
  } else if (newnj === 1) {
    const nsh = Math.floor((len + 1) / 2);
    nleft = 1;
    nright = len;
    for (let i = 1; i <= n; i++) {
      if (i > nsh && nright !== n) {
        nleft++;
        nright++;
      }
      est(i);
    }
  } else {
    const nsh = Math.floor((len + 1) / 2);
    for (let i = 1; i <= n; i += newnj) {
      if (i < nsh) {
        nleft = 1;
        nright = len;
      } else if (i >= n - nsh + 1) {
        nleft = n - len + 1;
        nright = n;
      } else {
        nleft = i - nsh + 1;
        nright = len + i - nsh;
      }
      est(i);
    }
  }
  if (newnj !== 1) {
    for (let i = 1; i <= n - newnj; i += newnj) {
      const delta = (ys[off + i + newnj - 1] - ys[off + i - 1]) / newnj;
      for (let j = i + 1; j <= i + newnj - 1; j++) ys[off + j - 1] = ys[off + i - 1] + delta * (j - i);
    }
    const k = Math.floor((n - 1) / newnj) * newnj + 1;
    if (k !== n) {
      est(n);
      if (k !== n - 1) {
        const delta = (ys[off + n - 1] - ys[off + k - 1]) / (n - k);
        for (let j = k + 1; j <= n - 1; j++) ys[off + j - 1] = ys[off + k - 1] + delta * (j - k);
      }
    }
  }
}

function stlma(x: Float64Array, n: number, len: number, ave: Float64Array): void {
  const newn = n - len + 1;
  let v = 0;
  for (let i = 0; i < len; i++) v += x[i];
  ave[0] = v / len;
  for (let j = 1; j < newn; j++) {
    v = v - x[j - 1] + x[len + j - 1];
    ave[j] = v / len;
  }
}

/** STL seasonal and trend components (s.degree 0, t.degree 1, l.degree 1, R's default windows and jumps). */
export function stl(x: Float64Array, np: number, sWindow = 11): { seasonal: Float64Array; trend: Float64Array } {
  const n = x.length;
  const nextodd = (v: number) => {
    let r = Math.round(v);
    if (r % 2 === 0) r++;
    return r;
  };
  const ns = Math.max(3, nextodd(sWindow));
  const nt = Math.max(3, nextodd(Math.ceil((1.5 * np) / (1 - 1.5 / ns))));
  const nl = Math.max(3, nextodd(np));
  const nsjump = Math.ceil(ns / 10);
  const ntjump = Math.ceil(nt / 10);
  const nljump = Math.ceil(nl / 10);
  const trend = new Float64Array(n);
  const season = new Float64Array(n);
  const w1 = new Float64Array(n + 2 * np);
  const w2 = new Float64Array(n + 2 * np);
  const w3 = new Float64Array(n + 2 * np);
  const wts = new Float64Array(n + 2 * np);
  const sub = new Float64Array(Math.ceil(n / np) + 3);
  const subOut = new Float64Array(Math.ceil(n / np) + 3);
  for (let iter = 0; iter < 2; iter++) {
    for (let i = 0; i < n; i++) w1[i] = x[i] - trend[i];
    // cycle-subseries smoothing into w2 (length n + 2np)
    for (let j = 1; j <= np; j++) {
      const k = Math.floor((n - j) / np) + 1;
      for (let i = 1; i <= k; i++) sub[i - 1] = w1[(i - 1) * np + j - 1];
      stless(sub, k, ns, 0, nsjump, subOut, 1, wts);
      const nright = Math.min(ns, k);
      let v = stlest(sub, k, ns, 0, 0, 1, nright, wts);
      subOut[0] = Number.isNaN(v) ? subOut[1] : v;
      const nleft = Math.max(1, k - ns + 1);
      v = stlest(sub, k, ns, 0, k + 1, nleft, k, wts);
      subOut[k + 1] = Number.isNaN(v) ? subOut[k] : v;
      for (let mm = 1; mm <= k + 2; mm++) w2[(mm - 1) * np + j - 1] = subOut[mm - 1];
    }
    // low-pass filter of the cycle-subseries into w3 (length n), then loess into w1
    stlma(w2, n + 2 * np, np, w3);
    stlma(w3, n + np + 1, np, w1);
    stlma(w1, n + 2, 3, w3);
    stless(w3, n, nl, 1, nljump, w1, 0, wts);
    for (let i = 0; i < n; i++) season[i] = w2[np + i] - w1[i];
    for (let i = 0; i < n; i++) w1[i] = x[i] - season[i];
    stless(w1, n, nt, 1, ntjump, trend, 0, wts);
  }
  return { seasonal: season, trend };
}

/** forecast's seas.heuristic: seasonal strength from an STL decomposition (mstl with s.window = 11). */
export function seasonalStrength(x: Float64Array, m: number): number {
  if (m <= 1 || !(m < x.length / 2)) return 0;
  const { seasonal, trend } = stl(x, m, 11);
  const n = x.length;
  const rem = new Float64Array(n);
  const rs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    rem[i] = x[i] - seasonal[i] - trend[i];
    rs[i] = rem[i] + seasonal[i];
  }
  const vr = varianceOf(rs);
  if (!(vr > 0)) return 0;
  return Math.max(0, Math.min(1, 1 - varianceOf(rem) / vr));
}

/** forecast::nsdiffs(test = "seas", max.D = 1). */
export function nsdiffs(x: Float64Array, m: number, threshold = 0.64): number {
  if (m <= 1 || isConstant(x) || x.length <= 2 * m) return 0;
  return seasonalStrength(x, m) > threshold ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// public API

export interface ArimaSpec {
  /** (p, d, q) */
  order: [number, number, number];
  /** (P, D, Q); ignored when period <= 1 */
  seasonal?: [number, number, number];
  period?: number;
  /** forecast::Arima's include.constant: mean when d + D = 0, drift when d + D = 1, ignored otherwise. Default: mean when d + D = 0, no drift. */
  includeConstant?: boolean;
  /** interval coverage, default 0.9 */
  level?: number;
  method?: ArimaMethod;
  /** fixed coefficients [ar.., ma.., sar.., sma.., constant] instead of estimates (R's `fixed`, all of them) */
  fixed?: ArrayLike<number>;
}

function describe(fit: FittedArima): Record<string, number | string | boolean> {
  const { p, d, q, P, D, Q, m } = fit.o;
  const out: Record<string, number | string | boolean> = { p, d, q, P, D, Q, m };
  let i = 0;
  for (let j = 1; j <= p; j++) out[`ar${j}`] = fit.coef[i++];
  for (let j = 1; j <= q; j++) out[`ma${j}`] = fit.coef[i++];
  for (let j = 1; j <= P; j++) out[`sar${j}`] = fit.coef[i++];
  for (let j = 1; j <= Q; j++) out[`sma${j}`] = fit.coef[i++];
  const nd = d + D;
  out.constant = fit.constant;
  if (fit.constant) {
    if (nd === 0) out.mean = fit.mu;
    else out.drift = D === 1 ? fit.mu / m : fit.mu;
  }
  out.sigma2 = fit.sigma2;
  out.loglik = fit.loglik;
  out.method = fit.method;
  const seas = P + D + Q > 0 && m > 1 ? `(${P},${D},${Q})[${m}]` : '';
  const what = fit.constant ? (nd === 0 ? ' with non-zero mean' : ' with drift') : nd === 0 ? ' with zero mean' : '';
  out.model = `ARIMA(${p},${d},${q})${seas}${what}`;
  return out;
}

function buildResult(
  method: string,
  fit: FittedArima,
  y: Float64Array,
  h: number,
  level: number,
  extra: Record<string, number | string | boolean> = {},
): ForecastResult {
  const fc = forecastModel(fit, y, h);
  const z = normalQuantile(0.5 + level / 2);
  const lower = new Float64Array(h);
  const upper = new Float64Array(h);
  for (let j = 0; j < h; j++) {
    lower[j] = fc.mean[j] - z * fc.se[j];
    upper[j] = fc.mean[j] + z * fc.se[j];
  }
  const n = y.length;
  const nd = n - fit.w.length;
  const fitted = new Float64Array(n).fill(NaN);
  for (let t = nd; t < n; t++) fitted[t] = y[t] - fit.work.resid[t - nd];
  return {
    method,
    mean: fc.mean,
    lower,
    upper,
    fitted,
    params: { ...describe(fit), ...extra },
    aic: fit.aic,
    aicc: fit.aicc,
    bic: fit.bic,
  };
}

/** Forecast with a fixed-order (seasonal) ARIMA, estimated as forecast::Arima (CSS-ML by default). */
export function arima(yIn: ArrayLike<number>, h: number, spec: ArimaSpec): ForecastResult {
  const y = cleanSeries(yIn);
  const m = spec.period && spec.period > 1 ? Math.round(spec.period) : 1;
  const [p, d, q] = spec.order;
  const [P, D, Q] = m > 1 && spec.seasonal ? spec.seasonal : [0, 0, 0];
  const o: Orders = { p, d, q, P, D, Q, m: m > 1 ? m : 1 };
  const nd = d + D;
  const constant = nd <= 1 && (spec.includeConstant ?? nd === 0);
  const w = applyDifferencing(y, d, D, o.m);
  const method = spec.method ?? 'CSS-ML';
  const fit = fitModel(w, o, constant, method, 'aicc', 0, spec.fixed);
  if (!fit) throw new Error(`ARIMA(${p},${d},${q})(${P},${D},${Q})[${o.m}] could not be estimated`);
  return buildResult('arima', fit, y, h, spec.level ?? 0.9);
}

export interface AutoArimaSettings {
  maxP: number;
  maxQ: number;
  maxSP: number;
  maxSQ: number;
  maxD: number;
  maxSD: number;
  /** cap on P + Q for periods above 12 (our deviation from R; R has none) */
  maxSeasonalTermsLong: number;
  ic: InformationCriterion;
  /** estimation of the final model when m > 12 and it has seasonal ARMA terms (our deviation, default CSS; R: CSS-ML) */
  longSeasonalMethod: ArimaMethod;
  stepwise: boolean;
  approximation: boolean | undefined;
  method: ArimaMethod | undefined;
  allowDrift: boolean;
  allowMean: boolean;
  seasonalThreshold: number;
  nmodels: number;
  maxOrder: number;
}

const DEFAULTS: AutoArimaSettings = {
  maxP: 5,
  maxQ: 5,
  maxSP: 2,
  maxSQ: 2,
  maxD: 2,
  maxSD: 1,
  maxSeasonalTermsLong: 1,
  ic: 'aicc',
  longSeasonalMethod: 'CSS',
  stepwise: true,
  approximation: undefined,
  method: undefined,
  allowDrift: true,
  allowMean: true,
  seasonalThreshold: 0.64,
  nmodels: 94,
  maxOrder: 5,
};

function settingsFrom(params: Record<string, number | string | boolean> | undefined): AutoArimaSettings {
  const s: AutoArimaSettings = { ...DEFAULTS };
  if (!params) return s;
  const num = (k: string): number | undefined => (typeof params[k] === 'number' ? (params[k] as number) : undefined);
  const bool = (k: string): boolean | undefined => (typeof params[k] === 'boolean' ? (params[k] as boolean) : undefined);
  s.maxP = num('maxP') ?? num('max_p') ?? s.maxP;
  s.maxQ = num('maxQ') ?? num('max_q') ?? s.maxQ;
  s.maxSP = num('maxSP') ?? num('max_P') ?? s.maxSP;
  s.maxSQ = num('maxSQ') ?? num('max_Q') ?? s.maxSQ;
  s.maxD = num('maxD') ?? num('max_d') ?? s.maxD;
  s.maxSD = num('maxSD') ?? num('max_D') ?? s.maxSD;
  s.maxSeasonalTermsLong = num('maxSeasonalTermsLong') ?? s.maxSeasonalTermsLong;
  const ic = params.ic;
  if (ic === 'aic' || ic === 'aicc' || ic === 'bic') s.ic = ic;
  s.stepwise = bool('stepwise') ?? s.stepwise;
  const lsm = params.longSeasonalMethod ?? params.long_seasonal_method;
  if (lsm === 'CSS' || lsm === 'ML' || lsm === 'CSS-ML') s.longSeasonalMethod = lsm;
  s.approximation = bool('approximation') ?? s.approximation;
  const meth = params.method;
  if (meth === 'CSS' || meth === 'ML' || meth === 'CSS-ML') s.method = meth;
  s.allowDrift = bool('allowDrift') ?? s.allowDrift;
  s.allowMean = bool('allowMean') ?? s.allowMean;
  s.seasonalThreshold = num('seasonalThreshold') ?? s.seasonalThreshold;
  s.nmodels = num('nmodels') ?? s.nmodels;
  s.maxOrder = num('maxOrder') ?? s.maxOrder;
  return s;
}

export interface AutoFit {
  fit: FittedArima | null;
  /** constant-series shortcut: forecast this value with zero variance */
  constantValue?: number;
  d: number;
  D: number;
  m: number;
  models: number;
}

/** The model selection of forecast::auto.arima (stepwise by default). Exported for tests and diagnostics. */
export function autoArimaSelect(yIn: ArrayLike<number>, period: number, params?: Record<string, number | string | boolean>): AutoFit {
  const s = settingsFrom(params);
  const x = cleanSeries(yIn);
  const n = x.length;
  let m = period > 1 ? Math.round(period) : 1;
  if (n === 0) return { fit: null, constantValue: 0, d: 0, D: 0, m, models: 0 };
  if (isConstant(x)) return { fit: null, constantValue: x[0], d: 0, D: 0, m, models: 0 };
  let ic = s.ic;
  if (n <= 3) ic = 'aic';
  let maxp = Math.min(s.maxP, Math.floor(n / 3));
  let maxq = Math.min(s.maxQ, Math.floor(n / 3));
  let maxP = Math.min(s.maxSP, Math.floor(n / 3 / m));
  let maxQ = Math.min(s.maxSQ, Math.floor(n / 3 / m));
  let D: number;
  if (m === 1) {
    D = 0;
    maxP = maxQ = 0;
  } else if (n <= 2 * m) D = 0;
  else D = s.maxSD > 0 ? nsdiffs(x, m, s.seasonalThreshold) : 0;
  let dx = D > 0 ? diffSeries(x, m) : x;
  const d = dx.length > 2 ? ndiffs(dx, s.maxD) : 0;
  for (let i = 0; i < d; i++) dx = diffSeries(dx, 1);
  if (dx.length === 0) return { fit: null, constantValue: x[n - 1], d, D, m, models: 0 };
  if (isConstant(dx)) {
    // the data follow a deterministic pattern: ARIMA(0,d,0)(0,D,0) with the constant fixed at the mean of dx
    const o: Orders = { p: 0, d, q: 0, P: 0, D, Q: 0, m };
    const constant = d + D <= 1;
    const fit = fitModel(dx, o, constant, 'ML', ic, 0, constant ? [meanOf(dx)] : []);
    return { fit, d, D, m, models: 1 };
  }
  if (m > 1) {
    if (maxP > 0) maxp = Math.min(maxp, m - 1);
    if (maxQ > 0) maxq = Math.min(maxq, m - 1);
  }
  const seasCap = m > 12 ? s.maxSeasonalTermsLong : Infinity;
  const approximation = s.approximation ?? (n > 150 || m > 12);
  const finalMethod: ArimaMethod = s.method ?? 'CSS-ML';
  const searchMethod: ArimaMethod = approximation ? 'CSS' : finalMethod;
  let offset = 0;
  if (approximation) {
    const w0 = dx;
    const o: Orders = { p: 1, d, q: 0, P: 0, D, Q: 0, m };
    const f0 = fitModel(w0, o, d + D === 0, 'CSS-ML', ic, 0);
    if (f0) offset = -2 * f0.loglik - n * Math.log(f0.sigma2ml);
  }
  const allowdrift = s.allowDrift && d + D === 1;
  const allowmean = s.allowMean && d + D === 0;
  let constant = allowdrift || allowmean;

  const cache = new Map<string, FittedArima | null>();
  let k = 0;
  const key = (p: number, q: number, P: number, Q: number, c: boolean) => `${p},${q},${P},${Q},${c ? 1 : 0}`;
  const fitOne = (p: number, q: number, P: number, Q: number, c: boolean): FittedArima | null => {
    const kk = key(p, q, P, Q, c);
    if (cache.has(kk)) return cache.get(kk)!;
    const f = fitModel(dx, { p, d, q, P, D, Q, m }, c, searchMethod, ic, offset);
    cache.set(kk, f);
    k++;
    return f;
  };
  const icOf = (f: FittedArima | null) => (f ? f.ic : Infinity);
  const allowedSeasonal = (P: number, Q: number) => P + Q <= seasCap;

  let best: FittedArima | null = null;
  let bestIc = Infinity;
  if (!s.stepwise) {
    for (let i = 0; i <= maxp; i++)
      for (let j = 0; j <= maxq; j++)
        for (let I = 0; I <= maxP; I++)
          for (let J = 0; J <= maxQ; J++) {
            if (i + j + I + J > s.maxOrder || !allowedSeasonal(I, J)) continue;
            for (const c of constant ? [false, true] : [false]) {
              const f = fitOne(i, j, I, J, c);
              if (icOf(f) < bestIc) {
                best = f;
                bestIc = icOf(f);
              }
            }
          }
  } else {
    let p = Math.min(n < 10 ? 1 : 2, maxp);
    let q = Math.min(n < 10 ? 1 : 2, maxq);
    let P = Math.min(1, maxP);
    let Q = Math.min(1, maxQ);
    if (!allowedSeasonal(P, Q)) Q = 0;
    const consider = (pp: number, qq: number, PP: number, QQ: number, c: boolean): boolean => {
      if (!allowedSeasonal(PP, QQ)) return false;
      if (cache.has(key(pp, qq, PP, QQ, c))) return false;
      if (k >= s.nmodels) return false;
      const f = fitOne(pp, qq, PP, QQ, c);
      if (icOf(f) < bestIc) {
        best = f;
        bestIc = icOf(f);
        return true;
      }
      return false;
    };
    best = fitOne(p, q, P, Q, constant);
    bestIc = icOf(best);
    if (consider(0, 0, 0, 0, constant)) p = q = P = Q = 0;
    if (maxp > 0 || maxP > 0) {
      const pp = maxp > 0 ? 1 : 0;
      const PP = m > 1 && maxP > 0 ? 1 : 0;
      if (consider(pp, 0, PP, 0, constant)) {
        p = pp;
        P = PP;
        q = Q = 0;
      }
    }
    if (maxq > 0 || maxQ > 0) {
      const qq = maxq > 0 ? 1 : 0;
      const QQ = m > 1 && maxQ > 0 ? 1 : 0;
      if (consider(0, qq, 0, QQ, constant)) {
        p = P = 0;
        q = qq;
        Q = QQ;
      }
    }
    if (constant && consider(0, 0, 0, 0, false)) p = q = P = Q = 0;
    let startk = -1;
    while (startk < k && k < s.nmodels) {
      startk = k;
      if (P > 0 && consider(p, q, P - 1, Q, constant)) { P--; continue; }
      if (Q > 0 && consider(p, q, P, Q - 1, constant)) { Q--; continue; }
      if (P < maxP && consider(p, q, P + 1, Q, constant)) { P++; continue; }
      if (Q < maxQ && consider(p, q, P, Q + 1, constant)) { Q++; continue; }
      if (Q > 0 && P > 0 && consider(p, q, P - 1, Q - 1, constant)) { P--; Q--; continue; }
      if (Q < maxQ && P > 0 && consider(p, q, P - 1, Q + 1, constant)) { P--; Q++; continue; }
      if (Q > 0 && P < maxP && consider(p, q, P + 1, Q - 1, constant)) { P++; Q--; continue; }
      if (Q < maxQ && P < maxP && consider(p, q, P + 1, Q + 1, constant)) { P++; Q++; continue; }
      if (p > 0 && consider(p - 1, q, P, Q, constant)) { p--; continue; }
      if (q > 0 && consider(p, q - 1, P, Q, constant)) { q--; continue; }
      if (p < maxp && consider(p + 1, q, P, Q, constant)) { p++; continue; }
      if (q < maxq && consider(p, q + 1, P, Q, constant)) { q++; continue; }
      if (q > 0 && p > 0 && consider(p - 1, q - 1, P, Q, constant)) { p--; q--; continue; }
      if (q < maxq && p > 0 && consider(p - 1, q + 1, P, Q, constant)) { p--; q++; continue; }
      if (q > 0 && p < maxp && consider(p + 1, q - 1, P, Q, constant)) { p++; q--; continue; }
      if (q < maxq && p < maxp && consider(p + 1, q + 1, P, Q, constant)) { p++; q++; continue; }
      if ((allowdrift || allowmean) && consider(p, q, P, Q, !constant)) { constant = !constant; continue; }
    }
  }
  const models = k;
  if (approximation && searchMethod !== finalMethod) {
    // refit the chosen model by maximum likelihood; if that fails, go down the CSS ranking
    const ranked = [...cache.values()].filter((f): f is FittedArima => !!f && f.ic < Infinity).sort((a, b) => a.ic - b.ic);
    best = null;
    for (const cand of ranked) {
      // long seasonal periods: settings.longSeasonalMethod (default 'CSS' keeps the search estimates; see the module
      // comment)
      const longSeasonal = m > 12 && cand.o.P + cand.o.Q > 0;
      const method = longSeasonal ? s.longSeasonalMethod : finalMethod;
      if (method === 'CSS') {
        best = cand;
        break;
      }
      const f = fitModel(dx, cand.o, cand.constant, method, ic, 0);
      if (f && f.ic < Infinity) {
        best = f;
        break;
      }
    }
  }
  if (!best || !(best as FittedArima).ic || (best as FittedArima).ic === Infinity) {
    // R errors out ("No suitable ARIMA model found"); we fall back to ARIMA(0,d,0)(0,D,0) with drift if allowed
    const o: Orders = { p: 0, d, q: 0, P: 0, D, Q: 0, m };
    best = fitModel(dx, o, d + D <= 1, 'ML', ic, 0) ?? fitModel(dx, o, false, 'ML', ic, 0);
  }
  return { fit: best, d, D, m, models };
}

function constantResult(value: number, n: number, h: number, method: string): ForecastResult {
  const mean = new Float64Array(h).fill(value);
  return {
    method,
    mean,
    lower: Float64Array.from(mean),
    upper: Float64Array.from(mean),
    fitted: new Float64Array(n).fill(value),
    params: { model: 'constant', mean: value, sigma2: 0 },
  };
}

/** Parses "p,d,q" (three non-negative integers), undefined otherwise. */
function orderTriple(v: unknown): [number, number, number] | undefined {
  if (typeof v !== 'string') return undefined;
  const parts = v.split(',').map((x) => Number(x.trim()));
  return parts.length === 3 && parts.every((x) => Number.isInteger(x) && x >= 0 && x <= 60) ? (parts as [number, number, number]) : undefined;
}

/**
 * The params that pin the specification of an automatic ARIMA fit (its orders and constant) so that a refit on more
 * data re-estimates the coefficients without searching again: what the backtest reuses at later origins.
 */
export function arimaSpecification(fitParams: ForecastResult['params']): Record<string, string | boolean> | undefined {
  const { p, d, q, P, D, Q } = fitParams;
  if (fitParams.model === 'constant' || ![p, d, q, P, D, Q].every((v) => typeof v === 'number')) return undefined;
  return { order: `${p},${d},${q}`, seasonal_order: `${P},${D},${Q}`, include_constant: fitParams.constant === true };
}

/**
 * forecast::auto.arima as a Forecaster. params: see AutoArimaSettings (maxP, maxQ, maxSP, maxSQ, ic, stepwise,
 * approximation, method, ...). With params.order ("p,d,q", and seasonal_order "P,D,Q", include_constant) the search is
 * skipped and that model is estimated (forecast::Arima); when it cannot be estimated on this series the search runs.
 */
export const autoArima: Forecaster = (yIn, h, opts: ForecastOptions) => {
  const y = cleanSeries(yIn);
  const order = orderTriple(opts.params?.order);
  if (order && y.length > 0 && !isConstant(y)) {
    const seasonal = orderTriple(opts.params?.seasonal_order) ?? [0, 0, 0];
    const m = opts.period > 1 ? Math.round(opts.period) : 1;
    // the differenced series must keep enough points for the model's parameters
    if (y.length - order[1] - seasonal[1] * m > order[0] + order[2] + seasonal[0] + seasonal[2] + 2) {
      // estimated as the search's final model would be (a long-period seasonal term keeps its CSS estimates)
      const s = settingsFrom(opts.params);
      const method = m > 12 && seasonal[0] + seasonal[2] > 0 ? s.longSeasonalMethod : (s.method ?? 'CSS-ML');
      try {
        const r = arima(y, h, { order, seasonal, period: opts.period, includeConstant: opts.params?.include_constant === true, level: opts.level, method });
        r.method = 'auto_arima';
        r.params.specification = 'pinned';
        return r;
      } catch {
        // not estimable here: search as usual
      }
    }
  }
  const sel = autoArimaSelect(y, opts.period, opts.params);
  if (!sel.fit) return constantResult(sel.constantValue ?? (y.length ? y[y.length - 1] : 0), y.length, h, 'auto_arima');
  return buildResult('auto_arima', sel.fit, y, h, opts.level, { modelsFitted: sel.models });
};
