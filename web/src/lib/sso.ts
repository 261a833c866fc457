/**
 * Single sign-on in the browser, the OAuth 2.0 / OpenID Connect implicit grant: the login page sends the browser to
 * the provider's authorize endpoint (GET /api/auth/login/providers says which and where), the provider sends it back
 * to /app/sso/callback with its token in the URL fragment (never sent to a server), and the callback posts that token
 * to the API, which checks it with the provider. Nothing of the provider's is loaded into the page.
 */
export type SsoProviderId = 'microsoft' | 'google';

export interface SsoProvider {
  id: SsoProviderId;
  label: string;
  authorize_url: string;
  client_id: string;
  response_type: 'token' | 'id_token';
  scope: string;
}

/** What the login page remembers across the round trip: which provider, and the values the answer must carry back. */
export interface SsoAttempt {
  provider: SsoProviderId;
  response_type: SsoProvider['response_type'];
  state: string;
  nonce: string;
}

export const SSO_CALLBACK_PATH = '/app/sso/callback';

export function authorizeUrl(p: SsoProvider, redirectUri: string, attempt: Pick<SsoAttempt, 'state' | 'nonce'>): string {
  const url = new URL(p.authorize_url);
  url.searchParams.set('client_id', p.client_id);
  url.searchParams.set('response_type', p.response_type);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', p.scope);
  url.searchParams.set('response_mode', 'fragment');
  url.searchParams.set('state', attempt.state);
  url.searchParams.set('nonce', attempt.nonce);
  return url.toString();
}

/** The claims part of a JWT, unverified: only to compare the nonce; the API verifies the signature. */
function jwtClaims(jwt: string): Record<string, unknown> | null {
  const part = jwt.split('.')[1];
  if (!part) return null;
  try {
    const b64 = part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '=');
    const json = new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
    const claims = JSON.parse(json) as unknown;
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export type CallbackResult = { ok: true; provider: SsoProviderId; token: string } | { ok: false; reason: string };

/**
 * Reads the provider's answer from the callback's fragment and holds it to the attempt this tab started: the same
 * `state` (so a link someone else made cannot sign this tab in), the token the attempt asked for, and for an ID token
 * the attempt's `nonce` (so an old token cannot be replayed).
 */
export function readCallback(hash: string, attempt: SsoAttempt | null): CallbackResult {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const error = params.get('error');
  if (error) return { ok: false, reason: `The provider refused the sign-in: ${params.get('error_description') || error}` };
  if (!attempt) return { ok: false, reason: 'No sign-in was started in this tab: start again from the sign-in page.' };
  if (!params.get('state') || params.get('state') !== attempt.state) return { ok: false, reason: 'The answer does not belong to the sign-in started here: start again.' };
  const token = params.get(attempt.response_type === 'token' ? 'access_token' : 'id_token');
  if (!token) return { ok: false, reason: 'The provider sent no token.' };
  if (attempt.response_type === 'id_token' && jwtClaims(token)?.nonce !== attempt.nonce) return { ok: false, reason: 'The ID token was not issued for this sign-in: start again.' };
  return { ok: true, provider: attempt.provider, token };
}
