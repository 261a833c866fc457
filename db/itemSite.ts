/**
 * Item-site master data (migration 003) as GET/PUT /api/supply/item-site edit it: per item and site the unit cost,
 * lead time, on-hand stock, safety stock and ordering rules the supply step reads. The import writes the same table
 * (db/masterDataWrite.ts).
 */
import type { Fragment } from './segments';
import { sql, type Tx } from './pool';

export interface ItemSiteRow {
  item_id: number;
  item_code: string;
  item_name: string;
  site_id: number;
  site_code: string;
  site_name: string;
  unit_cost: number | null;
  lead_time_weeks: number | null;
  on_hand: number;
  safety_stock: number;
  moq: number;
  order_multiple: number;
  updated_at: string;
}

export interface ItemSiteQuery {
  item_id?: number;
  site_id?: number;
  /** part of the item or site code, ignoring case */
  search?: string;
  skip: number;
  limit: number;
  /** a condition on x.item_id, x.site_id: the series the caller may see (db/segments.ts seriesScope) */
  scope: Fragment | null;
}

const ROW = sql.fragment`x.item_id, i.xuid AS item_code, i.name AS item_name, x.site_id, s.xuid AS site_code, s.name AS site_name,
  x.unit_cost::float8 AS unit_cost, x.lead_time_weeks::float8 AS lead_time_weeks, x.on_hand::float8 AS on_hand,
  x.safety_stock::float8 AS safety_stock, x.moq::float8 AS moq, x.order_multiple::float8 AS order_multiple, x.updated_at`;

const FROM = sql.fragment`item_site x JOIN items i ON i.id = x.item_id JOIN sites s ON s.id = x.site_id`;

export async function listItemSites(tx: Tx, q: ItemSiteQuery): Promise<{ rows: ItemSiteRow[]; total: number }> {
  const parts = [q.scope ?? sql.fragment`TRUE`];
  if (q.item_id !== undefined) parts.push(sql.fragment`x.item_id = ${q.item_id}`);
  if (q.site_id !== undefined) parts.push(sql.fragment`x.site_id = ${q.site_id}`);
  if (q.search !== undefined && q.search !== '') {
    // a literal: % and _ typed by the user match themselves
    const like = `%${q.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    parts.push(sql.fragment`(i.xuid ILIKE ${like} OR s.xuid ILIKE ${like})`);
  }
  const where = sql.join(parts, sql.fragment` AND `);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${FROM} WHERE ${where}`)) as number;
  const rows = (await tx.any(sql.unsafe`
    SELECT ${ROW} FROM ${FROM} WHERE ${where} ORDER BY x.item_id, x.site_id LIMIT ${q.limit} OFFSET ${q.skip}`)) as ItemSiteRow[];
  return { rows: [...rows], total };
}

export async function getItemSite(tx: Tx, itemId: number, siteId: number): Promise<ItemSiteRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${ROW} FROM ${FROM} WHERE x.item_id = ${itemId} AND x.site_id = ${siteId}`)) as ItemSiteRow | null;
}

export interface ItemSiteWrite {
  unit_cost?: number | null;
  lead_time_weeks?: number | null;
  on_hand?: number;
  safety_stock?: number;
  moq?: number;
  order_multiple?: number;
}

export const ITEM_SITE_FIELDS = ['unit_cost', 'lead_time_weeks', 'on_hand', 'safety_stock', 'moq', 'order_multiple'] as const;

/**
 * Inserts the row (fields not given take the table's defaults) or changes only the fields given; the row afterwards.
 * The item and site must exist.
 */
export async function upsertItemSite(tx: Tx, itemId: number, siteId: number, w: ItemSiteWrite): Promise<ItemSiteRow> {
  const given = ITEM_SITE_FIELDS.filter((f) => w[f] !== undefined);
  const cols = given.map((f) => sql.identifier([f]));
  const vals = given.map((f) => sql.fragment`${w[f] ?? null}::numeric`);
  const sets = [...given.map((f) => sql.fragment`${sql.identifier([f])} = EXCLUDED.${sql.identifier([f])}`), sql.fragment`updated_at = now()`];
  await tx.query(sql.unsafe`
    INSERT INTO item_site (item_id, site_id${given.length ? sql.fragment`, ${sql.join(cols, sql.fragment`, `)}` : sql.fragment``})
    VALUES (${itemId}, ${siteId}${given.length ? sql.fragment`, ${sql.join(vals, sql.fragment`, `)}` : sql.fragment``})
    ON CONFLICT (item_id, site_id) DO UPDATE SET ${sql.join(sets, sql.fragment`, `)}`);
  return (await getItemSite(tx, itemId, siteId))!;
}

/** Whether the item and the site exist. */
export async function itemAndSiteExist(tx: Tx, itemId: number, siteId: number): Promise<{ item: boolean; site: boolean }> {
  return (await tx.one(sql.unsafe`
    SELECT EXISTS (SELECT 1 FROM items WHERE id = ${itemId}) AS item, EXISTS (SELECT 1 FROM sites WHERE id = ${siteId}) AS site`)) as { item: boolean; site: boolean };
}
