import { sql, withTenant } from '../../db/pool';
import { leadTimeDemand } from '../../domain/inventory/leadTimeDemand';
import { seedInventory, type InventorySeed } from '../support/inventorySeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let plain: string;
let seed: InventorySeed;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('inventory');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  seed = await seedInventory(t.db, a.accountId);
});
afterAll(() => t.close());

const routeCount = () => withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM routes`));

describe('route types', () => {
  test('every type with its category; BUY is the default; the supply graph types flow downstream', async () => {
    const res = await t.call('get', '/api/route-types', { token: plain });
    expect(res.status).toBe(200);
    expect(res.body.map((r: any) => [r.route_type, r.category, r.flows_downstream, r.is_default])).toEqual([
      ['REPLENISHMENT', 'replenishment', true, false], ['RETURN', 'reverse', false, false], ['REPAIR', 'reverse', false, false],
      ['BUY', 'sourcing', true, true], ['BUILD', 'sourcing', true, false], ['TRANSFER', 'sourcing', true, false], ['BALANCING', 'sourcing', false, false],
    ]);
  });
});

describe('routes', () => {
  test('list: filters, paging and X-Total-Count over the imported routes', async () => {
    const all = await t.call('get', '/api/routes', { token: plain });
    expect(all.status).toBe(200);
    expect(all.headers['x-total-count']).toBe('3');
    expect(all.body[0]).toEqual({
      id: seed.routes.SUP_DC, item_id: null, from_site_id: seed.sites.SUP, to_site_id: seed.sites.DC, route_type: 'BUY', lead_time: 4, priority: 1,
      created_at: expect.any(String), updated_at: expect.any(String),
    });
    const fromDc = await t.call('get', '/api/routes', { token: plain, query: { from_site_id: seed.sites.DC, sort: 'to_site_id', order: 'desc' } });
    expect(fromDc.body.map((r: any) => r.to_site_id)).toEqual([seed.sites.S2, seed.sites.S1]);
    const page = await t.call('get', '/api/routes', { token: plain, query: { route_type: 'REPLENISHMENT', skip: 1, limit: 1 } });
    expect([page.headers['x-total-count'], page.body.length]).toEqual(['2', 1]);
  });

  test('create, update and delete, audited; a route without a type is a BUY route', async () => {
    const created = await t.call('post', '/api/routes', { token: admin, body: { item_id: seed.items.X, from_site_id: seed.sites.SUP, to_site_id: seed.sites.S2, lead_time: 6 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ item_id: seed.items.X, route_type: 'BUY', lead_time: 6, priority: 1 });
    const updated = await t.call('put', `/api/routes/${created.body.id}`, { token: admin, body: { lead_time: 2.5, priority: 3 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, lead_time: 2.5, priority: 3, route_type: 'BUY' });
    const own = await t.call('get', '/api/routes', { token: plain, query: { item_id: seed.items.X } });
    expect(own.body.map((r: any) => r.id)).toEqual([created.body.id]);
    const gone = await t.call('delete', `/api/routes/${created.body.id}`, { token: admin });
    expect([gone.status, gone.body]).toEqual([200, { status: 'deleted', id: created.body.id }]);
    const again = await t.call('delete', `/api/routes/${created.body.id}`, { token: admin });
    expect([again.status, again.body.detail]).toEqual([404, `Route ${created.body.id} not found`]);
    const audit = await t.call('get', '/api/audit-log', { token: admin, query: { entity_type: 'route', entity_id: String(created.body.id) } });
    expect(audit.body.items.map((i: any) => i.action).sort()).toEqual(['create', 'delete', 'delete', 'update']);
  });

  test('bad routes are 400s naming the field, duplicates 409, and nothing changes', async () => {
    const before = await routeCount();
    const s = seed.sites;
    for (const [body, status, detail] of [
      [{ from_site_id: s.DC, to_site_id: s.DC, lead_time: 1 }, 400, `body.to_site_id: a route cannot lead from site ${s.DC} to itself`],
      [{ from_site_id: 999999, to_site_id: s.DC, lead_time: 1 }, 400, 'body.from_site_id: site 999999 does not exist'],
      [{ from_site_id: s.DC, to_site_id: s.S1, item_id: 999999, lead_time: 1 }, 400, 'body.item_id: item 999999 does not exist'],
      [{ from_site_id: s.DC, to_site_id: s.S1, lead_time: -1 }, 400, 'body.lead_time must be >= 0'],
      [{ from_site_id: s.DC, to_site_id: s.S1, lead_time: 1, route_type: 'TRUCK' }, 400, expect.stringContaining('body.route_type')],
      [{ from_site_id: s.DC, to_site_id: s.S1 }, 400, expect.stringContaining('lead_time')],
      [{ from_site_id: s.DC, to_site_id: s.S1, lead_time: 3, route_type: 'REPLENISHMENT' }, 409, expect.stringMatching(/^route \d+ already leads from site/)],
    ] as const) {
      const res = await t.call('post', '/api/routes', { token: admin, body });
      expect([res.status, res.body.detail]).toEqual([status, detail]);
    }
    expect(await routeCount()).toBe(before);
  });

  test('MAKE is stored as BUILD; USE and ZONE_BALANCING are 400s naming the type to use, and change nothing', async () => {
    const s = seed.sites;
    const made = await t.call('post', '/api/routes', { token: admin, body: { item_id: seed.items.X, from_site_id: s.SUP, to_site_id: s.S2, lead_time: 2, route_type: 'MAKE' } });
    expect([made.status, made.body.route_type]).toEqual([201, 'BUILD']);
    const stored = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT route_type FROM routes WHERE id = ${made.body.id}`));
    expect(stored).toBe('BUILD');
    // the same route again under either name is the same route
    const twin = await t.call('post', '/api/routes', { token: admin, body: { item_id: seed.items.X, from_site_id: s.SUP, to_site_id: s.S2, lead_time: 3, route_type: 'BUILD' } });
    expect([twin.status, twin.body.detail]).toEqual([409, expect.stringContaining(`as BUILD for item ${seed.items.X}`)]);
    const before = await routeCount();
    for (const [type, use] of [['USE', 'TRANSFER'], ['ZONE_BALANCING', 'BALANCING']] as const) {
      const res = await t.call('post', '/api/routes', { token: admin, body: { from_site_id: s.DC, to_site_id: s.S2, lead_time: 1, route_type: type } });
      expect([res.status, res.body.detail]).toEqual([400, expect.stringMatching(new RegExp(`^body\\.route_type: ${type} is not a route type of the platform .*; use ${use}: `))]);
      const upd = await t.call('put', `/api/routes/${made.body.id}`, { token: admin, body: { route_type: type } });
      expect([upd.status, upd.body.detail]).toEqual([400, res.body.detail]);
    }
    expect(await routeCount()).toBe(before);
    const own = await t.call('get', '/api/routes', { token: plain, query: { item_id: seed.items.X } });
    expect(own.body.map((r: any) => [r.id, r.route_type, r.lead_time])).toEqual([[made.body.id, 'BUILD', 2]]);
    const other = await t.call('post', '/api/routes', { token: admin, body: { from_site_id: s.DC, to_site_id: s.S2, lead_time: 1, route_type: 'TRUCK' } });
    expect([other.status, other.body.detail]).toEqual([400, 'body.route_type must be one of: REPLENISHMENT, RETURN, REPAIR, BUY, BUILD, TRANSFER, BALANCING, MAKE']);
    await t.call('delete', `/api/routes/${made.body.id}`, { token: admin });
  });

  test('a route closing a supply cycle is refused naming the sites; RETURN and REPAIR loops are allowed', async () => {
    const s = seed.sites;
    const cycle = await t.call('post', '/api/routes', { token: admin, body: { from_site_id: s.S1, to_site_id: s.SUP, lead_time: 1, route_type: 'TRANSFER' } });
    expect(cycle.status).toBe(400);
    expect(cycle.body.detail).toBe(`body: this route would close a supply cycle: SUP (site ${s.SUP}) → DC (site ${s.DC}) → S1 (site ${s.S1}) → SUP (site ${s.SUP}); REPLENISHMENT, BUY, BUILD and TRANSFER routes must not lead back to a site they leave`);
    // an item's own route is checked together with the routes for every item
    const itemCycle = await t.call('post', '/api/routes', { token: admin, body: { item_id: seed.items.Y, from_site_id: s.S2, to_site_id: s.DC, lead_time: 1, route_type: 'BUILD' } });
    expect([itemCycle.status, itemCycle.body.detail]).toEqual([400, expect.stringContaining(`for item ${seed.items.Y}: DC (site ${s.DC}) → S2 (site ${s.S2}) → DC`)]);
    const ret = await t.call('post', '/api/routes', { token: admin, body: { from_site_id: s.S1, to_site_id: s.DC, lead_time: 1, route_type: 'RETURN' } });
    expect(ret.status).toBe(201);
    // turning the return into a transfer would close the loop: the update is refused and the row is unchanged
    const flip = await t.call('put', `/api/routes/${ret.body.id}`, { token: admin, body: { route_type: 'TRANSFER' } });
    expect([flip.status, flip.body.detail]).toEqual([400, expect.stringContaining('would close a supply cycle')]);
    const kept = await t.call('get', '/api/routes', { token: plain, query: { route_type: 'RETURN' } });
    expect(kept.body.map((r: any) => r.id)).toEqual([ret.body.id]);
    await t.call('delete', `/api/routes/${ret.body.id}`, { token: admin });
  });

  test('reading is for every user; writing is for admins', async () => {
    const res = await t.call('post', '/api/routes', { token: planner, body: { from_site_id: seed.sites.DC, to_site_id: seed.sites.SUP, lead_time: 1, route_type: 'RETURN' } });
    expect(res.status).toBe(403);
    expect((await t.call('get', '/api/routes', {})).status).toBe(401);
  });
});

describe('IO overrides', () => {
  const body = (over: Record<string, unknown>) => ({ item_id: seed.items.X, site_id: seed.sites.S1, ...over });

  test('upsert per item, site, pipeline and scenario: fields left out are kept, null clears', async () => {
    const first = await t.call('post', '/api/io-overrides', { token: planner, body: body({ fr_override: 0.98, eoq_override: 40 }) });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ pipeline_id: 0, scenario_id: null, item_id: seed.items.X, site_id: seed.sites.S1, fr_override: 0.98, eoq_override: 40, sl_override: null, created: true, updated_by: a.planner.email });
    const second = await t.call('post', '/api/io-overrides', { token: planner, body: body({ sl_override: 0.9, eoq_override: null }) });
    expect(second.body).toMatchObject({ id: first.body.id, fr_override: 0.98, sl_override: 0.9, eoq_override: null, created: false });
    const rows = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT id FROM io_overrides`));
    expect(rows).toHaveLength(1);
  });

  test('out-of-range targets, unknown items and scenarios are refused and change nothing', async () => {
    for (const [over, status, detail] of [
      [{ fr_override: 1 }, 400, expect.stringContaining('body.fr_override')],
      [{ sl_override: 0 }, 400, expect.stringContaining('body.sl_override')],
      [{ eoq_override: -5 }, 400, expect.stringContaining('body.eoq_override')],
      [{ item_id: 999999, fr_override: 0.9 }, 400, 'body.item_id: item 999999 does not exist'],
      [{ scenario_id: 999999, fr_override: 0.9 }, 404, 'body.scenario_id: MEIO scenario 999999 not found'],
      [{}, 400, expect.stringContaining('body')],
    ] as const) {
      const res = await t.call('post', '/api/io-overrides', { token: planner, body: body(over) });
      expect([res.status, res.body.detail]).toEqual([status, detail]);
    }
    const stored = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`SELECT fr_override::float8 AS fr, sl_override::float8 AS sl FROM io_overrides`));
    expect(stored).toEqual({ fr: 0.98, sl: 0.9 });
  });

  test('needs can_create_override', async () => {
    const res = await t.call('post', '/api/io-overrides', { token: plain, body: body({ fr_override: 0.9 }) });
    expect(res.status).toBe(403);
  });
});

describe('io-network', () => {
  test('nodes are the sites of the item\'s network with their roles and stock; edges are its routes', async () => {
    const uid = `${seed.items.X}_${seed.sites.S1}`;
    const res = await t.call('get', `/api/series/${uid}/io-network`, { token: plain });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ unique_id: uid, item_id: seed.items.X, site_id: seed.sites.S1, pipeline_id: 0, scenario_id: null });
    expect(res.body.nodes.map((n: any) => [n.site_xuid, n.role, n.has_series, n.on_hand])).toEqual([
      ['SUP', 'source', false, 0], ['DC', 'internal', false, 0], ['S1', 'demand', true, 15], ['S2', 'demand', true, 10],
    ]);
    expect(res.body.edges.map((e: any) => [e.route_id, e.route_type, e.lead_time, e.item_specific])).toEqual([
      [seed.routes.SUP_DC, 'BUY', 4, false], [seed.routes.DC_S1, 'REPLENISHMENT', 1, false], [seed.routes.DC_S2, 'REPLENISHMENT', 1, false],
    ]);
    expect((await t.call('get', '/api/series/999_999/io-network', { token: plain })).status).toBe(404);
  });
});

describe('mc-distribution', () => {
  const uid = () => `${seed.items.X}_${seed.sites.S1}`;

  test('seeded Monte Carlo over the route lead time agrees with the analytic lead-time demand', async () => {
    const res = await t.call('get', `/api/series/${uid()}/mc-distribution`, { token: plain, query: { samples: 50000, seed: 7 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ distribution_type: 'poisson', lead_time_weeks: 1, lead_time_source: 'route', samples: 50000, seed: 7 });
    // Poisson(3) over one week
    const ltd = leadTimeDemand({ type: 'poisson', lambda: 3 }, 1);
    expect(res.body.analytic.mean).toBeCloseTo(3, 12);
    expect(res.body.analytic.quantiles['0.95']).toBe(ltd.quantile(0.95));
    expect(Math.abs(res.body.mean - 3)).toBeLessThan(0.05);
    expect(res.body.max_quantile_difference).toBeLessThanOrEqual(1);
    expect(res.body.histogram.counts.reduce((n: number, c: number) => n + c, 0)).toBe(50000);
    // the same seed gives the same answer
    const again = await t.call('get', `/api/series/${uid()}/mc-distribution`, { token: plain, query: { samples: 50000, seed: 7 } });
    expect(again.body).toEqual(res.body);
  });

  test('a lead time given in the query wins; a series without a fit is a 404', async () => {
    const res = await t.call('get', `/api/series/${uid()}/mc-distribution`, { token: plain, query: { lead_time_weeks: 6, samples: 20000 } });
    expect(res.body).toMatchObject({ lead_time_weeks: 6, lead_time_source: 'query' });
    expect(res.body.analytic.mean).toBeCloseTo(18, 12);
    const none = await t.call('get', `/api/series/${seed.items.Y}_${seed.sites.S1}/mc-distribution`, { token: plain });
    expect([none.status, none.body.detail]).toEqual([404, `Series ${seed.items.Y}_${seed.sites.S1} has no fitted distribution for pipeline 0 yet (run the distribution step)`]);
    const bad = await t.call('get', `/api/series/${uid()}/mc-distribution`, { token: plain, query: { samples: 10 } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'query.samples must be >= 100']);
  });
});
