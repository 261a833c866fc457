import { backtest, planOrigins, scoreOriginForecasts } from '../../../activities/forecast/engine/backtest';

describe('planOrigins: rolling origins, expanding window', () => {
  test('the last window ends with the series; earlier origins step back', () => {
    const p = planOrigins(20, { h: 6, period: 1, origins: 3 });
    expect(p.horizon).toBe(6);
    expect(p.step).toBe(2); // round(6 / 3)
    expect(p.origins).toEqual([
      { index: 0, train_end: 10, h: 6 },
      { index: 1, train_end: 12, h: 6 },
      { index: 2, train_end: 14, h: 6 },
    ]);
  });

  test('step, horizon and origin count from parameters', () => {
    const p = planOrigins(30, { h: 12, period: 1, origins: 4, step: 3, horizon: 4 });
    expect(p.origins.map((o) => o.train_end)).toEqual([17, 20, 23, 26]);
    expect(p.origins.every((o) => o.h === 4)).toBe(true);
  });

  test('origins with too short a training window are dropped', () => {
    // minTrain defaults to max(3, period + 1) = 5
    const p = planOrigins(13, { h: 4, period: 4, origins: 3, step: 2 });
    expect(p.minTrain).toBe(5);
    expect(p.origins.map((o) => o.train_end)).toEqual([5, 7, 9]);
    const q = planOrigins(12, { h: 4, period: 4, origins: 3, step: 2 });
    expect(q.origins.map((o) => o.train_end)).toEqual([6, 8]);
  });

  test('a short series is scored over a shorter horizon, or not at all', () => {
    const p = planOrigins(8, { h: 6, period: 4, origins: 3 });
    expect(p.horizon).toBe(3);
    expect(p.origins.map((o) => o.train_end)).toEqual([5]);
    expect(planOrigins(5, { h: 6, period: 4 }).origins).toEqual([]);
    expect(planOrigins(3, { h: 2, period: 1 }).origins).toEqual([]);
  });
});

describe('backtest', () => {
  const y = Array.from({ length: 20 }, (_, t) => t + 1); // 1, 2, …, 20

  test('naive on a line: stored forecasts, actuals and pooled metrics', () => {
    const r = backtest(y, ['naive'], { h: 6, period: 1, origins: 3 });
    expect(r.origins.map((o) => o.train_end)).toEqual([10, 12, 14]);
    const m = r.methods.naive;
    expect(m.origins_evaluated).toBe(3);
    expect(m.forecasts.map((f) => f.origin)).toEqual([0, 1, 2]);
    // origin 0 trains on 1..10 and forecasts 10 for 11..16
    expect(m.forecasts[0]).toMatchObject({ origin: 0, train_end: 10, mean: [10, 10, 10, 10, 10, 10], actual: [11, 12, 13, 14, 15, 16] });
    expect(m.forecasts[2].actual).toEqual([15, 16, 17, 18, 19, 20]);
    for (const f of m.forecasts) {
      expect(f.lower).toHaveLength(6);
      for (let i = 0; i < 6; i++) expect(f.lower[i]).toBeLessThanOrEqual(f.mean[i]);
    }
    // errors −1 … −6 at each origin; the in-sample lag-1 scale is 1
    expect(m.metrics.mae).toBeCloseTo(3.5, 12);
    expect(m.metrics.bias).toBeCloseTo(-3.5, 12);
    expect(m.metrics.mase).toBeCloseTo(3.5, 12);
    expect(m.metrics.rmse).toBeCloseTo(Math.sqrt(91 / 6), 12);
    expect(m.metrics.n).toBe(18);
    expect(r.scales).toEqual([1, 1, 1]);
  });

  test('drift is exact on a line', () => {
    const r = backtest(y, ['drift'], { h: 6, period: 1, origins: 3 });
    expect(r.methods.drift.metrics.mae).toBeCloseTo(0, 10);
  });

  test('a method below its minimum history is skipped at that origin, with the reason', () => {
    // holt_winters needs two full periods (8 points for period 4): origins at 6 and 8 → only the second runs
    const s = Array.from({ length: 12 }, (_, t) => 10 + [1, 3, -2, -1][t % 4] + 0.1 * t);
    const r = backtest(s, ['holt_winters', 'naive'], { h: 4, period: 4, origins: 2, step: 2 });
    expect(r.origins.map((o) => o.train_end)).toEqual([6, 8]);
    expect(r.methods.holt_winters.origins_evaluated).toBe(1);
    expect(r.methods.holt_winters.skipped).toEqual([{ origin: 0, reason: expect.stringContaining('two full periods') }]);
    expect(r.methods.naive.origins_evaluated).toBe(2);
  });

  test('unknown methods are skipped, not thrown', () => {
    const r = backtest(y, ['no_such_method'], { h: 3, period: 1 });
    expect(r.methods.no_such_method.origins_evaluated).toBe(0);
    expect(r.methods.no_such_method.metrics.mae).toBeNaN();
  });

  test('scoreOriginForecasts rescoring equals the method metrics', () => {
    const r = backtest(y, ['naive'], { h: 6, period: 1 });
    expect(scoreOriginForecasts(r.methods.naive.forecasts, r.scales)).toEqual(r.methods.naive.metrics);
  });

  test('forecastLength: one fit per origin gives the scored window and the longer forecast; metrics unchanged', () => {
    const plain = backtest(y, ['ses', 'naive'], { h: 3, period: 1, origins: 2 });
    let fits = 0;
    const long = backtest(y, ['ses', 'naive'], { h: 3, period: 1, origins: 2, forecastLength: 8, onFit: () => fits++ });
    expect(fits).toBe(4);
    for (const m of ['ses', 'naive']) {
      expect(long.methods[m].metrics).toEqual(plain.methods[m].metrics);
      for (const [i, f] of long.methods[m].forecasts.entries()) {
        const p = plain.methods[m].forecasts[i];
        expect([f.mean, f.lower, f.upper, f.actual]).toEqual([p.mean, p.lower, p.upper, p.actual]);
        expect(f.extended!.mean).toHaveLength(8);
        expect(f.extended!.mean.slice(0, 3)).toEqual(p.mean);
        expect(f.extended!.upper.slice(0, 3)).toEqual(p.upper);
      }
    }
    expect(plain.methods.ses.forecasts[0].extended).toBeUndefined();
  });
});
