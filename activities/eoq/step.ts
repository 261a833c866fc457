/**
 * The eoq step: per series of the run's pipeline, the EOQ at the pipeline's default K-curve scenario (created when the
 * pipeline has none), written to eoq_results. The scenario's k is its last solve's (POST /api/kcurve/solve), else
 * sqrt(2A/r): a target is a portfolio-wide sum no chunk sees, so targets are turned into k by a solve, not here.
 */
import { dropEoqResultsOutside, kcurveItems, kcurveScenarioForRun, replaceEoqResults, type EoqResultWrite, type KcurveScenarioRow } from '../../db/kcurve';
import { overridesOf } from '../../db/meioResults';
import type { Tx } from '../../db/pool';
import { itemEoq, portfolioItem, resolveSettings, type KcurveSettings } from '../../domain/inventory/kcurveViews';
import type { SeriesStepHandler } from '../steps/types';

/** Settings from the scenario alone (no portfolio-wide target), the same for every chunk. */
export function stepSettings(sc: KcurveScenarioRow): KcurveSettings {
  return resolveSettings([], { ...sc, target_orders_per_year: null, target_inventory_value: null })!;
}

async function scenarioOf(tx: Tx, pipelineId: number): Promise<KcurveScenarioRow> {
  return kcurveScenarioForRun(tx, pipelineId);
}

export const eoqStep: SeriesStepHandler = {
  parameterTypes: [],
  reads: 'keys',
  async run(run, series) {
    const pipelineId = run.scope.pipelineId;
    const sc = await scenarioOf(run.tx, pipelineId);
    const settings = stepSettings(sc);
    const keys = series.map((s) => ({ item_id: s.item_id, site_id: s.site_id }));
    const sources = await kcurveItems(run.tx, pipelineId, { keys });
    // K-curve scenarios are not MEIO scenarios: only the overrides for every MEIO scenario of the pipeline apply
    const overrides = await overridesOf(run.tx, pipelineId, null, [...new Set(keys.map((k) => k.item_id))]);
    const rows: EoqResultWrite[] = [];
    let noCost = 0;
    for (const src of sources) {
      const item = portfolioItem(src);
      if (!item.in_curve) {
        noCost += 1;
        continue;
      }
      const r = itemEoq(item, settings, overrides.get(`${item.item_id}_${item.site_id}`)?.eoq_override ?? null, sc.constrained);
      rows.push({
        item_id: r.item_id, site_id: r.site_id, annual_demand: r.annual_demand, unit_cost: r.unit_cost, k: r.k, eoq: r.eoq, eoq_override: r.eoq_override,
        orders_per_year: r.orders_per_year, cycle_stock_value: r.cycle_stock_value, total_annual_cost: r.total_annual_cost,
        freq_constrained: r.freq_constrained, freq_param_name: r.freq_param_name,
      });
    }
    const written = await replaceEoqResults(run.tx, pipelineId, sc.id, keys, rows, run.jobId);
    return { rows: written, note: `scenario ${sc.id}, k ${settings.k.toPrecision(6)} (${settings.k_source})${noCost ? `; ${noCost} series without a unit cost skipped` : ''}` };
  },
  async finalize(run) {
    // a partial run (one segment, a series list) saw part of the scope: it cannot tell which rows are stale
    if (run.scope.segmentId || run.scope.keys) return null;
    const sc = await scenarioOf(run.tx, run.scope.pipelineId);
    const n = await dropEoqResultsOutside(run.tx, run.scope.pipelineId, sc.id, run.jobId);
    return n ? `scenario ${sc.id}: ${n} rows of series outside the run's scope removed` : null;
  },
};
