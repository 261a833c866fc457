import crypto from 'node:crypto';
import { createAccount } from '../../db/accounts';
import { readerRole } from '../../db/assistantQuery';
import { migrateAll, tenantMigrations } from '../../db/migrate';
import { openPool, sql, tenantSchemaName, type Db } from '../../db/pool';
import { createTestAccount, fillTenantPool } from '../support/tenantPool';

/**
 * The tests' tenants come from a pool of schemas migrated once (test/support/tenantPool.ts). Every suite trusts
 * that a pooled tenant is the tenant `createAccount` makes; this holds it to that, catalog entry by catalog entry,
 * so a migration that wrote its schema's name into an object would fail here rather than somewhere obscure.
 */
let db: Db;
const url = process.env.DATABASE_URL!;

beforeAll(async () => {
  db = await openPool(url, 2);
});
afterAll(() => db.end());

const poolSize = async () => Number(await db.oneFirst(sql.unsafe`SELECT count(*) FROM public.test_tenant_pool`));

/** The schema's catalog with its own name (and its reader role's) written as `S`. */
async function catalog(schema: string): Promise<Record<string, string[]>> {
  const norm = (rows: readonly unknown[]) => rows.map((r) => JSON.stringify(r).split(schema).join('S')).sort();
  const q = async (query: ReturnType<typeof sql.unsafe>) => norm(await db.any(query));
  return {
    relations: await q(sql.unsafe`SELECT c.relname, c.relkind, c.relacl::text AS acl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${schema}`),
    columns: await q(sql.unsafe`
      SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull, pg_get_expr(d.adbin, d.adrelid) AS dflt
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE n.nspname = ${schema} AND a.attnum > 0 AND NOT a.attisdropped`),
    indexes: await q(sql.unsafe`SELECT indexdef FROM pg_indexes WHERE schemaname = ${schema}`),
    constraints: await q(sql.unsafe`SELECT conname, pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = ${schema}`),
    triggers: await q(sql.unsafe`SELECT c.relname, pg_get_triggerdef(t.oid) AS def, t.tgenabled::text AS enabled FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${schema} AND NOT t.tgisinternal`),
    functions: await q(sql.unsafe`SELECT p.proname, pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ${schema}`),
    schemaAcl: await q(sql.unsafe`SELECT nspacl::text FROM pg_namespace WHERE nspname = ${schema}`),
    defaultAcl: await q(sql.unsafe`SELECT d.defaclobjtype, d.defaclacl::text FROM pg_default_acl d JOIN pg_namespace n ON n.oid = d.defaclnamespace WHERE n.nspname = ${schema}`),
    migrations: await q(sql.unsafe`SELECT version, name FROM master.schema_migrations WHERE schema_name = ${schema}`),
    readerRole: await q(sql.unsafe`SELECT rolname, rolcanlogin, rolinherit FROM pg_roles WHERE rolname = ${readerRole(schema)}`),
    parameters: await q(sql.unsafe`SELECT count(*) FROM ${sql.identifier([schema, 'parameters'])}`),
    alertRules: await q(sql.unsafe`SELECT count(*) FROM ${sql.identifier([schema, 'alert_rules'])}`),
  };
}

test('a pooled tenant has the catalog, grants, reader role, migration ledger and seeded rows of a freshly migrated one', async () => {
  await fillTenantPool(url, 1);
  const before = await poolSize();
  expect(before).toBeGreaterThanOrEqual(1);
  const suffix = crypto.randomBytes(3).toString('hex');
  const migrated = await createAccount(db, url, `migrated-${suffix}`);
  expect(await poolSize()).toBe(before);
  const pooled = await createTestAccount(db, url, `pooled-${suffix}`);
  expect(await poolSize()).toBe(before - 1);
  expect(pooled.schema_name).toBe(tenantSchemaName(pooled.id));

  const [a, b] = [await catalog(migrated.schema_name), await catalog(pooled.schema_name)];
  expect(a.relations.length).toBeGreaterThan(200);
  expect(a.readerRole).toHaveLength(1);
  expect(Number(JSON.parse(a.alertRules[0]).count)).toBe(32);
  for (const key of Object.keys(a)) expect([key, b[key]]).toEqual([key, a[key]]);
});

test('on a database without a pool, a test account is migrated as createAccount does', async () => {
  const name = `pool_less_${crypto.randomBytes(3).toString('hex')}`;
  await db.query(sql.unsafe`CREATE DATABASE ${sql.identifier([name])}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  try {
    await migrateAll(u.toString());
    const other = await openPool(u.toString(), 1);
    try {
      const account = await createTestAccount(other, u.toString(), `unpooled-${crypto.randomBytes(3).toString('hex')}`);
      const ledger = await other.anyFirst(sql.unsafe`SELECT version FROM master.schema_migrations WHERE schema_name = ${account.schema_name}`);
      expect(ledger).toHaveLength(tenantMigrations().length);
    } finally {
      await other.end();
    }
  } finally {
    await db.query(sql.unsafe`DROP DATABASE ${sql.identifier([name])} WITH (FORCE)`);
  }
});
