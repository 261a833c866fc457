import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { connectTemporal } from '../../temporal/client';
import { sql, withTenant } from '../../db/pool';
import { createPipeline, insertWeeklyDemand, isFinished, waitForJob } from '../support/jobs';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/**
 * SIGTERM to a worker process mid-step (a deploy, `docker compose restart worker`): it stops polling, the activity it
 * is running finishes and reports (WORKER_SHUTDOWN_GRACE) instead of being cancelled, it exits 0, and once a worker is
 * back the step completes with the same rows as an undisturbed run.
 */

const ROOT = path.join(__dirname, '../..');
const taskQueue = `sigterm-${randomUUID()}`;

function startWorkerProcess(): { child: ChildProcess; output: () => string } {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'temporal/worker.ts'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'info', NODE_ENV: 'development', WORKER_SHUTDOWN_GRACE: '60s' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c) => (out += c.toString()));
  child.stderr!.on('data', (c) => (out += c.toString()));
  return { child, output: () => out };
}

let connection: Connection;
let client: Client;
let t: TestApp;
let a: TestTenant;
let planner: string;
let worker: ReturnType<typeof startWorkerProcess>;
let pipelineId: number;

beforeAll(async () => {
  ({ connection, client } = await connectTemporal(process.env.TEMPORAL_ADDRESS!, process.env.TEMPORAL_NAMESPACE ?? 'default'));
  t = await startTestApp({ temporal: { client, taskQueue } });
  a = await t.newTenant('sigterm');
  planner = await t.login(a.planner);
  pipelineId = await createPipeline(t, planner, 'Sigterm');
  await insertWeeklyDemand(t.db, a.accountId, 1000, 156);
  await t.call('post', '/api/config/update', { token: await t.login(a.admin), body: { updates: [{ path: 'pipeline.chunk_size', value: 25 }, { path: 'pipeline.n_workers', value: 1 }] } });
  worker = startWorkerProcess();
}, 120_000);

afterAll(async () => {
  worker?.child.kill('SIGKILL');
  await t.close();
  await connection.close();
});

const snapshot = () =>
  withTenant(t.db, a.accountId, (tx) =>
    tx.one(sql.unsafe`
      SELECT count(*)::int AS rows, sum(y)::float8 AS total,
        md5(string_agg(item_id || ',' || site_id || ',' || week || ',' || y, ';' ORDER BY item_id, site_id, week)) AS digest
      FROM series_weekly`),
  );

test('a worker sent SIGTERM mid-step finishes its activity, exits 0, and the step completes with the same results', async () => {
  const first = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
  expect((await waitForJob(t, planner, first.body.job_id, isFinished, 180_000)).status).toBe('completed');
  const undisturbed = await snapshot();
  expect(undisturbed.rows).toBe(1000 * 156);

  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM series_weekly`));
  const second = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
  const midway = await waitForJob(t, planner, second.body.job_id, (j) => (j.progress.done ?? 0) >= 100, 180_000);
  expect(midway.status).toBe('running');
  const exited = new Promise<number | null>((r) => worker.child.once('exit', (code) => r(code)));
  worker.child.kill('SIGTERM');
  expect(await exited).toBe(0);

  // no activity attempt was cancelled or failed by the shutdown: the one running finished and reported
  const history = await client.workflow.getHandle(second.body.job_id).fetchHistory();
  const events = history.events ?? [];
  expect(events.filter((e) => e.activityTaskFailedEventAttributes || e.activityTaskCanceledEventAttributes || e.activityTaskTimedOutEventAttributes)).toEqual([]);
  const started = events.filter((e) => e.activityTaskStartedEventAttributes).map((e) => Number(e.activityTaskStartedEventAttributes!.attempt));
  expect(started.every((attempt) => attempt === 1)).toBe(true);

  worker = startWorkerProcess();
  const done = await waitForJob(t, planner, second.body.job_id, isFinished, 180_000);
  expect([done.status, done.error]).toEqual(['completed', null]);
  expect(await snapshot()).toEqual(undisturbed);
}, 420_000);
