/**
 * The byte bound of db/assistantQuery.ts: PostgreSQL measures the rows before sending any, and the reader's socket is
 * cut should more arrive than the cap (the backstop, shown here with PostgreSQL's bound above the result).
 */
import { readEnv } from '../../lib/env';
import { RESULT_TOO_LARGE, runReadOnly } from '../../db/assistantQuery';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
const url = () => readEnv().databaseUrl!;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('assistant-bytes');
});
afterAll(() => t.close());

test('rows within the bound arrive whole, with the statement\'s columns only', async () => {
  const r = await runReadOnly(url(), a.accountId, "SELECT g AS n, repeat('x', 1000) AS s, g AS n FROM generate_series(1, 10) g", { maxBytes: 20_000 });
  expect(r.ok && r.columns).toEqual(['n', 's', 'n_2']);
  expect(r.ok && r.rows[9]).toEqual({ n: 10, s: 'x'.repeat(1000), n_2: 10 });
});

test('no rows is no rows, not the empty row of the size check', async () => {
  const r = await runReadOnly(url(), a.accountId, 'SELECT 1 AS one WHERE false');
  expect(r).toMatchObject({ ok: true, columns: ['one'], rows: [], rowCount: 0, truncated: false });
});

test('a result over the bound is refused by PostgreSQL with its size', async () => {
  const r = await runReadOnly(url(), a.accountId, "SELECT g, repeat('x', 1000) AS s FROM generate_series(1, 30) g", { maxBytes: 20_000 });
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.code).toBe(RESULT_TOO_LARGE);
  expect(r.error).toMatch(/^the result is 30\d{3} bytes of text, more than the 20000 a statement may return/);
});

test('past the socket cap the connection is cut and the result refused', async () => {
  const r = await runReadOnly(url(), a.accountId, "SELECT repeat('y', 3000000) AS y", { socketCapBytes: 1024 * 1024 });
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.code).toBe(RESULT_TOO_LARGE);
  expect(r.error).toMatch(/^the result is at least \d+ bytes of text/);
  // the next statement gets a connection of its own and answers
  expect(await runReadOnly(url(), a.accountId, 'SELECT 1 AS one')).toMatchObject({ ok: true, rows: [{ one: 1 }] });
});
