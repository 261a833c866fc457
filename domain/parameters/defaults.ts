/**
 * The step parameter catalogue: level 1 of the parameter hierarchy (global defaults), per parameter type. Parameter
 * sets (level 2) and per-series overrides (level 3) may only set keys listed here, with values that pass the key's
 * schema, so a typo is a 400 and never a stored value that no step reads. Served by GET /api/parameters/catalogue.
 *
 * Not to be confused with domain/parameters/catalogue.ts: that one is the /api/config catalogue of process and tenant
 * settings (workers, chunk size, cache, language model, planning horizon), one value per tenant. This one holds what
 * the pipeline steps read per series, resolved through sets and overrides (see docs/PARAMETERS.md).
 *
 * Pure data: imported by the api, the activities and the pure resolution function alike.
 */
import type { ParameterDef } from './catalogue';

export type { ParameterDef };

export type ParameterTypeCatalogue = Record<string, ParameterDef>;
export type Catalogue = Record<string, ParameterTypeCatalogue>;

const num = (minimum: number, maximum: number, extra: Record<string, unknown> = {}) => ({ type: 'number', minimum, maximum, ...extra });
const int = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum });
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const unitOpen = { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 };

/**
 * Forecasting methods and their hyperparameters (names as the engines in domain/forecast read them from
 * ForecastOptions.params). In the `forecast` type they appear as keys `<method>.<hyperparameter>`; a null value means
 * "not fixed: the engine estimates or chooses it". The method list is the one scenarios accept
 * (api/routes/scenarios/schemas.ts FORECAST_METHODS; a test keeps the two equal). To expose a new hyperparameter,
 * add it here.
 */
export const METHOD_HYPERPARAMS: Record<string, ParameterTypeCatalogue> = {
  naive: {},
  seasonal_naive: {},
  moving_average: {
    window: { default: null, schema: nullable(int(1, 104)), description: 'Weeks averaged; null: min(season length, history) clipped to 3..52.' },
  },
  ses: {
    alpha: { default: null, schema: nullable(unitOpen), description: 'Level smoothing weight in (0, 1); null: estimated.' },
  },
  holt: {
    alpha: { default: null, schema: nullable(unitOpen), description: 'Level smoothing weight in (0, 1); null: estimated.' },
    beta: { default: null, schema: nullable(unitOpen), description: 'Trend smoothing weight in (0, 1); null: estimated.' },
  },
  damped_trend: {
    alpha: { default: null, schema: nullable(unitOpen), description: 'Level smoothing weight in (0, 1); null: estimated.' },
    beta: { default: null, schema: nullable(unitOpen), description: 'Trend smoothing weight in (0, 1); null: estimated.' },
    phi: { default: null, schema: nullable(num(0.8, 0.98)), description: 'Damping factor in [0.8, 0.98]; null: estimated.' },
  },
  holt_winters: {
    seasonal: { default: 'additive', schema: { type: 'string', enum: ['additive', 'multiplicative'] }, description: 'Seasonal form; multiplicative needs strictly positive demand (else the additive form is used).' },
    damped: { default: false, schema: { type: 'boolean' }, description: 'Damped trend.' },
  },
  ets: {
    model: { default: 'ZZZ', schema: { type: 'string', pattern: '^[AMZ][AMNZ]d?[AMNZ]$' }, description: "ETS model string (error, trend, season; Z = select, 'd' after the trend = damped), e.g. 'ANN', 'AAdN', 'ZZZ'." },
    damped: { default: null, schema: nullable({ type: 'boolean' }), description: 'Force a damped (true) or undamped (false) trend; null: both are tried.' },
    ic: { default: 'aicc', schema: { type: 'string', enum: ['aicc', 'aic', 'bic'] }, description: 'Information criterion that selects the model.' },
    additiveOnly: { default: false, schema: { type: 'boolean' }, description: 'Only additive models.' },
  },
  theta: {
    alpha: { default: null, schema: nullable(unitOpen), description: 'Smoothing weight of the SES line in (0, 1); null: estimated.' },
  },
  optimized_theta: {},
  arima: {
    ic: { default: 'aicc', schema: { type: 'string', enum: ['aicc', 'aic', 'bic'] }, description: 'Information criterion of the automatic order search.' },
    long_seasonal_method: {
      default: 'CSS',
      schema: { type: 'string', enum: ['CSS', 'CSS-ML', 'ML'] },
      description: "Estimation of a chosen model with a seasonal term at a period above 12 (weekly): CSS keeps the search's estimates, CSS-ML is R's exact-likelihood refit (docs/FORECASTING.md).",
    },
  },
  croston: {
    alpha: { default: null, schema: nullable(unitOpen), description: 'Smoothing weight of sizes and intervals in (0, 1); null: 0.1.' },
  },
  sba: {
    alpha: { default: null, schema: nullable(unitOpen), description: 'Smoothing weight of sizes and intervals in (0, 1); null: 0.1.' },
  },
  tsb: {
    alpha: { default: null, schema: nullable(unitOpen), description: 'Smoothing weight of the demand size in (0, 1); null: 0.1.' },
    beta: { default: null, schema: nullable(unitOpen), description: 'Smoothing weight of the demand probability in (0, 1); null: 0.1.' },
  },
  adida: {},
  combination: {},
};

export const FORECAST_METHOD_NAMES: readonly string[] = Object.keys(METHOD_HYPERPARAMS);

const methodKeys: ParameterTypeCatalogue = Object.fromEntries(
  Object.entries(METHOD_HYPERPARAMS).flatMap(([method, defs]) => Object.entries(defs).map(([key, def]) => [`${method}.${key}`, { ...def, description: `${method}: ${def.description}` }])),
);

const DISTRIBUTIONS = ['normal', 'gamma', 'poisson', 'negative_binomial', 'empirical'];

/** Every parameter type the steps read, with each key's default, JSON Schema and meaning. */
export const PARAMETER_DEFAULTS: Catalogue = {
  outlier: {
    method: { default: 'hampel', schema: { type: 'string', enum: ['hampel', 'iqr', 'none'] }, description: 'Detection method: Hampel filter (rolling median ± threshold scaled MADs), IQR fences, or none.' },
    window: { default: 6, schema: int(1, 52), description: 'Hampel half-window in weeks (6: a 13-week window).' },
    threshold: { default: null, schema: nullable({ type: 'number', exclusiveMinimum: 0, maximum: 100 }), description: 'Hampel: scaled MADs; IQR: multiples of the IQR. null: the method default (3 for Hampel, 1.5 for IQR).' },
    correction: { default: null, schema: nullable({ type: 'string', enum: ['median', 'clip'] }), description: "Replacement of a flagged point: 'median' or 'clip' to the fence; null: the method default (median for Hampel, clip for IQR)." },
    seasonal_protection: { default: true, schema: { type: 'boolean' }, description: 'Do not flag sharp peaks that recur at the same phase of other seasons.' },
  },
  characterization: {
    season_length: { default: 52, schema: int(1, 104), description: 'Seasonal period in weeks (1: non-seasonal), used by characterization, outlier protection and the forecast methods.' },
  },
  forecast: {
    interval_level: { default: 0.9, schema: num(0.5, 0.995), description: 'Coverage of the prediction interval (yhat_lower, yhat_upper).' },
    ...methodKeys,
  },
  backtest: {
    windows: { default: 4, schema: int(1, 52), description: 'Rolling origins per series.' },
    horizon_weeks: { default: 13, schema: int(1, 104), description: 'Weeks forecast from each origin.' },
    step_weeks: { default: 4, schema: int(1, 52), description: 'Weeks between consecutive origins.' },
    min_train_weeks: { default: 26, schema: int(1, 520), description: 'History required before the first origin; series with less are not backtested.' },
  },
  best_method: {
    metric: { default: 'mase', schema: { type: 'string', enum: ['mae', 'rmse', 'mase', 'bias'] }, description: 'Backtest metric that ranks the methods (bias by its absolute value); lower is better.' },
    include_benchmarks: { default: true, schema: { type: 'boolean' }, description: 'Naive and seasonal naive may win.' },
  },
  distribution: {
    candidates: { default: [...DISTRIBUTIONS], schema: { type: 'array', items: { type: 'string', enum: DISTRIBUTIONS }, minItems: 1, uniqueItems: true }, description: 'Distributions fitted; the smallest Kolmogorov-Smirnov statistic wins.' },
    quantiles: { default: [0.5, 0.8, 0.9, 0.95, 0.98, 0.99], schema: { type: 'array', items: unitOpen, minItems: 1, maxItems: 50, uniqueItems: true }, description: 'Service-level quantiles reported per series.' },
    aggregate_lead_time: { default: true, schema: { type: 'boolean' }, description: "Fit demand summed over the item-site lead time (else weekly demand)." },
    overlapping: { default: false, schema: { type: 'boolean' }, description: 'Rolling instead of non-overlapping lead-time sums.' },
  },
  meio: {
    service_level: { default: 0.95, schema: num(0.5, 0.9999), description: 'Target cycle service level.' },
    review_period_weeks: { default: 1, schema: int(1, 52), description: 'Weeks between replenishment reviews.' },
    holding_cost_rate: { default: 0.25, schema: num(0, 10), description: 'Yearly holding cost as a fraction of the unit cost.' },
  },
  supply: {
    lot_sizing: { default: 'lot_for_lot', schema: { type: 'string', enum: ['lot_for_lot', 'eoq', 'wagner_whitin'] }, description: 'How net requirements become orders.' },
    frozen_weeks: { default: 0, schema: int(0, 52), description: 'Weeks at the start of the horizon where no new order is planned.' },
    safety_stock_source: { default: 'meio', schema: { type: 'string', enum: ['meio', 'item_site'] }, description: 'Safety stock from the MEIO step or from item-site master data.' },
  },
  eoq: {
    ordering_cost: { default: 50, schema: num(0, 1e9), description: 'Fixed cost per order.' },
    holding_cost_rate: { default: 0.25, schema: num(0, 10), description: 'Yearly holding cost as a fraction of the unit cost.' },
    round_to_order_multiple: { default: true, schema: { type: 'boolean' }, description: 'Round the quantity up to the item-site order multiple and MOQ.' },
  },
  npi: {
    min_history_weeks: { default: 13, schema: int(1, 520), description: 'A series with fewer weeks of history is a new part (NPI) and is forecast with the fallback method.' },
    fallback_method: { default: 'moving_average', schema: { type: 'string', enum: [...FORECAST_METHOD_NAMES] }, description: 'Method used for new parts.' },
  },
};

export const PARAMETER_TYPES: readonly string[] = Object.keys(PARAMETER_DEFAULTS);

/** What a per-series override with this `method` targets: a parameter type's keys, or a forecasting method's hyperparameters. */
export function overrideTarget(method: string, catalogue: Catalogue = PARAMETER_DEFAULTS): { parameter_type: string; prefix: string } | undefined {
  if (catalogue[method]) return { parameter_type: method, prefix: '' };
  if (METHOD_HYPERPARAMS[method]) return { parameter_type: 'forecast', prefix: `${method}.` };
  return undefined;
}

/** The hyperparameters of one method from resolved forecast values, nulls (engine's choice) left out: ForecastOptions.params. */
export function methodParams(forecastValues: Record<string, unknown>, method: string): Record<string, number | string | boolean> {
  const out: Record<string, number | string | boolean> = {};
  const prefix = `${method}.`;
  for (const [k, v] of Object.entries(forecastValues)) {
    if (k.startsWith(prefix) && v !== null && v !== undefined) out[k.slice(prefix.length)] = v as number | string | boolean;
  }
  return out;
}

/** The defaults of one type as a plain object. */
export function defaultValues(type: string, catalogue: Catalogue = PARAMETER_DEFAULTS): Record<string, unknown> {
  return Object.fromEntries(Object.entries(catalogue[type] ?? {}).map(([k, d]) => [k, structuredClone(d.default)]));
}
