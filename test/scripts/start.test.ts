import { spawnSync } from 'node:child_process';
import { isPortOpen, waitFor } from '../../lib/net';
import { LocalStack, ROOT } from '../support/stack';

const RUN = ['--import', 'tsx', 'scripts/start.ts'];

/**
 * The launcher itself, for real: embedded PostgreSQL, the Temporal dev server, worker and API; a second start, Ctrl-C
 * and a restart on the same data. What the README promises a new user is test/scripts/readme.test.ts.
 */
describe('the stack launcher', () => {
  let stack: LocalStack;
  let ports: LocalStack['ports'];

  beforeAll(async () => {
    // the demo's planning job would run beside these tests for nothing; test/scripts/readme.test.ts waits for it
    stack = await LocalStack.create({ DEMO_FORECAST: '0' });
    ports = stack.ports;
    await stack.launch([process.execPath, ...RUN]);
  }, 300_000);

  afterAll(() => stack.dispose(), 60_000);

  test('prints working demo logins and the URLs', async () => {
    expect(stack.output).toContain(`http://localhost:${ports.api}/docs`);
    expect(stack.output).toMatch(new RegExp(`Temporal UI\\s+http://(localhost|127\\.0\\.0\\.1):${ports.ui}`));
    expect(stack.output).toMatch(/worker healthy: PostgreSQL \d+/);
    const m = /admin\s+(\S+@\S+) \/ (\S+)/.exec(stack.output)!;
    const res = await fetch(`http://localhost:${ports.api}/api/auth/login`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: m[1], password: m[2] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; user: { role: string; account_name: string } };
    expect(body.user).toMatchObject({ role: 'admin', account_name: 'Demo' });
    const cfg = await fetch(`http://localhost:${ports.api}/api/config`, { headers: { Authorization: `Bearer ${body.access_token}` } });
    expect(cfg.status).toBe(200);
    // the demo data went through import staging and etl
    expect(stack.output).toMatch(/demo data: \d+ demand rows imported, \d+ weekly series \(import \S+, etl \S+\); not planned \(DEMO_FORECAST=0\)/);
    const reload = await fetch(`http://localhost:${ports.api}/api/reload`, { method: 'POST', headers: { Authorization: `Bearer ${body.access_token}` } });
    const sizes = ((await reload.json()) as { cache_sizes: { series: number; items: number } }).cache_sizes;
    expect(sizes.items).toBe(100);
    expect(sizes.series).toBeGreaterThan(250);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);
  });

  test('a second start while it runs does not break it', () => {
    const second = spawnSync(process.execPath, RUN, { cwd: ROOT, env: stack.env, encoding: 'utf8', timeout: 60_000 });
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/already/);
  });

  test('Ctrl-C stops everything', async () => {
    expect(await stack.stop('SIGINT')).toBe(0);
    for (const port of [ports.api, ports.pg, ports.temporal, ports.ui]) expect(await isPortOpen(port)).toBe(false);
  }, 60_000);

  test('starting again on the same data reuses it: demo tenant kept, logins still work', async () => {
    await stack.launch([process.execPath, ...RUN]);
    expect(stack.output).toMatch(/Demo account\s+Demo\n/);
    expect(stack.output).not.toMatch(/loading demo data/);
    expect(stack.output).toMatch(/migrations: 0 master, 0 tenant applied/);
    const res = await fetch(`http://localhost:${ports.api}/api/auth/login`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'admin@demo.local', password: 'demo-admin-123' }),
    });
    expect(res.status).toBe(200);
    expect(await stack.stop('SIGTERM')).toBe(0);
  }, 300_000);
});

// (kept with the cases below that use them, so this part of the file is one block)
import fs from 'node:fs';
import path from 'node:path';

/** A piece of the stack dying on its own must not leave a half-working stack behind, nor a silent one. */
describe('the stack launcher when one of its processes dies', () => {
  let stack: LocalStack;

  beforeAll(async () => {
    // no demo data: the first start stays short, and what is under test is the log and the processes
    // one restart allowed: the first kill of the worker is restarted in place, the second stops the stack
    stack = await LocalStack.create({ DEMO_SERIES: '0', RESTART_LIMIT: '1' });
    await stack.launch([process.execPath, ...RUN]);
  }, 300_000);

  afterAll(() => stack.dispose(), 60_000);

  test('its log counts the migrations it applied and ends with the banner, not the bundler', () => {
    const tenantFiles = fs.readdirSync(path.join(ROOT, 'db/migrations/tenant')).filter((f) => /^\d+_.+\.sql$/.test(f)).length;
    const masterFiles = fs.readdirSync(path.join(ROOT, 'db/migrations/master')).filter((f) => /^\d+_.+\.sql$/.test(f)).length;
    // a fresh data directory: every master migration, and every tenant one for the demo tenant created on the way
    expect(stack.output).toContain(`migrations: ${masterFiles} master, ${tenantFiles} tenant applied (${tenantFiles} to the new demo tenant)`);
    expect(stack.output).not.toMatch(/webpack|workflow-bundle/i);
  });

  /** Kills the launcher's child whose command line contains `marker` and resolves with the launcher's exit code. */
  async function killChild(marker: string): Promise<number | null> {
    const ps = spawnSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).stdout;
    const line = ps.split('\n').map((l) => l.trim().split(/\s+/)).find(([, ppid, ...args]) => Number(ppid) === stack.child.pid && args.join(' ').includes(marker));
    expect(line).toBeDefined();
    const exited = new Promise<number | null>((r) => stack.child.once('exit', (code) => r(code)));
    process.kill(Number(line![0]), 'SIGKILL');
    return exited;
  }

  const allStopped = async () => {
    for (const port of [stack.ports.api, stack.ports.pg, stack.ports.temporal, stack.ports.ui]) expect([port, await isPortOpen(port)]).toEqual([port, false]);
  };

  const workerPids = () =>
    spawnSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).stdout.split('\n').map((l) => l.trim().split(/\s+/))
      .filter(([, ppid, ...args]) => Number(ppid) === stack.child.pid && args.join(' ').includes('temporal/worker.ts')).map(([pid]) => Number(pid));

  test('the worker killed with SIGKILL is restarted in place, said in the log; killed again past RESTART_LIMIT, the stack stops and exits 1', async () => {
    const [first] = workerPids();
    process.kill(first, 'SIGKILL');
    await waitFor(async () => /==> worker killed by SIGKILL; restarting it in 1 s \(restart 1 of 1 within 10 min\)\. Last lines of \S+worker\.log:\n {4}\S/.test(stack.output), 30_000, 'the restart to be announced');
    await waitFor(async () => workerPids().some((p) => p !== first), 30_000, 'the worker to be started again');
    expect(workerPids().filter((p) => p !== first)).toHaveLength(1);
    // the rest of the stack never stopped
    expect(stack.child.exitCode).toBeNull();
    expect(await isPortOpen(stack.ports.api)).toBe(true);

    expect(await killChild('temporal/worker.ts')).toBe(1);
    expect(stack.output).toMatch(/==> worker killed by SIGKILL \(restarted 1 time within 10 min, the limit\); stopping the rest of the stack\. Last lines of \S+worker\.log:\n {4}\S/);
    await allStopped();
  }, 240_000);

  test('the Temporal dev server killed with SIGKILL: the same, with the last lines of its log', async () => {
    await stack.launch([process.execPath, ...RUN]);
    expect(await killChild('start-dev')).toBe(1);
    expect(stack.output).toMatch(/==> Temporal dev server exited with SIGKILL; stopping the rest of the stack\. Last lines of \S+temporal\.log:\n/);
    await allStopped();
  }, 300_000);
});
