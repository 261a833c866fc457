import { backtest } from '../../../domain/forecast/backtest';
import { chooseBest, type StoredMethod, windowMethods } from '../../../domain/forecast/best';
import { addWeeks } from '../../../domain/time/weeks';

/**
 * The best-method step reads only the windows windowMethods names (the combination's members); the choice must be the
 * one chooseBest makes with every method's windows.
 */
const START = '2024-01-01';
const METHODS = ['naive', 'seasonal_naive', 'ses', 'theta', 'croston', 'moving_average', 'holt', 'ets'];

function series(seed: number, n: number): Float64Array {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Float64Array.from({ length: n }, (_, i) => Math.max(0, 20 + 0.1 * i + 6 * Math.sin((2 * Math.PI * i) / 13) + 8 * (rand() - 0.5)));
}

function storedOf(y: Float64Array, h: number, names: readonly string[] = METHODS): { methods: StoredMethod[]; scaleOf: (week: string) => number | undefined } {
  const bt = backtest(y, names, { h, period: 13, origins: 4 });
  const weekOf = (origin: number) => addWeeks(START, bt.origins[origin]!.train_end - 1);
  const scale = new Map(bt.origins.map((o, i) => [weekOf(i), bt.scales[i]!]));
  const methods = names.map((method) => {
    const b = bt.methods[method]!;
    return {
      method,
      forecast: { start_week: addWeeks(START, y.length), yhat: Array(h).fill(y[y.length - 1]!), lower: Array(h).fill(0), upper: Array(h).fill(99) },
      metrics: b.origins_evaluated > 0 ? { ...b.metrics, origins_evaluated: b.origins_evaluated } : null,
      windows: b.forecasts.map((f) => ({ origin_week: weekOf(f.origin), mean: f.mean, lower: f.lower, upper: f.upper, actual: f.actual })),
    };
  });
  return { methods, scaleOf: (w) => scale.get(w) };
}

describe('windowMethods: the windows the choice depends on', () => {
  const cases = [
    { seed: 1, n: 104, metric: 'mase' as const, includeBenchmarks: true, locked: null },
    { seed: 2, n: 80, metric: 'mae' as const, includeBenchmarks: false, locked: null },
    { seed: 3, n: 120, metric: 'rmse' as const, includeBenchmarks: true, locked: { method: 'naive', by: 'planner' } },
    { seed: 4, n: 60, metric: 'smape' as const, includeBenchmarks: false, locked: { method: 'holt', by: null } },
    // one method of the combination pool (ets, arima, theta): the members are the best scored of any method
    { seed: 6, n: 90, metric: 'mase' as const, includeBenchmarks: true, locked: null, names: METHODS.filter((m) => m !== 'ets') },
  ];

  test.each(cases)('seed $seed, $metric: the same choice, combination and windows from the members\' windows alone', ({ seed, n, metric, includeBenchmarks, locked, ...rest }) => {
    const { methods, scaleOf } = storedOf(series(seed, n), 13, 'names' in rest ? rest.names : METHODS);
    const base = { metric, includeBenchmarks, locked, combine: true, scaleOf, adjustments: [] };
    const members = windowMethods({ methods, ...base });
    expect(members.length).toBeGreaterThanOrEqual(2);
    expect(members.length).toBeLessThanOrEqual(3);
    const all = chooseBest({ methods, ...base });
    expect(all.combination?.members).toEqual(members);
    const fewer = chooseBest({ methods: methods.map((m) => (members.includes(m.method) ? m : { ...m, windows: [] })), ...base });
    expect(fewer).toEqual(all);
  });

  test('no windows when there is no combination to build', () => {
    const { methods } = storedOf(series(5, 100), 13);
    const base = { metric: 'mase' as const, includeBenchmarks: true, locked: null };
    expect(windowMethods({ methods, ...base, combine: false })).toEqual([]);
    expect(windowMethods({ methods: methods.map((m) => ({ ...m, metrics: null })), ...base, combine: true })).toEqual([]);
    expect(windowMethods({ methods: [], ...base, combine: true })).toEqual([]);
  });
});
