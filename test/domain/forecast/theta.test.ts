import { fitEts } from '../../../domain/forecast/ets';
import { linearFit } from '../../../domain/forecast/stats';
import { optimizedTheta, seasonalityTest, theta } from '../../../domain/forecast/theta';

// R datasets; reference numbers printed by R forecast 8.20 (Debian r-cran-forecast) with options(digits = 15):
// thetaf(Nile, h = 5, level = 90) and thetaf(USAccDeaths, h = 12, level = 90).
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

function normals(n: number, seed: number): number[] {
  let s = seed;
  const u = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s + 1) / 2147483649;
  };
  return Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u()));
}

describe('theta', () => {
  test('Nile (non-seasonal) agrees with R thetaf', () => {
    const r = theta(NILE, 5, { period: 1, level: 0.9 });
    const mean = [799.811996215856, 798.454843500585, 797.097690785313, 795.740538070042, 794.38338535477];
    const upper = [1037.05212862041, 1042.74915820527, 1048.24813169818, 1053.56484984925, 1058.71311792022];
    for (let i = 0; i < 5; i++) {
      expect(Math.abs(r.mean[i] - mean[i]) / mean[i]).toBeLessThan(1e-3);
      expect(Math.abs(r.upper[i] - upper[i]) / upper[i]).toBeLessThan(2e-3);
    }
    expect(r.params.seasonal).toBe(false);
    expect(r.params.theta).toBe(2);
  });

  test('USAccDeaths (seasonal) agrees with R thetaf point forecasts', () => {
    const r = theta(USACC, 12, { period: 12, level: 0.9 });
    const mean = [
      8270.69380633916, 7508.92386706193, 8322.1248067687, 8554.14350535653, 9450.09297449737, 9870.93361987681, 10822.4977308501, 10091.8407060367, 8944.43359956477,
      9329.28966640466, 8778.91283419023, 8990.77591387755,
    ];
    for (let i = 0; i < 12; i++) expect(Math.abs(r.mean[i] - mean[i]) / mean[i]).toBeLessThan(1e-3);
    expect(r.params.seasonal).toBe(true);
  });

  test('is SES plus half the regression slope as drift', () => {
    const y = normals(60, 1).map((v, t) => 50 + 0.8 * t + 3 * v);
    const r = theta(y, 6, { period: 1, level: 0.9 });
    const b = linearFit(y).slope;
    for (let i = 1; i < 6; i++) expect(r.mean[i] - r.mean[i - 1]).toBeCloseTo(b / 2, 10);
    const ses = fitEts(y, { error: 'A', trend: 'N', damped: false, season: 'N' }, 1)!;
    const a = ses.alpha;
    expect(r.mean[0]).toBeCloseTo(ses.level + (b / 2) * ((1 - (1 - a) ** 60) / a), 8);
    // SES interval: se_h = σ√(1 + (h−1)α²)
    const z = 1.6448536269514722;
    for (let h = 1; h <= 6; h++) expect(r.upper[h - 1] - r.mean[h - 1]).toBeCloseTo(z * Math.sqrt(ses.sigma2 * (1 + (h - 1) * a * a)), 8);
  });

  test('seasonality test (90 %, lag-m ACF) as thetaf', () => {
    expect(seasonalityTest(USACC, 12)).toBe(true);
    expect(seasonalityTest(NILE, 12)).toBe(false);
    expect(seasonalityTest(normals(60, 2), 12)).toBe(false);
    expect(seasonalityTest(USACC.slice(0, 24), 12)).toBe(false); // needs n > 2m
    // no multiplicative adjustment of non-positive data
    const shifted = USACC.map((v) => v - 9000);
    expect(theta(shifted, 3, { period: 12, level: 0.9 }).params.seasonal).toBe(false);
  });
});

describe('optimizedTheta', () => {
  test('fits at least as well in sample as standard theta (θ = 2 is inside its search space)', () => {
    for (const [y, m] of [
      [NILE, 1],
      [USACC, 12],
      [normals(80, 3).map((v, t) => 20 + 0.5 * t + v), 1],
    ] as [number[], number][]) {
      const a = theta(y, 4, { period: m, level: 0.9 });
      const b = optimizedTheta(y, 4, { period: m, level: 0.9 });
      const mse = (f: Float64Array) => y.reduce((s, v, i) => s + (v - f[i]) ** 2, 0);
      expect(mse(b.fitted!)).toBeLessThanOrEqual(mse(a.fitted!) * (1 + 1e-9));
      expect(b.params.theta as number).toBeGreaterThanOrEqual(1);
    }
  });

  test('a strong trend pushes θ above 2 (more of the trend line kept)', () => {
    const y = normals(60, 4).map((v, t) => 10 + 2 * t + 0.5 * v);
    const r = optimizedTheta(y, 5, { period: 1, level: 0.9 });
    expect(r.params.theta as number).toBeGreaterThan(2);
    // continues the trend nearly at full slope
    expect(r.mean[4] - r.mean[0]).toBeGreaterThan(4 * 2 * 0.8);
  });

  test('short series fall back to standard theta; tiny ones still forecast', () => {
    const r = optimizedTheta([3, 4, 5, 4, 6, 5, 7], 3, { period: 1, level: 0.9 });
    expect(String(r.params.fallback)).toMatch(/standard theta/);
    for (const y of [[5], [5, 6], [5, 6, 4]]) {
      const t = theta(y, 2, { period: 12, level: 0.9 });
      expect(Array.from(t.mean).every(Number.isFinite)).toBe(true);
    }
    expect(Array.from(theta([5], 2, { period: 1, level: 0.9 }).mean)).toEqual([5, 5]);
  });

  test('deterministic', () => {
    const a = optimizedTheta(USACC, 12, { period: 12, level: 0.9 });
    const b = optimizedTheta(USACC, 12, { period: 12, level: 0.9 });
    expect(Array.from(a.mean)).toEqual(Array.from(b.mean));
  });
});
