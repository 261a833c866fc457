import { nullable, obj, out } from '../schemas';
import { STEP_IDS } from '../../../lib/steps';
import type { JsonSchema } from '../validation';
import { id32, MAX_CONFIG_IDS, nameSchema } from '../scenarios/schemas';

export { idParams, pageQuery } from '../scenarios/schemas';

/** The steps a workflow may chain (spec §1: the ten pipeline steps, eoq, and allocation): the one list in lib/steps.ts. */
export const WORKFLOW_STEPS: readonly string[] = STEP_IDS;

const steps: JsonSchema = {
  type: 'array', items: { type: 'string', enum: [...WORKFLOW_STEPS] }, minItems: 1, maxItems: WORKFLOW_STEPS.length, uniqueItems: true,
  description: 'steps run in this order, each at most once',
};
const segmentIds: JsonSchema = { type: 'array', items: id32, uniqueItems: true, maxItems: MAX_CONFIG_IDS, description: 'segments to run on (empty: all)' };
const pipelineId: JsonSchema = { ...nullable(id32), description: 'scenario pipeline the workflow runs on; must exist' };
const stepWorkers: JsonSchema = {
  type: 'object', additionalProperties: { type: 'integer', minimum: 1, maximum: 64 }, maxProperties: WORKFLOW_STEPS.length,
  propertyNames: { enum: [...WORKFLOW_STEPS], 'x-refusal': `'{value}' is not a step (one of ${WORKFLOW_STEPS.join(', ')})` },
  description: 'parallel workers per step (1 to 64), keyed by step; every key must be one of `steps`. Replaced as a whole on update',
};

export const workflowSchema: JsonSchema = out({
  workflow_id: { type: 'integer' },
  name: { type: 'string' },
  steps: { type: 'array', items: { type: 'string', enum: [...WORKFLOW_STEPS] } },
  segment_ids: { type: 'array', items: { type: 'integer' } },
  scenario_pipeline_id: nullable({ type: 'integer' }),
  step_workers: { type: 'object', additionalProperties: { type: 'integer' } },
  sort_order: { type: 'integer', description: 'list position: a new workflow gets one more than the highest; reorder sets 1..n' },
  last_run_at: nullable({ type: 'string', format: 'date-time', description: 'when the workflow was last started' }),
  created_by: nullable({ type: 'string' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

export const createWorkflowBody = obj(
  {
    name: nameSchema,
    steps,
    segment_ids: { ...segmentIds, default: [] },
    scenario_pipeline_id: { ...pipelineId, default: null },
    step_workers: { ...stepWorkers, default: {} },
  },
  ['name', 'steps'],
);

export const updateWorkflowBody = obj({ name: nameSchema, steps, segment_ids: segmentIds, scenario_pipeline_id: pipelineId, step_workers: stepWorkers }, [], { minProperties: 1 });

export const reorderBody = obj(
  {
    ordered_ids: {
      type: 'array', items: id32, uniqueItems: true, maxItems: MAX_CONFIG_IDS,
      description: 'every workflow id exactly once, in the new order',
    },
  },
  ['ordered_ids'],
);

export const deleteWorkflowResponse = out({ status: { type: 'string', const: 'deleted' }, workflow_id: { type: 'integer' } });
