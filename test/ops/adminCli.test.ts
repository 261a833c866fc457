import crypto from 'node:crypto';
import { tenantMigrations } from '../../db/migrate';
import { sql } from '../../db/pool';
import { startTestApp, type TestApp } from '../support/testApp';
import { runAdmin } from './runAdmin';

const uniq = () => crypto.randomBytes(4).toString('hex');

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const login = (email: string, password: string) => t.call('post', '/api/auth/login', { body: { email, password } });

describe('admin CLI: tenants', () => {
  it('creates an account with its schema migrated and seeded, lists, renames and deactivates it', async () => {
    const name = `Acme ${uniq()}`;
    const created = await runAdmin(['tenants', 'create', '--name', name, '--json']);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ name, is_active: true, schema_name: `t_${created.json.id.replace(/-/g, '')}` });
    const id = created.json.id as string;

    const applied = await t.db.oneFirst(sql.unsafe`SELECT count(*) FROM master.schema_migrations WHERE schema_name = ${created.json.schema_name}`);
    expect(applied).toBe(tenantMigrations().length);
    // the default parameters and the 32 alert rules a new tenant starts with (db/accounts.ts createAccount)
    const seeded = (await t.db.one(sql.unsafe`
      SELECT (SELECT count(*) FROM ${sql.identifier([created.json.schema_name, 'parameters'])}) AS parameters`)) as { parameters: number };
    expect(seeded.parameters).toBeGreaterThan(0);

    const again = await runAdmin(['tenants', 'create', '--name', name]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`body.name: an account named '${name}' already exists`);

    const listed = await runAdmin(['tenants', 'list', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.json.find((a: any) => a.id === id)).toMatchObject({ name, is_active: true });

    const renamed = await runAdmin(['tenants', 'rename', '--account', id, '--name', `${name} renamed`, '--json']);
    expect(renamed.code).toBe(0);
    expect(await t.db.oneFirst(sql.unsafe`SELECT name FROM master.accounts WHERE id = ${id}::uuid`)).toBe(`${name} renamed`);

    const admin = await runAdmin(['users', 'create', '--account', id, '--email', `boss-${uniq()}@acme.example`, '--name', 'Boss', '--role', 'admin', '--password', 'first-admin-pw', '--json']);
    expect(admin.code).toBe(0);
    expect((await login(admin.json.email, 'first-admin-pw')).status).toBe(200);

    const off = await runAdmin(['tenants', 'deactivate', '--account', id, '--json']);
    expect(off.code).toBe(0);
    expect(off.json.is_active).toBe(false);
    expect(await t.db.oneFirst(sql.unsafe`SELECT is_active FROM master.accounts WHERE id = ${id}::uuid`)).toBe(false);
    // the data stays; sign-in stops
    expect((await login(admin.json.email, 'first-admin-pw')).status).toBe(401);
    expect(await t.db.oneFirst(sql.unsafe`SELECT count(*) FROM ${sql.identifier([created.json.schema_name, 'users'])}`)).toBe(1);
  });

  it('refuses unknown accounts, an empty name, unknown commands and flags with exit status 1', async () => {
    const missing = crypto.randomUUID();
    const r1 = await runAdmin(['tenants', 'rename', '--account', missing, '--name', 'X']);
    expect([r1.code, r1.stderr.trim()]).toEqual([1, `unknown account ${missing}`]);
    const r2 = await runAdmin(['tenants', 'rename', '--account', 'not-a-uuid', '--name', 'X']);
    expect([r2.code, r2.stderr.trim()]).toEqual([1, "unknown account not-a-uuid: an account id is a UUID (see 'tenants list')"]);
    const r3 = await runAdmin(['tenants', 'create', '--name', '   ', '--json']);
    expect(r3.code).toBe(1);
    expect(r3.json).toEqual({ error: 'body.name must match pattern "\\S"' });
    const r4 = await runAdmin(['tenants', 'explode']);
    expect(r4.code).toBe(1);
    expect(r4.stderr).toMatch(/^unknown command 'tenants explode'/);
    const r5 = await runAdmin(['tenants', 'create', '--name', 'X', '--colour', 'red']);
    expect(r5.code).toBe(1);
    expect(r5.stderr).toMatch(/Unknown option '--colour'/);
    const r6 = await runAdmin(['tenants', 'create']);
    expect([r6.code, r6.stderr.trim()]).toEqual([1, '--name is required']);
  });
});

describe('admin CLI: users and superadmins', () => {
  let accountId: string;
  beforeAll(async () => {
    accountId = (await t.newTenant('cli-users')).accountId;
  });

  it('creates a user with role and permissions; the user signs in with them', async () => {
    const email = `planner-${uniq()}@acme.example`;
    const r = await runAdmin(['users', 'create', '--account', accountId, '--email', email, '--name', 'Pat Planner', '--can-run-process', '--allowed-segments', '3,7', '--json'], { PLANNING_PASSWORD: 'from-the-env-1' });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ email, role: 'user', can_run_process: true, can_create_override: false, allowed_segments: [3, 7], is_active: true, account_id: accountId });
    const res = await login(email, 'from-the-env-1');
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ email, role: 'user', can_run_process: true, allowed_segments: [3, 7], account_id: accountId });
    // the probe index knows the e-mail's account
    expect(await t.db.oneFirst(sql.unsafe`SELECT count(*) FROM master.account_emails WHERE email = ${email} AND account_id = ${accountId}::uuid`)).toBe(1);
  });

  it('refuses an e-mail already used, a weak password, a bad role and an unknown account', async () => {
    const email = `dup-${uniq()}@acme.example`;
    expect((await runAdmin(['users', 'create', '--account', accountId, '--email', email, '--name', 'A', '--password', 'long-enough-1'])).code).toBe(0);
    const dup = await runAdmin(['users', 'create', '--account', accountId, '--email', email.toUpperCase(), '--name', 'B', '--password', 'long-enough-2']);
    expect(dup.code).toBe(1);
    expect(dup.stderr.trim()).toMatch(new RegExp(`^body\\.email: a user with e-mail ${email.replace(/\./g, '\\.')} already exists in account `));
    const weak = await runAdmin(['users', 'create', '--account', accountId, '--email', `w-${uniq()}@acme.example`, '--name', 'W', '--password', 'short']);
    expect([weak.code, weak.stderr.trim()]).toEqual([1, 'body.password must NOT have fewer than 8 characters']);
    const role = await runAdmin(['users', 'create', '--account', accountId, '--email', `r-${uniq()}@acme.example`, '--name', 'R', '--password', 'long-enough-3', '--role', 'owner']);
    expect([role.code, role.stderr.trim()]).toEqual([1, 'body.role must be one of: admin, user']);
    const missing = crypto.randomUUID();
    const unknown = await runAdmin(['users', 'create', '--account', missing, '--email', `u-${uniq()}@acme.example`, '--name', 'U', '--password', 'long-enough-4']);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, `unknown account ${missing} (or deactivated)`]);
    const nopw = await runAdmin(['users', 'create', '--account', accountId, '--email', `n-${uniq()}@acme.example`, '--name', 'N'], { PLANNING_PASSWORD: '' });
    expect([nopw.code, nopw.stderr.trim()]).toEqual([1, '--password (or the environment variable PLANNING_PASSWORD) is required']);
    // nothing of the refused ones was written
    expect(await t.db.oneFirst(sql.unsafe`SELECT count(*) FROM master.account_emails WHERE account_id = ${accountId}::uuid AND email LIKE ${'w-%'}`)).toBe(0);
  });

  it('resets a password and deactivates a user', async () => {
    const user = await t.addUser(accountId);
    const reset = await runAdmin(['users', 'reset-password', '--account', accountId, '--email', user.email, '--password', 'brand-new-pw-1', '--json']);
    expect(reset.code).toBe(0);
    expect((await login(user.email, user.password)).status).toBe(401);
    expect((await login(user.email, 'brand-new-pw-1')).status).toBe(200);

    const weak = await runAdmin(['users', 'reset-password', '--account', accountId, '--email', user.email, '--password', '1234567']);
    expect([weak.code, weak.stderr.trim()]).toEqual([1, 'body.password must NOT have fewer than 8 characters']);
    const nobody = await runAdmin(['users', 'reset-password', '--account', accountId, '--email', 'nobody@acme.example', '--password', 'brand-new-pw-2']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/^unknown user nobody@acme\.example in account /);

    const off = await runAdmin(['users', 'deactivate', '--account', accountId, '--email', user.email, '--json']);
    expect(off.code).toBe(0);
    expect(off.json.is_active).toBe(false);
    expect((await login(user.email, 'brand-new-pw-1')).status).toBe(401);
    expect(await t.db.oneFirst(sql.unsafe`SELECT count(*) FROM master.account_emails WHERE email = ${user.email}`)).toBe(0);
  });

  it('creates a superadmin who signs in and sees every account; a second with the same e-mail is refused', async () => {
    const email = `ops-${uniq()}@example.com`;
    const r = await runAdmin(['superadmin', 'create', '--email', email, '--name', 'Ops', '--password', 'superadmin-pw-1', '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ email, name: 'Ops', is_active: true });
    const res = await login(email, 'superadmin-pw-1');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('select_account');
    expect(res.body.accounts.map((a: any) => a.id)).toContain(accountId);
    const again = await runAdmin(['superadmin', 'create', '--email', email, '--name', 'Ops', '--password', 'superadmin-pw-2']);
    expect([again.code, again.stderr.trim()]).toEqual([1, `body.email: a superadmin with e-mail ${email} already exists`]);
    // the first password still holds
    expect((await login(email, 'superadmin-pw-2')).status).toBe(401);
  });
});
