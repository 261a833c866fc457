import { FORECAST_METHOD_NAMES } from '../../../domain/parameters/defaults';
import { STEP_IDS } from '../../../lib/steps';
import { int4, nullable, obj, out } from '../schemas';
import type { JsonSchema } from '../validation';

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'killed'];

export const jobSchema: JsonSchema = out(
  {
    job_id: { type: 'string' },
    kind: { type: 'string', description: 'step, run_all, run_forecast, process_workflow, import' },
    step: nullable({ type: 'string' }),
    status: { type: 'string', enum: JOB_STATUSES, description: 'queued → running → completed | failed | killed' },
    parent_job_id: nullable({ type: 'string' }),
    pipeline_id: nullable({ type: 'integer' }),
    scenario_id: nullable({ type: 'integer' }),
    segment_id: nullable({ type: 'integer' }),
    progress: { type: 'object', description: '{done, total} series processed so far' },
    error: nullable({ type: 'string' }),
    created_by: nullable({ type: 'string' }),
    created_at: { type: 'string' },
    started_at: nullable({ type: 'string' }),
    finished_at: nullable({ type: 'string' }),
    heartbeat_at: nullable({ type: 'string' }),
    temporal_status: { type: 'string', description: 'execution status in Temporal (RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, ..., NOT_FOUND)' },
  },
  ['job_id', 'kind', 'step', 'status', 'created_at', 'started_at', 'finished_at', 'error'],
);

export const logLineSchema: JsonSchema = out({ id: { type: 'integer' }, job_id: { type: 'string' }, ts: { type: 'string' }, level: { type: 'string' }, message: { type: 'string' } });

export const jobDetailSchema: JsonSchema = {
  ...jobSchema,
  properties: {
    ...(jobSchema.properties as object),
    result: {},
    params: { type: 'object' },
    log: { type: 'array', items: logLineSchema },
    children: { type: 'array', items: jobSchema },
  },
  required: [...(jobSchema.required as string[]), 'log', 'children'],
};

export const stepParam = obj({ step: { type: 'string', enum: STEP_IDS } }, ['step']);
export const jobIdParam = obj({ job_id: { type: 'string', minLength: 1, maxLength: 200 } }, ['job_id']);

const runId = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'client-chosen job id: repeating a request with the same run_id returns the existing job instead of starting another' };
const positive = int4(1);

export const runStepBody = obj({
  pipeline_id: positive,
  scenario_id: nullable(positive),
  segment_id: nullable(positive),
  force: { type: 'boolean', default: false },
  best_method_only: { type: 'boolean', default: false },
  force_full_run: { type: 'boolean', default: false },
  run_id: nullable(runId),
  n_workers: nullable({ type: 'integer', minimum: 1, maximum: 64 }),
});

export const runAllBody = obj({
  pipeline_id: positive, scenario_id: nullable(positive), supply_scenario_id: nullable(positive), segment_id: nullable(positive), run_id: nullable(runId),
  n_workers: nullable({ type: 'integer', minimum: 1, maximum: 64 }),
  service_backtest: { type: 'boolean', default: false, description: 'not in the spec: also run the service-backtest step after supply, with the pipeline\'s backtest settings (docs/SERVICE_BACKTEST.md)' },
});

export const runForecastBody = obj(
  {
    series: { type: 'array', items: { type: 'string', pattern: '^\\d+_\\d+$' }, minItems: 1, maxItems: 50000, description: 'unique ids `<item_id>_<site_id>`' },
    all_methods: { type: 'boolean', default: false },
    pipeline_id: positive,
    scenario_id: nullable(positive),
    methods: { type: 'array', items: { type: 'string', enum: FORECAST_METHOD_NAMES.filter((m) => m !== 'combination') }, maxItems: 50, description: 'methods to fit (the combination comes from best-method)' },
    run_id: nullable(runId),
  },
  ['series'],
);

export const startedSchema = out({ job_id: { type: 'string' }, step: nullable({ type: 'string' }), status: { type: 'string' } });
