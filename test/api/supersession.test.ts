/**
 * Supersession edges over HTTP on real PostgreSQL (document 2 §2.4, §4.4; docs/SUPERSESSION.md): create, list,
 * update and delete with every refusal naming its field and writing nothing, chains and roles, the active rule with
 * and without a stored planning date, rule 6 (deleting an item or site deletes its edges), rule 7 (the loaders fail
 * loudly), and the import run refusing a cycle with the API's own words (a real worker on the Temporal dev server).
 */
import { setPlanningDate } from '../../db/history';
import { sql, withTenant } from '../../db/pool';
import { activeEdges, allEdges, SupersessionReadError } from '../../db/supersession';
import { ADMIN_REQUIRED } from '../../api/errors';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

const PATH = '/api/supersession';

let tw: TestWorker;
let t: TestApp;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

type Ids = Record<string, number>;

/** A tenant with items (code = name suffix) and sites, and tokens of an admin and a plain user. */
async function tenant(label: string, itemCodes: string[], siteCodes: string[] = []) {
  const a = await t.newTenant(label);
  const admin = await t.login(a.admin);
  const plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  const { items, sites } = await withTenant(t.db, a.accountId, async (tx) => {
    const items: Ids = {};
    const sites: Ids = {};
    for (const c of itemCodes) items[c] = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${c}, ${`Item ${c}`}) RETURNING id`)) as number;
    for (const c of siteCodes) sites[c] = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${c}, ${`Site ${c}`}) RETURNING id`)) as number;
    return { items, sites };
  });
  const edgeCount = () => withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supersession`));
  const edgeRows = () => withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT id, from_item_id, to_item_id, site_id, effective_date, demand_factor, stock_rollable, notes FROM supersession ORDER BY id`));
  const create = (body: Record<string, unknown>, token = admin) => t.call('post', PATH, { token, body });
  return { a, admin, plain, items, sites, edgeCount, edgeRows, create };
}

type Tenant = Awaited<ReturnType<typeof tenant>>;

describe('create, list, update, delete', () => {
  let x: Tenant;
  beforeAll(async () => {
    x = await tenant('sup-crud', ['A', 'B', 'C', 'D'], ['S1', 'S2']);
  });

  test('create applies the defaults of §2.4 and answers the edge with its items and site', async () => {
    const res = await x.create({ from_item_id: x.items.A, to_item_id: x.items.B });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      from_item_id: x.items.A, from_item_xuid: 'A', from_item_name: 'Item A',
      to_item_id: x.items.B, to_item_xuid: 'B', to_item_name: 'Item B',
      site_id: null, site_xuid: null, site_name: null,
      effective_date: null, demand_factor: 1, stock_rollable: true, notes: null,
      created_at: expect.any(String), updated_at: expect.any(String),
    });
    const site = await x.create({ from_item_id: x.items.C, to_item_id: x.items.D, site_id: x.sites.S1, effective_date: '2026-03-02', demand_factor: 2.5, stock_rollable: false, notes: 'pack of 2' });
    expect(site.status).toBe(201);
    expect(site.body).toMatchObject({ site_id: x.sites.S1, site_xuid: 'S1', site_name: 'Site S1', effective_date: '2026-03-02', demand_factor: 2.5, stock_rollable: false, notes: 'pack of 2' });

    const list = await t.call('get', PATH, { token: x.plain });
    expect(list.status).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect(list.body).toEqual([res.body, site.body]);
  });

  test('writes need an admin role: 403 with the usual detail, nothing written', async () => {
    const before = await x.edgeRows();
    const id = (before[0] as { id: number }).id;
    for (const [method, path, body] of [
      ['post', PATH, { from_item_id: x.items.B, to_item_id: x.items.C }],
      ['put', `${PATH}/${id}`, { demand_factor: 3 }],
      ['delete', `${PATH}/${id}`, undefined],
    ] as const) {
      const res = await t.call(method, path, { token: x.plain, body });
      expect([method, res.status, res.body.detail]).toEqual([method, 403, ADMIN_REQUIRED]);
    }
    expect(await x.edgeRows()).toEqual(before);
  });

  test.each([
    ['the same item at both ends', () => ({ from_item_id: x.items.C, to_item_id: x.items.C }), 'body.to_item_id: from_item_id and to_item_id are the same item'],
    ['an unknown replaced item', () => ({ from_item_id: 999999, to_item_id: x.items.C }), 'body.from_item_id: item 999999 does not exist'],
    ['an unknown successor', () => ({ from_item_id: x.items.C, to_item_id: 999999 }), 'body.to_item_id: item 999999 does not exist'],
    ['an unknown site', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, site_id: 999999 }), 'body.site_id: site 999999 does not exist'],
    ['site 0', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, site_id: 0 }), 'body.site_id must be >= 1'],
    ['demand_factor 0', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, demand_factor: 0 }), 'body.demand_factor must be > 0'],
    ['a negative demand_factor', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, demand_factor: -1 }), 'body.demand_factor must be > 0'],
    ['a text demand_factor', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, demand_factor: '2' }), 'body.demand_factor must be number'],
    ['a date that is no date', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, effective_date: '2026-02-30' }), 'body.effective_date must match format "date"'],
    ['year 0', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, effective_date: '0000-01-03' }), 'body.effective_date must match format "date"'],
    ['a text stock_rollable', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, stock_rollable: 'yes' }), 'body.stock_rollable must be boolean'],
    ['notes too long', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, notes: 'n'.repeat(2001) }), 'body.notes must NOT have more than 2000 characters'],
    ['no replaced item', () => ({ to_item_id: x.items.C }), 'body.from_item_id is required'],
    ['an unknown field', () => ({ from_item_id: x.items.B, to_item_id: x.items.C, ratio: 2 }), "body: unknown field 'ratio'"],
  ])('create with %s → 400 naming the field, nothing written', async (_what, body, detail) => {
    const before = await x.edgeRows();
    const res = await x.create(body());
    expect([res.status, res.body.detail]).toEqual([400, detail]);
    expect(await x.edgeRows()).toEqual(before);
  });

  test('the natural key: site null counts as 0, date null as the minimum; a clash is a 409 naming the edge', async () => {
    const global = (await x.edgeRows())[0] as { id: number };
    const again = await x.create({ from_item_id: x.items.A, to_item_id: x.items.B, demand_factor: 2 });
    expect([again.status, again.body.detail]).toEqual([409, `supersession edge ${global.id} already replaces A (item ${x.items.A}) by B (item ${x.items.B}) as a global edge, effective immediately; update it instead`]);
    // another site, another date: other keys
    const atSite = await x.create({ from_item_id: x.items.A, to_item_id: x.items.B, site_id: x.sites.S2 });
    const dated = await x.create({ from_item_id: x.items.A, to_item_id: x.items.B, effective_date: '2026-01-05' });
    expect([atSite.status, dated.status]).toEqual([201, 201]);
    const before = await x.edgeRows();
    const twin = await x.create({ from_item_id: x.items.A, to_item_id: x.items.B, site_id: x.sites.S2, effective_date: null });
    expect([twin.status, twin.body.detail]).toEqual([409, `supersession edge ${atSite.body.id} already replaces A (item ${x.items.A}) by B (item ${x.items.B}) at site S2 (site ${x.sites.S2}), effective immediately; update it instead`]);
    const twinDated = await x.create({ from_item_id: x.items.A, to_item_id: x.items.B, effective_date: '2026-01-05' });
    expect([twinDated.status, twinDated.body.detail]).toEqual([409, `supersession edge ${dated.body.id} already replaces A (item ${x.items.A}) by B (item ${x.items.B}) as a global edge, effective 2026-01-05; update it instead`]);
    // an update onto another edge's key clashes as well
    const moved = await t.call('put', `${PATH}/${dated.body.id}`, { token: x.admin, body: { effective_date: null } });
    expect([moved.status, moved.body.detail]).toEqual([409, `supersession edge ${global.id} already replaces A (item ${x.items.A}) by B (item ${x.items.B}) as a global edge, effective immediately; update it instead`]);
    expect(await x.edgeRows()).toEqual(before);
    for (const id of [atSite.body.id, dated.body.id]) expect((await t.call('delete', `${PATH}/${id}`, { token: x.admin })).status).toBe(200);
  });

  test('update: only the fields sent change, null clears, the edge as it would be is checked; 404 for an unknown edge', async () => {
    const edge = (await x.edgeRows())[1] as { id: number };
    const res = await t.call('put', `${PATH}/${edge.id}`, { token: x.admin, body: { demand_factor: 0.5, notes: null, site_id: null } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: edge.id, from_item_xuid: 'C', to_item_xuid: 'D', site_id: null, site_xuid: null, effective_date: '2026-03-02', demand_factor: 0.5, stock_rollable: false, notes: null });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(res.body.created_at));
    const before = await x.edgeRows();
    for (const [body, status, detail] of [
      [{ to_item_id: x.items.C }, 400, 'body.to_item_id: from_item_id and to_item_id are the same item'],
      [{ site_id: 424242 }, 400, 'body.site_id: site 424242 does not exist'],
      [{ demand_factor: 0 }, 400, 'body.demand_factor must be > 0'],
      [{}, 400, 'body must NOT have fewer than 1 properties'],
    ] as const) {
      const bad = await t.call('put', `${PATH}/${edge.id}`, { token: x.admin, body });
      expect([bad.status, bad.body.detail]).toEqual([status, detail]);
    }
    const missing = await t.call('put', `${PATH}/999999`, { token: x.admin, body: { notes: 'x' } });
    expect([missing.status, missing.body.detail]).toEqual([404, 'Supersession edge 999999 not found']);
    expect(await x.edgeRows()).toEqual(before);
  });

  test('delete answers {status, id}; a second delete is a 404', async () => {
    const made = await x.create({ from_item_id: x.items.B, to_item_id: x.items.D });
    const del = await t.call('delete', `${PATH}/${made.body.id}`, { token: x.admin });
    expect([del.status, del.body]).toEqual([200, { status: 'deleted', id: made.body.id }]);
    const again = await t.call('delete', `${PATH}/${made.body.id}`, { token: x.admin });
    expect([again.status, again.body.detail]).toEqual([404, `Supersession edge ${made.body.id} not found`]);
  });

  test('list filters: item at either end, site, global, search, paging with X-Total-Count, sorting', async () => {
    const all = (await t.call('get', PATH, { token: x.plain })).body as Array<{ id: number; from_item_xuid: string; to_item_xuid: string }>;
    expect(all.map((e) => `${e.from_item_xuid}>${e.to_item_xuid}`)).toEqual(['A>B', 'C>D']);
    const q = async (query: Record<string, unknown>) => {
      const res = await t.call('get', PATH, { token: x.plain, query });
      expect(res.status).toBe(200);
      return { total: Number(res.headers['x-total-count']), pairs: (res.body as typeof all).map((e) => `${e.from_item_xuid}>${e.to_item_xuid}`) };
    };
    expect(await q({ item_id: x.items.B })).toEqual({ total: 1, pairs: ['A>B'] });
    expect(await q({ item_id: x.items.C })).toEqual({ total: 1, pairs: ['C>D'] });
    expect(await q({ to_item_id: x.items.D })).toEqual({ total: 1, pairs: ['C>D'] });
    expect(await q({ from_item_id: x.items.D })).toEqual({ total: 0, pairs: [] });
    await t.call('put', `${PATH}/${all[1].id}`, { token: x.admin, body: { site_id: x.sites.S1, notes: '50% off_ce' } });
    expect(await q({ site_id: x.sites.S1 })).toEqual({ total: 1, pairs: ['C>D'] });
    expect(await q({ global: true })).toEqual({ total: 1, pairs: ['A>B'] });
    expect(await q({ global: false })).toEqual({ total: 1, pairs: ['C>D'] });
    expect(await q({ search: 'item a' })).toEqual({ total: 1, pairs: ['A>B'] });
    expect(await q({ search: 's1' })).toEqual({ total: 1, pairs: ['C>D'] });
    expect(await q({ search: '0% off_' })).toEqual({ total: 1, pairs: ['C>D'] });
    expect(await q({ search: '_' })).toEqual({ total: 1, pairs: ['C>D'] });
    expect(await q({ limit: 1, skip: 1 })).toEqual({ total: 2, pairs: ['C>D'] });
    expect(await q({ sort: 'from_item_xuid', order: 'desc' })).toEqual({ total: 2, pairs: ['C>D', 'A>B'] });
    const bad = await t.call('get', PATH, { token: x.plain, query: { sort: 'ratio' } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'query.sort must be one of: id, from_item_xuid, to_item_xuid, site_xuid, effective_date, demand_factor, created_at, updated_at']);
  });
});

describe('cycles: global edges and those of one site', () => {
  let x: Tenant;
  beforeAll(async () => {
    x = await tenant('sup-cycle', ['A', 'B', 'C'], ['S1', 'S2']);
  });

  test('a new or changed edge that closes a chain back onto itself is a 400 naming the chain, nothing written', async () => {
    const ab = await x.create({ from_item_id: x.items.A, to_item_id: x.items.B });
    expect(ab.status).toBe(201);
    const label = (c: string) => `${c} (item ${x.items[c]})`;
    const back = await x.create({ from_item_id: x.items.B, to_item_id: x.items.A, effective_date: '2030-01-07' });
    expect([back.status, back.body.detail]).toEqual([400, `body: this edge would close a supersession cycle: ${label('B')} → ${label('A')} → ${label('B')}; an item cannot come back as its own successor`]);

    // B → C at S1 only: C → A closes a cycle at S1 (and globally, since a global edge acts at S1 too), not at S2
    const bc = await x.create({ from_item_id: x.items.B, to_item_id: x.items.C, site_id: x.sites.S1 });
    expect(bc.status).toBe(201);
    const atS1 = `body: this edge would close a supersession cycle: ${label('C')} → ${label('A')} → ${label('B')} → ${label('C')} (global edges with those of site S1 (site ${x.sites.S1})); an item cannot come back as its own successor`;
    const before = await x.edgeRows();
    for (const site of [x.sites.S1, null]) {
      const res = await x.create({ from_item_id: x.items.C, to_item_id: x.items.A, site_id: site });
      expect([site, res.status, res.body.detail]).toEqual([site, 400, atS1]);
    }
    expect(await x.edgeRows()).toEqual(before);
    const atS2 = await x.create({ from_item_id: x.items.C, to_item_id: x.items.A, site_id: x.sites.S2 });
    expect(atS2.status).toBe(201);

    // moving that edge to S1 would close the cycle there
    const moved = await t.call('put', `${PATH}/${atS2.body.id}`, { token: x.admin, body: { site_id: x.sites.S1 } });
    expect([moved.status, moved.body.detail]).toEqual([400, atS1]);
    // B → C moved to S2 meets C → A there
    const turned = await t.call('put', `${PATH}/${bc.body.id}`, { token: x.admin, body: { site_id: x.sites.S2 } });
    expect([turned.status, turned.body.detail]).toEqual([400, `body: this edge would close a supersession cycle: ${label('B')} → ${label('C')} → ${label('A')} → ${label('B')} (global edges with those of site S2 (site ${x.sites.S2})); an item cannot come back as its own successor`]);
    expect((await x.edgeRows()).length).toBe(3);
  });
});

describe('chains and roles: GET /api/supersession/item/{item_id}', () => {
  let x: Tenant;
  beforeAll(async () => {
    // A → B → C (three generations), D splits into E and F, G merges into E, H stands alone; K → L only at S1
    x = await tenant('sup-chain', ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'K', 'L'], ['S1']);
    const edges: Array<[string, string, Record<string, unknown>?]> = [
      ['A', 'B', { effective_date: '2025-01-06' }], ['B', 'C', { effective_date: '2026-01-05', demand_factor: 2 }],
      ['D', 'E'], ['D', 'F', { demand_factor: 0.5 }], ['G', 'E'], ['K', 'L', { site_id: x.sites.S1 }],
    ];
    for (const [from, to, extra] of edges) expect((await x.create({ from_item_id: x.items[from], to_item_id: x.items[to], ...extra })).status).toBe(201);
  });

  const chain = async (item: string, query?: Record<string, unknown>) => {
    const res = await t.call('get', `${PATH}/item/${x.items[item]}`, { token: x.plain, query });
    expect(res.status).toBe(200);
    const b = res.body;
    return {
      role: b.role, in_chain: b.in_chain,
      up: b.upstream.map((r: any) => `${r.item_xuid}@${r.depth}`), down: b.downstream.map((r: any) => `${r.item_xuid}@${r.depth}`),
      edges: b.edges.map((e: any) => `${e.from_item_xuid}>${e.to_item_xuid}`),
    };
  };

  test('a three-generation chain: replaced, middle, top, with depth both ways', async () => {
    expect(await chain('A')).toEqual({ role: 'replaced', in_chain: true, up: [], down: ['B@1', 'C@2'], edges: ['A>B', 'B>C'] });
    expect(await chain('B')).toEqual({ role: 'middle', in_chain: true, up: ['A@1'], down: ['C@1'], edges: ['A>B', 'B>C'] });
    expect(await chain('C')).toEqual({ role: 'top', in_chain: true, up: ['B@1', 'A@2'], down: [], edges: ['A>B', 'B>C'] });
    const full = (await t.call('get', `${PATH}/item/${x.items.C}`, { token: x.plain })).body;
    expect(full).toMatchObject({ item_id: x.items.C, item_xuid: 'C', item_name: 'Item C', site_id: null, as_of: null });
    expect(full.upstream[1]).toEqual({ item_id: x.items.A, item_xuid: 'A', item_name: 'Item A', depth: 2 });
    expect(full.edges[1]).toMatchObject({ from_item_id: x.items.B, to_item_id: x.items.C, demand_factor: 2, effective_date: '2026-01-05' });
  });

  test('branching: a split and a merge', async () => {
    expect(await chain('D')).toEqual({ role: 'replaced', in_chain: true, up: [], down: ['E@1', 'F@1'], edges: ['D>E', 'D>F'] });
    expect(await chain('E')).toEqual({ role: 'top', in_chain: true, up: ['D@1', 'G@1'], down: [], edges: ['D>E', 'G>E'] });
    expect(await chain('G')).toEqual({ role: 'replaced', in_chain: true, up: [], down: ['E@1'], edges: ['G>E'] });
  });

  test('an item without edges is top, not in a chain; an unknown item is a 404', async () => {
    expect(await chain('H')).toEqual({ role: 'top', in_chain: false, up: [], down: [], edges: [] });
    const res = await t.call('get', `${PATH}/item/999999`, { token: x.plain });
    expect([res.status, res.body.detail]).toEqual([404, 'Item 999999 not found']);
  });

  test('read at one site or on one date', async () => {
    expect(await chain('K')).toMatchObject({ role: 'replaced', down: ['L@1'] });
    expect(await chain('K', { site_id: x.sites.S1 })).toMatchObject({ role: 'replaced', down: ['L@1'] });
    const s9 = await withTenant(t.db, x.a.accountId, (tx) => tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S9', 'Site S9') RETURNING id`));
    expect(await chain('K', { site_id: s9 })).toEqual({ role: 'top', in_chain: false, up: [], down: [], edges: [] });
    // on 2025-06-02 only A → B is in force: B is the top of its chain then
    expect(await chain('B', { as_of: '2025-06-02' })).toEqual({ role: 'top', in_chain: true, up: ['A@1'], down: [], edges: ['A>B'] });
    expect(await chain('A', { as_of: '2024-12-30' })).toMatchObject({ role: 'top', in_chain: false });
    const bad = await t.call('get', `${PATH}/item/${x.items.A}`, { token: x.plain, query: { as_of: '2025-02-29' } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'query.as_of must match format "date"']);
  });
});

describe('active edges: rule 1 and the planning today', () => {
  let x: Tenant;
  beforeAll(async () => {
    x = await tenant('sup-active', ['A', 'B', 'C', 'D']);
    for (const [from, to, date] of [['A', 'B', null], ['B', 'C', '2020-03-02'], ['C', 'D', '2099-01-05']] as const) {
      expect((await x.create({ from_item_id: x.items[from], to_item_id: x.items[to], effective_date: date })).status).toBe(201);
    }
  });

  const active = async (query?: Record<string, unknown>) => {
    const res = await t.call('get', `${PATH}/active`, { token: x.plain, query });
    expect(res.status).toBe(200);
    return { as_of: res.body.as_of, source: res.body.as_of_source, total: res.body.total, pairs: res.body.edges.map((e: any) => `${e.from_item_xuid}>${e.to_item_xuid}`) };
  };

  test('as_of: edges without a date or dated on or before it', async () => {
    expect(await active({ as_of: '2020-03-01' })).toEqual({ as_of: '2020-03-01', source: 'query', total: 1, pairs: ['A>B'] });
    expect(await active({ as_of: '2020-03-02' })).toEqual({ as_of: '2020-03-02', source: 'query', total: 2, pairs: ['A>B', 'B>C'] });
    expect(await active({ as_of: '2099-01-05' })).toEqual({ as_of: '2099-01-05', source: 'query', total: 3, pairs: ['A>B', 'B>C', 'C>D'] });
    for (const [as_of, detail] of [['2020-13-01', 'query.as_of must match format "date"'], ['0000-01-01', 'query.as_of must match format "date"'], ['today', 'query.as_of must match format "date"']]) {
      const res = await t.call('get', `${PATH}/active`, { token: x.plain, query: { as_of } });
      expect([res.status, res.body.detail]).toEqual([400, detail]);
    }
  });

  test('without as_of: the UTC date when no planning date is stored, the stored one when there is (never the calendar)', async () => {
    const before = new Date().toISOString().slice(0, 10);
    const now = await active();
    const after = new Date().toISOString().slice(0, 10);
    expect([before, after]).toContain(now.as_of);
    expect(now).toMatchObject({ source: 'today', pairs: ['A>B', 'B>C'] });

    await withTenant(t.db, x.a.accountId, (tx) => setPlanningDate(tx, -1, '2019-12-30', 'test'));
    expect(await active()).toEqual({ as_of: '2019-12-30', source: 'global', total: 1, pairs: ['A>B'] });
    // the list's active filter takes the same reference date
    const listed = await t.call('get', PATH, { token: x.plain, query: { active: true } });
    expect([listed.headers['x-total-count'], listed.body.map((e: any) => e.to_item_xuid)]).toEqual(['1', ['B']]);
    const future = await t.call('get', PATH, { token: x.plain, query: { active: false } });
    expect(future.body.map((e: any) => e.to_item_xuid)).toEqual(['C', 'D']);
    const asOf = await t.call('get', PATH, { token: x.plain, query: { as_of: '2020-03-02' } });
    expect(asOf.body.map((e: any) => e.to_item_xuid)).toEqual(['B', 'C']);
    // a pipeline's own planning date is not the tenant's: it does not move the reference date
    await withTenant(t.db, x.a.accountId, (tx) => setPlanningDate(tx, 7, '2099-06-01', 'test'));
    expect((await active()).as_of).toBe('2019-12-30');
  });
});

describe('rule 6: deleting an item or a site deletes its edges', () => {
  test('the foreign keys cascade from items and sites; edges of other items and global edges stay', async () => {
    const x = await tenant('sup-cascade', ['A', 'B', 'C', 'D'], ['S1', 'S2']);
    for (const [from, to, site] of [['A', 'B', null], ['B', 'C', 'S1'], ['C', 'D', 'S2'], ['A', 'D', 'S1']] as const) {
      expect((await x.create({ from_item_id: x.items[from], to_item_id: x.items[to], site_id: site && x.sites[site] })).status).toBe(201);
    }
    const pairs = async () => ((await t.call('get', PATH, { token: x.plain })).body as any[]).map((e) => `${e.from_item_xuid}>${e.to_item_xuid}`);
    await withTenant(t.db, x.a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM sites WHERE id = ${x.sites.S1}`));
    expect(await pairs()).toEqual(['A>B', 'C>D']);
    await withTenant(t.db, x.a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM items WHERE id = ${x.items.B}`));
    expect(await pairs()).toEqual(['C>D']);
    await withTenant(t.db, x.a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM items WHERE id = ${x.items.D}`));
    expect(await pairs()).toEqual([]);
  });
});

describe('rule 7: the loaders', () => {
  test('activeEdges and allEdges read the table; when it cannot be read they fail, never answer empty', async () => {
    const x = await tenant('sup-loaders', ['A', 'B', 'C']);
    await x.create({ from_item_id: x.items.A, to_item_id: x.items.B, effective_date: '2026-01-05', demand_factor: 1.5 });
    await x.create({ from_item_id: x.items.B, to_item_id: x.items.C });
    await withTenant(t.db, x.a.accountId, async (tx) => {
      const all = await allEdges(tx);
      expect(all.map((e) => [e.from_item_id, e.to_item_id, e.site_id, e.effective_date, e.demand_factor, e.stock_rollable, e.notes])).toEqual([
        [x.items.A, x.items.B, null, '2026-01-05', 1.5, true, null], [x.items.B, x.items.C, null, null, 1, true, null],
      ]);
      expect((await activeEdges(tx, '2026-01-04')).map((e) => e.from_item_id)).toEqual([x.items.B]);
      expect((await activeEdges(tx, '2026-01-05')).map((e) => e.from_item_id)).toEqual([x.items.A, x.items.B]);
      await expect(activeEdges(tx, '5 Jan 2026')).rejects.toThrow("activeEdges: asOf must be a date YYYY-MM-DD (got '5 Jan 2026')");
    });
    // the table renamed inside a transaction that is rolled back: both loaders throw a SupersessionReadError
    class Rollback extends Error {}
    for (const load of [(tx: any) => allEdges(tx), (tx: any) => activeEdges(tx, '2026-01-05')]) {
      await expect(withTenant(t.db, x.a.accountId, async (tx) => {
        await tx.query(sql.unsafe`ALTER TABLE supersession RENAME TO supersession_hidden`);
        const err = await load(tx).then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(SupersessionReadError);
        expect((err as Error).message).toMatch(/^supersession edges could not be read \(document 2 §4\.4 rule 7\): .*relation "supersession" does not exist/);
        throw new Rollback();
      })).rejects.toBeInstanceOf(Rollback);
    }
    expect(await x.edgeCount()).toBe(2);
  });
});

describe('import: one truth with the API', () => {
  const load = (token: string, rows: unknown[]) => t.call('post', '/api/import/tables/supersession/rows', { token, body: { rows }, query: { truncate: true } });
  async function runAndWait(token: string, body: Record<string, unknown>) {
    const started = await t.call('post', '/api/import/run', { token, body });
    expect(started.status).toBe(200);
    await tw.client.workflow.getHandle(started.body.run_id).result();
    const run = await t.call('get', `/api/import/runs/${started.body.run_id}`, { token });
    return run.body.results.find((r: any) => r.table_name === 'supersession');
  }

  test('staged rows are checked as the API checks edges: a row closing a cycle is refused with the API\'s message, the others land', async () => {
    const x = await tenant('sup-import', ['P', 'Q', 'R', 'T'], ['S1']);
    expect((await x.create({ from_item_id: x.items.P, to_item_id: x.items.Q })).status).toBe(201);
    expect((await load(x.admin, [
      { from_item_xuid: 'Q', to_item_xuid: 'R', effective_date: '2026-02-02' },
      { from_item_xuid: 'R', to_item_xuid: 'P', site_xuid: 'S1' },
      { from_item_xuid: 'T', to_item_xuid: 'T' },
      { from_item_xuid: 'R', to_item_xuid: 'T', demand_factor: '0' },
      { from_item_xuid: 'R', to_item_xuid: 'T', demand_factor: '2', stock_rollable: 'no', notes: 'kit' },
    ])).status).toBe(200);
    const result = await runAndWait(x.admin, { tables: ['supersession'] });
    expect(result).toMatchObject({ status: 'completed', rows_read: 5, inserted: 2, rejected: 3 });
    const reasons = Object.fromEntries(result.errors.map((e: any) => [e.row_no, e.reason]));
    expect(reasons[3]).toBe('from_item_xuid and to_item_xuid are the same item');
    expect(reasons[4]).toBe('demand_factor: 0 must be > 0');

    // the API refuses the same edge with the same words
    const api = await x.create({ from_item_id: x.items.R, to_item_id: x.items.P, site_id: x.sites.S1 });
    expect(api.status).toBe(400);
    expect(reasons[2]).toBe(api.body.detail.replace(/^body: /, ''));
    expect(reasons[2]).toBe(`this edge would close a supersession cycle: R (item ${x.items.R}) → P (item ${x.items.P}) → Q (item ${x.items.Q}) → R (item ${x.items.R}) (global edges with those of site S1 (site ${x.sites.S1})); an item cannot come back as its own successor`);
    expect((await x.edgeRows()).map((e: any) => [e.from_item_id, e.to_item_id, e.demand_factor, e.stock_rollable, e.notes])).toEqual([
      [x.items.P, x.items.Q, 1, true, null], [x.items.Q, x.items.R, 1, true, null], [x.items.R, x.items.T, 2, false, 'kit'],
    ]);

    // replace keeps only what is staged, so a chain the file turns round no longer meets the stored edges
    expect((await load(x.admin, [{ from_item_xuid: 'Q', to_item_xuid: 'P' }, { from_item_xuid: 'P', to_item_xuid: 'Q' }])).status).toBe(200);
    const replaced = await runAndWait(x.admin, { tables: ['supersession'], modes: { supersession: 'replace' } });
    expect(replaced).toMatchObject({ status: 'completed', inserted: 1, updated: 0, deleted: 3, rejected: 1 });
    expect(replaced.errors[0].reason).toBe(`this edge would close a supersession cycle: P (item ${x.items.P}) → Q (item ${x.items.Q}) → P (item ${x.items.P}); an item cannot come back as its own successor`);
    expect((await x.edgeRows()).map((e: any) => [e.from_item_id, e.to_item_id])).toEqual([[x.items.Q, x.items.P]]);
  });

  test('rule 6 through the import: items replaced without an item delete its edges', async () => {
    const x = await tenant('sup-import-cascade', ['U', 'V', 'W']);
    expect((await x.create({ from_item_id: x.items.U, to_item_id: x.items.V })).status).toBe(201);
    expect((await x.create({ from_item_id: x.items.V, to_item_id: x.items.W })).status).toBe(201);
    await t.call('post', '/api/import/tables/items/rows', { token: x.admin, body: { rows: [{ xuid: 'U' }, { xuid: 'W' }] }, query: { truncate: true } });
    const started = await t.call('post', '/api/import/run', { token: x.admin, body: { tables: ['items'], modes: { items: 'replace' } } });
    await tw.client.workflow.getHandle(started.body.run_id).result();
    const run = (await t.call('get', `/api/import/runs/${started.body.run_id}`, { token: x.admin })).body;
    expect(run.results[0]).toMatchObject({ table_name: 'items', status: 'completed', deleted: 1 });
    expect(await x.edgeCount()).toBe(0);
  });
});
