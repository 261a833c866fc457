import { createAccount, getAccount, indexEmail, unindexEmail, type Account } from '../../db/accounts';
import { withTenant, type Db } from '../../db/pool';
import { accountNameTaken, findAccountById, insertSuperadmin, listAllAccounts, renameAccount, setAccountActive, type SuperadminSummary } from '../../db/tenantAdmin';
import { findUserByEmail, insertUser, updateUser, type UserRow, type UserWrite } from '../../db/users';
import { hashPassword, passwordSchema } from '../auth/passwords';
import { badRequest, conflict, notFound } from '../errors';
import { createUserBody } from '../routes/auth/schemas';
import { obj } from '../routes/schemas';
import { compile, describeError, type JsonSchema } from '../routes/validation';

/**
 * What an operator does to tenants and users, shared by the admin CLI (scripts/admin.ts) and the superadmin routes
 * (api/routes/admin): one set of checks and one wording of every refusal, thrown as HttpError so the routes answer
 * it as it is and the CLI prints its detail and exits 1.
 */

export const accountNameSchema: JsonSchema = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' };
const emailSchema: JsonSchema = { type: 'string', format: 'email', maxLength: 254 };

const validators = new Map<JsonSchema, ReturnType<typeof compile>>();
function check(schema: JsonSchema, value: unknown): void {
  let v = validators.get(schema);
  if (!v) validators.set(schema, (v = compile('body', schema)));
  if (!v(value)) throw badRequest(describeError('body', v.errors![0]));
}

const accountBody = obj({ name: accountNameSchema }, ['name']);
const passwordBody = obj({ email: emailSchema, password: passwordSchema }, ['email', 'password']);
const superadminBody = obj({ email: emailSchema, name: { type: 'string', minLength: 1, maxLength: 200 }, password: passwordSchema }, ['email', 'name', 'password']);

/** A user as an operator creates one: the stored fields, with a password in clear instead of its hash. */
export interface NewUser extends Omit<UserWrite, 'email' | 'name' | 'password_hash' | 'is_active'> {
  email: string;
  name: string;
  password?: string;
}

export const userView = (u: UserRow, account: Pick<Account, 'id' | 'name'>) => ({
  id: u.id, email: u.email, name: u.name, role: u.role, auth_provider: u.auth_provider, is_active: u.is_active,
  can_run_process: u.can_run_process, can_create_override: u.can_create_override,
  allowed_segments: u.allowed_segments, allowed_segments_edit: u.allowed_segments_edit,
  account_id: account.id, account_name: account.name, last_login_at: u.last_login_at, created_at: u.created_at,
});

export const accountView = (a: Account) => ({ id: a.id, name: a.name, schema_name: a.schema_name, is_active: a.is_active, created_at: a.created_at });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function accountOr404(db: Db, id: string, activeOnly: boolean): Promise<Account> {
  if (!UUID.test(id)) throw notFound(`unknown account ${id}: an account id is a UUID (see 'tenants list')`);
  const account = activeOnly ? await getAccount(db, id) : await findAccountById(db, id);
  if (!account) throw notFound(`unknown account ${id}${activeOnly ? ' (or deactivated)' : ''}`);
  return account;
}

export async function listTenants(db: Db) {
  return (await listAllAccounts(db)).map(accountView);
}

export async function createTenant(db: Db, databaseUrl: string, name: string) {
  check(accountBody, { name });
  if (await accountNameTaken(db, name)) throw conflict(`body.name: an account named '${name}' already exists`);
  return accountView(await createAccount(db, databaseUrl, name));
}

export async function renameTenant(db: Db, id: string, name: string) {
  check(accountBody, { name });
  await accountOr404(db, id, false);
  if (await accountNameTaken(db, name, id)) throw conflict(`body.name: an account named '${name}' already exists`);
  return accountView((await renameAccount(db, id, name))!);
}

export async function setTenantActive(db: Db, id: string, active: boolean) {
  const before = await accountOr404(db, id, false);
  const after = (await setAccountActive(db, id, active))!;
  return { before: accountView(before), after: accountView(after) };
}

/** A user in the given account, with the probe index kept in the same transaction as the tenant's user row. */
export async function createTenantUser(db: Db, accountId: string, input: NewUser) {
  const body = { role: 'user', can_run_process: false, can_create_override: false, ...input };
  check(createUserBody, body);
  const account = await accountOr404(db, accountId, true);
  const provider = body.auth_provider ?? 'local';
  const hash = body.password ? await hashPassword(body.password) : null;
  const row = await withTenant(db, account.id, async (tx) => {
    if (await findUserByEmail(tx, body.email)) throw conflict(`body.email: a user with e-mail ${body.email.toLowerCase()} already exists in account ${account.name}`);
    const created = await insertUser(tx, {
      email: body.email, name: body.name, password_hash: hash, role: body.role as 'admin' | 'user', auth_provider: provider,
      can_run_process: body.can_run_process, can_create_override: body.can_create_override,
      allowed_segments: body.allowed_segments ?? [], allowed_segments_edit: body.allowed_segments_edit ?? [],
    });
    await indexEmail(tx, created.email, account.id);
    return created;
  });
  return userView(row, account);
}

export async function resetUserPassword(db: Db, accountId: string, email: string, password: string) {
  check(passwordBody, { email, password });
  const account = await accountOr404(db, accountId, true);
  const hash = await hashPassword(password);
  const row = await withTenant(db, account.id, async (tx) => {
    const u = await findUserByEmail(tx, email);
    if (!u) throw notFound(`unknown user ${email.toLowerCase()} in account ${account.name}`);
    if (u.auth_provider !== 'local') throw badRequest(`body.email: ${u.email} signs in with ${u.auth_provider} and has no password`);
    return (await updateUser(tx, u.id, { password_hash: hash }))!;
  });
  return userView(row, account);
}

export async function setUserActive(db: Db, accountId: string, email: string, active: boolean) {
  check(obj({ email: emailSchema }, ['email']), { email });
  const account = await accountOr404(db, accountId, true);
  const row = await withTenant(db, account.id, async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user) throw notFound(`unknown user ${email.toLowerCase()} in account ${account.name}`);
    const updated = (await updateUser(tx, user.id, { is_active: active }))!;
    // the probe index lists only accounts where the e-mail can sign in
    if (active) await indexEmail(tx, user.email, account.id);
    else await unindexEmail(tx, user.email, account.id);
    return updated;
  });
  return userView(row, account);
}

export async function createSuperadmin(db: Db, email: string, name: string, password: string): Promise<SuperadminSummary> {
  check(superadminBody, { email, name, password });
  const row = await insertSuperadmin(db, email, name, await hashPassword(password));
  if (!row) throw conflict(`body.email: a superadmin with e-mail ${email.toLowerCase()} already exists`);
  return row;
}
