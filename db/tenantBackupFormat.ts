import pg from 'pg';

/**
 * A tenant backup file (gzip): one JSON header line, then for each table of `tables`, in that order, its rows in
 * PostgreSQL's COPY text format followed by a line `\.`. COPY's text format escapes backslashes, newlines and
 * carriage returns inside values, so no data line can be `\.` or hold a line break, and a reader splits on lines.
 * Our own format because pg_dump must match the server's major version (docs/OPERATIONS.md).
 */
export const BACKUP_FORMAT = 'planning-tenant-backup';
export const BACKUP_FORMAT_VERSION = 1;
export const END_OF_TABLE = '\\.';

export interface BackupTable {
  name: string;
  /** the columns COPY names (generated columns are computed again on restore) */
  columns: string[];
  /** a history partition (migration 019): its parent and the snapshot id it holds, created again on restore */
  partition_of?: { parent: string; value: number };
}

export interface BackupSequence {
  name: string;
  /** null: never used */
  last_value: number | null;
  start_value: number;
}

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  created_at: string;
  server_version: string;
  account: { id: string; name: string };
  migrations: Array<{ version: number; name: string }>;
  /** parents before the tables that reference them */
  tables: BackupTable[];
  sequences: BackupSequence[];
}

/** Settings both ends use, so values print and parse the same whatever the server's or role's defaults. */
export const SESSION_SETTINGS: Array<[string, string]> = [
  ['datestyle', 'ISO, YMD'],
  ['intervalstyle', 'postgres'],
  ['timezone', 'UTC'],
  ['extra_float_digits', '1'],
  ['bytea_output', 'hex'],
  ['client_encoding', 'UTF8'],
];

/** slonik builds the SQL (identifiers and values bound, never spliced); a plain pg client runs it, as COPY needs. */
export async function run<T extends pg.QueryResultRow = pg.QueryResultRow>(client: pg.Client, q: { sql: string; values: readonly unknown[] }): Promise<T[]> {
  // slonik numbers its placeholders $slonik_N and rewrites them to $N itself before running (as done here)
  return (await client.query<T>(q.sql.replaceAll('$slonik_', '$'), [...q.values])).rows;
}
