import type { QuerySqlToken, TypeNameIdentifier } from 'slonik';
import { sql, type Tx } from './pool';

/**
 * PostgreSQL checks each inserted row's foreign keys with a query of its own (its RI trigger: an index probe and a
 * FOR KEY SHARE lock on the referenced row), which costs about as much as the insert itself: 7.0 s against 2.5 s for
 * 234,000 demand rows with two keys, and 2.3 million such checks in a 10,000-series weekly cycle. The same guarantee,
 * set-based: the referenced rows are locked FOR KEY SHARE in one statement per key, which is the lock each row's
 * check would take (a concurrent delete of them waits for this transaction, then cascades to the new rows), and when
 * every referenced key is there the insert runs with triggers off (`session_replication_role = replica`). It needs the
 * right to set that parameter (a superuser, or GRANT SET ON PARAMETER), a target without triggers of its own (but
 * ENABLE ALWAYS ones, which fire in the replica role too, and the data-version marks, fired again after), and a
 * declared key for every foreign key the catalogue has on the target; otherwise, or when a key is missing, the
 * ordinary insert runs and PostgreSQL's own check refuses the row as before.
 */

/** One foreign key of the target as its inserted rows carry it: a tuple per row, in the order of `columns`. */
export interface RowKeys {
  /** the target's referencing columns, as in its FOREIGN KEY clause */
  columns: readonly string[];
  types: readonly TypeNameIdentifier[];
  /** every inserted row's values of those columns (repeats and rows with a NULL among them are fine) */
  tuples: ReadonlyArray<ReadonlyArray<number | string | null>>;
}

interface ForeignKey {
  columns: string[];
  /** schema and name of the referenced table */
  ref_table: [string, string];
  ref_columns: string[];
}

/** Whether this connection may switch the target's triggers off (and the target has none of its own to lose). */
export async function triggersMayBeOff(tx: Tx, target: string): Promise<boolean> {
  return (await targetOf(tx, target)).road === 'bare';
}

/** Runs `write` with triggers off for this transaction, and switches them back on after it. */
export async function withTriggersOff<T>(tx: Tx, write: () => Promise<T>): Promise<T> {
  await tx.query(sql.unsafe`SET LOCAL session_replication_role = replica`);
  const result = await write();
  await tx.query(sql.unsafe`SET LOCAL session_replication_role = origin`);
  return result;
}

/**
 * How the target may be written, in one catalogue read. road 'bare': the connection may switch triggers off and the
 * target has none of its own but ENABLE ALWAYS ones, which fire in either role; 'marks': its only other triggers are
 * the statement-level data-version marks (migration 011), which look at no row and which an empty DELETE fires again
 * once triggers are back on; null: neither. keys: its foreign keys, each column list in its constraint's order.
 */
async function targetOf(tx: Tx, target: string): Promise<{ road: 'bare' | 'marks' | null; keys: ForeignKey[] }> {
  const names = (rel: ReturnType<typeof sql.fragment>, nums: ReturnType<typeof sql.fragment>) => sql.fragment`
    (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(${nums}) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.n)`;
  const r = (await tx.one(sql.unsafe`
    WITH own AS (
      SELECT (t.tgtype & 1) = 0 AND (t.tgtype & 12) = 12 AND t.tgnewtable IS NULL AND t.tgoldtable IS NULL AND p.proname = 'data_version_mark' AS mark
      FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
      -- a trigger ENABLE ALWAYS fires with triggers off too (the order counts, migration 041): nothing is lost
      WHERE t.tgrelid = to_regclass(${target}) AND NOT t.tgisinternal AND t.tgenabled <> 'A')
    SELECT has_parameter_privilege('session_replication_role', 'SET') AS allowed,
      (SELECT count(*) FILTER (WHERE NOT mark)::int FROM own) AS others, (SELECT count(*) FILTER (WHERE mark)::int FROM own) AS marks,
      (SELECT coalesce(json_agg(json_build_object(
          'columns', ${names(sql.fragment`c.conrelid`, sql.fragment`c.conkey`)},
          'ref_table', json_build_array(n.nspname, r.relname),
          'ref_columns', ${names(sql.fragment`c.confrelid`, sql.fragment`c.confkey`)})), '[]')
        FROM pg_constraint c JOIN pg_class r ON r.oid = c.confrelid JOIN pg_namespace n ON n.oid = r.relnamespace
        WHERE c.conrelid = to_regclass(${target}) AND c.contype = 'f') AS keys`)) as
    { allowed: boolean; others: number; marks: number; keys: ForeignKey[] };
  const road = !r.allowed || r.others > 0 ? null : r.marks > 0 ? 'marks' : 'bare';
  return { road, keys: r.keys };
}

const sameColumns = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

/** The distinct tuples without a NULL: MATCH SIMPLE keys do not check a row with one. */
function distinctTuples(keys: RowKeys): Array<ReadonlyArray<number | string>> {
  const seen = new Map<string, ReadonlyArray<number | string>>();
  for (const t of keys.tuples) {
    if (t.some((v) => v === null)) continue;
    const k = t.join('\u0001');
    if (!seen.has(k)) seen.set(k, t as ReadonlyArray<number | string>);
  }
  return [...seen.values()];
}

/**
 * Locks the referenced rows of every declared key and answers whether all of them exist; null when the set-based road
 * does not apply (no privilege, a trigger on the target, a foreign key not declared).
 */
export async function holdReferences(tx: Tx, target: string, declared: readonly RowKeys[]): Promise<boolean | null> {
  const { road, keys } = await targetOf(tx, target);
  return road ? referencesExist(tx, keys, declared) : null;
}

async function referencesExist(tx: Tx, keys: readonly ForeignKey[], declared: readonly RowKeys[]): Promise<boolean | null> {
  const checks = [];
  for (const fk of keys) {
    const rows = declared.find((d) => sameColumns(d.columns, fk.columns));
    if (!rows) return null;
    const tuples = distinctTuples(rows);
    if (!tuples.length) continue;
    const refCols = sql.join(fk.ref_columns.map((c) => sql.identifier([c])), sql.fragment`, `);
    checks.push(sql.fragment`(SELECT count(*) FROM (
        SELECT 1 FROM ${sql.identifier(fk.ref_table)} r WHERE (${refCols}) IN (SELECT * FROM ${sql.unnest(tuples, rows.types as TypeNameIdentifier[])})
        FOR KEY SHARE OF r) held) = ${tuples.length}`);
  }
  if (!checks.length) return true;
  return (await tx.oneFirst(sql.unsafe`SELECT ${sql.join(checks, sql.fragment` AND `)}`)) as boolean;
}

/** Per target table, how many inserts of this process took each road: a writer whose declared keys stop covering its table's foreign keys shows as `ordinary` (the tests of the steps read it). */
export const roadsTaken = new Map<string, { held: number; ordinary: number }>();

function count(target: string, held: boolean): void {
  const c = roadsTaken.get(target) ?? { held: 0, ordinary: 0 };
  if (held) c.held += 1;
  else c.ordinary += 1;
  roadsTaken.set(target, c);
}

/** Runs `insert` into `target` with its foreign keys checked set-based when it can (module comment); `held` says which road it took. */
export async function insertHoldingReferences(tx: Tx, target: string, declared: readonly RowKeys[], insert: QuerySqlToken): Promise<{ rowCount: number; held: boolean }> {
  const { road, keys } = await targetOf(tx, target);
  if (!road || !(await referencesExist(tx, keys, declared))) {
    count(target, false);
    return { rowCount: (await tx.query(insert)).rowCount, held: false };
  }
  count(target, true);
  const { rowCount } = await withTriggersOff(tx, () => tx.query(insert));
  // the data-version marks the insert skipped: statement triggers fire on a statement that touches no row
  if (road === 'marks') await tx.query(sql.unsafe`DELETE FROM ${sql.identifier([target])} WHERE false`);
  return { rowCount, held: true };
}
