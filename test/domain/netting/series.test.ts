import { fromThousandths, netSeries, toThousandths } from '../../../domain/netting/series';

test('a SKU-site over a 4-week period: actuals and firm demand consume together, in thousandths', () => {
  // forecast 10 a week; week 0: 4 ordered + 3 firm, week 1: 25 ordered, week 2: 5 firm; B = F = 1.
  // w0: 7 own. w1: 10 own, 3 left in w0, 10 of w2, 2 over. w2: nothing left in w1 or w2, 5 of w3.
  const r = netSeries(
    { forecast: [10, 10, 10, 10], actual: [4, 25, 0, 0], firm_demand: [3, 0, 5, 0], supply_plan: [0, 20] },
    { period_weeks: 4, backward_weeks: 1, forward_weeks: 1 },
  );
  const units = (xs: number[]) => xs.map((x) => x / 1000);
  expect(units(r.demand)).toEqual([7, 25, 5, 0]);
  expect(units(r.consumed)).toEqual([10, 10, 10, 5]);
  expect(units(r.netted)).toEqual([0, 0, 0, 5]);
  expect(units(r.over_consumption)).toEqual([0, 2, 0, 0]);
  expect(units(r.supply_plan)).toEqual([0, 20, 0, 0]);
  expect(r.totals).toEqual({
    forecast: 40000, actual: 29000, firm_demand: 8000, consumed: 35000, netted: 5000, over_consumption: 2000, supply_plan: 20000,
    consumed_same: 17000, consumed_backward: 3000, consumed_forward: 15000,
  });
  expect(r.direction).toBe('both');
});

test('fractions are rounded to thousandths once, then everything reconciles exactly', () => {
  const r = netSeries(
    { forecast: [0.1, 0.2, 0.3333333], actual: [0.3, 0, 0], firm_demand: [null, null, null], supply_plan: [] },
    { period_weeks: 3, backward_weeks: 0, forward_weeks: 2 },
  );
  expect(r.forecast).toEqual([100, 200, 333]);
  expect(r.consumed).toEqual([100, 200, 0]);
  expect(r.netted).toEqual([0, 0, 333]);
  expect(r.totals.forecast - r.totals.consumed).toBe(r.totals.netted);
  expect(fromThousandths(r.totals.netted)).toBe('0.333');
});

test('a forecast shorter than the period counts 0 in the weeks it lacks', () => {
  const r = netSeries({ forecast: [5], actual: [0, 3], firm_demand: [], supply_plan: [] }, { period_weeks: 2, backward_weeks: 1, forward_weeks: 0 });
  expect([r.consumed, r.over_consumption, r.direction]).toEqual([[3000, 0], [0, 0], 'backward']);
});

test('thousandths and their decimal text', () => {
  expect([toThousandths(1.2345), toThousandths(-3), toThousandths(Number.NaN), toThousandths(null), toThousandths(2)]).toEqual([1235, 0, 0, 0, 2000]);
  expect([fromThousandths(0), fromThousandths(5), fromThousandths(1500), fromThousandths(12345), fromThousandths(-250)]).toEqual(['0', '0.005', '1.5', '12.345', '-0.25']);
});
