/**
 * A small network for the supply tests, with every input of the supply step:
 * vendor V → DC (BUY, 2 weeks, priority 1), DC → stores S1, S2 (TRANSFER, 1 week, so store orders become indirect
 * demand at the DC); item P sold at both stores, item Q at S1 only and bought straight from the vendor into S1.
 * Best-method forecasts for pipeline `pipelineId` start on the planning date 2026-06-01 (a Monday): P at S1 10 a week,
 * P at S2 5 a week, Q at S1 4 a week. On hand: P at S1 12, P at S2 0, P at DC 30, Q at S1 0. Item-site master:
 * P at DC moq 40; Q at S1 order multiple 6.
 */
import { sql, withTenant, type Db } from '../../db/pool';
import type { SupplyItemInput } from '../../domain/supply/types';

export const PLANNING_DATE = '2026-06-01';
export const HORIZON = 52;

export interface SupplySeed {
  pipelineId: number;
  sites: Record<'V' | 'DC' | 'S1' | 'S2', number>;
  items: Record<'P' | 'Q', number>;
  routes: Record<'V_DC' | 'DC_S1' | 'DC_S2' | 'V_S1', number>;
  forecasts: Record<'P_S1' | 'P_S2' | 'Q_S1', number>;
}

export async function seedSupply(db: Db, accountId: string): Promise<SupplySeed> {
  return withTenant(db, accountId, async (tx) => {
    const pipelineId = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('Supply test pipeline') RETURNING id`)) as number;
    const site = async (xuid: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${xuid}, ${`Site ${xuid}`}) RETURNING id`)) as number;
    const item = async (xuid: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name, avg_unit_cost) VALUES (${xuid}, ${`Item ${xuid}`}, 2) RETURNING id`)) as number;
    const sites = { V: await site('V'), DC: await site('DC'), S1: await site('S1'), S2: await site('S2') };
    const items = { P: await item('P'), Q: await item('Q') };
    const route = async (itemId: number, from: number, to: number, type: string, lead: number) =>
      (await tx.oneFirst(sql.unsafe`INSERT INTO routes (item_id, from_site_id, to_site_id, route_type, lead_time, priority) VALUES (${itemId}, ${from}, ${to}, ${type}, ${lead}, 1) RETURNING id`)) as number;
    const routes = {
      V_DC: await route(items.P, sites.V, sites.DC, 'BUY', 2),
      DC_S1: await route(items.P, sites.DC, sites.S1, 'TRANSFER', 1),
      DC_S2: await route(items.P, sites.DC, sites.S2, 'TRANSFER', 1),
      V_S1: await route(items.Q, sites.V, sites.S1, 'BUY', 3),
    };
    const forecasts = { P_S1: 10, P_S2: 5, Q_S1: 4 };
    const series: Array<[number, number, number, number]> = [[items.P, sites.S1, forecasts.P_S1, 12], [items.P, sites.S2, forecasts.P_S2, 0], [items.Q, sites.S1, forecasts.Q_S1, 0]];
    for (const [itemId, siteId, weekly, onHand] of series) {
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${itemId}, ${siteId}, 20, '2026-01-12', '2026-05-25')`);
      await tx.query(sql.unsafe`
        INSERT INTO series_weekly (item_id, site_id, week, y, factor)
        SELECT ${itemId}, ${siteId}, (date '2026-01-12' + 7 * w)::date, ${weekly}, 1 FROM generate_series(0, 19) w`);
      await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id, unit_cost, on_hand) VALUES (${itemId}, ${siteId}, 2, ${onHand})`);
      await tx.query(sql.unsafe`
        INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
        VALUES (${pipelineId}, ${itemId}, ${siteId}, 'naive', ${PLANNING_DATE}, ${sql.array(Array(HORIZON).fill(weekly), 'float8')},
          ${sql.array(Array(HORIZON).fill(weekly), 'float8')}, ${sql.array(Array(HORIZON).fill(weekly), 'float8')}, 0.8)`);
      await tx.query(sql.unsafe`
        INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, metric) VALUES (${pipelineId}, ${itemId}, ${siteId}, 'naive', 'mase')`);
    }
    await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id, unit_cost, on_hand, moq) VALUES (${items.P}, ${sites.DC}, 2, 30, 40)`);
    await tx.query(sql.unsafe`UPDATE item_site SET order_multiple = 6 WHERE item_id = ${items.Q} AND site_id = ${sites.S1}`);
    return { pipelineId, sites, items, routes, forecasts };
  });
}

const flat = (v: number) => new Float64Array(HORIZON).fill(v);

/** The seed as the engine's input, written out by hand: what the step must assemble from the tables. */
export function seedInput(s: SupplySeed): SupplyItemInput[] {
  const lfl = { eoq: null, moq: 0, multiple: 1 };
  const route = (id: number, from: number, to: number, type: string, lead: number) => ({ route_id: id, from_site_id: from, to_site_id: to, route_type: type, lead_time: lead, priority: 1 });
  return [
    {
      item_id: s.items.P,
      sites: [
        { site_id: s.sites.DC, forecast: flat(0), on_hand: 30, safety_stock: 0, lot: { eoq: null, moq: 40, multiple: 1 }, unit_cost: 2 },
        { site_id: s.sites.S1, forecast: flat(10), on_hand: 12, safety_stock: 0, lot: lfl, unit_cost: 2 },
        { site_id: s.sites.S2, forecast: flat(5), on_hand: 0, safety_stock: 0, lot: lfl, unit_cost: 2 },
      ],
      routes: [route(s.routes.V_DC, s.sites.V, s.sites.DC, 'BUY', 2), route(s.routes.DC_S1, s.sites.DC, s.sites.S1, 'TRANSFER', 1), route(s.routes.DC_S2, s.sites.DC, s.sites.S2, 'TRANSFER', 1)],
      firm_orders: [],
    },
    {
      item_id: s.items.Q,
      sites: [{ site_id: s.sites.S1, forecast: flat(4), on_hand: 0, safety_stock: 0, lot: { eoq: null, moq: 0, multiple: 6 }, unit_cost: 2 }],
      routes: [route(s.routes.V_S1, s.sites.V, s.sites.S1, 'BUY', 3)],
      firm_orders: [],
    },
  ];
}

