import { validateRow } from '../../../domain/import/validate';
import { canonicalRouteType, refusedRouteType } from '../../../domain/supply/routeTypes';
import { routeOrderType } from '../../../domain/supply/rules';
import { BUILD } from '../../../domain/supply/types';
import { item, route, run, site } from './builders';

const weekly = (w: number, q: number) => Object.assign(new Array(52).fill(0), { [w]: q });

describe('MAKE, USE and ZONE_BALANCING routes (document 2 §4.4 rule 4 names them; §2.1 has no such order type)', () => {
  it('a MAKE route is planned as BUILD: BUILD orders on it, lead time and all', () => {
    const r = run([item(1, [site(10, weekly(6, 25))], [route('MAKE', 700, 10, 2, 1, 81)])]);
    expect(r.orders.map((o) => [o.order_type, o.route_id, o.source_site_id, o.qty, o.release_week, o.arrival_week])).toEqual([['BUILD', 81, 700, 25, 4, 6]]);
    expect(r.diagnostics).toEqual([]);
    expect(r.plans[0]!.min_lead_time[BUILD]).toBe(2);
  });

  it('MAKE takes BUILD\'s place in the sourcing sequence: after BUY, before TRANSFER; any case', () => {
    const withBuy = run([item(1, [site(10, weekly(3, 5))], [route('make', 700, 10, 1, 1, 81), route('BUY', 900, 10, 1, 1, 82)])]);
    expect(withBuy.orders.map((o) => [o.order_type, o.route_id])).toEqual([['BUY', 82]]);
    const withTransfer = run([item(1, [site(10, weekly(3, 5)), site(20, [], { on_hand: 100 })], [route('TRANSFER', 20, 10, 1, 1, 83), route(' Make ', 700, 10, 1, 1, 81)])]);
    expect(withTransfer.orders.map((o) => [o.order_type, o.route_id])).toEqual([['BUILD', 81]]);
  });

  it('a superseded item\'s MAKE route is blocked, as its BUILD routes are (rule 4)', () => {
    const r = run([{ ...item(1, [site(10, weekly(3, 5))], [route('MAKE', 700, 10, 1, 1, 81)]), superseded: true }]);
    expect(r.orders).toEqual([]);
    expect(r.diagnostics.map((d) => d.message)).toEqual(['superseded on an active global edge: routes 81 (BUY, BUILD, TRANSFER, BALANCING) blocked']);
  });

  it('USE and ZONE_BALANCING routes are not planned on; the diagnostic names the type to use', () => {
    const r = run([item(1, [site(10, weekly(3, 5)), site(20, [], { on_hand: 50 })], [route('USE', 20, 10, 1, 1, 84), route('ZONE_BALANCING', 20, 10, 1, 1, 85)])]);
    expect(r.orders).toEqual([]);
    expect(r.exceptions.some((e) => e.site_id === 10)).toBe(true);
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'route 84: route type USE is not planned on (USE is not a route type of the platform (it produces no order type of document 2 §2.1); use TRANSFER: a site supplied from the stock of another site of the network is a TRANSFER route)',
      'route 85: route type ZONE_BALANCING is not planned on (ZONE_BALANCING is not a route type of the platform (it produces no order type of document 2 §2.1); use BALANCING: lateral rebalancing between peer sites, within a zone or not, is a BALANCING route)',
    ]);
  });

  it('one vocabulary for the engine, the import and the API', () => {
    expect(routeOrderType('MAKE')).toBe(BUILD);
    expect(canonicalRouteType(' make ')).toBe('BUILD');
    expect(canonicalRouteType('transfer')).toBe('TRANSFER');
    expect(refusedRouteType('zone_balancing')).toMatch(/; use BALANCING: /);
    expect(refusedRouteType('MAKE')).toBeNull();
  });
});

describe('the routes import', () => {
  const refs = { items: new Map([['IT', 1]]), sites: new Map([['S1', 10], ['S2', 20]]) };
  const row = (route_type: string) => ({ item_xuid: 'IT', from_site_xuid: 'S2', to_site_xuid: 'S1', route_type, lead_time: '2', priority: '1' });

  it('stores MAKE (any case) as BUILD', () => {
    for (const t of ['MAKE', 'make', 'Make']) {
      expect(validateRow('routes', row(t), refs)).toEqual({
        ok: true, values: { item_xuid: '1', from_site_xuid: '20', to_site_xuid: '10', route_type: 'BUILD', lead_time: '2', priority: '1' },
      });
    }
  });

  it('rejects USE and ZONE_BALANCING rows with the type to use', () => {
    expect(validateRow('routes', row('use'), refs)).toEqual({
      ok: false, reason: 'route_type: USE is not a route type of the platform (it produces no order type of document 2 §2.1); use TRANSFER: a site supplied from the stock of another site of the network is a TRANSFER route',
    });
    expect(validateRow('routes', row('ZONE_BALANCING'), refs)).toMatchObject({ ok: false, reason: expect.stringMatching(/^route_type: ZONE_BALANCING .*; use BALANCING: /) });
    expect(validateRow('routes', row('SHIP'), refs)).toEqual({
      ok: false, reason: "route_type: 'SHIP' is not one of REPLENISHMENT, RETURN, REPAIR, BUY, BUILD, TRANSFER, BALANCING",
    });
  });
});
