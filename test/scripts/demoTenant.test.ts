import crypto from 'node:crypto';
import { ensureDemoTenant, ensureSuperadmin } from '../../scripts/demoTenant';
import { startTestApp, type TestApp } from '../support/testApp';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

test('the demo tenant is created once, and its printed logins work', async () => {
  const tag = crypto.randomBytes(3).toString('hex');
  const demo = {
    account: `Demo-${tag}`, adminEmail: `admin-${tag}@demo.local`, adminPassword: 'demo-admin-123',
    plannerEmail: `planner-${tag}@demo.local`, plannerPassword: 'demo-planner-123',
  };
  const first = await ensureDemoTenant(t.db, process.env.DATABASE_URL!, demo);
  expect(first.created).toBe(true);
  const second = await ensureDemoTenant(t.db, process.env.DATABASE_URL!, demo);
  expect(second).toEqual({ ...first, created: false });

  const admin = await t.call('post', '/api/auth/login', { body: { email: demo.adminEmail, password: demo.adminPassword } });
  expect(admin.status).toBe(200);
  expect(admin.body.user).toMatchObject({ role: 'admin', account_id: first.accountId, account_name: demo.account });
  const planner = await t.call('post', '/api/auth/login', { body: { email: demo.plannerEmail, password: demo.plannerPassword } });
  expect(planner.body.user).toMatchObject({ role: 'user', can_run_process: true });
  const users = await t.call('get', '/api/auth/users', { token: admin.body.access_token });
  expect(users.body).toHaveLength(2);
});

test('a superadmin from the environment is created once and keeps a changed password', async () => {
  const email = `sa-${crypto.randomBytes(3).toString('hex')}@example.com`;
  expect(await ensureSuperadmin(t.db, email, 'first-password-1')).toBe(email);
  expect(await ensureSuperadmin(t.db, email, 'other-password-2')).toBe(email);
  const res = await t.call('post', '/api/auth/login', { body: { email, password: 'first-password-1' } });
  expect(res.body.status).toBe('select_account');
  expect(await ensureSuperadmin(t.db, undefined, undefined)).toBeUndefined();
});
