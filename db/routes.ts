import { sql, type Tx } from './pool';
import type { RecordTable } from './records';

/** Routes (spec §2.4) as a plain record resource; the import writes the same table (one table, one truth). */
export const ROUTE_RECORD: RecordTable = {
  table: 'routes', key: 'id', orderBy: ['id'], touch: 'updated_at',
  columns: {
    id: { type: 'int', writable: false }, item_id: { type: 'int' }, from_site_id: { type: 'int' }, to_site_id: { type: 'int' },
    route_type: { type: 'text' }, lead_time: { type: 'numeric' }, priority: { type: 'int' },
    created_at: { type: 'timestamptz', writable: false }, updated_at: { type: 'timestamptz', writable: false },
  },
};

export interface RouteRow {
  id: number;
  item_id: number | null;
  from_site_id: number;
  to_site_id: number;
  route_type: string;
  lead_time: number;
  priority: number;
}

const ROUTE_COLUMNS = sql.fragment`id, item_id, from_site_id, to_site_id, route_type, lead_time, priority`;

/** Every route of the tenant (a route for every item is in every item's network). */
export async function allRoutes(tx: Tx): Promise<RouteRow[]> {
  return [...(await tx.any(sql.unsafe`SELECT ${ROUTE_COLUMNS} FROM routes ORDER BY id`))] as RouteRow[];
}

/** Another route with the same natural key (item or all, from, to, type), if any. */
export async function findRouteTwin(tx: Tx, r: Pick<RouteRow, 'item_id' | 'from_site_id' | 'to_site_id' | 'route_type'>, exceptId: number): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT id FROM routes
    WHERE COALESCE(item_id, 0) = ${r.item_id ?? 0} AND from_site_id = ${r.from_site_id} AND to_site_id = ${r.to_site_id}
      AND route_type = ${r.route_type} AND id <> ${exceptId}`)) as number | null;
}

export async function missingIds(tx: Tx, table: 'items' | 'sites', ids: readonly number[]): Promise<number[]> {
  if (!ids.length) return [];
  return [...(await tx.anyFirst(sql.unsafe`
    SELECT x FROM unnest(${sql.array(ids, 'int4')}::int4[]) AS x
    WHERE NOT EXISTS (SELECT 1 FROM ${sql.identifier([table])} t WHERE t.id = x) ORDER BY x`))] as number[];
}

/** Site codes and names for messages and the network view. */
export async function siteNames(tx: Tx, ids: readonly number[]): Promise<Map<number, { xuid: string; name: string }>> {
  if (!ids.length) return new Map();
  const rows = (await tx.any(sql.unsafe`SELECT id, xuid, name FROM sites WHERE id = ANY(${sql.array(ids, 'int4')})`)) as ReadonlyArray<{ id: number; xuid: string; name: string }>;
  return new Map(rows.map((r) => [r.id, { xuid: r.xuid, name: r.name }]));
}

/** The routes of the items: their own and those for every item (item_id null), once. */
export async function routesOfItems(tx: Tx, itemIds: readonly number[]): Promise<RouteRow[]> {
  if (!itemIds.length) return [];
  return [...(await tx.any(sql.unsafe`
    SELECT id, item_id, from_site_id, to_site_id, route_type, lead_time::float8 AS lead_time, priority FROM routes
    WHERE item_id = ANY(${sql.array(itemIds, 'int4')}::int4[]) OR item_id IS NULL ORDER BY id`))] as RouteRow[];
}
