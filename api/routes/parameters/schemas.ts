import { FORECAST_METHOD_NAMES, PARAMETER_TYPES } from '../../../domain/parameters/defaults';
import { nullable, obj, out, skipParam } from '../schemas';
import { id32, MAX_CONFIG_IDS, nameSchema } from '../scenarios/schemas';
import { uniqueIdSchema } from '../segments/access';
import type { JsonSchema } from '../validation';

export { idParams, pageQuery } from '../scenarios/schemas';

export const parameterType: JsonSchema = { type: 'string', enum: [...PARAMETER_TYPES], description: 'parameter type (GET /api/parameters/catalogue lists them with their keys)' };

const description: JsonSchema = nullable({ type: 'string', maxLength: 2000 });
const priority: JsonSchema = {
  type: 'integer', minimum: 1, maximum: 1000000,
  description: 'order within the type: lower is tried first (ties: lower id). A new set without one goes last; reorder sets 1..n',
};
const values: JsonSchema = {
  type: 'object', maxProperties: 500,
  description: "partial values of the type's catalogue keys; keys not given fall through to the next applicable set, then the default. Replaced as a whole on update",
};
const segmentIds: JsonSchema = {
  type: 'array', items: id32, uniqueItems: true, maxItems: MAX_CONFIG_IDS,
  description: 'segments whose series the set applies to; empty: every series',
};
const isActive: JsonSchema = { type: 'boolean', description: 'inactive sets are skipped by resolution' };

export const setSchema: JsonSchema = out({
  id: { type: 'integer' },
  parameter_type: { type: 'string' },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
  priority: { type: 'integer' },
  values: { type: 'object' },
  segment_ids: { type: 'array', items: { type: 'integer' } },
  is_active: { type: 'boolean' },
  created_by: nullable({ type: 'string' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

export const listQuery: JsonSchema = obj({
  parameter_type: parameterType,
  skip: skipParam,
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'rows to return (at most 1000)' },
});

export const createSetBody = obj(
  {
    parameter_type: parameterType,
    name: { ...nameSchema, description: 'unique within the parameter type, ignoring case; surrounding spaces are trimmed' },
    description: { ...description, default: null },
    priority,
    values: { ...values, default: {} },
    segment_ids: { ...segmentIds, default: [] },
    is_active: { ...isActive, default: true },
  },
  ['parameter_type', 'name'],
);

export const updateSetBody = obj(
  { name: nameSchema, description, priority, values, segment_ids: segmentIds, is_active: isActive },
  [], { minProperties: 1, description: 'partial; the parameter type of a set cannot change' },
);

export const reorderBody = obj(
  {
    parameter_type: parameterType,
    ordered_ids: { type: 'array', items: id32, uniqueItems: true, maxItems: MAX_CONFIG_IDS, description: 'every set id of the type exactly once, in the new order' },
  },
  ['parameter_type', 'ordered_ids'],
);

export const segmentsBody = obj({ segment_ids: segmentIds }, ['segment_ids']);

export const segmentsResponse: JsonSchema = out({
  parameter_set_id: { type: 'integer' },
  parameter_type: { type: 'string' },
  segment_ids: { type: 'array', items: { type: 'integer' } },
  segments: {
    type: 'array',
    items: out({ id: { type: 'integer' }, name: nullable({ type: 'string', description: 'null while the segments table does not exist or the segment was deleted' }) }),
  },
  applies_to_all: { type: 'boolean', description: 'true when the set has no segments' },
});

export const deleteResponse: JsonSchema = out({ status: { type: 'string', const: 'deleted' }, id: { type: 'integer' } });

export const resolveBody = obj({
  mode: {
    type: 'string', enum: ['auto', 'sync', 'job'], default: 'auto',
    description: `auto: synchronous up to the sync limit of series, else a job; sync: always in the request; job: always a Temporal job (kind parameters_resolve)`,
  },
  run_id: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]+$', description: 'job id for mode job: repeating the request returns the same job' },
});

export const resolveResponse: JsonSchema = out({
  status: { type: 'string', enum: ['completed', 'queued'] },
  mode: { type: 'string', enum: ['sync', 'job'] },
  job_id: nullable({ type: 'string' }),
  series: { type: 'integer', description: 'series resolved (sync) or to resolve (job)' },
  assignments: nullable({ type: 'integer', description: 'assignment rows written (sync); null for a job (see its result)' }),
});

const defSchema: JsonSchema = out({ default: {}, schema: { type: 'object' }, description: { type: 'string' } });

export const catalogueResponse: JsonSchema = out({
  parameter_types: { type: 'object', additionalProperties: { type: 'object', additionalProperties: defSchema } },
  forecast_methods: {
    type: 'array', items: { type: 'string', enum: [...FORECAST_METHOD_NAMES] },
    description: "forecasting methods; their hyperparameters are the forecast keys '<method>.<key>'",
  },
});

const source: JsonSchema = {
  type: 'object', required: ['level'],
  properties: {
    level: { type: 'string', enum: ['default', 'set', 'override'] },
    set_id: { type: 'integer' },
    set_name: { type: 'string' },
    method: { type: 'string', description: 'the override target (a method or a parameter type)' },
  },
};

export const resolvedType: JsonSchema = out({
  set_ids: { type: 'array', items: { type: 'integer' }, description: 'applicable active sets in the order they are tried' },
  has_override: { type: 'boolean' },
  values: { type: 'object' },
  sources: { type: 'object', additionalProperties: source },
});

export const uniqueIdParams: JsonSchema = obj({ unique_id: uniqueIdSchema }, ['unique_id']);

export const overrideRow: JsonSchema = out({
  method: { type: 'string' },
  parameter_type: { type: 'string' },
  overrides: { type: 'object' },
  updated_by: nullable({ type: 'string' }),
  updated_at: { type: 'string', format: 'date-time' },
});

export const seriesParametersResponse: JsonSchema = out({
  unique_id: { type: 'string' },
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  segment_ids: { type: 'array', items: { type: 'integer' }, description: 'segments the series belongs to (segment_members)' },
  parameters: { type: 'object', additionalProperties: resolvedType, description: 'per parameter type: every effective value and its source' },
  overrides: { type: 'array', items: overrideRow },
  assignment: {
    type: 'array',
    description: 'the materialised assignment of the last POST /api/parameters/resolve (may be older than the live values above)',
    items: out({ parameter_type: { type: 'string' }, set_ids: { type: 'array', items: { type: 'integer' } }, has_override: { type: 'boolean' }, resolved_at: { type: 'string', format: 'date-time' } }),
  },
});

export const seriesParametersQuery: JsonSchema = obj({ parameter_type: parameterType });
