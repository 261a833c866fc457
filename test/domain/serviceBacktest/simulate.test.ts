import { orderFor, simulatePolicy, type SimulationInput } from '../../../domain/serviceBacktest/simulate';

// Every case below was worked out by hand, week by week, with the order of events of simulate.ts: arrivals (paying
// backorders first), the review on the position it sees, then the week's demand.
const weeks = (input: SimulationInput) => simulatePolicy({ ...input, trace: true }).trace!.map((w) => [w.arrived, w.ordered, w.servedFromStock, w.endOnHand, w.endBackorders]);

describe('(s, Q): reorder point 5, quantity 10, lead time 2, 8 on hand, demand 3 4 2 6 5 3', () => {
  const base: SimulationInput = { demand: [3, 4, 2, 6, 5, 3], policy: { kind: 'sQ', reorderPoint: 5, orderQty: 10 }, leadTimeWeeks: 2, mode: 'backorder', initialOnHand: 8 };

  it('backorders: orders in weeks 1 and 4, the first arrives in week 3 and pays the backorder first', () => {
    // [arrived, ordered, served from stock, end on hand, end backorders]
    expect(weeks(base)).toEqual([
      [0, 0, 3, 5, 0], [0, 10, 4, 1, 0], [0, 0, 1, 0, 1], [10, 0, 6, 3, 0], [0, 10, 3, 0, 2], [0, 0, 0, 0, 5],
    ]);
    const r = simulatePolicy(base);
    expect(r.demand).toBe(23);
    expect(r.servedFromStock).toBe(17);
    expect(r.fillRate).toBeCloseTo(17 / 23, 12);
    expect(r.averageOnHand).toBeCloseTo(9 / 6, 12);
    expect(r.stockoutWeeks).toBe(3);
    expect(r.orders).toBe(2);
    expect(r.orderedUnits).toBe(20);
    expect(r.endBackorders).toBe(5);
    // cycles: weeks 0-2 (short in week 2) and 3-5 (short in weeks 4, 5)
    expect([r.cycles, r.cyclesWithoutStockout, r.cycleServiceLevel]).toEqual([2, 0, 0]);
  });

  it('lost sales: the position no longer counts what is owed, so the second order still comes in week 4', () => {
    const r = simulatePolicy({ ...base, mode: 'lost_sales', trace: true });
    expect(r.trace!.map((w) => [w.arrived, w.ordered, w.servedFromStock, w.endOnHand])).toEqual([
      [0, 0, 3, 5], [0, 10, 4, 1], [0, 0, 1, 0], [10, 0, 6, 4], [0, 10, 4, 0], [0, 0, 0, 0],
    ]);
    expect(r.servedFromStock).toBe(18);
    expect(r.fillRate).toBeCloseTo(18 / 23, 12);
    expect(r.lostUnits).toBe(5);
    expect(r.endBackorders).toBe(0);
    expect(r.averageOnHand).toBeCloseTo(10 / 6, 12);
    expect(r.cycleServiceLevel).toBe(0);
  });

  it('orders the smallest multiple of Q that lifts the position above s', () => {
    expect(orderFor({ kind: 'sQ', reorderPoint: 5, orderQty: 10 }, -12)).toBe(20);
    expect(orderFor({ kind: 'sQ', reorderPoint: 5, orderQty: 10 }, -5)).toBe(20);
    expect(orderFor({ kind: 'sQ', reorderPoint: 5, orderQty: 10 }, 5)).toBe(10);
    expect(orderFor({ kind: 'sQ', reorderPoint: 5, orderQty: 10 }, 6)).toBe(0);
  });
});

describe('(R, S): review every 2 weeks, order up to 10, lead time 1, 6 on hand, demand 4 5 3 6 2 7', () => {
  const base: SimulationInput = { demand: [4, 5, 3, 6, 2, 7], policy: { kind: 'RS', reviewWeeks: 2, orderUpTo: 10 }, leadTimeWeeks: 1, mode: 'backorder', initialOnHand: 6 };

  it('backorders: orders 4, 9, 9 in weeks 0, 2, 4; two of four cycles short', () => {
    expect(weeks(base)).toEqual([
      [0, 4, 4, 2, 0], [4, 0, 5, 1, 0], [0, 9, 1, 0, 2], [9, 0, 6, 1, 0], [0, 9, 1, 0, 1], [9, 0, 7, 1, 0],
    ]);
    const r = simulatePolicy(base);
    expect(r.fillRate).toBeCloseTo(24 / 27, 12);
    expect(r.averageOnHand).toBeCloseTo(5 / 6, 12);
    expect([r.orders, r.orderedUnits, r.stockoutWeeks]).toEqual([3, 22, 2]);
    expect([r.cycles, r.cyclesWithoutStockout, r.cycleServiceLevel]).toEqual([4, 2, 0.5]);
  });

  it('lost sales: the week-4 order is 7, not 9, as nothing is owed', () => {
    const r = simulatePolicy({ ...base, mode: 'lost_sales', trace: true });
    expect(r.trace!.map((w) => w.ordered)).toEqual([4, 0, 9, 0, 7, 0]);
    expect(r.fillRate).toBeCloseTo(25 / 27, 12);
    expect(r.lostUnits).toBe(2);
    expect(r.averageOnHand).toBeCloseTo(8 / 6, 12);
    expect([r.cycles, r.cyclesWithoutStockout, r.cycleServiceLevel]).toEqual([4, 3, 0.75]);
    expect(r.orderedUnits).toBe(20);
  });
});

describe('base stock 5, lead time 1, 5 on hand, demand 2 0 3 6 1 (backorders)', () => {
  it('replaces each week what the position lost, owes across the week-3 peak', () => {
    const input: SimulationInput = { demand: [2, 0, 3, 6, 1], policy: { kind: 'base_stock', orderUpTo: 5 }, leadTimeWeeks: 1, mode: 'backorder', initialOnHand: 5 };
    expect(weeks(input)).toEqual([[0, 0, 2, 3, 0], [0, 2, 0, 3, 0], [2, 0, 3, 2, 0], [0, 3, 2, 0, 4], [3, 6, 0, 0, 2]]);
    const r = simulatePolicy(input);
    expect(r.fillRate).toBeCloseTo(7 / 12, 12);
    expect(r.averageOnHand).toBeCloseTo(1.6, 12);
    expect([r.orders, r.orderedUnits, r.stockoutWeeks, r.endBackorders]).toEqual([3, 11, 2, 2]);
    expect([r.cycles, r.cyclesWithoutStockout]).toEqual([3, 1]);
  });
});

describe('(R, s, S): review every 2 weeks, s 3, S 10, lead time 1, 5 on hand, demand 2 2 4 1 5 3 (lost sales)', () => {
  it('skips the week-0 and week-4 reviews (position above s), orders 9 in week 2', () => {
    const r = simulatePolicy({ demand: [2, 2, 4, 1, 5, 3], policy: { kind: 'RsS', reviewWeeks: 2, reorderPoint: 3, orderUpTo: 10 }, leadTimeWeeks: 1, mode: 'lost_sales', initialOnHand: 5, trace: true });
    expect(r.trace!.map((w) => w.position)).toEqual([5, null, 1, null, 8, null]);
    expect(r.trace!.map((w) => w.ordered)).toEqual([0, 0, 9, 0, 0, 0]);
    expect(r.trace!.map((w) => w.endOnHand)).toEqual([3, 1, 0, 8, 3, 0]);
    expect(r.fillRate).toBeCloseTo(14 / 17, 12);
    expect(r.lostUnits).toBe(3);
    expect(r.averageOnHand).toBeCloseTo(2.5, 12);
    expect([r.cycles, r.cyclesWithoutStockout, r.cycleServiceLevel]).toEqual([2, 1, 0.5]);
  });
});

describe('measurement window and edges', () => {
  it('counts only the weeks from measureFrom on: the warm-up shapes the stock, not the figures', () => {
    const input: SimulationInput = { demand: [3, 4, 2, 6, 5, 3], policy: { kind: 'sQ', reorderPoint: 5, orderQty: 10 }, leadTimeWeeks: 2, mode: 'backorder', initialOnHand: 8, measureFrom: 3 };
    const r = simulatePolicy(input);
    // weeks 3-5 of the first case: 6 + 3 + 0 served of 6 + 5 + 3, on hand 3, 0, 0, one order (week 4)
    expect(r.weeks).toBe(3);
    expect(r.demand).toBe(14);
    expect(r.fillRate).toBeCloseTo(9 / 14, 12);
    expect(r.averageOnHand).toBeCloseTo(1, 12);
    expect([r.orders, r.stockoutWeeks, r.cycles]).toEqual([1, 2, 1]);
  });

  it('a zero lead time arrives before the week\'s demand; closed weeks (NaN) have no demand', () => {
    const r = simulatePolicy({ demand: [4, Number.NaN, 4], policy: { kind: 'base_stock', orderUpTo: 4 }, leadTimeWeeks: 0, mode: 'backorder', initialOnHand: 0 });
    expect(r.fillRate).toBe(1);
    expect(r.demand).toBe(8);
    expect(r.orderedUnits).toBe(8);
  });

  it('no demand: no fill rate and no cycle to judge', () => {
    const r = simulatePolicy({ demand: [0, 0, 0], policy: { kind: 'RS', reviewWeeks: 1, orderUpTo: 3 }, leadTimeWeeks: 1, mode: 'backorder', initialOnHand: 3 });
    expect(r.fillRate).toBeNull();
    expect(r.cycleServiceLevel).toBeNull();
    expect(r.averageOnHand).toBe(3);
  });
});
