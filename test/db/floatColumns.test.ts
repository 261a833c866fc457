import { floatSlice, packFloatColumn, rowsWithPackedColumns } from '../../db/floatColumns';
import { openPool, sql, type Db } from '../../db/pool';

let db: Db;
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
});
afterAll(async () => {
  await db.end();
});

/** Round trip through PostgreSQL: each row's array as float8[] read back by the pool's parsers. */
async function roundTrip(rows: Array<ArrayLike<number> | null>): Promise<Array<Array<number | null> | null>> {
  const col = packFloatColumn(rows);
  const result = await db.any(sql.unsafe`
    SELECT u.i, ${floatSlice('v')} AS v
    ${rowsWithPackedColumns(rows.map((_, i) => [i]), ['int4'], ['i'], [['v', col]])}
    ORDER BY u.i`);
  return result.map((r) => r.v as Array<number | null> | null);
}

test('arrays of many rows come back exactly: full precision, empty and null arrays, missing values as NULL', async () => {
  const rows: Array<ArrayLike<number> | null> = [
    [1, 2.5, -3.25],
    Float64Array.from([0.1 + 0.2, 1e-300, 123456789.123456789, -0]),
    [],
    null,
    [Number.NaN, 4, Number.POSITIVE_INFINITY, 5, Number.NEGATIVE_INFINITY],
    [7],
  ];
  expect(await roundTrip(rows)).toEqual([
    [1, 2.5, -3.25],
    [0.1 + 0.2, 1e-300, 123456789.123456789, -0],
    [],
    null,
    [null, 4, null, 5, null],
    [7],
  ]);
});

test('offsets, lengths and missing flags describe each row of the packed column', () => {
  const c = packFloatColumn([[1, 2], null, [Number.NaN], []]);
  expect(c.offsets).toEqual([0, 2, 2, 3]);
  expect(c.lengths).toEqual([2, -1, 1, 0]);
  expect(c.missing).toEqual([false, false, true, false]);
  // header (20 bytes) + 3 elements × (length + double)
  expect(c.data.length).toBe(20 + 3 * 12);
  expect(c.data.readInt32BE(12)).toBe(3);
  expect(c.data.readDoubleBE(20 + 12 + 4)).toBe(2);
});

test('a large column (20,000 rows × 52 values) round-trips with every value in its row', async () => {
  const rows = Array.from({ length: 20000 }, (_, r) => Float64Array.from({ length: 52 }, (_, j) => r + j / 64));
  const back = await roundTrip(rows);
  expect(back.length).toBe(20000);
  for (const r of [0, 1, 9999, 19999]) expect(back[r]).toEqual(Array.from(rows[r]));
});
