import { NETTING_SORTS } from '../../../db/netting';
import { DEFAULT_NETTING_SETTINGS } from '../../../domain/netting/series';
import { DEFAULT_PIPELINE_RULE, pipelineIdQuery, segmentIdQuery } from '../forecasts/schemas';
import { id32 } from '../scenarios/schemas';
import { nullable, obj, out } from '../schemas';
import { uniqueIdSchema } from '../segments/access';
import type { JsonSchema } from '../validation';

const d = DEFAULT_NETTING_SETTINGS;

/** The consumption rule in the words every netting route's description repeats (docs/NETTING.md has the long form). */
export const NETTING_RULE =
  'Consumption rule (SAP-style forecast consumption, weekly buckets): the current period is the first `period_weeks` weeks from the pipeline\'s forecast start ' +
  '(the start week of its best-method forecasts). Each week\'s demand — actual orders (demand_history rows dated in that week) plus firm demand ' +
  '(firm TRANSFER orders out of the SKU-site, status firm or released, qty − received_qty, in the week of their release; overdue ones in the first week) — ' +
  'consumes the best-method forecast of its own week first, then of earlier weeks going back one at a time up to `backward_weeks`, then of later weeks ' +
  'going forward one at a time up to `forward_weeks`; weeks are processed in calendar order and the window never leaves the period. ' +
  'What is left of the forecast is the netted forecast; demand that finds no forecast in its window is over-consumption (kept with its own week). ' +
  '`direction`: backward, forward, both (consumption had to leave the demand\'s own week that way), none (it never had to). ' +
  'Quantities are rounded to thousandths once and then computed exactly, so total_forecast − total_consumed = total_netted to the last digit. ' +
  'Supply plan: orders of the newest completed supply run of the pipeline and the default supply scenario arriving in the period (0 without one).';

export const settingsProps: Record<string, JsonSchema> = {
  period_weeks: { type: 'integer', minimum: 1, maximum: 52, description: `weeks of the current period from the forecast start; omitted: the pipeline's last refresh's, else ${d.period_weeks}` },
  backward_weeks: { type: 'integer', minimum: 0, maximum: 52, description: `how many earlier weeks a week's demand may consume; omitted: the last refresh's, else ${d.backward_weeks}` },
  forward_weeks: { type: 'integer', minimum: 0, maximum: 52, description: `how many later weeks a week's demand may consume (after the earlier ones); omitted: the last refresh's, else ${d.forward_weeks}` },
};

export const refreshBody = obj({
  pipeline_id: { ...pipelineIdQuery, description: `the pipeline to net (0: runs outside any pipeline); omitted: ${DEFAULT_PIPELINE_RULE}; 404 when unknown` },
  ...settingsProps,
});

export const refreshResponse = out({
  job_id: { type: 'string' },
  step: { type: 'string', enum: ['netting'] },
  status: { type: 'string', description: 'queued: follow it with GET /api/pipeline/jobs/{job_id}' },
  pipeline_id: { type: 'integer' },
  period_weeks: { type: 'integer' },
  backward_weeks: { type: 'integer' },
  forward_weeks: { type: 'integer' },
});

const qty = (description: string): JsonSchema => ({ type: 'number', description });
const direction: JsonSchema = { type: 'string', enum: ['backward', 'forward', 'both', 'none'] };

const period: JsonSchema = nullable(out({
  start_week: nullable({ type: 'string', format: 'date', description: 'Monday of the first week (the forecast start); null when the pipeline had no forecast' }),
  end_date: nullable({ type: 'string', format: 'date', description: 'last day of the period (a Sunday)' }),
  weeks: { type: 'integer' },
  backward_weeks: { type: 'integer' },
  forward_weeks: { type: 'integer' },
}));

export const summaryQuery = obj({ pipeline_id: pipelineIdQuery, segment_id: segmentIdQuery });

export const summaryResponse = out({
  pipeline_id: { type: 'integer', description: 'whose netting this is' },
  period: { ...period, description: 'the period and window of the last refresh; null before the first refresh of the pipeline' },
  computed_at: { ...nullable({ type: 'string', format: 'date-time' }), description: 'when the last refresh ran; null before the first' },
  series_count: { type: 'integer', description: 'series netted (those with a best-method forecast), in the caller\'s segments and `segment_id`' },
  total_forecast: qty('best-method forecast over the period'),
  total_consumed: qty('forecast consumed by actual orders and firm demand'),
  total_netted: qty('forecast left after consumption: total_forecast − total_consumed, exactly'),
  total_firm_demand: qty('firm transfer demand on the series in the period'),
  total_supply_plan: qty('supply orders of the newest completed default-scenario supply run arriving in the period'),
  consumption_rate: { ...nullable({ type: 'number' }), description: 'total_consumed / total_forecast (0..1); null when there is no forecast' },
  netting_direction: { ...direction, description: 'which way consumption moved over all these series: both, backward, forward, none (all inside the demand\'s own week, or nothing)' },
});

export const seriesQuery = obj({
  pipeline_id: pipelineIdQuery, segment_id: segmentIdQuery,
  item_id: { ...id32, description: 'only this item' },
  site_id: { ...id32, description: 'only this site' },
  direction: { ...direction, description: 'only series whose consumption moved this way' },
  over_consumed: { type: 'boolean', description: 'true: only series with over-consumption; false: only series without' },
  sort_by: { type: 'string', enum: [...NETTING_SORTS], default: 'unique_id' },
  sort_dir: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
  skip: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0 },
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
});

const seriesProps: Record<string, JsonSchema> = {
  unique_id: { type: 'string' }, item_id: { type: 'integer' }, site_id: { type: 'integer' },
  item_xuid: { type: 'string' }, item_name: { type: 'string' }, site_xuid: { type: 'string' }, site_name: { type: 'string' },
  best_method: { type: 'string', description: 'the best method whose forecast was netted' },
  total_forecast: qty('forecast over the period'),
  total_actual: qty('actual orders in the period'),
  total_firm_demand: qty('firm transfer demand in the period'),
  total_consumed: qty('forecast consumed'),
  total_netted: qty('forecast left: total_forecast − total_consumed'),
  total_over_consumption: qty('demand no forecast in its window covered'),
  total_supply_plan: qty('supply orders arriving in the period'),
  consumption_rate: { ...nullable({ type: 'number' }), description: 'total_consumed / total_forecast; null without forecast' },
  consumed_same: qty('consumed in the demand\'s own week'),
  consumed_backward: qty('consumed in earlier weeks'),
  consumed_forward: qty('consumed in later weeks'),
  direction,
  computed_at: { type: 'string', format: 'date-time' },
  job_id: { type: 'string', description: 'the refresh that computed it' },
};

export const seriesRow = out(seriesProps);

const weekly = (description: string): JsonSchema => ({ type: 'array', items: { type: 'number' }, description: `${description}, one value per period week` });

export const detailParams = obj({ unique_id: uniqueIdSchema }, ['unique_id']);
export const detailQuery = obj({ pipeline_id: pipelineIdQuery });

export const detailResponse = out({
  ...seriesProps,
  pipeline_id: { type: 'integer' },
  period,
  supply_run_id: { ...nullable({ type: 'string' }), description: 'the supply run whose orders are the supply plan' },
  weeks: { type: 'array', items: { type: 'string', format: 'date' }, description: 'Monday of each period week; the arrays below are aligned on it' },
  forecast: weekly('best-method forecast'),
  actual: weekly('actual orders'),
  firm_demand: weekly('firm transfer demand'),
  demand: weekly('actual + firm demand: what consumes'),
  consumed: weekly('forecast of the week consumed, by any week\'s demand'),
  netted: weekly('forecast of the week left'),
  over_consumption: weekly('demand of the week no forecast covered'),
  supply_plan: weekly('supply orders arriving'),
  consumption: {
    type: 'array', description: 'every consumption step in the rule\'s order',
    items: out({
      demand_week: { type: 'string', format: 'date', description: 'the week whose demand consumed' },
      forecast_week: { type: 'string', format: 'date', description: 'the week whose forecast was consumed' },
      qty: { type: 'number' },
      direction: { type: 'string', enum: ['same', 'backward', 'forward'] },
    }),
  },
});
