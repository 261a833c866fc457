import {
  constrainedExchangeCurve,
  exchangeCurve,
  itemFrequencyPlan,
  kForTargetInventoryValue,
  kForTargetOrders,
  kGrid,
  sumSqrtDemandValue,
  type ExchangeItem,
} from '../../../domain/inventory/exchangeCurve';
import { eoq } from '../../../domain/inventory/eoq';
import { createRng } from '../../../domain/inventory/random';

const items: ExchangeItem[] = [
  { id: 'a', annualDemand: 1200, unitCost: 10 },
  { id: 'b', annualDemand: 300, unitCost: 40 },
  { id: 'c', annualDemand: 50, unitCost: 2 },
];

describe('unconstrained exchange curve', () => {
  it('V(k) = kS/2 and N(k) = S/k with S = Σ sqrt(D c), so V·N = S²/2 along the curve', () => {
    const S = Math.sqrt(12000) + Math.sqrt(12000) + Math.sqrt(100);
    expect(sumSqrtDemandValue(items)).toBeCloseTo(S, 12);
    const { alternatives } = exchangeCurve(items, { points: 25 });
    expect(alternatives).toHaveLength(25);
    for (const p of alternatives) expect(p.inv_val * p.orders_per_year).toBeCloseTo((S * S) / 2, 8);
    for (let i = 1; i < alternatives.length; i++) {
      expect(alternatives[i]!.inv_val).toBeGreaterThan(alternatives[i - 1]!.inv_val);
      expect(alternatives[i]!.orders_per_year).toBeLessThan(alternatives[i - 1]!.orders_per_year);
    }
  });

  it('each point is the portfolio of EOQs for A and r with k = sqrt(2A/r)', () => {
    const A = 50;
    const r = 0.25;
    const k = Math.sqrt((2 * A) / r);
    const [point] = exchangeCurve(items, { kValues: [k] }).alternatives;
    let value = 0;
    let orders = 0;
    for (const it of items) {
      const q = eoq(A, r * it.unitCost, it.annualDemand).orderQuantity;
      value += (it.unitCost * q) / 2;
      orders += it.annualDemand / q;
    }
    expect(point!.inv_val).toBeCloseTo(value, 9);
    expect(point!.orders_per_year).toBeCloseTo(orders, 9);
  });

  it('solves k in closed form for a target number of orders or a target value', () => {
    const k1 = kForTargetOrders(items, 40);
    expect(exchangeCurve(items, { kValues: [k1] }).alternatives[0]!.orders_per_year).toBeCloseTo(40, 10);
    const k2 = kForTargetInventoryValue(items, 5000);
    expect(exchangeCurve(items, { kValues: [k2] }).alternatives[0]!.inv_val).toBeCloseTo(5000, 9);
  });

  it('k grid is geometric between its ends', () => {
    const g = kGrid(2, 200, 5);
    expect(g[0]).toBeCloseTo(2, 14);
    expect(g[4]).toBeCloseTo(200, 10);
    expect(g[2]).toBeCloseTo(20, 10);
  });
});

describe('constrained exchange curve', () => {
  const allowed = [1, 2, 4, 6, 12, 24, 52];

  it('each item takes the allowed frequency of least cost, equal to brute force over the set', () => {
    const rng = createRng(3);
    const many: ExchangeItem[] = Array.from({ length: 200 }, () => ({ annualDemand: Math.floor(rng() * 2000), unitCost: 1 + rng() * 100 }));
    const ks = [5, 20, 60, 150];
    const curve = constrainedExchangeCurve(many, { kValues: ks, allowedOrdersPerYear: allowed }).alternatives;
    ks.forEach((k, idx) => {
      let value = 0;
      let orders = 0;
      for (const it of many) {
        if (it.annualDemand === 0) continue;
        const cost = (f: number) => k * k * f + (it.unitCost * it.annualDemand) / f;
        const f = allowed.reduce((a, b) => (cost(b) < cost(a) ? b : a));
        value += (it.unitCost * it.annualDemand) / (2 * f);
        orders += f;
      }
      expect(curve[idx]!.inv_val).toBeCloseTo(value, 6);
      expect(curve[idx]!.orders_per_year).toBeCloseTo(orders, 9);
    });
  });

  it('lies on or above the unconstrained hyperbola (snapping can only cost more)', () => {
    const S = sumSqrtDemandValue(items);
    for (const p of constrainedExchangeCurve(items, { points: 30, allowedOrdersPerYear: allowed }).alternatives) {
      expect(p.inv_val * p.orders_per_year).toBeGreaterThanOrEqual((S * S) / 2 - 1e-6);
    }
  });

  it('per-item allowed sets override the portfolio set', () => {
    const withOverride = [{ ...items[0]!, allowedOrdersPerYear: [52] }, items[1]!];
    const [p] = constrainedExchangeCurve(withOverride, { kValues: [100], allowedOrdersPerYear: [1] }).alternatives;
    expect(p!.orders_per_year).toBe(53);
  });

  it('item plan lists every allowed frequency with its cost and marks the cheapest as selected', () => {
    const plan = itemFrequencyPlan({ id: 'a', annualDemand: 1200, unitCost: 10 }, 10, { allowedOrdersPerYear: allowed, holdingRate: 0.2 });
    // f* = sqrt(12000)/10 = 10.95 → between 6 and 12; 6·12 = 72 < f*² = 120, so 12 wins.
    expect(plan.unconstrained_orders_per_year).toBeCloseTo(10.954451150103322, 12);
    expect(plan.freq_constraint).toEqual({
      param_name: 'allowed_orders_per_year',
      allowed_orders_per_year: allowed,
      selected_orders_per_year: 12,
      constrained: true,
    });
    const selected = plan.freq_options.filter((o) => o.is_selected);
    expect(selected).toHaveLength(1);
    expect(selected[0]).toMatchObject({ freq: 'M', freq_label: 'monthly', orders_per_year: 12, eoq: 100, cycle_stock_value: 500 });
    const cheapest = plan.freq_options.reduce((a, b) => (b.total_annual_cost < a.total_annual_cost ? b : a));
    expect(cheapest.orders_per_year).toBe(12);
    // A = r k² / 2 = 10, so cost(12) = 10·12 + 0.2·10·1200/24.
    expect(selected[0]!.total_annual_cost).toBeCloseTo(120 + 100, 10);
    expect(selected[0]!.k_equivalent).toBeCloseTo(Math.sqrt(12000) / 12, 12);
  });

  it('handles 10,000 items × 50 points (speed is measured by npm run bench:inventory)', () => {
    const rng = createRng(11);
    const many: ExchangeItem[] = Array.from({ length: 10_000 }, () => ({ annualDemand: Math.floor(rng() * 5000), unitCost: 0.5 + rng() * 200 }));
    expect(exchangeCurve(many, { points: 50 }).alternatives).toHaveLength(50);
    const snapped = constrainedExchangeCurve(many, { points: 50, allowedOrdersPerYear: allowed }).alternatives;
    expect(snapped).toHaveLength(50);
    // snapping to allowed frequencies never beats the free curve's cost at the same k
    expect(snapped.every((p) => Number.isFinite(p.inv_val) && p.inv_val >= 0)).toBe(true);
  });
});
