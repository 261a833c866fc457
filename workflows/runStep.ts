import { ApplicationFailure, CancellationScope, executeChild, isCancellation, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type * as activities from '../activities';
import { jobSearchAttributes } from '../lib/searchAttributes';
import { isStepAvailable, PIPELINE_ORDER } from '../lib/steps';
import { computeTaskQueue } from '../lib/taskQueues';
import { asJob, bookkeeping, messageOf } from './asJob';

// Work activities heartbeat; a worker that dies is noticed after heartbeatTimeout and its chunk runs again elsewhere.
const WORK_OPTIONS = { startToCloseTimeout: '2 hours', heartbeatTimeout: '10 seconds', retry: { maximumAttempts: 5, initialInterval: '1 second' } } as const;
const work = proxyActivities<activities.Activities>(WORK_OPTIONS);

/** The per-series chunks on the compute queue of this workflow's queue: one at a time per worker process. */
const computeActivities = () => proxyActivities<activities.Activities>({ ...WORK_OPTIONS, taskQueue: computeTaskQueue(workflowInfo().taskQueue) });

export interface JobInput {
  jobId: string;
  accountId: string;
  pipelineId: number | null;
  scenarioId: number | null;
  segmentId: number | null;
  createdBy: string | null;
  nWorkers?: number | null;
}

export interface RunStepInput extends JobInput {
  step: string;
  /** run-forecast: only these series (unique ids) and, when given, these methods */
  series?: string[] | null;
  /** meio: the MEIO scenario (null: the tenant's default) */
  meioScenarioId?: number | null;
  /** supply, allocation: the supply scenario (null: the tenant's default) */
  supplyScenarioId?: number | null;
  methods?: string[] | null;
  /** false: skip the alerts and exception-log refresh after the step (a sequence runs it once, after its last step) */
  signals?: boolean;
}

export interface SignalsResult {
  pipeline_id: number;
  alerts: number;
  alerts_cleared: number;
  exception_rows: number | null;
}

export interface StepResult {
  step: string;
  series: number;
  rows: number;
  chunks: number;
  signals?: SignalsResult;
}

/** Steps whose results the alert rules and the exception log read: each is followed by their refresh (docs/ALERTS.md). */
export const SIGNAL_STEPS: readonly string[] = ['forecast', 'best-method', 'meio', 'supply'];

// Each runs in one transaction and beats between pages; a retry starts over, as nothing of a failed attempt committed.
const signalWork = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '60 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

/** Alert generations side by side in a whole-pipeline refresh: the two cores of a small machine, PostgreSQL's mostly. */
const ALERT_PARTS = 2;

/**
 * The planner's work queue after results change: alerts of the pipeline and its exception log (a pipeline of its own
 * only: runs outside any pipeline, id 0, have alerts but no exception log). Neither reads what the other writes, so they
 * run side by side, and a whole-pipeline refresh splits the alerts into item ranges that run side by side too: each is
 * one PostgreSQL backend's work, and at 100,000 series the refresh kept one core busy for nearly two minutes.
 */
async function refreshSignals(ref: { accountId: string; jobId: string; pipelineId: number | null; series?: string[] | null }): Promise<SignalsResult> {
  const pipelineId = ref.pipelineId ?? 0;
  // a run of a few series (run-forecast) changed only theirs: at 10,000 series the whole refresh takes seconds
  const series = ref.series?.length ? ref.series : null;
  const base = { accountId: ref.accountId, jobId: ref.jobId, pipelineId, series };
  // histories recorded before the split replay the sequential refresh they ran
  const sideBySide = patched('signals-side-by-side');
  const alerts = async () => {
    if (!sideBySide || series) return [await signalWork.alertsGenerate(base)];
    const ranges = await signalWork.alertsItemRanges({ accountId: ref.accountId, parts: ALERT_PARTS });
    return Promise.all(ranges.map((items) => signalWork.alertsGenerate({ ...base, items })));
  };
  const exceptionLog = async () => {
    if (pipelineId <= 0) return null;
    const e = await signalWork.exceptionLogGenerate(base);
    await bookkeeping.jobLog({
      accountId: ref.accountId, jobId: ref.jobId,
      message: `exception log: pipeline ${pipelineId}, ${e.sku_sites_with_issues} SKU-sites with issues${series ? ` among the run's ${series.length} series` : ''} (${e.created} new, ${e.reopened} reopened, ${e.cleared} cleared)`,
    });
    return e.sku_sites_with_issues;
  };
  const [a, rows] = sideBySide ? await Promise.all([alerts(), exceptionLog()]) : [await alerts(), await exceptionLog()];
  return {
    pipeline_id: pipelineId,
    alerts: a.reduce((n, r) => n + r.alerts, 0),
    alerts_cleared: a.reduce((n, r) => n + r.cleared, 0),
    exception_rows: rows,
  };
}

// Marking a failed allocation run deletes the rows its chunks wrote: at a million series that is more than a minute.
const allocationCleanup = proxyActivities<activities.Activities>({ startToCloseTimeout: '30 minutes', retry: { maximumAttempts: 10, initialInterval: '1 second' } });

/** Progress updates of a step at most: one per chunk was 200 bookkeeping activities a step at 100,000 series. */
const PROGRESS_UPDATES = 50;

/**
 * The job's progress as chunks finish: an update every `every` chunks (all of them with fewer than PROGRESS_UPDATES
 * chunks) and after the last. Each runs beside the next chunk (a lane that awaited it would hold its worker idle),
 * never an unhandled rejection meanwhile; `settled` awaits them at the end.
 */
function progressOf(ref: { accountId: string; jobId: string }, chunks: number, total: number) {
  // histories recorded with an update per chunk replay with one per chunk
  const every = patched('progress-every-few-chunks') ? Math.max(1, Math.ceil(chunks / PROGRESS_UPDATES)) : 1;
  const pending: Promise<void>[] = [];
  let finished = 0;
  let done = 0;
  return {
    chunkDone(count: number): void {
      finished += 1;
      done += count;
      if (finished % every !== 0 && finished !== chunks) return;
      const p = bookkeeping.jobProgress({ accountId: ref.accountId, jobId: ref.jobId, done, total });
      p.catch(() => undefined);
      pending.push(p);
    },
    settled: () => Promise.all(pending),
  };
}

/**
 * Runs task(0 … count − 1) with at most `limit` in flight; deterministic because the order of starts is fixed. A lane
 * starts its next task as soon as one ends, so bookkeeping after a task (progress) is not awaited inside the lane: it
 * would hold the lane's worker idle.
 */
async function pool<T>(count: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next;
      next += 1;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, count)) }, lane));
  return results;
}

async function runEtl(input: RunStepInput): Promise<StepResult> {
  const settings = await bookkeeping.stepSettings({ accountId: input.accountId, nWorkers: input.nWorkers });
  const plan = await work.etlPlan({ accountId: input.accountId, jobId: input.jobId, chunkSize: settings.chunkSize });
  const progress = progressOf(input, plan.chunks.length, plan.total);
  const results = await pool(plan.chunks.length, settings.nWorkers, async (i) => {
    const c = plan.chunks[i];
    // Chunk i clears the keys after chunk i-1's last one: together the chunks drop series that lost their demand.
    const span = { after: i > 0 ? plan.chunks[i - 1].to : null, through: i < plan.chunks.length - 1 ? c.to : null };
    const r = await work.etlChunk({ accountId: input.accountId, jobId: input.jobId, endWeek: plan.endWeek!, from: c.from, to: c.to, index: i, of: plan.chunks.length, span });
    progress.chunkDone(c.count);
    return r;
  });
  await progress.settled();
  await work.etlFinalize({ accountId: input.accountId, jobId: input.jobId, chunks: plan.chunks.length });
  return {
    step: 'etl',
    series: results.reduce((n, r) => n + r.series, 0),
    rows: results.reduce((n, r) => n + r.rows, 0),
    chunks: plan.chunks.length,
  };
}

/** A per-series step (outlier … distribution): plan chunks of the run's scope, run them in parallel, finalise. */
async function runSeriesStep(input: RunStepInput): Promise<StepResult> {
  const settings = await bookkeeping.stepSettings({ accountId: input.accountId, nWorkers: input.nWorkers });
  const base = {
    accountId: input.accountId, jobId: input.jobId, step: input.step, pipelineId: input.pipelineId, scenarioId: input.scenarioId,
    segmentId: input.segmentId, series: input.series ?? null, methods: input.methods ?? null, meioScenarioId: input.meioScenarioId ?? null,
    supplyScenarioId: input.supplyScenarioId ?? null,
  };
  const plan = await work.seriesStepPlan({ ...base, chunkSize: settings.chunkSize, lanes: settings.nWorkers });
  const compute = computeActivities();
  const progress = progressOf(input, plan.chunks.length, plan.total);
  const results = await pool(plan.chunks.length, settings.nWorkers, async (i) => {
    const c = plan.chunks[i];
    const r = await compute.seriesStepChunk({ ...base, from: c.from, to: c.to, index: i, of: plan.chunks.length });
    progress.chunkDone(c.count);
    return r;
  });
  await progress.settled();
  await work.seriesStepFinalize(base);
  return {
    step: input.step,
    series: results.reduce((n, r) => n + r.series, 0),
    rows: results.reduce((n, r) => n + r.rows, 0),
    chunks: plan.chunks.length,
  };
}

/**
 * allocation: plan chunks of whole items of the newest completed supply run, solve them on the compute queue at most
 * n_workers at a time (the solvers are CPU-bound; each chunk loads only its own items, so a worker's memory does not
 * grow with the run), then complete the run from the chunks' reports. On any failure, a kill included, the run ends
 * failed and its rows go.
 */
async function runAllocation(input: RunStepInput): Promise<StepResult> {
  const ref = { accountId: input.accountId, jobId: input.jobId };
  try {
    const settings = await bookkeeping.stepSettings({ accountId: input.accountId, nWorkers: input.nWorkers });
    const plan = await work.allocationPlan({ ...ref, pipelineId: input.pipelineId, supplyScenarioId: input.supplyScenarioId ?? null, chunkSize: settings.chunkSize });
    const compute = computeActivities();
    const progress = progressOf(ref, plan.chunks.length, plan.total);
    await pool(plan.chunks.length, settings.nWorkers, async (i) => {
      const c = plan.chunks[i];
      const r = await compute.allocationChunk({ ...ref, scope: plan.scope, range: { after: c.after, through: c.through }, index: i, of: plan.chunks.length });
      progress.chunkDone(c.sku_sites);
      return r;
    });
    await progress.settled();
    const r = await work.allocationFinalize({ ...ref, scope: plan.scope, chunks: plan.chunks.length });
    return { step: 'allocation', series: r.groups, rows: r.rows, chunks: r.chunks };
  } catch (err) {
    await CancellationScope.nonCancellable(() => allocationCleanup.allocationFail({ ...ref, error: isCancellation(err) ? 'killed on request' : messageOf(err) }));
    throw err;
  }
}

/** One pipeline step as a job: split into chunks, run them in parallel with bounded concurrency, finalise. */
export async function runStep(input: RunStepInput): Promise<StepResult> {
  return asJob(input, `${input.step}: started`, async () => {
    if (!isStepAvailable(input.step)) {
      throw ApplicationFailure.nonRetryable(`step ${input.step} not available yet`, 'StepNotAvailable');
    }
    const result = await stepBody(input);
    if (input.signals === false || !SIGNAL_STEPS.includes(input.step)) return result;
    return { ...result, signals: await refreshSignals(input) };
  });
}

async function stepBody(input: RunStepInput): Promise<StepResult> {
  {
    switch (input.step) {
      case 'etl':
        return runEtl(input);
      case 'outlier':
      case 'characterization':
      case 'forecast':
      case 'backtest':
      case 'backtest-forecast':
      case 'best-method':
      case 'distribution':
      case 'meio':
      case 'eoq':
      case 'service-backtest':
        return runSeriesStep(input);
      case 'supply':
        return runSupply(input);
      case 'allocation':
        return runAllocation(input);
      default:
        throw ApplicationFailure.nonRetryable(`step ${input.step} not available yet`, 'StepNotAvailable');
    }
  }
}

export interface RunSequenceInput extends JobInput {
  /** steps to run in order; run-all passes the ten pipeline steps */
  steps: string[];
  /** per-step n_workers (process workflows) */
  stepWorkers?: Record<string, number>;
  /** the supply scenario of a supply step in the sequence (null: the tenant's default) */
  supplyScenarioId?: number | null;
  kind: string;
}

/**
 * A supply run, then its allocation as a child job logged under it (spec §4.6), however the supply run was started
 * (a step, run-all, a process workflow, POST /api/supply/run). The supply run's pipeline 0 has no readable results
 * (document 2 §7), so it is refused before any work.
 */
async function runSupply(input: RunStepInput): Promise<StepResult> {
  if (!input.pipelineId) throw ApplicationFailure.nonRetryable('supply needs a scenario pipeline: pass pipeline_id (>= 1)', 'NoPipeline');
  const result = await runSeriesStep(input);
  await child(input, 'allocation', `${input.jobId}-allocation`, input.jobId);
  return result;
}

/** Runs steps in order as child runStep workflows (a supply step brings its allocation child itself). */
export async function runSequence(input: RunSequenceInput): Promise<{ steps: StepResult[]; signals?: SignalsResult }> {
  return asJob(input, `${input.kind}: ${input.steps.join(' → ')}`, async () => {
    const done: StepResult[] = [];
    for (const [i, step] of input.steps.entries()) {
      const childId = `${input.jobId}-${i + 1}-${step}`;
      done.push(await child({ ...input, signals: false }, step, childId, input.jobId));
    }
    // Once for the sequence: a refresh after every step would be overwritten by the next one's.
    if (!input.steps.some((s) => SIGNAL_STEPS.includes(s))) return { steps: done };
    return { steps: done, signals: await refreshSignals(input) };
  });
}

async function child(input: JobInput & { stepWorkers?: Record<string, number>; supplyScenarioId?: number | null; signals?: boolean }, step: string, childId: string, parentJobId: string): Promise<StepResult> {
  await bookkeeping.createChildJob({
    accountId: input.accountId, jobId: childId, parentJobId, kind: 'step', step,
    pipelineId: input.pipelineId, scenarioId: input.scenarioId, segmentId: input.segmentId, createdBy: input.createdBy,
  });
  await bookkeeping.jobLog({ accountId: input.accountId, jobId: input.jobId, message: `step ${step}: started as ${childId}` });
  try {
    return await executeChild(runStep, {
      workflowId: childId,
      args: [{ ...input, jobId: childId, step, nWorkers: input.stepWorkers?.[step] ?? input.nWorkers }],
      typedSearchAttributes: jobSearchAttributes({ accountId: input.accountId, kind: 'step', step, pipelineId: input.pipelineId, scenarioId: input.scenarioId }),
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    throw ApplicationFailure.nonRetryable(`step ${step} failed: ${messageOf(err)}`, 'StepFailed');
  }
}

