/**
 * A Vega-Lite v5 chart of one series: history, corrected history, forecasts and their prediction-interval bands, with
 * the data inline so the spec renders as is (vega-embed, the Vega editor, any Vega-Lite v5 renderer) with no further
 * request. Pure: plain rows in, a JSON object out.
 *
 * Data rows are long format: {ds, series, value, lower, upper}; `series` is 'history', 'corrected history' or
 * 'forecast: <method>'. Two layers share the x axis: an area from lower to upper for the forecast rows (the band), and
 * a line per series (history grey, corrected history dashed, forecasts coloured).
 */

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

export interface VegaHistoryPoint {
  ds: string;
  y: number | null;
  corrected_y: number | null;
}

export interface VegaForecast {
  method: string;
  /** interval coverage, e.g. 0.9 */
  level: number | null;
  points: Array<{ ds: string; yhat: number | null; yhat_lower: number | null; yhat_upper: number | null }>;
}

export interface VegaSpecInput {
  unique_id: string;
  title?: string;
  history: readonly VegaHistoryPoint[];
  forecasts: readonly VegaForecast[];
  width?: number;
  height?: number;
}

export interface VegaRow {
  ds: string;
  series: string;
  value: number | null;
  lower: number | null;
  upper: number | null;
}

export const HISTORY = 'history';
export const CORRECTED = 'corrected history';
export const forecastSeries = (method: string) => `forecast: ${method}`;

const num = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function vegaRows(input: VegaSpecInput): VegaRow[] {
  const rows: VegaRow[] = [];
  for (const p of input.history) rows.push({ ds: p.ds, series: HISTORY, value: num(p.y), lower: null, upper: null });
  for (const p of input.history) rows.push({ ds: p.ds, series: CORRECTED, value: num(p.corrected_y), lower: null, upper: null });
  for (const f of input.forecasts) {
    for (const p of f.points) rows.push({ ds: p.ds, series: forecastSeries(f.method), value: num(p.yhat), lower: num(p.yhat_lower), upper: num(p.yhat_upper) });
  }
  return rows;
}

// Fixed colours for the history so forecasts never take grey; forecasts cycle through a qualitative palette.
const HISTORY_COLOUR = '#7f7f7f';
const CORRECTED_COLOUR = '#2f2f2f';
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22'];

export function buildVegaSpec(input: VegaSpecInput): Record<string, unknown> {
  const domain = [HISTORY, CORRECTED, ...input.forecasts.map((f) => forecastSeries(f.method))];
  const range = [HISTORY_COLOUR, CORRECTED_COLOUR, ...input.forecasts.map((_, i) => PALETTE[i % PALETTE.length])];
  const color = { field: 'series', type: 'nominal', title: 'series', scale: { domain, range } };
  const levels = [...new Set(input.forecasts.map((f) => f.level).filter((l): l is number => l !== null))];
  const bandTitle = levels.length === 1 ? `${Math.round(levels[0] * 100)} % prediction interval` : 'prediction interval';
  return {
    $schema: VEGA_LITE_SCHEMA,
    description: `Weekly demand of series ${input.unique_id}: history, corrected history and forecasts with their ${bandTitle}s`,
    title: input.title ?? `Series ${input.unique_id}`,
    width: input.width ?? 800,
    height: input.height ?? 300,
    data: { values: vegaRows(input) },
    encoding: { x: { field: 'ds', type: 'temporal', title: 'week' } },
    layer: [
      {
        transform: [{ filter: 'isValid(datum.lower) && isValid(datum.upper)' }],
        mark: { type: 'area', opacity: 0.2 },
        encoding: {
          y: { field: 'lower', type: 'quantitative', title: 'demand' },
          y2: { field: 'upper' },
          color: { ...color, legend: null },
          tooltip: [
            { field: 'ds', type: 'temporal', title: 'week' },
            { field: 'series', type: 'nominal' },
            { field: 'lower', type: 'quantitative', format: '.2f', title: `${bandTitle} (lower)` },
            { field: 'upper', type: 'quantitative', format: '.2f', title: `${bandTitle} (upper)` },
          ],
        },
      },
      {
        transform: [{ filter: 'isValid(datum.value)' }],
        mark: { type: 'line', point: false, strokeWidth: 1.5 },
        encoding: {
          y: { field: 'value', type: 'quantitative', title: 'demand' },
          color,
          strokeDash: {
            field: 'series', type: 'nominal', legend: null,
            scale: { domain, range: domain.map((s) => (s === CORRECTED ? [4, 2] : [1, 0])) },
          },
          tooltip: [
            { field: 'ds', type: 'temporal', title: 'week' },
            { field: 'series', type: 'nominal' },
            { field: 'value', type: 'quantitative', format: '.2f', title: 'demand' },
          ],
        },
      },
    ],
  };
}
