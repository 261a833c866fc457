import { startTestApp, type TestApp } from '../support/testApp';

/**
 * GET /api/auth/login/providers (not in the spec): what the workbench's login page offers as "Sign in with …" buttons,
 * from the server's configuration, without a token.
 */
let bare: TestApp;
let configured: TestApp;

beforeAll(async () => {
  bare = await startTestApp();
  configured = await startTestApp({
    sso: {
      microsoftClientId: 'ms-client-1', microsoftAuthorizeUrl: 'http://127.0.0.1:9/oauth2/v2.0/authorize',
      googleClientId: 'google-client-1', googleAuthorizeUrl: 'http://127.0.0.1:9/o/oauth2/v2/auth',
    },
  });
}, 60_000);
afterAll(async () => {
  await bare?.close();
  await configured?.close();
});

test('a server without client ids offers no provider', async () => {
  const res = await bare.call('get', '/api/auth/login/providers');
  expect([res.status, res.body]).toEqual([200, { providers: [] }]);
});

test('each configured provider with its authorize endpoint and what to ask for; public, no secret in it', async () => {
  const res = await configured.call('get', '/api/auth/login/providers');
  expect(res.status).toBe(200);
  expect(res.body.providers).toEqual([
    { id: 'microsoft', label: 'Sign in with Microsoft', authorize_url: 'http://127.0.0.1:9/oauth2/v2.0/authorize', client_id: 'ms-client-1', response_type: 'token', scope: 'openid profile email User.Read' },
    { id: 'google', label: 'Sign in with Google', authorize_url: 'http://127.0.0.1:9/o/oauth2/v2/auth', client_id: 'google-client-1', response_type: 'id_token', scope: 'openid email profile' },
  ]);
  // a token is not needed, and a bad one changes nothing
  expect((await configured.call('get', '/api/auth/login/providers', { token: 'not-a-token' })).status).toBe(200);
});

test('only Google when only its client id is set (the audience check of POST /api/auth/google uses the same id)', async () => {
  const google = await startTestApp({ sso: { googleClientId: 'g-only', googleAuthorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth' } });
  try {
    expect((await google.call('get', '/api/auth/login/providers')).body.providers.map((p: any) => [p.id, p.client_id])).toEqual([['google', 'g-only']]);
  } finally {
    await google.close();
  }
});
