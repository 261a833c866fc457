import { defaultSynonyms, DEFAULT_RULES } from '../../../domain/alerts/ontology';
import { parseAlertQuery, queryTerms } from '../../../domain/alerts/query';

const terms = queryTerms(DEFAULT_RULES.map((r) => r.metric_name), defaultSynonyms());

test('fill rate under 90 % → fill_rate_low, value < 0.9', () => {
  expect(parseAlertQuery('fill rate under 90 %', terms)).toEqual({
    metric: 'fill_rate_low', metric_term: 'fill rate', value: { op: 'lt', value: 0.9 }, segment_name: null, status: null, severity: null, demand_class: null,
  });
});

test('bias above 20% in segment North → forecast_bias > 0.2, segment North', () => {
  const q = parseAlertQuery('bias above 20% in segment North', terms);
  expect(q).toMatchObject({ metric: 'forecast_bias', value: { op: 'gt', value: 0.2 }, segment_name: 'North' });
});

test('metric names, with underscores or spaces, and user synonyms', () => {
  expect(parseAlertQuery('mase_above_one', terms).metric).toBe('mase_above_one');
  expect(parseAlertQuery('show projected shortage alerts', terms).metric).toBe('projected_shortage');
  const custom = queryTerms(['fill_rate_low'], [{ term: 'service', canonical_metric: 'fill_rate_low' }]);
  expect(parseAlertQuery('Service at least 0.95', custom)).toMatchObject({ metric: 'fill_rate_low', value: { op: 'gte', value: 0.95 } });
});

test('the longest term wins, comparisons without a number are ignored, status and severity are picked up', () => {
  expect(parseAlertQuery('safety stock below policy', terms).metric).toBe('safety_stock_below_policy');
  expect(parseAlertQuery('open critical shortage over 5', terms)).toMatchObject({ metric: 'projected_shortage', status: 'open', severity: 'critical', value: { op: 'gt', value: 5 } });
  expect(parseAlertQuery('fill rate below target', terms)).toMatchObject({ metric: 'fill_rate_below_target', value: null });
  expect(parseAlertQuery('in segment "Key accounts" rejected', terms)).toMatchObject({ metric: null, segment_name: 'Key accounts', status: 'rejected' });
});

test('nothing recognised → an empty filter', () => {
  expect(parseAlertQuery('hello there', terms)).toEqual({ metric: null, metric_term: null, value: null, segment_name: null, status: null, severity: null, demand_class: null });
});

test("the issue's sentence: lumpy series in segment North with fill rate under 90 %", () => {
  expect(parseAlertQuery('lumpy series in segment North with fill rate under 90 %', terms)).toEqual({
    metric: 'fill_rate_low', metric_term: 'fill rate', value: { op: 'lt', value: 0.9 }, segment_name: 'North', status: null, severity: null, demand_class: ['lumpy'],
  });
});

test('demand classes: a list in the order written, repeated once; "intermittency" is the rule, not the class', () => {
  expect(parseAlertQuery('lumpy or intermittent series', terms)).toMatchObject({ metric: null, demand_class: ['lumpy', 'intermittent'] });
  expect(parseAlertQuery('Smooth, erratic and smooth series with bias above 0.3', terms)).toMatchObject({
    metric: 'forecast_bias', value: { op: 'gt', value: 0.3 }, demand_class: ['smooth', 'erratic'],
  });
  expect(parseAlertQuery('intermittency alerts', terms)).toMatchObject({ metric: 'intermittency_change', demand_class: null });
  expect(parseAlertQuery('open high shortage for intermittent items', terms)).toMatchObject({
    metric: 'projected_shortage', status: 'open', severity: 'high', demand_class: ['intermittent'],
  });
});
