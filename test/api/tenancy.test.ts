import { withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';
import { sql } from '../../db/pool';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let adminA: string;
let adminB: string;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('iso-a');
  b = await t.newTenant('iso-b');
  adminA = await t.login(a.admin);
  adminB = await t.login(b.admin);
  await t.call('post', '/api/config/update', { token: adminB, body: { path: 'pipeline.n_workers', value: 7 } });
  await withTenant(t.db, b.accountId, (tx) => tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('B-ONLY', 'Secret item of B')`));
});
afterAll(() => t.close());

test("an admin of A cannot read, change or deactivate B's users by id", async () => {
  const list = await t.call('get', '/api/auth/users', { token: adminA });
  expect(list.body.map((u: { email: string }) => u.email)).not.toContain(b.admin.email);
  // B's user ids are meaningless in A: the same number addresses A's own row (tenant schemas have their own sequences)
  const put = await t.call('put', `/api/auth/users/${b.planner.id}`, { token: adminA, body: { name: 'changed-by-A' } });
  expect(put.status).toBe(200);
  expect(put.body.email).not.toBe(b.planner.email);
  expect(put.body.account_id).toBe(a.accountId);
  const missing = await t.call('delete', '/api/auth/users/424242', { token: adminA });
  expect(missing.status).toBe(404);
  const bUsers = await t.call('get', '/api/auth/users', { token: adminB });
  expect(bUsers.body.map((u: { name: string }) => u.name)).not.toContain('changed-by-A');
  expect(bUsers.body.every((u: { is_active: boolean }) => u.is_active)).toBe(true);
});

test("A's config, cache and audit trail hold nothing of B", async () => {
  const cfgA = await t.call('get', '/api/config', { token: adminA });
  const cfgB = await t.call('get', '/api/config', { token: adminB });
  expect(cfgA.body.config.pipeline.n_workers).toBe(2);
  expect(cfgB.body.config.pipeline.n_workers).toBe(7);
  const reloadA = await t.call('post', '/api/reload', { token: adminA });
  const reloadB = await t.call('post', '/api/reload', { token: adminB });
  expect(reloadA.body.cache_sizes.items).toBe(0);
  expect(reloadB.body.cache_sizes.items).toBe(1);
  const auditA = await t.call('get', '/api/audit-log', { token: adminA, query: { limit: 1000 } });
  expect(auditA.body.items.some((i: { changed_by: string }) => i.changed_by === b.admin.email)).toBe(false);
  expect(JSON.stringify(auditA.body)).not.toContain('n_workers');
});

test('a token of A cannot be turned into B by switching or by claim', async () => {
  const planner = await t.login(a.planner);
  expect((await t.call('post', '/api/auth/switch-account', { token: planner, body: { account_id: b.accountId } })).status).toBe(403);
  // login to B with A's credentials
  const res = await t.call('post', '/api/auth/login', { body: { email: a.admin.email, password: a.admin.password, account_id: b.accountId } });
  expect(res.status).toBe(401);
});
