/**
 * The characterization step: per series, demand statistics, Syntetos-Boylan class, seasonality and trend tests,
 * complexity and recommended methods (series_characteristics), computed on the outlier-corrected history when the
 * outlier step has a row for the series under the same pipeline, on the weekly demand otherwise.
 */
import { correctedHistoryInRange, writeCharacteristics, type CharacteristicsWrite } from '../../db/seriesResults';
import type { WeeklySeries } from '../../db/seriesSteps';
import { defaultValues } from '../../domain/parameters/defaults';
import { historyFor } from '../../domain/forecast/prepare';
import { checkpoint } from '../jobs/activity';
import type { ResolvedParameters } from '../../domain/parameters/resolve';
import { CHECKPOINT_EVERY, dropStale } from '../outlier/step';
import type { SeriesStepHandler } from '../steps/types';
import { characterize } from '../../domain/characterization/characterize';

export function seasonLength(p: ResolvedParameters | undefined): number {
  const c = { ...defaultValues('characterization'), ...(p?.characterization?.values ?? {}) };
  return Number(c.season_length ?? 1);
}

/**
 * One series' row from the history to characterise (closed weeks NaN: the engine drops them, so every statistic is
 * about open weeks). `details` keeps the test statistics behind the flags and which history was used.
 */
export function characteristicsRow(series: Pick<WeeklySeries, 'item_id' | 'site_id'>, history: ArrayLike<number>, period: number, source: 'corrected' | 'y'): CharacteristicsWrite {
  const ch = characterize(history, { period });
  return {
    item_id: series.item_id,
    site_id: series.site_id,
    n_observations: ch.n_observations,
    mean: ch.mean,
    adi: ch.adi,
    cv2: ch.cv2,
    zero_ratio: ch.zero_ratio,
    cov: ch.cov,
    demand_class: ch.demand_class,
    is_intermittent: ch.is_intermittent,
    has_seasonality: ch.has_seasonality,
    seasonal_period: ch.period,
    has_trend: ch.has_trend,
    complexity_level: ch.complexity_level,
    recommended_methods: [...ch.recommended_methods],
    details: {
      source,
      n_nonzero: ch.n_nonzero,
      std: ch.std,
      min: ch.min,
      max: ch.max,
      seasonal_strength: ch.seasonal_strength,
      seasonal_acf: ch.seasonal_acf,
      trend_strength: ch.trend_strength,
      trend_z: ch.trend_z,
      trend_pvalue: ch.trend_pvalue,
    },
  };
}

export const characterizationStep: SeriesStepHandler = {
  parameterTypes: ['characterization'],
  async run(run, series, params) {
    const corrected = await correctedHistoryInRange(run.tx, run.scope.pipelineId, series);
    const rows: CharacteristicsWrite[] = [];
    series.forEach((s, i) => {
      if (i > 0 && i % CHECKPOINT_EVERY === 0) checkpoint({ index: run.index, phase: 'characterization', done: i });
      const c = corrected.get(s.unique_id);
      rows.push(characteristicsRow(s, historyFor(s, c), seasonLength(params.get(s.unique_id)), c ? 'corrected' : 'y'));
    });
    const written = await writeCharacteristics(run.tx, run.scope.pipelineId, series, rows, run.jobId);
    const intermittent = rows.filter((r) => r.is_intermittent).length;
    return { rows: written, note: `${intermittent} intermittent or lumpy; ${series.length - corrected.size} without corrected history (raw demand used)` };
  },
  finalize: dropStale('characterization'),
};
