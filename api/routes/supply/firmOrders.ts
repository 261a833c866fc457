import type { ErrorObject, ValidateFunction } from 'ajv';
import {
  deleteFirmOrder, existingIds, FIRM_ORDER_SORTS, firmOrderIdByKey, getFirmOrder, idsOfCodes, insertFirmOrder, listFirmOrders, lockFirmOrder,
  lockFirmOrderKeys, updateFirmOrder, upsertFirmOrders, type FirmOrderChanges, type FirmOrderFilter, type FirmOrderRow, type FirmOrderValues,
  type Range,
} from '../../../db/firmOrders';
import { withTenant, type Tx } from '../../../db/pool';
import { FIRM_POOL_STATUSES } from '../../../domain/allocation/pool';
import { ERP_STATUSES } from '../../../domain/import/tables';
import { isValidDate, parseTimestamp } from '../../../domain/import/validate';
import { ORDER_TYPES } from '../../../domain/supply/types';
import type { AppContext } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { anyCase, errors, idParam, int4, nullable, obj, out, skipParam } from '../schemas';
import { compile, describeError, type JsonSchema } from '../validation';

/*
 * Firm supply orders (document 2 §2.1, §4.1; docs/SUPPLY.md "Firm orders"). Not a defineResource: a planner reads an
 * order with its item's and sites' codes and names and what it still adds as supply, which a single-table record
 * cannot give, and both create and import share checks (references, order type, dates) ajv cannot express.
 *
 * Reading is open to every user. Writing needs can_run_process or an admin role, as the import staging it mirrors:
 * firm orders steer what a supply run plans.
 */

const DEFAULT_SOURCE_SYSTEM = 'manual_upload';
/** At 10,000 rows an import is about 3 MB of JSON, inside the 5 MB body limit (413 beyond it). */
export const MAX_IMPORT_ROWS = 10_000;

const ORDER_TYPE_LIST = ORDER_TYPES.join(', ');
const ERP_STATUS_LIST = ERP_STATUSES.join(', ');
const SUPPLY_STATUS_LIST = FIRM_POOL_STATUSES.join(', ');
const ORDER_TYPE_REFUSAL = `'{value}' is not an order type (one of ${ORDER_TYPE_LIST}, any case)`;
const ERP_STATUS_REFUSAL = `'{value}' is not an erp_status (one of ${ERP_STATUS_LIST}, any case)`;

// ---------------------------------------------------------------------------------------------------- schemas

const timestamp = (what: string): JsonSchema => ({
  type: 'string', minLength: 1, maxLength: 64,
  description: `${what}: ISO 8601 date (YYYY-MM-DD, read as 00:00 UTC) or date-time (without an offset it is UTC); stored as an instant`,
  examples: ['2026-06-01', '2026-06-01T08:00:00Z'],
});
const cost = (what: string): JsonSchema => nullable({ type: 'number', minimum: 0, description: what });

function orderFields(withDefaults: boolean): Record<string, JsonSchema> {
  const dflt = (value: unknown) => (withDefaults ? { default: value } : {});
  return {
    external_id: nullable({ type: 'string', minLength: 1, maxLength: 200, description: 'order reference in the source system; with source_system the key an import upserts on' }),
    item_id: int4(1, { description: 'item; must exist' }),
    site_id: int4(1, { description: 'receiving site; must exist' }),
    source_site_id: nullable(int4(1, { description: 'shipping site (transfers); must exist' })),
    order_type: anyCase(ORDER_TYPES, ORDER_TYPE_REFUSAL, { maxLength: 20, description: `${ORDER_TYPE_LIST} in any case; stored upper-case` }),
    qty: { type: 'number', exclusiveMinimum: 0, description: 'ordered quantity, > 0' },
    release_dt: timestamp('release date'),
    arrival_dt: timestamp('arrival (due) date, not before release_dt'),
    route_id: nullable(int4(1, { description: 'route the order travels; must exist' })),
    unit_cost: cost('unit cost'),
    order_cost: cost('fixed cost of the order'),
    total_cost: cost('total cost'),
    erp_status: anyCase(ERP_STATUSES, ERP_STATUS_REFUSAL, { maxLength: 20, ...dflt('firm'), description: `${ERP_STATUS_LIST} (any case, stored lower-case); default firm. Only ${SUPPLY_STATUS_LIST} count as supply; every status, received included, sets the latest firm week of its type, so under firm_orders_block_horizon a received order released after the planning date still blocks its type until its release week (docs/SUPPLY.md "Received firm orders")` }),
    received_qty: { type: 'number', minimum: 0, ...dflt(0), description: 'quantity already received; default 0' },
    expiry_date: nullable({ type: 'string', format: 'date', description: 'YYYY-MM-DD' }),
    attributes: { type: 'object', ...dflt({}), description: 'free attributes; default {}' },
    source_system: { type: 'string', minLength: 1, maxLength: 100, ...dflt(DEFAULT_SOURCE_SYSTEM), description: `system the order comes from; default ${DEFAULT_SOURCE_SYSTEM}` },
  };
}

const createBody = obj(orderFields(true), ['item_id', 'site_id', 'order_type', 'qty', 'release_dt', 'arrival_dt']);

const MUTABLE = ['qty', 'arrival_dt', 'release_dt', 'erp_status', 'received_qty', 'expiry_date', 'attributes'] as const;
const updateBody = (() => {
  const all = orderFields(false);
  return obj(Object.fromEntries(MUTABLE.map((k) => [k, all[k]])));
})();

/** One import row: the create fields without defaults (an update keeps what a row leaves out), plus the aliases. */
const importRowSchema = obj({
  ...orderFields(false),
  quantity: { type: 'number', exclusiveMinimum: 0, description: 'alias of qty' },
  due_date: timestamp('alias of arrival_dt'),
  item_xuid: { type: 'string', minLength: 1, maxLength: 200, description: 'item code, instead of item_id' },
  site_xuid: { type: 'string', minLength: 1, maxLength: 200, description: 'receiving site code, instead of site_id' },
  source_site_xuid: nullable({ type: 'string', minLength: 1, maxLength: 200, description: 'shipping site code, instead of source_site_id' }),
}, ['order_type']);
// compiled at the first import, like the routes' own validators (define.ts), not by every process that loads the API
let importRowValidator: ValidateFunction | undefined;
const checkImportRow = () => (importRowValidator ??= compile('body', importRowSchema));

const IMPORT_ROW_DOC = [
  'One order. Fields as in POST /api/supply/firm-orders, each row checked as a create; besides:',
  '`quantity` may stand for `qty`, `due_date` for `arrival_dt` (a row gives one name of each pair, not both);',
  'without `release_dt`, a row that names its arrival `due_date` is released on that date;',
  '`item_xuid`, `site_xuid`, `source_site_xuid` (codes) may stand for `item_id`, `site_id`, `source_site_id`.',
].join(' ');
const rowsArray: JsonSchema = {
  type: 'array', minItems: 1, maxItems: MAX_IMPORT_ROWS,
  // the rows are checked one by one in the handler, so that a bad row is reported and the good ones still land
  items: {
    type: 'object', description: IMPORT_ROW_DOC,
    examples: [
      { external_id: 'PO-1001', source_system: 'sap', item_xuid: 'PUMP-7', site_xuid: 'DC-EAST', order_type: 'buy', quantity: 40, due_date: '2026-07-06' },
      { external_id: 'TO-88', source_system: 'sap', item_id: 12, site_id: 3, source_site_id: 1, order_type: 'TRANSFER', qty: 5, release_dt: '2026-06-29', arrival_dt: '2026-07-01', erp_status: 'released' },
    ],
  },
};
const importBody: JsonSchema = {
  description: `A JSON list of rows (document 2 §4.1), or an object {rows: [...]}; 1 to ${MAX_IMPORT_ROWS} rows.`,
  if: { type: 'array' }, then: rowsArray, else: obj({ rows: rowsArray }, ['rows']),
};

const str = { type: 'string' };
const num = { type: 'number' };
const orderSchema: JsonSchema = out({
  id: { type: 'integer' },
  external_id: nullable(str),
  item_id: { type: 'integer' }, item_xuid: str, item_name: str,
  site_id: { type: 'integer' }, site_xuid: str, site_name: str,
  source_site_id: nullable({ type: 'integer' }), source_site_xuid: nullable(str), source_site_name: nullable(str),
  order_type: { type: 'string', enum: [...ORDER_TYPES] },
  qty: num,
  received_qty: num,
  remaining_qty: { type: 'number', minimum: 0, description: 'qty − received_qty, floored at 0: what the order still brings' },
  release_dt: { type: 'string', format: 'date-time' },
  arrival_dt: { type: 'string', format: 'date-time' },
  route_id: nullable({ type: 'integer' }),
  unit_cost: nullable(num), order_cost: nullable(num), total_cost: nullable(num),
  erp_status: { type: 'string', enum: ERP_STATUSES },
  counts_as_supply: { type: 'boolean', description: `erp_status is ${SUPPLY_STATUS_LIST}: planning and allocation count remaining_qty as supply` },
  expiry_date: nullable({ type: 'string', format: 'date' }),
  attributes: { type: 'object' },
  source_system: str,
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

const importResponse: JsonSchema = out({
  inserted: { type: 'integer', description: 'new orders' },
  updated: { type: 'integer', description: 'orders whose (external_id, source_system) existed' },
  errors: {
    type: 'array', description: 'one entry per rejected row, in row order; a rejected row wrote nothing',
    items: out({
      row: { type: 'integer', description: 'position of the row in the list, from 0' },
      external_id: nullable({ type: 'string' }),
      field: nullable({ type: 'string', description: 'the field at fault, as the row named it' }),
      message: { type: 'string' },
    }),
  },
});

const listQuery = obj({
  skip: skipParam,
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'rows to return (at most 1000)' },
  item_id: int4(1),
  site_id: int4(1, { description: 'receiving site' }),
  source_site_id: int4(1),
  order_type: anyCase(ORDER_TYPES, ORDER_TYPE_REFUSAL, { maxLength: 20, description: `${ORDER_TYPE_LIST}, any case` }),
  erp_status: anyCase(ERP_STATUSES, ERP_STATUS_REFUSAL, { maxLength: 20, description: `${ERP_STATUS_LIST}, any case` }),
  counts_as_supply: { type: 'boolean', description: `true: only orders whose erp_status is ${SUPPLY_STATUS_LIST}; false: only the others` },
  source_system: { type: 'string', minLength: 1, maxLength: 100 },
  external_id: { type: 'string', minLength: 1, maxLength: 200 },
  release_from: timestamp('release_dt at or after'),
  release_to: timestamp('release_dt at or before (a date: that whole day)'),
  arrival_from: timestamp('arrival_dt at or after'),
  arrival_to: timestamp('arrival_dt at or before (a date: that whole day)'),
  search: { type: 'string', maxLength: 200, description: 'case-insensitive text in the external id, source system, or the code or name of the item, site or source site' },
  sort: { type: 'string', enum: [...FIRM_ORDER_SORTS], default: 'arrival_dt', description: 'sort column; ties are broken by id' },
  order: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
});

// ---------------------------------------------------------------------------------------------------- checks

/** What is wrong with an order: `message` starts with the field, as the client named it. */
interface Problem {
  field: string | null;
  message: string;
}

class OrderProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
  }
}

const fail = (field: string, message: string): never => {
  throw new OrderProblem({ field, message: `${field}${message}` });
};

interface Refs {
  items: Set<number>;
  sites: Set<number>;
  routes: Set<number>;
  itemCodes: Map<string, number>;
  siteCodes: Map<string, number>;
}

type Row = Record<string, unknown>;

async function loadRefs(tx: Tx, rows: readonly Row[]): Promise<Refs> {
  const ints = (keys: string[]) => rows.flatMap((r) => keys.map((k) => r[k])).filter((v): v is number => typeof v === 'number');
  const texts = (keys: string[]) => rows.flatMap((r) => keys.map((k) => r[k])).filter((v): v is string => typeof v === 'string');
  return {
    items: await existingIds(tx, 'items', ints(['item_id'])),
    sites: await existingIds(tx, 'sites', ints(['site_id', 'source_site_id'])),
    routes: await existingIds(tx, 'routes', ints(['route_id'])),
    itemCodes: await idsOfCodes(tx, 'items', texts(['item_xuid'])),
    siteCodes: await idsOfCodes(tx, 'sites', texts(['site_xuid', 'source_site_xuid'])),
  };
}

/** The one of two alternative names the row gives; `required` fails naming the first when it gives neither. */
function oneOf(row: Row, name: string, alias: string, required: boolean): [string, unknown] | undefined {
  const has = (k: string) => row[k] !== undefined && row[k] !== null;
  if (has(name) && has(alias)) fail(alias, `: give ${name} or ${alias}, not both`);
  if (has(alias)) return [alias, row[alias]];
  if (has(name)) return [name, row[name]];
  if (required) fail(name, ` is required (or ${alias})`);
  return undefined;
}

function reference(row: Row, idField: string, codeField: string, ids: Set<number>, codes: Map<string, number>, noun: string, required: boolean): number | null {
  const given = oneOf(row, idField, codeField, required);
  if (!given) return null;
  const [field, value] = given;
  if (field === codeField) return codes.get(value as string) ?? fail(field, `: no ${noun} has the code '${value as string}'`);
  if (!ids.has(value as number)) fail(field, `: ${noun} ${value as number} does not exist`);
  return value as number;
}

/**
 * ISO 8601 → the instant, or null. An offset can move a time on 9999-12-31 into year 10000, which toISOString writes
 * as `+010000-…` and PostgreSQL cannot read: such an instant is refused like any unreadable one (as is year 0) rather
 * than failing in the database.
 */
function toInstant(value: string): string | null {
  const v = parseTimestamp(value.trim());
  return v !== null && /^\d{4}-/.test(v) && !v.startsWith('0000') ? v : null;
}

function instant(field: string, value: string): string {
  return toInstant(value) ?? fail(field, `: '${value}' is not an ISO 8601 date or date-time`);
}

function orderType(field: string, value: string): string {
  const t = value.trim().toUpperCase();
  if (!(ORDER_TYPES as readonly string[]).includes(t)) fail(field, `: '${value}' is not an order type (one of ${ORDER_TYPE_LIST}, any case)`);
  return t;
}

function erpStatus(field: string, value: string): string {
  const s = value.trim().toLowerCase();
  if (!ERP_STATUSES.includes(s)) fail(field, `: '${value}' is not an erp_status (one of ${ERP_STATUS_LIST}, any case)`);
  return s;
}

function expiry(field: string, value: string): string {
  if (!isValidDate(value)) fail(field, `: '${value}' is not a date (YYYY-MM-DD)`);
  return value;
}

function arrivalNotBeforeRelease(field: string, arrival: string, release: string, releaseName = 'release_dt'): void {
  if (Date.parse(arrival) < Date.parse(release)) fail(field, ` ${arrival} is before ${releaseName} ${release}`);
}

/**
 * A create body or an import row (which may use the aliases) → the values to store, or an OrderProblem. Fields a row
 * leaves out stay null: the create body has its defaults from the schema, an import applies them only on insert.
 */
function readOrder(row: Row, refs: Refs): FirmOrderValues {
  const item_id = reference(row, 'item_id', 'item_xuid', refs.items, refs.itemCodes, 'item', true)!;
  const site_id = reference(row, 'site_id', 'site_xuid', refs.sites, refs.siteCodes, 'site', true)!;
  const source_site_id = reference(row, 'source_site_id', 'source_site_xuid', refs.sites, refs.siteCodes, 'site', false);
  const order_type = orderType('order_type', row.order_type as string);
  const [, qty] = oneOf(row, 'qty', 'quantity', true)!;
  const [arrivalField, arrivalText] = oneOf(row, 'arrival_dt', 'due_date', true)!;
  const arrival_dt = instant(arrivalField, arrivalText as string);
  const releaseText = row.release_dt ?? (arrivalField === 'due_date' ? arrivalText : fail('release_dt', ' is required'));
  const release_dt = instant('release_dt', releaseText as string);
  arrivalNotBeforeRelease(arrivalField, arrival_dt, release_dt);
  const route_id = (row.route_id as number | null | undefined) ?? null;
  if (route_id !== null && !refs.routes.has(route_id)) fail('route_id', `: route ${route_id} does not exist`);
  const text = (k: string) => (row[k] as string | null | undefined) ?? null;
  const number = (k: string) => (row[k] as number | null | undefined) ?? null;
  return {
    external_id: text('external_id'),
    item_id, site_id, source_site_id, order_type, qty: qty as number, release_dt, arrival_dt, route_id,
    unit_cost: number('unit_cost'), order_cost: number('order_cost'), total_cost: number('total_cost'),
    erp_status: row.erp_status === undefined || row.erp_status === null ? null : erpStatus('erp_status', row.erp_status as string),
    received_qty: number('received_qty'),
    expiry_date: row.expiry_date === undefined || row.expiry_date === null ? null : expiry('expiry_date', row.expiry_date as string),
    attributes: (row.attributes as Record<string, unknown> | undefined) ?? null,
    source_system: text('source_system') ?? DEFAULT_SOURCE_SYSTEM,
  };
}

/** Runs checks; their OrderProblem becomes a 400 whose detail names the field under `body` or `query`. */
function asBadRequest<T>(where: 'body' | 'query', fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof OrderProblem) throw badRequest(`${where}.${err.problem.message}`);
    throw err;
  }
}

/** An ajv error of one import row, as the row's problem (messages without the `body` prefix the route's errors carry). */
function schemaProblem(err: ErrorObject): Problem {
  const p = err.params as Record<string, unknown>;
  const text = describeError('body', err);
  const message = text.startsWith('body.') ? text.slice(5) : text.startsWith('body: ') ? text.slice(6) : `row${text.slice(4)}`;
  if (err.keyword === 'required') return { field: String(p.missingProperty), message };
  if (err.keyword === 'additionalProperties') return { field: String(p.additionalProperty), message };
  return { field: err.instancePath.split('/')[1] || null, message };
}

/** Query bounds of a date range; a bare date as upper bound takes in that whole day. */
function dateFilter(field: string, from: string | undefined, to: string | undefined): Range | undefined {
  if (from === undefined && to === undefined) return undefined;
  return asBadRequest('query', () => ({
    from: from === undefined ? undefined : instant(`${field}_from`, from),
    until: to === undefined ? undefined : instant(`${field}_to`, to),
    wholeDay: to !== undefined && isValidDate(to.trim()),
  }));
}

// ---------------------------------------------------------------------------------------------------- routes

interface ImportError extends Problem {
  row: number;
  external_id: string | null;
}

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

const notFoundOrder = (id: number) => notFound(`Firm order ${id} not found`);

async function orderOr404(tx: Tx, id: number): Promise<FirmOrderRow> {
  const row = await getFirmOrder(tx, id);
  if (!row) throw notFoundOrder(id);
  return row;
}

/** Firm supply orders (document 2 §2.1, §4.1). */
export function registerFirmOrderRoutes(table: RouteTable): void {
  const tag = 'supply';
  const path = '/api/supply/firm-orders';
  const entityType = 'firm_order';
  const list = (what: string) => ({ type: 'array', items: orderSchema, description: what });

  defineRoute(table, {
    method: 'get', path, tag,
    summary: 'List firm supply orders',
    description:
      'Orders committed in an external system, kept apart from engine output. Filtered, sorted (default arrival_dt, ties by id) and paged with `skip` and `limit`; the count of matching orders is in the `X-Total-Count` header. Date filters take an ISO 8601 date or date-time; a bare date in `*_to` covers that whole UTC day. Each order carries its item and sites with code and name, `remaining_qty` (qty − received_qty, at least 0) and `counts_as_supply`.',
    query: listQuery,
    responses: { 200: { description: 'orders', schema: list('orders') }, ...errors(400, 401) },
    handler: async (ctx, { query: q, user }) => {
      const filter: FirmOrderFilter = {
        item_id: q.item_id, site_id: q.site_id, source_site_id: q.source_site_id,
        order_type: q.order_type === undefined ? undefined : asBadRequest('query', () => orderType('order_type', q.order_type)),
        erp_status: q.erp_status === undefined ? undefined : asBadRequest('query', () => erpStatus('erp_status', q.erp_status)),
        counts_as_supply: q.counts_as_supply, source_system: q.source_system, external_id: q.external_id,
        release: dateFilter('release', q.release_from, q.release_to),
        arrival: dateFilter('arrival', q.arrival_from, q.arrival_to),
        search: q.search,
      };
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) =>
        listFirmOrders(tx, filter, { skip: q.skip, limit: q.limit, sort: q.sort, order: q.order }));
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'get', path: `${path}/{id}`, tag,
    summary: 'One firm supply order',
    params: idParam('id'),
    responses: { 200: { description: 'order', schema: orderSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) => withTenant(ctx.deps.db, user.accountId, (tx) => orderOr404(tx, params.id)),
  });

  defineRoute(table, {
    method: 'post', path, tag, permission: 'run_process', status: 201,
    summary: 'Create a firm supply order',
    description:
      `Document 2 §2.1. 400 naming the field, and nothing written, when item_id, site_id, source_site_id or route_id does not exist, order_type is not one of ${ORDER_TYPE_LIST} (compared upper-case, stored upper-case), qty is not above 0, a date is not ISO 8601, arrival_dt is before release_dt, erp_status is not one of ${ERP_STATUS_LIST}, received_qty is negative or attributes is not an object; 409 when another order already has the same external_id and source_system. Defaults: erp_status firm, received_qty 0, source_system ${DEFAULT_SOURCE_SYSTEM}, attributes {}. Needs can_run_process or an admin role.`,
    body: createBody, audit: { entityType, action: 'create' },
    responses: { 201: { description: 'the stored order', schema: orderSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body, user }) => {
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockFirmOrderKeys(tx);
        const refs = await loadRefs(tx, [body]);
        const values = asBadRequest('body', () => readOrder(body, refs));
        if (values.external_id !== null) {
          const clash = await firmOrderIdByKey(tx, values.external_id, values.source_system);
          if (clash !== null) {
            throw conflict(`body.external_id: firm order ${clash} already has external_id '${values.external_id}' from source_system '${values.source_system}'; update it, or import to upsert`);
          }
        }
        return orderOr404(tx, await insertFirmOrder(tx, values));
      });
      setAudit(ctx, { entityId: row.id, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'put', path: `${path}/{id}`, tag, permission: 'run_process',
    summary: 'Update a firm supply order',
    description:
      `Only the mutable fields of document 2 §2.1: ${MUTABLE.join(', ')} (any other field is a 400 naming it); only the fields sent change, attributes is replaced as a whole, expiry_date null clears it. The dates are checked together with the stored ones: arrival_dt must not fall before release_dt. Any erp_status may follow any other. Needs can_run_process or an admin role.`,
    params: idParam('id'), body: updateBody, audit: { entityType, action: 'update' },
    responses: { 200: { description: 'the updated order', schema: orderSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        if (!(await lockFirmOrder(tx, params.id))) throw notFoundOrder(params.id);
        const old = await orderOr404(tx, params.id);
        const changes = asBadRequest('body', (): FirmOrderChanges => {
          const release = body.release_dt === undefined ? undefined : instant('release_dt', body.release_dt);
          const arrival = body.arrival_dt === undefined ? undefined : instant('arrival_dt', body.arrival_dt);
          if (arrival !== undefined) arrivalNotBeforeRelease('arrival_dt', arrival, release ?? old.release_dt, release === undefined ? "the order's release_dt" : 'release_dt');
          else if (release !== undefined && Date.parse(release) > Date.parse(old.arrival_dt)) fail('release_dt', ` ${release} is after the order's arrival_dt ${old.arrival_dt}`);
          return {
            qty: body.qty, release_dt: release, arrival_dt: arrival, received_qty: body.received_qty, attributes: body.attributes,
            erp_status: body.erp_status === undefined ? undefined : erpStatus('erp_status', body.erp_status),
            expiry_date: body.expiry_date === undefined || body.expiry_date === null ? body.expiry_date : expiry('expiry_date', body.expiry_date),
          };
        });
        await updateFirmOrder(tx, params.id, changes);
        return { old, row: await orderOr404(tx, params.id) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: old, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'delete', path: `${path}/{id}`, tag, permission: 'run_process',
    summary: 'Delete a firm supply order',
    description: 'The next supply and allocation runs no longer see it. Needs can_run_process or an admin role.',
    params: idParam('id'), audit: { entityType, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: out({ status: { type: 'string', const: 'deleted' }, id: { type: 'integer' } }) }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const row = await orderOr404(tx, params.id);
        if (!(await deleteFirmOrder(tx, params.id))) throw notFoundOrder(params.id);
        return row;
      });
      setAudit(ctx, { entityId: params.id, oldValue: old, newValue: { deleted: true } });
      return { status: 'deleted', id: params.id };
    },
  });

  defineRoute(table, {
    method: 'post', path: `${path}/import`, tag, permission: 'run_process',
    summary: 'Import firm supply orders (upsert)',
    description: [
      `Document 2 §4.1: a JSON list of rows (or {rows: [...]}), 1 to ${MAX_IMPORT_ROWS} rows; larger batches go in several calls.`,
      'Each row is checked as a create; a row whose (external_id, source_system) exists updates that order, any other row',
      `(also one without external_id) is a new order. source_system defaults to ${DEFAULT_SOURCE_SYSTEM}, on the key too.`,
      'Field names: `qty` or `quantity`; `arrival_dt` or `due_date` (the same date); `release_dt`, which may be left out when',
      'the row gives `due_date` and then is the due date itself (an order released on the day it is due: it blocks its type',
      'up to that week under firm_orders_block_horizon and never arrives before it is released). Item and sites by id',
      '(`item_id`, `site_id`, `source_site_id`) or by code (`item_xuid`, `site_xuid`, `source_site_xuid`), one of each pair.',
      'On update, fields a row leaves out (or sends null) keep their stored value and `attributes` is merged into the stored',
      'object, as the staging import of firm_orders does; on insert they take the defaults of a create.',
      'Answers `{inserted, updated, errors}`: one error per rejected row (its position from 0, external_id, field and message);',
      'the good rows are written together in one transaction, a rejected row writes nothing. A row repeating the key of an',
      'earlier good row of the same list is rejected. Needs can_run_process or an admin role.',
    ].join(' '),
    body: importBody, audit: { entityType, action: 'import' },
    responses: { 200: { description: 'counts and rejected rows', schema: importResponse }, ...errors(400, 401, 403) },
    handler: async (ctx, { body, user }) => {
      const rows = (Array.isArray(body) ? body : body.rows) as Row[];
      const rejected: ImportError[] = [];
      const reject = (row: number, r: Row, problem: Problem) =>
        rejected.push({ row, external_id: typeof r.external_id === 'string' ? r.external_id : null, ...problem });
      const shaped: Array<{ index: number; row: Row }> = [];
      rows.forEach((row, index) => {
        const check = checkImportRow();
        if (check(row)) shaped.push({ index, row });
        else reject(index, row, schemaProblem(check.errors![0]));
      });
      const counts = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockFirmOrderKeys(tx);
        const refs = await loadRefs(tx, shaped.map((s) => s.row));
        const good: FirmOrderValues[] = [];
        const firstRow = new Map<string, number>();
        for (const { index, row } of shaped) {
          let values: FirmOrderValues;
          try {
            values = readOrder(row, refs);
          } catch (err) {
            if (err instanceof OrderProblem) {
              reject(index, row, err.problem);
              continue;
            }
            throw err;
          }
          if (values.external_id !== null) {
            const key = JSON.stringify([values.external_id, values.source_system]);
            const first = firstRow.get(key);
            if (first !== undefined) {
              reject(index, row, { field: 'external_id', message: `external_id: '${values.external_id}' of source_system '${values.source_system}' repeats row ${first}` });
              continue;
            }
            firstRow.set(key, index);
          }
          good.push(values);
        }
        return upsertFirmOrders(tx, good);
      });
      rejected.sort((a, b) => a.row - b.row);
      setAudit(ctx, { newValue: { rows: rows.length, ...counts, rejected: rejected.length } });
      return { ...counts, errors: rejected };
    },
  });
}
