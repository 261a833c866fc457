/**
 * The distribution step: per series, fit the demand distribution inventory optimisation uses (series_distributions),
 * on the outlier-corrected open-week history (weekly demand when the outlier step has no row for the series; the
 * weekly demand as it came for an intermittent or lumpy series, domain/distribution/fitHistory.ts), summed over the
 * item-site lead time when `aggregate_lead_time` is on.
 */
import { correctedHistoryInRange, leadTimesFor, writeDistributions, type DistributionFitRow, type DistributionWrite } from '../../db/seriesResults';
import type { WeeklySeries } from '../../db/seriesSteps';
import { defaultValues } from '../../domain/parameters/defaults';
import { historyFor } from '../../domain/forecast/prepare';
import { checkpoint } from '../jobs/activity';
import { CHECKPOINT_EVERY, dropStale } from '../outlier/step';
import type { ResolvedParameters } from '../../domain/parameters/resolve';
import type { SeriesStepHandler } from '../steps/types';
import { empiricalFit, fitDistributions, type DistributionType, type Fit } from '../../domain/distribution/fit';
import { historyToFit } from '../../domain/distribution/fitHistory';

export interface DistributionSettings {
  candidates: DistributionType[];
  quantiles: number[];
  aggregate_lead_time: boolean;
  overlapping: boolean;
}

export function distributionSettings(p: ResolvedParameters | undefined): DistributionSettings {
  const d = { ...defaultValues('distribution'), ...(p?.distribution?.values ?? {}) };
  return {
    candidates: d.candidates as DistributionType[],
    quantiles: d.quantiles as number[],
    aggregate_lead_time: Boolean(d.aggregate_lead_time),
    overlapping: Boolean(d.overlapping),
  };
}

/**
 * Weeks of demand summed for a lead time given in weeks (item_site.lead_time_weeks): the whole weeks it touches,
 * at least 1 (a same-week lead time still has one week of exposure). The small tolerance keeps 2.0000000001 (a
 * numeric that went through float8) at 2.
 */
export function leadTimeBlock(leadTimeWeeks: number): number {
  return Math.max(1, Math.ceil(leadTimeWeeks - 1e-9));
}

/**
 * Lead-time demand: the open-week values (NaN dropped: a closed week has no demand of its own, the etl moved it to
 * the next open week) summed over blocks of k weeks. Non-overlapping blocks end at the most recent week, so the
 * oldest n mod k weeks are left out; overlapping: every one of the n - k + 1 windows (dependent samples).
 */
export function leadTimeSample(history: ArrayLike<number>, k: number, overlapping: boolean): Float64Array {
  const x: number[] = [];
  for (let i = 0; i < history.length; i++) if (Number.isFinite(history[i])) x.push(history[i]);
  if (k <= 1) return Float64Array.from(x);
  const out: number[] = [];
  if (overlapping) {
    for (let b = 0; b + k <= x.length; b++) {
      let s = 0;
      for (let i = b; i < b + k; i++) s += x[i];
      out.push(s);
    }
  } else {
    for (let end = x.length; end >= k; end -= k) {
      let s = 0;
      for (let i = end - k; i < end; i++) s += x[i];
      out.unshift(s);
    }
  }
  return Float64Array.from(out);
}

/** KS p-value below which a parametric fit is not trusted (the engine's own fallback rule) */
const MIN_PVALUE = 0.05;

/**
 * The engine fits every family that applies; `allowed` (parameter `candidates`) narrows the choice to the listed
 * families with the engine's rule: the smallest KS statistic among them, unless none reaches p 0.05, then the
 * empirical distribution when it is allowed. When empirical is not allowed, the best listed family is kept even with a
 * poor p-value (the planner asked for it). When no listed family applies to the sample (e.g. only poisson for
 * non-integer demand, or fewer than 3 values), or the sample is degenerate, the empirical distribution is used
 * whatever the list says: a row without quantiles would leave inventory optimisation with nothing.
 */
export function chooseFit(sample: Float64Array, allowed: readonly DistributionType[], quantiles: readonly number[]): { best: Fit; candidates: Fit[] } {
  const r = fitDistributions(sample, { quantiles: [...quantiles] });
  if (r.selection === 'degenerate') return { best: r.best, candidates: r.candidates };
  const fits = r.candidates.filter((c) => c.distribution_type !== 'empirical' && allowed.includes(c.distribution_type));
  const useEmpirical = !fits.length || (allowed.includes('empirical') && !fits.some((c) => c.ks_pvalue >= MIN_PVALUE));
  if (!useEmpirical) return { best: fits[0], candidates: fits };
  const empirical = empiricalFit(sample, quantiles);
  return { best: empirical, candidates: [...fits, empirical] };
}

const fitRow = (f: Fit): DistributionFitRow => ({
  distribution_type: f.distribution_type, mean: f.mean, std: f.std, params: f.params, ks_statistic: f.ks_statistic, ks_pvalue: f.ks_pvalue,
  service_level_quantiles: f.service_level_quantiles,
});

/**
 * One series' row. With aggregate_lead_time and a known item-site lead time the sample is lead-time demand (basis
 * 'lead_time', lead_time_weeks = the block length); otherwise weekly demand (basis 'weekly', lead_time_weeks null).
 */
export function distributionRow(series: Pick<WeeklySeries, 'item_id' | 'site_id'>, history: ArrayLike<number>, s: DistributionSettings, leadTimeWeeks: number | undefined): DistributionWrite {
  const k = s.aggregate_lead_time && leadTimeWeeks !== undefined ? leadTimeBlock(leadTimeWeeks) : null;
  const sample = leadTimeSample(history, k ?? 1, s.overlapping);
  const { best, candidates } = chooseFit(sample, s.candidates, s.quantiles);
  return {
    item_id: series.item_id,
    site_id: series.site_id,
    ...fitRow(best),
    candidates: candidates.map(fitRow),
    basis: k === null ? 'weekly' : 'lead_time',
    lead_time_weeks: k,
    n: sample.length,
  };
}

export const distributionStep: SeriesStepHandler = {
  parameterTypes: ['distribution'],
  async run(run, series, params) {
    const corrected = await correctedHistoryInRange(run.tx, run.scope.pipelineId, series);
    const leadTimes = await leadTimesFor(run.tx, series);
    const rows: DistributionWrite[] = [];
    series.forEach((s, i) => {
      if (i > 0 && i % CHECKPOINT_EVERY === 0) checkpoint({ index: run.index, phase: 'distribution', done: i });
      const history = historyToFit(historyFor(s, undefined), historyFor(s, corrected.get(s.unique_id)));
      rows.push(distributionRow(s, history, distributionSettings(params.get(s.unique_id)), leadTimes.get(s.unique_id)));
    });
    const written = await writeDistributions(run.tx, run.scope.pipelineId, series, rows, run.jobId);
    const byType = new Map<string, number>();
    for (const r of rows) byType.set(r.distribution_type, (byType.get(r.distribution_type) ?? 0) + 1);
    return { rows: written, note: [...byType].sort().map(([t, n]) => `${t} ${n}`).join(', ') };
  },
  finalize: dropStale('distribution'),
};
