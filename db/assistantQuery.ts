/**
 * Runs one generated statement of the data assistant (spec §4.7; docs/ASSISTANT.md), read-only by construction:
 *
 * - its own connection, opened for this statement and closed after it, so nothing the statement might leave in a
 *   session (a setting, an advisory lock) can reach the app's pool;
 * - `BEGIN READ ONLY`, always rolled back, never committed;
 * - `search_path` = the tenant's schema only, `statement_timeout` = 8 s, both local to the transaction;
 * - `SET LOCAL ROLE <schema>_reader` (migration 030): a NOLOGIN role that may only SELECT this tenant's tables (not
 *   users, parameters or audit_log), with no access to another tenant's schema or the master schema;
 * - the extended protocol, which refuses more than one statement, and an outer `LIMIT` of the row limit + 1.
 *
 * The caller applies the textual rules (domain/assistant/sqlRules.ts) first. This is the one place in db/ where SQL
 * text arrives from outside: it is never a slonik template because it is the model's text, run only under the locks above.
 */
import pg from 'pg';
import { tenantSchemaName } from './pool';

export const ASSISTANT_STATEMENT_TIMEOUT_MS = 8000;
export const ASSISTANT_ROW_LIMIT = 500;

export interface ReadOnlyResult {
  ok: true;
  columns: string[];
  rows: Array<Record<string, unknown>>;
  rowCount: number;
  truncated: boolean;
  durationMs: number;
}
export interface ReadOnlyFailure { ok: false; error: string; code: string | null; durationMs: number }

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
export async function runReadOnly(databaseUrl: string, accountId: string, statement: string, opts: { timeoutMs?: number; rowLimit?: number } = {}): Promise<ReadOnlyResult | ReadOnlyFailure> {
  const schema = tenantSchemaName(accountId);
  const timeoutMs = opts.timeoutMs ?? ASSISTANT_STATEMENT_TIMEOUT_MS;
  const rowLimit = opts.rowLimit ?? ASSISTANT_ROW_LIMIT;
  // query_timeout is a client-side backstop should the server-side timeout not fire
  const client = new pg.Client({ connectionString: databaseUrl, types, query_timeout: timeoutMs + 5000, application_name: 'assistant-reader' });
  client.on('error', () => undefined);
  let started = Date.now();
  await client.connect();
  try {
    await client.query('BEGIN READ ONLY');
    await client.query("SELECT set_config('search_path', $1, true), set_config('statement_timeout', $2, true), set_config('idle_in_transaction_session_timeout', $2, true)", [schema, `${timeoutMs}ms`]);
    await client.query(`SET LOCAL ROLE ${client.escapeIdentifier(readerRole(schema))}`);
    started = Date.now();
    const r = await client.query({
      text: `SELECT * FROM (\n${statement}\n) AS assistant_query LIMIT ${rowLimit + 1}`,
      values: [],
      rowMode: 'array',
      queryMode: 'extended',
    } as pg.QueryConfig & { queryMode: 'extended' });
    const durationMs = Date.now() - started;
    const columns = uniqueNames(r.fields.map((f) => f.name));
    const all = (r.rows as unknown[][]);
    const truncated = all.length > rowLimit;
    const rows = all.slice(0, rowLimit).map((row) => Object.fromEntries(columns.map((c, i) => [c, jsonSafe(row[i])])));
    return { ok: true, columns, rows, rowCount: rows.length, truncated, durationMs };
  } catch (err) {
    const e = err as { message?: string; code?: string };
    return { ok: false, error: String(e.message ?? err).slice(0, 500), code: typeof e.code === 'string' ? e.code : null, durationMs: Date.now() - started };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
