import { notBoth, nullable, obj, out, skipParam } from '../schemas';
import { id32, nameSchema } from '../scenarios/schemas';
import { uniqueIdSchema } from '../segments/access';
import type { JsonSchema } from '../validation';

/*
 * The K-curve (spec §4.9): a portfolio of SKU-sites (one item at one site, what a planner orders) with annual demand D
 * (52 × the mean weekly best-method forecast of the pipeline, else 52 × the mean of the open history weeks), unit cost c
 * (item_site.unit_cost, else items.avg_unit_cost; a SKU-site with neither is listed but left out of the curve), a
 * common ordering cost A and holding rate r. Every EOQ is Q = k sqrt(D / c) with k = sqrt(2A / r); sweeping k traces
 * total cycle-stock value against total orders per year. The bounds below are repeated as CHECKs in migration 010, whose
 * floor for A and r is still "above 0": the handlers check what those give (settingsRangeProblem) before computing.
 */

export const SETTINGS_RULE =
  'Settings: `scenario_id` (a K-curve scenario of the pipeline; default the pipeline\'s default scenario, its oldest, when it has one) supplies A, r, k and the allowed frequencies; ' +
  '`ordering_cost` and `holding_rate` in the query replace the scenario\'s. k is, first found: `k` in the request, the scenario\'s target, the scenario\'s k (its last solve), sqrt(2A/r). ' +
  'Allowed order frequencies of a SKU-site: its item\'s attribute `allowed_orders_per_year` (an array of positive numbers), else the scenario\'s, else 1, 2, 4, 6, 12, 24, 52; ' +
  '`freq_param_name` says which (item.allowed_orders_per_year, scenario.allowed_orders_per_year, default.allowed_orders_per_year). ' +
  'A query `ordering_cost` or `holding_rate` sets a new cost basis: the scenario\'s k and targets are then not used. ' +
  'IO overrides (`eoq_override` of /api/io-overrides for the pipeline, the K-curve scenario\'s row winning over the one for every scenario) fix the quantity in force. ' +
  'The portfolio is the pipeline\'s series (its segments) that the caller may see, narrowed by `segment_id`.';

const pipelineId: JsonSchema = {
  type: 'integer', minimum: 0, maximum: 2147483647,
  description: 'pipeline configuration whose results (forecasts, best methods, overrides) are used; 0: results outside any pipeline; default the default results pipeline',
};
// a floor of 1e-6 rather than "above 0": two denormal costs multiplied to 0 inside the EOQ and answered 500
const orderingCost: JsonSchema = { type: 'number', minimum: 1e-6, maximum: 1e9, description: 'A: fixed cost of one order, in the currency of unit costs (1e-6 to 1e9)' };
const holdingRate: JsonSchema = { type: 'number', minimum: 1e-6, maximum: 10, description: 'r: annual holding cost as a fraction of the unit cost (0.25 = 25 % a year; 1e-6 to 10)' };
// the lower bounds keep S / k and k S / 2 finite for any portfolio, so an answer never holds an Infinity
const kValue: JsonSchema = { type: 'number', minimum: 1e-6, maximum: 1e12, description: 'k = sqrt(2A / r): every EOQ is k sqrt(D / c) (1e-6 to 1e12)' };
const targetOrders: JsonSchema = { type: 'number', minimum: 1e-6, maximum: 1e12, description: 'total orders per year of the portfolio; k = Σ sqrt(D c) / target' };
const targetValue: JsonSchema = { type: 'number', minimum: 1e-6, maximum: 1e15, description: 'total cycle-stock value of the portfolio; k = 2 target / Σ sqrt(D c)' };
const allowedSet: JsonSchema = {
  type: 'array', items: { type: 'integer', minimum: 1, maximum: 365 }, minItems: 1, maxItems: 100, uniqueItems: true,
  description: 'allowed orders per year, e.g. [1, 2, 4, 12, 52]; null: the default set 1, 2, 4, 6, 12, 24, 52',
};
const scenarioIdQ: JsonSchema = { ...id32, description: 'K-curve scenario; it must belong to the pipeline (404 otherwise)' };
const page = {
  skip: skipParam,
  limit: { type: 'integer', minimum: 1, maximum: 10000, default: 1000, description: 'SKU-sites to return (at most 10000); totals cover all' },
};
const num: JsonSchema = { type: 'number' };
const int: JsonSchema = { type: 'integer' };
const str: JsonSchema = { type: 'string' };

const settingsQuery = {
  pipeline_id: pipelineId,
  scenario_id: scenarioIdQ,
  ordering_cost: orderingCost,
  holding_rate: holdingRate,
  k: kValue,
};

// ------------------------------------------------------------------------------------------------ pieces of answers

const freqParam: JsonSchema = { type: 'string', enum: ['item.allowed_orders_per_year', 'scenario.allowed_orders_per_year', 'default.allowed_orders_per_year'] };

export const settingsSchema: JsonSchema = out({
  scenario_id: nullable({ type: 'integer', description: 'the K-curve scenario used; null: none (catalogue costs 50 and 0.25)' }),
  ordering_cost: { type: 'number', description: 'A as configured' },
  holding_rate: { type: 'number', description: 'r' },
  k: { type: 'number', description: 'the k in force' },
  k_source: {
    type: 'string', enum: ['request.k', 'request.target_orders_per_year', 'request.target_inventory_value', 'scenario.target_orders_per_year', 'scenario.target_inventory_value', 'scenario.k', 'ordering_cost'],
    description: 'where k came from (ordering_cost: sqrt(2A/r))',
  },
  implied_ordering_cost: { type: 'number', description: 'r k² / 2: the A at which k is optimal, used for the costs (equals ordering_cost when k comes from it)' },
  constrained: { type: 'boolean', description: 'whether order frequencies were snapped to the allowed sets' },
  allowed_orders_per_year: { type: 'array', items: num, description: 'the portfolio set (scenario\'s or default); items may have their own' },
  allowed_param_name: freqParam,
});

const identity = {
  unique_id: { type: 'string', description: '`<item_id>_<site_id>`' },
  item_id: int, site_id: int, item_xuid: str, item_name: str, site_xuid: str, site_name: str,
};

export const freqOptionSchema: JsonSchema = out({
  freq: { type: 'string', description: 'code: Y, H, Q, 2M, M, SM, W …, else `<n>/Y`' },
  freq_label: { type: 'string', description: 'e.g. quarterly' },
  orders_per_year: num,
  eoq: { type: 'number', description: 'D / orders_per_year' },
  cycle_stock_value: { type: 'number', description: 'c × eoq / 2' },
  total_annual_cost: { type: 'number', description: 'A f + r c D / (2 f) at A = r k² / 2' },
  k_equivalent: { type: 'number', description: 'the k at which this frequency is the unconstrained optimum, sqrt(D c) / f' },
  is_selected: { type: 'boolean', description: 'the frequency snapping picks at this k' },
});

export const freqConstraintSchema: JsonSchema = out({
  param_name: freqParam,
  allowed_orders_per_year: { type: 'array', items: num },
  selected_orders_per_year: { type: 'number', description: 'the allowed frequency nearest the optimum (convex cost); the unconstrained frequency without demand' },
  constrained: { type: 'boolean', description: 'true when an allowed set applies to the SKU-site' },
});

const eoqFields = {
  ...identity,
  annual_demand: { type: 'number', description: 'D, units a year' },
  demand_source: { type: 'string', enum: ['forecast', 'history', 'none'], description: 'forecast: the best method\'s; history: no forecast, the open-week mean; none: no demand' },
  unit_cost: { type: 'number', description: 'c' },
  k: num,
  unconstrained_eoq: { type: 'number', description: 'sqrt(2 A D / (r c)) = k sqrt(D / c), before snapping and overrides' },
  unconstrained_orders_per_year: { type: 'number', description: 'sqrt(D c) / k' },
  eoq: { type: 'number', description: 'the quantity in force: eoq_override, else the snapped EOQ (constrained), else unconstrained_eoq' },
  eoq_override: nullable({ type: 'number', description: 'the IO override; null when none' }),
  eoq_source: { type: 'string', enum: ['override', 'frequency', 'eoq'] },
  orders_per_year: { type: 'number', description: 'D / eoq (0 without demand)' },
  cycle_stock_value: { type: 'number', description: 'c × eoq / 2' },
  total_annual_cost: { type: 'number', description: 'A D / eoq + r c eoq / 2, at the implied ordering cost' },
  freq_constrained: { type: 'boolean', description: 'true when snapping to the allowed set changed the EOQ' },
  freq_param_name: nullable({ ...freqParam, description: 'the parameter whose set the frequency was snapped to; null when not constrained' }),
};

const freqOptions: JsonSchema = { type: 'array', items: freqOptionSchema, description: 'every allowed frequency of the SKU-site with its cost' };

export const itemEoqSchema: JsonSchema = out({ ...eoqFields, freq_options: freqOptions, freq_constraint: freqConstraintSchema });

export const eoqTotalsSchema: JsonSchema = out({
  n_items: { type: 'integer', description: 'SKU-sites with a unit cost' },
  n_overridden: { type: 'integer', description: 'with an eoq_override' },
  n_freq_constrained: { type: 'integer', description: 'whose EOQ snapping changed' },
  total_orders_per_year: num,
  total_cycle_stock_value: num,
  total_annual_cost: num,
});

// ------------------------------------------------------------------------------------------------ /items

export const itemsQuery = obj({ pipeline_id: pipelineId, segment_id: { ...id32, description: 'only the series of this segment' }, ...page });

export const itemsResponse: JsonSchema = out({
  pipeline_id: int,
  total: { type: 'integer', description: 'SKU-sites in scope (also in `X-Total-Count`)' },
  n_in_curve: { type: 'integer', description: 'SKU-sites with a unit cost' },
  items: {
    type: 'array',
    items: out({
      ...identity,
      annual_demand: { type: 'number', description: 'D = 52 × weekly_mean (0 without one; negative forecasts count as 0)' },
      weekly_mean: nullable({ type: 'number', description: 'the weekly demand D comes from' }),
      demand_source: eoqFields.demand_source,
      best_method: nullable({ type: 'string', description: 'the pipeline\'s best method of the series' }),
      forecast_weeks: { type: 'integer', description: 'weeks of the best forecast averaged' },
      unit_cost: nullable({ type: 'number', description: 'c; null when neither item_site nor the item has a cost above 0' }),
      cost_source: nullable({ type: 'string', enum: ['item_site', 'item'] }),
      sqrt_dc: nullable({ type: 'number', description: 'sqrt(D c), the SKU-site\'s weight in the curve' }),
      allowed_orders_per_year: nullable({ type: 'array', items: num, description: 'the item\'s own allowed set (attribute), null when it has none' }),
      in_curve: { type: 'boolean', description: 'false without a unit cost' },
    }),
  },
});

// ------------------------------------------------------------------------------------------------ /curve

export const curveQuery = obj({
  ...settingsQuery,
  segment_id: { ...id32, description: 'only the series of this segment' },
  constrained: { type: 'boolean', default: false, description: 'also return `constrained_curve`: the curve when frequencies snap to the allowed sets' },
  points: { type: 'integer', minimum: 1, maximum: 500, default: 50, description: 'points of the k grid (geometric)' },
  k_min: { ...kValue, description: 'smallest k of the grid; default: every SKU-site ordered 52 times a year on average' },
  k_max: { ...kValue, description: 'largest k of the grid; default: every SKU-site ordered once a year on average' },
});

const curvePoint: JsonSchema = out({ k: num, inv_val: { type: 'number', description: 'Σ c Q / 2, cycle-stock value' }, orders_per_year: { type: 'number', description: 'Σ D / Q' } });
const constrainedPoint: JsonSchema = out({ k: num, inv_val: { type: 'number', description: 'Σ c D / (2 f)' }, orders: { type: 'number', description: 'Σ f, orders per year' } });

export const curveResponse: JsonSchema = out({
  pipeline_id: int,
  settings: settingsSchema,
  n_items: { type: 'integer', description: 'SKU-sites on the curve (those with a unit cost)' },
  sum_sqrt_dc: { type: 'number', description: 'S = Σ sqrt(D c); the unconstrained curve is V N = S² / 2' },
  k_min: nullable({ type: 'number', description: 'null: no demand, so no default range (alternatives empty)' }),
  k_max: nullable(num),
  alternatives: { type: 'array', items: curvePoint, description: 'the unconstrained curve, k ascending; IO overrides are not applied (the curve is the rule at each k)' },
  current: { ...curvePoint, description: 'the point at the k in force' },
  constrained_curve: { type: 'array', items: constrainedPoint, description: 'only with constrained=true: the same k grid with frequencies snapped' },
  constrained_current: { ...constrainedPoint, description: 'only with constrained=true: the snapped point at the k in force' },
}, ['pipeline_id', 'settings', 'n_items', 'sum_sqrt_dc', 'k_min', 'k_max', 'alternatives', 'current']);

// ------------------------------------------------------------------------------------------------ /eoq, /eoq/item

export const eoqQuery = obj({
  ...settingsQuery,
  segment_id: { ...id32, description: 'only the series of this segment' },
  constrained: { type: 'boolean', description: 'snap frequencies to the allowed sets; default the scenario\'s `constrained` (false without a scenario)' },
  ...page,
});

export const eoqResponse: JsonSchema = out({
  pipeline_id: int,
  settings: settingsSchema,
  totals: eoqTotalsSchema,
  total: { type: 'integer', description: 'SKU-sites with a unit cost (also in `X-Total-Count`)' },
  items: { type: 'array', items: itemEoqSchema },
});

export const eoqItemQuery = obj({
  ...settingsQuery,
  unique_id: { ...uniqueIdSchema, description: 'the SKU-site, `<item_id>_<site_id>`' },
  respect_frequency_constraints: { type: 'boolean', default: true, description: 'snap the frequency to the allowed set' },
}, ['unique_id']);

export const eoqItemResponse: JsonSchema = out({
  pipeline_id: int,
  settings: settingsSchema,
  ...eoqFields,
  freq_options: freqOptions,
  freq_constraint: freqConstraintSchema,
});

// ------------------------------------------------------------------------------------------------ /wagner-whitin

export const wwQuery = obj({
  ...settingsQuery,
  segment_id: { ...id32, description: 'only the series of this segment' },
  unique_id: { ...uniqueIdSchema, description: 'only this SKU-site' },
  ...page,
});

const scheduleEntry: JsonSchema = out({
  period: { type: 'integer', description: '0-based week of the forecast' },
  week: { type: 'string', format: 'date', description: 'Monday of that week' },
  quantity: num,
  covers: { type: 'array', items: int, description: 'the weeks (0-based) whose demand the order serves' },
});

export const wwResponse: JsonSchema = out({
  pipeline_id: int,
  settings: settingsSchema,
  weekly_holding_rate: { type: 'number', description: 'r / 52: holding per unit and week is this × c' },
  totals: out({
    n_items: { type: 'integer', description: 'SKU-sites with a cost and a best forecast' },
    total_orders: { type: 'integer', description: 'Σ n_orders' },
    total_quantity: num, setup_cost: num, holding_cost: num, total_cost: num,
    total_orders_per_year: { type: 'number', description: 'Σ orders_per_year of the EOQ in force, for comparison' },
  }),
  total: { type: 'integer', description: 'SKU-sites planned (also in `X-Total-Count`)' },
  n_without_forecast: { type: 'integer', description: 'SKU-sites with a cost but no best-method forecast, not planned' },
  items: {
    type: 'array',
    items: out({
      ...identity,
      best_method: str,
      start_week: { type: 'string', format: 'date', description: 'Monday of period 0' },
      horizon_weeks: { type: 'integer', description: 'periods planned: the forecast\'s weeks' },
      unit_cost: num,
      annual_demand: { type: 'number', description: 'D = 52 × mean weekly forecast' },
      eoq: { type: 'number', description: 'the classic EOQ in force: eoq_override when set, else sqrt(2 A D / (r c))' },
      eoq_override: nullable({ type: 'number', description: 'the IO override; when set the schedule orders fixed lots of it' }),
      orders_per_year: { type: 'number', description: 'D / eoq' },
      lot_sizing: { type: 'string', enum: ['wagner_whitin', 'eoq_override'], description: 'wagner_whitin: optimal lots (setup A, holding r c / 52 a week); eoq_override: multiples of the override whenever stock runs short' },
      n_orders: int,
      avg_lot_size: num,
      total_quantity: num,
      setup_cost: num,
      holding_cost: { type: 'number', description: 'on the stock left at the end of each week' },
      total_cost: num,
      schedule: { type: 'array', items: scheduleEntry },
    }),
  },
});

// ------------------------------------------------------------------------------------------------ /pipeline/{pipeline_id}

export const pipelineParams = obj({ pipeline_id: { type: 'integer', minimum: 0, maximum: 2147483647, description: '0: results outside any pipeline' } }, ['pipeline_id']);
export const pipelineQuery = obj({ scenario_id: { ...scenarioIdQ, description: 'default the pipeline\'s default scenario' }, segment_id: { ...id32, description: 'only the series of this segment' }, ...page });

export const pipelineResponse: JsonSchema = out({
  pipeline_id: int,
  scenario_id: nullable({ type: 'integer', description: 'null: the pipeline has no K-curve scenario yet' }),
  scenarios: {
    type: 'array', description: 'the pipeline\'s scenarios that hold results',
    items: out({ scenario_id: int, name: str, rows: int, updated_at: { type: 'string', format: 'date-time' } }),
  },
  totals: out({
    n_items: int, total_orders_per_year: num, total_cycle_stock_value: num, total_annual_cost: num,
    n_overridden: int, n_freq_constrained: int,
    updated_at: nullable({ type: 'string', format: 'date-time', description: 'newest row' }),
  }),
  total: { type: 'integer', description: 'rows (also in `X-Total-Count`)' },
  items: {
    type: 'array',
    items: out({
      ...identity,
      annual_demand: num, unit_cost: num, k: num,
      eoq: { type: 'number', description: 'the quantity in force when stored' },
      eoq_override: nullable(num), orders_per_year: num, cycle_stock_value: num, total_annual_cost: num,
      freq_constrained: { type: 'boolean' }, freq_param_name: nullable(freqParam),
      job_id: nullable({ type: 'string', description: 'the eoq job that wrote the row; `solve:<user>` for a solve' }),
      updated_at: { type: 'string', format: 'date-time' },
    }),
  },
});

// ------------------------------------------------------------------------------------------------ scenarios

export const scenarioSchema: JsonSchema = out({
  id: int,
  name: str,
  description: nullable(str),
  pipeline_id: { type: 'integer', description: 'the pipeline configuration it belongs to (0: results outside any pipeline)' },
  ordering_cost: { type: 'number', description: 'A' },
  holding_rate: { type: 'number', description: 'r, a year' },
  k: nullable({ type: 'number', description: 'the k the last persisted solve chose; null: sqrt(2A/r) applies' }),
  target_orders_per_year: nullable({ type: 'number', description: 'a solve picks k = Σ sqrt(D c) / target' }),
  target_inventory_value: nullable({ type: 'number', description: 'a solve picks k = 2 target / Σ sqrt(D c)' }),
  constrained: { type: 'boolean', description: 'snap order frequencies to the allowed sets (eoq step and the default of /eoq)' },
  allowed_orders_per_year: nullable({ type: 'array', items: int, description: 'null: the default set 1, 2, 4, 6, 12, 24, 52' }),
  created_by: nullable({ type: 'string', description: 'e-mail of the creator; system for a default an eoq run created' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

export const createScenarioBody = obj({
  name: nameSchema,
  description: { ...nullable({ type: 'string', maxLength: 2000 }), default: null },
  pipeline_id: { ...pipelineId, description: 'the pipeline configuration it belongs to (0: results outside any pipeline); must exist' },
  ordering_cost: { ...orderingCost, default: 50 },
  holding_rate: { ...holdingRate, default: 0.25 },
  k: { ...nullable(kValue), default: null },
  target_orders_per_year: { ...nullable(targetOrders), default: null },
  target_inventory_value: { ...nullable(targetValue), default: null },
  constrained: { type: 'boolean', default: false, description: 'snap order frequencies to the allowed sets' },
  allowed_orders_per_year: { ...nullable(allowedSet), default: null },
}, ['name', 'pipeline_id'], notBoth('target_orders_per_year', 'target_inventory_value', 'set at most one of target_orders_per_year and target_inventory_value (each fixes k)'));

export const scenarioFilters = {
  pipeline_id: { schema: { ...pipelineId, description: 'only the scenarios of this pipeline' } },
  name: { schema: { type: 'string', minLength: 1, maxLength: 200, description: 'part of the name, ignoring case' }, op: 'ilike' as const },
};

// ------------------------------------------------------------------------------------------------ solve

const FIXES_K = 'give at most one of k, target_orders_per_year and target_inventory_value (each fixes k)';

export const solveBody = obj({
  pipeline_id: { ...pipelineId, description: 'the active pipeline: whose results feed the solve and receive the rows; default the default results pipeline' },
  scenario_id: { ...id32, description: 'K-curve scenario of that pipeline (404 when it belongs to another); default the pipeline\'s default scenario for settings, without persisting' },
  persist: { type: 'boolean', description: 'merge the results into eoq_results of the pipeline and scenario and store k on the scenario; default true when scenario_id is given. Needs can_run_process or an admin role' },
  constrained: { type: 'boolean', default: false, description: 'snap order frequencies to the allowed sets' },
  ordering_cost: orderingCost,
  holding_rate: holdingRate,
  k: kValue,
  target_orders_per_year: targetOrders,
  target_inventory_value: targetValue,
  segment_id: { ...id32, description: 'only the series of this segment (k, totals and rows then cover those only)' },
  include_items: { type: 'boolean', default: true, description: 'return the per-SKU-site results' },
}, [], {
  allOf: [
    // each pair once, so the field refused is the later of the two, as the handler named it before the schema said so
    notBoth('k', 'target_orders_per_year', FIXES_K),
    notBoth('k', 'target_inventory_value', FIXES_K),
    notBoth('target_orders_per_year', 'target_inventory_value', FIXES_K),
    {
      if: { required: ['persist'], properties: { persist: { const: true } } },
      then: { required: ['scenario_id'], 'x-refusal': 'persisting needs scenario_id (the scenario whose results receive the rows)', 'x-field': 'persist' },
    },
  ],
});

export const solveResponse: JsonSchema = out({
  pipeline_id: int,
  scenario_id: nullable(int),
  persisted: { type: 'boolean' },
  rows_written: { type: 'integer', description: 'eoq_results rows inserted or updated (0 without persist)' },
  settings: settingsSchema,
  current: { ...curvePoint, description: 'the unconstrained curve at the chosen k (IO overrides not applied)' },
  totals: eoqTotalsSchema,
  items: { type: 'array', items: out(eoqFields), description: 'per SKU-site at the chosen k (empty with include_items=false)' },
});
