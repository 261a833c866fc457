import { combinationWeights, combineBands, DEFAULT_MARGIN, DEFAULT_MIN_ORIGINS, DEFAULT_POOL, DEFAULT_WEIGHTS, preferCombination } from '../../../domain/forecast/combination';

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

describe('preferCombination: the tournament\'s choice rule', () => {
  // candidates already in ranking order; the combination's selection_score is its score × (1 − margin)
  const e = (method: string, selection_score: number, origins_evaluated = 3) => ({ method, selection_score, origins_evaluated });
  const order = (xs: ReturnType<typeof e>[], minOrigins?: number) => preferCombination(xs, 'combination', minOrigins).map((x) => x.method);

  test('defaults: ETS, ARIMA and Theta, equal weights, margin 0.5, 3 origins', () => {
    expect(DEFAULT_POOL).toEqual(['ets', 'arima', 'theta']);
    expect(DEFAULT_WEIGHTS).toBe('equal');
    expect(DEFAULT_MARGIN).toBe(0.5);
    expect(DEFAULT_MIN_ORIGINS).toBe(3);
  });

  test('the combination is first unless a single beats its selection score', () => {
    // combination score 1.0 → selection 0.5; ets 0.6 and theta 0.8 beat the plain score but not the margin
    expect(order([e('ets', 0.6), e('theta', 0.8), e('combination', 0.5)])).toEqual(['combination', 'ets', 'theta']);
    // arima 0.4 < 0.5: clear evidence, it comes first; the others stay after the combination, in their order
    expect(order([e('arima', 0.4), e('ets', 0.6), e('combination', 0.5), e('naive', 2)])).toEqual(['arima', 'combination', 'ets', 'naive']);
    // two overriding singles keep their ranking order
    expect(order([e('holt', 0.2), e('drift', 0.3), e('combination', 0.5)])).toEqual(['holt', 'drift', 'combination']);
  });

  test('a tie does not override: strictly lower only', () => {
    expect(order([e('naive', 0), e('combination', 0)])).toEqual(['combination', 'naive']);
  });

  test('too few origins: a single scored on fewer than minOrigins origins never overrides', () => {
    expect(order([e('holt', 0.1, 2), e('combination', 0.5, 2)])).toEqual(['combination', 'holt']);
    expect(order([e('holt', 0.1, 2), e('combination', 0.5, 2)], 2)).toEqual(['holt', 'combination']);
    // nor one scored on fewer origins than the combination itself
    expect(order([e('holt', 0.1, 3), e('combination', 0.5, 4)])).toEqual(['combination', 'holt']);
    expect(order([e('holt', 0.1, 4), e('combination', 0.5, 4)])).toEqual(['holt', 'combination']);
  });

  test('unscored (NaN) on either side: the combination stands', () => {
    expect(order([e('ets', 0.1), e('combination', NaN)])).toEqual(['combination', 'ets']);
    expect(order([e('combination', 0.5), e('ets', NaN)])).toEqual(['combination', 'ets']);
  });

  test('without a combination the ranking is unchanged', () => {
    const xs = [e('ets', 0.6), e('theta', 0.8)];
    expect(order(xs)).toEqual(['ets', 'theta']);
    expect(preferCombination(xs, 'combination')).not.toBe(xs);
  });
});
