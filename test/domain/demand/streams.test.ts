import { periodMoments } from '../../../domain/inventory/leadTimeDemand';
import {
  alignToPlan, bucketToPlan, DEFAULT_DEMAND_STREAMS, DEFAULT_MEIO_DEMAND_STREAMS, maintenanceOnPlan, plannedWeeklyDemand, plannedWeeklyDistribution,
} from '../../../domain/demand/streams';

const streams = {
  statistical: [10, 10, 10, 10],
  // the netting period covers weeks 0 and 2 only
  netted: [2, null, 0, null],
  causal: [1, 1, 1, 1],
  maintenance: [0, 30, 0, 0],
};
const all = { statistical: true, netted: true, causal: true, maintenance: true };

describe('plannedWeeklyDemand: the streams that are on add up', () => {
  test('by default the statistical forecast and maintenance, not causal, not netted', () => {
    expect(DEFAULT_DEMAND_STREAMS).toEqual({ statistical: true, netted: false, causal: false, maintenance: true });
    expect(Array.from(plannedWeeklyDemand(streams, DEFAULT_DEMAND_STREAMS, 4))).toEqual([10, 40, 10, 10]);
  });

  test('netted replaces the statistical value in the weeks the netting period covers, 0 included', () => {
    expect(Array.from(plannedWeeklyDemand(streams, all, 4))).toEqual([3, 41, 1, 11]);
    expect(Array.from(plannedWeeklyDemand(streams, { ...all, causal: false, maintenance: false }, 4))).toEqual([2, 10, 0, 10]);
  });

  test('netted changes nothing while statistical is off', () => {
    expect(Array.from(plannedWeeklyDemand(streams, { ...all, statistical: false }, 4))).toEqual([1, 31, 1, 1]);
    expect(Array.from(plannedWeeklyDemand(streams, { statistical: false, netted: false, causal: false, maintenance: false }, 4))).toEqual([0, 0, 0, 0]);
  });

  test('missing streams, short streams, negative and non-finite values plan nothing', () => {
    expect(Array.from(plannedWeeklyDemand({ statistical: [-5, NaN, 4], maintenance: null }, all, 4))).toEqual([0, 0, 4, 0]);
  });
});

describe('placing dated values on the plan\'s weeks', () => {
  test('alignToPlan shifts by whole weeks and leaves weeks it does not reach null', () => {
    expect(alignToPlan([1, 2, 3], '2026-06-08', '2026-06-01', 5)).toEqual([null, 1, 2, 3, null]);
    expect(alignToPlan([1, 2, 3], '2026-05-25', '2026-06-01', 5)).toEqual([2, 3, null, null, null]);
  });

  test('bucketToPlan sums rows into their plan week and drops those outside', () => {
    const rows = [
      { week: '2026-06-01', qty: 4 }, { week: '2026-06-15', qty: 3 }, { week: '2026-06-17', qty: 1 },
      { week: '2026-05-25', qty: 9 }, { week: '2026-06-22', qty: 7 },
    ];
    expect(bucketToPlan(rows, '2026-06-01', 3)).toEqual([4, 0, 4]);
  });
});

test('maintenanceOnPlan: each occurrence\'s parts in the plan week of its Monday, inside the horizon only', () => {
  const plan = {
    events: [
      // a C-check every 26 weeks from Wednesday 2026-06-10: weeks of 06-08 (plan week 1), 12-07 (27), 2027-06-07 (53, past the plan)
      { id: 1, name: 'C-check', start_date: '2026-06-10', interval_weeks: 26, end_date: null, dates: [] },
      // a one-off before the plan starts
      { id: 2, name: 'Old shutdown', start_date: null, interval_weeks: null, end_date: null, dates: ['2026-05-20'] },
    ],
    bom: [
      { event_id: 1, item_id: 7, site_id: 3, qty_per_occurrence: 4 },
      { event_id: 1, item_id: 8, site_id: 3, qty_per_occurrence: 1.5 },
      { event_id: 2, item_id: 9, site_id: 3, qty_per_occurrence: 100 },
    ],
  };
  const m = maintenanceOnPlan(plan, '2026-06-01', 52);
  expect([...m.keys()]).toEqual(['7_3', '8_3']);
  const weeks = (v: number[]) => v.flatMap((x, t) => (x ? [[t, x]] : []));
  expect(weeks(m.get('7_3')!)).toEqual([[1, 4], [27, 4]]);
  expect(weeks(m.get('8_3')!)).toEqual([[1, 1.5], [27, 1.5]]);
  expect(m.get('7_3')).toHaveLength(52);
});

describe('plannedWeeklyDistribution: what meio plans', () => {
  // 26 parts once in 26 weeks: mean 1, variance (25² + 25 × 1²) / 26 = 25
  const cCheck = { maintenance: [26, ...new Array(25).fill(0)] };

  test('maintenance on: a Poisson fit plus a lumpy C-check becomes the negative binomial of the summed moments', () => {
    expect(DEFAULT_MEIO_DEMAND_STREAMS).toEqual({ statistical: true, causal: false, maintenance: true });
    const d = plannedWeeklyDistribution({ type: 'poisson', lambda: 3 }, cCheck, DEFAULT_MEIO_DEMAND_STREAMS, 26)!;
    // mean 3 + 1 = 4, variance 3 + 25 = 28: r = 16 / 24, p = 4 / 28
    expect(d.type).toBe('negative_binomial');
    expect((d as any).r).toBeCloseTo(2 / 3, 12);
    expect((d as any).p).toBeCloseTo(1 / 7, 12);
    const m = periodMoments(d);
    expect(m.mean).toBeCloseTo(4, 12);
    expect(m.variance).toBeCloseTo(28, 12);
  });

  test('maintenance off, or nothing in the horizon: the fit itself', () => {
    const fit = { type: 'poisson' as const, lambda: 3 };
    expect(plannedWeeklyDistribution(fit, cCheck, { ...DEFAULT_MEIO_DEMAND_STREAMS, maintenance: false }, 26)).toBe(fit);
    expect(plannedWeeklyDistribution(fit, { maintenance: new Array(26).fill(0) }, DEFAULT_MEIO_DEMAND_STREAMS, 26)).toBe(fit);
  });

  test('statistical off: the extra streams alone, or no demand at all', () => {
    const fit = { type: 'poisson' as const, lambda: 3 };
    const alone = plannedWeeklyDistribution(fit, cCheck, { statistical: false, causal: false, maintenance: true }, 26)!;
    expect(periodMoments(alone).mean).toBeCloseTo(1, 12);
    expect(periodMoments(alone).variance).toBeCloseTo(25, 12);
    expect(plannedWeeklyDistribution(fit, cCheck, { statistical: false, causal: false, maintenance: false }, 26)).toBeNull();
  });

  test('causal weeks are Poisson means: a Poisson fit plus a steady causal rate stays Poisson', () => {
    const d = plannedWeeklyDistribution({ type: 'poisson', lambda: 3 }, { causal: new Array(10).fill(2) }, { statistical: true, causal: true, maintenance: false }, 10);
    expect(d).toEqual({ type: 'poisson', lambda: 5 });
  });

  test('a continuous fit stays continuous: normal with the summed moments', () => {
    const d = plannedWeeklyDistribution({ type: 'normal', mu: 5, sigma: 2 }, cCheck, DEFAULT_MEIO_DEMAND_STREAMS, 26)!;
    expect(d.type).toBe('normal');
    expect((d as any).mu).toBeCloseTo(6, 12);
    expect((d as any).sigma).toBeCloseTo(Math.sqrt(29), 12);
  });

  test('steady deterministic maintenance under a Poisson fit is under-dispersed: normal', () => {
    const d = plannedWeeklyDistribution({ type: 'poisson', lambda: 3 }, { maintenance: new Array(4).fill(1) }, DEFAULT_MEIO_DEMAND_STREAMS, 4);
    expect(d).toEqual({ type: 'normal', mu: 4, sigma: Math.sqrt(3) });
  });
});
