import { ApplicationFailure } from '@temporalio/common';
import { forecastFacts, ioFacts, refreshExceptionLog, type RefreshResult } from '../../db/exceptionLog';
import { getPipeline } from '../../db/pipelines';
import { withTenant, type Db } from '../../db/pool';
import { latestSupplyRun } from '../../db/supplyReads';
import { defaultSupplyScenarioId } from '../../db/supplyScenarios';
import { forecastIssues, ioIssues, type Issue } from '../../domain/exceptions/rules';
import { checkpoint } from '../jobs/activity';

export interface ExceptionLogInput {
  accountId: string;
  jobId: string;
  pipelineId: number;
}

export interface ExceptionLogResult extends RefreshResult {
  pipeline_id: number;
  supply_run_id: string | null;
  forecast_issues: number;
  io_issues: number;
}

/**
 * The exception-log refresh of one pipeline (docs/EXCEPTIONS.md) in one transaction, so the list never shows a half
 * refresh and a retry starts from the rows as they were.
 */
export function createExceptionLogActivities({ db }: { db: Db }) {
  return {
    exceptionLogGenerate: (input: ExceptionLogInput) => withTenant(db, input.accountId, async (tx): Promise<ExceptionLogResult> => {
      if (!(await getPipeline(tx, input.pipelineId))) {
        throw ApplicationFailure.nonRetryable(`exception log: pipeline ${input.pipelineId} not found`, 'NoPipeline');
      }
      checkpoint({ phase: 'rules' });
      const bySeries = new Map<string, { item_id: number; site_id: number; issues: Issue[] }>();
      const add = (item_id: number, site_id: number, issues: Issue[]) => {
        if (!issues.length) return;
        const key = `${item_id}_${site_id}`;
        const row = bySeries.get(key) ?? { item_id, site_id, issues: [] };
        row.issues.push(...issues);
        bySeries.set(key, row);
      };
      let nForecast = 0;
      let nIo = 0;
      for (const f of await forecastFacts(tx, input.pipelineId)) {
        const issues = forecastIssues(f);
        nForecast += issues.length;
        add(f.item_id, f.site_id, issues);
      }
      for (const f of await ioFacts(tx, input.pipelineId)) {
        const issues = ioIssues(f);
        nIo += issues.length;
        add(f.item_id, f.site_id, issues);
      }
      checkpoint({ phase: 'write' });
      const scenarioId = await defaultSupplyScenarioId(tx);
      const run = scenarioId === null ? null : await latestSupplyRun(tx, input.pipelineId, scenarioId);
      const r = await refreshExceptionLog(tx, input.pipelineId, [...bySeries.values()], run?.run_id ?? null);
      return { pipeline_id: input.pipelineId, supply_run_id: run?.run_id ?? null, forecast_issues: nForecast, io_issues: nIo, ...r };
    }),
  };
}
