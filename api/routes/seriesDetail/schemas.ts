import { FORECAST_METHOD_NAMES } from '../../../domain/parameters/defaults';
import { DEFAULT_PIPELINE_RULE } from '../forecasts/schemas';
import { nullable, obj, out } from '../schemas';
import { uniqueIdSchema } from '../segments/access';
import type { JsonSchema } from '../validation';

export const uniqueIdParams = obj({ unique_id: uniqueIdSchema }, ['unique_id']);

const date: JsonSchema = { type: 'string', format: 'date' };
const num = nullable({ type: 'number' });
const ts: JsonSchema = { type: 'string', format: 'date-time' };

export const pipelineIdProp: JsonSchema = {
  type: 'integer', minimum: 0, maximum: 2147483647,
  description: `results of this scenario pipeline (0 = runs outside any pipeline; 404 when the pipeline does not exist). Omitted: ${DEFAULT_PIPELINE_RULE}`,
};

export const methodName: JsonSchema = { type: 'string', enum: [...FORECAST_METHOD_NAMES], description: `a forecasting method: ${FORECAST_METHOD_NAMES.join(', ')}` };

export const pipelineQuery = obj({ pipeline_id: pipelineIdProp });
export const methodQuery = obj({
  pipeline_id: pipelineIdProp,
  method: { ...methodName, description: `method whose forecasts are shown (default: the series' best method, else its locked method). ${methodName.description}` },
});
export const backtestQuery = obj({
  pipeline_id: pipelineIdProp,
  method: { ...methodName, description: 'only this method (default: every method)' },
  kind: { type: 'string', enum: ['window', 'origin'], default: 'window', description: "'window' (default): the scored backtest windows with their actuals; 'origin': the full-horizon forecasts made at each origin" },
});
export const vegaQuery = obj({
  pipeline_id: pipelineIdProp,
  methods: {
    type: 'string', pattern: '^[a-z_]+(,[a-z_]+)*$', maxLength: 400,
    description: "comma-separated methods to draw (e.g. `ses,theta`); default: the best method (else the locked one). A method without a stored forecast is a 404",
  },
});

export const demandPoint = out({
  ds: date,
  y: { ...num, description: 'demand of the week; null for a closed (calendar) week' },
  corrected_y: { ...num, description: "a planner's correction of the week (demand_adjustments) if any, else the outlier step's corrected value, else y" },
  correction: { ...nullable({ type: 'string', enum: ['adjustment', 'outlier'] }), description: 'where corrected_y comes from when it is not y' },
});

export const distributionSchema = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  distribution_type: { type: 'string', enum: ['normal', 'gamma', 'poisson', 'negative_binomial', 'empirical'] },
  mean: num,
  std: num,
  params: { type: 'object', description: 'normal {mu, sigma}; gamma {shape, rate}; poisson {lambda}; negative_binomial {r, p}; empirical {n}' },
  ks_statistic: num,
  ks_pvalue: num,
  service_level_quantiles: { type: 'object', additionalProperties: { type: 'number' }, description: 'service level (as a string, e.g. "0.95") → demand' },
  candidates: { type: 'array', items: { type: 'object' }, description: 'every fitted candidate, best Kolmogorov-Smirnov statistic first' },
  basis: { type: 'string', description: "'weekly' (weekly demand) or 'lead_time' (demand summed over lead_time_weeks)" },
  lead_time_weeks: num,
  n: { type: 'integer', description: 'sample size the fit used' },
  updated_at: ts,
});

export const outliersSchema = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  method: { type: 'string', description: "detection method ('hampel', 'iqr' or 'none')" },
  params: { type: 'object', description: 'parameters the detection used (window, threshold, correction, ...)' },
  n_outliers: { type: 'integer' },
  points: {
    type: 'array',
    items: out({ ds: date, y: { type: 'number' }, corrected_y: { type: 'number' } }),
    description: 'flagged weeks, oldest first: {ds, y, corrected_y, score, direction, ...} as the outlier step stored them',
  },
  start_week: date,
  updated_at: ts,
});

const rankEntry = out({ method: { type: 'string' }, score: num }, ['method']);

export const bestMethodSchema = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  best_method: { type: 'string' },
  runner_up_method: nullable({ type: 'string' }),
  best_score: num,
  metric: { ...nullable({ type: 'string' }), description: 'backtest metric that ranked the methods; null when no run has stored a choice yet (lock only)' },
  locked: { type: 'boolean', description: "the best-method step used a planner's lock for this choice" },
  locked_method: { ...nullable({ type: 'string' }), description: 'the lock in place now (series_locked_methods); it applies from the next run when set after it' },
  locked_by: nullable({ type: 'string' }),
  ranking: { type: 'array', items: rankEntry, description: '[{method, score, origins_evaluated}] best first' },
  reason: nullable({ type: 'string' }),
  updated_at: nullable(ts),
});

export const lockBody = obj({ method: methodName }, ['method']);

export const lockSchema = out({
  unique_id: { type: 'string' },
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  method: { type: 'string' },
  locked_by: nullable({ type: 'string' }),
  locked_at: ts,
  previous_method: { ...nullable({ type: 'string' }), description: 'the lock this one replaced' },
});

export const unlockSchema = out({
  status: { type: 'string', const: 'deleted' },
  unique_id: { type: 'string' },
  method: { type: 'string', description: 'the lock removed' },
});

const metricsSchema = out({
  mae: num, rmse: num, mase: num, bias: num, coverage_90: num, origins_evaluated: { type: 'integer' },
}, ['mae', 'rmse', 'mase', 'bias', 'coverage_90']);

export const explanationSchema = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  best_method: { type: 'string' },
  explanation: { type: 'string', minLength: 1 },
  source: { type: 'string', enum: ['llm', 'deterministic'] },
  warning: { ...nullable({ type: 'string' }), description: 'why the language model was not used although one is configured' },
  facts: out({
    unique_id: { type: 'string' },
    best_method: { type: 'string' },
    runner_up_method: nullable({ type: 'string' }),
    metric: nullable({ type: 'string' }),
    best_score: num,
    runner_up_score: num,
    improvement_pct: num,
    methods_compared: { type: 'integer' },
    locked: { type: 'boolean' },
    locked_method: nullable({ type: 'string' }),
    characteristics: nullable({ type: 'object' }),
    best_metrics: nullable(metricsSchema),
    runner_up_metrics: nullable(metricsSchema),
  }),
});

const evolutionForecast = out({
  origin: { ...date, description: 'last week of the training data' },
  lead_weeks: { type: 'integer', minimum: 1, description: 'weeks from the origin to the target week' },
  yhat: num, yhat_lower: num, yhat_upper: num,
  current: { type: 'boolean', description: 'the current forecast (forecast_results) rather than a past origin' },
});

export const evolutionSchema = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  method: { type: 'string' },
  origins: {
    type: 'array',
    items: out({ origin: date, current: { type: 'boolean' }, first_week: date, last_week: date, weeks: { type: 'integer' } }),
    description: 'origins oldest first; the current forecast last',
  },
  targets: {
    type: 'array',
    items: out({ ds: date, actual: num, forecasts: { type: 'array', items: evolutionForecast } }),
    description: 'target weeks, oldest first; each with every forecast of it, oldest origin first',
  },
});

export const convergenceSchema = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  method: { type: 'string' },
  leads: {
    type: 'array',
    items: out({
      lead_weeks: { type: 'integer', minimum: 1 },
      n: { type: 'integer', minimum: 1 },
      mae: { type: 'number' },
      bias: { type: 'number', description: 'mean of yhat − actual (positive: over-forecast)' },
      points: {
        type: 'array',
        items: out({ origin: date, ds: date, yhat: { type: 'number' }, actual: { type: 'number' }, error: { type: 'number' } }),
      },
    }),
    description: 'one entry per lead time that has at least one target week with a known actual, shortest lead first',
  },
});

export const backtestForecastsSchema = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  kind: { type: 'string', enum: ['window', 'origin'] },
  methods: { type: 'array', items: { type: 'string' } },
  windows: {
    type: 'array',
    items: out({
      method: { type: 'string' },
      origin: { ...date, description: 'last week of the training data' },
      points: { type: 'array', items: out({ ds: date, yhat: num, yhat_lower: num, yhat_upper: num, actual: num }) },
    }),
    description: 'oldest origin first, then by method',
  },
});

export const vegaSchema: JsonSchema = {
  type: 'object',
  required: ['$schema', 'data', 'layer', 'encoding'],
  properties: {
    $schema: { type: 'string', const: 'https://vega.github.io/schema/vega-lite/v5.json' },
    data: out({ values: { type: 'array', items: out({ ds: date, series: { type: 'string' }, value: num, lower: num, upper: num }) } }),
    layer: { type: 'array', minItems: 2 },
    encoding: { type: 'object' },
  },
  description: 'a Vega-Lite v5 specification with inline data',
};

export const copyBody = obj(
  {
    method: { ...methodName, description: 'method whose stored forecast is copied' },
    start: { ...date, description: 'first day of the period (the forecast weeks whose Monday is in [start, end] are copied)' },
    end: { ...date, description: 'last day of the period' },
  },
  ['method', 'start', 'end'],
);

const adjustment = out({
  id: { type: 'integer' },
  ds: { ...date, description: 'Monday of the corrected week' },
  corrected_y: { type: 'number', minimum: 0 },
  reason: nullable({ type: 'string' }),
  source: { type: 'string', enum: ['manual', 'copy_forecast'] },
  created_by: nullable({ type: 'string' }),
  created_at: ts,
});

export const copySchema = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  method: { type: 'string' },
  n_written: { type: 'integer' },
  n_replaced: { type: 'integer', description: 'weeks that already had a correction, now overwritten' },
  rows: { type: 'array', items: adjustment },
});

export const adjustmentsSchema = out({
  unique_id: { type: 'string' },
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  adjustments: { type: 'array', items: adjustment, description: 'oldest week first' },
});

export const adjustmentBody = obj(
  {
    ds: { ...date, description: 'any day of the week to correct; it is stored as (and answered with) the Monday of its ISO week' },
    corrected_y: { type: 'number', minimum: 0, maximum: 1e12, description: 'the demand to use for that week (>= 0)' },
    reason: { type: 'string', minLength: 1, maxLength: 500 },
  },
  ['ds', 'corrected_y', 'reason'],
);

export const adjustmentWritten = out({
  unique_id: { type: 'string' },
  adjustment,
  replaced: { ...nullable(adjustment), description: "the week's previous correction, if any" },
});

export const adjustmentsDeleted = out({
  status: { type: 'string', const: 'deleted' },
  unique_id: { type: 'string' },
  count: { type: 'integer', minimum: 0 },
});
