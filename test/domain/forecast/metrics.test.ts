import {
  accuracy,
  bias,
  coverage,
  intervalScore,
  mae,
  mase,
  maseScale,
  MetricAccumulator,
  pinball,
  rmse,
  scoreOf,
  smape,
} from '../../../domain/forecast/metrics';

describe('point-error metrics', () => {
  // errors (forecast − actual): 1, 0, −2
  const actual = [1, 2, 3];
  const forecast = [2, 2, 1];

  test('mae, rmse and bias (forecast − actual: > 0 means over-forecast)', () => {
    expect(mae(actual, forecast)).toBeCloseTo(1, 12);
    expect(rmse(actual, forecast)).toBeCloseTo(Math.sqrt(5 / 3), 12);
    expect(bias(actual, forecast)).toBeCloseTo(-1 / 3, 12);
    expect(bias([10, 10], [12, 14])).toBe(3);
  });

  test('non-finite actuals are skipped; nothing to score gives NaN', () => {
    expect(mae([1, NaN, 3], [2, 100, 1])).toBeCloseTo(1.5, 12);
    expect(mae([NaN], [1])).toBeNaN();
    expect(mae([], [])).toBeNaN();
  });

  test('sMAPE: M-competition definition 200|F−A|/(|A|+|F|), 0/0 counts 0, bounded by 200', () => {
    // terms: 200·10/210, 0 (both zero), 200 (forecast 0 of a positive actual)
    expect(smape([100, 0, 50], [110, 0, 0])).toBeCloseTo((200 * 10) / 210 / 3 + 0 + 200 / 3, 10);
    expect(smape([5], [5])).toBe(0);
    expect(smape([1], [-1])).toBe(200);
    expect(smape([0, 0], [0, 3])).toBe(100);
  });
});

describe('MASE scale (Hyndman & Koehler 2006)', () => {
  test('seasonal naive lag = period when n > period', () => {
    const y = [1, 3, 2, 5, 4, 6, 5, 8];
    // lag-4 differences 3, 3, 3, 3
    expect(maseScale(y, 4)).toEqual({ scale: 3, lag: 4, rule: 'seasonal' });
    // period 1: lag-1 differences 2, 1, 3, 1, 2, 1, 3
    expect(maseScale(y, 1)).toEqual({ scale: 13 / 7, lag: 1, rule: 'lag1' });
  });

  test('lag 1 when the history is not longer than one period', () => {
    expect(maseScale([1, 3, 2], 4)).toEqual({ scale: 1.5, lag: 1, rule: 'lag1' });
    expect(maseScale([1, 3, 2, 6], 4)).toEqual({ scale: 7 / 3, lag: 1, rule: 'lag1' });
  });

  test('zero scale falls back: lag 1, then mean |y|, then 1', () => {
    // the lag-2 differences are all 0, the lag-1 ones are 1
    expect(maseScale([1, 2, 1, 2], 2)).toEqual({ scale: 1, lag: 1, rule: 'lag1' });
    expect(maseScale([5, 5, 5], 1)).toEqual({ scale: 5, lag: 0, rule: 'mean_abs' });
    expect(maseScale([0, 0, 0, 0], 1)).toEqual({ scale: 1, lag: 0, rule: 'unit' });
    expect(maseScale([], 12)).toEqual({ scale: 1, lag: 0, rule: 'unit' });
  });

  test('intermittent history: the ordinary lag-1 scale applies', () => {
    // |0−0|, |3−0|, |0−3|, |0−0|, |2−0| → 8/5
    expect(maseScale([0, 0, 3, 0, 0, 2], 1).scale).toBeCloseTo(8 / 5, 12);
  });

  test('mase = out-of-sample MAE / in-sample scale', () => {
    const insample = [1, 3, 2, 5, 4, 6, 5, 8];
    expect(mase([10, 12], [7, 12], insample, 4)).toBeCloseTo(1.5 / 3, 12);
    expect(mase([10, 12], [7, 12], insample, 1)).toBeCloseTo(1.5 / (13 / 7), 12);
  });
});

describe('interval metrics', () => {
  test('coverage: share of actuals inside [lower, upper], bounds inclusive', () => {
    expect(coverage([1, 5, 10], [0, 6, 10], [2, 7, 12])).toBeCloseTo(2 / 3, 12);
    expect(coverage([1, 2], [1, 2], [1, 2])).toBe(1);
  });

  test('pinball loss', () => {
    expect(pinball([10], [8], 0.9)).toBeCloseTo(1.8, 12);
    expect(pinball([10], [12], 0.9)).toBeCloseTo(0.2, 12);
    expect(pinball([10, 10], [8, 12], 0.5)).toBeCloseTo(1, 12);
  });

  test('Winkler interval score', () => {
    // inside: the width; below: width + (2/α)(l − A)
    expect(intervalScore([6.5], [6], [7], 0.1)).toBeCloseTo(1, 12);
    expect(intervalScore([5], [6], [7], 0.1)).toBeCloseTo(21, 12);
    expect(intervalScore([9], [6], [7], 0.1)).toBeCloseTo(41, 12);
  });
});

describe('MetricAccumulator and accuracy()', () => {
  test('pools windows with their own MASE scales', () => {
    const acc = new MetricAccumulator();
    acc.add([10, 10], [12, 8], 2, [11, 11], [12, 12]); // |e| 2, 2, scaled 1, 1; coverage 0/2
    acc.add([0, 0], [1, 1], 0.5, [0, 0], [2, 2]); // |e| 1, 1, scaled 2, 2; coverage 2/2
    const m = acc.result();
    expect(m.n).toBe(4);
    expect(m.mae).toBeCloseTo(1.5, 12);
    expect(m.rmse).toBeCloseTo(Math.sqrt((4 + 4 + 1 + 1) / 4), 12);
    expect(m.mase).toBeCloseTo(1.5, 12);
    expect(m.bias).toBeCloseTo((2 - 2 + 1 + 1) / 4, 12);
    expect(m.coverage_90).toBeCloseTo(0.5, 12);
    // Winkler: window 1 width 1 + 20·(11 − 10) each; window 2 width 2 each
    expect(m.interval_score_90).toBeCloseTo((21 + 21 + 2 + 2) / 4, 12);
    expect(m.smape).toBeCloseTo(((200 * 2) / 22 + (200 * 2) / 18 + 200 + 200) / 4, 10);
  });

  test('accuracy() of one window equals the single metrics', () => {
    const insample = [3, 4, 6, 5, 7, 8];
    const actual = [9, 10, 8];
    const f = [8, 8, 9];
    const m = accuracy(actual, f, insample, 1, [7, 7, 7], [9, 9, 9]);
    expect(m.mae).toBeCloseTo(mae(actual, f), 12);
    expect(m.rmse).toBeCloseTo(rmse(actual, f), 12);
    expect(m.mase).toBeCloseTo(mase(actual, f, insample, 1), 12);
    expect(m.smape).toBeCloseTo(smape(actual, f), 12);
    expect(m.bias).toBeCloseTo(bias(actual, f), 12);
    expect(m.coverage_90).toBeCloseTo(2 / 3, 12);
  });

  test('scoreOf: the metric, |bias|, |coverage − 0.9|', () => {
    const m = { mae: 1, rmse: 2, mase: 0.5, smape: 10, bias: -3, coverage_90: 0.75, interval_score_90: 7, n: 4 };
    expect(scoreOf(m, 'mase')).toBe(0.5);
    expect(scoreOf(m, 'rmse')).toBe(2);
    expect(scoreOf(m, 'bias')).toBe(3);
    expect(scoreOf(m, 'abs_bias')).toBe(3);
    expect(scoreOf(m, 'coverage_90')).toBeCloseTo(0.15, 12);
    expect(scoreOf(m, 'interval_score_90')).toBe(7);
  });
});
