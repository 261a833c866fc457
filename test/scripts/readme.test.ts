import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { LocalStack, ROOT } from '../support/stack';

/**
 * What a new user does with a fresh clone, read off the README itself: its start command, the demo login of its table,
 * its curl lines, then `GET /api/forecasts/{unique_id}` once the demo forecast completes. Only the ports and the data
 * directory are overridden (the variables docs/GETTING_STARTED.md lists), so a developer's stack is never touched.
 */
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const BASH_BLOCKS = [...README.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
const README_PORT = 8002;

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

describe('the README, followed literally', () => {
  let stack: LocalStack;
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

  beforeAll(async () => {
    stack = await LocalStack.create();
    const { argv, comment } = startCommand();
    expect(comment).toMatch(/demo tenant/);
    expect(comment).toContain(`API on :${README_PORT}`);
    await stack.launch(argv);
  }, 300_000);

  afterAll(() => stack?.dispose(), 60_000);

  test('the launcher prints the demo admin login of the README table', () => {
    const admin = demoAdmin();
    expect(admin).toEqual({ email: 'admin@demo.local', password: 'demo-admin-123' });
    expect(stack.output).toMatch(new RegExp(`admin\\s+${admin.email.replace(/\./g, '\\.')} / ${admin.password}\\n`));
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
    const jobId = /forecasting them now as job (\S+)/.exec(stack.output)![1];
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
    expect(stack.output).toContain('weekly freeze of the demo pipeline: Temporal Schedule freeze-');
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
