import { nullable, obj, out } from '../schemas';
import { pipelineIdQuery, scenarioIdQuery, segmentIdQuery } from '../forecasts/schemas';
import { id32 } from '../scenarios/schemas';
import { uniqueIdSchema } from '../segments/access';
import type { JsonSchema } from '../validation';

const num = (description: string): JsonSchema => ({ ...nullable({ type: 'number' }), description });

export const analyticsQuery = obj({ pipeline_id: pipelineIdQuery, scenario_id: scenarioIdQuery, segment_id: segmentIdQuery });
export const accuracyPrecisionQuery = obj({ pipeline_id: pipelineIdQuery, scenario_id: scenarioIdQuery, segment_id: segmentIdQuery });

const group = out({
  series_count: { type: 'integer', description: 'series in scope' },
  forecasted_count: { type: 'integer', description: 'series with at least one stored forecast' },
  with_best_method: { type: 'integer', description: 'series the best-method step chose a method for' },
  backtested_count: { type: 'integer', description: "series with scored backtest points of their best method" },
  wape: num('Σ|forecast − actual| / Σ|actual| · 100 over the best methods\' backtest windows (the volume-weighted MAPE), %'),
  weighted_mape: num('per-series MAPE (weeks with demand) weighted by the series\' actual volume, %'),
  bias_pct: num('Σ(forecast − actual) / Σ|actual| · 100: > 0 over-forecast, %'),
  mean_mase: num('mean MASE of the best methods (backtest step)'),
  mean_smape: num('mean sMAPE of the best methods, 0..200'),
  mean_bias: num('mean bias of the best methods, in units per week'),
  mean_coverage_90: num('mean share of actuals inside the 90 % interval (ideal 0.9)'),
  mean_best_score: num('mean best-method score'),
  forecast_volume: { type: 'number', description: "Σ of the best methods' current forecasts over their horizon" },
});

export const analyticsResponse = out({
  pipeline_id: { type: 'integer' },
  scenario_id: nullable({ type: 'integer' }),
  overall: group,
  by_demand_class: { type: 'object', additionalProperties: group, description: "Syntetos-Boylan class (characterization step) → accuracy; 'unclassified' for series not characterized" },
  by_best_method: { type: 'object', additionalProperties: group, description: "best method → accuracy of the series it won; 'none' for series without a best method" },
  best_method_distribution: {
    type: 'object',
    additionalProperties: out({ count: { type: 'integer' }, share: { type: 'number', description: 'of the series with a best method' } }),
  },
});

export const accuracyPrecisionResponse = out({
  points: {
    type: 'array',
    items: out({
      unique_id: { type: 'string' },
      accuracy: { type: 'number', minimum: 0, maximum: 1, description: "clip(1 − WAPE of the best method's backtest windows, 0, 1)" },
      precision: { type: 'number', minimum: 0, maximum: 1, description: "clip(1 − (Σ interval width) / (2·Σ|forecast|), 0, 1) of the best method's current forecast" },
      method: { type: 'string', description: 'the best method' },
    }),
  },
  summary: out({
    avg_accuracy: nullable({ type: 'number' }),
    avg_precision: nullable({ type: 'number' }),
    series_count: { type: 'integer', description: 'number of points' },
    by_method: {
      type: 'object',
      additionalProperties: out({ count: { type: 'integer' }, avg_accuracy: { type: 'number' }, avg_precision: { type: 'number' } }),
    },
  }, ['avg_accuracy', 'avg_precision', 'by_method']),
});


export const aggregateQuery = obj({
  pipeline_id: pipelineIdQuery,
  series_scenario_id: { ...scenarioIdQuery, description: 'forecast scenario of the statistical forecast (picks the results like `scenario_id` elsewhere); 404 when unknown' },
  maintenance_scenario_id: { ...id32, description: 'maintenance scenario of `forecast_maint` (docs/MAINTENANCE.md); 404 when unknown; omitted: the maintenance events as defined' },
  causal_scenario_id: { ...id32, description: 'causal scenario of `forecast_causal` (docs/CAUSAL.md); 404 when unknown; omitted: forecast_causal is []' },
  segment_id: segmentIdQuery,
});

export const MAX_AGGREGATE_IDS = 50000;
export const aggregateBody = obj(
  {
    unique_ids: { type: 'array', minItems: 1, maxItems: MAX_AGGREGATE_IDS, items: uniqueIdSchema, description: `the series to sum, at most ${MAX_AGGREGATE_IDS}` },
    pipeline_id: pipelineIdQuery,
  },
  ['unique_ids'],
);

const dated = { type: 'array', items: out({ date: { type: 'string', format: 'date' }, value: { type: 'number' } }) };

export const aggregateResponse = out(
  {
    historical: { ...dated, description: 'weekly demand summed over the series, every week of history' },
    forecast: { ...dated, description: "each series' best-method forecast, summed per week" },
    forecast_causal: { ...dated, description: 'stored causal demand of `causal_scenario_id` over the series in scope, per week; [] without it' },
    forecast_maint: { ...dated, description: 'maintenance demand of the series in scope that appear in a maintenance BOM, per week over the forecast weeks; [] when none is in a BOM' },
    pipeline_id: { type: 'integer' },
    series_count: { type: 'integer', description: 'series summed in historical' },
    forecast_series_count: { type: 'integer', description: 'series with a best-method forecast, summed in forecast' },
    unknown_ids: { type: 'array', items: { type: 'string' }, description: 'POST: ids that are not series or not visible to the caller (left out)' },
  },
  ['historical', 'forecast', 'forecast_causal', 'forecast_maint'],
);
