/**
 * A repair network for the METRIC tests: supplier SUP sells new units to the DEPOT (BUY, 6 weeks), which ships to bases
 * B1, B2, B3 in a week (routes for every item). For item R, a repairable at 1,000 a unit, B1 and B2 return failed units
 * to the depot (RETURN, 1 week), the depot sends them to a repair SHOP (REPAIR, 2 weeks with the repair) and the shop
 * sends them back (TRANSFER, 1 week, second choice after the supplier): a 4-week loop into the depot's stock. B3 has
 * no return, so its failures are bought anew. R fails 0.5, 0.3 and 0.2 times a week at B1, B2, B3 (Poisson, fitted for
 * pipeline 0). Item C, a consumable at 10, sells 4 a week at B1 and has no reverse route.
 */
import { sql, withTenant, type Db } from '../../db/pool';

export interface RepairSeed {
  sites: Record<'SUP' | 'DEPOT' | 'B1' | 'B2' | 'B3' | 'SHOP', number>;
  items: Record<'R' | 'C', number>;
}

export const REPAIR_SEED_DEMAND = { B1: 0.5, B2: 0.3, B3: 0.2 } as const;

const WEEKS = 26;

export async function seedRepairNetwork(db: Db, accountId: string): Promise<RepairSeed> {
  return withTenant(db, accountId, async (tx) => {
    const site = async (xuid: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${xuid}, ${`Site ${xuid}`}) RETURNING id`)) as number;
    const item = async (xuid: string, cost: number) =>
      (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name, avg_unit_cost) VALUES (${xuid}, ${`Item ${xuid}`}, ${cost}) RETURNING id`)) as number;
    const sites = { SUP: await site('SUP'), DEPOT: await site('DEPOT'), B1: await site('B1'), B2: await site('B2'), B3: await site('B3'), SHOP: await site('SHOP') };
    const items = { R: await item('R', 1000), C: await item('C', 10) };
    const route = async (itemId: number | null, from: number, to: number, type: string, lead: number, priority = 1) =>
      tx.query(sql.unsafe`INSERT INTO routes (item_id, from_site_id, to_site_id, route_type, lead_time, priority) VALUES (${itemId}, ${from}, ${to}, ${type}, ${lead}, ${priority})`);
    await route(null, sites.SUP, sites.DEPOT, 'BUY', 6);
    for (const b of [sites.B1, sites.B2, sites.B3]) await route(null, sites.DEPOT, b, 'REPLENISHMENT', 1);
    await route(items.R, sites.B1, sites.DEPOT, 'RETURN', 1);
    await route(items.R, sites.B2, sites.DEPOT, 'RETURN', 1);
    await route(items.R, sites.DEPOT, sites.SHOP, 'REPAIR', 2);
    await route(items.R, sites.SHOP, sites.DEPOT, 'TRANSFER', 1, 2);

    const series: Array<[number, number, number, number]> = [
      [items.R, sites.B1, REPAIR_SEED_DEMAND.B1, 1000], [items.R, sites.B2, REPAIR_SEED_DEMAND.B2, 1000], [items.R, sites.B3, REPAIR_SEED_DEMAND.B3, 1000],
      [items.C, sites.B1, 4, 10],
    ];
    for (const [itemId, siteId, lambda, cost] of series) {
      await tx.query(sql.unsafe`
        INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${itemId}, ${siteId}, ${WEEKS}, '2026-01-05', '2026-06-29')`);
      // a weekly history whose mean is the rate (what the fitted distribution below says)
      await tx.query(sql.unsafe`
        INSERT INTO series_weekly (item_id, site_id, week, y, factor)
        SELECT ${itemId}, ${siteId}, (date '2026-01-05' + 7 * w)::date, CASE WHEN w % 10 < ${Math.round(lambda * 10)} THEN 1 ELSE 0 END * ${Math.max(1, Math.round(lambda))}, 1
        FROM generate_series(0, ${WEEKS - 1}) w`);
      await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id, unit_cost, on_hand) VALUES (${itemId}, ${siteId}, ${cost}, 1)`);
      await tx.query(sql.unsafe`
        INSERT INTO series_distributions (pipeline_id, item_id, site_id, distribution_type, mean, std, params, ks_statistic, ks_pvalue, basis, n)
        VALUES (0, ${itemId}, ${siteId}, 'poisson', ${lambda}, ${Math.sqrt(lambda)}, ${sql.jsonb({ lambda })}, 0.1, 0.9, 'weekly', ${WEEKS})`);
    }
    return { sites, items };
  });
}
