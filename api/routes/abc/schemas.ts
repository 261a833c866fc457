import { ABC_METRICS } from '../../../domain/abc/classify';
import { nullable, obj, out, skipParam } from '../schemas';
import type { JsonSchema } from '../validation';
import { id32, nameSchema } from '../scenarios/schemas';
import { uniqueIdSchema } from '../segments/access';

const labels: JsonSchema = {
  type: 'array', minItems: 1, maxItems: 26, uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 20, pattern: '^\\S(.*\\S)?$' },
  description: 'class labels from the largest contributors to the smallest; default ["A", "B", "C"]',
};
const share: JsonSchema = { type: 'number', exclusiveMinimum: 0, maximum: 100 };
const thresholds: JsonSchema = {
  anyOf: [
    { type: 'array', items: share, minItems: 1, maxItems: 26 },
    { type: 'object', additionalProperties: share, minProperties: 1, maxProperties: 26 },
  ],
  description:
    'cumulative share of the metric that closes each class, strictly increasing, the last 1: a list (one per label; the last may be left out) or an object keyed by label (`{"A": 0.8, "B": 0.95, "C": 1}`; the last label may be left out). Values above 1 are read as percentages (80 = 0.8). Default for three labels: [0.8, 0.95, 1]',
};
const metric: JsonSchema = {
  type: 'string', enum: [...ABC_METRICS],
  description: 'over the last 52 weeks of history: annual_value = demand × unit_price (0 without price); volume = demand; frequency = weeks with demand; margin = demand × (unit_price − avg_unit_cost) when both are known, else 0',
};
const description: JsonSchema = nullable({ type: 'string', maxLength: 2000 });

export const configSchema: JsonSchema = out({
  id: { type: 'integer' },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
  metric: { type: 'string', enum: [...ABC_METRICS] },
  class_labels: { type: 'array', items: { type: 'string' } },
  thresholds: { type: 'array', items: { type: 'number' }, description: 'cumulative shares (0..1], one per class label, the last 1' },
  thresholds_by_label: { type: 'object', additionalProperties: { type: 'number' } },
  is_active: { type: 'boolean', description: 'run-all classifies active configurations only' },
  created_by: nullable({ type: 'string' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
  last_run_at: nullable({ type: 'string', format: 'date-time' }),
  last_job_id: nullable({ type: 'string' }),
  result_count: { type: 'integer', description: 'series classified by the last run (0 before the first run or after the configuration changed)' },
});

export const createBody = obj(
  { name: nameSchema, description: { ...description, default: null }, metric: { ...metric, default: 'annual_value' }, class_labels: labels, thresholds, is_active: { type: 'boolean', default: true } },
  ['name'],
);
export const updateBody = obj({ name: nameSchema, description, metric, class_labels: labels, thresholds, is_active: { type: 'boolean' } }, [], { minProperties: 1 });

export const configParams = obj({ config_id: id32 }, ['config_id']);
export const uidParams = obj({ unique_id: uniqueIdSchema }, ['unique_id']);
export const forceQuery = obj({ force: { type: 'boolean', default: false, description: 'delete even when segment rules name the configuration (those rules then fail validation until edited)' } });

const runId = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'client-chosen job id: repeating the request returns the existing job' };
export const runBody = obj({ run_id: nullable(runId) });

export const startedSchema = out({
  job_id: { type: 'string' }, step: nullable({ type: 'string' }), status: { type: 'string' },
  config_ids: { type: 'array', items: { type: 'integer' } },
}, ['job_id', 'status']);

export const resultsQuery = obj({
  skip: skipParam,
  limit: { type: 'integer', minimum: 1, maximum: 50000, default: 200 },
  class_label: { type: 'string', maxLength: 20, description: 'only this class' },
});

const resultFields = {
  class_label: { type: 'string' },
  rank: { type: 'integer', description: '1 = largest metric value' },
  metric_value: { type: 'number' },
  share: { type: 'number', description: 'of the metric total' },
  cumulative_share: { type: 'number', description: 'of the metric total, up to and including this series' },
  annual_volume: { type: 'number', description: 'demand in the last 52 weeks' },
  annual_value: { type: 'number', description: 'annual_volume × unit_price (0 without price)' },
  computed_at: { type: 'string', format: 'date-time' },
};

export const resultSchema: JsonSchema = out({
  unique_id: { type: 'string' }, item_id: { type: 'integer' }, site_id: { type: 'integer' },
  item_xuid: { type: 'string' }, item_name: { type: 'string' }, site_xuid: { type: 'string' }, site_name: { type: 'string' },
  ...resultFields,
});

export const bySeriesSchema: JsonSchema = out({
  unique_id: { type: 'string' },
  classifications: { type: 'object', additionalProperties: { type: 'string' }, description: 'configuration name → class label' },
  results: { type: 'array', items: out({ config_id: { type: 'integer' }, config_name: { type: 'string' }, metric: { type: 'string' }, ...resultFields }) },
});

export const summarySchema: JsonSchema = out({
  config: configSchema,
  series_count: { type: 'integer' },
  metric_total: { type: 'number' },
  classes: {
    type: 'array', description: 'one entry per class label, in label order (classes without series included)',
    items: out({
      class_label: { type: 'string' }, threshold: { type: 'number' }, series_count: { type: 'integer' }, metric_total: { type: 'number' },
      metric_share: { type: 'number' }, annual_volume: { type: 'number' }, annual_value: { type: 'number' },
    }),
  },
});

export const priceSchema: JsonSchema = out({
  items_total: { type: 'integer' },
  with_unit_price: { type: 'integer', description: 'items with unit_price > 0' },
  with_avg_unit_cost: { type: 'integer', description: 'items with avg_unit_cost > 0' },
  with_both: { type: 'integer' },
  with_neither: { type: 'integer' },
  unit_price_share: { type: 'number', description: 'with_unit_price / items_total (0 without items)' },
  avg_unit_cost_share: { type: 'number' },
  price_available: { type: 'boolean', description: 'at least one item has a unit price: annual_value is meaningful' },
  cost_available: { type: 'boolean', description: 'at least one item has an average unit cost' },
});
