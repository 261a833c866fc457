import type { Duration } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../activities';
import { openPool } from '../db/pool';
import { readEnv } from '../lib/env';
import { computeTaskQueue } from '../lib/taskQueues';
import { logger } from '../lib/logger';
import { heartbeatWhileWaiting } from './heartbeatWhileWaiting';
import { serveWorkerMetrics, WorkerMetrics } from './workerMetrics';

export interface RunWorkerOptions {
  databaseUrl: string;
  address: string;
  namespace: string;
  taskQueue: string;
  shutdownSignal?: AbortSignal;
  /** a prebuilt bundle (bundleWorkflowCode) skips the per-worker webpack run; tests use it for speed */
  workflowBundle?: WorkflowBundleOption;
  connectTimeoutMs?: number;
  /** counts activities for /metrics (temporal/workerMetrics.ts) */
  metrics?: WorkerMetrics;
  /** how long running activities may take to finish after shutdown is asked, before they are cancelled (SDK duration) */
  shutdownGraceTime?: Duration;
}

export interface RunningWorker {
  worker: Worker;
  /** the activity-only worker of the compute queue (lib/taskQueues.ts): one CPU-bound chunk at a time */
  computeWorker: Worker;
  /** settles once the worker has stopped and its connection and pool are closed; rejects if the worker crashed */
  finished: Promise<void>;
  shutdown(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** the worker process's (main) grace; in-process workers (tests) keep the SDK's, which cancels at once */
const DEFAULT_SHUTDOWN_GRACE = (process.env.WORKER_SHUTDOWN_GRACE || '60s') as Duration;

/** The worker is often launched next to the dev server, so the first attempts may find nothing listening yet. */
async function connectNative(address: string, timeoutMs: number): Promise<NativeConnection> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await NativeConnection.connect({ address });
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`worker could not reach Temporal at ${address}: ${(err as Error).message}`);
      await sleep(500);
    }
  }
}

export async function runWorker(opts: RunWorkerOptions): Promise<RunningWorker> {
  const db = await openPool(opts.databaseUrl);
  let connection: NativeConnection | undefined;
  let worker: Worker;
  let computeWorker: Worker;
  try {
    connection = await connectNative(opts.address, opts.connectTimeoutMs ?? 60_000);
    // A SIGTERM (a deploy, a scale-down, the launcher restarting us) stops polling at once; a chunk already running
    // gets this long to finish and report, and past it is cancelled and retried by another worker (it heartbeats).
    const shared = {
      ...(opts.shutdownGraceTime ? { shutdownGraceTime: opts.shutdownGraceTime } : {}),
      interceptors: { activity: [heartbeatWhileWaiting(), ...(opts.metrics ? [opts.metrics.interceptor()] : [])] },
    };
    worker = await Worker.create({
      connection,
      namespace: opts.namespace,
      taskQueue: opts.taskQueue,
      // Resolves to workflows/index.ts under tsx and jest and to the compiled .js in dist; the SDK bundles either.
      ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
      activities: createActivities({ db }),
      ...shared,
    });
    computeWorker = await Worker.create({
      connection,
      namespace: opts.namespace,
      taskQueue: computeTaskQueue(opts.taskQueue),
      activities: createActivities({ db }),
      maxConcurrentActivityTaskExecutions: 1,
      ...shared,
    });
  } catch (err) {
    await connection?.close();
    await db.end();
    throw err;
  }

  // run() also ends on the SDK's own SIGINT/SIGTERM handling, so cleanup hangs off its completion, not off shutdown().
  const finished = Promise.all([worker.run(), computeWorker.run()]).then(() => undefined).finally(async () => {
    await connection!.close();
    await db.end();
  });
  // Marks the rejection handled (a crash is logged here), while callers awaiting `finished` still see it.
  finished.catch((err) => logger.error({ err }, 'Temporal worker stopped with an error'));
  const shutdown = async () => {
    for (const w of [worker, computeWorker]) if (w.getState() === 'RUNNING') w.shutdown();
    await finished;
  };
  opts.shutdownSignal?.addEventListener('abort', () => void shutdown().catch((err) => logger.error({ err }, 'worker shutdown failed')), {
    once: true,
  });
  logger.info({ address: opts.address, namespace: opts.namespace, taskQueue: opts.taskQueue, computeTaskQueue: computeTaskQueue(opts.taskQueue) }, 'Temporal worker running');
  return { worker, computeWorker, finished, shutdown };
}

/**
 * The SDK's own log (the workflow bundler's webpack report above all: dozens of lines at each start) goes through
 * our logger at warn and above, so the worker's output, and the launcher's banner after it, stay readable.
 * LOG_LEVEL=debug or trace lets it all through again.
 */
function installRuntimeLogger(sdkMetricsAddress?: string): void {
  const level = String(process.env.LOG_LEVEL ?? '').toUpperCase();
  const threshold = level === 'TRACE' || level === 'DEBUG' ? level : 'WARN';
  // must be installed before any connection or worker exists: the SDK's own worker metrics (polls, slots, task
  // latencies) on loopback, which the worker's /metrics passes on (temporal/workerMetrics.ts)
  Runtime.install({
    ...(sdkMetricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: sdkMetricsAddress } } } } : {}),
    logger: new DefaultLogger(threshold, ({ level: l, message, meta }) => {
      const method = l === 'TRACE' ? 'trace' : l === 'DEBUG' ? 'debug' : l === 'INFO' ? 'info' : l === 'WARN' ? 'warn' : 'error';
      logger[method]({ ...meta, sdk: true }, message);
    }),
  });
}

async function main(): Promise<void> {
  // WORKER_METRICS_PORT: GET /metrics there (off when unset); the SDK's exporter listens next to it on loopback
  const metricsPort = process.env.WORKER_METRICS_PORT ? Number(process.env.WORKER_METRICS_PORT) : undefined;
  const sdkMetricsAddress = metricsPort ? process.env.TEMPORAL_SDK_METRICS_BIND || `127.0.0.1:${metricsPort + 1}` : undefined;
  installRuntimeLogger(sdkMetricsAddress);
  const env = readEnv();
  if (!env.databaseUrl) throw new Error('DATABASE_URL is required for the worker');
  const metrics = metricsPort ? new WorkerMetrics({ defaultMetrics: true }) : undefined;
  const metricsServer = metrics ? await serveWorkerMetrics(metrics, metricsPort!, process.env.WORKER_METRICS_HOST || '0.0.0.0', sdkMetricsAddress) : undefined;
  if (metricsServer) logger.info({ port: metricsPort, sdk: sdkMetricsAddress }, 'worker metrics at /metrics');
  const stop = new AbortController();
  const running = await runWorker({
    databaseUrl: env.databaseUrl,
    address: env.temporalAddress ?? '127.0.0.1:7233',
    namespace: env.temporalNamespace,
    taskQueue: env.taskQueue,
    shutdownSignal: stop.signal,
    metrics,
    shutdownGraceTime: DEFAULT_SHUTDOWN_GRACE,
    // WORKFLOW_BUNDLE: a bundle built beforehand (bundleWorkflowCode) instead of webpack at each start, 2.6 CPU-s;
    // the tests hand theirs to the worker processes they spawn
    ...(process.env.WORKFLOW_BUNDLE ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE } } : {}),
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  await running.finished;
  metricsServer?.close();
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      logger.error({ err }, 'worker failed');
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
