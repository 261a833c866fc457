import { stagingColumns, type StagedRow } from '../domain/import/validate';
import { TABLE_ORDER, TABLES, type TableName } from '../domain/import/tables';
import { sql, type Tx } from './pool';

/** The physical staging table of an import table name (names come from the fixed list, never from the request). */
export const stagingTable = (table: TableName) => sql.identifier([`stg_${TABLES[table].name}`]);

const CHUNK = 2000;

/** Appends staged rows in chunks; returns how many were stored. */
export async function insertStagingRows(tx: Tx, table: TableName, rows: StagedRow[]): Promise<number> {
  const cols = stagingColumns(TABLES[table]);
  const colList = sql.join(cols.map((c) => sql.identifier([c])), sql.fragment`, `);
  for (let i = 0; i < rows.length; i += CHUNK) {
    const tuples = rows.slice(i, i + CHUNK).map((r) => cols.map((c) => r[c] ?? null));
    await tx.query(sql.unsafe`
      INSERT INTO ${stagingTable(table)} (${colList})
      SELECT * FROM ${sql.unnest(tuples, cols.map(() => 'text'))}`);
  }
  return rows.length;
}

export interface StagingStat {
  table_name: TableName;
  row_count: number;
  last_loaded: string | null;
}

export async function stagingStat(tx: Tx, table: TableName): Promise<StagingStat> {
  const r = (await tx.one(sql.unsafe`
    SELECT count(*)::int AS row_count, max(loaded_at) AS last_loaded FROM ${stagingTable(table)}`)) as { row_count: number; last_loaded: string | null };
  return { table_name: table, ...r };
}

export async function stagingStats(tx: Tx): Promise<StagingStat[]> {
  const out: StagingStat[] = [];
  for (const t of TABLE_ORDER) out.push(await stagingStat(tx, t));
  return out;
}

/** Empties a staging table and restarts its row numbers; returns the number of rows it held. */
export async function truncateStaging(tx: Tx, table: TableName): Promise<number> {
  const { row_count } = await stagingStat(tx, table);
  await tx.query(sql.unsafe`TRUNCATE ${stagingTable(table)} RESTART IDENTITY`);
  return row_count;
}

/**
 * Staged rows after `afterRowNo`, in row order, `limit` at a time (keyset pagination keeps memory flat), leaving out
 * the rows already in the run's import_src (moved there in the database; db/masterDataWrite.ts addPlainSource).
 */
export async function readStagingChunk(tx: Tx, table: TableName, afterRowNo: number, limit: number): Promise<Array<StagedRow & { row_no: number }>> {
  const cols = stagingColumns(TABLES[table]);
  return (await tx.any(sql.unsafe`
    SELECT g.row_no, ${sql.join(cols.map((c) => sql.identifier(['g', c])), sql.fragment`, `)}
    FROM ${stagingTable(table)} g
    WHERE g.row_no > ${afterRowNo} AND NOT EXISTS (SELECT 1 FROM import_src s WHERE s.row_no = g.row_no)
    ORDER BY g.row_no LIMIT ${limit}`)) as Array<StagedRow & { row_no: number }>;
}

// ---------------------------------------------------------------------------------------------------------------
// Runs: the job row (db/jobs.ts) plus one result row per table and the rejected rows.

export type TableStatus = 'pending' | 'completed' | 'failed' | 'skipped';
export type ImportMode = 'upsert' | 'replace';

export interface RunTableRow {
  run_id: string;
  table_name: TableName;
  seq: number;
  mode: ImportMode;
  status: TableStatus;
  rows_read: number;
  inserted: number;
  updated: number;
  deleted: number;
  rejected: number;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
}

const RUN_TABLE_COLS = sql.fragment`run_id, table_name, seq, mode, status, rows_read, inserted, updated, deleted, rejected, error, started_at, finished_at`;

export async function insertRunTables(tx: Tx, runId: string, tables: Array<{ table: TableName; mode: ImportMode }>): Promise<void> {
  let seq = 0;
  for (const t of tables) {
    seq += 1;
    await tx.query(sql.unsafe`
      INSERT INTO import_run_tables (run_id, table_name, seq, mode) VALUES (${runId}, ${t.table}, ${seq}, ${t.mode})
      ON CONFLICT (run_id, table_name) DO NOTHING`);
  }
}

export async function getRunTables(tx: Tx, runIds: string[]): Promise<RunTableRow[]> {
  if (!runIds.length) return [];
  return (await tx.any(sql.unsafe`
    SELECT ${RUN_TABLE_COLS} FROM import_run_tables WHERE run_id = ANY(${sql.array(runIds, 'text')}) ORDER BY run_id, seq`)) as RunTableRow[];
}

export async function getRunTable(tx: Tx, runId: string, table: TableName): Promise<RunTableRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${RUN_TABLE_COLS} FROM import_run_tables WHERE run_id = ${runId} AND table_name = ${table}`)) as RunTableRow | null;
}

export interface TableOutcome {
  status: Exclude<TableStatus, 'pending'>;
  rows_read: number;
  inserted: number;
  updated: number;
  deleted: number;
  rejected: number;
  error?: string | null;
  started_at: string;
}

export async function finishRunTable(tx: Tx, runId: string, table: TableName, o: TableOutcome): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE import_run_tables SET status = ${o.status}, rows_read = ${o.rows_read}, inserted = ${o.inserted}, updated = ${o.updated},
      deleted = ${o.deleted}, rejected = ${o.rejected}, error = ${o.error ?? null}, started_at = ${o.started_at}::timestamptz, finished_at = now()
    WHERE run_id = ${runId} AND table_name = ${table}`);
}

export interface RejectedRow {
  row_no: number;
  reason: string;
  row: Record<string, unknown>;
}

export async function clearImportErrors(tx: Tx, runId: string, table: TableName): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM import_errors WHERE run_id = ${runId} AND table_name = ${table}`);
}

export async function insertImportErrors(tx: Tx, runId: string, table: TableName, rows: RejectedRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const tuples = rows.slice(i, i + CHUNK).map((r) => [String(r.row_no), r.reason, JSON.stringify(r.row)]);
    await tx.query(sql.unsafe`
      INSERT INTO import_errors (run_id, table_name, row_no, reason, row_data)
      SELECT ${runId}, ${table}, u.row_no::bigint, u.reason, u.row_data::jsonb
      FROM ${sql.unnest(tuples, ['text', 'text', 'text'])} AS u(row_no, reason, row_data)`);
  }
}

/** The staged rows (as loaded) of some row numbers, for reporting duplicates found by SQL. */
export async function stagedRowsByNo(tx: Tx, table: TableName, rowNos: number[]): Promise<Map<number, StagedRow>> {
  if (!rowNos.length) return new Map();
  const cols = stagingColumns(TABLES[table]);
  const rows = (await tx.any(sql.unsafe`
    SELECT row_no, ${sql.join(cols.map((c) => sql.identifier([c])), sql.fragment`, `)}
    FROM ${stagingTable(table)} WHERE row_no = ANY(${sql.array(rowNos.map(String), 'int8')})`)) as Array<StagedRow & { row_no: number }>;
  return new Map(rows.map(({ row_no, ...r }) => [Number(row_no), r]));
}

export interface ImportErrorRow {
  table_name: string;
  row_no: number;
  reason: string;
  row: Record<string, unknown>;
}

/** The first `limit` rejected rows of each table of a run, in row order. */
export async function errorSamples(tx: Tx, runId: string, limit: number): Promise<ImportErrorRow[]> {
  return (await tx.any(sql.unsafe`
    SELECT table_name, row_no, reason, row_data AS row FROM (
      SELECT table_name, row_no, reason, row_data, row_number() OVER (PARTITION BY table_name ORDER BY row_no, id) AS n
      FROM import_errors WHERE run_id = ${runId}) e
    WHERE n <= ${limit} ORDER BY table_name, row_no`)) as ImportErrorRow[];
}

export interface ImportRunRow {
  run_id: string;
  status: string;
  params: { tables?: TableName[]; modes?: Record<string, ImportMode> };
  result: unknown;
  error: string | null;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const RUN_COLS = sql.fragment`job_id AS run_id, status, params, result, error, created_by, created_at, started_at, finished_at`;

export async function listImportRuns(tx: Tx, limit: number, offset: number): Promise<{ runs: ImportRunRow[]; total: number }> {
  const runs = (await tx.any(sql.unsafe`
    SELECT ${RUN_COLS} FROM jobs WHERE kind = 'import' ORDER BY created_at DESC, job_id DESC LIMIT ${limit} OFFSET ${offset}`)) as ImportRunRow[];
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM jobs WHERE kind = 'import'`)) as number;
  return { runs: [...runs], total };
}

export async function getImportRun(tx: Tx, runId: string): Promise<ImportRunRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${RUN_COLS} FROM jobs WHERE kind = 'import' AND job_id = ${runId}`)) as ImportRunRow | null;
}

/** One import run writes at a time per tenant: a second run's table waits for the first one's table to commit. */
export async function lockImports(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':import'))`);
}
