import { openPool, sql, type Db } from '../../db/pool';

// The run's PostgreSQL (test/support/globalSetup.ts) trades durability and upkeep for CPU: nothing in it outlives the run.
let db: Db;
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 1);
});
afterAll(async () => {
  await db.end();
});

test('the test run\'s PostgreSQL runs without fsync and without autovacuum', async () => {
  const setting = async (name: string) => (await db.oneFirst(sql.unsafe`SELECT setting FROM pg_settings WHERE name = ${name}`)) as string;
  expect({ fsync: await setting('fsync'), autovacuum: await setting('autovacuum') }).toEqual({ fsync: 'off', autovacuum: 'off' });
});

test('the test run\'s PostgreSQL lets this machine\'s connections in without a password check', async () => {
  const rules = await db.any(sql.unsafe`SELECT DISTINCT type, auth_method FROM pg_hba_file_rules ORDER BY type`);
  expect(rules).toEqual([{ type: 'host', auth_method: 'trust' }, { type: 'local', auth_method: 'trust' }]);
});

test('the test run\'s connections go through PostgreSQL\'s Unix socket, not TCP', async () => {
  // inet_server_addr() is null on a Unix-socket connection
  expect(await db.oneFirst(sql.unsafe`SELECT inet_server_addr()`)).toBeNull();
  expect(decodeURIComponent(new URL(process.env.DATABASE_URL!).hostname)).toMatch(/^\/.*pg-socket$/);
});
