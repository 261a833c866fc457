import { fromBox, nelderMead, nelderMeadBounded, toBox } from '../../../domain/forecast/optim';
import { acf, decompose, isConstant, levelToZ, linearFit, qnorm, solveLinear, variance } from '../../../domain/forecast/stats';

const rosenbrock = (x: Float64Array): number => {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) s += 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2;
  return s;
};

describe('nelderMead', () => {
  test('minimises the 2-d Rosenbrock function from the classic start (-1.2, 1)', () => {
    const r = nelderMead(rosenbrock, [-1.2, 1], { ftol: 1e-14, xtol: 1e-12, maxEvals: 5000 });
    expect(r.converged).toBe(true);
    expect(r.x[0]).toBeCloseTo(1, 4);
    expect(r.x[1]).toBeCloseTo(1, 4);
    expect(r.f).toBeLessThan(1e-8);
  });

  test('minimises the 4-d Rosenbrock function (adaptive coefficients, restarts)', () => {
    const r = nelderMead(rosenbrock, [-1, 1, -1, 1], { ftol: 1e-15, xtol: 1e-12, maxEvals: 40000, restarts: 3, step: 0.5 });
    for (let i = 0; i < 4; i++) expect(r.x[i]).toBeCloseTo(1, 3);
  });

  test('minimises a quadratic exactly enough and counts evaluations', () => {
    let calls = 0;
    const r = nelderMead(
      (x) => {
        calls++;
        return (x[0] - 3) ** 2 + 10 * (x[1] + 2) ** 2 + 5;
      },
      [0, 0],
      { ftol: 1e-14, xtol: 1e-10 },
    );
    expect(r.x[0]).toBeCloseTo(3, 5);
    expect(r.x[1]).toBeCloseTo(-2, 5);
    expect(r.f).toBeCloseTo(5, 10);
    expect(r.evaluations).toBe(calls);
  });

  test('respects the evaluation budget', () => {
    const r = nelderMead(rosenbrock, [-1.2, 1], { maxEvals: 30 });
    expect(r.evaluations).toBeLessThanOrEqual(32);
    expect(r.converged).toBe(false);
  });

  test('treats NaN and Infinity as infeasible', () => {
    // minimum of (x-2)² subject to x <= 1 encoded as Infinity / NaN outside
    const r = nelderMead((x) => (x[0] > 1 ? (x[0] > 1.5 ? NaN : Infinity) : (x[0] - 2) ** 2), [0], { step: 0.3, ftol: 1e-14, xtol: 1e-12 });
    expect(r.x[0]).toBeLessThanOrEqual(1);
    expect(r.x[0]).toBeCloseTo(1, 5);
  });

  test('is deterministic', () => {
    const a = nelderMead(rosenbrock, [-1.2, 1, 0.5], { maxEvals: 500 });
    const b = nelderMead(rosenbrock, [-1.2, 1, 0.5], { maxEvals: 500 });
    expect(Array.from(a.x)).toEqual(Array.from(b.x));
    expect(a.f).toBe(b.f);
  });

  test('zero dimensions evaluate once', () => {
    const r = nelderMead(() => 7, []);
    expect(r.f).toBe(7);
  });
});

describe('nelderMeadBounded', () => {
  test('finds an interior optimum', () => {
    const r = nelderMeadBounded((x) => (x[0] - 0.3) ** 2 + (x[1] - 5) ** 2, [0.5, 1], [0, 0], [1, Infinity], { ftol: 1e-14, xtol: 1e-12 });
    expect(r.x[0]).toBeCloseTo(0.3, 5);
    expect(r.x[1]).toBeCloseTo(5, 5);
  });

  test('an optimum outside the box ends on the bound and never leaves the box', () => {
    const seen: number[] = [];
    const r = nelderMeadBounded(
      (x) => {
        seen.push(x[0], x[1]);
        return (x[0] - 3) ** 2 + (x[1] + 3) ** 2;
      },
      [0.5, 0],
      [0, -1],
      [1, 1],
      { ftol: 1e-14, xtol: 1e-12, maxEvals: 3000 },
    );
    expect(r.x[0]).toBeCloseTo(1, 3);
    expect(r.x[1]).toBeCloseTo(-1, 3);
    for (let i = 0; i < seen.length; i += 2) {
      expect(seen[i]).toBeGreaterThanOrEqual(0);
      expect(seen[i]).toBeLessThanOrEqual(1);
      expect(seen[i + 1]).toBeGreaterThanOrEqual(-1);
      expect(seen[i + 1]).toBeLessThanOrEqual(1);
    }
  });

  test('one-sided bounds and Rosenbrock within generous bounds', () => {
    const r = nelderMeadBounded(rosenbrock, [-1.2, 1], [-5, -2], [Infinity, 5], { ftol: 1e-14, xtol: 1e-12, maxEvals: 5000, restarts: 2 });
    expect(r.x[0]).toBeCloseTo(1, 3);
    expect(r.x[1]).toBeCloseTo(1, 3);
  });

  test('rejects lower > upper', () => {
    expect(() => nelderMeadBounded(() => 0, [0], [1], [0])).toThrow();
  });

  test('toBox and fromBox are inverse', () => {
    for (const x of [0.0001, 0.2, 0.5, 0.9, 0.9999]) expect(toBox(fromBox(x, 0, 1), 0, 1)).toBeCloseTo(x, 10);
    expect(toBox(fromBox(0.95, 0.8, 0.98), 0.8, 0.98)).toBeCloseTo(0.95, 10);
    expect(Number.isFinite(fromBox(1, 0, 1))).toBe(true);
  });
});

describe('stats helpers', () => {
  test('qnorm matches R to 1e-12', () => {
    // R: qnorm(c(0.975, 0.95, 0.8, 0.5, 1e-10, 0.999999))
    expect(qnorm(0.975)).toBeCloseTo(1.959963984540054, 12);
    expect(qnorm(0.95)).toBeCloseTo(1.6448536269514722, 12);
    expect(qnorm(0.8)).toBeCloseTo(0.8416212335729143, 12);
    expect(qnorm(0.5)).toBe(0);
    expect(qnorm(1e-10)).toBeCloseTo(-6.361340902404056, 10);
    expect(qnorm(0.999999)).toBeCloseTo(4.753424308822899, 10);
    expect(qnorm(0)).toBe(-Infinity);
    expect(qnorm(1)).toBe(Infinity);
  });

  test('levelToZ reads fractions and percentages', () => {
    expect(levelToZ(0.9)).toBeCloseTo(1.6448536269514722, 12);
    expect(levelToZ(95)).toBeCloseTo(1.959963984540054, 12);
    expect(levelToZ(0)).toBe(0);
  });

  test('variance, isConstant, linearFit, solveLinear', () => {
    expect(variance([1, 2, 3, 4])).toBeCloseTo(5 / 3, 12);
    expect(variance([5])).toBe(0);
    expect(isConstant([3, 3, 3])).toBe(true);
    expect(isConstant([0, 0, 1e-3])).toBe(false);
    const f = linearFit([3, 5, 7, 9], 1);
    expect(f.slope).toBeCloseTo(2, 12);
    expect(f.intercept).toBeCloseTo(1, 12);
    expect(Array.from(solveLinear([2, 1, 1, 3], [3, 5], 2)!).map((v) => +v.toFixed(12))).toEqual([0.8, 1.4]);
    expect(solveLinear([1, 2, 2, 4], [1, 2], 2)).toBeNull();
  });

  // USAccDeaths (R datasets), monthly 1973-1978
  const usacc = [
    9007, 8106, 8928, 9137, 10017, 10826, 11317, 10744, 9713, 9938, 9161, 8927, 7750, 6981, 8038, 8422, 8714, 9512, 10120, 9823, 8743, 9129, 8710, 8680, 8162, 7306, 8124, 7870, 9387, 9556,
    10093, 9620, 8285, 8466, 8160, 8034, 7717, 7461, 7767, 7925, 8623, 8945, 10078, 9179, 8037, 8488, 7874, 8647, 7792, 6957, 7726, 8106, 8890, 9299, 10625, 9302, 8314, 8850, 8265, 8796,
    7836, 6892, 7791, 8192, 9115, 9434, 10484, 9827, 9110, 9070, 8633, 9240,
  ];

  test('decompose reproduces R decompose() figures', () => {
    // R: decompose(USAccDeaths, "multiplicative")$figure and decompose(USAccDeaths, "additive")$figure
    const mult = [0.907775883737129, 0.82469493107683, 0.914595276582983, 0.940698704933799, 1.03989516810945, 1.08690441987493, 1.19245075131925, 1.11266221495364, 0.986792825613052, 1.0299166599381, 0.969783499025993, 0.993829664834845];
    const add = [-805.892361111111, -1523.30902777778, -740.842361111111, -514.784027777778, 339.649305555555, 744.840972222222, 1679.44097222222, 986.315972222222, -109.292361111111, 263.857638888889, -260.950694444444, -59.0340277777786];
    const dm = decompose(usacc, 12, 'multiplicative')!;
    const da = decompose(usacc, 12, 'additive')!;
    for (let j = 0; j < 12; j++) {
      expect(dm.figure[j]).toBeCloseTo(mult[j], 10);
      expect(da.figure[j]).toBeCloseTo(add[j], 7);
    }
    expect(decompose(usacc.slice(0, 20), 12, 'additive')).toBeNull();
  });

  test('acf reproduces R acf()', () => {
    // R: acf(USAccDeaths, lag.max = 12, plot = FALSE)$acf
    const r = [1, 0.707470946109741, 0.408592374162251, 0.0835094517985267, -0.181667186717397, -0.294435564754396, -0.423103569279272, -0.346061172709842, -0.284640313896272, -0.0647249757204649, 0.16242916307143, 0.413986693300095, 0.62858918230175];
    const a = acf(usacc, 12);
    for (let k = 0; k <= 12; k++) expect(a[k]).toBeCloseTo(r[k], 12);
  });
});
