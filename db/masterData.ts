import { sql, withTenant, type Db } from './pool';

/** What the API keeps in memory per tenant: master data and the series index, read once and served from memory. */
export interface TenantData {
  items: Map<number, Record<string, unknown>>;
  sites: Map<number, Record<string, unknown>>;
  series: Array<{ item_id: number; site_id: number }>;
  loadedAt: string;
}

/** Reads everything the API's data cache holds for one tenant. */
export async function loadTenantData(db: Db, accountId: string): Promise<TenantData> {
  return withTenant(db, accountId, async (tx) => {
    const items = (await tx.any(sql.unsafe`SELECT id, xuid, name, image_url, attributes, avg_unit_cost, unit_price FROM items ORDER BY id`)) as Array<Record<string, unknown> & { id: number }>;
    const sites = (await tx.any(sql.unsafe`SELECT id, xuid, name, attributes FROM sites ORDER BY id`)) as Array<Record<string, unknown> & { id: number }>;
    const series = (await tx.any(sql.unsafe`SELECT item_id, site_id FROM series ORDER BY item_id, site_id`)) as Array<{ item_id: number; site_id: number }>;
    return {
      items: new Map(items.map((r) => [r.id, r])),
      sites: new Map(sites.map((r) => [r.id, r])),
      series: [...series],
      loadedAt: new Date().toISOString(),
    };
  });
}
