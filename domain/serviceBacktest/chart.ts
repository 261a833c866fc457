/**
 * The Vega-Lite chart of a service backtest: every replayed SKU-site as a point of target (x) against achieved fill
 * rate (y), coloured by variant, over the diagonal where achieved equals target; points below the diagonal missed.
 */

export interface ChartPoint {
  unique_id: string;
  origin_weeks: number;
  variant: string;
  target_service: number;
  fill_rate: number;
  demand_class: string | null;
  average_inventory_value: number;
}

export function serviceBacktestChart(points: readonly ChartPoint[], title: string): Record<string, unknown> {
  const low = Math.min(0.5, ...points.map((p) => Math.min(p.target_service, p.fill_rate)));
  const domain = [Math.floor(low * 20) / 20, 1];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 480,
    height: 480,
    layer: [
      {
        data: { values: [{ x: domain[0], y: domain[0] }, { x: 1, y: 1 }] },
        mark: { type: 'line', color: '#888', strokeDash: [4, 4] },
        encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
      },
      {
        data: { values: points.map((p) => ({ ...p })) },
        mark: { type: 'point', filled: true, opacity: 0.6 },
        encoding: {
          x: { field: 'target_service', type: 'quantitative', title: 'target fill rate', scale: { domain } },
          y: { field: 'fill_rate', type: 'quantitative', title: 'achieved fill rate (held-out weeks)', scale: { domain } },
          color: { field: 'variant', type: 'nominal', title: 'policy' },
          shape: { field: 'demand_class', type: 'nominal', title: 'demand class' },
          tooltip: [
            { field: 'unique_id', type: 'nominal' }, { field: 'variant', type: 'nominal' }, { field: 'origin_weeks', type: 'quantitative', title: 'origin (weeks before end)' },
            { field: 'target_service', type: 'quantitative', format: '.1%' }, { field: 'fill_rate', type: 'quantitative', format: '.1%' },
            { field: 'average_inventory_value', type: 'quantitative', format: ',.2f', title: 'average stock value' },
          ],
        },
      },
    ],
  };
}
