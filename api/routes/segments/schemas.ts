import { fixedFields } from '../../../domain/segments/fields';
import { OPERATORS, OPERATORS_BY_TYPE, typeWord, type FieldDef, type FieldType, type Operator } from '../../../domain/segments/rules';
import { nullable, obj, out, skipParam } from '../schemas';
import type { JsonSchema } from '../validation';
import { id32, nameSchema } from '../scenarios/schemas';
import { uniqueIdSchema } from './access';

const scalar: JsonSchema = { type: ['string', 'number', 'boolean'] };

const operatorDoc = Object.entries(OPERATORS_BY_TYPE).map(([t, ops]) => `${t}: ${ops.join(', ')}`).join('; ');

const SCALAR: Record<FieldType, JsonSchema> = { number: { type: 'number' }, string: { type: 'string' }, date: { type: 'string', format: 'date' }, boolean: { type: 'boolean' } };
const when = (operators: readonly string[]): JsonSchema => ({ required: ['operator'], properties: { operator: { enum: [...operators] } } });

/**
 * What a rule on one fixed field takes (domain/segments/rules.ts checkRule, in the same words): its type's operators
 * and values of its type. Operators of no type are left to the operator enum, so that answer stays the enum's.
 */
function fixedFieldRule(f: FieldDef): JsonSchema {
  const v = SCALAR[f.type];
  const lists = ['in', 'not in'].filter((o) => f.operators.includes(o as Operator));
  const scalars = f.operators.filter((o) => !['in', 'not in', 'between', 'is null'].includes(o));
  return {
    if: { required: ['field'], properties: { field: { const: f.field } } },
    then: {
      allOf: [
        {
          properties: { operator: { anyOf: [{ not: { enum: [...OPERATORS] } }, { enum: f.operators }] } },
          'x-refusal': `operator '{value}' does not apply to field '${f.field}' of type ${f.type} (allowed: ${f.operators.join(', ')})`,
        },
        ...lists.map((o) => ({
          if: when([o]),
          then: { required: ['value'], properties: { value: { type: 'array', minItems: 1, items: v } }, 'x-refusal': `value of '${o}' must be a non-empty list of ${f.type} values for field '${f.field}'` },
        })),
        ...(f.operators.includes('between') ? [{
          if: when(['between']),
          then: { required: ['value'], properties: { value: { type: 'array', minItems: 2, maxItems: 2, items: v } }, 'x-refusal': `value of 'between' must be [low, high], each ${typeWord[f.type]}, for field '${f.field}'` },
        }] : []),
        { if: when(['is null']), then: { properties: { value: { type: ['boolean', 'null'] } }, 'x-refusal': "value of 'is null' must be true, false or absent" } },
        { if: when(scalars), then: { required: ['value'], properties: { value: v }, 'x-refusal': `value must be ${typeWord[f.type]} for field '${f.field}' (type ${f.type})` } },
      ],
    },
  };
}

/** Fields of this tenant's data: item and site attributes and ABC configurations, checked against the catalogue by the handler. */
const DISCOVERED_FIELD = '^(?:(?:item|site)_attributes\\..+|abc:.+)$';

export const ruleSchema: JsonSchema = {
  ...obj(
    {
      field: { type: 'string', minLength: 1, maxLength: 300, description: 'a field of GET /api/segments/fields: a fixed one, `item_attributes.<key>`, `site_attributes.<key>` or `abc:<configuration name>`' },
      operator: { type: 'string', enum: [...OPERATORS] },
      value: {
        anyOf: [scalar, { type: 'null' }, { type: 'array', items: scalar, maxItems: 10000 }],
        description: "a value of the field's type; `in`/`not in`: a non-empty list; `between`: [low, high] inclusive; `is null`: true (or absent) = has no value, false = has a value",
      },
    },
    ['field', 'operator'],
  ),
  allOf: [
    {
      properties: { field: { anyOf: [{ enum: fixedFields().map((f) => f.field) }, { type: 'string', pattern: DISCOVERED_FIELD }] } },
      'x-refusal': "unknown field '{value}' (GET /api/segments/fields lists the fields)",
    },
    ...fixedFields().map(fixedFieldRule),
  ],
  description: `One condition. Operators by field type: ${operatorDoc}. Strings compare case-insensitively; \`contains\` is a substring test; dates are 'YYYY-MM-DD'. Every operator but \`is null\` is false on a missing value. The fixed fields' operators and value types are in this schema; those of attributes and ABC fields depend on the tenant's data and are checked against GET /api/segments/fields.`,
};

export const rulesSchema: JsonSchema = {
  type: 'array', items: ruleSchema, maxItems: 100,
  description: 'AND-combined; an empty list matches every series. A rule on an unknown field, with an operator that does not apply to the field type or a value of the wrong type is a 400 naming the rule index (`body.rules[<i>]`).',
};

const description: JsonSchema = nullable({ type: 'string', maxLength: 2000 });

export const segmentSchema: JsonSchema = out({
  id: { type: 'integer' },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
  rules: { type: 'array', items: out({ field: { type: 'string' }, operator: { type: 'string' } }) },
  member_count: { type: 'integer', description: 'series written by the last assign (membership is not recomputed when rules change; assign again)' },
  assigned_at: nullable({ type: 'string', format: 'date-time', description: 'when membership was last written; null before the first assign' }),
  can_edit: { type: 'boolean', description: 'whether the caller may change, delete or assign this segment' },
  created_by: nullable({ type: 'string' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

export const createBody = obj({ name: nameSchema, description: { ...description, default: null }, rules: { ...rulesSchema, default: [] } }, ['name']);
export const updateBody = obj({ name: nameSchema, description, rules: rulesSchema }, [], { minProperties: 1 });

export const segmentIdParams = obj({ segment_id: id32 }, ['segment_id']);
export const previewParams = obj({ segment_id: { type: 'integer', minimum: 0, maximum: 2147483647, description: '0 previews rules for a segment not saved yet' } }, ['segment_id']);
export const uidParams = obj({ unique_id: uniqueIdSchema }, ['unique_id']);

export const pageQuery = obj({
  skip: skipParam,
  limit: { type: 'integer', minimum: 1, maximum: 50000, default: 200 },
});

export const previewBody = obj({
  rules: { ...rulesSchema, description: `${rulesSchema.description as string} Absent: the saved rules of the segment (required when segment_id is 0).` },
  skip: skipParam,
  limit: { type: 'integer', minimum: 0, maximum: 50000, default: 200, description: 'series listed (the count covers all matches)' },
});

export const seriesRefSchema: JsonSchema = out({
  unique_id: { type: 'string' }, item_id: { type: 'integer' }, site_id: { type: 'integer' },
  item_xuid: { type: 'string' }, item_name: { type: 'string' }, site_xuid: { type: 'string' }, site_name: { type: 'string' },
});

export const previewResponse = out({
  segment_id: { type: 'integer' },
  rules: { type: 'array' },
  count: { type: 'integer', description: 'matching series (within the caller\'s segment permissions)' },
  total_demand: { type: 'number', description: 'sum of total_demand of the matches' },
  total_value: { type: 'number', description: 'sum of total_demand × unit_price (0 for items without price)' },
  series: { type: 'array', items: seriesRefSchema, description: 'the requested page of matches, by item_id, site_id' },
});

export const assignResponse = out({
  segment_id: { type: 'integer' },
  members: { type: 'integer', description: 'series in the segment now' },
  added: { type: 'integer' },
  removed: { type: 'integer' },
  assigned_at: { type: 'string', format: 'date-time' },
});

export const memberSchema: JsonSchema = {
  ...seriesRefSchema,
  properties: { ...(seriesRefSchema.properties as object), total_demand: nullable({ type: 'number' }), unit_price: { type: 'number' } },
};

export const detailsResponse = out({
  segment: segmentSchema,
  series_count: { type: 'integer' },
  item_count: { type: 'integer' },
  site_count: { type: 'integer' },
  total_demand: { type: 'number', description: 'sum of the members\' total_demand (whole history, etl step)' },
  total_value: { type: 'number', description: 'sum of total_demand × unit_price; items without a price count 0' },
  priced_series: { type: 'integer', description: 'members whose item has unit_price > 0' },
  class_mix: {
    type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'integer' } },
    description: 'per ABC configuration name: members per class label (`unclassified` for members without a result)',
  },
});

export const fieldSchema: JsonSchema = out(
  {
    field: { type: 'string' },
    type: { type: 'string', enum: ['number', 'string', 'date', 'boolean'] },
    source: { type: 'string', enum: ['series', 'item', 'site', 'item_attribute', 'site_attribute', 'abc', 'method'] },
    label: { type: 'string' },
    description: { type: 'string' },
    operators: { type: 'array', items: { type: 'string', enum: [...OPERATORS] } },
    values: { type: 'array', items: scalar, description: 'known values when there are few (ABC labels, demand classes, site types, attribute values)' },
  },
  ['field', 'type', 'source', 'label', 'operators'],
);

export const parseBody = obj({ description: { type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' } }, ['description']);

export const parseResponse = out({
  description: { type: 'string' },
  rules: { type: 'array', items: ruleSchema },
  source: { type: 'string', enum: ['llm', 'parser'], description: '`llm` when the tenant\'s language model (llm.base_url) answered, else the built-in parser' },
  unparsed: { type: 'array', items: { type: 'string' }, description: 'words the built-in parser did not understand' },
  warnings: { type: 'array', items: { type: 'string' } },
});

export const deleteQuery = obj({ force: { type: 'boolean', default: false, description: 'delete even when pipelines, parameter sets or process workflows use the segment, removing those links' } });

export const deleteResponse = out({
  status: { type: 'string', const: 'deleted' },
  id: { type: 'integer' },
  unlinked: out({
    pipelines: { type: 'array', items: { type: 'string' } },
    parameter_sets: { type: 'array', items: { type: 'string' } },
    process_workflows: { type: 'array', items: { type: 'string' } },
  }),
});
