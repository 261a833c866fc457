import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixedFields } from '../../domain/segments/fields';
import { filterSeries, type FactValue, type Rule } from '../../domain/segments/rules';
import { setTenantParameter } from '../../db/parameters';
import { sql, withTenant, type Db } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;

const WEEKS = ['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26', '2026-02-02', '2026-02-09', '2026-02-16', '2026-02-23'];
const PATTERNS: Record<string, number[]> = {
  smooth: [5, 6, 5, 7, 6, 5, 6, 5],
  intermittent: [0, 0, 4, 0, 0, 5, 0, 0],
  lumpy: [0, 0, 1, 0, 0, 20, 0, 0],
  erratic: [1, 20, 1, 20, 1, 20, 1, 20],
};

/**
 * Sites DC1 (dc, north), ST1 and ST2 (store, south); items I1..I6 with prices and attributes; series with the four
 * demand patterns, their weekly rows and etl statistics, and one series (I6 at ST2) without history.
 */
async function seed(db: Db, accountId: string) {
  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`
      INSERT INTO sites (xuid, name, site_type, attributes) VALUES
        ('DC1', 'Central DC', 'dc', '{"region": "north", "dock_doors": 12}'),
        ('ST1', 'Store Lyon', 'store', '{"region": "south", "dock_doors": 1}'),
        ('ST2', 'Store Nice', 'store', '{"region": "south"}')`);
    await tx.query(sql.unsafe`
      INSERT INTO items (xuid, name, unit_price, avg_unit_cost, attributes) VALUES
        ('I1', 'Cola Zero', 150, 90, '{"category": "Drinks", "shelf_life": 365, "launched": "2024-03-01", "fragile": false}'),
        ('I2', 'Bread', 2.5, 1, '{"category": "Food", "shelf_life": 3, "launched": "2025-09-15", "fragile": true}'),
        ('I3', 'Cola Light', 0, 0, '{"category": "Drinks", "shelf_life": 300}'),
        ('I4', 'Chips', 40, 0, '{"category": "Snacks", "launched": "2023-01-01"}'),
        ('I5', 'Water', 1, 0.5, '{}'),
        ('I6', 'New Tea', 3, 2, '{"category": "Drinks"}')`);
    const spec: Array<[string, string, string | null]> = [
      ['I1', 'DC1', 'smooth'], ['I1', 'ST1', 'intermittent'], ['I2', 'ST1', 'smooth'], ['I3', 'ST2', 'lumpy'],
      ['I4', 'DC1', 'erratic'], ['I5', 'ST2', 'intermittent'], ['I6', 'ST2', null],
    ];
    for (const [item, site, pattern] of spec) {
      const ids = (await tx.one(sql.unsafe`SELECT i.id AS item_id, s.id AS site_id FROM items i, sites s WHERE i.xuid = ${item} AND s.xuid = ${site}`)) as { item_id: number; site_id: number };
      if (!pattern) {
        await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${ids.item_id}, ${ids.site_id})`);
        continue;
      }
      const y = PATTERNS[pattern];
      await tx.query(sql.unsafe`
        INSERT INTO series_weekly (item_id, site_id, week, y)
        SELECT ${ids.item_id}, ${ids.site_id}, w, v FROM unnest(${sql.array(WEEKS, 'date')}::date[], ${sql.array(y, 'float8')}::float8[]) AS u(w, v)`);
      const total = y.reduce((s, v) => s + v, 0);
      await tx.query(sql.unsafe`
        INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end, mean, zero_ratio, total_demand)
        VALUES (${ids.item_id}, ${ids.site_id}, ${y.length}, ${WEEKS[0]}, ${WEEKS[y.length - 1]}, ${total / y.length}, ${y.filter((v) => v === 0).length / y.length}, ${total})`);
    }
  });
}

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('seg');
  await seed(t.db, a.accountId);
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
});
afterAll(() => t.close());

let seq = 0;
const uniqueName = (label: string) => `${label} ${Date.now()}-${(seq += 1)}`;

const preview = (rules: Rule[] | undefined, token = planner, id = 0, extra: Record<string, unknown> = {}) =>
  t.call('post', `/api/segments/${id}/preview`, { token, body: { ...(rules ? { rules } : {}), limit: 1000, ...extra } });
const uids = async (rules: Rule[], token = planner) => {
  const res = await preview(rules, token);
  expect([res.status, res.body.detail]).toEqual([200, undefined]);
  return res.body.series.map((s: { item_xuid: string; site_xuid: string }) => `${s.item_xuid}@${s.site_xuid}`);
};
async function segment(body: Record<string, unknown>, token = admin) {
  const res = await t.call('post', '/api/segments', { token, body });
  expect([res.status, res.body.detail]).toEqual([201, undefined]);
  return res.body;
}

describe('fields', () => {
  test('item and site columns, typed attributes, series statistics, ABC configurations and best_method, with operators', async () => {
    await t.call('post', '/api/abc/configurations', { token: admin, body: { name: 'Revenue' } });
    const res = await t.call('get', '/api/segments/fields', { token: planner });
    expect(res.status).toBe(200);
    const by = Object.fromEntries(res.body.map((f: { field: string }) => [f.field, f]));
    for (const f of fixedFields()) expect(by[f.field]).toMatchObject({ type: f.type, operators: f.operators });
    expect(by['item_attributes.category']).toMatchObject({ type: 'string', source: 'item_attribute', values: ['Drinks', 'Food', 'Snacks'], operators: ['=', '!=', 'in', 'not in', 'contains', 'is null'] });
    expect(by['item_attributes.shelf_life']).toMatchObject({ type: 'number', operators: ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'between', 'is null'] });
    expect(by['item_attributes.launched']).toMatchObject({ type: 'date' });
    expect(by['item_attributes.fragile']).toMatchObject({ type: 'boolean', operators: ['=', '!=', 'is null'] });
    expect(by['site_attributes.region']).toMatchObject({ type: 'string', source: 'site_attribute', values: ['north', 'south'] });
    expect(by['site_attributes.dock_doors']).toMatchObject({ type: 'number' });
    expect(by.site_type.values).toEqual(['dc', 'store']);
    expect(by['abc:Revenue']).toMatchObject({ type: 'string', source: 'abc', values: ['A', 'B', 'C'] });
    expect(by.best_method).toMatchObject({ type: 'string', source: 'method' });
    for (const f of ['n_observations', 'mean', 'zero_ratio', 'adi', 'cov', 'total_demand']) expect(by[f].type).toBe('number');
    expect(by.date_range_start.type).toBe('date');
    expect(by.demand_class.values).toEqual(['smooth', 'erratic', 'intermittent', 'lumpy']);
  });
});

describe('rule evaluation in SQL agrees with the pure evaluator, operator by operator', () => {
  const cases: Array<[string, Rule[], string[]]> = [
    ['number =', [{ field: 'unit_price', operator: '=', value: 150 }], ['I1@DC1', 'I1@ST1']],
    ['number !=', [{ field: 'unit_price', operator: '!=', value: 150 }], ['I2@ST1', 'I3@ST2', 'I4@DC1', 'I5@ST2', 'I6@ST2']],
    ['number <', [{ field: 'unit_price', operator: '<', value: 2.5 }], ['I3@ST2', 'I5@ST2']],
    ['number <=', [{ field: 'unit_price', operator: '<=', value: 2.5 }], ['I2@ST1', 'I3@ST2', 'I5@ST2']],
    ['number >', [{ field: 'unit_price', operator: '>', value: 100 }], ['I1@DC1', 'I1@ST1']],
    ['number >=', [{ field: 'unit_price', operator: '>=', value: 40 }], ['I1@DC1', 'I1@ST1', 'I4@DC1']],
    ['number in', [{ field: 'unit_price', operator: 'in', value: [1, 3] }], ['I5@ST2', 'I6@ST2']],
    ['number not in', [{ field: 'unit_price', operator: 'not in', value: [150, 0, 1, 3] }], ['I2@ST1', 'I4@DC1']],
    ['number between', [{ field: 'unit_price', operator: 'between', value: [1, 3] }], ['I2@ST1', 'I5@ST2', 'I6@ST2']],
    ['number is null (no history)', [{ field: 'mean', operator: 'is null' }], ['I6@ST2']],
    ['number is null false', [{ field: 'n_observations', operator: 'is null', value: false }], ['I1@DC1', 'I1@ST1', 'I2@ST1', 'I3@ST2', 'I4@DC1', 'I5@ST2']],
    ['string = ignores case', [{ field: 'site_xuid', operator: '=', value: 'dc1' }], ['I1@DC1', 'I4@DC1']],
    ['string !=', [{ field: 'site_type', operator: '!=', value: 'store' }], ['I1@DC1', 'I4@DC1']],
    ['string in', [{ field: 'item_xuid', operator: 'in', value: ['I2', 'i3'] }], ['I2@ST1', 'I3@ST2']],
    ['string not in', [{ field: 'item_attributes.category', operator: 'not in', value: ['drinks'] }], ['I2@ST1', 'I4@DC1']],
    ['string contains', [{ field: 'item_name', operator: 'contains', value: 'COLA' }], ['I1@DC1', 'I1@ST1', 'I3@ST2']],
    ['string is null', [{ field: 'item_attributes.category', operator: 'is null' }], ['I5@ST2']],
    ['date <', [{ field: 'item_attributes.launched', operator: '<', value: '2024-06-01' }], ['I1@DC1', 'I1@ST1', 'I4@DC1']],
    ['date between', [{ field: 'item_attributes.launched', operator: 'between', value: ['2024-01-01', '2025-12-31'] }], ['I1@DC1', 'I1@ST1', 'I2@ST1']],
    ['date column =', [{ field: 'date_range_start', operator: '=', value: '2026-01-05' }], ['I1@DC1', 'I1@ST1', 'I2@ST1', 'I3@ST2', 'I4@DC1', 'I5@ST2']],
    ['boolean =', [{ field: 'item_attributes.fragile', operator: '=', value: true }], ['I2@ST1']],
    ['boolean !=', [{ field: 'item_attributes.fragile', operator: '!=', value: true }], ['I1@DC1', 'I1@ST1']],
    ['demand class in', [{ field: 'demand_class', operator: 'in', value: ['lumpy', 'intermittent'] }], ['I1@ST1', 'I3@ST2', 'I5@ST2']],
    ['is_intermittent', [{ field: 'is_intermittent', operator: '=', value: true }], ['I1@ST1', 'I3@ST2', 'I5@ST2']],
    ['adi >', [{ field: 'adi', operator: '>', value: 1.32 }], ['I1@ST1', 'I3@ST2', 'I5@ST2']],
    ['cov >=', [{ field: 'cov', operator: '>=', value: 0.9 }], ['I1@ST1', 'I3@ST2', 'I4@DC1', 'I5@ST2']],
    ['zero_ratio', [{ field: 'zero_ratio', operator: '=', value: 0.75 }], ['I1@ST1', 'I3@ST2', 'I5@ST2']],
    ['total demand', [{ field: 'total_demand', operator: '>', value: 40 }], ['I1@DC1', 'I2@ST1', 'I4@DC1']],
    ['site attribute number', [{ field: 'site_attributes.dock_doors', operator: '>', value: 5 }], ['I1@DC1', 'I4@DC1']],
    ['best method unknown yet', [{ field: 'best_method', operator: 'is null', value: true }], ['I1@DC1', 'I1@ST1', 'I2@ST1', 'I3@ST2', 'I4@DC1', 'I5@ST2', 'I6@ST2']],
    ['AND of rules', [{ field: 'site_type', operator: '=', value: 'store' }, { field: 'unit_price', operator: '>', value: 2 }], ['I1@ST1', 'I2@ST1', 'I6@ST2']],
  ];

  let facts: Array<Record<string, FactValue> & { key: string }>;
  let fields: any[];
  beforeAll(async () => {
    fields = (await t.call('get', '/api/segments/fields', { token: planner })).body;
    const series = (await t.call('get', '/api/series', { token: planner })).body;
    facts = series.map((s: any) => {
      const f: Record<string, FactValue> & { key: string } = {
        key: `${s.item_xuid}@${s.site_xuid}`, unique_id: s.unique_id, item_id: s.item_id, site_id: s.site_id, item_xuid: s.item_xuid, item_name: s.item_name,
        site_xuid: s.site_xuid, site_name: s.site_name, avg_unit_cost: s.avg_unit_cost, unit_price: s.unit_price, n_observations: s.n_observations,
        date_range_start: s.date_range_start, date_range_end: s.date_range_end, mean: s.mean, zero_ratio: s.zero_ratio, total_demand: s.total_demand,
        adi: s.adi, cov: s.cov, demand_class: s.demand_class, is_intermittent: s.is_intermittent, best_method: s.best_method,
      };
      for (const [k, v] of Object.entries(s.item_attributes)) f[`item_attributes.${k}`] = v as FactValue;
      for (const [k, v] of Object.entries(s.site_attributes)) f[`site_attributes.${k}`] = v as FactValue;
      return f;
    });
    const types = Object.fromEntries((await t.call('get', '/api/sites', { token: planner })).body.map((s: any) => [s.xuid, s.site_type]));
    for (const f of facts) f.site_type = types[String(f.site_xuid)];
  });

  test.each(cases)('%s', async (_label, rules, expected) => {
    expect(await uids(rules)).toEqual(expected);
    expect(filterSeries(rules, fields, facts).map((f) => f.key)).toEqual(expected);
  });
});

describe('CRUD, preview and assign', () => {
  test('create, read, update; preview writes nothing; assign writes membership; members, details and by-uid', async () => {
    const rules: Rule[] = [{ field: 'site_type', operator: '=', value: 'store' }];
    const seg = await segment({ name: uniqueName('Stores'), description: 'all store series', rules });
    expect(seg).toMatchObject({ rules, member_count: 0, assigned_at: null, can_edit: true, created_by: a.admin.email });

    const pv = await preview(undefined, planner, seg.id, { limit: 2 });
    expect(pv.body).toMatchObject({ segment_id: seg.id, rules, count: 5, total_demand: 9 + 45 + 21 + 9 });
    expect(pv.body.series.map((s: { item_xuid: string }) => s.item_xuid)).toEqual(['I1', 'I2']);
    expect(pv.body.total_value).toBeCloseTo(9 * 150 + 45 * 2.5 + 21 * 0 + 9 * 1, 9);
    expect((await t.call('get', `/api/segments/${seg.id}`, { token: planner })).body.member_count).toBe(0);

    const assigned = await t.call('post', `/api/segments/${seg.id}/assign`, { token: admin });
    expect(assigned.body).toMatchObject({ segment_id: seg.id, members: 5, added: 5, removed: 0 });
    const again = await t.call('post', `/api/segments/${seg.id}/assign`, { token: admin });
    expect(again.body).toMatchObject({ members: 5, added: 0, removed: 0 });

    const members = await t.call('get', `/api/segments/${seg.id}/members`, { token: planner, query: { skip: 1, limit: 2 } });
    expect(members.headers['x-total-count']).toBe('5');
    expect(members.body.map((m: { item_xuid: string; site_xuid: string }) => `${m.item_xuid}@${m.site_xuid}`)).toEqual(['I2@ST1', 'I3@ST2']);

    const details = await t.call('get', `/api/segments/${seg.id}/details`, { token: planner });
    expect(details.body).toMatchObject({ series_count: 5, item_count: 5, site_count: 2, total_demand: 84, priced_series: 4, class_mix: expect.any(Object) });
    expect(details.body.total_value).toBeCloseTo(1350 + 112.5 + 9, 9);

    const uid = pv.body.series[0].unique_id;
    const byUid = await t.call('get', `/api/segments/by-uid/${uid}`, { token: planner });
    expect(byUid.body.map((s: { id: number }) => s.id)).toContain(seg.id);
    expect((await t.call('get', '/api/segments/by-uid/999999_1', { token: planner })).status).toBe(404);

    // narrowing the rules changes nothing until the next assign
    const put = await t.call('put', `/api/segments/${seg.id}`, { token: admin, body: { rules: [...rules, { field: 'unit_price', operator: '>', value: 100 }] } });
    expect(put.body.member_count).toBe(5);
    const narrowed = await t.call('post', `/api/segments/${seg.id}/assign`, { token: admin });
    expect(narrowed.body).toMatchObject({ members: 1, added: 0, removed: 4 });
    const list = await t.call('get', '/api/segments', { token: planner });
    expect(list.body.find((s: { id: number }) => s.id === seg.id)).toMatchObject({ member_count: 1, assigned_at: expect.any(String) });
  });

  test('segment 0 previews an unsaved segment and needs rules; unknown segments are 404', async () => {
    expect((await preview([{ field: 'item_xuid', operator: '=', value: 'I4' }])).body.count).toBe(1);
    const none = await preview(undefined);
    expect([none.status, none.body.detail]).toEqual([400, 'body.rules is required when segment_id is 0 (an unsaved segment has no rules of its own)']);
    expect((await preview(undefined, planner, 999999)).status).toBe(404);
    expect((await t.call('get', '/api/segments/999999', { token: planner })).status).toBe(404);
    expect((await t.call('post', '/api/segments/999999/assign', { token: admin })).status).toBe(404);
  });

  test('names are unique ignoring case', async () => {
    const name = uniqueName('Dup');
    await segment({ name });
    const res = await t.call('post', '/api/segments', { token: admin, body: { name: name.toUpperCase() } });
    expect(res.status).toBe(409);
  });
});

describe('400s name the rule', () => {
  const bad: Array<[Rule[] | unknown[], string]> = [
    [[{ field: 'unit_price', operator: '>', value: 1 }, { field: 'colour', operator: '=', value: 'red' }], "body.rules[1]: unknown field 'colour' (GET /api/segments/fields lists the fields)"],
    [[{ field: 'unit_price', operator: 'contains', value: 'x' }], "body.rules[0]: operator 'contains' does not apply to field 'unit_price' of type number (allowed: =, !=, <, <=, >, >=, in, not in, between, is null)"],
    [[{ field: 'unit_price', operator: '>', value: 'cheap' }], "body.rules[0]: value must be a number for field 'unit_price' (type number)"],
    [[{ field: 'item_name', operator: 'between', value: ['a', 'b'] }], "body.rules[0]: operator 'between' does not apply to field 'item_name' of type string (allowed: =, !=, in, not in, contains, is null)"],
    [[{ field: 'date_range_start', operator: '>', value: 20260101 }], "body.rules[0]: value must be a date 'YYYY-MM-DD' for field 'date_range_start' (type date)"],
    [[{ field: 'unit_price', operator: 'like', value: 1 }], 'body.rules[0].operator must be one of: =, !=, <, <=, >, >=, in, not in, contains, between, is null'],
  ];
  test.each(bad)('%j', async (rules, detail) => {
    for (const res of [
      await t.call('post', '/api/segments', { token: admin, body: { name: uniqueName('Bad'), rules } }),
      await preview(rules as Rule[]),
    ]) {
      expect([res.status, res.body.detail]).toEqual([400, detail]);
    }
  });

  test('on update too; a saved rule that became invalid makes assign a 400 naming it', async () => {
    const seg = await segment({ name: uniqueName('Abc based'), rules: [{ field: 'unit_price', operator: '>', value: 0 }] });
    const res = await t.call('put', `/api/segments/${seg.id}`, { token: admin, body: { rules: [{ field: 'nope', operator: '=', value: 1 }] } });
    expect([res.status, res.body.detail]).toEqual([400, "body.rules[0]: unknown field 'nope' (GET /api/segments/fields lists the fields)"]);
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE segments SET rules = '[{"field": "abc:Gone", "operator": "=", "value": "A"}]' WHERE id = ${seg.id}`));
    const assign = await t.call('post', `/api/segments/${seg.id}/assign`, { token: admin });
    expect([assign.status, assign.body.detail]).toEqual([400, "rules[0]: unknown field 'abc:Gone' (GET /api/segments/fields lists the fields)"]);
  });
});

describe('delete', () => {
  test('in use by a pipeline, a parameter set or a process workflow: 409 naming them; force unlinks', async () => {
    const seg = await segment({ name: uniqueName('Used') });
    const pName = uniqueName('Pipe');
    const p = await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: pName, segment_ids: [seg.id] } });
    const setName = uniqueName('Set');
    await withTenant(t.db, a.accountId, async (tx) => {
      const setId = await tx.oneFirst(sql.unsafe`INSERT INTO parameter_sets (parameter_type, name, priority) VALUES ('forecast', ${setName}, 1) RETURNING id`);
      await tx.query(sql.unsafe`INSERT INTO parameter_set_segments (parameter_set_id, segment_id) VALUES (${setId as number}, ${seg.id})`);
    });
    const refused = await t.call('delete', `/api/segments/${seg.id}`, { token: admin });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(`scenario pipelines '${pName}' (${p.body.id})`);
    expect(refused.body.detail).toContain(`parameter sets '${setName}'`);
    expect((await t.call('get', `/api/segments/${seg.id}`, { token: admin })).status).toBe(200);

    const forced = await t.call('delete', `/api/segments/${seg.id}`, { token: admin, query: { force: true } });
    expect(forced.body).toEqual({ status: 'deleted', id: seg.id, unlinked: { pipelines: [pName], parameter_sets: [setName], process_workflows: [] } });
    expect((await t.call('get', `/api/scenario-pipeline/${p.body.id}`, { token: admin })).body.segment_ids).toEqual([]);
    const links = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*) FROM parameter_set_segments WHERE segment_id = ${seg.id}`));
    expect(links).toBe(0);
    expect((await t.call('get', `/api/segments/${seg.id}`, { token: admin })).status).toBe(404);
  });

  test('an unused segment is deleted with its members', async () => {
    const seg = await segment({ name: uniqueName('Free') });
    await t.call('post', `/api/segments/${seg.id}/assign`, { token: admin });
    expect((await t.call('delete', `/api/segments/${seg.id}`, { token: admin })).status).toBe(200);
    const left = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*) FROM segment_members WHERE segment_id = ${seg.id}`));
    expect(left).toBe(0);
  });
});

describe('segment permissions (§5.12)', () => {
  let dc: { id: number };
  let stores: { id: number };
  let restricted: string;
  let restrictedUser: { id: number };
  beforeAll(async () => {
    dc = await segment({ name: uniqueName('DC'), rules: [{ field: 'site_xuid', operator: '=', value: 'DC1' }] });
    stores = await segment({ name: uniqueName('Store'), rules: [{ field: 'site_type', operator: '=', value: 'store' }] });
    for (const s of [dc, stores]) await t.call('post', `/api/segments/${s.id}/assign`, { token: admin });
    restrictedUser = await t.addUser(a.accountId, { role: 'user', allowed_segments: [dc.id], can_run_process: true });
    restricted = await t.login(restrictedUser as any);
  });

  test('lists are filtered to the allowed segments', async () => {
    const segs = await t.call('get', '/api/segments', { token: restricted });
    expect(segs.body.map((s: { id: number }) => s.id)).toEqual([dc.id]);
    const series = await t.call('get', '/api/series', { token: restricted });
    expect(series.body.map((s: { item_xuid: string; site_xuid: string }) => `${s.item_xuid}@${s.site_xuid}`)).toEqual(['I1@DC1', 'I4@DC1']);
    expect(series.headers['x-total-count']).toBe('2');
    expect(await uids([], restricted)).toEqual(['I1@DC1', 'I4@DC1']);
    const items = await t.call('get', '/api/items', { token: restricted });
    expect(items.body.map((i: { xuid: string }) => i.xuid)).toEqual(['I1', 'I4']);
    const counts = await t.call('get', '/api/series/type-counts', { token: restricted });
    expect(counts.body).toMatchObject({ smooth: 1, erratic: 1, total: 2 });
    // the unrestricted planner sees everything
    expect((await t.call('get', '/api/series', { token: planner })).headers['x-total-count']).toBe('7');
  });

  test('direct access outside is a 403', async () => {
    for (const path of [`/api/segments/${stores.id}`, `/api/segments/${stores.id}/members`, `/api/segments/${stores.id}/details`]) {
      const res = await t.call('get', path, { token: restricted });
      expect([path, res.status]).toEqual([path, 403]);
    }
    expect((await preview(undefined, restricted, stores.id)).status).toBe(403);
    expect((await t.call('get', '/api/series', { token: restricted, query: { segment_id: stores.id } })).status).toBe(403);
    const storeSeries = (await preview(undefined, planner, stores.id)).body.series[0].unique_id;
    const byUid = await t.call('get', `/api/segments/by-uid/${storeSeries}`, { token: restricted });
    expect(byUid.status).toBe(403);
    expect(byUid.body.detail).toMatch(/^Access to series \d+_\d+ denied/);
    expect((await t.call('get', `/api/abc/results/by-series/${storeSeries}`, { token: restricted })).status).toBe(403);
  });

  test('editing: a restricted user edits only allowed_segments_edit (else what they may view) and cannot create segments', async () => {
    expect((await t.call('post', '/api/segments', { token: restricted, body: { name: uniqueName('Mine') } })).status).toBe(403);
    expect((await t.call('post', `/api/segments/${stores.id}/assign`, { token: restricted })).status).toBe(403);
    expect((await t.call('post', `/api/segments/${dc.id}/assign`, { token: restricted })).status).toBe(200);
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE users SET allowed_segments_edit = ${sql.array([stores.id], 'int4')} WHERE id = ${restrictedUser.id}`));
    const dcNow = await t.call('put', `/api/segments/${dc.id}`, { token: restricted, body: { description: 'x' } });
    expect([dcNow.status, dcNow.body.detail]).toEqual([403, `You may view segment ${dc.id} but not edit it (editable segments: ${stores.id})`]);
    expect((await t.call('get', `/api/segments/${stores.id}`, { token: restricted })).body.can_edit).toBe(true);
    expect((await t.call('put', `/api/segments/${stores.id}`, { token: restricted, body: { description: 'mine now' } })).status).toBe(200);
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE users SET allowed_segments_edit = '{}' WHERE id = ${restrictedUser.id}`));
  });
});

describe('parse-natural-language', () => {
  const parse = (description: string, token = planner) => t.call('post', '/api/segments/parse-natural-language', { token, body: { description } });

  test('deterministic parser without a language model', async () => {
    const res = await parse('A items at site DC1 with intermittent demand');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      description: 'A items at site DC1 with intermittent demand', source: 'parser', unparsed: [], warnings: [],
      rules: [{ field: 'demand_class', operator: '=', value: 'intermittent' }, { field: 'abc:Revenue', operator: '=', value: 'A' }, { field: 'site_xuid', operator: '=', value: 'DC1' }],
    });
    expect((await parse('items with unit price over 100')).body.rules).toEqual([{ field: 'unit_price', operator: '>', value: 100 }]);
    expect((await parse('lumpy or intermittent series at stores')).body.rules).toEqual([
      { field: 'demand_class', operator: 'in', value: ['lumpy', 'intermittent'] }, { field: 'site_type', operator: '=', value: 'store' },
    ]);
    expect((await parse('south drinks')).body.rules).toEqual([
      { field: 'item_attributes.category', operator: '=', value: 'Drinks' }, { field: 'site_attributes.region', operator: '=', value: 'south' },
    ]);
    const nothing = await parse('purple elephants');
    expect(nothing.status).toBe(400);
    expect(nothing.body.detail).toMatch(/^No rule could be derived from the description/);
  });

  describe('through a language model (a local fake speaking chat completions)', () => {
    let server: http.Server;
    let answer: unknown;
    let seen: any;
    let tenant: TestTenant;
    let token: string;
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          seen = { url: req.url, auth: req.headers.authorization, body: JSON.parse(body) };
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({
            id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: seen.body.model,
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: typeof answer === 'string' ? answer : JSON.stringify(answer) } }],
          }));
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      tenant = await t.newTenant('seg-llm');
      await seed(t.db, tenant.accountId);
      token = await t.login(tenant.planner);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      await withTenant(t.db, tenant.accountId, async (tx) => {
        await setTenantParameter(tx, 'llm', 'base_url', url);
        await setTenantParameter(tx, 'llm', 'model', 'tiny-test-model');
        await setTenantParameter(tx, 'llm', 'api_key', 'sk-test');
      });
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    test('the model\'s rules are returned after validation; the prompt lists the fields', async () => {
      answer = '```json\n{"rules": [{"field": "unit_price", "operator": ">", "value": 100}, {"field": "site_type", "operator": "=", "value": "store"}]}\n```';
      const res = await parse('expensive things in shops', token);
      expect(res.body).toEqual({
        description: 'expensive things in shops', source: 'llm', unparsed: [], warnings: [],
        rules: [{ field: 'unit_price', operator: '>', value: 100 }, { field: 'site_type', operator: '=', value: 'store' }],
      });
      expect(seen.url).toBe('/v1/chat/completions');
      expect(seen.auth).toBe('Bearer sk-test');
      expect(seen.body.model).toBe('tiny-test-model');
      expect(seen.body.messages[0].content).toContain('- item_attributes.category (string; operators: =, !=, in, not in, contains, is null; values: "Drinks", "Food", "Snacks")');
      expect(seen.body.messages[1]).toEqual({ role: 'user', content: 'expensive things in shops' });
    });

    test('an unknown field or a bad value from the model is a 400 naming it', async () => {
      answer = { rules: [{ field: 'unit_price', operator: '>', value: 1 }, { field: 'colour', operator: '=', value: 'red' }] };
      const res = await parse('red things', token);
      expect([res.status, res.body.detail]).toEqual([400, "The language model proposed an invalid rule: language model rules[1]: unknown field 'colour' (GET /api/segments/fields lists the fields)"]);
      answer = { rules: [{ field: 'unit_price', operator: '>', value: 'a lot' }] };
      expect((await parse('pricey', token)).body.detail).toMatch(/value must be a number for field 'unit_price'/);
      answer = 'sorry, I cannot help';
      expect((await parse('pricey', token)).body.detail).toMatch(/^The language model did not answer with JSON rules/);
    });

    test('an unreachable model falls back to the built-in parser with a warning', async () => {
      await withTenant(t.db, tenant.accountId, (tx) => setTenantParameter(tx, 'llm', 'base_url', 'http://127.0.0.1:9/v1'));
      const res = await parse('items with unit price over 100', token);
      expect(res.body).toMatchObject({ source: 'parser', rules: [{ field: 'unit_price', operator: '>', value: 100 }] });
      expect(res.body.warnings[0]).toMatch(/^language model unavailable/);
    });
  });
});

describe('tenant isolation', () => {
  test("another tenant's segments are unknown there, and its fields are its own", async () => {
    const seg = await segment({ name: uniqueName('Mine only') });
    const b = await t.newTenant('seg-b');
    const tokenB = await t.login(b.admin);
    expect((await t.call('get', `/api/segments/${seg.id}`, { token: tokenB })).status).toBe(404);
    expect((await t.call('get', '/api/segments', { token: tokenB })).body).toEqual([]);
    const fields = (await t.call('get', '/api/segments/fields', { token: tokenB })).body.map((f: { field: string }) => f.field);
    expect(fields).not.toContain('item_attributes.category');
    expect(fields).not.toContain('abc:Revenue');
    expect((await t.call('post', '/api/segments/0/preview', { token: tokenB, body: { rules: [] } })).body.count).toBe(0);
  });
});
