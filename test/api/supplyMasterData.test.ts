import { sql, withTenant } from '../../db/pool';
import { salesReturnsOfItems } from '../../db/salesReturns';
import { capacityForWeeks } from '../../db/siteCapacity';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let plain: string;
const item: Record<string, number> = {};
const site: Record<string, number> = {};

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const q = <T = unknown>(fn: (tx: any) => Promise<T>, accountId = a.accountId) => withTenant(t.db, accountId, fn);
const count = (table: 'item_site' | 'sales_returns' | 'site_capacity') => q((tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${sql.identifier([table])}`));

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('supply-md');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  await q(async (tx) => {
    for (const [code, name] of [['A-100', 'Bolt'], ['A-200', 'Nut'], ['B_1%', 'Washer']]) {
      item[code] = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${code}, ${name}) RETURNING id`)) as number;
    }
    for (const [code, name] of [['DC-1', 'Central'], ['ST-1', 'Store one'], ['ST-2', 'Store two']]) {
      site[code] = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${code}, ${name}) RETURNING id`)) as number;
    }
  });
});
afterAll(() => t.close());

// ---------------------------------------------------------------------------------------------------------------------

describe('item-site', () => {
  const path = (i: number, s: number) => `/api/supply/item-site/${i}/${s}`;
  const row = (i: string, s: string, fields: Record<string, unknown>) => ({
    item_id: item[i], item_code: i, item_name: { 'A-100': 'Bolt', 'A-200': 'Nut', 'B_1%': 'Washer' }[i],
    site_id: site[s], site_code: s, site_name: { 'DC-1': 'Central', 'ST-1': 'Store one', 'ST-2': 'Store two' }[s],
    unit_cost: null, lead_time_weeks: null, on_hand: 0, safety_stock: 0, moq: 0, order_multiple: 1, updated_at: ts, ...fields,
  });

  let rows: Record<string, any> = {};

  beforeAll(async () => {
    const put = async (i: string, s: string, body: object) => {
      const res = await t.call('put', path(item[i], site[s]), { token: admin, body });
      expect([res.status, res.body]).toEqual([200, expect.anything()]);
      return res.body;
    };
    rows = {
      a1dc: await put('A-100', 'DC-1', { unit_cost: 2.5, lead_time_weeks: 3, on_hand: 120, safety_stock: 20, moq: 50, order_multiple: 10 }),
      a1s1: await put('A-100', 'ST-1', { on_hand: 8 }),
      a2dc: await put('A-200', 'DC-1', { lead_time_weeks: 1.5 }),
      b1s2: await put('B_1%', 'ST-2', { unit_cost: 0, moq: 5 }),
    };
  });

  test('PUT creates a row with the defaults for the fields not sent and answers it', () => {
    expect(rows.a1dc).toEqual(row('A-100', 'DC-1', { unit_cost: 2.5, lead_time_weeks: 3, on_hand: 120, safety_stock: 20, moq: 50, order_multiple: 10 }));
    expect(rows.a1s1).toEqual(row('A-100', 'ST-1', { on_hand: 8 }));
    expect(rows.b1s2).toEqual(row('B_1%', 'ST-2', { unit_cost: 0, moq: 5 }));
  });

  test('PUT on an existing row changes only the fields sent; null clears unit cost and lead time', async () => {
    const res = await t.call('put', path(item['A-200'], site['DC-1']), { token: admin, body: { safety_stock: 4, on_hand: 33.5 } });
    expect([res.status, res.body]).toEqual([200, row('A-200', 'DC-1', { lead_time_weeks: 1.5, safety_stock: 4, on_hand: 33.5 })]);
    const cleared = await t.call('put', path(item['A-200'], site['DC-1']), { token: admin, body: { lead_time_weeks: null } });
    expect(cleared.body).toEqual(row('A-200', 'DC-1', { safety_stock: 4, on_hand: 33.5 }));
    const back = await t.call('put', path(item['A-200'], site['DC-1']), { token: admin, body: { lead_time_weeks: 1.5, safety_stock: 0, on_hand: 0 } });
    expect(back.body).toEqual(row('A-200', 'DC-1', { lead_time_weeks: 1.5 }));
    rows.a2dc = back.body;
  });

  test('GET lists by item then site, with codes and names; filters, search and paging', async () => {
    const all = await t.call('get', '/api/supply/item-site', { token: plain });
    expect([all.status, all.headers['x-total-count'], all.body]).toEqual([200, '4', [rows.a1dc, rows.a1s1, rows.a2dc, rows.b1s2]]);
    const cases: Array<[Record<string, unknown>, string, object[]]> = [
      [{ item_id: item['A-100'] }, '2', [rows.a1dc, rows.a1s1]],
      [{ site_id: site['DC-1'] }, '2', [rows.a1dc, rows.a2dc]],
      [{ item_id: item['A-100'], site_id: site['ST-1'] }, '1', [rows.a1s1]],
      [{ search: 'a-' }, '3', [rows.a1dc, rows.a1s1, rows.a2dc]],
      [{ search: 'st-' }, '2', [rows.a1s1, rows.b1s2]],
      [{ search: '_1%' }, '1', [rows.b1s2]],
      [{ search: 'Bolt' }, '0', []],
      [{ skip: 1, limit: 2 }, '4', [rows.a1s1, rows.a2dc]],
      [{ site_id: site['ST-2'], skip: 1 }, '1', []],
    ];
    for (const [query, total, body] of cases) {
      const res = await t.call('get', '/api/supply/item-site', { token: plain, query });
      expect([query, res.status, res.headers['x-total-count'], res.body]).toEqual([query, 200, total, body]);
    }
  });

  test('bad filters are 400s naming the parameter', async () => {
    for (const [query, message] of [
      [{ item_id: 0 }, 'query.item_id must be >= 1'],
      [{ site_id: 'x' }, 'query.site_id must be integer'],
      [{ limit: 1001 }, 'query.limit must be <= 1000'],
      [{ skip: -1 }, 'query.skip must be >= 0'],
      [{ search: '' }, 'query.search must NOT have fewer than 1 characters'],
      [{ sort: 'item_id' }, "query: unknown field 'sort'"],
    ] as const) {
      const res = await t.call('get', '/api/supply/item-site', { token: plain, query });
      expect([query, res.status, res.body.detail]).toEqual([query, 400, message]);
    }
  });

  test('users restricted to segments see the rows of their series only', async () => {
    const segId = await q(async (tx) => {
      const id = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('DC only') RETURNING id`)) as number;
      await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${id}, ${item['A-200']}, ${site['DC-1']})`);
      return id;
    });
    const token = await t.login(await t.addUser(a.accountId, { role: 'user', allowed_segments: [segId] }));
    const res = await t.call('get', '/api/supply/item-site', { token });
    expect([res.headers['x-total-count'], res.body]).toEqual(['1', [rows.a2dc]]);
  });

  test('an unknown item or site is a 404 naming which, and writes nothing', async () => {
    const before = await count('item_site');
    for (const [i, s, message] of [
      [999999, site['DC-1'], 'Item 999999 not found'],
      [item['A-100'], 999998, 'Site 999998 not found'],
      [999999, 999998, 'Item 999999 and site 999998 not found'],
    ] as const) {
      const res = await t.call('put', path(i, s), { token: admin, body: { on_hand: 1 } });
      expect([res.status, res.body.detail]).toEqual([404, message]);
    }
    expect(await count('item_site')).toBe(before);
  });

  test('bad values are 400s naming the field and change nothing', async () => {
    const before = await count('item_site');
    const cases: Array<[number, number, unknown, string]> = [
      [item['A-100'], site['DC-1'], {}, 'body must NOT have fewer than 1 properties'],
      [item['A-100'], site['DC-1'], { on_hand: -1 }, 'body.on_hand must be >= 0'],
      [item['A-100'], site['DC-1'], { on_hand: null }, 'body.on_hand must be number'],
      [item['A-100'], site['DC-1'], { safety_stock: '5' }, 'body.safety_stock must be number'],
      [item['A-100'], site['DC-1'], { moq: -0.5 }, 'body.moq must be >= 0'],
      [item['A-100'], site['DC-1'], { order_multiple: 1e13 }, 'body.order_multiple must be <= 1000000000000'],
      [item['A-100'], site['DC-1'], { unit_cost: -2 }, 'body.unit_cost must be >= 0'],
      [item['A-100'], site['DC-1'], { lead_time_weeks: 521 }, 'body.lead_time_weeks must be <= 520'],
      [item['A-100'], site['DC-1'], { lead_time_weeks: -1 }, 'body.lead_time_weeks must be >= 0'],
      [item['A-100'], site['DC-1'], { on_hand: 1, item_id: 3 }, "body: unknown field 'item_id'"],
      [item['A-200'], site['ST-2'], { on_hand: -1 }, 'body.on_hand must be >= 0'],
      [0, site['DC-1'], { on_hand: 1 }, 'path.item_id must be >= 1'],
      [item['A-100'], 2147483648, { on_hand: 1 }, 'path.site_id must be <= 2147483647'],
    ];
    for (const [i, s, body, message] of cases) {
      const res = await t.call('put', path(i, s), { token: admin, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    expect(await count('item_site')).toBe(before);
    const list = await t.call('get', '/api/supply/item-site', { token: plain, query: { item_id: item['A-100'], site_id: site['DC-1'] } });
    expect(list.body).toEqual([rows.a1dc]);
  });

  test('writes need an admin role, like the other master data; they are audited', async () => {
    for (const token of [planner, plain]) {
      const res = await t.call('put', path(item['A-100'], site['DC-1']), { token, body: { on_hand: 1 } });
      expect([res.status, res.body.detail]).toEqual([403, 'Admin privileges required (role admin or superadmin)']);
    }
    expect((await t.call('get', '/api/supply/item-site', { token: plain, query: { item_id: item['A-100'], site_id: site['DC-1'] } })).body).toEqual([rows.a1dc]);
    const log = await t.call('get', '/api/audit-log', { token: admin, query: { entity_type: 'item_site', entity_id: `${item['A-100']}_${site['ST-1']}` } });
    expect(log.body.items).toEqual([expect.objectContaining({ action: 'upsert', old_value: null, new_value: expect.objectContaining({ on_hand: 8 }) })]);
  });
});

// ---------------------------------------------------------------------------------------------------------------------

describe('sales returns', () => {
  const RETURNS = '/api/supply/sales-returns';
  const created: Record<string, any> = {};

  beforeAll(async () => {
    const post = async (body: object) => {
      const res = await t.call('post', RETURNS, { token: admin, body });
      expect([res.status, res.body]).toEqual([201, expect.anything()]);
      return res.body;
    };
    created.r1 = await post({ item_id: item['A-100'], site_id: site['ST-1'], qty: 3, return_date: '2024-03-05', reason: 'damaged', external_id: 'RMA-1' });
    created.r2 = await post({ item_id: item['A-100'], site_id: site['DC-1'], qty: 1.5, return_date: '2024-01-10' });
    created.r3 = await post({ item_id: item['A-200'], site_id: site['ST-1'], qty: 10, return_date: '2024-02-01', external_id: 'RMA-2' });
  });

  test('create answers the row as stored', () => {
    expect(created.r1).toEqual({
      id: expect.any(Number), item_id: item['A-100'], site_id: site['ST-1'], qty: 3, return_date: '2024-03-05', reason: 'damaged', external_id: 'RMA-1',
      created_by: a.admin.email, created_at: ts, updated_at: ts,
    });
    expect(created.r2).toEqual({
      id: expect.any(Number), item_id: item['A-100'], site_id: site['DC-1'], qty: 1.5, return_date: '2024-01-10', reason: null, external_id: null,
      created_by: a.admin.email, created_at: ts, updated_at: ts,
    });
  });

  test('list by return date; filters, sorting and paging; get one', async () => {
    const { r1, r2, r3 } = created;
    const cases: Array<[Record<string, unknown>, string, object[]]> = [
      [{}, '3', [r2, r3, r1]],
      [{ item_id: item['A-100'] }, '2', [r2, r1]],
      [{ site_id: site['ST-1'] }, '2', [r3, r1]],
      [{ item_id: item['A-100'], site_id: site['ST-1'] }, '1', [r1]],
      [{ date_from: '2024-02-01' }, '2', [r3, r1]],
      [{ date_to: '2024-02-01' }, '2', [r2, r3]],
      [{ date_from: '2024-01-11', date_to: '2024-03-04' }, '1', [r3]],
      [{ external_id: 'RMA-2' }, '1', [r3]],
      [{ sort: 'qty', order: 'desc' }, '3', [r3, r1, r2]],
      [{ skip: 1, limit: 1 }, '3', [r3]],
      [{ item_id: item['B_1%'] }, '0', []],
    ];
    for (const [query, total, body] of cases) {
      const res = await t.call('get', RETURNS, { token: plain, query });
      expect([query, res.status, res.headers['x-total-count'], res.body]).toEqual([query, 200, total, body]);
    }
    const one = await t.call('get', `${RETURNS}/${r3.id}`, { token: plain });
    expect([one.status, one.body]).toEqual([200, r3]);
    const bad = await t.call('get', RETURNS, { token: plain, query: { date_from: '2024-02-30' } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'query.date_from must match format "date"']);
  });

  test('update is partial and checked; delete removes the row', async () => {
    const r = (await t.call('post', RETURNS, { token: admin, body: { item_id: item['A-200'], site_id: site['DC-1'], qty: 2, return_date: '2024-05-06' } })).body;
    const res = await t.call('put', `${RETURNS}/${r.id}`, { token: admin, body: { qty: 4, reason: 'wrong size', site_id: site['ST-2'] } });
    expect([res.status, res.body]).toEqual([200, { ...r, qty: 4, reason: 'wrong size', site_id: site['ST-2'], updated_at: ts }]);
    const moved = await t.call('put', `${RETURNS}/${r.id}`, { token: admin, body: { site_id: 999999 } });
    expect([moved.status, moved.body.detail]).toEqual([400, 'body.site_id: site 999999 does not exist']);
    const del = await t.call('delete', `${RETURNS}/${r.id}`, { token: admin });
    expect([del.status, del.body]).toEqual([200, { status: 'deleted', id: r.id }]);
    for (const [method, body] of [['get', undefined], ['put', { qty: 1 }], ['delete', undefined]] as const) {
      const gone = await t.call(method, `${RETURNS}/${r.id}`, { token: admin, body });
      expect([method, gone.status, gone.body.detail]).toEqual([method, 404, `Sales return ${r.id} not found`]);
    }
  });

  test('bad bodies are 400s naming the field and write nothing', async () => {
    const before = await count('sales_returns');
    const ok = { item_id: item['A-100'], site_id: site['DC-1'], qty: 1, return_date: '2024-01-01' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, item_id: 999999 }, 'body.item_id: item 999999 does not exist'],
      [{ ...ok, site_id: 999998 }, 'body.site_id: site 999998 does not exist'],
      [{ ...ok, qty: 0 }, 'body.qty must be > 0'],
      [{ ...ok, qty: -3 }, 'body.qty must be > 0'],
      [{ ...ok, qty: '2' }, 'body.qty must be number'],
      [{ ...ok, qty: 1e13 }, 'body.qty must be <= 1000000000000'],
      [{ ...ok, return_date: '2024-02-30' }, 'body.return_date must match format "date"'],
      [{ ...ok, return_date: '05/01/2024' }, 'body.return_date must match format "date"'],
      [{ ...ok, return_date: null }, 'body.return_date must be string'],
      [{ ...ok, external_id: '' }, 'body.external_id must NOT have fewer than 1 characters'],
      [{ ...ok, reason: 5 }, 'body.reason must be string'],
      [{ ...ok, item_id: 0 }, 'body.item_id must be >= 1'],
      [{ ...ok, id: 5 }, "body: unknown field 'id'"],
      [{ item_id: ok.item_id, site_id: ok.site_id, qty: 1 }, 'body.return_date is required'],
      [{ site_id: ok.site_id, qty: 1, return_date: ok.return_date }, 'body.item_id is required'],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('post', RETURNS, { token: admin, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    for (const [body, message] of [
      [{}, 'body must NOT have fewer than 1 properties'],
      [{ qty: 0 }, 'body.qty must be > 0'],
      [{ item_id: 999999 }, 'body.item_id: item 999999 does not exist'],
    ] as const) {
      const res = await t.call('put', `${RETURNS}/${created.r2.id}`, { token: admin, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    expect(await count('sales_returns')).toBe(before);
    expect((await t.call('get', `${RETURNS}/${created.r2.id}`, { token: admin })).body).toEqual(created.r2);
  });

  test('an external_id is unique: 409 on create and update', async () => {
    const before = await count('sales_returns');
    const dup = await t.call('post', RETURNS, { token: admin, body: { item_id: item['A-200'], site_id: site['DC-1'], qty: 1, return_date: '2024-01-01', external_id: 'RMA-1' } });
    expect([dup.status, dup.body.detail]).toEqual([409, `body.external_id: sales return ${created.r1.id} already has external_id 'RMA-1'`]);
    expect(await count('sales_returns')).toBe(before);
    const rename = await t.call('put', `${RETURNS}/${created.r3.id}`, { token: admin, body: { external_id: 'RMA-1' } });
    expect(rename.status).toBe(409);
    const same = await t.call('put', `${RETURNS}/${created.r1.id}`, { token: admin, body: { external_id: 'RMA-1' } });
    expect(same.status).toBe(200);
    created.r1 = same.body;
  });

  test('writes need an admin role', async () => {
    const before = await count('sales_returns');
    for (const token of [planner, plain]) {
      for (const [method, path, body] of [
        ['post', RETURNS, { item_id: item['A-100'], site_id: site['DC-1'], qty: 1, return_date: '2024-01-01' }],
        ['put', `${RETURNS}/${created.r2.id}`, { qty: 9 }],
        ['delete', `${RETURNS}/${created.r2.id}`, undefined],
      ] as const) {
        const res = await t.call(method, path, { token, body });
        expect([method, res.status, res.body.detail]).toEqual([method, 403, 'Admin privileges required (role admin or superadmin)']);
      }
    }
    expect(await count('sales_returns')).toBe(before);
  });

  test('salesReturnsOfItems: week = floor(days from the start date / 7), within 0..weeks-1, summed per item, site and week', async () => {
    const tenant = await t.newTenant('supply-returns-weeks');
    const ids = await q(async (tx) => {
      const i1 = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I1', 'I1') RETURNING id`)) as number;
      const i2 = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I2', 'I2') RETURNING id`)) as number;
      const i3 = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I3', 'I3') RETURNING id`)) as number;
      const s1 = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'S1') RETURNING id`)) as number;
      const s2 = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S2', 'S2') RETURNING id`)) as number;
      // from 2024-01-03 (a Wednesday), 4 weeks: days 0..27, up to 2024-01-30
      const rows: Array<[number, number, number, string]> = [
        [i1, s1, 100, '2024-01-02'], // the day before: left out
        [i1, s1, 1, '2024-01-03'], // day 0 → week 0
        [i1, s1, 2, '2024-01-09'], // day 6 → week 0
        [i1, s1, 4, '2024-01-10'], // day 7 → week 1
        [i1, s1, 8, '2024-01-10'], // same week: summed
        [i1, s2, 16, '2024-01-16'], // day 13 → week 1, other site
        [i2, s1, 32, '2024-01-30'], // day 27 → week 3, the last
        [i2, s1, 200, '2024-01-31'], // day 28: beyond the horizon
        [i3, s1, 300, '2024-01-10'], // an item not asked for
      ];
      for (const [it, st, qty, d] of rows) {
        await tx.query(sql.unsafe`INSERT INTO sales_returns (item_id, site_id, qty, return_date) VALUES (${it}, ${st}, ${qty}, ${d})`);
      }
      return { i1, i2, i3, s1, s2 };
    }, tenant.accountId);
    const weekly = await q((tx) => salesReturnsOfItems(tx, [ids.i2, ids.i1], '2024-01-03', 4), tenant.accountId);
    expect(weekly).toEqual([
      { item_id: ids.i1, site_id: ids.s1, week: 0, qty: 3 },
      { item_id: ids.i1, site_id: ids.s1, week: 1, qty: 12 },
      { item_id: ids.i1, site_id: ids.s2, week: 1, qty: 16 },
      { item_id: ids.i2, site_id: ids.s1, week: 3, qty: 32 },
    ]);
    expect(await q((tx) => salesReturnsOfItems(tx, [ids.i1], '2024-01-10', 1), tenant.accountId)).toEqual([
      { item_id: ids.i1, site_id: ids.s1, week: 0, qty: 12 },
      { item_id: ids.i1, site_id: ids.s2, week: 0, qty: 16 },
    ]);
    expect(await q((tx) => salesReturnsOfItems(tx, [], '2024-01-03', 4), tenant.accountId)).toEqual([]);
    expect(await q((tx) => salesReturnsOfItems(tx, [ids.i1], '2024-01-03', 0), tenant.accountId)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------------

describe('capacity', () => {
  const CAP = '/api/supply/capacity';
  const capRow = (s: string, periodStart: string | null, qty: number, by = a.admin.email) => ({
    id: expect.any(Number), site_id: site[s], site_code: s, site_name: { 'DC-1': 'Central', 'ST-1': 'Store one', 'ST-2': 'Store two' }[s],
    period_start: periodStart, qty, updated_by: by, updated_at: ts,
  });

  test('PUT sets the every-week row and dated rows, replacing on the same key; GET lists them', async () => {
    const every = await t.call('put', `${CAP}/${site['DC-1']}`, { token: admin, body: { qty: 100 } });
    expect([every.status, every.body]).toEqual([200, capRow('DC-1', null, 100)]);
    const again = await t.call('put', `${CAP}/${site['DC-1']}`, { token: admin, body: { period_start: null, qty: 90 } });
    expect(again.body).toEqual({ ...capRow('DC-1', null, 90), id: every.body.id });
    const dated = await t.call('put', `${CAP}/${site['DC-1']}`, { token: admin, body: { period_start: '2024-01-15', qty: 40 } });
    expect(dated.body).toEqual(capRow('DC-1', '2024-01-15', 40));
    const zero = await t.call('put', `${CAP}/${site['ST-1']}`, { token: admin, body: { period_start: '2024-01-08', qty: 0 } });
    expect(zero.body).toEqual(capRow('ST-1', '2024-01-08', 0));
    const earlier = await t.call('put', `${CAP}/${site['DC-1']}`, { token: admin, body: { period_start: '2024-01-01', qty: 60 } });

    const list = await t.call('get', CAP, { token: plain });
    expect([list.status, list.body]).toEqual([200, { capacity: [again.body, earlier.body, dated.body, zero.body], run: null, weeks: [] }]);
    const one = await t.call('get', CAP, { token: plain, query: { site_id: site['ST-1'] } });
    expect(one.body).toEqual({ capacity: [zero.body], run: null, weeks: [] });
  });

  test('bad input is a 400 naming the field and writes nothing; an unknown site is a 404', async () => {
    const before = await count('site_capacity');
    const cases: Array<[unknown, string]> = [
      [{ period_start: '2024-01-03', qty: 5 }, 'body.period_start: 2024-01-03 is a Wednesday; capacity periods start on a Monday (that week\'s is 2024-01-01)'],
      [{ period_start: '2024-01-07', qty: 5 }, 'body.period_start: 2024-01-07 is a Sunday; capacity periods start on a Monday (that week\'s is 2024-01-01)'],
      [{ period_start: '2024-13-01', qty: 5 }, 'body.period_start must match format "date"'],
      [{ qty: -1 }, 'body.qty must be >= 0'],
      [{ qty: '5' }, 'body.qty must be number'],
      [{ qty: 1e13 }, 'body.qty must be <= 1000000000000'],
      [{ period_start: null }, 'body.qty is required'],
      [{ qty: 1, site_id: 2 }, "body: unknown field 'site_id'"],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('put', `${CAP}/${site['ST-2']}`, { token: admin, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    const missing = await t.call('put', `${CAP}/999999`, { token: admin, body: { qty: 1 } });
    expect([missing.status, missing.body.detail]).toEqual([404, 'Site 999999 not found']);
    expect(await count('site_capacity')).toBe(before);
  });

  test('DELETE removes one dated row, the every-week row, or every row of the site', async () => {
    const s = site['ST-2'];
    const put = async (body: object) => (await t.call('put', `${CAP}/${s}`, { token: admin, body })).body;
    const every = await put({ qty: 7 });
    const w1 = await put({ period_start: '2024-02-05', qty: 1 });
    const w2 = await put({ period_start: '2024-02-12', qty: 2 });
    const one = await t.call('delete', `${CAP}/${s}`, { token: admin, query: { period_start: '2024-02-05' } });
    expect([one.status, one.body]).toEqual([200, { status: 'deleted', site_id: s, rows: [w1] }]);
    const again = await t.call('delete', `${CAP}/${s}`, { token: admin, query: { period_start: '2024-02-05' } });
    expect([again.status, again.body.detail]).toEqual([404, `Site ${s} has no capacity row for 2024-02-05`]);
    const both = await t.call('delete', `${CAP}/${s}`, { token: admin, query: { period_start: '2024-02-12', every_week: true } });
    expect([both.status, both.body.detail]).toEqual([400, 'query.every_week: give period_start or every_week=true, not both']);
    const ev = await t.call('delete', `${CAP}/${s}`, { token: admin, query: { every_week: true } });
    expect(ev.body).toEqual({ status: 'deleted', site_id: s, rows: [every] });
    expect((await t.call('delete', `${CAP}/${s}`, { token: admin, query: { every_week: true } })).body.detail).toBe(`Site ${s} has no every-week capacity row`);
    await put({ qty: 3 });
    const all = await t.call('delete', `${CAP}/${s}`, { token: admin });
    expect(all.body).toEqual({ status: 'deleted', site_id: s, rows: [expect.objectContaining({ period_start: null, qty: 3 }), w2] });
    expect((await t.call('delete', `${CAP}/${s}`, { token: admin })).body.detail).toBe(`Site ${s} has no capacity rows`);
    expect((await t.call('delete', `${CAP}/999999`, { token: admin })).body.detail).toBe('Site 999999 not found');
    const bad = await t.call('delete', `${CAP}/${s}`, { token: admin, query: { period_start: 'monday' } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'query.period_start must match format "date"']);
  });

  test('writes need an admin role', async () => {
    const before = await count('site_capacity');
    for (const token of [planner, plain]) {
      const put = await t.call('put', `${CAP}/${site['DC-1']}`, { token, body: { qty: 1 } });
      const del = await t.call('delete', `${CAP}/${site['DC-1']}`, { token });
      expect([put.status, del.status, put.body.detail]).toEqual([403, 403, 'Admin privileges required (role admin or superadmin)']);
    }
    expect(await count('site_capacity')).toBe(before);
    expect((await t.call('get', CAP)).status).toBe(401);
  });

  describe('laid onto the weeks of a supply run', () => {
    let tenant: TestTenant;
    let token: string;
    let pipelineId: number;
    let scenarioId: number;
    const s: Record<string, number> = {};

    beforeAll(async () => {
      tenant = await t.newTenant('supply-cap-run');
      token = await t.login(tenant.admin);
      await q(async (tx) => {
        for (const code of ['P', 'Q', 'R']) s[code] = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${code}, ${`Site ${code}`}) RETURNING id`)) as number;
        pipelineId = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('Plan') RETURNING id`)) as number;
        scenarioId = (await tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as number;
        // a completed run from Monday 2024-01-01 over 3 weeks (two items sharing site P in week 1), an older one and a newer one still running
        await tx.query(sql.unsafe`
          INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date, horizon, started_at, finished_at) VALUES
            ('old', ${pipelineId}, ${scenarioId}, 'completed', '2023-12-04', 2, '2024-01-01T08:00:00Z', '2024-01-01T08:01:00Z'),
            ('done', ${pipelineId}, ${scenarioId}, 'completed', '2024-01-01', 3, '2024-01-02T08:00:00Z', '2024-01-02T08:01:00Z'),
            ('busy', ${pipelineId}, ${scenarioId}, 'running', '2024-01-08', 3, '2024-01-03T08:00:00Z', NULL)`);
        await tx.query(sql.unsafe`
          INSERT INTO supply_capacity_used (run_id, item_id, site_id, week, qty) VALUES
            ('done', 1, ${s.P}, 0, 30), ('done', 1, ${s.P}, 1, 15), ('done', 2, ${s.P}, 1, 25), ('done', 1, ${s.Q}, 2, 5),
            ('busy', 1, ${s.P}, 0, 1), ('old', 1, ${s.P}, 1, 8)`);
      }, tenant.accountId);
      const put = async (site: number, body: object) => expect((await t.call('put', `${CAP}/${site}`, { token, body })).status).toBe(200);
      await put(s.P, { qty: 50 });
      await put(s.P, { period_start: '2024-01-08', qty: 40 });
      await put(s.Q, { period_start: '2024-01-15', qty: 0 });
    });

    const week = (site: string, w: number, start: string, capacity: number | null, used: number) => ({
      site_id: s[site], site_code: site, site_name: `Site ${site}`, week: w, week_start: start, capacity, used,
      free: capacity === null ? null : capacity - used, utilisation: capacity === null || capacity === 0 ? null : used / capacity,
    });

    test('without run_id: the newest completed run of the pipeline and scenario', async () => {
      const res = await t.call('get', CAP, { token, query: { pipeline_id: pipelineId, scenario_id: scenarioId } });
      expect(res.status).toBe(200);
      expect(res.body.run).toEqual({
        run_id: 'done', pipeline_id: pipelineId, scenario_id: scenarioId, status: 'completed', planning_date: '2024-01-01', horizon: 3,
        started_at: '2024-01-02T08:00:00.000Z', finished_at: '2024-01-02T08:01:00.000Z',
      });
      expect(res.body.capacity.map((r: { site_id: number; period_start: string | null }) => [r.site_id, r.period_start])).toEqual([
        [s.P, null], [s.P, '2024-01-08'], [s.Q, '2024-01-15'],
      ]);
      expect(res.body.weeks).toEqual([
        week('P', 0, '2024-01-01', 50, 30), week('P', 1, '2024-01-08', 40, 40), week('P', 2, '2024-01-15', 50, 0),
        week('Q', 0, '2024-01-01', null, 0), week('Q', 1, '2024-01-08', null, 0), week('Q', 2, '2024-01-15', 0, 5),
      ]);
      const onlyQ = await t.call('get', CAP, { token, query: { pipeline_id: pipelineId, scenario_id: scenarioId, site_id: s.Q } });
      expect(onlyQ.body.weeks).toEqual(res.body.weeks.slice(3));
      expect(onlyQ.body.capacity).toEqual([res.body.capacity[2]]);
    });

    test('with run_id: that run, whatever its status, over its own planning date and horizon', async () => {
      const busy = await t.call('get', CAP, { token, query: { pipeline_id: pipelineId, scenario_id: scenarioId, run_id: 'busy' } });
      expect(busy.body.run).toEqual(expect.objectContaining({ run_id: 'busy', status: 'running', planning_date: '2024-01-08', finished_at: null }));
      expect(busy.body.weeks).toEqual([
        week('P', 0, '2024-01-08', 40, 1), week('P', 1, '2024-01-15', 50, 0), week('P', 2, '2024-01-22', 50, 0),
        week('Q', 0, '2024-01-08', null, 0), week('Q', 1, '2024-01-15', 0, 0), week('Q', 2, '2024-01-22', null, 0),
      ]);
      const old = await t.call('get', CAP, { token, query: { pipeline_id: pipelineId, scenario_id: scenarioId, run_id: 'old' } });
      expect(old.body.weeks).toEqual([week('P', 0, '2023-12-04', 50, 0), week('P', 1, '2023-12-11', 50, 8)]);
    });

    test('a scope without a completed run has no weeks; unknown scopes and runs are 404s', async () => {
      const other = (await t.call('post', '/api/supply/scenarios', { token, body: { name: 'Other' } })).body.id;
      const none = await t.call('get', CAP, { token, query: { pipeline_id: pipelineId, scenario_id: other } });
      expect([none.status, none.body.run, none.body.weeks, none.body.capacity.length]).toEqual([200, null, [], 3]);
      for (const [query, message] of [
        [{ pipeline_id: pipelineId, scenario_id: other, run_id: 'done' }, `Supply run done not found for pipeline ${pipelineId} and supply scenario ${other}`],
        [{ pipeline_id: pipelineId, scenario_id: scenarioId, run_id: 'nope' }, `Supply run nope not found for pipeline ${pipelineId} and supply scenario ${scenarioId}`],
        [{ pipeline_id: 999999, scenario_id: scenarioId }, 'Pipeline 999999 not found'],
        [{ pipeline_id: pipelineId, scenario_id: 999999 }, 'Supply scenario 999999 not found'],
      ] as const) {
        const res = await t.call('get', CAP, { token, query });
        expect([query, res.status, res.body.detail]).toEqual([query, 404, message]);
      }
    });

    test('a half scope is a 400 naming the missing parameter; pipeline 0 is refused', async () => {
      for (const [query, message] of [
        [{ pipeline_id: pipelineId }, 'query.scenario_id is required with pipeline_id'],
        [{ scenario_id: scenarioId }, 'query.pipeline_id is required with scenario_id'],
        [{ run_id: 'done' }, 'query.pipeline_id and query.scenario_id are required with run_id'],
        [{ pipeline_id: 0, scenario_id: scenarioId }, 'query.pipeline_id must be >= 1'],
        [{ site_id: 'x' }, 'query.site_id must be integer'],
        [{ week: 1 }, "query: unknown field 'week'"],
      ] as const) {
        const res = await t.call('get', CAP, { token, query });
        expect([query, res.status, res.body.detail]).toEqual([query, 400, message]);
      }
    });
  });

  test('capacityForWeeks: the dated row of the ISO week holding the run week, else the every-week row, else nothing', async () => {
    const tenant = await t.newTenant('supply-cap-weeks');
    const ids = await q(async (tx) => {
      const ins = async (code: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${code}, ${code}) RETURNING id`)) as number;
      const [s1, s2, s3, s4] = [await ins('S1'), await ins('S2'), await ins('S3'), await ins('S4')];
      const cap = (siteId: number, period: string | null, qty: number) =>
        tx.query(sql.unsafe`INSERT INTO site_capacity (site_id, period_start, qty) VALUES (${siteId}, ${period}::date, ${qty})`);
      await cap(s1, null, 100); // every week…
      await cap(s1, '2024-01-08', 10); // …but the week of Monday 8 January
      await cap(s1, '2023-12-25', 99); // before the horizon
      await cap(s1, '2024-01-29', 99); // after it
      await cap(s2, '2024-01-15', 20); // only dated rows: the other weeks unconstrained
      // written around the API on other weekdays: they count for their ISO week, the later date winning
      await cap(s3, '2024-01-09', 31);
      await cap(s3, '2024-01-13', 32);
      await cap(s3, '2024-01-14', 33);
      return { s1, s2, s3, s4 };
    }, tenant.accountId);
    const weeks = (pd: string, n: number, sites?: number[]) => q((tx) => capacityForWeeks(tx, pd, n, sites), tenant.accountId);

    // a Monday planning date: week w is the ISO week of pd + 7w
    expect(await weeks('2024-01-01', 4)).toEqual([
      { site_id: ids.s1, week: 0, qty: 100 }, { site_id: ids.s1, week: 1, qty: 10 }, { site_id: ids.s1, week: 2, qty: 100 }, { site_id: ids.s1, week: 3, qty: 100 },
      { site_id: ids.s2, week: 2, qty: 20 },
      { site_id: ids.s3, week: 1, qty: 33 },
    ]);
    // other weekdays: week w takes the ISO week holding most of its days, the one of its fourth day
    // Wednesday 3 January: 3–9 → Monday 1 (no dated row), 10–16 → Monday 8, 17–23 → Monday 15
    expect(await weeks('2024-01-03', 3)).toEqual([
      { site_id: ids.s1, week: 0, qty: 100 }, { site_id: ids.s1, week: 1, qty: 10 }, { site_id: ids.s1, week: 2, qty: 100 },
      { site_id: ids.s2, week: 2, qty: 20 },
      { site_id: ids.s3, week: 1, qty: 33 },
    ]);
    // Thursday 4 January: 4–10 still has four days in the week of Monday 1
    expect(await weeks('2024-01-04', 1)).toEqual([{ site_id: ids.s1, week: 0, qty: 100 }]);
    // Friday 5 January: 5–11 has four days in the week of Monday 8, 12–18 in that of Monday 15
    expect(await weeks('2024-01-05', 2)).toEqual([
      { site_id: ids.s1, week: 0, qty: 10 }, { site_id: ids.s1, week: 1, qty: 100 },
      { site_id: ids.s2, week: 1, qty: 20 },
      { site_id: ids.s3, week: 0, qty: 33 },
    ]);
    // Sunday 7 January, sites filtered: 7–13 → Monday 8, 14–20 → Monday 15
    expect(await weeks('2024-01-07', 2, [ids.s1, ids.s4])).toEqual([
      { site_id: ids.s1, week: 0, qty: 10 }, { site_id: ids.s1, week: 1, qty: 100 },
    ]);
    expect(await weeks('2024-01-01', 0)).toEqual([]);
    expect(await weeks('2024-01-01', 4, [])).toEqual([]);
  });
});
