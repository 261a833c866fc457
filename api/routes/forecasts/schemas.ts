import { mondayDate, nullable, obj, out } from '../schemas';
import { id32 } from '../scenarios/schemas';
import { uniqueIdSchema } from '../segments/access';
import type { JsonSchema } from '../validation';
import { ALL_METHODS, DEFAULT_SEASON_LENGTH } from '../../../domain/forecast/compatibility';

const num = (description?: string): JsonSchema => ({ ...nullable({ type: 'number' }), ...(description ? { description } : {}) });

/**
 * The default pipeline in one sentence, for every route description that takes an optional pipeline_id; the rule
 * itself is db/forecastReads.ts defaultResultsPipeline, documented in docs/API.md ("Which pipeline a read uses").
 */
export const DEFAULT_PIPELINE_RULE =
  'the default pipeline: of the active pipelines and pipeline 0 that have results (a completed job of a step after etl), the baseline scenario\'s pipeline first, then the one whose results were written last; ' +
  'else the active pipeline run last (baseline scenario\'s first); else 0 (docs/API.md, "Which pipeline a read uses")';

export const SCOPE_RULE =
  'Which results are read: `pipeline_id` given → that pipeline\'s results (0 = runs outside any pipeline; 404 for an unknown pipeline), and with `scenario_id` as well only the forecasts stored under that scenario. ' +
  `\`scenario_id\` alone → the most recently updated pipeline whose forecast scenario it is; when no pipeline uses it, the rows of pipeline 0 stored under that scenario (404 for an unknown scenario). Neither → ${DEFAULT_PIPELINE_RULE}.`;

export const pipelineIdQuery: JsonSchema = { type: 'integer', minimum: 0, maximum: 2147483647, description: 'whose results: a scenario pipeline id, 0 for runs outside any pipeline; omitted: the default pipeline (see the description); 404 when unknown' };
export const scenarioIdQuery: JsonSchema = { ...id32, description: 'forecast scenario; see the description for how it picks the results; 404 when unknown' };
export const segmentIdQuery: JsonSchema = { ...id32, description: 'only series assigned to this segment; 404 when unknown, 403 when the caller may not see it' };

export const uidParams = obj({ unique_id: uniqueIdSchema }, ['unique_id']);
export const originParams = obj(
  { unique_id: uniqueIdSchema, origin_date: mondayDate('an origin as listed by /origins: `YYYY-MM-DD`, a Monday; another weekday is a 400', '2026-02-02') },
  ['unique_id', 'origin_date'],
);

export const forecastQuery = obj({ pipeline_id: pipelineIdQuery, scenario_id: scenarioIdQuery });
export const pipelineQuery = obj({ pipeline_id: pipelineIdQuery });
const kindQuery: JsonSchema = { type: 'string', enum: ['origin', 'window'], description: "only this kind: 'origin' (backtest-forecast step, full horizon) or 'window' (backtest step, scored windows with actuals)" };
export const originsQuery = obj({ pipeline_id: pipelineIdQuery, kind: kindQuery });

export const forecastPoint: JsonSchema = out({
  ds: { type: 'string', format: 'date', description: 'week start (Monday)' },
  yhat: num(),
  yhat_lower: num(),
  yhat_upper: num(),
});

export const forecastsResponse = out(
  {
    unique_id: { type: 'string' },
    pipeline_id: { type: 'integer', description: 'the pipeline the results were read from' },
    scenario_id: { ...nullable({ type: 'integer' }), description: 'the scenario the forecasts were filtered on (null: not filtered)' },
    forecasts: { type: 'object', additionalProperties: { type: 'array', items: forecastPoint }, description: 'method → weekly forecast points; `{}` before the forecast step ran' },
    levels: { type: 'object', additionalProperties: { type: 'number' }, description: 'method → the central probability of its interval (e.g. 0.9)' },
    best_method: { ...nullable({ type: 'string' }), description: "the best-method step's choice for this pipeline, null before it ran" },
    updated_at: { ...nullable({ type: 'string', format: 'date-time' }), description: 'last time a forecast of this series was stored' },
  },
  ['unique_id', 'forecasts'],
);

export const metricsSchema: JsonSchema = out({
  mae: num('mean |forecast − actual|'),
  rmse: num('root mean squared error'),
  mase: num('MAE scaled by the in-sample seasonal-naive MAE (Hyndman & Koehler)'),
  bias: num('mean (forecast − actual): > 0 over-forecasts'),
  coverage_90: num('share of actuals inside the 90 % interval (ideal 0.9)'),
  smape: num('symmetric MAPE, 0..200'),
  origins_evaluated: { type: 'integer' },
});

export const metricsResponse = out(
  {
    unique_id: { type: 'string' },
    pipeline_id: { type: 'integer' },
    metrics: { type: 'object', additionalProperties: metricsSchema, description: 'method → rolling-origin backtest metrics; `{}` before the backtest step ran' },
    best_method: nullable({ type: 'string' }),
    metric: { ...nullable({ type: 'string' }), description: 'the metric the best method was chosen by' },
  },
  ['unique_id', 'metrics'],
);

export const originsResponse = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  origins: {
    type: 'array',
    items: out({
      origin_date: { type: 'string', format: 'date', description: 'last week of training data; the forecast starts the week after' },
      kinds: { type: 'array', items: { type: 'string', enum: ['origin', 'window'] } },
      methods: { type: 'array', items: { type: 'string' } },
    }),
  },
});

export const originPoint: JsonSchema = out({
  ds: { type: 'string', format: 'date' },
  yhat: num(),
  yhat_lower: num(),
  yhat_upper: num(),
  actual: num('the demand of that week as stored with the window, else from the weekly history; null when not observed yet or closed'),
});

export const originForecastResponse = out({
  unique_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  origin_date: { type: 'string', format: 'date' },
  forecasts: { type: 'object', additionalProperties: { type: 'array', items: originPoint }, description: 'method → the forecast made at the origin' },
  kinds: { type: 'object', additionalProperties: { type: 'string', enum: ['origin', 'window'] }, description: 'method → the kind of stored forecast shown' },
});

export const MAX_SPARKLINE_IDS = 1000;
export const sparklinesBody = obj(
  {
    unique_ids: { type: 'array', minItems: 1, maxItems: MAX_SPARKLINE_IDS, items: uniqueIdSchema, description: `series ids, at most ${MAX_SPARKLINE_IDS}` },
    pipeline_id: { ...pipelineIdQuery, description: 'whose outlier corrections `values: corrected` reads; omitted: the default pipeline (see the description)' },
    weeks: { type: 'integer', minimum: 1, maximum: 260, default: 52, description: 'length of the window, default 52 weeks' },
    values: { type: 'string', enum: ['actual', 'corrected'], default: 'actual', description: "'actual' demand (default) or the outlier step's 'corrected' demand (actual where none is stored)" },
  },
  ['unique_ids'],
);
export const sparklinesResponse: JsonSchema = {
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'array', prefixItems: [{ type: 'string', format: 'date' }, nullable({ type: 'number' })], minItems: 2, maxItems: 2 } },
  description: 'unique_id → [[week, value], ...] oldest first',
};

export const bestMethodsQuery = obj({ pipeline_id: pipelineIdQuery, scenario_id: scenarioIdQuery, segment_id: segmentIdQuery });
export const bestMethodsResponse = out(
  {
    method_counts: { type: 'object', additionalProperties: { type: 'integer' }, description: 'best method → number of series' },
    total_series: { type: 'integer', description: 'series with a best method (the sum of method_counts)' },
    series_in_scope: { type: 'integer', description: 'series the caller may see in the scope, with or without a best method' },
    pipeline_id: { type: 'integer' },
  },
  ['method_counts', 'total_series'],
);

export const compatibilityBody = obj(
  {
    n_observations: { type: 'integer', minimum: 0, maximum: 100000, description: 'periods of history' },
    season_length: { type: 'integer', minimum: 1, maximum: 366, description: `seasonal period (52 weekly, 12 monthly, 4 quarterly, 1 none); default ${DEFAULT_SEASON_LENGTH}` },
    demand_class: { type: 'string', enum: ['smooth', 'erratic', 'intermittent', 'lumpy'], description: 'Syntetos-Boylan class; intermittent and lumpy imply is_intermittent' },
    is_intermittent: { type: 'boolean', description: 'default: from demand_class, else ADI = n / non-zero > 1.32 when zero_ratio or n_nonzero is given, else false' },
    has_seasonality: { type: 'boolean', default: false },
    has_trend: { type: 'boolean', default: false },
    zero_ratio: { type: 'number', minimum: 0, maximum: 1, description: 'share of periods without demand' },
    n_nonzero: { type: 'integer', minimum: 0, maximum: 100000, description: 'periods with demand (wins over zero_ratio); at most n_observations' },
    min: { type: 'number', description: 'smallest observation (negative values rule out the intermittent methods)' },
    methods: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', enum: [...ALL_METHODS] }, description: 'check only these (default all)' },
  },
  ['n_observations'],
  {
    // the class and the flag must agree (domain/forecast/compatibility.ts): said here, a client built from the schema sends no contradiction
    allOf: [
      { if: { required: ['demand_class'], properties: { demand_class: { enum: ['intermittent', 'lumpy'] } } }, then: { properties: { is_intermittent: { const: true } } } },
      { if: { required: ['demand_class'], properties: { demand_class: { enum: ['smooth', 'erratic'] } } }, then: { properties: { is_intermittent: { const: false } } } },
    ],
  },
);
export const compatibilityResponse = out({
  characteristics: out({
    n_observations: { type: 'integer' },
    season_length: { type: 'integer' },
    n_nonzero: { type: 'integer' },
    is_intermittent: { type: 'boolean' },
    has_seasonality: { type: 'boolean' },
    has_trend: { type: 'boolean' },
  }),
  compatible: { type: 'array', items: { type: 'string' }, description: 'methods that can run, in tie-break order' },
  incompatible: { type: 'array', items: out({ method: { type: 'string' }, reason: { type: 'string' } }) },
  recommended: { type: 'array', items: { type: 'string' }, description: 'the methods characterization would recommend (among those checked)' },
});

export const summaryParams = obj({ id: id32 }, ['id']);
const pipelineSummary = out({
  pipeline_id: { type: 'integer', description: '0: runs outside any pipeline stored under this scenario' },
  name: nullable({ type: 'string' }),
  series_forecasted: { type: 'integer' },
  methods_count: { type: 'integer' },
  methods: { type: 'array', items: { type: 'string' } },
  best_method_counts: { type: 'object', additionalProperties: { type: 'integer' } },
  total_forecast_volume: { type: 'number', description: "Σ over series of the best method's yhat over the scenario's horizon" },
  mean_backtest_score: num('mean best_score of the forecasted series (the best-method step\'s score, lower is better)'),
  score_metrics: { type: 'array', items: { type: 'string' }, description: 'metrics the scores are in' },
  last_run_at: nullable({ type: 'string', format: 'date-time' }),
});
export const summaryResponse = out({
  scenario_id: { type: 'integer' },
  scenario_name: { type: 'string' },
  horizon_weeks: { type: 'integer' },
  pipelines: { type: 'array', items: pipelineSummary },
  series_forecasted: { type: 'integer', description: 'over all pipelines (a series forecast in two pipelines counts twice)' },
  methods_count: { type: 'integer', description: 'distinct methods over all pipelines' },
  best_method_counts: { type: 'object', additionalProperties: { type: 'integer' } },
  total_forecast_volume: { type: 'number' },
  mean_backtest_score: num('series-weighted mean over all pipelines'),
  last_run_at: nullable({ type: 'string', format: 'date-time' }),
});
