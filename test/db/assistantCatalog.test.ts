/**
 * db/assistant.ts readCatalog: what the model is told it may read. It finds the tenant's relations through pg_depend
 * (an index from the schema to its relations); this checks it against pg_class read directly, the way it used to.
 */
import { readCatalog } from '../../db/assistant';
import { readerRole } from '../../db/assistantQuery';
import { sql, tenantSchemaName, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('catalog-a');
  b = await t.newTenant('catalog-b');
  // one of each kind the catalogue lists or leaves out, in tenant b only
  await withTenant(t.db, b.accountId, async (tx) => {
    await tx.query(sql.unsafe`CREATE VIEW catalog_view AS SELECT id, xuid FROM items`);
    await tx.query(sql.unsafe`CREATE TABLE catalog_parted (k integer NOT NULL, v text) PARTITION BY LIST (k)`);
    await tx.query(sql.unsafe`CREATE TABLE catalog_parted_1 PARTITION OF catalog_parted FOR VALUES IN (1)`);
    await tx.query(sql.unsafe`CREATE MATERIALIZED VIEW catalog_mat AS SELECT count(*) AS n FROM items`);
    await tx.query(sql.unsafe`CREATE SEQUENCE catalog_seq`);
  });
}, 120_000);

afterAll(async () => {
  await t?.close();
});

/** The same rule read off pg_class by the schema's name: every relation of the kinds listed, as the reader sees it. */
async function referenceCatalog(accountId: string): Promise<string[]> {
  const schema = tenantSchemaName(accountId);
  return withTenant(t.db, accountId, async (tx) => (await tx.anyFirst(sql.unsafe`
    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition AND c.relname <> 'assistant_index'
      AND has_table_privilege(${readerRole(schema)}, c.oid, 'SELECT')
    ORDER BY c.relname`)) as string[]);
}

const tables = async (accountId: string) =>
  withTenant(t.db, accountId, async (tx) => (await readCatalog(tx, tenantSchemaName(accountId))).filter((e) => e.kind === 'table'));

test('lists exactly the relations of the tenant the reader may SELECT, with their columns, and nothing of another tenant', async () => {
  const mine = await tables(a.accountId);
  expect(mine.map((e) => e.name)).toEqual(await referenceCatalog(a.accountId));
  expect(mine.length).toBeGreaterThan(40);
  const names = mine.map((e) => e.name);
  for (const secret of ['users', 'parameters', 'audit_log', 'assistant_index']) expect(names).not.toContain(secret);
  expect(mine.find((e) => e.name === 'items')!.columns.slice(0, 2)).toEqual([{ name: 'id', type: 'integer' }, { name: 'xuid', type: 'text' }]);
  expect(names).not.toContain('catalog_view');
});

test('views, materialized views and partitioned tables are listed, their partitions and sequences are not', async () => {
  const theirs = (await tables(b.accountId)).map((e) => e.name);
  expect(theirs).toEqual(await referenceCatalog(b.accountId));
  expect(theirs).toEqual(expect.arrayContaining(['catalog_view', 'catalog_parted', 'catalog_mat']));
  expect(theirs).not.toContain('catalog_parted_1');
  expect(theirs).not.toContain('catalog_seq');
});
