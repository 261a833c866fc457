import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { readEnv } from '../lib/env';
import { logger } from '../lib/logger';
import { isPortOpen } from '../lib/net';
import { findOrInstallTemporalCli } from './cli';
import { openConnection } from './client';

export { findOrInstallTemporalCli, TEMPORAL_CLI_VERSION, temporalCliCacheDir } from './cli';

/** Custom search attributes the planning workflows set; the UI and the API filter executions by them. */
export const SEARCH_ATTRIBUTES = {
  AccountId: 'Keyword',
  PipelineId: 'Int',
  ScenarioId: 'Int',
  Step: 'Keyword',
  JobKind: 'Keyword',
} as const;

export type SearchAttributeType = (typeof SEARCH_ATTRIBUTES)[keyof typeof SEARCH_ATTRIBUTES];

const INDEXED_VALUE_TYPE: Record<SearchAttributeType, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
};

const NAMESPACE_RETENTION = '3 days';
const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
/** starts of a dev server that exits before it answers, before the error (see startDevServer) */
const START_ATTEMPTS = 3;
/** lines of a Go panic kept ahead of a log's tail: the message and the panicking goroutine's first frames */
const PANIC_HEAD_LINES = 16;

// gRPC status codes, spelled out so we need not depend on @grpc/grpc-js directly.
const GRPC_NOT_FOUND = 5;
const GRPC_ALREADY_EXISTS = 6;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True only for a Temporal frontend, not for any process that happens to hold the port. */
async function answersAsTemporal(address: string): Promise<boolean> {
  const [host, port] = splitAddress(address);
  if (!(await isPortOpen(port, host))) return false;
  // lazy + ensureConnected rather than connect(), so a failed probe's channel is closed instead of left retrying
  const connection = Connection.lazy({ address, connectTimeout: 2000 });
  try {
    await connection.ensureConnected();
    return true;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}

function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i), Number(address.slice(i + 1))];
}

const grpcCode = (err: unknown): number | undefined => (err as { code?: number })?.code;

async function ensureNamespace(connection: Connection, namespace: string): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return;
  } catch (err) {
    if (grpcCode(err) !== GRPC_NOT_FOUND) throw err;
  }
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION),
    });
  } catch (err) {
    // start-dev may be creating the same namespace concurrently
    if (grpcCode(err) !== GRPC_ALREADY_EXISTS) throw err;
  }
}

async function missingSearchAttributes(connection: Connection, namespace: string): Promise<Partial<typeof SEARCH_ATTRIBUTES>> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing: Record<string, SearchAttributeType> = {};
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
    const existing = customAttributes[name];
    if (existing === undefined) missing[name] = type;
    else if (existing !== INDEXED_VALUE_TYPE[type]) {
      // The type of a search attribute cannot change in place; silently continuing would break every query on it.
      throw new Error(`search attribute ${name} exists in namespace ${namespace} with type ${temporal.api.enums.v1.IndexedValueType[existing]}, expected ${type}`);
    }
  }
  return missing;
}

export async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await openConnection(address, 30_000);
  try {
    await ensureNamespace(connection, namespace);
    // A just-registered namespace takes a moment to reach every frontend cache, so NOT_FOUND is retried briefly.
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        const missing = await missingSearchAttributes(connection, namespace);
        const names = Object.keys(missing) as (keyof typeof SEARCH_ATTRIBUTES)[];
        if (names.length === 0) return;
        await connection.operatorService.addSearchAttributes({
          namespace,
          searchAttributes: Object.fromEntries(names.map((n) => [n, INDEXED_VALUE_TYPE[SEARCH_ATTRIBUTES[n]]])),
        });
        logger.info({ namespace, added: names }, 'registered Temporal search attributes');
        return;
      } catch (err) {
        // ALREADY_EXISTS: another process added them between our list and add; the next list confirms the types.
        const retryable = grpcCode(err) === GRPC_NOT_FOUND || grpcCode(err) === GRPC_ALREADY_EXISTS;
        if (!retryable || Date.now() > deadline) throw err;
        await sleep(250);
      }
    }
  } finally {
    await connection.close();
  }
}

export interface DevServer {
  address: string;
  uiUrl: string;
  namespace: string;
  /** false when a server was already answering on the port and we only connected to it */
  owned: boolean;
  /** the CLI process (and its process group), when owned */
  pid?: number;
  /** where an owned server writes its log */
  logPath?: string;
  /** settles with how the owned server ended ("exited with 1", "exited with SIGKILL"), whoever stopped it; never for a reused one */
  exited: Promise<string>;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  dataDir: string;
  port?: number;
  uiPort?: number;
  namespace?: string;
  ui?: boolean;
  /**
   * keeps the server's SQLite in memory instead of a file in dataDir: for servers whose state need not outlive them
   * (the test run's), where it costs about 40 % less CPU (the workflow suites' server: 3.0 against 4.9 CPU-s)
   */
  inMemory?: boolean;
  /**
   * variables for the server's process beside this one's: the test run gives its server Go runtime settings
   * (test/support/globalSetup.ts)
   */
  env?: Record<string, string>;
}

export function logTail(logPath: string, lines = 30): string {
  let all: string[];
  try {
    all = fs.readFileSync(logPath, 'utf8').trimEnd().split('\n');
  } catch {
    return '(no log)';
  }
  // A Go panic says what went wrong, and where, in its first lines (the message, then the panicking goroutine's top
  // frames), and its goroutine dump then fills any tail: keep them ahead of it
  const panicAt = all.findIndex((l) => /^(panic: |fatal error: )/.test(l));
  const head = panicAt >= 0 && panicAt < all.length - lines ? [...all.slice(panicAt, Math.min(panicAt + PANIC_HEAD_LINES, all.length - lines)), '…'] : [];
  return [...head, ...all.slice(-lines)].join('\n');
}

export function devServerArgs(opts: Required<Omit<DevServerOptions, 'env'>>): string[] {
  return [
    'server',
    'start-dev',
    ...(opts.inMemory ? [] : ['--db-filename', path.join(opts.dataDir, 'temporal.db')]),
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--namespace',
    opts.namespace,
    '--ip',
    '127.0.0.1',
    '--log-level',
    'warn',
    ...(opts.ui ? [] : ['--headless']),
    // Registering at launch saves a round trip; ensureSearchAttributes still runs, since a reused server skips this.
    ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
  ];
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

interface Launched {
  ready: boolean;
  /** how the process ended, when it has */
  exitInfo?: string;
  child: ChildProcess;
  exited: Promise<string>;
  stop(): Promise<void>;
}

/** One start of the CLI, waited on until it answers as Temporal, exits, or runs out of time (then it is stopped). */
async function launch(cli: string, args: string[], env: NodeJS.ProcessEnv, address: string, logPath: string): Promise<Launched> {
  const logFd = fs.openSync(logPath, 'a');
  // Own process group, so stop() reaches anything the CLI starts and a Ctrl-C meant for a test runner does not race us.
  const child = spawn(cli, args, { detached: true, env, stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  let exitInfo: string | undefined;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve((exitInfo = `exited with ${signal ?? code}`)));
    child.once('error', (err) => resolve((exitInfo = `failed to start: ${err.message}`)));
  });
  // Without this, a parent that exits without calling stop() would leave an orphan holding the port.
  const killOnExit = () => signalGroup(child, 'SIGTERM');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (exitInfo) return;
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  logger.info({ cli, args, logPath }, 'starting Temporal dev server');
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!(await answersAsTemporal(address))) {
    if (exitInfo || Date.now() > deadline) {
      await stop();
      return { ready: false, exitInfo, child, exited, stop };
    }
    await sleep(250);
  }
  return { ready: true, child, exited, stop };
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const port = options.port ?? 7233;
  const opts: Required<DevServerOptions> = {
    namespace: 'default',
    ui: true,
    inMemory: false,
    env: {},
    ...options,
    port,
    // the CLI's own default, which keeps two servers on different gRPC ports from fighting over 8233
    uiPort: options.uiPort ?? port + 1000,
    dataDir: path.resolve(options.dataDir),
  };
  const address = `127.0.0.1:${opts.port}`;
  const uiUrl = `http://127.0.0.1:${opts.uiPort}`;

  if (await answersAsTemporal(address)) {
    logger.info({ address }, 'Temporal already running, reusing it');
    await ensureSearchAttributes(address, opts.namespace);
    return { address, uiUrl, namespace: opts.namespace, owned: false, exited: new Promise<string>(() => undefined), stop: async () => undefined };
  }

  const cli = await findOrInstallTemporalCli();
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const logPath = path.join(opts.dataDir, 'temporal.log');
  const args = devServerArgs(opts);
  // The CLI picks its internal services' ports itself (bind to port 0, close, bind again later), so a process that
  // takes one of them in between makes it panic while it builds the server (a nil listener; temporalio/cli#667):
  // seen once in a test run that started four servers beside each other. A server that exits before it ever
  // answered is started again; one that keeps failing is a real fault and ends in an error with its log.
  let launched: Launched;
  for (let attempt = 1; ; attempt++) {
    launched = await launch(cli, args, { ...process.env, ...opts.env }, address, logPath);
    if (launched.ready) break;
    const why = launched.exitInfo ?? `did not answer on ${address} within ${STARTUP_TIMEOUT_MS / 1000} s`;
    if (!launched.exitInfo || attempt >= START_ATTEMPTS) {
      throw new Error(`Temporal dev server ${why}${attempt > 1 ? ` (attempt ${attempt} of ${START_ATTEMPTS})` : ''}. Last lines of ${logPath}:\n${logTail(logPath)}`);
    }
    logger.warn({ address, attempt, why, logPath }, 'Temporal dev server exited while starting; starting it again');
  }
  const { child, exited, stop } = launched;
  try {
    await ensureSearchAttributes(address, opts.namespace);
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, uiUrl, namespace: opts.namespace, owned: true, pid: child.pid, logPath, exited, stop };
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--install-only')) {
    process.stdout.write(`${await findOrInstallTemporalCli()}\n`);
    return;
  }
  const env = readEnv();
  const port = env.temporalAddress ? splitAddress(env.temporalAddress)[1] : 7233;
  const server = await startDevServer({ dataDir: path.join(env.dataDir, 'temporal'), port, namespace: env.temporalNamespace });
  process.stdout.write(`Temporal ${server.owned ? 'started' : 'already running'} at ${server.address}, UI ${server.uiUrl}\n`);
  if (!server.owned) return;
  const shutdown = () => void server.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  });
}
