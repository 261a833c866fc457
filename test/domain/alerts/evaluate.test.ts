import { evaluateAlerts, badness } from '../../../domain/alerts/evaluate';
import { emptyFacts, type SeriesFacts } from '../../../domain/alerts/facts';
import { DEFAULT_RULES, defaultRuleRows, defaultSynonyms, COVER_CAP_WEEKS } from '../../../domain/alerts/ontology';

/** A healthy series: every fact known, no default rule trips. */
const healthy = (): SeriesFacts => ({
  ...emptyFacts(1, 2),
  n_observations: 104, mean_demand: 10, recent_mean: 10, recent_outliers: 0, demand_class: 'smooth', previous_demand_class: 'smooth',
  has_forecast: true, best_method: 'ets', previous_best_method: 'ets', forecast_mean: 10,
  bias: 0.5, mae: 2, points: 8, smape: 20, smape_recent: 22, mase: 0.8, coverage_90: 0.9,
  expected_fill_rate: 0.96, target_service: 0.95, policy_safety_stock: 10, planned_safety_stock: 10, on_hand: 40, reorder_point: 30,
  order_qty: 20, weekly_mean: 10, item_investment: 900, budget_cap: 1000, expected_backorders: 0.2, lead_time_weeks: 2,
  shortage_qty: 0, late_orders: 0, constrained_orders: 0, expedited_orders: 0, order_qty_total: 100, pegged_qty_total: 100,
  below_safety_stock_exceptions: 0, excess_exceptions: 0, no_source_exceptions: 0,
});

/** Per rule: facts built to trip it, and facts built to sit just on the quiet side of its threshold. */
const CASES: Record<string, { trip: Partial<SeriesFacts>; quiet: Partial<SeriesFacts> }> = {
  forecast_bias: { trip: { bias: -3 }, quiet: { bias: 1.9 } },
  tracking_signal: { trip: { bias: 1.5, mae: 2, points: 8 }, quiet: { bias: 1, mae: 2, points: 8 } },
  smape_high: { trip: { smape: 70, smape_recent: 70 }, quiet: { smape: 50, smape_recent: 50 } },
  smape_drift: { trip: { smape: 20, smape_recent: 35 }, quiet: { smape: 20, smape_recent: 29 } },
  mase_above_one: { trip: { mase: 1.3 }, quiet: { mase: 1 } },
  interval_coverage_low: { trip: { coverage_90: 0.5 }, quiet: { coverage_90: 0.7 } },
  best_method_change: { trip: { previous_best_method: 'croston' }, quiet: { previous_best_method: 'ets' } },
  outlier_burst: { trip: { recent_outliers: 3 }, quiet: { recent_outliers: 2 } },
  demand_drop: { trip: { recent_mean: 4, forecast_mean: 4 }, quiet: { recent_mean: 5, forecast_mean: 5 } },
  demand_spike: { trip: { recent_mean: 25, forecast_mean: 25, on_hand: 300, order_qty_total: 100 }, quiet: { recent_mean: 20, forecast_mean: 20 } },
  intermittency_change: { trip: { demand_class: 'lumpy' }, quiet: { demand_class: 'smooth' } },
  npi_without_history: { trip: { n_observations: 5 }, quiet: { n_observations: 8 } },
  forecast_jump: { trip: { forecast_mean: 16 }, quiet: { forecast_mean: 15 } },
  missing_forecast: { trip: { has_forecast: false }, quiet: { has_forecast: true } },
  fill_rate_low: { trip: { expected_fill_rate: 0.85, target_service: 0.85 }, quiet: { expected_fill_rate: 0.9, target_service: 0.9 } },
  fill_rate_below_target: { trip: { expected_fill_rate: 0.93 }, quiet: { expected_fill_rate: 0.946 } },
  safety_stock_above_policy: { trip: { planned_safety_stock: 13 }, quiet: { planned_safety_stock: 12 } },
  safety_stock_below_policy: { trip: { planned_safety_stock: 7 }, quiet: { planned_safety_stock: 8 } },
  excess_stock: { trip: { on_hand: 140 }, quiet: { on_hand: 130 } },
  obsolescence_risk: { trip: { recent_mean: 0, mean_demand: 0 }, quiet: { on_hand: 520 } },
  budget_breach: { trip: { item_investment: 1200 }, quiet: { item_investment: 1000 } },
  below_reorder_point: { trip: { on_hand: 25 }, quiet: { on_hand: 30 } },
  backorders_high: { trip: { expected_backorders: 3 }, quiet: { expected_backorders: 1 } },
  long_lead_time: { trip: { lead_time_weeks: 16 }, quiet: { lead_time_weeks: 12 } },
  projected_shortage: { trip: { shortage_qty: 4 }, quiet: { shortage_qty: 0 } },
  late_firm_order: { trip: { late_orders: 1 }, quiet: { late_orders: 0 } },
  capacity_overload: { trip: { constrained_orders: 2 }, quiet: { constrained_orders: 0 } },
  expedite_needed: { trip: { expedited_orders: 1 }, quiet: { expedited_orders: 0 } },
  unpegged_supply: { trip: { pegged_qty_total: 60 }, quiet: { pegged_qty_total: 99.5 } },
  below_safety_stock: { trip: { below_safety_stock_exceptions: 1 }, quiet: { below_safety_stock_exceptions: 0 } },
  supply_excess: { trip: { excess_exceptions: 2 }, quiet: { excess_exceptions: 0 } },
  no_source: { trip: { no_source_exceptions: 1 }, quiet: { no_source_exceptions: 0 } },
};

const rules = defaultRuleRows();
const fired = (f: SeriesFacts) => evaluateAlerts(rules, [f]).map((a) => a.metric_name);

test('the catalogue holds 32 rules, 14 forecast, 10 inventory, 8 supply, with unique names and synonyms', () => {
  expect(DEFAULT_RULES).toHaveLength(32);
  expect(new Set(DEFAULT_RULES.map((r) => r.metric_name)).size).toBe(32);
  expect(DEFAULT_RULES.filter((r) => r.domain === 'forecast')).toHaveLength(14);
  expect(DEFAULT_RULES.filter((r) => r.domain === 'inventory')).toHaveLength(10);
  expect(DEFAULT_RULES.filter((r) => r.domain === 'supply')).toHaveLength(8);
  const terms = defaultSynonyms().map((s) => s.term);
  expect(new Set(terms).size).toBe(terms.length);
  expect(Object.keys(CASES).sort()).toEqual(DEFAULT_RULES.map((r) => r.metric_name).sort());
});

test('a healthy series trips no rule', () => {
  expect(fired(healthy())).toEqual([]);
});

describe.each(DEFAULT_RULES.map((r) => r.metric_name))('%s', (metric) => {
  test('fires on facts built to trip it', () => {
    const alerts = evaluateAlerts(rules, [{ ...healthy(), ...CASES[metric].trip }]);
    const a = alerts.find((x) => x.metric_name === metric);
    expect(a).toBeDefined();
    expect(a!.message).toContain(metric);
    expect(a!.threshold).toBe(DEFAULT_RULES.find((r) => r.metric_name === metric)!.threshold);
  });
  test('stays quiet on facts built not to', () => {
    expect(fired({ ...healthy(), ...CASES[metric].quiet })).not.toContain(metric);
  });
  test('stays quiet when its facts are unknown', () => {
    expect(fired(emptyFacts(1, 2))).not.toContain(metric);
  });
});

test('disabled rules and rules outside the catalogue never fire; thresholds come from the stored rule', () => {
  const f = { ...healthy(), mase: 1.3 };
  expect(evaluateAlerts(rules.map((r) => ({ ...r, enabled: r.metric_name !== 'mase_above_one' })), [f])).toEqual([]);
  expect(evaluateAlerts([{ ...rules[0], metric_name: 'made_up' }], [f])).toEqual([]);
  expect(evaluateAlerts(rules.map((r) => (r.metric_name === 'mase_above_one' ? { ...r, threshold: 1.5 } : r)), [f])).toEqual([]);
});

test('obsolescence cover is capped so the value stays finite', () => {
  const a = evaluateAlerts(rules, [{ ...healthy(), recent_mean: 0, mean_demand: 0 }]).find((x) => x.metric_name === 'obsolescence_risk')!;
  expect(a.value).toBe(COVER_CAP_WEEKS);
});

test('badness orders values so that worse is larger under each comparison', () => {
  expect(badness(0.8, 'lt')).toBeGreaterThan(badness(0.85, 'lt'));
  expect(badness(3, 'gt')).toBeGreaterThan(badness(2, 'gt'));
  expect(badness(-0.5, 'abs_gt')).toBeGreaterThan(badness(0.3, 'abs_gt'));
});
