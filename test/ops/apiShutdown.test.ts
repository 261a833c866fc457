import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../lib/net';
import { startTestApp, type TestApp } from '../support/testApp';

/**
 * The API as a process (api/main.ts), sent SIGTERM while requests pour in. During the drain (SHUTDOWN_DRAIN_MS)
 * /ready says 'stopping' and every request is still answered; the load then stops, as a load balancer stops sending
 * to a replica that is not ready, the requests in flight are answered, and the process exits 0. None fails.
 * (Requests that keep coming after the drain meet a closed port; connections still in the kernel's accept queue at
 * that instant are reset by the kernel, which is why an orchestrator needs the drain.)
 */

const ROOT = path.join(__dirname, '../..');
let t: TestApp;
let api: ChildProcess;
let port: number;
let metricsPort: number;
let output = '';
let token: string;

function get(p: string, auth?: string): Promise<{ status?: number; error?: string }> {
  return new Promise((resolve) => {
    // a connection per request (no keep-alive): a request is either accepted or refused, never sent on a socket the
    // server is closing (which any HTTP client must be ready to retry)
    const req = http.get({ host: '127.0.0.1', port, path: p, agent: false, headers: auth ? { Authorization: `Bearer ${auth}` } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode }));
      res.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    });
    req.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
  });
}

beforeAll(async () => {
  t = await startTestApp();
  const tenant = await t.newTenant('shutdown');
  token = await t.login(tenant.planner);
  port = await freePort();
  metricsPort = await freePort();
  api = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'info', APP_ENV: 'test', SHUTDOWN_DRAIN_MS: '2000', TEMPORAL_ADDRESS: '127.0.0.1:9' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  api.stdout!.on('data', (d) => (output += d));
  api.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 90_000;
  while (!output.includes('"msg":"API listening"')) {
    if (Date.now() > deadline || api.exitCode !== null) throw new Error(`the API did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);
afterAll(async () => {
  if (api.exitCode === null) api.kill('SIGKILL');
  await t.close();
});

test('SIGTERM under load: no accepted request fails, then the process exits 0; metrics on their own port', async () => {
  expect((await get('/api/auth/me', token)).status).toBe(200);
  const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  expect(scraped.status).toBe(200);
  expect(await scraped.text()).toMatch(/^planning_http_requests_total\{route="\/api\/auth\/me",method="GET",status="200"\} 1$/m);

  const results: Array<{ status?: number; error?: string }> = [];
  let sending = true;
  const lane = async () => {
    while (sending) results.push(await get('/api/auth/me', token));
  };
  const lanes = Array.from({ length: 8 }, lane);
  // let the load build up, then stop the API in the middle of it
  while (results.length < 40) await new Promise((r) => setTimeout(r, 20));
  const exited = new Promise<number | null>((resolve) => api.once('exit', (code) => resolve(code)));
  api.kill('SIGTERM');
  const atSignal = results.length;
  await new Promise((r) => setTimeout(r, 400));
  const ready = await get('/ready');
  expect(ready.status).toBe(503);
  // the load balancer has seen the 503: no new requests; the lanes' requests in flight finish
  sending = false;
  await Promise.all(lanes);
  expect(await exited).toBe(0);

  const failed = results.filter((r) => r.status !== 200);
  expect(failed).toEqual([]);
  expect(results.length).toBeGreaterThan(atSignal);
  expect(output).toContain('stopping: finishing the requests in flight');
  expect((await get('/api/auth/me', token)).error).toBe('ECONNREFUSED');
}, 120_000);
