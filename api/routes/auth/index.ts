import { accountsForEmail, getAccount, indexEmail, listAccounts, ssoDomains, unindexEmail, type Account } from '../../../db/accounts';
import { withTenant, type Tx } from '../../../db/pool';
import { revokeToken } from '../../../db/tokens';
import {
  findSuperadmin, findUserByEmail, getSuperadmin, getUser, insertUser, listUsers, setSuperadminPassword, touchLogin, updateUser,
  type UserRow,
} from '../../../db/users';
import { logger } from '../../../lib/logger';
import { checkPassword, hashPassword } from '../../auth/passwords';
import { googleProfile, microsoftProfile, signInProviders, type SsoProfile } from '../../auth/sso';
import { identityOfSuperadmin, identityOfUser, issueToken, userView } from '../../auth/tokens';
import type { AppContext, AppDeps } from '../../context';
import { badRequest, conflict, forbidden, notFound, unauthorized } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, idParam, okSchema } from '../schemas';
import * as s from './schemas';

const INVALID_LOGIN = 'Invalid email or password';

const tenantUserView = (u: UserRow, account: Pick<Account, 'id' | 'name'>) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  auth_provider: u.auth_provider,
  is_active: u.is_active,
  can_run_process: u.can_run_process,
  can_create_override: u.can_create_override,
  allowed_segments: u.allowed_segments,
  allowed_segments_edit: u.allowed_segments_edit,
  account_id: account.id,
  account_name: account.name,
  last_login_at: u.last_login_at,
  created_at: u.created_at,
});

async function requireAccount(deps: AppDeps, accountId: string): Promise<Account> {
  const account = await getAccount(deps.db, accountId);
  if (!account) throw badRequest(`account_id: unknown account ${accountId}`);
  return account;
}

const selectAccount = (accounts: Array<{ id: string; name: string }>) => ({
  status: 'select_account',
  accounts: accounts.map((a) => ({ id: a.id, name: a.name })),
});

/** Local login (spec §5.8, §5.9, §5.11). */
async function login(ctx: AppContext, body: { email: string; password: string; account_id?: string }) {
  const { deps } = ctx;
  const email = body.email.toLowerCase();
  ctx.state.audit = { entityType: 'auth.login', action: 'login', changedBy: email, newValue: { email, account_id: body.account_id } };

  const sa = await findSuperadmin(deps.db, email);
  if (sa && (await checkPassword(body.password, sa.password_hash))) {
    if (!body.account_id) return selectAccount(await listAccounts(deps.db));
    const account = await requireAccount(deps, body.account_id);
    ctx.state.audit.accountId = account.id;
    return issueToken(deps.auth, identityOfSuperadmin(sa), account);
  }

  const candidates = (await accountsForEmail(deps.db, email)).filter((a) => !body.account_id || a.id === body.account_id);
  const matches: Array<{ account: { id: string; name: string }; user: UserRow }> = [];
  for (const account of candidates) {
    const user = await withTenant(deps.db, account.id, (tx) => findUserByEmail(tx, email));
    if (user?.is_active && user.auth_provider === 'local' && (await checkPassword(body.password, user.password_hash))) {
      matches.push({ account, user });
    }
  }
  if (!candidates.length) await checkPassword(body.password, null);
  if (!matches.length) {
    if (candidates.length === 1) ctx.state.audit.accountId = candidates[0].id;
    throw unauthorized(INVALID_LOGIN);
  }
  if (sa) {
    // §5.11: the superadmin's master hash no longer matches; this login is a plain tenant login, not a superadmin one.
    logger.warn({ email }, 'superadmin password divergence: master hash differs from the tenant user password; logging in as tenant user');
  }
  if (matches.length > 1 && !body.account_id) return selectAccount(matches.map((m) => m.account));
  const { account, user } = matches[0];
  ctx.state.audit.accountId = account.id;
  await withTenant(deps.db, account.id, (tx) => touchLogin(tx, user.id));
  return issueToken(deps.auth, identityOfUser(user), account);
}

/** Finds (or, for an allowed e-mail domain, creates) the tenant user of an identity-provider login. */
async function ssoLogin(ctx: AppContext, provider: 'microsoft' | 'google', profile: SsoProfile, accountId?: string) {
  const { deps } = ctx;
  ctx.state.audit = { entityType: 'auth.login', action: `login_${provider}`, changedBy: profile.email, newValue: { email: profile.email, account_id: accountId } };
  const accounts = accountId ? [await requireAccount(deps, accountId)] : await accountsForEmail(deps.db, profile.email);
  if (!accounts.length) throw unauthorized(`No account has a user for ${profile.email}; ask an administrator to create one`);
  if (accounts.length > 1) return selectAccount(accounts);
  const account = accounts[0];
  ctx.state.audit.accountId = account.id;
  const domain = profile.email.split('@')[1];
  const domains = await ssoDomains(deps.db, account.id);
  const user = await withTenant(deps.db, account.id, async (tx) => {
    const existing = await findUserByEmail(tx, profile.email);
    if (existing) {
      if (!existing.is_active) throw unauthorized('User is deactivated');
      if (existing.auth_provider !== provider) throw unauthorized(`This user signs in with ${existing.auth_provider}, not ${provider}`);
      await touchLogin(tx, existing.id);
      return existing;
    }
    if (!domains.includes(domain)) throw unauthorized(`No user for ${profile.email} in this account; ask an administrator to create one`);
    const created = await insertUser(tx, {
      email: profile.email, name: profile.name, password_hash: null, role: 'user', auth_provider: provider,
      can_run_process: false, can_create_override: false, allowed_segments: [], allowed_segments_edit: [],
    });
    await indexEmail(tx, profile.email, account.id);
    return created;
  });
  return issueToken(deps.auth, identityOfUser(user), account);
}

async function userOr404(tx: Tx, id: number): Promise<UserRow> {
  const u = await getUser(tx, id);
  if (!u) throw notFound(`User ${id} not found`);
  return u;
}

export function registerAuthRoutes(table: RouteTable): void {
  const tag = 'auth';

  defineRoute(table, {
    method: 'get', path: '/api/auth/probe', tag, permission: 'public', needsCache: false,
    summary: 'Accounts an e-mail can sign in to',
    description: 'Lets the login page offer an account picker. A superadmin e-mail lists every account.',
    query: s.probeQuery,
    responses: { 200: { description: 'accounts', schema: s.probeResponse }, ...errors(400) },
    handler: async (ctx, { query }) => {
      const email = String(query.email).toLowerCase();
      const sa = await findSuperadmin(ctx.deps.db, email);
      const accounts = sa ? await listAccounts(ctx.deps.db) : await accountsForEmail(ctx.deps.db, email);
      return { accounts: accounts.map((a) => ({ id: a.id, name: a.name })) };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/auth/login/providers', tag, permission: 'public', needsCache: false,
    summary: 'The single sign-on providers this server offers (not in the spec)',
    description: 'For a login page\'s "Sign in with …" buttons: each provider whose client id the server is configured with (MICROSOFT_CLIENT_ID, GOOGLE_CLIENT_ID), '
      + 'with its authorize endpoint (MICROSOFT_AUTHORIZE_URL, GOOGLE_AUTHORIZE_URL) and what to ask it for. A browser is sent there with the OAuth 2.0 / OpenID Connect implicit grant '
      + '(`response_type`, `scope`, `client_id`, its own `redirect_uri`, a random `state`, and for Google a `nonce`), and posts the token the provider hands back to POST /api/auth/microsoft '
      + '(`access_token`) or POST /api/auth/google (`credential`). Empty when none is configured. Public, like the other sign-in routes.',
    responses: { 200: { description: 'the configured providers', schema: s.providersResponse } },
    handler: (ctx) => ({ providers: signInProviders(ctx.deps.sso) }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/auth/login', tag, permission: 'public', needsCache: false,
    summary: 'Sign in with e-mail and password',
    description: 'Returns a token, or `{status: select_account, accounts}` when the caller must choose an account (a superadmin without `account_id`, or an e-mail with users in several accounts). Wrong password and unknown e-mail answer the same 401.',
    body: s.loginBody,
    responses: { 200: { description: 'token or account choice', schema: s.tokenResponse }, ...errors(400, 401, 429) },
    handler: (ctx, { body }) => login(ctx, body),
  });

  defineRoute(table, {
    method: 'post', path: '/api/auth/microsoft', tag, permission: 'public', needsCache: false,
    summary: 'Sign in with a Microsoft access token',
    description: "The token is validated by calling the provider's profile endpoint (MICROSOFT_PROFILE_URL). Users must exist, unless the account auto-provisions the e-mail's domain.",
    body: s.microsoftBody,
    responses: { 200: { description: 'token or account choice', schema: s.tokenResponse }, ...errors(400, 401) },
    handler: async (ctx, { body }) => ssoLogin(ctx, 'microsoft', await microsoftProfile(ctx.deps.sso, body.access_token), body.account_id),
  });

  defineRoute(table, {
    method: 'post', path: '/api/auth/google', tag, permission: 'public', needsCache: false,
    summary: 'Sign in with a Google ID token',
    description: "The ID token's signature is verified against the provider's JWKS (GOOGLE_JWKS_URL); issuer and, when GOOGLE_CLIENT_ID is set, audience are checked.",
    body: s.googleBody,
    responses: { 200: { description: 'token or account choice', schema: s.tokenResponse }, ...errors(400, 401) },
    handler: async (ctx, { body }) => ssoLogin(ctx, 'google', await googleProfile(ctx.deps.sso, body.credential), body.account_id),
  });

  defineRoute(table, {
    method: 'post', path: '/api/auth/switch-account', tag, needsCache: false,
    summary: 'Get a token for another account',
    description: 'A superadmin may switch to any account; another user to an account where the same e-mail has an active user with the same sign-in provider.',
    body: s.switchBody, audit: { entityType: 'auth.session', action: 'switch_account' },
    responses: { 200: { description: 'new token', schema: s.tokenResponse }, ...errors(400, 401, 403) },
    handler: async (ctx, { body, user }) => {
      const account = await requireAccount(ctx.deps, body.account_id);
      if (user.isSuperadmin) {
        const sa = await getSuperadmin(ctx.deps.db, Number(user.id.split(':')[1]));
        if (!sa) throw unauthorized('User deactivated');
        return issueToken(ctx.deps.auth, identityOfSuperadmin(sa), account);
      }
      const target = await withTenant(ctx.deps.db, account.id, (tx) => findUserByEmail(tx, user.email));
      if (!target || !target.is_active || target.auth_provider !== user.authProvider) throw forbidden(`You have no access to account ${account.id}`);
      return issueToken(ctx.deps.auth, identityOfUser(target), account);
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/auth/me', tag, needsCache: false,
    summary: "The caller's profile and permissions",
    responses: { 200: { description: 'user', schema: s.userSchema }, ...errors(401) },
    handler: (_ctx, { user }) =>
      userView(
        {
          sub: user.id, email: user.email, name: user.name, role: user.role, authProvider: user.authProvider, isSuperadmin: user.isSuperadmin,
          canRunProcess: user.canRunProcess, canCreateOverride: user.canCreateOverride, allowedSegments: user.allowedSegments, allowedSegmentsEdit: user.allowedSegmentsEdit,
        },
        { id: user.accountId, name: user.accountName },
      ),
  });

  defineRoute(table, {
    method: 'get', path: '/api/auth/users', tag, permission: 'admin', needsCache: false,
    summary: 'Users of the account, active and deactivated',
    responses: { 200: { description: 'users', schema: { type: 'array', items: s.tenantUserSchema } }, ...errors(401, 403) },
    handler: async (ctx, { user }) => {
      const rows = await withTenant(ctx.deps.db, user.accountId, listUsers);
      return rows.map((u) => tenantUserView(u, { id: user.accountId, name: user.accountName }));
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/auth/users', tag, permission: 'admin', needsCache: false, status: 201,
    summary: 'Create a user', description: 'Local users need a password (8 to 128 characters); microsoft and google users take none.',
    body: s.createUserBody, audit: { entityType: 'user', action: 'create' },
    responses: { 201: { description: 'created user', schema: s.tenantUserSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body, user }) => {
      const provider = body.auth_provider ?? 'local';
      if (provider === 'local' && !body.password) throw badRequest('body.password is required for a local user');
      if (provider !== 'local' && body.password) throw badRequest(`body.password: a ${provider} user signs in through the provider and takes no password`);
      const passwordHash = body.password ? await hashPassword(body.password) : null;
      const created = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        if (await findUserByEmail(tx, body.email)) throw conflict(`body.email: a user with e-mail ${body.email.toLowerCase()} already exists`);
        const row = await insertUser(tx, {
          email: body.email, name: body.name, password_hash: passwordHash, role: body.role, auth_provider: provider,
          can_run_process: body.can_run_process, can_create_override: body.can_create_override,
          allowed_segments: body.allowed_segments ?? [], allowed_segments_edit: body.allowed_segments_edit ?? [],
        });
        await indexEmail(tx, row.email, user.accountId);
        return row;
      });
      const view = tenantUserView(created, { id: user.accountId, name: user.accountName });
      ctx.state.audit = { ...ctx.state.audit, entityId: created.id, newValue: view };
      return view;
    },
  });

  defineRoute(table, {
    method: 'put', path: '/api/auth/users/{id}', tag, permission: 'admin', needsCache: false,
    summary: 'Update a user', description: 'Same fields as create, all optional; `is_active: true` reactivates a deactivated user.',
    params: idParam(), body: s.updateUserBody, audit: { entityType: 'user', action: 'update' },
    responses: { 200: { description: 'updated user', schema: s.tenantUserSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const passwordHash = body.password ? await hashPassword(body.password) : undefined;
      const updated = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const old = await userOr404(tx, params.id);
        const provider = body.auth_provider ?? old.auth_provider;
        if (body.password && provider !== 'local') throw badRequest(`body.password: a ${provider} user takes no password`);
        if (body.email && body.email.toLowerCase() !== old.email) {
          const clash = await findUserByEmail(tx, body.email);
          if (clash) throw conflict(`body.email: a user with e-mail ${body.email.toLowerCase()} already exists`);
        }
        if (String(old.id) === user.id && (body.is_active === false || body.role === 'user')) {
          throw badRequest('You cannot deactivate or demote yourself');
        }
        const row = (await updateUser(tx, params.id, {
          email: body.email, name: body.name, role: body.role, auth_provider: body.auth_provider,
          password_hash: passwordHash ?? (provider !== 'local' ? null : undefined),
          can_run_process: body.can_run_process, can_create_override: body.can_create_override,
          allowed_segments: body.allowed_segments, allowed_segments_edit: body.allowed_segments_edit, is_active: body.is_active,
        }))!;
        await unindexEmail(tx, old.email, user.accountId);
        if (row.is_active) await indexEmail(tx, row.email, user.accountId);
        ctx.state.audit = { ...ctx.state.audit, entityId: row.id, oldValue: tenantUserView(old, { id: user.accountId, name: user.accountName }) };
        return row;
      });
      const view = tenantUserView(updated, { id: user.accountId, name: user.accountName });
      ctx.state.audit = { ...ctx.state.audit, newValue: view };
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/auth/users/{id}', tag, permission: 'admin', needsCache: false,
    summary: 'Deactivate a user', description: 'Users are never deleted: the row stays, sign-in and existing tokens stop working.',
    params: idParam(), audit: { entityType: 'user', action: 'deactivate' },
    responses: { 200: { description: 'deactivated', schema: { ...okSchema, properties: { ...(okSchema as any).properties, user: s.tenantUserSchema } } }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      if (String(params.id) === user.id) throw badRequest('You cannot deactivate yourself');
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const old = await userOr404(tx, params.id);
        const r = (await updateUser(tx, params.id, { is_active: false }))!;
        await unindexEmail(tx, old.email, user.accountId);
        ctx.state.audit = { ...ctx.state.audit, entityId: old.id, oldValue: { is_active: old.is_active }, newValue: { is_active: false } };
        return r;
      });
      return { status: 'deactivated', user: tenantUserView(row, { id: user.accountId, name: user.accountName }) };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/auth/change-password', tag, needsCache: false,
    summary: "Change the caller's password",
    description: 'Local accounts only. The current password may be sent as `current_password` or `old_password`. A superadmin changes the master record password.',
    body: s.changePasswordBody, audit: { entityType: 'user', action: 'change_password' },
    responses: { 200: { description: 'changed', schema: okSchema }, ...errors(400, 401) },
    handler: async (ctx, { body, user }) => {
      const current = body.current_password ?? body.old_password;
      if (!current) throw badRequest('body.current_password is required');
      if (user.authProvider !== 'local') throw badRequest(`Password change is only possible for local accounts; this user signs in with ${user.authProvider}`);
      const newHash = await hashPassword(body.new_password);
      ctx.state.audit = { ...ctx.state.audit, entityId: user.id, newValue: null };
      if (user.isSuperadmin) {
        const sa = await getSuperadmin(ctx.deps.db, Number(user.id.split(':')[1]));
        if (!sa || !(await checkPassword(current, sa.password_hash))) throw badRequest('current_password is incorrect');
        await ctx.deps.db.transaction((tx) => setSuperadminPassword(tx, sa.id, newHash));
        return { status: 'ok', detail: 'Password changed' };
      }
      await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const u = await userOr404(tx, Number(user.id));
        if (!(await checkPassword(current, u.password_hash))) throw badRequest('current_password is incorrect');
        await updateUser(tx, u.id, { password_hash: newHash });
      });
      return { status: 'ok', detail: 'Password changed' };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/auth/logout', tag, needsCache: false,
    summary: "Revoke the caller's token", description: 'The token id (`jti`) is recorded as revoked; logging out twice is harmless.',
    audit: { entityType: 'auth.session', action: 'logout' },
    responses: { 200: { description: 'revoked', schema: okSchema }, ...errors(401) },
    handler: async (ctx, { user }) => {
      await revokeToken(ctx.deps.db, user.jti, user.accountId, user.exp);
      ctx.state.audit = { ...ctx.state.audit, entityId: user.id, newValue: null };
      return { status: 'logged_out' };
    },
  });
}
