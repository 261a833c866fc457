import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundleOption } from '@temporalio/worker';
import { connectTemporal } from '../../temporal/client';
import { runWorker, type RunningWorker } from '../../temporal/worker';

let runtimeInstalled = false;
let bundle: Promise<WorkflowBundleOption> | undefined;

const quiet = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} } as any;

/**
 * The workflow bundle globalSetup built once for the run (webpack takes seconds); a file run outside that setup
 * builds its own.
 */
export function workflowBundle(): Promise<WorkflowBundleOption> {
  const codePath = process.env.TEST_WORKFLOW_BUNDLE;
  bundle ??= codePath ? Promise.resolve({ codePath }) : bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quiet });
  return bundle;
}

export interface TestWorker {
  client: Client;
  connection: Connection;
  taskQueue: string;
  worker: RunningWorker;
  /** starts another worker on the same queue (to replace one that was killed) */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real worker on a task queue of its own, against the dev server globalSetup started (TEMPORAL_ADDRESS) and the
 * test PostgreSQL; its client starts and watches workflows the way the API does.
 */
export async function startTestWorker(own: { address?: string; databaseUrl?: string } = {}): Promise<TestWorker> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  // a fault test brings its own server or database, so that stopping it does not stop every other test file
  const address = own.address ?? process.env.TEMPORAL_ADDRESS!;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = `test-${randomUUID()}`;
  const opts = { databaseUrl: own.databaseUrl ?? process.env.DATABASE_URL!, address, namespace, taskQueue, workflowBundle: await workflowBundle() };
  const { connection, client } = await connectTemporal(address, namespace);
  const tw: TestWorker = {
    client, connection, taskQueue,
    worker: await runWorker(opts),
    async restart() {
      tw.worker = await runWorker(opts);
    },
    async close() {
      await tw.worker.shutdown().catch(() => undefined);
      await connection.close();
    },
  };
  return tw;
}
