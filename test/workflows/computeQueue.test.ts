import { computeTaskQueue } from '../../lib/taskQueues';
import { createPipeline, insertWeeklyDemand, isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

// The per-series chunks run on the compute queue (one at a time per worker process, lib/taskQueues.ts); everything
// else of the step stays on the workflow's own queue.
let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('compute-queue');
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

test('seriesStepChunk activities are scheduled on the compute queue; plan and bookkeeping on the main queue', async () => {
  const planner = await t.login(a.planner);
  await t.call('post', '/api/config/update', { token: await t.login(a.admin), body: { path: 'pipeline.chunk_size', value: 2 } });
  await insertWeeklyDemand(t.db, a.accountId, 5, 60);
  const pipelineId = await createPipeline(t, planner, 'Compute');
  for (const step of ['etl', 'outlier']) {
    const res = await t.call('post', `/api/pipeline/run/${step}`, { token: planner, body: { pipeline_id: pipelineId } });
    const job = await waitForJob(t, planner, res.body.job_id, isFinished, 120_000);
    expect([step, job.status]).toEqual([step, 'completed']);
    if (step !== 'outlier') continue;
    expect(job.result).toEqual({ step: 'outlier', series: 5, rows: 5, chunks: 3 });
    const history = await tw.client.workflow.getHandle(res.body.job_id).fetchHistory();
    const scheduled = (history.events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((x): x is NonNullable<typeof x> => Boolean(x))
      .map((x) => [x.activityType?.name, x.taskQueue?.name]);
    const chunks = scheduled.filter(([name]) => name === 'seriesStepChunk');
    expect(chunks).toEqual(Array.from({ length: 3 }, () => ['seriesStepChunk', computeTaskQueue(tw.taskQueue)]));
    expect(scheduled.filter(([name]) => name !== 'seriesStepChunk').every(([, q]) => q === tw.taskQueue)).toBe(true);
  }
}, 180_000);

test('a step of many chunks reports its progress every few chunks, at most 50 times, and after the last', async () => {
  const b = await t.newTenant('progress-every');
  const planner = await t.login(b.planner);
  await t.call('post', '/api/config/update', { token: await t.login(b.admin), body: { path: 'pipeline.chunk_size', value: 1 } });
  await insertWeeklyDemand(t.db, b.accountId, 104, 20);
  const pipelineId = await createPipeline(t, planner, 'Progress');
  for (const step of ['etl', 'outlier']) {
    const res = await t.call('post', `/api/pipeline/run/${step}`, { token: planner, body: { pipeline_id: pipelineId } });
    const job = await waitForJob(t, planner, res.body.job_id, isFinished, 240_000);
    expect([step, job.status, job.result.chunks, job.progress]).toEqual([step, 'completed', 104, { done: 104, total: 104 }]);
    const history = await tw.client.workflow.getHandle(res.body.job_id).fetchHistory();
    const updates = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'jobProgress').length;
    // every ceil(104 / 50) = 3 chunks: after chunks 3, 6, …, 102, then after the 104th
    expect([step, updates]).toEqual([step, 35]);
  }
}, 300_000);
