import { autoArima, arima } from '../../../domain/forecast/arima';
import { backtest, planOrigins, scoreOriginForecasts, SpecificationPins } from '../../../domain/forecast/backtest';
import { ets } from '../../../domain/forecast/ets';
import { normal, rng } from '../../support/random';

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

describe('specification reuse: auto ARIMA and auto ETS search at the earliest origin only', () => {
  // an AR(1) around a level with noise: auto.arima picks a small ARMA, ETS an additive model
  const u = rng(7);
  const y: number[] = [];
  let x = 0;
  for (let t = 0; t < 60; t++) {
    x = 0.6 * x + normal(u);
    y.push(50 + 5 * x);
  }
  const opts = { h: 6, period: 1, origins: 3, step: 3 };

  test('later origins re-estimate the earliest origin\'s ARIMA orders; the first origin is the full search', () => {
    const reused = backtest(y, ['arima'], opts);
    const searched = backtest(y, ['arima'], { ...opts, reselect: true });
    const ends = reused.origins.map((o) => o.train_end);
    expect(ends).toEqual([48, 51, 54]);
    // origin 0: identical (nothing pinned yet)
    expect(reused.methods.arima.forecasts[0].mean).toEqual(searched.methods.arima.forecasts[0].mean);
    const first = autoArima(y.slice(0, 48), 6, { period: 1, level: 0.9 }).params;
    for (const [i, end] of ends.entries()) {
      if (i === 0) continue;
      // later origins: exactly forecast::Arima with origin 0's orders, fitted on the longer window
      const fixed = arima(y.slice(0, end), 6, { order: [first.p as number, first.d as number, first.q as number], period: 1, includeConstant: first.constant === true, level: 0.9 });
      const f = reused.methods.arima.forecasts[i];
      for (let j = 0; j < 6; j++) {
        expect(f.mean[j]).toBeCloseTo(fixed.mean[j], 10);
        expect(f.upper[j]).toBeCloseTo(fixed.upper[j], 10);
      }
    }
  });

  test('auto ETS keeps the earliest origin\'s form and re-estimates its parameters', () => {
    const first = ets(y.slice(0, 48), 6, { period: 1, level: 0.9 }).params;
    const pins = new SpecificationPins();
    pins.record('ets', first);
    const params = pins.paramsFor('ets', { ic: 'aicc' })!;
    expect(params).toMatchObject({ ic: 'aicc', pinned: true });
    const later = ets(y.slice(0, 54), 6, { period: 1, level: 0.9, params });
    expect(later.params.model).toBe(first.model);
    expect(later.params.specification).toBe('pinned');
    expect(later.params.candidates).toBe(1);
    expect(later.params.alpha).not.toBe(first.alpha);
    // the backtest does the same
    const bt = backtest(y, ['ets'], opts);
    expect(bt.methods.ets.forecasts[2].mean).toEqual(Array.from(later.mean));
  });

  test('a pinned form the longer history cannot take falls back to the search', () => {
    // multiplicative errors need positive data: after a zero, the pinned MNN is not estimable
    const pos = Array.from({ length: 30 }, (_, t) => 20 + 3 * Math.sin(t) + (t % 4));
    const pinned = ets([...pos, 0, 21, 22], 4, { period: 1, level: 0.9, params: { model: 'MNN', damped: false, pinned: true } });
    expect(pinned.params.model).toMatch(/^ETS\(A,/);
    expect(pinned.params.specification).toBeUndefined();
    // an ARIMA order too long for the series: the search runs instead
    const short = autoArima(pos.slice(0, 12), 3, { period: 1, level: 0.9, params: { order: '5,1,5', seasonal_order: '0,0,0', include_constant: false } });
    expect(short.params.specification).toBeUndefined();
    expect(Number(short.params.p) + Number(short.params.q)).toBeLessThan(10);
  });

  test('non-pinning methods and reselect: true record nothing', () => {
    const pins = new SpecificationPins();
    pins.record('ses', { model: 'ETS(A,N,N)', alpha: 0.3 });
    expect(pins.paramsFor('ses', { alpha: 0.5 })).toEqual({ alpha: 0.5 });
    const off = new SpecificationPins(true);
    off.record('arima', { p: 1, d: 0, q: 0, P: 0, D: 0, Q: 0, constant: true, model: 'ARIMA(1,0,0) with non-zero mean' });
    expect(off.paramsFor('arima', undefined)).toBeUndefined();
    const on = new SpecificationPins();
    on.record('arima', { p: 1, d: 0, q: 0, P: 0, D: 0, Q: 0, constant: true, model: 'ARIMA(1,0,0) with non-zero mean' });
    expect(on.paramsFor('arima', { ic: 'bic' })).toEqual({ ic: 'bic', order: '1,0,0', seasonal_order: '0,0,0', include_constant: true });
  });
});
