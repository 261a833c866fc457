import { int4, notBoth, nullable, obj, oneOfSent, out, skipParam } from '../schemas';
import type { JsonSchema } from '../validation';

/** JSON Schemas of the causal routes (core-service.md §4.10, document 2 §2.6 and §4.6; docs/CAUSAL.md). */

export const id = (description: string): JsonSchema => int4(1, { description });
export const date = (description: string): JsonSchema => ({ type: 'string', format: 'date', description, examples: ['2026-03-02'] });
export const num = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'number', minimum: 0, maximum: 1e12, description, ...extra });
const text = (max: number, description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: max, description });
const int = { type: 'integer' };
const number = { type: 'number' };
const str = { type: 'string' };
const ts = { type: 'string', format: 'date-time' };
const d = { type: 'string', format: 'date' };

export const limit: JsonSchema = { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'rows to return (at most 1000)' };
export const page = { skip: skipParam, limit };

export const customerFields = {
  customer_id: id('an existing customer (GET /api/causal/customers)'),
  customer_code: text(200, 'instead of customer_id: the customer of this code, created when new'),
  customer_name: text(200, 'name of a customer created from customer_code (default the code)'),
};
const customerNotBoth = notBoth('customer_id', 'customer_code', 'give customer_id or customer_code, not both');
/** A create body whose customer is required: `customer_id` or `customer_code`, exactly one. */
const oneCustomer: JsonSchema = { allOf: [customerNotBoth, oneOfSent(['customer_id', 'customer_code'], 'required (or customer_code)')] };

// ---------------------------------------------------------------- asset types

export const assetTypeRow = out({ id: int, code: str, name: str, description: nullable(str), created_at: ts });
export const assetTypeCreate = obj({
  code: text(100, 'unique code (case-insensitive), e.g. TRUCK-40T'),
  name: text(200, 'display name'),
  description: { ...nullable({ type: 'string', maxLength: 2000 }), default: null },
}, ['code', 'name']);

// ---------------------------------------------------------------- assets

const ASSET_STATUS = ['active', 'inactive', 'retired'];
export const assetRow = out({
  id: int, asset_type_id: int, serial_number: str, name: nullable(str), status: { type: 'string', enum: ASSET_STATUS },
  in_service_date: nullable(d), created_at: ts, updated_at: ts,
});
const assetFields = {
  asset_type_id: id('its asset type; must exist'),
  serial_number: text(200, 'unique serial number or tail number (case-insensitive)'),
  name: nullable({ type: 'string', maxLength: 200 }),
  status: { type: 'string', enum: ASSET_STATUS, description: 'retired assets are left out of the fleet counts' },
  in_service_date: nullable(date('YYYY-MM-DD')),
};
export const assetCreate = obj({ ...assetFields, name: { ...assetFields.name, default: null }, status: { ...assetFields.status, default: 'active' }, in_service_date: { ...assetFields.in_service_date, default: null } }, ['asset_type_id', 'serial_number']);
export const assetUpdate = obj(assetFields, [], { minProperties: 1 });

// ---------------------------------------------------------------- deployments

export const deploymentRow = out({ id: int, asset_id: int, customer_id: int, site_id: int, start_date: d, end_date: nullable(d), created_at: ts, updated_at: ts });
const deploymentFields = {
  asset_id: id('the asset; must exist'),
  site_id: id('the site it operates from; must exist'),
  start_date: date('first day at the customer (YYYY-MM-DD)'),
  end_date: nullable(date('last day (inclusive); null: still deployed')),
};
export const deploymentCreate = obj({ ...deploymentFields, ...customerFields, end_date: { ...deploymentFields.end_date, default: null } }, ['asset_id', 'site_id', 'start_date'], oneCustomer);
export const deploymentUpdate = obj({ ...deploymentFields, customer_id: customerFields.customer_id }, [], { minProperties: 1 });

// ---------------------------------------------------------------- coverage

export const coverageRow = out({ id: int, asset_type_id: int, customer_id: nullable(int), site_id: int, coverage_pct: number, created_at: ts });
export const coverageCreate = obj({
  asset_type_id: id('the asset type; must exist'),
  customer_id: { ...nullable(customerFields.customer_id), default: null, description: 'the customer; null (and no customer_code): the global fallback of customers with no rows of their own' },
  customer_code: customerFields.customer_code,
  customer_name: customerFields.customer_name,
  site_id: id('the site serving the demand; must exist'),
  coverage_pct: num('share of the customer\'s demand served by the site; any scale, normalised per customer so its sites sum to 1', { maximum: 1e6 }),
}, ['asset_type_id', 'site_id', 'coverage_pct'], customerNotBoth);

// ---------------------------------------------------------------- bom

export const bomRow = out({ id: int, asset_type_id: nullable(int), parent_item_id: nullable(int), item_id: int, qty_per_asset: number, created_at: ts, updated_at: ts });
const bomFields = {
  asset_type_id: nullable(id('the asset type holding the part (a level-1 edge)')),
  parent_item_id: nullable(id('the part holding this one (a deeper edge)')),
  item_id: id('the part (an item); must exist'),
  qty_per_asset: { type: 'number', exclusiveMinimum: 0, maximum: 1e12, description: 'quantity per asset type (level 1) or per parent part, above 0' },
};
const bomNotBoth = notBoth('asset_type_id', 'parent_item_id', 'give asset_type_id or parent_item_id, not both');
export const bomCreate = obj({ ...bomFields, asset_type_id: { ...bomFields.asset_type_id, default: null }, parent_item_id: { ...bomFields.parent_item_id, default: null } }, ['item_id', 'qty_per_asset'], {
  allOf: [oneOfSent(['asset_type_id', 'parent_item_id'], 'give asset_type_id (a level-1 part) or parent_item_id (a sub-part)'), bomNotBoth],
});
// partial: a field not sent keeps its stored value, so only "both in one body" is the schema's to refuse
export const bomUpdate = obj(bomFields, [], { minProperties: 1, ...bomNotBoth });

// ---------------------------------------------------------------- fleet plan

export const fleetPlanRow = out({ id: int, asset_type_id: int, customer_id: int, start_date: d, end_date: nullable(d), quantity: number, notes: nullable(str), created_at: ts, updated_at: ts });
const fleetFields = {
  asset_type_id: id('the asset type; must exist'),
  start_date: date('first day of the planned fleet (YYYY-MM-DD)'),
  end_date: nullable(date('last day (inclusive); null: open-ended')),
  quantity: num('planned number of assets at the customer'),
  notes: nullable({ type: 'string', maxLength: 2000 }),
};
export const fleetPlanCreate = obj({ ...fleetFields, ...customerFields, end_date: { ...fleetFields.end_date, default: null }, notes: { ...fleetFields.notes, default: null } }, ['asset_type_id', 'start_date', 'quantity'], oneCustomer);
export const fleetPlanUpdate = obj({ ...fleetFields, customer_id: customerFields.customer_id }, [], { minProperties: 1 });

// ---------------------------------------------------------------- usage

export const usageRow = out({ id: int, asset_type_id: int, customer_id: int, usage_type_id: int, period_start: d, period_end: d, total_usage: number, created_at: ts, updated_at: ts });
const usageFields = {
  asset_type_id: id('the asset type; must exist'),
  usage_type_id: id('hours, cycles or km (GET /api/causal/usage-types)'),
  period_start: date('first day of the period (YYYY-MM-DD)'),
  period_end: date('last day of the period, inclusive'),
  total_usage: num('usage over the whole period: of the whole fleet (fleet_total scenarios) or of one asset (per_asset)'),
};
export const usageCreate = obj({ ...usageFields, ...customerFields }, ['asset_type_id', 'usage_type_id', 'period_start', 'period_end', 'total_usage'], oneCustomer);
export const usageUpdate = obj({ ...usageFields, customer_id: customerFields.customer_id }, [], { minProperties: 1 });

// ---------------------------------------------------------------- failure rates

export const rateRow = out({
  id: int, asset_type_id: int, item_id: int, usage_type_id: int, rate: number, ci_lower: nullable(number), ci_upper: nullable(number),
  confidence: nullable(number), source: { type: 'string', enum: ['manual', 'fit'] }, n_events: nullable(number), exposure: nullable(number), created_at: ts, updated_at: ts,
});
const rateFields = {
  asset_type_id: id('the asset type; must exist'),
  item_id: id('the part; must exist'),
  usage_type_id: id('the usage the rate is per'),
  rate: num('failures (parts demanded) per installed part per unit of usage'),
  ci_lower: nullable(num('lower bound of the rate')),
  ci_upper: nullable(num('upper bound of the rate')),
};
export const rateCreate = obj({ ...rateFields, ci_lower: { ...rateFields.ci_lower, default: null }, ci_upper: { ...rateFields.ci_upper, default: null } }, ['asset_type_id', 'item_id', 'usage_type_id', 'rate']);
export const rateUpdate = obj(rateFields, [], { minProperties: 1 });

// ---------------------------------------------------------------- scenarios

const MODES = ['fleet_total', 'per_asset'];
export const scenarioRow = out({
  id: int, name: str, description: nullable(str), usage_mode: { type: 'string', enum: MODES }, start_date: nullable(d), horizon_weeks: int,
  usage_multiplier: number, fleet_multiplier: number, failure_rate_multiplier: number, last_run_at: nullable(ts), created_at: ts, updated_at: ts,
});
const mult = (what: string) => num(`multiplies every ${what} (1: as recorded)`, { maximum: 1000 });
const scenarioFields = {
  name: text(200, 'unique name (case-insensitive)'),
  description: nullable({ type: 'string', maxLength: 2000 }),
  usage_mode: { type: 'string', enum: MODES, description: 'fleet_total (default): usage rows are the whole fleet\'s; per_asset: one asset\'s, multiplied by the fleet quantity' },
  start_date: nullable(date('first week of the run (normalised to its Monday); null: the week of the run')),
  horizon_weeks: int4(1, { maximum: 520, description: 'weeks computed, 1 to 520' }),
  usage_multiplier: mult('usage total'),
  fleet_multiplier: mult('fleet quantity'),
  failure_rate_multiplier: mult('failure rate'),
};
export const scenarioCreate = obj({
  ...scenarioFields,
  description: { ...scenarioFields.description, default: null }, usage_mode: { ...scenarioFields.usage_mode, default: 'fleet_total' },
  start_date: { ...scenarioFields.start_date, default: null }, horizon_weeks: { ...scenarioFields.horizon_weeks, default: 52 },
  usage_multiplier: { ...scenarioFields.usage_multiplier, default: 1 }, fleet_multiplier: { ...scenarioFields.fleet_multiplier, default: 1 },
  failure_rate_multiplier: { ...scenarioFields.failure_rate_multiplier, default: 1 },
}, ['name']);
export const scenarioUpdate = obj(scenarioFields, [], { minProperties: 1 });

// ---------------------------------------------------------------- read-only and results

export const customerRow = out({
  id: int, code: str, name: str, assets: { type: 'integer', description: 'assets deployed today' }, sites: { type: 'integer', description: 'sites of those deployments' },
  asset_types: { type: 'integer', description: 'asset types ever deployed at the customer' }, created_at: ts,
});
export const usageTypeRow = out({ id: int, code: str, name: str, unit: str });

export const seriesPoint = out({ date: d, value: number });

export const breakdownRow = out({
  asset_type_id: int, asset_type_name: str, asset_type_code: str, customer_id: int, customer_name: str, asset_qty: number,
  usage_type_id: int, usage_type_name: str, qty_per_asset: number, fleet_qty: number, total_usage: number, failure_rate: number,
  computed_demand: number, usage_mode: { type: 'string', enum: MODES }, coverage_pct: number,
});

export const resultRow = out({
  item_id: int, site_id: { type: 'integer', description: '0: the item over every site' }, series_id: { type: 'string', description: '`<item_id>_<site_id>`, or `<item_id>` for the aggregate' },
  week: d, demand: number, lower: nullable(number), upper: nullable(number),
});

export const scenarioIds = { type: 'string', pattern: '^\\d{1,10}(,\\d{1,10}){1,9}$', description: 'two to ten causal scenario ids, comma-separated; the first is the base' };
