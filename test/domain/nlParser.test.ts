import { abcField, attributeField, fixedFields } from '../../domain/segments/fields';
import { parseDescription } from '../../domain/segments/nlParser';
import { checkRules } from '../../domain/segments/rules';

const fields = [
  ...fixedFields().map((f) => (f.field === 'site_type' ? { ...f, values: ['dc', 'store'] } : f)),
  attributeField({ scope: 'item', key: 'category', type: 'string', values: ['Beverages', 'Snacks'] }),
  attributeField({ scope: 'item', key: 'shelf_life', type: 'number' }),
  abcField({ name: 'Revenue', class_labels: ['A', 'B', 'C'] }),
];
const ctx = {
  fields,
  sites: [{ xuid: 'DC1', name: 'Central DC', site_type: 'dc' }, { xuid: 'ST1', name: 'Store Lyon', site_type: 'store' }],
  abc: [{ id: 3, name: 'Revenue', class_labels: ['A', 'B', 'C'], is_active: true }],
};
const parse = (d: string, c = ctx) => {
  const r = parseDescription(d, c);
  checkRules(r.rules, fields); // never a rule on an unknown field or with a bad value
  return r;
};

test('"A items at site DC1 with intermittent demand"', () => {
  expect(parse('A items at site DC1 with intermittent demand')).toEqual({
    rules: [
      { field: 'demand_class', operator: '=', value: 'intermittent' },
      { field: 'abc:Revenue', operator: '=', value: 'A' },
      { field: 'site_xuid', operator: '=', value: 'DC1' },
    ],
    unparsed: [], warnings: [],
  });
});

test('"items with unit price over 100"', () => {
  expect(parse('items with unit price over 100').rules).toEqual([{ field: 'unit_price', operator: '>', value: 100 }]);
});

test('"lumpy or intermittent series at stores"', () => {
  expect(parse('lumpy or intermittent series at stores').rules).toEqual([
    { field: 'demand_class', operator: 'in', value: ['lumpy', 'intermittent'] },
    { field: 'site_type', operator: '=', value: 'store' },
  ]);
});

test('more phrasing: between, at most, history, classes, attribute values, best method, no price', () => {
  expect(parse('items with unit cost between 5 and 10').rules).toEqual([{ field: 'avg_unit_cost', operator: 'between', value: [5, 10] }]);
  expect(parse('series with mean demand of at most 3.5').rules).toEqual([{ field: 'mean', operator: '<=', value: 3.5 }]);
  expect(parse('series with fewer than 26 weeks of history').rules).toEqual([{ field: 'n_observations', operator: '<', value: 26 }]);
  expect(parse('A or B items in DC1 or ST1').rules).toEqual([
    { field: 'abc:Revenue', operator: 'in', value: ['A', 'B'] },
    { field: 'site_xuid', operator: 'in', value: ['DC1', 'ST1'] },
  ]);
  expect(parse('beverages with shelf life below 30').rules).toEqual([
    { field: 'item_attributes.shelf_life', operator: '<', value: 30 },
    { field: 'item_attributes.category', operator: '=', value: 'Beverages' },
  ]);
  expect(parse('series whose best method is croston').rules).toEqual([{ field: 'best_method', operator: '=', value: 'croston' }]);
  expect(parse('items without price at Central').rules).toEqual([{ field: 'unit_price', operator: '=', value: 0 }]);
});

test('what is not understood is reported, never turned into a rule', () => {
  const r = parse('smooth items that are purple');
  expect(r.rules).toEqual([{ field: 'demand_class', operator: '=', value: 'smooth' }]);
  expect(r.unparsed).toEqual(['purple']);
  const noAbc = parse('A items', { ...ctx, abc: [], fields: fixedFields() });
  expect(noAbc.rules).toEqual([]);
  expect(noAbc.warnings).toEqual(["'A items': no ABC configuration has class A"]);
});
