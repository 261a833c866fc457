import type Koa from 'koa';

/**
 * @koa/bodyparser's `onError`: a body that cannot be parsed (malformed JSON, a `__proto__` key, too large) is kept
 * until auth has run and the audit middleware can record the refusal; auditMiddleware rethrows it. Thrown at once,
 * it would pass auth and audit by, and a signed-in user's refused request would leave no audit row.
 */
export function deferBodyError(err: unknown, ctx: Koa.Context): void {
  ctx.state.bodyError = err;
}

export function rethrowBodyError(ctx: Koa.Context): void {
  const err = ctx.state.bodyError;
  if (err === undefined) return;
  ctx.state.bodyError = undefined;
  throw err;
}
