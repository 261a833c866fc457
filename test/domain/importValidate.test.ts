import fs from 'node:fs';
import path from 'node:path';
import { TABLE_ORDER, TABLES } from '../../domain/import/tables';
import {
  checkCsvHeader, duplicateReason, isValidDate, LoadError, neededRefs, parseCsv, parseTimestamp, stageCsv, stageRows, stagingColumns, validateRow,
  type Refs,
} from '../../domain/import/validate';

const refs: Refs = {
  items: new Map([['I1', 11], ['I2', 12]]),
  sites: new Map([['S1', 21], ['S2', 22]]),
};

const loadError = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(LoadError);
    return (err as Error).message;
  }
  throw new Error('expected a LoadError');
};

describe('table definitions', () => {
  test('every table is in the dependency order once and its key columns exist', () => {
    expect([...TABLE_ORDER].sort()).toEqual(Object.keys(TABLES).sort());
    for (const t of TABLE_ORDER) {
      const names = TABLES[t].columns.map((c) => c.name);
      for (const k of TABLES[t].key) expect([t, names.includes(k)]).toEqual([t, true]);
    }
  });

  test('items and sites also stage collected attr_ columns', () => {
    expect(stagingColumns(TABLES.items)).toContain('extra_attributes');
    expect(stagingColumns(TABLES.demand_history)).toEqual(['item_xuid', 'site_xuid', 'ds', 'qty']);
  });

  test('docs/IMPORT.md documents every column of every staging table, with its required-ness and the natural key', () => {
    const doc = fs.readFileSync(path.join(__dirname, '../../docs/IMPORT.md'), 'utf8');
    for (const t of TABLE_ORDER) {
      const start = doc.indexOf(`### \`${t}\``);
      expect([t, start >= 0]).toEqual([t, true]);
      const section = doc.slice(start, doc.indexOf('\n### ', start + 1) > 0 ? doc.indexOf('\n### ', start + 1) : undefined);
      expect(section).toContain(`Natural key: ${TABLES[t].key.map((k) => `\`${k}\``).join(' + ')}.`);
      for (const c of TABLES[t].columns) {
        expect([t, c.name, new RegExp(`\\| \`${c.name}\` \\| [^|]+ \\| ${c.required ? 'yes' : 'no'} \\|`).test(section)]).toEqual([t, c.name, true]);
      }
    }
  });

  test('reference needs', () => {
    expect(neededRefs('items')).toEqual({ items: false, sites: false });
    expect(neededRefs('demand_history')).toEqual({ items: true, sites: true });
    expect(neededRefs('supersession')).toEqual({ items: true, sites: true });
  });
});

describe('stageRows (load-time shape check)', () => {
  test('values become text, empty strings null, absent optional columns null', () => {
    const rows = stageRows('demand_history', [{ item_xuid: 'I1', site_xuid: 'S1', ds: '2024-01-01', qty: 5 }, { item_xuid: 'I1', site_xuid: 'S1', ds: '2024-01-08', qty: '' }]);
    expect(rows).toEqual([
      { item_xuid: 'I1', site_xuid: 'S1', ds: '2024-01-01', qty: '5' },
      { item_xuid: 'I1', site_xuid: 'S1', ds: '2024-01-08', qty: null },
    ]);
    expect(stageRows('items', [{ xuid: 'A' }])[0]).toEqual({ xuid: 'A', name: null, avg_unit_cost: null, unit_price: null, image_url: null, attributes: null, extra_attributes: null });
  });

  test('unknown columns are all named, with the first row that has one', () => {
    const msg = loadError(() => stageRows('demand_history', [{ item_xuid: 'I1', site_xuid: 'S1', ds: 'x', qty: 1 }, { item_xuid: 'I1', site_xuid: 'S1', ds: 'x', qty: 1, quantity: 2, colour: 'red' }]));
    expect(msg).toMatch(/^body\.rows\[1\]: unknown columns 'quantity', 'colour' for table demand_history \(known: item_xuid, site_xuid, ds, qty\)$/);
  });

  test('a missing required column names the row and column', () => {
    expect(loadError(() => stageRows('demand_history', [{ item_xuid: 'I1', site_xuid: 'S1', ds: '2024-01-01' }]))).toBe('body.rows[0].qty is required');
  });

  test('objects are refused except as attributes, which become JSON text', () => {
    expect(loadError(() => stageRows('demand_history', [{ item_xuid: 'I1', site_xuid: 'S1', ds: '2024-01-01', qty: [1] }]))).toMatch(/^body\.rows\[0\]\.qty must be a string, number, boolean or null$/);
    expect(stageRows('items', [{ xuid: 'A', attributes: { colour: 'red' } }])[0].attributes).toBe('{"colour":"red"}');
  });

  test('attr_ columns of items and sites are collected; other tables refuse them', () => {
    const [row] = stageRows('items', [{ xuid: 'A', attr_colour: 'red', attr_size: 3, attr_empty: '' }]);
    expect(JSON.parse(row.extra_attributes!)).toEqual({ colour: 'red', size: 3 });
    expect(loadError(() => stageRows('item_site', [{ item_xuid: 'I1', site_xuid: 'S1', attr_x: 1 }]))).toMatch(/unknown column 'attr_x'/);
  });
});

describe('CSV', () => {
  test('parses a header (trimmed, lower-cased), quotes, BOM and blank lines', () => {
    const parsed = parseCsv('\uFEFF Item_XUID ,site_xuid,ds,qty\nI1,S1,2024-01-01,"1,5"\n\nI2,S2,2024-01-08,3\n');
    expect(parsed.columns).toEqual(['item_xuid', 'site_xuid', 'ds', 'qty']);
    expect(parsed.records).toEqual([
      { item_xuid: 'I1', site_xuid: 'S1', ds: '2024-01-01', qty: '1,5' },
      { item_xuid: 'I2', site_xuid: 'S2', ds: '2024-01-08', qty: '3' },
    ]);
  });

  test('another delimiter', () => {
    expect(stageCsv('demand_history', 'item_xuid;site_xuid;ds;qty\nI1;S1;2024-01-01;4\n', ';')).toEqual([{ item_xuid: 'I1', site_xuid: 'S1', ds: '2024-01-01', qty: '4' }]);
  });

  test('header problems are refused before any row', () => {
    expect(loadError(() => checkCsvHeader('demand_history', ['item_xuid', 'site_xuid', 'ds', 'quantity']))).toBe(
      "CSV header: unknown column 'quantity' for table demand_history (known: item_xuid, site_xuid, ds, qty)",
    );
    expect(loadError(() => checkCsvHeader('demand_history', ['item_xuid', 'ds']))).toBe("CSV header: missing required columns 'site_xuid', 'qty' for table demand_history");
    expect(loadError(() => parseCsv('a,a\n1,2\n'))).toBe("CSV header: column 'a' appears twice");
    expect(loadError(() => parseCsv(''))).toMatch(/the CSV is empty/);
    expect(loadError(() => stageCsv('demand_history', 'item_xuid,site_xuid,ds,qty\n'))).toMatch(/header but no data rows/);
  });

  test('a ragged row is refused with its line', () => {
    expect(loadError(() => parseCsv('a,b\n1,2\n3\n'))).toMatch(/^body: invalid CSV: .*line 3/);
  });
});

describe('values', () => {
  test('dates are real calendar dates', () => {
    expect(isValidDate('2024-02-29')).toBe(true);
    expect(isValidDate('2023-02-29')).toBe(false);
    expect(isValidDate('2024-13-01')).toBe(false);
    expect(isValidDate('24-01-01')).toBe(false);
  });

  test('timestamps: dates, times without zone as UTC, offsets', () => {
    expect(parseTimestamp('2024-03-01')).toBe('2024-03-01T00:00:00.000Z');
    expect(parseTimestamp('2024-03-01T10:30')).toBe('2024-03-01T10:30:00.000Z');
    expect(parseTimestamp('2024-03-01 10:30:15+02:00')).toBe('2024-03-01T08:30:15.000Z');
    expect(parseTimestamp('2024-03-01T10:30:15.5-0100')).toBe('2024-03-01T11:30:15.500Z');
    expect(parseTimestamp('2024-03-01T25:00')).toBeNull();
    expect(parseTimestamp('March 1')).toBeNull();
  });
});

describe('validateRow (run-time)', () => {
  const demand = (over: Record<string, string | null>) => ({ item_xuid: 'I1', site_xuid: 'S1', ds: '2024-01-01', qty: '5', ...over });

  test('a good demand row resolves codes to ids', () => {
    expect(validateRow('demand_history', demand({ qty: ' 12.50 ' }), refs)).toEqual({ ok: true, values: { item_xuid: '11', site_xuid: '21', ds: '2024-01-01', qty: '12.5' } });
  });

  test.each([
    [{ qty: '-3' }, 'qty: -3 is negative; it must be >= 0'],
    [{ qty: 'abc' }, "qty: 'abc' is not a number"],
    [{ qty: '1,5' }, "qty: '1,5' is not a number"],
    [{ qty: null }, 'qty is required'],
    [{ ds: '2024-02-30' }, "ds: '2024-02-30' is not a valid date (YYYY-MM-DD)"],
    [{ item_xuid: 'NOPE' }, "item_xuid: unknown item 'NOPE'"],
    [{ site_xuid: '  ' }, 'site_xuid is required'],
  ])('demand %o is rejected: %s', (over, reason) => {
    expect(validateRow('demand_history', demand(over), refs)).toEqual({ ok: false, reason });
  });

  test('every problem of a row is reported', () => {
    const r = validateRow('demand_history', demand({ qty: '-1', item_xuid: 'X' }), refs);
    expect(r).toEqual({ ok: false, reason: "item_xuid: unknown item 'X'; qty: -1 is negative; it must be >= 0" });
  });

  test('items: attributes JSON merged with attr_ columns; bad JSON rejected', () => {
    const r = validateRow('items', { xuid: 'A', name: null, avg_unit_cost: '2', unit_price: null, image_url: null, attributes: '{"a":1,"b":1}', extra_attributes: '{"b":2}' }, refs);
    expect(r).toEqual({ ok: true, values: { xuid: 'A', name: null, avg_unit_cost: '2', unit_price: null, image_url: null, attributes: '{"a":1,"b":2}' } });
    expect(validateRow('items', { xuid: 'A', attributes: '[1]' }, refs)).toEqual({ ok: false, reason: 'attributes must be a JSON object' });
    expect(validateRow('items', { xuid: 'A', attributes: '{' }, refs)).toEqual({ ok: false, reason: "attributes: '{' is not valid JSON" });
  });

  test('routes: item optional, type case-insensitive, integer priority', () => {
    const ok = validateRow('routes', { item_xuid: null, from_site_xuid: 'S1', to_site_xuid: 'S2', route_type: 'replenishment', lead_time: '2', priority: '1' }, refs);
    expect(ok).toEqual({ ok: true, values: { item_xuid: null, from_site_xuid: '21', to_site_xuid: '22', route_type: 'REPLENISHMENT', lead_time: '2', priority: '1' } });
    const bad = validateRow('routes', { from_site_xuid: 'S1', to_site_xuid: 'S2', route_type: 'TRUCK', lead_time: '2', priority: '1.5' }, refs);
    expect(bad).toEqual({ ok: false, reason: "route_type: 'TRUCK' is not one of REPLENISHMENT, RETURN, REPAIR, BUY, BUILD, TRANSFER, BALANCING; priority: '1.5' is not an integer" });
    // a route without a type is a BUY route; a route from a site to itself is refused
    expect(validateRow('routes', { from_site_xuid: 'S1', to_site_xuid: 'S2', lead_time: '2' }, refs)).toMatchObject({ ok: true, values: { route_type: 'BUY' } });
    expect(validateRow('routes', { from_site_xuid: 'S1', to_site_xuid: 'S1', route_type: 'transfer', lead_time: '2' }, refs)).toEqual({ ok: false, reason: 'from_site_xuid and to_site_xuid are the same site' });
  });

  test('firm orders: qty > 0, defaults of the key filled, release not after arrival', () => {
    const base = { external_id: 'PO-1', item_xuid: 'I1', site_xuid: 'S1', order_type: 'buy', qty: '10', release_dt: '2024-01-01', arrival_dt: '2024-02-01' };
    const r = validateRow('firm_orders', base, refs);
    expect(r.ok && r.values).toMatchObject({ source_system: 'manual_upload', order_type: 'BUY', release_dt: '2024-01-01T00:00:00.000Z', erp_status: null });
    expect(validateRow('firm_orders', { ...base, qty: '0' }, refs)).toEqual({ ok: false, reason: 'qty: 0 must be > 0' });
    expect(validateRow('firm_orders', { ...base, release_dt: '2024-03-01' }, refs)).toEqual({ ok: false, reason: 'release_dt is after arrival_dt' });
    expect(validateRow('firm_orders', { ...base, erp_status: 'SHIPPED' }, refs)).toEqual({ ok: false, reason: "erp_status: 'SHIPPED' is not one of firm, released, in_transit, received" });
  });

  test('supersession: from and to must differ; booleans read as words', () => {
    expect(validateRow('supersession', { from_item_xuid: 'I1', to_item_xuid: 'I1' }, refs)).toEqual({ ok: false, reason: 'from_item_xuid and to_item_xuid are the same item' });
    const r = validateRow('supersession', { from_item_xuid: 'I1', to_item_xuid: 'I2', stock_rollable: 'No' }, refs);
    expect(r.ok && r.values.stock_rollable).toBe('false');
    expect(validateRow('supersession', { from_item_xuid: 'I1', to_item_xuid: 'I2', stock_rollable: 'maybe' }, refs)).toEqual({ ok: false, reason: "stock_rollable: 'maybe' is not a boolean (true/false, yes/no, 1/0)" });
  });

  test('text longer than its limit is rejected', () => {
    expect(validateRow('items', { xuid: 'x'.repeat(201) }, refs)).toEqual({ ok: false, reason: 'xuid is longer than 200 characters' });
  });

  test('duplicate reason names the key and the kept row', () => {
    expect(duplicateReason('demand_history', 3)).toBe('duplicate key (item_xuid, site_xuid, ds): the same key is given by row 3, which is kept');
  });
});
