import {
  dampedTrend, ets, etsAdmissible, etsForecastMoments, fitEts, holt, holtWinters, parseEtsModel, rootsWithin, selectEts, ses, type EtsSpec,
} from '../../../domain/forecast/ets';
import { drift, movingAverage, naive, seasonalNaive } from '../../../domain/forecast/simple';
import { optimizedTheta, theta } from '../../../domain/forecast/theta';
import type { Forecaster } from '../../../domain/forecast/types';
import { decompose } from '../../../domain/forecast/stats';

const Z90 = 1.6448536269514722;

// R datasets, used for cross-checks against forecast 8.20 (R 4.x, Debian r-cran-forecast); the reference numbers
// below were printed by R with options(digits = 15), e.g. ets(Nile, "ANN"); forecast(fit, h = 3, level = 90).
const NILE = [
  1120, 1160, 963, 1210, 1160, 1160, 813, 1230, 1370, 1140, 995, 935, 1110, 994, 1020, 960, 1180, 799, 958, 1140, 1100, 1210, 1150, 1250, 1260, 1220, 1030, 1100, 774, 840, 874, 694, 940,
  833, 701, 916, 692, 1020, 1050, 969, 831, 726, 456, 824, 702, 1120, 1100, 832, 764, 821, 768, 845, 864, 862, 698, 845, 744, 796, 1040, 759, 781, 865, 845, 944, 984, 897, 822, 1010, 771,
  676, 649, 846, 812, 742, 801, 1040, 860, 874, 848, 890, 744, 749, 838, 1050, 918, 986, 797, 923, 975, 815, 1020, 906, 901, 1170, 912, 746, 919, 718, 714, 740,
];
const USACC = [
  9007, 8106, 8928, 9137, 10017, 10826, 11317, 10744, 9713, 9938, 9161, 8927, 7750, 6981, 8038, 8422, 8714, 9512, 10120, 9823, 8743, 9129, 8710, 8680, 8162, 7306, 8124, 7870, 9387, 9556,
  10093, 9620, 8285, 8466, 8160, 8034, 7717, 7461, 7767, 7925, 8623, 8945, 10078, 9179, 8037, 8488, 7874, 8647, 7792, 6957, 7726, 8106, 8890, 9299, 10625, 9302, 8314, 8850, 8265, 8796,
  7836, 6892, 7791, 8192, 9115, 9434, 10484, 9827, 9110, 9070, 8633, 9240,
];
const WWW = [
  88, 84, 85, 85, 84, 85, 83, 85, 88, 89, 91, 99, 104, 112, 126, 138, 146, 151, 150, 148, 147, 149, 143, 132, 131, 139, 147, 150, 148, 145, 140, 134, 131, 131, 129, 126, 126, 132, 137,
  140, 142, 150, 159, 167, 170, 171, 172, 172, 174, 175, 172, 172, 174, 174, 169, 165, 156, 142, 131, 121, 112, 104, 102, 99, 99, 95, 88, 84, 84, 87, 89, 88, 85, 86, 89, 91, 91, 94, 101,
  110, 121, 135, 145, 149, 156, 165, 171, 175, 177, 182, 193, 204, 208, 210, 215, 222, 228, 226, 222, 220,
];
const AIR = [
  112, 118, 132, 129, 121, 135, 148, 148, 136, 119, 104, 118, 115, 126, 141, 135, 125, 149, 170, 170, 158, 133, 114, 140, 145, 150, 178, 163, 172, 178, 199, 199, 184, 162, 146, 166, 171,
  180, 193, 181, 183, 218, 230, 242, 209, 191, 172, 194, 196, 196, 236, 235, 229, 243, 264, 272, 237, 211, 180, 201, 204, 188, 235, 227, 234, 264, 302, 293, 259, 229, 203, 229, 242, 233,
  267, 269, 270, 315, 364, 347, 312, 274, 237, 278, 284, 277, 317, 313, 318, 374, 413, 405, 355, 306, 271, 306, 315, 301, 356, 348, 355, 422, 465, 467, 404, 347, 305, 336, 340, 318, 362,
  348, 363, 435, 491, 505, 404, 359, 310, 337, 360, 342, 406, 396, 420, 472, 548, 559, 463, 407, 362, 405, 417, 391, 419, 461, 472, 535, 622, 606, 508, 461, 390, 432,
];

/** Deterministic pseudo-random normals (LCG + Box–Muller) for synthetic series. */
function normals(n: number, seed: number): number[] {
  let s = seed;
  const u = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s + 1) / 2147483649;
  };
  return Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u()));
}

/** −2 log L as R reports it (n·log SSE + 2Σlog|ŷ|) from ours (full Gaussian likelihood). */
const rLik = (m2ll: number, n: number) => m2ll - n * (1 + Math.log(2 * Math.PI) - Math.log(n));

const ANN: EtsSpec = { error: 'A', trend: 'N', damped: false, season: 'N' };

describe('SES by hand', () => {
  test('fixed α = 0.5 and ℓ0 = 10: fitted values, forecast and interval', () => {
    const y = [10, 12, 11, 13, 12, 14];
    const r = ses(y, 3, { period: 1, level: 0.9, params: { alpha: 0.5, l0: 10 } });
    // ℓ: 10 → 10 → 11 → 11 → 12 → 12 → 13; one-step forecasts are the previous level
    expect(Array.from(r.fitted!)).toEqual([10, 10, 11, 11, 12, 12]);
    expect(Array.from(r.mean)).toEqual([13, 13, 13]);
    // errors 0, 2, 0, 2, 0, 2: SSE = 12, nothing estimated → σ² = 12/6 = 2; v_h = σ²(1 + (h−1)α²)
    expect(r.params.sigma2).toBeCloseTo(2, 12);
    for (let h = 1; h <= 3; h++) expect(r.upper[h - 1]).toBeCloseTo(13 + Z90 * Math.sqrt(2 * (1 + (h - 1) * 0.25)), 10);
    expect(r.params.model).toBe('ETS(A,N,N)');
  });

  test('fixed α, estimated ℓ0 equals the least-squares closed form', () => {
    const y = [5, 7, 6, 9, 8, 10, 9, 12, 11, 10];
    const alpha = 0.3;
    const fit = fitEts(y, ANN, 1, { alpha })!;
    // ŷ_t = a_t + (1−α)^(t−1)·ℓ0 with a_t the SES forecast started at 0, so ℓ0* = Σ (y_t − a_t) q^(t−1) / Σ q^(2(t−1))
    const q = 1 - alpha;
    let l = 0;
    let num = 0;
    let den = 0;
    for (let t = 0; t < y.length; t++) {
      num += (y[t] - l) * q ** t;
      den += q ** (2 * t);
      l += alpha * (y[t] - l);
    }
    expect(fit.l0).toBeCloseTo(num / den, 2);
    expect(fit.alpha).toBe(alpha);
  });

  test('params.initial = "simple" starts at the first observation', () => {
    const fit = ses([3, 5, 4, 6, 5, 7, 6], 1, { period: 1, level: 0.9, params: { initial: 'simple', alpha: 0.2 } });
    expect(fit.params.l0).toBe(3);
    expect(fit.fitted![0]).toBe(3);
  });
});

describe('Holt by hand', () => {
  test('fixed α = 0.5, β = 0.2, ℓ0 = 10, b0 = 1 (state-space β: b_t = b_{t−1} + β·e_t)', () => {
    const y = [11, 13, 12, 15, 16];
    const r = holt(y, 2, { period: 1, level: 0.9, params: { alpha: 0.5, beta: 0.2, l0: 10, b0: 1 } });
    // t1: ŷ=11 e=0 ℓ=11 b=1; t2: ŷ=12 e=1 ℓ=12.5 b=1.2; t3: ŷ=13.7 e=−1.7 ℓ=12.85 b=0.86;
    // t4: ŷ=13.71 e=1.29 ℓ=14.355 b=1.118; t5: ŷ=15.473 e=0.527 ℓ=15.7365 b=1.2234
    const fitted = [11, 12, 13.7, 13.71, 15.473];
    fitted.forEach((v, i) => expect(r.fitted![i]).toBeCloseTo(v, 10));
    expect(r.mean[0]).toBeCloseTo(16.9599, 10);
    expect(r.mean[1]).toBeCloseTo(18.1833, 10);
    // σ² = SSE / n (nothing estimated); v_2 = σ²(1 + (α + β)²)
    const sse = 0 + 1 + 1.7 ** 2 + 1.29 ** 2 + 0.527 ** 2;
    expect(r.params.sigma2).toBeCloseTo(sse / 5, 10);
    expect(r.upper[1] - r.mean[1]).toBeCloseTo(Z90 * Math.sqrt((sse / 5) * (1 + 0.7 ** 2)), 10);
  });

  test('a linear series is extrapolated along the line', () => {
    const y = Array.from({ length: 30 }, (_, t) => 100 + 2.5 * t);
    const r = holt(y, 5, { period: 1, level: 0.9 });
    for (let h = 1; h <= 5; h++) expect(r.mean[h - 1]).toBeCloseTo(100 + 2.5 * (29 + h), 4);
    const d = drift(y, 5, { period: 1, level: 0.9 });
    for (let h = 1; h <= 5; h++) expect(d.mean[h - 1]).toBeCloseTo(100 + 2.5 * (29 + h), 10);
  });
});

describe('cross-checks against R forecast::ets', () => {
  test('ETS(A,N,N) on Nile: parameters, likelihood and forecast interval', () => {
    const fit = fitEts(NILE, ANN, 1)!;
    // R: alpha 0.245533862697156, l 1110.68685995136, -2 loglik 1452.78103999841, sigma2 20802.8010255647
    expect(fit.alpha).toBeCloseTo(0.2455, 2);
    expect(rLik(-2 * fit.loglik, NILE.length)).toBeLessThanOrEqual(1452.78103999841 + 0.01);
    expect(rLik(-2 * fit.loglik, NILE.length)).toBeCloseTo(1452.781, 1);
    expect(fit.sigma2 / 20802.8010255647).toBeCloseTo(1, 3);
    const r = ses(NILE, 3, { period: 1, level: 0.9 });
    // R mean 805.38128285872 ×3, upper 1042.62141888457 1049.66800246415 1056.51694462263
    expect(r.mean[0]).toBeCloseTo(805.38, -0.5);
    [1042.62141888457, 1049.66800246415, 1056.51694462263].forEach((u, i) => expect(r.upper[i] / u).toBeCloseTo(1, 3));
  });

  test('ETS(M,N,N) on Nile: class-2 interval as R', () => {
    const fit = fitEts(NILE, { error: 'M', trend: 'N', damped: false, season: 'N' }, 1)!;
    // R: alpha 0.151403166236662, -2 loglik 1452.3019156063, sigma2 0.0239570565559402,
    //    mean 838.875161322995, upper 1052.44568925149 1054.9376240686 1057.40248950428
    expect(fit.alpha).toBeCloseTo(0.1514, 2);
    expect(rLik(-2 * fit.loglik, NILE.length)).toBeLessThanOrEqual(1452.3019156063 + 0.01);
    const { mean, variance } = etsForecastMoments(fit, 3);
    [1052.44568925149, 1054.9376240686, 1057.40248950428].forEach((u, i) => expect((mean[i] + Z90 * Math.sqrt(variance[i])) / u).toBeCloseTo(1, 3));
  });

  test('class-2 variance equals R class2() for given parameters', () => {
    // a fitted model with the state and parameters fixed, compared with the recursion evaluated by hand
    const fit = fitEts(NILE, { error: 'M', trend: 'A', damped: false, season: 'N' }, 1, { alpha: 0.3, beta: 0.1 })!;
    const h = 4;
    const { mean, variance } = etsForecastMoments(fit, h);
    const mu = [1, 2, 3, 4].map((j) => fit.level + j * fit.trend);
    const c = [0, 1, 2, 3].map((j) => 0.3 + 0.1 * j); // c_j = α + jβ, index j
    const theta: number[] = [];
    for (let j = 1; j <= h; j++) {
      let s = 0;
      for (let i = 1; i < j; i++) s += c[i] ** 2 * theta[j - i - 1];
      theta.push(mu[j - 1] ** 2 + fit.sigma2 * s);
    }
    for (let j = 0; j < h; j++) {
      expect(mean[j]).toBeCloseTo(mu[j], 8);
      expect(variance[j]).toBeCloseTo((1 + fit.sigma2) * theta[j] - mu[j] ** 2, 6);
    }
  });

  test('class-1 seasonal variance: c_j = α + β(φ + … + φ^j) + γ·[j ≡ 0 mod m]', () => {
    const fit = fitEts(USACC, { error: 'A', trend: 'A', damped: true, season: 'A' }, 12)!;
    const h = 30;
    const { variance } = etsForecastMoments(fit, h);
    let acc = 0;
    let phiSum = 0;
    for (let j = 1; j <= h; j++) {
      expect(variance[j - 1]).toBeCloseTo(fit.sigma2 * (1 + acc), 4);
      phiSum += fit.phi ** j;
      const cj = fit.alpha + fit.beta * phiSum + (j % 12 === 0 ? fit.gamma : 0);
      acc += cj * cj;
    }
  });

  test('automatic selection agrees with R on USAccDeaths and WWWusage; AirPassengers gets multiplicative seasonality', () => {
    // R: ets(USAccDeaths) → ETS(A,N,A); ets(WWWusage) → ETS(A,Ad,N); ets(AirPassengers) → ETS(M,Ad,M)
    expect(selectEts(USACC, 12).best!.name).toBe('ETS(A,N,A)');
    expect(selectEts(WWW, 1).best!.name).toBe('ETS(A,Ad,N)');
    const air = selectEts(AIR, 12).best!;
    expect(air.spec.error).toBe('M');
    expect(air.spec.season).toBe('M');
  });

  test('likelihoods are never worse than R’s optimum on the R datasets', () => {
    // R: −2 loglik of ets(y, model) printed by R (n·log SSE + 2Σ log|ŷ|)
    const cases: [number[], number, EtsSpec, number][] = [
      [USACC, 12, { error: 'A', trend: 'N', damped: false, season: 'A' }, 1112.0],
      [USACC, 12, { error: 'M', trend: 'A', damped: true, season: 'M' }, 1104.0],
      [WWW, 1, { error: 'A', trend: 'A', damped: true, season: 'N' }, 705.7],
      [AIR, 12, { error: 'M', trend: 'A', damped: false, season: 'M' }, 1365],
    ];
    for (const [y, m, spec, rl] of cases) {
      const fit = fitEts(y, spec, m)!;
      expect(rLik(-2 * fit.loglik, y.length)).toBeLessThan(rl + 1);
    }
  });
});

describe('admissibility', () => {
  test('matches forecast:::admissible(alpha, beta, gamma, phi, m)', () => {
    // R: 0 0 1 0 1 0 1 1
    const pts: [number, number, number, number, number, boolean][] = [
      [0.289, 0.284, 0.356, 1, 52, false],
      [0.668, 0.103, 0.202, 1, 52, false],
      [0.1, 0.01, 0.1, 1, 52, true],
      [0.382, 0.333, 0.45, 1, 12, false],
      [0.3, 0.05, 0.2, 1, 12, true],
      [0.989, 0.973, 0.007, 0.807, 4, false],
      [0.5, 0.1, 0.3, 0.9, 4, true],
      [0.1, 0.001, 0.05, 0.95, 52, true],
    ];
    for (const [a, b, g, p, m, ok] of pts) expect(etsAdmissible(a, b, g, p, m, true, true)).toBe(ok);
    expect(etsAdmissible(0.5, 0.1, 0, 0.9, 1, false, true)).toBe(true);
  });

  test('Schur–Cohn root test', () => {
    expect(rootsWithin([1, -0.5])).toBe(true); // z = 0.5
    expect(rootsWithin([1, -2])).toBe(false); // z = 2
    expect(rootsWithin([1, 0, -0.25])).toBe(true); // ±0.5
    expect(rootsWithin([1, -2.1, 0.2])).toBe(false); // 2 and 0.1
    expect(rootsWithin([1, 0, 0.81])).toBe(true); // ±0.9i
    expect(rootsWithin([1, 0, 1.21])).toBe(false); // ±1.1i
    expect(rootsWithin([1, -1], 1 + 1e-6)).toBe(true); // unit root within the slack
  });
});

describe('model selection', () => {
  test('a clearly seasonal monthly series gets a seasonal model; white noise a non-seasonal one', () => {
    const e = normals(96, 7);
    const seasonal = e.map((v, t) => 100 + 20 * Math.sin((2 * Math.PI * t) / 12) + 2 * v);
    const s = ets(seasonal, 12, { period: 12, level: 0.9 });
    expect(String(s.params.model)).toMatch(/,[AM]\)$/);
    // the forecast follows the seasonal pattern
    for (let h = 1; h <= 12; h++) expect(Math.abs(s.mean[h - 1] - (100 + 20 * Math.sin((2 * Math.PI * (95 + h)) / 12)))).toBeLessThan(6);
    const noise = normals(96, 11).map((v) => 50 + 5 * v);
    const w = ets(noise, 12, { period: 12, level: 0.9 });
    expect(String(w.params.model)).toMatch(/,N\)$/);
    expect(w.aicc).toBeDefined();
  });

  test('weekly data: seasonal only from 2 full years on', () => {
    // a rough yearly profile (a smooth sine is tracked well enough by a local trend for AICc to prefer that)
    const profile = normals(52, 17).map((v) => 30 * v);
    const y = normals(156, 3).map((v, t) => 200 + profile[t % 52] + 3 * v);
    expect(String(ets(y, 52, { period: 52, level: 0.9 }).params.model)).toMatch(/,[AM]\)$/);
    expect(String(ets(y.slice(0, 100), 52, { period: 52, level: 0.9 }).params.model)).toMatch(/,N\)$/);
  });

  test('non-positive data: only additive models', () => {
    const y = normals(60, 5).map((v, t) => 2 * v + 0.05 * t);
    const sel = selectEts(y, 12);
    expect(sel.candidates.every((c) => c.model.startsWith('ETS(A') && !c.model.endsWith('M)'))).toBe(true);
    const withZero = [0, ...normals(59, 9).map((v) => 10 + v)];
    expect(selectEts(withZero, 1).candidates.every((c) => c.model.startsWith('ETS(A'))).toBe(true);
  });

  test('model strings and restrictions', () => {
    expect(parseEtsModel('AAdN')).toEqual({ error: 'A', trend: 'A', damped: true, season: 'N' });
    expect(() => parseEtsModel('XYZ')).toThrow();
    const sel = selectEts(AIR, 12, { model: 'MZM' });
    expect(sel.candidates.map((c) => c.model).sort()).toEqual(['ETS(M,A,M)', 'ETS(M,Ad,M)', 'ETS(M,N,M)']);
    expect(selectEts(AIR, 12, { model: 'ZZZ', damped: false }).candidates.some((c) => c.model.includes('Ad'))).toBe(false);
    expect(selectEts(AIR, 12, { additiveOnly: true }).candidates.every((c) => !c.model.includes('M'))).toBe(true);
  });

  test('deterministic', () => {
    const a = ets(AIR, 24, { period: 12, level: 0.9 });
    const b = ets(AIR, 24, { period: 12, level: 0.9 });
    expect(Array.from(a.mean)).toEqual(Array.from(b.mean));
    expect(Array.from(a.upper)).toEqual(Array.from(b.upper));
  });
});

describe('fallbacks', () => {
  test('Holt–Winters on too short a series falls back to Holt, damped option honoured', () => {
    const y = normals(20, 2).map((v, t) => 50 + t + v);
    const r = holtWinters(y, 6, { period: 12, level: 0.9 });
    expect(r.params.model).toBe('ETS(A,A,N)');
    expect(String(r.params.fallback)).toMatch(/not estimable/);
    const d = holtWinters(USACC, 6, { period: 12, level: 0.9, params: { damped: true } });
    expect(d.params.model).toBe('ETS(A,Ad,A)');
    const mult = holtWinters(AIR, 6, { period: 12, level: 0.9, params: { seasonal: 'multiplicative' } });
    expect(mult.params.model).toBe('ETS(M,A,M)');
  });

  test('a series too short for ETS uses SES from the first value, then naive', () => {
    const r = ets([5, 7, 6, 8, 7], 3, { period: 1, level: 0.9 });
    expect(String(r.params.fallback)).toMatch(/SES with l0 = y\[0\]/);
    expect(r.aicc).toBeUndefined();
    const n = ets([5, 7], 3, { period: 1, level: 0.9 });
    expect(Array.from(n.mean)).toEqual([7, 7, 7]);
    expect(String(n.params.fallback)).toMatch(/naive/);
  });

  test('a constant series gives a flat forecast with zero-width intervals', () => {
    for (const f of [ets, ses, holt, dampedTrend, holtWinters]) {
      const r = f(new Array(30).fill(42), 4, { period: 12, level: 0.9 });
      expect(Array.from(r.mean)).toEqual([42, 42, 42, 42]);
      expect(Array.from(r.lower)).toEqual([42, 42, 42, 42]);
      expect(Array.from(r.upper)).toEqual([42, 42, 42, 42]);
    }
  });
});

describe('properties of every method', () => {
  const methods: Record<string, Forecaster> = { naive, seasonalNaive, movingAverage, drift, ets, ses, holt, dampedTrend, holtWinters, theta, optimizedTheta };
  const rw = normals(80, 21).reduce<number[]>((acc, v) => [...acc, (acc.length ? acc[acc.length - 1] : 100) + v], []);
  const seasonalPos = normals(72, 4).map((v, t) => 100 + 25 * Math.sin((2 * Math.PI * t) / 12) + 4 * v);

  for (const [name, f] of Object.entries(methods)) {
    test(`${name}: lower <= mean <= upper, intervals widen with the horizon, wider with the level`, () => {
      for (const y of [rw, seasonalPos, NILE]) {
        const r = f(y, 24, { period: 12, level: 0.9 });
        const r95 = f(y, 24, { period: 12, level: 0.95 });
        expect(r.mean.length).toBe(24);
        expect(r.fitted!.length).toBe(y.length);
        for (let i = 0; i < 24; i++) {
          expect(r.lower[i]).toBeLessThanOrEqual(r.mean[i]);
          expect(r.mean[i]).toBeLessThanOrEqual(r.upper[i]);
          expect(r95.upper[i] - r95.lower[i]).toBeGreaterThanOrEqual(r.upper[i] - r.lower[i] - 1e-9);
          if (i > 0) {
            // for multiplicative seasonality the width follows the seasonal index: compare relative widths
            // multiplicative seasonality scales the width with the seasonal index: compare widths per unit of index
            const seasonalM = typeof r.params.model === 'string' && r.params.model.endsWith('M)');
            const fig = r.params.seasonal === true ? decompose(y, 12, 'multiplicative')!.figure : null;
            const w = (k: number) => (r.upper[k] - r.lower[k]) / (seasonalM ? Math.abs(r.mean[k]) : fig ? fig[(y.length + k) % 12] : 1);
            expect(w(i)).toBeGreaterThanOrEqual(w(i - 1) - 1e-9);
          }
        }
      }
    });

    test(`${name}: zeros, negatives and very short series never throw or give NaN`, () => {
      const cases: number[][] = [[], [3], [3, 4], [3, 4, 2], new Array(40).fill(0), normals(40, 8).map((v) => v - 10), [0, 0, 5, 0, 0, 3, 0, 0, 0, 7, 0, 0, 2, 0]];
      for (const y of cases) {
        for (const h of [0, 1, 13]) {
          const r = f(y, h, { period: 12, level: 0.9 });
          expect(r.mean.length).toBe(h);
          for (let i = 0; i < h; i++) {
            expect([r.mean[i], r.lower[i], r.upper[i]].every(Number.isFinite)).toBe(true);
            expect(r.lower[i]).toBeLessThanOrEqual(r.mean[i]);
            expect(r.mean[i]).toBeLessThanOrEqual(r.upper[i]);
          }
        }
      }
      const z = f(new Array(40).fill(0), 3, { period: 12, level: 0.9 });
      expect(Array.from(z.mean).map(Math.abs)).toEqual([0, 0, 0]);
      expect(Array.from(z.upper).map(Math.abs)).toEqual([0, 0, 0]);
    });
  }
});
