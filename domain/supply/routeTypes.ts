/**
 * Route type names document 2 uses that are not route types of the platform. §4.4 rule 4 blocks the "BUY, MAKE,
 * TRANSFER, USE, BALANCING and ZONE_BALANCING routes" of a superseded item, while the order types (§2.1) are BUY,
 * BUILD, REPAIR, TRANSFER, BALANCING, REPLENISH and RETURN, and the platform's route types follow them.
 *
 * - MAKE is production at the from site, which produces BUILD orders: the same thing under another name. Route
 *   creation and import accept it and store BUILD, and the supply engine plans a MAKE route already in a table as a
 *   BUILD route, so a tenant whose routes say MAKE gets BUILD orders (docs/SUPPLY.md, "Route types").
 * - USE and ZONE_BALANCING have no order type of their own and no rule says what they would produce, so planning on
 *   them would be a guess: route creation and import refuse them with the type to use instead, and the engine reports
 *   such a route in its diagnostics without planning on it.
 */

/** Accepted names stored (and planned) as another route type. */
export const ROUTE_TYPE_ALIASES: Readonly<Record<string, string>> = Object.freeze({ MAKE: 'BUILD' });

/** Refused names, with the route type to use and why. */
export const ROUTE_TYPES_INSTEAD: Readonly<Record<string, { use: string; because: string }>> = Object.freeze({
  USE: { use: 'TRANSFER', because: 'a site supplied from the stock of another site of the network is a TRANSFER route' },
  ZONE_BALANCING: { use: 'BALANCING', because: 'lateral rebalancing between peer sites, within a zone or not, is a BALANCING route' },
});

/** The route type a name is stored and planned as: upper-case, aliases resolved. */
export function canonicalRouteType(routeType: string): string {
  const t = routeType.trim().toUpperCase();
  return ROUTE_TYPE_ALIASES[t] ?? t;
}

/** Why a route type name is refused and which one to use, or null when it is not one of the refused names. */
export function refusedRouteType(routeType: string): string | null {
  const t = routeType.trim().toUpperCase();
  const instead = Object.prototype.hasOwnProperty.call(ROUTE_TYPES_INSTEAD, t) ? ROUTE_TYPES_INSTEAD[t]! : null;
  return instead === null ? null : `${t} is not a route type of the platform (it produces no order type of document 2 §2.1); use ${instead.use}: ${instead.because}`;
}
