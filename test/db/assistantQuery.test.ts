/**
 * db/assistantQuery.ts without the textual rules: statements the rules would refuse are run directly, to show that the
 * second and third locks (READ ONLY transaction, the tenant's SELECT-only role, one statement, 8 s) hold on their own.
 */
import crypto from 'node:crypto';
import { readEnv } from '../../lib/env';
import { runReadOnly, ASSISTANT_ROW_LIMIT } from '../../db/assistantQuery';
import { sql, tenantSchemaName, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
const canary = `canary-${crypto.randomBytes(8).toString('hex')}`;
const url = () => readEnv().databaseUrl!;
const run = (text: string, accountId = a.accountId) => runReadOnly(url(), accountId, text);
const count = async (accountId: string, table: 'items' | 'sites') =>
  withTenant(t.db, accountId, async (tx) => Number(await tx.oneFirst(table === 'items' ? sql.unsafe`SELECT count(*) FROM items` : sql.unsafe`SELECT count(*) FROM sites`)));

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('assistant-db-a');
  b = await t.newTenant('assistant-db-b');
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT 'A' || g, 'Item A' || g FROM generate_series(1, 600) g`);
  });
  await withTenant(t.db, b.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${canary}, ${canary})`);
  });
}, 120_000);

afterAll(async () => {
  await t?.close();
});

test('a plain SELECT runs as the reader role with the tenant schema only, cut at the row limit', async () => {
  const r = await run('SELECT xuid, current_user AS who, current_setting(\'search_path\') AS path, current_setting(\'transaction_read_only\') AS ro FROM items ORDER BY id');
  expect(r.ok).toBe(true);
  if (!r.ok) return;
  expect(r.rowCount).toBe(ASSISTANT_ROW_LIMIT);
  expect(r.truncated).toBe(true);
  expect(r.rows[0]).toEqual({ xuid: 'A1', who: `${tenantSchemaName(a.accountId)}_reader`, path: tenantSchemaName(a.accountId), ro: 'on' });
});

test.each([
  ['another tenant', () => `SELECT * FROM ${tenantSchemaName(b.accountId)}.items`, '42501'],
  ['the master schema', () => 'SELECT * FROM master.accounts', '42501'],
  ['password hashes', () => 'SELECT password_hash FROM users', '42501'],
  ['the model api key', () => 'SELECT value FROM parameters', '42501'],
  ['the audit log', () => 'SELECT * FROM audit_log', '42501'],
  ['a data-modifying CTE', () => "WITH d AS (DELETE FROM items RETURNING *) SELECT * FROM d", null],
  ['UPDATE through a CTE', () => "WITH u AS (UPDATE items SET name = 'x' RETURNING *) SELECT * FROM u", null],
  ['a second statement', () => 'SELECT 1; DELETE FROM items', '42601'],
  ['breaking out of the wrapper', () => 'SELECT 1) q; DELETE FROM items; SELECT * FROM (SELECT 1', '42601'],
  ['set_config on the role', () => "SELECT set_config('role', 'postgres', true)", '42501'],
  ['set_config read-write', () => "SELECT set_config('transaction_read_only', 'off', true)", '42501'],
  ['dynamic SQL via query_to_xml', () => `SELECT query_to_xml('select * from ${tenantSchemaName(b.accountId)}.items', true, true, '')`, '42501'],
  ['dynamic SQL via ts_stat', () => `SELECT * FROM ts_stat('select to_tsvector(name) from ${tenantSchemaName(b.accountId)}.items')`, '42501'],
  ['SELECT INTO a new table', () => 'SELECT * INTO stolen FROM items', null],
  ['a sequence', () => "SELECT nextval('items_id_seq')", null],
  ['a file', () => "SELECT pg_read_file('/etc/passwd')", '42501'],
  ['locking rows', () => 'SELECT * FROM items FOR UPDATE', null],
])('refused by the database without the textual rules: %s', async (_label, text, code) => {
  const r = await run(text());
  expect(r.ok).toBe(false);
  if (r.ok) return;
  if (code) expect(r.code).toBe(code);
  expect(r.error).not.toContain(canary);
  expect(await count(a.accountId, 'items')).toBe(600);
  expect(await count(b.accountId, 'items')).toBe(1);
});

test('the 8-second statement timeout cancels a long query (server-side code 57014)', async () => {
  const r = await run('SELECT pg_sleep(30)');
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.code).toBe('57014');
  expect(r.error).toMatch(/statement timeout/);
}, 30_000);
