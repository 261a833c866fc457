import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { currentToken, expireSession } from '../session/store';

/** Every call goes to the API that served the app (same origin), typed by the routes' own OpenAPI. */
export const api = createClient<paths>({ baseUrl: window.location.origin });

/** The token travels in the Authorization header only, never in a URL. */
const auth: Middleware = {
  onRequest({ request }) {
    const token = currentToken();
    if (token) request.headers.set('Authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ response, request }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/auth/login')) expireSession();
    return response;
  },
};
api.use(auth);

export class ApiError extends Error {
  constructor(public readonly status: number, detail: string) {
    super(detail);
  }
}

/** openapi-fetch's answer as data or a thrown ApiError carrying the API's {detail}, for TanStack Query. */
export function must<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.error !== undefined || r.data === undefined) {
    const detail = (r.error as { detail?: string } | undefined)?.detail ?? `${r.response.status} ${r.response.statusText}`;
    throw new ApiError(r.response.status, detail);
  }
  return r.data;
}
