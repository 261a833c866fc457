import { nullable, obj, out } from '../schemas';
import type { JsonSchema } from '../validation';
import { id32, MAX_CONFIG_IDS, nameSchema, scenarioSchema } from '../scenarios/schemas';

export { forceQuery, idParams, pageQuery } from '../scenarios/schemas';

const description: JsonSchema = nullable({ type: 'string', maxLength: 2000 });
const scenarioId: JsonSchema = {
  ...nullable(id32),
  description: 'forecast scenario the pipeline runs; null falls back to the tenant\'s baseline scenario',
};
const settings: JsonSchema = { type: 'object', maxProperties: 500, description: 'free-form pipeline settings; replaced as a whole on update' };
const segmentIds: JsonSchema = {
  type: 'array', items: id32, uniqueItems: true, maxItems: MAX_CONFIG_IDS,
  description: 'segments the pipeline covers (empty: all series); replaces the whole set',
};

export const pipelineSchema: JsonSchema = out({
  id: { type: 'integer' },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
  forecast_scenario_id: nullable({ type: 'integer' }),
  is_active: { type: 'boolean' },
  settings: { type: 'object' },
  segment_ids: { type: 'array', items: { type: 'integer' }, description: 'ascending' },
  created_by: nullable({ type: 'string', description: 'e-mail of the user who created it' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
  last_run_at: nullable({ type: 'string', format: 'date-time', description: 'set by the job machinery when a run of the pipeline starts' }),
});

export const createPipelineBody = obj(
  {
    name: nameSchema,
    description: { ...description, default: null },
    forecast_scenario_id: { ...scenarioId, default: null },
    is_active: { type: 'boolean', default: true },
    settings: { ...settings, default: {} },
    segment_ids: { ...segmentIds, default: [] },
  },
  ['name'],
);

export const updatePipelineBody = obj(
  { name: nameSchema, description, forecast_scenario_id: scenarioId, is_active: { type: 'boolean' }, settings, segment_ids: segmentIds },
  [],
  { minProperties: 1 },
);

export const addSegmentBody = obj({ segment_id: id32 }, ['segment_id']);

export const copyFromResponse = out({
  status: { type: 'string', const: 'copied' },
  source_id: { type: 'integer' },
  pipeline: pipelineSchema,
  results_copied: {
    type: 'object', additionalProperties: { type: 'integer' },
    description: 'rows of stored results copied, per result kind; empty until steps that store results per pipeline register a copier',
  },
});

export const deletePipelineResponse = out({
  status: { type: 'string', const: 'deleted' },
  id: { type: 'integer' },
  detached_workflow_ids: { type: 'array', items: { type: 'integer' }, description: 'process workflows whose scenario_pipeline_id was set to null (force only)' },
});

export const baselineParams: JsonSchema = obj(
  {
    id: id32,
    uid: { type: 'string', pattern: '^[1-9][0-9]{0,8}_[1-9][0-9]{0,8}$', description: 'series id `<item_id>_<site_id>`' },
  },
  ['id', 'uid'],
);

export const baselineResponse = out({
  pipeline_id: { type: 'integer' },
  unique_id: { type: 'string' },
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  scenario_id: { ...nullable({ type: 'integer' }), description: 'the baseline scenario: the pipeline\'s forecast scenario, else the tenant\'s baseline, else null' },
  scenario_source: { type: ['string', 'null'], enum: ['pipeline', 'tenant_baseline', null], description: 'where scenario_id came from' },
  scenario: nullable(scenarioSchema),
  history: {
    type: 'array', description: 'weekly demand (weeks start Monday), oldest first, from the etl step; y is null in a week the site calendar closes',
    items: out({ ds: { type: 'string', format: 'date' }, y: nullable({ type: 'number' }) }),
  },
  forecast: {
    type: 'array', description: 'baseline forecast points; filled once the forecast step has run (empty until then)',
    items: out({ ds: { type: 'string', format: 'date' }, yhat: { type: 'number' }, yhat_lower: { type: 'number' }, yhat_upper: { type: 'number' } }, ['ds', 'yhat']),
  },
});
