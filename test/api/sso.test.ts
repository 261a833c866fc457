import { sql } from '../../db/pool';
import { startFakeProviders, type FakeProviders } from '../support/fakeIdentityProviders';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let idp: FakeProviders;
let t: TestApp;
let a: TestTenant;
let admin: string;
beforeAll(async () => {
  idp = await startFakeProviders('test-client-id');
  t = await startTestApp({ sso: { microsoftProfileUrl: idp.microsoftProfileUrl, googleJwksUrl: idp.googleJwksUrl, googleClientId: 'test-client-id' } });
  a = await t.newTenant('sso');
  admin = await t.login(a.admin);
  await t.call('post', '/api/auth/users', { token: admin, body: { email: 'ms.user@contoso.com', name: 'MS User', auth_provider: 'microsoft', can_run_process: true } });
  await t.call('post', '/api/auth/users', { token: admin, body: { email: 'g.user@gmail.com', name: 'G User', auth_provider: 'google' } });
  idp.microsoftTokens.set('ms-good', { mail: 'MS.User@contoso.com', displayName: 'MS User' });
  idp.microsoftTokens.set('ms-upn-only', { mail: null, userPrincipalName: 'upn.person@contoso.com', displayName: 'UPN Person' });
  idp.microsoftTokens.set('ms-local-user', { mail: a.planner.email, displayName: 'Planner' });
});
afterAll(async () => {
  await t.close();
  await idp.close();
});

describe('microsoft', () => {
  test('a token the provider accepts signs in the matching microsoft user', async () => {
    const res = await t.call('post', '/api/auth/microsoft', { body: { access_token: 'ms-good' } });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ email: 'ms.user@contoso.com', auth_provider: 'microsoft', role: 'user', can_run_process: true, account_id: a.accountId });
    const me = await t.call('get', '/api/auth/me', { token: res.body.access_token });
    expect(me.body.auth_provider).toBe('microsoft');
    // change-password is for local accounts only
    const cp = await t.call('post', '/api/auth/change-password', { token: res.body.access_token, body: { current_password: 'whatever', new_password: 'new-password-1' } });
    expect(cp.status).toBe(400);
    expect(cp.body.detail).toMatch(/only possible for local accounts/);
  });

  test('a token the provider rejects is a 401', async () => {
    const res = await t.call('post', '/api/auth/microsoft', { body: { access_token: 'forged' } });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/rejected/);
  });

  test('an unknown e-mail is refused unless the account provisions its domain', async () => {
    const refused = await t.call('post', '/api/auth/microsoft', { body: { access_token: 'ms-upn-only', account_id: a.accountId } });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/ask an administrator/);
    await t.db.query(sql.unsafe`UPDATE master.accounts SET sso_auto_provision_domains = '{contoso.com}' WHERE id = ${a.accountId}::uuid`);
    const created = await t.call('post', '/api/auth/microsoft', { body: { access_token: 'ms-upn-only', account_id: a.accountId } });
    expect(created.status).toBe(200);
    expect(created.body.user).toMatchObject({ email: 'upn.person@contoso.com', name: 'UPN Person', role: 'user', auth_provider: 'microsoft', can_run_process: false });
  });

  test('a local user cannot be entered through microsoft', async () => {
    const res = await t.call('post', '/api/auth/microsoft', { body: { access_token: 'ms-local-user' } });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/signs in with local/);
  });
});

describe('google', () => {
  test('an ID token signed by the provider key signs in the matching google user', async () => {
    const credential = await idp.signGoogle({ email: 'g.user@gmail.com', email_verified: true, name: 'G User' });
    const res = await t.call('post', '/api/auth/google', { body: { credential } });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ email: 'g.user@gmail.com', auth_provider: 'google', account_id: a.accountId });
  });

  test('a token signed with another key, for another audience or issuer, expired, or unverified is a 401', async () => {
    const claims = { email: 'g.user@gmail.com', email_verified: true };
    const bad = [
      await idp.signGoogle(claims, { foreignKey: true }),
      await idp.signGoogle(claims, { audience: 'someone-else' }),
      await idp.signGoogle(claims, { issuer: 'https://evil.example.com' }),
      await idp.signGoogle(claims, { expiresIn: '-1m' }),
      await idp.signGoogle({ email: 'g.user@gmail.com', email_verified: false }),
      'not-a-jwt',
    ];
    for (const credential of bad) {
      const res = await t.call('post', '/api/auth/google', { body: { credential } });
      expect(res.status).toBe(401);
    }
  });

  test('missing credential is a 400 naming it', async () => {
    const res = await t.call('post', '/api/auth/google', { body: {} });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('body.credential is required');
  });
});
