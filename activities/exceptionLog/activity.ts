import { ApplicationFailure } from '@temporalio/common';
import { generateExceptionLog, type RefreshResult } from '../../db/exceptionLog';
import { getPipeline } from '../../db/pipelines';
import { withTenant, type Db } from '../../db/pool';
import { latestSupplyRun } from '../../db/supplyReads';
import { defaultSupplyScenarioId } from '../../db/supplyScenarios';
import { keysOfUniqueIds } from '../../domain/series/keys';
import { checkpoint } from '../jobs/activity';

export interface ExceptionLogInput {
  accountId: string;
  jobId: string;
  pipelineId: number;
  /** only these series (unique ids): what a run of a few series changed; the other rows stay as they are */
  series?: string[] | null;
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
      const scenarioId = await defaultSupplyScenarioId(tx);
      const run = scenarioId === null ? null : await latestSupplyRun(tx, input.pipelineId, scenarioId);
      const sel = input.series?.length ? { keys: keysOfUniqueIds(input.series) } : undefined;
      const { result, counts } = await generateExceptionLog(tx, input.pipelineId, run?.run_id ?? null, sel, {
        onRange: (done, total) => checkpoint({ phase: 'ranges', done, total }),
      });
      return { pipeline_id: input.pipelineId, supply_run_id: run?.run_id ?? null, forecast_issues: counts.forecast, io_issues: counts.io, ...result };
    }),
  };
}
