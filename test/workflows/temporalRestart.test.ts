import fs from 'node:fs';
import path from 'node:path';
import { sql, withTenant } from '../../db/pool';
import { freePort, isPortOpen, waitFor } from '../../lib/net';
import { startDevServer, type DevServer } from '../../temporal/devServer';
import { createPipeline, isFinished, waitForJob, type JobBody } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';
import { TEST_GO_RUNTIME } from '../support/goRuntime';
import { scratchDirectory } from '../support/runDirectory';

/**
 * The Temporal server itself dies (SIGKILL, as an OOM kill or a power cut would) while a forecast step's chunks run,
 * and comes back on the same SQLite file and port. Nobody restarts the worker, the API or its client: they must find
 * the server again on their own, and the job must end with exactly the rows an undisturbed run writes.
 * The test has a dev server of its own, since killing the run's shared one would fail every other test file.
 * test/workflows/durability.test.ts covers the other half: a worker killed mid-step.
 */
const SERIES = 36;
const WEEKS = 156;

let dataDir: string;
let ports: { port: number; uiPort: number };
let server: DevServer;
let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let pipelineId: number;
let workerCrash: unknown;

const startServer = () => startDevServer({ dataDir, ...ports, ui: false, env: TEST_GO_RUNTIME });

beforeAll(async () => {
  dataDir = scratchDirectory('planning-temporal-restart-');
  ports = { port: await freePort(), uiPort: await freePort() };
  server = await startServer();
  tw = await startTestWorker({ address: server.address });
  tw.worker.finished.catch((err) => (workerCrash = err));
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('temporal-restart');
  planner = await t.login(a.planner);
  pipelineId = await createPipeline(t, planner, 'Restart');
  // Seasonal, trending and noisy series (deterministic), so every chunk does real fitting work and the rows differ.
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S-MAIN', 'Main site')`);
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT 'I-' || g, 'Item ' || g FROM generate_series(1, ${SERIES}) g`);
    await tx.query(sql.unsafe`
      INSERT INTO demand_history (item_id, site_id, ds, qty)
      SELECT i.id, s.id, (date '2026-11-16' - 7 * w)::date,
        greatest(0, round(40 + (i.id % 9) * 3 + 12 * sin(2 * pi() * w / 52 + i.id) - 0.1 * (i.id % 4) * w + ((i.id * 31 + w * 17) % 11)))
      FROM items i, sites s, generate_series(0, ${WEEKS - 1}) w
      WHERE s.xuid = 'S-MAIN'`);
  });
  const admin = await t.login(a.admin);
  const cfg = await t.call('post', '/api/config/update', { token: admin, body: { updates: [{ path: 'pipeline.chunk_size', value: 3 }, { path: 'pipeline.n_workers', value: 2 }] } });
  expect(cfg.status).toBe(200);
  const etl = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
  expect((await waitForJob(t, planner, etl.body.job_id, isFinished, 60_000)).status).toBe('completed');
}, 120_000);

afterAll(async () => {
  await t?.close();
  await tw?.close();
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** Every stored value of the step's rows; job ids and write times aside, which differ between two runs by design. */
const forecastRows = () =>
  withTenant(t.db, a.accountId, (tx) =>
    tx.any(sql.unsafe`
      SELECT item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level, params
      FROM forecast_results WHERE pipeline_id = ${pipelineId} ORDER BY item_id, site_id, method`),
  );

const runForecast = async (): Promise<string> => {
  const res = await t.call('post', '/api/pipeline/run/forecast', { token: planner, body: { pipeline_id: pipelineId } });
  expect(res.status).toBe(200);
  return res.body.job_id as string;
};

test('Temporal killed with SIGKILL mid-step and restarted on its data: the job completes with the undisturbed rows', async () => {
  const first = await waitForJob(t, planner, await runForecast(), isFinished, 120_000);
  expect({ status: first.status, error: first.error }).toEqual({ status: 'completed', error: null });
  expect(first.result).toMatchObject({ step: 'forecast', series: SERIES, chunks: SERIES / 3 });
  const undisturbed = await forecastRows();
  expect(undisturbed.length).toBe(first.result.rows);

  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM forecast_results WHERE pipeline_id = ${pipelineId}`));
  const jobId = await runForecast();
  const total = SERIES / 3;
  const midway = await waitForJob(t, planner, jobId, (j) => (j.progress.done ?? 0) >= 2, 120_000);
  expect(midway.status).toBe('running');
  expect(midway.progress.done).toBeLessThan(total - 2);

  process.kill(-server.pid!, 'SIGKILL');
  expect(await server.exited).toBe('exited with SIGKILL');
  await waitFor(async () => !(await isPortOpen(ports.port)), 10_000, 'the Temporal port to close');

  // Without Temporal the API still answers from PostgreSQL: the job is running, its Temporal state unknown. Without
  // the describe deadline (api/jobs/service.ts, 3 s) this took 20 s; the margin is for the chunk computing in this
  // same process, which holds the event loop between heartbeats.
  const started = Date.now();
  const during = await t.call('get', `/api/pipeline/jobs/${jobId}`, { token: planner });
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(during.status).toBe(200);
  expect(during.body.status).toBe('running');
  expect(during.body.temporal_status).toBeUndefined();
  await new Promise((r) => setTimeout(r, 3000));

  server = await startServer();
  let done!: JobBody;
  try {
    // the job's row is marked finished by the workflow's last activity, a moment before Temporal closes the run: on a
    // busy machine (parallel jest workers) the read can fall between the two
    done = await waitForJob(t, planner, jobId, (j) => isFinished(j) && (j as JobBody & { temporal_status?: string }).temporal_status !== 'RUNNING', 120_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\nworker crash: ${String(workerCrash)}\nTemporal log:\n${fs.readFileSync(path.join(dataDir, 'temporal.log'), 'utf8').slice(-3000)}`);
  }
  expect(workerCrash).toBeUndefined();
  expect({ status: done.status, error: done.error }).toEqual({ status: 'completed', error: null });
  expect(done.result).toEqual(first.result);
  expect((done as JobBody & { temporal_status?: string }).temporal_status).toBe('COMPLETED');
  const after = await forecastRows();
  expect(after.length).toBe(undisturbed.length);
  // value by value, so a difference names the series and method instead of a digest mismatch
  for (let i = 0; i < after.length; i++) expect(after[i]).toEqual(undisturbed[i]);
}, 240_000);
