import { planSupply } from '../../../domain/supply/engine';
import { lotSize, resolveSiteParameters } from '../../../domain/supply/lotSizing';
import { OFF, PLANNING_DATE, item, o, route, run, site, withoutIds } from './builders';

const pegs = (x: { pegging: Array<{ demand_line: string; qty: number }> }) => x.pegging.map((p) => [p.demand_line, p.qty]);

describe('lot sizes and parameter precedence', () => {
  it('EOQ lots, then MOQ, then the order multiple', () => {
    expect(lotSize(23, { eoq: 10, moq: 0, multiple: 0 })).toBe(30);
    expect(lotSize(30, { eoq: 10, moq: 0, multiple: 0 })).toBe(30);
    expect(lotSize(0.1 + 0.2, { eoq: 0.3, moq: 0, multiple: 0 })).toBeCloseTo(0.3, 12);
    expect(lotSize(23, { eoq: null, moq: 50, multiple: 0 })).toBe(50);
    expect(lotSize(23, { eoq: null, moq: 0, multiple: 4 })).toBe(24);
    expect(lotSize(52, { eoq: null, moq: 50, multiple: 12 })).toBe(60);
    expect(lotSize(7, { eoq: 25, moq: 30, multiple: 4 })).toBe(32);
    expect(lotSize(0, { eoq: 25, moq: 30, multiple: 4 })).toBe(0);
  });

  it('safety stock: meio, else master; lot: IO override, else EOQ result, else meio order quantity, else lot-for-lot', () => {
    const master = { safety_stock: 7, moq: 5, order_multiple: 2 };
    expect(resolveSiteParameters({ master })).toEqual({ safety_stock: 7, safety_stock_source: 'master', lot: { eoq: null, moq: 5, multiple: 2 }, lot_source: 'lot_for_lot' });
    const all = resolveSiteParameters({ master, meio: { safety_stock: 12.5, order_qty: 40 }, eoq: { eoq: 60 }, override: { eoq_override: 80 } });
    expect(all).toMatchObject({ safety_stock: 12.5, safety_stock_source: 'meio', lot: { eoq: 80 }, lot_source: 'override' });
    expect(resolveSiteParameters({ master, meio: { safety_stock: null, order_qty: 40 }, eoq: { eoq: 60 } })).toMatchObject({ safety_stock: 7, lot: { eoq: 60 }, lot_source: 'eoq' });
    expect(resolveSiteParameters({ master: {}, meio: { order_qty: 40 } })).toMatchObject({ safety_stock: 0, safety_stock_source: 'none', lot: { eoq: 40, moq: 0, multiple: 0 }, lot_source: 'meio' });
  });
});

describe('netting, lot sizing and pegging at one site', () => {
  // H = 8, opening 20, safety stock 10, demand 10 a week, EOQ 25, BUY lead time 1.
  //   w0: 20-10 = 10 (at safety stock)   w1: 0 → order 25 (release 0) → 25   w2: 15   w3: 5 → order 25 → 30
  //   w4: 20   w5: 10   w6: 0 → order 25 → 25   w7: 15
  const r = run([item(1, [site(1, Array(8).fill(10), { on_hand: 20, safety_stock: 10, lot: { eoq: 25, moq: 0, multiple: 0 } })], [route('BUY', 900, 1, 1)])], OFF, { horizon: 8 });

  it('orders and projection', () => {
    expect(withoutIds(r.orders)).toEqual([o(1, 'BUY', 25, 0, 1, 1), o(1, 'BUY', 25, 2, 3, 3), o(1, 'BUY', 25, 5, 6, 6)]);
    expect(Array.from(r.plans[0]!.projected)).toEqual([10, 25, 15, 30, 20, 10, 25, 15]);
  });

  it('FIFO pegging: opening stock serves weeks 0-1, each order the weeks after, the last ends as safety stock and excess', () => {
    expect(pegs(r.orders[0]!)).toEqual([['forecast:1:2', 10], ['forecast:1:3', 10], ['forecast:1:4', 5]]);
    expect(pegs(r.orders[1]!)).toEqual([['forecast:1:4', 5], ['forecast:1:5', 10], ['forecast:1:6', 10]]);
    expect(pegs(r.orders[2]!)).toEqual([['forecast:1:7', 10], ['safety_stock:1', 10], ['excess:1', 5]]);
    expect(r.orders[2]!.pegging.map((p) => p.kind)).toEqual(['forecast', 'safety_stock', 'excess']);
  });

  it('sales returns are negative demand', () => {
    const rr = run([item(1, [site(1, [10, 10, 10], { returns: [0, 4, 20] })], [route('BUY', 900, 1, 0)])], OFF, { horizon: 3 });
    expect(Array.from(rr.plans[0]!.gross)).toEqual([10, 6, -10]);
    expect(withoutIds(rr.orders)).toEqual([o(1, 'BUY', 10, 0, 0, 0), o(1, 'BUY', 6, 1, 1, 1)]);
    expect(rr.plans[0]!.projected[2]).toBe(10);
  });
});

describe('a supplier → DC → two stores network with TRANSFER routes', () => {
  // Supplier 900 (not planned) → DC 10 by BUY (lead time 2); DC → stores 20 and 30 by TRANSFER (lead time 1).
  // Store 20: demand 5/week, 10 on hand; store 30: demand 8/week, 16 on hand; DC: 30 on hand, no own demand. H = 6.
  // Stores order from week 2 (released week 1), so the DC sees 5 + 8 = 13 in weeks 1-4 and buys from week 3.
  const r = run(
    [
      item(
        1,
        [site(10, [], { on_hand: 30 }), site(20, Array(6).fill(5), { on_hand: 10 }), site(30, Array(6).fill(8), { on_hand: 16 })],
        [route('BUY', 900, 10, 2, 1, 1), route('TRANSFER', 10, 20, 1, 1, 2), route('TRANSFER', 10, 30, 1, 1, 3)],
      ),
    ],
    OFF,
    { horizon: 6 },
  );
  const dc = r.plans.find((p) => p.site_id === 10)!;

  it('indirect demand shows up at the DC, with a breakdown per downstream series', () => {
    expect(Array.from(dc.indirect)).toEqual([0, 13, 13, 13, 13, 0]);
    expect(Array.from(dc.gross)).toEqual([0, 13, 13, 13, 13, 0]);
    expect(Array.from(dc.projected)).toEqual([30, 17, 4, 0, 0, 0]);
    const byStore = (s: number) => r.indirect.filter((x) => x.downstream_site_id === s).map((x) => [x.site_id, x.week, x.qty, x.origin]);
    expect(byStore(20)).toEqual([1, 2, 3, 4].map((w) => [10, w, 5, 'planned']));
    expect(byStore(30)).toEqual([1, 2, 3, 4].map((w) => [10, w, 8, 'planned']));
  });

  it('orders, downstream sites first (store 30, store 20, then the DC)', () => {
    expect(withoutIds(r.orders)).toEqual([
      ...[2, 3, 4, 5].map((w) => o(30, 'TRANSFER', 8, w - 1, w, w)),
      ...[2, 3, 4, 5].map((w) => o(20, 'TRANSFER', 5, w - 1, w, w)),
      o(10, 'BUY', 9, 1, 3, 3),
      o(10, 'BUY', 13, 2, 4, 4),
    ]);
    expect(r.orders.filter((x) => x.order_type === 'TRANSFER').every((x) => x.source_site_id === 10)).toBe(true);
  });

  it('the DC orders peg to the store orders they feed (opening stock covers weeks 1-2 and 4 of week 3)', () => {
    expect(r.orders[8]!.pegging.map((p) => [p.demand_line, p.qty, p.ref_id])).toEqual([['indirect:3', 4, 3], ['indirect:7', 5, 7]]);
    expect(r.orders[9]!.pegging.map((p) => [p.demand_line, p.qty, p.ref_id])).toEqual([['indirect:4', 8, 4], ['indirect:8', 5, 8]]);
    expect(pegs(r.orders[0]!)).toEqual([['forecast:30:2', 8]]);
  });

  it('a TRANSFER cycle is an error for that item only; the other items are planned', () => {
    const res = planSupply({
      planning_date: PLANNING_DATE,
      flags: OFF,
      items: [
        item(1, [site(10, [1]), site(20, [1])], [route('TRANSFER', 10, 20, 1), route('TRANSFER', 20, 10, 1)]),
        item(2, [site(10, [1])], [route('BUY', 900, 10, 0)]),
      ],
    });
    expect(res.errors).toEqual([{ item_id: 1, message: expect.stringMatching(/route cycle: 10 → 20 → 10/) }]);
    expect(res.orders.map((x) => x.item_id)).toEqual([2]);
    expect(res.checks.ok).toBe(true);
  });
});

describe('capacity', () => {
  // Supplier 900 can ship 10 a week; demand 25 in week 0; BUY lead time 0; H = 6.
  const cap = [0, 1, 2, 3, 4, 5].map((week) => ({ site_id: 900, week, qty: 10 }));
  const one = () => item(1, [site(1, [25, 0, 0, 0, 0, 0])], [route('BUY', 900, 1, 0)]);

  it('what fits is constrained, the rest is delayed to the next weeks with capacity', () => {
    const r = run([one()], OFF, { horizon: 6, expedite: false }, cap);
    expect(withoutIds(r.orders)).toEqual([o(1, 'BUY', 10, 0, 0, 0, 'constrained'), o(1, 'BUY', 10, 1, 1, 0, 'delayed'), o(1, 'BUY', 5, 2, 2, 0, 'delayed')]);
    expect(r.orders[0]!.requested_qty).toBe(25);
    // The delayed receipts count against the shortfall before they arrive: week 1 orders nothing more.
    expect(Array.from(r.plans[0]!.projected)).toEqual([-15, -5, 0, 0, 0, 0]);
    expect(r.capacity_used).toEqual([{ site_id: 900, week: 0, qty: 10 }, { site_id: 900, week: 1, qty: 10 }, { site_id: 900, week: 2, qty: 5 }]);
    expect(r.exceptions.filter((e) => e.type === 'late_order').map((e) => e.order_id)).toEqual([1, 2, 3]);
    // The delayed orders serve week 0's demand, late.
    expect(pegs(r.orders[1]!)).toEqual([['forecast:1:0', 10]]);
  });

  it('maxDelayWeeks 1: 5 units cannot be placed and are re-netted in week 1', () => {
    const r = run([one()], OFF, { horizon: 6, expedite: false, maxDelayWeeks: 1 }, cap);
    expect(withoutIds(r.orders)).toEqual([o(1, 'BUY', 10, 0, 0, 0, 'constrained'), o(1, 'BUY', 10, 1, 1, 0, 'delayed'), o(1, 'BUY', 5, 2, 2, 1, 'delayed')]);
    expect(r.exceptions.find((e) => e.type === 'no_source')).toMatchObject({ week: 0, qty: 5, description: expect.stringMatching(/capacity/) });
  });

  it('the expedite post-processor buys the shortage and the second pass plans the rest on capacity', () => {
    const r = run([one()], OFF, { horizon: 6 }, cap);
    expect(withoutIds(r.orders)).toEqual([o(1, 'BUY', 15, 0, 0, 0, 'expedited', 'BUY_EXPEDITE'), o(1, 'BUY', 10, 0, 0, 0)]);
    expect(Array.from(r.plans[0]!.projected)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(r.capacity_used).toEqual([{ site_id: 900, week: 0, qty: 10 }]);
  });

  it('capacity is shared by the items of a run, in input order', () => {
    const r = run([one(), { ...one(), item_id: 2 }], OFF, { horizon: 6, expedite: false }, cap);
    const second = r.orders.filter((x) => x.item_id === 2);
    expect(second.map((x) => [x.status, x.qty, x.release_week])).toEqual([['delayed', 5, 2], ['delayed', 10, 3], ['delayed', 10, 4]]);
  });
});

describe('late orders and exceptions', () => {
  it("arrive_late: released in week 0, arriving at its lead time, after the week it is needed in", () => {
    const it1 = item(1, [site(1, [0, 10, 0, 0])], [route('BUY', 900, 1, 3)]);
    const late = run([it1], OFF, { horizon: 4, expedite: false, lateOrders: 'arrive_late' });
    expect(withoutIds(late.orders)).toEqual([o(1, 'BUY', 10, 0, 3, 1, 'delayed')]);
    expect(Array.from(late.plans[0]!.projected)).toEqual([0, -10, -10, 0]);
    const flag = run([it1], OFF, { horizon: 4, expedite: false });
    expect(withoutIds(flag.orders)).toEqual([o(1, 'BUY', 10, -2, 1, 1, 'delayed')]);
    expect(flag.exceptions.find((e) => e.type === 'late_order')!.description).toMatch(/released in week -2/);
  });

  it('no route: shortage and a no_source exception, no order; BUY_EXPEDITE needs a BUY route', () => {
    const r = run([item(1, [site(1, [3, 3])], [])], OFF, { horizon: 2 });
    expect(r.orders).toEqual([]);
    expect(r.exceptions.map((e) => [e.type, e.week, e.end_week, e.qty])).toEqual([['shortage', 0, 1, 6], ['no_source', 0, 1, 6]]);
    expect(r.kpis.projected_fill_rate).toBe(0);
  });

  it('excess, below safety stock, and the KPIs', () => {
    const r = run(
      [
        item(1, [site(1, Array(4).fill(1), { on_hand: 100, unit_cost: 2 })], [route('BUY', 900, 1, 0)]),
        item(2, [site(1, [5, 5, 5, 5], { on_hand: 8, safety_stock: 6, unit_cost: 1 })], [route('BUY', 900, 1, 2)]),
      ],
      { firm_orders_block_horizon: false, respect_lead_time: true },
      { horizon: 4, expedite: false },
    );
    expect(r.exceptions.map((e) => [e.item_id, e.type, e.week, e.end_week])).toEqual([
      [1, 'excess', 0, 3],
      [2, 'shortage', 1, 1],
      [2, 'below_safety_stock', 0, 0],
      [2, 'no_source', 0, 1],
    ]);
    // item 2: 8-5 = 3, then -2 (nothing can arrive before week 2), week 2 buys 2 + 5 + 6 = 13 → 6, week 3 buys 5 → 6.
    expect(Array.from(r.plans[1]!.projected)).toEqual([3, -2, 6, 6]);
    // Served: item 1 all 4; item 2: 5, 3 of 5, 5, 5 → 18 of 20.
    expect(r.kpis).toMatchObject({ demand_qty: 24, served_qty: 22, shortage_qty: 2, n_orders: 2, n_exceptions: 4 });
    expect(r.kpis.projected_fill_rate).toBeCloseTo(22 / 24, 12);
    expect(r.kpis.orders_by_type.BUY).toEqual({ count: 2, qty: 18 });
    expect(r.kpis.orders_by_status.planned).toEqual({ count: 2, qty: 18 });
    // item 1: stock 99, 98, 97, 96 at 2 → 195; item 2: (3 + 0 + 6 + 6) / 4 = 3.75.
    expect(r.kpis.avg_inventory_value).toBeCloseTo(195 + 3.75, 12);
    expect(r.kpis.ending_inventory_value).toBe(96 * 2 + 6);
  });
});
