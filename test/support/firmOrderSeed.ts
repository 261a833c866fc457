/**
 * Master data for the firm-order tests: items X and Y, a supplier SUP, a DC and a store S1, a BUY route SUP → DC; and
 * rows of an older engine in supply_runs / supply_orders for the legacy migration (document 2 §4.3 rule 4).
 */
import { sql, withTenant, type Db } from '../../db/pool';

export interface FirmOrderSeed {
  items: Record<'X' | 'Y', number>;
  sites: Record<'SUP' | 'DC' | 'S1', number>;
  route: number;
}

export async function seedFirmOrderNetwork(db: Db, accountId: string): Promise<FirmOrderSeed> {
  return withTenant(db, accountId, async (tx) => {
    const item = async (xuid: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${xuid}, ${`Item ${xuid}`}) RETURNING id`)) as number;
    const site = async (xuid: string, name: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${xuid}, ${name}) RETURNING id`)) as number;
    const items = { X: await item('X'), Y: await item('Y') };
    const sites = { SUP: await site('SUP', 'Supplier'), DC: await site('DC', 'Central DC'), S1: await site('S1', 'Store 1') };
    const route = (await tx.oneFirst(sql.unsafe`
      INSERT INTO routes (item_id, from_site_id, to_site_id, route_type, lead_time, priority) VALUES (NULL, ${sites.SUP}, ${sites.DC}, 'BUY', 4, 1) RETURNING id`)) as number;
    return { items, sites, route };
  });
}

export interface LegacyRun {
  run_id: string;
  status: 'running' | 'completed' | 'failed';
  started_at: string;
}

export interface LegacyOrder {
  run_id: string;
  item_id: number;
  site_id: number;
  source_site_id?: number | null;
  order_type: string;
  status: string;
  qty: number;
  release_week: number;
  arrival_week: number;
}

/** Inserts runs (of the default supply scenario) and their orders as an older engine left them; returns the order ids in order. */
export async function insertLegacySupply(db: Db, accountId: string, runs: LegacyRun[], orders: LegacyOrder[]): Promise<number[]> {
  return withTenant(db, accountId, async (tx) => {
    const scenarioId = (await tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as number;
    for (const r of runs) {
      await tx.query(sql.unsafe`
        INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date, started_at)
        VALUES (${r.run_id}, 1, ${scenarioId}, ${r.status}, ${r.started_at.slice(0, 10)}::date, ${r.started_at}::timestamptz)`);
    }
    const ids: number[] = [];
    for (const [k, o] of orders.entries()) {
      ids.push((await tx.oneFirst(sql.unsafe`
        INSERT INTO supply_orders (run_id, pipeline_id, scenario_id, engine_order_id, item_id, site_id, source_site_id, order_type, status, qty,
                                   requested_qty, release_week, arrival_week, need_week, release_date, arrival_date)
        VALUES (${o.run_id}, 1, ${scenarioId}, ${k + 1}, ${o.item_id}, ${o.site_id}, ${o.source_site_id ?? null}, ${o.order_type}, ${o.status}, ${o.qty},
                ${o.qty}, ${o.release_week}, ${o.arrival_week}, ${o.arrival_week}, '2026-01-05', '2026-01-05')
        RETURNING order_id`)) as number);
    }
    return ids;
  });
}
