/**
 * Exceptions and KPIs of a plan. Weekly exceptions come as runs of consecutive weeks (one row for weeks 3-7 short,
 * not five), so that ten thousand SKU-sites give a list a planner can read.
 */
import {
  ORDER_TYPES,
  type OrderKind,
  type OrderStatus,
  type OrderType,
  type PlannedOrder,
  type SkuSitePlan,
  type SupplyException,
  type SupplyKpis,
  type TypeCount,
} from './types';

// Module-level aliases: inside vm contexts (jest) every lookup of a global such as Math is intercepted (see
// inventory/random.ts); these run for every SKU-site-week.
const { max, min } = Math;

export type NoSourceReason = '' | 'no_route' | 'blocked' | 'lead_time' | 'capacity';

const EPS = 1e-7;

const REASON_TEXT: Record<Exclude<NoSourceReason, ''>, string> = {
  no_route: 'no route leads into the site',
  blocked: 'every routed source type is blocked in these weeks (firm-order horizon or lead time)',
  lead_time: 'no route can deliver in time',
  capacity: 'the source has no capacity left within the horizon',
};

export interface SiteExceptionInput {
  item_id: number;
  site_id: number;
  projected: Float64Array;
  ss: Float64Array;
  gross: Float64Array;
  orders: readonly PlannedOrder[];
  unsourced: Float64Array;
  /** Per week, an index into reasonCodes. */
  reasons: Uint8Array;
  reasonCodes: readonly NoSourceReason[];
  excessCoverWeeks: number;
}

/** Runs of weeks where value(t) is not null and key(t) is unchanged; qty is the largest value in the run. */
function runs(H: number, value: (t: number) => number | null, key: (t: number) => string = () => ''): Array<{ start: number; end: number; qty: number; key: string }> {
  const out: Array<{ start: number; end: number; qty: number; key: string }> = [];
  for (let t = 0; t < H; t++) {
    const v = value(t);
    if (v === null) continue;
    const k = key(t);
    const last = out[out.length - 1];
    if (last && last.end === t - 1 && last.key === k) {
      last.end = t;
      last.qty = max(last.qty, v);
    } else out.push({ start: t, end: t, qty: v, key: k });
  }
  return out;
}

export function siteExceptions(x: SiteExceptionInput): SupplyException[] {
  const H = x.projected.length;
  const out: SupplyException[] = [];
  const base = { item_id: x.item_id, site_id: x.site_id };
  const weeks = (r: { start: number; end: number }) => (r.start === r.end ? `week ${r.start}` : `weeks ${r.start}-${r.end}`);

  for (const r of runs(H, (t) => (x.projected[t]! < -EPS ? -x.projected[t]! : null))) {
    out.push({ ...base, type: 'shortage', week: r.start, end_week: r.end, qty: r.qty, severity: 'high', description: `projected stock below zero in ${weeks(r)} (largest backlog ${fmt(r.qty)})` });
  }
  for (const r of runs(H, (t) => (x.projected[t]! >= -EPS && x.projected[t]! < x.ss[t]! - EPS ? x.ss[t]! - x.projected[t]! : null))) {
    out.push({ ...base, type: 'below_safety_stock', week: r.start, end_week: r.end, qty: r.qty, severity: 'medium', description: `projected stock below safety stock in ${weeks(r)} (largest gap ${fmt(r.qty)})` });
  }
  // Excess against the mean gross demand over the horizon, not the demand of the next weeks, which the end of the
  // horizon would cut short and so flag every late week.
  let grossPos = 0;
  for (let t = 0; t < H; t++) grossPos += max(0, x.gross[t]!);
  const cover = (x.excessCoverWeeks * grossPos) / H;
  for (const r of runs(H, (t) => {
    const over = x.projected[t]! - x.ss[t]! - cover;
    return over > EPS * max(1, cover) ? over : null;
  })) {
    out.push({ ...base, type: 'excess', week: r.start, end_week: r.end, qty: r.qty, severity: 'low', description: `projected stock above safety stock plus ${x.excessCoverWeeks} weeks of demand in ${weeks(r)} (largest excess ${fmt(r.qty)})` });
  }
  for (const o of x.orders) {
    if (!o.late && o.status !== 'constrained') continue;
    const why =
      o.status === 'constrained'
        ? `cut from ${fmt(o.requested_qty)} to ${fmt(o.qty)} by capacity at site ${o.source_site_id}`
        : o.release_week < 0
          ? `should have been released in week ${o.release_week} (before the planning date) to arrive in week ${o.arrival_week}`
          : `arrives in week ${o.arrival_week}, ${o.arrival_week - o.need_week} week(s) after it is needed`;
    out.push({
      ...base,
      type: 'late_order',
      week: o.need_week,
      end_week: o.arrival_week,
      qty: o.qty,
      severity: o.release_week < 0 || o.arrival_week > o.need_week ? 'high' : 'medium',
      description: `${o.order_type} order ${o.id} ${why}`,
      order_id: o.id,
    });
  }
  for (const r of runs(H, (t) => (x.unsourced[t]! > EPS ? x.unsourced[t]! : null), (t) => x.reasonCodes[x.reasons[t]!]!)) {
    const reason = r.key as Exclude<NoSourceReason, ''>;
    out.push({ ...base, type: 'no_source', week: r.start, end_week: r.end, qty: r.qty, severity: 'medium', description: `requirement not sourced in ${weeks(r)}: ${REASON_TEXT[reason] ?? reason}` });
  }
  return out;
}

function fmt(q: number): string {
  return Number.isInteger(q) ? String(q) : q.toFixed(2);
}

/**
 * Projected service of one SKU-site. Demand of a week (its positive gross) is served from what is on hand after the
 * week's receipts, backlog paid first; the rest is short in its own week (a backorder filled later still counts
 * against the fill rate of the week it fell due).
 */
export function siteServiceKpis(
  opening: number,
  projected: Float64Array,
  receiptsFirm: Float64Array,
  receiptsPlanned: Float64Array,
  gross: Float64Array,
  unitCost: number,
): { fill_rate: number | null; shortage_qty: number; avg_inventory_value: number; ending_inventory_value: number } {
  const H = projected.length;
  let demand = 0;
  let served = 0;
  let stockSum = 0;
  let prev = opening;
  for (let t = 0; t < H; t++) {
    // Returns net into gross: a week with more returns than demand has no demand to serve.
    const d = max(0, gross[t]!);
    const avail = max(0, prev + receiptsFirm[t]! + receiptsPlanned[t]!);
    demand += d;
    served += min(d, avail);
    stockSum += max(0, projected[t]!);
    prev = projected[t]!;
  }
  const cost = Number.isFinite(unitCost) ? unitCost : 0;
  return {
    fill_rate: demand > 0 ? served / demand : null,
    shortage_qty: demand - served,
    avg_inventory_value: (stockSum / H) * cost,
    ending_inventory_value: max(0, projected[H - 1]!) * cost,
  };
}

function zeroCounts<K extends string>(keys: readonly K[]): Record<K, TypeCount> {
  const out = {} as Record<K, TypeCount>;
  for (const k of keys) out[k] = { count: 0, qty: 0 };
  return out;
}

export function computeKpis(plans: readonly SkuSitePlan[], orders: readonly PlannedOrder[], nExceptions: number): SupplyKpis {
  let demand = 0;
  let shortage = 0;
  let avgValue = 0;
  let endValue = 0;
  for (const p of plans) {
    let d = 0;
    for (let t = 0; t < p.gross.length; t++) d += max(0, p.gross[t]!);
    demand += d;
    shortage += p.shortage_qty;
    avgValue += p.avg_inventory_value;
    endValue += p.ending_inventory_value;
  }
  const byType = zeroCounts<OrderType>(ORDER_TYPES);
  const byStatus = zeroCounts<OrderStatus>(['planned', 'constrained', 'delayed', 'expedited']);
  const byKind = zeroCounts<OrderKind>(['PLANNED', 'BUY_EXPEDITE', 'TRANSFER_PREPOS']);
  for (const o of orders) {
    for (const c of [byType[o.order_type], byStatus[o.status], byKind[o.kind]]) {
      c.count++;
      c.qty += o.qty;
    }
  }
  return {
    projected_fill_rate: demand > 0 ? (demand - shortage) / demand : null,
    demand_qty: demand,
    served_qty: demand - shortage,
    shortage_qty: shortage,
    avg_inventory_value: avgValue,
    ending_inventory_value: endValue,
    orders_by_type: byType,
    orders_by_status: byStatus,
    orders_by_kind: byKind,
    n_orders: orders.length,
    n_exceptions: nExceptions,
  };
}
