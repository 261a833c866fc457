import { firmOrdersOfItems, migrateLegacyFirmOrders } from '../../db/firmOrders';
import { sql, withTenant } from '../../db/pool';
import { insertLegacySupply, seedFirmOrderNetwork, type FirmOrderSeed } from '../support/firmOrderSeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

const PATH = '/api/supply/firm-orders';
const ORDER_TYPE_LIST = 'BUY, BUILD, REPAIR, TRANSFER, BALANCING, REPLENISH, RETURN';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let plain: string;
let seed: FirmOrderSeed;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('firm');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  seed = await seedFirmOrderNetwork(t.db, a.accountId);
});
afterAll(() => t.close());

const countIn = (accountId: string, table = 'firm_orders') =>
  withTenant(t.db, accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${sql.identifier([table])}`));
const count = () => countIn(a.accountId);

const createBody = (over: Record<string, unknown> = {}) => ({
  item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'BUY', qty: 10, release_dt: '2026-06-01', arrival_dt: '2026-06-29', ...over,
});

describe('create, read, update, delete', () => {
  let id: number;
  let stored: Record<string, unknown>;

  test('create answers the stored order with its item and sites, what it still brings, and the defaults', async () => {
    const res = await t.call('post', PATH, {
      token: planner,
      body: createBody({
        external_id: 'PO-1', source_site_id: seed.sites.SUP, order_type: 'buy', qty: 40, arrival_dt: '2026-06-29T08:00:00+02:00', route_id: seed.route, unit_cost: 2.5,
      }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number), external_id: 'PO-1',
      item_id: seed.items.X, item_xuid: 'X', item_name: 'Item X',
      site_id: seed.sites.DC, site_xuid: 'DC', site_name: 'Central DC',
      source_site_id: seed.sites.SUP, source_site_xuid: 'SUP', source_site_name: 'Supplier',
      order_type: 'BUY', qty: 40, received_qty: 0, remaining_qty: 40,
      release_dt: '2026-06-01T00:00:00.000Z', arrival_dt: '2026-06-29T06:00:00.000Z',
      route_id: seed.route, unit_cost: 2.5, order_cost: null, total_cost: null,
      erp_status: 'firm', counts_as_supply: true, expiry_date: null, attributes: {}, source_system: 'manual_upload',
      created_at: expect.any(String), updated_at: expect.any(String),
    });
    id = res.body.id;
    stored = res.body;
    const got = await t.call('get', `${PATH}/${id}`, { token: plain });
    expect([got.status, got.body]).toEqual([200, stored]);
  });

  test('order_type is compared and stored upper-case; a transfer names its shipping site', async () => {
    const res = await t.call('post', PATH, { token: admin, body: createBody({ order_type: ' Transfer ', source_site_id: seed.sites.DC, site_id: seed.sites.S1, qty: 0.5 }) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ order_type: 'TRANSFER', qty: 0.5, source_site_xuid: 'DC', site_xuid: 'S1', external_id: null });
    await t.call('delete', `${PATH}/${res.body.id}`, { token: admin });
  });

  test('update changes only the fields sent, of the mutable ones', async () => {
    const res = await t.call('put', `${PATH}/${id}`, {
      token: planner, body: { qty: 30, received_qty: 35, erp_status: 'IN_TRANSIT', expiry_date: '2026-12-31', attributes: { carrier: 'DHL' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...stored, qty: 30, received_qty: 35, remaining_qty: 0, erp_status: 'in_transit', counts_as_supply: true, expiry_date: '2026-12-31',
      attributes: { carrier: 'DHL' }, updated_at: expect.any(String),
    });
    const received = await t.call('put', `${PATH}/${id}`, { token: planner, body: { erp_status: 'received', expiry_date: null, arrival_dt: '2026-07-06' } });
    expect(received.body).toMatchObject({ erp_status: 'received', counts_as_supply: false, expiry_date: null, arrival_dt: '2026-07-06T00:00:00.000Z', qty: 30 });
    stored = received.body;
  });

  test('a bad update is a 400 naming the field and changes nothing', async () => {
    for (const [body, detail] of [
      [{ release_dt: '2026-07-10' }, "body.release_dt 2026-07-10T00:00:00.000Z is after the order's arrival_dt 2026-07-06T00:00:00.000Z"],
      [{ arrival_dt: '2026-05-01' }, "body.arrival_dt 2026-05-01T00:00:00.000Z is before the order's release_dt 2026-06-01T00:00:00.000Z"],
      [{ release_dt: '2026-07-01', arrival_dt: '2026-06-30' }, 'body.arrival_dt 2026-06-30T00:00:00.000Z is before release_dt 2026-07-01T00:00:00.000Z'],
      [{ arrival_dt: 'soon' }, "body.arrival_dt: 'soon' is not an ISO 8601 date or date-time"],
      [{ order_type: 'BUILD' }, "body: unknown field 'order_type'"],
      [{ item_id: seed.items.Y }, "body: unknown field 'item_id'"],
      [{ site_id: seed.sites.S1 }, "body: unknown field 'site_id'"],
      [{ external_id: 'PO-9' }, "body: unknown field 'external_id'"],
      [{ source_system: 'sap' }, "body: unknown field 'source_system'"],
      [{ qty: 0 }, 'body.qty must be > 0'],
      [{ qty: -2 }, 'body.qty must be > 0'],
      [{ received_qty: -1 }, 'body.received_qty must be >= 0'],
      [{ erp_status: 'lost' }, "body.erp_status: 'lost' is not an erp_status (one of firm, released, in_transit, received, any case)"],
      [{ attributes: [1] }, 'body.attributes must be object'],
      [{ expiry_date: 'soon' }, 'body.expiry_date must match format "date"'],
    ] as const) {
      const res = await t.call('put', `${PATH}/${id}`, { token: planner, body });
      expect([body, res.status, res.body.detail]).toEqual([body, 400, detail]);
    }
    expect((await t.call('get', `${PATH}/${id}`, { token: plain })).body).toEqual(stored);
  });

  test('unknown ids are 404s', async () => {
    expect((await t.call('get', `${PATH}/999999`, { token: plain })).body).toEqual({ detail: 'Firm order 999999 not found' });
    const put = await t.call('put', `${PATH}/999999`, { token: planner, body: { qty: 1 } });
    expect([put.status, put.body.detail]).toEqual([404, 'Firm order 999999 not found']);
    const del = await t.call('delete', `${PATH}/999999`, { token: planner });
    expect([del.status, del.body.detail]).toEqual([404, 'Firm order 999999 not found']);
  });

  test('delete, audited', async () => {
    const before = await count();
    const res = await t.call('delete', `${PATH}/${id}`, { token: planner });
    expect([res.status, res.body]).toEqual([200, { status: 'deleted', id }]);
    expect(await count()).toBe(before - 1);
    expect((await t.call('get', `${PATH}/${id}`, { token: plain })).status).toBe(404);
    const audit = await t.call('get', '/api/audit-log', { token: admin, query: { entity_type: 'firm_order', entity_id: String(id) } });
    const done = audit.body.items.filter((i: any) => i.outcome === 'success').map((i: any) => i.action).sort();
    expect(done).toEqual(['create', 'delete', 'update', 'update']);
  });
});

describe('create validation', () => {
  test('every bad field is a 400 naming it, and nothing is written', async () => {
    const before = await count();
    for (const [over, detail] of [
      [{ item_id: 999999 }, 'body.item_id: item 999999 does not exist'],
      [{ site_id: 999999 }, 'body.site_id: site 999999 does not exist'],
      [{ source_site_id: 999999 }, 'body.source_site_id: site 999999 does not exist'],
      [{ route_id: 999999 }, 'body.route_id: route 999999 does not exist'],
      [{ order_type: 'TRUCK' }, `body.order_type: 'TRUCK' is not an order type (one of ${ORDER_TYPE_LIST}, any case)`],
      [{ order_type: 'REPLENISHMENT' }, `body.order_type: 'REPLENISHMENT' is not an order type (one of ${ORDER_TYPE_LIST}, any case)`],
      [{ qty: 0 }, 'body.qty must be > 0'],
      [{ qty: -3 }, 'body.qty must be > 0'],
      [{ qty: 'ten' }, 'body.qty must be number'],
      [{ release_dt: 'next week' }, "body.release_dt: 'next week' is not an ISO 8601 date or date-time"],
      [{ arrival_dt: '2026-02-30' }, "body.arrival_dt: '2026-02-30' is not an ISO 8601 date or date-time"],
      // an offset moving the instant past year 9999
      [{ arrival_dt: '9999-12-31T23:00:00-05:00' }, "body.arrival_dt: '9999-12-31T23:00:00-05:00' is not an ISO 8601 date or date-time"],
      [{ arrival_dt: '2026-05-31' }, 'body.arrival_dt 2026-05-31T00:00:00.000Z is before release_dt 2026-06-01T00:00:00.000Z'],
      [{ arrival_dt: '2026-06-01T01:00:00+02:00' }, 'body.arrival_dt 2026-05-31T23:00:00.000Z is before release_dt 2026-06-01T00:00:00.000Z'],
      [{ erp_status: 'cancelled' }, "body.erp_status: 'cancelled' is not an erp_status (one of firm, released, in_transit, received, any case)"],
      [{ received_qty: -1 }, 'body.received_qty must be >= 0'],
      [{ unit_cost: -1 }, 'body.unit_cost must be >= 0'],
      [{ attributes: 'fragile' }, 'body.attributes must be object'],
      [{ expiry_date: '2026-13-01' }, 'body.expiry_date must match format "date"'],
      [{ expiry_date: '0000-01-01' }, 'body.expiry_date must match format "date"'],
      [{ item_id: undefined }, 'body.item_id is required'],
      [{ qty: undefined }, 'body.qty is required'],
      [{ release_dt: undefined }, 'body.release_dt is required'],
      [{ quantity: 5 }, "body: unknown field 'quantity'"],
      [{ item_xuid: 'X' }, "body: unknown field 'item_xuid'"],
    ] as const) {
      const res = await t.call('post', PATH, { token: planner, body: createBody(over) });
      expect([over, res.status, res.body.detail]).toEqual([over, 400, detail]);
    }
    expect(await count()).toBe(before);
  });

  test('a second order with the same external_id and source_system is a 409; another source system is another order', async () => {
    const first = await t.call('post', PATH, { token: planner, body: createBody({ external_id: 'DUP-1', source_system: 'sap' }) });
    expect(first.status).toBe(201);
    const before = await count();
    const again = await t.call('post', PATH, { token: planner, body: createBody({ external_id: 'DUP-1', source_system: 'sap', qty: 99 }) });
    expect([again.status, again.body.detail]).toEqual([409, `body.external_id: firm order ${first.body.id} already has external_id 'DUP-1' from source_system 'sap'; update it, or import to upsert`]);
    expect(await count()).toBe(before);
    const other = await t.call('post', PATH, { token: planner, body: createBody({ external_id: 'DUP-1' }) });
    expect([other.status, other.body.source_system]).toEqual([201, 'manual_upload']);
    for (const r of [first, other]) await t.call('delete', `${PATH}/${r.body.id}`, { token: planner });
  });
});

describe('list', () => {
  let b: TestTenant;
  let token: string;
  let s: FirmOrderSeed;
  const ids: Record<string, number> = {};
  const list = (query: Record<string, unknown>) => t.call('get', PATH, { token, query });
  const idsOf = (res: { body: Array<{ id: number }> }) => res.body.map((r) => r.id);

  beforeAll(async () => {
    b = await t.newTenant('firm-list');
    token = await t.login(b.planner);
    s = await seedFirmOrderNetwork(t.db, b.accountId);
    const rows: Array<[string, Record<string, unknown>]> = [
      ['A', { external_id: 'PO-100', source_system: 'sap', item_id: s.items.X, site_id: s.sites.DC, source_site_id: s.sites.SUP, order_type: 'BUY', qty: 40, release_dt: '2026-06-01', arrival_dt: '2026-06-29' }],
      ['B', { external_id: 'PO-101', source_system: 'sap', item_id: s.items.Y, site_id: s.sites.DC, order_type: 'BUILD', qty: 15, release_dt: '2026-06-08', arrival_dt: '2026-07-06T12:00:00Z', erp_status: 'released' }],
      ['C', { external_id: 'TO-7', source_system: 'wms', item_id: s.items.X, site_id: s.sites.S1, source_site_id: s.sites.DC, order_type: 'TRANSFER', qty: 5, release_dt: '2026-06-20', arrival_dt: '2026-06-22', erp_status: 'in_transit', received_qty: 2 }],
      ['D', { external_id: '50%_off', item_id: s.items.Y, site_id: s.sites.S1, order_type: 'RETURN', qty: 1, release_dt: '2026-05-01', arrival_dt: '2026-05-04', erp_status: 'received', received_qty: 1 }],
      ['E', { item_id: s.items.X, site_id: s.sites.DC, order_type: 'REPAIR', qty: 3, release_dt: '2026-07-01', arrival_dt: '2026-07-06T00:00:00Z' }],
    ];
    for (const [name, body] of rows) {
      const res = await t.call('post', PATH, { token, body });
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
  });

  test('ordered by arrival, then id; every field of a row; the count in X-Total-Count', async () => {
    const res = await list({});
    expect([res.status, res.headers['x-total-count']]).toEqual([200, '5']);
    expect(idsOf(res)).toEqual([ids.D, ids.C, ids.A, ids.E, ids.B]);
    expect(res.body[1]).toEqual({
      id: ids.C, external_id: 'TO-7', item_id: s.items.X, item_xuid: 'X', item_name: 'Item X', site_id: s.sites.S1, site_xuid: 'S1', site_name: 'Store 1',
      source_site_id: s.sites.DC, source_site_xuid: 'DC', source_site_name: 'Central DC', order_type: 'TRANSFER', qty: 5, received_qty: 2, remaining_qty: 3,
      release_dt: '2026-06-20T00:00:00.000Z', arrival_dt: '2026-06-22T00:00:00.000Z', route_id: null, unit_cost: null, order_cost: null, total_cost: null,
      erp_status: 'in_transit', counts_as_supply: true, expiry_date: null, attributes: {}, source_system: 'wms',
      created_at: expect.any(String), updated_at: expect.any(String),
    });
  });

  test('filters, each alone and together', async () => {
    for (const [query, expected] of [
      [{ item_id: s.items.X }, ['C', 'A', 'E']],
      [{ site_id: s.sites.DC }, ['A', 'E', 'B']],
      [{ source_site_id: s.sites.DC }, ['C']],
      [{ order_type: 'transfer' }, ['C']],
      [{ erp_status: 'RELEASED' }, ['B']],
      [{ counts_as_supply: true }, ['C', 'A', 'E', 'B']],
      [{ counts_as_supply: false }, ['D']],
      [{ source_system: 'sap' }, ['A', 'B']],
      [{ source_system: 'manual_upload' }, ['D', 'E']],
      [{ external_id: 'TO-7' }, ['C']],
      [{ release_from: '2026-06-08', release_to: '2026-06-20' }, ['C', 'B']],
      // a bare date ends with its day; a date-time is the instant itself
      [{ arrival_to: '2026-07-05' }, ['D', 'C', 'A']],
      [{ arrival_to: '2026-07-06' }, ['D', 'C', 'A', 'E', 'B']],
      [{ arrival_to: '2026-07-06T00:00:00Z' }, ['D', 'C', 'A', 'E']],
      [{ arrival_from: '2026-07-06T06:00:00+02:00' }, ['B']],
      [{ arrival_from: '1900-01-01', arrival_to: '9999-12-31' }, ['D', 'C', 'A', 'E', 'B']],
      [{ search: 'central' }, ['C', 'A', 'E', 'B']],
      [{ search: 'po-10' }, ['A', 'B']],
      [{ search: 'WMS' }, ['C']],
      [{ search: '50%' }, ['D']],
      [{ search: '%' }, ['D']],
      [{ item_id: s.items.X, site_id: s.sites.DC, counts_as_supply: true }, ['A', 'E']],
      [{ item_id: s.items.Y, order_type: 'BUY' }, []],
    ] as const) {
      const res = await list(query);
      expect([query, idsOf(res), res.headers['x-total-count']]).toEqual([query, expected.map((k) => ids[k]), String(expected.length)]);
    }
  });

  test('sorting and paging', async () => {
    const byQty = await list({ sort: 'qty', order: 'desc' });
    expect(idsOf(byQty)).toEqual([ids.A, ids.B, ids.C, ids.E, ids.D]);
    const byCode = await list({ sort: 'item_xuid' });
    expect(idsOf(byCode)).toEqual([ids.A, ids.C, ids.E, ids.B, ids.D]);
    const byRemaining = await list({ sort: 'remaining_qty' });
    expect(idsOf(byRemaining)).toEqual([ids.D, ids.C, ids.E, ids.B, ids.A]);
    const page = await list({ skip: 1, limit: 2 });
    expect([idsOf(page), page.headers['x-total-count']]).toEqual([[ids.C, ids.A], '5']);
    const beyond = await list({ skip: 10 });
    expect([beyond.body, beyond.headers['x-total-count']]).toEqual([[], '5']);
  });

  test('bad filters are 400s naming the parameter', async () => {
    for (const [query, detail] of [
      [{ order_type: 'TRUCK' }, `query.order_type: 'TRUCK' is not an order type (one of ${ORDER_TYPE_LIST}, any case)`],
      [{ erp_status: 'gone' }, "query.erp_status: 'gone' is not an erp_status (one of firm, released, in_transit, received, any case)"],
      [{ arrival_from: 'tomorrow' }, "query.arrival_from: 'tomorrow' is not an ISO 8601 date or date-time"],
      [{ release_to: '2026-02-30' }, "query.release_to: '2026-02-30' is not an ISO 8601 date or date-time"],
      [{ item_id: 0 }, 'query.item_id must be >= 1'],
      [{ limit: 1001 }, 'query.limit must be <= 1000'],
      [{ sort: 'colour' }, expect.stringMatching(/^query.sort must be one of: id, external_id, /)],
      [{ colour: 'red' }, "query: unknown field 'colour'"],
    ] as const) {
      const res = await list(query);
      expect([query, res.status, res.body.detail]).toEqual([query, 400, detail]);
    }
  });

  test('firmOrdersOfItems: every order of the items, any status, in the engine input shape; an item without orders gets none', async () => {
    const map = await withTenant(t.db, b.accountId, (tx) => firmOrdersOfItems(tx, [s.items.X, s.items.Y, 999999]));
    expect([...map.keys()]).toEqual([s.items.X, s.items.Y, 999999]);
    expect(map.get(s.items.X)).toEqual([
      { id: ids.C, site_id: s.sites.S1, source_site_id: s.sites.DC, order_type: 'TRANSFER', qty: 5, received_qty: 2, erp_status: 'in_transit', release_dt: '2026-06-20T00:00:00.000Z', arrival_dt: '2026-06-22T00:00:00.000Z' },
      { id: ids.A, site_id: s.sites.DC, source_site_id: s.sites.SUP, order_type: 'BUY', qty: 40, received_qty: 0, erp_status: 'firm', release_dt: '2026-06-01T00:00:00.000Z', arrival_dt: '2026-06-29T00:00:00.000Z' },
      { id: ids.E, site_id: s.sites.DC, source_site_id: null, order_type: 'REPAIR', qty: 3, received_qty: 0, erp_status: 'firm', release_dt: '2026-07-01T00:00:00.000Z', arrival_dt: '2026-07-06T00:00:00.000Z' },
    ]);
    expect(map.get(s.items.Y)!.map((o) => [o.id, o.erp_status])).toEqual([[ids.D, 'received'], [ids.B, 'released']]);
    expect(map.get(999999)).toEqual([]);
    expect(await withTenant(t.db, b.accountId, (tx) => firmOrdersOfItems(tx, []))).toEqual(new Map());
  });
});

describe('import', () => {
  const stored = (externalId: string, sourceSystem: string) => t.call('get', PATH, { token: plain, query: { external_id: externalId, source_system: sourceSystem } }).then((r) => r.body);

  test('good rows land, each bad row is reported once and writes nothing; both field-name variants; ids or codes', async () => {
    const before = await count();
    const rows = [
      /* 0 */ { external_id: 'ERP-1', source_system: 'sap', item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'BUY', qty: 12, release_dt: '2026-08-03', arrival_dt: '2026-08-31', attributes: { a: 1 } },
      /* 1 */ { external_id: 'ERP-2', source_system: 'sap', item_xuid: 'Y', site_xuid: 'S1', source_site_xuid: 'DC', order_type: 'transfer', quantity: 7, due_date: '2026-08-10', attributes: { a: 1 } },
      /* 2 */ { external_id: 'ERP-3', source_system: 'sap', item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'TRUCK', qty: 1, release_dt: '2026-08-03', arrival_dt: '2026-08-31' },
      /* 3 */ { external_id: 'ERP-4', source_system: 'sap', item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'BUY', quantity: -1, due_date: '2026-08-31' },
      /* 4 */ { external_id: 'ERP-5', source_system: 'sap', item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'BUY', qty: 1, release_dt: '2026-09-01', due_date: '2026-08-31' },
      /* 5 */ { external_id: 'ERP-6', source_system: 'sap', item_xuid: 'NOPE', site_xuid: 'DC', order_type: 'BUY', qty: 1, due_date: '2026-08-31' },
      /* 6 */ { external_id: 'ERP-7', source_system: 'sap', item_id: seed.items.X, site_id: 999999, order_type: 'BUY', qty: 1, due_date: '2026-08-31' },
      /* 7 */ { external_id: 'ERP-8', source_system: 'sap', item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'BUY', qty: 1, quantity: 1, due_date: '2026-08-31' },
      /* 8 */ { external_id: 'ERP-9', source_system: 'sap', item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'BUY', qty: 1, due_date: '2026-08-31', colour: 'red' },
      /* 9 */ { external_id: 'ERP-10', source_system: 'sap', item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'BUY', qty: 1, release_dt: '2026-08-03' },
      /* 10 */ { external_id: 'ERP-11', source_system: 'sap', item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'BUY', qty: 1, arrival_dt: '2026-08-31' },
      /* 11 */ { item_id: seed.items.Y, site_id: seed.sites.DC, order_type: 'Repair', quantity: 2, release_dt: '2026-08-01', due_date: '2026-08-15T10:00:00Z' },
      /* 12 */ { external_id: 'ERP-1', source_system: 'sap', item_id: seed.items.Y, site_id: seed.sites.DC, order_type: 'BUY', qty: 3, due_date: '2026-08-31' },
      /* 13 */ { external_id: 'ERP-1', item_id: seed.items.X, site_id: seed.sites.DC, order_type: 'BUY', qty: 4, due_date: '2026-08-31', erp_status: 'RELEASED' },
      /* 14 */ { external_id: 'ERP-12', source_system: 'sap', item_id: seed.items.X, site_xuid: 'DC', site_id: seed.sites.DC, order_type: 'BUY', qty: 1, due_date: '2026-08-31' },
      /* 15 */ { external_id: 'ERP-13', source_system: 'sap', item_id: seed.items.X, site_id: seed.sites.DC, qty: 1, due_date: '2026-08-31' },
    ];
    const res = await t.call('post', `${PATH}/import`, { token: planner, body: rows });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      inserted: 4, updated: 0,
      errors: [
        { row: 2, external_id: 'ERP-3', field: 'order_type', message: `order_type: 'TRUCK' is not an order type (one of ${ORDER_TYPE_LIST}, any case)` },
        { row: 3, external_id: 'ERP-4', field: 'quantity', message: 'quantity must be > 0' },
        { row: 4, external_id: 'ERP-5', field: 'due_date', message: 'due_date 2026-08-31T00:00:00.000Z is before release_dt 2026-09-01T00:00:00.000Z' },
        { row: 5, external_id: 'ERP-6', field: 'item_xuid', message: "item_xuid: no item has the code 'NOPE'" },
        { row: 6, external_id: 'ERP-7', field: 'site_id', message: 'site_id: site 999999 does not exist' },
        { row: 7, external_id: 'ERP-8', field: 'quantity', message: 'quantity: give qty or quantity, not both' },
        { row: 8, external_id: 'ERP-9', field: 'colour', message: "unknown field 'colour'" },
        { row: 9, external_id: 'ERP-10', field: 'arrival_dt', message: 'arrival_dt is required (or due_date)' },
        { row: 10, external_id: 'ERP-11', field: 'release_dt', message: 'release_dt is required' },
        { row: 12, external_id: 'ERP-1', field: 'external_id', message: "external_id: 'ERP-1' of source_system 'sap' repeats row 0" },
        { row: 14, external_id: 'ERP-12', field: 'site_xuid', message: 'site_xuid: give site_id or site_xuid, not both' },
        { row: 15, external_id: 'ERP-13', field: 'order_type', message: 'order_type is required' },
      ],
    });
    expect(await count()).toBe(before + 4);
    const [erp1] = await stored('ERP-1', 'sap');
    expect(erp1).toMatchObject({ item_xuid: 'X', qty: 12, release_dt: '2026-08-03T00:00:00.000Z', arrival_dt: '2026-08-31T00:00:00.000Z', erp_status: 'firm', received_qty: 0, attributes: { a: 1 } });
    // due_date is the arrival; without release_dt the order is released on its due date
    const [erp2] = await stored('ERP-2', 'sap');
    expect(erp2).toMatchObject({ item_xuid: 'Y', site_xuid: 'S1', source_site_xuid: 'DC', order_type: 'TRANSFER', qty: 7, release_dt: '2026-08-10T00:00:00.000Z', arrival_dt: '2026-08-10T00:00:00.000Z' });
    const [manual] = await stored('ERP-1', 'manual_upload');
    expect(manual).toMatchObject({ item_xuid: 'X', qty: 4, erp_status: 'released' });
    const noKey = await t.call('get', PATH, { token: plain, query: { item_id: seed.items.Y, order_type: 'REPAIR' } });
    expect(noKey.body.map((r: any) => [r.external_id, r.qty, r.release_dt, r.arrival_dt])).toEqual([[null, 2, '2026-08-01T00:00:00.000Z', '2026-08-15T10:00:00.000Z']]);
  });

  test('the same external ids again update those orders: fields a row leaves out are kept, attributes merged', async () => {
    const before = await count();
    const [erp1] = await stored('ERP-1', 'sap');
    const res = await t.call('post', `${PATH}/import`, {
      token: planner,
      body: {
        rows: [
          { external_id: 'ERP-1', source_system: 'sap', item_xuid: 'X', site_xuid: 'DC', order_type: 'BUY', qty: 50, release_dt: '2026-08-03', arrival_dt: '2026-09-07', erp_status: 'Released', received_qty: 10 },
          { external_id: 'ERP-2', source_system: 'sap', item_xuid: 'Y', site_xuid: 'S1', order_type: 'TRANSFER', quantity: 9, due_date: '2026-08-17', attributes: { b: 2 } },
          { external_id: 'ERP-1', source_system: 'other', item_id: 999999, site_id: seed.sites.DC, order_type: 'BUY', qty: 1, due_date: '2026-08-17' },
        ],
      },
    });
    expect(res.body).toEqual({
      inserted: 0, updated: 2,
      errors: [{ row: 2, external_id: 'ERP-1', field: 'item_id', message: 'item_id: item 999999 does not exist' }],
    });
    expect(await count()).toBe(before);
    const [again1] = await stored('ERP-1', 'sap');
    expect(again1).toEqual({
      ...erp1, qty: 50, received_qty: 10, remaining_qty: 40, arrival_dt: '2026-09-07T00:00:00.000Z', erp_status: 'released', updated_at: expect.any(String),
    });
    const [again2] = await stored('ERP-2', 'sap');
    // the source site was not named again: kept, as is the status
    expect(again2).toMatchObject({ qty: 9, release_dt: '2026-08-17T00:00:00.000Z', arrival_dt: '2026-08-17T00:00:00.000Z', source_site_xuid: 'DC', erp_status: 'firm', attributes: { a: 1, b: 2 } });
  });

  test('a body that is not a list of rows is a 400 and writes nothing', async () => {
    const before = await count();
    for (const [body, detail] of [
      [[], 'body must NOT have fewer than 1 items'],
      [{}, 'body.rows is required'],
      [{ rows: 'x' }, 'body.rows must be array'],
      [{ rows: [] }, 'body.rows must NOT have fewer than 1 items'],
      [[1], 'body[0] must be object'],
      [Array.from({ length: 10_001 }, () => ({})), 'body must NOT have more than 10000 items'],
    ] as const) {
      const res = await t.call('post', `${PATH}/import`, { token: planner, body });
      expect([res.status, res.body.detail]).toEqual([400, detail]);
    }
    expect(await count()).toBe(before);
  });
});

describe('permissions', () => {
  test('reading is for every user; writing needs can_run_process or an admin role', async () => {
    const list = await t.call('get', PATH, { token: plain });
    expect(list.status).toBe(200);
    const id = list.body[0].id;
    const before = await count();
    for (const [method, path, body] of [
      ['post', PATH, createBody()],
      ['put', `${PATH}/${id}`, { qty: 1 }],
      ['delete', `${PATH}/${id}`, undefined],
      ['post', `${PATH}/import`, [createBody()]],
    ] as const) {
      const res = await t.call(method, path, { token: plain, body });
      expect([method, path, res.status]).toEqual([method, path, 403]);
      expect((await t.call(method, path, { body })).status).toBe(401);
    }
    expect((await t.call('get', PATH, {})).status).toBe(401);
    expect(await count()).toBe(before);
    const byAdmin = await t.call('post', PATH, { token: admin, body: createBody() });
    expect(byAdmin.status).toBe(201);
  });
});

describe('legacy migration (document 2 §4.3 rule 4)', () => {
  const migrate = (accountId: string) => withTenant(t.db, accountId, (tx) => migrateLegacyFirmOrders(tx));
  const marker = (accountId: string) =>
    withTenant(t.db, accountId, (tx) => tx.any(sql.unsafe`SELECT outcome, anchor_date, migrated, not_lifted FROM firm_orders_legacy_migration`));
  const legacyRows = (accountId: string) =>
    withTenant(t.db, accountId, (tx) => tx.any(sql.unsafe`
      SELECT external_id, source_system, item_id, site_id, source_site_id, order_type, qty::float8 AS qty, received_qty::float8 AS received_qty,
             erp_status, release_dt, arrival_dt, attributes
      FROM firm_orders ORDER BY id`));
  const supplyOrders = (accountId: string) =>
    withTenant(t.db, accountId, (tx) => tx.anyFirst(sql.unsafe`SELECT order_id FROM supply_orders ORDER BY order_id`));

  test('firm, released and in_transit rows become firm orders dated from the earliest completed run, once', async () => {
    const l = await t.newTenant('legacy');
    const s = await seedFirmOrderNetwork(t.db, l.accountId);
    const ids = await insertLegacySupply(t.db, l.accountId, [
      { run_id: 'run-early-failed', status: 'failed', started_at: '2025-12-01T09:00:00Z' },
      { run_id: 'run-1', status: 'completed', started_at: '2026-01-05T22:30:00Z' },
      { run_id: 'run-2', status: 'completed', started_at: '2026-02-02T08:00:00Z' },
    ], [
      { run_id: 'run-2', item_id: s.items.X, site_id: s.sites.DC, source_site_id: s.sites.SUP, order_type: 'BUY', status: 'firm', qty: 40, release_week: 2, arrival_week: 4 },
      { run_id: 'run-2', item_id: s.items.X, site_id: s.sites.S1, source_site_id: s.sites.DC, order_type: 'TRANSFER', status: 'released', qty: 5, release_week: -1, arrival_week: 1 },
      { run_id: 'run-1', item_id: s.items.Y, site_id: s.sites.DC, order_type: 'build', status: 'IN_TRANSIT', qty: 8, release_week: 0, arrival_week: 3 },
      { run_id: 'run-2', item_id: s.items.Y, site_id: s.sites.S1, source_site_id: s.sites.DC, order_type: 'REPLENISHMENT', status: 'firm', qty: 2, release_week: 1, arrival_week: 2 },
      { run_id: 'run-2', item_id: s.items.X, site_id: s.sites.DC, order_type: 'BUY', status: 'planned', qty: 9, release_week: 0, arrival_week: 4 },
      { run_id: 'run-2', item_id: s.items.X, site_id: s.sites.DC, order_type: 'MAKE', status: 'firm', qty: 3, release_week: 0, arrival_week: 1 },
    ]);

    expect(await migrate(l.accountId)).toEqual({ migrated: 4 });
    const legacy = (k: number, extra: Record<string, unknown>) => ({
      legacy: { order_id: ids[k], engine_order_id: k + 1, pipeline_id: 1, scenario_id: expect.any(Number), kind: 'PLANNED', anchor_date: '2026-01-05', ...extra },
    });
    expect(await legacyRows(l.accountId)).toEqual([
      {
        external_id: `legacy:${ids[0]}`, source_system: 'legacy_engine', item_id: s.items.X, site_id: s.sites.DC, source_site_id: s.sites.SUP, order_type: 'BUY',
        qty: 40, received_qty: 0, erp_status: 'firm', release_dt: '2026-01-19T00:00:00.000Z', arrival_dt: '2026-02-02T00:00:00.000Z',
        attributes: legacy(0, { run_id: 'run-2', status: 'firm', release_week: 2, arrival_week: 4 }),
      },
      {
        external_id: `legacy:${ids[1]}`, source_system: 'legacy_engine', item_id: s.items.X, site_id: s.sites.S1, source_site_id: s.sites.DC, order_type: 'TRANSFER',
        qty: 5, received_qty: 0, erp_status: 'released', release_dt: '2025-12-29T00:00:00.000Z', arrival_dt: '2026-01-12T00:00:00.000Z',
        attributes: legacy(1, { run_id: 'run-2', status: 'released', release_week: -1, arrival_week: 1 }),
      },
      {
        external_id: `legacy:${ids[2]}`, source_system: 'legacy_engine', item_id: s.items.Y, site_id: s.sites.DC, source_site_id: null, order_type: 'BUILD',
        qty: 8, received_qty: 0, erp_status: 'in_transit', release_dt: '2026-01-05T00:00:00.000Z', arrival_dt: '2026-01-26T00:00:00.000Z',
        attributes: legacy(2, { run_id: 'run-1', status: 'IN_TRANSIT', release_week: 0, arrival_week: 3 }),
      },
      {
        external_id: `legacy:${ids[3]}`, source_system: 'legacy_engine', item_id: s.items.Y, site_id: s.sites.S1, source_site_id: s.sites.DC, order_type: 'REPLENISH',
        qty: 2, received_qty: 0, erp_status: 'firm', release_dt: '2026-01-12T00:00:00.000Z', arrival_dt: '2026-01-19T00:00:00.000Z',
        attributes: legacy(3, { run_id: 'run-2', status: 'firm', release_week: 1, arrival_week: 2 }),
      },
    ]);
    // the lifted rows left the engine output; the planned order and the row with no order type stayed
    expect(await supplyOrders(l.accountId)).toEqual([ids[4], ids[5]]);
    expect(await marker(l.accountId)).toEqual([{ outcome: 'migrated', anchor_date: '2026-01-05', migrated: 4, not_lifted: 1 }]);

    // the API shows them like any other order
    const token = await t.login(l.admin);
    const api = await t.call('get', PATH, { token, query: { source_system: 'legacy_engine', sort: 'id' } });
    expect([api.headers['x-total-count'], api.body[0].external_id, api.body[0].counts_as_supply]).toEqual(['4', `legacy:${ids[0]}`, true]);

    // run-once: again, even with the firm table emptied and a new legacy row, nothing moves
    expect(await migrate(l.accountId)).toEqual({ migrated: 0 });
    await withTenant(t.db, l.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM firm_orders`));
    await insertLegacySupply(t.db, l.accountId, [], [{ run_id: 'run-2', item_id: s.items.X, site_id: s.sites.DC, order_type: 'BUY', status: 'firm', qty: 1, release_week: 0, arrival_week: 0 }]);
    expect(await migrate(l.accountId)).toEqual({ migrated: 0 });
    expect(await countIn(l.accountId)).toBe(0);
    expect(await countIn(l.accountId, 'supply_orders')).toBe(3);
  });

  test('nothing is lifted when the firm table already holds orders', async () => {
    const l = await t.newTenant('legacy-skip');
    const s = await seedFirmOrderNetwork(t.db, l.accountId);
    const token = await t.login(l.admin);
    expect((await t.call('post', PATH, { token, body: { item_id: s.items.X, site_id: s.sites.DC, order_type: 'BUY', qty: 1, release_dt: '2026-06-01', arrival_dt: '2026-06-08' } })).status).toBe(201);
    const ids = await insertLegacySupply(t.db, l.accountId, [{ run_id: 'run-1', status: 'completed', started_at: '2026-01-05T00:00:00Z' }], [
      { run_id: 'run-1', item_id: s.items.X, site_id: s.sites.DC, order_type: 'BUY', status: 'firm', qty: 4, release_week: 0, arrival_week: 2 },
    ]);
    expect(await migrate(l.accountId)).toEqual({ migrated: 0 });
    expect(await countIn(l.accountId)).toBe(1);
    expect(await supplyOrders(l.accountId)).toEqual(ids);
    expect(await marker(l.accountId)).toEqual([{ outcome: 'skipped', anchor_date: null, migrated: 0, not_lifted: 1 }]);
    // decided once: deleting the orders later does not bring the lift back
    await withTenant(t.db, l.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM firm_orders`));
    expect(await migrate(l.accountId)).toEqual({ migrated: 0 });
    expect(await countIn(l.accountId)).toBe(0);
  });

  test('without a completed supply run the weeks count from the current date', async () => {
    const l = await t.newTenant('legacy-today');
    const s = await seedFirmOrderNetwork(t.db, l.accountId);
    await insertLegacySupply(t.db, l.accountId, [{ run_id: 'run-1', status: 'running', started_at: '2026-01-05T00:00:00Z' }], [
      { run_id: 'run-1', item_id: s.items.X, site_id: s.sites.DC, order_type: 'BUY', status: 'firm', qty: 4, release_week: 1, arrival_week: 2 },
    ]);
    const today = () => new Date().toISOString().slice(0, 10);
    const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString();
    const before = today();
    expect(await migrate(l.accountId)).toEqual({ migrated: 1 });
    const after = today();
    const [row] = await legacyRows(l.accountId);
    // the call may straddle midnight UTC: the anchor is one of the two dates, and both weeks count from it
    const anchor = row.attributes.legacy.anchor_date;
    expect([before, after]).toContain(anchor);
    expect([row.release_dt, row.arrival_dt]).toEqual([plusDays(anchor, 7), plusDays(anchor, 14)]);
  });
});
