import { TABLE_ORDER } from '../../../domain/import/tables';
import { nullable, obj, out, skipParam } from '../schemas';
import type { JsonSchema } from '../validation';

const str = { type: 'string' };
const int = { type: 'integer' };

export const tableParam = obj({ table_name: { type: 'string', minLength: 1, maxLength: 64, description: `one of ${TABLE_ORDER.join(', ')}` } }, ['table_name']);
export const runParam = obj({ run_id: { type: 'string', minLength: 1, maxLength: 100 } }, ['run_id']);

export const columnSchema = out(
  {
    name: str,
    type: { type: 'string', enum: ['text', 'number', 'integer', 'date', 'timestamp', 'boolean', 'json', 'enum', 'item', 'site'] },
    required: { type: 'boolean' },
    description: str,
    default: nullable(str),
    values: { type: 'array', items: str },
  },
  ['name', 'type', 'required', 'description'],
);

export const stagingTableSchema = out(
  {
    table_name: { type: 'string', enum: TABLE_ORDER },
    row_count: int,
    last_loaded: nullable(str),
    target: str,
    description: str,
    natural_key: { type: 'array', items: str },
    attr_columns: { type: 'boolean' },
    columns: { type: 'array', items: columnSchema },
  },
  ['table_name', 'row_count', 'last_loaded', 'target', 'natural_key', 'columns'],
);

export const loadQuery = obj({
  truncate: { type: 'boolean', default: false, description: 'empty the staging table first (in the same transaction)' },
  delimiter: { type: 'string', enum: [',', ';', '\t', '|'], default: ',', description: 'CSV field separator' },
});

export const loadBody = obj({
  rows: {
    type: 'array', minItems: 1, maxItems: 100_000,
    items: { type: 'object' },
    description: 'rows as objects keyed by column name; values are strings, numbers, booleans or null (attributes may be an object)',
  },
});

export const loadResponse = out({
  table_name: str,
  loaded: int,
  truncated: { type: 'boolean' },
  row_count: int,
  last_loaded: nullable(str),
});

export const truncateResponse = out({ status: { type: 'string', const: 'truncated' }, table_name: str, rows_deleted: int });

const modeSchema = { type: 'string', enum: ['upsert', 'replace'] };

export const runBody = obj({
  tables: {
    type: 'array', minItems: 1, maxItems: TABLE_ORDER.length, uniqueItems: true,
    items: { type: 'string', enum: TABLE_ORDER },
    description: 'tables to import; omitted means every staging table that has rows. Always applied in dependency order.',
  },
  modes: {
    type: 'object', additionalProperties: false,
    properties: Object.fromEntries(TABLE_ORDER.map((t) => [t, modeSchema])),
    description: 'per table: upsert (default) or replace',
  },
});

export const runStarted = out({
  run_id: str,
  status: { type: 'string', enum: ['queued', 'running', 'completed', 'failed', 'killed'] },
  tables: { type: 'array', items: str },
  modes: { type: 'object', additionalProperties: modeSchema },
}, ['run_id', 'status', 'tables']);

const counts = {
  rows_read: int,
  inserted: int,
  updated: int,
  deleted: int,
  rejected: int,
};

export const runSummary = out(
  {
    run_id: str,
    status: str,
    tables: { type: 'array', items: str },
    modes: { type: 'object', additionalProperties: modeSchema },
    created_by: nullable(str),
    created_at: str,
    started_at: nullable(str),
    finished_at: nullable(str),
    error: nullable(str),
    progress: out({ done: int, total: int }),
    totals: out(counts),
  },
  ['run_id', 'status', 'tables', 'modes', 'created_at', 'started_at', 'finished_at', 'error', 'totals'],
);

export const rejectedRow = out({ row_no: int, reason: str, row: { type: 'object' } });

export const tableResult = out(
  {
    table_name: str,
    mode: modeSchema,
    status: { type: 'string', enum: ['pending', 'completed', 'failed', 'skipped'] },
    ...counts,
    error: nullable(str),
    started_at: nullable(str),
    finished_at: nullable(str),
    errors: { type: 'array', items: rejectedRow, description: 'the first rejected rows of the table (errors_limit), in row order' },
  },
  ['table_name', 'mode', 'status', 'rows_read', 'inserted', 'updated', 'deleted', 'rejected', 'error', 'errors'],
);

export const runDetail: JsonSchema = {
  ...runSummary,
  properties: { ...(runSummary.properties as object), results: { type: 'array', items: tableResult } },
  required: [...(runSummary.required as string[]), 'results'],
};

export const runsQuery = obj({
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  offset: skipParam,
});

export const runQuery = obj({
  errors_limit: { type: 'integer', minimum: 0, maximum: 1000, default: 20, description: 'rejected rows listed per table' },
});

export const runsList = out({ items: { type: 'array', items: runSummary }, total: int, limit: int, offset: int });

export const logQuery = obj({ limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } });

export const logResponse = out({
  run_id: str,
  status: str,
  lines: { type: 'array', items: out({ id: int, ts: str, level: { type: 'string', enum: ['debug', 'info', 'warning', 'error'] }, message: str }) },
});
