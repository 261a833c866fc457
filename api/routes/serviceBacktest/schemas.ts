import { GROUP_BY } from '../../../domain/serviceBacktest/summarize';
import { VARIANTS } from '../../../domain/serviceBacktest/derive';
import { SHORTAGE_MODES } from '../../../domain/serviceBacktest/simulate';
import { DEMAND_CLASSES } from '../../../domain/serviceBacktest/classes';
import { int4, nullable, obj, out } from '../schemas';
import type { JsonSchema } from '../validation';

export const pipelineQuery: JsonSchema = { ...int4(1), description: 'the pipeline (required)' };
export const scenarioQuery: JsonSchema = { ...int4(1), description: 'the MEIO scenario of the results; default the default scenario that has results' };
const fraction = (description: string): JsonSchema => ({ type: 'number', minimum: 0, maximum: 1, description });
// the meio planner's own range of sensible targets: beyond 0.999 a level search walks far into the tail for nothing a planner sets
const target = { type: 'number', minimum: 0.5, maximum: 0.999 } as JsonSchema;

const settingsProperties: Record<string, JsonSchema> = {
  origin_weeks: { type: 'array', items: int4(1, { maximum: 520 }), minItems: 1, maxItems: 8, uniqueItems: true, description: 'origins, in weeks before the end of the history: each sizes the policies on the weeks before it and replays them on the weeks after (default [26])' },
  shortage_mode: { type: 'string', enum: [...SHORTAGE_MODES], description: 'demand not served from stock is owed (backorder, default) or lost (lost_sales)' },
  tolerance: fraction('a SKU-site whose achieved fill rate is more than this below its target gets an exception-log issue of type service (default 0.05)'),
  warmup_weeks: { ...int4(0, { maximum: 104 }), description: 'weeks before the origin the new policy runs unmeasured, from its order-up-to level, to reach its own stock (default 52)' },
  peers: { type: 'boolean', description: 'replay the normal-approximation and bootstrap peers too (default true)' },
  sweep_targets: { type: 'array', items: target, maxItems: 20, uniqueItems: true, description: 'other target levels (0.5 to 0.999) our policies are also sized and replayed at: the curve the equal-service stock is read on (default 0.8 … 0.995; [] for none)' },
};

export const settingsBody = obj({ pipeline_id: pipelineQuery, ...settingsProperties }, ['pipeline_id']);
export const settingsSchema = out({ pipeline_id: { type: 'integer' }, ...settingsProperties });

export const runBody = obj({
  pipeline_id: pipelineQuery,
  meio_scenario_id: { ...int4(1), description: 'the MEIO scenario whose targets and costs size the policies (default: the default scenario)' },
  segment_id: { ...int4(1), description: 'only the series of this segment' },
  run_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'idempotency key: a repeated request with the same run_id returns the job it started' },
  n_workers: { type: 'integer', minimum: 1, maximum: 64 },
  ...settingsProperties,
}, ['pipeline_id']);

export const startedSchema = out({ job_id: { type: 'string' }, step: nullable({ type: 'string' }), status: { type: 'string' } });

const filters: Record<string, JsonSchema> = {
  pipeline_id: pipelineQuery,
  scenario_id: scenarioQuery,
  origin_weeks: { ...int4(1), description: 'only this origin' },
  demand_class: { type: 'string', enum: [...DEMAND_CLASSES] },
  abc_class: { type: 'string', minLength: 1, maxLength: 50 },
  segment_id: int4(1),
};

export const listQuery = obj({
  ...filters,
  variant: { type: 'string', enum: [...VARIANTS], description: 'target: ours at each SKU-site\'s target; normal, bootstrap: the peers; sweep: ours at a sweep level' },
  item_id: int4(1), site_id: int4(1),
  missed_by: fraction('only rows whose achieved fill rate is more than this below their target'),
  skip: { ...int4(0), default: 0 }, limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200 },
}, ['pipeline_id']);

export const oneQuery = obj({ pipeline_id: pipelineQuery, scenario_id: scenarioQuery }, ['pipeline_id']);
export const summaryQuery = obj({ ...filters, group_by: { type: 'string', enum: [...GROUP_BY], default: 'demand_class' } }, ['pipeline_id']);
export const chartQuery = obj({ ...filters, variant: { type: 'string', enum: [...VARIANTS] }, limit: { type: 'integer', minimum: 1, maximum: 20000, default: 5000, description: 'at most this many points' } }, ['pipeline_id']);

const num = { type: 'number' } as JsonSchema;
const int = { type: 'integer' } as JsonSchema;
export const resultSchema = out({
  pipeline_id: int, scenario_id: int, item_id: int, site_id: int, unique_id: { type: 'string' }, origin_weeks: int,
  variant: { type: 'string', enum: [...VARIANTS] },
  target_service: { ...num, description: 'the level the policy was sized for: the SKU-site\'s target, or the sweep level' },
  service_type: { type: 'string' },
  policy: { type: 'string', enum: ['sQ', 'RsS', 'RS', 'base_stock'], description: 'the replayed rule: sQ reorder point and quantity reviewed weekly; RsS and RS every review_weeks; base_stock order-up-to every week' },
  reorder_point: nullable(num), order_qty: nullable(num), order_up_to: nullable(num), review_weeks: num,
  lead_time_weeks: { ...num, description: 'replenishment time: orders arrive this many weeks after they are placed (rounded to whole weeks)' },
  unit_cost: num, demand_class: nullable({ type: 'string' }), abc_class: nullable({ type: 'string' }), segment_ids: { type: 'array', items: int },
  expected_fill_rate: nullable({ ...num, description: 'what the planner promised (ours only)' }), expected_on_hand: nullable(num),
  shortage_mode: { type: 'string', enum: [...SHORTAGE_MODES] }, weeks: { ...int, description: 'held-out weeks replayed' }, demand: num, served_from_stock: num,
  fill_rate: nullable({ ...num, description: 'units served from stock in the week asked / units asked; null without demand' }),
  cycle_service_level: nullable({ ...num, description: 'share of replenishment cycles (arrival to arrival) with demand in which every unit was served from stock' }),
  cycles: int, average_on_hand: { ...num, description: 'mean end-of-week on hand' }, average_inventory_value: num,
  stockout_weeks: int, orders: int, ordered_units: num, lost_units: num, end_backorders: num,
  job_id: nullable({ type: 'string' }), updated_at: { type: 'string' },
});

const figures = out({
  variant: { type: 'string' }, sku_sites: int, mean_target: num, mean_fill_rate: num, gap_points: { ...num, description: 'mean achieved − mean target, in points' },
  pooled_fill_rate: nullable(num), mean_cycle_service_level: nullable(num), inventory_value: { ...num, description: 'Σ average on hand × unit cost' }, on_hand_units: num, stockout_weeks: int,
});
export const summarySchema = out({
  pipeline_id: int, scenario_id: nullable(int), group_by: { type: 'string', enum: [...GROUP_BY] },
  groups: {
    type: 'array',
    items: out({
      group_by: { type: 'string' }, group: { type: 'string' }, variants: { type: 'array', items: figures },
      sweep: { type: 'array', items: out({ target_service: num, mean_fill_rate: num, inventory_value: num, on_hand_units: num }) },
      equal_service: {
        type: 'array',
        description: 'per peer: the stock our policies need for the peer\'s achieved mean fill rate, interpolated along the sweep (null when the sweep does not reach it)',
        items: out({
          peer: { type: 'string' }, peer_fill_rate: num, peer_inventory_value: num, peer_on_hand_units: num, ours_inventory_value: nullable(num), ours_on_hand_units: nullable(num),
          saving: nullable({ ...num, description: '(peer − ours) / peer stock at equal service: positive when ours needs less' }),
        }),
      },
    }),
  },
});
