import { baseStockCost, criticalRatio, optimalBaseStock, periodicBaseStock } from '../../../domain/inventory/baseStock';
import { leadTimeDemand, normalDistribution } from '../../../domain/inventory/leadTimeDemand';
import { createRng, samplePoisson } from '../../../domain/inventory/random';

// Snyder & Shen, Fundamentals of Supply Chain Theory, 2nd ed. (Wiley 2019), §4.3 (pp. 89-114 range; exact example
// pages not checked). Example 4.1/4.3: h = 0.18, p = 0.70, D ~ N(50, 8).
describe('base-stock level (newsvendor critical ratio)', () => {
  it('Example 4.3: S* = 56.60, g(S*) = 1.9976; Example 4.1: g(60) = 2.1561', () => {
    const ltd = normalDistribution(50, 8);
    // stockpyl 1.0.2 gives newsvendor_normal(0.18, 0.70, 50, 8) = (56.60395592743389, 1.9976051931766445)
    const best = optimalBaseStock(ltd, 0.18, 0.7);
    expect(best.baseStockLevel).toBeCloseTo(56.60395592743389, 9);
    expect(best.cost).toBeCloseTo(1.9976051931766445, 12);
    // stockpyl 1.0.2 gives newsvendor_normal_cost(60, 0.18, 0.70, 50, 8) = 2.156131552870387
    expect(baseStockCost(ltd, 60, 0.18, 0.7).cost).toBeCloseTo(2.156131552870387, 12);
  });

  it('normal closed form: S* = μ + zσ and g(S*) = (h + p) σ φ(z)', () => {
    const [mu, sigma, h, p] = [120, 35, 2, 13];
    const best = optimalBaseStock(normalDistribution(mu, sigma), h, p);
    const z = (best.baseStockLevel - mu) / sigma;
    expect(z).toBeCloseTo(1.1107716166367854, 9); // scipy norm.ppf(13/15)
    expect(best.cost).toBeCloseTo(((h + p) * sigma * Math.exp(-z * z / 2)) / Math.sqrt(2 * Math.PI), 10);
    expect(best.criticalRatio).toBeCloseTo(13 / 15, 15);
  });

  it('discrete: Example 4.7 demand Poisson(6), h = 1, p = 4 → S* = 8, g = 3.5701; g(5) = 6.5903', () => {
    const ltd = leadTimeDemand({ type: 'poisson', lambda: 6 }, 1);
    // stockpyl 1.0.2 gives newsvendor_discrete(1, 4, poisson(6)) = (8.0, 3.5701069457709416) and g(5) = 6.590296024616343
    const best = optimalBaseStock(ltd, 1, 4);
    expect(best.baseStockLevel).toBe(8);
    expect(best.cost).toBeCloseTo(3.5701069457709416, 11);
    expect(baseStockCost(ltd, 5, 1, 4).cost).toBeCloseTo(6.590296024616343, 11);
  });

  it('discrete S* is the smallest S with F(S) >= p/(p+h) and no neighbour is cheaper', () => {
    for (const demand of [
      { type: 'poisson', lambda: 13.3 },
      { type: 'negative_binomial', r: 2.2, p: 0.15 },
      { type: 'empirical', values: [0, 3, 3, 8, 12, 1] },
    ] as const) {
      const ltd = leadTimeDemand(demand, 2);
      const best = optimalBaseStock(ltd, 1, 6);
      expect(ltd.cdf(best.baseStockLevel)).toBeGreaterThanOrEqual(criticalRatio(1, 6));
      expect(ltd.cdf(best.baseStockLevel - 1)).toBeLessThan(criticalRatio(1, 6));
      for (const d of [-1, 1]) expect(best.cost).toBeLessThanOrEqual(baseStockCost(ltd, best.baseStockLevel + d, 1, 6).cost);
    }
  });

  it('periodic review sets S on demand over L + R periods and its fill rate matches simulation', () => {
    const lambda = 5;
    const L = 2;
    const res = periodicBaseStock({ type: 'poisson', lambda }, L, 1, 19);
    expect(res.protectionDemand.mean).toBeCloseTo(15, 12);
    expect(res.baseStockLevel).toBe(res.protectionDemand.quantile(0.95));
    // Simulate: the stock available to period t's demand is S minus the demand of the L periods before it (their
    // replenishments are still in transit), so period t fills min(D_t, (S - D_{t-L..t-1})+).
    const rng = createRng(42);
    const T = 200_000;
    const d = Array.from({ length: T }, () => samplePoisson(rng, lambda));
    let filled = 0;
    let total = 0;
    for (let t = L; t < T; t++) {
      const pipeline = d[t - 1]! + d[t - 2]!;
      filled += Math.min(d[t]!, Math.max(0, res.baseStockLevel - pipeline));
      total += d[t]!;
    }
    expect(Math.abs(filled / total - res.fillRate)).toBeLessThan(0.003);
  });
});
