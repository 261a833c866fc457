import { applicableSets, resolveServiceTarget, type MeioParameterSet, type MeioSettings } from '../../../domain/inventory/serviceTargets';

const scenario = {
  id: 1, name: 'Base', target_service: 0.95, service_type: 'fill_rate' as const, holding_rate: 0.25, ordering_cost: 50,
  policy: 'rQ' as const, review_period_weeks: 1, budget: null, is_default: true,
};

const settings = (over: Partial<MeioSettings> = {}): MeioSettings => ({ scenario, segment_params: [], parameter_sets: [], ...over });
const set = (id: number, priority: number, values: MeioParameterSet['values'], segment_ids: number[] = [], is_active = true): MeioParameterSet =>
  ({ id, priority, values, segment_ids, is_active });

const SCENARIO_VALUES = { target_service: 0.95, service_type: 'fill_rate', holding_rate: 0.25, ordering_cost: 50, policy: 'rQ', review_period_weeks: 1 };
const all = (source: string) => Object.fromEntries(Object.keys(SCENARIO_VALUES).map((k) => [k, source]));

describe('resolveServiceTarget', () => {
  test('nothing but the scenario: its values, every field from the scenario', () => {
    expect(resolveServiceTarget(settings(), [3])).toEqual({ ...SCENARIO_VALUES, source: 'scenario', sources: all('scenario') });
  });

  test('segment parameters win over the scenario for the fields they set; null fields fall through', () => {
    const r = resolveServiceTarget(settings({ segment_params: [{ segment_id: 7, target_service: 0.98, service_type: null, holding_rate: 0.3 }] }), [7]);
    expect(r).toEqual({
      ...SCENARIO_VALUES, target_service: 0.98, holding_rate: 0.3, source: 'segment:7',
      sources: { ...all('scenario'), target_service: 'segment:7', holding_rate: 'segment:7' },
    });
  });

  test('segment parameters of segments the series is not in are ignored', () => {
    const r = resolveServiceTarget(settings({ segment_params: [{ segment_id: 7, target_service: 0.98, service_type: 'cycle_service', holding_rate: null }] }), [8]);
    expect(r.source).toBe('scenario');
    expect(r.target_service).toBe(0.95);
  });

  test('a series in several segments takes the segment with the highest target (ties: lowest id), all its fields', () => {
    const segment_params = [
      { segment_id: 4, target_service: 0.9, service_type: 'fill_rate' as const, holding_rate: 0.1 },
      { segment_id: 9, target_service: 0.99, service_type: 'cycle_service' as const, holding_rate: null },
      { segment_id: 2, target_service: 0.99, service_type: null, holding_rate: 0.4 },
    ];
    const r = resolveServiceTarget(settings({ segment_params }), [4, 9, 2]);
    expect([r.target_service, r.service_type, r.holding_rate, r.source]).toEqual([0.99, 'fill_rate', 0.4, 'segment:2']);
    expect(r.sources.service_type).toBe('scenario');
    const without2 = resolveServiceTarget(settings({ segment_params }), [4, 9]);
    expect([without2.target_service, without2.service_type, without2.holding_rate, without2.source]).toEqual([0.99, 'cycle_service', 0.25, 'segment:9']);
  });

  test('the first applicable set by priority wins over segment parameters, field by field', () => {
    const r = resolveServiceTarget(settings({
      segment_params: [{ segment_id: 7, target_service: 0.98, service_type: 'cycle_service', holding_rate: 0.3 }],
      parameter_sets: [
        set(20, 2, { target_service: 0.9, policy: 'sS', ordering_cost: 10 }),
        set(10, 1, { target_service: 0.97 }, [7]),
        set(30, 3, { review_period_weeks: 2, holding_rate: 0.5 }, [99]),
      ],
    }), [7]);
    expect(r).toEqual({
      target_service: 0.97, service_type: 'cycle_service', holding_rate: 0.3, ordering_cost: 10, policy: 'sS', review_period_weeks: 1,
      source: 'parameter_set:10',
      sources: {
        target_service: 'parameter_set:10', service_type: 'segment:7', holding_rate: 'segment:7', ordering_cost: 'parameter_set:20',
        policy: 'parameter_set:20', review_period_weeks: 'scenario',
      },
    });
  });

  test('inactive sets and sets of other segments are skipped; a set without segments applies to every series', () => {
    const parameter_sets = [
      set(1, 1, { target_service: 0.5 }, [], false),
      set(2, 2, { target_service: 0.6 }, [5]),
      set(3, 3, { target_service: 0.7 }),
    ];
    expect(resolveServiceTarget(settings({ parameter_sets }), []).source).toBe('parameter_set:3');
    expect(resolveServiceTarget(settings({ parameter_sets }), [5, 6]).source).toBe('parameter_set:2');
    expect(applicableSets(parameter_sets, new Set([5])).map((s) => s.id)).toEqual([2, 3]);
  });

  test('equal priorities are tried by id', () => {
    const r = resolveServiceTarget(settings({ parameter_sets: [set(8, 1, { target_service: 0.8 }), set(6, 1, { target_service: 0.6 })] }), []);
    expect([r.target_service, r.source]).toEqual([0.6, 'parameter_set:6']);
  });

  test('fr_override sets a fill-rate target over every level', () => {
    const s = settings({ parameter_sets: [set(1, 1, { target_service: 0.9, service_type: 'cycle_service' })] });
    const r = resolveServiceTarget(s, [], { fr_override: 0.99, sl_override: null });
    expect([r.target_service, r.service_type, r.source, r.sources.service_type]).toEqual([0.99, 'fill_rate', 'override', 'override']);
  });

  test('sl_override sets a cycle-service target', () => {
    const r = resolveServiceTarget(settings(), [], { sl_override: 0.9 });
    expect([r.target_service, r.service_type, r.source]).toEqual([0.9, 'cycle_service', 'override']);
    expect(r.holding_rate).toBe(0.25);
  });

  test('both overrides: the one of the service type the series would have without them', () => {
    const both = { sl_override: 0.91, fr_override: 0.97 };
    expect(resolveServiceTarget(settings(), [], both).target_service).toBe(0.97);
    const cycle = settings({ segment_params: [{ segment_id: 1, target_service: 0.9, service_type: 'cycle_service', holding_rate: null }] });
    const r = resolveServiceTarget(cycle, [1], both);
    expect([r.target_service, r.service_type]).toEqual([0.91, 'cycle_service']);
  });

  test('an empty or null override changes nothing', () => {
    expect(resolveServiceTarget(settings(), [], {}).source).toBe('scenario');
    expect(resolveServiceTarget(settings(), [], { sl_override: null, fr_override: null }).source).toBe('scenario');
  });
});
