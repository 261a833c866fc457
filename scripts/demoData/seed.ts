import type { TemporalDeps } from '../../api/context';
import { newJobId, startJob } from '../../api/jobs/service';
import { startImportRun } from '../../api/routes/import';
import { getJob, type JobRow } from '../../db/jobs';
import { findPipelineByName, insertPipeline } from '../../db/pipelines';
import { withTenant, type Db } from '../../db/pool';
import { PIPELINE_ORDER } from '../../lib/steps';
import type { DemoOptions } from './generator';
import { loadDemoIntoStaging } from './load';

async function waitForJob(db: Db, accountId: string, jobId: string, timeoutMs: number): Promise<JobRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await withTenant(db, accountId, (tx) => getJob(tx, jobId));
    if (job && ['completed', 'failed', 'killed'].includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

export interface SeedResult {
  staged: Record<string, number>;
  importRunId: string;
  etlJobId: string;
  pipelineId: number;
  series: number;
}

/**
 * Fills a tenant the way a customer would: demo files into import staging, an import run into master data, then
 * the etl step into weekly series, each as a real job on Temporal (a worker must be running).
 */
export async function seedDemoData(db: Db, temporal: TemporalDeps, accountId: string, opts: DemoOptions, createdBy = 'demo-seed', timeoutMs = 600_000): Promise<SeedResult> {
  const staged = await loadDemoIntoStaging(db, accountId, opts);
  const run = await startImportRun(db, temporal, { accountId, createdBy });
  const imported = await waitForJob(db, accountId, run.run_id, timeoutMs);
  if (imported.status !== 'completed') throw new Error(`demo import ${run.run_id} ${imported.status}: ${imported.error ?? ''}`);

  const pipelineId = await withTenant(db, accountId, async (tx) => {
    const existing = await findPipelineByName(tx, 'Demo pipeline');
    if (existing) return existing.id;
    return insertPipeline(tx, { name: 'Demo pipeline', description: 'Created with the demo data', forecast_scenario_id: null, is_active: true, settings: {} }, createdBy);
  });
  const etlJobId = newJobId('etl');
  await startJob(db, temporal, accountId, { job_id: etlJobId, kind: 'step', step: 'etl', pipeline_id: pipelineId, created_by: createdBy }, 'runStep', [
    { jobId: etlJobId, accountId, step: 'etl', pipelineId, scenarioId: null, segmentId: null, createdBy, nWorkers: null },
  ]);
  const etl = await waitForJob(db, accountId, etlJobId, timeoutMs);
  if (etl.status !== 'completed') throw new Error(`demo etl ${etlJobId} ${etl.status}: ${etl.error ?? ''}`);
  return { staged, importRunId: run.run_id, etlJobId, pipelineId, series: (etl.result as { series: number }).series };
}

/**
 * The steps after etl, in pipeline order, that the demo tenant runs so a planner finds forecasts and stock targets:
 * outlier … distribution, then meio under the default MEIO scenario over the generator's network of routes.
 */
export const DEMO_FORECAST_STEPS: readonly string[] = PIPELINE_ORDER.slice(PIPELINE_ORDER.indexOf('outlier'), PIPELINE_ORDER.indexOf('meio') + 1);

/**
 * Starts outlier → … → distribution → meio on the demo pipeline as one run (a runSequence job, visible in the jobs API and
 * the Temporal UI) and returns its job id without waiting: the stack is usable while it runs.
 */
export async function startDemoForecast(db: Db, temporal: TemporalDeps, accountId: string, pipelineId: number, createdBy = 'demo-seed'): Promise<string> {
  const jobId = newJobId('demo-forecast');
  const steps = [...DEMO_FORECAST_STEPS];
  await startJob(db, temporal, accountId, { job_id: jobId, kind: 'demo_forecast', pipeline_id: pipelineId, created_by: createdBy, params: { steps } }, 'runSequence', [
    { jobId, accountId, pipelineId, scenarioId: null, segmentId: null, createdBy, nWorkers: null, steps, kind: 'demo_forecast' },
  ]);
  return jobId;
}

export { waitForJob as waitForDemoJob };
