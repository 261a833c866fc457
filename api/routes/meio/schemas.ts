import { POLICIES, SERVICE_TYPES } from '../../../domain/inventory/serviceTargets';
import { nullable, obj, out } from '../schemas';
import { id32, idParams, MAX_CONFIG_IDS, nameSchema } from '../scenarios/schemas';
import type { JsonSchema } from '../validation';

export { idParams };

/*
 * Fields of the MEIO configuration (docs/INVENTORY_CONFIG.md). The bounds are repeated as CHECK constraints in
 * migration 008; change both together.
 */
const targetService: JsonSchema = {
  type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1,
  description: 'service target, strictly between 0 and 1 (0.95 = 95 %), measured as `service_type` says',
};
const serviceType: JsonSchema = {
  type: 'string', enum: [...SERVICE_TYPES],
  description: 'fill_rate: share of demand served from stock; cycle_service: probability of no stock-out in a replenishment cycle',
};
const policy: JsonSchema = {
  type: 'string', enum: [...POLICIES],
  description: 'rQ: reorder point r, fixed order quantity Q; sS: periodic review, order up to S when at or below s; base_stock: order up to S every review',
};
const reviewPeriod: JsonSchema = { type: 'number', exclusiveMinimum: 0, maximum: 52, description: 'weeks between reviews of the inventory position (above 0, at most 52)' };
const holdingRate: JsonSchema = { type: 'number', exclusiveMinimum: 0, maximum: 5, description: 'annual holding cost as a fraction of the unit cost (0.25 = 25 % a year; above 0, at most 5)' };
const orderingCost: JsonSchema = { type: 'number', minimum: 0, maximum: 1e9, description: 'fixed cost of one order, in the currency of unit costs (0 to 1e9)' };
const budget: JsonSchema = nullable({
  type: 'number', exclusiveMinimum: 0, maximum: 1e15,
  description: 'inventory investment cap: the optimiser stops adding stock when the next step would exceed it',
});
const isDefault: JsonSchema = { type: 'boolean', description: 'at most one scenario is the default: marking one unmarks the others' };
const description: JsonSchema = nullable({ type: 'string', maxLength: 2000 });

/**
 * docs/INVENTORY_CONFIG.md "Which demand MEIO plans"; the rule is domain/demand/streams.ts plannedWeeklyDistribution.
 * No netted switch: MEIO plans a steady-state weekly distribution, which netting's few current weeks do not change.
 */
const demandSwitches: Record<string, JsonSchema> = {
  demand_statistical: { type: 'boolean', description: "plan the series' fitted weekly demand distribution (the distribution step's; default true)" },
  demand_causal: {
    type: 'boolean',
    description: "add the stored causal demand of the series (docs/CAUSAL.md, the causal scenario last run for the pipeline): its mean over the next 52 weeks, as Poisson failure counts. Off by default: it models the failures the fitted distribution already learnt from history, so with both on that demand counts twice",
  },
  demand_maintenance: {
    type: 'boolean',
    description: "add the parts planned maintenance events consume at the series (docs/MAINTENANCE.md) over the next 52 weeks from the planning date, by the mean and variance of that weekly demand (default true)",
  },
};
const demandDefaults = { demand_statistical: true, demand_causal: false, demand_maintenance: true } as const;

export const scenarioSchema: JsonSchema = out({
  id: { type: 'integer' },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
  service_type: { type: 'string', enum: [...SERVICE_TYPES] },
  target_service: { type: 'number' },
  policy: { type: 'string', enum: [...POLICIES] },
  review_period_weeks: { type: 'number' },
  holding_rate: { type: 'number' },
  ordering_cost: { type: 'number' },
  budget: nullable({ type: 'number', description: 'null: no investment cap' }),
  is_default: { type: 'boolean' },
  ...demandSwitches,
  created_by: nullable({ type: 'string', description: 'e-mail of the user who created it' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

export const createScenarioBody = obj(
  {
    name: nameSchema,
    description: { ...description, default: null },
    service_type: { ...serviceType, default: 'fill_rate' },
    target_service: { ...targetService, default: 0.95 },
    policy: { ...policy, default: 'rQ' },
    review_period_weeks: { ...reviewPeriod, default: 1 },
    holding_rate: { ...holdingRate, default: 0.25 },
    ordering_cost: { ...orderingCost, default: 50 },
    budget: { ...budget, default: null },
    is_default: { ...isDefault, default: false },
    ...Object.fromEntries(Object.entries(demandSwitches).map(([k, v]) => [k, { ...v, default: demandDefaults[k as keyof typeof demandDefaults] }])),
  },
  ['name'],
);

export const updateScenarioBody = obj(
  {
    name: nameSchema, description, service_type: serviceType, target_service: targetService, policy, review_period_weeks: reviewPeriod,
    holding_rate: holdingRate, ordering_cost: orderingCost, budget, is_default: isDefault, ...demandSwitches,
  },
  [], { minProperties: 1 },
);

export const scenarioFilters = {
  name: { schema: { type: 'string', minLength: 1, maxLength: 200, description: 'part of the name, ignoring case' }, op: 'ilike' as const },
  is_default: { schema: { type: 'boolean', description: 'only the default scenario (true) or only the others (false)' } },
};

// ---------------------------------------------------------------- segment parameters

export const segmentParamsSchema: JsonSchema = out({
  scenario_id: { type: 'integer' },
  segment_id: { type: 'integer' },
  segment_name: { type: 'string' },
  target_service: { type: 'number' },
  service_type: nullable({ type: 'string', enum: [...SERVICE_TYPES], description: "null: the scenario's (or a parameter set's)" }),
  holding_rate: nullable({ type: 'number', description: "null: the scenario's (or a parameter set's)" }),
  updated_by: nullable({ type: 'string' }),
  updated_at: { type: 'string', format: 'date-time' },
});

const segmentParamsEntry = obj(
  {
    segment_id: id32,
    target_service: targetService,
    service_type: { ...nullable(serviceType), default: null, description: "null or omitted: the scenario's service type" },
    holding_rate: { ...nullable(holdingRate), default: null, description: "null or omitted: the scenario's holding rate" },
  },
  ['segment_id', 'target_service'],
);

export const segmentParamsBody = obj(
  {
    segment_params: {
      type: 'array', items: segmentParamsEntry, maxItems: 10000,
      description: 'overrides to insert or replace, one per segment; segments not listed keep theirs',
    },
  },
  ['segment_params'],
);

export const segmentParamsPath = idParams('id', 'seg');

export const deleteSegmentParamsResponse = out({
  status: { type: 'string', const: 'deleted' },
  scenario_id: { type: 'integer' },
  segment_ids: { type: 'array', items: { type: 'integer' }, description: 'segments whose overrides were removed' },
});

// ---------------------------------------------------------------- parameter sets

const setValues: JsonSchema = obj(
  {
    target_service: targetService, service_type: serviceType, holding_rate: holdingRate, ordering_cost: orderingCost, policy,
    review_period_weeks: reviewPeriod,
  },
  [], {
    description: 'partial: keys not given fall through to the next applicable set, then the segment parameters, then the scenario. Replaced as a whole on update',
  },
);

const segmentIds: JsonSchema = {
  type: 'array', items: id32, uniqueItems: true, maxItems: MAX_CONFIG_IDS,
  description: 'segments whose series the set applies to; empty: every series',
};
const isActive: JsonSchema = { type: 'boolean', description: 'inactive sets are skipped by resolution' };
const priority: JsonSchema = {
  type: 'integer', minimum: 1, maximum: 1000000,
  description: "position in the scenario's order (1 = tried first); the sets after it move down one. Priorities stay 1..n",
};

export const psetSchema: JsonSchema = out({
  id: { type: 'integer' },
  scenario_id: { type: 'integer' },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
  priority: { type: 'integer', description: '1 = tried first; the sets of a scenario are numbered 1..n' },
  is_active: { type: 'boolean' },
  values: { type: 'object' },
  segment_ids: { type: 'array', items: { type: 'integer' } },
  created_by: nullable({ type: 'string' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

export const createPsetBody = obj(
  {
    name: { ...nameSchema, description: 'unique within the scenario, ignoring case; surrounding spaces are trimmed' },
    description: { ...description, default: null },
    priority: { ...priority, description: `${priority.description}. Default: last` },
    is_active: { ...isActive, default: true },
    values: { ...setValues, default: {} },
    segment_ids: { ...segmentIds, default: [] },
  },
  ['name'],
);

export const updatePsetBody = obj(
  { name: nameSchema, description, priority, is_active: isActive, values: setValues, segment_ids: segmentIds },
  [], { minProperties: 1, description: 'partial; a set cannot move to another scenario' },
);

export const psetParams = idParams('pset_id');

export const psetSegmentsBody = obj({ segment_ids: segmentIds }, ['segment_ids']);

export const psetSegmentsResponse: JsonSchema = out({
  parameter_set_id: { type: 'integer' },
  scenario_id: { type: 'integer' },
  segment_ids: { type: 'array', items: { type: 'integer' } },
  segments: { type: 'array', items: out({ id: { type: 'integer' }, name: { type: 'string' } }) },
  applies_to_all: { type: 'boolean', description: 'true when the set has no segments' },
});

export const reorderBody = obj(
  { ordered_ids: { type: 'array', items: id32, uniqueItems: true, maxItems: MAX_CONFIG_IDS, description: "every set id of the scenario exactly once, in the new order" } },
  ['ordered_ids'],
);

export const deletePsetResponse = out({ status: { type: 'string', const: 'deleted' }, id: { type: 'integer' } });
