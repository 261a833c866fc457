import { spawnSync } from 'node:child_process';
import { isPortOpen } from '../../lib/net';
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
    stack = await LocalStack.create();
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
    expect(stack.output).toMatch(/demo data: \d+ demand rows imported, \d+ weekly series/);
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
