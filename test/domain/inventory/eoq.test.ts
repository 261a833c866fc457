import { eoq, eoqConstrained, eoqCost, eoqWithBackorders, eoqWithBackordersCost, powerOfTwoPolicy } from '../../../domain/inventory/eoq';

// Snyder & Shen, Fundamentals of Supply Chain Theory, 2nd ed. (Wiley 2019). Page ranges are those of the section in
// the book's table of contents (§3.2 pp. 51-57, §3.3 pp. 57-60, §3.5 pp. 67-70); exact example pages not checked.
describe('EOQ', () => {
  it('Snyder & Shen Example 3.1 (§3.2): K = 8, h = 0.225, λ = 1300 → Q* = 304.05, g* = 68.41', () => {
    const r = eoq(8, 0.225, 1300);
    // stockpyl 1.0.2 gives economic_order_quantity(8, 0.225, 1300) = (304.0467800264368, 68.41052550594829)
    expect(r.orderQuantity).toBeCloseTo(304.0467800264368, 10);
    expect(r.cost).toBeCloseTo(68.41052550594829, 10);
    expect(r.cycleTime * r.ordersPerTime).toBeCloseTo(1, 14);
  });

  it('holding and ordering costs are equal at the optimum and the cost is flat around it', () => {
    const r = eoq(100, 2, 5000);
    expect((100 * 5000) / r.orderQuantity).toBeCloseTo((2 * r.orderQuantity) / 2, 10);
    // Doubling Q raises cost by (2 + 1/2)/2 = 1.25 (the EOQ's square-root insensitivity)
    expect(eoqCost(2 * r.orderQuantity, 100, 2, 5000) / r.cost).toBeCloseTo(1.25, 12);
  });

  it('Snyder & Shen Example 3.8 (§3.5): EOQ with planned backorders, p = 5', () => {
    const r = eoqWithBackorders(8, 0.225, 5, 1300);
    // stockpyl 1.0.2 gives economic_order_quantity_with_backorders(8, 0.225, 5, 1300)
    // = (310.81255515896464, 0.0430622009569378, 66.92136355097325)
    expect(r.orderQuantity).toBeCloseTo(310.81255515896464, 10);
    expect(r.stockoutFraction).toBeCloseTo(0.0430622009569378, 14);
    expect(r.cost).toBeCloseTo(66.92136355097325, 10);
    expect(eoqWithBackordersCost(r.orderQuantity, r.stockoutFraction, 8, 0.225, 5, 1300)).toBeCloseTo(r.cost, 10);
  });

  it('planned backorders tend to the classic EOQ as p grows', () => {
    expect(eoqWithBackorders(8, 0.225, 1e9, 1300).orderQuantity).toBeCloseTo(eoq(8, 0.225, 1300).orderQuantity, 4);
  });
});

describe('power-of-two policy', () => {
  it('weekly base: EOQ cycle of 12.16 weeks rounds to 16 weeks, cost 71 (K/T + hλT/2 at T = 16/52)', () => {
    const r = powerOfTwoPolicy(8, 0.225, 1300, 1 / 52);
    expect(r.exponent).toBe(4);
    expect(r.orderQuantity).toBeCloseTo(400, 10);
    expect(r.cost).toBeCloseTo(71, 10);
  });

  it('never costs more than 6.07% above the EOQ (Roundy 1985; Snyder & Shen §3.3)', () => {
    let worst = 1;
    for (let i = 1; i <= 200; i++) {
      const r = powerOfTwoPolicy(10 * i, 1, 1000, 0.01);
      worst = Math.max(worst, r.costRatio);
    }
    expect(worst).toBeLessThanOrEqual((1 / Math.SQRT2 + Math.SQRT2) / 2 + 1e-12);
    expect(worst).toBeGreaterThan(1.05);
  });
});

describe('EOQ with quantity constraints', () => {
  const K = 8;
  const h = 0.225;
  const lambda = 1300; // Q* = 304.05

  it('is the EOQ when nothing binds', () => {
    const r = eoqConstrained(K, h, lambda, { min: 100, max: 500 });
    expect(r.binding).toBeNull();
    expect(r.orderQuantity).toBeCloseTo(304.0467800264368, 10);
  });

  it('clips to min and max', () => {
    expect(eoqConstrained(K, h, lambda, { min: 400 })).toMatchObject({ orderQuantity: 400, binding: 'min' });
    expect(eoqConstrained(K, h, lambda, { max: 250 })).toMatchObject({ orderQuantity: 250, binding: 'max' });
  });

  it('picks the cheaper neighbouring multiple', () => {
    const r = eoqConstrained(K, h, lambda, { multiple: 48 });
    // 288 and 336 bracket 304.05; 288 costs 68.52, 336 costs 68.75.
    expect(r.orderQuantity).toBe(288);
    expect(r.binding).toBe('multiple');
    expect(r.cost).toBeLessThan(eoqCost(336, K, h, lambda));
  });

  it('respects min, max and multiple together, and brute force agrees', () => {
    const c = { min: 310, max: 1000, multiple: 25 };
    const r = eoqConstrained(K, h, lambda, c);
    let best = Infinity;
    let bestQ = 0;
    for (let q = 25; q <= 1000; q += 25) {
      if (q < 310) continue;
      const cost = eoqCost(q, K, h, lambda);
      if (cost < best) [best, bestQ] = [cost, q];
    }
    expect(r.orderQuantity).toBe(bestQ);
    expect(r.orderQuantity).toBe(325);
  });

  it('rejects infeasible constraints', () => {
    expect(() => eoqConstrained(K, h, lambda, { min: 101, max: 149, multiple: 50 })).toThrow(RangeError);
  });
});
