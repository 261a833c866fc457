import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../activities';
import { openPool } from '../db/pool';
import { readEnv } from '../lib/env';
import { computeTaskQueue } from '../lib/taskQueues';
import { logger } from '../lib/logger';

export interface RunWorkerOptions {
  databaseUrl: string;
  address: string;
  namespace: string;
  taskQueue: string;
  shutdownSignal?: AbortSignal;
  /** a prebuilt bundle (bundleWorkflowCode) skips the per-worker webpack run; tests use it for speed */
  workflowBundle?: WorkflowBundleOption;
  connectTimeoutMs?: number;
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
    worker = await Worker.create({
      connection,
      namespace: opts.namespace,
      taskQueue: opts.taskQueue,
      // Resolves to workflows/index.ts under tsx and jest and to the compiled .js in dist; the SDK bundles either.
      ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
      activities: createActivities({ db }),
    });
    computeWorker = await Worker.create({
      connection,
      namespace: opts.namespace,
      taskQueue: computeTaskQueue(opts.taskQueue),
      activities: createActivities({ db }),
      maxConcurrentActivityTaskExecutions: 1,
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
function installRuntimeLogger(): void {
  const level = String(process.env.LOG_LEVEL ?? '').toUpperCase();
  const threshold = level === 'TRACE' || level === 'DEBUG' ? level : 'WARN';
  Runtime.install({
    logger: new DefaultLogger(threshold, ({ level: l, message, meta }) => {
      const method = l === 'TRACE' ? 'trace' : l === 'DEBUG' ? 'debug' : l === 'INFO' ? 'info' : l === 'WARN' ? 'warn' : 'error';
      logger[method]({ ...meta, sdk: true }, message);
    }),
  });
}

async function main(): Promise<void> {
  installRuntimeLogger();
  const env = readEnv();
  if (!env.databaseUrl) throw new Error('DATABASE_URL is required for the worker');
  const stop = new AbortController();
  const running = await runWorker({
    databaseUrl: env.databaseUrl,
    address: env.temporalAddress ?? '127.0.0.1:7233',
    namespace: env.temporalNamespace,
    taskQueue: env.taskQueue,
    shutdownSignal: stop.signal,
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  await running.finished;
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
