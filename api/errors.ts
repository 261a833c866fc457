/** Errors a handler throws to answer with a status and `{detail}`; anything else becomes a 500 without internals. */
export class HttpError extends Error {
  constructor(
    public readonly status: number,
    public readonly detail: string,
    public readonly headers: Record<string, string> = {},
  ) {
    // An answer, not a fault: no stack is captured. slonik serialises every error that rolls a transaction back,
    // stack included, and formatting it was a fifth of the CPU of answering a 404.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail);
    Error.stackTraceLimit = limit;
  }
}

export const badRequest = (detail: string) => new HttpError(400, detail);
export const unauthorized = (detail = 'Not authenticated') => new HttpError(401, detail, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (detail: string) => new HttpError(403, detail);
export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
export const unavailable = (detail: string, retryAfterSeconds = 10) =>
  new HttpError(503, detail, { 'Retry-After': String(retryAfterSeconds) });

export const ADMIN_REQUIRED = 'Admin privileges required (role admin or superadmin)';
