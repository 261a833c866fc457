/**
 * The allocation supply pool, document 2 (supply-history-assistant.md) §2.3 and §4.3:
 *
 * - engine recommendations enter only with status planned, constrained, delayed or expedited, as `SO_<id>` with
 *   reliability 0.85 (their qty and arrival_week as the engine wrote them: the rule transforms neither);
 * - firm orders enter when erp_status is firm, released or in_transit and the remaining quantity
 *   (qty - received_qty, null as 0, floored at 0) is above 0, as `FIRM_<id>` with reliability 1.0, qty = remaining,
 *   arrival_week = floor(days from now to arrival_dt / 7) clamped to 0..51;
 * - is_firm = 1 when supply_id starts with `FIRM_`, else 0.
 *
 * Statuses are matched exactly (lower case, as the engine and the firm-order API store them), not normalised: a row
 * the database query would not select must not enter here either. `now` is an argument so the pool is deterministic.
 */
import { clampWeek, PLANNING_WEEKS } from '../supply/horizon';
import { isFirmSupplyId } from './model';

export const ENGINE_POOL_STATUSES: readonly string[] = Object.freeze(['planned', 'constrained', 'delayed', 'expedited']);
export const FIRM_POOL_STATUSES: readonly string[] = Object.freeze(['firm', 'released', 'in_transit']);
export const ENGINE_RELIABILITY = 0.85;
export const FIRM_RELIABILITY = 1.0;
/** Planning horizon weeks 0..51 (supply/horizon.ts, shared with the supply engine). */
export const LAST_WEEK = PLANNING_WEEKS - 1;

const MS_PER_WEEK = 7 * 24 * 60 * 60 * 1000;

/** Engine-produced supply order (document 2 §2.2), the fields the pool query reads plus status. */
export interface EngineSupplyOrder {
  id: number | string;
  item_id: number;
  site_id: number;
  qty: number;
  arrival_week: number;
  status: string | null;
  order_type?: string | null;
  source_site_id?: number | null;
}

/** Firm supply order (document 2 §2.1), the fields the pool reads. */
export interface FirmSupplyOrder {
  id: number | string;
  item_id: number;
  site_id: number;
  qty: number | null;
  /** Optional in §2.1 (default 0); null or absent counts as 0. */
  received_qty?: number | null;
  /** Null or absent stays out of the pool: only the three statuses enter. */
  erp_status: string | null;
  /** ISO 8601 timestamp (or a Date, as a pg type parser may give). */
  arrival_dt: string | Date;
  order_type?: string | null;
  source_site_id?: number | null;
}

/** Document 2 §2.3, plus the reliability the allocation weighs it by. Structurally an AllocationSupply. */
export interface PoolEntry {
  supply_id: string;
  item_id: number;
  site_id: number;
  qty: number;
  arrival_week: number;
  order_type: string | null;
  source_site_id: number | null;
  reliability: number;
  is_firm: 0 | 1;
}

export function engineOrderEntersPool(order: Pick<EngineSupplyOrder, 'status'>): boolean {
  return order.status !== null && ENGINE_POOL_STATUSES.includes(order.status);
}

/** qty - received_qty with null as 0, floored at 0. */
export function firmRemainingQty(order: Pick<FirmSupplyOrder, 'qty' | 'received_qty'>): number {
  return Math.max(0, (order.qty ?? 0) - (order.received_qty ?? 0));
}

export function firmOrderEntersPool(order: Pick<FirmSupplyOrder, 'erp_status' | 'qty' | 'received_qty'>): boolean {
  return order.erp_status !== null && FIRM_POOL_STATUSES.includes(order.erp_status) && firmRemainingQty(order) > 0;
}

/**
 * floor((arrival_dt - now) / 7 days) clamped to 0..51 by the supply engine's own clamp (supply/horizon.ts), so an
 * order arriving after week 51 is supply in week 51 here and in the supply plan alike. On the exact instants. Flooring the fractional day count or
 * the whole-day count first (Python's timedelta.days) gives the same week, since floor(floor(x) / 7) = floor(x / 7).
 */
export function firmArrivalWeek(arrivalDt: string | Date, now: Date): number {
  const at = arrivalDt instanceof Date ? arrivalDt.getTime() : Date.parse(arrivalDt);
  const from = now.getTime();
  if (!Number.isFinite(at)) throw new RangeError(`arrival_dt is not a valid timestamp: ${String(arrivalDt)}`);
  if (!Number.isFinite(from)) throw new RangeError('now is not a valid date');
  return clampWeek(Math.floor((at - from) / MS_PER_WEEK), PLANNING_WEEKS);
}

export function engineSupplyId(id: number | string): string {
  return `SO_${id}`;
}

export function firmSupplyId(id: number | string): string {
  return `FIRM_${id}`;
}

export function engineOrderToPoolEntry(order: EngineSupplyOrder): PoolEntry | null {
  if (!engineOrderEntersPool(order)) return null;
  const supplyId = engineSupplyId(order.id);
  return {
    supply_id: supplyId,
    item_id: order.item_id,
    site_id: order.site_id,
    qty: order.qty,
    arrival_week: order.arrival_week,
    order_type: order.order_type ?? null,
    source_site_id: order.source_site_id ?? null,
    reliability: ENGINE_RELIABILITY,
    is_firm: isFirmSupplyId(supplyId),
  };
}

export function firmOrderToPoolEntry(order: FirmSupplyOrder, now: Date): PoolEntry | null {
  if (!firmOrderEntersPool(order)) return null;
  const supplyId = firmSupplyId(order.id);
  return {
    supply_id: supplyId,
    item_id: order.item_id,
    site_id: order.site_id,
    qty: firmRemainingQty(order),
    arrival_week: firmArrivalWeek(order.arrival_dt, now),
    order_type: order.order_type ?? null,
    source_site_id: order.source_site_id ?? null,
    reliability: FIRM_RELIABILITY,
    is_firm: isFirmSupplyId(supplyId),
  };
}

/** The whole pool: engine entries then firm entries, each in input order. */
export function buildSupplyPool(
  engineOrders: readonly EngineSupplyOrder[],
  firmOrders: readonly FirmSupplyOrder[],
  now: Date,
): PoolEntry[] {
  const pool: PoolEntry[] = [];
  for (const o of engineOrders) {
    const e = engineOrderToPoolEntry(o);
    if (e) pool.push(e);
  }
  for (const o of firmOrders) {
    const e = firmOrderToPoolEntry(o, now);
    if (e) pool.push(e);
  }
  return pool;
}
