import {
  coerceFlag,
  latestFirmWeeks,
  minLeadTimes,
  orderTypeIndex,
  routeOrderType,
  scenarioFlags,
  typeAllowed,
  weekOffset,
} from '../../../domain/supply/rules';
import { BUY, BUILD, NO_FIRM_WEEK, REPAIR, REPLENISH, RETURN, TRANSFER, BALANCING } from '../../../domain/supply/types';
import { OFF, PLANNING_DATE, day, firm, item, o, route, run, site, withoutIds } from './builders';

const BLOCK = { firm_orders_block_horizon: true, respect_lead_time: false };
const RESPECT = { firm_orders_block_horizon: false, respect_lead_time: true };
const NO_EXPEDITE = { expedite: false };

describe('type indices and flags', () => {
  it('order-type index is the same as everywhere: 0 BUY … 6 RETURN; route types map to order types', () => {
    expect(['BUY', 'build', ' Repair ', 'TRANSFER', 'BALANCING', 'REPLENISH', 'RETURN'].map(orderTypeIndex)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(orderTypeIndex('MAKE')).toBe(-1);
    expect([null, '', 'BUY', 'BUILD', 'REPAIR', 'TRANSFER', 'BALANCING', 'REPLENISHMENT', 'RETURN'].map(routeOrderType)).toEqual([0, 0, 0, 1, 2, 3, 4, 5, 6]);
    expect(routeOrderType('REPLENISH')).toBe(-1);
  });

  it('flags coerce non-booleans; the string "false" is false; missing flags are off', () => {
    expect(scenarioFlags({ firm_orders_block_horizon: 'true', respect_lead_time: 'false' })).toEqual({ firm_orders_block_horizon: true, respect_lead_time: false });
    expect(scenarioFlags({ firm_orders_block_horizon: 1, respect_lead_time: 0 })).toEqual({ firm_orders_block_horizon: true, respect_lead_time: false });
    expect(scenarioFlags({ firm_orders_block_horizon: 'Yes', respect_lead_time: 'off' })).toEqual({ firm_orders_block_horizon: true, respect_lead_time: false });
    expect(scenarioFlags(null)).toEqual(OFF);
    expect(coerceFlag('2', false)).toBe(true);
    expect(coerceFlag({}, true)).toBe(true);
  });
});

describe('rule 1: latest firm week per SKU and order type', () => {
  it('floor(days from planning date to release date / 7), clamped to 0..51, 255 without a firm order', () => {
    const orders = [
      { order_type: 'BUY', release_dt: `${day(20)}T00:00:00Z` }, // 20 days → week 2
      { order_type: 'BUY', release_dt: `${day(6)}T23:59:00Z` }, // 6 days → week 0
      { order_type: 'buy', release_dt: `${day(27)}T23:30:00Z` }, // 27 days → week 3 (the latest BUY)
      { order_type: 'BUILD', release_dt: `${day(-30)}T08:00:00Z` }, // floor(-30 / 7) = -5 → 0
      { order_type: 'TRANSFER', release_dt: `${day(400)}T08:00:00Z` }, // 57 → 51
      { order_type: 'RETURN', release_dt: new Date(`${day(14)}T00:00:00Z`) }, // a Date → week 2
      { order_type: 'BALANCING', release_dt: `${day(14)}T00:30:00+02:00` }, // the UTC instant is day 13 → week 1
    ];
    const lfw = latestFirmWeeks(orders, PLANNING_DATE, 52);
    expect(Array.from(lfw)).toEqual([3, 0, NO_FIRM_WEEK, 51, 1, NO_FIRM_WEEK, 2]);
    expect(weekOffset(`${day(-1)}T12:00:00Z`, PLANNING_DATE)).toBe(-1);
    expect(weekOffset(day(7), PLANNING_DATE)).toBe(1);
  });

  it('the engine reports it per SKU-site; every firm order of the SKU counts, whatever its erp_status', () => {
    const r = run(
      [
        item(1, [site(10, [0])], [route('BUY', 900, 10, 0)], [
          firm(1, 10, 'BUY', 5, 4, 5, { erp_status: 'received', received_qty: 5 }),
          firm(2, 10, 'REPAIR', 5, 2, 3),
        ]),
      ],
      BLOCK,
    );
    expect(r.plans[0]!.latest_firm_week).toEqual([4, 255, 2, 255, 255, 255, 255]);
  });
});

describe('rule 2: firm_orders_block_horizon skips a type before its latest firm week', () => {
  // One site, demand 10 in weeks 0-5, no stock, no safety stock, lot-for-lot. BUY and BUILD routes, both lead time 0.
  // A firm BUY order of 10 released in week 3 (21 days), arriving in week 4 (28 days): latest firm week BUY = 3.
  const it1 = () =>
    item(1, [site(10, [10, 10, 10, 10, 10, 10])], [route('BUY', 900, 10, 0, 1, 1), route('BUILD', 10, 10, 0, 1, 2)], [firm(1, 10, 'BUY', 10, 3, 4)]);

  it('on: weeks 0-2 cannot BUY (t < 3) and fall to BUILD; week 3 buys; week 4 is met by the firm receipt', () => {
    const r = run([it1()], BLOCK, NO_EXPEDITE);
    expect(withoutIds(r.orders)).toEqual([
      o(10, 'BUILD', 10, 0, 0, 0),
      o(10, 'BUILD', 10, 1, 1, 1),
      o(10, 'BUILD', 10, 2, 2, 2),
      o(10, 'BUY', 10, 3, 3, 3),
      o(10, 'BUY', 10, 5, 5, 5),
    ]);
    expect(Array.from(r.plans[0]!.receipts_firm.slice(0, 6))).toEqual([0, 0, 0, 0, 10, 0]);
  });

  it('off: BUY first in every week', () => {
    const r = run([it1()], OFF, NO_EXPEDITE);
    expect(withoutIds(r.orders)).toEqual([0, 1, 2, 3, 5].map((w) => o(10, 'BUY', 10, w, w, w)));
  });

  it('on, with only the blocked type routed: no order in weeks 0-2, a shortage, and a no_source exception "blocked"', () => {
    const r = run([item(1, [site(10, [10, 10, 10, 10])], [route('BUY', 900, 10, 0)], [firm(1, 10, 'BUY', 10, 3, 9)])], BLOCK, NO_EXPEDITE);
    // Backlog 10, 20, 30 in weeks 0-2; week 3 buys the backlog and its own demand: 40.
    expect(withoutIds(r.orders)).toEqual([o(10, 'BUY', 40, 3, 3, 3)]);
    expect(Array.from(r.plans[0]!.projected.slice(0, 4))).toEqual([-10, -20, -30, 0]);
    const kinds = r.exceptions.map((e) => [e.type, e.week, e.end_week]);
    expect(kinds).toEqual(expect.arrayContaining([['shortage', 0, 2], ['no_source', 0, 2]]));
    expect(r.exceptions.find((e) => e.type === 'no_source')!.description).toMatch(/blocked/);
  });

  it('a type whose firm orders all lie in the past (week 0) never blocks', () => {
    const r = run([item(1, [site(10, [10])], [route('BUY', 900, 10, 0)], [firm(1, 10, 'BUY', 10, -3, -1, { erp_status: 'received' })])], BLOCK, NO_EXPEDITE);
    expect(r.plans[0]!.latest_firm_week[BUY]).toBe(0);
    expect(withoutIds(r.orders)).toEqual([o(10, 'BUY', 10, 0, 0, 0)]);
  });
});

describe('rule 3: minimum lead time per SKU and type', () => {
  it('smallest route lead time, null as 0; a route without type is BUY; a type without route holds 0', () => {
    const lt = minLeadTimes([
      { route_type: 'BUY', lead_time: 4 },
      { route_type: null, lead_time: 2 },
      { route_type: 'BUILD', lead_time: null },
      { route_type: 'BUILD', lead_time: 3 },
      { route_type: 'TRANSFER', lead_time: 1.5 },
      { route_type: 'TRANSFER', lead_time: 3 },
      { route_type: 'REPLENISHMENT', lead_time: 5 },
      { route_type: 'ZONE_BALANCING', lead_time: 9 },
    ]);
    expect(Array.from(lt)).toEqual([2, 0, 0, 1.5, 0, 5, 0]);
  });

  it('the engine takes only routes into the SKU-site', () => {
    const r = run([item(1, [site(10, [0]), site(20, [0])], [route('BUY', 900, 10, 6), route('', 900, 20, 2), route('TRANSFER', 10, 20, 1)])]);
    expect(r.plans.find((p) => p.site_id === 10)!.min_lead_time).toEqual([6, 0, 0, 0, 0, 0, 0]);
    expect(r.plans.find((p) => p.site_id === 20)!.min_lead_time).toEqual([2, 0, 0, 1, 0, 0, 0]);
  });
});

describe('rule 4: respect_lead_time skips a type while t < its minimum lead time', () => {
  // One site, demand 5 in weeks 0-4, no stock. BUY lead time 3, TRANSFER lead time 1 from a site outside the network.
  const it4 = () => item(1, [site(10, [5, 5, 5, 5, 5])], [route('BUY', 900, 10, 3, 1, 1), route('TRANSFER', 800, 10, 1, 1, 2)]);

  it('on: week 0 nothing (both skipped), weeks 1-2 TRANSFER (BUY still skipped), weeks 3-4 BUY', () => {
    const r = run([it4()], RESPECT, NO_EXPEDITE);
    expect(withoutIds(r.orders)).toEqual([
      o(10, 'TRANSFER', 10, 0, 1, 1), // the backlog of week 0 and week 1's demand
      o(10, 'TRANSFER', 5, 1, 2, 2),
      o(10, 'BUY', 5, 0, 3, 3),
      o(10, 'BUY', 5, 1, 4, 4),
    ]);
    expect(r.orders.every((x) => x.release_week >= 0)).toBe(true);
    expect(r.plans[0]!.projected[0]).toBe(-5);
  });

  it('off: BUY every week, the first three released before week 0 and flagged late (status delayed)', () => {
    const r = run([it4()], OFF, NO_EXPEDITE);
    expect(withoutIds(r.orders)).toEqual([
      o(10, 'BUY', 5, -3, 0, 0, 'delayed'),
      o(10, 'BUY', 5, -2, 1, 1, 'delayed'),
      o(10, 'BUY', 5, -1, 2, 2, 'delayed'),
      o(10, 'BUY', 5, 0, 3, 3),
      o(10, 'BUY', 5, 1, 4, 4),
    ]);
    expect(r.orders.map((x) => x.late)).toEqual([true, true, true, false, false]);
    expect(r.exceptions.filter((e) => e.type === 'late_order').map((e) => e.order_id)).toEqual([1, 2, 3]);
  });

  it('a fractional minimum lead time: 2.5 skips weeks 0-2 (t < 2.5), week 3 releases in week 0', () => {
    const r = run([item(1, [site(10, [0, 0, 4, 4])], [route('BUY', 900, 10, 2.5)])], RESPECT, NO_EXPEDITE);
    expect(withoutIds(r.orders)).toEqual([o(10, 'BUY', 8, 0, 3, 3)]);
  });

  it('a minimum lead time of 0 never skips', () => {
    expect(typeAllowed(0, NO_FIRM_WEEK, 0, RESPECT)).toBe(true);
    expect(typeAllowed(0, NO_FIRM_WEEK, 1, RESPECT)).toBe(false);
    expect(typeAllowed(2, 3, 0, BLOCK)).toBe(false);
    expect(typeAllowed(3, 3, 0, BLOCK)).toBe(true);
    expect(typeAllowed(0, 51, 9, OFF)).toBe(true);
  });
});

describe('rule 5: checks per source type, before any route is examined', () => {
  it('BUY (routes lead time 4 at priority 1, 1 at priority 2) is checked on its minimum 1; the preferred route is then taken as it is', () => {
    // demand 5 in weeks 0-4; BUILD lead time 0 as a fallback; respect_lead_time on.
    const r = run(
      [item(1, [site(10, [5, 5, 5, 5, 5])], [route('BUY', 900, 10, 4, 1, 1), route('BUY', 901, 10, 1, 2, 2), route('BUILD', 10, 10, 0, 1, 3)])],
      RESPECT,
      NO_EXPEDITE,
    );
    expect(r.orders.map((x) => [x.order_type, x.route_id, x.release_week, x.arrival_week, x.status])).toEqual([
      ['BUILD', 3, 0, 0, 'planned'], // week 0: BUY skipped as a type (0 < min lead time 1)
      ['BUY', 1, -3, 1, 'delayed'], // weeks 1-3: BUY passes the type check; the routes are not checked again, so
      ['BUY', 1, -2, 2, 'delayed'], // the preferred route (lead time 4) is taken and the order flagged late
      ['BUY', 1, -1, 3, 'delayed'],
      ['BUY', 1, 0, 4, 'planned'],
    ]);
    expect(r.orders.map((x) => x.late)).toEqual([false, true, true, true, false]);
  });

  it('the six source types are checked; REPLENISH comes after sourcing and is not blocked', () => {
    const r = run([item(1, [site(10, [5, 5, 5, 5])], [route('BUY', 900, 10, 0), route('REPLENISHMENT', 800, 10, 0)], [firm(1, 10, 'BUY', 1, 2, 30)])], BLOCK, NO_EXPEDITE);
    expect(withoutIds(r.orders)).toEqual([o(10, 'REPLENISH', 5, 0, 0, 0), o(10, 'REPLENISH', 5, 1, 1, 1), o(10, 'BUY', 5, 2, 2, 2), o(10, 'BUY', 5, 3, 3, 3)]);
    expect(r.orders[0]!.type_index).toBe(REPLENISH);
  });

  it('the sourcing sequence: BUY, BUILD, REPAIR, TRANSFER, BALANCING, RETURN, whatever the priorities', () => {
    // Drop the first type each round; later types carry the better (lower) priority numbers, which must not matter.
    const types = ['BUY', 'BUILD', 'REPAIR', 'TRANSFER', 'BALANCING', 'RETURN'];
    const seen: string[] = [];
    for (let k = 0; k < types.length; k++) {
      const routes = types.slice(k).map((t, i) => route(t, 800 + i, 10, 0, 10 - i)).reverse();
      const r = run([item(1, [site(10, [1])], routes)], OFF, NO_EXPEDITE);
      seen.push(r.orders[0]!.order_type);
    }
    expect(seen).toEqual(['BUY', 'BUILD', 'REPAIR', 'TRANSFER', 'BALANCING', 'RETURN']);
    expect([BUY, BUILD, REPAIR, TRANSFER, BALANCING, RETURN]).toEqual([0, 1, 2, 3, 4, 6]);
  });
});

describe('rule 6: BUY_EXPEDITE and TRANSFER_PREPOS ignore the firm block', () => {
  it('BUY blocked until week 4: the weeks short before it are expedited, and the netting does not buy them again', () => {
    // demand 10 in weeks 0-7, BUY lead time 0, firm BUY of 20 released week 4, arriving week 6.
    const r = run([item(1, [site(10, [10, 10, 10, 10, 10, 10, 10, 10])], [route('BUY', 900, 10, 0)], [firm(1, 10, 'BUY', 20, 4, 6)])], BLOCK);
    expect(withoutIds(r.orders)).toEqual([
      o(10, 'BUY', 10, 0, 0, 0, 'expedited', 'BUY_EXPEDITE'),
      o(10, 'BUY', 10, 1, 1, 1, 'expedited', 'BUY_EXPEDITE'),
      o(10, 'BUY', 10, 2, 2, 2, 'expedited', 'BUY_EXPEDITE'),
      o(10, 'BUY', 10, 3, 3, 3, 'expedited', 'BUY_EXPEDITE'),
      o(10, 'BUY', 10, 4, 4, 4),
      o(10, 'BUY', 10, 5, 5, 5),
    ]);
    expect(Array.from(r.plans[0]!.projected.slice(0, 8))).toEqual([0, 0, 0, 0, 0, 0, 10, 0]);
    expect(r.exceptions.filter((e) => e.type === 'shortage')).toEqual([]);
  });

  it('TRANSFER blocked at a store until week 3: stock above safety stock at the DC is pre-positioned in weeks 1-2', () => {
    // DC 10 (100 on hand) → store 20 by TRANSFER, lead time 1. Store: demand 10 in weeks 0-4, a firm TRANSFER of 10
    // from the DC released week 3 (so TRANSFER is blocked in weeks 0-2), arriving week 4.
    const r = run(
      [item(1, [site(10, [], { on_hand: 100 }), site(20, [10, 10, 10, 10, 10])], [route('TRANSFER', 10, 20, 1)], [firm(7, 20, 'TRANSFER', 10, 3, 4, { source_site_id: 10 })])],
      BLOCK,
    );
    expect(withoutIds(r.orders)).toEqual([
      o(20, 'TRANSFER', 20, 0, 1, 1, 'expedited', 'TRANSFER_PREPOS'), // week 1: its own 10 and the backlog of week 0
      o(20, 'TRANSFER', 10, 1, 2, 2, 'expedited', 'TRANSFER_PREPOS'),
      o(20, 'TRANSFER', 10, 2, 3, 3), // week 3: the block is over
    ]);
    // Week 0 stays short: nothing can reach the store in week 0 (lead time 1) and it has no BUY route.
    expect(Array.from(r.plans.find((p) => p.site_id === 20)!.projected.slice(0, 5))).toEqual([-10, 0, 0, 0, 0]);
    const dc = r.plans.find((p) => p.site_id === 10)!;
    expect(Array.from(dc.indirect.slice(0, 5))).toEqual([20, 10, 10, 10, 0]); // prepos, prepos, planned, firm
    expect(Array.from(dc.projected.slice(0, 5))).toEqual([80, 70, 60, 50, 50]);
    expect(r.indirect.map((x) => [x.origin, x.week, x.qty])).toEqual(
      expect.arrayContaining([['prepos', 0, 20], ['prepos', 1, 10], ['planned', 2, 10], ['firm', 3, 10]]),
    );
  });
});

describe('rule 7: partial receipts by subtraction', () => {
  it('remaining = qty - received_qty (null as 0, floored at 0), counted only while firm, released or in_transit', () => {
    // opening 50, demand 30 in weeks 0-3, BUY lead time 0.
    const r = run(
      [
        item(1, [site(10, [30, 30, 30, 30], { on_hand: 50 })], [route('BUY', 900, 10, 0)], [
          firm(1, 10, 'BUY', 100, 0, 2, { erp_status: 'in_transit', received_qty: 60 }), // 40 in week 2
          firm(2, 10, 'BUY', 50, 0, 1, { erp_status: 'released', received_qty: 50 }), // fully received: 0
          firm(3, 10, 'BUY', 30, 0, 1, { erp_status: 'received', received_qty: 0 }), // received: not supply
          firm(4, 10, 'BUY', 20, 0, 1, { received_qty: null }), // 20 in week 1
          firm(5, 10, 'BUY', 10, 0, 3, { received_qty: 15 }), // over-received: 0
          firm(6, 10, 'BUY', 10, 0, 3, { erp_status: 'FIRM' }), // status matched exactly, as in allocation
        ]),
      ],
      OFF,
      NO_EXPEDITE,
    );
    const p = r.plans[0]!;
    expect(Array.from(p.receipts_firm.slice(0, 4))).toEqual([0, 20, 40, 0]);
    expect(Array.from(p.projected.slice(0, 4))).toEqual([20, 10, 20, 0]);
    expect(withoutIds(r.orders)).toEqual([o(10, 'BUY', 10, 3, 3, 3)]);
  });
});
