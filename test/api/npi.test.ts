import { setTenantParameter } from '../../db/parameters';
import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
const id: Record<string, number> = {};
const uid = (item: string, site: string) => `${id[item]}_${id[site]}`;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('npi');
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('DC1', 'Central DC'), ('ST1', 'Store Lyon')`);
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('OLD', 'Old cola'), ('NEW', 'New tea'), ('FRESH', 'Fresh juice'), ('PLAN', 'Planned soda'), ('FLAG', 'Flagged water')`);
    for (const r of (await tx.any(sql.unsafe`SELECT xuid, id FROM items UNION ALL SELECT xuid, id FROM sites`)) as Array<{ xuid: string; id: number }>) id[r.xuid] = r.id;
    // OLD: 52 weeks; NEW: 5 weeks; FRESH: 13 weeks; PLAN: stocked at ST1 (item_site) without demand; FLAG: 52 weeks but flagged as NPI
    const hist: Array<[string, string, number | null]> = [['OLD', 'DC1', 52], ['NEW', 'DC1', 5], ['FRESH', 'ST1', 13], ['FLAG', 'DC1', 52]];
    for (const [item, site, n] of hist) {
      await tx.query(sql.unsafe`
        INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end, mean, zero_ratio, total_demand)
        VALUES (${id[item]}, ${id[site]}, ${n}, '2025-01-06', '2026-01-05', 1, 0, ${n})`);
    }
    await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id) VALUES (${id.PLAN}, ${id.ST1}), (${id.OLD}, ${id.DC1})`);
    await tx.query(sql.unsafe`
      INSERT INTO npi_series (item_id, site_id, is_npi, launch_date, reference_item_id, reference_site_id, notes)
      VALUES (${id.FLAG}, ${id.DC1}, true, '2026-03-02', ${id.OLD}, ${id.DC1}, 'relaunch'),
             (${id.NEW}, ${id.DC1}, true, '2026-02-02', ${id.OLD}, ${id.DC1}, 'like old cola')`);
  });
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
});
afterAll(() => t.close());

const list = (query: Record<string, unknown> = {}, token = planner) => t.call('get', '/api/npi/list', { token, query });
const keys = (rows: Array<{ item_xuid: string; reason: string }>) => rows.map((r) => `${r.item_xuid}:${r.reason}`);

test('no or short history below npi.min_history_weeks (default 13), plus flagged series', async () => {
  const res = await list();
  expect(res.status).toBe(200);
  expect(keys(res.body)).toEqual(['NEW:flagged', 'PLAN:no_history', 'FLAG:flagged']);
  expect(res.headers['x-npi-min-history-weeks']).toBe('13');
  expect(res.headers['x-total-count']).toBe('3');
  expect(res.body.find((r: { item_xuid: string }) => r.item_xuid === 'PLAN')).toEqual({
    unique_id: uid('PLAN', 'ST1'), item_id: id.PLAN, site_id: id.ST1, item_xuid: 'PLAN', item_name: 'Planned soda', item_image_url: null,
    site_xuid: 'ST1', site_name: 'Store Lyon', history_weeks: 0, first_week: null, total_demand: 0, reason: 'no_history',
    launch_date: null, reference_unique_id: null, notes: null,
  });
  expect(res.body.find((r: { item_xuid: string }) => r.item_xuid === 'FLAG')).toMatchObject({ history_weeks: 52, launch_date: '2026-03-02', reference_unique_id: uid('OLD', 'DC1'), notes: 'relaunch' });
});

test('the threshold is the tenant parameter npi.min_history_weeks', async () => {
  await withTenant(t.db, a.accountId, (tx) => setTenantParameter(tx, 'npi', 'min_history_weeks', 14));
  const res = await list();
  expect(keys(res.body)).toEqual(['NEW:flagged', 'FRESH:short_history', 'PLAN:no_history', 'FLAG:flagged']);
  expect(res.headers['x-npi-min-history-weeks']).toBe('14');
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM parameters WHERE parameter_type = 'npi'`));
});

test('search on item or site code or name; skip and limit', async () => {
  expect(keys((await list({ search: 'tea' })).body)).toEqual(['NEW:flagged']);
  expect(keys((await list({ search: 'lyon' })).body)).toEqual(['PLAN:no_history']);
  const page = await list({ skip: 1, limit: 1 });
  expect([keys(page.body), page.headers['x-total-count']]).toEqual([['PLAN:no_history'], '3']);
});

test('delete removes the NPI flag and its data; the series stays off the list; 404 when not NPI', async () => {
  const res = await t.call('delete', `/api/npi/${uid('NEW', 'DC1')}`, { token: planner });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'deleted', unique_id: uid('NEW', 'DC1'), previous: { launch_date: '2026-02-02', notes: 'like old cola' } });
  const row = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`SELECT is_npi, launch_date, reference_item_id, notes, updated_by FROM npi_series WHERE item_id = ${id.NEW} AND site_id = ${id.DC1}`));
  expect(row).toEqual({ is_npi: false, launch_date: null, reference_item_id: null, notes: null, updated_by: a.planner.email });
  expect(keys((await list()).body)).toEqual(['PLAN:no_history', 'FLAG:flagged']);
  // the short-history series without a flag row gets a dismissal row
  expect((await t.call('delete', `/api/npi/${uid('PLAN', 'ST1')}`, { token: planner })).status).toBe(200);
  expect(keys((await list()).body)).toEqual(['FLAG:flagged']);
  const again = await t.call('delete', `/api/npi/${uid('PLAN', 'ST1')}`, { token: planner });
  expect([again.status, again.body.detail]).toEqual([404, `Series ${uid('PLAN', 'ST1')} is not on the NPI list`]);
  expect((await t.call('delete', `/api/npi/${uid('OLD', 'DC1')}`, { token: planner })).status).toBe(404);
  expect((await t.call('delete', '/api/npi/abc', { token: planner })).status).toBe(400);
  // demand history is untouched
  const n = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT n_observations FROM series WHERE item_id = ${id.NEW} AND site_id = ${id.DC1}`));
  expect(n).toBe(5);
});

test('a restricted planner sees and dismisses only series of their segments', async () => {
  const seg = await t.call('post', '/api/segments', { token: admin, body: { name: 'DC only', rules: [{ field: 'site_xuid', operator: '=', value: 'DC1' }] } });
  await t.call('post', `/api/segments/${seg.body.id}/assign`, { token: admin });
  const user = await t.addUser(a.accountId, { allowed_segments: [seg.body.id] });
  const token = await t.login(user);
  expect(keys((await list({}, token)).body)).toEqual(['FLAG:flagged']);
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM npi_series WHERE item_id = ${id.PLAN}`));
  const outside = await t.call('delete', `/api/npi/${uid('PLAN', 'ST1')}`, { token });
  expect(outside.status).toBe(403);
});

test('tenant isolation', async () => {
  const b = await t.newTenant('npi-b');
  const token = await t.login(b.planner);
  expect((await list({}, token)).body).toEqual([]);
  expect((await t.call('delete', `/api/npi/${uid('FLAG', 'DC1')}`, { token })).status).toBe(404);
});
