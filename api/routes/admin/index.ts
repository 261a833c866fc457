import { passwordSchema } from '../../auth/passwords';
import {
  accountNameSchema, createSuperadmin, createTenant, createTenantUser, listTenants, renameTenant, resetUserPassword, setTenantActive, setUserActive,
} from '../../admin/tenantOperations';
import { cacheSizes } from '../../cache';
import type { AppContext } from '../../context';
import { notFound } from '../../errors';
import { createUserBody, tenantUserSchema } from '../auth/schemas';
import { defineRoute, type RouteTable } from '../define';
import { errors, obj, out } from '../schemas';

/*
 * Platform administration for superadmins: the same operations as the admin CLI (scripts/admin.ts), with the same
 * checks and wording (api/admin/tenantOperations.ts). The spec has no such routes: these are documented extras, like
 * the maintenance creation routes. Each mutation leaves an audit row in the caller's current account (who did what
 * to which account), the new value without passwords.
 */

const EXTRA = ' (extra: not in the spec; superadmin only)';
const accountParam = { type: 'object', additionalProperties: false, required: ['account_id'], properties: { account_id: { type: 'string', format: 'uuid' } } };
const email = { type: 'string', format: 'email', maxLength: 254 };
const accountSchema = out({ id: { type: 'string' }, name: { type: 'string' }, schema_name: { type: 'string' }, is_active: { type: 'boolean' }, created_at: { type: 'string' } });
const superadminSchema = out({ id: { type: 'integer' }, email: { type: 'string' }, name: { type: 'string' }, is_active: { type: 'boolean' } });

const note = (ctx: AppContext, entityId: string | number | null, newValue: unknown, oldValue?: unknown) => {
  ctx.state.audit = { ...ctx.state.audit, entityId, newValue, ...(oldValue === undefined ? {} : { oldValue }) };
};

export function registerAdminRoutes(table: RouteTable): void {
  const tag = 'admin';
  const common = { tag, permission: 'superadmin' as const, needsCache: false };

  defineRoute(table, {
    ...common, method: 'get', path: '/api/admin/accounts',
    summary: `Every account, deactivated ones too${EXTRA}`,
    responses: { 200: { description: 'accounts by name', schema: { type: 'array', items: accountSchema } }, ...errors(401, 403) },
    handler: (ctx) => listTenants(ctx.deps.db),
  });

  defineRoute(table, {
    ...common, method: 'post', path: '/api/admin/accounts', status: 201,
    summary: `Create an account${EXTRA}`,
    description: 'Creates the account and its schema, migrated and seeded with the default parameters and alert rules. Its first admin is created with POST /api/admin/accounts/{account_id}/users.',
    body: obj({ name: accountNameSchema }, ['name']), audit: { entityType: 'account', action: 'create' },
    responses: { 201: { description: 'created account', schema: accountSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body }) => {
      const account = await createTenant(ctx.deps.db, ctx.deps.env.databaseUrl!, body.name);
      note(ctx, account.id, account);
      return account;
    },
  });

  defineRoute(table, {
    ...common, method: 'patch', path: '/api/admin/accounts/{account_id}',
    summary: `Rename, deactivate or reactivate an account${EXTRA}`,
    description: 'A deactivated account keeps its schema and rows; its users can no longer sign in and their tokens stop working at once.',
    params: accountParam, body: obj({ name: accountNameSchema, is_active: { type: 'boolean' } }, [], { minProperties: 1 }),
    audit: { entityType: 'account', action: 'update' },
    responses: { 200: { description: 'the account after the change', schema: accountSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body }) => {
      let account = body.name !== undefined ? await renameTenant(ctx.deps.db, params.account_id, body.name) : undefined;
      if (body.is_active !== undefined) account = (await setTenantActive(ctx.deps.db, params.account_id, body.is_active)).after;
      note(ctx, params.account_id, account);
      return account;
    },
  });

  defineRoute(table, {
    ...common, method: 'post', path: '/api/admin/accounts/{account_id}/users', status: 201,
    summary: `Create a user in any account${EXTRA}`,
    description: 'Same fields as POST /api/auth/users; how an operator gives a new account its first admin.',
    params: accountParam, body: createUserBody, audit: { entityType: 'user', action: 'create' },
    responses: { 201: { description: 'created user', schema: tenantUserSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body }) => {
      const user = await createTenantUser(ctx.deps.db, params.account_id, body);
      note(ctx, `${params.account_id}:${user.id}`, user);
      return user;
    },
  });

  defineRoute(table, {
    ...common, method: 'post', path: '/api/admin/accounts/{account_id}/users/reset-password',
    summary: `Set a local user's password${EXTRA}`,
    params: accountParam, body: obj({ email, password: passwordSchema }, ['email', 'password']), audit: { entityType: 'user', action: 'reset_password' },
    responses: { 200: { description: 'the user', schema: tenantUserSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body }) => {
      const user = await resetUserPassword(ctx.deps.db, params.account_id, body.email, body.password);
      note(ctx, `${params.account_id}:${user.id}`, { email: user.email });
      return user;
    },
  });

  defineRoute(table, {
    ...common, method: 'post', path: '/api/admin/accounts/{account_id}/users/deactivate',
    summary: `Deactivate a user of any account${EXTRA}`,
    params: accountParam, body: obj({ email }, ['email']), audit: { entityType: 'user', action: 'deactivate' },
    responses: { 200: { description: 'the user', schema: tenantUserSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body }) => {
      const user = await setUserActive(ctx.deps.db, params.account_id, body.email, false);
      note(ctx, `${params.account_id}:${user.id}`, { email: user.email, is_active: false });
      return user;
    },
  });

  defineRoute(table, {
    ...common, method: 'post', path: '/api/admin/accounts/{account_id}/reload',
    summary: `Reload an account's data cache in this API process${EXTRA}`,
    description: "POST /api/reload for any account: after `admin restore`, so the API serves the restored data. Reloads this process only; with several API replicas, call it on each or restart them.",
    params: accountParam, audit: { entityType: 'cache', action: 'reload' },
    responses: { 200: { description: 'reloaded', schema: out({ status: { type: 'string', const: 'reloaded' }, cache_sizes: { type: 'object', additionalProperties: { type: 'integer' } } }) }, ...errors(401, 403, 404) },
    handler: async (ctx, { params }) => {
      const accounts = await listTenants(ctx.deps.db);
      if (!accounts.some((a) => a.id === params.account_id && a.is_active)) throw notFound(`unknown account ${params.account_id} (or deactivated)`);
      const data = await ctx.deps.cache.reload(params.account_id);
      note(ctx, params.account_id, { cache_sizes: cacheSizes(data) });
      return { status: 'reloaded', cache_sizes: cacheSizes(data) };
    },
  });

  defineRoute(table, {
    ...common, method: 'post', path: '/api/admin/superadmins', status: 201,
    summary: `Create another superadmin${EXTRA}`,
    body: obj({ email, name: { type: 'string', minLength: 1, maxLength: 200 }, password: passwordSchema }, ['email', 'name', 'password']),
    audit: { entityType: 'superadmin', action: 'create' },
    responses: { 201: { description: 'created superadmin', schema: superadminSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body }) => {
      const sa = await createSuperadmin(ctx.deps.db, body.email, body.name, body.password);
      note(ctx, sa.id, sa);
      return sa;
    },
  });
}
