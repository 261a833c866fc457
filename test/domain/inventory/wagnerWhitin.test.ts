import { wagnerWhitin } from '../../../domain/inventory/wagnerWhitin';
import { createRng } from '../../../domain/inventory/random';

/** Exhaustive search over all 2^(T-1) order patterns (an order is forced in the first period with demand). */
function bruteForce(d: number[], K: number[], h: number[]): number {
  const T = d.length;
  let best = Infinity;
  for (let mask = 0; mask < 1 << T; mask++) {
    let cost = 0;
    let stock = 0;
    let ok = true;
    for (let t = 0; t < T; t++) {
      if (mask & (1 << t)) {
        let q = 0;
        let u = t;
        do q += d[u++]!;
        while (u < T && !(mask & (1 << u)));
        stock += q;
        cost += K[t]!;
      }
      stock -= d[t]!;
      if (stock < -1e-9) {
        ok = false;
        break;
      }
      cost += h[t]! * stock;
    }
    if (ok) best = Math.min(best, cost);
  }
  return best;
}

describe('Wagner-Whitin', () => {
  it('Snyder & Shen 2019 Example 3.9 (§3.7, pp. 72-76 range): T = 4, K = 500, h = 2, d = [90, 120, 80, 70] → 1380', () => {
    // stockpyl 1.0.2 gives wagner_whitin(4, 2, 500, [90, 120, 80, 70]) → Q = [210, 0, 150, 0], cost 1380
    const plan = wagnerWhitin([90, 120, 80, 70], 500, 2);
    expect(plan.total_cost).toBe(1380);
    expect(plan.orderQuantities).toEqual([210, 0, 150, 0]);
    expect(plan.orders).toEqual([
      { period: 0, quantity: 210, covers: [0, 1] },
      { period: 2, quantity: 150, covers: [2, 3] },
    ]);
    expect(plan).toMatchObject({ n_orders: 2, avg_lot_size: 180, setup_cost: 1000, holding_cost: 380 });
  });

  it('Wagner & Whitin (1958), Management Science 5(1) pp. 89-96, 12-month example from the paper (page not checked): h = 1 → 864', () => {
    const d = [69, 29, 36, 61, 61, 26, 34, 67, 45, 67, 79, 56];
    const K = [85, 102, 102, 101, 98, 114, 105, 86, 119, 110, 98, 114];
    const plan = wagnerWhitin(d, K, 1);
    expect(plan.total_cost).toBe(864);
    expect(plan.orders.map((o) => o.period)).toEqual([0, 2, 4, 7, 9, 10]);
    expect(bruteForce(d, K, new Array(12).fill(1))).toBe(864);
  });

  it('matches exhaustive search on random instances with zero demands and per-period costs', () => {
    const rng = createRng(5);
    for (let rep = 0; rep < 60; rep++) {
      const T = 1 + Math.floor(rng() * 11);
      const d = Array.from({ length: T }, () => (rng() < 0.3 ? 0 : Math.floor(rng() * 100)));
      const K = Array.from({ length: T }, () => Math.floor(rng() * 400));
      const h = Array.from({ length: T }, () => Math.round(rng() * 40) / 10);
      const plan = wagnerWhitin(d, K, h);
      expect(plan.total_cost).toBeCloseTo(bruteForce(d, K, h), 9);
      expect(plan.orders.reduce((s, o) => s + o.quantity, 0)).toBe(d.reduce((s, v) => s + v, 0));
      expect(plan.setup_cost + plan.holding_cost).toBeCloseTo(plan.total_cost, 9);
      for (const o of plan.orders) expect(d[o.period]! > 0 || K[o.period] === 0 || o.covers.length > 1).toBe(true);
    }
  });

  it('handles empty, all-zero and leading/trailing zero demand', () => {
    expect(wagnerWhitin([], 10, 1)).toMatchObject({ total_cost: 0, n_orders: 0, avg_lot_size: 0 });
    expect(wagnerWhitin([0, 0, 0], 10, 1)).toMatchObject({ total_cost: 0, n_orders: 0 });
    const plan = wagnerWhitin([0, 0, 5, 0, 5, 0], 100, 1);
    expect(plan.orders).toEqual([{ period: 2, quantity: 10, covers: [2, 3, 4, 5] }]);
    expect(plan.total_cost).toBe(100 + 10);
  });

  it('orders every period with demand when setups are free, never when holding is free', () => {
    expect(wagnerWhitin([3, 4, 0, 5], 0, 1).holding_cost).toBe(0);
    expect(wagnerWhitin([3, 4, 0, 5], 10, 0).n_orders).toBe(1);
  });

  it('plans 10,000 items × 52 weeks, every plan covering its demand exactly (speed: npm run bench:inventory)', () => {
    const rng = createRng(9);
    const demands = Array.from({ length: 10_000 }, () => Array.from({ length: 52 }, () => (rng() < 0.2 ? 0 : Math.floor(rng() * 100))));
    for (const d of demands) {
      const plan = wagnerWhitin(d, 200, 1);
      expect(plan.orderQuantities.reduce((a, b) => a + b, 0)).toBe(d.reduce((a, b) => a + b, 0));
    }
  });
});
