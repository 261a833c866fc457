import { sql, type Tx } from './pool';

/**
 * The SQL of a plain record table, from a declaration instead of a hand-written file per table: list with filters
 * and paging, get, insert, partial update, delete. Identifiers come from the declaration (sql.identifier), values
 * are always bound parameters, so a declaration cannot open an injection path.
 */
export type ColumnType = 'int' | 'bigint' | 'numeric' | 'text' | 'bool' | 'date' | 'timestamptz' | 'jsonb' | 'text[]' | 'int[]';

export interface ColumnDef {
  type: ColumnType;
  /** false for columns the database fills (id, created_at, updated_at); default true */
  writable?: boolean;
}

export interface RecordTable {
  /** table name in the tenant schema */
  table: string;
  /** the primary-key column, an integer */
  key: string;
  columns: Record<string, ColumnDef>;
  /** default ORDER BY of lists; the key breaks ties */
  orderBy?: string[];
  /** columns compared case-insensitively for uniqueness (e.g. name); a clash is reported by findClash */
  uniqueIgnoringCase?: string;
  /** a boolean column at most one row may hold (is_default, is_baseline): setting it clears the others */
  exclusiveFlag?: string;
  /** set to now() on every update, when the table has it */
  touch?: string;
}

export type FilterOp = 'eq' | 'ilike' | 'gte' | 'lte' | 'in';

export interface Filter {
  column: string;
  op: FilterOp;
  value: unknown;
}

export interface Page {
  skip: number;
  limit: number;
  /** ORDER BY column (declared) and direction; default the table's orderBy */
  sort?: string;
  order?: 'asc' | 'desc';
}

export type RecordRow = Record<string, unknown>;

const ARRAY_TYPE: Record<string, 'text' | 'int4'> = { 'text[]': 'text', 'int[]': 'int4' };

function columnOf(t: RecordTable, name: string): ColumnDef {
  const c = t.columns[name];
  if (!c) throw new Error(`${t.table}: column ${name} is not declared`);
  return c;
}

const ident = (name: string) => sql.identifier([name]);

function bind(c: ColumnDef, value: unknown) {
  if (value === null || value === undefined) return sql.fragment`${null}`;
  if (c.type === 'jsonb') return sql.fragment`${sql.jsonb(value as any)}`;
  if (ARRAY_TYPE[c.type]) return sql.fragment`${sql.array(value as readonly any[], ARRAY_TYPE[c.type])}`;
  if (c.type === 'date') return sql.fragment`${String(value)}::date`;
  return sql.fragment`${value as string | number | boolean}`;
}

const selectList = (t: RecordTable) => sql.join(Object.keys(t.columns).map(ident), sql.fragment`, `);

function whereOf(t: RecordTable, filters: readonly Filter[]) {
  const parts = filters.map((f) => {
    const c = columnOf(t, f.column);
    const col = ident(f.column);
    switch (f.op) {
      case 'eq': return sql.fragment`${col} = ${bind(c, f.value)}`;
      case 'gte': return sql.fragment`${col} >= ${bind(c, f.value)}`;
      case 'lte': return sql.fragment`${col} <= ${bind(c, f.value)}`;
      // the search text is a literal: % and _ typed by the user match themselves
      case 'ilike': return sql.fragment`${col}::text ILIKE ${`%${String(f.value).replace(/[\\%_]/g, (m) => `\\${m}`)}%`}`;
      case 'in': {
        const values = f.value as readonly unknown[];
        const type = c.type === 'text' ? 'text' : c.type === 'bigint' ? 'int8' : 'int4';
        return sql.fragment`${col} = ANY(${sql.array(values as readonly any[], type)})`;
      }
    }
  });
  return parts.length ? sql.fragment`WHERE ${sql.join(parts, sql.fragment` AND `)}` : sql.fragment``;
}

function orderOf(t: RecordTable, page: Page) {
  const cols = page.sort ? [page.sort] : t.orderBy ?? [];
  const dir = page.order === 'desc' ? sql.fragment`DESC` : sql.fragment`ASC`;
  const keys = [...cols.filter((c) => c !== t.key).map((c) => (columnOf(t, c), sql.fragment`${ident(c)} ${dir}`)), sql.fragment`${ident(t.key)} ${page.sort === t.key ? dir : sql.fragment`ASC`}`];
  return sql.join(keys, sql.fragment`, `);
}

/** Serialises writers of one table for the rest of the transaction (check-then-write of unique names and flags). */
export async function lockRecords(tx: Tx, t: RecordTable): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext(${t.table}))`);
}

export async function listRecords(tx: Tx, t: RecordTable, filters: readonly Filter[], page: Page): Promise<{ rows: RecordRow[]; total: number }> {
  const where = whereOf(t, filters);
  const rows = await tx.any(sql.unsafe`
    SELECT ${selectList(t)} FROM ${ident(t.table)} ${where} ORDER BY ${orderOf(t, page)} LIMIT ${page.limit} OFFSET ${page.skip}`);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${ident(t.table)} ${where}`)) as number;
  return { rows: [...rows] as RecordRow[], total };
}

export async function getRecord(tx: Tx, t: RecordTable, id: number): Promise<RecordRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${selectList(t)} FROM ${ident(t.table)} WHERE ${ident(t.key)} = ${id}`)) as RecordRow | null;
}

/** The row (other than `exceptId`) whose unique column equals `value` ignoring case, if any. */
export async function findClash(tx: Tx, t: RecordTable, value: string, exceptId?: number): Promise<RecordRow | null> {
  if (!t.uniqueIgnoringCase) return null;
  const col = ident(t.uniqueIgnoringCase);
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${selectList(t)} FROM ${ident(t.table)} WHERE lower(${col}) = lower(${value}) AND ${ident(t.key)} <> ${exceptId ?? 0} LIMIT 1`)) as RecordRow | null;
}

/** Clears the exclusive flag on every row but `keepId`. */
export async function clearExclusiveFlag(tx: Tx, t: RecordTable, keepId?: number): Promise<void> {
  if (!t.exclusiveFlag) return;
  const flag = ident(t.exclusiveFlag);
  const touch = t.touch ? sql.fragment`, ${ident(t.touch)} = now()` : sql.fragment``;
  await tx.query(sql.unsafe`UPDATE ${ident(t.table)} SET ${flag} = false ${touch} WHERE ${flag} AND ${ident(t.key)} <> ${keepId ?? 0}`);
}

const writable = (t: RecordTable, values: RecordRow) =>
  Object.entries(values).filter(([k, v]) => v !== undefined && t.columns[k] && t.columns[k].writable !== false);

export async function insertRecord(tx: Tx, t: RecordTable, values: RecordRow): Promise<RecordRow> {
  const entries = writable(t, values);
  if (!entries.length) return (await tx.one(sql.unsafe`INSERT INTO ${ident(t.table)} DEFAULT VALUES RETURNING ${selectList(t)}`)) as RecordRow;
  const cols = sql.join(entries.map(([k]) => ident(k)), sql.fragment`, `);
  const vals = sql.join(entries.map(([k, v]) => bind(t.columns[k], v)), sql.fragment`, `);
  return (await tx.one(sql.unsafe`INSERT INTO ${ident(t.table)} (${cols}) VALUES (${vals}) RETURNING ${selectList(t)}`)) as RecordRow;
}

/** Sets only the columns given; null when the row does not exist. */
export async function updateRecord(tx: Tx, t: RecordTable, id: number, values: RecordRow): Promise<RecordRow | null> {
  const sets = writable(t, values).map(([k, v]) => sql.fragment`${ident(k)} = ${bind(t.columns[k], v)}`);
  if (t.touch) sets.push(sql.fragment`${ident(t.touch)} = now()`);
  if (!sets.length) return getRecord(tx, t, id);
  return (await tx.maybeOne(sql.unsafe`
    UPDATE ${ident(t.table)} SET ${sql.join(sets, sql.fragment`, `)} WHERE ${ident(t.key)} = ${id} RETURNING ${selectList(t)}`)) as RecordRow | null;
}

export async function deleteRecord(tx: Tx, t: RecordTable, id: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`DELETE FROM ${ident(t.table)} WHERE ${ident(t.key)} = ${id}`);
  return r.rowCount > 0;
}
