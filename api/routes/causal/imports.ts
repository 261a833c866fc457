import { assetTypeIdByCode, bomEdges, customerByCode, insertBomEdge, insertFleetPlan, itemIdByCode } from '../../../db/causal';
import { sql, withTenant, type Tx } from '../../../db/pool';
import { bomCycle, type BomEdge } from '../../../domain/causal/bom';
import { isValidDate, LoadError, parseCsv } from '../../../domain/import/validate';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, obj, out } from '../schemas';
import { TAG } from './masterData';

/*
 * CSV imports of the causal model (core-service.md §4.10 `POST bom/import`, `POST fleet-plan/import`) and their
 * templates (`GET templates/{name}`). The CSV travels as text in a JSON body. Rows are checked one by one: good rows
 * are written, bad rows are listed with their line and field and skipped. A file whose header is wrong is a 400 and
 * nothing is written.
 */

interface Template { columns: string[]; required: string[]; example: string[][]; description: string }

export const TEMPLATES: Record<string, Template> = {
  bom: {
    columns: ['asset_type_code', 'parent_item_code', 'item_code', 'qty_per_asset'],
    required: ['item_code', 'qty_per_asset'],
    example: [['TRUCK-40T', '', 'GEARBOX', '1'], ['', 'GEARBOX', 'BEARING-6204', '4']],
    description: 'one BOM line per row: asset_type_code (a level-1 part) or parent_item_code (a sub-part), exactly one of them; item codes are items.xuid',
  },
  'fleet-plan': {
    columns: ['asset_type_code', 'customer_code', 'customer_name', 'start_date', 'end_date', 'quantity', 'notes'],
    required: ['asset_type_code', 'customer_code', 'start_date', 'quantity'],
    example: [['TRUCK-40T', 'ACME', 'Acme Logistics', '2027-01-04', '', '12', 'new depot']],
    description: 'one planned fleet per row; a new customer_code creates the customer; end_date empty: open-ended',
  },
};

const csvLine = (cells: string[]) => cells.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',');
export const templateCsv = (name: string) => [TEMPLATES[name].columns, ...TEMPLATES[name].example].map(csvLine).join('\n') + '\n';

const importBody = obj({
  csv: { type: 'string', minLength: 1, maxLength: 20_000_000, description: 'the CSV file as text; the first line names the columns (GET /api/causal/templates/{name})' },
  delimiter: { type: 'string', enum: [',', ';', '\t', '|'], default: ',' },
  replace: { type: 'boolean', default: false, description: 'true: delete every existing row of the table first, in the same transaction (only when at least one row is good)' },
}, ['csv']);

const importResponse = out({
  rows_read: { type: 'integer' },
  written: { type: 'integer', description: 'rows inserted or updated' },
  rejected: { type: 'integer' },
  replaced: { type: 'integer', description: 'rows deleted first (replace=true)' },
  errors: { type: 'array', items: out({ line: { type: 'integer', description: 'line of the file (the header is line 1)' }, field: { type: 'string' }, message: { type: 'string' } }) },
});

type RowError = { line: number; field: string; message: string };

/** The header must hold the required columns and no unknown one. */
function checkHeader(name: string, columns: string[]): void {
  const t = TEMPLATES[name];
  const unknown = columns.filter((c) => !t.columns.includes(c));
  if (unknown.length) throw badRequest(`body.csv: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `'${c}'`).join(', ')} (known: ${t.columns.join(', ')})`);
  const missing = t.required.filter((c) => !columns.includes(c));
  if (missing.length) throw badRequest(`body.csv: missing required column${missing.length > 1 ? 's' : ''} ${missing.map((c) => `'${c}'`).join(', ')}`);
}

function parse(name: string, csv: string, delimiter: string) {
  try {
    const p = parseCsv(csv, delimiter);
    checkHeader(name, p.columns);
    return p.records.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v ?? '').trim()])));
  } catch (err) {
    if (err instanceof LoadError) throw badRequest(err.message.startsWith('body') ? err.message : `body.csv: ${err.message}`);
    throw err;
  }
}

const positive = (v: string, allowZero: boolean): number | null => {
  if (!/^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(v)) return null;
  const n = Number(v);
  return Number.isFinite(n) && (allowZero ? n >= 0 : n > 0) && n <= 1e12 ? n : null;
};

async function importBom(tx: Tx, rows: Array<Record<string, string>>, replace: boolean) {
  const errs: RowError[] = [];
  const good: Array<{ line: number; v: { asset_type_id: number | null; parent_item_id: number | null; item_id: number; qty_per_asset: number } }> = [];
  for (const [i, r] of rows.entries()) {
    const line = i + 2;
    const fail = (field: string, message: string) => errs.push({ line, field, message });
    const at = r.asset_type_code ?? '';
    const parent = r.parent_item_code ?? '';
    if ((at === '') === (parent === '')) { fail('asset_type_code', 'give asset_type_code or parent_item_code, exactly one'); continue; }
    const atId = at ? await assetTypeIdByCode(tx, at) : null;
    if (at && atId === null) { fail('asset_type_code', `asset type '${at}' does not exist`); continue; }
    const parentId = parent ? await itemIdByCode(tx, parent) : null;
    if (parent && parentId === null) { fail('parent_item_code', `item '${parent}' does not exist`); continue; }
    const itemId = r.item_code ? await itemIdByCode(tx, r.item_code) : null;
    if (itemId === null) { fail('item_code', r.item_code ? `item '${r.item_code}' does not exist` : 'required'); continue; }
    const qty = positive(r.qty_per_asset ?? '', false);
    if (qty === null) { fail('qty_per_asset', `'${r.qty_per_asset ?? ''}' is not a number above 0`); continue; }
    good.push({ line, v: { asset_type_id: atId, parent_item_id: parentId, item_id: itemId, qty_per_asset: qty } });
  }
  let replaced = 0;
  if (replace && good.length) replaced = (await tx.query(sql.unsafe`DELETE FROM causal_bom`)).rowCount;
  const edges: BomEdge[] = await bomEdges(tx);
  let written = 0;
  for (const g of good) {
    if (g.v.parent_item_id !== null) {
      const others = edges.filter((e) => !(e.parent_item_id === g.v.parent_item_id && e.item_id === g.v.item_id));
      const cycle = bomCycle(others, g.v.parent_item_id, g.v.item_id);
      if (cycle) { errs.push({ line: g.line, field: 'item_code', message: `the line would close a cycle of parts (ids) ${cycle.join(' → ')}` }); continue; }
    }
    await insertBomEdge(tx, g.v);
    edges.push(g.v);
    written += 1;
  }
  return { written, replaced, errors: errs.sort((a, b) => a.line - b.line) };
}

async function importFleetPlan(tx: Tx, rows: Array<Record<string, string>>, replace: boolean) {
  const errs: RowError[] = [];
  const good: Array<{ at: number; customer: string; customerName: string | null; start: string; end: string | null; qty: number; notes: string | null }> = [];
  for (const [i, r] of rows.entries()) {
    const line = i + 2;
    const fail = (field: string, message: string) => errs.push({ line, field, message });
    const at = r.asset_type_code ? await assetTypeIdByCode(tx, r.asset_type_code) : null;
    if (at === null) { fail('asset_type_code', r.asset_type_code ? `asset type '${r.asset_type_code}' does not exist` : 'required'); continue; }
    if (!r.customer_code) { fail('customer_code', 'required'); continue; }
    if (r.customer_code.length > 200) { fail('customer_code', 'longer than 200 characters'); continue; }
    if (!isValidDate(r.start_date ?? '')) { fail('start_date', `'${r.start_date ?? ''}' is not a valid date (YYYY-MM-DD)`); continue; }
    const end = r.end_date ? r.end_date : null;
    if (end !== null && !isValidDate(end)) { fail('end_date', `'${end}' is not a valid date (YYYY-MM-DD)`); continue; }
    if (end !== null && end < r.start_date) { fail('end_date', `${end} is before start_date ${r.start_date}`); continue; }
    const qty = positive(r.quantity ?? '', true);
    if (qty === null) { fail('quantity', `'${r.quantity ?? ''}' is not a number of 0 or more`); continue; }
    good.push({ at, customer: r.customer_code, customerName: r.customer_name || null, start: r.start_date, end, qty, notes: r.notes || null });
  }
  let replaced = 0;
  if (replace && good.length) replaced = (await tx.query(sql.unsafe`DELETE FROM causal_fleet_plan`)).rowCount;
  for (const g of good) {
    const customer = await customerByCode(tx, g.customer, g.customerName);
    await insertFleetPlan(tx, { asset_type_id: g.at, customer_id: customer, start_date: g.start, end_date: g.end, quantity: g.qty, notes: g.notes });
  }
  return { written: good.length, replaced, errors: errs };
}

export function registerCausalImportRoutes(table: RouteTable): void {
  const imports = [
    { path: '/api/causal/bom/import', name: 'bom', run: importBom, entity: 'causal_bom', what: 'BOM lines. A line of an existing (asset type or parent, part) updates its quantity (upsert); a sub-part line that would close a cycle is rejected.' },
    { path: '/api/causal/fleet-plan/import', name: 'fleet-plan', run: importFleetPlan, entity: 'causal_fleet_plan', what: 'fleet plan rows (always added; `replace=true` to start over). A new customer_code creates the customer.' },
  ];
  for (const im of imports) {
    defineRoute(table, {
      method: 'post', path: im.path, tag: TAG, permission: 'admin',
      summary: `Import ${im.name} from CSV`,
      description: `Loads ${im.what} The body is JSON: \`csv\` holds the file as text, with the columns of GET /api/causal/templates/${im.name} (${TEMPLATES[im.name].columns.join(', ')}; required: ${TEMPLATES[im.name].required.join(', ')}). A header with an unknown or a missing required column answers 400 naming it, and nothing is written. Otherwise rows are checked one by one: good rows are written, bad ones are skipped and listed in \`errors\` with their line (header = line 1), field and reason. Admins only.`,
      body: importBody, audit: { entityType: im.entity, action: 'import' },
      responses: { 200: { description: 'what was written and the rejected rows', schema: importResponse }, ...errors(400, 401, 403) },
      handler: async (ctx, { body, user }) => {
        const rows = parse(im.name, body.csv, body.delimiter);
        const r = await withTenant(ctx.deps.db, user.accountId, (tx) => im.run(tx, rows, body.replace));
        const result = { rows_read: rows.length, written: r.written, rejected: r.errors.length, replaced: r.replaced, errors: r.errors };
        ctx.state.audit = { ...ctx.state.audit, newValue: { rows_read: rows.length, written: r.written, rejected: r.errors.length, replaced: r.replaced } };
        return result;
      },
    });
  }

  defineRoute(table, {
    method: 'get', path: '/api/causal/templates/{name}', tag: TAG,
    summary: 'CSV template of a causal import',
    description: `A CSV file (text/csv, as an attachment) with the header row and an example row of the import \`name\`: ${Object.entries(TEMPLATES).map(([n, t]) => `\`${n}\` (POST /api/causal/${n}/import: ${t.description})`).join('; ')}. 404 for another name, listing the known ones.`,
    params: obj({ name: { type: 'string', minLength: 1, maxLength: 100 } }, ['name']),
    responses: { 200: { description: 'the template', contentType: 'text/csv', schema: { type: 'string' } }, ...errors(400, 401, 404) },
    handler: async (ctx, { params }) => {
      if (!Object.prototype.hasOwnProperty.call(TEMPLATES, params.name)) throw notFound(`Unknown template '${params.name}' (known: ${Object.keys(TEMPLATES).join(', ')})`);
      ctx.type = 'text/csv';
      ctx.set('Content-Disposition', `attachment; filename="causal_${params.name.replace('-', '_')}_template.csv"`);
      return templateCsv(params.name);
    },
  });
}
