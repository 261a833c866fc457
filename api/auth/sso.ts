import type { SsoSettings } from '../context';
import { unauthorized } from '../errors';

export interface SsoProfile {
  email: string;
  name: string;
}

/** Microsoft: the access token is only trusted if the provider's profile endpoint accepts it. */
export async function microsoftProfile(settings: SsoSettings, accessToken: string): Promise<SsoProfile> {
  let res: Response;
  try {
    res = await fetch(settings.microsoftProfileUrl, { headers: { Authorization: `Bearer ${accessToken}` }, signal: AbortSignal.timeout(10000) });
  } catch {
    throw unauthorized('Microsoft identity provider could not be reached to validate the token');
  }
  if (!res.ok) throw unauthorized('Microsoft access token rejected by the identity provider');
  const profile = (await res.json()) as { mail?: string | null; userPrincipalName?: string; displayName?: string };
  const email = profile.mail || profile.userPrincipalName;
  if (!email || !email.includes('@')) throw unauthorized('Microsoft profile carries no e-mail address');
  return { email: email.toLowerCase(), name: profile.displayName || email };
}

type JoseModule = typeof import('jose');
let jose: Promise<JoseModule> | undefined;
const jwksByUrl = new Map<string, ReturnType<JoseModule['createRemoteJWKSet']>>();

/** Google: the ID token's RS256 signature is verified against the provider's published keys (JWKS). */
export async function googleProfile(settings: SsoSettings, credential: string): Promise<SsoProfile> {
  jose ??= import('jose');
  const { createRemoteJWKSet, jwtVerify } = await jose;
  let jwks = jwksByUrl.get(settings.googleJwksUrl);
  if (!jwks) {
    jwks = createRemoteJWKSet(new URL(settings.googleJwksUrl));
    jwksByUrl.set(settings.googleJwksUrl, jwks);
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(credential, jwks, {
      algorithms: ['RS256', 'ES256'],
      issuer: ['https://accounts.google.com', 'accounts.google.com'],
      ...(settings.googleClientId ? { audience: settings.googleClientId } : {}),
    }));
  } catch {
    throw unauthorized('Google ID token could not be verified');
  }
  const email = typeof payload.email === 'string' ? payload.email.toLowerCase() : undefined;
  if (!email || payload.email_verified === false) throw unauthorized('Google ID token carries no verified e-mail address');
  return { email, name: typeof payload.name === 'string' ? payload.name : email };
}

export interface SignInProvider {
  id: 'microsoft' | 'google';
  label: string;
  authorize_url: string;
  client_id: string;
  /** the implicit grant's answer: Microsoft's access token (checked at the Graph profile), Google's ID token */
  response_type: 'token' | 'id_token';
  scope: string;
}

/**
 * The identity providers a browser may sign in with: those whose client id the server has. Their answer (an access
 * token or ID token in the redirect's fragment) is posted to POST /api/auth/microsoft or /api/auth/google, which
 * check it with the provider as before; nothing here is a secret.
 */
export function signInProviders(settings: SsoSettings): SignInProvider[] {
  const providers: SignInProvider[] = [];
  if (settings.microsoftClientId && settings.microsoftAuthorizeUrl) {
    providers.push({ id: 'microsoft', label: 'Sign in with Microsoft', authorize_url: settings.microsoftAuthorizeUrl, client_id: settings.microsoftClientId, response_type: 'token', scope: 'openid profile email User.Read' });
  }
  if (settings.googleClientId && settings.googleAuthorizeUrl) {
    providers.push({ id: 'google', label: 'Sign in with Google', authorize_url: settings.googleAuthorizeUrl, client_id: settings.googleClientId, response_type: 'id_token', scope: 'openid email profile' });
  }
  return providers;
}
