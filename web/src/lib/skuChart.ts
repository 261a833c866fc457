/**
 * The SKU-site chart: the API's own series chart (GET /api/series/{uid}/vega-spec: history, corrected history, the
 * chosen forecast with its interval band) with what a planner needs beside it on the same time axis: the outliers
 * marked, backtest forecasts on demand, the MEIO targets as rules, the projected stock, and planned and firm orders
 * as bars. Pure: the API's answers in, a Vega-Lite spec out.
 */
export interface ApiVegaRow {
  ds: string;
  series: string;
  value: number | null;
  lower: number | null;
  upper: number | null;
}

export interface SkuChartInput {
  /** data.values of the API's /vega-spec */
  rows: readonly ApiVegaRow[];
  outliers: ReadonlyArray<{ ds: string; y: number; corrected_y: number }>;
  targets: { reorder_point: number | null; safety_stock: number | null; order_up_to: number | null } | null;
  inventory: ReadonlyArray<{ week_start: string; projected: number }>;
  orders: ReadonlyArray<{ arrival_date: string; qty: number; is_firm: boolean }>;
  backtest?: ReadonlyArray<{ ds: string; method: string; value: number }>;
  width?: number;
  height?: number;
}

export interface ChartRow {
  ds: string;
  layer: 'demand' | 'outlier' | 'stock' | 'order' | 'backtest';
  series: string;
  value: number | null;
  lower: number | null;
  upper: number | null;
}

export const TARGET_LABELS = { safety_stock: 'safety stock', reorder_point: 'reorder point', order_up_to: 'order-up-to' } as const;

/** Every row the chart draws, one long table: the test of a page's chart compares its marks with these. */
export function skuChartRows(input: SkuChartInput): ChartRow[] {
  const rows: ChartRow[] = input.rows.map((r) => ({ ds: r.ds.slice(0, 10), layer: 'demand', series: r.series, value: r.value, lower: r.lower, upper: r.upper }));
  for (const o of input.outliers) rows.push({ ds: o.ds.slice(0, 10), layer: 'outlier', series: 'outlier', value: o.y, lower: null, upper: null });
  for (const b of input.backtest ?? []) rows.push({ ds: b.ds.slice(0, 10), layer: 'backtest', series: `backtest: ${b.method}`, value: b.value, lower: null, upper: null });
  for (const w of input.inventory) rows.push({ ds: w.week_start.slice(0, 10), layer: 'stock', series: 'projected stock', value: w.projected, lower: null, upper: null });
  const orderTotals = new Map<string, number>();
  for (const o of input.orders) {
    const key = `${o.arrival_date.slice(0, 10)}|${o.is_firm ? 'firm orders' : 'planned orders'}`;
    orderTotals.set(key, (orderTotals.get(key) ?? 0) + o.qty);
  }
  for (const [key, qty] of orderTotals) {
    const [ds, series] = key.split('|');
    rows.push({ ds, layer: 'order', series, value: qty, lower: null, upper: null });
  }
  return rows;
}

export function targetRules(targets: SkuChartInput['targets']): Array<{ target: string; value: number }> {
  if (!targets) return [];
  return (Object.keys(TARGET_LABELS) as Array<keyof typeof TARGET_LABELS>)
    .filter((k) => typeof targets[k] === 'number' && Number.isFinite(targets[k]))
    .map((k) => ({ target: TARGET_LABELS[k], value: targets[k] as number }));
}

const tooltip = (title: string) => [
  { field: 'ds', type: 'temporal', title: 'week' },
  { field: 'series', type: 'nominal' },
  { field: 'value', type: 'quantitative', format: '.1f', title },
];

export function skuChartSpec(input: SkuChartInput): Record<string, unknown> {
  const rows = skuChartRows(input);
  const rules = targetRules(input.targets);
  const x = { field: 'ds', type: 'temporal', title: 'week' };
  const only = (layer: ChartRow['layer']) => ({ filter: `datum.layer === '${layer}'` });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    description: 'Demand history with outliers, forecast with its interval, stock targets, projected stock and orders of one SKU-site',
    width: input.width ?? 'container',
    height: input.height ?? 320,
    data: { values: rows },
    // each layer names its own x: the target rules carry no week, they span the whole chart
    layer: [
      {
        transform: [only('demand'), { filter: 'isValid(datum.lower) && isValid(datum.upper)' }],
        mark: { type: 'area', opacity: 0.2, color: '#1f77b4' },
        encoding: { x, y: { field: 'lower', type: 'quantitative', title: 'units' }, y2: { field: 'upper' } },
        name: 'interval',
      },
      {
        transform: [only('order')],
        mark: { type: 'bar', width: 4, opacity: 0.7 },
        encoding: {
          x,
          y: { field: 'value', type: 'quantitative' },
          color: { field: 'series', type: 'nominal', title: 'series' },
          tooltip: tooltip('quantity'),
        },
        name: 'orders',
      },
      {
        transform: [{ filter: "datum.layer === 'demand' || datum.layer === 'stock' || datum.layer === 'backtest'" }, { filter: 'isValid(datum.value)' }],
        mark: { type: 'line', strokeWidth: 1.5 },
        encoding: {
          x,
          y: { field: 'value', type: 'quantitative' },
          color: { field: 'series', type: 'nominal', title: 'series' },
          detail: { field: 'series' },
          tooltip: tooltip('units'),
        },
        name: 'lines',
      },
      {
        transform: [only('outlier')],
        mark: { type: 'point', shape: 'diamond', size: 70, filled: true, color: '#d62728' },
        encoding: { x, y: { field: 'value', type: 'quantitative' }, tooltip: tooltip('outlier demand') },
        name: 'outliers',
      },
      ...(rules.length
        ? [{
          data: { values: rules },
          mark: { type: 'rule', strokeDash: [6, 3] },
          encoding: {
            y: { field: 'value', type: 'quantitative' },
            color: { field: 'target', type: 'nominal', title: 'series' },
            tooltip: [{ field: 'target', type: 'nominal' }, { field: 'value', type: 'quantitative', format: '.1f' }],
          },
          name: 'targets',
        }]
        : []),
    ],
  };
}
