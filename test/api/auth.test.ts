import { logger } from '../../lib/logger';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('auth-a');
  b = await t.newTenant('auth-b');
});
afterAll(() => t.close());

describe('probe', () => {
  test('lists the accounts of an e-mail, and none for an unknown one', async () => {
    const res = await t.call('get', '/api/auth/probe', { query: { email: a.admin.email.toUpperCase() } });
    expect(res.status).toBe(200);
    expect(res.body.accounts).toEqual([{ id: a.accountId, name: a.name }]);
    const none = await t.call('get', '/api/auth/probe', { query: { email: 'nobody@example.com' } });
    expect(none.body.accounts).toEqual([]);
  });

  test('requires a valid email', async () => {
    const res = await t.call('get', '/api/auth/probe');
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/email is required/);
    const bad = await t.call('get', '/api/auth/probe', { query: { email: 'not-an-email' } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/query\.email/);
  });
});

describe('login', () => {
  test('returns token, type, lifetime and the user', async () => {
    const res = await t.call('post', '/api/auth/login', { body: { email: a.planner.email, password: a.planner.password } });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('bearer');
    expect(res.body.expires_in).toBe(28800);
    expect(res.body.user).toMatchObject({ email: a.planner.email, role: 'user', account_id: a.accountId, account_name: a.name, can_run_process: true });
    const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: String(a.planner.id), account_id: a.accountId, role: 'user', auth_provider: 'local', is_superadmin: false });
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims.exp - claims.iat).toBe(28800);
    expect(JSON.parse(Buffer.from(res.body.access_token.split('.')[0], 'base64url').toString()).alg).toBe('HS256');
  });

  test('wrong password and unknown e-mail answer the same 401', async () => {
    const wrong = await t.call('post', '/api/auth/login', { body: { email: a.admin.email, password: 'wrong-password' } });
    const unknown = await t.call('post', '/api/auth/login', { body: { email: 'ghost@example.com', password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toEqual({ detail: 'Invalid email or password' });
  });

  test('rejects unknown and malformed fields', async () => {
    const extra = await t.call('post', '/api/auth/login', { body: { email: a.admin.email, password: a.admin.password, remember: true } });
    expect(extra.status).toBe(400);
    expect(extra.body.detail).toBe("body: unknown field 'remember'");
    const badType = await t.call('post', '/api/auth/login', { body: { email: a.admin.email, password: 12345 } });
    expect(badType.status).toBe(400);
    expect(badType.body.detail).toBe('body.password must be string');
    const malformed = await t.call('post', '/api/auth/login', { body: '{"email":', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toBe('body: malformed JSON');
  });

  test('an e-mail with users in two accounts must choose one', async () => {
    const email = `twice-${Date.now()}@example.com`;
    const ua = await t.addUser(a.accountId, { email, password: 'same-password-1' });
    await t.addUser(b.accountId, { email, password: 'same-password-1' });
    const res = await t.call('post', '/api/auth/login', { body: { email, password: 'same-password-1' } });
    expect(res.body.status).toBe('select_account');
    expect(res.body.accounts.map((x: { id: string }) => x.id).sort()).toEqual([a.accountId, b.accountId].sort());
    const token = await t.login(ua, b.accountId);
    const me = await t.call('get', '/api/auth/me', { token });
    expect(me.body.account_id).toBe(b.accountId);
    // switch-account moves the same person to the other account
    const sw = await t.call('post', '/api/auth/switch-account', { token, body: { account_id: a.accountId } });
    expect(sw.status).toBe(200);
    expect(sw.body.user).toMatchObject({ account_id: a.accountId, id: String(ua.id) });
  });
});

describe('superadmin', () => {
  test('login without account_id asks to select one, then logs in with role superadmin', async () => {
    const root = await t.addSuperadmin();
    const first = await t.call('post', '/api/auth/login', { body: { email: root.email, password: root.password } });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('select_account');
    expect(first.body.accounts).toEqual(expect.arrayContaining([{ id: a.accountId, name: a.name }, { id: b.accountId, name: b.name }]));
    const token = await t.login(root, a.accountId);
    const me = await t.call('get', '/api/auth/me', { token });
    expect(me.body).toMatchObject({ role: 'superadmin', is_superadmin: true, account_id: a.accountId });
    // may switch to any account
    const sw = await t.call('post', '/api/auth/switch-account', { token, body: { account_id: b.accountId } });
    expect(sw.status).toBe(200);
    expect(sw.body.user).toMatchObject({ role: 'superadmin', account_id: b.accountId });
    // an unknown account is a 400 naming the field
    const unknown = await t.call('post', '/api/auth/login', { body: { email: root.email, password: root.password, account_id: '00000000-0000-4000-8000-000000000000' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toMatch(/^account_id: unknown account/);
  });

  test('change-password updates the master record, so the next login is still a superadmin one', async () => {
    const root = await t.addSuperadmin();
    const token = await t.login(root, a.accountId);
    const res = await t.call('post', '/api/auth/change-password', { token, body: { current_password: root.password, new_password: 'brand-new-root-pw' } });
    expect(res.status).toBe(200);
    const again = await t.call('post', '/api/auth/login', { body: { email: root.email, password: 'brand-new-root-pw', account_id: a.accountId } });
    expect(again.body.user.role).toBe('superadmin');
  });

  test('a tenant user sharing a superadmin e-mail with a diverged password logs in as that tenant user, and a warning is logged', async () => {
    const root = await t.addSuperadmin();
    await t.addUser(a.accountId, { email: root.email, password: 'tenant-side-password', role: 'admin' });
    const warn = jest.spyOn(logger, 'warn');
    const res = await t.call('post', '/api/auth/login', { body: { email: root.email, password: 'tenant-side-password' } });
    expect(res.status).toBe(200);
    expect(res.body.user.role).toBe('admin');
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ email: root.email }), expect.stringMatching(/divergence/));
    warn.mockRestore();
  });
});

describe('switch-account', () => {
  test('is refused for an account where the caller has no user', async () => {
    const token = await t.login(a.planner);
    const res = await t.call('post', '/api/auth/switch-account', { token, body: { account_id: b.accountId } });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/no access/);
  });
});

describe('me', () => {
  test('returns the profile with permissions', async () => {
    const token = await t.login(a.planner);
    const res = await t.call('get', '/api/auth/me', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: String(a.planner.id), email: a.planner.email, name: a.planner.email.split('@')[0], role: 'user', account_id: a.accountId, account_name: a.name,
      auth_provider: 'local', is_superadmin: false, can_run_process: true, can_create_override: true, allowed_segments: [], allowed_segments_edit: [],
    });
  });
});

describe('users (admin)', () => {
  let admin: string;
  beforeAll(async () => {
    admin = await t.login(a.admin);
  });

  test('create, list, update, deactivate, reactivate', async () => {
    const created = await t.call('post', '/api/auth/users', {
      token: admin,
      body: { email: 'New.Planner@Example.com', name: 'New Planner', password: 'planner-pass-1', role: 'user', can_run_process: true, allowed_segments: [3, 4] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'new.planner@example.com', role: 'user', auth_provider: 'local', is_active: true, can_run_process: true, can_create_override: false, allowed_segments: [3, 4] });
    expect(created.body).not.toHaveProperty('password_hash');
    const id = created.body.id;

    const list = await t.call('get', '/api/auth/users', { token: admin });
    expect(list.body.map((u: { email: string }) => u.email)).toEqual(expect.arrayContaining([a.admin.email, a.planner.email, 'new.planner@example.com']));

    const login1 = await t.call('post', '/api/auth/login', { body: { email: 'new.planner@example.com', password: 'planner-pass-1' } });
    expect(login1.status).toBe(200);
    const userToken = login1.body.access_token;

    const upd = await t.call('put', `/api/auth/users/${id}`, { token: admin, body: { name: 'Renamed', can_create_override: true } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ name: 'Renamed', can_create_override: true, can_run_process: true });
    // the permission change applies to the existing token at once
    const me = await t.call('get', '/api/auth/me', { token: userToken });
    expect(me.body.can_create_override).toBe(true);

    const del = await t.call('delete', `/api/auth/users/${id}`, { token: admin });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ status: 'deactivated', user: { id, is_active: false } });
    expect((await t.call('get', '/api/auth/me', { token: userToken })).status).toBe(401);
    expect((await t.call('post', '/api/auth/login', { body: { email: 'new.planner@example.com', password: 'planner-pass-1' } })).status).toBe(401);
    expect((await t.call('get', '/api/auth/probe', { query: { email: 'new.planner@example.com' } })).body.accounts).toEqual([]);
    // still listed, as inactive
    const after = await t.call('get', '/api/auth/users', { token: admin });
    expect(after.body.find((u: { id: number }) => u.id === id).is_active).toBe(false);

    const re = await t.call('put', `/api/auth/users/${id}`, { token: admin, body: { is_active: true } });
    expect(re.body.is_active).toBe(true);
    expect((await t.call('post', '/api/auth/login', { body: { email: 'new.planner@example.com', password: 'planner-pass-1' } })).status).toBe(200);
  });

  test('bad input is a 400 naming the field and creates nothing', async () => {
    const before = (await t.call('get', '/api/auth/users', { token: admin })).body.length;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: 'x', password: 'long-enough-1' }, /body\.email is required/],
      [{ email: 'x@example.com', name: 'x', password: 'short' }, /body\.password must NOT have fewer than 8 characters/],
      [{ email: 'x@example.com', name: 'x', password: 'long-enough-1', role: 'superadmin' }, /body\.role must be one of: admin, user/],
      [{ email: 'x@example.com', name: 'x', password: 'long-enough-1', is_god: true }, /unknown field 'is_god'/],
      [{ email: 'x@example.com', name: 'x' }, /^body\.password is required$/],
      [{ email: 'x@example.com', name: 'x', auth_provider: 'google', password: 'long enough 123' }, /^body\.password is not taken together with the other fields sent$/],
      [{ email: 'x@example.com', name: 'x', password: 'long-enough-1', allowed_segments: ['a'] }, /body\.allowed_segments\[0\] must be integer/],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('post', '/api/auth/users', { token: admin, body });
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(message);
    }
    expect((await t.call('get', '/api/auth/users', { token: admin })).body.length).toBe(before);
  });

  test('duplicate e-mail is a 409; unknown id a 404; self-deactivation a 400', async () => {
    const dup = await t.call('post', '/api/auth/users', { token: admin, body: { email: a.planner.email, name: 'dup', password: 'long-enough-1' } });
    expect(dup.status).toBe(409);
    expect(dup.body.detail).toMatch(/already exists/);
    expect((await t.call('put', '/api/auth/users/999999', { token: admin, body: { name: 'x' } })).status).toBe(404);
    expect((await t.call('delete', '/api/auth/users/999999', { token: admin })).status).toBe(404);
    const self = await t.call('delete', `/api/auth/users/${a.admin.id}`, { token: admin });
    expect(self.status).toBe(400);
    const emptyPut = await t.call('put', `/api/auth/users/${a.planner.id}`, { token: admin, body: {} });
    expect(emptyPut.status).toBe(400);
    const badId = await t.call('put', '/api/auth/users/abc', { token: admin, body: { name: 'x' } });
    expect(badId.status).toBe(400);
    expect(badId.body.detail).toBe('path.id must be integer');
  });

  test('an SSO user is created without a password and cannot sign in with one', async () => {
    const res = await t.call('post', '/api/auth/users', { token: admin, body: { email: 'sso.user@example.com', name: 'SSO', auth_provider: 'microsoft' } });
    expect(res.status).toBe(201);
    expect(res.body.auth_provider).toBe('microsoft');
    const withPw = await t.call('post', '/api/auth/users', { token: admin, body: { email: 'sso2@example.com', name: 'SSO', auth_provider: 'google', password: 'some-password' } });
    expect(withPw.status).toBe(400);
  });
});

describe('change-password', () => {
  test('accepts current_password and old_password; wrong current is a 400', async () => {
    const u = await t.addUser(a.accountId);
    const token = await t.login(u);
    const wrong = await t.call('post', '/api/auth/change-password', { token, body: { current_password: 'not-it', new_password: 'new-password-1' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.detail).toBe('current_password is incorrect');
    const ok = await t.call('post', '/api/auth/change-password', { token, body: { current_password: u.password, new_password: 'new-password-1' } });
    expect(ok.status).toBe(200);
    expect((await t.call('post', '/api/auth/login', { body: { email: u.email, password: u.password } })).status).toBe(401);
    const ok2 = await t.call('post', '/api/auth/change-password', { token, body: { old_password: 'new-password-1', new_password: 'new-password-2' } });
    expect(ok2.status).toBe(200);
    expect((await t.call('post', '/api/auth/login', { body: { email: u.email, password: 'new-password-2' } })).status).toBe(200);
    const missing = await t.call('post', '/api/auth/change-password', { token, body: { new_password: 'new-password-3' } });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toMatch(/current_password is required/);
  });
});

describe('logout', () => {
  test('revokes the token and only that token', async () => {
    const t1 = await t.login(a.planner);
    const t2 = await t.login(a.planner);
    const out = await t.call('post', '/api/auth/logout', { token: t1 });
    expect(out.status).toBe(200);
    expect(out.body.status).toBe('logged_out');
    const after = await t.call('get', '/api/auth/me', { token: t1 });
    expect(after.status).toBe(401);
    expect(after.body.detail).toBe('Token revoked');
    expect((await t.call('get', '/api/auth/me', { token: t2 })).status).toBe(200);
  });
});
