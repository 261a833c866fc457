/**
 * Pure parsing and validation of import rows: no database, no Temporal.
 *
 * Two stages:
 * - load (`stageRows`, `parseCsv`): only the shape is checked (known columns, required columns present, scalar
 *   values); a problem refuses the whole load with a message naming the field, and nothing is stored;
 * - run (`validateRow`): every value is read (numbers numeric, dates valid, references exist, demand not negative);
 *   a bad row is rejected with its reason and the good rows still land.
 */
import { parse } from 'csv-parse/sync';
import { ATTR_PREFIX, DEFAULT_ROUTE_TYPE, TABLES, type ColumnDef, type TableDef, type TableName } from './tables';
import { DEFAULT_DEMAND_FACTOR, edgeProblem, IMPORT_FIELDS } from '../supersession/edges';

/** A staged row as stored: every column as text or null, plus the collected `attr_*` columns as JSON text. */
export type StagedRow = Record<string, string | null>;

export class LoadError extends Error {}

/** Staging columns that are not user columns. */
export const EXTRA_ATTRIBUTES = 'extra_attributes';

/** Hard cap on any one cell at load; the run applies each column's own limit. */
export const MAX_CELL = 10_000;

export function stagingColumns(def: TableDef): string[] {
  return [...def.columns.map((c) => c.name), ...(def.attrColumns ? [EXTRA_ATTRIBUTES] : [])];
}

const known = (def: TableDef) => def.columns.map((c) => c.name).join(', ') + (def.attrColumns ? `, ${ATTR_PREFIX}<name>` : '');

const isAttrColumn = (def: TableDef, name: string) => Boolean(def.attrColumns) && name.startsWith(ATTR_PREFIX) && name.length > ATTR_PREFIX.length;

function unknownColumns(def: TableDef, names: Iterable<string>): string[] {
  const cols = new Set(def.columns.map((c) => c.name));
  return [...new Set([...names].filter((n) => !cols.has(n) && !isAttrColumn(def, n)))];
}

const quoteList = (names: string[]) => names.map((n) => `'${n}'`).join(', ');

/**
 * Checks JSON rows (or CSV records) against the table's columns and turns them into staged rows.
 * `where` prefixes messages: `body.rows` for JSON, `CSV row` for files.
 */
export function stageRows(table: TableName, rows: Array<Record<string, unknown>>, where = 'body.rows'): StagedRow[] {
  const def = TABLES[table];
  const allUnknown: string[] = [];
  let firstUnknownRow = -1;
  rows.forEach((row, i) => {
    const bad = unknownColumns(def, Object.keys(row));
    if (bad.length && firstUnknownRow < 0) firstUnknownRow = i;
    for (const b of bad) if (!allUnknown.includes(b)) allUnknown.push(b);
  });
  if (allUnknown.length) {
    throw new LoadError(`${where}[${firstUnknownRow}]: unknown column${allUnknown.length > 1 ? 's' : ''} ${quoteList(allUnknown)} for table ${table} (known: ${known(def)})`);
  }
  return rows.map((row, i) => {
    const out: StagedRow = {};
    const extra: Record<string, unknown> = {};
    for (const col of def.columns) {
      if (!(col.name in row)) {
        if (col.required) throw new LoadError(`${where}[${i}].${col.name} is required`);
        out[col.name] = null;
        continue;
      }
      out[col.name] = cellText(row[col.name], col, `${where}[${i}].${col.name}`);
    }
    for (const [k, v] of Object.entries(row)) {
      if (!isAttrColumn(def, k)) continue;
      if (v !== null && typeof v === 'object') throw new LoadError(`${where}[${i}].${k} must be a string, number, boolean or null`);
      if (v !== null && v !== '') extra[k.slice(ATTR_PREFIX.length)] = v;
    }
    if (def.attrColumns) out[EXTRA_ATTRIBUTES] = Object.keys(extra).length ? JSON.stringify(extra) : null;
    return out;
  });
}

function cellText(v: unknown, col: ColumnDef, field: string): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object') {
    if (col.type === 'json' && !Array.isArray(v)) return JSON.stringify(v);
    throw new LoadError(`${field} must be a string, number, boolean or null${col.type === 'json' ? ' (or a JSON object)' : ''}`);
  }
  if (typeof v === 'number' && !Number.isFinite(v)) throw new LoadError(`${field} must be a finite number`);
  const s = String(v);
  if (s.length > MAX_CELL) throw new LoadError(`${field} is longer than ${MAX_CELL} characters`);
  return s === '' ? null : s;
}

export interface ParsedCsv {
  columns: string[];
  records: Array<Record<string, string>>;
}

/** Parses a CSV file with a header row; header names are trimmed and lower-cased. */
export function parseCsv(text: string, delimiter = ','): ParsedCsv {
  let columns: string[] = [];
  let records: Array<Record<string, string>>;
  try {
    records = parse(text, {
      bom: true,
      delimiter,
      skip_empty_lines: true,
      columns: (header: string[]) => {
        columns = header.map((h) => String(h).trim().toLowerCase());
        const dup = columns.find((c, i) => c && columns.indexOf(c) !== i);
        if (dup) throw new LoadError(`CSV header: column '${dup}' appears twice`);
        const empty = columns.findIndex((c) => !c);
        if (empty >= 0) throw new LoadError(`CSV header: column ${empty + 1} has no name`);
        return columns;
      },
    }) as Array<Record<string, string>>;
  } catch (err) {
    if (err instanceof LoadError) throw err;
    throw new LoadError(`body: invalid CSV: ${(err as Error).message}`);
  }
  if (!columns.length) throw new LoadError('body: the CSV is empty (a header row naming the columns is required)');
  return { columns, records };
}

/** Checks a CSV header against the table before any row is read. */
export function checkCsvHeader(table: TableName, columns: string[]): void {
  const def = TABLES[table];
  const bad = unknownColumns(def, columns);
  if (bad.length) throw new LoadError(`CSV header: unknown column${bad.length > 1 ? 's' : ''} ${quoteList(bad)} for table ${table} (known: ${known(def)})`);
  const missing = def.columns.filter((c) => c.required && !columns.includes(c.name)).map((c) => c.name);
  if (missing.length) throw new LoadError(`CSV header: missing required column${missing.length > 1 ? 's' : ''} ${quoteList(missing)} for table ${table}`);
}

/** CSV text → staged rows of `table`, or a LoadError naming the problem. */
export function stageCsv(table: TableName, text: string, delimiter = ','): StagedRow[] {
  const { columns, records } = parseCsv(text, delimiter);
  checkCsvHeader(table, columns);
  if (!records.length) throw new LoadError('body: the CSV has a header but no data rows');
  return stageRows(table, records, 'CSV row');
}

// ---------------------------------------------------------------------------------------------------------------
// Run-time validation of one staged row

export interface Refs {
  items: Map<string, number>;
  sites: Map<string, number>;
}

/** Canonical text of each column (ids for references), ready to be cast by SQL; null when empty. */
export type CleanRow = Record<string, string | null>;

export type RowResult = { ok: true; values: CleanRow } | { ok: false; reason: string };

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const TRUE = new Set(['true', 't', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'f', 'no', 'n', '0']);

const show = (s: string) => `'${s.length > 60 ? `${s.slice(0, 57)}...` : s}'`;

export function isValidDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  return y >= 1 && dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

/** ISO 8601 date or date-time; a time without offset is read as UTC. Returns the canonical ISO string or null. */
export function parseTimestamp(s: string): string | null {
  const m = TIMESTAMP.exec(s);
  if (!m || !isValidDate(m[1])) return null;
  if (m[2] === undefined) return `${m[1]}T00:00:00.000Z`;
  const [hh, mm, ss] = [Number(m[2]), Number(m[3]), Number(m[4] ?? 0)];
  if (hh > 23 || mm > 59 || ss > 59) return null;
  let zone = m[6] ?? 'Z';
  if (/^[+-]\d{2}$/.test(zone)) zone = `${zone}:00`;
  else if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4] ?? '00'}${m[5] ?? ''}${zone.toUpperCase()}`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** Reads one cell; returns [canonical value, problem]. */
function readCell(col: ColumnDef, raw: string | null, refs: Refs): [string | null, string | undefined] {
  const s = raw === null ? '' : raw.trim();
  if (s === '') return [null, col.required ? `${col.name} is required` : undefined];
  if (col.maxLength && s.length > col.maxLength) return [null, `${col.name} is longer than ${col.maxLength} characters`];
  switch (col.type) {
    case 'text':
      return [s, undefined];
    case 'number':
    case 'integer': {
      const re = col.type === 'integer' ? INTEGER : NUMBER;
      if (!re.test(s)) return [null, `${col.name}: ${show(s)} is not ${col.type === 'integer' ? 'an integer' : 'a number'}`];
      const n = Number(s);
      if (!Number.isFinite(n)) return [null, `${col.name}: ${show(s)} is out of range`];
      if (col.type === 'integer' && !Number.isSafeInteger(n)) return [null, `${col.name}: ${show(s)} is out of range`];
      if (col.min !== undefined && (col.exclusiveMin ? n <= col.min : n < col.min)) {
        const what = col.exclusiveMin ? `must be > ${col.min}` : n < 0 && col.min === 0 ? 'is negative; it must be >= 0' : `must be >= ${col.min}`;
        return [null, `${col.name}: ${s} ${what}`];
      }
      return [String(n), undefined];
    }
    case 'date':
      return isValidDate(s) ? [s, undefined] : [null, `${col.name}: ${show(s)} is not a valid date (YYYY-MM-DD)`];
    case 'timestamp': {
      const iso = parseTimestamp(s);
      return iso ? [iso, undefined] : [null, `${col.name}: ${show(s)} is not a valid date or ISO 8601 timestamp`];
    }
    case 'boolean': {
      const l = s.toLowerCase();
      if (TRUE.has(l)) return ['true', undefined];
      if (FALSE.has(l)) return ['false', undefined];
      return [null, `${col.name}: ${show(s)} is not a boolean (true/false, yes/no, 1/0)`];
    }
    case 'json': {
      try {
        const v = JSON.parse(s);
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return [null, `${col.name} must be a JSON object`];
        return [JSON.stringify(v), undefined];
      } catch {
        return [null, `${col.name}: ${show(s)} is not valid JSON`];
      }
    }
    case 'enum': {
      const alias = s.trim().toUpperCase();
      const found = col.values!.find((v) => v.toLowerCase() === s.toLowerCase())
        ?? (col.aliases && Object.prototype.hasOwnProperty.call(col.aliases, alias) ? col.aliases[alias] : undefined);
      if (found) return [found, undefined];
      const refused = col.refusal?.(s);
      return [null, refused ? `${col.name}: ${refused}` : `${col.name}: ${show(s)} is not one of ${col.values!.join(', ')}`];
    }
    case 'item':
    case 'site': {
      const id = (col.type === 'item' ? refs.items : refs.sites).get(s);
      return id === undefined ? [null, `${col.name}: unknown ${col.type} ${show(s)}`] : [String(id), undefined];
    }
    default:
      return [null, `${col.name}: unsupported column type`];
  }
}

/** Rules that involve more than one column. */
const ROW_RULES: Partial<Record<TableName, (v: CleanRow) => string | undefined>> = {
  // the API judges its edges with the same function (domain/supersession/edges.ts)
  supersession: (v) => edgeProblem({
    from: v.from_item_xuid, to: v.to_item_xuid, demand_factor: v.demand_factor === null ? DEFAULT_DEMAND_FACTOR : Number(v.demand_factor),
  }, IMPORT_FIELDS)?.message,
  routes: (v) => (v.from_site_xuid !== null && v.from_site_xuid === v.to_site_xuid ? 'from_site_xuid and to_site_xuid are the same site' : undefined),
  firm_orders: (v) => (v.release_dt && v.arrival_dt && v.release_dt > v.arrival_dt ? 'release_dt is after arrival_dt' : undefined),
};

/** Key columns that have a default are filled here, so rows are matched on the value they will be stored with. */
const KEY_DEFAULTS: Partial<Record<TableName, Record<string, string>>> = {
  firm_orders: { source_system: 'manual_upload' },
  routes: { route_type: DEFAULT_ROUTE_TYPE },
};

/** Reads and checks one staged row; a rejected row carries every problem found, separated by '; '. */
export function validateRow(table: TableName, raw: StagedRow, refs: Refs): RowResult {
  const def = TABLES[table];
  const values: CleanRow = {};
  const problems: string[] = [];
  for (const col of def.columns) {
    const [v, problem] = readCell(col, raw[col.name] ?? null, refs);
    if (problem) problems.push(problem);
    values[col.name] = v;
  }
  if (def.attrColumns) {
    const extra = raw[EXTRA_ATTRIBUTES];
    if (extra) {
      const base = values.attributes ? (JSON.parse(values.attributes) as Record<string, unknown>) : {};
      values.attributes = JSON.stringify({ ...base, ...(JSON.parse(extra) as Record<string, unknown>) });
    }
  }
  for (const [k, d] of Object.entries(KEY_DEFAULTS[table] ?? {})) values[k] ??= d;
  if (!problems.length) {
    const rule = ROW_RULES[table]?.(values);
    if (rule) problems.push(rule);
  }
  return problems.length ? { ok: false, reason: problems.join('; ') } : { ok: true, values };
}

/** Which reference maps a table needs (the run reads only those). */
export function neededRefs(table: TableName): { items: boolean; sites: boolean } {
  const types = TABLES[table].columns.map((c) => c.type);
  return { items: types.includes('item'), sites: types.includes('site') };
}

/** Text of a duplicate-key rejection. */
export const duplicateReason = (table: TableName, firstRow: number) =>
  `duplicate key (${TABLES[table].key.join(', ')}): the same key is given by row ${firstRow}, which is kept`;
