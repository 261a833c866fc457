import type { TemporalDeps } from '../../api/context';
import { newJobId, startJob } from '../../api/jobs/service';
import { startImportRun } from '../../api/routes/import';
import { getJob, type JobRow } from '../../db/jobs';
import { findPipelineByName, insertPipeline } from '../../db/pipelines';
import { withTenant, type Db } from '../../db/pool';
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
