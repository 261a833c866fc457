/**
 * The database of one jest worker (JEST_WORKER_ID counts from 1): globalSetup clones it from the migrated one,
 * test/support/workerEnv.ts points the worker at it.
 */
export function workerDatabaseName(template: string, workerId: string): string {
  return `${template}_w${workerId}`;
}

export function workerDatabaseUrl(templateUrl: string, workerId: string): string {
  const u = new URL(templateUrl);
  u.pathname = `/${workerDatabaseName(u.pathname.slice(1), workerId)}`;
  return u.toString();
}

/** The same database over TCP on this machine, for the run's URL that names PostgreSQL's Unix socket directory. */
export function overTcp(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  u.hostname = '127.0.0.1';
  return u.toString();
}
