import { ROUTE_TYPES } from '../../../domain/import/tables';
import { refusedRouteType, ROUTE_TYPE_ALIASES, ROUTE_TYPES_INSTEAD } from '../../../domain/supply/routeTypes';
import { nullable, obj, out } from '../schemas';
import { id32 } from '../scenarios/schemas';
import type { JsonSchema } from '../validation';

/** MAKE is accepted and stored as BUILD; USE and ZONE_BALANCING are answered with the type to use (domain/supply/routeTypes.ts). */
const routeType: JsonSchema = {
  type: 'string',
  enum: [...ROUTE_TYPES, ...Object.keys(ROUTE_TYPE_ALIASES)],
  'x-instead': Object.fromEntries(Object.keys(ROUTE_TYPES_INSTEAD).map((t) => [t, refusedRouteType(t)!])),
  description: `route type; BUY when omitted; ${Object.entries(ROUTE_TYPE_ALIASES).map(([a, t]) => `${a} is stored as ${t}`).join(', ')}`,
};
const leadTime: JsonSchema = { type: 'number', minimum: 0, maximum: 520, description: 'lead time in weeks (0 to 520)' };
const priority: JsonSchema = { type: 'integer', minimum: 0, maximum: 1000, description: 'lower is preferred among routes into the same site' };

export const routeSchema: JsonSchema = out({
  id: { type: 'integer' },
  item_id: nullable({ type: 'integer', description: 'null: the route serves every item' }),
  from_site_id: { type: 'integer', description: 'the supplying site' },
  to_site_id: { type: 'integer', description: 'the receiving site' },
  route_type: { type: 'string', enum: [...ROUTE_TYPES] },
  lead_time: { type: 'number', description: 'weeks' },
  priority: { type: 'integer' },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

export const createRouteBody = obj(
  {
    item_id: { ...nullable(id32), default: null, description: 'the item; null (default) for a route every item may take' },
    from_site_id: id32,
    to_site_id: id32,
    route_type: { ...routeType, default: 'BUY' },
    lead_time: leadTime,
    priority: { ...priority, default: 1 },
  },
  ['from_site_id', 'to_site_id', 'lead_time'],
);

export const updateRouteBody = obj(
  { item_id: nullable(id32), from_site_id: id32, to_site_id: id32, route_type: routeType, lead_time: leadTime, priority },
  [], { minProperties: 1 },
);

export const routeFilters = {
  item_id: { schema: { ...id32, description: 'routes of this item (its own only; add include_global for routes of every item)' } },
  from_site_id: { schema: { ...id32, description: 'routes leaving this site' } },
  to_site_id: { schema: { ...id32, description: 'routes arriving at this site' } },
  route_type: { schema: { type: 'string', enum: [...ROUTE_TYPES], description: 'routes of this type' } },
};

export const routeTypeSchema: JsonSchema = out({
  route_type: { type: 'string' },
  category: { type: 'string', enum: ['replenishment', 'reverse', 'sourcing'], description: 'replenishment and sourcing move stock downstream; reverse (RETURN, REPAIR) against it' },
  flows_downstream: { type: 'boolean', description: 'part of the acyclic supply graph (checked for cycles)' },
  is_default: { type: 'boolean', description: 'the type of a route created without one' },
  description: { type: 'string' },
});

const node: JsonSchema = out({
  site_id: { type: 'integer' },
  site_xuid: { type: 'string' },
  site_name: { type: 'string' },
  role: { type: 'string', enum: ['source', 'internal', 'demand', 'isolated'], description: 'source: nothing supplies it in the network; demand: supplies no other site' },
  has_series: { type: 'boolean', description: 'the item has demand history at this site' },
  on_hand: { type: 'number' },
  forecast_weekly_mean: nullable({ type: 'number', description: 'mean of the best method\'s forecast over its horizon' }),
  safety_stock: nullable({ type: 'number', description: 'from the latest meio result of the scenario, else the item-site master' }),
  reorder_point: nullable({ type: 'number' }),
  target_service: nullable({ type: 'number' }),
  expected_fill_rate: nullable({ type: 'number' }),
  echelon_model: nullable({ type: 'string', enum: ['single', 'gsm', 'metric'], description: 'the model of the latest meio result: metric for a repairable item planned on its RETURN/REPAIR loops' }),
});

const edge: JsonSchema = out({
  route_id: { type: 'integer' },
  from_site_id: { type: 'integer' },
  to_site_id: { type: 'integer' },
  route_type: { type: 'string' },
  lead_time: { type: 'number' },
  priority: { type: 'integer' },
  item_specific: { type: 'boolean', description: 'false for a route every item may take' },
});

export const ioNetworkSchema: JsonSchema = out({
  unique_id: { type: 'string' },
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  pipeline_id: { type: 'integer' },
  scenario_id: nullable({ type: 'integer', description: 'the MEIO scenario whose results fill safety_stock and targets' }),
  nodes: { type: 'array', items: node },
  edges: { type: 'array', items: edge },
});

export const ioNetworkQuery = obj({
  pipeline_id: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'pipeline of the forecast and MEIO results; default the default results pipeline' },
  scenario_id: { ...id32, description: 'MEIO scenario; default the default scenario, else the latest run' },
});

export const ioOverrideBody = obj(
  {
    pipeline_id: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0, description: 'pipeline the override applies to (0: runs outside any pipeline)' },
    scenario_id: { ...nullable(id32), default: null, description: 'MEIO scenario; null applies to every scenario of the pipeline' },
    item_id: id32,
    site_id: id32,
    sl_override: { ...nullable({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }), description: 'cycle-service level target in (0, 1); null clears it' },
    // a floor as for k: D / 5e-324 orders a year is Infinity, which the K-curve's answers cannot carry
    eoq_override: { ...nullable({ type: 'number', minimum: 1e-6, maximum: 1e12 }), description: 'order quantity (units) used instead of the EOQ (1e-6 to 1e12); null clears it' },
    fr_override: { ...nullable({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }), description: 'fill-rate target in (0, 1); null clears it' },
  },
  ['item_id', 'site_id'],
  { anyOf: [{ required: ['sl_override'] }, { required: ['eoq_override'] }, { required: ['fr_override'] }] },
);

export const ioOverrideSchema: JsonSchema = out({
  id: { type: 'integer' },
  pipeline_id: { type: 'integer' },
  scenario_id: nullable({ type: 'integer' }),
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  sl_override: nullable({ type: 'number' }),
  eoq_override: nullable({ type: 'number' }),
  fr_override: nullable({ type: 'number' }),
  updated_by: nullable({ type: 'string' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
  created: { type: 'boolean', description: 'true when the call inserted the row, false when it updated it' },
});
