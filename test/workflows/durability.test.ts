import { Worker } from '@temporalio/worker';
import { createPipeline, insertWeeklyDemand, isFinished, waitForJob } from '../support/jobs';
import { workflowBundle } from '../support/temporal';
import { setUpEtlTenant, startWorkerProcess, type EtlTenant, type WorkerProcess } from '../support/workerProcess';
import { sql, withTenant } from '../../db/pool';

let e: EtlTenant;
let worker: WorkerProcess;

beforeAll(async () => {
  e = await setUpEtlTenant('durable', 1500);
  worker = startWorkerProcess(e.taskQueue);
}, 120_000);

afterAll(async () => {
  worker?.child.kill('SIGKILL');
  await e?.close();
});

test('a worker killed with SIGKILL mid-step is replaced and the job finishes with the same results', async () => {
  const { t, tenant: a, planner, pipelineId, snapshot } = e;
  const first = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
  expect((await waitForJob(t, planner, first.body.job_id, isFinished, 120_000)).status).toBe('completed');
  const undisturbed = await snapshot();
  expect(undisturbed.rows).toBe(1500 * 156);

  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM series_weekly`));
  const second = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
  const midway = await waitForJob(t, planner, second.body.job_id, (j) => (j.progress.done ?? 0) >= 200, 120_000);
  expect(midway.status).toBe('running');
  worker.child.kill('SIGKILL');
  await new Promise((r) => worker.child.once('exit', r));

  // with no worker the job is still running, not failed: Temporal keeps it until a worker comes back
  await new Promise((r) => setTimeout(r, 1000));
  const orphan = await t.call('get', `/api/pipeline/jobs/${second.body.job_id}`, { token: planner });
  expect(orphan.body.status).toBe('running');
  expect(orphan.body.temporal_status).toBe('RUNNING');

  worker = startWorkerProcess(e.taskQueue);
  const done = await waitForJob(t, planner, second.body.job_id, isFinished, 120_000);
  expect(done.status).toBe('completed');
  expect(done.result).toEqual({ step: 'etl', series: 1500, rows: 1500 * 156, chunks: 60 });
  expect(await snapshot()).toEqual(undisturbed);
}, 240_000);

test('the workflows replay deterministically from their recorded histories', async () => {
  const { t, client } = e;
  // a small tenant of its own, so run-all goes through every forecasting step in seconds
  const b = await t.newTenant('replay');
  const bPlanner = await t.login(b.planner);
  const bPipeline = await createPipeline(t, bPlanner, 'Replay');
  await insertWeeklyDemand(t.db, b.accountId, 12, 104);
  const etl = await t.call('post', '/api/pipeline/run/etl', { token: bPlanner, body: { pipeline_id: bPipeline, n_workers: 3 } });
  await waitForJob(t, bPlanner, etl.body.job_id, isFinished, 120_000);
  const all = await t.call('post', '/api/pipeline/run-all', { token: bPlanner, body: { pipeline_id: bPipeline } });
  const runAll = await waitForJob(t, bPlanner, all.body.job_id, isFinished, 180_000);
  // every forecasting step ran as a child before the first step that is not built yet stopped the sequence
  expect(runAll.children.map((c) => [c.step, c.status]).slice(0, 8)).toEqual(
    ['etl', 'outlier', 'characterization', 'forecast', 'backtest', 'backtest-forecast', 'best-method', 'distribution'].map((s) => [s, 'completed']),
  );
  const ids = [etl.body.job_id, all.body.job_id, ...runAll.children.map((c) => c.job_id)];
  const histories = await Promise.all(ids.map(async (workflowId) => ({ workflowId, history: await client.workflow.getHandle(workflowId).fetchHistory() })));
  const results = Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories);
  let replayed = 0;
  for await (const r of results) {
    expect([r.workflowId, r.error]).toEqual([r.workflowId, undefined]);
    replayed += 1;
  }
  expect(replayed).toBe(ids.length);
}, 240_000);
