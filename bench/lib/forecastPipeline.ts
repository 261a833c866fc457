/**
 * The forecasting steps through the real pipeline, for bench/forecastSpeed.ts: a throw-away stack (bench/lib/stack.ts:
 * embedded PostgreSQL, Temporal dev server, one worker process per core (--pipeline-workers) as production runs them), a generated tenant loaded,
 * imported and etl'ed as bench/etl.ts does, then each forecasting step started as POST /api/pipeline/run/{step} starts
 * it (a jobs row + workflow runStep through startJob) and timed: wall time, CPU seconds of the worker, PostgreSQL and
 * Temporal (from /proc, so other load on the machine does not count), worker peak RSS (VmHWM reset per step, and a
 * 250 ms VmRSS sample). A failed step is reported with its error and the run goes on to the next.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STEP_HANDLERS } from '../../activities/steps/registry';
import { newJobId, startJob } from '../../api/jobs/service';
import { startImportRun } from '../../api/routes/import';
import { createAccount } from '../../db/accounts';
import { listTenantParameters, setTenantParameter } from '../../db/parameters';
import { insertPipeline } from '../../db/pipelines';
import { withTenant } from '../../db/pool';
import { isStepAvailable } from '../../lib/steps';
import { loadDemoIntoStaging } from '../../scripts/demoData/load';
import type { RunStepInput, StepResult } from '../../workflows/runStep';
import { memStatus, mib, resetPeak, RssSampler, treeCpuSeconds } from './proc';
import { fixed } from './report';
import { activityTimeline } from './activityTimeline';
import { followWorkflow } from './followWorkflow';
import { startBenchStack, type BenchStack, type WorkerProcess } from './stack';

/** The forecasting steps in pipeline order (what run-all runs after the etl). */
export const FORECAST_STEPS = ['outlier', 'characterization', 'forecast', 'backtest', 'backtest-forecast', 'best-method', 'distribution'] as const;

/** Null when every forecasting step can run; else why not (the pipeline part is then skipped with this message). */
export function pipelineNotReady(): string | null {
  const missing = FORECAST_STEPS.filter((s) => !isStepAvailable(s) || !STEP_HANDLERS[s]);
  return missing.length
    ? `forecasting steps not available yet: ${missing.join(', ')} (lib/steps.ts \`available\` flag and a handler in activities/steps/registry.ts)`
    : null;
}

export interface StepTiming {
  step: string;
  ok: boolean;
  error?: string;
  seconds: number;
  series: number;
  rows: number;
  chunks: number;
  cpu: { worker: number; postgres: number; temporal: number };
  workerPeak: number;
  workerSampledMax: number;
  /** the chunk activities on the compute queue: how busy the worker processes were (bench/lib/activityTimeline.ts) */
  chunks_timeline?: { span: number; utilisation: number; tail: number; queueWait: number; gap: number; longest: number };
}

export interface PipelineRun {
  series: number;
  shape: { items: number; sites: number; weeks: number; seed: number };
  settings: { nWorkers: number; chunkSize: number; backtestWindows: number; workerProcesses: number };
  prepare: { loadSeconds: number; importSeconds: number; etlSeconds: number; etlSeries: number };
  workerStartup: { seconds: number; rss: number };
  steps: StepTiming[];
  /** sum of the timed steps' wall time */
  totalSeconds: number;
  totalCpu: { worker: number; postgres: number; temporal: number };
}



/** items × sites of the generated tenant (bench/etl.ts's shapes). */
function shapeOf(series: number): { items: number; sites: number } {
  const known: Record<number, { items: number; sites: number }> = { 1000: { items: 200, sites: 10 }, 10_000: { items: 1000, sites: 30 } };
  if (known[series]) return known[series];
  const sites = Math.min(60, Math.max(3, Math.ceil(series / 20)));
  return { items: Math.max(1, Math.ceil((series * 3) / sites)), sites };
}

/** What a bench's hooks get: the live stack with the tenant and pipeline the steps run on. */
export interface PipelineContext {
  stack: BenchStack;
  accountId: string;
  pipelineId: number;
  workers: readonly WorkerProcess[];
  log: (m: string) => void;
}

/**
 * `--hold`: after the measurements, keep the stack and its data until the file this writes (the database URL,
 * tenant and pipeline) is removed, so a change to a read can be measured again on the same data without the minutes
 * of import and steps before it.
 */
async function holdIfAsked(ctx: PipelineContext): Promise<void> {
  if (!process.argv.includes('--hold')) return;
  const file = path.join(os.tmpdir(), `bench-hold-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify({ databaseUrl: ctx.stack.databaseUrl, accountId: ctx.accountId, pipelineId: ctx.pipelineId }));
  ctx.log(`holding the stack: ${file} (remove it to stop)`);
  while (fs.existsSync(file) && !ctx.stack.signal.aborted) await new Promise((r) => setTimeout(r, 1000));
}

export async function runForecastPipeline(opts: {
  series: number; seed: number; weeks: number; backtestWindows: number; workerProcesses: number; log: (m: string) => void; steps?: readonly string[];
  /** after the etl, before the timed steps (e.g. seed results the steps need instead of running the steps that make them); not timed */
  prepare?: (ctx: PipelineContext) => Promise<void>;
  /** after the timed steps, while the stack and its data are still there */
  after?: (ctx: PipelineContext, steps: readonly StepTiming[]) => Promise<void>;
}): Promise<PipelineRun> {
  const { log } = opts;
  const stack = await startBenchStack({ log, onSignal: () => process.exit(130) });
  try {
    const { items, sites } = shapeOf(opts.series);
    const account = await createAccount(stack.db, stack.databaseUrl, `bench-forecast-${opts.series}-${Date.now()}`);
    const accountId = account.id;
    const pipelineId = await withTenant(stack.db, accountId, (tx) =>
      insertPipeline(tx, { name: 'bench', description: 'bench:forecast', forecast_scenario_id: null, is_active: true, settings: {} }, 'bench'));
    // the issue's tournament: 3 backtest origins (the catalogue default is 4); everything else at its default
    const settings = await withTenant(stack.db, accountId, async (tx) => {
      await setTenantParameter(tx, 'backtest', 'windows', opts.backtestWindows);
      const params = await listTenantParameters(tx);
      const get = (key: string, fallback: number) => Number(params.find((p) => p.parameter_type === 'pipeline' && p.key === key)?.value ?? fallback);
      return { nWorkers: get('n_workers', 2), chunkSize: get('chunk_size', 500), backtestWindows: opts.backtestWindows, workerProcesses: opts.workerProcesses };
    });
    const t0 = performance.now();
    // A worker runs its activities on one thread and the engines are CPU-bound: one worker process per core, as a
    // deployment would scale the worker service, lets two chunks compute at once.
    const workers = await Promise.all(Array.from({ length: Math.max(1, opts.workerProcesses) }, (_, i) => stack.startWorker(`worker-forecast-${opts.series}-${i + 1}`)));
    const worker = workers[0];
    const workerStartup = { seconds: (performance.now() - t0) / 1000, rss: memStatus(worker.pid)?.rss ?? NaN };
    const temporal = { client: stack.client, taskQueue: stack.taskQueue };
    try {
      log(`pipeline: ${opts.series} series (${items} items × ${sites} sites, ${opts.weeks} weeks): load staging, import, etl …`);
      let t = performance.now();
      await loadDemoIntoStaging(stack.db, accountId, { seed: opts.seed, items, sites, seriesTarget: opts.series, weeks: opts.weeks });
      const loadSeconds = (performance.now() - t) / 1000;
      t = performance.now();
      const run = await startImportRun(stack.db, temporal, { accountId, createdBy: 'bench' });
      const imp = await followWorkflow(stack, worker, accountId, run.run_id, log);
      if (!imp.ok) throw new Error(`import failed: ${imp.error}`);
      const importSeconds = (performance.now() - t) / 1000;
      const runStep = async (step: string) => {
        const jobId = newJobId(step);
        const input: RunStepInput = { jobId, accountId, pipelineId, scenarioId: null, segmentId: null, createdBy: 'bench', nWorkers: null, step };
        await startJob(stack.db, temporal, accountId, {
          job_id: jobId, kind: 'step', step, pipeline_id: pipelineId, scenario_id: null, segment_id: null, created_by: 'bench', params: { n_workers: null },
        }, 'runStep', [input]);
        const out = await followWorkflow<StepResult>(stack, worker, accountId, jobId, log);
        return { out, jobId };
      };
      t = performance.now();
      const { out: etl } = await runStep('etl');
      if (!etl.ok) throw new Error(`etl failed: ${etl.error}`);
      const etlSeconds = (performance.now() - t) / 1000;
      log(`  load ${loadSeconds.toFixed(1)} s, import ${importSeconds.toFixed(1)} s, etl ${etlSeconds.toFixed(1)} s (${etl.result.series} series)`);
      const ctx: PipelineContext = { stack, accountId, pipelineId, workers, log };
      if (opts.prepare) await opts.prepare(ctx);

      const cpuNow = () => ({ worker: workers.reduce((n, w) => n + treeCpuSeconds(w.pid), 0), postgres: treeCpuSeconds(stack.pgPid), temporal: stack.temporalPid ? treeCpuSeconds(stack.temporalPid) : NaN });
      const steps: StepTiming[] = [];
      for (const step of opts.steps ?? FORECAST_STEPS) {
        log(`pipeline step ${step} …`);
        for (const w of workers) resetPeak(w.pid);
        const sampler = RssSampler.ofPid(worker.pid);
        const c0 = cpuNow();
        const ts = performance.now();
        const { out, jobId } = await runStep(step);
        const seconds = (performance.now() - ts) / 1000;
        const tl = await activityTimeline(stack.client, jobId, (type) => type === 'seriesStepChunk').catch(() => null);
        const c1 = cpuNow();
        const sampled = sampler.stop();
        const timing: StepTiming = {
          step, ok: out.ok, seconds,
          ...(out.ok ? { series: out.result.series, rows: out.result.rows, chunks: out.result.chunks } : { error: out.error, series: NaN, rows: NaN, chunks: NaN }),
          cpu: { worker: c1.worker - c0.worker, postgres: c1.postgres - c0.postgres, temporal: c1.temporal - c0.temporal },
          // summed over the worker processes
          workerPeak: workers.reduce((n, w) => n + (memStatus(w.pid)?.hwm ?? NaN), 0),
          workerSampledMax: sampled.max,
          ...(tl?.activities.length
            ? { chunks_timeline: { span: tl.span, utilisation: tl.utilisation, tail: tl.tail, queueWait: tl.queueWait, gap: tl.gap, longest: Math.max(...tl.activities.map((a) => (a.ended - a.started) / 1000)) } }
            : {}),
        };
        steps.push(timing);
        log(`  ${step}: ${out.ok ? `${timing.series} series, ${timing.rows} rows` : `FAILED: ${timing.error}`} in ${seconds.toFixed(1)} s; CPU worker ${timing.cpu.worker.toFixed(1)} s, PostgreSQL ${timing.cpu.postgres.toFixed(1)} s; worker peak ${fixed(mib(timing.workerPeak), 0)} MiB${timing.chunks_timeline ? `; chunks ${fixed(timing.chunks_timeline.span, 1)} s, workers busy ${fixed(100 * timing.chunks_timeline.utilisation, 0)} %, tail ${fixed(timing.chunks_timeline.tail, 1)} s, mean gap between a worker's chunks ${fixed(timing.chunks_timeline.gap, 2)} s, longest chunk ${fixed(timing.chunks_timeline.longest, 1)} s` : ''}`);
      }
      if (opts.after) await opts.after(ctx, steps);
      await holdIfAsked(ctx);
      const sum = (f: (s: StepTiming) => number) => steps.reduce((a, s) => a + f(s), 0);
      return {
        series: opts.series, shape: { items, sites, weeks: opts.weeks, seed: opts.seed }, settings,
        prepare: { loadSeconds, importSeconds, etlSeconds, etlSeries: etl.result.series },
        workerStartup,
        steps,
        totalSeconds: sum((s) => s.seconds),
        totalCpu: { worker: sum((s) => s.cpu.worker), postgres: sum((s) => s.cpu.postgres), temporal: sum((s) => s.cpu.temporal) },
      };
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  } finally {
    await stack.stop();
  }
}
