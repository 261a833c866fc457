/**
 * The alert ontology: the 32 default rules (docs/ALERTS.md). Each rule names a metric computed from one series'
 * facts (facts.ts) and a comparison against a threshold the tenant may change; the metric function lives here so the
 * evaluator and the documentation read the same definition, and the database only holds the tunable part.
 */
import type { SeriesFacts } from './facts';

export type AlertDomain = 'forecast' | 'inventory' | 'supply';
export type Comparison = 'gt' | 'gte' | 'lt' | 'lte' | 'abs_gt';
export type Severity = 'low' | 'medium' | 'high' | 'critical';

export const DOMAINS: readonly AlertDomain[] = ['forecast', 'inventory', 'supply'];
export const COMPARISONS: readonly Comparison[] = ['gt', 'gte', 'lt', 'lte', 'abs_gt'];
export const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];

/** The part of a rule a tenant stores and edits (table alert_rules). */
export interface AlertRule {
  metric_name: string;
  domain: AlertDomain;
  description: string;
  formula: string;
  comparison: Comparison;
  threshold: number;
  severity: Severity;
  enabled: boolean;
}

export interface RuleDefinition extends AlertRule {
  /** the metric's value for one series; null when its inputs are missing, and then the rule stays quiet */
  value: (f: SeriesFacts) => number | null;
  /** default synonyms the offline query parser understands */
  synonyms: readonly string[];
}

const ratio = (a: number | null, b: number | null): number | null => (a === null || b === null || b === 0 ? null : a / b);
const diff = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a - b);
/** A changed label: 1 when both are known and differ, 0 when equal, null when either is unknown. */
const changed = (a: string | null, b: string | null): number | null => (a === null || b === null ? null : a === b ? 0 : 1);
/** Weeks a stock covers at a weekly rate; a stock that nothing draws on covers "forever", capped so JSON can hold it. */
export const COVER_CAP_WEEKS = 9999;
const cover = (stock: number | null, weekly: number | null): number | null => {
  if (stock === null || weekly === null) return null;
  if (stock <= 0) return 0;
  return weekly <= 0 ? COVER_CAP_WEEKS : Math.min(COVER_CAP_WEEKS, stock / weekly);
};

const rule = (
  metric_name: string, domain: AlertDomain, comparison: Comparison, threshold: number, severity: Severity,
  description: string, formula: string, value: (f: SeriesFacts) => number | null, synonyms: readonly string[] = [],
): RuleDefinition => ({ metric_name, domain, description, formula, comparison, threshold, severity, enabled: true, value, synonyms });

export const DEFAULT_RULES: readonly RuleDefinition[] = [
  // forecast (14)
  rule('forecast_bias', 'forecast', 'abs_gt', 0.2, 'high', 'The best method systematically over- or under-forecasts',
    'bias ÷ mean_demand (backtest mean error of the best method relative to mean weekly demand)', (f) => ratio(f.bias, f.mean_demand), ['bias']),
  rule('tracking_signal', 'forecast', 'abs_gt', 4, 'high', 'Cumulative forecast error out of control',
    'bias × backtest_points ÷ mae (cumulative error over mean absolute deviation)', (f) => (f.bias === null || f.points === null || !f.mae ? null : (f.bias * f.points) / f.mae), ['tracking signal', 'ts']),
  rule('smape_high', 'forecast', 'gt', 50, 'medium', 'The best method is inaccurate',
    'smape of the best method (backtest, 0…200)', (f) => f.smape, ['smape', 'accuracy', 'error']),
  rule('smape_drift', 'forecast', 'gt', 10, 'medium', 'Accuracy got worse in the most recent backtest window',
    'smape_recent − smape in points of 0…200 (latest backtest window against all windows of the best method)', (f) => diff(f.smape_recent, f.smape), ['smape drift', 'accuracy drift']),
  rule('mase_above_one', 'forecast', 'gt', 1, 'medium', 'The best method does worse than the naive forecast',
    'mase of the best method', (f) => f.mase, ['mase']),
  rule('interval_coverage_low', 'forecast', 'lt', 0.7, 'low', 'Prediction intervals too narrow',
    'coverage_90 of the best method (share of actuals inside the 90 % interval)', (f) => f.coverage_90, ['coverage', 'interval coverage']),
  rule('best_method_change', 'forecast', 'gt', 0, 'low', 'The tournament picked another method than at the last generation',
    '1 if best_method ≠ previous_best_method, else 0', (f) => changed(f.best_method, f.previous_best_method), ['method change', 'best method change']),
  rule('outlier_burst', 'forecast', 'gte', 3, 'medium', 'Many outliers in the last 13 weeks of history',
    'count of flagged outlier weeks in the last 13 weeks of history', (f) => f.recent_outliers, ['outliers', 'outlier burst']),
  rule('demand_drop', 'forecast', 'lt', -0.5, 'high', 'Recent demand fell well below its long-run level',
    'recent_mean ÷ mean_demand − 1 (last 13 weeks against the whole history)', (f) => { const r = ratio(f.recent_mean, f.mean_demand); return r === null ? null : r - 1; }, ['demand drop', 'drop']),
  rule('demand_spike', 'forecast', 'gt', 1, 'high', 'Recent demand rose well above its long-run level',
    'recent_mean ÷ mean_demand − 1 (last 13 weeks against the whole history)', (f) => { const r = ratio(f.recent_mean, f.mean_demand); return r === null ? null : r - 1; }, ['demand spike', 'spike']),
  rule('intermittency_change', 'forecast', 'gt', 0, 'low', 'The demand class changed since the last generation',
    '1 if demand_class ≠ previous_demand_class, else 0', (f) => changed(f.demand_class, f.previous_demand_class), ['intermittency', 'demand class change', 'class change']),
  rule('npi_without_history', 'forecast', 'lt', 8, 'medium', 'A new product forecast from too little history',
    'n_observations (weeks of history) of a series with a forecast', (f) => (f.has_forecast ? f.n_observations : null), ['npi', 'new product', 'no history']),
  rule('forecast_jump', 'forecast', 'abs_gt', 0.5, 'medium', 'The next 13 weeks of forecast break away from recent demand',
    'forecast_mean ÷ recent_mean − 1 (mean of the first 13 forecast weeks against the last 13 weeks of history)', (f) => { const r = ratio(f.forecast_mean, f.recent_mean); return r === null ? null : r - 1; }, ['forecast jump', 'forecast break']),
  rule('missing_forecast', 'forecast', 'gt', 0, 'high', 'A series with history but no best-method forecast',
    '1 if n_observations > 0 and the series has no best-method forecast, else 0', (f) => (f.n_observations === null ? null : f.n_observations > 0 && !f.has_forecast ? 1 : 0), ['no forecast', 'missing forecast']),
  // inventory (10)
  rule('fill_rate_low', 'inventory', 'lt', 0.9, 'high', 'Expected fill rate of the inventory policy is low',
    'expected_fill_rate of the MEIO policy (0…1)', (f) => f.expected_fill_rate, ['fill rate', 'service level', 'fillrate']),
  rule('fill_rate_below_target', 'inventory', 'gt', 0.005, 'high', 'The policy misses its service target',
    'target_service − expected_fill_rate', (f) => diff(f.target_service, f.expected_fill_rate), ['fill rate gap', 'below target', 'target miss']),
  rule('safety_stock_above_policy', 'inventory', 'gt', 1.2, 'medium', 'The supply plan holds more safety stock than the inventory policy asks',
    'planned_safety_stock ÷ policy_safety_stock (supply run week 0 against MEIO)', (f) => ratio(f.planned_safety_stock, f.policy_safety_stock), ['safety stock above', 'too much safety stock']),
  rule('safety_stock_below_policy', 'inventory', 'lt', 0.8, 'high', 'The supply plan holds less safety stock than the inventory policy asks',
    'planned_safety_stock ÷ policy_safety_stock (supply run week 0 against MEIO)', (f) => ratio(f.planned_safety_stock, f.policy_safety_stock), ['safety stock below', 'too little safety stock', 'safety stock']),
  rule('excess_stock', 'inventory', 'gt', 8, 'medium', 'Stock above the policy maximum, in weeks of demand',
    '(on_hand − (reorder_point + order_qty)) ÷ weekly_mean', (f) => (f.on_hand === null || f.reorder_point === null || f.order_qty === null || !f.weekly_mean ? null : (f.on_hand - (f.reorder_point + f.order_qty)) / f.weekly_mean), ['excess', 'overstock']),
  rule('obsolescence_risk', 'inventory', 'gt', 52, 'high', 'Stock that recent demand will not use up within a year',
    `on_hand ÷ recent_mean in weeks of cover (${COVER_CAP_WEEKS} when nothing sold in the last 13 weeks)`, (f) => cover(f.on_hand, f.recent_mean), ['obsolescence', 'obsolete', 'dead stock']),
  rule('budget_breach', 'inventory', 'gt', 1, 'critical', "The item's policy investment exceeds the budget share the scenario gave it",
    'item_investment ÷ budget_cap (MEIO group result)', (f) => ratio(f.item_investment, f.budget_cap), ['budget', 'budget breach']),
  rule('below_reorder_point', 'inventory', 'lt', 1, 'medium', 'On hand below the reorder point',
    'on_hand ÷ reorder_point', (f) => ratio(f.on_hand, f.reorder_point), ['reorder point', 'rop']),
  rule('backorders_high', 'inventory', 'gt', 1, 'medium', 'The policy expects backorders',
    'expected_backorders of the MEIO policy (units)', (f) => f.expected_backorders, ['backorders', 'backlog']),
  rule('long_lead_time', 'inventory', 'gt', 12, 'low', 'A long replenishment lead time drives the stock',
    'lead_time_weeks of the MEIO policy', (f) => f.lead_time_weeks, ['lead time']),
  // supply (8)
  rule('projected_shortage', 'supply', 'gt', 0, 'critical', 'The supply plan projects unmet demand',
    'shortage_qty of the supply plan (units over the horizon)', (f) => f.shortage_qty, ['shortage', 'stockout']),
  rule('late_firm_order', 'supply', 'gt', 0, 'high', 'Firm or planned supply arrives after it is needed',
    "count of the run's late_order exceptions", (f) => f.late_orders, ['late order', 'late']),
  rule('capacity_overload', 'supply', 'gt', 0, 'high', "Orders cut or moved by a site's capacity",
    "count of the run's orders with status constrained", (f) => f.constrained_orders, ['capacity', 'overload']),
  rule('expedite_needed', 'supply', 'gt', 0, 'medium', 'Orders the engine had to expedite',
    "count of the run's orders with status expedited", (f) => f.expedited_orders, ['expedite']),
  rule('unpegged_supply', 'supply', 'gt', 0.5, 'low', 'Planned supply no demand is pegged to',
    'Σ order qty − Σ pegged qty over the SKU-site\'s orders', (f) => diff(f.order_qty_total, f.pegged_qty_total), ['unpegged', 'pegging']),
  rule('below_safety_stock', 'supply', 'gt', 0, 'medium', 'Projected stock dips below safety stock',
    "count of the run's below_safety_stock exceptions", (f) => f.below_safety_stock_exceptions, ['below safety stock']),
  rule('supply_excess', 'supply', 'gt', 0, 'low', 'Projected stock far above need',
    "count of the run's excess exceptions", (f) => f.excess_exceptions, ['supply excess']),
  rule('no_source', 'supply', 'gt', 0, 'critical', 'Demand with no route to supply it',
    "count of the run's no_source exceptions", (f) => f.no_source_exceptions, ['no source', 'unsourced']),
];

export const RULES_BY_METRIC: ReadonlyMap<string, RuleDefinition> = new Map(DEFAULT_RULES.map((r) => [r.metric_name, r]));

/** The stored part of the defaults, for seeding. */
export const defaultRuleRows = (): AlertRule[] =>
  DEFAULT_RULES.map(({ metric_name, domain, description, formula, comparison, threshold, severity, enabled }) => ({ metric_name, domain, description, formula, comparison, threshold, severity, enabled }));

/** The default synonyms, term → metric; terms are lower case. */
export const defaultSynonyms = (): Array<{ term: string; canonical_metric: string }> =>
  DEFAULT_RULES.flatMap((r) => r.synonyms.map((term) => ({ term: term.toLowerCase(), canonical_metric: r.metric_name })));
