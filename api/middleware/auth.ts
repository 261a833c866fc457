import type Koa from 'koa';
import koaJwt from 'koa-jwt';
import { getAccount } from '../../db/accounts';
import type { Db } from '../../db/pool';
import { isTokenRevoked } from '../../db/tokens';
import { getSuperadmin, getUser } from '../../db/users';
import { withTenant } from '../../db/pool';
import type { AppContext, AuthUser } from '../context';
import { unauthorized } from '../errors';
import type { AuthSettings } from '../auth/settings';

/** Spec §5.5, exactly: these paths need no token. */
export const PUBLIC_EXACT = ['/', '/docs', '/openapi.json', '/redoc'];
export const PUBLIC_PREFIXES = ['/api/auth/login', '/api/auth/microsoft', '/api/auth/google', '/api/auth/probe'];

export const isPublicPath = (path: string): boolean =>
  PUBLIC_EXACT.includes(path) || PUBLIC_PREFIXES.some((p) => path.startsWith(p));

/**
 * koa-jwt verifies the signature (HS256 only), expiry and revocation; then the user is re-read from the database
 * so that a deactivated user or a changed permission takes effect at once, not when the token expires.
 */
export function authMiddleware(db: Db, settings: AuthSettings, eventStreams: () => RegExp[]): Koa.Middleware[] {
  const verify = koaJwt({
    secret: async () => settings.secret(),
    algorithms: ['HS256'],
    key: 'token',
    debug: true,
    getToken: (ctx: Koa.Context) => {
      const header = ctx.headers.authorization;
      if (header) {
        const m = /^Bearer\s+(\S+)$/i.exec(header);
        if (!m) throw unauthorized('Invalid Authorization header: expected "Bearer <token>"');
        return m[1];
      }
      const q = ctx.query.token;
      if (typeof q === 'string' && eventStreams().some((re) => re.test(ctx.path))) return q;
      return null;
    },
    isRevoked: async (_ctx: Koa.Context, decoded: any) => {
      if (typeof decoded?.jti !== 'string' || !/^[0-9a-f-]{36}$/i.test(decoded.jti)) return true;
      return isTokenRevoked(db, decoded.jti);
    },
  } as any).unless({ custom: (ctx: Koa.Context) => isPublicPath(ctx.path) || ctx.method === 'OPTIONS' });

  const loadUser: Koa.Middleware = async (rawCtx, next) => {
    const ctx = rawCtx as unknown as AppContext;
    const token = ctx.state.token as Record<string, any> | undefined;
    if (token) ctx.state.user = await currentUser(db, token);
    await next();
  };
  return [verify as Koa.Middleware, loadUser];
}

async function currentUser(db: Db, t: Record<string, any>): Promise<AuthUser> {
  const accountId = String(t.account_id ?? '');
  if (!/^[0-9a-f-]{36}$/i.test(accountId)) throw unauthorized('Invalid token: no account');
  const account = await getAccount(db, accountId);
  if (!account) throw unauthorized('Invalid token: account no longer exists');
  const base = { accountId, accountName: account.name, jti: String(t.jti), exp: Number(t.exp) };
  const sub = String(t.sub ?? '');
  if (sub.startsWith('superadmin:')) {
    const sa = await getSuperadmin(db, Number(sub.slice('superadmin:'.length)));
    if (!sa) throw unauthorized('Invalid token: user deactivated');
    return {
      ...base, id: sub, email: sa.email, name: sa.name, role: 'superadmin', authProvider: 'local', isSuperadmin: true,
      canRunProcess: true, canCreateOverride: true, allowedSegments: [], allowedSegmentsEdit: [],
    };
  }
  const userId = Number(sub);
  if (!Number.isInteger(userId)) throw unauthorized('Invalid token: bad subject');
  const u = await withTenant(db, accountId, (tx) => getUser(tx, userId));
  if (!u || !u.is_active) throw unauthorized('Invalid token: user deactivated');
  return {
    ...base, id: String(u.id), email: u.email, name: u.name, role: u.role, authProvider: u.auth_provider, isSuperadmin: false,
    canRunProcess: u.can_run_process, canCreateOverride: u.can_create_override,
    allowedSegments: u.allowed_segments, allowedSegmentsEdit: u.allowed_segments_edit,
  };
}
