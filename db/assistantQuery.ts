/**
 * Runs one generated statement of the data assistant (spec §4.7; docs/ASSISTANT.md), read-only by construction:
 *
 * - its own connection, opened for this statement and closed after it, so nothing the statement might leave in a
 *   session (a setting, an advisory lock) can reach the app's pool;
 * - `BEGIN READ ONLY`, always rolled back, never committed;
 * - `search_path` = the tenant's schema only, `statement_timeout` = the time-out (8 s unless ASSISTANT_STATEMENT_TIMEOUT_MS says otherwise), both local to the transaction;
 * - `SET LOCAL ROLE <schema>_reader` (migration 030): a NOLOGIN role that may only SELECT this tenant's tables (not
 *   users, parameters or audit_log), with no access to another tenant's schema or the master schema;
 * - the extended protocol, which refuses more than one statement, and an outer `LIMIT` of the row limit + 1;
 * - a bound on the result's BYTES computed by PostgreSQL before any row is sent (RESULT_BYTES_SQL): a 600 MB text
 *   value once reached the API, where the protocol parser threw outside any request and ended the process, and
 *   400 MB answers were sent whole. A cap on the bytes read from the socket backs it up.
 *
 * The caller applies the textual rules (domain/assistant/sqlRules.ts) first. This is the one place in db/ where SQL
 * text arrives from outside: it is never a slonik template because it is the model's text, run only under the locks above.
 */
import type { Socket } from 'node:net';
import pg from 'pg';
import { DEFAULT_ASSISTANT_STATEMENT_TIMEOUT_MS } from '../lib/env';
import { tenantSchemaName } from './pool';

export const ASSISTANT_ROW_LIMIT = 500;
/** Bytes of the rows' text (what PostgreSQL sends, near enough) a statement may return: 500 rows of 8 KB. */
export const ASSISTANT_RESULT_MAX_BYTES = 4 * 1024 * 1024;

export interface ReadOnlyResult {
  ok: true;
  columns: string[];
  rows: Array<Record<string, unknown>>;
  rowCount: number;
  truncated: boolean;
  durationMs: number;
}
export interface ReadOnlyFailure { ok: false; error: string; code: string | null; durationMs: number; tooLarge?: true }

/** The code of a failure whose result was larger than the byte bound, not a PostgreSQL SQLSTATE. */
export const RESULT_TOO_LARGE = 'result_too_large';

/**
 * The statement's first rowLimit + 1 rows are materialised once and measured in PostgreSQL (octet_length of each row's
 * text); the rows follow only when their total is within the bound, else one row carries just the total. Two columns
 * are added after the statement's: a marker that tells a real row from the empty LEFT JOIN row, and the total.
 */
export function boundedStatement(statement: string, rowLimit: number, maxBytes: number): string {
  return `WITH assistant_rows AS MATERIALIZED (SELECT assistant_query.*, true AS assistant_row FROM (\n${statement}\n) AS assistant_query LIMIT ${rowLimit + 1}),
assistant_total AS (SELECT coalesce(sum(octet_length(assistant_rows::text)), 0)::bigint AS assistant_bytes FROM assistant_rows)
SELECT assistant_rows.*, assistant_total.assistant_bytes FROM assistant_total LEFT JOIN assistant_rows ON assistant_total.assistant_bytes <= ${maxBytes}`;
}
const ADDED_COLUMNS = 2;

export const readerRole = (schema: string) => `${schema}_reader`;

const asNumber = (v: string | null) => (v === null ? null : Number(v));
const TYPES: Record<number, (v: string) => unknown> = {
  20: asNumber as (v: string) => unknown, // int8
  1700: asNumber as (v: string) => unknown, // numeric
  1082: (v) => v, // date
  1114: (v) => new Date(`${v.replace(' ', 'T')}Z`).toISOString(), // timestamp
  1184: (v) => new Date(v).toISOString(), // timestamptz
  1016: (v) => ((pg.types.getTypeParser as any)(1016) as (s: string) => Array<string | null>)(v).map((x) => (x === null ? null : Number(x))), // int8[]
  1231: (v) => ((pg.types.getTypeParser as any)(1231) as (s: string) => Array<string | null>)(v).map((x) => (x === null ? null : Number(x))), // numeric[]
};
const types = { getTypeParser: ((oid: number, format?: any) => TYPES[oid] ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser };

/** Column names made unique (`x`, `x_2`), so rows can be objects without losing a column. */
function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((n) => {
    const k = (seen.get(n) ?? 0) + 1;
    seen.set(n, k);
    return k === 1 ? n : `${n}_${k}`;
  });
}

function jsonSafe(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Buffer.isBuffer(v)) return `\\x${v.toString('hex')}`;
  if (typeof v === 'number' && !Number.isFinite(v)) return null;
  return v;
}

/** Runs `statement` (already checked by the textual rules) as the tenant's reader. Never throws for a failing statement. */
export async function runReadOnly(
  databaseUrl: string, accountId: string, statement: string,
  opts: { timeoutMs?: number; rowLimit?: number; maxBytes?: number; socketCapBytes?: number } = {},
): Promise<ReadOnlyResult | ReadOnlyFailure> {
  const schema = tenantSchemaName(accountId);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_ASSISTANT_STATEMENT_TIMEOUT_MS;
  const rowLimit = opts.rowLimit ?? ASSISTANT_ROW_LIMIT;
  const maxBytes = opts.maxBytes ?? ASSISTANT_RESULT_MAX_BYTES;
  const socketCap = opts.socketCapBytes ?? 4 * maxBytes + 1024 * 1024;
  const tooLarge = (bytes: string): ReadOnlyFailure => ({
    ok: false, tooLarge: true, code: RESULT_TOO_LARGE, durationMs: Date.now() - started,
    error: `the result is ${bytes} bytes of text, more than the ${maxBytes} a statement may return; aggregate, or select fewer rows or shorter columns`,
  });
  // query_timeout is a client-side backstop should the server-side timeout not fire
  const client = new pg.Client({ connectionString: databaseUrl, types, query_timeout: timeoutMs + 5000, application_name: 'assistant-reader' });
  client.on('error', () => undefined);
  let started = Date.now();
  let socketBytes = 0;
  let cutOff = false;
  await client.connect();
  // the backstop should PostgreSQL's bound ever be bypassed: past a few times the bound, the connection is cut before
  // the protocol parser assembles a message larger than a string may be
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  socket.on('data', (chunk: Buffer) => {
    socketBytes += chunk.length;
    if (!cutOff && socketBytes > socketCap) {
      cutOff = true;
      socket.destroy();
    }
  });
  try {
    await client.query('BEGIN READ ONLY');
    await client.query("SELECT set_config('search_path', $1, true), set_config('statement_timeout', $2, true), set_config('idle_in_transaction_session_timeout', $2, true)", [schema, `${timeoutMs}ms`]);
    await client.query(`SET LOCAL ROLE ${client.escapeIdentifier(readerRole(schema))}`);
    started = Date.now();
    const r = await client.query({
      text: boundedStatement(statement, rowLimit, maxBytes),
      values: [],
      rowMode: 'array',
      queryMode: 'extended',
    } as pg.QueryConfig & { queryMode: 'extended' });
    const durationMs = Date.now() - started;
    const width = r.fields.length - ADDED_COLUMNS;
    const raw = r.rows as unknown[][];
    const bytes = Number(raw[0]?.[width + 1] ?? 0);
    if (bytes > maxBytes) return tooLarge(String(bytes));
    const columns = uniqueNames(r.fields.slice(0, width).map((f) => f.name));
    const all = raw.filter((row) => row[width] === true).map((row) => row.slice(0, width));
    const truncated = all.length > rowLimit;
    const rows = all.slice(0, rowLimit).map((row) => Object.fromEntries(columns.map((c, i) => [c, jsonSafe(row[i])])));
    return { ok: true, columns, rows, rowCount: rows.length, truncated, durationMs };
  } catch (err) {
    if (cutOff) return tooLarge(`at least ${socketBytes}`);
    const e = err as { message?: string; code?: string };
    return { ok: false, error: String(e.message ?? err).slice(0, 500), code: typeof e.code === 'string' ? e.code : null, durationMs: Date.now() - started };
  } finally {
    // a cut connection has nothing left to roll back or end
    if (!cutOff) {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    }
  }
}
