/**
 * FIFO pegging at one site: supplies in the order they arrive (opening stock first) are matched to demand lines in the
 * order they fall due, the earliest supply to the earliest demand. A demand left short (backlog) takes the next supply
 * to arrive, late, which is how a backorder is filled. Whatever an engine order still holds after the last demand in
 * the horizon ends as stock: first the end-of-horizon safety stock, then excess. So an order's pegging always adds up
 * to its quantity, and each slice says which demand the order serves.
 *
 * Only engine orders carry pegging; opening stock, returns and firm receipts take part in the matching (they serve
 * demand first when they arrive first) but have no record to write it on.
 */
import type { DemandLineKind, PegLine, PlannedOrder } from './types';

// Module-level aliases: inside vm contexts (jest) every lookup of a global such as Math is intercepted (see
// inventory/random.ts); these run for every SKU-site-week.
const { max, min } = Math;

/** A demand line other than the site's own forecast (which is read straight from the weekly array). */
export interface DemandLineInput {
  kind: DemandLineKind;
  week: number;
  qty: number;
  /** The downstream order (indirect, prepos) or firm order (firm_transfer) behind the line. */
  ref_id: number;
}

/** Within a week: the site's own forecast first, then what downstream sites draw, firm before planned. */
const KIND_RANK: Record<DemandLineKind, number> = {
  backlog: 0,
  forecast: 1,
  firm_transfer: 2,
  indirect: 3,
  prepos: 4,
  safety_stock: 5,
  excess: 6,
};

export interface PegSiteInput {
  siteId: number;
  opening: number;
  /** Own forecast; a negative week is a supply (like a return). */
  demand: Float64Array;
  returns: Float64Array;
  firmIn: Float64Array;
  /** The engine orders received at the site; their pegging arrays are filled. */
  orders: readonly PlannedOrder[];
  lines: readonly DemandLineInput[];
  endSafetyStock: number;
  horizon: number;
}

/**
 * Walks both streams once, without building them: supplies are opening stock, then per week the site's returns, its
 * firm receipts and its engine orders (by id); demands are per week the backlog (week 0 only), the forecast and the
 * other lines.
 */
export function pegSite(x: PegSiteInput): void {
  const H = x.horizon;
  const site = x.siteId;
  const orders = x.orders.slice().sort((a, b) => a.arrival_week - b.arrival_week || a.id - b.id);
  const lines = x.lines.slice().sort((a, b) => a.week - b.week || KIND_RANK[a.kind] - KIND_RANK[b.kind] || a.ref_id - b.ref_id);

  // The supply cursor: the current supply's quantity left and its order (null for stock, returns, firm receipts).
  let qty = 0;
  let order: PlannedOrder | null = null;
  let week = 0;
  let stage = 0;
  let oi = 0;
  const advance = (): boolean => {
    while (week < H) {
      if (stage === 0) {
        stage = 1;
        const own = x.returns[week]! + max(0, -x.demand[week]!);
        if (own > 0) return load(own, null);
      }
      if (stage === 1) {
        stage = 2;
        if (x.firmIn[week]! > 0) return load(x.firmIn[week]!, null);
      }
      if (oi < orders.length && orders[oi]!.arrival_week === week) {
        const o = orders[oi++]!;
        return load(o.qty, o);
      }
      week++;
      stage = 0;
    }
    return false;
  };
  const load = (q: number, o: PlannedOrder | null): boolean => {
    qty = q;
    order = o;
    return true;
  };
  let have = x.opening > 0 ? load(x.opening, null) : advance();

  const give = (q: number, kind: DemandLineKind, w: number, ref: number) => {
    if (order === null || !(q > 0)) return;
    const id = kind === 'forecast' ? `forecast:${site}:${w}` : kind === 'backlog' || kind === 'safety_stock' || kind === 'excess' ? `${kind}:${site}` : `${kind}:${ref}`;
    const peg: PegLine = { demand_line: id, kind, site_id: site, week: w, qty: q };
    if (ref !== 0) peg.ref_id = ref;
    order.pegging.push(peg);
  };
  const take = (want: number, kind: DemandLineKind, w: number, ref: number) => {
    // One of the two reaches exactly zero each step, so every unit of an order is handed out exactly once.
    while (want > 0 && have) {
      if (qty <= want) {
        give(qty, kind, w, ref);
        want -= qty;
        have = advance();
      } else {
        give(want, kind, w, ref);
        qty -= want;
        want = 0;
      }
    }
  };

  if (x.opening < 0) take(-x.opening, 'backlog', 0, 0);
  let li = 0;
  for (let t = 0; t < H && have; t++) {
    if (x.demand[t]! > 0) take(x.demand[t]!, 'forecast', t, 0);
    for (; li < lines.length && lines[li]!.week <= t; li++) {
      const l = lines[li]!;
      if (l.qty > 0) take(l.qty, l.kind, t, l.ref_id);
    }
  }
  // End of horizon: what is left stands as safety stock up to its level, the rest as excess.
  let ssLeft = max(0, x.endSafetyStock);
  while (have) {
    const toSs = min(qty, ssLeft);
    give(toSs, 'safety_stock', H, 0);
    ssLeft -= toSs;
    give(qty - toSs, 'excess', H, 0);
    have = advance();
  }
}
