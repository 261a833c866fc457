import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import { optimizeSerialBaseStock, SerialInstance, serialExpectedCost, toEchelon, toLocal } from '../../../domain/inventory/clarkScarf';

const phi = (z: number) => Math.exp(-z * z / 2) / Math.sqrt(2 * Math.PI);

function poissonPmf(mean: number, kMax: number): number[] {
  const out = [Math.exp(-mean)];
  for (let k = 1; k <= kMax; k++) out.push((out[k - 1] * mean) / k);
  return out;
}

describe('Clark-Scarf serial systems (Chen-Zheng recursion)', () => {
  // Snyder & Shen, Fundamentals of Supply Chain Theory, 2nd ed. (2019), Example 6.1: three stages, echelon holding
  // costs h = (3, 2, 2) and lead times L = (1, 1, 2) for stages 1..3, p = 37.12, demand N(5, 1) per period.
  // The book reports S* ≈ (6.49, 12.02, 22.71). Our fine-grid cost 47.6601 is stable to 1e-5 under a 4× finer grid;
  // stockpyl 1.0.2 gives S = (6.514, 12.012, 22.700) and 47.668653127136345 with its default coarse grid.
  const example61: SerialInstance = {
    stages: [
      { leadTime: 1, echelonHoldingCost: 3 },
      { leadTime: 1, echelonHoldingCost: 2 },
      { leadTime: 2, echelonHoldingCost: 2 },
    ],
    stockoutCost: 37.12,
    demand: { kind: 'normal', mean: 5, sd: 1 },
  };

  it('reproduces Snyder & Shen Example 6.1', () => {
    const sol = optimizeSerialBaseStock(example61);
    expect(sol.echelonBaseStock[0]).toBeCloseTo(6.49, 2);
    expect(sol.echelonBaseStock[1]).toBeCloseTo(12.02, 2);
    expect(sol.echelonBaseStock[2]).toBeCloseTo(22.71, 2);
    expect(sol.expectedCost).toBeCloseTo(47.6601, 3);
    const finer = optimizeSerialBaseStock(example61, { gridStep: 0.005 });
    expect(Math.abs(finer.expectedCost - sol.expectedCost)).toBeLessThan(1e-4);
    expect(sol.localBaseStock[1]).toBeCloseTo(sol.echelonBaseStock[1] - sol.echelonBaseStock[0], 12);
    // stockpyl's levels are within its grid step of ours, and cost no less at our accuracy.
    expect(serialExpectedCost(example61, [6.5144388073261155, 12.012332294949644, 22.700237234889784])).toBeGreaterThanOrEqual(sol.expectedCost - 1e-6);
  });

  it('reduces to the newsvendor for one stage (normal, closed form)', () => {
    const [mu, sd, L, h, p] = [20, 4, 3, 1.5, 18];
    const sol = optimizeSerialBaseStock({ stages: [{ leadTime: L, echelonHoldingCost: h }], stockoutCost: p, demand: { kind: 'normal', mean: mu, sd } });
    const z = normalQuantile(p / (p + h), 0, 1);
    const sdL = sd * Math.sqrt(L);
    expect(sol.echelonBaseStock[0]).toBeCloseTo(mu * L + z * sdL, 2);
    expect(sol.expectedCost).toBeCloseTo((p + h) * sdL * phi(z), 5);
    expect(normalCdf(z, 0, 1)).toBeCloseTo(p / (p + h), 12);
  });

  it('is exact for Poisson demand: one stage against a direct sum', () => {
    const [mu, L, h, p] = [3.3, 2, 2, 25];
    const inst: SerialInstance = { stages: [{ leadTime: L, echelonHoldingCost: h }], stockoutCost: p, demand: { kind: 'poisson', mean: mu } };
    const pmf = poissonPmf(mu * L, 200);
    const direct = (S: number) => pmf.reduce((a, q, d) => a + q * (h * Math.max(0, S - d) + p * Math.max(0, d - S)), 0);
    let best = 0;
    for (let S = 1; S < 40; S++) if (direct(S) < direct(best)) best = S;
    const sol = optimizeSerialBaseStock(inst);
    expect(sol.echelonBaseStock).toEqual([best]);
    expect(sol.expectedCost).toBeCloseTo(direct(best), 10);
    for (const S of [best - 2, best + 3]) expect(serialExpectedCost(inst, [S])).toBeCloseTo(direct(S), 10);
  });

  it('matches stockpyl 1.0.2 (tails 1e-12) on random Poisson systems', () => {
    // stockpyl lists stages N..1; these are reversed to stage 1 first.
    const four: SerialInstance = {
      stages: [
        { echelonHoldingCost: 2.61, leadTime: 3 },
        { echelonHoldingCost: 1.31, leadTime: 1 },
        { echelonHoldingCost: 1.74, leadTime: 3 },
        { echelonHoldingCost: 1.71, leadTime: 1 },
      ],
      stockoutCost: 22.55,
      demand: { kind: 'poisson', mean: 1.17 },
    };
    // stockpyl 1.0.2 gives S = {1: 6, 2: 7, 3: 11, 4: 12} and 54.8784383045702
    const a = optimizeSerialBaseStock(four);
    expect(a.echelonBaseStock).toEqual([6, 7, 11, 12]);
    expect(a.expectedCost).toBeCloseTo(54.8784383045702, 8);
    const three: SerialInstance = {
      stages: [
        { echelonHoldingCost: 2.66, leadTime: 2 },
        { echelonHoldingCost: 2.21, leadTime: 2 },
        { echelonHoldingCost: 1.52, leadTime: 3 },
      ],
      stockoutCost: 37.77,
      demand: { kind: 'poisson', mean: 7.35 },
    };
    // stockpyl 1.0.2 gives S = {1: 21, 2: 37, 3: 62} and 140.05947269692024
    const b = optimizeSerialBaseStock(three);
    expect(b.echelonBaseStock).toEqual([21, 37, 62]);
    expect(b.expectedCost).toBeCloseTo(140.05947269692024, 8);
  });

  it('beats every nearby integer policy (brute force around the optimum)', () => {
    const inst: SerialInstance = {
      stages: [
        { echelonHoldingCost: 2, leadTime: 1 },
        { echelonHoldingCost: 1, leadTime: 2 },
        { echelonHoldingCost: 0.5, leadTime: 1 },
      ],
      stockoutCost: 15,
      demand: { kind: 'poisson', mean: 2.5 },
    };
    const sol = optimizeSerialBaseStock(inst);
    const [a, b, c] = sol.echelonBaseStock;
    let checked = 0;
    for (let i = -2; i <= 2; i++)
      for (let j = -2; j <= 2; j++)
        for (let k = -2; k <= 2; k++) {
          expect(serialExpectedCost(inst, [a + i, b + j, c + k])).toBeGreaterThanOrEqual(sol.expectedCost - 1e-9);
          checked++;
        }
    expect(checked).toBe(125);
  });

  it('treats a discrete pmf like the same Poisson and converts echelon ↔ local', () => {
    const stages = [
      { echelonHoldingCost: 1, leadTime: 2 },
      { echelonHoldingCost: 1, leadTime: 1 },
    ];
    const viaPoisson = optimizeSerialBaseStock({ stages, stockoutCost: 9, demand: { kind: 'poisson', mean: 1.5 } });
    const viaPmf = optimizeSerialBaseStock({ stages, stockoutCost: 9, demand: { kind: 'discrete', pmf: poissonPmf(1.5, 60) } });
    expect(viaPmf.echelonBaseStock).toEqual(viaPoisson.echelonBaseStock);
    expect(viaPmf.expectedCost).toBeCloseTo(viaPoisson.expectedCost, 9);
    expect(toEchelon(toLocal([3, 7, 12]))).toEqual([3, 7, 12]);
    expect(() => optimizeSerialBaseStock({ stages: [{ echelonHoldingCost: 1, leadTime: 1.5 }], stockoutCost: 9, demand: { kind: 'discrete', pmf: [0.5, 0.5] } })).toThrow(/integer/);
  });
});
