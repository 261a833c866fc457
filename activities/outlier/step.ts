/**
 * The outlier step: per series, detect and correct outliers in the open weeks and store the corrected history
 * (series_outliers). Thin: parameters → detectOutliers → rows; the pure part is outlierRow.
 */
import { dropOutOfScope, writeOutliers, type OutlierPointRow, type OutlierWrite, type ResultStep } from '../../db/seriesResults';
import type { WeeklySeries } from '../../db/seriesSteps';
import { defaultValues } from '../../domain/parameters/defaults';
import { addWeeks } from '../../domain/time/weeks';
import { historyFor } from '../../domain/forecast/prepare';
import { checkpoint } from '../jobs/activity';
import type { ResolvedParameters } from '../../domain/parameters/resolve';
import type { SeriesStepHandler } from '../steps/types';
import { detectOutliers, HAMPEL_DEFAULT_THRESHOLD, HAMPEL_DEFAULT_WINDOW, IQR_DEFAULT_THRESHOLD, type OutlierMethod, type OutlierOptions } from '../../domain/outlier/detect';

/** every this many series a chunk heartbeats, so a long chunk stays alive and a kill stops it promptly */
export const CHECKPOINT_EVERY = 50;

export interface OutlierSettings {
  method: OutlierMethod;
  window: number;
  threshold: number | null;
  correction: 'median' | 'clip' | null;
  seasonal_protection: boolean;
  season_length: number;
}

/** The resolved parameter values of one series (catalogue defaults where the resolution has none). */
export function outlierSettings(p: ResolvedParameters | undefined): OutlierSettings {
  const o = { ...defaultValues('outlier'), ...(p?.outlier?.values ?? {}) };
  const c = { ...defaultValues('characterization'), ...(p?.characterization?.values ?? {}) };
  return {
    method: o.method as OutlierMethod,
    window: Number(o.window ?? HAMPEL_DEFAULT_WINDOW),
    threshold: (o.threshold as number | null) ?? null,
    correction: (o.correction as 'median' | 'clip' | null) ?? null,
    seasonal_protection: Boolean(o.seasonal_protection),
    season_length: Number(c.season_length ?? 1),
  };
}

/**
 * One series' row. Closed weeks (NaN) are given to the engine as NaN: it skips them in every window and quartile and
 * never flags them, and its indices stay calendar positions, so the seasonal protection compares the same week of
 * other years even when a closed week lies between. They stay NaN (stored NULL) in corrected_y. A week with capacity
 * factor 0 is closed whatever its y (see historyFor). The stored params are the effective ones (the method defaults
 * filled in), so a reader never has to know them.
 */
export function outlierRow(weekly: Pick<WeeklySeries, 'item_id' | 'site_id' | 'start' | 'y'> & { factor?: ArrayLike<number> }, s: OutlierSettings): OutlierWrite {
  const series = { ...weekly, y: historyFor(weekly, undefined) };
  const base = { item_id: series.item_id, site_id: series.site_id, start_week: series.start };
  if (s.method === 'none') return { ...base, corrected_y: Float64Array.from(series.y), method: 'none', params: {}, outliers: [] };
  const threshold = s.threshold ?? (s.method === 'hampel' ? HAMPEL_DEFAULT_THRESHOLD : IQR_DEFAULT_THRESHOLD);
  const correction = s.correction ?? (s.method === 'hampel' ? 'median' : 'clip');
  const period = s.method === 'hampel' && s.seasonal_protection && s.season_length >= 2 ? s.season_length : undefined;
  const opts: OutlierOptions = { method: s.method, threshold, correction, period, ...(s.method === 'hampel' ? { window: s.window } : {}) };
  const r = detectOutliers(series.y, opts);
  const outliers: OutlierPointRow[] = r.outliers.map((o) => ({
    ds: addWeeks(series.start, o.index),
    y: o.value,
    corrected_y: o.corrected,
    score: o.score,
    direction: o.value >= o.corrected ? 'up' : 'down',
  }));
  const params = s.method === 'hampel'
    ? { window: s.window, threshold, correction, seasonal_period: period ?? null }
    : { threshold, correction };
  return { ...base, corrected_y: r.corrected, method: s.method, params, outliers };
}

export const outlierStep: SeriesStepHandler = {
  parameterTypes: ['outlier', 'characterization'],
  async run(run, series, params) {
    const rows: OutlierWrite[] = [];
    let flagged = 0;
    series.forEach((s, i) => {
      if (i > 0 && i % CHECKPOINT_EVERY === 0) checkpoint({ index: run.index, phase: 'outlier', done: i });
      const row = outlierRow(s, outlierSettings(params.get(s.unique_id)));
      flagged += row.outliers.length;
      rows.push(row);
    });
    const written = await writeOutliers(run.tx, run.scope.pipelineId, series, rows, run.jobId);
    return { rows: written, note: `${flagged} outliers corrected` };
  },
  finalize: dropStale('outlier'),
};

/**
 * The finalize of every per-series step: after a full run (no job segment, no series list) of a pipeline with segments,
 * the step's rows of series that are no longer in its segments go, so the pipeline's results are exactly its scope. A
 * partial run saw only part of the scope, so it cannot tell which rows are stale.
 */
export function dropStale(step: ResultStep): NonNullable<SeriesStepHandler['finalize']> {
  return async (run) => {
    if (run.scope.segmentId || run.scope.keys) return null;
    const n = await dropOutOfScope(run.tx, step, run.scope.pipelineId);
    return n ? `${n} rows of series outside the pipeline's segments removed` : null;
  };
}
