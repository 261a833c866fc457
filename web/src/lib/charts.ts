/** The Vega-Lite specs of the inventory, versions and assistant pages: API answers in, specs out. */

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

export interface HeatCell {
  segment_name: string;
  site_xuid: string;
  fill_rate: number | null;
  target_service: number | null;
  sku_sites: number;
  below_target: number;
}

export function fillRateHeatmapSpec(cells: readonly HeatCell[]): Record<string, unknown> {
  return {
    $schema: SCHEMA,
    description: 'Expected fill rate by segment and site',
    width: 'container',
    data: { values: cells.filter((c) => c.fill_rate !== null) },
    mark: { type: 'rect', stroke: 'white' },
    encoding: {
      x: { field: 'site_xuid', type: 'nominal', title: 'site', sort: 'ascending' },
      y: { field: 'segment_name', type: 'nominal', title: 'segment' },
      color: { field: 'fill_rate', type: 'quantitative', title: 'fill rate', scale: { domain: [0.5, 1], scheme: 'redyellowgreen', clamp: true }, format: '.0%' },
      tooltip: [
        { field: 'segment_name', type: 'nominal', title: 'segment' },
        { field: 'site_xuid', type: 'nominal', title: 'site' },
        { field: 'fill_rate', type: 'quantitative', format: '.1%', title: 'fill rate' },
        { field: 'target_service', type: 'quantitative', format: '.1%', title: 'target' },
        { field: 'sku_sites', type: 'quantitative', title: 'SKU-sites' },
        { field: 'below_target', type: 'quantitative', title: 'below target' },
      ],
    },
  };
}

export interface GroupCurve {
  item_xuid: string;
  investment: number;
  curve: ReadonlyArray<{ investment: number; fill_rate: number }>;
}

/**
 * The exchange curve of a MEIO scenario: service against investment. The API gives one curve per item (level=group);
 * the items with the largest investment are drawn, each curve a line, the chosen point of each item a dot.
 */
export function exchangeCurveRows(groups: readonly GroupCurve[], limit = 8): Array<{ item: string; investment: number; fill_rate: number }> {
  return [...groups]
    .filter((g) => g.curve.length > 0)
    .sort((a, b) => b.investment - a.investment || a.item_xuid.localeCompare(b.item_xuid))
    .slice(0, limit)
    .flatMap((g) => g.curve.map((p) => ({ item: g.item_xuid, investment: p.investment, fill_rate: p.fill_rate })));
}

export function exchangeCurveSpec(groups: readonly GroupCurve[], limit = 8): Record<string, unknown> {
  return {
    $schema: SCHEMA,
    description: 'Exchange curve: expected fill rate against stock investment, per item',
    width: 'container',
    height: 300,
    data: { values: exchangeCurveRows(groups, limit) },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'investment', type: 'quantitative', title: 'investment' },
      y: { field: 'fill_rate', type: 'quantitative', title: 'expected fill rate', axis: { format: '.0%' }, scale: { zero: false } },
      color: { field: 'item', type: 'nominal', title: 'item' },
      tooltip: [
        { field: 'item', type: 'nominal' },
        { field: 'investment', type: 'quantitative', format: ',.0f' },
        { field: 'fill_rate', type: 'quantitative', format: '.1%', title: 'fill rate' },
      ],
    },
  };
}

export interface KpiRow {
  metric: string;
  base: number | null;
  target: number | null;
  delta: number | null;
}

/** The KPI comparison of two versions as grouped bars, base beside target for each metric. */
export function compareKpiSpec(rows: readonly KpiRow[], baseLabel: string, targetLabel: string): Record<string, unknown> {
  const values = rows.flatMap((r) => [
    ...(r.base !== null ? [{ metric: r.metric, version: baseLabel, value: r.base }] : []),
    ...(r.target !== null ? [{ metric: r.metric, version: targetLabel, value: r.target }] : []),
  ]);
  return {
    $schema: SCHEMA,
    description: `KPIs of ${baseLabel} against ${targetLabel}`,
    data: { values },
    facet: { field: 'metric', type: 'nominal', title: null },
    columns: 3,
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 160,
      height: 120,
      mark: 'bar',
      encoding: {
        x: { field: 'version', type: 'nominal', title: null, sort: [baseLabel, targetLabel] },
        y: { field: 'value', type: 'quantitative', title: null },
        color: { field: 'version', type: 'nominal', sort: [baseLabel, targetLabel], legend: { title: 'version' } },
        tooltip: [{ field: 'metric', type: 'nominal' }, { field: 'version', type: 'nominal' }, { field: 'value', type: 'quantitative', format: ',.3~f' }],
      },
    },
  };
}

export interface AssistantChart {
  type: 'none' | 'kpi' | 'line' | 'bar' | 'bar_stacked' | 'table';
  x_col: string | null;
  y_cols: string[];
  title: string;
}

/** The assistant's chart hint drawn as Vega-Lite; null when it asked for none, a table or a single figure. */
export function assistantChartSpec(chart: AssistantChart, rows: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> | null {
  if (!['line', 'bar', 'bar_stacked'].includes(chart.type) || !chart.x_col || chart.y_cols.length === 0 || rows.length === 0) return null;
  const x = chart.x_col;
  const values = rows.flatMap((r) => chart.y_cols.map((y) => ({ x: r[x], measure: y, value: typeof r[y] === 'number' ? r[y] : Number(r[y]) })))
    .filter((v) => Number.isFinite(v.value));
  if (!values.length) return null;
  const temporal = values.every((v) => typeof v.x === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v.x));
  return {
    $schema: SCHEMA,
    description: chart.title,
    title: chart.title,
    width: 'container',
    height: 260,
    data: { values },
    mark: chart.type === 'line' ? { type: 'line', point: true } : 'bar',
    encoding: {
      x: { field: 'x', type: temporal ? 'temporal' : 'nominal', title: x, ...(temporal ? {} : { sort: null }) },
      y: { field: 'value', type: 'quantitative', title: chart.y_cols.length === 1 ? chart.y_cols[0] : 'value', ...(chart.type === 'bar_stacked' ? { stack: 'zero' } : { stack: null }) },
      ...(chart.y_cols.length > 1 || chart.type === 'bar_stacked' ? { color: { field: 'measure', type: 'nominal', title: null } } : {}),
      ...(chart.type === 'bar' && chart.y_cols.length > 1 ? { xOffset: { field: 'measure' } } : {}),
      tooltip: [{ field: 'x', title: x }, { field: 'measure', type: 'nominal' }, { field: 'value', type: 'quantitative', format: ',.3~f' }],
    },
  };
}
