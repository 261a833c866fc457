import { classify, metricValue, normaliseThresholds, ThresholdError } from '../../domain/abc/classify';

test('a known Pareto set: exact class counts with 0.8 / 0.95 / 1', () => {
  // 20 series: two make 80 % of the total, the next three 15 %, the last fifteen 5 %
  const values = [500, 300, 60, 50, 40, ...Array(15).fill(50 / 15)];
  const c = classify(values, [0.8, 0.95, 1]);
  const counts = [0, 0, 0];
  c.classIndex.forEach((k) => (counts[k] += 1));
  expect(counts).toEqual([2, 3, 15]);
  expect(c.total).toBeCloseTo(1000, 9);
  expect(Array.from(c.rank.slice(0, 5))).toEqual([1, 2, 3, 4, 5]);
  expect(c.cumulativeShare[1]).toBeCloseTo(0.8, 12);
  expect(c.share[0]).toBeCloseTo(0.5, 12);
});

test('ranking: largest first, ties in input order; zero and negative values fall in the last class', () => {
  const c = classify([10, 0, 90, 10, -5], [0.8, 0.95, 1]);
  expect(Array.from(c.rank)).toEqual([2, 4, 1, 3, 5]);
  expect(Array.from(c.classIndex)).toEqual([1, 2, 0, 1, 2]);
});

test('a class fills until it reaches its share: the series that crosses the threshold is in it, the top series always in A', () => {
  expect(Array.from(classify([90, 10], [0.8, 0.95, 1]).classIndex)).toEqual([0, 1]);
  expect(Array.from(classify([50, 30, 20], [0.8, 0.95, 1]).classIndex)).toEqual([0, 0, 1]);
  expect(Array.from(classify([50, 31, 19], [0.8, 0.95, 1]).classIndex)).toEqual([0, 0, 1]);
  expect(Array.from(classify([50, 29, 21], [0.8, 0.95, 1]).classIndex)).toEqual([0, 0, 0]);
});

test('all zero: everything in the last class', () => {
  expect(Array.from(classify([0, 0, 0], [0.5, 1]).classIndex)).toEqual([1, 1, 1]);
});

test('metrics', () => {
  const f = { volume: 10, frequency: 4, unit_price: 3, avg_unit_cost: 2 };
  expect(metricValue('volume', f)).toBe(10);
  expect(metricValue('frequency', f)).toBe(4);
  expect(metricValue('annual_value', f)).toBe(30);
  expect(metricValue('margin', f)).toBe(10);
  expect(metricValue('annual_value', { ...f, unit_price: 0 })).toBe(0);
  expect(metricValue('margin', { ...f, avg_unit_cost: 0 })).toBe(0);
});

describe('thresholds', () => {
  const L = ['A', 'B', 'C'];
  test('list, object keyed by label, last implicit, percentages', () => {
    expect(normaliseThresholds(L, [0.8, 0.95, 1])).toEqual([0.8, 0.95, 1]);
    expect(normaliseThresholds(L, { A: 0.8, B: 0.95, C: 1 })).toEqual([0.8, 0.95, 1]);
    expect(normaliseThresholds(L, { B: 0.95, A: 0.8 })).toEqual([0.8, 0.95, 1]);
    expect(normaliseThresholds(L, [0.7, 0.9])).toEqual([0.7, 0.9, 1]);
    expect(normaliseThresholds(L, [80, 95, 100])).toEqual([0.8, 0.95, 1]);
    expect(normaliseThresholds(L, { A: 80, B: 95 })).toEqual([0.8, 0.95, 1]);
  });
  test('refusals name the problem', () => {
    expect(() => normaliseThresholds(L, { A: 0.8, X: 0.9 })).toThrow(/'X' is not one of the class labels/);
    expect(() => normaliseThresholds(L, { B: 0.9 })).toThrow(/class 'A' has no threshold/);
    expect(() => normaliseThresholds(L, [0.9, 0.8, 1])).toThrow(/must increase/);
    expect(() => normaliseThresholds(L, [0.8, 0.9, 0.95])).toThrow(/must close at 1/);
    expect(() => normaliseThresholds(L, [0.8])).toThrow(ThresholdError);
  });
});
