import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { freePort } from '../../lib/net';
import { connectTemporal } from '../../temporal/client';
import { startDevServer, type DevServer } from '../../temporal/devServer';
import { runWorker, type RunningWorker } from '../../temporal/worker';
import type { healthCheck } from '../../workflows';

// The SDK logs every worker state change at INFO to the console; warnings and errors are all a test run needs.
Runtime.install({ logger: new DefaultLogger('WARN') });

describe('healthCheck workflow', () => {
  let dataDir: string;
  let server: DevServer;
  let bundle: WorkflowBundle;
  let worker: RunningWorker;
  let connection: Connection;
  let client: Client;
  const taskQueue = `health-${randomUUID()}`;
  const workflowId = `health-check-${randomUUID()}`;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planning-temporal-wf-'));
    // Bundling once serves both the worker and the replayer; each would otherwise run webpack on its own.
    [server, bundle] = await Promise.all([
      startDevServer({ dataDir, port: await freePort(), uiPort: await freePort(), ui: false }),
      bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quietBundlerLogger }),
    ]);
    worker = await runWorker({
      databaseUrl: process.env.DATABASE_URL!,
      address: server.address,
      namespace: server.namespace,
      taskQueue,
      workflowBundle: bundle,
    });
    ({ connection, client } = await connectTemporal(server.address, server.namespace));
  }, 120_000);

  afterAll(async () => {
    await worker?.shutdown();
    await connection?.close();
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('reads PostgreSQL through a real worker', async () => {
    const result = await client.workflow.execute<typeof healthCheck>('healthCheck', { taskQueue, workflowId, workflowExecutionTimeout: '1 minute' });
    expect(result.ok).toBe(true);
    expect(typeof result.accounts).toBe('number');
    expect(result.accounts).toBeGreaterThanOrEqual(0);
    expect(result.server_version).toMatch(/^\d/);
    expect(new Date(result.checked_at).toISOString()).toBe(result.checked_at);
  }, 120_000);

  it('replays its own history deterministically', async () => {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.length).toBeGreaterThan(0);
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history, workflowId)).resolves.toBeUndefined();
  }, 120_000);
});

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: unknown) => console.warn(message, meta),
  error: (message: string, meta?: unknown) => console.error(message, meta),
};
