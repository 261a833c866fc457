import { defaultRuleRows, defaultSynonyms, RULES_BY_METRIC } from '../../../domain/alerts/ontology';
import { alertQueryPrompt, readModelAnswer, type ModelQueryContext } from '../../../domain/alerts/modelQuery';
import { extractJsonObject } from '../../../domain/llm/answerJson';

const ctx: ModelQueryContext = { rules: defaultRuleRows(), synonyms: defaultSynonyms(), segments: ['North', 'Key accounts'] };
const EMPTY = { metric: null, metric_term: null, value: null, segment_name: null, status: null, severity: null, demand_class: null };

test('the prompt lists the rules with descriptions and synonyms, statuses, severities, classes and segments', () => {
  const p = alertQueryPrompt(ctx);
  expect(p).toContain(`- fill_rate_low: ${RULES_BY_METRIC.get('fill_rate_low')!.description} (fires when value lt 0.9); synonyms: "fill rate", "fillrate", "service level"`);
  expect(p).toContain('- no_source: Demand with no route to supply it (fires when value gt 0)');
  expect(p).toContain('status: open, approved, rejected');
  expect(p).toContain('severity: low, medium, high, critical.');
  expect(p).toContain('demand_class: a list of smooth, erratic, intermittent, lumpy');
  expect(p).toContain('segment_name: one of "North", "Key accounts".');
  expect(p.split('\n').filter((l) => l.startsWith('- ')).length).toBe(32);
});

test('a well-formed answer becomes the filter, fenced or bare; names are normalised', () => {
  const content = '```json\n{"metric": "fill_rate_low", "value": {"op": "lt", "value": 0.9}, "segment_name": "north", "status": null, "severity": "High", "demand_class": ["lumpy"]}\n```';
  expect(readModelAnswer(content, ctx)).toEqual({
    ok: true, warnings: [],
    filter: { ...EMPTY, metric: 'fill_rate_low', value: { op: 'lt', value: 0.9 }, segment_name: 'North', severity: 'high', demand_class: ['lumpy'] },
  });
  // a synonym for the metric, "handled" for approved, one class as a string
  expect(readModelAnswer('{"metric": "service level", "status": "handled", "demand_class": "intermittent"}', ctx)).toEqual({
    ok: true, warnings: [], filter: { ...EMPTY, metric: 'fill_rate_low', status: 'approved', demand_class: ['intermittent'] },
  });
  expect(readModelAnswer('{}', ctx)).toEqual({ ok: true, warnings: [], filter: EMPTY });
});

test('a bad field is dropped with a warning, the rest is kept', () => {
  const r = readModelAnswer(JSON.stringify({
    metric: 'fill_rate_really_low', value: { op: 'lt', value: 0.9 }, segment_name: 'South', severity: 'urgent', demand_class: ['lumpy', 'spiky'], colour: 'red',
  }), ctx);
  expect(r).toEqual({
    ok: true,
    filter: { ...EMPTY, value: { op: 'lt', value: 0.9 }, demand_class: ['lumpy'] },
    warnings: [
      "language model: unknown field 'colour' ignored",
      "language model: metric dropped (unknown metric 'fill_rate_really_low')",
      "language model: segment_name dropped (unknown segment 'South')",
      "language model: severity dropped (unknown severity 'urgent'; one of low, medium, high, critical)",
      "language model: demand_class entry dropped (unknown class 'spiky'; one of smooth, erratic, intermittent, lumpy)",
    ],
  });
  const ops = readModelAnswer('{"metric": "smape_high", "value": {"op": "<>", "value": 3}}', ctx);
  expect(ops).toEqual({ ok: true, filter: { ...EMPTY, metric: 'smape_high' }, warnings: ["language model: value dropped (bad op '<>'; one of gt, gte, lt, lte)"] });
  const num = readModelAnswer('{"metric": "smape_high", "value": {"op": "gt", "value": "fifty"}}', ctx);
  expect(num).toEqual({ ok: true, filter: { ...EMPTY, metric: 'smape_high' }, warnings: ["language model: value dropped (bad number 'fifty')"] });
});

test('unusable answers: not JSON, not an object, nothing checks out', () => {
  expect(readModelAnswer('sorry, I cannot help', ctx)).toEqual({ ok: false, reason: 'the answer is not a JSON object', warnings: [] });
  expect(readModelAnswer('[1, 2]', ctx)).toMatchObject({ ok: false, reason: 'the answer is not a JSON object' });
  expect(readModelAnswer('{"metric": "weather", "value": {"op": "lt", "value": null}}', ctx)).toEqual({
    ok: false, reason: 'no field of the answer checked out',
    warnings: ["language model: metric dropped (unknown metric 'weather')", 'language model: value dropped (bad number null)'],
  });
  expect(extractJsonObject('Here you go: {"metric": "mase_above_one"} hope it helps')).toEqual({ metric: 'mase_above_one' });
});
