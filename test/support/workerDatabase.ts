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
