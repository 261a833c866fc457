/**
 * What the model is told about the planning data beyond the catalogue: the concepts of the domain and a short line per
 * table (POST /api/assistant/index stores them with the columns read from the database).
 */

export const CONCEPTS: ReadonlyArray<{ name: string; description: string; keywords: string[] }> = [
  { name: 'series', description: "one item at one site: (item_id, site_id); its unique_id is item_id || '_' || site_id. items.xuid and sites.xuid are the customer's codes.", keywords: ['series', 'sku', 'item', 'site', 'unique_id'] },
  { name: 'weeks', description: 'weeks start on Monday (date). Weekly vectors are float8[] arrays; element 1 is the first week (forecast_results.start_week, or the supply run planning_date). Expand with unnest(arr) WITH ORDINALITY.', keywords: ['week', 'weeks', 'date', 'horizon', 'next'] },
  { name: 'pipeline', description: 'results are scoped by pipeline_id (scenario_pipelines.id) and often scenario_id; filter by the pipeline asked about.', keywords: ['pipeline', 'scenario'] },
  { name: 'shortage', description: 'supply_plans (one row per run and series) has shortage[] (units short per week) and projected[] stock; use the latest completed supply_runs row of the pipeline (status completed). A series runs short in week w when shortage[w] > 0.', keywords: ['short', 'shortage', 'stockout', 'run out', 'supply', 'projected', 'stock'] },
  { name: 'forecast', description: 'forecast_results holds yhat[] per series and method; series_best_method.best_method names the method to use.', keywords: ['forecast', 'prediction', 'demand'] },
  { name: 'demand', description: 'demand_history: actual demand qty per series and week ds.', keywords: ['demand', 'sales', 'history', 'actual'] },
  { name: 'classes', description: 'series_characteristics.demand_class is smooth, erratic, intermittent or lumpy; abc_results.class_label is the ABC class.', keywords: ['class', 'abc', 'lumpy', 'intermittent', 'smooth', 'erratic'] },
  { name: 'exceptions', description: "exception_log.exception_types text[] of 'forecast', 'io', 'supply' per pipeline and series, status open/resolved/snoozed; supply_exceptions.type per supply run.", keywords: ['exception', 'issue', 'problem', 'alert'] },
  { name: 'inventory', description: 'meio_results: safety_stock, reorder_point, order_up_to, investment per pipeline, scenario and series.', keywords: ['safety', 'stock', 'inventory', 'reorder', 'investment', 'meio'] },
];

export const TABLE_NOTES: Readonly<Record<string, string>> = {
  items: 'items (xuid = item code)',
  sites: 'sites (xuid = site code)',
  series: 'the item-site pairs planned',
  demand_history: 'weekly demand per series',
  series_characteristics: 'demand class and statistics per pipeline and series',
  forecast_results: 'forecast vectors per pipeline, series and method',
  series_best_method: 'the chosen forecast method per pipeline and series',
  supply_runs: 'supply planning runs (pipeline, scenario, planning_date, status)',
  supply_plans: 'weekly projected stock, shortage and receipts per run and series',
  supply_orders: 'planned orders per run',
  supply_exceptions: 'supply exceptions per run',
  exception_log: 'work queue of exceptions per pipeline and series',
  meio_results: 'inventory policy per pipeline, scenario and series',
  abc_results: 'ABC class per configuration and series',
  alerts: 'alerts per pipeline, series and metric',
  firm_orders: 'committed supply orders',
  scenario_pipelines: 'the pipelines',
};
