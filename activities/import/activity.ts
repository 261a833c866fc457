import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  clearImportErrors, finishRunTable, getRunTable, getRunTables, insertImportErrors, lockImports, readStagingChunk, stagedRowsByNo, stagingStat,
  type ImportMode, type RejectedRow, type RunTableRow,
} from '../../db/importStaging';
import { appendLog, finishJob, heartbeat as jobHeartbeat, markRunning } from '../../db/jobs';
import { addPlainSource, addSource, applySource, createSource, dropDuplicates, loadPlainDirect } from '../../db/masterDataWrite';
import { sql, withTenant, type Db, type Tx } from '../../db/pool';
import { allRoutes, siteNames } from '../../db/routes';
import { supersessionImportGuard } from '../../db/supersession';
import { findSupplyCycle } from '../../domain/inventory/network';
import { isTableName, type TableName } from '../../domain/import/tables';
import { duplicateReason, neededRefs, validateRow, type Refs } from '../../domain/import/validate';

export interface ImportRunRef {
  runId: string;
  accountId: string;
}

export interface ImportTableInput extends ImportRunRef {
  table: string;
  mode: ImportMode;
}

/** What one table did; only these counts travel through workflow history, never rows. */
export interface ImportTableResult {
  table_name: string;
  mode: ImportMode;
  status: 'completed' | 'failed' | 'skipped';
  rows_read: number;
  inserted: number;
  updated: number;
  deleted: number;
  rejected: number;
  error: string | null;
}

const CHUNK = 5000;
const LOGGED_REJECTIONS = 5;
const HEARTBEAT_MS = 10_000;

/** Heartbeats only inside a real activity (unit tests call the functions directly). */
function beat(details?: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    /* not running as an activity */
  }
}

/** A table that cannot be applied as staged; recorded as failed, never retried. */
export class TableFailure extends Error {}

/**
 * The chain of an error and its causes. slonik emits query errors on the pool's event emitter; without a listener
 * Node wraps them in ERR_UNHANDLED_ERROR with the original in `context`, so both links are followed.
 */
function* chain(err: unknown): Generator<any> {
  for (let e: any = err, i = 0; e && i < 6; e = e.cause ?? e.context, i += 1) yield e;
}

/** SQLSTATE of a database error, wherever it sits in the chain. */
function sqlState(err: unknown): string | undefined {
  for (const e of chain(err)) if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return undefined;
}

/**
 * Errors that will fail the same way on every attempt (bad data, constraint violations, a statement PostgreSQL
 * refuses): the table is marked failed instead of retried. Connection losses and the like are thrown, so Temporal
 * retries the activity.
 */
export function isTableFailure(err: unknown): boolean {
  if (err instanceof TableFailure) return true;
  const code = sqlState(err);
  return code !== undefined && ['22', '23', '42', '44'].includes(code.slice(0, 2));
}

/** The most specific message: PostgreSQL's own text when there is one. */
function errorText(err: unknown): string {
  let text = String((err as Error)?.message ?? err);
  for (const e of chain(err)) if (typeof e.message === 'string') text = e.message;
  return text.slice(0, 2000);
}

const resultOf = (r: RunTableRow): ImportTableResult => ({
  table_name: r.table_name, mode: r.mode, status: r.status as ImportTableResult['status'], rows_read: r.rows_read,
  inserted: r.inserted, updated: r.updated, deleted: r.deleted, rejected: r.rejected, error: r.error,
});

/**
 * Routes that close a supply cycle in any item's network fail the whole routes table (its transaction rolls back),
 * the same rule the routes API applies to one route.
 */
async function refuseSupplyCycles(tx: Tx): Promise<void> {
  const routes = await allRoutes(tx);
  const found = findSupplyCycle(routes.map((r) => ({ item_id: r.item_id, from: r.from_site_id, to: r.to_site_id, type: r.route_type })));
  if (!found) return;
  const names = await siteNames(tx, found.cycle);
  throw new TableFailure(`the routes would close a supply cycle${found.item === null ? '' : ` for item ${found.item}`}: ${found.cycle.map((id) => names.get(id)?.xuid ?? String(id)).join(' → ')}; REPLENISHMENT, BUY, BUILD and TRANSFER routes must not lead back to a site they leave`);
}

async function readRefs(tx: Tx, table: TableName): Promise<Refs> {
  const need = neededRefs(table);
  const map = async (t: 'items' | 'sites') => {
    const rows = (await tx.any(t === 'items' ? sql.unsafe`SELECT xuid, id FROM items` : sql.unsafe`SELECT xuid, id FROM sites`)) as Array<{ xuid: string; id: number }>;
    return new Map(rows.map((r) => [r.xuid, r.id]));
  };
  return { items: need.items ? await map('items') : new Map(), sites: need.sites ? await map('sites') : new Map() };
}

interface Pass {
  rowsRead: number;
  valid: number;
  rejected: number;
  firstRejections: RejectedRow[];
}

/**
 * Reads the staging table in row order, validates every row, writes the rejected ones (with their reason) to
 * import_errors and the valid ones to import_src, then drops repeated keys. Memory stays at one chunk.
 */
async function validatePass(tx: Tx, runId: string, table: TableName, mode: ImportMode): Promise<Pass> {
  await clearImportErrors(tx, runId, table);
  const refs = await readRefs(tx, table);
  // one truth with the API: a row closing a supersession cycle is refused with the API's words, the others still land
  const guard = table === 'supersession' ? await supersessionImportGuard(tx, mode, refs) : undefined;
  await createSource(tx, table);
  const plain = await addPlainSource(tx, table);
  const pass: Pass = { rowsRead: plain, valid: plain, rejected: 0, firstRejections: [] };
  const reject = (rows: RejectedRow[]) => {
    pass.rejected += rows.length;
    for (const r of rows) if (pass.firstRejections.length < LOGGED_REJECTIONS) pass.firstRejections.push(r);
  };
  // a clean file went whole through the database: no staged row is left for the validator to read
  let after = plain > 0 && plain === (await stagingStat(tx, table)).row_count ? Infinity : 0;
  while (after < Infinity) {
    const chunk = await readStagingChunk(tx, table, after, CHUNK);
    if (!chunk.length) break;
    after = Number(chunk[chunk.length - 1].row_no);
    const valid: Array<{ row_no: number; values: Record<string, string | null> }> = [];
    const bad: RejectedRow[] = [];
    for (const { row_no, ...raw } of chunk) {
      const r = validateRow(table, raw, refs);
      const refused = r.ok ? guard?.(r.values) : r.reason;
      if (r.ok && refused === undefined) valid.push({ row_no: Number(row_no), values: r.values });
      else bad.push({ row_no: Number(row_no), reason: refused!, row: raw });
    }
    await addSource(tx, table, valid);
    await insertImportErrors(tx, runId, table, bad);
    pass.rowsRead += chunk.length;
    pass.valid += valid.length;
    reject(bad);
    beat({ table, rows_read: pass.rowsRead });
  }
  const dups = await dropDuplicates(tx, table);
  if (dups.length) {
    const staged = await stagedRowsByNo(tx, table, dups.map((d) => d.row_no));
    const bad = dups.map((d) => ({ row_no: d.row_no, reason: duplicateReason(table, d.first_row), row: staged.get(d.row_no) ?? {} }));
    await insertImportErrors(tx, runId, table, bad);
    pass.valid -= bad.length;
    reject(bad);
    pass.firstRejections.sort((a, b) => a.row_no - b.row_no);
  }
  return pass;
}

async function logRejections(tx: Tx, runId: string, table: TableName, pass: Pass): Promise<void> {
  for (const r of pass.firstRejections) await appendLog(tx, runId, `${table}: row ${r.row_no} rejected: ${r.reason}`, 'warning');
  if (pass.rejected > pass.firstRejections.length) {
    await appendLog(tx, runId, `${table}: ${pass.rejected - pass.firstRejections.length} more rejected rows (GET /api/import/runs/${runId} lists them)`, 'warning');
  }
}

async function progress(tx: Tx, runId: string): Promise<void> {
  const rows = await getRunTables(tx, [runId]);
  await jobHeartbeat(tx, runId, { done: rows.filter((r) => r.status !== 'pending').length, total: rows.length });
}

export function createImportActivities(deps: { db: Db }) {
  const { db } = deps;

  /** Records a table that could not be applied: its rejected rows, the reason, and no changes. */
  async function recordFailure(input: ImportTableInput & { table: TableName }, startedAt: string, error: string): Promise<ImportTableResult> {
    return withTenant(db, input.accountId, async (tx) => {
      await lockImports(tx);
      const row = await getRunTable(tx, input.runId, input.table);
      if (row && row.status !== 'pending') return resultOf(row);
      let pass: Pass = { rowsRead: 0, valid: 0, rejected: 0, firstRejections: [] };
      try {
        await tx.transaction(async (inner) => {
          pass = await validatePass(inner, input.runId, input.table, input.mode);
        });
      } catch {
        /* the failure is recorded even when the rows cannot be read again */
      }
      const detail = `nothing was applied to ${input.table}: ${error}`;
      await finishRunTable(tx, input.runId, input.table, { status: 'failed', rows_read: pass.rowsRead, inserted: 0, updated: 0, deleted: 0, rejected: pass.rejected, error: detail, started_at: startedAt });
      await logRejections(tx, input.runId, input.table, pass);
      await appendLog(tx, input.runId, `${input.table}: failed, ${detail}`, 'error');
      await progress(tx, input.runId);
      return resultOf((await getRunTable(tx, input.runId, input.table))!);
    });
  }

  return {
    /** Marks the run's job running and writes its first log line. */
    async importStart(input: ImportRunRef): Promise<void> {
      await withTenant(db, input.accountId, async (tx) => {
        await markRunning(tx, input.runId);
        const tables = await getRunTables(tx, [input.runId]);
        if (!tables.length) throw ApplicationFailure.nonRetryable(`import run ${input.runId} has no tables`);
        await appendLog(tx, input.runId, `import started: ${tables.map((t) => `${t.table_name} (${t.mode})`).join(', ')}`);
      });
    },

    /**
     * Imports one staging table in ONE transaction: validate every row, record the rejected ones, apply the valid
     * ones, store the counts. Either all the valid rows land or (on a database error) none do and the table is
     * marked failed. A retry after a commit finds the table done and returns the stored counts.
     */
    async importTable(input: ImportTableInput): Promise<ImportTableResult> {
      if (!isTableName(input.table)) throw ApplicationFailure.nonRetryable(`unknown import table ${input.table}`);
      const table = input.table;
      const startedAt = new Date().toISOString();
      const timer = setInterval(() => beat({ table }), HEARTBEAT_MS);
      try {
        return await withTenant(db, input.accountId, async (tx) => {
          await lockImports(tx);
          const row = await getRunTable(tx, input.runId, table);
          if (!row) throw ApplicationFailure.nonRetryable(`import run ${input.runId} has no table ${table}`);
          if (row.status !== 'pending') return resultOf(row);
          await appendLog(tx, input.runId, `${table}: reading staging rows (${input.mode})`);
          const direct = await loadPlainDirect(tx, table, (await stagingStat(tx, table)).row_count);
          if (direct) {
            await clearImportErrors(tx, input.runId, table);
            await appendLog(tx, input.runId, `${table}: every staged row plain and the target empty: loaded in one statement`);
          }
          const pass: Pass = direct
            ? { rowsRead: direct.inserted, valid: direct.inserted, rejected: 0, firstRejections: [] }
            : await validatePass(tx, input.runId, table, input.mode);
          const done = async (status: 'completed' | 'skipped', counts: { inserted: number; updated: number; deleted: number }, error: string | null, message: string) => {
            await finishRunTable(tx, input.runId, table, { status, rows_read: pass.rowsRead, rejected: pass.rejected, error, started_at: startedAt, ...counts });
            await logRejections(tx, input.runId, table, pass);
            await appendLog(tx, input.runId, message, pass.rejected ? 'warning' : 'info');
            await progress(tx, input.runId);
            return resultOf((await getRunTable(tx, input.runId, table))!);
          };
          const none = { inserted: 0, updated: 0, deleted: 0 };
          if (pass.rowsRead === 0) return done('skipped', none, 'the staging table is empty', `${table}: skipped, the staging table is empty`);
          if (pass.valid === 0 && input.mode === 'replace') {
            // Replacing with nothing would empty the target: a file whose every row is bad must not do that.
            throw new TableFailure(`no valid rows; replace would have emptied the target (${pass.rejected} rows rejected)`);
          }
          const counts = direct ?? await applySource(tx, table, input.mode);
          if (table === 'routes') await refuseSupplyCycles(tx);
          return done('completed', counts, null,
            `${table}: read ${pass.rowsRead}, inserted ${counts.inserted}, updated ${counts.updated}, deleted ${counts.deleted}, rejected ${pass.rejected} (${input.mode})`);
        });
      } catch (err) {
        if (!isTableFailure(err)) throw err;
        return recordFailure({ ...input, table }, startedAt, errorText(err));
      } finally {
        clearInterval(timer);
      }
    },

    /** The workflow's last resort when importTable kept failing: the table is recorded as failed, the run goes on. */
    async importTableFailed(input: ImportTableInput & { error: string }): Promise<ImportTableResult> {
      if (!isTableName(input.table)) throw ApplicationFailure.nonRetryable(`unknown import table ${input.table}`);
      return recordFailure({ ...input, table: input.table }, new Date().toISOString(), input.error);
    },

    /** Final job state: failed when the run broke or any table failed (rejected rows alone do not fail a run). */
    async importFinish(input: ImportRunRef & { error?: string }): Promise<{ status: 'completed' | 'failed' }> {
      return withTenant(db, input.accountId, async (tx) => {
        const tables = await getRunTables(tx, [input.runId]);
        const failed = tables.filter((t) => t.status === 'failed' || t.status === 'pending');
        const status = input.error || failed.length ? 'failed' : 'completed';
        const error = input.error ?? (failed.length ? `tables not applied: ${failed.map((t) => t.table_name).join(', ')}` : null);
        const sum = (k: 'rows_read' | 'inserted' | 'updated' | 'deleted' | 'rejected') => tables.reduce((n, t) => n + t[k], 0);
        const result = {
          tables: Object.fromEntries(tables.map((t) => [t.table_name, { status: t.status, inserted: t.inserted, updated: t.updated, deleted: t.deleted, rejected: t.rejected }])),
          totals: { rows_read: sum('rows_read'), inserted: sum('inserted'), updated: sum('updated'), deleted: sum('deleted'), rejected: sum('rejected') },
        };
        await jobHeartbeat(tx, input.runId, { done: tables.length - tables.filter((t) => t.status === 'pending').length, total: tables.length });
        await finishJob(tx, input.runId, status, { error, result });
        const t = result.totals;
        await appendLog(tx, input.runId, `import ${status}: inserted ${t.inserted}, updated ${t.updated}, deleted ${t.deleted}, rejected ${t.rejected}${error ? ` (${error})` : ''}`, status === 'failed' ? 'error' : 'info');
        return { status };
      });
    },
  };
}
