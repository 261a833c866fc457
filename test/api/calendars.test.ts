import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let planner: string;
let plain: string;
let sites: Record<string, number>;

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('calendars');
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  sites = await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('DC', 'Warehouse'), ('PL', 'Plant'), ('ST', 'Store')`);
    const rows = (await tx.any(sql.unsafe`SELECT xuid, id FROM sites`)) as Array<{ xuid: string; id: number }>;
    return Object.fromEntries(rows.map((r) => [r.xuid, r.id]));
  });
});
afterAll(() => t.close());

const siteCalendars = () =>
  withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT xuid, calendar_id FROM sites ORDER BY xuid`)) as Promise<Array<{ xuid: string; calendar_id: number | null }>>;

test('create with entries and sites, read, list, update, delete', async () => {
  const created = await t.call('post', '/api/calendars', {
    token: planner,
    body: {
      name: 'Plant holidays', description: 'Shutdowns', site_ids: [sites.PL],
      entries: [{ ds: '2026-12-28', factor: 0, description: 'Year-end shutdown' }, { ds: '2026-04-06', factor: 0.8, description: 'Easter Monday' }],
    },
  });
  expect(created.status).toBe(201);
  expect(created.body).toEqual({
    id: expect.any(Number), name: 'Plant holidays', description: 'Shutdowns', is_default: false, site_ids: [sites.PL], entry_count: 2,
    created_at: ts, updated_at: ts,
    entries: [{ ds: '2026-04-06', factor: 0.8, description: 'Easter Monday' }, { ds: '2026-12-28', factor: 0, description: 'Year-end shutdown' }],
  });
  const id = created.body.id;
  expect((await t.call('get', `/api/calendars/${id}`, { token: plain })).body).toEqual(created.body);
  const listed = await t.call('get', '/api/calendars', { token: plain });
  const { entries: _entries, ...summary } = created.body;
  expect(listed.body).toEqual([summary]);
  expect(listed.headers['x-total-count']).toBe('1');

  const dup = await t.call('post', '/api/calendars', { token: planner, body: { name: 'PLANT HOLIDAYS' } });
  expect([dup.status, dup.body.detail]).toEqual([409, `body.name: calendar ${id} is already named 'Plant holidays'`]);

  const upd = await t.call('put', `/api/calendars/${id}`, { token: planner, body: { name: 'Plant', site_ids: [sites.PL, sites.DC] } });
  expect(upd.body).toMatchObject({ name: 'Plant', description: 'Shutdowns', site_ids: [sites.DC, sites.PL].sort((x, y) => x - y), entry_count: 2 });
  expect(upd.body.entries).toHaveLength(2);

  const del = await t.call('delete', `/api/calendars/${id}`, { token: planner });
  expect(del.body).toEqual({ status: 'deleted', id, detached_site_ids: [sites.DC, sites.PL].sort((x, y) => x - y) });
  expect((await siteCalendars()).every((s) => s.calendar_id === null)).toBe(true);
  expect((await t.call('get', `/api/calendars/${id}`, { token: plain })).status).toBe(404);
  expect((await t.call('put', `/api/calendars/${id}/entries`, { token: planner, body: { entries: [] } })).status).toBe(404);
});

test('PUT entries replaces them all; entries are weekly and validated', async () => {
  const cal = (await t.call('post', '/api/calendars', { token: planner, body: { name: 'Weeks', entries: [{ ds: '2026-01-05', factor: 0 }] } })).body;
  const res = await t.call('put', `/api/calendars/${cal.id}/entries`, {
    token: planner, body: { entries: [{ ds: '2026-03-02', factor: 1.5, description: 'Promotion capacity' }, { ds: '2026-02-23', factor: 0 }] },
  });
  expect(res.status).toBe(200);
  expect(res.body.entries).toEqual([{ ds: '2026-02-23', factor: 0, description: null }, { ds: '2026-03-02', factor: 1.5, description: 'Promotion capacity' }]);
  expect(res.body.entry_count).toBe(2);

  const cases: Array<[unknown, string]> = [
    [[{ ds: '2026-01-07', factor: 0 }], 'body.entries[0].ds: 2026-01-07 is a Wednesday; weeks are keyed by their Monday (2026-01-05)'],
    [[{ ds: '2026-01-05', factor: 0 }, { ds: '2026-01-05', factor: 1 }], 'body.entries[1].ds: the week of 2026-01-05 is already listed at body.entries[0]'],
    [[{ ds: '2026-01-05', factor: -1 }], 'body.entries[0].factor must be >= 0'],
    [[{ ds: '2026-02-30', factor: 1 }], 'body.entries[0].ds must match format "date"'],
    [[{ ds: '2026-01-05' }], 'body.entries[0].factor is required'],
    [[{ ds: '2026-01-05', factor: 1, colour: 'red' }], "body.entries[0]: unknown field 'colour'"],
  ];
  for (const [entries, detail] of cases) {
    const bad = await t.call('put', `/api/calendars/${cal.id}/entries`, { token: planner, body: { entries } });
    expect([bad.status, bad.body.detail]).toEqual([400, detail]);
  }
  expect((await t.call('get', `/api/calendars/${cal.id}`, { token: plain })).body.entries).toHaveLength(2);
  // clearing
  expect((await t.call('put', `/api/calendars/${cal.id}/entries`, { token: planner, body: { entries: [] } })).body.entry_count).toBe(0);
  const badCreate = await t.call('post', '/api/calendars', { token: planner, body: { name: 'Bad', entries: [{ ds: '2026-01-04', factor: 0 }] } });
  expect([badCreate.status, badCreate.body.detail]).toEqual([400, 'body.entries[0].ds: 2026-01-04 is a Sunday; weeks are keyed by their Monday (2025-12-29)']);
  await t.call('delete', `/api/calendars/${cal.id}`, { token: planner });
});

test('one default calendar; a site follows one calendar; unknown sites are 400s', async () => {
  const one = (await t.call('post', '/api/calendars', { token: planner, body: { name: 'Default A', is_default: true, site_ids: [sites.DC] } })).body;
  const two = (await t.call('post', '/api/calendars', { token: planner, body: { name: 'Default B', is_default: true, site_ids: [sites.DC, sites.ST] } })).body;
  expect(two.is_default).toBe(true);
  expect((await t.call('get', `/api/calendars/${one.id}`, { token: plain })).body).toMatchObject({ is_default: false, site_ids: [] });
  expect(await siteCalendars()).toEqual([{ xuid: 'DC', calendar_id: two.id }, { xuid: 'PL', calendar_id: null }, { xuid: 'ST', calendar_id: two.id }]);
  const back = await t.call('put', `/api/calendars/${one.id}`, { token: planner, body: { is_default: true } });
  expect(back.body.is_default).toBe(true);
  expect((await t.call('get', `/api/calendars/${two.id}`, { token: plain })).body.is_default).toBe(false);
  const bad = await t.call('put', `/api/calendars/${one.id}`, { token: planner, body: { site_ids: [sites.PL, 999999] } });
  expect([bad.status, bad.body.detail]).toEqual([400, 'body.site_ids: site 999999 does not exist']);
  expect((await t.call('put', `/api/calendars/${one.id}`, { token: planner, body: {} })).status).toBe(400);
  for (const c of [one, two]) await t.call('delete', `/api/calendars/${c.id}`, { token: planner });
});

test('users without can_run_process read calendars but cannot change them', async () => {
  const cal = (await t.call('post', '/api/calendars', { token: planner, body: { name: 'Locked' } })).body;
  expect((await t.call('get', '/api/calendars', { token: plain })).status).toBe(200);
  expect((await t.call('post', '/api/calendars', { token: plain, body: { name: 'Mine' } })).status).toBe(403);
  expect((await t.call('put', `/api/calendars/${cal.id}`, { token: plain, body: { name: 'Mine' } })).status).toBe(403);
  expect((await t.call('put', `/api/calendars/${cal.id}/entries`, { token: plain, body: { entries: [] } })).status).toBe(403);
  expect((await t.call('delete', `/api/calendars/${cal.id}`, { token: plain })).status).toBe(403);
});
