/** BOM explosion, the failure-rate fit and the count intervals against hand-computed numbers (docs/CAUSAL.md). */
import { bomCycle, explodeBom, explodedTotals, type BomEdge } from '../../../domain/causal/bom';
import { fitPoissonRate, usageInWindow } from '../../../domain/causal/fit';
import { countInterval, negBinomialQuantiles, poissonQuantiles } from '../../../domain/causal/uncertainty';

// asset type 1: 2 × part 10 and 1 × part 11; part 10 holds 3 × 11; part 11 holds 4 × 12
const tree: BomEdge[] = [
  { asset_type_id: 1, parent_item_id: null, item_id: 10, qty_per_asset: 2 },
  { asset_type_id: 1, parent_item_id: null, item_id: 11, qty_per_asset: 1 },
  { asset_type_id: null, parent_item_id: 10, item_id: 11, qty_per_asset: 3 },
  { asset_type_id: null, parent_item_id: 11, item_id: 12, qty_per_asset: 4 },
  { asset_type_id: 2, parent_item_id: null, item_id: 12, qty_per_asset: 5 },
];

describe('BOM explosion', () => {
  test('three levels, quantities multiplied along each path', () => {
    expect(explodeBom(tree, 1).map((r) => [r.item_id, r.level, r.qty_per_asset, r.path.join('>')])).toEqual([
      [10, 1, 2, '10'], [11, 2, 6, '10>11'], [12, 3, 24, '10>11>12'],
      [11, 1, 1, '11'], [12, 2, 4, '11>12'],
    ]);
  });

  test('a part reached by several paths sums them: 11 → 6 + 1, 12 → 24 + 4', () => {
    expect([...explodedTotals(tree, 1)].sort((a, b) => a[0] - b[0])).toEqual([[10, 2], [11, 7], [12, 28]]);
    expect([...explodedTotals(tree, 2)]).toEqual([[12, 5]]);
    expect(explodeBom(tree, 3)).toEqual([]);
  });

  test('cycle guard: 12 → 10 would close 12 → 10 → 11 → 12', () => {
    expect(bomCycle(tree, 12, 10)).toEqual([12, 10, 11, 12]);
    expect(bomCycle(tree, 10, 10)).toEqual([10, 10]);
    expect(bomCycle(tree, 10, 12)).toBeNull();
  });
});

/** mulberry32: a seeded generator, so the test is the same on every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function poisson(mu: number, u: () => number): number {
  const l = Math.exp(-mu);
  let k = 0;
  let p = 1;
  do {
    k += 1;
    p *= u();
  } while (p > l);
  return k - 1;
}

describe('failure-rate fit', () => {
  test('the exact Garwood interval: 10 events over exposure 1 → [4.7954, 18.3904] at 95 %', () => {
    const f = fitPoissonRate(10, 1, 0.95);
    expect(f.rate).toBe(10);
    expect(f.ci_lower).toBeCloseTo(4.7954, 3);
    expect(f.ci_upper).toBeCloseTo(18.3904, 3);
    const zero = fitPoissonRate(0, 100, 0.95);
    expect(zero.ci_lower).toBe(0);
    expect(zero.ci_upper).toBeCloseTo(3.6889 / 100, 5);
  });

  test('recovers the rate of a known Poisson process within its interval, for several seeds', () => {
    const rate = 0.002; // per part-hour
    const qpa = 2;
    const hoursPerWeek = 1000;
    for (const seed of [1, 2, 3, 4, 5]) {
      const u = rng(seed);
      let events = 0;
      for (let w = 0; w < 104; w += 1) events += poisson(rate * qpa * hoursPerWeek, u);
      const f = fitPoissonRate(events, qpa * hoursPerWeek * 104, 0.99);
      expect(f.ci_lower).toBeLessThan(rate);
      expect(f.ci_upper).toBeGreaterThan(rate);
      expect(Math.abs(f.rate - rate) / rate).toBeLessThan(0.2);
      expect(f.ci_upper - f.ci_lower).toBeLessThan(rate);
    }
  });

  test('usage in a window is prorated by the days each period shares with it', () => {
    const rows = [
      { period_start: '2026-01-01', period_end: '2026-01-10', total_usage: 100 },
      { period_start: '2026-01-11', period_end: '2026-01-20', total_usage: 50 },
    ];
    expect(usageInWindow(rows, '2026-01-06', '2026-01-15')).toBeCloseTo(50 + 25, 10);
    expect(usageInWindow(rows, '2026-02-01', '2026-02-10')).toBe(0);
  });

  test('bad input is refused', () => {
    expect(() => fitPoissonRate(3, 0)).toThrow(/exposure/);
    expect(() => fitPoissonRate(3, 1, 1)).toThrow(/confidence/);
  });
});

describe('count intervals', () => {
  test('Poisson μ = 4 at 90 %: CDF(0) = 0.018, CDF(1) = 0.092 → lower 1; CDF(7) = 0.949, CDF(8) = 0.979 → upper 8', () => {
    expect(countInterval(4, 0.9, 'poisson')).toEqual({ lower: 1, upper: 8 });
    expect(poissonQuantiles(0, [0.5])).toEqual([0]);
  });

  test('negative binomial μ = 4, r = 2 at 90 %: P(0) = 1/9 > 0.05 → lower 0; CDF(10) = 0.946, CDF(11) = 0.961 → upper 11', () => {
    expect(countInterval(4, 0.9, 'negative_binomial', 2)).toEqual({ lower: 0, upper: 11 });
    // a huge size tends to the Poisson
    expect(negBinomialQuantiles(4, 1e9, [0.05, 0.95])).toEqual([1, 8]);
  });

  test('a large mean does not underflow', () => {
    const { lower, upper } = countInterval(10_000, 0.95, 'poisson');
    expect(lower).toBeGreaterThan(9_790);
    expect(lower).toBeLessThan(9_810);
    expect(upper).toBeGreaterThan(10_190);
    expect(upper).toBeLessThan(10_210);
  });

  test('huge means switch to the gamma of the same moments instead of summing millions of terms', () => {
    // Poisson(1e8): ± 1.645 × 1e4 at 90 %
    const p = countInterval(1e8, 0.9, 'poisson');
    expect(Math.abs(p.lower - (1e8 - 16_449))).toBeLessThan(50);
    expect(Math.abs(p.upper - (1e8 + 16_449))).toBeLessThan(50);
    const nb = countInterval(1e8, 0.9, 'negative_binomial', 0.5);
    expect(nb.lower).toBeLessThan(1e7);
    expect(nb.upper).toBeGreaterThan(2e8);
  });
});
