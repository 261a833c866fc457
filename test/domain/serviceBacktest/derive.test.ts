import { pipelineModels } from '../../../activities/serviceBacktest/models';
import { distributionRow, distributionSettings } from '../../../activities/distribution/step';
import { outlierRow, outlierSettings } from '../../../activities/outlier/step';
import { weeklyDemandOf } from '../../../domain/inventory/fittedDemand';
import { planItemNetwork, type SiteTarget } from '../../../domain/inventory/meio';
import { plannedAutocorrelation } from '../../../domain/inventory/serialDependence';
import { createRng, samplePoisson } from '../../../domain/inventory/random';
import { backtestItem, itemServiceCurve, PORTFOLIO_CEILING, protectionWeeks, simPolicyOf, withLevel, type BacktestItemInput } from '../../../domain/serviceBacktest/derive';
import { bootstrapLeadTimeDemand, normalPeerLevel, sampleQuantile, weeklyMoments } from '../../../domain/serviceBacktest/peers';

const target = (over: Partial<SiteTarget> = {}): SiteTarget => ({
  service_type: 'fill_rate', target_service: 0.95, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ', review_period_weeks: 1, source: 'scenario', ...over,
});

function poissonPath(n: number, mean: number, seed: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => samplePoisson(rng, mean));
}

const item = (history: number[], t: Partial<SiteTarget> = {}): BacktestItemInput => ({
  itemId: 1,
  sites: [{ siteId: 10, history, unitCost: 20, masterLeadTime: 2, moq: 0, orderMultiple: 1, target: target(t), abcClass: 'A', segmentIds: [3] }],
  routes: [],
});

const models = pipelineModels(new Map());

describe('policy as of the origin', () => {
  const history = poissonPath(104, 6, 11);

  it('is the meio planner\'s policy for the distribution step\'s fit of the outlier step\'s correction of the weeks before the origin', () => {
    const { rows } = backtestItem(item(history), models, { originWeeks: [26], peers: false });
    expect(rows).toHaveLength(1);
    const before = outlierRow({ item_id: 1, site_id: 10, start: '2025-01-06', y: Float64Array.from(history.slice(0, 78)) }, outlierSettings(undefined)).corrected_y;
    const fit = distributionRow({ item_id: 1, site_id: 10 }, before, distributionSettings(undefined), 2);
    const planned = planItemNetwork([{
      siteId: 10, demand: weeklyDemandOf({ ...fit }, history.slice(0, 78)), hasSeries: true, unitCost: 20, masterLeadTime: 2, moq: 0, orderMultiple: 1, target: target(),
    }], []).skus[0];
    expect(rows[0]).toMatchObject({ variant: 'target', policy: 'sQ', reorderPoint: planned.reorderPoint, orderQty: planned.orderQty, leadTimeWeeks: 2, targetService: 0.95 });
    expect(rows[0].result.weeks).toBe(26);
    expect(rows[0].result.demand).toBe(history.slice(78).reduce((a, b) => a + b, 0));
  });

  it('a seasonal site is sized with the autocorrelations of its weeks before the origin, as the meio step reads them', () => {
    const rng = createRng(23);
    const seasonal = Array.from({ length: 130 }, (_, w) => samplePoisson(rng, 20 * (1 + 0.5 * Math.sin((2 * Math.PI * w) / 52))));
    const { rows } = backtestItem(item(seasonal), models, { originWeeks: [26], peers: false });
    const weeks = seasonal.slice(0, 104);
    const before = outlierRow({ item_id: 1, site_id: 10, start: '2025-01-06', y: Float64Array.from(weeks) }, outlierSettings(undefined)).corrected_y;
    const demand = weeklyDemandOf({ ...distributionRow({ item_id: 1, site_id: 10 }, before, distributionSettings(undefined), 2) }, weeks);
    const autocorrelation = plannedAutocorrelation(weeks, demand, demand);
    expect(autocorrelation[0]).toBeGreaterThan(0.5);
    const plan = (rho: number[]) => planItemNetwork([{
      siteId: 10, demand, autocorrelation: rho, hasSeries: true, unitCost: 20, masterLeadTime: 2, moq: 0, orderMultiple: 1, target: target(),
    }], []).skus[0];
    expect(rows[0]).toMatchObject({ reorderPoint: plan(autocorrelation).reorderPoint, orderQty: plan(autocorrelation).orderQty });
    expect(rows[0].reorderPoint!).toBeGreaterThan(plan([]).reorderPoint!);
  });

  it('does not change when the demand after the origin changes; the replay does', () => {
    const changed = [...history.slice(0, 78), ...history.slice(78).map((v) => v * 3)];
    const a = backtestItem(item(history), models, { originWeeks: [26] }).rows;
    const b = backtestItem(item(changed), models, { originWeeks: [26] }).rows;
    expect(a.map((r) => r.variant)).toEqual(['target', 'normal', 'bootstrap']);
    expect(b.map((r) => [r.variant, r.reorderPoint, r.orderQty, r.orderUpTo])).toEqual(a.map((r) => [r.variant, r.reorderPoint, r.orderQty, r.orderUpTo]));
    expect(b[0].result.demand).toBeCloseTo(3 * a[0].result.demand, 9);
    expect(b[0].result.fillRate!).toBeLessThan(a[0].result.fillRate!);
  });

  it('sizes one policy per origin, each on its own history', () => {
    const { rows } = backtestItem(item(history), models, { originWeeks: [26, 52], peers: false });
    expect(rows.map((r) => [r.originWeeks, r.result.weeks])).toEqual([[26, 26], [52, 52]]);
  });

  it('a portfolio level plans the item within its share of the budget, up to the ceiling when the budget does not cut it', () => {
    const two: BacktestItemInput = { ...item(history), sites: [item(history).sites[0], { ...item(history).sites[0], siteId: 11, history: poissonPath(104, 2, 12) }] };
    const curve = itemServiceCurve(two, models, { originWeeks: [26] })!;
    // each item weighs as its number of demand sites; the curve runs from (next to) nothing to the ceiling
    expect(curve).toMatchObject({ itemId: 1, weeklyDemand: 2 });
    expect(curve.points[curve.points.length - 1].fill_rate).toBeGreaterThanOrEqual(PORTFOLIO_CEILING);
    expect(curve.targetInvestment).toBeGreaterThan(curve.points[0].investment);
    expect(curve.targetInvestment).toBeLessThan(curve.points[curve.points.length - 1].investment);
    const half = curve.targetInvestment / 2;
    const { rows } = backtestItem(two, models, { originWeeks: [26], peers: false, portfolio: [{ level: 0.5, cap: half }, { level: 2, cap: null }] });
    const at = (level: number) => rows.filter((r) => r.variant === 'portfolio' && r.targetService === level);
    expect(at(0.5)).toHaveLength(2);
    // within the cap: the planner's own figure of the demand sites' stock stays under it; uncapped: the ceiling's plan
    expect(at(0.5).reduce((n, r) => n + r.unitCost * r.expectedOnHand!, 0)).toBeLessThanOrEqual(half + 1e-6);
    const ceiling = backtestItem(two, models, { originWeeks: [26], peers: false, sweepTargets: [PORTFOLIO_CEILING] }).rows.filter((r) => r.variant === 'sweep');
    expect(at(2).map((r) => [r.siteId, r.reorderPoint, r.orderQty])).toEqual(ceiling.map((r) => [r.siteId, r.reorderPoint, r.orderQty]));
    expect(at(0.5).reduce((n, r) => n + r.result.averageOnHand, 0)).toBeLessThan(at(2).reduce((n, r) => n + r.result.averageOnHand, 0));
  });

  it('a sweep re-sizes the same policy at other target levels: more target, more stock', () => {
    const { rows } = backtestItem(item(history), models, { originWeeks: [26], peers: false, sweepTargets: [0.8, 0.99] });
    const sweep = rows.filter((r) => r.variant === 'sweep');
    expect(sweep.map((r) => r.targetService)).toEqual([0.8, 0.99]);
    expect(sweep[1].reorderPoint!).toBeGreaterThan(sweep[0].reorderPoint!);
    expect(sweep[1].result.averageOnHand).toBeGreaterThan(sweep[0].result.averageOnHand);
  });

  it('skips a site with too little history before the origin, saying why', () => {
    const { rows, skipped } = backtestItem(item(history.slice(0, 30)), models, { originWeeks: [26] });
    expect(rows).toEqual([]);
    expect(skipped).toEqual([{ itemId: 1, siteId: 10, originWeeks: 26, reason: 'fewer than 13 open weeks before the origin' }]);
  });

  it('an (s, S) target with a review period is replayed as (R, s, S); base stock as (R, S)', () => {
    const sS = backtestItem(item(history, { policy: 'sS', review_period_weeks: 2 }), models, { peers: false }).rows[0];
    expect(sS).toMatchObject({ policy: 'RsS', reviewWeeks: 2 });
    expect(sS.orderUpTo!).toBeGreaterThan(sS.reorderPoint!);
    const base = backtestItem(item(history, { policy: 'base_stock', review_period_weeks: 2 }), models, { peers: false }).rows[0];
    expect(base).toMatchObject({ policy: 'RS', reviewWeeks: 2, reorderPoint: null });
  });
});

describe('policy mapping', () => {
  it('maps meio results to replayed policies and moves only the level for a peer', () => {
    expect(simPolicyOf({ policy: 'rQ', reorderPoint: 7, orderQty: 12, orderUpTo: 19, reviewPeriodWeeks: 0 })).toEqual({ kind: 'sQ', reorderPoint: 7, orderQty: 12 });
    expect(simPolicyOf({ policy: 'base_stock', reorderPoint: 9, orderQty: 1, orderUpTo: 10, reviewPeriodWeeks: 1 })).toEqual({ kind: 'base_stock', orderUpTo: 10 });
    expect(withLevel({ kind: 'RsS', reviewWeeks: 2, reorderPoint: 5, orderUpTo: 12 }, 8)).toEqual({ kind: 'RsS', reviewWeeks: 2, reorderPoint: 8, orderUpTo: 15 });
    expect(protectionWeeks({ kind: 'sQ', reorderPoint: 1, orderQty: 1 }, 3)).toBe(3);
    expect(protectionWeeks({ kind: 'RS', reviewWeeks: 2, orderUpTo: 1 }, 3)).toBe(5);
    expect(protectionWeeks({ kind: 'base_stock', orderUpTo: 1 }, 3)).toBe(4);
  });
});

describe('peers', () => {
  it('normal: μ·P + z·σ·√P', () => {
    const m = weeklyMoments([7, 13, 7, 13]);
    expect(m.mean).toBe(10);
    expect(m.std).toBeCloseTo(Math.sqrt(12), 12);
    // z(0.95) = 1.6448536…, P = 4: 40 + 1.6448536 · √12 · 2
    expect(normalPeerLevel(m, 4, 0.95).level).toBeCloseTo(40 + 1.6448536269514722 * Math.sqrt(12) * 2, 9);
  });

  it('bootstrap: no demand gives zeros; a steady series gives lead-time demand near P times its mean', () => {
    expect(Array.from(bootstrapLeadTimeDemand([0, 0, 0, 0], 3, { samples: 5 }))).toEqual([0, 0, 0, 0, 0]);
    const sample = bootstrapLeadTimeDemand(poissonPath(200, 8, 5), 4, { samples: 4000, seed: 3 });
    const mean = sample.reduce((a, b) => a + b, 0) / sample.length;
    expect(mean).toBeGreaterThan(4 * 8 * 0.9);
    expect(mean).toBeLessThan(4 * 8 * 1.15);
    expect(sampleQuantile(sample, 0.95)).toBeGreaterThan(sampleQuantile(sample, 0.5));
  });

  it('bootstrap of an intermittent series keeps its zeros: many lead-time demands are 0', () => {
    const y = Array.from({ length: 120 }, (_, i) => (i % 6 === 0 ? 5 : 0));
    const sample = bootstrapLeadTimeDemand(y, 1, { samples: 2000, seed: 9 });
    const zeros = sample.filter((v) => v === 0).length / sample.length;
    expect(zeros).toBeGreaterThan(0.7);
    expect(zeros).toBeLessThan(0.93);
  });

  it('sample quantile: the smallest value with at least that share at or below', () => {
    const s = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(sampleQuantile(s, 0.95)).toBe(10);
    expect(sampleQuantile(s, 0.9)).toBe(9);
    expect(sampleQuantile(s, 0.5)).toBe(5);
  });
});
