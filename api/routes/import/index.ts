import { TABLE_ORDER, TABLES, isTableName, type TableName } from '../../../domain/import/tables';
import { LoadError, stageCsv, stageRows, type StagedRow } from '../../../domain/import/validate';
import {
  errorSamples, getImportRun, getRunTables, insertRunTables, insertStagingRows, listImportRuns, stagingStat, stagingStats, truncateStaging,
  type ImportMode, type ImportRunRow, type RunTableRow,
} from '../../../db/importStaging';
import { getJob, insertJob, logTail, markRunning, type JobRow } from '../../../db/jobs';
import { withTenant, type Db } from '../../../db/pool';
import type { ImportRunInput } from '../../../workflows/importRun';
import { newJobId, requireTemporal, startJob } from '../../jobs/service';
import type { AppContext, TemporalDeps } from '../../context';
import { HttpError, badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors } from '../schemas';
import * as s from './schemas';

const CSV_TYPES = ['text/csv', 'application/csv'];

function tableOr404(name: string): TableName {
  if (!isTableName(name)) throw notFound(`Unknown staging table '${name}' (known: ${TABLE_ORDER.join(', ')})`);
  return name;
}

/** `5mb`, `512kb`, `1048576` → bytes. */
export function parseSize(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(v.trim());
  if (!m) return 5 * 1024 * 1024;
  const mult = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.floor(Number(m[1]) * mult);
}

const tooLarge = () => new HttpError(413, 'body: request body too large');

/** The raw body of a CSV upload (the JSON body parser leaves other types unread), at most `limit` bytes. */
async function readRawBody(ctx: AppContext, limit: number): Promise<string> {
  const req = ctx.req;
  const drain = async () => {
    req.resume();
    if (!req.readableEnded) await new Promise<void>((r) => req.once('end', r).once('error', () => r()).once('close', () => r()));
  };
  const declared = Number(ctx.get('Content-Length'));
  if (Number.isFinite(declared) && declared > limit) {
    await drain();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      await drain();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** JSON `{rows}` or a CSV file → staged rows; a shape problem is a 400 that names it, and nothing is stored. */
async function rowsOfRequest(ctx: AppContext, table: TableName, body: { rows?: Array<Record<string, unknown>> }, delimiter: string): Promise<{ rows: StagedRow[]; format: 'json' | 'csv' }> {
  try {
    if (ctx.is(CSV_TYPES)) return { rows: stageCsv(table, await readRawBody(ctx, parseSize(ctx.deps.env.bodyLimit)), delimiter), format: 'csv' };
    const type = ctx.get('Content-Type');
    if (type && !ctx.is('application/json')) {
      throw new HttpError(415, `body: unsupported content type '${type.split(';')[0]}'; send application/json ({"rows": [...]}) or text/csv`);
    }
    if (!body.rows) throw badRequest('body.rows is required (or send a CSV file with Content-Type text/csv)');
    return { rows: stageRows(table, body.rows), format: 'json' };
  } catch (err) {
    if (err instanceof LoadError) throw badRequest(err.message);
    throw err;
  }
}

const describeTable = (name: TableName) => {
  const d = TABLES[name];
  return {
    target: d.target,
    description: d.description,
    natural_key: d.key,
    attr_columns: Boolean(d.attrColumns),
    columns: d.columns.map((c) => ({
      name: c.name, type: c.type, required: Boolean(c.required), description: c.description, default: c.default ?? null, ...(c.values ? { values: c.values } : {}),
    })),
  };
};

const runView = (run: ImportRunRow, tables: RunTableRow[], progress?: JobRow['progress']) => {
  const sum = (k: 'rows_read' | 'inserted' | 'updated' | 'deleted' | 'rejected') => tables.reduce((n, t) => n + t[k], 0);
  return {
    run_id: run.run_id,
    status: run.status,
    tables: tables.map((t) => t.table_name),
    modes: Object.fromEntries(tables.map((t) => [t.table_name, t.mode])),
    created_by: run.created_by,
    created_at: run.created_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    error: run.error,
    ...(progress && progress.total !== undefined ? { progress: { done: progress.done ?? 0, total: progress.total } } : {}),
    totals: { rows_read: sum('rows_read'), inserted: sum('inserted'), updated: sum('updated'), deleted: sum('deleted'), rejected: sum('rejected') },
  };
};

export interface StartImportInput {
  accountId: string;
  tables?: TableName[];
  modes?: Partial<Record<TableName, ImportMode>>;
  createdBy: string | null;
}

/**
 * Creates the run (a job of kind `import` plus one result row per table) and starts workflow `importRun` with
 * workflow id = run id. Used by POST /api/import/run and by scripts/importCli.ts.
 */
export async function startImportRun(db: Db, temporal: TemporalDeps, input: StartImportInput): Promise<{ run_id: string; status: string; tables: TableName[]; modes: Record<string, ImportMode> }> {
  const modes = input.modes ?? {};
  let tables: TableName[];
  if (input.tables) {
    tables = TABLE_ORDER.filter((t) => input.tables!.includes(t));
  } else {
    const stats = await withTenant(db, input.accountId, stagingStats);
    tables = stats.filter((t) => t.row_count > 0).map((t) => t.table_name);
    if (!tables.length) throw badRequest('Nothing to import: every staging table is empty (load rows with POST /api/import/tables/{table_name}/rows)');
  }
  const stray = Object.keys(modes).filter((m) => !tables.includes(m as TableName));
  if (stray.length) throw badRequest(`body.modes.${stray[0]}: table ${stray[0]} is not part of this run (tables: ${tables.join(', ')})`);
  const plan = tables.map((t) => ({ table: t, mode: modes[t] ?? ('upsert' as ImportMode) }));
  const runModes = Object.fromEntries(plan.map((p) => [p.table, p.mode]));

  const runId = newJobId('import');
  const job = { job_id: runId, kind: 'import', params: { tables, modes: runModes }, created_by: input.createdBy };
  await withTenant(db, input.accountId, async (tx) => {
    await insertJob(tx, job);
    await insertRunTables(tx, runId, plan);
  });
  const workflowInput: ImportRunInput = { runId, accountId: input.accountId, tables, modes: runModes };
  await startJob(db, temporal, input.accountId, job, 'importRun', [workflowInput]);
  // The workflow exists from here on: the run is running (spec §3), whether or not a worker has picked it up yet.
  const status = await withTenant(db, input.accountId, async (tx) => {
    await markRunning(tx, runId);
    return (await getJob(tx, runId))!.status;
  });
  return { run_id: runId, status, tables, modes: runModes };
}

export function registerImportRoutes(table: RouteTable): void {
  const tag = 'import';

  defineRoute(table, {
    method: 'get', path: '/api/import/tables', tag,
    summary: 'Staging tables with their row counts and columns',
    description: 'One entry per staging table, in the order a run applies them: `row_count`, `last_loaded` (time of the newest staged row, null when empty), the master table it feeds, its natural key and its documented columns (type, required, default). See docs/IMPORT.md.',
    responses: { 200: { description: 'staging tables', schema: { type: 'array', items: s.stagingTableSchema } }, ...errors(401) },
    handler: async (ctx, { user }) => {
      const stats = await withTenant(ctx.deps.db, user.accountId, stagingStats);
      return stats.map((st) => ({ table_name: st.table_name, row_count: st.row_count, last_loaded: st.last_loaded, ...describeTable(st.table_name) }));
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/import/tables/{table_name}/rows', tag, permission: 'run_process',
    summary: 'Load rows into a staging table (JSON rows or a CSV file)',
    description:
      'Two request bodies are accepted.\n\n' +
      '- `application/json`: `{"rows": [{column: value, ...}, ...]}` (at most 100 000 rows).\n' +
      '- `text/csv` (or `application/csv`): a file whose first line names the columns (names are trimmed and lower-cased); `delimiter` picks the separator; size limited like JSON bodies (BODY_LIMIT).\n\n' +
      'Only the shape is checked here: every column must be one of the table\'s columns (items and sites also take `attr_<name>` columns, collected into `attributes`), required columns must be present, values must be scalars. ' +
      'A problem answers 400 naming the row and column (unknown columns are all named) and stores nothing. Values themselves (numbers, dates, codes) are checked by the run, which rejects bad rows one by one. ' +
      'Rows are appended (`truncate=true` empties the table first, in the same transaction).',
    params: s.tableParam, query: s.loadQuery, body: s.loadBody,
    audit: { entityType: 'import_staging', action: 'load' },
    responses: { 200: { description: 'rows stored', schema: s.loadResponse }, ...errors(400, 403, 404, 413, 415) },
    handler: async (ctx, { params, query, body, user }) => {
      const name = tableOr404(params.table_name);
      const { rows, format } = await rowsOfRequest(ctx, name, body, query.delimiter);
      const stat = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        if (query.truncate) await truncateStaging(tx, name);
        await insertStagingRows(tx, name, rows);
        return stagingStat(tx, name);
      });
      ctx.state.audit = { ...ctx.state.audit, entityId: name, newValue: { table_name: name, format, rows: rows.length, truncate: query.truncate } };
      return { table_name: name, loaded: rows.length, truncated: query.truncate, row_count: stat.row_count, last_loaded: stat.last_loaded };
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/import/tables/{table_name}', tag, permission: 'admin',
    summary: 'Empty a staging table',
    description: 'Truncates the staging table and restarts its row numbers; an empty table is a no-op. Staging tables are disposable: master data is not touched. An unknown table name answers 404 listing the known ones.',
    params: s.tableParam,
    audit: { entityType: 'import_staging', action: 'truncate' },
    responses: { 200: { description: 'truncated', schema: s.truncateResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const name = tableOr404(params.table_name);
      const deleted = await withTenant(ctx.deps.db, user.accountId, (tx) => truncateStaging(tx, name));
      ctx.state.audit = { ...ctx.state.audit, entityId: name, oldValue: { row_count: deleted } };
      return { status: 'truncated', table_name: name, rows_deleted: deleted };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/import/run', tag, permission: 'run_process',
    summary: 'Import the staging tables into the master data (a background run)',
    description:
      'Starts workflow `importRun` (workflow id = `run_id`; search attributes AccountId and JobKind=import). `tables` omitted means every staging table with rows (400 when all are empty). ' +
      'Tables are applied in dependency order (items, sites, item_site, routes, calendars, demand_history, firm_orders, supersession), each in one transaction: ' +
      'bad rows are rejected with their reason, the valid rows all land, or (on a database error) none do. ' +
      '`upsert` (default) inserts new keys and updates existing ones (an empty cell keeps the stored value); `replace` also deletes target rows whose key is not staged. ' +
      'A staging table without rows is skipped; `replace` with no valid row fails the table rather than empty the target. Follow the run with GET /api/import/runs/{run_id}. 503 when the API has no Temporal connection.',
    body: s.runBody,
    audit: { entityType: 'import_run', action: 'run' },
    responses: { 200: { description: 'run started', schema: s.runStarted }, ...errors(400, 403, 503) },
    handler: async (ctx, { body, user }) => {
      const temporal = requireTemporal(ctx.deps.temporal);
      const started = await startImportRun(ctx.deps.db, temporal, { accountId: user.accountId, tables: body.tables, modes: body.modes, createdBy: user.email });
      ctx.state.audit = { ...ctx.state.audit, entityId: started.run_id, newValue: { tables: started.tables, modes: started.modes } };
      return started;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/import/runs', tag,
    summary: 'Import runs, newest first',
    description: 'Each run with its status, tables, modes and summed counts.',
    query: s.runsQuery,
    responses: { 200: { description: 'page of runs', schema: s.runsList }, ...errors(400, 401) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { runs, total } = await listImportRuns(tx, query.limit, query.offset);
        const tables = await getRunTables(tx, runs.map((r) => r.run_id));
        const items = runs.map((r) => runView(r, tables.filter((t) => t.run_id === r.run_id)));
        return { items, total, limit: query.limit, offset: query.offset };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/import/runs/{run_id}', tag,
    summary: 'One import run with its per-table results',
    description: 'Per table: mode, status (pending, completed, failed, skipped), rows_read, inserted, updated, deleted, rejected, error (why a failed table applied nothing) and the first rejected rows with their reason and the row as staged (`errors_limit` per table).',
    params: s.runParam, query: s.runQuery,
    responses: { 200: { description: 'the run', schema: s.runDetail }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const run = await getImportRun(tx, params.run_id);
        if (!run) throw notFound(`Import run ${params.run_id} not found`);
        const tables = await getRunTables(tx, [run.run_id]);
        const samples = query.errors_limit > 0 ? await errorSamples(tx, run.run_id, query.errors_limit) : [];
        const job = await getJob(tx, run.run_id);
        return {
          ...runView(run, tables, job?.progress),
          results: tables.map((t) => ({
            table_name: t.table_name, mode: t.mode, status: t.status, rows_read: t.rows_read, inserted: t.inserted, updated: t.updated,
            deleted: t.deleted, rejected: t.rejected, error: t.error, started_at: t.started_at, finished_at: t.finished_at,
            errors: samples.filter((e) => e.table_name === t.table_name).map((e) => ({ row_no: Number(e.row_no), reason: e.reason, row: e.row })),
          })),
        };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/import/runs/{run_id}/log', tag,
    summary: 'The last log lines of an import run',
    description: 'The newest `limit` lines, oldest first.',
    params: s.runParam, query: s.logQuery,
    responses: { 200: { description: 'log tail', schema: s.logResponse }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const run = await getImportRun(tx, params.run_id);
        if (!run) throw notFound(`Import run ${params.run_id} not found`);
        const lines = await logTail(tx, run.run_id, query.limit);
        return { run_id: run.run_id, status: run.status, lines: lines.map((l) => ({ id: Number(l.id), ts: l.ts, level: l.level, message: l.message })) };
      }),
  });
}
