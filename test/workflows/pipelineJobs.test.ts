import http from 'node:http';
import { sql, withTenant } from '../../db/pool';
import { createPipeline, insertWeeklyDemand, isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let p1: number;
let p3: number;
let s4: number;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('jobs');
  planner = await t.login(a.planner);
  [p1, p3] = await Promise.all(['Main', 'What-if'].map((name) => createPipeline(t, planner, name)));
  [, s4] = await Promise.all(['Base', 'Alt'].map(async (name) => (await t.call('post', '/api/forecast/scenarios', { token: planner, body: { name } })).body.id as number));
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

const run = (step: string, body: Record<string, unknown> = {}, token = planner) =>
  t.call('post', `/api/pipeline/run/${step}`, { token, body: { pipeline_id: p1, ...body } });

test('steps: the ten pipeline steps plus eoq, allocation and the service backtest', async () => {
  const res = await t.call('get', '/api/pipeline/steps', { token: planner });
  expect(res.body.map((s: { id: string }) => s.id)).toEqual([
    'etl', 'outlier', 'characterization', 'forecast', 'backtest', 'backtest-forecast', 'best-method', 'distribution', 'meio', 'supply', 'eoq', 'allocation', 'service-backtest',
  ]);
  expect(res.body.find((s: { id: string }) => s.id === 'etl').available).toBe(true);
});

describe('etl', () => {
  test('turns raw demand into Monday weeks with zeros filled, with statistics, through a real workflow', async () => {
    await withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('A', 'Item A'), ('B', 'Item B')`);
      await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Site 1')`);
      await tx.query(sql.unsafe`
        INSERT INTO demand_history (item_id, site_id, ds, qty)
        SELECT i.id, s.id, d.ds::date, d.qty FROM (VALUES
          ('A', '2026-01-05', 3), ('A', '2026-01-07', 2), ('A', '2026-01-20', 4),
          ('B', '2026-01-18', 1), ('B', '2026-01-26', 5)
        ) d(item, ds, qty) JOIN items i ON i.xuid = d.item CROSS JOIN sites s WHERE s.xuid = 'S1'`);
    });
    const started = await run('etl');
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ step: 'etl', status: 'queued' });
    const job = await waitForJob(t, planner, started.body.job_id, isFinished);
    expect(job.status).toBe('completed');
    expect(job.result).toEqual({ step: 'etl', series: 2, rows: 7, chunks: 1 });
    expect(job.progress).toEqual({ done: 2, total: 2 });
    expect(job.log.map((l) => l.message)).toEqual(expect.arrayContaining(['etl: started', 'etl: 2 series in 1 chunks, up to the week of 2026-01-26', 'completed']));

    const weekly = await withTenant(t.db, a.accountId, (tx) =>
      tx.any(sql.unsafe`SELECT i.xuid, w.week, w.y FROM series_weekly w JOIN items i ON i.id = w.item_id ORDER BY i.xuid, w.week`),
    );
    expect(weekly).toEqual([
      { xuid: 'A', week: '2026-01-05', y: 5 },
      { xuid: 'A', week: '2026-01-12', y: 0 },
      { xuid: 'A', week: '2026-01-19', y: 4 },
      { xuid: 'A', week: '2026-01-26', y: 0 },
      { xuid: 'B', week: '2026-01-12', y: 1 },
      { xuid: 'B', week: '2026-01-19', y: 0 },
      { xuid: 'B', week: '2026-01-26', y: 5 },
    ]);
    const stats = await withTenant(t.db, a.accountId, (tx) =>
      tx.any(sql.unsafe`SELECT i.xuid, s.n_observations, s.date_range_start, s.date_range_end, s.mean, s.zero_ratio, s.total_demand FROM series s JOIN items i ON i.id = s.item_id ORDER BY i.xuid`),
    );
    expect(stats).toEqual([
      { xuid: 'A', n_observations: 4, date_range_start: '2026-01-05', date_range_end: '2026-01-26', mean: 2.25, zero_ratio: 0.5, total_demand: 9 },
      { xuid: 'B', n_observations: 3, date_range_start: '2026-01-12', date_range_end: '2026-01-26', mean: 2, zero_ratio: expect.closeTo(1 / 3, 12), total_demand: 6 },
    ]);

    // a second run rewrites the same rows: no duplicates
    const again = await run('etl');
    expect((await waitForJob(t, planner, again.body.job_id, isFinished)).status).toBe('completed');
    const count = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*) FROM series_weekly`));
    expect(count).toBe(7);
  });
});

test('a step that cannot do its work fails its job, never pretends to succeed', async () => {
  // allocation draws on a completed supply run of the pipeline; there is none yet
  const res = await t.call('post', '/api/pipeline/run/allocation', { token: planner, body: { pipeline_id: p3 } });
  const job = await waitForJob(t, planner, res.body.job_id, isFinished);
  expect(job.status).toBe('failed');
  expect(job.error).toMatch(new RegExp(`^allocation: no completed supply run for pipeline ${p3} and supply scenario \\d+; run the supply step first$`));
});

test('run_id makes a retried request idempotent', async () => {
  const first = await run('etl', { run_id: 'client-run-42' });
  const second = await run('etl', { run_id: 'client-run-42' });
  expect(first.body.job_id).toBe('client-run-42');
  expect(second.body.job_id).toBe('client-run-42');
  await waitForJob(t, planner, 'client-run-42', isFinished);
  // the job row is finished by the workflow's last activity, just before Temporal records the workflow as completed
  // and its visibility catches up: poll briefly for the execution status
  let list = await t.call('get', '/api/pipeline/jobs', { token: planner, query: { limit: 1000 } });
  for (let i = 0; i < 50 && list.body.find((j: { job_id: string }) => j.job_id === 'client-run-42').temporal_status !== 'COMPLETED'; i++) {
    await new Promise((r) => setTimeout(r, 200));
    list = await t.call('get', '/api/pipeline/jobs', { token: planner, query: { limit: 1000 } });
  }
  expect(list.body.filter((j: { job_id: string }) => j.job_id === 'client-run-42')).toHaveLength(1);
  expect(list.body.find((j: { job_id: string }) => j.job_id === 'client-run-42').temporal_status).toBe('COMPLETED');
});

test('a saved process workflow runs its steps on its pipeline and records last_run_at', async () => {
  const wf = await t.call('post', '/api/process-workflows', { token: planner, body: { name: 'Weekly', steps: ['etl', 'supply'], segment_ids: [], scenario_pipeline_id: p1, step_workers: { etl: 2 } } });
  expect(wf.status).toBe(201);
  const started = await t.call('post', `/api/process-workflows/${wf.body.workflow_id}/run`, { token: planner, body: {} });
  expect(started.status).toBe(200);
  const job = await waitForJob(t, planner, started.body.job_id, isFinished);
  expect(job.children.map((c) => [c.step, c.status])).toEqual([['etl', 'completed'], ['supply', 'completed']]);
  const list = await t.call('get', '/api/process-workflows', { token: planner });
  expect(list.body.find((w: { workflow_id: number }) => w.workflow_id === wf.body.workflow_id).last_run_at).not.toBeNull();
  const noPipeline = await t.call('post', '/api/process-workflows', { token: planner, body: { name: 'Loose', steps: ['etl'] } });
  const refused = await t.call('post', `/api/process-workflows/${noPipeline.body.workflow_id}/run`, { token: planner, body: {} });
  expect(refused.status).toBe(400);
  expect(refused.body.detail).toMatch(/no scenario_pipeline_id/);
  expect((await t.call('post', '/api/process-workflows/999999/run', { token: planner, body: {} })).status).toBe(404);
});

test('run-all runs the steps in order as child jobs, supply with its allocation under it', async () => {
  const res = await t.call('post', '/api/pipeline/run-all', { token: planner, body: { pipeline_id: p3, scenario_id: s4 } });
  expect(res.status).toBe(200);
  const job = await waitForJob(t, planner, res.body.job_id, isFinished, 300_000);
  expect([job.status, job.error]).toEqual(['completed', null]);
  const ran = ['etl', 'outlier', 'characterization', 'forecast', 'backtest', 'backtest-forecast', 'best-method', 'distribution', 'meio', 'eoq', 'supply'];
  expect(job.children.map((c) => [c.step, c.status])).toEqual(ran.map((s) => [s, 'completed']));
  const steps = await t.call('get', `/api/process-log/${res.body.job_id}/steps`, { token: planner });
  // the allocation is the supply job's child, and a step of the same run
  expect(steps.body.map((s: { step: string; run_id: string; pipeline_id: number }) => [s.step, s.run_id, s.pipeline_id])).toEqual(
    [...ran, 'allocation'].map((s) => [s, res.body.job_id, p3]),
  );
  const runs = await t.call('get', '/api/process-log/runs', { token: planner });
  expect(runs.body.find((r: { run_id: string }) => r.run_id === res.body.job_id)).toMatchObject({ kind: 'run_all', step_count: 12, failed_steps: 0, status: 'completed' });
  const tail = await t.call('get', `/api/process-log/step/${job.children[0].job_id}/tail`, { token: planner, query: { limit: 2 } });
  expect(tail.body.lines.map((l: { message: string }) => l.message)).toEqual([expect.stringMatching(/^etl: chunk 1\/1/), 'completed']);
});

test('process log: filters, sort, pagination and step names', async () => {
  const all = await t.call('get', '/api/process-log', { token: planner, query: { limit: 1000 } });
  expect(all.body.total).toBeGreaterThanOrEqual(6);
  const failed = await t.call('get', '/api/process-log', { token: planner, query: { status: 'failed', limit: 1000 } });
  expect(failed.body.items.every((i: { status: string }) => i.status === 'failed')).toBe(true);
  const etl = await t.call('get', '/api/process-log', { token: planner, query: { step: 'etl', sort_by: 'created_at', sort_dir: 'asc', limit: 2 } });
  expect(etl.body.items).toHaveLength(2);
  expect(etl.body.items[0].created_at <= etl.body.items[1].created_at).toBe(true);
  const byPipeline = await t.call('get', '/api/process-log', { token: planner, query: { pipeline_id: p3 } });
  expect(new Set(byPipeline.body.items.map((i: { pipeline_id: number }) => i.pipeline_id))).toEqual(new Set([p3]));
  const today = new Date().toISOString().slice(0, 10);
  expect((await t.call('get', '/api/process-log', { token: planner, query: { date_from: today, date_to: today } })).body.total).toBe(all.body.total);
  expect((await t.call('get', '/api/process-log', { token: planner, query: { date_to: '2020-01-01' } })).body.total).toBe(0);
  const names = await t.call('get', '/api/process-log/step-names', { token: planner });
  expect(names.body).toEqual(expect.arrayContaining(['etl', 'forecast', 'outlier']));
  expect((await t.call('get', '/api/process-log', { token: planner, query: { sort_by: 'nope' } })).status).toBe(400);
});

test('bad input and permissions', async () => {
  const user = await t.addUser(a.accountId, { role: 'user' });
  const noRun = await t.login(user);
  expect((await run('etl', {}, noRun)).status).toBe(403);
  const bad = await run('unknown-step');
  expect(bad.status).toBe(400);
  expect(bad.body.detail).toMatch(/^path\.step must be one of/);
  const noPipeline = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: {} });
  expect(noPipeline.status).toBe(400);
  expect(noPipeline.body.detail).toMatch(/pipeline_id is required/);
  const zero = await run('etl', { pipeline_id: 0 });
  expect(zero.body.detail).toMatch(/pipeline_id is required/);
  expect((await run('etl', { n_workers: 0 })).body.detail).toBe('body.n_workers must be >= 1');
  expect((await t.call('get', '/api/pipeline/jobs/nope', { token: planner })).status).toBe(404);
  const unknownPipeline = await run('etl', { pipeline_id: 999999 });
  expect(unknownPipeline.status).toBe(404);
  expect(unknownPipeline.body.detail).toBe('pipeline_id: pipeline 999999 not found');
  expect((await run('etl', { scenario_id: 999999 })).body.detail).toBe('scenario_id: forecast scenario 999999 not found');
});

test('the job stream sends each log line as an event and ends with the status', async () => {
  const res = await run('etl');
  const events = await new Promise<Array<{ event: string; data: any }>>((resolve, reject) => {
    const { port } = t.server.address() as { port: number };
    const tokenParam = encodeURIComponent(planner);
    http.get(`http://127.0.0.1:${port}/api/pipeline/jobs/${res.body.job_id}/stream?token=${tokenParam}`, (resp) => {
      expect(resp.headers['content-type']).toMatch(/text\/event-stream/);
      let buf = '';
      const out: Array<{ event: string; data: any }> = [];
      resp.on('data', (c) => {
        buf += c.toString();
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) out.push({ event, data: JSON.parse(data) });
        }
      });
      resp.on('end', () => resolve(out));
      resp.on('error', reject);
    });
  });
  const logs = events.filter((e) => e.event === 'log').map((e) => e.data.message);
  expect(logs[0]).toBe('etl: started');
  expect(logs[logs.length - 1]).toBe('completed');
  expect(events[events.length - 1]).toEqual({ event: 'end', data: { job_id: res.body.job_id, status: 'completed', error: null } });
  const ids = events.filter((e) => e.event === 'log').map((e) => e.data.id);
  expect(ids).toEqual([...ids].sort((x, y) => x - y));
});

describe('kill, kill-all and reset', () => {
  let b: TestTenant;
  let plannerB: string;
  let pb: number;
  beforeAll(async () => {
    b = await t.newTenant('jobs-b');
    plannerB = await t.login(b.planner);
    pb = await createPipeline(t, plannerB, 'B main');
    for (const [tenant, token] of [[a, planner], [b, plannerB]] as const) {
      await insertWeeklyDemand(t.db, tenant.accountId, 1500, 156);
      await t.call('post', '/api/config/update', { token: await t.login(tenant.admin), body: { updates: [{ path: 'pipeline.chunk_size', value: 20 }, { path: 'pipeline.n_workers', value: 1 }] } });
      void token;
    }
  }, 120_000);

  test('kill during a running chunk stops the job within seconds and marks it killed', async () => {
    const res = await run('etl');
    await waitForJob(t, planner, res.body.job_id, (j) => (j.progress.done ?? 0) > 0);
    const t0 = Date.now();
    const kill = await t.call('post', `/api/pipeline/jobs/${res.body.job_id}/kill`, { token: planner });
    expect(kill.status).toBe(200);
    expect(kill.body).toEqual({ job_id: res.body.job_id, status: 'killed' });
    expect(Date.now() - t0).toBeLessThan(10_000);
    const job = await waitForJob(t, planner, res.body.job_id, isFinished);
    expect(job.status).toBe('killed');
    expect(job.progress.done!).toBeLessThan(job.progress.total!);
    // it stays stopped: no more chunks after the kill
    const done = job.progress.done;
    await new Promise((r) => setTimeout(r, 1500));
    expect((await waitForJob(t, planner, res.body.job_id, isFinished)).progress.done).toBe(done);
    // killing a finished job changes nothing
    expect((await t.call('post', `/api/pipeline/jobs/${res.body.job_id}/kill`, { token: planner })).body.status).toBe('killed');
  }, 120_000);

  test("kill-all stops only the caller's account", async () => {
    const mine = await run('etl');
    const theirs = await t.call('post', '/api/pipeline/run/etl', { token: plannerB, body: { pipeline_id: pb } });
    await waitForJob(t, planner, mine.body.job_id, (j) => j.status === 'running');
    await waitForJob(t, plannerB, theirs.body.job_id, (j) => j.status === 'running');
    const res = await t.call('post', '/api/pipeline/jobs/kill-all', { token: planner });
    expect(res.status).toBe(200);
    expect(res.body.killed).toEqual([{ job_id: mine.body.job_id, status: 'killed' }]);
    const other = await t.call('get', `/api/pipeline/jobs/${theirs.body.job_id}`, { token: plannerB });
    expect(other.body.status).toBe('running');
    expect(other.body.temporal_status).toBe('RUNNING');
    // and A cannot even see B's job
    expect((await t.call('get', `/api/pipeline/jobs/${theirs.body.job_id}`, { token: planner })).status).toBe(404);
    expect((await t.call('post', `/api/pipeline/jobs/${theirs.body.job_id}/kill`, { token: planner })).status).toBe(404);
    await t.call('post', '/api/pipeline/jobs/kill-all', { token: plannerB });
  }, 120_000);

  test('reset fails only stale and zombie jobs', async () => {
    const live = await run('etl');
    await waitForJob(t, planner, live.body.job_id, (j) => j.status === 'running');
    await withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO jobs (job_id, kind, step, status, started_at, heartbeat_at) VALUES ('zombie-1', 'step', 'etl', 'running', now(), now())`);
    });
    const res = await t.call('post', '/api/pipeline/jobs/reset', { token: planner });
    expect(res.status).toBe(200);
    expect(res.body.reset).toEqual([{ job_id: 'zombie-1', reason: 'workflow unknown to Temporal' }]);
    expect((await t.call('get', '/api/pipeline/jobs/zombie-1', { token: planner })).body).toMatchObject({ status: 'failed', error: 'reset: workflow unknown to Temporal' });
    expect((await t.call('get', `/api/pipeline/jobs/${live.body.job_id}`, { token: planner })).body.status).toBe('running');
    // a workflow that Temporal still calls running but that has not heartbeated for longer than stale_job_minutes
    // (here: its task queue has no worker at all) is terminated and failed
    await withTenant(t.db, a.accountId, (tx) =>
      tx.query(sql.unsafe`INSERT INTO jobs (job_id, kind, step, status, started_at, heartbeat_at) VALUES ('stalled-1', 'step', 'etl', 'running', now() - interval '3 hours', now() - interval '2 hours')`),
    );
    await tw.client.workflow.start('runStep', { workflowId: 'stalled-1', taskQueue: `nobody-polls-${Date.now()}`, args: [{}] });
    await t.call('post', '/api/config/update', { token: await t.login(a.admin), body: { path: 'pipeline.stale_job_minutes', value: 60 } });
    const again = await t.call('post', '/api/pipeline/jobs/reset', { token: planner });
    expect(again.body.reset).toEqual([{ job_id: 'stalled-1', reason: 'no heartbeat for more than 60 minutes' }]);
    expect((await tw.client.workflow.getHandle('stalled-1').describe()).status.name).toBe('TERMINATED');
    expect((await t.call('get', '/api/pipeline/jobs/stalled-1', { token: planner })).body).toMatchObject({ status: 'failed', error: 'reset: no heartbeat for more than 60 minutes' });
    expect((await t.call('get', `/api/pipeline/jobs/${live.body.job_id}`, { token: planner })).body.status).toMatch(/running|completed/);
    await t.call('post', `/api/pipeline/jobs/${live.body.job_id}/kill`, { token: planner });
  }, 120_000);
});
