import { createRng, type Rng } from '../../../domain/inventory/random';
import { planSupply } from '../../../domain/supply/engine';
import type { CapacityInput, FirmOrderInput, SupplyFlags, SupplyItemInput, SupplyOptions, SupplyRoute, SupplyRunResult } from '../../../domain/supply/types';
import { PLANNING_DATE, day } from './builders';

const H = 52;
const TYPES = ['BUY', 'BUILD', 'REPAIR', 'TRANSFER', 'BALANCING', 'REPLENISH', 'RETURN'];
const SOURCING = [0, 1, 2, 3, 4, 6];

const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

/**
 * A random item: optionally a plant feeding one or two DCs by TRANSFER, DCs feeding 1-4 stores by TRANSFER, with BUY
 * (some untyped, some with null lead times), BUILD, REPAIR, RETURN, BALANCING between stores, REPLENISHMENT; random
 * demand with gaps, returns, stock, safety stock (flat or per week), lot rules and firm orders of every status.
 */
function randomItem(rng: Rng, itemId: number, routeIds: { next: number }, firmIds: { next: number }): SupplyItemInput {
  const sites: SupplyItemInput['sites'] = [];
  const routes: SupplyRoute[] = [];
  const r = (type: string | null, from: number, to: number, priority = int(rng, 1, 3)) =>
    routes.push({ route_id: routeIds.next++, from_site_id: from, to_site_id: to, route_type: type, lead_time: rng() < 0.1 ? null : pick(rng, [0, 1, 2, 3, 4, 6, 1.5, 0.5]), priority });
  const addSite = (id: number, demandScale: number) => {
    const lot = { eoq: rng() < 0.4 ? int(rng, 5, 80) : null, moq: rng() < 0.3 ? int(rng, 1, 40) : 0, multiple: pick(rng, [0, 1, 1, 5, 12]) };
    const ss = rng() < 0.2 ? Array.from({ length: int(rng, 1, H) }, () => int(rng, 0, 15)) : rng() < 0.5 ? 0 : int(rng, 0, 20);
    sites.push({
      site_id: id,
      series_id: `${itemId}_${id}`,
      forecast: Array.from({ length: H }, () => (rng() < 0.3 ? 0 : Math.round(rng() * demandScale * 10) / 10)),
      ...(rng() < 0.3 ? { returns: Array.from({ length: H }, () => (rng() < 0.9 ? 0 : int(rng, 1, 8))) } : {}),
      on_hand: rng() < 0.05 ? -int(rng, 1, 10) : int(rng, 0, 100),
      safety_stock: ss,
      lot,
      unit_cost: int(rng, 1, 50),
    });
  };
  const dcs = rng() < 0.3 ? [10, 11] : [10];
  const plant = rng() < 0.3 ? 1 : null;
  if (plant !== null) {
    addSite(plant, 0);
    r('BUILD', plant, plant);
    if (rng() < 0.5) r('BUY', 900, plant);
  }
  for (const dc of dcs) {
    addSite(dc, rng() < 0.5 ? 0 : 5);
    if (plant !== null) r('TRANSFER', plant, dc);
    if (rng() < 0.8) r(pick(rng, ['BUY', 'BUY', null, '']), 900 + int(rng, 0, 2), dc);
    if (rng() < 0.3) r('BUY', 903, dc);
    if (rng() < 0.2) r('REPAIR', 950, dc);
    if (rng() < 0.2) r('RETURN', 951, dc);
    if (rng() < 0.15) r('REPLENISHMENT', 952, dc);
  }
  const nStores = int(rng, 1, 4);
  const stores: number[] = [];
  for (let k = 0; k < nStores; k++) {
    const s = 20 + k;
    stores.push(s);
    addSite(s, 20);
    r('TRANSFER', pick(rng, dcs), s);
    if (rng() < 0.2) r('TRANSFER', pick(rng, dcs), s, 5);
    if (rng() < 0.15) r('BUY', 900, s);
    if (rng() < 0.15) r('REPLENISHMENT', 952, s);
    if (rng() < 0.1) r('MAKE', 953, s);
  }
  for (const s of stores) if (stores.length > 1 && rng() < 0.2) r('BALANCING', pick(rng, stores.filter((x) => x !== s)), s);

  const firm: FirmOrderInput[] = [];
  const nFirm = int(rng, 0, 6);
  for (let k = 0; k < nFirm; k++) {
    const siteId = pick(rng, sites).site_id;
    const type = pick(rng, TYPES);
    const release = int(rng, -40, 420);
    const qty = int(rng, 1, 60);
    firm.push({
      id: firmIds.next++,
      site_id: siteId,
      source_site_id: type === 'TRANSFER' ? pick(rng, [...dcs, 900]) : null,
      order_type: type,
      qty,
      received_qty: rng() < 0.3 ? int(rng, 0, qty + 5) : rng() < 0.5 ? null : 0,
      erp_status: pick(rng, ['firm', 'released', 'in_transit', 'received', null]),
      release_dt: `${day(release)}T${String(int(rng, 0, 23)).padStart(2, '0')}:00:00Z`,
      arrival_dt: `${day(release + int(rng, 0, 60))}T12:00:00Z`,
    });
  }
  return { item_id: itemId, sites, routes, firm_orders: firm };
}

function randomRun(seed: number, nItems: number) {
  const rng = createRng(seed);
  const routeIds = { next: 1 };
  const firmIds = { next: 1 };
  const items = Array.from({ length: nItems }, (_, i) => randomItem(rng, i + 1, routeIds, firmIds));
  const capacity: CapacityInput[] = [];
  for (const s of [900, 901, 10, 1]) if (rng() < 0.4) for (let w = 0; w < H; w++) capacity.push({ site_id: s, week: w, qty: int(rng, 0, 120) });
  const flags: SupplyFlags = { firm_orders_block_horizon: rng() < 0.5, respect_lead_time: rng() < 0.5 };
  const options: SupplyOptions = {
    lateOrders: rng() < 0.5 ? 'flag' : 'arrive_late',
    expedite: rng() < 0.7,
    ...(rng() < 0.3 ? { maxDelayWeeks: int(rng, 0, 6) } : {}),
  };
  return { items, capacity, flags, options };
}

const days = (dt: string | Date) => Math.floor((Date.parse(String(dt)) - Date.parse(`${PLANNING_DATE}T00:00:00Z`)) / 86_400_000);
const week = (dt: string | Date) => Math.floor(days(dt) / 7);
/** MAKE is BUILD under another name (docs/SUPPLY.md, route types). */
const routeType = (t: string | null) => (t === null || t === '' ? 'BUY' : t === 'REPLENISHMENT' ? 'REPLENISH' : t === 'MAKE' ? 'BUILD' : t);

/** Checks written from the specification, independently of the engine's own checks. */
function verify(items: SupplyItemInput[], capacity: CapacityInput[], flags: SupplyFlags, res: SupplyRunResult): string[] {
  // Failures are collected and asserted once: a jest expect per SKU-site-week costs more than the plan itself.
  const failures: string[] = [];
  const check = (ok: boolean, what: () => string) => {
    if (!ok && failures.length < 20) failures.push(what());
  };
  check(res.errors.length === 0, () => `errors ${JSON.stringify(res.errors)}`);
  check(res.checks.ok, () => `engine checks ${res.checks.violations.join('; ')}`);
  const tol = (x: number) => 1e-7 * Math.max(1, Math.abs(x));
  const receiptsOf = new Map<string, number[]>();
  const indirectOf = new Map<string, number[]>();
  const ordersOf = new Map<string, SupplyRunResult['orders']>();
  const weekly = (m: Map<string, number[]>, k: string) => m.get(k) ?? (m.set(k, new Array<number>(H).fill(0)), m.get(k)!);
  for (const o of res.orders) {
    weekly(receiptsOf, `${o.item_id}:${o.site_id}`)[o.arrival_week] += o.qty;
    const k = `${o.item_id}:${o.site_id}`;
    const list = ordersOf.get(k);
    if (list) list.push(o);
    else ordersOf.set(k, [o]);
  }
  for (const x of res.indirect) weekly(indirectOf, `${x.item_id}:${x.site_id}`)[x.week] += x.qty;
  const plans = new Map(res.plans.map((p) => [`${p.item_id}:${p.site_id}`, p]));
  for (const it of items) {
    for (const s of it.sites) {
      const k = `${it.item_id}:${s.site_id}`;
      const plan = plans.get(k)!;
      // Rule 7 and the erp_status filter: firm receipts from the inputs.
      const firmIn = new Array<number>(H).fill(0);
      const mine = it.firm_orders.filter((f) => f.site_id === s.site_id);
      for (const f of mine) {
        if (!['firm', 'released', 'in_transit'].includes(f.erp_status ?? '')) continue;
        const rem = Math.max(0, (f.qty ?? 0) - (f.received_qty ?? 0));
        const w = week(f.arrival_dt);
        // After the horizon counts in its last week, as in the allocation pool (document 2 §4.3 rule 2).
        if (rem > 0) firmIn[Math.min(H - 1, Math.max(0, w))] += rem;
      }
      for (let t = 0; t < H; t++) check(Math.abs(plan.receipts_firm[t]! - firmIn[t]!) <= tol(firmIn[t]!), () => `${k} week ${t}: firm receipts`);
      // Rules 1 and 3 from the inputs.
      const lfw = TYPES.map((type) => {
        const ws = mine.filter((f) => f.order_type.toUpperCase() === type).map((f) => Math.min(51, Math.max(0, week(f.release_dt))));
        return ws.length ? Math.max(...ws) : 255;
      });
      check(plan.latest_firm_week.join() === lfw.join(), () => `${k}: latest firm weeks ${plan.latest_firm_week} vs ${lfw}`);
      const into = it.routes.filter((r) => r.to_site_id === s.site_id && !(r.route_type === 'TRANSFER' && r.from_site_id === r.to_site_id));
      const mlt = TYPES.map((type) => {
        const ls = into.filter((r) => routeType(r.route_type) === type).map((r) => r.lead_time ?? 0);
        return ls.length ? Math.min(...ls) : 0;
      });
      check(plan.min_lead_time.join() === mlt.join(), () => `${k}: min lead times ${plan.min_lead_time} vs ${mlt}`);

      // Conservation: opening + receipts - demand = closing, every week.
      const orders = ordersOf.get(k) ?? [];
      const rec = weekly(receiptsOf, k);
      const ind = weekly(indirectOf, k);
      let prev = s.on_hand;
      for (let t = 0; t < H; t++) {
        const receipts = firmIn[t]! + rec[t]!;
        const demand = (s.forecast[t] ?? 0) + ind[t]! - (s.returns?.[t] ?? 0);
        const closing = prev + receipts - demand;
        check(Math.abs(closing - plan.projected[t]!) <= 1e-6 * Math.max(1, Math.abs(closing)), () => `${k} week ${t}: closing ${closing} vs ${plan.projected[t]}`);
        prev = plan.projected[t]!;
      }

      // Rules 2, 4, 5 on what was produced: no netting order of a source type inside its blocked weeks.
      for (const o of orders) {
        if (o.kind !== 'PLANNED' || !SOURCING.includes(o.type_index)) continue;
        if (flags.firm_orders_block_horizon && lfw[o.type_index] !== 255) check(o.need_week >= lfw[o.type_index]!, () => `order ${o.id}: rule 2`);
        if (flags.respect_lead_time && mlt[o.type_index]! > 0) check(o.need_week >= mlt[o.type_index]!, () => `order ${o.id}: rule 4`);
      }
    }
  }
  for (const o of res.orders) {
    // Pegged quantities add up to the order; a forecast line is never over-pegged.
    check(Math.abs(o.pegging.reduce((a, p) => a + p.qty, 0) - o.qty) <= tol(o.qty), () => `order ${o.id}: pegging sum`);
    check(o.pegging.every((p) => p.qty > 0 && p.site_id === o.site_id), () => `order ${o.id}: pegging lines`);
    // Nothing released before week 0 unless flagged; under respect_lead_time the netting releases nothing before week 0.
    if (o.release_week < 0) check(o.late && o.status !== 'planned', () => `order ${o.id}: released before week 0 unflagged`);
    check(o.arrival_week >= 0 && o.arrival_week < H, () => `order ${o.id}: arrival ${o.arrival_week}`);
    check((o.kind === 'PLANNED') === (o.status !== 'expedited'), () => `order ${o.id}: kind ${o.kind} status ${o.status}`);
  }
  const peggedToLine = new Map<string, number>();
  for (const o of res.orders) for (const p of o.pegging) if (p.kind === 'forecast') peggedToLine.set(`${o.item_id}:${p.demand_line}`, (peggedToLine.get(`${o.item_id}:${p.demand_line}`) ?? 0) + p.qty);
  for (const [k, q] of peggedToLine) {
    const [itemId, , siteId, w] = k.split(/[:]/).map(Number) as [number, number, number, number];
    const f = items.find((i) => i.item_id === itemId)!.sites.find((s) => s.site_id === siteId)!.forecast[w]!;
    check(q <= f + tol(f), () => `${k}: pegged ${q} > forecast ${f}`);
  }
  // Capacity is never overdrawn.
  const capOf = new Map<string, number>();
  for (const c of capacity) capOf.set(`${c.site_id}:${c.week}`, (capOf.get(`${c.site_id}:${c.week}`) ?? 0) + c.qty);
  for (const u of res.capacity_used) check(u.qty <= (capOf.get(`${u.site_id}:${u.week}`) ?? 0) + 1e-7, () => `capacity ${u.site_id}:${u.week} overdrawn`);
  return failures;
}

describe('conservation and rules on random networks', () => {
  it('300 seeded instances of 1-4 items: conservation per SKU-site-week, pegging sums, rules 1-5 and 7, capacity', () => {
    let orders = 0;
    let expedited = 0;
    let late = 0;
    let constrained = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { items, capacity, flags, options } = randomRun(seed, 1 + (seed % 4));
      const res = planSupply({ planning_date: PLANNING_DATE, flags, items, capacity, options });
      const failures = verify(items, capacity, flags, res);
      if (failures.length) throw new Error(`seed ${seed}: ${failures.join('\n')}`);
      orders += res.orders.length;
      expedited += res.kpis.orders_by_status.expedited.count;
      late += res.orders.filter((o) => o.late).length;
      constrained += res.kpis.orders_by_status.constrained.count;
    }
    // The instances exercise every path.
    expect(orders).toBeGreaterThan(1000);
    expect(expedited).toBeGreaterThan(0);
    expect(late).toBeGreaterThan(0);
    expect(constrained).toBeGreaterThan(0);
  });

  it('deterministic: the same input gives the same output', () => {
    const a = randomRun(77, 3);
    const b = randomRun(77, 3);
    const ra = planSupply({ planning_date: PLANNING_DATE, ...a, items: a.items });
    const rb = planSupply({ planning_date: PLANNING_DATE, ...b, items: b.items });
    expect(JSON.stringify(ra)).toBe(JSON.stringify(rb));
  });
});

describe('speed', () => {
  it('10,000 SKU-sites x 52 weeks: every check holds at full size', () => {
    const rng = createRng(2025);
    const items: SupplyItemInput[] = [];
    let routeId = 1;
    // 2,000 items x (1 DC + 4 stores), BUY into the DC, TRANSFER to the stores, EOQ at the DC, safety stock everywhere.
    for (let i = 1; i <= 2000; i++) {
      const sites = [10, 20, 21, 22, 23].map((s) => ({
        site_id: s,
        forecast: Array.from({ length: H }, () => (s === 10 ? 0 : Math.round(rng() * 20))),
        on_hand: int(rng, 0, 60),
        safety_stock: int(rng, 0, 15),
        lot: { eoq: s === 10 ? 80 : null, moq: 0, multiple: 1 },
        unit_cost: 10,
      }));
      const routes: SupplyRoute[] = [
        { route_id: routeId++, from_site_id: 900, to_site_id: 10, route_type: 'BUY', lead_time: 3, priority: 1 },
        ...[20, 21, 22, 23].map((s) => ({ route_id: routeId++, from_site_id: 10, to_site_id: s, route_type: 'TRANSFER', lead_time: 1, priority: 1 })),
      ];
      const firm: FirmOrderInput[] = [{ id: i, site_id: 10, order_type: 'BUY', qty: 100, received_qty: 0, erp_status: 'firm', release_dt: day(7), arrival_dt: day(28) }];
      items.push({ item_id: i, sites, routes, firm_orders: firm });
    }
    const capacity = Array.from({ length: H }, (_, w) => ({ site_id: 900, week: w, qty: 60_000 }));
    const flags = { firm_orders_block_horizon: true, respect_lead_time: true };
    // speed is measured by a benchmark, not here: this checks conservation and pegging at full size
    const res = planSupply({ planning_date: PLANNING_DATE, flags, items, capacity });
    expect(res.plans.length).toBe(10_000);
    expect(res.checks.ok).toBe(true);
  });
});
