/**
 * What the rules know of one series (one SKU-site) of one pipeline. Every field may be null: a series the MEIO or
 * supply step has not reached simply has no inventory or supply facts, and the rules over them stay quiet.
 */
export interface SeriesFacts {
  item_id: number;
  site_id: number;
  // history and forecast
  n_observations: number | null;
  mean_demand: number | null;
  recent_mean: number | null;
  recent_outliers: number | null;
  demand_class: string | null;
  previous_demand_class: string | null;
  has_forecast: boolean;
  best_method: string | null;
  previous_best_method: string | null;
  forecast_mean: number | null;
  bias: number | null;
  mae: number | null;
  points: number | null;
  smape: number | null;
  smape_recent: number | null;
  mase: number | null;
  coverage_90: number | null;
  // inventory (MEIO of the default MEIO scenario)
  expected_fill_rate: number | null;
  target_service: number | null;
  policy_safety_stock: number | null;
  planned_safety_stock: number | null;
  on_hand: number | null;
  reorder_point: number | null;
  order_qty: number | null;
  weekly_mean: number | null;
  item_investment: number | null;
  budget_cap: number | null;
  expected_backorders: number | null;
  lead_time_weeks: number | null;
  // supply (newest completed run of the default supply scenario)
  shortage_qty: number | null;
  late_orders: number | null;
  constrained_orders: number | null;
  expedited_orders: number | null;
  order_qty_total: number | null;
  pegged_qty_total: number | null;
  below_safety_stock_exceptions: number | null;
  excess_exceptions: number | null;
  no_source_exceptions: number | null;
}

/** A series about which nothing is known yet: the loader starts here and fills what it finds. */
export const emptyFacts = (item_id: number, site_id: number): SeriesFacts => ({
  item_id, site_id,
  n_observations: null, mean_demand: null, recent_mean: null, recent_outliers: null, demand_class: null, previous_demand_class: null,
  has_forecast: false, best_method: null, previous_best_method: null, forecast_mean: null,
  bias: null, mae: null, points: null, smape: null, smape_recent: null, mase: null, coverage_90: null,
  expected_fill_rate: null, target_service: null, policy_safety_stock: null, planned_safety_stock: null, on_hand: null, reorder_point: null,
  order_qty: null, weekly_mean: null, item_investment: null, budget_cap: null, expected_backorders: null, lead_time_weeks: null,
  shortage_qty: null, late_orders: null, constrained_orders: null, expedited_orders: null, order_qty_total: null, pegged_qty_total: null,
  below_safety_stock_exceptions: null, excess_exceptions: null, no_source_exceptions: null,
});
