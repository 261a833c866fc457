import { newsvendorCost } from '../../../domain/inventory/baseStock';
import {
  leadTimeDemand,
  normalDistribution,
  gammaDistribution,
  type DiscreteDistribution,
  type LeadTimeDemand,
} from '../../../domain/inventory/leadTimeDemand';
import {
  evaluateRQ,
  expectedBackorders,
  fillRate,
  optimalReorderPointForQ,
  optimalRQ,
  optimalRQContinuous,
  optimalRQDiscrete,
  reorderPointForCycleService,
  reorderPointForFillRate,
  rqCost,
} from '../../../domain/inventory/rq';

const discrete = (ltd: LeadTimeDemand): DiscreteDistribution => {
  if (ltd.kind !== 'discrete') throw new Error('expected discrete');
  return ltd;
};

// Snyder & Shen, Fundamentals of Supply Chain Theory, 2nd ed. (Wiley 2019), ch. 5. Page ranges are the sections' in
// the table of contents (§5.2 pp. 156-161, §5.3 pp. 161-170, §5.5 pp. 177-180); exact example pages not checked.
// Examples 5.1-5.6: λ = 1300/yr, τ = 150, L = 1/12 yr, h = 0.225, p = 7.5, K = 8, so LTD ~ N(108.33, 43.30).
const example = { holdingCost: 0.225, stockoutCost: 7.5, fixedCost: 8, demandRate: 1300 };
const exampleLtd = normalDistribution(1300 / 12, 150 * Math.sqrt(1 / 12));

describe('(r,Q) with continuous demand: Snyder & Shen examples', () => {
  it('Example 5.1 (§5.2): exact cost of (126.8, 328.5) is 78.07', () => {
    // stockpyl 1.0.2 gives r_q_cost(126.8, 328.5, 0.225, 7.5, 8, 1300, 150, 1/12) = 78.07116250928294
    expect(rqCost(exampleLtd, 126.8, 328.5, example)).toBeCloseTo(78.07116250928294, 9);
  });

  it('Example 5.1: the exact optimum is r = 126.8, Q = 328.5', () => {
    const best = optimalRQContinuous(exampleLtd, example, 'exact');
    expect(best.reorderPoint).toBeCloseTo(126.867, 2);
    expect(best.orderQuantity).toBeCloseTo(328.449, 2);
    expect(best.cost).toBeLessThanOrEqual(78.07116250928294);
    expect(best.cost).toBeCloseTo(78.0711, 3);
  });

  it('Example 5.2 (§5.3): r(Q = 300) = 129.43, and the EOQB approximation', () => {
    // stockpyl 1.0.2 gives r_q_optimal_r_for_q(300, ...) = 129.4272799263067 (bisection to tol 1e-6 on g)
    expect(optimalReorderPointForQ(exampleLtd, 300, example)).toBeCloseTo(129.4272799263067, 5);
    // stockpyl 1.0.2 gives r_q_eoqb_approximation(...) = (128.63781442427097, 308.5737801203754)
    const eoqb = optimalRQContinuous(exampleLtd, example, 'eoqb');
    expect(eoqb.reorderPoint).toBeCloseTo(128.63781442427097, 5);
    expect(eoqb.orderQuantity).toBeCloseTo(308.5737801203754, 10);
  });

  it('Example 5.2: EIL approximation (Algorithm 5.1)', () => {
    // stockpyl 1.0.2 gives r_q_eil_approximation(...) = (213.97044213580244, 318.5901810768729, ...)
    const eil = optimalRQContinuous(exampleLtd, example, 'eil');
    expect(eil.reorderPoint).toBeCloseTo(213.97044213580244, 5);
    expect(eil.orderQuantity).toBeCloseTo(318.5901810768729, 5);
  });

  it('Example 5.6: loss-function approximation', () => {
    // stockpyl 1.0.2 gives r_q_loss_function_approximation(...) = (126.8670634479628, 328.4491421980451)
    const lf = optimalRQContinuous(exampleLtd, example, 'loss_function');
    expect(lf.reorderPoint).toBeCloseTo(126.8670634479628, 5);
    expect(lf.orderQuantity).toBeCloseTo(328.4491421980451, 5);
  });

  it('exact optimum beats every approximation and every nearby (r,Q), also for noisy gamma demand', () => {
    for (const [ltd, params] of [
      [exampleLtd, example],
      [gammaDistribution(0.8, 0.02), { holdingCost: 1, stockoutCost: 20, fixedCost: 100, demandRate: 500 }],
      [normalDistribution(200, 150), { holdingCost: 0.5, stockoutCost: 3, fixedCost: 40, demandRate: 2000 }],
    ] as const) {
      const best = optimalRQContinuous(ltd, params, 'exact');
      for (const m of ['eoqb', 'loss_function', 'eil'] as const) {
        expect(best.cost).toBeLessThanOrEqual(optimalRQContinuous(ltd, params, m).cost + 1e-9);
      }
      for (const dr of [-2, -0.5, 0.5, 2]) {
        for (const dq of [-2, -0.5, 0.5, 2]) {
          expect(best.cost).toBeLessThanOrEqual(rqCost(ltd, best.reorderPoint + dr, best.orderQuantity + dq, params) + 1e-9);
        }
      }
      // At the optimum g(r) = g(r+Q) = optimal cost (Snyder & Shen §5.4 properties).
      const g = (y: number) => newsvendorCost(ltd, y, params.holdingCost, params.stockoutCost);
      expect(g(best.reorderPoint)).toBeCloseTo(best.cost, 6);
      expect(g(best.reorderPoint + best.orderQuantity)).toBeCloseTo(best.cost, 6);
    }
  });
});

describe('(r,Q) with discrete demand: Federgruen-Zheng exact algorithm', () => {
  it('Snyder & Shen Example 5.8 (§5.5): Poisson λ = 1.5, L = 2, h = 20, p = 150, K = 100 → (3, 5), 107.92', () => {
    const ltd = discrete(leadTimeDemand({ type: 'poisson', lambda: 1.5 }, 2));
    const params = { holdingCost: 20, stockoutCost: 150, fixedCost: 100, demandRate: 1.5 };
    const best = optimalRQDiscrete(ltd, params);
    // stockpyl 1.0.2 gives r_q_poisson_exact(20, 150, 100, 1.5, 2) = (3, 5, 107.92358063314975)
    expect(best.reorderPoint).toBe(3);
    expect(best.orderQuantity).toBe(5);
    expect(best.cost).toBeCloseTo(107.92358063314975, 8);
    expect(rqCost(ltd, 3, 5, params)).toBeCloseTo(107.92358063314975, 8);
  });

  it('reproduces stockpyl on further Poisson instances', () => {
    // stockpyl 1.0.2 gives r_q_poisson_exact(1, 10, 50, 5, 3) = (13, 26, 24.0120867157364)
    const a = optimalRQ(leadTimeDemand({ type: 'poisson', lambda: 5 }, 3), { holdingCost: 1, stockoutCost: 10, fixedCost: 50, demandRate: 5 });
    expect(a).toMatchObject({ reorderPoint: 13, orderQuantity: 26 });
    expect(a.cost).toBeCloseTo(24.0120867157364, 9);
    // stockpyl 1.0.2 gives r_q_poisson_exact(2, 25, 20, 12, 1.5) = (18, 19, 38.230182175330526)
    const b = optimalRQ(leadTimeDemand({ type: 'poisson', lambda: 12 }, 1.5), { holdingCost: 2, stockoutCost: 25, fixedCost: 20, demandRate: 12 });
    expect(b).toMatchObject({ reorderPoint: 18, orderQuantity: 19 });
    expect(b.cost).toBeCloseTo(38.230182175330526, 9);
  });

  it('equals brute force over (r,Q) for Poisson, negative binomial and empirical lead-time demand', () => {
    const cases: [LeadTimeDemand, number][] = [
      [leadTimeDemand({ type: 'poisson', lambda: 4 }, 2.5), 4],
      [leadTimeDemand({ type: 'negative_binomial', r: 1.5, p: 0.2 }, 2), 6],
      [leadTimeDemand({ type: 'empirical', values: [0, 0, 1, 4, 7, 2, 3] }, 3), 17 / 7],
    ];
    for (const [ltd, lambda] of cases) {
      const params = { holdingCost: 1.5, stockoutCost: 12, fixedCost: 30, demandRate: lambda };
      const best = optimalRQDiscrete(discrete(ltd), params);
      let bruteCost = Infinity;
      for (let Q = 1; Q <= 80; Q++) for (let r = -10; r <= 60; r++) bruteCost = Math.min(bruteCost, rqCost(ltd, r, Q, params));
      expect(best.cost).toBeCloseTo(bruteCost, 10);
    }
  });

  it('r(Q) for discrete demand is the best window of Q positions', () => {
    const ltd = leadTimeDemand({ type: 'poisson', lambda: 6 }, 1);
    const params = { holdingCost: 1, stockoutCost: 9, fixedCost: 10, demandRate: 6 };
    for (const Q of [1, 3, 10]) {
      const r = optimalReorderPointForQ(ltd, Q, params);
      for (const other of [r - 2, r - 1, r + 1, r + 2]) expect(rqCost(ltd, r, Q, params)).toBeLessThanOrEqual(rqCost(ltd, other, Q, params) + 1e-12);
    }
  });
});

describe('(r,Q) service levels and performance measures', () => {
  const pois = discrete(leadTimeDemand({ type: 'poisson', lambda: 8 }, 1.5));

  it('discrete fill-rate reorder point: r meets the target, r - 1 does not, and r rises with the target', () => {
    let previous = -Infinity;
    for (const beta of [0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999]) {
      for (const Q of [1, 5, 20]) {
        const r = reorderPointForFillRate(pois, Q, beta);
        expect(fillRate(pois, r, Q)).toBeGreaterThanOrEqual(beta);
        expect(fillRate(pois, r - 1, Q)).toBeLessThan(beta);
      }
      const r = reorderPointForFillRate(pois, 5, beta);
      expect(r).toBeGreaterThanOrEqual(previous);
      previous = r;
    }
  });

  it('larger Q needs a lower reorder point for the same fill rate', () => {
    expect(reorderPointForFillRate(pois, 30, 0.95)).toBeLessThanOrEqual(reorderPointForFillRate(pois, 5, 0.95));
  });

  it('discrete fill rate is the exact unit-demand fill rate (1/Q) Σ_{y=r+1}^{r+Q} P(D <= y - 1)', () => {
    for (const [r, Q] of [[8, 4], [12, 1], [3, 10], [-2, 5]] as const) {
      let direct = 0;
      for (let y = r + 1; y <= r + Q; y++) direct += pois.cdf(y - 1);
      expect(fillRate(pois, r, Q)).toBeCloseTo(direct / Q, 12);
    }
  });

  it('cycle service reorder point is the smallest r with P(LTD <= r) >= α', () => {
    for (const alpha of [0.5, 0.9, 0.95, 0.99]) {
      const r = reorderPointForCycleService(pois, alpha);
      expect(pois.cdf(r)).toBeGreaterThanOrEqual(alpha);
      expect(pois.cdf(r - 1)).toBeLessThan(alpha);
    }
    expect(reorderPointForCycleService(exampleLtd, 0.95)).toBeCloseTo(1300 / 12 + 1.6448536269514722 * 150 * Math.sqrt(1 / 12), 8);
  });

  it('continuous fill-rate reorder point hits the target and is monotone', () => {
    let previous = -Infinity;
    for (const beta of [0.8, 0.9, 0.95, 0.99]) {
      const r = reorderPointForFillRate(exampleLtd, 300, beta);
      expect(fillRate(exampleLtd, r, 300)).toBeCloseTo(beta, 9);
      expect(r).toBeGreaterThan(previous);
      previous = r;
    }
  });

  it('discrete expectations equal averages over the uniform inventory position', () => {
    const [r, Q] = [7, 6];
    const e = evaluateRQ(pois, r, Q, 2.5);
    let onHand = 0;
    let backorders = 0;
    for (let y = r + 1; y <= r + Q; y++) {
      backorders += pois.loss(y);
      onHand += y - pois.mean + pois.loss(y);
    }
    expect(e.expectedBackorders).toBeCloseTo(backorders / Q, 12);
    expect(e.expectedOnHand).toBeCloseTo(onHand / Q, 12);
    expect(e.investment).toBeCloseTo(2.5 * e.expectedOnHand, 12);
    expect(e.safetyStock).toBeCloseTo(r - 12, 12);
    expect(e.cycleServiceLevel).toBeCloseTo(pois.cdf(7), 14);
  });

  it('continuous expected backorders equal (1/Q) ∫ n(y) dy over [r, r+Q]', () => {
    const [r, Q] = [110, 250];
    let integral = 0;
    const steps = 5000;
    for (let i = 0; i < steps; i++) integral += exampleLtd.loss(r + ((i + 0.5) * Q) / steps);
    expect(expectedBackorders(exampleLtd, r, Q)).toBeCloseTo((integral * (Q / steps)) / Q, 6);
    const e = evaluateRQ(exampleLtd, r, Q);
    expect(e.expectedOnHand).toBeCloseTo(r + Q / 2 - exampleLtd.mean + e.expectedBackorders, 12);
  });

  it('rejects non-integer Q for discrete demand and bad targets', () => {
    expect(() => fillRate(pois, 3, 2.5)).toThrow(RangeError);
    expect(() => reorderPointForFillRate(pois, 3, 1)).toThrow(RangeError);
  });
});
