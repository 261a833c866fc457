/**
 * The scenario rules of document 2 (supply-history-assistant.md) §4.2, one function per rule, so a test can hold each
 * against its sentence:
 *
 * 1. latest firm week per SKU and order type: max over firm orders of floor(days(release date - planning date) / 7),
 *    clamped to 0..51; 255 when the type has no firm order  → latestFirmWeeks
 * 2. firm_orders_block_horizon on, latest firm week not 255, t < it → the type is skipped in week t  → typeAllowed
 * 3. minimum lead time per SKU and type over its routes (null as 0; a route without type is BUY; no route → 0)
 *    → minLeadTimes
 * 4. respect_lead_time on, minimum lead time > 0, t < it → the type is skipped in week t  → typeAllowed
 * 5. the checks are per source type (BUY, BUILD, REPAIR, TRANSFER, BALANCING, RETURN), before any route is examined
 *    → typeAllowed takes only the type's two numbers, never a route; the engine calls it before looking at routes
 * 6. BUY_EXPEDITE and TRANSFER_PREPOS ignore the firm block  → the post-processor never calls typeAllowed
 * 7. partial receipts by subtraction: remaining = qty - received_qty  → firmRemainingQty (shared with allocation)
 *
 * A SKU is an item at a site: firm orders are keyed by their receiving site, routes by the site they lead into.
 */
import { FIRM_POOL_STATUSES, firmRemainingQty } from '../allocation/pool';
import { dayNumber } from '../time/weeks';
import { clampWeek } from './horizon';
import { canonicalRouteType } from './routeTypes';
import { BUY, N_ORDER_TYPES, NO_FIRM_WEEK, ORDER_TYPES, REPLENISH, type SupplyFlags, type SupplyOptions } from './types';

export { firmRemainingQty };

const DAY_MS = 86_400_000;

/** Order type (BUY ... RETURN) to its index, compared upper-case; -1 when unknown. */
export function orderTypeIndex(orderType: string | null | undefined): number {
  if (orderType === null || orderType === undefined) return -1;
  return (ORDER_TYPES as readonly string[]).indexOf(orderType.trim().toUpperCase());
}

/**
 * Route type to the order type it produces: REPLENISHMENT routes make REPLENISH orders, a route without type is BUY
 * (rule 3), MAKE is BUILD (routeTypes.ts), the other five share their name. -1 for a type the engine does not know
 * (reported, not planned on).
 */
export function routeOrderType(routeType: string | null | undefined): number {
  if (routeType === null || routeType === undefined || routeType.trim() === '') return BUY;
  const t = canonicalRouteType(routeType);
  if (t === 'REPLENISHMENT') return REPLENISH;
  // REPLENISH is not a route type in the platform (document 2 §2.1: "Replenish has no sourcing route type").
  if (t === 'REPLENISH') return -1;
  return (ORDER_TYPES as readonly string[]).indexOf(t);
}

/**
 * floor(days from the planning date to the instant / 7), not clamped. On the UTC instant, so a timestamp late on a day
 * and the date itself give the same week (floor(floor(x) / 7) = floor(x / 7)).
 */
export function weekOffset(dt: string | Date, planningDate: string): number {
  const at = dt instanceof Date ? dt.getTime() : Date.parse(dt);
  if (!Number.isFinite(at)) throw new RangeError(`not a valid date or timestamp: ${String(dt)}`);
  const from = dayNumber(planningDate);
  if (!Number.isFinite(from)) throw new RangeError(`planning date is not YYYY-MM-DD: ${planningDate}`);
  return Math.floor(Math.floor((at - from * DAY_MS) / DAY_MS) / 7);
}

export { clampWeek };

/**
 * Rule 1, for one SKU: the firm orders passed are those of the item received at the site. Every firm order counts,
 * whatever its erp_status (the rule names none); a received order lies in the past and so clamps to 0, which never
 * blocks (t < 0 is never true).
 */
export function latestFirmWeeks(
  firmOrders: ReadonlyArray<{ order_type: string; release_dt: string | Date }>,
  planningDate: string,
  horizon: number,
): Uint8Array {
  const out = new Uint8Array(N_ORDER_TYPES).fill(NO_FIRM_WEEK);
  for (const f of firmOrders) {
    const type = orderTypeIndex(f.order_type);
    if (type < 0) continue;
    const week = clampWeek(weekOffset(f.release_dt, planningDate), horizon);
    if (out[type] === NO_FIRM_WEEK || week > out[type]!) out[type] = week;
  }
  return out;
}

/** Rule 3, for one SKU: the routes passed are those leading into the site. */
export function minLeadTimes(routes: ReadonlyArray<{ route_type: string | null; lead_time: number | null }>): Float64Array {
  const out = new Float64Array(N_ORDER_TYPES).fill(Infinity);
  for (const r of routes) {
    const type = routeOrderType(r.route_type);
    if (type < 0) continue;
    const lt = r.lead_time ?? 0;
    if (lt < out[type]!) out[type] = lt;
  }
  for (let i = 0; i < N_ORDER_TYPES; i++) if (out[i] === Infinity) out[i] = 0;
  return out;
}

/**
 * Rules 2 and 4 for one source type in week t. Takes only the type's latest firm week and minimum lead time, never a
 * route (rule 5): the engine asks before it looks at the type's routes.
 */
export function typeAllowed(t: number, latestFirmWeek: number, minLeadTime: number, flags: SupplyFlags): boolean {
  if (flags.firm_orders_block_horizon && latestFirmWeek !== NO_FIRM_WEEK && t < latestFirmWeek) return false;
  if (flags.respect_lead_time && minLeadTime > 0 && t < minLeadTime) return false;
  return true;
}

/** Firm orders count as supply only while erp_status is firm, released or in_transit (document 2 §3), as in allocation. */
export function firmCountsAsSupply(erpStatus: string | null | undefined): boolean {
  return erpStatus !== null && erpStatus !== undefined && FIRM_POOL_STATUSES.includes(erpStatus);
}

/**
 * Boolean coercion of a scenario parameter (document 2 §4.2: "non-booleans are coerced to booleans"): numbers are
 * true when non-zero; strings true for true/t/yes/y/on/1 (any case) and false for false/f/no/n/off/0/'' — a plain
 * truthiness test would read the string "false" as true; anything else missing or unreadable takes the default.
 */
export function coerceFlag(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isNaN(value) ? fallback : value !== 0;
  if (typeof value === 'string') {
    const s = value.trim().toLowerCase();
    if (['true', 't', 'yes', 'y', 'on', '1'].includes(s)) return true;
    if (['false', 'f', 'no', 'n', 'off', '0', ''].includes(s)) return false;
    const n = Number(s);
    return Number.isFinite(n) ? n !== 0 : fallback;
  }
  return fallback;
}

/**
 * The two flags out of a supply scenario's param_overrides. Their defaults are not specified (document 2 §4.2);
 * both default to off here, which is the engine's plain MRP behaviour.
 */
export function scenarioFlags(paramOverrides: Record<string, unknown> | null | undefined): SupplyFlags {
  const p = paramOverrides ?? {};
  return {
    firm_orders_block_horizon: coerceFlag(p['firm_orders_block_horizon'], false),
    respect_lead_time: coerceFlag(p['respect_lead_time'], false),
  };
}

/**
 * Engine options a supply scenario may set in param_overrides, by their snake_case names (late_orders,
 * max_delay_weeks, expedite, excess_cover_weeks). The API validates them on the way in; a value that does not read
 * here is left to the engine's default rather than failing a run.
 */
export function scenarioOptions(paramOverrides: Record<string, unknown> | null | undefined): SupplyOptions {
  const p = paramOverrides ?? {};
  const out: SupplyOptions = {};
  if (p['late_orders'] === 'flag' || p['late_orders'] === 'arrive_late') out.lateOrders = p['late_orders'];
  const delay = Number(p['max_delay_weeks']);
  if (p['max_delay_weeks'] !== undefined && p['max_delay_weeks'] !== null && Number.isInteger(delay) && delay >= 0) out.maxDelayWeeks = delay;
  if (p['expedite'] !== undefined && p['expedite'] !== null) out.expedite = coerceFlag(p['expedite'], true);
  const cover = Number(p['excess_cover_weeks']);
  if (p['excess_cover_weeks'] !== undefined && p['excess_cover_weeks'] !== null && Number.isFinite(cover) && cover > 0) out.excessCoverWeeks = cover;
  return out;
}
