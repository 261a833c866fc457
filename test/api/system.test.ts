import type { TenantData } from '../../api/cache';
import { loadTenantData } from '../../db/masterData';
import { sql, withTenant } from '../../db/pool';
import { logger } from '../../lib/logger';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('sys');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
});
afterAll(() => t.close());

test('GET / describes the API without a token', async () => {
  const res = await t.call('get', '/');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'ok', docs: '/docs', openapi: '/openapi.json', redoc: '/redoc' });
});

describe('config', () => {
  test('shows every section with secrets redacted', async () => {
    const res = await t.call('get', '/api/config', { token: planner });
    expect(res.status).toBe(200);
    const { config } = res.body;
    expect(config.auth.jwt_secret).toBe('********');
    expect(config.auth.token_expiry_minutes).toBe(480);
    expect(config.pipeline).toEqual({ n_workers: 2, chunk_size: 500, stale_job_minutes: 30 });
    expect(config.llm.api_key).toBe('');
    expect(JSON.stringify(config)).not.toContain(await t.auth.secret());
  });

  test('update by dotted path, single and batch, persisted in the parameters table', async () => {
    const one = await t.call('post', '/api/config/update', { token: admin, body: { path: 'pipeline.n_workers', value: 4 } });
    expect(one.status).toBe(200);
    expect(one.body.updated).toEqual([{ path: 'pipeline.n_workers', value: 4 }]);
    const batch = await t.call('post', '/api/config/update', {
      token: admin,
      body: { updates: [{ path: 'pipeline.chunk_size', value: 250 }, { path: 'llm.api_key', value: 'sk-very-secret' }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.updated).toEqual([{ path: 'pipeline.chunk_size', value: 250 }, { path: 'llm.api_key', value: '********' }]);
    const stored = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT key, value FROM parameters WHERE parameter_type = 'pipeline' OR key = 'api_key' ORDER BY key`));
    expect(stored).toEqual(expect.arrayContaining([{ key: 'n_workers', value: 4 }, { key: 'chunk_size', value: 250 }, { key: 'api_key', value: 'sk-very-secret' }]));
    const cfg = await t.call('get', '/api/config', { token: admin });
    expect(cfg.body.config.llm.api_key).toBe('********');
  });

  test('a bad path or value is a 400 naming it, and a batch with one bad entry changes nothing', async () => {
    const cases: Array<[unknown, RegExp]> = [
      // the published schema lists the settings and each one's value type (a client generated from it sends neither)
      [{ path: 'pipeline.n_wrkers', value: 3 }, /^body\.path: 'pipeline\.n_wrkers' is not a setting: a <section>\.<key> of GET \/api\/config \(.*pipeline\.n_workers, /],
      [{ path: 'nosuch.key', value: 3 }, /^body\.path: 'nosuch\.key' is not a setting/],
      [{ path: 'pipeline', value: 3 }, /^body\.path: 'pipeline' is not a setting/],
      [{ updates: [{ path: 'pipeline.chunk_size', value: 5 }, { path: 'llm.nosuch', value: 1 }] }, /^body\.updates\[1\]\.path: 'llm\.nosuch' is not a setting/],
      [{ path: 'pipeline.n_workers', value: 'four' }, /body\.value for 'pipeline.n_workers': must be integer/],
      [{ path: 'pipeline.n_workers', value: 0 }, /must be >= 1/],
      [{ updates: [{ path: 'pipeline.n_workers', value: 9 }, { path: 'pipeline.chunk_size', value: -1 }] }, /body\.updates\[1\]\.value/],
      [{ updates: [] }, /./],
      [{ path: 'pipeline.n_workers' }, /./],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('post', '/api/config/update', { token: admin, body });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body.detail).toMatch(message);
    }
    const cfg = await t.call('get', '/api/config', { token: admin });
    expect(cfg.body.config.pipeline.n_workers).toBe(4);
  });

  test('platform-wide auth settings need a superadmin; token lifetime follows token_expiry_minutes', async () => {
    const denied = await t.call('post', '/api/config/update', { token: admin, body: { path: 'auth.token_expiry_minutes', value: 60 } });
    expect(denied.status).toBe(403);
    const root = await t.addSuperadmin();
    const rootToken = await t.login(root, a.accountId);
    const short = await t.call('post', '/api/config/update', { token: rootToken, body: { path: 'auth.jwt_secret', value: 'too-short' } });
    expect(short.status).toBe(400);
    expect(short.body.detail).toMatch(/fewer than 32/);
    try {
      const ok = await t.call('post', '/api/config/update', { token: rootToken, body: { path: 'auth.token_expiry_minutes', value: 60 } });
      expect(ok.status).toBe(200);
      const login = await t.call('post', '/api/auth/login', { body: { email: a.planner.email, password: a.planner.password } });
      expect(login.body.expires_in).toBe(3600);
    } finally {
      await t.call('post', '/api/config/update', { token: rootToken, body: { path: 'auth.token_expiry_minutes', value: 480 } });
    }
  });
});

describe('reload', () => {
  test('syncs missing parameter keys without overwriting, and re-reads the cache', async () => {
    await t.call('post', '/api/config/update', { token: admin, body: { path: 'planning.horizon_weeks', value: 26 } });
    await withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`DELETE FROM parameters WHERE parameter_type = 'llm'`);
      await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I1', 'Item 1'), ('I2', 'Item 2')`);
      await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Site 1')`);
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) SELECT i.id, s.id FROM items i, sites s`);
    });
    const res = await t.call('post', '/api/reload', { token: planner });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'reloaded', synced_parameters: 3, cache_sizes: { items: 2, sites: 1, series: 2 } });
    const cfg = await t.call('get', '/api/config', { token: admin });
    expect(cfg.body.config.planning.horizon_weeks).toBe(26);
    expect(cfg.body.config.llm.model).toBe('gpt-4o-mini');
    expect(t.cache.get(a.accountId)!.items.get(1)).toMatchObject({ xuid: 'I1' });
  });
});

describe('log level', () => {
  afterAll(() => {
    logger.level = 'silent';
  });
  test('GET shows it, PUT changes it (admin), only the four levels', async () => {
    const put = await t.call('put', '/api/log-level', { token: admin, body: { level: 'WARNING' } });
    expect(put.status).toBe(200);
    expect(put.body.level).toBe('WARNING');
    expect(logger.level).toBe('warn');
    expect((await t.call('get', '/api/log-level', { token: planner })).body).toEqual({ level: 'WARNING' });
    const bad = await t.call('put', '/api/log-level', { token: admin, body: { level: 'TRACE' } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe('body.level must be one of: DEBUG, INFO, WARNING, ERROR');
    expect(logger.level).toBe('warn');
  });
});

describe('limits and malformed requests', () => {
  test('a body over the limit is a 413 with detail', async () => {
    const huge = { path: 'llm.model', value: 'x'.repeat(6 * 1024 * 1024) };
    const res = await t.call('post', '/api/config/update', { token: admin, body: huge });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/too large/);
  });
});

describe('data cache readiness', () => {
  test('tenant routes answer 503 with Retry-After while the cache loads, then serve', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = await startTestApp({
      cacheLoader: (db) => async (id): Promise<TenantData> => {
        await gate;
        return loadTenantData(db, id);
      },
    });
    try {
      const tenant = await slow.newTenant('slow');
      const token = await slow.login(tenant.planner);
      const res = await slow.call('get', '/api/config', { token });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('10');
      expect(res.body.detail).toMatch(/loading/);
      // auth keeps working while the cache loads
      expect((await slow.call('get', '/api/auth/me', { token })).status).toBe(200);
      release();
      await new Promise((r) => setTimeout(r, 50));
      expect((await slow.call('get', '/api/config', { token })).status).toBe(200);
    } finally {
      release();
      await slow.close();
    }
  });
});
