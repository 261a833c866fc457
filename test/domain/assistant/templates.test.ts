import { buildContext, estimateTokens, type IndexEntry } from '../../../domain/assistant/budget';
import { readModelSql, tablesIn } from '../../../domain/assistant/prompt';
import { checkReadOnlySql } from '../../../domain/assistant/sqlRules';
import { matchTemplate, type TemplateMatch } from '../../../domain/assistant/templates';
import { templateSql } from '../../../db/assistantTemplates';

test.each<[string, TemplateMatch | null]>([
  ['which items at site 12 will run short in the next 4 weeks?', { kind: 'shortages', weeks: 4, site: '12' }],
  ['Shortages in the next six weeks', { kind: 'shortages', weeks: 6, site: null }],
  ['what runs out of stock at warehouse DC-1 within 10 weeks', { kind: 'shortages', weeks: 10, site: 'DC-1' }],
  ['forecast of 12_3', { kind: 'forecast', item: '12', site: '3' }],
  ['show the forecast for item SKU-9 at site S1', { kind: 'forecast', item: 'SKU-9', site: 'S1' }],
  ['series with supply exceptions', { kind: 'exceptions', type: 'supply' }],
  ['which series have exceptions?', { kind: 'exceptions', type: null }],
  ['how many series per demand class', { kind: 'count_by_class', classKind: 'demand_class' }],
  ['count of items by ABC class', { kind: 'count_by_class', classKind: 'abc' }],
  ['top 5 items by demand', { kind: 'top', n: 5, measure: 'demand' }],
  ['top ten series by safety stock', { kind: 'top', n: 10, measure: 'safety_stock' }],
  ['highest forecast', { kind: 'top', n: 10, measure: 'forecast' }],
  ['what is the weather', null],
  ["top 5 items by demand'; DROP TABLE items; --", { kind: 'top', n: 5, measure: 'demand' }],
])('%s', (q, expected) => {
  expect(matchTemplate(q)).toEqual(expected);
});

test('every template statement passes the textual rules, with and without a pipeline', () => {
  const all: TemplateMatch[] = [
    { kind: 'forecast', item: 'SKU-9', site: '3' }, { kind: 'shortages', weeks: 4, site: '12' }, { kind: 'shortages', weeks: 4, site: null },
    { kind: 'exceptions', type: 'io' }, { kind: 'exceptions', type: null }, { kind: 'count_by_class', classKind: 'abc' }, { kind: 'count_by_class', classKind: 'demand_class' },
    ...(['demand', 'forecast', 'safety_stock', 'shortage'] as const).map((measure) => ({ kind: 'top' as const, n: 3, measure })),
  ];
  for (const m of all) for (const p of [null, 7]) expect([m, checkReadOnlySql(templateSql(m, p, p)).ok]).toEqual([m, true]);
  expect(() => templateSql({ kind: 'forecast', item: "x' OR '1'='1", site: '1' }, null, null)).toThrow('not a code');
});

test('the context stays within the budget and prefers the tables the question names', () => {
  const table = (name: string, n: number): IndexEntry => ({ kind: 'table', name, description: '', columns: Array.from({ length: n }, (_, i) => ({ name: `col_${name}_${i}`, type: 'integer' })), keywords: name.split('_') });
  const entries = [...Array.from({ length: 60 }, (_, i) => table(`t${i}`, 20)), table('supply_plans', 10), { kind: 'concept' as const, name: 'shortage', description: 'short', columns: [], keywords: ['short'] }];
  const c = buildContext(entries, 'which items run short in the supply plans', [{ role: 'user', content: 'earlier question' }]);
  expect(c.tokens).toBeLessThanOrEqual(2000);
  expect(estimateTokens(c.schema)).toBeLessThanOrEqual(2000);
  expect(c.tables[0]).toBe('supply_plans');
  expect(c.tables.length).toBeLessThan(61);
  expect(c.concepts).toEqual(['shortage']);
  expect(c.history).toHaveLength(1);
});

test('the model answer: JSON, a fenced block or bare text', () => {
  expect(readModelSql('{"sql": "SELECT 1", "explanation": "one", "chart": {"type": "kpi"}}')).toEqual({ sql: 'SELECT 1', explanation: 'one', chart: { type: 'kpi' } });
  expect(readModelSql('Here:\n```sql\nSELECT 2\n```')).toEqual({ sql: 'SELECT 2', explanation: null, chart: null });
  expect(readModelSql('{"answer": 3}')).toBeNull();
  expect(tablesIn('SELECT * FROM items i JOIN "sites" s ON true', ['items', 'sites', 'series'])).toEqual(['items', 'sites']);
});
