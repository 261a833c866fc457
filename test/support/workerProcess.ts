import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { connectTemporal } from '../../temporal/client';
import { sql, withTenant } from '../../db/pool';
import { createPipeline, insertWeeklyDemand } from './jobs';
import { startTestApp, type TestApp, type TestTenant } from './testApp';

const ROOT = path.join(__dirname, '../..');

export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
}

/**
 * A worker as its own OS process, exactly as production runs it, so a test can signal or kill it; it loads the run's
 * workflow bundle (WORKFLOW_BUNDLE) instead of running webpack again.
 */
export function startWorkerProcess(taskQueue: string, env: NodeJS.ProcessEnv = {}): WorkerProcess {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'temporal/worker.ts'], {
    cwd: ROOT,
    env: { ...process.env, WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE, TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'info', NODE_ENV: 'development', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c) => (out += c.toString()));
  child.stderr!.on('data', (c) => (out += c.toString()));
  return { child, output: () => out };
}

/** An API on its own task queue with a tenant of `series` weekly series, a pipeline, and etl in chunks of 25 on one worker. */
export interface EtlTenant {
  taskQueue: string;
  connection: Connection;
  client: Client;
  t: TestApp;
  tenant: TestTenant;
  planner: string;
  pipelineId: number;
  /** the tenant's series_weekly as a count, a total and a digest of every row, to compare two runs of etl */
  snapshot(): Promise<{ rows: number; total: number; digest: string }>;
  close(): Promise<void>;
}

export async function setUpEtlTenant(label: string, series: number): Promise<EtlTenant> {
  const taskQueue = `${label}-${randomUUID()}`;
  const { connection, client } = await connectTemporal(process.env.TEMPORAL_ADDRESS!, process.env.TEMPORAL_NAMESPACE ?? 'default');
  const t = await startTestApp({ temporal: { client, taskQueue } });
  const tenant = await t.newTenant(label);
  const planner = await t.login(tenant.planner);
  const pipelineId = await createPipeline(t, planner, label);
  await insertWeeklyDemand(t.db, tenant.accountId, series, 156);
  await t.call('post', '/api/config/update', {
    token: await t.login(tenant.admin),
    body: { updates: [{ path: 'pipeline.chunk_size', value: 25 }, { path: 'pipeline.n_workers', value: 1 }] },
  });
  const snapshot = () =>
    withTenant(t.db, tenant.accountId, (tx) =>
      tx.one(sql.unsafe`
        SELECT count(*)::int AS rows, sum(y)::float8 AS total,
          md5(string_agg(item_id || ',' || site_id || ',' || week || ',' || y, ';' ORDER BY item_id, site_id, week)) AS digest
        FROM series_weekly`),
    ) as Promise<{ rows: number; total: number; digest: string }>;
  const close = async () => {
    await t.close();
    await connection.close();
  };
  return { taskQueue, connection, client, t, tenant, planner, pipelineId, snapshot, close };
}
