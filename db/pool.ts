import { logger } from '../lib/logger';
import { createPool, sql, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';

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

export async function openPool(databaseUrl: string, maximumPoolSize = 10): Promise<Db> {
  const pool = await createPool(databaseUrl, {
    typeParsers,
    maximumPoolSize,
    captureStackTrace: false,
    idleTimeout: 30000,
    connectionTimeout: 10000,
    statementTimeout: 'DISABLE_TIMEOUT',
  });
  // slonik also emits every failed query as a pool 'error' event; unheard, Node would replace the real error (and its
  // class, which callers test for) with ERR_UNHANDLED_ERROR. The query's own promise still rejects with it.
  pool.on('error', (err: unknown) => logger.debug({ err }, 'query failed'));
  return pool;
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

/** Runs fn in one transaction whose search_path is the tenant's schema, so unqualified names resolve to that tenant only. */
export async function withTenant<T>(db: Db, accountId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const schema = await schemaFor(db, accountId);
  return db.transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT set_config('search_path', ${`${schema}, public`}, true)`);
    return fn(tx);
  });
}
