import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { sql, withTenant } from '../../db/pool';
import { connectTemporal } from '../../temporal/client';
import { isFinished, waitForJob } from '../support/jobs';
import { seedSupply, type SupplySeed } from '../support/supplySeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

const ROOT = path.join(__dirname, '../..');
const taskQueue = `freeze-kill-${randomUUID()}`;

/** A worker as its own OS process, as production runs it, so that it can be killed with SIGKILL mid-freeze (on the run's workflow bundle). */
function startWorkerProcess(): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'temporal/worker.ts'], {
    cwd: ROOT, env: { ...process.env, WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE, TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'warn', NODE_ENV: 'development' }, stdio: 'ignore',
  });
}

let connection: Connection;
let client: Client;
let t: TestApp;
let a: TestTenant;
let planner: string;
let seed: SupplySeed;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  ({ connection, client } = await connectTemporal(process.env.TEMPORAL_ADDRESS!, process.env.TEMPORAL_NAMESPACE ?? 'default'));
  t = await startTestApp({ temporal: { client, taskQueue } });
  a = await t.newTenant('freeze-kill');
  planner = await t.login(a.planner);
  seed = await seedSupply(t.db, a.accountId);
  await t.call('put', '/api/history/planning-date', { token: planner, body: { pipeline_id: seed.pipelineId, planning_date: '2026-06-03' } });
  workers.push(startWorkerProcess());
}, 120_000);

afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await t.close();
  await connection.close();
});

const state = () => withTenant(t.db, a.accountId, async (tx) => ({
  versions: await tx.any(sql.unsafe`SELECT id, archive_date::text, comment, pinned FROM history_versions ORDER BY id`),
  partitions: await tx.anyFirst(sql.unsafe`
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relname LIKE 'history\\_%' ORDER BY 1`),
  rows: await tx.oneFirst(sql.unsafe`SELECT (SELECT count(*) FROM history_forecast_results) + (SELECT count(*) FROM history_series_best_method) + (SELECT count(*) FROM history_on_hand)`),
}));

test('a freeze killed mid-way (job cancelled, worker SIGKILLed) leaves the registry and the history tables exactly as they were', async () => {
  // a first version, so that "as before" is not simply "empty"
  const first = await t.call('post', '/api/history/freeze', { token: planner, body: { pipeline_id: seed.pipelineId, comment: 'before' } });
  expect(first.status).toBe(200);
  const before = await state();
  expect(before.versions.length).toBe(1);

  // hold the week's freeze lock: the next freeze replaces 'before' (dropped inside its transaction), then waits here
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const holding = new Promise<void>((r) => (locked = r));
  const holder = withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext(${`history:${seed.pipelineId}:2026-06-01`}))`);
    locked();
    await released;
  });
  await holding;
  const freezing = t.call('post', '/api/history/freeze', { token: planner, body: { pipeline_id: seed.pipelineId, comment: 'killed' } });
  // wait until the freeze's transaction is blocked on the lock
  let waiting = 0;
  for (let i = 0; i < 200 && !waiting; i++) {
    await new Promise((r) => setTimeout(r, 100));
    waiting = Number(await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`
      SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE '%pg_advisory_xact_lock%'`)));
  }
  expect(waiting).toBe(1);
  const jobs = (await t.call('get', '/api/pipeline/jobs', { token: planner, query: { limit: 1000 } })).body.filter((j: any) => j.kind === 'freeze' && j.status === 'running');
  expect(jobs.length).toBe(1);

  // cancel the job, kill the worker process, let go of the lock
  expect((await t.call('post', `/api/pipeline/jobs/${jobs[0].job_id}/kill`, { token: planner })).status).toBe(200);
  workers[0].kill('SIGKILL');
  release();
  await holder;
  // a replacement worker finishes the cancelled workflow's bookkeeping
  workers.push(startWorkerProcess());
  const job = await waitForJob(t, planner, jobs[0].job_id, isFinished, 60_000);
  expect(job.status).toBe('killed');
  const answer = await freezing;
  expect(answer.status).toBe(502);
  expect(answer.body.detail).toMatch(new RegExp(`^freeze job ${jobs[0].job_id} failed: `));

  // the dead worker's transaction rolled back: 'before' is still there, nothing of 'killed' is
  for (let i = 0; i < 50; i++) {
    const busy = Number(await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`
      SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' OR (wait_event_type = 'Lock' AND wait_event = 'advisory')`)));
    if (!busy) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(await state()).toEqual(before);

  // and the next freeze works as usual
  const after = await t.call('post', '/api/history/freeze', { token: planner, body: { pipeline_id: seed.pipelineId, comment: 'after' } });
  expect(after.body).toMatchObject({ archive_date: '2026-06-01', replaced_archive_date: '2026-06-01', comment: 'after' });
}, 180_000);
