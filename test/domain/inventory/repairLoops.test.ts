import { preferredReverseRoutes, repairLoop, type LoopRoute } from '../../../domain/inventory/repairLoops';
import { SUPPLY_ROUTE_TYPES } from '../../../domain/inventory/network';

const r = (from: number, to: number, type: string, leadTime: number, priority = 1): LoopRoute => ({ from, to, type, leadTime, priority });

// 1 plant → 2 DC → stores 3, 4, 6; 5 a repair shop off the chain that sends repaired units to the DC; 7 → 8 a return
// to a site that never sends anything back; 9 ⇄ 10 a store and its local repair bench
const routes: LoopRoute[] = [
  r(1, 2, 'REPLENISHMENT', 3), r(2, 3, 'REPLENISHMENT', 1), r(2, 4, 'REPLENISHMENT', 1), r(2, 6, 'REPLENISHMENT', 2), r(5, 2, 'TRANSFER', 1, 2),
  r(2, 7, 'REPLENISHMENT', 1), r(2, 9, 'REPLENISHMENT', 1),
  r(3, 2, 'RETURN', 1), r(2, 1, 'REPAIR', 4), r(4, 5, 'REPAIR', 2), r(6, 4, 'RETURN', 1), r(7, 8, 'RETURN', 1), r(9, 10, 'REPAIR', 2), r(10, 9, 'RETURN', 0.5),
];
const supply = routes.filter((x) => SUPPLY_ROUTE_TYPES.includes(x.type));
/** the preferred inbound supply route of each site (one each here, except the DC's shop route at priority 2) */
const inbound = new Map(supply.filter((x) => !(x.from === 5 && x.to === 2)).map((x) => [x.to, x]));
const reverse = preferredReverseRoutes(routes);
const loop = (origin: number, stocked: number[]) => repairLoop(origin, reverse, inbound, supply, new Set(stocked));

describe('repair loops read off the routes', () => {
  it('store → DC → plant: repaired at the plant, back into the DC\'s stock through the plant\'s supply route', () => {
    // the plant holds no stock: the unit lands at the DC after RETURN 1 + REPAIR 4 + plant → DC 3
    expect(loop(3, [2, 3])).toEqual({ landing: 2, time: 8, path: [3, 2, 1, 2], repairSite: 1 });
    // a plant that holds stock takes it straight back
    expect(loop(3, [1, 2, 3])).toEqual({ landing: 1, time: 5, path: [3, 2, 1], repairSite: 1 });
  });

  it('a repair shop off the chain returns the unit through its supply route into the chain', () => {
    expect(loop(4, [2, 4])).toEqual({ landing: 2, time: 3, path: [4, 5, 2], repairSite: 5 });
    // a carcass passes on along each site's own reverse route: store 6 → store 4 → the shop → the DC
    expect(loop(6, [2, 4, 6])).toEqual({ landing: 2, time: 4, path: [6, 4, 5, 2], repairSite: 5 });
  });

  it('the DC\'s own failures go to the plant and come back to the DC: repaired for its own stock (local repair)', () => {
    expect(loop(2, [2])).toEqual({ landing: 2, time: 7, path: [2, 1, 2], repairSite: 1 });
  });

  it('a loop that closes on the failed site itself is local repair', () => {
    expect(loop(9, [2, 9])).toEqual({ landing: 9, time: 2.5, path: [9, 10, 9], repairSite: 9 });
  });

  it('no reverse route, or one that never leads back into the supply chain: no loop', () => {
    expect(loop(1, [1, 2])).toBeNull();
    expect(loop(7, [2, 7])).toBeNull();
  });

  it('a site with several reverse routes uses the preferred one: lowest priority, then shortest lead time, then lowest destination', () => {
    const best = preferredReverseRoutes([r(1, 5, 'RETURN', 1, 2), r(1, 4, 'REPAIR', 3, 1), r(1, 3, 'REPAIR', 2, 1), r(1, 2, 'RETURN', 2, 1), r(1, 6, 'BUY', 0, 0)]);
    expect(best.get(1)).toEqual(r(1, 2, 'RETURN', 2, 1));
    expect(best.size).toBe(1);
  });
});
