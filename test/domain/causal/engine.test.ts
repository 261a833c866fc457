/**
 * The causal engine against hand-computed numbers (document 2 §4.6 rules 1–6, docs/CAUSAL.md).
 *
 * Fixture: asset type A (1) holds 2 of part P (10); failure rate 0.001 per operating hour.
 *   customer 1: 2 800 h over 2026-01-01..01-28 (28 days) → weekly 700 h; own coverage site 100: 30, site 200: 10 → 0.75 / 0.25
 *   customer 2: 1 500 h over 2026-01-01..01-10 (10 days, both ends) → weekly 1 050 h; no own coverage → the global row
 *               site 200: 50 → 1.0 at site 200
 *   fleet_total, week of 2026-01-05: c1 = 2 × 0.001 × 700 = 1.4 (site 100 1.05, site 200 0.35); c2 = 2 × 0.001 × 1050 = 2.1
 *   at site 200 → site 200 = 2.45, site 100 = 1.05, item aggregate 3.5.
 *   One global map instead ({100: 30, 200: 60} → 1/3, 2/3) would give site 200 = 3.5 × 2/3 = 2.333: the trap of rule 3.
 *   per_asset: c1 has 3 deployed assets (no plan) → 4.2, c2 a fleet plan of 4 → 8.4.
 * Asset type B (2) holds 1 of P, rate 0.01, 700 h a week at customer 1, no coverage at all → 0 (rule 6).
 */
import { breakdownTerms, CausalModel, computeDemand, coverageMaps, NEUTRAL_LEVERS, parseSeriesId, periodDays, pickActual, weeklyUsage, type CausalData } from '../../../domain/causal/engine';

const data = (): CausalData => ({
  bom: [
    { asset_type_id: 1, parent_item_id: null, item_id: 10, qty_per_asset: 2 },
    { asset_type_id: 2, parent_item_id: null, item_id: 10, qty_per_asset: 1 },
  ],
  failureRates: [
    { asset_type_id: 1, item_id: 10, usage_type_id: 1, rate: 0.001 },
    { asset_type_id: 2, item_id: 10, usage_type_id: 1, rate: 0.01 },
  ],
  usage: [
    { asset_type_id: 1, customer_id: 1, usage_type_id: 1, period_start: '2026-01-01', period_end: '2026-01-28', total_usage: 2800 },
    { asset_type_id: 1, customer_id: 2, usage_type_id: 1, period_start: '2026-01-01', period_end: '2026-01-10', total_usage: 1500 },
    { asset_type_id: 2, customer_id: 1, usage_type_id: 1, period_start: '2026-01-05', period_end: '2026-01-11', total_usage: 700 },
  ],
  coverage: [
    { asset_type_id: 1, customer_id: 1, site_id: 100, coverage_pct: 30 },
    { asset_type_id: 1, customer_id: 1, site_id: 200, coverage_pct: 10 },
    { asset_type_id: 1, customer_id: null, site_id: 200, coverage_pct: 50 },
  ],
  deployments: [1, 2, 3].map((): CausalData['deployments'][number] => ({ asset_type_id: 1, customer_id: 1, site_id: 100, start_date: '2025-06-01', end_date: null }))
    .concat([{ asset_type_id: 1, customer_id: 1, site_id: 100, start_date: '2025-06-01', end_date: '2025-12-31' }]),
  fleetPlan: [{ asset_type_id: 1, customer_id: 2, start_date: '2026-01-01', end_date: null, quantity: 4 }],
});

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('rule 2: weekly usage', () => {
  test('total × 7 / days of the period counted inclusively', () => {
    expect(periodDays('2026-01-01', '2026-01-10')).toBe(10);
    expect(weeklyUsage(1500, '2026-01-01', '2026-01-10')).toBeCloseTo(1050, 10);
    expect(weeklyUsage(2800, '2026-01-01', '2026-01-28')).toBeCloseTo(700, 10);
    expect(periodDays('2026-03-02', '2026-03-02')).toBe(1);
  });
});

describe('rule 3: per-customer coverage', () => {
  test('each customer normalised to 1; customer-less rows are the fallback', () => {
    const { byCustomer, fallback } = coverageMaps(data().coverage, 1);
    expect(byCustomer.get(1)!.get(100)).toBeCloseTo(0.75, 12);
    expect(byCustomer.get(1)!.get(200)).toBeCloseTo(0.25, 12);
    expect(fallback.get(200)).toBe(1);
    expect(coverageMaps(data().coverage, 2).byCustomer.size).toBe(0);
  });

  test('site 200 of the week: 0.35 from customer 1 and 2.1 from customer 2, not the 2.333 of one global map', () => {
    const m = new CausalModel(data());
    const rows = breakdownTerms(m, 10, 200, '2026-01-07');
    const a = rows.filter((r) => r.asset_type_id === 1);
    expect(a.map((r) => r.customer_id)).toEqual([1, 2]);
    expect(a[0].coverage_pct).toBeCloseTo(0.25, 12);
    expect(a[0].computed_demand).toBeCloseTo(0.35, 12);
    expect(a[1].coverage_pct).toBe(1);
    expect(a[1].computed_demand).toBeCloseTo(2.1, 12);
    expect(a[1].weekly_usage).toBeCloseTo(1050, 10);
    expect(a[1].total_usage).toBe(1500);
    expect(sum(rows.map((r) => r.computed_demand))).toBeCloseTo(2.45, 12);
    expect(sum(breakdownTerms(m, 10, 100, '2026-01-05').map((r) => r.computed_demand))).toBeCloseTo(1.05, 12);
  });
});

describe('rule 1: usage mode', () => {
  test('fleet_total ignores the fleet; per_asset multiplies by it (deployments, or the fleet plan when one covers the week)', () => {
    const total = breakdownTerms(new CausalModel(data()), 10, 200, '2026-01-05').filter((r) => r.asset_type_id === 1);
    expect(total.map((r) => r.usage_mode)).toEqual(['fleet_total', 'fleet_total']);
    expect(total.map((r) => [r.asset_qty, r.fleet_qty])).toEqual([[3, 3], [0, 4]]);
    const per = breakdownTerms(new CausalModel(data(), { ...NEUTRAL_LEVERS, usage_mode: 'per_asset' }), 10, 200, '2026-01-05').filter((r) => r.asset_type_id === 1);
    expect(per[0].computed_demand).toBeCloseTo(4.2 * 0.25, 12);
    expect(per[1].computed_demand).toBeCloseTo(8.4, 12);
  });

  test('scenario levers scale usage, fleet and rate and show in the row', () => {
    const m = new CausalModel(data(), { usage_mode: 'per_asset', usage_multiplier: 2, fleet_multiplier: 0.5, failure_rate_multiplier: 3 });
    const r = breakdownTerms(m, 10, 100, '2026-01-05').find((x) => x.asset_type_id === 1)!;
    expect([r.total_usage, r.fleet_qty, r.failure_rate]).toEqual([5600, 1.5, 0.003]);
    // 2 × 0.003 × 1400 × 1.5 × 0.75
    expect(r.computed_demand).toBeCloseTo(2 * 0.003 * 1400 * 1.5 * 0.75, 10);
  });
});

describe('rule 6: no coverage for the asset type', () => {
  test('its rows are listed with coverage 0 and demand 0', () => {
    const b = breakdownTerms(new CausalModel(data()), 10, 200, '2026-01-05').filter((r) => r.asset_type_id === 2);
    expect(b).toHaveLength(1);
    expect(b[0].weekly_usage).toBeCloseTo(700, 10);
    expect([b[0].coverage_pct, b[0].computed_demand]).toEqual([0, 0]);
  });
});

describe('the run (computeDemand) and rule 4', () => {
  test('site rows and the item aggregate of a week; the breakdown of every site adds up to its row', () => {
    const m = new CausalModel(data());
    const rows = computeDemand(m, ['2026-01-05']);
    const v = (site: number) => rows.find((r) => r.site_id === site)!.demand;
    expect(rows.map((r) => r.site_id)).toEqual([0, 100, 200]);
    expect(v(100)).toBeCloseTo(1.05, 12);
    expect(v(200)).toBeCloseTo(2.45, 12);
    expect(v(0)).toBeCloseTo(3.5, 12);
    for (const site of [100, 200]) expect(Math.abs(sum(breakdownTerms(m, 10, site, '2026-01-05').map((r) => r.computed_demand)) - v(site))).toBeLessThan(0.01);
  });

  test('a site the run reaches gets a row every week, 0 in a week no term reaches it (rules 4, 5)', () => {
    // customer 3 covers site 300 alone and starts running on 2026-01-12: 1 400 h over 14 days → 2 × 0.001 × 700 = 1.4
    const d = data();
    d.usage.push({ asset_type_id: 1, customer_id: 3, usage_type_id: 1, period_start: '2026-01-12', period_end: '2026-01-25', total_usage: 1400 });
    d.coverage.push({ asset_type_id: 1, customer_id: 3, site_id: 300, coverage_pct: 100 });
    const m = new CausalModel(d);
    const rows = computeDemand(m, ['2025-12-29', '2026-01-05', '2026-01-12']);
    const at = (site: number) => rows.filter((r) => r.site_id === site).map((r) => [r.week, Math.round(r.demand * 1e9) / 1e9]);
    expect(at(300)).toEqual([['2025-12-29', 0], ['2026-01-05', 0], ['2026-01-12', 1.4]]);
    expect(at(0)).toEqual([['2025-12-29', 0], ['2026-01-05', 3.5], ['2026-01-12', 4.9]]);
    expect(sum(breakdownTerms(m, 10, 300, '2026-01-05').map((r) => r.computed_demand))).toBe(0);
  });

  test('a week after a period carries its run rate forward; before the first period there is none', () => {
    const m = new CausalModel(data());
    // 2026-01-12: customer 2's period ended 01-10 → its weekly 1050 still holds
    const c2 = breakdownTerms(m, 10, 200, '2026-01-12').find((r) => r.customer_id === 2)!;
    expect(c2.usage_period_end).toBe('2026-01-10');
    expect(c2.computed_demand).toBeCloseTo(2.1, 12);
    expect(breakdownTerms(m, 10, 200, '2025-12-01')).toEqual([]);
  });
});

describe('rule 5: the exact series before the item aggregate, never both', () => {
  test('pickActual', () => {
    expect(pickActual(2.45, 3.5)).toEqual({ value: 2.45, source: 'series' });
    expect(pickActual(0, 3.5)).toEqual({ value: 0, source: 'series' });
    expect(pickActual(null, 3.5)).toEqual({ value: 3.5, source: 'item_aggregate' });
    expect(pickActual(undefined, null)).toEqual({ value: 0, source: 'none' });
    // the series was stored in other weeks of the run: its missing week is 0, not the item's total over every site
    expect(pickActual(null, 4.2, true)).toEqual({ value: 0, source: 'series' });
    expect(pickActual(null, 4.2, false)).toEqual({ value: 4.2, source: 'item_aggregate' });
  });

  test('series ids: the site is the part after the underscore', () => {
    expect(parseSeriesId('12_3')).toEqual({ item_id: 12, site_id: 3 });
    expect(parseSeriesId('12')).toBeNull();
    expect(parseSeriesId('a_3')).toBeNull();
    expect(parseSeriesId('0_3')).toBeNull();
  });
});
