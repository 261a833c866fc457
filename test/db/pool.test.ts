import pg from 'pg';
import { createTestAccount } from '../support/tenantPool';
import { overTcp } from '../support/workerDatabase';
import { openPool, sql, withTenant, type Db } from '../../db/pool';

let db: Db;
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
});
afterAll(async () => {
  await db.end();
});

test('numbers, dates and timestamps come back as JSON-ready values', async () => {
  const r = await db.one(sql.unsafe`
    SELECT 9007199254740991::int8 AS big, 1.25::numeric AS num, 2.5::float8 AS f, '2026-01-05'::date AS d,
      '2026-01-05 10:00:00+00'::timestamptz AS ts`);
  expect(r).toEqual({ big: 9007199254740991, num: 1.25, f: 2.5, d: '2026-01-05', ts: '2026-01-05T10:00:00.000Z' });
});

test('a NULL inside a numeric array stays null instead of becoming 0 (closed calendar weeks are stored that way)', async () => {
  const r = await db.one(sql.unsafe`
    SELECT ARRAY[1.5, NULL, 0]::float8[] AS f, ARRAY[NULL, 2]::numeric[] AS n, ARRAY[3, NULL]::int8[] AS i, NULL::float8 AS scalar`);
  expect(r).toEqual({ f: [1.5, null, 0], n: [null, 2], i: [3, null], scalar: null });
});

describe('connections go back to the pool without a reset round trip', () => {
  let one: Db;
  beforeAll(async () => {
    // over TCP, as deployments connect: the run's own connections use the server's Unix socket (db/embedded.ts),
    // where a write to a terminated backend can fail with EPIPE before its last message is read, and slonik then
    // never hands that connection back (docs/TESTING.md)
    one = await openPool(overTcp(process.env.DATABASE_URL!), 1);
  });
  afterAll(async () => {
    await one.end();
  });

  test('the one connection keeps its session between two queries (no DISCARD ALL on release)', async () => {
    const pid = await one.oneFirst(sql.unsafe`SELECT pg_backend_pid()`);
    await one.query(sql.unsafe`SELECT set_config('application_name', 'kept-by-the-session', false)`);
    expect(await one.one(sql.unsafe`SELECT pg_backend_pid() AS pid, current_setting('application_name') AS name`))
      .toEqual({ pid, name: 'kept-by-the-session' });
  });

  async function someAccount(): Promise<string> {
    return ((await one.maybeOneFirst(sql.unsafe`SELECT id FROM master.accounts WHERE is_active LIMIT 1`)) as string | null)
      ?? (await createTestAccount(one, process.env.DATABASE_URL!, `pool-${Date.now()}`)).id;
  }

  test('a tenant transaction that throws or fails rolls back and keeps its connection; the caller gets the error', async () => {
    const account = await someAccount();
    const pid = await one.oneFirst(sql.unsafe`SELECT pg_backend_pid()`);
    class NotFound extends Error {}
    await expect(withTenant(one, account, async (tx) => {
      await tx.query(sql.unsafe`CREATE TABLE rolled_back_by_the_throw (x int)`);
      throw new NotFound('no such thing');
    })).rejects.toThrow(NotFound);
    await expect(withTenant(one, account, async (tx) => tx.oneFirst(sql.unsafe`SELECT 1 / 0`))).rejects.toThrow(/division by zero/);
    expect(await one.one(sql.unsafe`SELECT pg_backend_pid() AS pid, to_regclass('rolled_back_by_the_throw') AS t`))
      .toEqual({ pid, t: null });
    expect(await withTenant(one, account, async (tx) => tx.oneFirst(sql.unsafe`SELECT pg_backend_pid()`))).toBe(pid);
  });

  test('a connection whose server process died mid-transaction is closed and replaced', async () => {
    const account = await someAccount();
    const pid = (await one.oneFirst(sql.unsafe`SELECT pg_backend_pid()`)) as number;
    // a plain client: slonik refuses another pool's query inside a transaction
    const killer = new pg.Client({ connectionString: overTcp(process.env.DATABASE_URL!) });
    await killer.connect();
    try {
      await expect(withTenant(one, account, async (tx) => {
        await killer.query('SELECT pg_terminate_backend($1)', [pid]);
        return tx.oneFirst(sql.unsafe`SELECT 1`);
      })).rejects.toThrow(/terminat/i);
    } finally {
      await killer.end();
    }
    const next = await withTenant(one, account, async (tx) => tx.oneFirst(sql.unsafe`SELECT pg_backend_pid()`));
    expect(next).not.toBe(pid);
  });

  test('a tenant transaction\'s search_path ends with it, so the next user of the connection starts clean', async () => {
    const account = await someAccount();
    const before = await one.oneFirst(sql.unsafe`SHOW search_path`);
    const inside = await withTenant(one, account, async (tx) => tx.oneFirst(sql.unsafe`SHOW search_path`));
    expect(inside).toMatch(/^t_[0-9a-f]{32}, public$/);
    expect(await one.oneFirst(sql.unsafe`SHOW search_path`)).toBe(before);
  });
});
