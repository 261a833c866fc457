import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, isPortOpen } from '../../lib/net';

const ROOT = path.join(__dirname, '../..');
const RUN = ['--import', 'tsx', 'scripts/start.ts'];

/** The README's start command, for real: embedded PostgreSQL, the Temporal dev server, worker and API. */
describe('the stack launcher', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let ports: { api: number; pg: number; temporal: number; ui: number };
  let stack: ChildProcess;
  let output = '';

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planning-start-'));
    fs.chmodSync(dataDir, 0o777);
    ports = { api: await freePort(), pg: await freePort(), temporal: await freePort(), ui: await freePort() };
    env = { ...process.env, DATA_DIR: dataDir, PORT: String(ports.api), PGPORT: String(ports.pg), TEMPORAL_PORT: String(ports.temporal), TEMPORAL_UI_PORT: String(ports.ui), NODE_ENV: 'development', LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    delete env.TEMPORAL_ADDRESS;
    await launch();
  }, 300_000);

  /** Starts the launcher and resolves once it prints its banner. */
  async function launch(): Promise<void> {
    output = '';
    stack = spawn(process.execPath, RUN, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    stack.stdout!.on('data', (c) => (output += c.toString()));
    stack.stderr!.on('data', (c) => (output += c.toString()));
    const deadline = Date.now() + 240_000;
    while (!output.includes('Planning platform is running')) {
      if (stack.exitCode !== null || Date.now() > deadline) {
        // the workers' own log lines fill the tail: lead with the lines that say what went wrong
        const telling = output.split('\n').filter((l) => /error|exited|fail|refus|cannot|could not/i.test(l)).slice(0, 30).join('\n');
        throw new Error(`stack did not come up (exit code ${stack.exitCode}):\n${telling}\n--- last output ---\n${output.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  afterAll(async () => {
    if (stack && stack.exitCode === null) {
      stack.kill('SIGKILL');
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('prints working demo logins and the URLs', async () => {
    expect(output).toContain(`http://localhost:${ports.api}/docs`);
    expect(output).toMatch(new RegExp(`Temporal UI\\s+http://(localhost|127\\.0\\.0\\.1):${ports.ui}`));
    expect(output).toMatch(/worker healthy: PostgreSQL \d+/);
    const m = /admin\s+(\S+@\S+) \/ (\S+)/.exec(output)!;
    const res = await fetch(`http://localhost:${ports.api}/api/auth/login`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: m[1], password: m[2] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; user: { role: string; account_name: string } };
    expect(body.user).toMatchObject({ role: 'admin', account_name: 'Demo' });
    const cfg = await fetch(`http://localhost:${ports.api}/api/config`, { headers: { Authorization: `Bearer ${body.access_token}` } });
    expect(cfg.status).toBe(200);
    // the demo data went through import staging and etl
    expect(output).toMatch(/demo data: \d+ demand rows imported, \d+ weekly series/);
    const reload = await fetch(`http://localhost:${ports.api}/api/reload`, { method: 'POST', headers: { Authorization: `Bearer ${body.access_token}` } });
    const sizes = ((await reload.json()) as { cache_sizes: { series: number; items: number } }).cache_sizes;
    expect(sizes.items).toBe(100);
    expect(sizes.series).toBeGreaterThan(250);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);
  });

  test('a second start while it runs does not break it', () => {
    const second = spawnSync(process.execPath, RUN, { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/already/);
  });

  test('Ctrl-C stops everything', async () => {
    const exited = new Promise<number | null>((r) => stack.once('exit', (code) => r(code)));
    stack.kill('SIGINT');
    expect(await exited).toBe(0);
    for (const port of [ports.api, ports.pg, ports.temporal, ports.ui]) expect(await isPortOpen(port)).toBe(false);
  }, 60_000);

  test('starting again on the same data reuses it: demo tenant kept, logins still work', async () => {
    await launch();
    expect(output).toMatch(/Demo account\s+Demo\n/);
    expect(output).not.toMatch(/loading demo data/);
    expect(output).toMatch(/migrations: 0 master, 0 tenant applied/);
    const res = await fetch(`http://localhost:${ports.api}/api/auth/login`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'admin@demo.local', password: 'demo-admin-123' }),
    });
    expect(res.status).toBe(200);
    const exited = new Promise<number | null>((r) => stack.once('exit', (code) => r(code)));
    stack.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 300_000);
});
