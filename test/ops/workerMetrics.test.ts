import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { freePort } from '../../lib/net';
import { connectTemporal } from '../../temporal/client';
import { runWorker, type RunningWorker } from '../../temporal/worker';
import { serveWorkerMetrics, WorkerMetrics } from '../../temporal/workerMetrics';
import { createPipeline, insertWeeklyDemand, isFinished, waitForJob } from '../support/jobs';
import { workflowBundle } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

// The worker's /metrics: our activity counters through an interceptor, and the Temporal SDK's own metrics through the
// runtime's Prometheus exporter (installed before any connection, as temporal/worker.ts main does).
let sdkAddress: string;
let metrics: WorkerMetrics;
let server: http.Server;
let worker: RunningWorker;
let client: Client;
let connection: Connection;
let t: TestApp;
let a: TestTenant;
const taskQueue = `test-${randomUUID()}`;

beforeAll(async () => {
  sdkAddress = `127.0.0.1:${await freePort()}`;
  Runtime.install({ logger: new DefaultLogger('WARN'), telemetryOptions: { metrics: { prometheus: { bindAddress: sdkAddress } } } });
  metrics = new WorkerMetrics();
  server = await serveWorkerMetrics(metrics, 0, '127.0.0.1', sdkAddress);
  worker = await runWorker({
    databaseUrl: process.env.DATABASE_URL!, address: process.env.TEMPORAL_ADDRESS!, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue, workflowBundle: await workflowBundle(), metrics,
  });
  ({ client, connection } = await connectTemporal(process.env.TEMPORAL_ADDRESS!, process.env.TEMPORAL_NAMESPACE ?? 'default'));
  t = await startTestApp({ temporal: { client, taskQueue } });
  a = await t.newTenant('worker-metrics');
}, 120_000);
afterAll(async () => {
  await t.close();
  await worker.shutdown();
  await connection.close();
  server.close();
});

async function scrape(): Promise<string> {
  const port = (server.address() as { port: number }).port;
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

const sample = (text: string, line: RegExp) => Number(text.split('\n').find((l) => line.test(l))?.split(' ').pop() ?? 0);

test('activities by step started and completed, their durations, series processed, and the SDK worker metrics', async () => {
  const planner = await t.login(a.planner);
  await t.call('post', '/api/config/update', { token: await t.login(a.admin), body: { path: 'pipeline.chunk_size', value: 2 } });
  await insertWeeklyDemand(t.db, a.accountId, 5, 60);
  const pipelineId = await createPipeline(t, planner, 'Metrics');
  for (const step of ['etl', 'outlier']) {
    const res = await t.call('post', `/api/pipeline/run/${step}`, { token: planner, body: { pipeline_id: pipelineId } });
    const job = await waitForJob(t, planner, res.body.job_id, isFinished, 120_000);
    expect([step, job.status]).toEqual([step, 'completed']);
  }
  const text = await scrape();
  // 5 series in chunks of 2: three chunk activities of the outlier step, each started and completed once
  expect(sample(text, /^planning_activities_started_total\{activity="seriesStepChunk",step="outlier"\}/)).toBe(3);
  expect(sample(text, /^planning_activities_completed_total\{activity="seriesStepChunk",step="outlier"\}/)).toBe(3);
  expect(sample(text, /^planning_activities_failed_total\{activity="seriesStepChunk",step="outlier"\}/)).toBe(0);
  expect(sample(text, /^planning_activities_retried_total\{activity="seriesStepChunk",step="outlier"\}/)).toBe(0);
  expect(sample(text, /^planning_series_processed_total\{step="outlier"\}/)).toBe(5);
  expect(sample(text, /^planning_activity_duration_seconds_count\{activity="seriesStepChunk",step="outlier",outcome="completed"\}/)).toBe(3);
  expect(sample(text, /^planning_activities_completed_total\{activity="seriesStepPlan",step="outlier"\}/)).toBe(1);
  // the SDK's own: task slots and polls of this worker's queues
  expect(text).toMatch(/^temporal_\w+\{.*task_queue="[^"]*".*\} /m);
  expect((await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/other`)).status).toBe(404);
}, 240_000);
