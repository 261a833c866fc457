import { fixedFields, inferAttributeType, attributeField, abcField } from '../../domain/segments/fields';
import { checkRules, filterSeries, matchesAll, OPERATORS, OPERATORS_BY_TYPE, RuleError, type Rule } from '../../domain/segments/rules';

const fields = [
  ...fixedFields(),
  attributeField({ scope: 'item', key: 'category', type: 'string', values: ['Drinks', 'Food'] }),
  attributeField({ scope: 'item', key: 'launched', type: 'date' }),
  attributeField({ scope: 'item', key: 'fragile', type: 'boolean' }),
  abcField({ name: 'Value', class_labels: ['A', 'B', 'C'] }),
];

const series = [
  { unique_id: '1_1', unit_price: 150, item_name: 'Cola Zero', site_xuid: 'DC1', date_range_start: '2025-01-06', is_intermittent: false, 'abc:Value': 'A', 'item_attributes.category': 'Drinks', best_method: null },
  { unique_id: '2_1', unit_price: 50, item_name: 'Bread', site_xuid: 'dc1', date_range_start: '2025-06-02', is_intermittent: true, 'abc:Value': 'B', 'item_attributes.category': 'Food', best_method: null },
  { unique_id: '3_2', unit_price: 0, item_name: 'Cola Light', site_xuid: 'ST7', date_range_start: null, is_intermittent: null, 'abc:Value': null, 'item_attributes.category': null, best_method: 'croston' },
];

const ids = (rules: Rule[]) => filterSeries(rules, fields, series).map((s) => s.unique_id);

describe('operators on hand-built series', () => {
  test('numbers: = != < <= > >= in, not in, between, is null', () => {
    expect(ids([{ field: 'unit_price', operator: '=', value: 50 }])).toEqual(['2_1']);
    expect(ids([{ field: 'unit_price', operator: '!=', value: 50 }])).toEqual(['1_1', '3_2']);
    expect(ids([{ field: 'unit_price', operator: '<', value: 50 }])).toEqual(['3_2']);
    expect(ids([{ field: 'unit_price', operator: '<=', value: 50 }])).toEqual(['2_1', '3_2']);
    expect(ids([{ field: 'unit_price', operator: '>', value: 50 }])).toEqual(['1_1']);
    expect(ids([{ field: 'unit_price', operator: '>=', value: 50 }])).toEqual(['1_1', '2_1']);
    expect(ids([{ field: 'unit_price', operator: 'in', value: [0, 150] }])).toEqual(['1_1', '3_2']);
    expect(ids([{ field: 'unit_price', operator: 'not in', value: [0, 150] }])).toEqual(['2_1']);
    expect(ids([{ field: 'unit_price', operator: 'between', value: [50, 150] }])).toEqual(['1_1', '2_1']);
    expect(ids([{ field: 'unit_price', operator: 'is null' }])).toEqual([]);
  });

  test('strings compare case-insensitively; contains is a substring; missing values never match but is null', () => {
    expect(ids([{ field: 'site_xuid', operator: '=', value: 'DC1' }])).toEqual(['1_1', '2_1']);
    expect(ids([{ field: 'site_xuid', operator: '!=', value: 'dc1' }])).toEqual(['3_2']);
    expect(ids([{ field: 'item_name', operator: 'contains', value: 'cola' }])).toEqual(['1_1', '3_2']);
    expect(ids([{ field: 'item_attributes.category', operator: 'in', value: ['drinks'] }])).toEqual(['1_1']);
    expect(ids([{ field: 'item_attributes.category', operator: 'not in', value: ['Drinks'] }])).toEqual(['2_1']);
    expect(ids([{ field: 'item_attributes.category', operator: 'is null', value: true }])).toEqual(['3_2']);
    expect(ids([{ field: 'item_attributes.category', operator: 'is null', value: false }])).toEqual(['1_1', '2_1']);
    expect(ids([{ field: 'abc:Value', operator: '=', value: 'a' }])).toEqual(['1_1']);
    expect(ids([{ field: 'best_method', operator: 'is null' }])).toEqual(['1_1', '2_1']);
  });

  test('dates compare in calendar order; booleans by equality', () => {
    expect(ids([{ field: 'date_range_start', operator: '<', value: '2025-03-01' }])).toEqual(['1_1']);
    expect(ids([{ field: 'date_range_start', operator: 'between', value: ['2025-01-06', '2025-06-02'] }])).toEqual(['1_1', '2_1']);
    expect(ids([{ field: 'is_intermittent', operator: '=', value: true }])).toEqual(['2_1']);
    expect(ids([{ field: 'is_intermittent', operator: '!=', value: true }])).toEqual(['1_1']);
  });

  test('rules are AND-combined; no rules match everything', () => {
    expect(ids([{ field: 'item_name', operator: 'contains', value: 'cola' }, { field: 'unit_price', operator: '>', value: 10 }])).toEqual(['1_1']);
    expect(ids([])).toEqual(['1_1', '2_1', '3_2']);
    expect(matchesAll([{ field: 'unit_price', operator: '>', value: 10 }], fields, { unit_price: 11 })).toBe(true);
  });
});

describe('validation names the rule', () => {
  const err = (rules: unknown[]) => {
    try {
      checkRules(rules as Rule[], fields, 'body.rules');
    } catch (e) {
      expect(e).toBeInstanceOf(RuleError);
      return (e as Error).message;
    }
    return 'no error';
  };
  test('unknown field, operator not for the type, wrong value types', () => {
    expect(err([{ field: 'unit_price', operator: '>', value: 1 }, { field: 'colour', operator: '=', value: 'red' }])).toBe("body.rules[1]: unknown field 'colour' (GET /api/segments/fields lists the fields)");
    expect(err([{ field: 'unit_price', operator: 'contains', value: '1' }])).toMatch(/^body\.rules\[0\]: operator 'contains' does not apply to field 'unit_price' of type number/);
    expect(err([{ field: 'unit_price', operator: '>', value: '100' }])).toBe("body.rules[0]: value must be a number for field 'unit_price' (type number)");
    expect(err([{ field: 'date_range_start', operator: '<', value: '2025-02-30' }])).toMatch(/^body\.rules\[0\]: value must be a date/);
    expect(err([{ field: 'unit_price', operator: 'in', value: [] }])).toMatch(/non-empty list/);
    expect(err([{ field: 'unit_price', operator: 'in', value: [1, 'x'] }])).toMatch(/^body\.rules\[0\]: value\[1\] must be a number/);
    expect(err([{ field: 'unit_price', operator: 'between', value: [5, 1] }])).toMatch(/low <= high/);
    expect(err([{ field: 'unit_price', operator: 'between', value: [1] }])).toMatch(/\[low, high\]/);
    expect(err([{ field: 'is_intermittent', operator: '<', value: true }])).toMatch(/does not apply/);
    expect(err([{ field: 'unit_price', operator: 'is null', value: 3 }])).toMatch(/true, false or absent/);
  });
  test('every operator belongs to at least one type; strings have contains, numbers and dates between', () => {
    const all = new Set(Object.values(OPERATORS_BY_TYPE).flat());
    expect([...all].sort()).toEqual([...OPERATORS].sort());
    expect(OPERATORS_BY_TYPE.string).toContain('contains');
    expect(OPERATORS_BY_TYPE.date).toContain('between');
  });
});

test('attribute types are inferred from the values present', () => {
  expect(inferAttributeType(['number'], true)).toBe('number');
  expect(inferAttributeType(['number', 'null'], true)).toBe('number');
  expect(inferAttributeType(['boolean'], true)).toBe('boolean');
  expect(inferAttributeType(['string'], true)).toBe('date');
  expect(inferAttributeType(['string'], false)).toBe('string');
  expect(inferAttributeType(['string', 'number'], false)).toBe('string');
});
