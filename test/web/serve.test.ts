import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/testApp';

/** A build's shape (index.html plus hashed assets), so the serving rules are checked without running Vite. */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>wb</title><script type="module" src="/app/assets/index-Ab12.js"></script>');
  fs.writeFileSync(path.join(dir, 'assets', 'index-Ab12.js'), 'console.log("workbench")');
  fs.writeFileSync(path.join(dir, 'assets', 'index-Cd34.css'), 'body{margin:0}');
  return dir;
}

let t: TestApp;
let dist: string;
const before = process.env.WEB_DIST_DIR;
beforeAll(async () => {
  dist = fakeBuild();
  process.env.WEB_DIST_DIR = dist;
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
  if (before === undefined) delete process.env.WEB_DIST_DIR;
  else process.env.WEB_DIST_DIR = before;
  fs.rmSync(dist, { recursive: true, force: true });
});

test('/app and every client route below it answer index.html, not cached, without a token', async () => {
  for (const p of ['/app', '/app/', '/app/queue', '/app/sku/A%2FB?pipeline=3']) {
    const res = await t.call('get', p);
    expect([p, res.status, res.headers['content-type'], res.headers['cache-control']]).toEqual([p, 200, 'text/html; charset=utf-8', 'no-cache']);
    expect(res.text).toContain('<title>wb</title>');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  }
});

test('hashed assets get their content type and a year of immutable cache; a missing one is a 404', async () => {
  const js = await t.call('get', '/app/assets/index-Ab12.js');
  expect([js.status, js.headers['content-type'], js.headers['cache-control']]).toEqual([200, 'text/javascript; charset=utf-8', 'max-age=31536000,immutable']);
  expect(js.text).toBe('console.log("workbench")');
  const css = await t.call('get', '/app/assets/index-Cd34.css');
  expect([css.status, css.headers['content-type']]).toEqual([200, 'text/css; charset=utf-8']);
  const missing = await t.call('get', '/app/assets/gone-Zz99.js');
  expect([missing.status, missing.text]).toEqual([404, 'No such file in the workbench build\n']);
  const escape = await t.call('get', '/app/assets/../../package.json');
  expect(escape.text).not.toContain('planning-platform');
});

test('GET / keeps its liveness answer and the API still wants a token', async () => {
  const root = await t.call('get', '/');
  expect(root.status).toBe(200);
  expect(root.headers['content-type']).toContain('application/json');
  expect((await t.call('get', '/api/auth/me')).status).toBe(401);
  // a path that only starts like /app is the API's: unknown, so its token check answers first
  expect((await t.call('get', '/application')).status).toBe(401);
});

test('writes to /app are refused and nothing else is served there', async () => {
  const res = await t.call('post', '/app/queue', { body: { a: 1 } });
  expect([res.status, res.body]).toEqual([405, { detail: 'The workbench is read with GET' }]);
});

test('without a build, /app says how to make one', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'web-none-'));
  process.env.WEB_DIST_DIR = empty;
  const bare = await startTestApp();
  try {
    const res = await bare.call('get', '/app/queue');
    expect([res.status, res.headers['content-type']]).toEqual([503, 'text/plain; charset=utf-8']);
    expect(res.text).toContain('npm run web:build');
  } finally {
    await bare.close();
    process.env.WEB_DIST_DIR = dist;
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
