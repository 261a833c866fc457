import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let itemIds: Record<string, number>;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('md');
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name, site_type, attributes) VALUES ('DC1', 'Central DC', 'dc', '{"region": "north"}'), ('ST1', 'Store Lyon', 'store', '{}'), ('ST2', 'Store Nice', NULL, '{}')`);
    await tx.query(sql.unsafe`
      INSERT INTO items (xuid, name, unit_price, avg_unit_cost, attributes) VALUES
        ('COLA-1', 'Cola Zero', 2, 1.5, '{"category": "Drinks"}'), ('BRD-1', 'Bread', 0, 0, '{}'), ('COLA-2', 'Cola Light', 2.2, 1.4, '{}')`);
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) SELECT i.id, s.id FROM items i, sites s WHERE s.xuid = 'DC1' OR (i.xuid = 'BRD-1' AND s.xuid = 'ST1')`);
  });
  itemIds = Object.fromEntries(
    ((await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT xuid, id FROM items`))) as Array<{ xuid: string; id: number }>).map((r) => [r.xuid, r.id]),
  );
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
});
afterAll(() => t.close());

test('items: attributes and prices, by id; search on code or name; skip and limit with X-Total-Count', async () => {
  const all = await t.call('get', '/api/items', { token: planner });
  expect(all.status).toBe(200);
  expect(all.headers['x-total-count']).toBe('3');
  expect(all.body[0]).toEqual({
    id: itemIds['COLA-1'], xuid: 'COLA-1', name: 'Cola Zero', image_url: null, attributes: { category: 'Drinks' }, avg_unit_cost: 1.5, unit_price: 2,
    series_count: 1, updated_at: null,
  });
  expect(all.body.find((i: { xuid: string }) => i.xuid === 'BRD-1').series_count).toBe(2);
  const search = await t.call('get', '/api/items', { token: planner, query: { search: 'cola' } });
  expect(search.body.map((i: { xuid: string }) => i.xuid)).toEqual(['COLA-1', 'COLA-2']);
  expect((await t.call('get', '/api/items', { token: planner, query: { search: 'light' } })).body.map((i: { xuid: string }) => i.xuid)).toEqual(['COLA-2']);
  const page = await t.call('get', '/api/items', { token: planner, query: { skip: 1, limit: 1 } });
  expect([page.body.map((i: { xuid: string }) => i.xuid), page.headers['x-total-count']]).toEqual([['BRD-1'], '3']);
  expect((await t.call('get', '/api/items', { token: planner, query: { limit: 0 } })).status).toBe(400);
});

test('sites: type and attributes; search', async () => {
  const res = await t.call('get', '/api/sites', { token: planner });
  expect(res.body.map((s: { xuid: string; site_type: string | null; series_count: number }) => [s.xuid, s.site_type, s.series_count])).toEqual([['DC1', 'dc', 3], ['ST1', 'store', 1], ['ST2', null, 0]]);
  expect(res.body[0]).toMatchObject({ name: 'Central DC', attributes: { region: 'north' } });
  expect((await t.call('get', '/api/sites', { token: planner, query: { search: 'STORE' } })).body.map((s: { xuid: string }) => s.xuid)).toEqual(['ST1', 'ST2']);
});

test('image: admins set and remove it; the cache follows; others get 403; unknown items 404; bad URLs 400', async () => {
  const id = itemIds['COLA-1'];
  const set = await t.call('patch', `/api/items/${id}/image`, { token: admin, body: { image_url: 'https://img.example.com/cola.png' } });
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ id, image_url: 'https://img.example.com/cola.png', updated_at: expect.any(String) });
  expect(t.cache.get(a.accountId)?.items.get(id)?.image_url).toBe('https://img.example.com/cola.png');
  expect((await t.call('get', '/api/items', { token: planner, query: { search: 'COLA-1' } })).body[0].image_url).toBe('https://img.example.com/cola.png');

  const denied = await t.call('patch', `/api/items/${id}/image`, { token: planner, body: { image_url: null } });
  expect([denied.status, denied.body.detail]).toEqual([403, 'Admin privileges required (role admin or superadmin)']);
  expect((await t.call('patch', '/api/items/999999/image', { token: admin, body: { image_url: null } })).status).toBe(404);
  const bad = await t.call('patch', `/api/items/${id}/image`, { token: admin, body: { image_url: 'not a url' } });
  expect(bad.status).toBe(400);
  expect(bad.body.detail).toMatch(/^body\.image_url/);
  expect((await t.call('patch', `/api/items/${id}/image`, { token: admin, body: {} })).body.detail).toBe('body.image_url is required');

  const removed = await t.call('patch', `/api/items/${id}/image`, { token: admin, body: { image_url: null } });
  expect(removed.body.image_url).toBeNull();
  const audit = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT entity_type, entity_id, outcome, new_value FROM audit_log WHERE entity_type = 'item' ORDER BY id`));
  expect(audit.filter((r: any) => r.entity_id === String(id)).map((r: any) => r.outcome)).toEqual(['success', 'denied', 'failure', 'failure', 'success']);
});

test('tenant isolation: another tenant has its own master data', async () => {
  const b = await t.newTenant('md-b');
  const token = await t.login(b.admin);
  expect((await t.call('get', '/api/items', { token })).body).toEqual([]);
  expect((await t.call('patch', `/api/items/${itemIds['COLA-1']}/image`, { token, body: { image_url: null } })).status).toBe(404);
});
