import { resolveParameters, type ResolutionSet } from '../../domain/parameters/resolve';
import { FORECAST_METHODS } from '../../api/routes/scenarios/schemas';
import { compile } from '../../api/routes/validation';
import { defaultValues, FORECAST_METHOD_NAMES, methodParams, overrideTarget, PARAMETER_DEFAULTS, PARAMETER_TYPES } from '../../domain/parameters/defaults';

const set = (id: number, priority: number, values: Record<string, unknown>, segment_ids: number[] = [], extra: Partial<ResolutionSet> = {}): ResolutionSet => ({
  id, name: `set ${id}`, parameter_type: 'outlier', priority, is_active: true, values, segment_ids, ...extra,
});

describe('the catalogue', () => {
  test('has the documented parameter types, each key with a default its own schema accepts and a description', () => {
    expect(PARAMETER_TYPES).toEqual(expect.arrayContaining(['outlier', 'characterization', 'forecast', 'backtest', 'best_method', 'distribution', 'meio', 'supply', 'eoq', 'npi']));
    for (const [type, defs] of Object.entries(PARAMETER_DEFAULTS)) {
      expect(Object.keys(defs).length).toBeGreaterThan(0);
      for (const [key, def] of Object.entries(defs)) {
        const validate = compile('body', def.schema);
        expect({ key: `${type}.${key}`, ok: validate(def.default) }).toEqual({ key: `${type}.${key}`, ok: true });
        expect(def.description.length).toBeGreaterThan(10);
      }
    }
    expect(PARAMETER_DEFAULTS.npi.min_history_weeks.default).toBe(13);
  });

  test('forecasting methods are the ones scenarios accept; their hyperparameters are forecast keys <method>.<key>', () => {
    expect([...FORECAST_METHOD_NAMES].sort()).toEqual([...FORECAST_METHODS].sort());
    expect(PARAMETER_DEFAULTS.forecast['ses.alpha']).toMatchObject({ default: null });
    expect(overrideTarget('ses')).toEqual({ parameter_type: 'forecast', prefix: 'ses.' });
    expect(overrideTarget('outlier')).toEqual({ parameter_type: 'outlier', prefix: '' });
    expect(overrideTarget('nope')).toBeUndefined();
    expect(methodParams({ 'ses.alpha': 0.3, 'holt.alpha': 0.5, 'holt.beta': null, interval_level: 0.9 }, 'holt')).toEqual({ alpha: 0.5 });
  });
});

describe('resolveParameters', () => {
  // A: segment 1, priority 1; B: segment 2, priority 2; C: no segments (everyone), priority 3
  const sets: ResolutionSet[] = [
    set(12, 3, { method: 'iqr', threshold: 2 }),
    set(10, 1, { threshold: 4 }, [1]),
    set(11, 2, { threshold: 5, window: 8 }, [2]),
    set(13, 1, { window: 3 }, [1], { parameter_type: 'backtest', values: { windows: 9 } }),
  ];

  test('overlapping segments: the first applicable set by priority supplies a key; others fall through to later sets, then defaults', () => {
    const r = resolveParameters(PARAMETER_DEFAULTS, sets, [1, 2], [], ['outlier']);
    expect(Object.keys(r)).toEqual(['outlier']);
    expect(r.outlier.set_ids).toEqual([10, 11, 12]);
    expect(r.outlier.values).toEqual({ method: 'iqr', window: 8, threshold: 4, correction: null, seasonal_protection: true });
    expect(r.outlier.sources).toEqual({
      threshold: { level: 'set', set_id: 10, set_name: 'set 10' },
      window: { level: 'set', set_id: 11, set_name: 'set 11' },
      method: { level: 'set', set_id: 12, set_name: 'set 12' },
      correction: { level: 'default' },
      seasonal_protection: { level: 'default' },
    });
    expect(r.outlier.has_override).toBe(false);
  });

  test('a series in fewer segments gets fewer sets; a set without segments applies to every series', () => {
    expect(resolveParameters(PARAMETER_DEFAULTS, sets, [2], [], ['outlier']).outlier).toMatchObject({ set_ids: [11, 12], values: { threshold: 5, window: 8, method: 'iqr' } });
    expect(resolveParameters(PARAMETER_DEFAULTS, sets, [], [], ['outlier']).outlier).toMatchObject({ set_ids: [12], values: { threshold: 2, window: 6, method: 'iqr' } });
    expect(resolveParameters(PARAMETER_DEFAULTS, sets, [99], [], ['outlier']).outlier.set_ids).toEqual([12]);
  });

  test('priority decides, not input order; equal priorities: the lower id first; swapping priorities swaps the winner', () => {
    const swapped = sets.map((s) => (s.id === 10 ? { ...s, priority: 2 } : s.id === 11 ? { ...s, priority: 1 } : s));
    expect(resolveParameters(PARAMETER_DEFAULTS, swapped, [1, 2], [], ['outlier']).outlier).toMatchObject({ set_ids: [11, 10, 12], values: { threshold: 5 } });
    const tied = [set(7, 1, { window: 20 }), set(5, 1, { window: 10 })];
    expect(resolveParameters(PARAMETER_DEFAULTS, tied, [], [], ['outlier']).outlier).toMatchObject({ set_ids: [5, 7], values: { window: 10 } });
  });

  test('inactive sets and sets of other types are skipped', () => {
    const r = resolveParameters(PARAMETER_DEFAULTS, sets.map((s) => (s.id === 10 ? { ...s, is_active: false } : s)), [1, 2], []);
    expect(r.outlier).toMatchObject({ set_ids: [11, 12], values: { threshold: 5 } });
    expect(r.backtest).toMatchObject({ set_ids: [13], values: { windows: 9, horizon_weeks: 13 } });
    expect(r.meio).toEqual({ set_ids: [], has_override: false, values: defaultValues('meio'), sources: { service_level: { level: 'default' }, review_period_weeks: { level: 'default' }, holding_cost_rate: { level: 'default' } } });
    expect(Object.keys(r)).toEqual(PARAMETER_TYPES);
  });

  test('per-series overrides win over every set and default, for parameter types and for method hyperparameters', () => {
    const r = resolveParameters(PARAMETER_DEFAULTS, [...sets, set(20, 1, { 'ses.alpha': 0.5, interval_level: 0.8 }, [], { parameter_type: 'forecast' })], [1, 2], [
      { method: 'outlier', overrides: { threshold: 9 } },
      { method: 'ses', overrides: { alpha: 0.2 } },
    ]);
    expect(r.outlier.values.threshold).toBe(9);
    expect(r.outlier.sources.threshold).toEqual({ level: 'override', method: 'outlier' });
    expect(r.outlier.sources.window).toEqual({ level: 'set', set_id: 11, set_name: 'set 11' });
    expect(r.outlier.has_override).toBe(true);
    expect(r.forecast.values['ses.alpha']).toBe(0.2);
    expect(r.forecast.sources['ses.alpha']).toEqual({ level: 'override', method: 'ses' });
    expect(r.forecast.values.interval_level).toBe(0.8);
    expect(r.forecast.sources.interval_level).toEqual({ level: 'set', set_id: 20, set_name: 'set 20' });
    expect(methodParams(r.forecast.values, 'ses')).toEqual({ alpha: 0.2 });
    expect(r.backtest.has_override).toBe(false);
  });

  test('keys no longer in the catalogue and unknown override targets are ignored; results do not alias the inputs', () => {
    const quantiles = [0.5, 0.9];
    const r = resolveParameters(PARAMETER_DEFAULTS, [set(1, 1, { gone: 1, quantiles }, [], { parameter_type: 'distribution' })], [], [{ method: 'nope', overrides: { x: 1 } }], ['distribution']);
    expect(r.distribution.values).not.toHaveProperty('gone');
    (r.distribution.values.quantiles as number[]).push(0.99);
    expect(quantiles).toEqual([0.5, 0.9]);
    const again = resolveParameters(PARAMETER_DEFAULTS, [], [], [], ['distribution']);
    (again.distribution.values.candidates as string[]).pop();
    expect(PARAMETER_DEFAULTS.distribution.candidates.default).toHaveLength(5);
  });
});
