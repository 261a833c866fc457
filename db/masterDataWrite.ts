/**
 * Writes validated import rows into the master tables. The rows first go into a temporary table `import_src`
 * (dropped at commit), then three set-based statements apply them: in `replace` mode a DELETE of the target rows
 * whose natural key is not staged, then an UPDATE of the rows whose key exists and an INSERT of the others. Their row
 * counts are the run's deleted, updated and inserted numbers. Everything runs in the caller's transaction.
 */
import type { CleanRow } from '../domain/import/validate';
import { TABLES, type TableName } from '../domain/import/tables';
import { sql, type Tx } from './pool';
import { triggersMayBeOff, withTriggersOff } from './heldReferences';

type SqlType = 'int4' | 'int8' | 'numeric' | 'text' | 'date' | 'timestamptz' | 'jsonb' | 'bool';
type Fragment = ReturnType<typeof sql.fragment>;

interface SrcCol {
  /** column of import_src, filled from the validated row's value of the same name */
  name: string;
  type: SqlType;
}

interface KeyCol {
  src: string;
  target: string;
  nullable?: boolean;
}

interface ValueCol {
  src: string;
  target: string;
  /** value stored when the cell was empty (insert, and update in replace mode); `s` is import_src */
  default?: Fragment;
  /** jsonb objects: upsert merges into the stored object instead of replacing it */
  merge?: boolean;
}

interface TargetSpec {
  target: string;
  src: SrcCol[];
  /** columns of import_src whose values identify a staged row (duplicates are found on these) */
  dedupe: string[];
  key: KeyCol[];
  cols: ValueCol[];
  touch?: boolean;
  /** runs after the rows are in import_src, before they are applied */
  prepare?: (tx: Tx) => Promise<void>;
  /**
   * One SELECT of the staged rows that are plainly valid, typed as import_src's columns (row_no first), so they reach
   * import_src or the target without leaving the database; rows it does not take are read and judged by the
   * validator as before. It may only take a row the validator would accept, with the value the validator would give
   * it. It reads the temporary table `plain_days` (preparePlain).
   */
  plainRows?: Fragment;
  /** a target without ids of its own: rows go in in key order, which fills its primary key's index from left to right */
  insertInKeyOrder?: boolean;
  /** foreign keys of the target (column → referenced table), checked set-based on a bulk insert */
  references?: Array<{ target: string; table: 'items' | 'sites' }>;
}

// Cells the database can read exactly as domain/import/validate.ts does, so no rejection reason is ever needed for
// them. Anything else (surrounding blanks in any Unicode sense, signs, exponents, dates outside 1900–2199, numbers of
// more than 15 digits, which a double does not carry exactly) goes to the validator.
// A code: printable ASCII at both ends, so JavaScript's trim() would leave it unchanged. It is tested on the few
// items and sites rows, not on the millions of staged rows: a staged code equal to a plain one is plain itself.
const PLAIN_CODE = '^[\\x21-\\x7e](.*[\\x21-\\x7e])?$';
// A date: equal to the text of a real day of 1900–2199, which a join finds without a regex or a cast per row. The
// days are a temporary table with statistics: as a set-returning function PostgreSQL misjudged them and sorted all
// staged rows for a merge join, or hashed them instead of the 110,000 days (27 s instead of 14 s at 10 million rows).
const PLAIN_DAYS_TABLE = sql.fragment`
  CREATE TEMP TABLE IF NOT EXISTS plain_days ON COMMIT DROP AS
  SELECT date '1900-01-01' + i AS ds, to_char(date '1900-01-01' + i, 'YYYY-MM-DD') AS txt
  FROM generate_series(0, date '2199-12-31' - date '1900-01-01') i`;
// A quantity >= 0; String(Number(s)) of at most 15 digits is the same decimal with its trailing zeros dropped,
// which is trim_scale.
const PLAIN_QTY = '^[0-9]+([.][0-9]+)?$'

const f = sql.fragment;

const SPECS: Record<TableName, TargetSpec> = {
  items: {
    target: 'items', touch: true,
    src: [{ name: 'xuid', type: 'text' }, { name: 'name', type: 'text' }, { name: 'avg_unit_cost', type: 'numeric' }, { name: 'unit_price', type: 'numeric' }, { name: 'image_url', type: 'text' }, { name: 'attributes', type: 'jsonb' }],
    dedupe: ['xuid'],
    key: [{ src: 'xuid', target: 'xuid' }],
    cols: [
      { src: 'name', target: 'name', default: f`s.xuid` },
      { src: 'avg_unit_cost', target: 'avg_unit_cost', default: f`0` },
      { src: 'unit_price', target: 'unit_price', default: f`0` },
      { src: 'image_url', target: 'image_url' },
      { src: 'attributes', target: 'attributes', default: f`'{}'::jsonb`, merge: true },
    ],
  },
  sites: {
    target: 'sites', touch: true,
    src: [{ name: 'xuid', type: 'text' }, { name: 'name', type: 'text' }, { name: 'site_type', type: 'text' }, { name: 'attributes', type: 'jsonb' }],
    dedupe: ['xuid'],
    key: [{ src: 'xuid', target: 'xuid' }],
    cols: [
      { src: 'name', target: 'name', default: f`s.xuid` },
      { src: 'site_type', target: 'site_type' },
      { src: 'attributes', target: 'attributes', default: f`'{}'::jsonb`, merge: true },
    ],
  },
  item_site: {
    target: 'item_site', touch: true,
    src: [
      { name: 'item_xuid', type: 'int4' }, { name: 'site_xuid', type: 'int4' }, { name: 'unit_cost', type: 'numeric' }, { name: 'lead_time_weeks', type: 'numeric' },
      { name: 'on_hand', type: 'numeric' }, { name: 'safety_stock', type: 'numeric' }, { name: 'moq', type: 'numeric' }, { name: 'order_multiple', type: 'numeric' },
    ],
    dedupe: ['item_xuid', 'site_xuid'],
    key: [{ src: 'item_xuid', target: 'item_id' }, { src: 'site_xuid', target: 'site_id' }],
    cols: [
      { src: 'unit_cost', target: 'unit_cost' },
      { src: 'lead_time_weeks', target: 'lead_time_weeks' },
      { src: 'on_hand', target: 'on_hand', default: f`0` },
      { src: 'safety_stock', target: 'safety_stock', default: f`0` },
      { src: 'moq', target: 'moq', default: f`0` },
      { src: 'order_multiple', target: 'order_multiple', default: f`1` },
    ],
  },
  routes: {
    target: 'routes', touch: true,
    src: [
      { name: 'item_xuid', type: 'int4' }, { name: 'from_site_xuid', type: 'int4' }, { name: 'to_site_xuid', type: 'int4' }, { name: 'route_type', type: 'text' },
      { name: 'lead_time', type: 'numeric' }, { name: 'priority', type: 'int4' },
    ],
    dedupe: ['item_xuid', 'from_site_xuid', 'to_site_xuid', 'route_type'],
    key: [
      { src: 'item_xuid', target: 'item_id', nullable: true }, { src: 'from_site_xuid', target: 'from_site_id' },
      { src: 'to_site_xuid', target: 'to_site_id' }, { src: 'route_type', target: 'route_type' },
    ],
    cols: [
      { src: 'lead_time', target: 'lead_time', default: f`0` },
      { src: 'priority', target: 'priority', default: f`1` },
    ],
  },
  calendars: {
    target: 'calendar_entries',
    src: [{ name: 'calendar', type: 'text' }, { name: 'calendar_id', type: 'int4' }, { name: 'ds', type: 'date' }, { name: 'factor', type: 'numeric' }, { name: 'description', type: 'text' }],
    dedupe: ['calendar', 'ds'],
    key: [{ src: 'calendar_id', target: 'calendar_id' }, { src: 'ds', target: 'ds' }],
    cols: [
      { src: 'factor', target: 'factor', default: f`1` },
      { src: 'description', target: 'description' },
    ],
    // Calendars are created by name; their entries are keyed by the calendar's id.
    prepare: async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO calendars (name) SELECT DISTINCT calendar FROM import_src ON CONFLICT (name) DO NOTHING`);
      await tx.query(sql.unsafe`UPDATE import_src s SET calendar_id = c.id FROM calendars c WHERE c.name = s.calendar`);
    },
  },
  demand_history: {
    target: 'demand_history',
    src: [{ name: 'item_xuid', type: 'int4' }, { name: 'site_xuid', type: 'int4' }, { name: 'ds', type: 'date' }, { name: 'qty', type: 'numeric' }],
    dedupe: ['item_xuid', 'site_xuid', 'ds'],
    key: [{ src: 'item_xuid', target: 'item_id' }, { src: 'site_xuid', target: 'site_id' }, { src: 'ds', target: 'ds' }],
    cols: [{ src: 'qty', target: 'qty' }],
    plainRows: f`
      SELECT g.row_no, i.id AS item_xuid, si.id AS site_xuid, day.ds, trim_scale(g.qty::numeric) AS qty
      FROM stg_demand_history g
      JOIN (SELECT id, xuid FROM items WHERE xuid ~ ${PLAIN_CODE}) i ON i.xuid = g.item_xuid
      JOIN (SELECT id, xuid FROM sites WHERE xuid ~ ${PLAIN_CODE}) si ON si.xuid = g.site_xuid
      JOIN plain_days day ON day.txt = g.ds
      WHERE g.qty ~ ${PLAIN_QTY} AND length(g.qty) <= 15`,
    insertInKeyOrder: true,
    references: [{ target: 'item_id', table: 'items' }, { target: 'site_id', table: 'sites' }],
  },
  firm_orders: {
    target: 'firm_orders', touch: true,
    src: [
      { name: 'external_id', type: 'text' }, { name: 'source_system', type: 'text' }, { name: 'item_xuid', type: 'int4' }, { name: 'site_xuid', type: 'int4' },
      { name: 'source_site_xuid', type: 'int4' }, { name: 'order_type', type: 'text' }, { name: 'qty', type: 'numeric' }, { name: 'release_dt', type: 'timestamptz' },
      { name: 'arrival_dt', type: 'timestamptz' }, { name: 'unit_cost', type: 'numeric' }, { name: 'order_cost', type: 'numeric' }, { name: 'total_cost', type: 'numeric' },
      { name: 'erp_status', type: 'text' }, { name: 'received_qty', type: 'numeric' }, { name: 'expiry_date', type: 'date' }, { name: 'attributes', type: 'jsonb' },
    ],
    dedupe: ['external_id', 'source_system'],
    key: [{ src: 'external_id', target: 'external_id' }, { src: 'source_system', target: 'source_system' }],
    cols: [
      { src: 'item_xuid', target: 'item_id' },
      { src: 'site_xuid', target: 'site_id' },
      { src: 'source_site_xuid', target: 'source_site_id' },
      { src: 'order_type', target: 'order_type' },
      { src: 'qty', target: 'qty' },
      { src: 'release_dt', target: 'release_dt' },
      { src: 'arrival_dt', target: 'arrival_dt' },
      { src: 'unit_cost', target: 'unit_cost' },
      { src: 'order_cost', target: 'order_cost' },
      { src: 'total_cost', target: 'total_cost' },
      { src: 'erp_status', target: 'erp_status', default: f`'firm'` },
      { src: 'received_qty', target: 'received_qty', default: f`0` },
      { src: 'expiry_date', target: 'expiry_date' },
      { src: 'attributes', target: 'attributes', default: f`'{}'::jsonb`, merge: true },
    ],
  },
  supersession: {
    target: 'supersession', touch: true,
    src: [
      { name: 'from_item_xuid', type: 'int4' }, { name: 'to_item_xuid', type: 'int4' }, { name: 'site_xuid', type: 'int4' }, { name: 'effective_date', type: 'date' },
      { name: 'demand_factor', type: 'numeric' }, { name: 'stock_rollable', type: 'bool' }, { name: 'notes', type: 'text' },
    ],
    dedupe: ['from_item_xuid', 'to_item_xuid', 'site_xuid', 'effective_date'],
    key: [
      { src: 'from_item_xuid', target: 'from_item_id' }, { src: 'to_item_xuid', target: 'to_item_id' },
      { src: 'site_xuid', target: 'site_id', nullable: true }, { src: 'effective_date', target: 'effective_date', nullable: true },
    ],
    cols: [
      { src: 'demand_factor', target: 'demand_factor', default: f`1` },
      { src: 'stock_rollable', target: 'stock_rollable', default: f`true` },
      { src: 'notes', target: 'notes' },
    ],
  },
};

// Every staging key column must be an import_src column, so duplicates are judged on what the user wrote.
for (const [name, spec] of Object.entries(SPECS)) {
  for (const k of TABLES[name as TableName].key) {
    if (!spec.src.some((c) => c.name === k)) throw new Error(`import spec ${name}: key column ${k} is not in import_src`);
  }
}

const id = (name: string) => sql.identifier([name]);
const TYPE: Record<SqlType, Fragment> = {
  int4: f`int4`, int8: f`int8`, numeric: f`numeric`, text: f`text`, date: f`date`, timestamptz: f`timestamptz`, jsonb: f`jsonb`, bool: f`bool`,
};
const s = (c: string) => sql.identifier(['s', c]);
const t = (c: string) => sql.identifier(['t', c]);
const comma = f`, `;

/** Creates the empty import_src of a table (dropped when the transaction ends). */
export async function createSource(tx: Tx, table: TableName): Promise<void> {
  const spec = SPECS[table];
  await tx.query(sql.unsafe`DROP TABLE IF EXISTS pg_temp.import_src`);
  const cols = sql.join([f`row_no int8 PRIMARY KEY`, ...spec.src.map((c) => f`${id(c.name)} ${TYPE[c.type]}`)], comma);
  await tx.query(sql.unsafe`CREATE TEMP TABLE import_src (${cols}) ON COMMIT DROP`);
  // the duplicate-key window and the apply sort millions of rows at 100,000 series: at the default 4 MB they spill
  // to disk in many merge passes; one import runs per tenant at a time, so this transaction may take more
  await tx.query(sql.unsafe`SET LOCAL work_mem = '256MB'`);
}

/** Appends validated rows to import_src. */
export async function addSource(tx: Tx, table: TableName, rows: Array<{ row_no: number; values: CleanRow }>): Promise<void> {
  if (!rows.length) return;
  const spec = SPECS[table];
  const names = ['row_no', ...spec.src.map((c) => c.name)];
  const tuples = rows.map((r) => [String(r.row_no), ...spec.src.map((c) => r.values[c.name] ?? null)]);
  const casts = sql.join([f`u.row_no::int8`, ...spec.src.map((c) => f`${sql.identifier(['u', c.name])}::${TYPE[c.type]}`)], comma);
  await tx.query(sql.unsafe`
    INSERT INTO import_src (${sql.join(names.map(id), comma)})
    SELECT ${casts} FROM ${sql.unnest(tuples, names.map(() => 'text'))} AS u(${sql.join(names.map(id), comma)})`);
}

/**
 * Moves the table's plainly valid staged rows into import_src in one statement (see `plainRows`); returns how many.
 * 0 for tables without such a statement: all their rows go through the validator.
 */
export async function addPlainSource(tx: Tx, table: TableName): Promise<number> {
  const spec = SPECS[table];
  if (!spec.plainRows) return 0;
  const names = ['row_no', ...spec.src.map((c) => c.name)];
  return plainStatement(tx, table, sql.unsafe`INSERT INTO import_src (${sql.join(names.map(id), comma)}) ${spec.plainRows}`);
}

/** Runs a statement reading the table's plain rows (spec.plainRows) with the plan it needs; returns its row count. */
async function plainStatement(tx: Tx, table: TableName, stmt: ReturnType<typeof sql.unsafe>): Promise<number> {
  // Staging was just filled: without statistics PostgreSQL takes it for a few rows and joins a million of them
  // by nested loops over the 110,000 days (minutes instead of seconds at 10,000 series). ANALYZE reads a sample.
  // Every join here is a small table against all of staging, which hash joins do in one pass whatever the estimates
  // (a merge join sorts all of staging first).
  await tx.query(sql.unsafe`ANALYZE ${sql.identifier([`stg_${table}`])}`);
  await tx.query(sql.unsafe`${PLAIN_DAYS_TABLE}`);
  await tx.query(sql.unsafe`ANALYZE plain_days`);
  await tx.query(sql.unsafe`SET LOCAL enable_nestloop = off`);
  await tx.query(sql.unsafe`SET LOCAL enable_mergejoin = off`);
  const n = (await tx.query(stmt)).rowCount;
  await tx.query(sql.unsafe`SET LOCAL enable_nestloop = on`);
  await tx.query(sql.unsafe`SET LOCAL enable_mergejoin = on`);
  return n;
}

const NOT_DIRECT = new Error('not every staged row is plain');

/**
 * The bulk road for a first load: when the target is empty and every staged row is plain and its key unique, the
 * rows go from staging into the target in one sorted INSERT, without import_src, its duplicate-key window or the
 * anti-join (10 million demand rows: about 40 s instead of 90). The referenced rows are held FOR KEY SHARE, as in
 * `referencesHeld`. It is tried inside a savepoint: a row the plain statement does not take (the counts differ) or a
 * repeated key (the primary key refuses it) undoes it, and the caller takes the ordinary road, whose rejections and
 * reasons are the validator's. Returns null when it did not apply.
 */
export async function loadPlainDirect(tx: Tx, table: TableName, staged: number): Promise<ApplyCounts | null> {
  const spec = SPECS[table];
  if (!spec.plainRows || !spec.references?.length || staged === 0) return null;
  const target = id(spec.target);
  if (!(await triggersMayBeOff(tx, spec.target))) return null;
  if (!(await tx.oneFirst(sql.unsafe`SELECT NOT EXISTS (SELECT 1 FROM ${target})`))) return null;
  const { insertCols, insertVals } = insertOf(spec);
  try {
    return await tx.transaction(async (sp) => {
      for (const ref of spec.references!) await sp.query(sql.unsafe`SELECT count(*) FROM (SELECT 1 FROM ${id(ref.table)} FOR KEY SHARE) held`);
      const n = await withTriggersOff(sp, () => plainStatement(sp, table, sql.unsafe`
        INSERT INTO ${target} (${sql.join(insertCols, comma)})
        SELECT ${sql.join(insertVals, comma)} FROM (${spec.plainRows!}) s
        ORDER BY ${sql.join(spec.key.map((k) => s(k.src)), comma)}`));
      if (n !== staged) throw NOT_DIRECT;
      return { inserted: n, updated: 0, deleted: 0 };
    });
  } catch (err) {
    if (err === NOT_DIRECT || isUniqueViolation(err)) return null;
    throw err;
  }
}

function isUniqueViolation(err: unknown): boolean {
  for (let e: any = err, i = 0; e && i < 6; e = e.cause ?? e.context ?? e.originalError, i += 1) if (e.code === '23505') return true;
  return false;
}

/**
 * Each foreign key of the target checks every inserted row with a query of its own (PostgreSQL's RI trigger), a
 * floor near 56,000 rows/s for demand_history's two keys (docs/BENCHMARKS.md). The same guarantee, set-based: the
 * referenced rows are locked FOR KEY SHARE in one statement per key, which is the lock each row's check would take
 * (a concurrent delete of them waits for this transaction, then fails on the rows it finds), and when every
 * referenced id is there the insert runs with triggers off. It needs the right to set session_replication_role (a
 * superuser, or GRANT SET ON PARAMETER) and a target without triggers of its own; otherwise, or when an id is
 * missing, the ordinary insert runs and PostgreSQL's own check reports it.
 */
async function referencesHeld(tx: Tx, spec: TargetSpec): Promise<boolean> {
  if (!spec.references?.length) return false;
  if (!(await triggersMayBeOff(tx, spec.target))) return false;
  // one pass over import_src for the distinct combinations of all keys, then each referenced table's rows locked
  const cols = spec.references.map((ref) => {
    const src = spec.key.find((k) => k.target === ref.target)?.src ?? spec.cols.find((c) => c.target === ref.target)?.src;
    if (!src) throw new Error(`import spec ${spec.target}: no import_src column for ${ref.target}`);
    return src;
  });
  const counts = spec.references.map((ref, i) => f`
    (SELECT count(*) FROM (SELECT 1 FROM ${id(ref.table)} WHERE id IN (SELECT DISTINCT ${id(cols[i])} FROM used WHERE ${id(cols[i])} IS NOT NULL) FOR KEY SHARE) held)
      = (SELECT count(DISTINCT ${id(cols[i])}) FROM used)`);
  return (await tx.oneFirst(sql.unsafe`
    WITH used AS MATERIALIZED (SELECT DISTINCT ${sql.join(cols.map(id), comma)} FROM import_src)
    SELECT ${sql.join(counts, f` AND `)}`)) as boolean;
}

/** A column's value from import_src (`s`), its default when the cell was empty. */
const valueOf = (c: ValueCol) => (c.default ? f`COALESCE(${s(c.src)}, ${c.default})` : s(c.src));

/** The target's columns and import_src's values for them, as both roads insert them. */
function insertOf(spec: TargetSpec) {
  return {
    insertCols: [...spec.key.map((k) => id(k.target)), ...spec.cols.map((c) => id(c.target))],
    insertVals: [...spec.key.map((k) => s(k.src)), ...spec.cols.map(valueOf)],
  };
}

/** Removes rows whose key repeats an earlier row's; returns each removed row with the row it repeats. */
export async function dropDuplicates(tx: Tx, table: TableName): Promise<Array<{ row_no: number; first_row: number }>> {
  const spec = SPECS[table];
  const part = sql.join(spec.dedupe.map(id), comma);
  const rows = await tx.any(sql.unsafe`
    WITH d AS (SELECT row_no, first_value(row_no) OVER (PARTITION BY ${part} ORDER BY row_no) AS first_row FROM import_src)
    DELETE FROM import_src s USING d WHERE s.row_no = d.row_no AND d.row_no <> d.first_row
    RETURNING s.row_no, d.first_row`);
  await tx.query(sql.unsafe`ANALYZE import_src`);
  return (rows as Array<{ row_no: number; first_row: number }>).map((r) => ({ row_no: Number(r.row_no), first_row: Number(r.first_row) })).sort((a, b) => a.row_no - b.row_no);
}

export interface ApplyCounts {
  inserted: number;
  updated: number;
  deleted: number;
}

/** Applies import_src to the target table; `replace` also deletes the target rows whose key is not staged. */
export async function applySource(tx: Tx, table: TableName, mode: 'upsert' | 'replace'): Promise<ApplyCounts> {
  const spec = SPECS[table];
  await spec.prepare?.(tx);
  const match = sql.join(spec.key.map((k) => (k.nullable ? f`${t(k.target)} IS NOT DISTINCT FROM ${s(k.src)}` : f`${t(k.target)} = ${s(k.src)}`)), f` AND `);
  const target = id(spec.target);

  let deleted = 0;
  if (mode === 'replace') {
    const r = await tx.query(sql.unsafe`DELETE FROM ${target} t WHERE NOT EXISTS (SELECT 1 FROM import_src s WHERE ${match})`);
    deleted = r.rowCount;
  }

  const sets = spec.cols.map((c) => {
    if (mode === 'replace') return f`${id(c.target)} = ${valueOf(c)}`;
    if (c.merge) return f`${id(c.target)} = ${t(c.target)} || COALESCE(${s(c.src)}, '{}'::jsonb)`;
    return f`${id(c.target)} = COALESCE(${s(c.src)}, ${t(c.target)})`;
  });
  if (spec.touch) sets.push(f`updated_at = now()`);
  const updated = sets.length
    ? (await tx.query(sql.unsafe`UPDATE ${target} t SET ${sql.join(sets, comma)} FROM import_src s WHERE ${match}`)).rowCount
    : (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM import_src s WHERE EXISTS (SELECT 1 FROM ${target} t WHERE ${match})`)) as number;

  const { insertCols, insertVals } = insertOf(spec);
  const insert = sql.unsafe`
    INSERT INTO ${target} (${sql.join(insertCols, comma)})
    SELECT ${sql.join(insertVals, comma)} FROM import_src s
    WHERE NOT EXISTS (SELECT 1 FROM ${target} t WHERE ${match})
    ORDER BY ${spec.insertInKeyOrder ? sql.join(spec.key.map((k) => s(k.src)), comma) : s('row_no')}`;
  let inserted: number;
  if (await referencesHeld(tx, spec)) {
    inserted = (await withTriggersOff(tx, () => tx.query(insert))).rowCount;
  } else {
    inserted = (await tx.query(insert)).rowCount;
  }

  return { inserted, updated, deleted };
}
