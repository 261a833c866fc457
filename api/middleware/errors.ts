import type Koa from 'koa';
import { logger } from '../../lib/logger';
import { HttpError } from '../errors';

/** Every failure leaves as `{detail}`; unexpected errors are logged with their stack and answered without it. */
export function errorMiddleware(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { detail: `Not found: ${ctx.method} ${ctx.path}` };
      } else if (ctx.status === 405 && (ctx.body === undefined || typeof ctx.body === 'string')) {
        ctx.body = { detail: `Method ${ctx.method} not allowed on ${ctx.path}` };
      }
    } catch (err: any) {
      if (err instanceof HttpError) {
        ctx.status = err.status;
        ctx.set(err.headers);
        ctx.body = { detail: err.detail };
        return;
      }
      // koa-jwt and the body parser throw http-errors with a status; koa-jwt's are always 401.
      const status = typeof err?.status === 'number' ? err.status : typeof err?.statusCode === 'number' ? err.statusCode : 500;
      if (status === 401) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer');
        ctx.body = { detail: describeAuthError(err) };
      } else if (status === 400 && (err.type === 'entity.parse.failed' || /JSON|parse/i.test(String(err.message)))) {
        ctx.status = 400;
        ctx.body = { detail: 'body: malformed JSON' };
      } else if (status === 413) {
        ctx.status = 413;
        ctx.body = { detail: 'body: request body too large' };
      } else if (status === 415) {
        ctx.status = 415;
        ctx.body = { detail: 'body: unsupported content type; send application/json' };
      } else if (status >= 400 && status < 500 && err.expose) {
        ctx.status = status;
        ctx.body = { detail: String(err.message) };
      } else {
        logger.error({ err, method: ctx.method, path: ctx.path }, 'unhandled error');
        ctx.status = status >= 500 && status < 600 && status !== 500 ? status : 500;
        ctx.body = { detail: ctx.status === 503 ? 'Service unavailable: the database cannot be reached' : 'Internal server error' };
      }
      ctx.state.error = err;
    }
  };
}

function describeAuthError(err: any): string {
  const inner = err?.originalError;
  if (inner?.name === 'TokenExpiredError') return 'Token expired';
  if (err?.message === 'Token revoked') return 'Token revoked';
  if (err?.message === 'Token not found') return 'Not authenticated: missing bearer token';
  if (typeof err?.detail === 'string') return err.detail;
  return 'Invalid token';
}
