import { serviceIssues } from '../../../domain/serviceBacktest/exceptions';
import { interpolateAt, summarize, summarizePortfolio, type SummaryRow } from '../../../domain/serviceBacktest/summarize';

const row = (over: Partial<SummaryRow>): SummaryRow => ({
  item_id: 1, site_id: 1, origin_weeks: 26, variant: 'target', target_service: 0.95, fill_rate: 0.9, cycle_service_level: 0.8, average_on_hand: 10, unit_cost: 2,
  demand: 100, served_from_stock: 90, stockout_weeks: 2, demand_class: 'smooth', abc_class: 'A', segment_ids: [4], ...over,
});

// two SKU-sites; ours, the normal peer and a sweep at two levels
const rows: SummaryRow[] = [
  row({ site_id: 1, fill_rate: 0.96, served_from_stock: 96, average_on_hand: 10 }),
  row({ site_id: 2, fill_rate: 0.9, demand: 50, served_from_stock: 45, average_on_hand: 20, unit_cost: 1, demand_class: 'lumpy', abc_class: 'B', segment_ids: [] }),
  row({ site_id: 1, variant: 'normal', fill_rate: 0.93, served_from_stock: 93, average_on_hand: 12 }),
  row({ site_id: 2, variant: 'normal', fill_rate: 0.87, demand: 50, served_from_stock: 43.5, average_on_hand: 25, unit_cost: 1, demand_class: 'lumpy', abc_class: 'B', segment_ids: [] }),
  row({ site_id: 1, variant: 'sweep', target_service: 0.9, fill_rate: 0.92, average_on_hand: 8 }),
  row({ site_id: 2, variant: 'sweep', target_service: 0.9, fill_rate: 0.84, average_on_hand: 14, unit_cost: 1, demand_class: 'lumpy', segment_ids: [] }),
  row({ site_id: 1, variant: 'sweep', target_service: 0.99, fill_rate: 0.98, average_on_hand: 14 }),
  row({ site_id: 2, variant: 'sweep', target_service: 0.99, fill_rate: 0.94, average_on_hand: 30, unit_cost: 1, demand_class: 'lumpy', segment_ids: [] }),
  // no demand in the held-out weeks: left out everywhere
  row({ site_id: 3, fill_rate: null, demand: 0, served_from_stock: 0 }),
];

describe('summaries', () => {
  it('all: mean target and fill rate, gap in points, pooled fill rate, stock value', () => {
    const [all] = summarize(rows, 'all');
    const ours = all.variants.find((v) => v.variant === 'target')!;
    expect(ours.sku_sites).toBe(2);
    expect(ours.mean_target).toBeCloseTo(0.95, 12);
    expect(ours.mean_fill_rate).toBeCloseTo(0.93, 12);
    expect(ours.gap_points).toBeCloseTo(-2, 9);
    expect(ours.pooled_fill_rate).toBeCloseTo(141 / 150, 12);
    expect(ours.inventory_value).toBeCloseTo(10 * 2 + 20 * 1, 12);
    expect(ours.on_hand_units).toBeCloseTo(30, 12);
    const normal = all.variants.find((v) => v.variant === 'normal')!;
    expect(normal.mean_fill_rate).toBeCloseTo(0.9, 12);
    expect(normal.inventory_value).toBeCloseTo(24 + 25, 12);
    // the sweep: 0.88 at 16 + 14 = 30, 0.96 at 28 + 30 = 58; the peer's 0.90 is a quarter of the way: 37
    expect(all.sweep).toEqual([
      { target_service: 0.9, mean_fill_rate: expect.closeTo(0.88, 12), inventory_value: expect.closeTo(30, 12), on_hand_units: expect.closeTo(22, 12) },
      { target_service: 0.99, mean_fill_rate: expect.closeTo(0.96, 12), inventory_value: expect.closeTo(58, 12), on_hand_units: expect.closeTo(44, 12) },
    ]);
    const eq = all.equal_service[0];
    expect(eq.peer).toBe('normal');
    expect(eq.ours_inventory_value).toBeCloseTo(37, 9);
    expect(eq.saving).toBeCloseTo((49 - 37) / 49, 9);
  });

  it('by demand class, ABC class and segment (a SKU-site in no segment is under none)', () => {
    expect(summarize(rows, 'demand_class').map((g) => [g.group, g.variants[0].mean_fill_rate])).toEqual([['lumpy', 0.9], ['smooth', 0.96]]);
    expect(summarize(rows, 'abc_class').map((g) => g.group)).toEqual(['A', 'B']);
    expect(summarize(rows, 'segment').map((g) => g.group)).toEqual(['4', 'none']);
  });

  it('a portfolio sweep is read the same way: its budget levels are a curve, the peer\'s stock is compared along it', () => {
    const portfolio = [
      ...rows.filter((r) => r.variant !== 'sweep'),
      // budget levels 0.5 and 1: 0.85 at 8·2 + 10 = 26, then 0.95 at 12·2 + 16 = 40; the peer's 0.90 is half-way: 33
      row({ site_id: 1, variant: 'portfolio', target_service: 0.5, fill_rate: 0.9, average_on_hand: 8 }),
      row({ site_id: 2, variant: 'portfolio', target_service: 0.5, fill_rate: 0.8, average_on_hand: 10, unit_cost: 1, demand_class: 'lumpy', segment_ids: [] }),
      row({ site_id: 1, variant: 'portfolio', target_service: 1, fill_rate: 0.98, average_on_hand: 12 }),
      row({ site_id: 2, variant: 'portfolio', target_service: 1, fill_rate: 0.92, average_on_hand: 16, unit_cost: 1, demand_class: 'lumpy', segment_ids: [] }),
    ];
    const [all] = summarizePortfolio(portfolio, 'all');
    expect(all.curve.map((p) => [p.target_service, p.mean_fill_rate, p.inventory_value])).toEqual([[0.5, expect.closeTo(0.85, 12), 26], [1, expect.closeTo(0.95, 12), 40]]);
    expect(all.equal_service).toEqual([expect.objectContaining({ peer: 'normal', peer_fill_rate: expect.closeTo(0.9, 12), ours_inventory_value: expect.closeTo(33, 9), saving: expect.closeTo((49 - 33) / 49, 9) })]);
    // the portfolio rows never enter the target sweep's reading
    expect(summarize(portfolio, 'all')[0].sweep).toEqual([]);
  });

  it('equal service is null when the sweep does not reach the peer\'s service', () => {
    const low = rows.map((r) => (r.variant === 'normal' ? { ...r, fill_rate: 0.5 } : r));
    const [all] = summarize(low, 'all');
    expect(all.equal_service[0].ours_inventory_value).toBeNull();
    expect(all.equal_service[0].saving).toBeNull();
  });

  it('interpolates linearly, exact at the points, null outside', () => {
    const pts = [{ x: 0.9, y: 10 }, { x: 0.8, y: 4 }, { x: 0.95, y: 20 }];
    expect(interpolateAt(pts, 0.85)).toBeCloseTo(7, 12);
    expect(interpolateAt(pts, 0.9)).toBe(10);
    expect(interpolateAt(pts, 0.925)).toBeCloseTo(15, 12);
    expect(interpolateAt(pts, 0.97)).toBeNull();
  });
});

describe('exception-log issues', () => {
  it('one issue per origin where ours missed its target by more than the tolerance; peers never count', () => {
    const found = serviceIssues([
      row({ site_id: 1, fill_rate: 0.93 }), // 2 points short: within 0.05
      row({ site_id: 2, fill_rate: 0.8, stockout_weeks: 5 }), // 15 points: high
      row({ site_id: 2, origin_weeks: 52, fill_rate: 0.88 }), // 7 points: medium
      row({ site_id: 3, variant: 'normal', fill_rate: 0.5 }),
      row({ site_id: 4, fill_rate: null }),
    ], 0.05);
    expect(found).toEqual([{
      item_id: 1, site_id: 2, issues: [
        expect.objectContaining({ type: 'service', code: 'backtest_fill_rate', severity: 'high', origin_weeks: 26, achieved_fill_rate: 0.8, target_service: 0.95, stockout_weeks: 5,
          description: 'replayed over the 26 weeks after its origin, the stock target served 80.0 % of demand from stock against a target of 95.0 % (5 weeks short)' }),
        expect.objectContaining({ severity: 'medium', origin_weeks: 52, achieved_fill_rate: 0.88 }),
      ],
    }]);
    expect(serviceIssues([row({ fill_rate: 0.93 })], 0.01)).toHaveLength(1);
  });
});
