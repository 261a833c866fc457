import { ApplicationFailure } from '@temporalio/common';
import { appendLog } from '../../db/jobs';
import {
  beginNettingRun, finishNettingRun, insertNettingResults, nettingBuckets, nettingForecastPage, nettingPeriodStart, type BucketKind, type NettingForecastRow,
  type NettingResultWrite,
} from '../../db/netting';
import { getPipeline } from '../../db/pipelines';
import { withTenant, type Db, type Tx } from '../../db/pool';
import { latestSupplyRun } from '../../db/supplyReads';
import { defaultSupplyScenarioId } from '../../db/supplyScenarios';
import { fromThousandths, netSeries, type NettingSettings } from '../../domain/netting/series';
import { checkpoint } from '../jobs/activity';

/** Series per read-compute-write round; the activity beats between rounds, so a kill stops it within one. */
const PAGE = 2000;

export interface NettingRefreshInput extends NettingSettings {
  accountId: string;
  jobId: string;
  pipelineId: number;
}

export interface NettingRefreshResult {
  pipeline_id: number;
  period_start: string | null;
  period_weeks: number;
  backward_weeks: number;
  forward_weeks: number;
  supply_run_id: string | null;
  series: number;
  total_forecast: string;
  total_consumed: string;
  total_netted: string;
}

/** The weekly inputs of one page, by series: forecast aligned on the period, and the three bucketed sources. */
function pageInputs(forecasts: readonly NettingForecastRow[], buckets: Awaited<ReturnType<typeof nettingBuckets>>, weeks: number) {
  const zero = () => new Array<number>(weeks).fill(0);
  const bySeries = new Map<string, Record<BucketKind, number[]>>();
  for (const f of forecasts) bySeries.set(`${f.item_id}_${f.site_id}`, { actual: zero(), firm_demand: zero(), supply_plan: zero() });
  for (const b of buckets) {
    const row = bySeries.get(`${b.item_id}_${b.site_id}`);
    if (row && b.week >= 0 && b.week < weeks) row[b.kind][b.week] += b.qty;
  }
  return forecasts.map((f) => ({
    f,
    input: {
      forecast: Array.from({ length: weeks }, (_, w) => f.yhat[f.offset + w] ?? null),
      ...bySeries.get(`${f.item_id}_${f.site_id}`)!,
    },
  }));
}

const texts = (xs: readonly number[]) => xs.map(fromThousandths);

/**
 * The netting refresh of one pipeline (docs/NETTING.md) in one transaction: its previous rows go, every series with a
 * best-method forecast gets its new row, and readers see the old rows until the new ones commit.
 */
export function createNettingActivities({ db }: { db: Db }) {
  const refresh = (input: NettingRefreshInput) => withTenant(db, input.accountId, async (tx: Tx): Promise<NettingRefreshResult> => {
    if (input.pipelineId > 0 && !(await getPipeline(tx, input.pipelineId))) {
      throw ApplicationFailure.nonRetryable(`netting: pipeline ${input.pipelineId} not found`, 'NoPipeline');
    }
    const settings: NettingSettings = { period_weeks: input.period_weeks, backward_weeks: input.backward_weeks, forward_weeks: input.forward_weeks };
    await beginNettingRun(tx, input.pipelineId, input.jobId, settings);
    const periodStart = await nettingPeriodStart(tx, input.pipelineId);
    const supplyScenarioId = await defaultSupplyScenarioId(tx);
    const supplyRun = supplyScenarioId === null ? null : await latestSupplyRun(tx, input.pipelineId, supplyScenarioId);
    const totals = { forecast: 0, consumed: 0, netted: 0 };
    let series = 0;
    if (periodStart) {
      let after: NettingForecastRow | null = null;
      for (;;) {
        checkpoint({ phase: 'page', series });
        const forecasts = await nettingForecastPage(tx, input.pipelineId, periodStart, after, PAGE);
        if (!forecasts.length) break;
        const buckets = await nettingBuckets(tx, forecasts, periodStart, settings.period_weeks, supplyRun?.run_id ?? null);
        const rows: NettingResultWrite[] = pageInputs(forecasts, buckets, settings.period_weeks).map(({ f, input: weekly }) => {
          const r = netSeries(weekly, settings);
          totals.forecast += r.totals.forecast;
          totals.consumed += r.totals.consumed;
          totals.netted += r.totals.netted;
          return {
            item_id: f.item_id, site_id: f.site_id, best_method: f.best_method, weeks: settings.period_weeks,
            forecast: texts(r.forecast), actual: texts(r.actual), firm_demand: texts(r.firm_demand), consumed: texts(r.consumed), netted: texts(r.netted),
            over_consumption: texts(r.over_consumption), supply_plan: texts(r.supply_plan),
            total_forecast: fromThousandths(r.totals.forecast), total_actual: fromThousandths(r.totals.actual), total_firm_demand: fromThousandths(r.totals.firm_demand),
            total_consumed: fromThousandths(r.totals.consumed), total_netted: fromThousandths(r.totals.netted),
            total_over_consumption: fromThousandths(r.totals.over_consumption), total_supply_plan: fromThousandths(r.totals.supply_plan),
            consumed_same: fromThousandths(r.totals.consumed_same), consumed_backward: fromThousandths(r.totals.consumed_backward),
            consumed_forward: fromThousandths(r.totals.consumed_forward), direction: r.direction,
            allocations: r.allocations.map((a) => [a.demand, a.forecast, fromThousandths(a.qty)]),
          };
        });
        series += await insertNettingResults(tx, input.pipelineId, input.jobId, rows);
        after = forecasts[forecasts.length - 1];
      }
    }
    await finishNettingRun(tx, input.pipelineId, { period_start: periodStart, supply_scenario_id: supplyScenarioId, supply_run_id: supplyRun?.run_id ?? null, series_count: series });
    const result: NettingRefreshResult = {
      pipeline_id: input.pipelineId, period_start: periodStart, ...settings, supply_run_id: supplyRun?.run_id ?? null, series,
      total_forecast: fromThousandths(totals.forecast), total_consumed: fromThousandths(totals.consumed), total_netted: fromThousandths(totals.netted),
    };
    await appendLog(tx, input.jobId, periodStart
      ? `netting: pipeline ${input.pipelineId}, ${settings.period_weeks} weeks from ${periodStart}, window ${settings.backward_weeks} back / ${settings.forward_weeks} forward; `
        + `${series} series: forecast ${result.total_forecast}, consumed ${result.total_consumed}, netted ${result.total_netted}; `
        + `supply plan ${supplyRun ? `of run ${supplyRun.run_id}` : 'none (no completed run of the default supply scenario)'}`
      : `netting: pipeline ${input.pipelineId} has no best-method forecast; nothing to net`, periodStart ? 'info' : 'warning');
    return result;
  });

  return {
    async nettingCompute(input: NettingRefreshInput): Promise<NettingRefreshResult> {
      checkpoint({ phase: 'start' });
      return refresh(input);
    },
  };
}
