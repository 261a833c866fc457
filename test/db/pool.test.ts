import { openPool, sql, type Db } from '../../db/pool';

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
