import { nullable, obj, out, skipParam } from '../schemas';
import type { JsonSchema } from '../validation';
import { id32 } from '../scenarios/schemas';

const num = (description: string): JsonSchema => ({ ...nullable({ type: 'number' }), description });

const listProps: Record<string, JsonSchema> = {
  skip: skipParam,
  limit: { type: 'integer', minimum: 1, maximum: 50000, default: 200, description: 'default 200, at most 50000' },
  scenario_id: { ...id32, description: 'forecast scenario whose results are shown (without `pipeline_id`: those of the most recently updated pipeline using it, else pipeline 0); 404 when unknown' },
  pipeline_id: { ...id32, description: "scenario pipeline: only series of the pipeline's segments (all series when it has none), with the pipeline's characterization and best-method results; 404 when unknown. Without it (and without `scenario_id`), all series the caller may see with the default pipeline's results (docs/API.md, \"Which pipeline a read uses\")" },
  segment_id: { ...id32, description: 'only series assigned to this segment; 404 when unknown, 403 when the caller may not see it' },
};
export const seriesListQuery = obj(listProps);

export const typeCountsQuery = obj({
  pipeline_id: listProps.pipeline_id,
  segment_id: listProps.segment_id,
});

export const seriesSchema: JsonSchema = out({
  unique_id: { type: 'string', description: '`<item_id>_<site_id>`' },
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  item_name: { type: 'string' },
  site_name: { type: 'string' },
  item_xuid: { type: 'string' },
  site_xuid: { type: 'string' },
  item_image_url: nullable({ type: 'string' }),
  item_attributes: { type: 'object' },
  site_attributes: { type: 'object' },
  n_observations: { ...nullable({ type: 'integer' }), description: 'source: series (etl step): weeks from the first demand week to the planning week; null before the etl step' },
  date_range_start: { ...nullable({ type: 'string', format: 'date' }), description: 'source: series (etl step)' },
  date_range_end: { ...nullable({ type: 'string', format: 'date' }), description: 'source: series (etl step)' },
  mean: num('source: series (etl step): mean weekly demand'),
  adi: num('characterization step; when not characterized, computed from series_weekly: weeks / weeks with non-zero demand (the number of weeks when there is none); null without weekly history'),
  zero_ratio: num('source: series (etl step): share of weeks without demand'),
  cov: num('characterization step; when not characterized, computed from series_weekly: sample standard deviation / |mean| (0 when the mean is 0)'),
  is_intermittent: { ...nullable({ type: 'boolean' }), description: 'characterization step; when not characterized, computed from series_weekly: ADI > 1.32' },
  has_seasonality: { ...nullable({ type: 'boolean' }), description: 'characterization step (seasonality test); null when not characterized' },
  has_trend: { ...nullable({ type: 'boolean' }), description: 'characterization step (Mann-Kendall); null when not characterized' },
  complexity_level: { ...nullable({ type: 'string' }), description: 'characterization step (low, medium, high); null when not characterized' },
  recommended_methods: { ...nullable({ type: 'array', items: { type: 'string' } }), description: 'characterization step; null when not characterized' },
  best_method: { ...nullable({ type: 'string' }), description: 'best-method step of the results pipeline; null until it stores results' },
  runner_up_method: { ...nullable({ type: 'string' }), description: 'best-method step; null until it stores results' },
  best_score: num('best-method step; null until it stores results'),
  classifications: { type: 'object', additionalProperties: { type: 'string' }, description: 'ABC configuration name → class label, from the last run of each configuration (configurations never run are absent)' },
  avg_unit_cost: { type: 'number', description: 'items.avg_unit_cost (0 when unknown: monetary views show zero)' },
  unit_price: { type: 'number', description: 'items.unit_price (0 when unknown)' },
  total_demand: num('source: series (etl step): demand over the whole history'),
  demand_class: { ...nullable({ type: 'string', enum: ['smooth', 'erratic', 'intermittent', 'lumpy'] }), description: 'Syntetos-Boylan class (ADI 1.32, CV² 0.49): characterization step, else computed from series_weekly' },
  characterized: { type: 'boolean', description: 'true when adi, cov, demand_class and the characterization fields come from the characterization step of the results pipeline' },
});

export const typeCountsSchema: JsonSchema = out(
  {
    intermittent: { type: 'integer', description: 'ADI > 1.32, CV² ≤ 0.49' },
    smooth: { type: 'integer', description: 'ADI ≤ 1.32, CV² ≤ 0.49' },
    lumpy: { type: 'integer', description: 'ADI > 1.32, CV² > 0.49' },
    causal: { type: 'integer', description: 'series with a causal model: a failure rate of the part and the site covered for that asset type (docs/CAUSAL.md)' },
    maintenance: { type: 'integer', description: 'series that appear in the BOM of a maintenance event (they are counted in their demand class as well)' },
    erratic: { type: 'integer', description: 'ADI ≤ 1.32, CV² > 0.49 (not one of the spec\'s keys; given so the classes add up)' },
    no_history: { type: 'integer', description: 'series without weekly history yet' },
    total: { type: 'integer' },
  },
  ['intermittent', 'smooth', 'lumpy', 'causal', 'maintenance'],
);
