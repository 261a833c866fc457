import fs from 'node:fs';
import path from 'node:path';
import { BackendTerminatedError, ConnectionError, UniqueIntegrityConstraintViolationError } from 'slonik';
import { errorAnswer } from '../../api/middleware/errors';
import { migrateAll } from '../../db/migrate';
import { isDatabaseUnavailable } from '../../db/pool';
import { freePort } from '../../lib/net';
import { createPipeline, insertWeeklyDemand, isFinished, waitForJob } from '../support/jobs';
import { startPgProcess, type PgProcess } from '../support/pgProcess';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';
import { scratchDirectory } from '../support/runDirectory';

/**
 * PostgreSQL stops under a running API and worker, and comes back on the same data directory and port. While it is
 * gone every request answers 503 + Retry-After + {detail}, promptly (never a 500, never a hang); once it is back the
 * same requests succeed and jobs run, with no restart of the API or the worker: their pools reconnect on their own.
 * The test has a PostgreSQL of its own, since stopping the run's shared one would fail every other test file.
 */
let dataDir: string;
let port: number;
let pg: PgProcess;
let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let admin: string;
let pipelineId: number;

const startPg = () => startPgProcess(path.join(dataDir, 'data'), port);

beforeAll(async () => {
  dataDir = scratchDirectory('planning-pg-outage-');
  port = await freePort();
  pg = await startPg();
  await migrateAll(pg.url);
  tw = await startTestWorker({ databaseUrl: pg.url });
  t = await startTestApp({ databaseUrl: pg.url, temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('pg-outage');
  planner = await t.login(a.planner);
  admin = await t.login(a.admin);
  pipelineId = await createPipeline(t, planner, 'Before the outage');
  await insertWeeklyDemand(t.db, a.accountId, 20, 60);
  // the worker's pool holds connections from a first job, which the outage then kills under it
  const etl = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
  expect((await waitForJob(t, planner, etl.body.job_id, isFinished)).status).toBe('completed');
}, 120_000);

afterAll(async () => {
  await t?.close();
  await tw?.close();
  await pg?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

type Call = [method: string, path: string, opts: () => { token?: string; body?: unknown }];
const calls: Call[] = [
  ['get', '/api/scenario-pipeline', () => ({ token: planner })],
  ['post', '/api/scenario-pipeline', () => ({ token: planner, body: { name: `P-${Date.now()}` } })],
  ['get', '/api/auth/me', () => ({ token: planner })],
  ['post', '/api/config/update', () => ({ token: admin, body: { updates: [{ path: 'pipeline.n_workers', value: 3 }] } })],
  ['post', '/api/pipeline/run/etl', () => ({ token: planner, body: { pipeline_id: pipelineId } })],
  ['post', '/api/auth/login', () => ({ body: { email: a.planner.email, password: a.planner.password } })],
];

test('PostgreSQL stopped: 503 with Retry-After and {detail}, promptly; started again: the same calls succeed, jobs run', async () => {
  await pg.stop();

  for (const [method, p, opts] of calls) {
    const started = Date.now();
    // t.call also fails the test if the route does not document the status it answered
    const res = await t.call(method, p, opts());
    expect([method, p, res.status, res.body]).toEqual([method, p, 503, { detail: expect.stringMatching(/database unavailable/i) }]);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5000);
  }

  pg = await startPg();

  const expected: Record<string, number> = { 'get /api/scenario-pipeline': 200, 'post /api/scenario-pipeline': 201, 'get /api/auth/me': 200, 'post /api/config/update': 200, 'post /api/pipeline/run/etl': 200, 'post /api/auth/login': 200 };
  let etlJob: string | undefined;
  for (const [method, p, opts] of calls) {
    const res = await t.call(method, p, opts());
    expect([method, p, res.status]).toEqual([method, p, expected[`${method} ${p}`]]);
    if (p === '/api/pipeline/run/etl') etlJob = res.body.job_id;
  }
  expect((await t.call('get', '/api/auth/me', { token: planner })).body).toMatchObject({ email: a.planner.email });
  // the worker ran through the outage with dead connections in its pool; its next job must still complete
  const done = await waitForJob(t, planner, etlJob!, isFinished, 60_000);
  expect({ status: done.status, error: done.error }).toEqual({ status: 'completed', error: null });
  expect(done.result).toMatchObject({ step: 'etl', series: 20 });
}, 120_000);

test('which errors mean "database unavailable": connection failures yes, failed queries no', () => {
  const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  const unavailable = [
    new ConnectionError('connect ECONNREFUSED 127.0.0.1:5432'),
    new BackendTerminatedError(pgError('57P01', 'terminating connection due to administrator command')),
    pgError('ECONNREFUSED'),
    pgError('57P03', 'the database system is starting up'),
    pgError('08006'),
    new Error('timeout exceeded when trying to connect'),
    new Error('Connection terminated due to connection timeout'),
    // koa-jwt turns a failing revocation lookup into a 401 that carries the cause
    Object.assign(new Error('connect ECONNREFUSED'), { status: 401, originalError: new ConnectionError('connect ECONNREFUSED') }),
  ];
  for (const err of unavailable) {
    expect([err.message, isDatabaseUnavailable(err)]).toEqual([err.message, true]);
    expect(errorAnswer(err)).toMatchObject({ status: 503, headers: { 'Retry-After': expect.any(String) }, detail: expect.stringMatching(/database unavailable/i) });
  }
  const notUnavailable = [pgError('23505', 'duplicate key'), pgError('42P01', 'relation does not exist'), new Error('boom'), new UniqueIntegrityConstraintViolationError(pgError('23505') as any)];
  for (const err of notUnavailable) expect([err.message, isDatabaseUnavailable(err)]).toEqual([err.message, false]);
});
