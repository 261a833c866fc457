import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * Plays Microsoft Graph (`GET /v1.0/me` with a bearer token) and Google's JWKS endpoint on loopback,
 * with keys generated per run: the only third parties the auth tests cannot run for real.
 */
export interface FakeProviders {
  microsoftProfileUrl: string;
  googleJwksUrl: string;
  microsoftTokens: Map<string, { mail?: string | null; userPrincipalName?: string; displayName?: string }>;
  signGoogle(claims: Record<string, unknown>, opts?: { expiresIn?: string; issuer?: string; audience?: string; foreignKey?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeProviders(audience = 'test-client-id'): Promise<FakeProviders> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const microsoftTokens = new Map<string, { mail?: string | null; userPrincipalName?: string; displayName?: string }>();
  const server = http.createServer((req, res) => {
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
    microsoftTokens,
    async signGoogle(claims, o = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' })
        .setIssuer(o.issuer ?? 'https://accounts.google.com')
        .setAudience(o.audience ?? audience)
        .setIssuedAt()
        .setExpirationTime(o.expiresIn ?? '1h')
        .sign(o.foreignKey ? foreign.privateKey : privateKey);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
