import { combinationWeights, combineBands } from '../../../activities/forecast/engine/combination';

describe('combinationWeights', () => {
  test('equal weights', () => {
    expect(combinationWeights([1, 2, 4])).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(combinationWeights([1, 2, 4], 'equal')).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(combinationWeights([])).toEqual([]);
  });

  test('inverse score: w ∝ 1/score', () => {
    const w = combinationWeights([1, 2, 4], 'inverse_score');
    expect(w[0]).toBeCloseTo(4 / 7, 12);
    expect(w[1]).toBeCloseTo(2 / 7, 12);
    expect(w[2]).toBeCloseTo(1 / 7, 12);
  });

  test('inverse score: perfect members share all the weight; non-finite scores fall back to equal', () => {
    expect(combinationWeights([0, 2, 0], 'inverse_score')).toEqual([0.5, 0, 0.5]);
    expect(combinationWeights([1, NaN], 'inverse_score')).toEqual([0.5, 0.5]);
  });
});

describe('combineBands', () => {
  const a = { mean: [10, 20], lower: [8, 15], upper: [12, 25] };
  const b = { mean: [14, 10], lower: [10, 6], upper: [20, 12] };

  test('equal weights: the mean of the means and of the bounds (quantile averaging)', () => {
    const c = combineBands([a, b], [0.5, 0.5]);
    expect(Array.from(c.mean)).toEqual([12, 15]);
    expect(Array.from(c.lower)).toEqual([9, 10.5]);
    expect(Array.from(c.upper)).toEqual([16, 18.5]);
  });

  test('weights are applied to means and bounds alike, and lower <= mean <= upper holds', () => {
    const c = combineBands([a, b], [0.75, 0.25]);
    expect(c.mean[0]).toBeCloseTo(0.75 * 10 + 0.25 * 14, 12);
    expect(c.lower[1]).toBeCloseTo(0.75 * 15 + 0.25 * 6, 12);
    expect(c.upper[1]).toBeCloseTo(0.75 * 25 + 0.25 * 12, 12);
    for (let i = 0; i < 2; i++) {
      expect(c.lower[i]).toBeLessThanOrEqual(c.mean[i]);
      expect(c.mean[i]).toBeLessThanOrEqual(c.upper[i]);
    }
  });

  test('rejects mismatched input', () => {
    expect(() => combineBands([], [])).toThrow();
    expect(() => combineBands([a], [0.5, 0.5])).toThrow();
  });
});
