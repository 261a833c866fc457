import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * Plays Microsoft Graph (`GET /v1.0/me` with a bearer token) and Google's JWKS endpoint on loopback,
 * with keys generated per run: the only third parties the auth tests cannot run for real. For the workbench's
 * sign-in buttons it also plays both authorize endpoints of the implicit grant: a browser sent there is signed in
 * at once as the person `signInAs` names (a real provider would ask first) and sent back to its redirect_uri with
 * an access token (Microsoft, good at the fake Graph) or a signed ID token carrying the request's nonce (Google).
 */
export interface AuthorizeRequest {
  provider: 'microsoft' | 'google';
  params: Record<string, string>;
}

export interface FakeProviders {
  microsoftProfileUrl: string;
  googleJwksUrl: string;
  microsoftAuthorizeUrl: string;
  googleAuthorizeUrl: string;
  /** who the authorize endpoints sign in; unset: they answer 403 */
  signInAs: { microsoft?: { mail: string; displayName: string }; google?: { email: string; name: string } };
  /** every authorize request, as the browser sent it */
  authorizeRequests: AuthorizeRequest[];
  microsoftTokens: Map<string, { mail?: string | null; userPrincipalName?: string; displayName?: string }>;
  signGoogle(claims: Record<string, unknown>, opts?: { expiresIn?: string; issuer?: string; audience?: string; foreignKey?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeProviders(audience = 'test-client-id', microsoftClientId = 'test-microsoft-client-id'): Promise<FakeProviders> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const microsoftTokens = new Map<string, { mail?: string | null; userPrincipalName?: string; displayName?: string }>();
  const signInAs: FakeProviders['signInAs'] = {};
  const authorizeRequests: AuthorizeRequest[] = [];
  const signGoogle = (claims: Record<string, unknown>, o: { expiresIn?: string; issuer?: string; audience?: string; foreignKey?: boolean } = {}) => new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' })
    .setIssuer(o.issuer ?? 'https://accounts.google.com')
    .setAudience(o.audience ?? audience)
    .setIssuedAt()
    .setExpirationTime(o.expiresIn ?? '1h')
    .sign(o.foreignKey ? foreign.privateKey : privateKey);

  /** The implicit grant's answer: back to redirect_uri with the token (or an error) in the fragment. */
  async function authorize(provider: 'microsoft' | 'google', url: URL, res: http.ServerResponse): Promise<void> {
    const params = Object.fromEntries(url.searchParams);
    authorizeRequests.push({ provider, params });
    const expected = provider === 'microsoft' ? { client_id: microsoftClientId, response_type: 'token' } : { client_id: audience, response_type: 'id_token' };
    const problem = !params.redirect_uri ? 'no redirect_uri' : params.client_id !== expected.client_id ? 'unknown client_id'
      : params.response_type !== expected.response_type ? 'unsupported response_type' : !params.state ? 'no state' : provider === 'google' && !params.nonce ? 'no nonce' : null;
    if (problem) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end(problem);
      return;
    }
    const answer = new URLSearchParams({ state: params.state });
    const person = signInAs[provider];
    if (!person) {
      answer.set('error', 'access_denied');
      answer.set('error_description', 'the user declined');
    } else if (provider === 'microsoft') {
      const token = `ms-${crypto.randomBytes(12).toString('hex')}`;
      microsoftTokens.set(token, signInAs.microsoft!);
      answer.set('access_token', token);
      answer.set('token_type', 'Bearer');
    } else {
      const p = signInAs.google!;
      answer.set('id_token', await signGoogle({ email: p.email, email_verified: true, name: p.name, nonce: params.nonce }));
    }
    res.writeHead(302, { Location: `${params.redirect_uri}#${answer}` }).end();
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname === '/oauth2/v2.0/authorize' || url.pathname === '/o/oauth2/v2/auth') {
      authorize(url.pathname === '/o/oauth2/v2/auth' ? 'google' : 'microsoft', url, res).catch(() => res.writeHead(500).end());
      return;
    }
    if (req.url === '/v1.0/me') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const profile = token ? microsoftTokens.get(token) : undefined;
      res.writeHead(profile ? 200 : 401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(profile ?? { error: { code: 'InvalidAuthenticationToken' } }));
      return;
    }
    if (req.url === '/oauth2/v3/certs') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    microsoftProfileUrl: `${base}/v1.0/me`,
    googleJwksUrl: `${base}/oauth2/v3/certs`,
    microsoftAuthorizeUrl: `${base}/oauth2/v2.0/authorize`,
    googleAuthorizeUrl: `${base}/o/oauth2/v2/auth`,
    signInAs,
    authorizeRequests,
    microsoftTokens,
    signGoogle,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
