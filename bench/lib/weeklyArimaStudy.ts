/**
 * Weekly ARIMA study for bench:accuracy: how auto ARIMA's final estimation of a model with a seasonal term at period
 * 52 matters out of sample. M1 has no weekly series, so the generator's (scripts/demoData/generator.ts) smooth and
 * erratic series are simulated for 208 weeks: auto ARIMA fits the first 156 (the first length at which R's rules
 * allow a seasonal ARMA term at m = 52) and forecasts the last 52 with 90 % intervals.
 *
 * Variants (arima.ts settings.longSeasonalMethod): 'CSS' keeps the conditional-sum-of-squares estimates of the search
 * (our default), 'CSS-ML' refits the winner by exact maximum likelihood (R's auto.arima). Everything else is equal.
 * Reported per variant: MASE (in-sample seasonal-naive scale), sMAPE, coverage of the 90 % interval, the scaled
 * interval score of M4 (MSIS: width + 2/α · miss, over the same scale; lower is better) and CPU ms per series.
 */
import { maseScale, smape } from '../../domain/forecast/metrics';
import { runMethod } from '../../domain/forecast/registry';
import { mean } from '../../domain/forecast/stats';
import { createDemoPlan, demandBySeries } from '../../scripts/demoData/generator';

const FIT_WEEKS = 156;
const TEST_WEEKS = 52;
const PERIOD = 52;
const LEVEL = 0.9;

export interface WeeklyArimaRow {
  variant: string;
  series: number;
  seasonalModels: number;
  mase: number;
  smape: number;
  coverage90: number;
  msis: number;
  cpuMsPerSeries: number;
}

/** Smooth and erratic generated series with demand from the first week, FIT_WEEKS + TEST_WEEKS long. */
export function weeklyStudySeries(seed: number, target: number): Float64Array[] {
  const weeks = FIT_WEEKS + TEST_WEEKS;
  const plan = createDemoPlan({ seed, items: Math.ceil(target / 10), sites: 30, seriesTarget: target, weeks });
  const index = new Map(plan.weekDs.map((d, t) => [d, t]));
  const out: Float64Array[] = [];
  for (const s of demandBySeries(plan)) {
    if (!s.rows.length || (s.truth.pattern !== 'smooth' && s.truth.pattern !== 'erratic')) continue;
    const w = new Float64Array(weeks);
    for (const r of s.rows) w[index.get(r.ds)!] += r.qty;
    if (w[0] === 0) continue;
    out.push(w);
  }
  return out;
}

/** One variant over the series: the scores of its 52-week forecasts from the first 156 weeks. */
export function scoreWeeklyArima(series: readonly Float64Array[], variant: string, params: Record<string, string>): WeeklyArimaRow {
  const mases: number[] = [];
  const smapes: number[] = [];
  const covs: number[] = [];
  const msis: number[] = [];
  let seasonal = 0;
  const alpha = 1 - LEVEL;
  const t0 = process.cpuUsage();
  for (const w of series) {
    const y = w.subarray(0, FIT_WEEKS);
    const test = w.subarray(FIT_WEEKS);
    const r = runMethod('arima', y, TEST_WEEKS, { period: PERIOD, level: LEVEL, params });
    if (String(r.params.model).includes(`[${PERIOD}]`)) seasonal++;
    const scale = maseScale(y, PERIOD).scale;
    let ae = 0;
    let inside = 0;
    let is = 0;
    for (let j = 0; j < TEST_WEEKS; j++) {
      const v = test[j];
      const lo = r.lower[j];
      const hi = r.upper[j];
      ae += Math.abs(v - r.mean[j]);
      if (v >= lo && v <= hi) inside++;
      is += hi - lo + (v < lo ? (2 / alpha) * (lo - v) : 0) + (v > hi ? (2 / alpha) * (v - hi) : 0);
    }
    mases.push(ae / TEST_WEEKS / scale);
    smapes.push(smape(test, r.mean));
    covs.push(inside / TEST_WEEKS);
    msis.push(is / TEST_WEEKS / scale);
  }
  const cpu = process.cpuUsage(t0);
  return {
    variant, series: series.length, seasonalModels: seasonal, mase: mean(mases), smape: mean(smapes), coverage90: mean(covs), msis: mean(msis),
    cpuMsPerSeries: (cpu.user + cpu.system) / 1000 / Math.max(1, series.length),
  };
}

export const WEEKLY_VARIANTS: ReadonlyArray<{ label: string; params: Record<string, string> }> = [
  { label: "CSS (ours: search estimates kept)", params: { longSeasonalMethod: 'CSS' } },
  { label: 'CSS-ML (R: exact-likelihood refit)', params: { longSeasonalMethod: 'CSS-ML' } },
];

/** Both variants on two generator seeds (the first variant's rows first within each seed). */
export function weeklyArimaStudy(seeds: readonly number[] = [7, 11], target = 1500): Array<WeeklyArimaRow & { seed: number }> {
  const rows: Array<WeeklyArimaRow & { seed: number }> = [];
  for (const seed of seeds) {
    const series = weeklyStudySeries(seed, target);
    // a short warm-up so that the first variant does not pay the JIT alone
    for (const y of series.slice(0, 20)) runMethod('arima', y.subarray(0, FIT_WEEKS), TEST_WEEKS, { period: PERIOD, level: LEVEL });
    for (const v of WEEKLY_VARIANTS) rows.push({ seed, ...scoreWeeklyArima(series, v.label, v.params) });
  }
  return rows;
}
