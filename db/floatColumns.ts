/**
 * Float array columns of many rows in one binary parameter each: what the forecasting steps write (hundreds of
 * thousands of arrays per run) goes to PostgreSQL without being printed and parsed as decimal text.
 *
 * Why: a double printed with round-trip precision costs V8 ~250 ns and PostgreSQL's parser about as much again, and
 * every array literal then went through node-postgres' escaping as an element of a text[]; at 57 million numbers per
 * 10,000 series that was the largest single cost of writing the backtest. Here every row's values are packed, one after
 * the other, into a single float8[] in PostgreSQL's binary format (array_send: header, then length + IEEE 754 big-endian
 * per element), which node-postgres sends as a binary parameter; each row takes its slice by offset and length.
 *
 * The packed array has no NULL elements, so that a slice is found by arithmetic (with a null bitmap PostgreSQL would
 * walk the array from the start for every row): a missing value (NaN or ±Infinity — a closed week, an actual not
 * known yet) travels as NaN and becomes NULL again in SQL, only in the rows that have one, exactly as the text
 * literals stored it. A null array (length −1) stays NULL.
 */
import type { TypeNameIdentifier } from 'slonik';
import { sql } from './pool';

const FLOAT8_OID = 701;

export interface PackedFloatColumn {
  /** the whole column as a binary float8[] */
  data: Buffer;
  /** per row: index of its first value in data (0-based) */
  offsets: number[];
  /** per row: number of values, −1 for a null array */
  lengths: number[];
  /** per row: whether a value is missing (stored as NULL) */
  missing: boolean[];
}

/** Packs the rows' arrays (null = a null array) into one binary float8[]. */
export function packFloatColumn(arrays: ReadonlyArray<ArrayLike<number> | null>): PackedFloatColumn {
  let total = 0;
  for (const a of arrays) if (a) total += a.length;
  // ndim, flags, element type, then (size, lower bound) of the one dimension; each element: int32 length + 8 bytes
  const data = Buffer.allocUnsafe(20 + 12 * total);
  data.writeInt32BE(1, 0);
  data.writeInt32BE(0, 4);
  data.writeInt32BE(FLOAT8_OID, 8);
  data.writeInt32BE(total, 12);
  data.writeInt32BE(1, 16);
  const offsets: number[] = new Array(arrays.length);
  const lengths: number[] = new Array(arrays.length);
  const missing: boolean[] = new Array(arrays.length);
  let pos = 20;
  let index = 0;
  for (let r = 0; r < arrays.length; r++) {
    const a = arrays[r];
    offsets[r] = index;
    if (!a) {
      lengths[r] = -1;
      missing[r] = false;
      continue;
    }
    let gap = false;
    for (let i = 0; i < a.length; i++) {
      let v = a[i];
      if (!Number.isFinite(v)) {
        v = Number.NaN;
        gap = true;
      }
      data.writeInt32BE(8, pos);
      data.writeDoubleBE(v, pos + 4);
      pos += 12;
    }
    index += a.length;
    lengths[r] = a.length;
    missing[r] = gap;
  }
  return { data, offsets, lengths, missing };
}

const SLICE_TYPES = ['int4', 'int4', 'bool'] as const;

/** The unnest columns that carry a packed column's offset, length and missing flag for each row. */
const sliceNames = (name: string): string[] => [`${name}_off`, `${name}_len`, `${name}_gap`];

/**
 * `FROM unnest(…) AS u(…), (SELECT <packed>::float8[] AS <name>, …) AS f`: row i of the unnest carries
 * `scalars[i]` (columns `names` of types `types`) and, for each packed column, its slice of that row; each packed
 * column is sent once. Select a row's array with floatSlice(name).
 */
export function rowsWithPackedColumns(
  scalars: ReadonlyArray<readonly unknown[]>,
  types: readonly TypeNameIdentifier[],
  names: readonly string[],
  columns: ReadonlyArray<readonly [string, PackedFloatColumn]>,
) {
  const tuples = scalars.map((row, i) => [...row, ...columns.flatMap(([, c]) => [c.offsets[i], c.lengths[i], c.missing[i]])]);
  const allTypes = [...types, ...columns.flatMap(() => SLICE_TYPES)];
  const allNames = [...names, ...columns.flatMap(([name]) => sliceNames(name))];
  const packed = sql.join(
    columns.map(([name, c]) => sql.fragment`${sql.binary(c.data)}::float8[] AS ${sql.identifier([name])}`),
    sql.fragment`, `,
  );
  return sql.fragment`FROM ${sql.unnest(tuples, allTypes)} AS u(${sql.join(allNames.map((n) => sql.identifier([n])), sql.fragment`, `)}), (SELECT ${packed}) AS f`;
}

/** One row's array of packed column `name` (rowsWithPackedColumns' `f` and `u`). */
export function floatSlice(name: string) {
  const whole = sql.identifier(['f', name]);
  const [o, n, g] = sliceNames(name).map((x) => sql.identifier(['u', x]));
  return sql.fragment`CASE WHEN ${n} < 0 THEN NULL
    WHEN ${g} THEN array_replace(${whole}[${o} + 1 : ${o} + ${n}], 'NaN'::float8, NULL)
    ELSE ${whole}[${o} + 1 : ${o} + ${n}] END`;
}
