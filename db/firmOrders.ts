/**
 * Firm supply orders (document 2 §2.1, §4.1, §4.3 rule 4; docs/SUPPLY.md "Firm orders"): the rows planners and ERP
 * imports write, the reads of the API and the supply step, and the one-time lift of legacy engine rows.
 */
import { FIRM_POOL_STATUSES } from '../domain/allocation/pool';
import { ORDER_TYPES, type FirmOrderInput } from '../domain/supply/types';
import { sql, type Tx } from './pool';

type Fragment = ReturnType<typeof sql.fragment>;
const f = sql.fragment;

/** `source_system` of the rows the legacy migration lifts out of supply_orders; their external_id is `legacy:<order_id>`. */
export const LEGACY_SOURCE_SYSTEM = 'legacy_engine';
/** The statuses an older engine wrote into supply_orders for orders already committed (document 2 §2.2, §4.3 rule 4). */
const LEGACY_STATUSES: readonly string[] = FIRM_POOL_STATUSES;

/** A stored order as the API shows it: the row, the codes and names of its item and sites, and what it adds as supply. */
export interface FirmOrderRow {
  id: number;
  external_id: string | null;
  item_id: number;
  item_xuid: string;
  item_name: string;
  site_id: number;
  site_xuid: string;
  site_name: string;
  source_site_id: number | null;
  source_site_xuid: string | null;
  source_site_name: string | null;
  order_type: string;
  qty: number;
  received_qty: number;
  remaining_qty: number;
  release_dt: string;
  arrival_dt: string;
  route_id: number | null;
  unit_cost: number | null;
  order_cost: number | null;
  total_cost: number | null;
  erp_status: string;
  counts_as_supply: boolean;
  expiry_date: string | null;
  attributes: Record<string, unknown>;
  source_system: string;
  created_at: string;
  updated_at: string;
}

const statuses = () => sql.array([...FIRM_POOL_STATUSES], 'text');

const ROW_COLUMNS = f`
  o.id, o.external_id, o.item_id, i.xuid AS item_xuid, i.name AS item_name, o.site_id, s.xuid AS site_xuid, s.name AS site_name,
  o.source_site_id, ss.xuid AS source_site_xuid, ss.name AS source_site_name, o.order_type, o.qty, o.received_qty,
  GREATEST(o.qty - COALESCE(o.received_qty, 0), 0) AS remaining_qty, o.release_dt, o.arrival_dt, o.route_id,
  o.unit_cost, o.order_cost, o.total_cost, o.erp_status, COALESCE(o.erp_status = ANY(${statuses()}), false) AS counts_as_supply,
  o.expiry_date, o.attributes, o.source_system, o.created_at, o.updated_at`;

const FROM = f`firm_orders o JOIN items i ON i.id = o.item_id JOIN sites s ON s.id = o.site_id LEFT JOIN sites ss ON ss.id = o.source_site_id`;

/** A date range, both ends inclusive; `wholeDay`: `until` is a day's midnight and the range takes in that whole day. */
export interface Range {
  from?: string;
  until?: string;
  wholeDay?: boolean;
}

export interface FirmOrderFilter {
  item_id?: number;
  site_id?: number;
  source_site_id?: number;
  order_type?: string;
  erp_status?: string;
  source_system?: string;
  external_id?: string;
  counts_as_supply?: boolean;
  release?: Range;
  arrival?: Range;
  /** Case-insensitive substring of the external id, source system, or the code or name of the item or a site. */
  search?: string;
}

export const FIRM_ORDER_SORTS = [
  'id', 'external_id', 'item_id', 'item_xuid', 'site_id', 'site_xuid', 'order_type', 'qty', 'remaining_qty', 'release_dt', 'arrival_dt',
  'erp_status', 'source_system', 'created_at', 'updated_at',
] as const;
export type FirmOrderSort = (typeof FIRM_ORDER_SORTS)[number];

const SORT_COLUMN: Record<FirmOrderSort, Fragment> = {
  id: f`o.id`, external_id: f`o.external_id`, item_id: f`o.item_id`, item_xuid: f`i.xuid`, site_id: f`o.site_id`, site_xuid: f`s.xuid`,
  order_type: f`o.order_type`, qty: f`o.qty`, remaining_qty: f`GREATEST(o.qty - COALESCE(o.received_qty, 0), 0)`, release_dt: f`o.release_dt`,
  arrival_dt: f`o.arrival_dt`, erp_status: f`o.erp_status`, source_system: f`o.source_system`, created_at: f`o.created_at`, updated_at: f`o.updated_at`,
};

export interface FirmOrderPage {
  skip: number;
  limit: number;
  /** default: arrival_dt; the id breaks ties, ascending */
  sort?: FirmOrderSort;
  order?: 'asc' | 'desc';
}

function rangeConditions(column: Fragment, r: Range | undefined): Fragment[] {
  if (!r) return [];
  const out: Fragment[] = [];
  if (r.from !== undefined) out.push(f`${column} >= ${r.from}::timestamptz`);
  if (r.until !== undefined) out.push(r.wholeDay ? f`${column} < ${r.until}::timestamptz + interval '1 day'` : f`${column} <= ${r.until}::timestamptz`);
  return out;
}

function whereOf(q: FirmOrderFilter): Fragment {
  const parts: Fragment[] = [];
  if (q.item_id !== undefined) parts.push(f`o.item_id = ${q.item_id}`);
  if (q.site_id !== undefined) parts.push(f`o.site_id = ${q.site_id}`);
  if (q.source_site_id !== undefined) parts.push(f`o.source_site_id = ${q.source_site_id}`);
  if (q.order_type !== undefined) parts.push(f`o.order_type = ${q.order_type}`);
  if (q.erp_status !== undefined) parts.push(f`o.erp_status = ${q.erp_status}`);
  if (q.source_system !== undefined) parts.push(f`o.source_system = ${q.source_system}`);
  if (q.external_id !== undefined) parts.push(f`o.external_id = ${q.external_id}`);
  if (q.counts_as_supply !== undefined) parts.push(f`COALESCE(o.erp_status = ANY(${statuses()}), false) = ${q.counts_as_supply}`);
  parts.push(...rangeConditions(f`o.release_dt`, q.release), ...rangeConditions(f`o.arrival_dt`, q.arrival));
  if (q.search !== undefined && q.search !== '') {
    // the text is a literal: % and _ typed by the planner match themselves
    const p = `%${q.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    parts.push(f`(o.external_id ILIKE ${p} OR o.source_system ILIKE ${p} OR i.xuid ILIKE ${p} OR i.name ILIKE ${p}
      OR s.xuid ILIKE ${p} OR s.name ILIKE ${p} OR ss.xuid ILIKE ${p} OR ss.name ILIKE ${p})`);
  }
  return parts.length ? f`WHERE ${sql.join(parts, f` AND `)}` : f``;
}

export async function listFirmOrders(tx: Tx, q: FirmOrderFilter, page: FirmOrderPage): Promise<{ rows: FirmOrderRow[]; total: number }> {
  const where = whereOf(q);
  const dir = page.order === 'desc' ? f`DESC` : f`ASC`;
  const sort = page.sort ?? 'arrival_dt';
  const order = sort === 'id' ? f`o.id ${dir}` : f`${SORT_COLUMN[sort]} ${dir} NULLS LAST, o.id ASC`;
  const rows = await tx.any(sql.unsafe`SELECT ${ROW_COLUMNS} FROM ${FROM} ${where} ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.skip}`);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${FROM} ${where}`)) as number;
  return { rows: [...rows] as FirmOrderRow[], total };
}

export async function getFirmOrder(tx: Tx, id: number): Promise<FirmOrderRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${ROW_COLUMNS} FROM ${FROM} WHERE o.id = ${id}`)) as FirmOrderRow | null;
}

/**
 * Serialises the writers that check (external_id, source_system) before writing it (create, import), so two of them
 * cannot both find a key free. Updates never change the key and do not take it.
 */
export async function lockFirmOrderKeys(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('firm_orders'))`);
}

/** The order holding (external_id, source_system), if any. */
export async function firmOrderIdByKey(tx: Tx, externalId: string, sourceSystem: string): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT id FROM firm_orders WHERE external_id = ${externalId} AND source_system = ${sourceSystem}`)) as number | null;
}

/** Which of the ids exist in items, sites or routes. */
export async function existingIds(tx: Tx, table: 'items' | 'sites' | 'routes', ids: readonly number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await tx.anyFirst(sql.unsafe`
    SELECT id FROM ${sql.identifier([table])} WHERE id = ANY(${sql.array([...new Set(ids)], 'int4')})`);
  return new Set(rows as readonly number[]);
}

/** Ids of the items or sites with these external codes (exact match). */
export async function idsOfCodes(tx: Tx, table: 'items' | 'sites', codes: readonly string[]): Promise<Map<string, number>> {
  if (!codes.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT xuid, id FROM ${sql.identifier([table])} WHERE xuid = ANY(${sql.array([...new Set(codes)], 'text')})`)) as ReadonlyArray<{ xuid: string; id: number }>;
  return new Map(rows.map((r) => [r.xuid, r.id]));
}

/**
 * The values of one order to write. On insert a null erp_status, received_qty or attributes takes the column's default
 * (firm, 0, {}); on an import's update every null optional field keeps the stored value and attributes are merged.
 */
export interface FirmOrderValues {
  external_id: string | null;
  item_id: number;
  site_id: number;
  source_site_id: number | null;
  /** upper case, one of ORDER_TYPES */
  order_type: string;
  qty: number;
  /** ISO 8601 instants */
  release_dt: string;
  arrival_dt: string;
  route_id: number | null;
  unit_cost: number | null;
  order_cost: number | null;
  total_cost: number | null;
  /** lower case */
  erp_status: string | null;
  received_qty: number | null;
  /** YYYY-MM-DD */
  expiry_date: string | null;
  attributes: Record<string, unknown> | null;
  source_system: string;
}

const WRITE_COLUMNS: ReadonlyArray<[keyof FirmOrderValues, string]> = [
  ['external_id', 'text'], ['item_id', 'int4'], ['site_id', 'int4'], ['source_site_id', 'int4'], ['order_type', 'text'], ['qty', 'numeric'],
  ['release_dt', 'timestamptz'], ['arrival_dt', 'timestamptz'], ['route_id', 'int4'], ['unit_cost', 'numeric'], ['order_cost', 'numeric'],
  ['total_cost', 'numeric'], ['erp_status', 'text'], ['received_qty', 'numeric'], ['expiry_date', 'date'], ['attributes', 'jsonb'],
  ['source_system', 'text'],
];

/** Columns an import's update leaves alone when the row does not give them. */
const KEPT_WHEN_NULL = new Set<keyof FirmOrderValues>(['source_site_id', 'route_id', 'unit_cost', 'order_cost', 'total_cost', 'erp_status', 'received_qty', 'expiry_date']);
const DEFAULT_WHEN_NULL: Partial<Record<keyof FirmOrderValues, Fragment>> = { erp_status: f`'firm'`, received_qty: f`0`, attributes: f`'{}'::jsonb` };

const ident = (name: string) => sql.identifier([name]);
const u = (name: string) => sql.identifier(['u', name]);
const comma = f`, `;

function source(rows: readonly FirmOrderValues[]): Fragment {
  const cell = (r: FirmOrderValues, c: keyof FirmOrderValues): string | number | null =>
    c === 'attributes' ? (r.attributes === null ? null : JSON.stringify(r.attributes)) : (r[c] as string | number | null);
  const tuples = rows.map((r, k) => [k, ...WRITE_COLUMNS.map(([c]) => cell(r, c))]);
  const names = sql.join([ident('ord'), ...WRITE_COLUMNS.map(([c]) => ident(c))], comma);
  return f`${sql.unnest(tuples, ['int4', ...WRITE_COLUMNS.map(([, type]) => type)])} AS u(${names})`;
}

async function insertRows(tx: Tx, rows: readonly FirmOrderValues[], onlyNew: boolean): Promise<number[]> {
  if (!rows.length) return [];
  const cols = sql.join(WRITE_COLUMNS.map(([c]) => ident(c)), comma);
  const vals = sql.join(WRITE_COLUMNS.map(([c]) => (DEFAULT_WHEN_NULL[c] ? f`COALESCE(${u(c)}, ${DEFAULT_WHEN_NULL[c]!})` : u(c))), comma);
  const fresh = onlyNew
    ? f`WHERE NOT EXISTS (SELECT 1 FROM firm_orders t WHERE t.external_id = u.external_id AND t.source_system = u.source_system)`
    : f``;
  const ids = await tx.anyFirst(sql.unsafe`INSERT INTO firm_orders (${cols}) SELECT ${vals} FROM ${source(rows)} ${fresh} ORDER BY u.ord RETURNING id`);
  return [...(ids as readonly number[])];
}

/** Inserts one order (the caller has checked its key is free); returns its id. */
export async function insertFirmOrder(tx: Tx, v: FirmOrderValues): Promise<number> {
  return (await insertRows(tx, [v], false))[0];
}

/**
 * Upsert on (external_id, source_system), in the caller's transaction and after lockFirmOrderKeys. The caller has
 * validated the rows and removed repeated keys. A row without external_id is always a new order.
 */
export async function upsertFirmOrders(tx: Tx, rows: readonly FirmOrderValues[]): Promise<{ inserted: number; updated: number }> {
  if (!rows.length) return { inserted: 0, updated: 0 };
  const sets = WRITE_COLUMNS.filter(([c]) => c !== 'external_id' && c !== 'source_system').map(([c]) => {
    if (c === 'attributes') return f`attributes = t.attributes || COALESCE(u.attributes, '{}'::jsonb)`;
    if (KEPT_WHEN_NULL.has(c)) return f`${ident(c)} = COALESCE(${u(c)}, ${sql.identifier(['t', c])})`;
    return f`${ident(c)} = ${u(c)}`;
  });
  const updated = (await tx.query(sql.unsafe`
    UPDATE firm_orders t SET ${sql.join(sets, comma)}, updated_at = now()
    FROM ${source(rows)}
    WHERE u.external_id IS NOT NULL AND t.external_id = u.external_id AND t.source_system = u.source_system`)).rowCount;
  const inserted = (await insertRows(tx, rows, true)).length;
  return { inserted, updated };
}

/** The fields of §2.1's update body; undefined leaves a field as it is, expiry_date null clears it. */
export interface FirmOrderChanges {
  qty?: number;
  arrival_dt?: string;
  release_dt?: string;
  erp_status?: string;
  received_qty?: number;
  expiry_date?: string | null;
  attributes?: Record<string, unknown>;
}

const CHANGE_TYPES: Record<keyof FirmOrderChanges, Fragment> = {
  qty: f`numeric`, arrival_dt: f`timestamptz`, release_dt: f`timestamptz`, erp_status: f`text`, received_qty: f`numeric`, expiry_date: f`date`, attributes: f`jsonb`,
};

/** False when the order does not exist. */
export async function updateFirmOrder(tx: Tx, id: number, changes: FirmOrderChanges): Promise<boolean> {
  const sets = (Object.keys(CHANGE_TYPES) as Array<keyof FirmOrderChanges>)
    .filter((k) => changes[k] !== undefined)
    .map((k) => {
      const v = changes[k];
      const value = k === 'attributes' ? JSON.stringify(v) : (v as string | number | null);
      return f`${ident(k)} = ${value}::${CHANGE_TYPES[k]}`;
    });
  const r = await tx.query(sql.unsafe`UPDATE firm_orders SET ${sql.join([...sets, f`updated_at = now()`], comma)} WHERE id = ${id}`);
  return r.rowCount > 0;
}

/** Locks the order's row for a read-check-write (an update checks arrival against the stored release); false when absent. */
export async function lockFirmOrder(tx: Tx, id: number): Promise<boolean> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM firm_orders WHERE id = ${id} FOR UPDATE`)) !== null;
}

export async function deleteFirmOrder(tx: Tx, id: number): Promise<boolean> {
  return (await tx.query(sql.unsafe`DELETE FROM firm_orders WHERE id = ${id}`)).rowCount > 0;
}

/**
 * The firm orders of the items, every erp_status (the engine decides what counts), per item id: every id asked for
 * has an entry, empty when the item has no order. Ordered by arrival, then id, so a run is deterministic.
 */
export async function firmOrdersOfItems(tx: Tx, itemIds: readonly number[]): Promise<Map<number, FirmOrderInput[]>> {
  const out = new Map<number, FirmOrderInput[]>(itemIds.map((id) => [id, []]));
  if (!itemIds.length) return out;
  const rows = (await tx.any(sql.unsafe`
    SELECT id, item_id, site_id, source_site_id, order_type, qty, received_qty, erp_status, release_dt, arrival_dt
    FROM firm_orders WHERE item_id = ANY(${sql.array([...new Set(itemIds)], 'int4')})
    ORDER BY item_id, arrival_dt, id`)) as ReadonlyArray<FirmOrderInput & { item_id: number }>;
  for (const { item_id, ...order } of rows) out.get(item_id)!.push(order);
  return out;
}

/**
 * Document 2 §4.3 rule 4, once per tenant: while firm_orders is empty, the rows of supply_orders an older engine wrote
 * with status firm, released or in_transit become firm orders. Week w becomes the date anchor + 7·w days (UTC
 * midnight), the anchor being the start date of the earliest completed supply run, else today; external_id
 * `legacy:<order_id>`, source_system `legacy_engine`, the original run, ids, weeks and anchor in attributes.legacy.
 * The lifted rows leave supply_orders (their pegging with them): from then on the firm order is the one record of
 * the commitment, and §2.2 says engine output no longer carries these statuses, so results never list it twice.
 * The first call records its outcome in firm_orders_legacy_migration, whatever it found; every later call returns 0.
 */
export async function migrateLegacyFirmOrders(tx: Tx): Promise<{ migrated: number }> {
  if (await tx.oneFirst(sql.unsafe`SELECT EXISTS (SELECT 1 FROM firm_orders_legacy_migration)`)) return { migrated: 0 };
  // a second run starting at the same moment waits here for the first one's transaction, then finds the row
  const claimed = await tx.maybeOneFirst(sql.unsafe`
    INSERT INTO firm_orders_legacy_migration (outcome) VALUES ('skipped') ON CONFLICT DO NOTHING RETURNING singleton`);
  if (claimed === null) return { migrated: 0 };
  // rule 4 lifts only into an empty table: orders already there came from the ERP and may be the same commitments
  const legacy = sql.array([...LEGACY_STATUSES], 'text');
  const legacyLeft = async () => (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_orders WHERE lower(status) = ANY(${legacy})`)) as number;
  if (await tx.oneFirst(sql.unsafe`SELECT EXISTS (SELECT 1 FROM firm_orders)`)) {
    await tx.query(sql.unsafe`UPDATE firm_orders_legacy_migration SET not_lifted = ${await legacyLeft()}`);
    return { migrated: 0 };
  }

  const anchor = (await tx.oneFirst(sql.unsafe`
    SELECT COALESCE((min(started_at) FILTER (WHERE status = 'completed') AT TIME ZONE 'UTC')::date, (now() AT TIME ZONE 'UTC')::date)
    FROM supply_runs`)) as string;
  // An engine called a replenishment by its route type; rows that still are no order type, or carry no quantity,
  // cannot be firm orders (the table's checks) and stay where they are, counted in not_lifted.
  const lifted = (await tx.anyFirst(sql.unsafe`
    INSERT INTO firm_orders (external_id, item_id, site_id, source_site_id, order_type, qty, release_dt, arrival_dt, route_id, unit_cost,
                             erp_status, received_qty, attributes, source_system)
    SELECT 'legacy:' || o.order_id, o.item_id, o.site_id, (SELECT id FROM sites WHERE id = o.source_site_id), l.order_type, o.qty,
           (${anchor}::date + 7 * o.release_week)::timestamp AT TIME ZONE 'UTC',
           (${anchor}::date + 7 * GREATEST(o.arrival_week, o.release_week))::timestamp AT TIME ZONE 'UTC',
           o.route_id, o.unit_cost, lower(o.status), 0,
           jsonb_build_object('legacy', jsonb_build_object(
             'order_id', o.order_id, 'run_id', o.run_id, 'engine_order_id', o.engine_order_id, 'pipeline_id', o.pipeline_id,
             'scenario_id', o.scenario_id, 'kind', o.kind, 'status', o.status, 'release_week', o.release_week,
             'arrival_week', o.arrival_week, 'anchor_date', ${anchor}::date)),
           ${LEGACY_SOURCE_SYSTEM}
    FROM supply_orders o
    CROSS JOIN LATERAL (SELECT CASE upper(o.order_type) WHEN 'REPLENISHMENT' THEN 'REPLENISH' ELSE upper(o.order_type) END AS order_type) l
    WHERE lower(o.status) = ANY(${legacy}) AND o.qty > 0 AND l.order_type = ANY(${sql.array([...ORDER_TYPES], 'text')})
    ORDER BY o.order_id
    ON CONFLICT (external_id, source_system) DO NOTHING
    RETURNING substr(external_id, 8)::int8`)) as readonly number[];
  if (lifted.length) await tx.query(sql.unsafe`DELETE FROM supply_orders WHERE order_id = ANY(${sql.array([...lifted], 'int8')})`);
  await tx.query(sql.unsafe`
    UPDATE firm_orders_legacy_migration SET outcome = 'migrated', anchor_date = ${anchor}::date, migrated = ${lifted.length}, not_lifted = ${await legacyLeft()}`);
  return { migrated: lifted.length };
}
