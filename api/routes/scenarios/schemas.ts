import { nullable, obj, out, skipParam } from '../schemas';
import type { JsonSchema } from '../validation';

/** Forecast methods a scenario may name; the forecasting engine implements these. */
export const FORECAST_METHODS = [
  'naive', 'seasonal_naive', 'moving_average', 'ses', 'holt', 'damped_trend', 'holt_winters', 'ets', 'theta',
  'optimized_theta', 'arima', 'croston', 'sba', 'tsb', 'adida', 'combination',
] as const;

/** Ids are PostgreSQL integers: anything above 2^31-1 can name nothing and is refused before it reaches SQL. */
export const id32: JsonSchema = { type: 'integer', minimum: 1, maximum: 2147483647 };
/**
 * The most ids a list of a tenant's own configuration takes (segments, parameter sets, process workflows): a tenant
 * keeps tens of each. It was 10,000, and the schema fuzz's boundary case built and sent 10,000 distinct ids for every
 * such field, 2 to 4 s of its CPU each.
 */
export const MAX_CONFIG_IDS = 1000;

export const idParams = (...names: string[]): JsonSchema => obj(Object.fromEntries(names.map((n) => [n, id32])), names);

export const pageQuery: JsonSchema = obj({
  skip: skipParam,
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'rows to return (at most 1000)' },
});

export const nameSchema: JsonSchema = {
  type: 'string', minLength: 1, maxLength: 200, pattern: '\\S',
  description: 'unique per tenant, ignoring case; surrounding spaces are trimmed',
};
const description: JsonSchema = nullable({ type: 'string', maxLength: 2000 });
const methods: JsonSchema = {
  type: 'array', items: { type: 'string', enum: [...FORECAST_METHODS] }, uniqueItems: true, maxItems: FORECAST_METHODS.length,
  description: 'forecast methods the scenario runs; empty means each series\' recommended methods from the characterization step',
};
const horizon: JsonSchema = { type: 'integer', minimum: 1, maximum: 260, description: 'forecast horizon in weeks (1 to 260)' };
const settings: JsonSchema = { type: 'object', maxProperties: 500, description: 'free-form overrides read by the forecast step; replaced as a whole on update' };
const isBaseline: JsonSchema = { type: 'boolean', description: 'at most one scenario is the baseline: marking one unmarks the others' };

export const scenarioSchema: JsonSchema = out({
  id: { type: 'integer' },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
  is_baseline: { type: 'boolean' },
  horizon_weeks: { type: 'integer' },
  methods: { type: 'array', items: { type: 'string', enum: [...FORECAST_METHODS] } },
  settings: { type: 'object' },
  created_by: nullable({ type: 'string', description: 'e-mail of the user who created it' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

export const createScenarioBody = obj(
  {
    name: nameSchema,
    description: { ...description, default: null },
    is_baseline: { ...isBaseline, default: false },
    horizon_weeks: { ...horizon, default: 52 },
    methods: { ...methods, default: [] },
    settings: { ...settings, default: {} },
  },
  ['name'],
);

export const updateScenarioBody = obj({ name: nameSchema, description, is_baseline: isBaseline, horizon_weeks: horizon, methods, settings }, [], { minProperties: 1 });

export const cloneScenarioBody = obj({
  name: { ...nameSchema, description: 'name of the copy; default "<name> (copy)", numbered when taken' },
  description: { ...description, description: 'description of the copy; default the source\'s' },
});

export const forceQuery = (what: string): JsonSchema => obj({ force: { type: 'boolean', default: false, description: what } });

export const deleteScenarioResponse = out({
  status: { type: 'string', const: 'deleted' },
  id: { type: 'integer' },
  detached_pipeline_ids: { type: 'array', items: { type: 'integer' }, description: 'pipelines whose forecast_scenario_id was set to null (force only)' },
});
