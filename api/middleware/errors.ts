import type Koa from 'koa';
import { isDatabaseUnavailable } from '../../db/pool';
import { logger } from '../../lib/logger';
import { HttpError } from '../errors';

/** Seconds a client is told to wait when PostgreSQL cannot be reached: about what a restart of it takes. */
export const DATABASE_RETRY_AFTER_S = 5;
export const DATABASE_UNAVAILABLE = 'Database unavailable; retry after the Retry-After seconds';

/** Every failure leaves as `{detail}`; unexpected errors are logged with their stack and answered without it. */
export function errorMiddleware(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 501 && ctx.body === undefined) answerUnknownMethod(ctx);
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { detail: `Not found: ${ctx.method} ${ctx.path}` };
      } else if (ctx.status === 405 && (ctx.body === undefined || typeof ctx.body === 'string')) {
        ctx.body = { detail: `Method ${ctx.method} not allowed on ${ctx.path}` };
      }
    } catch (err: any) {
      const answer = errorAnswer(err);
      if (answer.log) logger[answer.log]({ err, method: ctx.method, path: ctx.path }, answer.log === 'error' ? 'unhandled error' : answer.status === 503 ? 'database unavailable' : 'client error without a public message');
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = { detail: answer.detail };
      if (!(err instanceof HttpError)) ctx.state.error = err;
    }
  };
}

export interface ErrorAnswer {
  status: number;
  detail: string;
  headers: Record<string, string>;
  log?: 'warn' | 'error';
}

/** The status and `{detail}` a thrown error is answered with; the audit middleware records the same. */
export function errorAnswer(err: any): ErrorAnswer {
  if (err instanceof HttpError) return { status: err.status, detail: err.detail, headers: err.headers };
  // Before the status checks: koa-jwt wraps a failed revocation lookup in a 401, which would log the user out.
  if (isDatabaseUnavailable(err)) return { status: 503, detail: DATABASE_UNAVAILABLE, headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_S) }, log: 'warn' };
  // koa-jwt and the body parser throw http-errors with a status; koa-jwt's are always 401.
  const status = typeof err?.status === 'number' ? err.status : typeof err?.statusCode === 'number' ? err.statusCode : 500;
  if (status === 401) return { status, detail: describeAuthError(err), headers: { 'WWW-Authenticate': 'Bearer' } };
  if (status === 400 && err instanceof SyntaxError && /forbidden prototype property/.test(err.message)) {
    // @hapi/bourne, under the body parser, refuses `__proto__` keys before the route's validation could name them.
    return { status, detail: "body: key '__proto__' is not allowed", headers: {} };
  }
  if (status === 400 && (err.type === 'entity.parse.failed' || /JSON|parse/i.test(String(err.message)))) return { status, detail: 'body: malformed JSON', headers: {} };
  if (status === 413) return { status, detail: 'body: request body too large', headers: {} };
  if (status === 415) return { status, detail: 'body: unsupported content type; send application/json', headers: {} };
  if (status >= 400 && status < 500 && err.expose) return { status, detail: String(err.message), headers: {} };
  // a client error whose message is not meant for clients is still the client's error, never a 500
  if (status >= 400 && status < 500) return { status, detail: status === 400 ? 'Bad request' : `Request refused (${status})`, headers: {}, log: 'warn' };
  const code = status > 500 && status < 600 ? status : 500;
  return { status: code, detail: code === 503 ? 'Service unavailable: the database cannot be reached' : 'Internal server error', headers: {}, log: 'error' };
}

/**
 * The router's allowedMethods answers 501 to a method it has no routes for at all (TRACE, PROPFIND, ...), on known
 * and unknown paths alike. For a client that is the same mistake as PATCH on a GET-only path: 405 with the path's
 * methods in `Allow`, and 404 where the path does not exist. No handler sets 501 itself.
 */
function answerUnknownMethod(ctx: Koa.Context): void {
  const allow = String(ctx.response.get('Allow') ?? '');
  if (allow) {
    ctx.status = 405;
  } else {
    ctx.remove('Allow');
    ctx.status = 404;
  }
}

function describeAuthError(err: any): string {
  const inner = err?.originalError;
  if (inner?.name === 'TokenExpiredError') return 'Token expired';
  if (err?.message === 'Token revoked') return 'Token revoked';
  if (err?.message === 'Token not found') return 'Not authenticated: missing bearer token';
  if (typeof err?.detail === 'string') return err.detail;
  return 'Invalid token';
}
