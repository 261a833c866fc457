import { allRoutes, findRouteTwin, missingIds, ROUTE_RECORD, siteNames, type RouteRow } from '../../../db/routes';
import type { Tx } from '../../../db/pool';
import { DEFAULT_ROUTE_TYPE, ROUTE_TYPES } from '../../../domain/import/tables';
import { findSupplyCycle, SUPPLY_ROUTE_TYPES } from '../../../domain/inventory/network';
import { canonicalRouteType } from '../../../domain/supply/routeTypes';
import { badRequest, conflict } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { defineResource } from '../resource';
import * as s from './schemas';

const TYPE_INFO: Record<string, { category: 'replenishment' | 'reverse' | 'sourcing'; description: string }> = {
  REPLENISHMENT: { category: 'replenishment', description: 'stock replenished from an upstream site of the network (depot to base, DC to store)' },
  RETURN: { category: 'reverse', description: 'failed or returned parts travel back up the chain; not part of the supply graph. A demand site whose parts come back into its supply chain this way makes the item a repairable, planned with METRIC by the meio step' },
  REPAIR: { category: 'reverse', description: 'repairable parts sent to a repair site, the lead time counting the repair; the loop METRIC models' },
  BUY: { category: 'sourcing', description: 'purchase from an external supplier (the from site stands for the supplier)' },
  BUILD: { category: 'sourcing', description: 'production at the from site; a route sent as MAKE is stored as BUILD' },
  TRANSFER: { category: 'sourcing', description: 'transfer between sites of the network; downstream demand becomes indirect demand upstream' },
  BALANCING: { category: 'sourcing', description: 'lateral rebalancing between peer sites; moves stock sideways, not part of the supply graph' },
};

const num = (v: unknown) => Number(v);

/**
 * The forward supply flow of every item must stay acyclic: the routes as they would be after the write are checked in
 * every item's network (its own routes plus those for every item). The 400 names the sites along the cycle.
 */
async function checkAcyclic(tx: Tx, candidate: RouteRow): Promise<void> {
  if (!SUPPLY_ROUTE_TYPES.includes(candidate.route_type)) return;
  const routes = (await allRoutes(tx)).filter((r) => r.id !== candidate.id);
  routes.push(candidate);
  const found = findSupplyCycle(routes.map((r) => ({ item_id: r.item_id, from: r.from_site_id, to: r.to_site_id, type: r.route_type })));
  if (!found) return;
  const names = await siteNames(tx, found.cycle);
  const text = found.cycle.map((id) => `${names.get(id)?.xuid ?? id} (site ${id})`).join(' → ');
  throw badRequest(`body: this route would close a supply cycle${found.item === null ? '' : ` for item ${found.item}`}: ${text}; REPLENISHMENT, BUY, BUILD and TRANSFER routes must not lead back to a site they leave`);
}

async function checkRoute(tx: Tx, r: RouteRow): Promise<void> {
  if (r.from_site_id === r.to_site_id) throw badRequest(`body.to_site_id: a route cannot lead from site ${r.from_site_id} to itself`);
  const sites = await missingIds(tx, 'sites', [r.from_site_id, r.to_site_id]);
  if (sites.includes(r.from_site_id)) throw badRequest(`body.from_site_id: site ${r.from_site_id} does not exist`);
  if (sites.includes(r.to_site_id)) throw badRequest(`body.to_site_id: site ${r.to_site_id} does not exist`);
  if (r.item_id !== null && (await missingIds(tx, 'items', [r.item_id])).length) throw badRequest(`body.item_id: item ${r.item_id} does not exist`);
  const twin = await findRouteTwin(tx, r, r.id ?? 0);
  if (twin !== null) {
    throw conflict(`route ${twin} already leads from site ${r.from_site_id} to site ${r.to_site_id} as ${r.route_type} for ${r.item_id === null ? 'every item' : `item ${r.item_id}`}; update it instead`);
  }
  await checkAcyclic(tx, r);
}

const toRoute = (v: Record<string, unknown>): RouteRow => ({
  id: (v.id as number) ?? 0,
  item_id: (v.item_id as number | null) ?? null,
  from_site_id: v.from_site_id as number,
  to_site_id: v.to_site_id as number,
  route_type: (v.route_type as string) ?? DEFAULT_ROUTE_TYPE,
  lead_time: num(v.lead_time),
  priority: (v.priority as number) ?? 1,
});

/** Routes (spec §4.9): the network stock moves along; import staging writes the same table. */
export function registerRouteRoutes(table: RouteTable): void {
  const tag = 'routes';

  defineRoute(table, {
    method: 'get', path: '/api/route-types', tag,
    summary: 'Route types',
    description: 'Every route type with its category. A route created or imported without a type is a BUY route. REPLENISHMENT, BUY, BUILD and TRANSFER routes form the supply graph, which must be acyclic per item; RETURN, REPAIR and BALANCING routes may close loops.',
    responses: { 200: { description: 'route types', schema: { type: 'array', items: s.routeTypeSchema } } },
    handler: () => ROUTE_TYPES.map((t) => ({
      route_type: t, category: TYPE_INFO[t].category, flows_downstream: SUPPLY_ROUTE_TYPES.includes(t), is_default: t === DEFAULT_ROUTE_TYPE,
      description: TYPE_INFO[t].description,
    })),
  });

  defineResource(table, {
    path: '/api/routes', idParam: 'route_id', tag, noun: 'Route', entityType: 'route',
    record: ROUTE_RECORD,
    view: (r) => ({ ...r, lead_time: num(r.lead_time) }),
    schemas: { row: s.routeSchema, create: s.createRouteBody, update: s.updateRouteBody },
    filters: s.routeFilters,
    sortable: ['id', 'item_id', 'from_site_id', 'to_site_id', 'route_type', 'lead_time', 'priority'],
    permissions: { read: 'user', write: 'admin' },
    operations: ['list', 'create', 'update', 'delete'],
    descriptions: {
      list: 'Filtered by item, sites and type, sorted and paged; the total count of matching routes is in the `X-Total-Count` header. `item_id` lists that item\'s own routes; routes for every item have item_id null.',
      create: 'A route from a site to another for one item (or every item, item_id null). 400 naming the field for a missing site or item, a route from a site to itself, or a route that would close a cycle in the supply graph (the sites along it are named); 409 when the same item, sites and type already have a route.',
      update: 'Partial: only the fields sent change; the same checks as on create apply to the route as it would be.',
      delete: 'Deletes the route; supply planning and MEIO stop using it at their next run.',
    },
    hooks: {
      // MAKE is BUILD under another name (domain/supply/routeTypes.ts): stored as BUILD so every reader sees one type.
      prepare: (body) => (typeof body.route_type === 'string' ? { ...body, route_type: canonicalRouteType(body.route_type) } : body),
      beforeWrite: async ({ tx, values }) => checkRoute(tx, toRoute(values!)),
    },
  });
}
