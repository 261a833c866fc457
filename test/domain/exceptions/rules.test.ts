import { BIAS_MAX, forecastIssues, ioIssues, MASE_MAX, parseTypes } from '../../../domain/exceptions/rules';

const codes = (xs: Array<{ code: string }>) => xs.map((x) => x.code);
const fc = { best_method: 'ets', mase: 0.8, bias: 0, mean: 10 };

test('forecast rules: each fires on a series built to trip it and stays quiet otherwise', () => {
  expect(forecastIssues(fc)).toEqual([]);
  expect(codes(forecastIssues({ ...fc, best_method: null }))).toEqual(['no_best_method']);
  expect(forecastIssues({ ...fc, mase: MASE_MAX })).toEqual([]);
  expect(forecastIssues({ ...fc, mase: 1.6 })).toEqual([expect.objectContaining({ type: 'forecast', code: 'high_mase', severity: 'medium' })]);
  expect(forecastIssues({ ...fc, mase: 3.5 })[0].severity).toBe('high');
  expect(forecastIssues({ ...fc, bias: BIAS_MAX * 10 })).toEqual([]);
  expect(forecastIssues({ ...fc, bias: 3 })).toEqual([expect.objectContaining({ code: 'bias', severity: 'medium', value: 0.3 })]);
  expect(forecastIssues({ ...fc, bias: -5 })[0]).toMatchObject({ code: 'bias', severity: 'high' });
  expect(forecastIssues({ ...fc, bias: -5 })[0].description).toContain('under-forecasts by 50.0 %');
  // no demand, no relative bias
  expect(forecastIssues({ ...fc, bias: 5, mean: 0 })).toEqual([]);
  expect(codes(forecastIssues({ ...fc, mase: 2, bias: 4 }))).toEqual(['high_mase', 'bias']);
});

test('io rules: below target and no distribution', () => {
  const io = { meets_target: true, target_service: 0.95, expected_fill_rate: 0.96, diagnostics: [] };
  expect(ioIssues(io)).toEqual([]);
  expect(ioIssues({ ...io, meets_target: false, expected_fill_rate: 0.9 })).toEqual([expect.objectContaining({ type: 'io', code: 'below_target', severity: 'medium' })]);
  expect(ioIssues({ ...io, meets_target: false, expected_fill_rate: 0.8 })[0].severity).toBe('high');
  expect(ioIssues({ ...io, meets_target: false, expected_fill_rate: null })[0].severity).toBe('high');
  expect(ioIssues({ ...io, meets_target: false, diagnostics: [{ code: 'no_distribution', detail: 'no fitted demand distribution' }] }))
    .toEqual([expect.objectContaining({ code: 'no_distribution', severity: 'high', description: 'no fitted demand distribution' })]);
});

test('types filter parsing names the unknown type', () => {
  expect(parseTypes('forecast, io,io')).toEqual({ types: ['forecast', 'io'], unknown: null });
  expect(parseTypes('forecast,bogus').unknown).toBe('bogus');
});
