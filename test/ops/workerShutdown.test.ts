import { isFinished, waitForJob } from '../support/jobs';
import { setUpEtlTenant, startWorkerProcess, type EtlTenant, type WorkerProcess } from '../support/workerProcess';
import { sql, withTenant } from '../../db/pool';

/**
 * SIGTERM to a worker process mid-step (a deploy, `docker compose restart worker`): it stops polling, the activity it
 * is running finishes and reports (WORKER_SHUTDOWN_GRACE) instead of being cancelled, it exits 0, and once a worker is
 * back the step completes with the same rows as an undisturbed run.
 */

let e: EtlTenant;
let worker: WorkerProcess;
const startWorker = () => startWorkerProcess(e.taskQueue, { WORKER_SHUTDOWN_GRACE: '60s' });

beforeAll(async () => {
  e = await setUpEtlTenant('sigterm', 1000);
  worker = startWorker();
}, 120_000);

afterAll(async () => {
  worker?.child.kill('SIGKILL');
  await e?.close();
});

test('a worker sent SIGTERM mid-step finishes its activity, exits 0, and the step completes with the same results', async () => {
  const { t, client, tenant: a, planner, pipelineId, snapshot } = e;
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

  worker = startWorker();
  const done = await waitForJob(t, planner, second.body.job_id, isFinished, 180_000);
  expect([done.status, done.error]).toEqual(['completed', null]);
  expect(await snapshot()).toEqual(undisturbed);
}, 420_000);
