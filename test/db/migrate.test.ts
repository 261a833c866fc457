import { randomUUID } from 'node:crypto';
import { migrateTenant, tenantMigrations } from '../../db/migrate';
import { openPool, sql, tenantSchemaName, type Db } from '../../db/pool';

// The pending files of a schema go to the server as one script of one transaction per file (db/migrate.ts): these
// pin down that a failing file still leaves the ones before it applied and recorded, and none after it.
let db: Db;
const url = () => process.env.DATABASE_URL!;
beforeAll(async () => {
  db = await openPool(url(), 2);
});
afterAll(async () => {
  await db.end();
});

const ledger = async (schema: string) =>
  (await db.any(sql.unsafe`SELECT version FROM master.schema_migrations WHERE schema_name = ${schema} ORDER BY version`)).map((r) => Number(r.version));
const tableExists = async (schema: string, table: string) =>
  Boolean((await db.one(sql.unsafe`SELECT to_regclass(${`${schema}.${table}`}) IS NOT NULL AS found`)).found);

test('a new schema gets every tenant migration, each recorded once, in one call', async () => {
  const schema = tenantSchemaName(randomUUID());
  const all = tenantMigrations().map((m) => m.version);
  expect(await migrateTenant(url(), schema)).toBe(all.length);
  expect(await ledger(schema)).toEqual(all);
  expect(await tableExists(schema, 'service_backtest_results')).toBe(true);
  expect(await migrateTenant(url(), schema)).toBe(0);
  expect(await ledger(schema)).toEqual(all);
});

test('a file that fails rolls back alone: the files before it stay applied and recorded, none after it runs, and a rerun finishes', async () => {
  const schema = tenantSchemaName(randomUUID());
  const all = tenantMigrations().map((m) => m.version);
  const before = all.filter((v) => v < 12);
  expect(await migrateTenant(url(), schema, 11)).toBe(before.length);
  // 012 creates supply_scenarios IF NOT EXISTS and then indexes its name: a table of that name without the column
  // makes 012 fail after its first statements
  await db.query(sql.unsafe`CREATE TABLE ${sql.identifier([schema, 'supply_scenarios'])} (x integer)`);
  await expect(migrateTenant(url(), schema)).rejects.toThrow('column "name" does not exist');
  expect(await ledger(schema)).toEqual(before);
  expect(await tableExists(schema, 'data_version')).toBe(true); // 011's
  expect(await tableExists(schema, 'supply_scenario_segments')).toBe(false); // 012's own, rolled back
  expect(await tableExists(schema, 'firm_orders_legacy_migration')).toBe(false); // 013's, never run

  await db.query(sql.unsafe`DROP TABLE ${sql.identifier([schema, 'supply_scenarios'])}`);
  expect(await migrateTenant(url(), schema)).toBe(all.length - before.length);
  expect(await ledger(schema)).toEqual(all);
  expect(await tableExists(schema, 'supply_scenario_segments')).toBe(true);
  expect(await tableExists(schema, 'service_backtest_results')).toBe(true);
});
