/** Master data reads (items, sites) and the item image. */
import { sql, type Tx } from './pool';
import type { Fragment } from './segments';

export interface ItemRow {
  id: number;
  xuid: string;
  name: string;
  image_url: string | null;
  attributes: Record<string, unknown>;
  avg_unit_cost: number;
  unit_price: number;
  series_count: number;
  updated_at: string | null;
}

export interface SiteRow {
  id: number;
  xuid: string;
  name: string;
  site_type: string | null;
  attributes: Record<string, unknown>;
  series_count: number;
  updated_at: string | null;
}

export interface MasterQuery {
  skip: number;
  limit: number;
  search?: string;
  /** the user's series scope on alias `s`; null when unrestricted (then every item or site is listed) */
  scope: Fragment | null;
}

const searchOf = (q: MasterQuery, alias: string) => {
  const term = q.search?.trim();
  if (!term) return sql.fragment`TRUE`;
  const a = sql.identifier([alias]);
  return sql.fragment`(strpos(lower(${a}.xuid), lower(${term})) > 0 OR strpos(lower(${a}.name), lower(${term})) > 0)`;
};

export async function listItems(tx: Tx, q: MasterQuery): Promise<{ rows: ItemRow[]; total: number }> {
  const visible = q.scope ? sql.fragment`EXISTS (SELECT 1 FROM series s WHERE s.item_id = i.id AND ${q.scope})` : sql.fragment`TRUE`;
  const where = sql.fragment`${searchOf(q, 'i')} AND ${visible}`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM items i WHERE ${where}`)) as number;
  const rows = (await tx.any(sql.unsafe`
    SELECT i.id, i.xuid, i.name, i.image_url, i.attributes, i.avg_unit_cost::float8 AS avg_unit_cost, i.unit_price::float8 AS unit_price,
      (SELECT count(*)::int FROM series s WHERE s.item_id = i.id AND ${q.scope ?? sql.fragment`TRUE`}) AS series_count, i.updated_at
    FROM items i WHERE ${where} ORDER BY i.id LIMIT ${q.limit} OFFSET ${q.skip}`)) as ItemRow[];
  return { rows: [...rows], total };
}

export async function listSites(tx: Tx, q: MasterQuery): Promise<{ rows: SiteRow[]; total: number }> {
  const visible = q.scope ? sql.fragment`EXISTS (SELECT 1 FROM series s WHERE s.site_id = st.id AND ${q.scope})` : sql.fragment`TRUE`;
  const where = sql.fragment`${searchOf(q, 'st')} AND ${visible}`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM sites st WHERE ${where}`)) as number;
  const rows = (await tx.any(sql.unsafe`
    SELECT st.id, st.xuid, st.name, st.site_type, st.attributes,
      (SELECT count(*)::int FROM series s WHERE s.site_id = st.id AND ${q.scope ?? sql.fragment`TRUE`}) AS series_count, st.updated_at
    FROM sites st WHERE ${where} ORDER BY st.id LIMIT ${q.limit} OFFSET ${q.skip}`)) as SiteRow[];
  return { rows: [...rows], total };
}

export async function getItem(tx: Tx, id: number): Promise<ItemRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT i.id, i.xuid, i.name, i.image_url, i.attributes, i.avg_unit_cost::float8 AS avg_unit_cost, i.unit_price::float8 AS unit_price,
      (SELECT count(*)::int FROM series s WHERE s.item_id = i.id) AS series_count, i.updated_at
    FROM items i WHERE i.id = ${id}`)) as ItemRow | null;
}

export async function setItemImage(tx: Tx, id: number, imageUrl: string | null): Promise<boolean> {
  return (await tx.query(sql.unsafe`UPDATE items SET image_url = ${imageUrl}, updated_at = now() WHERE id = ${id}`)).rowCount > 0;
}
