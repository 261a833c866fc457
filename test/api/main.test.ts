import { startApi } from '../../api/main';
import { freePort } from '../../lib/net';
import { startTestApp } from '../support/testApp';

const withEnv = async <T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> => {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  for (const [k, v] of Object.entries(vars)) if (v === undefined) delete process.env[k];
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
};

test('the API refuses to start in production with the placeholder JWT secret', async () => {
  await withEnv({ APP_ENV: 'production', PORT: String(await freePort()), JWT_SECRET: undefined }, async () => {
    await expect(startApi()).rejects.toThrow(/Refusing to start in production: auth.jwt_secret is still the placeholder/);
  });
});

test('in development it starts, serves / and closes cleanly', async () => {
  const port = await freePort();
  await withEnv({ APP_ENV: 'development', PORT: String(port) }, async () => {
    const api = await startApi();
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe('ok');
    } finally {
      await api.close();
    }
  });
});

test('sign-in attempts are rate limited per IP and e-mail', async () => {
  const t = await startTestApp({ loginRateLimit: 3 });
  try {
    const tenant = await t.newTenant('ratelimit');
    for (let i = 0; i < 3; i += 1) {
      expect((await t.call('post', '/api/auth/login', { body: { email: tenant.planner.email, password: 'wrong-password' } })).status).toBe(401);
    }
    const blocked = await t.call('post', '/api/auth/login', { body: { email: tenant.planner.email, password: tenant.planner.password } });
    expect(blocked.status).toBe(429);
    expect(blocked.body.detail).toMatch(/Too many sign-in attempts/);
    // another e-mail from the same IP is not blocked
    expect((await t.call('post', '/api/auth/login', { body: { email: tenant.admin.email, password: tenant.admin.password } })).status).toBe(200);
  } finally {
    await t.close();
  }
});
