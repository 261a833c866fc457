import crypto from 'node:crypto';
import { sql, tenantSchemaName } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

const uniq = () => crypto.randomBytes(4).toString('hex');

let t: TestApp;
let home: TestTenant;
let root: string;
beforeAll(async () => {
  t = await startTestApp();
  home = await t.newTenant('admin-home');
  root = await t.login(await t.addSuperadmin(), home.accountId);
});
afterAll(async () => {
  await t.close();
});

const login = (email: string, password: string) => t.call('post', '/api/auth/login', { body: { email, password } });

async function auditRows(entityType: string): Promise<any[]> {
  return [...(await t.db.any(sql.unsafe`
    SELECT entity_type, entity_id, action, outcome, status_code, new_value, changed_by FROM ${sql.identifier([tenantSchemaName(home.accountId), 'audit_log'])}
    WHERE entity_type = ${entityType} ORDER BY id`))];
}

describe('superadmin routes (extras beyond the spec)', () => {
  it('answer 403 to a tenant admin and change nothing', async () => {
    const admin = await t.login(home.admin);
    const before = await t.db.oneFirst(sql.unsafe`SELECT count(*) FROM master.accounts`);
    for (const [method, path, body] of [
      ['get', '/api/admin/accounts', undefined],
      ['post', '/api/admin/accounts', { name: 'nope' }],
      ['post', '/api/admin/superadmins', { email: 'x@example.com', name: 'X', password: 'long-enough-1' }],
    ] as const) {
      const res = await t.call(method, path, { token: admin, body });
      expect([path, res.status, res.body.detail]).toEqual([path, 403, 'Superadmin privileges required']);
    }
    expect(await t.db.oneFirst(sql.unsafe`SELECT count(*) FROM master.accounts`)).toBe(before);
  });

  it('create an account and its first admin, who signs in; refusals name the field; audit rows record who did it', async () => {
    const name = `Routes ${uniq()}`;
    const created = await t.call('post', '/api/admin/accounts', { token: root, body: { name } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, is_active: true });
    const id = created.body.id as string;
    expect((await t.call('post', '/api/admin/accounts', { token: root, body: { name } })).body.detail).toBe(`body.name: an account named '${name}' already exists`);
    const blank = await t.call('post', '/api/admin/accounts', { token: root, body: { name: '' } });
    expect([blank.status, blank.body.detail]).toEqual([400, 'body.name must NOT have fewer than 1 characters']);

    const email = `first-${uniq()}@routes.example`;
    const user = await t.call('post', `/api/admin/accounts/${id}/users`, { token: root, body: { email, name: 'First', role: 'admin', password: 'first-admin-pw' } });
    expect(user.status).toBe(201);
    expect(user.body).toMatchObject({ email, role: 'admin', account_id: id, is_active: true });
    const signIn = await login(email, 'first-admin-pw');
    expect(signIn.status).toBe(200);
    expect(signIn.body.user).toMatchObject({ role: 'admin', account_id: id, account_name: name });

    const dup = await t.call('post', `/api/admin/accounts/${id}/users`, { token: root, body: { email, name: 'Again', password: 'first-admin-pw' } });
    expect([dup.status, dup.body.detail]).toEqual([409, `body.email: a user with e-mail ${email} already exists in account ${name}`]);
    const weak = await t.call('post', `/api/admin/accounts/${id}/users`, { token: root, body: { email: `w-${uniq()}@routes.example`, name: 'W', password: 'short' } });
    expect([weak.status, weak.body.detail]).toEqual([400, 'body.password must NOT have fewer than 8 characters']);
    const missing = crypto.randomUUID();
    const unknown = await t.call('post', `/api/admin/accounts/${missing}/users`, { token: root, body: { email: `u-${uniq()}@routes.example`, name: 'U', password: 'long-enough-1' } });
    expect([unknown.status, unknown.body.detail]).toEqual([404, `unknown account ${missing} (or deactivated)`]);

    const accounts = await auditRows('account');
    expect(accounts.at(-3)).toMatchObject({ entity_id: id, action: 'create', outcome: 'success', status_code: 201, new_value: { id, name } });
    expect(accounts.slice(-2).map((r) => [r.outcome, r.status_code])).toEqual([['failure', 409], ['failure', 400]]);
    const users = await auditRows('user');
    const made = users.find((u) => u.status_code === 201);
    expect(made).toMatchObject({ entity_id: `${id}:${user.body.id}`, outcome: 'success', new_value: { email, role: 'admin' } });
    expect(JSON.stringify(users)).not.toContain('first-admin-pw');
  });

  it('rename and deactivate an account, reset a password, deactivate a user, reload a cache, add a superadmin', async () => {
    const target = await t.newTenant('admin-target');
    const renamed = await t.call('patch', `/api/admin/accounts/${target.accountId}`, { token: root, body: { name: `${target.name}-renamed` } });
    expect([renamed.status, renamed.body.name]).toEqual([200, `${target.name}-renamed`]);
    const clash = await t.call('patch', `/api/admin/accounts/${target.accountId}`, { token: root, body: { name: home.name } });
    expect([clash.status, clash.body.detail]).toEqual([409, `body.name: an account named '${home.name}' already exists`]);

    const reset = await t.call('post', `/api/admin/accounts/${target.accountId}/users/reset-password`, { token: root, body: { email: target.planner.email, password: 'reset-by-root-1' } });
    expect(reset.status).toBe(200);
    expect((await login(target.planner.email, 'reset-by-root-1')).status).toBe(200);
    const off = await t.call('post', `/api/admin/accounts/${target.accountId}/users/deactivate`, { token: root, body: { email: target.planner.email } });
    expect([off.status, off.body.is_active]).toEqual([200, false]);
    expect((await login(target.planner.email, 'reset-by-root-1')).status).toBe(401);

    const reload = await t.call('post', `/api/admin/accounts/${target.accountId}/reload`, { token: root });
    expect(reload.status).toBe(200);
    expect(reload.body.cache_sizes).toEqual(expect.objectContaining({ items: 0, sites: 0 }));

    const adminToken = await t.login(target.admin);
    const deactivated = await t.call('patch', `/api/admin/accounts/${target.accountId}`, { token: root, body: { is_active: false } });
    expect([deactivated.status, deactivated.body.is_active]).toEqual([200, false]);
    // existing tokens of the account stop at once
    expect((await t.call('get', '/api/auth/me', { token: adminToken })).status).toBe(401);
    const list = await t.call('get', '/api/admin/accounts', { token: root });
    expect(list.body.find((a: any) => a.id === target.accountId)).toMatchObject({ is_active: false });
    expect((await t.call('post', `/api/admin/accounts/${target.accountId}/reload`, { token: root })).status).toBe(404);

    const email = `root2-${uniq()}@example.com`;
    const sa = await t.call('post', '/api/admin/superadmins', { token: root, body: { email, name: 'Root Two', password: 'root-two-pw-1' } });
    expect([sa.status, sa.body.email]).toEqual([201, email]);
    expect((await t.call('post', '/api/admin/superadmins', { token: root, body: { email, name: 'Root Two', password: 'root-two-pw-1' } })).status).toBe(409);
    expect((await login(email, 'root-two-pw-1')).body.status).toBe('select_account');
  });
});
