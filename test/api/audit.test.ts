import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';
import { redact } from '../../api/middleware/audit';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let createdId: number;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('audit');
  admin = await t.login(a.admin); // success: login
  planner = await t.login(a.planner);
  const created = await t.call('post', '/api/auth/users', { token: admin, body: { email: 'audited@example.com', name: 'Audited', password: 'audited-pass-1' } });
  createdId = created.body.id;
  await t.call('put', `/api/auth/users/${createdId}`, { token: admin, body: { name: 'Audited Renamed', password: 'another-pass-1' } });
  await t.call('post', '/api/auth/users', { token: admin, body: { email: 'audited@example.com', name: 'dup', password: 'audited-pass-1' } }); // failure: 409
  await t.call('delete', `/api/auth/users/${createdId}`, { token: planner }); // denied: 403
  await t.call('post', '/api/auth/login', { body: { email: a.planner.email, password: 'wrong-password' } }); // denied: 401 login
});
afterAll(() => t.close());

const audit = (query: Record<string, unknown> = {}) => t.call('get', '/api/audit-log', { token: admin, query });

test('every mutating request is recorded with entity, values, who, ip and outcome', async () => {
  const res = await audit({ entity_type: 'user', sort_by: 'id', sort_dir: 'asc' });
  expect(res.status).toBe(200);
  const rows = res.body.items;
  const create = rows.find((r: any) => r.action === 'create' && r.outcome === 'success');
  expect(create).toMatchObject({ entity_type: 'user', entity_id: String(createdId), changed_by: a.admin.email, method: 'POST', path: '/api/auth/users', status_code: 201 });
  expect(create.new_value).toMatchObject({ email: 'audited@example.com', name: 'Audited' });
  expect(create.ip).toMatch(/127\.0\.0\.1|::1/);
  const update = rows.find((r: any) => r.action === 'update');
  expect(update.old_value).toMatchObject({ name: 'Audited' });
  expect(update.new_value).toMatchObject({ name: 'Audited Renamed' });
  const dup = rows.find((r: any) => r.action === 'create' && r.outcome === 'failure');
  expect(dup).toMatchObject({ status_code: 409 });
  expect(dup.detail).toMatch(/already exists/);
  const denied = rows.find((r: any) => r.outcome === 'denied');
  expect(denied).toMatchObject({ action: 'deactivate', entity_id: String(createdId), changed_by: a.planner.email, status_code: 403 });
});

test('passwords never reach the audit trail', async () => {
  const all = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT old_value, new_value FROM audit_log`));
  const text = JSON.stringify(all);
  expect(text).not.toContain('audited-pass-1');
  expect(text).not.toContain('another-pass-1');
  expect(text).not.toContain('wrong-password');
});

test('logins are recorded, refused ones as denied', async () => {
  const res = await audit({ entity_type: 'auth.login' });
  const outcomes = res.body.items.map((r: any) => `${r.changed_by}:${r.outcome}`);
  expect(outcomes).toEqual(expect.arrayContaining([`${a.admin.email}:success`, `${a.planner.email}:denied`]));
});

test('filters: entity_id, action, changed_by (partial), outcome', async () => {
  const byId = await audit({ entity_type: 'user', entity_id: createdId });
  expect(byId.body.items.length).toBeGreaterThanOrEqual(3);
  expect(byId.body.items.every((r: any) => r.entity_id === String(createdId))).toBe(true);
  const byAction = await audit({ action: 'update' });
  expect(byAction.body.items.map((r: any) => r.action)).toEqual(['update']);
  const partial = a.planner.email.slice(0, 10).toUpperCase();
  const byWho = await audit({ changed_by: partial });
  expect(byWho.body.items.length).toBeGreaterThan(0);
  expect(byWho.body.items.every((r: any) => r.changed_by === a.planner.email)).toBe(true);
  const denied = await audit({ outcome: 'denied' });
  expect(denied.body.items.map((r: any) => `${r.entity_type}:${r.status_code}`).sort()).toEqual(['auth.login:401', 'user:403']);
  const failure = await audit({ outcome: 'failure' });
  expect(failure.body.items.every((r: any) => r.outcome === 'failure')).toBe(true);
  expect(failure.body.total).toBe(1);
});

test('date_from is inclusive and date_to includes its whole day', async () => {
  await withTenant(t.db, a.accountId, (tx) =>
    tx.query(sql.unsafe`INSERT INTO audit_log (entity_type, action, outcome, created_at) VALUES
      ('calendar', 'create', 'success', '2026-01-10T00:00:00Z'), ('calendar', 'update', 'success', '2026-01-10T23:59:00Z'),
      ('calendar', 'delete', 'success', '2026-01-11T00:00:00Z')`),
  );
  const day = await audit({ entity_type: 'calendar', date_from: '2026-01-10', date_to: '2026-01-10' });
  expect(day.body.items.map((r: any) => r.action).sort()).toEqual(['create', 'update']);
  const from11 = await audit({ entity_type: 'calendar', date_from: '2026-01-11' });
  expect(from11.body.items.map((r: any) => r.action)).toEqual(['delete']);
  const bad = await audit({ date_from: '10/01/2026' });
  expect(bad.status).toBe(400);
  expect(bad.body.detail).toMatch(/query\.date_from must match format "date"/);
});

test('sort and pagination', async () => {
  const total = (await audit()).body.total;
  expect(total).toBeGreaterThanOrEqual(8);
  const page1 = await audit({ sort_by: 'id', sort_dir: 'asc', limit: 3, offset: 0 });
  const page2 = await audit({ sort_by: 'id', sort_dir: 'asc', limit: 3, offset: 3 });
  expect(page1.body).toMatchObject({ total, limit: 3, offset: 0 });
  const ids = [...page1.body.items, ...page2.body.items].map((r: any) => r.id);
  expect(ids).toEqual([...ids].sort((x, y) => x - y));
  expect(new Set(ids).size).toBe(6);
  const byType = await audit({ sort_by: 'entity_type', sort_dir: 'desc', limit: 1000 });
  const types = byType.body.items.map((r: any) => r.entity_type);
  expect(types).toEqual([...types].sort().reverse());
  expect((await audit()).body.limit).toBe(50);
  for (const q of [{ sort_by: 'password' }, { sort_dir: 'up' }, { limit: 0 }, { offset: -1 }, { outcome: 'maybe' }, { color: 'red' }]) {
    const res = await audit(q);
    expect([q, res.status]).toEqual([q, 400]);
    expect(res.body.detail).toMatch(/^query/);
  }
});

test('values a route notes are made storable: non-finite numbers, bigints, functions and undefined become JSON', () => {
  const noted = { a: Number.NaN, b: Number.POSITIVE_INFINITY, c: 12n, d: [undefined, 1.5], e: () => 1, f: { g: Number.NEGATIVE_INFINITY, password: 'x' } };
  expect(redact(noted)).toEqual({ a: null, b: null, c: '12', d: [null, 1.5], e: null, f: { g: null, password: '***' } });
  expect(JSON.parse(JSON.stringify(redact(noted)))).toEqual(redact(noted));
});
