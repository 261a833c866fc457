import type { KeyObject } from 'node:crypto';
import type Koa from 'koa';
import koaJwt from 'koa-jwt';
import { authLookup, TOKEN_ID } from '../../db/authLookup';
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
const MAX_INT4 = 2147483647;

/** Tokens whose signature has been verified, per app; bounded so that a flood of distinct tokens cannot grow it. */
const MAX_VERIFIED_TOKENS = 10_000;

/** What a verified token asks the database (db/authLookup.ts), worked out once per token. */
interface Claims {
  token: Record<string, unknown>;
  jti: string;
  accountId: string;
  /** the account id is not one: no statement, only the revocation list */
  noAccount: boolean;
  sub: string;
  superadminId: number | undefined;
  userId: number | undefined;
  exp: number;
}

interface Verified {
  /** the signing key it verified against: a changed jwt_secret makes a different KeyObject, so the entry no longer counts */
  key: KeyObject;
  claims: Claims;
}

/** jsonwebtoken's rule: expired from the second `exp` names on (no clock tolerance is configured). */
const expired = (token: Record<string, unknown>) => typeof token.exp === 'number' && Math.floor(Date.now() / 1000) >= token.exp;

const int4 = (n: number | undefined) => (n !== undefined && Number.isInteger(n) && Math.abs(n) <= MAX_INT4 ? n : undefined);

function claimsOf(t: Record<string, any>): Claims {
  const sub = String(t.sub ?? '');
  const superadminId = sub.startsWith('superadmin:') ? Number(sub.slice('superadmin:'.length)) : undefined;
  const accountId = String(t.account_id ?? '');
  return {
    token: t, jti: String(t.jti), accountId, noAccount: !UUID.test(accountId), sub, superadminId,
    userId: superadminId === undefined ? Number(sub) : undefined, exp: Number(t.exp),
  };
}

/**
 * koa-jwt verifies the signature (HS256 only) and expiry; then one statement (db/authLookup.ts) checks revocation and
 * re-reads the account and the user, so that a revoked token, a deactivated user or a changed permission takes effect
 * at once, not when the token expires. The same statement reads the tenant's data version for the in-memory reads.
 *
 * A token's signature is verified once per signing key: a client sends the same token with every request, and what a
 * signature proves cannot change, whereas decoding, verifying and koa-jwt's promise machinery cost more than the rest
 * of a small request (bench:api). What can change is checked on every request all the same: expiry here (a known
 * token that has expired goes through koa-jwt again, which refuses it), revocation, account and user in the statement.
 */
export function authMiddleware(db: Db, databaseUrl: string, settings: AuthSettings, eventStreams: () => RegExp[]): Koa.Middleware[] {
  const tokenOf = (ctx: Koa.Context): string | null => {
    const header = ctx.headers.authorization;
    if (header) {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      if (!m) throw unauthorized('Invalid Authorization header: expected "Bearer <token>"');
      return m[1];
    }
    const q = ctx.query.token;
    if (typeof q === 'string' && eventStreams().some((re) => re.test(ctx.path))) return q;
    return null;
  };
  const koaJwtVerify = koaJwt({
    secret: async () => settings.secretKey(),
    algorithms: ['HS256'],
    key: 'token',
    debug: true,
    getToken: tokenOf,
    // the revocation list itself is read with the user, in the same round trip
    isRevoked: async (_ctx: Koa.Context, decoded: any) => typeof decoded?.jti !== 'string' || !TOKEN_ID.test(decoded.jti),
  } as any) as Koa.Middleware;
  const verified = new Map<string, Verified>();

  /** koa-jwt's answer for a token not verified yet (or a request without one: its 401) */
  const verifyToken = async (ctx: Koa.Context, token: string | null, key: KeyObject): Promise<Claims> => {
    await koaJwtVerify(ctx, async () => undefined);
    const claims = claimsOf(ctx.state.token as Record<string, unknown>);
    if (token) {
      if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
      verified.set(token, { key, claims });
    }
    return claims;
  };

  const authenticate: Koa.Middleware = async (rawCtx, next) => {
    if (isPublicPath(rawCtx.path) || rawCtx.method === 'OPTIONS') return next();
    const ctx = rawCtx as unknown as AppContext;
    const token = tokenOf(rawCtx);
    const key = settings.currentKey() ?? (await settings.secretKey());
    const known = token === null ? undefined : verified.get(token);
    let claims: Claims;
    if (known && known.key === key && !expired(known.claims.token)) {
      claims = known.claims;
    } else {
      if (known) verified.delete(token!);
      claims = await verifyToken(rawCtx, token, key);
    }
    ctx.state.token = claims.token;
    const { user, dataVersion, planVersion } = await currentUser(db, databaseUrl, claims);
    ctx.state.user = user;
    ctx.state.dataVersion = dataVersion;
    ctx.state.planVersion = planVersion;
    return next();
  };
  return [authenticate];
}

async function currentUser(db: Db, databaseUrl: string, c: Claims): Promise<{ user: AuthUser; dataVersion: number | undefined; planVersion: number | undefined }> {
  if (c.noAccount) {
    if (await isTokenRevoked(db, c.jti)) throw unauthorized('Token revoked');
    throw unauthorized('Invalid token: no account');
  }
  const found = await authLookup(db, databaseUrl, { accountId: c.accountId, jti: c.jti, userId: int4(c.userId), superadminId: int4(c.superadminId) });
  if (found.revoked) throw unauthorized('Token revoked');
  if (found.account_name === null) throw unauthorized('Invalid token: account no longer exists');
  const dataVersion = found.data_version ?? undefined;
  const planVersion = found.plan_version ?? undefined;
  // one literal per kind, without spreading a shared part into it: V8 builds these in a fraction of the time
  if (c.superadminId !== undefined) {
    const sa = found.superadmin;
    if (!sa) throw unauthorized('Invalid token: user deactivated');
    return {
      dataVersion,
      planVersion,
      user: {
        accountId: c.accountId, accountName: found.account_name, jti: c.jti, exp: c.exp,
        id: c.sub, email: sa.email, name: sa.name, role: 'superadmin', authProvider: 'local', isSuperadmin: true,
        canRunProcess: true, canCreateOverride: true, allowedSegments: [], allowedSegmentsEdit: [],
      },
    };
  }
  if (!Number.isInteger(c.userId)) throw unauthorized('Invalid token: bad subject');
  const u = found.user;
  if (!u || !u.is_active) throw unauthorized('Invalid token: user deactivated');
  return {
    dataVersion,
    planVersion,
    user: {
      accountId: c.accountId, accountName: found.account_name, jti: c.jti, exp: c.exp,
      id: String(u.id), email: u.email, name: u.name, role: u.role, authProvider: u.auth_provider, isSuperadmin: false,
      canRunProcess: u.can_run_process, canCreateOverride: u.can_create_override,
      allowedSegments: u.allowed_segments, allowedSegmentsEdit: u.allowed_segments_edit,
    },
  };
}
