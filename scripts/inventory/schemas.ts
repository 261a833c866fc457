/**
 * JSON Schemas of the inventory CLI's instance files, one per model (docs/INVENTORY.md describes every field). Field
 * names are snake_case like the meio tables; periods are whatever unit the costs and rates are per, as long as one
 * instance uses one unit throughout.
 */

const positive = { type: 'number', exclusiveMinimum: 0 } as const;
const nonNegative = { type: 'number', minimum: 0 } as const;
const nonNegativeInt = { type: 'integer', minimum: 0 } as const;
const probability = { type: 'number', minimum: 0, maximum: 1 } as const;
/** a service target of 0 or 1 has no finite policy (an infinite safety factor or none at all) */
const serviceTarget = { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 } as const;

/** Per-period demand, the engines' DemandDistribution; `type` picks the family and so the error messages. */
export const demandSchema = {
  type: 'object',
  properties: { type: { type: 'string' } },
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [
    { properties: { type: { const: 'poisson' }, lambda: positive }, required: ['lambda'], additionalProperties: false },
    {
      properties: { type: { const: 'negative_binomial' }, r: positive, p: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 } },
      required: ['r', 'p'],
      additionalProperties: false,
    },
    { properties: { type: { const: 'normal' }, mu: nonNegative, sigma: positive }, required: ['mu', 'sigma'], additionalProperties: false },
    { properties: { type: { const: 'gamma' }, shape: positive, rate: positive }, required: ['shape', 'rate'], additionalProperties: false },
    {
      properties: { type: { const: 'empirical' }, values: { type: 'array', minItems: 1, items: nonNegative } },
      required: ['values'],
      additionalProperties: false,
    },
  ],
} as const;

/** Fixed, random by moments, or random by a pmf over lead times (leadTimeDemand's LeadTime). */
const leadTimeSchema = {
  oneOf: [
    nonNegative,
    { type: 'object', properties: { mean: nonNegative, sd: nonNegative }, required: ['mean', 'sd'], additionalProperties: false },
    {
      type: 'object',
      properties: {
        pmf: {
          type: 'array',
          minItems: 1,
          items: { type: 'object', properties: { lead_time: nonNegative, probability }, required: ['lead_time', 'probability'], additionalProperties: false },
        },
      },
      required: ['pmf'],
      additionalProperties: false,
    },
  ],
} as const;

const perPeriodCost = { oneOf: [nonNegative, { type: 'array', minItems: 1, items: nonNegative }] } as const;

const eoq = {
  type: 'object',
  properties: {
    fixed_cost: positive,
    holding_cost: positive,
    demand_rate: positive,
    stockout_cost: positive,
    min_quantity: nonNegative,
    max_quantity: positive,
    order_multiple: positive,
  },
  required: ['fixed_cost', 'holding_cost', 'demand_rate'],
  additionalProperties: false,
} as const;

const wagnerWhitin = {
  type: 'object',
  properties: {
    demands: { type: 'array', minItems: 1, items: nonNegative },
    setup_cost: perPeriodCost,
    holding_cost: perPeriodCost,
  },
  required: ['demands', 'setup_cost', 'holding_cost'],
  additionalProperties: false,
} as const;

const rq = {
  type: 'object',
  properties: {
    demand: demandSchema,
    lead_time: leadTimeSchema,
    holding_cost: positive,
    fixed_cost: positive,
    stockout_cost: positive,
    service: {
      type: 'object',
      properties: { type: { enum: ['fill_rate', 'cycle_service'] }, target: serviceTarget },
      required: ['type', 'target'],
      additionalProperties: false,
    },
    order_quantity: positive,
    method: { enum: ['exact', 'eoqb', 'loss_function', 'eil'] },
    unit_cost: nonNegative,
  },
  required: ['demand', 'lead_time', 'holding_cost', 'fixed_cost'],
  additionalProperties: false,
} as const;

const sS = {
  type: 'object',
  properties: {
    demand: demandSchema,
    lead_time: nonNegativeInt,
    holding_cost: positive,
    stockout_cost: positive,
    fixed_cost: nonNegative,
  },
  required: ['demand', 'holding_cost', 'stockout_cost', 'fixed_cost'],
  additionalProperties: false,
} as const;

const baseStock = {
  type: 'object',
  properties: {
    demand: demandSchema,
    lead_time: leadTimeSchema,
    holding_cost: positive,
    stockout_cost: positive,
    review_period: positive,
  },
  required: ['demand', 'lead_time', 'holding_cost', 'stockout_cost'],
  additionalProperties: false,
} as const;

const gsm = {
  type: 'object',
  properties: {
    stages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          processing_time: nonNegativeInt,
          holding_cost: nonNegative,
          demand_mean: nonNegative,
          demand_std: nonNegative,
          max_service_time: nonNegativeInt,
          inbound_service_time: nonNegativeInt,
          service_level: serviceTarget,
          safety_factor: nonNegative,
        },
        required: ['id', 'processing_time', 'holding_cost'],
        additionalProperties: false,
      },
    },
    arcs: {
      type: 'array',
      items: { type: 'object', properties: { from: { type: 'integer' }, to: { type: 'integer' } }, required: ['from', 'to'], additionalProperties: false },
    },
    service_level: serviceTarget,
    safety_factor: nonNegative,
  },
  required: ['stages'],
  additionalProperties: false,
} as const;

const metric = {
  type: 'object',
  properties: {
    method: { enum: ['metric', 'vari-metric'] },
    unit_cost: positive,
    depot_repair_time: nonNegative,
    depot_spares: nonNegativeInt,
    bases: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          demand_rate: nonNegative,
          repair_probability: probability,
          repair_time: nonNegative,
          order_ship_time: nonNegative,
          spares: nonNegativeInt,
        },
        required: ['demand_rate', 'repair_probability', 'repair_time', 'order_ship_time'],
        additionalProperties: false,
      },
    },
    target_backorders: nonNegative,
    budget: nonNegative,
    max_depot_spares: nonNegativeInt,
    max_base_spares: nonNegativeInt,
  },
  required: ['depot_repair_time', 'bases'],
  additionalProperties: false,
} as const;

const clarkScarf = {
  type: 'object',
  properties: {
    stages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: { lead_time: nonNegativeInt, echelon_holding_cost: nonNegative },
        required: ['lead_time', 'echelon_holding_cost'],
        additionalProperties: false,
      },
    },
    stockout_cost: positive,
    demand: demandSchema,
  },
  required: ['stages', 'stockout_cost', 'demand'],
  additionalProperties: false,
} as const;

const siteTarget = {
  type: 'object',
  properties: {
    service_type: { enum: ['fill_rate', 'cycle_service'] },
    target_service: serviceTarget,
    holding_rate: { type: 'number', exclusiveMinimum: 0, maximum: 5 },
    ordering_cost: nonNegative,
    policy: { enum: ['rQ', 'sS', 'base_stock'] },
    review_period_weeks: { type: 'number', exclusiveMinimum: 0, maximum: 52 },
    source: { type: 'string' },
  },
  additionalProperties: false,
} as const;

const meio = {
  type: 'object',
  properties: {
    target: siteTarget,
    budget: nonNegative,
    sites: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          site_id: { type: 'integer' },
          demand: { oneOf: [{ type: 'null' }, demandSchema] },
          has_series: { type: 'boolean' },
          unit_cost: nonNegative,
          master_lead_time: { oneOf: [{ type: 'null' }, nonNegative] },
          moq: nonNegative,
          order_multiple: nonNegative,
          eoq_override: positive,
          target: siteTarget,
        },
        required: ['site_id'],
        additionalProperties: false,
      },
    },
    routes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          from: { type: 'integer' },
          to: { type: 'integer' },
          type: { enum: ['REPLENISHMENT', 'RETURN', 'REPAIR', 'BUY', 'BUILD', 'TRANSFER', 'BALANCING'] },
          lead_time: nonNegative,
          priority: { type: 'integer' },
        },
        required: ['from', 'to', 'lead_time'],
        additionalProperties: false,
      },
    },
  },
  required: ['sites'],
  additionalProperties: false,
} as const;

export const MODEL_SCHEMAS = {
  eoq,
  'wagner-whitin': wagnerWhitin,
  rq,
  ss: sS,
  'base-stock': baseStock,
  gsm,
  metric,
  'clark-scarf': clarkScarf,
  meio,
} as const;

export type ModelName = keyof typeof MODEL_SCHEMAS;
export const MODEL_NAMES = Object.keys(MODEL_SCHEMAS) as ModelName[];

export function isModelName(s: string): s is ModelName {
  return Object.prototype.hasOwnProperty.call(MODEL_SCHEMAS, s);
}
