import { defineRoute, type Permission, type RouteTable } from '../../api/routes/define';
import { errors } from '../../api/routes/schemas';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

const PERMISSIONS: Permission[] = ['admin', 'superadmin', 'run_process', 'create_override'];

/** One route per reusable permission option, so each option's 403 is checked through the real middleware chain. */
function permissionArea(table: RouteTable): void {
  for (const permission of PERMISSIONS) {
    defineRoute(table, {
      method: 'post', path: `/api/test/needs/${permission}`, tag: 'test', permission, needsCache: false, summary: permission,
      responses: { 200: { description: 'ok', schema: { type: 'object' } }, ...errors(401, 403) },
      handler: () => ({ ok: true }),
    });
  }
  defineRoute(table, {
    method: 'get', path: '/api/test/pipeline-scoped', tag: 'test', pipelineScoped: true, needsCache: false, summary: 'pipeline scoped',
    query: { type: 'object', additionalProperties: false, properties: { pipeline_id: { type: 'integer', minimum: 1 } } },
    responses: { 200: { description: 'ok', schema: { type: 'object' } }, ...errors(400, 401) },
    handler: (_ctx, { query }) => ({ pipeline_id: query.pipeline_id }),
  });
  defineRoute(table, {
    method: 'get', path: '/api/test/boom', tag: 'test', needsCache: false, summary: 'fails',
    responses: { 500: { description: 'internal error', schema: { type: 'object' } } },
    handler: () => {
      throw new Error('connection string postgres://secret@db leaked?');
    },
  });
}

let t: TestApp;
let a: TestTenant;
let tokens: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp({ extraAreas: [permissionArea] });
  a = await t.newTenant('perm');
  const plain = await t.addUser(a.accountId, { role: 'user' });
  const runner = await t.addUser(a.accountId, { role: 'user', can_run_process: true });
  const overrider = await t.addUser(a.accountId, { role: 'user', can_create_override: true });
  const root = await t.addSuperadmin();
  tokens = {
    plain: await t.login(plain),
    runner: await t.login(runner),
    overrider: await t.login(overrider),
    admin: await t.login(a.admin),
    root: await t.login(root, a.accountId),
  };
});
afterAll(() => t.close());

test.each([
  // permission, who may, who may not
  ['admin', ['admin', 'root'], ['plain', 'runner', 'overrider']],
  ['superadmin', ['root'], ['plain', 'runner', 'overrider', 'admin']],
  ['run_process', ['runner', 'admin', 'root'], ['plain', 'overrider']],
  ['create_override', ['overrider', 'admin', 'root'], ['plain', 'runner']],
])('permission %s', async (permission, allowed, denied) => {
  for (const who of allowed) {
    const res = await t.call('post', `/api/test/needs/${permission}`, { token: tokens[who] });
    expect([who, res.status]).toEqual([who, 200]);
  }
  for (const who of denied) {
    const res = await t.call('post', `/api/test/needs/${permission}`, { token: tokens[who] });
    expect([who, res.status]).toEqual([who, 403]);
    expect(res.body.detail).toMatch(/required/);
  }
});

test('admin-only endpoints answer 403 with an admin-required message to a planner', async () => {
  const cases: Array<[string, string, unknown?]> = [
    ['get', '/api/auth/users'],
    ['post', '/api/auth/users', { email: 'x@example.com', name: 'x', password: 'long-enough-1' }],
    ['put', `/api/auth/users/${a.admin.id}`, { name: 'hijack' }],
    ['delete', `/api/auth/users/${a.admin.id}`],
    ['post', '/api/config/update', { path: 'pipeline.n_workers', value: 3 }],
    ['put', '/api/log-level', { level: 'DEBUG' }],
    ['get', '/api/audit-log'],
  ];
  for (const [method, path, body] of cases) {
    const res = await t.call(method, path, { token: tokens.runner, body });
    expect([method, path, res.status]).toEqual([method, path, 403]);
    expect(res.body.detail).toBe('Admin privileges required (role admin or superadmin)');
  }
  // and nothing changed
  const admin = await t.call('get', '/api/auth/users', { token: tokens.admin });
  expect(admin.body.find((u: { id: number }) => u.id === a.admin.id)).toMatchObject({ is_active: true, role: 'admin' });
});

test('pipeline_id missing or 0 on a pipeline-scoped route is a 400 that says it is required', async () => {
  for (const q of ['', '?pipeline_id=0']) {
    const res = await t.call('get', `/api/test/pipeline-scoped${q}`, { token: tokens.plain });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^pipeline_id is required/);
  }
  const ok = await t.call('get', '/api/test/pipeline-scoped?pipeline_id=7', { token: tokens.plain });
  expect(ok.body).toEqual({ pipeline_id: 7 });
});

test('an internal error is a 500 without internals', async () => {
  const res = await t.call('get', '/api/test/boom', { token: tokens.plain });
  expect(res.status).toBe(500);
  expect(res.body).toEqual({ detail: 'Internal server error' });
  expect(JSON.stringify(res.body)).not.toMatch(/postgres|stack|at /);
});

test('unknown routes are a JSON 404; wrong methods a JSON 405', async () => {
  const res = await t.call('get', '/api/no-such-thing', { token: tokens.plain });
  expect(res.status).toBe(404);
  expect(res.body.detail).toMatch(/Not found/);
  const m = await t.call('patch', '/api/auth/me', { token: tokens.plain });
  expect(m.status).toBe(405);
  expect(m.body.detail).toMatch(/not allowed/);
});
