import { ApplicationFailure } from '@temporalio/common';
import { getScenario, leversOf, loadCausalData, storeResults } from '../../db/causal';
import { appendLog } from '../../db/jobs';
import { withTenant, type Db, type Tx } from '../../db/pool';
import { CausalModel, computeDemand } from '../../domain/causal/engine';
import { addWeeks } from '../../domain/time/weeks';
import { checkpoint } from '../jobs/activity';

export interface CausalRunInput {
  accountId: string;
  jobId: string;
  scenarioId: number;
  /** 0: results not tied to a pipeline */
  pipelineId: number;
  /** Monday of the first week */
  startWeek: string;
  horizonWeeks: number;
}

export interface CausalRunResult {
  scenario_id: number;
  pipeline_id: number;
  start_week: string;
  weeks: number;
  rows: number;
  series: number;
  total_demand: number;
}

/**
 * A causal scenario run (docs/CAUSAL.md): load the master data, compute every week through domain/causal/engine and
 * replace the stored results of (scenario, pipeline), in one transaction, so a retry rewrites the same rows.
 */
export function createCausalActivities({ db }: { db: Db }) {
  return {
    async causalRun(input: CausalRunInput): Promise<CausalRunResult> {
      checkpoint({ phase: 'start' });
      return withTenant(db, input.accountId, async (tx: Tx) => {
        const sc = await getScenario(tx, input.scenarioId);
        if (!sc) throw ApplicationFailure.nonRetryable(`causal: scenario ${input.scenarioId} not found`, 'NoScenario');
        const data = await loadCausalData(tx);
        const weeks = Array.from({ length: input.horizonWeeks }, (_, k) => addWeeks(input.startWeek, k));
        checkpoint({ phase: 'compute', weeks: weeks.length });
        const rows = computeDemand(new CausalModel(data, leversOf(sc)), weeks);
        checkpoint({ phase: 'store', rows: rows.length });
        await storeResults(tx, sc.id, input.pipelineId, input.jobId, rows);
        const siteRows = rows.filter((r) => r.site_id > 0);
        const total = siteRows.reduce((a, r) => a + r.demand, 0);
        const series = new Set(siteRows.map((r) => `${r.item_id}_${r.site_id}`)).size;
        await appendLog(tx, input.jobId, `causal: scenario ${sc.id} (${sc.name}, ${sc.usage_mode}), ${weeks.length} weeks from ${input.startWeek}: ${series} series, ${rows.length} rows stored, total demand ${total.toFixed(2)}`);
        return { scenario_id: sc.id, pipeline_id: input.pipelineId, start_week: input.startWeek, weeks: weeks.length, rows: rows.length, series, total_demand: total };
      });
    },
  };
}
