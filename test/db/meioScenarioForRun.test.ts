/**
 * Every chunk of the meio step resolves its scenario first thing in its transaction. These tests hold one chunk's
 * transaction open and check what a second one does beside it: it must not queue behind the first once the default
 * scenario exists (the chunks would run one after the other whatever the number of workers), and the first run on a
 * fresh tenant must still create exactly one default.
 */
import { createTestAccount } from '../support/tenantPool';
import { meioScenarioForRun } from '../../db/meioResults';
import { openPool, sql, withTenant, type Db } from '../../db/pool';

let db: Db;
let accountId: string;
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 3);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `meio-scenario-run-${Date.now()}`)).id;
});
afterAll(async () => {
  await db.end();
});

const defaults = () => withTenant(db, accountId, async (tx) => tx.any(sql.unsafe`SELECT id, is_default FROM meio_scenarios`)) as Promise<Array<{ id: number; is_default: boolean }>>;

test('on a fresh tenant two chunks at once create one default scenario and both use it', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  let firstId = 0;
  const first = withTenant(db, accountId, async (tx) => {
    firstId = (await meioScenarioForRun(tx, null))!;
    await held; // the first chunk keeps its transaction open with the new row not yet committed
  });
  while (!firstId) await new Promise((r) => setTimeout(r, 10));
  const second = withTenant(db, accountId, async (tx) => meioScenarioForRun(tx, null));
  await new Promise((r) => setTimeout(r, 100));
  release();
  await first;
  expect(await second).toBe(firstId);
  expect(await defaults()).toEqual([{ id: firstId, is_default: true }]);
});

test('once the default exists a chunk does not wait for another chunk that is still running', async () => {
  const id = (await defaults())[0].id;
  const seen = await withTenant(db, accountId, async (a) => {
    expect(await meioScenarioForRun(a, null)).toBe(id);
    // chunk a is still open: chunk b would wait for a's commit if resolving the scenario took a lock
    return withTenant(db, accountId, async (b) => {
      await b.query(sql.unsafe`SET LOCAL lock_timeout = '300ms'`);
      return meioScenarioForRun(b, null);
    });
  });
  expect(seen).toBe(id);
  expect(await withTenant(db, accountId, (tx) => meioScenarioForRun(tx, id + 1000))).toBeNull();
});
