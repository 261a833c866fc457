import { planSupply } from '../../../domain/supply/engine';
import type {
  FirmOrderInput,
  PlannedOrder,
  SupplyFlags,
  SupplyItemInput,
  SupplyOptions,
  SupplyRoute,
  SupplyRunInput,
  SupplyRunResult,
  SupplySiteInput,
  CapacityInput,
} from '../../../domain/supply/types';

export const PLANNING_DATE = '2025-01-06';
export const OFF: SupplyFlags = { firm_orders_block_horizon: false, respect_lead_time: false };

/** The date `days` after the planning date. */
export function day(days: number): string {
  return new Date(Date.parse(`${PLANNING_DATE}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function site(site_id: number, demand: number[], extra: Partial<SupplySiteInput> = {}): SupplySiteInput {
  return { site_id, forecast: demand, on_hand: 0, safety_stock: 0, lot: { eoq: null, moq: 0, multiple: 0 }, unit_cost: 1, ...extra };
}

let routeIds = 1000;
export function route(type: string | null, from: number, to: number, lead_time: number | null, priority = 1, route_id = routeIds++): SupplyRoute {
  return { route_id, from_site_id: from, to_site_id: to, route_type: type, lead_time, priority };
}

/** A firm order released `releaseWeek` whole weeks and arriving `arrivalWeek` whole weeks after the planning date. */
export function firm(id: number, site_id: number, order_type: string, qty: number, releaseWeek: number, arrivalWeek: number, extra: Partial<FirmOrderInput> = {}): FirmOrderInput {
  return {
    id,
    site_id,
    order_type,
    qty,
    received_qty: 0,
    erp_status: 'firm',
    release_dt: `${day(7 * releaseWeek)}T10:00:00Z`,
    arrival_dt: `${day(7 * arrivalWeek)}T10:00:00Z`,
    ...extra,
  };
}

export function item(item_id: number, sites: SupplySiteInput[], routes: SupplyRoute[], firm_orders: FirmOrderInput[] = []): SupplyItemInput {
  return { item_id, sites, routes, firm_orders };
}

export function run(items: SupplyItemInput[], flags: SupplyFlags = OFF, options: SupplyOptions = {}, capacity: CapacityInput[] = []): SupplyRunResult {
  const input: SupplyRunInput = { planning_date: PLANNING_DATE, flags, items, capacity, options };
  const result = planSupply(input);
  if (!result.checks.ok) throw new Error(`checks failed: ${result.checks.violations.join('; ')}`);
  if (result.errors.length) throw new Error(`errors: ${JSON.stringify(result.errors)}`);
  return result;
}

/** The fields a hand-computed case states, in id order. */
export function brief(orders: PlannedOrder[]) {
  return orders.map((o) => ({
    id: o.id,
    site: o.site_id,
    type: o.order_type,
    kind: o.kind,
    status: o.status,
    qty: o.qty,
    release: o.release_week,
    arrival: o.arrival_week,
    need: o.need_week,
  }));
}

/** A compact order for expectations: [type, qty, release, arrival, need, status] (kind PLANNED unless given). */
export function o(site: number, type: string, qty: number, release: number, arrival: number, need: number, status = 'planned', kind = 'PLANNED') {
  return { site, type, kind, status, qty, release, arrival, need };
}

export function withoutIds(orders: PlannedOrder[]) {
  return brief(orders).map(({ id: _id, ...rest }) => rest);
}
