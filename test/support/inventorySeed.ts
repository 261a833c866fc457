/**
 * A small network for the inventory tests: supplier SUP → DC (BUY, 4 weeks) → stores S1, S2 (REPLENISHMENT, 1 week),
 * item X sold at both stores (Poisson 3 and 2 a week, fitted for pipeline 0), unit cost 10; item Y sold at S1 only
 * with no fitted distribution.
 */
import { sql, withTenant, type Db } from '../../db/pool';

export interface InventorySeed {
  sites: Record<'SUP' | 'DC' | 'S1' | 'S2', number>;
  items: Record<'X' | 'Y', number>;
  routes: Record<'SUP_DC' | 'DC_S1' | 'DC_S2', number>;
}

const WEEKS = 20;

export async function seedInventory(db: Db, accountId: string): Promise<InventorySeed> {
  return withTenant(db, accountId, async (tx) => {
    const site = async (xuid: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${xuid}, ${`Site ${xuid}`}) RETURNING id`)) as number;
    const item = async (xuid: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name, avg_unit_cost) VALUES (${xuid}, ${`Item ${xuid}`}, 10) RETURNING id`)) as number;
    const sites = { SUP: await site('SUP'), DC: await site('DC'), S1: await site('S1'), S2: await site('S2') };
    const items = { X: await item('X'), Y: await item('Y') };
    const route = async (from: number, to: number, type: string, lead: number) =>
      (await tx.oneFirst(sql.unsafe`INSERT INTO routes (item_id, from_site_id, to_site_id, route_type, lead_time, priority) VALUES (NULL, ${from}, ${to}, ${type}, ${lead}, 1) RETURNING id`)) as number;
    const routes = { SUP_DC: await route(sites.SUP, sites.DC, 'BUY', 4), DC_S1: await route(sites.DC, sites.S1, 'REPLENISHMENT', 1), DC_S2: await route(sites.DC, sites.S2, 'REPLENISHMENT', 1) };
    for (const [itemId, siteId, lambda] of [[items.X, sites.S1, 3], [items.X, sites.S2, 2], [items.Y, sites.S1, 0]] as const) {
      await tx.query(sql.unsafe`
        INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${itemId}, ${siteId}, ${WEEKS}, '2026-01-05', ${'2026-05-18'})`);
      await tx.query(sql.unsafe`
        INSERT INTO series_weekly (item_id, site_id, week, y, factor)
        SELECT ${itemId}, ${siteId}, (date '2026-01-05' + 7 * w)::date, GREATEST(0, ${lambda} + (w % 3) - 1), 1 FROM generate_series(0, ${WEEKS - 1}) w`);
      await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id, unit_cost, on_hand) VALUES (${itemId}, ${siteId}, 10, ${5 * lambda})`);
      if (lambda > 0) {
        await tx.query(sql.unsafe`
          INSERT INTO series_distributions (pipeline_id, item_id, site_id, distribution_type, mean, std, params, ks_statistic, ks_pvalue, basis, n)
          VALUES (0, ${itemId}, ${siteId}, 'poisson', ${lambda}, ${Math.sqrt(lambda)}, ${sql.jsonb({ lambda })}, 0.1, 0.9, 'weekly', ${WEEKS})`);
      }
    }
    return { sites, items, routes };
  });
}
