import { leadTimeDemand, normalDistribution } from '../../../domain/inventory/leadTimeDemand';
import { evaluatePeriodic, levelForPeriodicCycleService, levelForPeriodicFillRate, periodicFillRate, type PeriodicDemand } from '../../../domain/inventory/periodicReview';
import { createRng } from '../../../domain/inventory/random';
import { simulatePolicy } from '../../../domain/serviceBacktest/simulate';

// weekly demand 0, 1 or 2 units, each with probability 1/3 (mean 1); lead time 1 week, weekly review
const weekly = { type: 'empirical' as const, values: [0, 1, 2] };
const periodic: PeriodicDemand = { lead: leadTimeDemand(weekly, 1), ends: [leadTimeDemand(weekly, 2)], periodMean: 1 };

describe('periodic review (R, nQ) in weekly buckets', () => {
  test('a hand-computed week: r = 1, Q = 2, lead time 1', () => {
    // the position after a review is 2 or 3 with probability 1/2 each; two weeks of demand is 0..4 with 1,2,3,2,1 ninths
    // E(D(2) − 2)⁺ = 4/9, E(D(2) − 3)⁺ = 1/9, and one week never exceeds 2: short per week 5/18, fill 13/18
    const e = evaluatePeriodic(periodic, 1, 2);
    expect(e.fillRate).toBeCloseTo(13 / 18, 12);
    expect(e.expectedBackorders).toBeCloseTo(5 / 18, 12);
    // end-of-week on hand E(IP − D(2))⁺ = 2.5 − 2 + 5/18
    expect(e.expectedOnHand).toBeCloseTo(0.5 + 5 / 18, 12);
    // the lowest position after a review is 2: P(D(2) ≤ 2) = 6/9
    expect(e.cycleServiceLevel).toBeCloseTo(6 / 9, 12);
  });

  test('the formula is what the week-by-week replay delivers over a long demand path', () => {
    const rng = createRng(11);
    const demand = Array.from({ length: 200_000 }, () => Math.floor(rng() * 3));
    const replay = simulatePolicy({ demand, policy: { kind: 'sQ', reorderPoint: 1, orderQty: 2 }, leadTimeWeeks: 1, mode: 'backorder', initialOnHand: 3, measureFrom: 100 });
    expect(replay.fillRate!).toBeCloseTo(13 / 18, 2);
    expect(replay.averageOnHand).toBeCloseTo(0.5 + 5 / 18, 2);
  });

  test('Poisson demand, a 5-week lead time: the sized level delivers its fill rate in the replay, where the continuous-review level falls short', () => {
    const poisson = { type: 'poisson' as const, lambda: 20 };
    const d: PeriodicDemand = { lead: leadTimeDemand(poisson, 5), ends: [leadTimeDemand(poisson, 6)], periodMean: 20 };
    const Q = 203;
    const r = levelForPeriodicFillRate(d, Q, 0.95);
    expect(periodicFillRate(d, r, Q)).toBeGreaterThanOrEqual(0.95);
    expect(periodicFillRate(d, r - 1, Q)).toBeLessThan(0.95);
    const rng = createRng(5);
    const demand = Array.from({ length: 100_000 }, () => {
      // Knuth's Poisson draw: enough for a test of λ = 20
      let k = 0, p = 1;
      const limit = Math.exp(-20);
      for (;;) {
        p *= rng();
        if (p <= limit) return k;
        k += 1;
      }
    });
    const replay = (level: number) => simulatePolicy({ demand, policy: { kind: 'sQ', reorderPoint: level, orderQty: Q }, leadTimeWeeks: 5, mode: 'backorder', initialOnHand: level + Q, measureFrom: 500 }).fillRate!;
    expect(Math.abs(replay(r) - periodicFillRate(d, r, Q))).toBeLessThan(0.005);
    // sized over the lead time alone (continuous review), the level is a week of demand short
    expect(replay(r - 20)).toBeLessThan(0.94);
  });

  test('a longer review period: the cycle covers R weeks of demand and the on hand averages the R weeks', () => {
    const d: PeriodicDemand = { lead: leadTimeDemand(weekly, 1), ends: [leadTimeDemand(weekly, 2), leadTimeDemand(weekly, 3)], periodMean: 1 };
    // order up to S = 4 every two weeks (window 1 at r = 3): short per cycle E(D(3) − 4)⁺ − E(D(1) − 4)⁺;
    // D(3) is 0..6 with 1,3,6,7,6,3,1 / 27, so E(D(3) − 4)⁺ = (3·1 + 1·2) / 27 = 5/27
    const e = evaluatePeriodic(d, 3, 1);
    expect(e.fillRate).toBeCloseTo(1 - 5 / 27 / 2, 12);
    // on hand: week 1 of the cycle E(4 − D(2))⁺ = 4 − 2 + 0, week 2 E(4 − D(3))⁺ = 4 − 3 + 5/27
    expect(e.expectedOnHand).toBeCloseTo((2 + 1 + 5 / 27) / 2, 12);
    const rng = createRng(3);
    const replay = simulatePolicy({ demand: Array.from({ length: 200_000 }, () => Math.floor(rng() * 3)), policy: { kind: 'RS', reviewWeeks: 2, orderUpTo: 4 }, leadTimeWeeks: 1, mode: 'backorder', initialOnHand: 4, measureFrom: 100 });
    expect(replay.fillRate!).toBeCloseTo(1 - 5 / 54, 2);
    expect(replay.averageOnHand).toBeCloseTo((3 + 5 / 27) / 2, 2);
  });

  test('continuous demand: the level is found on the line, and order-up-to (window 0) reads the loss at S', () => {
    const d: PeriodicDemand = { lead: normalDistribution(100, 20), ends: [normalDistribution(150, Math.sqrt(600))], periodMean: 50 };
    const S = levelForPeriodicFillRate(d, 0, 0.98);
    expect(periodicFillRate(d, S, 0)).toBeCloseTo(0.98, 6);
    expect(1 - (d.ends[0].loss(S) - d.lead.loss(S)) / 50).toBeCloseTo(0.98, 6);
    expect(levelForPeriodicCycleService(d, 0.9)).toBeCloseTo(150 + 1.2815515655 * Math.sqrt(600), 6);
  });

  test('cycle service on the integers: the smallest r whose lowest position after a review reaches the quantile', () => {
    // P(D(2) ≤ 2) = 6/9 < 0.8 ≤ P(D(2) ≤ 3) = 8/9: the position must be at least 3 after a review, so r = 2
    expect(levelForPeriodicCycleService(periodic, 0.8)).toBe(2);
    expect(evaluatePeriodic(periodic, 2, 2).cycleServiceLevel).toBeCloseTo(8 / 9, 12);
  });

  test('targets outside (0, 1) are refused', () => {
    expect(() => levelForPeriodicFillRate(periodic, 2, 1)).toThrow(RangeError);
    expect(() => levelForPeriodicCycleService(periodic, 0)).toThrow(RangeError);
  });
});
