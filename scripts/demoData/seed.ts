import type { TemporalDeps } from '../../api/context';
import { ensureFreezeSchedule } from '../../api/jobs/freezeSchedules';
import { newJobId, startJob } from '../../api/jobs/service';
import { historySettings } from '../../db/history';
import { startImportRun } from '../../api/routes/import';
import { getJob, type JobRow } from '../../db/jobs';
import { findPipelineByName, insertPipeline, lockPipelines, touchPipelineRun, updatePipeline } from '../../db/pipelines';
import { withTenant, type Db, type Tx } from '../../db/pool';
import { findScenarioByName, getBaselineScenario, insertScenario, lockScenarios, markBaseline } from '../../db/scenarios';
import { PIPELINE_ORDER } from '../../lib/steps';
import type { DemoOptions } from './generator';
import { loadDemoIntoStaging } from './load';
import { seedDemoMaintenance } from './maintenance';
import { seedDemoCausal } from './causal';

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
  /** the forecast scenario the demo pipeline runs under: "Baseline" unless a planner linked another */
  scenarioId: number;
  series: number;
}

export const DEMO_PIPELINE = 'Demo pipeline';
export const DEMO_BASELINE = 'Baseline';

/**
 * The "Demo pipeline" linked to a "Baseline" forecast scenario, each created when missing. A pipeline without a
 * forecast scenario leaves a planner nothing to pass as `scenario_id` to the run routes, and the baseline's pipeline
 * is the one default reads show first (docs/API.md, "Which pipeline a read uses"). Idempotent: what a planner already
 * made is reused, an existing baseline of another name included, and a pipeline already linked keeps its link.
 */
export async function ensureDemoPipeline(tx: Tx, createdBy: string): Promise<{ pipelineId: number; scenarioId: number }> {
  await lockScenarios(tx);
  const scenario = (await getBaselineScenario(tx)) ?? (await findScenarioByName(tx, DEMO_BASELINE));
  let scenarioId: number;
  if (scenario) {
    scenarioId = scenario.id;
    if (!scenario.is_baseline) await markBaseline(tx, scenarioId);
  } else {
    // 52 weeks and no methods: what the forecast step does without a scenario, so the link changes no demo forecast
    scenarioId = (await insertScenario(tx, {
      name: DEMO_BASELINE, description: 'The plan of record of the demo data', is_baseline: true, horizon_weeks: 52, methods: [], settings: {},
    }, createdBy)).id;
  }
  await lockPipelines(tx);
  const existing = await findPipelineByName(tx, DEMO_PIPELINE);
  if (!existing) {
    const pipelineId = await insertPipeline(tx, { name: DEMO_PIPELINE, description: 'Created with the demo data', forecast_scenario_id: scenarioId, is_active: true, settings: {} }, createdBy);
    return { pipelineId, scenarioId };
  }
  if (existing.forecast_scenario_id === null) await updatePipeline(tx, existing.id, { forecast_scenario_id: scenarioId });
  return { pipelineId: existing.id, scenarioId: existing.forecast_scenario_id ?? scenarioId };
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

  const { pipelineId, scenarioId } = await withTenant(db, accountId, (tx) => ensureDemoPipeline(tx, createdBy));
  const etlJobId = newJobId('etl');
  await startJob(db, temporal, accountId, { job_id: etlJobId, kind: 'step', step: 'etl', pipeline_id: pipelineId, created_by: createdBy }, 'runStep', [
    { jobId: etlJobId, accountId, step: 'etl', pipelineId, scenarioId: null, segmentId: null, createdBy, nWorkers: null },
  ]);
  await withTenant(db, accountId, (tx) => touchPipelineRun(tx, pipelineId));
  const etl = await waitForJob(db, accountId, etlJobId, timeoutMs);
  if (etl.status !== 'completed') throw new Error(`demo etl ${etlJobId} ${etl.status}: ${etl.error ?? ''}`);
  await withTenant(db, accountId, (tx) => seedDemoMaintenance(tx, pipelineId));
  await withTenant(db, accountId, (tx) => seedDemoCausal(tx));
  return { staged, importRunId: run.run_id, etlJobId, pipelineId, scenarioId, series: (etl.result as { series: number }).series };
}

/**
 * The steps after etl, in pipeline order, that the demo tenant runs so a planner finds forecasts, stock targets and a
 * supply plan: outlier … distribution, meio under the default MEIO scenario over the generator's network of routes,
 * eoq, and supply under the default supply scenario (with its allocation child): run-all without its etl.
 */
export const DEMO_FORECAST_STEPS: readonly string[] = PIPELINE_ORDER.slice(PIPELINE_ORDER.indexOf('outlier'));

/**
 * Starts outlier → … → meio → eoq → supply on the demo pipeline as one run (a runSequence job, visible in the jobs API and
 * the Temporal UI) and returns its job id without waiting: the stack is usable while it runs.
 */
export async function startDemoForecast(db: Db, temporal: TemporalDeps, accountId: string, pipelineId: number, createdBy = 'demo-seed'): Promise<string> {
  const jobId = newJobId('demo-forecast');
  const steps = [...DEMO_FORECAST_STEPS];
  await startJob(db, temporal, accountId, { job_id: jobId, kind: 'demo_forecast', pipeline_id: pipelineId, created_by: createdBy, params: { steps } }, 'runSequence', [
    { jobId, accountId, pipelineId, scenarioId: null, segmentId: null, createdBy, nWorkers: null, steps, kind: 'demo_forecast' },
  ]);
  // startJob, unlike the API's launch(), does not record the run on the pipeline; pipelines list it and the default
  // pipeline prefers it while its first run is still writing
  await withTenant(db, accountId, (tx) => touchPipelineRun(tx, pipelineId));
  return jobId;
}

/**
 * The demo pipeline's weekly freeze, as a Temporal Schedule visible in the Temporal UI (docs/HISTORY.md). Idempotent:
 * every start of the stack makes sure it exists with the pipeline's settings.
 */
export async function ensureDemoFreezeSchedule(db: Db, temporal: TemporalDeps, accountId: string, createdBy = 'demo-seed'): Promise<string> {
  const { pipelineId } = await withTenant(db, accountId, (tx) => ensureDemoPipeline(tx, createdBy));
  const s = await withTenant(db, accountId, (tx) => historySettings(tx, pipelineId));
  await ensureFreezeSchedule(temporal.client, temporal.taskQueue, accountId, pipelineId, { timezone: s.schedule_timezone, hour: s.schedule_hour });
  return `freeze-${accountId}-${pipelineId}`;
}

export { waitForJob as waitForDemoJob };
