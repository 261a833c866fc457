/**
 * The supply-planning engine: MRP netting of one item across its network of sites, week by week over the horizon,
 * with the sourcing sequence and scenario rules of document 2 §4.2, finite capacity, an expedite post-processor,
 * FIFO pegging, exceptions and KPIs. Pure: rows in, rows out (docs/SUPPLY.md).
 *
 * Per item:
 *  1. Static facts per SKU-site: demand, returns, safety stock, firm receipts (remaining = qty - received_qty while
 *     firm, released or in_transit), latest firm week per type (rule 1), minimum lead time per type (rule 3), routes
 *     by type in preference order.
 *  2. Pass A. Sites in low-level-code order over TRANSFER arcs, downstream first, so that by the time a site is
 *     netted every TRANSFER order drawing on it has been placed and its gross requirement is complete (indirect demand
 *     propagates upstream within one pass). Netting: projected = previous + receipts - gross; below safety stock, the
 *     shortfall is sourced on the first allowed type (BUY, BUILD, REPAIR, TRANSFER, BALANCING, RETURN; rules 2, 4, 5),
 *     on its best route, lot-sized, offset by the route's lead time, through capacity; with no sourcing type allowed
 *     or routed, a REPLENISHMENT route may still replenish (REPLENISH orders come after sourcing, §2.1).
 *  3. Post-processor. Weeks still short (projected < 0) get TRANSFER_PREPOS orders from upstream stock above safety
 *     stock, then BUY_EXPEDITE orders for the rest, both `expedited`, neither subject to the firm block (rule 6).
 *  4. Pass B (only for items that got expedited orders). Capacity of pass A is rolled back and the item is netted
 *     again with the expedited orders as fixed receipts and their withdrawals as fixed demand upstream, so the
 *     netting does not also order the backlog they cover (pass A's later orders had covered it).
 *  5. Pegging, projection, exceptions, KPIs, checks.
 */
import { buildRouteGraph, detectCycle, formatCycle, topologicalOrder } from '../inventory/network';
import { CapacityLedger } from './capacity';
import { checkSupplyResult } from './checks';
import { lotSize } from './lotSizing';
import { pegSite } from './pegging';
import { refusedRouteType } from './routeTypes';
import { computeKpis, siteExceptions, siteServiceKpis, type NoSourceReason } from './report';
import {
  clampWeek,
  firmCountsAsSupply,
  firmRemainingQty,
  latestFirmWeeks,
  minLeadTimes,
  orderTypeIndex,
  routeOrderType,
  typeAllowed,
  weekOffset,
} from './rules';
import {
  BUY,
  SUPERSEDED_BLOCKED_TYPES,
  DEFAULT_HORIZON,
  N_ORDER_TYPES,
  ORDER_TYPES,
  REPLENISH,
  SOURCING_SEQUENCE,
  TRANSFER,
  type DemandLineKind,
  type IndirectDemandRow,
  type OrderKind,
  type OrderStatus,
  type PlannedOrder,
  type SkuSitePlan,
  type SupplyException,
  type SupplyFlags,
  type SupplyItemInput,
  type SupplyOptions,
  type SupplyRunInput,
  type SupplyRunResult,
  type SupplySiteInput,
} from './types';

// Module-level aliases: inside vm contexts (jest) every lookup of a global such as Math is intercepted (see
// inventory/random.ts); these run for every SKU-site-week.
const { abs, ceil, max, min } = Math;

/** Quantities below this are noise from float arithmetic, not requirements. */
const EPS = 1e-7;

export class SupplyNetworkError extends Error {}

export interface ResolvedOptions {
  horizon: number;
  lateOrders: 'flag' | 'arrive_late';
  maxDelayWeeks: number;
  expedite: boolean;
  excessCoverWeeks: number;
  check: boolean;
}

export function resolveOptions(o: SupplyOptions = {}): ResolvedOptions {
  const horizon = o.horizon ?? DEFAULT_HORIZON;
  if (!Number.isInteger(horizon) || horizon < 1 || horizon > 255) throw new RangeError(`horizon must be an integer in 1..255, got ${horizon}`);
  return {
    horizon,
    lateOrders: o.lateOrders ?? 'flag',
    maxDelayWeeks: o.maxDelayWeeks ?? Infinity,
    expedite: o.expedite ?? true,
    excessCoverWeeks: o.excessCoverWeeks ?? 13,
    check: o.check ?? true,
  };
}

interface RouteRef {
  route_id: number;
  from_site_id: number;
  /** Index of the source among the item's sites; -1 for a site outside the network (a supplier). */
  fromIdx: number;
  /** Whole weeks of offset: ceil(lead_time), null as 0. */
  L: number;
  priority: number;
}

interface DemandLineRec {
  kind: DemandLineKind;
  week: number;
  qty: number;
  ref_id: number;
}

interface SiteStatic {
  idx: number;
  input: SupplySiteInput;
  opening: number;
  demand: Float64Array;
  returns: Float64Array;
  ss: Float64Array;
  firmIn: Float64Array;
  firmBeyond: number;
  /** Firm transfers out of this site not yet shipped (firm, released): demand here. */
  firmOut: DemandLineRec[];
  firmOutRows: IndirectDemandRow[];
  lfw: Uint8Array;
  minLT: Float64Array;
  /** Per order-type index, in preference order: priority, then shorter lead time, then lower route id. */
  routes: RouteRef[][];
}

interface SiteDyn {
  indirect: Float64Array;
  gross: Float64Array;
  plannedIn: Float64Array;
  fixedIn: Float64Array;
  projected: Float64Array;
  lines: DemandLineRec[];
  orders: PlannedOrder[];
  unsourced: Float64Array;
  reason: Uint8Array;
}

interface ExpediteSpec {
  siteIdx: number;
  kind: Exclude<OrderKind, 'PLANNED'>;
  route: RouteRef;
  qty: number;
  release: number;
  arrival: number;
}

interface ItemContext {
  item: SupplyItemInput;
  flags: SupplyFlags;
  opt: ResolvedOptions;
  ledger: CapacityLedger;
  statics: SiteStatic[];
  /** Site indices, downstream first. */
  order: number[];
  nextId: number;
  indirectRows: IndirectDemandRow[];
  /** Every order made in the current pass, in id order. */
  orders: PlannedOrder[];
}

export interface ItemPlan {
  orders: PlannedOrder[];
  plans: SkuSitePlan[];
  indirect: IndirectDemandRow[];
  exceptions: SupplyException[];
  diagnostics: string[];
  /** The next free order id. */
  nextId: number;
}

/**
 * Weekly arrays are views into one buffer per item and purpose: a typed array of 52 doubles has its own off-heap
 * backing store, and a run of 10,000 SKU-sites made hundreds of thousands of them, which the garbage collector spent
 * most of the run on.
 */
class Arena {
  private pos = 0;
  private readonly buf: Float64Array;
  constructor(size: number) {
    this.buf = new Float64Array(size);
  }
  take(n: number): Float64Array {
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
}

function fitLength(values: ArrayLike<number> | undefined, out: Float64Array): Float64Array {
  const H = out.length;
  if (!values) return out;
  const n = min(H, values.length);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    out[i] = Number.isFinite(v) ? v : 0;
  }
  return out;
}

function safetyStockArray(ss: number | ArrayLike<number>, out: Float64Array): Float64Array {
  const H = out.length;
  if (typeof ss === 'number') return out.fill(Number.isFinite(ss) ? max(0, ss) : 0);
  fitLength(ss, out);
  // A shorter per-week array holds its last value: safety stock is a level, not a flow.
  for (let i = max(1, ss.length); i < H; i++) out[i] = out[i - 1]!;
  for (let i = 0; i < H; i++) out[i] = max(0, out[i]!);
  return out;
}

function buildStatics(item: SupplyItemInput, planningDate: string, H: number, diagnostics: string[]): { statics: SiteStatic[]; order: number[] } {
  const idxOf = new Map<number, number>();
  item.sites.forEach((s, i) => {
    if (idxOf.has(s.site_id)) throw new SupplyNetworkError(`site ${s.site_id} appears twice in item ${item.item_id}`);
    idxOf.set(s.site_id, i);
  });

  const arena = new Arena(item.sites.length * 4 * H);
  const statics: SiteStatic[] = item.sites.map((s, idx) => ({
    idx,
    input: s,
    opening: Number.isFinite(s.on_hand) ? s.on_hand : 0,
    demand: fitLength(s.forecast, arena.take(H)),
    returns: fitLength(s.returns, arena.take(H)),
    ss: safetyStockArray(s.safety_stock, arena.take(H)),
    firmIn: arena.take(H),
    firmBeyond: 0,
    firmOut: [],
    firmOutRows: [],
    lfw: new Uint8Array(N_ORDER_TYPES),
    minLT: new Float64Array(N_ORDER_TYPES),
    routes: Array.from({ length: N_ORDER_TYPES }, () => []),
  }));

  // Routes into each site, by order type.
  const inbound: Array<Array<{ route_type: string | null; lead_time: number | null }>> = statics.map(() => []);
  const transferArcs: Array<{ from: number; to: number }> = [];
  const blocked: number[] = [];
  for (const r of item.routes) {
    const to = idxOf.get(r.to_site_id);
    if (to === undefined) continue; // a route into a site the item is not planned at
    const type = routeOrderType(r.route_type);
    if (type < 0) {
      const refused = r.route_type === null ? null : refusedRouteType(r.route_type);
      diagnostics.push(`route ${r.route_id}: route type ${String(r.route_type)} is not planned on${refused ? ` (${refused})` : ''}`);
      continue;
    }
    if (type === TRANSFER && r.from_site_id === r.to_site_id) {
      diagnostics.push(`route ${r.route_id}: TRANSFER from a site to itself is ignored`);
      continue;
    }
    if (item.superseded && SUPERSEDED_BLOCKED_TYPES.includes(type)) {
      blocked.push(r.route_id);
      continue;
    }
    inbound[to]!.push(r);
    const lead = r.lead_time ?? 0;
    const fromIdx = idxOf.get(r.from_site_id) ?? -1;
    statics[to]!.routes[type]!.push({
      route_id: r.route_id,
      from_site_id: r.from_site_id,
      fromIdx,
      L: max(0, ceil(lead - 1e-9)),
      priority: r.priority,
    });
    if (type === TRANSFER && fromIdx >= 0) transferArcs.push({ from: r.from_site_id, to: r.to_site_id });
  }
  if (blocked.length) diagnostics.push(`superseded on an active global edge: routes ${blocked.join(', ')} (BUY, BUILD, TRANSFER, BALANCING) blocked`);
  for (const st of statics) {
    for (const rs of st.routes) rs.sort((a, b) => a.priority - b.priority || a.L - b.L || a.route_id - b.route_id);
    st.minLT = minLeadTimes(inbound[st.idx]!);
  }

  // Firm orders: rule 1 over all of a SKU's firm orders; receipts and upstream withdrawals only while they count.
  const firmBySite: Array<SupplyItemInput['firm_orders']> = statics.map(() => []);
  for (const f of item.firm_orders) {
    const to = idxOf.get(f.site_id);
    if (to === undefined) {
      diagnostics.push(`firm order ${f.id}: site ${f.site_id} is not in the item's network`);
      continue;
    }
    firmBySite[to]!.push(f);
    if (!firmCountsAsSupply(f.erp_status)) continue;
    const remaining = firmRemainingQty(f); // rule 7
    if (!(remaining > 0)) continue;
    const st = statics[to]!;
    const arrival = weekOffset(f.arrival_dt, planningDate);
    // The allocation pool's clamp (horizon.ts): an order arriving after the horizon is supply in its last week.
    if (arrival >= H) st.firmBeyond += remaining;
    st.firmIn[clampWeek(arrival, H)] += remaining;
    // A firm transfer not yet shipped still has to leave its source: demand there in its release week. Once in
    // transit it has left, and the source's on-hand no longer holds it.
    const from = f.source_site_id ?? null;
    const fromIdx = from === null ? undefined : idxOf.get(from);
    if (orderTypeIndex(f.order_type) === TRANSFER && fromIdx !== undefined && fromIdx !== to && f.erp_status !== 'in_transit') {
      const release = weekOffset(f.release_dt, planningDate);
      if (release < H) {
        const week = clampWeek(release, H);
        const src = statics[fromIdx]!;
        src.firmOut.push({ kind: 'firm_transfer', week, qty: remaining, ref_id: f.id });
        src.firmOutRows.push({
          item_id: item.item_id,
          site_id: src.input.site_id,
          downstream_site_id: f.site_id,
          week,
          qty: remaining,
          origin: 'firm',
          order_id: f.id,
        });
      }
    }
  }
  for (const st of statics) st.lfw = latestFirmWeeks(firmBySite[st.idx]!, planningDate, H);

  // Low-level codes over TRANSFER arcs: topologicalOrder puts suppliers first, so reversed it is downstream first.
  const graph = buildRouteGraph(transferArcs, item.sites.map((s) => s.site_id));
  const topo = topologicalOrder(graph);
  if (topo === null) throw new SupplyNetworkError(`item ${item.item_id}: ${formatCycle(detectCycle(graph) ?? [])} (TRANSFER routes)`);
  const order = topo.reverse().map((site) => idxOf.get(site)!);
  return { statics, order };
}

function freshDyns(n: number, H: number): SiteDyn[] {
  const arena = new Arena(n * 6 * H);
  const reasons = new Uint8Array(n * H);
  return Array.from({ length: n }, (_, i) => ({
    indirect: arena.take(H),
    gross: arena.take(H),
    plannedIn: arena.take(H),
    fixedIn: arena.take(H),
    projected: arena.take(H),
    lines: [],
    orders: [],
    unsourced: arena.take(H),
    reason: reasons.subarray(i * H, (i + 1) * H),
  }));
}

const REASON_CODES: NoSourceReason[] = ['', 'no_route', 'blocked', 'lead_time', 'capacity'];
const R_NO_ROUTE = 1, R_BLOCKED = 2, R_LEAD_TIME = 3, R_CAPACITY = 4;

function makeOrder(
  ctx: ItemContext,
  st: SiteStatic,
  typeIndex: number,
  kind: OrderKind,
  status: OrderStatus,
  route: RouteRef,
  qty: number,
  requested: number,
  release: number,
  arrival: number,
  need: number,
): PlannedOrder {
  const o: PlannedOrder = {
    id: ctx.nextId++,
    item_id: ctx.item.item_id,
    site_id: st.input.site_id,
    source_site_id: route.from_site_id,
    route_id: route.route_id,
    order_type: ORDER_TYPES[typeIndex]!,
    type_index: typeIndex,
    kind,
    status,
    qty,
    requested_qty: requested,
    release_week: release,
    arrival_week: arrival,
    need_week: need,
    late: release < 0 || arrival > need,
    pegging: [],
  };
  ctx.orders.push(o);
  return o;
}

/** A TRANSFER order takes stock out of its source in its release week (week 0 for a release in the past). */
function drawOnSource(ctx: ItemContext, dyns: SiteDyn[], o: PlannedOrder, fromIdx: number, origin: 'planned' | 'prepos'): void {
  // document 2 §4.4 rule 5: a superseded item's indirect demand is dropped, whatever its type
  if (fromIdx < 0 || ctx.item.superseded) return;
  const week = max(0, o.release_week);
  const src = dyns[fromIdx]!;
  src.indirect[week] += o.qty;
  const kind: DemandLineKind = origin === 'prepos' ? 'prepos' : 'indirect';
  src.lines.push({ kind, week, qty: o.qty, ref_id: o.id });
  ctx.indirectRows.push({
    item_id: ctx.item.item_id,
    site_id: ctx.statics[fromIdx]!.input.site_id,
    downstream_site_id: o.site_id,
    week,
    qty: o.qty,
    origin,
    order_id: o.id,
  });
}

/**
 * Route of an allowed type: the first in preference order (priority, then shorter lead time, then lower id). Lead
 * time is not looked at again here: rule 5 puts the lead-time check on the type, before any route is examined, so a
 * preferred route slower than the type's fastest one is still taken, and an order on it that would have to be
 * released before week 0 is flagged late.
 */
function pickRoute(routes: RouteRef[]): RouteRef | null {
  return routes[0] ?? null;
}

/**
 * Place the lot-sized requirement of week t on a route, through capacity at the source in the release week: what
 * fits stays (`constrained` when cut), the rest moves to the next weeks with free capacity (`delayed`), up to
 * maxDelayWeeks and while it still arrives within the horizon; what is left is dropped and re-netted next week.
 * Returns the quantity placed.
 */
function place(ctx: ItemContext, st: SiteStatic, t: number, typeIndex: number, route: RouteRef, need: number): number {
  const H = ctx.opt.horizon;
  const Q = lotSize(need, st.input.lot);
  let release = t - route.L;
  let arrival = t;
  if (release < 0 && ctx.opt.lateOrders === 'arrive_late') {
    release = 0;
    arrival = route.L;
    if (arrival >= H) return 0;
  }
  const late = release < 0 || arrival > t;
  const capWeek = max(0, release);
  const src = route.from_site_id;
  const free = ctx.ledger.available(src, capWeek);
  let placed = 0;
  if (free >= Q - EPS * max(1, Q)) {
    ctx.ledger.consume(src, capWeek, Q);
    makeOrder(ctx, st, typeIndex, 'PLANNED', late ? 'delayed' : 'planned', route, Q, Q, release, arrival, t);
    return Q;
  }
  const fit = max(0, free);
  if (fit > EPS) {
    ctx.ledger.consume(src, capWeek, fit);
    makeOrder(ctx, st, typeIndex, 'PLANNED', 'constrained', route, fit, Q, release, arrival, t);
    placed += fit;
  }
  let rest = Q - placed;
  for (let r2 = capWeek + 1; rest > EPS && r2 - capWeek <= ctx.opt.maxDelayWeeks && r2 + route.L < H; r2++) {
    const f2 = ctx.ledger.available(src, r2);
    if (!(f2 > EPS)) continue;
    const take = min(f2, rest);
    ctx.ledger.consume(src, r2, take);
    makeOrder(ctx, st, typeIndex, 'PLANNED', 'delayed', route, take, take, r2, r2 + route.L, t);
    placed += take;
    rest -= take;
  }
  return placed;
}

/** Net one site over the horizon. Every order drawing on it from downstream is already in dyn.indirect. */
function netSite(ctx: ItemContext, dyns: SiteDyn[], st: SiteStatic, fixed: ExpediteSpec[]): void {
  const H = ctx.opt.horizon;
  const dyn = dyns[st.idx]!;
  const flags = ctx.flags;

  // Expedited orders of pass B are fixed receipts, emitted first so their withdrawals upstream are in place.
  for (const e of fixed) {
    const o = makeOrder(ctx, st, e.kind === 'BUY_EXPEDITE' ? BUY : TRANSFER, e.kind, 'expedited', e.route, e.qty, e.qty, e.release, e.arrival, e.arrival);
    dyn.orders.push(o);
    dyn.fixedIn[e.arrival] += e.qty;
    if (e.kind === 'TRANSFER_PREPOS') drawOnSource(ctx, dyns, o, e.route.fromIdx, 'prepos');
  }

  for (let t = 0; t < H; t++) dyn.gross[t] = st.demand[t]! + dyn.indirect[t]! - st.returns[t]!;

  const hasAnyRoute = st.routes.some((rs) => rs.length > 0);
  let proj = st.opening;
  // Receipts of orders placed for earlier weeks that arrive after the current week (capacity delays, late arrivals):
  // the requirement they answer is already sourced, so they count against the shortfall before they arrive.
  let futureIn = 0;
  for (let t = 0; t < H; t++) {
    futureIn -= dyn.plannedIn[t]!;
    proj += st.firmIn[t]! + dyn.fixedIn[t]! + dyn.plannedIn[t]! - dyn.gross[t]!;
    const need = st.ss[t]! - proj - futureIn;
    if (need > EPS * max(1, abs(proj), st.ss[t]!)) {
      const first = ctx.orders.length;
      let placed = 0;
      let chosen: RouteRef | null = null;
      let blocked = false;
      for (const type of SOURCING_SEQUENCE) {
        // Rules 2 and 4 on the type before any of its routes is looked at (rule 5).
        if (!typeAllowed(t, st.lfw[type]!, st.minLT[type]!, flags)) {
          if (st.routes[type]!.length > 0) blocked = true;
          continue;
        }
        const route = pickRoute(st.routes[type]!);
        if (route === null) continue;
        placed = place(ctx, st, t, type, route, need);
        chosen = route;
        break;
      }
      if (chosen === null) {
        // REPLENISH after sourcing: not one of the six source types, so rules 2 and 4 do not apply to it.
        const route = pickRoute(st.routes[REPLENISH]!);
        if (route !== null) {
          placed = place(ctx, st, t, REPLENISH, route, need);
          chosen = route;
        }
      }
      for (let k = first; k < ctx.orders.length; k++) {
        const o = ctx.orders[k]!;
        dyn.orders.push(o);
        if (o.arrival_week === t) proj += o.qty;
        else futureIn += o.qty;
        dyn.plannedIn[o.arrival_week] += o.qty;
        if (o.type_index === TRANSFER) drawOnSource(ctx, dyns, o, chosen!.fromIdx, 'planned');
      }
      if (placed < need - EPS * max(1, need)) {
        dyn.unsourced[t] = need - placed;
        dyn.reason[t] =
          chosen !== null
            ? ctx.ledger.isConstrained(chosen.from_site_id) ? R_CAPACITY : R_LEAD_TIME
            : blocked ? R_BLOCKED : hasAnyRoute ? R_LEAD_TIME : R_NO_ROUTE;
      }
    }
    dyn.projected[t] = proj;
  }
}

function runPass(ctx: ItemContext, fixed: ExpediteSpec[][]): SiteDyn[] {
  const H = ctx.opt.horizon;
  const dyns = freshDyns(ctx.statics.length, H);
  for (const st of ctx.statics) {
    if (ctx.item.superseded) break;
    const dyn = dyns[st.idx]!;
    for (const l of st.firmOut) {
      dyn.indirect[l.week] += l.qty;
      dyn.lines.push(l);
    }
    ctx.indirectRows.push(...st.firmOutRows);
  }
  for (const idx of ctx.order) netSite(ctx, dyns, ctx.statics[idx]!, fixed[idx]!);
  return dyns;
}

/**
 * The post-processor on pass A's projection: for each week still short (projected < 0), downstream sites first,
 * pre-position stock from upstream sites along TRANSFER routes (by preference) when it can leave the source at or
 * after week 0 and the source keeps its safety stock in every later week; then buy the rest on the site's first BUY
 * route with the lead time compressed to nothing (the premium is the point of expediting). Capacity is not drawn on:
 * an expedite is bought outside the normal capacity. Rule 6: the firm block is not consulted, nor is respect_lead_time
 * (an expedite exists to beat the lead time).
 */
function expedite(ctx: ItemContext, dyns: SiteDyn[]): ExpediteSpec[][] | null {
  const H = ctx.opt.horizon;
  const work = dyns.map((d) => Float64Array.from(d.projected));
  const out: ExpediteSpec[][] = ctx.statics.map(() => []);
  let any = false;
  for (const idx of ctx.order) {
    const st = ctx.statics[idx]!;
    const proj = work[idx]!;
    for (let t = 0; t < H; t++) {
      let short = -proj[t]!;
      if (!(short > EPS)) continue;
      for (const route of st.routes[TRANSFER]!) {
        const release = t - route.L;
        if (release < 0 || route.fromIdx < 0) continue;
        const srcProj = work[route.fromIdx]!;
        const srcSs = ctx.statics[route.fromIdx]!.ss;
        let avail = Infinity;
        for (let w = release; w < H; w++) avail = min(avail, srcProj[w]! - srcSs[w]!);
        if (!(avail > EPS)) continue;
        const take = min(short, avail);
        for (let w = release; w < H; w++) srcProj[w] -= take;
        for (let w = t; w < H; w++) proj[w] += take;
        out[idx]!.push({ siteIdx: idx, kind: 'TRANSFER_PREPOS', route, qty: take, release, arrival: t });
        any = true;
        short -= take;
        if (!(short > EPS)) break;
      }
      const buy = st.routes[BUY]![0];
      if (short > EPS && buy) {
        for (let w = t; w < H; w++) proj[w] += short;
        out[idx]!.push({ siteIdx: idx, kind: 'BUY_EXPEDITE', route: buy, qty: short, release: t, arrival: t });
        any = true;
      }
    }
  }
  return any ? out : null;
}

function buildPlans(ctx: ItemContext, dyns: SiteDyn[]): { plans: SkuSitePlan[]; exceptions: SupplyException[] } {
  const H = ctx.opt.horizon;
  const plans: SkuSitePlan[] = [];
  const exceptions: SupplyException[] = [];
  const out = new Arena(ctx.statics.length * 2 * H);
  for (const st of ctx.statics) {
    const dyn = dyns[st.idx]!;
    const receiptsPlanned = out.take(H);
    for (let t = 0; t < H; t++) receiptsPlanned[t] = dyn.plannedIn[t]! + dyn.fixedIn[t]!;
    const shortage = out.take(H);
    for (let t = 0; t < H; t++) shortage[t] = max(0, -dyn.projected[t]!);
    pegSite({
      siteId: st.input.site_id,
      opening: st.opening,
      demand: st.demand,
      returns: st.returns,
      firmIn: st.firmIn,
      orders: dyn.orders,
      lines: dyn.lines,
      endSafetyStock: st.ss[H - 1]!,
      horizon: H,
    });

    const service = siteServiceKpis(st.opening, dyn.projected, st.firmIn, receiptsPlanned, dyn.gross, st.input.unit_cost);
    plans.push({
      item_id: ctx.item.item_id,
      site_id: st.input.site_id,
      ...(st.input.series_id !== undefined ? { series_id: st.input.series_id } : {}),
      opening: st.opening,
      demand: st.demand,
      indirect: dyn.indirect,
      returns: st.returns,
      gross: dyn.gross,
      receipts_firm: st.firmIn,
      receipts_planned: receiptsPlanned,
      projected: dyn.projected,
      safety_stock: st.ss,
      shortage,
      latest_firm_week: Array.from(st.lfw),
      min_lead_time: Array.from(st.minLT),
      firm_beyond_horizon: st.firmBeyond,
      unit_cost: st.input.unit_cost,
      ...service,
    });
    exceptions.push(
      ...siteExceptions({
        item_id: ctx.item.item_id,
        site_id: st.input.site_id,
        projected: dyn.projected,
        ss: st.ss,
        gross: dyn.gross,
        orders: dyn.orders,
        unsourced: dyn.unsourced,
        reasons: dyn.reason,
        reasonCodes: REASON_CODES,
        excessCoverWeeks: ctx.opt.excessCoverWeeks,
      }),
    );
  }
  return { plans, exceptions };
}

/**
 * Plan one item across its network. `ledger` carries capacity shared with the other items of the run (consumed here);
 * `firstId` is the id of the first order made. Throws SupplyNetworkError for a TRANSFER cycle or a duplicated site,
 * leaving the ledger as it found it.
 */
export function planItem(
  item: SupplyItemInput,
  planningDate: string,
  flags: SupplyFlags,
  options: SupplyOptions = {},
  ledger?: CapacityLedger,
  firstId = 1,
): ItemPlan {
  const opt = resolveOptions(options);
  const H = opt.horizon;
  const led = ledger ?? new CapacityLedger([], H);
  const diagnostics: string[] = [];
  const { statics, order } = buildStatics(item, planningDate, H, diagnostics);
  const mark = led.mark();
  const ctx: ItemContext = { item, flags, opt, ledger: led, statics, order, nextId: firstId, indirectRows: [], orders: [] };
  const none: ExpediteSpec[][] = statics.map(() => []);
  let dyns = runPass(ctx, none);
  const fixed = opt.expedite ? expedite(ctx, dyns) : null;
  if (fixed !== null) {
    led.rollback(mark);
    ctx.nextId = firstId;
    ctx.indirectRows = [];
    ctx.orders = [];
    dyns = runPass(ctx, fixed);
  }
  const { plans, exceptions } = buildPlans(ctx, dyns);
  return { orders: ctx.orders, plans, indirect: ctx.indirectRows, exceptions, diagnostics, nextId: ctx.nextId };
}

/**
 * Plan a run (or one chunk of a run): items in input order over one capacity ledger. An item that cannot be planned
 * is reported in `errors` and leaves no orders and no capacity consumed; the others go on.
 */
export function planSupply(input: SupplyRunInput): SupplyRunResult {
  const opt = resolveOptions(input.options);
  const ledger = new CapacityLedger(input.capacity ?? [], opt.horizon);
  const result: SupplyRunResult = {
    orders: [],
    plans: [],
    indirect: [],
    exceptions: [],
    kpis: computeKpis([], [], 0),
    capacity_used: [],
    capacity_used_by_item: [],
    checks: { ok: true, max_conservation_residual: 0, max_pegging_residual: 0, violations: [] },
    errors: [],
    diagnostics: [],
  };
  let nextId = 1;
  for (const item of input.items) {
    const mark = ledger.mark();
    try {
      const p = planItem(item, input.planning_date, input.flags, opt, ledger, nextId);
      nextId = p.nextId;
      for (const o of p.orders) result.orders.push(o);
      for (const pl of p.plans) result.plans.push(pl);
      for (const r of p.indirect) result.indirect.push(r);
      for (const e of p.exceptions) result.exceptions.push(e);
      for (const d of p.diagnostics) result.diagnostics.push({ item_id: item.item_id, message: d });
      for (const u of ledger.usageSince(mark)) result.capacity_used_by_item.push({ item_id: item.item_id, ...u });
    } catch (err) {
      ledger.rollback(mark);
      result.errors.push({ item_id: item.item_id, message: err instanceof Error ? err.message : String(err) });
    }
    ledger.commit();
  }
  result.capacity_used = ledger.usage();
  result.kpis = computeKpis(result.plans, result.orders, result.exceptions.length);
  if (opt.check) result.checks = checkSupplyResult(result, opt.horizon);
  return result;
}
