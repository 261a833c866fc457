import { allocateBudget } from '../../../domain/inventory/portfolioBudget';

describe('allocateBudget', () => {
  const cheap = { itemId: 1, weeklyDemand: 10, points: [{ investment: 0, fill_rate: 0.5 }, { investment: 100, fill_rate: 0.9 }, { investment: 300, fill_rate: 0.95 }] };
  const dear = { itemId: 2, weeklyDemand: 10, points: [{ investment: 0, fill_rate: 0.5 }, { investment: 400, fill_rate: 0.9 }, { investment: 1000, fill_rate: 0.95 }] };

  test('a budget that covers every curve caps nothing', () => {
    expect(allocateBudget([cheap, dear], 5000)).toEqual({ caps: new Map(), fillRate: expect.closeTo(0.95, 12), floor: 0, spent: 1300 });
  });

  test('money goes where it buys the most service per unit: the cheap item first, then the rest in part', () => {
    // ratios (demand weight ½): cheap 0.2/100 = 0.002, cheap 0.025/200 = 0.000125, dear 0.2/400 = 0.0005, dear 0.025/600
    // → cheap to 100, then dear up to the budget's end (100 + 300 = 400 of its 400-wide first segment)
    const a = allocateBudget([cheap, dear], 400);
    expect(a.caps).toEqual(new Map([[1, 100], [2, 300]]));
    expect(a.spent).toBe(400);
    expect(a.fillRate).toBeCloseTo(0.5 * 0.9 + 0.5 * (0.5 + 0.4 * 0.75), 12);
  });

  test('points under the hull are skipped: the curve is read through its upper concave hull', () => {
    const bumpy = { itemId: 3, weeklyDemand: 1, points: [{ investment: 0, fill_rate: 0 }, { investment: 10, fill_rate: 0.1 }, { investment: 20, fill_rate: 0.9 }] };
    const a = allocateBudget([bumpy], 15);
    // the hull goes straight from (0, 0) to (20, 0.9): the cap is 15 on that segment
    expect(a.caps).toEqual(new Map([[3, 15]]));
    expect(a.fillRate).toBeCloseTo(0.9 * 0.75, 12);
  });

  test('a budget below the cheapest points keeps every item at its cheapest point', () => {
    const a = allocateBudget([{ ...cheap, points: [{ investment: 50, fill_rate: 0.6 }, ...cheap.points.slice(1)] }], 10);
    expect(a).toMatchObject({ floor: 50, spent: 50, caps: new Map([[1, 50]]) });
  });
});
