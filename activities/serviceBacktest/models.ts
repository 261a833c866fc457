/**
 * The pipeline's own outlier correction and distribution fit, as the service backtest runs them on a history cut at
 * its origin: the functions the outlier and distribution steps call (outlierRow, distributionRow) with the
 * parameters those steps resolve for the series, so a backtested policy is sized exactly as the pipeline sizes it.
 */
import type { ResolvedParameters } from '../../domain/parameters/resolve';
import type { PipelineModels } from '../../domain/serviceBacktest/derive';
import { distributionRow, distributionSettings } from '../distribution/step';
import { outlierRow, outlierSettings } from '../outlier/step';

/** outlierRow dates its rows; the correction itself does not depend on the date, so any Monday does */
const ANY_MONDAY = '2024-01-01';

export function pipelineModels(params: ReadonlyMap<string, ResolvedParameters>): PipelineModels {
  return {
    correct(history, itemId, siteId) {
      const row = outlierRow({ item_id: itemId, site_id: siteId, start: ANY_MONDAY, y: history }, outlierSettings(params.get(`${itemId}_${siteId}`)));
      return Float64Array.from(row.corrected_y);
    },
    fit(history, itemId, siteId, leadTimeWeeks) {
      const row = distributionRow({ item_id: itemId, site_id: siteId }, history, distributionSettings(params.get(`${itemId}_${siteId}`)), leadTimeWeeks);
      return { distribution_type: row.distribution_type, params: row.params, basis: row.basis, lead_time_weeks: row.lead_time_weeks, mean: row.mean, std: row.std };
    },
  };
}
