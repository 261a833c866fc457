import { logger } from '../lib/logger';
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  createPool,
  sql,
  type DatabasePool,
  type DatabaseTransactionConnection,
} from 'slonik';

export { sql };
export type Db = DatabasePool;
export type Tx = DatabaseTransactionConnection;

/**
 * slonik's defaults turn int8 into strings or BigInt, timestamps into epoch numbers and dates into Date objects;
 * the API speaks JSON numbers, ISO strings and `YYYY-MM-DD`, so we parse them that way once, here.
 */
const typeParsers = [
  // pg applies these to array elements too, where a NULL element arrives as null: Number(null) would make it 0
  { name: 'int8', parse: (v: string | null) => (v === null ? null : Number(v)) },
  { name: 'numeric', parse: (v: string | null) => (v === null ? null : Number(v)) },
  { name: 'float8', parse: (v: string | null) => (v === null ? null : Number(v)) },
  { name: 'date', parse: (v: string) => v },
  { name: 'timestamptz', parse: (v: string) => new Date(v).toISOString() },
  { name: 'timestamp', parse: (v: string) => new Date(`${v.replace(' ', 'T')}Z`).toISOString() },
];

/**
 * How long opening one connection may take. A stopped server refuses at once, but an unreachable host (or a server
 * that accepts and never answers) would otherwise hold a request until the client gives up: bounded, it becomes a 503.
 */
export const CONNECTION_TIMEOUT_MS = 5000;

export async function openPool(databaseUrl: string, maximumPoolSize = 10): Promise<Db> {
  const pool = await createPool(databaseUrl, {
    typeParsers,
    maximumPoolSize,
    captureStackTrace: false,
    idleTimeout: 30000,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    statementTimeout: 'DISABLE_TIMEOUT',
    // slonik's default sends DISCARD ALL each time a connection goes back to the pool: one more round trip on every
    // query outside a transaction and after every transaction (a request made three of them). Nothing on the pool
    // sets session state: settings are set_config(…, true) or SET LOCAL, temporary tables are ON COMMIT DROP, locks
    // are pg_advisory_xact_lock; sessions that need more (migrations, backups, the assistant's reader role) open
    // their own client. test/db/pool.test.ts checks both halves.
    resetConnection: async () => {},
  });
  // slonik also emits every failed query as a pool 'error' event; unheard, Node would replace the real error (and its
  // class, which callers test for) with ERR_UNHANDLED_ERROR. The query's own promise still rejects with it.
  pool.on('error', (err: unknown) => logger.debug({ err }, 'query failed'));
  return pool;
}

// Socket errors of a server that is gone or unreachable, and SQLSTATEs that mean the server itself is not serving:
// class 08 (connection exception), admin/crash shutdown, starting up or shutting down, too many connections.
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', '57P01', '57P02', '57P03', '53300']);
const UNREACHABLE_MESSAGE = /connection terminated|timeout exceeded when trying to connect|Connection terminated due to connection timeout|the database system is (starting up|shutting down)/i;

/**
 * True when an error says PostgreSQL cannot be reached (stopped, restarting, unreachable), as opposed to a query
 * that failed on a working server. Callers answer those with "try again later" instead of a failure of their own.
 * Wrapped errors are followed (slonik's `cause`, koa-jwt's `originalError`), since the first thing a request reads
 * from the database is often inside someone else's try/catch.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let e: any = err;
  for (let depth = 0; e && depth < 6; depth++) {
    if (e instanceof ConnectionError || e instanceof BackendTerminatedError || e instanceof BackendTerminatedUnexpectedlyError) return true;
    if (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && UNREACHABLE_MESSAGE.test(e.message)) return true;
    e = e.cause ?? e.originalError;
  }
  return false;
}

const SCHEMA_PATTERN = /^t_[0-9a-f]{32}$/;

export function tenantSchemaName(accountId: string): string {
  const schema = `t_${accountId.replace(/-/g, '').toLowerCase()}`;
  if (!SCHEMA_PATTERN.test(schema)) throw new Error(`invalid account id ${accountId}`);
  return schema;
}

export class UnknownAccountError extends Error {}

const schemaCache = new Map<string, string>();

export function forgetAccount(accountId: string): void {
  schemaCache.delete(accountId);
}

async function schemaFor(db: Db, accountId: string): Promise<string> {
  const cached = schemaCache.get(accountId);
  if (cached) return cached;
  const row = (await db.maybeOne(
    sql.unsafe`SELECT schema_name FROM master.accounts WHERE id = ${accountId}::uuid AND is_active`,
  )) as { schema_name: string } | null;
  if (!row) throw new UnknownAccountError(`unknown account ${accountId}`);
  schemaCache.set(accountId, row.schema_name);
  return row.schema_name;
}

/**
 * Runs fn in one transaction whose search_path is the tenant's schema, so unqualified names resolve to that tenant only.
 *
 * slonik closes a connection whenever the code that holds it throws, even when the transaction rolled back cleanly:
 * a 404 thrown inside, or a statement PostgreSQL refused, cost the next request a new backend and its SCRAM
 * handshake (a fuzz run opened 1,530 sessions for 9,426 requests). The error is carried out of the connection's
 * scope instead, so the connection goes back to the pool; one that lost its server is still closed.
 */
export async function withTenant<T>(db: Db, accountId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return inTenantTransaction(db, accountId, async () => undefined, fn);
}

/**
 * As withTenant, in a REPEATABLE READ transaction that sees the database as of another transaction's exported snapshot
 * (pg_export_snapshot(), valid while that transaction is open): work split over several connections reads one state.
 */
export async function withTenantAtSnapshot<T>(db: Db, accountId: string, snapshot: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return inTenantTransaction(db, accountId, async (tx) => {
    // both must come before the transaction's first query
    await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
    await tx.query(sql.unsafe`SET TRANSACTION SNAPSHOT ${sql.literalValue(snapshot)}`);
  }, fn);
}

async function inTenantTransaction<T>(db: Db, accountId: string, begin: (tx: Tx) => Promise<void>, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const schema = await schemaFor(db, accountId);
  const outcome = await db.connect(async (connection): Promise<{ value: T } | { error: unknown }> => {
    try {
      return {
        value: await connection.transaction(async (tx) => {
          await begin(tx);
          await tx.query(sql.unsafe`SELECT set_config('search_path', ${`${schema}, public`}, true)`);
          return fn(tx);
        }),
      };
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      return { error };
    }
  });
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}
