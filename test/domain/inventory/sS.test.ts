import { newsvendorCost } from '../../../domain/inventory/baseStock';
import { convolutionPower, discreteDistribution, poissonPmf, type DiscreteDistribution } from '../../../domain/inventory/discrete';
import { optimalSS, sSCost } from '../../../domain/inventory/sS';

const poisson = (mean: number) => discreteDistribution(poissonPmf(mean));

/**
 * Independent evaluation: stationary law of the post-order position on {s+1..S} by power iteration, then
 * K P(order) + E[G(position)], with G on the demand over L + 1 periods.
 */
function markovCost(s: number, S: number, h: number, p: number, K: number, demand: DiscreteDistribution, leadTime = 0): number {
  const charged = leadTime === 0 ? demand : discreteDistribution(convolutionPower(demand.pmf, leadTime + 1));
  const n = S - s;
  let pi = new Array<number>(n).fill(1 / n);
  const f = (d: number) => demand.pmf[d] ?? 0;
  for (let it = 0; it < 5000; it++) {
    const next = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) {
      const y = s + 1 + i;
      for (let d = 0; d < demand.pmf.length; d++) {
        const z = y - d;
        next[z > s ? z - s - 1 : n - 1]! += pi[i]! * f(d);
      }
    }
    pi = next;
  }
  let cost = 0;
  for (let i = 0; i < n; i++) {
    const y = s + 1 + i;
    cost += pi[i]! * (newsvendorCost(charged, y, h, p) + K * (1 - demand.cdf(y - s - 1)));
  }
  return cost;
}

describe('(s,S) policy, Zheng-Federgruen exact algorithm', () => {
  it('Snyder & Shen 2019 Example 4.7 (§4.4, pp. 114-123 range): Poisson(6), h = 1, p = 4, K = 5 → (4, 10), 8.0341', () => {
    // stockpyl 1.0.2 gives s_s_discrete_exact(1, 4, 5, True, 6) = (4.0, 10.0, 8.034111561471642)
    const params = { holdingCost: 1, stockoutCost: 4, fixedCost: 5, periodDemand: poisson(6) };
    expect(optimalSS(params)).toEqual({ reorderPoint: 4, orderUpToLevel: 10, cost: expect.closeTo(8.034111561471642, 9) });
    expect(sSCost(4, 10, params)).toBeCloseTo(8.034111561471642, 9);
  });

  it('Zheng & Federgruen (1991) Poisson mean 10, h = 1, p = 9, K = 64 → (6, 40), 35.0215', () => {
    // stockpyl 1.0.2 gives s_s_discrete_exact(1, 9, 64, True, 10) = (6.0, 40.0, 35.021555272320384)
    const best = optimalSS({ holdingCost: 1, stockoutCost: 9, fixedCost: 64, periodDemand: poisson(10) });
    expect(best).toMatchObject({ reorderPoint: 6, orderUpToLevel: 40 });
    expect(best.cost).toBeCloseTo(35.021555272320384, 9);
  });

  it('other K on the same demand agree with stockpyl', () => {
    // stockpyl 1.0.2 gives s_s_discrete_exact(1, 9, K, True, 10) = (12, 14, 6.869033599398677) for K = 1,
    // (9, 22, 15.558833371422063) for K = 10 and (5, 48, 43.307234696277796) for K = 100.
    const cases = [
      [1, 12, 14, 6.869033599398677],
      [10, 9, 22, 15.558833371422063],
      [100, 5, 48, 43.307234696277796],
    ] as const;
    for (const [K, s, S, cost] of cases) {
      const best = optimalSS({ holdingCost: 1, stockoutCost: 9, fixedCost: K, periodDemand: poisson(10) });
      expect(best).toMatchObject({ reorderPoint: s, orderUpToLevel: S });
      expect(best.cost).toBeCloseTo(cost, 9);
    }
  });

  it('the renewal-equation cost equals the Markov-chain cost, with and without lead time', () => {
    const demand = discreteDistribution([0.2, 0.1, 0.3, 0, 0.25, 0.15]);
    for (const [s, S, L] of [[3, 9, 0], [0, 4, 0], [8, 15, 2]] as const) {
      const params = { holdingCost: 2, stockoutCost: 11, fixedCost: 17, periodDemand: demand, leadTime: L };
      expect(sSCost(s, S, params)).toBeCloseTo(markovCost(s, S, 2, 11, 17, demand, L), 9);
    }
  });

  it('is optimal against brute force, for Poisson and for a pmf with mass at zero, with lead time', () => {
    const demands = [poisson(4), discreteDistribution([0.3, 0.1, 0.2, 0.1, 0.1, 0.2])];
    for (const periodDemand of demands) {
      for (const L of [0, 1]) {
        const params = { holdingCost: 1, stockoutCost: 7, fixedCost: 20, periodDemand, leadTime: L };
        const best = optimalSS(params);
        let brute = Infinity;
        for (let s = -10; s < 30; s++) for (let S = s + 1; S <= 45; S++) brute = Math.min(brute, sSCost(s, S, params));
        expect(best.cost).toBeCloseTo(brute, 10);
      }
    }
  });

  it('K = 0 reduces to the base-stock (newsvendor) policy: S = y*, s = y* - 1', () => {
    const demand = poisson(6);
    const best = optimalSS({ holdingCost: 1, stockoutCost: 4, fixedCost: 0, periodDemand: demand });
    // stockpyl 1.0.2 gives newsvendor_poisson(1, 4, 6) = (8.0, 3.5701069457709376)
    expect(best).toMatchObject({ reorderPoint: 7, orderUpToLevel: 8 });
    expect(best.cost).toBeCloseTo(3.5701069457709376, 10);
  });

  it('higher K widens the gap S - s', () => {
    let previous = 0;
    for (const K of [1, 10, 50, 200]) {
      const best = optimalSS({ holdingCost: 1, stockoutCost: 9, fixedCost: K, periodDemand: poisson(10) });
      expect(best.orderUpToLevel - best.reorderPoint).toBeGreaterThanOrEqual(previous);
      previous = best.orderUpToLevel - best.reorderPoint;
    }
  });
});
