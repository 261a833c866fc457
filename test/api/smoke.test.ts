import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let tenant: TestTenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.newTenant();
});
afterAll(() => t.close());

test('login then me', async () => {
  const token = await t.login(tenant.admin);
  const me = await t.call('get', '/api/auth/me', { token });
  expect(me.status).toBe(200);
  expect(me.body.email).toBe(tenant.admin.email);
  expect(me.body.role).toBe('admin');
});
