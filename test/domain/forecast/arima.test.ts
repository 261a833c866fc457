import {
  ArmaWork,
  arima,
  autoArima,
  autoArimaSelect,
  kpssStatistic,
  ndiffs,
  nsdiffs,
  seasonalStrength,
  setCssGradient,
} from '../../../domain/forecast/arima';
import { normalQuantile, polyRoots, solveInPlace } from '../../../domain/forecast/linalg';
import type { ForecastResult } from '../../../domain/forecast/types';
import { normal, rng } from '../../support/random';

const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

/** AR(1), φ = 0.7, mean 50, 500 points after a burn-in of 100 (seed 1), rounded to 4 decimals. */
function ar1Series(): number[] {
  const u = rng(1);
  let x = 0;
  const y: number[] = [];
  for (let i = 0; i < 600; i++) {
    x = 0.7 * x + normal(u);
    if (i >= 100) y.push(round4(50 + x));
  }
  return y;
}

/** Gaussian random walk from 100, 120 points (seed 103). */
function randomWalk(): number[] {
  const u = rng(103);
  let w = 0;
  const y: number[] = [];
  for (let i = 0; i < 120; i++) {
    w += normal(u);
    y.push(round4(100 + w));
  }
  return y;
}

/** Six years of a monthly series: slowly wandering level + fixed seasonal pattern + noise (seed 202). */
function seasonalMonthly(): number[] {
  const u = rng(202);
  const y: number[] = [];
  let lvl = 100;
  for (let i = 0; i < 72; i++) {
    lvl += 0.3 * normal(u);
    y.push(round4(lvl + 10 * Math.sin((2 * Math.PI * i) / 12) + 5 * Math.cos((4 * Math.PI * i) / 12) + normal(u)));
  }
  return y;
}

function expectClose(actual: ArrayLike<number>, expected: number[], tol: number): void {
  expected.forEach((e, i) => expect(Math.abs(actual[i] - e)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(e))));
}

function expectValid(r: ForecastResult, h: number): void {
  expect(r.mean).toHaveLength(h);
  for (let j = 0; j < h; j++) {
    expect(Number.isFinite(r.mean[j])).toBe(true);
    expect(r.lower[j]).toBeLessThanOrEqual(r.mean[j]);
    expect(r.upper[j]).toBeGreaterThanOrEqual(r.mean[j]);
  }
}

const level90 = { period: 1, level: 0.9 };

describe('linalg helpers', () => {
  it('solves a small system, finds polynomial roots, and gives normal quantiles as R’s qnorm', () => {
    const A = Float64Array.from([2, 1, 1, 3]);
    const b = Float64Array.from([3, 5]);
    expect(solveInPlace(A, b, 2)).toBe(true);
    expectClose(b, [0.8, 1.4], 1e-14);
    // (z − 0.5)(z + 1)(z − 2)(z + 3) = z⁴ + 1.5z³ − 6z² − 3.5z + 3 (coefficients low order first)
    const roots = polyRoots([3, -3.5, -6, 1.5, 1]);
    expectClose(Array.from(roots.re).sort((x, y) => x - y), [-3, -1, 0.5, 2], 1e-12);
    for (const v of roots.im) expect(Math.abs(v)).toBeLessThan(1e-12);
    const cplx = polyRoots([1, 0, 1]); // z² + 1
    expectClose(Array.from(cplx.im).sort((x, y) => x - y), [-1, 1], 1e-15);
    expect(normalQuantile(0.95)).toBeCloseTo(1.6448536269514722, 14);
    expect(normalQuantile(0.025)).toBeCloseTo(-1.959963984540054, 14);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 12);
  });
});

describe('unit-root and seasonality tests', () => {
  it('KPSS statistic, ndiffs and seasonal strength match R', () => {
    // R: urca::ur.kpss(rw, type = "mu", use.lag = trunc(3 * sqrt(120) / 13))@teststat = 3.375677; ndiffs(rw) = 1
    const rw = Float64Array.from(randomWalk());
    expect(kpssStatistic(rw)).toBeCloseTo(3.375677, 5);
    expect(ndiffs(rw)).toBe(1);
    // R: forecast:::seas.heuristic(ts(sm, frequency = 12)) = 0.9871854; nsdiffs = 1
    const sm = Float64Array.from(seasonalMonthly());
    expect(seasonalStrength(sm, 12)).toBeCloseTo(0.9871854, 6);
    expect(nsdiffs(sm, 12)).toBe(1);
    expect(nsdiffs(Float64Array.from(ar1Series().slice(0, 120)), 12)).toBe(0);
  });
});

describe('autoArima', () => {
  it('recovers an AR(1) with φ = 0.7', () => {
    const r = autoArima(ar1Series(), 12, level90);
    expect(r.params.model).toBe('ARIMA(1,0,0) with non-zero mean');
    expect(r.params.p).toBe(1);
    expect(r.params.d).toBe(0);
    expect(r.params.q).toBe(0);
    expect(Math.abs((r.params.ar1 as number) - 0.7)).toBeLessThan(0.1);
  });

  it('AR(1) matches R forecast::auto.arima numerically', () => {
    // R 4.x, forecast 8.20: f <- auto.arima(y); forecast(f, h = 3, level = 90)
    //   ARIMA(1,0,0) with non-zero mean, ar1 0.69396120, mean 50.00730616, loglik -694.79478395,
    //   AICc 1395.63795500, sigma2 0.94553549
    const r = autoArima(ar1Series(), 3, level90);
    expect(r.params.ar1).toBeCloseTo(0.6939612, 5);
    expect(r.params.mean).toBeCloseTo(50.00730616, 5);
    expect(r.params.loglik).toBeCloseTo(-694.79478395, 5);
    expect(r.aicc).toBeCloseTo(1395.637955, 4);
    expect(r.params.sigma2).toBeCloseTo(0.94553549, 6);
    expectClose(r.mean, [48.09287112, 48.67876253, 49.08534843], 1e-7);
    expectClose(r.lower, [46.49343768, 46.73192799, 46.99167629], 1e-7);
    expectClose(r.upper, [49.69230457, 50.62559706, 51.17902056], 1e-7);
  });

  it('chooses d = 1 for a random walk (as R: ARIMA(0,1,0))', () => {
    const r = autoArima(randomWalk(), 3, level90);
    expect(r.params.d).toBe(1);
    // R: ARIMA(0,1,0), loglik -170.63214045, AICc 343.29846893, forecast 109.9246 flat
    expect(r.params.model).toBe('ARIMA(0,1,0)');
    expect(r.params.loglik).toBeCloseTo(-170.63214045, 6);
    expect(r.aicc).toBeCloseTo(343.29846893, 5);
    expectClose(r.mean, [109.9246, 109.9246, 109.9246], 1e-12);
    // R's sigma2 1.03042324 includes the first residual y_1/√κ of its diffuse prior (here ≈ 0.1²/119); ours omits it
    expect(r.params.sigma2).toBeCloseTo(1.03042324, 3);
  });

  it('uses seasonal differencing or seasonal terms for a seasonal monthly series', () => {
    const r = autoArima(seasonalMonthly(), 12, { period: 12, level: 0.9 });
    expect((r.params.D as number) + (r.params.P as number) + (r.params.Q as number)).toBeGreaterThan(0);
    // R: auto.arima(ts(sm, frequency = 12)) → ARIMA(0,0,0)(0,1,1)[12], sma1 -0.77589994, loglik -102.36693745,
    //    forecast 105.35051742 107.59696080 106.99977103, 90 % lower 103.30326585 105.54970924 104.95251946
    expect(r.params.model).toBe('ARIMA(0,0,0)(0,1,1)[12]');
    expect(r.params.sma1).toBeCloseTo(-0.77589994, 3);
    expect(r.params.loglik).toBeCloseTo(-102.36693745, 2);
    expectClose(r.mean, [105.35051742, 107.5969608, 106.99977103], 1e-6);
    expectClose(r.lower, [103.30326585, 105.54970924, 104.95251946], 1e-4);
    expectValid(r, 12);
  });

  it('forecasts of a fitted AR(1) follow the analytic mean reversion, intervals widen with the horizon', () => {
    const h = 20;
    const r = autoArima(ar1Series(), h, level90);
    const phi = r.params.ar1 as number;
    const mu = r.params.mean as number;
    const sigma2 = r.params.sigma2 as number;
    const y = ar1Series();
    const last = y[y.length - 1];
    const z = normalQuantile(0.95);
    for (let j = 1; j <= h; j++) {
      expect(r.mean[j - 1]).toBeCloseTo(mu + phi ** j * (last - mu), 10);
      const sd = Math.sqrt((sigma2 * (1 - phi ** (2 * j))) / (1 - phi * phi));
      expect(r.upper[j - 1] - r.mean[j - 1]).toBeCloseTo(z * sd, 9);
      if (j > 1) expect(r.upper[j - 1] - r.lower[j - 1]).toBeGreaterThan(r.upper[j - 2] - r.lower[j - 2]);
    }
  });

  it('handles constant, tiny and non-finite input', () => {
    const c = autoArima(new Array(30).fill(5), 4, level90);
    expect(Array.from(c.mean)).toEqual([5, 5, 5, 5]);
    expect(Array.from(c.upper)).toEqual([5, 5, 5, 5]);
    for (const y of [[], [3], [1, 2], [1, 2, 4], [1, 5, 2, 8, 3], [2, 4, 6, 8, 10, 12, 14, 16]]) expectValid(autoArima(y, 3, level90), 3);
    const withNaN = autoArima([1, 2, NaN, 4, 3, 5, 4, 6, 5, 7], 2, level90);
    expectValid(withNaN, 2);
    // a straight line: d = 1 and the drift is the slope
    const line = autoArima([2, 4, 6, 8, 10, 12, 14, 16], 2, level90);
    expectClose(line.mean, [18, 20], 1e-9);
  });

  it('weekly series with period 52 stays within the long-period limits', () => {
    const u = rng(52);
    const y = Array.from({ length: 156 }, (_, t) => 100 + 20 * Math.sin((2 * Math.PI * t) / 52) + 5 * normal(u));
    const sel = autoArimaSelect(y, 52);
    expect(sel.fit).not.toBeNull();
    const o = sel.fit!.o;
    expect(o.P + o.Q).toBeLessThanOrEqual(1);
    const r = autoArima(y, 52, { period: 52, level: 0.9 });
    expectValid(r, 52);
  });

  it('a weekly seasonal winner keeps its CSS estimates unless longSeasonalMethod asks for R’s ML refit', () => {
    const u = rng(53);
    const y = Array.from({ length: 156 }, (_, t) => 100 + 25 * Math.sin((2 * Math.PI * t) / 52) + 6 * normal(u));
    const css = autoArimaSelect(y, 52).fit!;
    expect(css.o.P + css.o.Q).toBe(1);
    expect(css.method).toBe('CSS');
    // the per-series hyperparameter arima.long_seasonal_method arrives in snake case
    const ml = autoArimaSelect(y, 52, { long_seasonal_method: 'CSS-ML' }).fit!;
    expect(ml.o).toEqual(css.o);
    expect(ml.method).toBe('CSS-ML');
    // same model, different estimator: the coefficients differ, but not by much on 156 points
    expect(Array.from(ml.coef)).not.toEqual(Array.from(css.coef));
    for (let i = 0; i < css.coef.length; i++) expect(Math.abs(ml.coef[i] - css.coef[i])).toBeLessThan(0.5 * Math.max(1, Math.abs(ml.coef[i])));
    // a pinned refit of that specification is estimated the same way
    const pinned = autoArima(y, 4, { period: 52, level: 0.9, params: { order: `${css.o.p},${css.o.d},${css.o.q}`, seasonal_order: `${css.o.P},${css.o.D},${css.o.Q}`, include_constant: css.constant } });
    expect(pinned.params.method).toBe('CSS');
    expect(pinned.params.specification).toBe('pinned');
  });

  it('the σ² of a CSS fit divides by the residuals it has, not by n', () => {
    const y = ar1Series();
    const r = arima(y, 1, { order: [1, 0, 0], method: 'CSS' });
    const phi = r.params.ar1 as number;
    const mu = r.params.mean as number;
    let ssq = 0;
    for (let t = 1; t < y.length; t++) ssq += ((y[t] - mu) - phi * (y[t - 1] - mu)) ** 2;
    // n − ncond residuals, npar = 2 coefficients + σ²
    expect(r.params.sigma2 as number).toBeCloseTo(ssq / (y.length - 1 - 3 + 1), 10);
  });

  it('is deterministic', () => {
    const y = seasonalMonthly();
    const a = autoArima(y, 6, { period: 12, level: 0.8 });
    const b = autoArima(y, 6, { period: 12, level: 0.8 });
    expect(Array.from(a.mean)).toEqual(Array.from(b.mean));
    expect(a.params).toEqual(b.params);
  });
});

describe('arima with fixed orders', () => {
  it('one-step forecast with known coefficients: ARIMA(1,1,0), φ = 0.5', () => {
    // y_{n+1} = y_n + φ (y_n − y_{n−1}) = 5 + 0.5·3
    const r = arima([1, 3, 2, 5], 2, { order: [1, 1, 0], fixed: [0.5] });
    expect(r.mean[0]).toBeCloseTo(6.5, 12);
    expect(r.mean[1]).toBeCloseTo(6.5 + 0.5 * 1.5, 12);
  });

  it('one-step forecast with known coefficients: MA(1), θ = 0.4, zero mean (innovations algorithm by hand)', () => {
    // γ0 = 1 + θ² = 1.16, γ1 = θ = 0.4; v0 = γ0
    // x̂1 = (γ1/v0)·x0, v1 = γ0 − γ1²/v0; x̂2 = (γ1/v1)(x1 − x̂1), v2 = γ0 − γ1²/v1; x̂3 = (γ1/v2)(x2 − x̂2)
    const x = [1, -0.5, 2];
    const g0 = 1.16;
    const g1 = 0.4;
    const v0 = g0;
    const x1 = (g1 / v0) * x[0];
    const v1 = g0 - (g1 * g1) / v0;
    const x2 = (g1 / v1) * (x[1] - x1);
    const v2 = g0 - (g1 * g1) / v1;
    const x3 = (g1 / v2) * (x[2] - x2);
    expect(x3).toBeCloseTo(0.929045, 5);
    const r = arima(x, 2, { order: [0, 0, 1], includeConstant: false, fixed: [0.4] });
    expect(r.mean[0]).toBeCloseTo(x3, 12);
    expect(r.mean[1]).toBeCloseTo(0, 12);
    expect(r.fitted![1]).toBeCloseTo(x1, 12);
    expect(r.fitted![2]).toBeCloseTo(x2, 12);
  });

  it('AR(1) with mean, fixed: forecast = μ + φ (y_n − μ)', () => {
    const r = arima([10, 12, 11, 13, 12], 3, { order: [1, 0, 0], fixed: [0.6, 11] });
    expect(r.mean[0]).toBeCloseTo(11 + 0.6 * 1, 12);
    expect(r.mean[2]).toBeCloseTo(11 + 0.6 ** 3, 12);
  });

  it('airline model with fixed coefficients: interval variance is σ² Σ ψ² of the integrated model', () => {
    // (1 − B)(1 − B⁴) y = (1 + θB)(1 + ΘB⁴) e on 120 quarters: the filter has converged (the state is known), so
    // Var(y_{n+j}) = σ² Σ_{i<j} ψ_i² with ψ from ψ(B)(1 − B)(1 − B⁴) = (1 + θB)(1 + ΘB⁴), up to the ~1e-7 of state
    // uncertainty left after 30 seasonal cycles (0.6³⁰)
    const theta = 0.4;
    const Theta = -0.6;
    const y = seasonalMonthly().slice(0, 120);
    const h = 12;
    const r = arima(y, h, { order: [0, 1, 1], seasonal: [0, 1, 1], period: 4, fixed: [theta, Theta] });
    const sigma2 = r.params.sigma2 as number;
    const ma = [1, theta, 0, 0, Theta, theta * Theta];
    const ar = [1, -1, 0, 0, -1, 1]; // (1 − B)(1 − B⁴)
    const psi: number[] = [];
    for (let j = 0; j < h; j++) {
      let s = j < ma.length ? ma[j] : 0;
      for (let i = 1; i <= j && i < ar.length; i++) s -= ar[i] * psi[j - i];
      psi.push(s);
    }
    const z = normalQuantile(0.95);
    let acc = 0;
    for (let j = 0; j < h; j++) {
      acc += psi[j] * psi[j];
      expect((r.upper[j] - r.mean[j]) / z).toBeCloseTo(Math.sqrt(sigma2 * acc), 6);
    }
  });

  it('estimates match R’s Arima (CSS-ML) for seasonal, drift and ARMA models', () => {
    // R 4.x, forecast 8.20, each with forecast(fit, h = 3, level = 90):
    // Arima(ts(sm, frequency = 12), order = c(1,0,1), seasonal = c(0,1,1)):
    //   ar1 0.37231759 ma1 -0.19347228 sma1 -0.72608184 loglik -101.28102626
    //   mean 105.37671405 107.61956428 107.03068599, lower 103.31128583 105.52167277 104.92833397
    const sm = seasonalMonthly();
    let r = arima(sm, 3, { order: [1, 0, 1], seasonal: [0, 1, 1], period: 12 });
    expect(r.params.ar1).toBeCloseTo(0.37231759, 3);
    expect(r.params.sma1).toBeCloseTo(-0.72608184, 3);
    expect(r.params.loglik).toBeCloseTo(-101.28102626, 2);
    expectClose(r.mean, [105.37671405, 107.61956428, 107.03068599], 1e-6);
    expectClose(r.lower, [103.31128583, 105.52167277, 104.92833397], 1e-4);
    // Arima(ts(sm, frequency = 12), order = c(0,1,1), seasonal = c(1,1,0)):
    //   ma1 -0.82462747 sar1 -0.55394487, mean 105.54878282 107.59258851 107.20969284
    r = arima(sm, 3, { order: [0, 1, 1], seasonal: [1, 1, 0], period: 12 });
    expect(r.params.ma1).toBeCloseTo(-0.82462747, 3);
    expect(r.params.sar1).toBeCloseTo(-0.55394487, 3);
    expectClose(r.mean, [105.54878282, 107.59258851, 107.20969284], 1e-6);
    // Arima(rw, order = c(2,1,0), include.drift = TRUE): ar 0.10865881 0.18957976, drift 0.08295886,
    //   loglik -167.04757408, mean 109.85004023 110.04702342 110.11250968, upper 111.49037294 112.49608155 113.37068411
    r = arima(randomWalk(), 3, { order: [2, 1, 0], includeConstant: true });
    expect(r.params.ar1).toBeCloseTo(0.10865881, 4);
    expect(r.params.ar2).toBeCloseTo(0.18957976, 4);
    expect(r.params.drift).toBeCloseTo(0.08295886, 4);
    expect(r.params.loglik).toBeCloseTo(-167.04757408, 3);
    expectClose(r.mean, [109.85004023, 110.04702342, 110.11250968], 1e-7);
    expectClose(r.upper, [111.49037294, 112.49608155, 113.37068411], 1e-5);
    // Arima(ar1[1:60], order = c(1,0,1)): ar1 0.30279936 ma1 0.25090279 mean 50.02748794, loglik -78.42187556,
    //   sigma2 0.83723660, mean 49.93182047 49.99851989 50.01871644, lower 48.42676898 48.27815579 48.27994472
    r = arima(ar1Series().slice(0, 60), 3, { order: [1, 0, 1] });
    expect(r.params.ar1).toBeCloseTo(0.30279936, 6);
    expect(r.params.ma1).toBeCloseTo(0.25090279, 6);
    expect(r.params.loglik).toBeCloseTo(-78.42187556, 7);
    expect(r.params.sigma2).toBeCloseTo(0.8372366, 7);
    expectClose(r.mean, [49.93182047, 49.99851989, 50.01871644], 1e-9);
    expectClose(r.lower, [48.42676898, 48.27815579, 48.27994472], 1e-9);
  });
});

describe('analytic CSS gradient', () => {
  const sm = seasonalMonthly();
  const structures = [
    { p: 2, q: 2, P: 1, Q: 0, m: 12, mean: true },
    { p: 1, q: 1, P: 0, Q: 1, m: 12, mean: true },
    { p: 0, q: 2, P: 1, Q: 1, m: 12, mean: false },
    { p: 1, q: 0, P: 1, Q: 0, m: 4, mean: false },
    { p: 3, q: 0, P: 0, Q: 0, m: 1, mean: true },
  ];

  it.each(structures)('equals central differences of ½·log(ssq/nu): ARMA(%o)', (st) => {
    const o = { p: st.p, d: 0, q: st.q, P: st.P, D: 0, Q: st.Q, m: st.m };
    const nArma = st.p + st.q + st.P + st.Q;
    const k = nArma + (st.mean ? 1 : 0);
    const ncond = st.p + st.P * st.m;
    const work = new ArmaWork(o, sm.length);
    const w = Float64Array.from(sm);
    const coef = Float64Array.from({ length: k }, (_, i) => (st.mean && i === nArma ? 103 : 0.3 - 0.11 * i));
    const objective = (c: Float64Array) => {
      work.expand(c);
      const r = work.css(w, st.mean ? c[nArma] : 0, ncond);
      return 0.5 * Math.log(r.ssq / r.nu);
    };
    work.expand(coef);
    const g = new Float64Array(k);
    expect(work.cssGradient(w, st.mean ? coef[nArma] : 0, ncond, coef, st.mean, g)).toBe(true);
    for (let i = 0; i < k; i++) {
      const h = 1e-6;
      const up = Float64Array.from(coef);
      const down = Float64Array.from(coef);
      up[i] += h;
      down[i] -= h;
      const numeric = (objective(up) - objective(down)) / (2 * h);
      expect(Math.abs(g[i] - numeric)).toBeLessThan(1e-7 * Math.max(1, Math.abs(numeric)));
    }
  });

  it('auto.arima picks the same model with R\'s numerical gradient, and the estimates agree', () => {
    try {
      for (const [y, period] of [[sm, 12], [ar1Series(), 1], [randomWalk(), 1]] as const) {
        setCssGradient('numeric');
        const numeric = autoArima(y, 6, { period, level: 0.9 });
        setCssGradient('analytic');
        const analytic = autoArima(y, 6, { period, level: 0.9 });
        expect(analytic.params.model).toBe(numeric.params.model);
        expect(analytic.params.loglik as number).toBeCloseTo(numeric.params.loglik as number, 3);
        expectClose(analytic.mean, Array.from(numeric.mean), 1e-4);
      }
    } finally {
      setCssGradient('analytic');
    }
  });
});
