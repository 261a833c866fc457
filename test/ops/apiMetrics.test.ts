import { Client, Connection } from '@temporalio/client';
import request from 'supertest';
import { withTenant, sql } from '../../db/pool';
import { loadTenantData } from '../../db/masterData';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

// read by createApp: metrics answer only with this bearer token
const TOKEN = 'metrics-token-for-the-test-0123456789';
process.env.METRICS_TOKEN = TOKEN;

let t: TestApp;
let tenant: TestTenant;
let planner: string;
beforeAll(async () => {
  // as production's API builds it (api/main.ts): with the process's own metrics
  t = await startTestApp({ processMetrics: true });
  tenant = await t.newTenant('metrics');
  planner = await t.login(tenant.planner);
});
afterAll(async () => {
  await t.close();
});

async function scrape(): Promise<string> {
  const res = await request(t.server).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

/** The value of one sample, 0 when the series does not exist yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',').filter(Boolean);
    if (want.every((w) => have.includes(w)) && have.length === want.length) return Number(m[3]);
  }
  return 0;
}

describe('API /metrics', () => {
  it('answers only with the token', async () => {
    expect((await request(t.server).get('/metrics')).status).toBe(401);
    const wrong = await request(t.server).get('/metrics').set('Authorization', 'Bearer not-the-token');
    expect([wrong.status, wrong.body.detail]).toEqual([401, 'A metrics token is required (Authorization: Bearer <METRICS_TOKEN>)']);
  });

  it('counts requests by route template, method and status, with their durations; nothing in flight after', async () => {
    const before = await scrape();
    const me = { route: '/api/auth/me', method: 'GET', status: '200' };
    const missing = { route: '/api/forecasts/:unique_id', method: 'GET', status: '404' };
    for (let i = 0; i < 3; i++) expect((await t.call('get', '/api/auth/me', { token: planner })).status).toBe(200);
    for (const id of ['999998_1', '999999_2']) expect((await t.call('get', `/api/forecasts/${id}`, { token: planner })).status).toBe(404);
    expect((await t.call('get', '/api/auth/me')).status).toBe(401);
    const after = await scrape();
    expect(sample(after, 'planning_http_requests_total', me) - sample(before, 'planning_http_requests_total', me)).toBe(3);
    expect(sample(after, 'planning_http_requests_total', missing) - sample(before, 'planning_http_requests_total', missing)).toBe(2);
    expect(sample(after, 'planning_http_requests_total', { ...me, status: '401' }) - sample(before, 'planning_http_requests_total', { ...me, status: '401' })).toBe(1);
    const count = (text: string) => sample(text, 'planning_http_request_duration_seconds_count', { route: '/api/auth/me', method: 'GET' });
    expect(count(after) - count(before)).toBe(4);
    expect(sample(after, 'planning_http_request_duration_seconds_sum', { route: '/api/auth/me', method: 'GET' })).toBeGreaterThan(0);
    expect(sample(after, 'planning_http_requests_in_flight')).toBe(0);
    // a path no route knows is one series, whatever was asked
    await request(t.server).get('/no/such/thing/1');
    await request(t.server).get('/no/such/thing/2');
    const last = await scrape();
    expect(last).not.toContain('/no/such');
    expect(last).toMatch(/^planning_http_requests_total\{route="unmatched",method="GET",status="\d+"\} \d+$/m);
  });

  it('reports the work-list cache hits, misses and bytes, and the pool', async () => {
    const pipelineId = await withTenant(t.db, tenant.accountId, async (tx) => Number(await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('metrics') RETURNING id`)));
    const before = await scrape();
    const orders = () => t.call('get', '/api/exception-log', { token: planner, query: { pipeline_id: pipelineId } });
    for (let i = 0; i < 3; i++) {
      const res = await orders();
      expect([res.status, res.body.detail]).toEqual([200, undefined]);
    }
    const after = await scrape();
    expect(sample(after, 'planning_plan_read_cache_misses_total') - sample(before, 'planning_plan_read_cache_misses_total')).toBe(1);
    expect(sample(after, 'planning_plan_read_cache_hits_total') - sample(before, 'planning_plan_read_cache_hits_total')).toBe(2);
    expect(sample(after, 'planning_plan_read_cache_bytes')).toBe(t.cache.plan.size().bytes);
    expect(sample(after, 'planning_plan_read_cache_bytes')).toBeGreaterThan(0);
    expect(sample(after, 'planning_db_pool_waiting_clients')).toBe(0);
    expect(after).toMatch(/^planning_db_pool_idle_connections \d+$/m);
    expect(after).toMatch(/^process_cpu_user_seconds_total /m);
    expect(after).toMatch(/^nodejs_gc_duration_seconds_count\{kind="\w+"\} \d+$/m);
  });

  it('an app built without the process\'s metrics answers its own series and none of the process\'s', async () => {
    const bare = await startTestApp();
    try {
      const res = await request(bare.server).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/^planning_http_requests_in_flight 0$/m);
      expect(res.text).not.toMatch(/^(process|nodejs)_/m);
    } finally {
      await bare.close();
    }
  });
});

describe('GET /ready beside GET / (liveness)', () => {
  it('is ready when the database answers and every cache is loaded; Temporal not configured is said', async () => {
    expect((await request(t.server).get('/')).status).toBe(200);
    await t.call('get', '/api/auth/me', { token: planner });
    await t.cache.whenReady(tenant.accountId, 10_000);
    const res = await request(t.server).get('/ready');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ready', checks: { database: 'ok', temporal: 'not configured' } });
    expect(res.body.checks.cache.loading).toBe(0);
    expect(res.body.checks.cache.failed).toBe(0);
  });

  it('is not ready while a tenant cache loads, or when Temporal does not answer; ready with a Temporal that answers', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const live = new Client({ connection: Connection.lazy({ address: process.env.TEMPORAL_ADDRESS! }) });
    // no retry interceptor: its backoff timer would call the closed channel after the test, failing whichever file
    // the jest worker runs next ("Channel has been shut down")
    const dead = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9', interceptors: [] }) });
    const slow = await startTestApp({
      cacheLoader: (db) => async (id) => {
        await gate;
        return loadTenantData(db, id);
      },
      temporal: { client: live, taskQueue: 'unused' },
    });
    try {
      const other = await slow.newTenant('ready');
      slow.cache.warm(other.accountId);
      const loading = await request(slow.server).get('/ready');
      expect(loading.status).toBe(503);
      expect(loading.headers['retry-after']).toBe('5');
      expect(loading.body.status).toBe('not ready');
      expect(loading.body.checks.temporal).toBe('ok');
      expect(loading.body.checks.cache.loading).toBe(1);
      release();
      await slow.cache.whenReady(other.accountId, 10_000);
      const ready = await request(slow.server).get('/ready');
      expect([ready.status, ready.body.checks.temporal, ready.body.checks.cache.loading]).toEqual([200, 'ok', 0]);
    } finally {
      release();
      await slow.close();
      await live.connection.close();
    }

    const noTemporal = await startTestApp({ temporal: { client: dead, taskQueue: 'unused' } });
    try {
      const res = await request(noTemporal.server).get('/ready');
      expect(res.status).toBe(503);
      expect(res.body.checks.database).toBe('ok');
      expect(res.body.checks.temporal).not.toBe('ok');
    } finally {
      await noTemporal.close();
      await dead.connection.close().catch(() => undefined);
    }
  });
});
