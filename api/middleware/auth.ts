import type Koa from 'koa';
import koaJwt from 'koa-jwt';
import { authLookup } from '../../db/authLookup';
import { isTokenRevoked } from '../../db/tokens';
import type { Db } from '../../db/pool';
import type { AppContext, AuthUser } from '../context';
import { unauthorized } from '../errors';
import type { AuthSettings } from '../auth/settings';

/** Spec §5.5, exactly: these paths need no token. */
export const PUBLIC_EXACT = ['/', '/docs', '/openapi.json', '/redoc'];
export const PUBLIC_PREFIXES = ['/api/auth/login', '/api/auth/microsoft', '/api/auth/google', '/api/auth/probe'];

export const isPublicPath = (path: string): boolean =>
  PUBLIC_EXACT.includes(path) || PUBLIC_PREFIXES.some((p) => path.startsWith(p));

const UUID = /^[0-9a-f-]{36}$/i;

/**
 * koa-jwt verifies the signature (HS256 only) and expiry; then one statement (db/authLookup.ts) checks revocation and
 * re-reads the account and the user, so that a revoked token, a deactivated user or a changed permission takes effect
 * at once, not when the token expires. The same statement reads the tenant's data version for the in-memory reads.
 */
export function authMiddleware(db: Db, databaseUrl: string, settings: AuthSettings, eventStreams: () => RegExp[]): Koa.Middleware[] {
  const verify = koaJwt({
    secret: async () => settings.secretKey(),
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
    // the revocation list itself is read with the user (loadUser), in the same round trip
    isRevoked: async (_ctx: Koa.Context, decoded: any) => typeof decoded?.jti !== 'string' || !UUID.test(decoded.jti),
  } as any).unless({ custom: (ctx: Koa.Context) => isPublicPath(ctx.path) || ctx.method === 'OPTIONS' });

  const loadUser: Koa.Middleware = async (rawCtx, next) => {
    const ctx = rawCtx as unknown as AppContext;
    const token = ctx.state.token as Record<string, any> | undefined;
    if (token) {
      const { user, dataVersion } = await currentUser(db, databaseUrl, token);
      ctx.state.user = user;
      ctx.state.dataVersion = dataVersion;
    }
    await next();
  };
  return [verify as Koa.Middleware, loadUser];
}

async function currentUser(db: Db, databaseUrl: string, t: Record<string, any>): Promise<{ user: AuthUser; dataVersion: number | undefined }> {
  const jti = String(t.jti);
  const accountId = String(t.account_id ?? '');
  if (!UUID.test(accountId)) {
    if (await isTokenRevoked(db, jti)) throw unauthorized('Token revoked');
    throw unauthorized('Invalid token: no account');
  }
  const sub = String(t.sub ?? '');
  const superadminId = sub.startsWith('superadmin:') ? Number(sub.slice('superadmin:'.length)) : undefined;
  const userId = superadminId === undefined ? Number(sub) : undefined;
  const found = await authLookup(db, databaseUrl, {
    accountId, jti,
    userId: userId !== undefined && Number.isInteger(userId) && Math.abs(userId) <= 2147483647 ? userId : undefined,
    superadminId: superadminId !== undefined && Number.isInteger(superadminId) && Math.abs(superadminId) <= 2147483647 ? superadminId : undefined,
  });
  if (found.revoked) throw unauthorized('Token revoked');
  if (found.account_name === null) throw unauthorized('Invalid token: account no longer exists');
  const base = { accountId, accountName: found.account_name, jti, exp: Number(t.exp) };
  const dataVersion = found.data_version ?? undefined;
  if (superadminId !== undefined) {
    const sa = found.superadmin;
    if (!sa) throw unauthorized('Invalid token: user deactivated');
    return {
      dataVersion,
      user: {
        ...base, id: sub, email: sa.email, name: sa.name, role: 'superadmin', authProvider: 'local', isSuperadmin: true,
        canRunProcess: true, canCreateOverride: true, allowedSegments: [], allowedSegmentsEdit: [],
      },
    };
  }
  if (!Number.isInteger(userId)) throw unauthorized('Invalid token: bad subject');
  const u = found.user;
  if (!u || !u.is_active) throw unauthorized('Invalid token: user deactivated');
  return {
    dataVersion,
    user: {
      ...base, id: String(u.id), email: u.email, name: u.name, role: u.role, authProvider: u.auth_provider, isSuperadmin: false,
      canRunProcess: u.can_run_process, canCreateOverride: u.can_create_override,
      allowedSegments: u.allowed_segments, allowedSegmentsEdit: u.allowed_segments_edit,
    },
  };
}
