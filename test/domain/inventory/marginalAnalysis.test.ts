import { levelsAt, MarginalSku, pickByBudget, pickByTarget, traceCurve } from '../../../domain/inventory/marginalAnalysis';
import { expectedBackordersTable, fillRate } from '../../../domain/inventory/metric';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const eboSku = (mean: number, unitCost: number, maxLevel: number): MarginalSku => {
  const t = expectedBackordersTable(maxLevel, { mean, variance: mean });
  return { unitCost, maxLevel, score: (s) => -t[s] };
};

describe('greedy marginal analysis', () => {
  it('every curve point is optimal for its investment on convex EBO instances (brute force)', () => {
    const r = lcg(3);
    for (let inst = 0; inst < 40; inst++) {
      const skus = Array.from({ length: 3 }, () => eboSku(0.5 + 4 * r(), 1 + Math.floor(r() * 5), 6));
      const curve = traceCurve(skus);
      // All 7³ allocations: best score for each affordable budget.
      const all: { cost: number; score: number }[] = [];
      for (let a = 0; a <= 6; a++)
        for (let b = 0; b <= 6; b++)
          for (let c = 0; c <= 6; c++) {
            const lv = [a, b, c];
            all.push({ cost: lv.reduce((x, l, i) => x + l * skus[i].unitCost, 0), score: lv.reduce((x, l, i) => x + skus[i].score(l), 0) });
          }
      for (let k = 0; k < curve.length; k++) {
        const best = Math.max(...all.filter((x) => x.cost <= curve.investment[k] + 1e-9).map((x) => x.score));
        expect(curve.score[k]).toBeGreaterThanOrEqual(best - 1e-9);
        const lv = levelsAt(curve, k);
        expect(lv.reduce((x, l, i) => x + skus[i].score(l), 0)).toBeCloseTo(curve.score[k], 9);
      }
    }
  });

  it('traces a monotone curve and picks by target and by budget', () => {
    const skus = [eboSku(2, 3, 20), eboSku(0.4, 10, 20), eboSku(6, 1, 30)];
    const curve = traceCurve(skus);
    for (let k = 1; k < curve.length; k++) {
      expect(curve.investment[k]).toBeGreaterThan(curve.investment[k - 1]);
      expect(curve.score[k]).toBeGreaterThan(curve.score[k - 1]);
    }
    const target = pickByTarget(curve, -0.5)!;
    expect(target.score).toBeGreaterThanOrEqual(-0.5);
    expect(target.index === 0 || curve.score[target.index - 1] < -0.5).toBe(true);
    expect(pickByTarget(curve, 1)).toBeNull();
    const budget = pickByBudget(curve, 40)!;
    expect(budget.investment).toBeLessThanOrEqual(40);
    expect(budget.index === curve.length - 1 || curve.investment[budget.index + 1] > 40).toBe(true);
    expect(pickByBudget(curve, -1)).toBeNull();
  });

  it('respects a budget cap, start levels and a stop score while tracing', () => {
    const skus = [eboSku(3, 2, 15), { ...eboSku(1, 5, 15), minLevel: 2 }];
    const capped = traceCurve(skus, { maxInvestment: 25 });
    expect(capped.investment[0]).toBe(10);
    expect(capped.investment[capped.length - 1]).toBeLessThanOrEqual(25);
    expect(levelsAt(capped, 0)).toEqual([0, 2]);
    const stopped = traceCurve(skus, { stopAtScore: -1 });
    expect(stopped.score[stopped.length - 1]).toBeGreaterThanOrEqual(-1);
    expect(stopped.score[stopped.length - 2]).toBeLessThan(-1);
  });

  it('looks ahead across the non-concave start of fill-rate curves', () => {
    // Fill rate with Poisson(8) stays near 0 for the first units, so one-unit greedy starves this SKU.
    const slow: MarginalSku = { unitCost: 1, maxLevel: 25, score: (s) => 100 * fillRate(s, { mean: 8, variance: 8 }) };
    const steady: MarginalSku = { unitCost: 1, maxLevel: 25, score: (s) => 10 * (1 - Math.exp(-s / 3)) };
    const plain = traceCurve([slow, steady], { maxInvestment: 12 });
    const ahead = traceCurve([slow, steady], { maxInvestment: 12, lookahead: 12 });
    expect(ahead.score[ahead.length - 1]).toBeGreaterThan(plain.score[plain.length - 1]);
  });

  it('handles 10,000 SKU-sites with 300 steps each in a few seconds', () => {
    const r = lcg(11);
    const skus: MarginalSku[] = Array.from({ length: 10_000 }, () => {
      const mean = 20 + 100 * r();
      const t = expectedBackordersTable(300, { mean, variance: mean * (1 + r()) });
      return { unitCost: 1 + 50 * r(), maxLevel: 300, score: (s: number) => -t[s] };
    });
    const curve = traceCurve(skus);
    expect(curve.length).toBeGreaterThan(1_000_000);
  });
});
