import pg from 'pg';
import { createAccount, type Account } from '../../db/accounts';
import { readerRole } from '../../db/assistantQuery';
import { migrateTenant, tenantMigrationSql } from '../../db/migrate';
import type { Db } from '../../db/pool';

/**
 * Tenant schemas migrated once for the whole run. A new tenant's migrations cost PostgreSQL about 0.65 CPU-s, and the
 * suites make nearly two hundred of them; the setup migrates this pool into the template database, each jest worker's
 * database is a copy of it (`CREATE DATABASE … TEMPLATE`), so one migration serves a tenant in every worker. A test's
 * new account takes a pooled schema under its own name, or runs the migrations when the pool is empty. The pooled
 * schemas are the migrations' own result, so a claimed tenant is the one `createAccount` would have made; the
 * account creation path itself (POST /api/admin/accounts, the launcher's demo tenant) always migrates.
 */
const POOL_TABLE = 'test_tenant_pool';

/** Names the tenant pattern accepts and no account can have: a random UUID's version digit is never 0. */
export const pooledSchemaName = (i: number): string => `t_${String(i).padStart(32, '0')}`;

/** In the template database, before the workers' copies are made. */
export async function fillTenantPool(databaseUrl: string, size: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS public.${POOL_TABLE} (schema_name text PRIMARY KEY)`);
    for (let i = 1; i <= size; i++) {
      await migrateTenant(databaseUrl, pooledSchemaName(i));
      await client.query(`INSERT INTO public.${POOL_TABLE} VALUES ($1) ON CONFLICT DO NOTHING`, [pooledSchemaName(i)]);
    }
  } finally {
    await client.end();
  }
}

/**
 * Renames a pooled schema to `schema` and gives it the reader role of its new name (migration 030, which is
 * idempotent, run again under that name), taking the pooled name's role off it. False when the pool is empty.
 */
export async function claimPooledSchema(databaseUrl: string, schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const id = (name: string) => client.escapeIdentifier(name);
  try {
    await client.query('BEGIN');
    const taken = await client.query<{ schema_name: string }>(`
      DELETE FROM public.${POOL_TABLE} WHERE schema_name =
        (SELECT schema_name FROM public.${POOL_TABLE} ORDER BY schema_name LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING schema_name`).catch((err: { code?: string }) => {
      if (err.code === '42P01') return { rows: [] }; // a run without a pool (TEST_TENANT_POOL=0 or a database of one's own)
      throw err;
    });
    const pooled = taken.rows[0]?.schema_name;
    if (!pooled) {
      await client.query('ROLLBACK');
      return false;
    }
    await client.query(`ALTER SCHEMA ${id(pooled)} RENAME TO ${id(schema)}`);
    await client.query('UPDATE master.schema_migrations SET schema_name = $1 WHERE schema_name = $2', [schema, pooled]);
    await client.query("SELECT set_config('search_path', $1, true)", [`${schema}, public`]);
    // migration 030 makes the tenant's reader role
    await client.query(`${tenantMigrationSql(30)}\n;`);
    const old = id(readerRole(pooled));
    await client.query(`
      REVOKE ALL ON ALL TABLES IN SCHEMA ${id(schema)} FROM ${old};
      REVOKE ALL ON SCHEMA ${id(schema)} FROM ${old};
      ALTER DEFAULT PRIVILEGES IN SCHEMA ${id(schema)} REVOKE ALL ON TABLES FROM ${old};`);
    await client.query('COMMIT');
    return true;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

/** `createAccount` for tests: a pooled schema when there is one left. */
export function createTestAccount(db: Db, databaseUrl: string, name: string): Promise<Account> {
  return createAccount(db, databaseUrl, name, async (schema) => {
    if (!(await claimPooledSchema(databaseUrl, schema))) await migrateTenant(databaseUrl, schema);
  });
}
