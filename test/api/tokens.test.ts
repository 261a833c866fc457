import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { defineRoute, type RouteTable } from '../../api/routes/define';
import { errors } from '../../api/routes/schemas';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/** An event-stream route and one per permission, registered like any area, to exercise the shared mechanisms. */
function probeArea(table: RouteTable): void {
  defineRoute(table, {
    method: 'get', path: '/api/test/stream/{run_id}', tag: 'test', eventStream: true, needsCache: false, summary: 'stream probe',
    params: { type: 'object', properties: { run_id: { type: 'string' } }, required: ['run_id'] },
    responses: { 200: { description: 'who', schema: { type: 'object' } }, ...errors(400, 401) },
    handler: (_ctx, { user }) => ({ email: user.email }),
  });
}

let t: TestApp;
let a: TestTenant;
let secret: string;
beforeAll(async () => {
  t = await startTestApp({ extraAreas: [probeArea] });
  a = await t.newTenant('tokens');
  secret = await t.auth.secret();
});
afterAll(() => t.close());

const claimsFor = (tenant: TestTenant, over: Record<string, unknown> = {}) => ({
  jti: crypto.randomUUID(), sub: String(tenant.planner.id), email: tenant.planner.email, role: 'user', account_id: tenant.accountId, ...over,
});

describe('401 matrix (spec §7 rule 1 and more)', () => {
  test('no header', async () => {
    const res = await t.call('get', '/api/auth/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated: missing bearer token' });
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  test('garbage token and malformed header', async () => {
    expect((await t.call('get', '/api/auth/me', { token: 'garbage.token.here' })).body).toEqual({ detail: 'Invalid token' });
    const basic = await t.call('get', '/api/auth/me', { headers: { Authorization: 'Basic abc' } });
    expect(basic.status).toBe(401);
    expect(basic.body.detail).toMatch(/Bearer/);
  });

  test('expired token', async () => {
    const token = jwt.sign({ ...claimsFor(a), exp: Math.floor(Date.now() / 1000) - 60 }, secret, { algorithm: 'HS256' });
    const res = await t.call('get', '/api/auth/me', { token });
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('Token expired');
  });

  test('a token accepted before is refused once it expires, although its signature was verified already', async () => {
    // exp is in whole seconds: valid for at least one more second from now, expired two seconds later
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = jwt.sign({ ...claimsFor(a), exp }, secret, { algorithm: 'HS256' });
    expect((await t.call('get', '/api/auth/me', { token })).status).toBe(200);
    await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
    const res = await t.call('get', '/api/auth/me', { token });
    expect([res.status, res.body.detail]).toEqual([401, 'Token expired']);
  });

  test('a token whose signature is remembered is still refused with another signature or a changed payload', async () => {
    const token = await t.login(a.planner);
    expect((await t.call('get', '/api/auth/me', { token })).status).toBe(200);
    const [head, body, signature] = token.split('.');
    const otherBody = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), role: 'admin', sub: String(a.admin.id) })).toString('base64url');
    const flipped = signature.slice(0, -2) + (signature.at(-2) === 'A' ? 'B' : 'A') + signature.at(-1);
    for (const forged of [`${head}.${otherBody}.${signature}`, `${head}.${body}.${flipped}`]) {
      expect((await t.call('get', '/api/auth/me', { token: forged })).body).toEqual({ detail: 'Invalid token' });
    }
  });

  test('revoked token (after logout)', async () => {
    const token = await t.login(a.planner);
    await t.call('post', '/api/auth/logout', { token });
    expect((await t.call('get', '/api/auth/me', { token })).body).toEqual({ detail: 'Token revoked' });
  });

  test('signed with another key, another HMAC algorithm, RS256 or none', async () => {
    const wrongKey = jwt.sign(claimsFor(a), 'x'.repeat(40), { algorithm: 'HS256' });
    const hs512 = jwt.sign(claimsFor(a), secret, { algorithm: 'HS512' });
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs256 = jwt.sign(claimsFor(a), privateKey, { algorithm: 'RS256' });
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...claimsFor(a), exp: 9999999999 })).toString('base64url')}.`;
    for (const token of [wrongKey, hs512, rs256, none]) {
      const res = await t.call('get', '/api/auth/me', { token });
      expect(res.status).toBe(401);
    }
  });

  test('a correctly signed token for a deactivated user, or without jti, is refused', async () => {
    const u = await t.addUser(a.accountId);
    const token = await t.login(u);
    expect((await t.call('get', '/api/auth/me', { token })).status).toBe(200);
    const admin = await t.login(a.admin);
    await t.call('delete', `/api/auth/users/${u.id}`, { token: admin });
    const res = await t.call('get', '/api/auth/me', { token });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/deactivated/);
    const noJti = jwt.sign({ sub: String(a.planner.id), account_id: a.accountId }, secret, { algorithm: 'HS256', expiresIn: 60 });
    expect((await t.call('get', '/api/auth/me', { token: noJti })).status).toBe(401);
  });

  test('a changed jwt_secret invalidates old tokens', async () => {
    const root = await t.addSuperadmin();
    const rootToken = await t.login(root, a.accountId);
    const plannerToken = await t.login(a.planner);
    // used once before the change, so that its verified signature is remembered (api/middleware/auth.ts)
    expect((await t.call('get', '/api/auth/me', { token: plannerToken })).status).toBe(200);
    const newSecret = crypto.randomBytes(32).toString('hex');
    const upd = await t.call('post', '/api/config/update', { token: rootToken, body: { path: 'auth.jwt_secret', value: newSecret } });
    expect(upd.status).toBe(200);
    try {
      expect((await t.call('get', '/api/auth/me', { token: plannerToken })).status).toBe(401);
      const fresh = await t.login(a.planner);
      expect((await t.call('get', '/api/auth/me', { token: fresh })).status).toBe(200);
    } finally {
      // other test files share the master parameters: put the secret back
      const token = await t.login(root, a.accountId);
      await t.call('post', '/api/config/update', { token, body: { path: 'auth.jwt_secret', value: secret } });
    }
  });
});

describe('?token= on event streams', () => {
  test('is accepted on an event-stream route', async () => {
    const token = await t.login(a.planner);
    const res = await t.call('get', `/api/test/stream/r1?token=${token}`);
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(a.planner.email);
  });

  test('is ignored on other routes', async () => {
    const token = await t.login(a.planner);
    const res = await t.call('get', `/api/auth/me?token=${token}`);
    expect(res.status).toBe(401);
  });

  test('the header wins over the query token', async () => {
    const planner = await t.login(a.planner);
    const admin = await t.login(a.admin);
    const res = await t.call('get', `/api/test/stream/r1?token=${planner}`, { token: admin });
    expect(res.body.email).toBe(a.admin.email);
    const bad = await t.call('get', `/api/test/stream/r1?token=${planner}`, { token: 'garbage' });
    expect(bad.status).toBe(401);
  });
});

describe('public paths (spec §5.5)', () => {
  test('exactly /, /docs, /openapi.json, /redoc and the login prefixes need no token', async () => {
    for (const p of ['/', '/docs', '/openapi.json', '/redoc']) expect((await t.call('get', p)).status).toBe(200);
    expect((await t.call('get', '/api/auth/probe', { query: { email: 'a@b.co' } })).status).toBe(200);
    for (const p of ['/docs/', '/docs/swagger-ui.css', '/openapi.yaml', '/api/config', '/api/auth/me', '/api/nothing-here']) {
      expect((await t.call('get', p)).status).toBe(401);
    }
  });
});
