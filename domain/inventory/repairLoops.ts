/**
 * Where the failed units of a site go and where they come back, read off an item's routes, for METRIC
 * (metricTree.ts). RETURN and REPAIR routes carry failed units (carcasses); each site sends its carcasses along its
 * preferred reverse route, so a carcass moves from site to site until it reaches one with no reverse route out (or a
 * site it already passed): the repair site. The repaired unit re-enters serviceable stock on the failed site's own
 * supply chain (the sites above it along the preferred inbound supply routes): at the repair site when it is on that
 * chain, else through a supply route from the repair site into the chain; if that place holds no stock, it flows down
 * the chain to the first stocking site. The loop's time is the sum of the lead times along the way (a REPAIR route's
 * lead time counts the repair turnaround at its destination). A site whose carcasses never come back has no loop.
 */

export const REVERSE_ROUTE_TYPES: readonly string[] = ['RETURN', 'REPAIR'];

export interface LoopRoute {
  from: number;
  to: number;
  type: string;
  leadTime: number;
  priority: number;
}

export interface RepairLoop {
  /** the stocking site whose serviceable stock the repaired unit restores: the failed site itself (local repair) or one above it */
  landing: number;
  /** mean time from the failure until then */
  time: number;
  /** the sites the unit passes, from the failed site to the landing site */
  path: number[];
  /** the site with no reverse route out, where the unit is repaired */
  repairSite: number;
}

const better = (a: LoopRoute, b: LoopRoute | undefined, end: 'from' | 'to'): boolean =>
  !b || a.priority < b.priority || (a.priority === b.priority && (a.leadTime < b.leadTime || (a.leadTime === b.leadTime && a[end] < b[end])));

/** Each site's preferred reverse route: lowest priority number, then shortest lead time, then lowest destination. */
export function preferredReverseRoutes(routes: readonly LoopRoute[]): Map<number, LoopRoute> {
  const best = new Map<number, LoopRoute>();
  for (const r of routes) {
    if (!REVERSE_ROUTE_TYPES.includes(r.type) || r.from === r.to) continue;
    if (better(r, best.get(r.from), 'to')) best.set(r.from, r);
  }
  return best;
}

/**
 * The repair loop of the failures at `origin`, or null when they do not come back. `inbound` is every site's preferred
 * inbound supply route, `supply` all supply routes, `stocked` the sites that hold stock (origin among them).
 */
export function repairLoop(
  origin: number, reverse: ReadonlyMap<number, LoopRoute>, inbound: ReadonlyMap<number, LoopRoute>, supply: readonly LoopRoute[], stocked: ReadonlySet<number>,
): RepairLoop | null {
  const first = reverse.get(origin);
  if (!first) return null;
  const chain = [origin];
  for (let up = inbound.get(origin); up && !chain.includes(up.from); up = inbound.get(up.from)) chain.push(up.from);

  const path = [origin];
  let time = 0;
  let at = origin;
  for (let r = first as LoopRoute | undefined; r; r = reverse.get(at)) {
    time += r.leadTime;
    at = r.to;
    const again = path.includes(at);
    path.push(at);
    if (again) break;
  }
  const repairSite = at;
  let idx = chain.indexOf(at);
  if (idx < 0) {
    // a repair site off the chain sends the unit back through a supply route into it, the preferred one if several
    let back: LoopRoute | undefined;
    for (const r of supply) if (r.from === at && chain.includes(r.to) && better(r, back, 'to')) back = r;
    if (!back) return null;
    time += back.leadTime;
    at = back.to;
    path.push(at);
    idx = chain.indexOf(at);
  }
  while (!stocked.has(chain[idx])) {
    // chain[idx] supplies chain[idx − 1] through its preferred inbound route; origin is stocked, so this ends
    idx--;
    time += inbound.get(chain[idx])!.leadTime;
    path.push(chain[idx]);
  }
  return { landing: chain[idx], time, path, repairSite };
}
