import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isPortOpen, waitFor } from '../../lib/net';
import { LocalStack, ROOT } from '../support/stack';

/**
 * One whole local stack, started the way the README says, then put through what the launcher promises: a second
 * start, Ctrl-C, a restart on the same data, and a worker or the Temporal dev server dying under it. One stack
 * rather than one per promise: each fresh stack is an initdb, the migrations, the demo tenant's data and its
 * planning job, about 25 CPU seconds before the first assertion. The tests run in file order and each starts from
 * the state the one before it left.
 */
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const BASH_BLOCKS = [...README.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
const README_PORT = 8002;
const RUN = [process.execPath, '--import', 'tsx', 'scripts/start.ts'];

/** The first command of the first bash block, the one the README says starts the stack, without its comment. */
function startCommand(): { argv: string[]; comment: string } {
  const line = BASH_BLOCKS[0].split('\n')[0];
  const [command, comment = ''] = line.split(/\s+#\s*/, 2);
  return { argv: command.trim().split(/\s+/), comment };
}

/** The bash block with the curl lines: the login into TOKEN, then /api/auth/me. */
const curlBlock = (): string => BASH_BLOCKS.find((b) => b.includes('/api/auth/login') && b.includes('/api/auth/me'))!;

/** The demo admin row of the README's table: | demo admin | `email` / `password` | */
function demoAdmin(): { email: string; password: string } {
  const m = /\|\s*demo admin\s*\|\s*`([^`]+)`\s*\/\s*`([^`]+)`\s*\|/.exec(README)!;
  return { email: m[1], password: m[2] };
}

let stack: LocalStack;
/** What the first start printed: later launches replace `stack.output`. */
let firstOutput: string;

beforeAll(async () => {
  // only the ports and the data directory are overridden (the variables docs/GETTING_STARTED.md lists), so a
  // developer's stack is never touched
  stack = await LocalStack.create();
  const { argv, comment } = startCommand();
  expect(comment).toMatch(/demo tenant/);
  expect(comment).toContain(`API on :${README_PORT}`);
  await stack.launch(argv);
  firstOutput = stack.output;
}, 300_000);

afterAll(() => stack?.dispose(), 60_000);

/**
 * What a new user does with a fresh clone, read off the README itself: its start command, the demo login of its table,
 * its curl lines, then `GET /api/forecasts/{unique_id}` once the demo forecast completes.
 */
describe('the README, followed literally', () => {
  let token: string;
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${stack.apiUrl}${p}`, {
      method, headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const waitForJob = async (jobId: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = (await api('GET', `/api/pipeline/jobs/${jobId}`)).body;
      if (['completed', 'failed', 'killed'].includes(job.status)) return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  };

  test('the launcher prints the demo admin login of the README table', () => {
    const admin = demoAdmin();
    expect(admin).toEqual({ email: 'admin@demo.local', password: 'demo-admin-123' });
    expect(firstOutput).toMatch(new RegExp(`admin\\s+${admin.email.replace(/\./g, '\\.')} / ${admin.password}\\n`));
    expect(curlBlock()).toContain(JSON.stringify(admin).replace(/\s/g, ''));
  });

  test('the curl lines log in and answer /api/auth/me', () => {
    // the block as written, on the test's port; the token is echoed after it for the reads that follow
    const script = `set -euo pipefail\n${curlBlock().replaceAll(`localhost:${README_PORT}`, `localhost:${stack.ports.api}`)}\nprintf '\\n%s\\n' "$TOKEN"\n`;
    const run = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect([run.status, run.stderr]).toEqual([0, '']);
    const [me, tokenLine] = run.stdout.trim().split('\n');
    token = tokenLine;
    expect(JSON.parse(me)).toMatchObject({ email: demoAdmin().email, role: 'admin', account_name: 'Demo' });
  });

  test('once the demo forecast job completes, GET /api/forecasts/{unique_id} without parameters has the forecasts', async () => {
    const series = Number(/filled with (\d+) generated series/.exec(README)![1]);
    const jobId = /forecasting them now as job (\S+)/.exec(firstOutput)![1];
    const job = await waitForJob(jobId, 400_000);
    expect([job.status, job.error]).toEqual(['completed', null]);

    const pipelines = (await api('GET', '/api/scenario-pipeline')).body as Array<{ id: number; name: string; forecast_scenario_id: number | null; last_run_at: string | null }>;
    const demo = pipelines.find((p) => p.name === 'Demo pipeline')!;
    expect(demo.last_run_at).not.toBeNull();

    const [first] = (await api('GET', '/api/series?limit=1')).body as Array<{ unique_id: string }>;
    const forecasts = await api('GET', `/api/forecasts/${first.unique_id}`);
    expect(forecasts.status).toBe(200);
    expect(forecasts.body.pipeline_id).toBe(demo.id);
    expect(Object.keys(forecasts.body.forecasts).length).toBeGreaterThan(0);
    expect(forecasts.body.best_method).not.toBeNull();
    // the other reads without pipeline_id pick the same pipeline
    const metrics = await api('GET', `/api/metrics/${first.unique_id}`);
    expect([metrics.body.pipeline_id, Object.keys(metrics.body.metrics).length > 0]).toEqual([demo.id, true]);
    const best = await api('GET', '/api/best-methods');
    expect(best.body).toMatchObject({ pipeline_id: demo.id, total_series: series });
    // the demo's supersession chains give a successor a series of its own where it had none (document 2 §4.4 rule 3)
    expect(best.body.series_in_scope).toBeGreaterThanOrEqual(series);
    // the same job planned supply along the demo network, with its allocation
    const scenario = ((await api('GET', '/api/supply/scenarios')).body as Array<{ id: number; is_default: boolean }>).find((s) => s.is_default)!;
    const orders = await api('GET', `/api/supply/orders?pipeline_id=${demo.id}&scenario_id=${scenario.id}&limit=5`);
    expect(orders.status).toBe(200);
    expect(orders.body.length).toBeGreaterThan(0);
    const dashboard = await api('GET', `/api/supply/dashboard?pipeline_id=${demo.id}&scenario_id=${scenario.id}`);
    expect(dashboard.body.run).toMatchObject({ status: 'completed', checks: { ok: true } });
  }, 450_000);

  test('the demo pipeline has its weekly freeze schedule, visible in Temporal', async () => {
    const demo = ((await api('GET', '/api/scenario-pipeline')).body as Array<{ id: number; name: string }>).find((p) => p.name === 'Demo pipeline')!;
    expect(firstOutput).toContain('weekly freeze of the demo pipeline: Temporal Schedule freeze-');
    const schedule = await api('GET', `/api/history/schedule?pipeline_id=${demo.id}`);
    expect(schedule.body).toMatchObject({ exists: true, paused: false, timezone: 'UTC', hour: 6 });
    expect(new Date(schedule.body.next_runs[0]).getUTCDay()).toBe(1);
  });

  test('the demo pipeline runs under its baseline forecast scenario: a step with that scenario_id starts and completes', async () => {
    const [baseline, ...more] = (await api('GET', '/api/forecast/scenarios?is_baseline=true')).body as Array<{ id: number; name: string }>;
    expect([baseline.name, more]).toEqual(['Baseline', []]);
    const demo = ((await api('GET', '/api/scenario-pipeline')).body as Array<{ id: number; name: string; forecast_scenario_id: number | null }>).find((p) => p.name === 'Demo pipeline')!;
    expect(demo.forecast_scenario_id).toBe(baseline.id);
    const run = await api('POST', '/api/pipeline/run/best-method', { pipeline_id: demo.id, scenario_id: baseline.id });
    expect(run.status).toBe(200);
    expect((await waitForJob(run.body.job_id, 120_000)).status).toBe('completed');
    expect((await api('GET', '/api/best-methods')).body.pipeline_id).toBe(demo.id);
  }, 150_000);
});

/** The launcher itself, for real: embedded PostgreSQL, the Temporal dev server, worker and API. */
describe('the stack launcher', () => {
  test('its first log counts the migrations it applied, says where the demo data went, and ends with the banner, not the bundler', () => {
    const tenantFiles = fs.readdirSync(path.join(ROOT, 'db/migrations/tenant')).filter((f) => /^\d+_.+\.sql$/.test(f)).length;
    const masterFiles = fs.readdirSync(path.join(ROOT, 'db/migrations/master')).filter((f) => /^\d+_.+\.sql$/.test(f)).length;
    // a fresh data directory: every master migration, and every tenant one for the demo tenant created on the way
    expect(firstOutput).toContain(`migrations: ${masterFiles} master, ${tenantFiles} tenant applied (${tenantFiles} to the new demo tenant)`);
    // the demo data went through import staging and etl, then into the planning job
    expect(firstOutput).toMatch(/demo data: \d+ demand rows imported, \d+ weekly series \(import \S+, etl \S+\); forecasting them now as job \S+/);
    expect(firstOutput).not.toMatch(/webpack|workflow-bundle/i);
  });

  test('prints working demo logins and the URLs', async () => {
    const { ports } = stack;
    expect(firstOutput).toContain(`http://localhost:${ports.api}/docs`);
    expect(firstOutput).toMatch(new RegExp(`Temporal UI\\s+http://(localhost|127\\.0\\.0\\.1):${ports.ui}`));
    expect(firstOutput).toMatch(/worker healthy: PostgreSQL \d+/);
    const m = /admin\s+(\S+@\S+) \/ (\S+)/.exec(firstOutput)!;
    const res = await fetch(`http://localhost:${ports.api}/api/auth/login`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: m[1], password: m[2] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; user: { role: string; account_name: string } };
    expect(body.user).toMatchObject({ role: 'admin', account_name: 'Demo' });
    const cfg = await fetch(`http://localhost:${ports.api}/api/config`, { headers: { Authorization: `Bearer ${body.access_token}` } });
    expect(cfg.status).toBe(200);
    const reload = await fetch(`http://localhost:${ports.api}/api/reload`, { method: 'POST', headers: { Authorization: `Bearer ${body.access_token}` } });
    const sizes = ((await reload.json()) as { cache_sizes: { series: number; items: number } }).cache_sizes;
    expect(sizes.items).toBe(100);
    expect(sizes.series).toBeGreaterThan(250);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);
  });

  test('a second start while it runs does not break it', () => {
    const second = spawnSync(RUN[0], RUN.slice(1), { cwd: ROOT, env: stack.env, encoding: 'utf8', timeout: 60_000 });
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/already/);
  });

  test('Ctrl-C stops everything', async () => {
    expect(await stack.stop('SIGINT')).toBe(0);
    await allStopped();
  }, 60_000);

  test('starting again on the same data reuses it: demo tenant kept, logins still work; SIGTERM stops it', async () => {
    // The first start bundled the workflows itself, as the README's user's does (and said nothing of it, above); the
    // next four starts load the run's bundle instead of running webpack again (2.6 CPU-s a start)
    stack.env.WORKFLOW_BUNDLE = process.env.TEST_WORKFLOW_BUNDLE;
    await stack.launch(RUN);
    expect(stack.output).toMatch(/Demo account\s+Demo\n/);
    expect(stack.output).not.toMatch(/loading demo data/);
    expect(stack.output).toMatch(/migrations: 0 master, 0 tenant applied/);
    const res = await fetch(`http://localhost:${stack.ports.api}/api/auth/login`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'admin@demo.local', password: 'demo-admin-123' }),
    });
    expect(res.status).toBe(200);
    expect(await stack.stop('SIGTERM')).toBe(0);
  }, 300_000);
});

const allStopped = async () => {
  for (const port of [stack.ports.api, stack.ports.pg, stack.ports.temporal, stack.ports.ui]) expect([port, await isPortOpen(port)]).toEqual([port, false]);
};

/** A piece of the stack dying on its own must not leave a half-working stack behind, nor a silent one. */
describe('the stack launcher when one of its processes dies', () => {
  /** Kills the launcher's child whose command line contains `marker` and resolves with the launcher's exit code. */
  async function killChild(marker: string): Promise<number | null> {
    const ps = spawnSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).stdout;
    const line = ps.split('\n').map((l) => l.trim().split(/\s+/)).find(([, ppid, ...args]) => Number(ppid) === stack.child.pid && args.join(' ').includes(marker));
    expect(line).toBeDefined();
    const exited = new Promise<number | null>((r) => stack.child.once('exit', (code) => r(code)));
    process.kill(Number(line![0]), 'SIGKILL');
    return exited;
  }

  const workerPids = () =>
    spawnSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).stdout.split('\n').map((l) => l.trim().split(/\s+/))
      .filter(([, ppid, ...args]) => Number(ppid) === stack.child.pid && args.join(' ').includes('temporal/worker.ts')).map(([pid]) => Number(pid));

  test('the worker killed with SIGKILL is restarted in place, said in the log; killed again past RESTART_LIMIT, the stack stops and exits 1', async () => {
    // one restart allowed: the first kill of the worker is restarted in place, the second stops the stack
    stack.env.RESTART_LIMIT = '1';
    await stack.launch(RUN);
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
  }, 300_000);

  test('the Temporal dev server killed with SIGKILL: the same, with the last lines of its log', async () => {
    await stack.launch(RUN);
    expect(await killChild('start-dev')).toBe(1);
    expect(stack.output).toMatch(/==> Temporal dev server exited with SIGKILL; stopping the rest of the stack\. Last lines of \S+temporal\.log:\n/);
    await allStopped();
  }, 300_000);
});
