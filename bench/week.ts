/**
 * `npm run bench:week`: the week a planner runs, end to end, on the real stack. Per size and per number of worker
 * processes, in a fresh temporary directory: one embedded PostgreSQL, one headless Temporal dev server, the worker
 * process(es) (`node --import tsx temporal/worker.ts`) and the API (`node --import tsx api/main.ts`), then
 *
 *   1. load staging: the seeded demo tenant (scripts/demoData: items, sites, item_site, a network of routes,
 *      calendars, firm orders, supersession, demand) into the stg_* tables, from this process, as files would arrive
 *   2. import:       POST /api/import/run, workflow importRun
 *      (not timed: the demo pipeline, its maintenance events and its fleet, scripts/demoData/seed.ts does the same)
 *   3. run-all:      POST /api/pipeline/run-all, every step as a child job: etl, outlier, characterization, forecast,
 *      backtest, backtest-forecast, best-method, distribution, meio, eoq, supply with its allocation child, then
 *      alerts and the exception log once for the run (workflows/runStep.ts runSequence: from the last step's end to
 *      the run's end)
 *   4. freeze:       POST /api/history/freeze, workflow freezePipeline
 *
 * Measured per stage and per run-all step (from the jobs' started_at/finished_at): wall time; CPU seconds of the
 * workers, PostgreSQL (postmaster and backends), the API, Temporal and the rest of the machine (utime+stime from
 * /proc of each process tree, sampled every second and interpolated at the step's edges); the peak RSS of each
 * worker, the API and the largest PostgreSQL backend; rows written (n_tup_ins + n_tup_upd + n_tup_del of the
 * tenant's tables, pg_stat_user_tables); the database size at the end of the step. Whole cycle = import → freeze.
 *
 *   npm run bench:week                                  # 10,000 series with 1 and 2 workers; rewrites docs/BENCHMARKS.md
 *   npm run bench:week -- --sizes 100000 --workers 2    # 100,000 series (long)
 *   npm run bench:week -- --quick                       # 1,000 series, 1 worker, docs untouched
 *   npm run bench:week -- --report bench/out/week-<time>.json[,…]   # the doc block from saved (or stopped) runs
 *   options: --sizes a,b  --workers 1,2  --seed 42  --weeks 156  --doc | --no-doc  --keep
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAccount } from '../db/accounts';
import { sql, tenantSchemaName, withTenant } from '../db/pool';
import { REPO_ROOT } from '../lib/env';
import { logger } from '../lib/logger';
import { freePort } from '../lib/net';
import { loadDemoIntoStaging } from '../scripts/demoData/load';
import { seedDemoCausal } from '../scripts/demoData/causal';
import { seedDemoMaintenance } from '../scripts/demoData/maintenance';
import { ensureDemoPipeline } from '../scripts/demoData/seed';
import { optionValue, positiveInt } from './lib/args';
import { addPlanner, login, startApi, stopChild } from './lib/apiLoad';
import { describeGauge, measureHostGauge, type HostGauge } from './lib/hostGauge';
import { describeMachine, type Machine } from './lib/machine';
import { descendants, machineBusySeconds, memStatus, mib, treeCpuSeconds } from './lib/proc';
import { fixed, int, markdownTable, replaceBlock, secs, textTable } from './lib/report';
import { startBenchStack, type BenchStack, type WorkerProcess } from './lib/stack';

// ---------------------------------------------------------------------------------------------------------------
// Arguments

interface Args {
  /** a JSON file of an earlier run (bench/out/week-*.json) to write into docs/BENCHMARKS.md instead of measuring */
  report: string | undefined;
  sizes: number[];
  workers: number[];
  seed: number;
  weeks: number;
  doc: boolean;
  keep: boolean;
}

function parseArgs(argv: string[]): Args {
  const known = ['--sizes', '--workers', '--quick', '--seed', '--weeks', '--doc', '--no-doc', '--keep', '--report', '--help'];
  for (const a of argv) if (a.startsWith('--') && !known.includes(a)) throw new Error(`unknown option ${a} (known: ${known.join(' ')})`);
  if (argv.includes('--help')) {
    process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0].replace(/^\/\*\*?|^ \* ?/gm, '') + '\n');
    process.exit(0);
  }
  const value = (name: string) => optionValue(argv, name);
  const ints = (name: string, v: string): number[] => v.split(',').map((s) => positiveInt(name, s));
  const quick = argv.includes('--quick');
  const sizes = value('--sizes') ? ints('--sizes', value('--sizes')!) : quick ? [1000] : [10_000];
  const workers = value('--workers') ? ints('--workers', value('--workers')!) : quick ? [1] : [1, 2];
  const fullRun = !quick && !value('--sizes') && !value('--workers');
  return {
    report: value('--report'),
    sizes, workers,
    seed: value('--seed') ? Number(value('--seed')) : 42,
    weeks: value('--weeks') ? ints('--weeks', value('--weeks')!)[0] : 156,
    doc: argv.includes('--doc') || (fullRun && !argv.includes('--no-doc')),
    keep: argv.includes('--keep'),
  };
}

/** The shapes bench:etl uses, so the two benchmarks' demand is the same at the same size. */
function shapeOf(series: number): { items: number; sites: number } {
  const known: Record<number, { items: number; sites: number }> = { 1000: { items: 200, sites: 10 }, 10_000: { items: 1000, sites: 30 }, 100_000: { items: 5000, sites: 60 } };
  if (known[series]) return known[series];
  const sites = Math.min(60, Math.max(5, Math.round(Math.sqrt(series / 3))));
  return { items: Math.max(1, Math.ceil((series * 3) / sites)), sites };
}

const log = (msg: string) => process.stderr.write(`[bench:week ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------------------------
// Sampling: CPU, memory, rows written and database size, once a second

interface Sample {
  t: number;
  cpu: { workers: number; pg: number; api: number; temporal: number; bench: number; machine: number };
  rss: { workers: number[]; api: number; pgBackend: number };
  rows: number;
  dbBytes: number;
}

interface Procs {
  workers: WorkerProcess[];
  api: ChildProcess;
  stack: BenchStack;
  schema: string;
}

function pgLargestBackend(pgPid: number): number {
  let max = 0;
  // a backend that is exiting has no VmRSS line (NaN)
  for (const pid of [pgPid, ...descendants(pgPid)]) max = Math.max(max, memStatus(pid)?.rss || 0);
  return max;
}

class Sampler {
  readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(private readonly p: Procs) {}

  async take(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const { stack, workers, api, schema } = this.p;
      const t = Date.now();
      const cpu = {
        workers: workers.reduce((s, w) => s + treeCpuSeconds(w.pid), 0),
        pg: treeCpuSeconds(stack.pgPid),
        api: api.pid ? treeCpuSeconds(api.pid) : NaN,
        temporal: stack.temporalPid ? treeCpuSeconds(stack.temporalPid) : NaN,
        bench: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
        machine: machineBusySeconds(),
      };
      const rss = { workers: workers.map((w) => memStatus(w.pid)?.rss ?? 0), api: api.pid ? memStatus(api.pid)?.rss ?? 0 : 0, pgBackend: pgLargestBackend(stack.pgPid) };
      const r = (await stack.db.one(sql.unsafe`
        SELECT (SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::float8 FROM pg_stat_user_tables WHERE schemaname = ${schema}) AS rows,
               pg_database_size(current_database())::float8 AS db`)) as { rows: number; db: number };
      this.samples.push({ t, cpu, rss, rows: r.rows, dbBytes: r.db });
    } catch (err) {
      logger.debug({ err }, 'sample failed');
    } finally {
      this.busy = false;
    }
  }

  start(): void {
    void this.take();
    this.timer = setInterval(() => void this.take(), 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    while (this.busy) await sleep(50);
    // statistics reach pg_stat_user_tables up to a second after a transaction ends
    await sleep(1500);
    await this.take();
  }

  /** A cumulative reading at time t, interpolated between the samples around it. */
  at(t: number, read: (s: Sample) => number): number {
    const s = this.samples;
    if (!s.length) return NaN;
    if (t <= s[0].t) return read(s[0]);
    for (let i = 1; i < s.length; i += 1) {
      if (s[i].t >= t) {
        const a = s[i - 1];
        const b = s[i];
        const f = (t - a.t) / Math.max(1, b.t - a.t);
        return read(a) + f * (read(b) - read(a));
      }
    }
    return read(s[s.length - 1]);
  }

  /** The largest reading of samples within [t0, t1] (and the one just after, which saw the end of the span). */
  peak(t0: number, t1: number, read: (s: Sample) => number): number {
    let max = 0;
    let after = false;
    for (const s of this.samples) {
      if (s.t < t0) continue;
      if (s.t > t1) {
        if (after) break;
        after = true;
      }
      max = Math.max(max, read(s));
    }
    return max;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// One cycle

interface StepRow {
  stage: string;
  status: string;
  t0: number;
  t1: number;
  wall: number;
  cpu: { workers: number; pg: number; api: number; temporal: number; other: number };
  peakMiB: { worker: number; api: number; pgBackend: number };
  rows: number;
  dbMiB: number;
}

interface CycleResult {
  series: number;
  workers: number;
  shape: { items: number; sites: number; weeks: number; seed: number };
  staged: Record<string, number>;
  seriesMade: number | null;
  /** the cycle's allocation run: how much of the LP the greedy's optimality proofs left to HiGHS (absent before 2026-11-29) */
  allocation?: { method: string; groups: number; certified_groups: number | null; lp_columns: number | null; arcs: number } | null;
  steps: StepRow[];
  cycleSeconds: number;
  loadAvg: { start: number[]; end: number[] };
  otherCpuShare: number;
  failed: string | null;
  machine: Machine;
  /** the host gauge before the cycle and after it (absent before 2026-11-29 evening): how fast the machine was */
  gauge?: { start: HostGauge; end: HostGauge };
}

class Api {
  constructor(readonly url: string, readonly token: string) {}

  async post(p: string, body: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` }, body: JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed };
  }
}

interface JobTimes {
  job_id: string;
  kind: string;
  step: string | null;
  parent_job_id: string | null;
  status: string;
  started_ms: number | null;
  finished_ms: number | null;
  error: string | null;
  result: any;
}

async function jobsOf(stack: BenchStack, accountId: string, rootId: string): Promise<JobTimes[]> {
  return withTenant(stack.db, accountId, async (tx) => [...((await tx.any(sql.unsafe`
    WITH RECURSIVE tree AS (
      SELECT job_id FROM jobs WHERE job_id = ${rootId}
      UNION ALL SELECT j.job_id FROM jobs j JOIN tree t ON j.parent_job_id = t.job_id)
    SELECT j.job_id, j.kind, j.step, j.parent_job_id, j.status, j.error, j.result,
           extract(epoch FROM j.started_at) * 1000 AS started_ms, extract(epoch FROM j.finished_at) * 1000 AS finished_ms
    FROM jobs j JOIN tree USING (job_id) ORDER BY j.started_at NULLS LAST, j.created_at`)) as JobTimes[])]);
}

async function waitJob(stack: BenchStack, accountId: string, jobId: string, timeoutMs: number): Promise<JobTimes> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const [root] = await jobsOf(stack, accountId, jobId);
    if (root && ['completed', 'failed', 'killed'].includes(root.status)) return root;
    const running = (await jobsOf(stack, accountId, jobId)).filter((j) => j.status === 'running' && j.job_id !== jobId).map((j) => j.step ?? j.kind).join(', ');
    if (running && running !== last) log(`  … ${running}`);
    last = running || last;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish within ${timeoutMs / 1000} s`);
    await sleep(1000);
  }
}

async function runCycle(args: Args, series: number, nWorkers: number): Promise<CycleResult> {
  const shape = { ...shapeOf(series), weeks: args.weeks, seed: args.seed };
  log(`── ${int(series)} series (${shape.items} items × ${shape.sites} sites), ${nWorkers} worker process${nWorkers > 1 ? 'es' : ''}`);
  const stack = await startBenchStack({ log, keep: args.keep, onSignal: () => process.exit(130) });
  let api: ChildProcess | undefined;
  let sampler: Sampler | undefined;
  try {
    const machine = await describeMachine(stack.db);
    const workers: WorkerProcess[] = [];
    for (let i = 0; i < nWorkers; i += 1) workers.push(await stack.startWorker(`worker-${i + 1}`));
    const account = await createAccount(stack.db, stack.databaseUrl, `bench-week-${series}-${nWorkers}`);
    const accountId = account.id;
    const email = 'bench-week@example.com';
    const password = 'bench-week-password';
    await addPlanner(stack.db, accountId, email, password);
    const port = await freePort();
    api = await startApi(stack.databaseUrl, port, path.join(stack.tmpDir, 'api.log'), {
      TEMPORAL_ADDRESS: stack.temporalAddress, TEMPORAL_NAMESPACE: 'default', TEMPORAL_TASK_QUEUE: stack.taskQueue,
    });
    const url = `http://127.0.0.1:${port}`;
    const client = new Api(url, await login(url, email, password, accountId));
    log(`API pid ${api.pid}, workers ${workers.map((w) => w.pid).join(', ')}, PostgreSQL ${stack.pgPid}`);

    // before the sampler starts, so the gauge's CPU is in no step
    const gaugeStart = await measureHostGauge(stack.db);
    log(`host gauge: ${describeGauge(gaugeStart)}`);
    sampler = new Sampler({ workers, api, stack, schema: tenantSchemaName(accountId) });
    sampler.start();
    const loadStart = os.loadavg();
    const steps: Array<{ stage: string; status: string; t0: number; t1: number }> = [];
    let failed: string | null = null;

    // 1. load staging
    let t0 = Date.now();
    const staged = await loadDemoIntoStaging(stack.db, accountId, { seed: shape.seed, items: shape.items, sites: shape.sites, seriesTarget: series, weeks: shape.weeks });
    steps.push({ stage: 'load staging (bench process)', status: 'completed', t0, t1: Date.now() });
    log(`staged ${Object.entries(staged).map(([k, n]) => `${k} ${int(n)}`).join(', ')}`);

    // 2. import
    const cycleStart = Date.now();
    const imp = await client.post('/api/import/run', {});
    if (imp.status !== 200) throw new Error(`POST /api/import/run: ${imp.status} ${JSON.stringify(imp.body)}`);
    const impJob = await waitJob(stack, accountId, imp.body.run_id, 4 * 3600_000);
    steps.push({ stage: 'import', status: impJob.status, t0: impJob.started_ms ?? cycleStart, t1: impJob.finished_ms ?? Date.now() });
    if (impJob.status !== 'completed') failed = `import ${impJob.status}: ${impJob.error}`;

    // untimed: what seedDemoData adds between import and the pipeline (the fleet of the causal model, maintenance)
    const { pipelineId } = await withTenant(stack.db, accountId, (tx) => ensureDemoPipeline(tx, 'bench-week'));
    await withTenant(stack.db, accountId, (tx) => seedDemoMaintenance(tx, pipelineId));
    const fleet = await withTenant(stack.db, accountId, (tx) => seedDemoCausal(tx));
    log(`pipeline ${pipelineId}; fleet: ${fleet.asset_types} asset types, ${fleet.assets} assets`);

    // 3. run-all
    let seriesMade: number | null = null;
    let allocation: CycleResult['allocation'] = null;
    if (!failed) {
      t0 = Date.now();
      const ra = await client.post('/api/pipeline/run-all', { pipeline_id: pipelineId });
      if (ra.status !== 200) throw new Error(`POST /api/pipeline/run-all: ${ra.status} ${JSON.stringify(ra.body)}`);
      const root = await waitJob(stack, accountId, ra.body.job_id, 8 * 3600_000);
      const tree = await jobsOf(stack, accountId, root.job_id);
      for (const j of tree) {
        if (j.job_id === root.job_id || j.started_ms === null) continue;
        const nested = j.parent_job_id !== root.job_id;
        steps.push({ stage: `${nested ? '  ' : ''}${j.step ?? j.kind}`, status: j.status, t0: j.started_ms, t1: j.finished_ms ?? Date.now() });
        if (j.step === 'etl' && j.result?.series !== undefined) seriesMade = Number(j.result.series);
      }
      // run-all refreshes alerts and the exception log once, after its last step (workflows/runStep.ts runSequence)
      const lastStep = Math.max(...tree.filter((j) => j.job_id !== root.job_id && j.finished_ms !== null).map((j) => j.finished_ms!));
      if (Number.isFinite(lastStep) && root.finished_ms !== null) steps.push({ stage: 'alerts + exception log', status: root.status, t0: lastStep, t1: root.finished_ms });
      steps.push({ stage: 'run-all (whole)', status: root.status, t0: root.started_ms ?? t0, t1: root.finished_ms ?? Date.now() });
      if (root.status !== 'completed') failed = `run-all ${root.status}: ${root.error}`;
      const allocJob = tree.find((j) => j.step === 'allocation' && j.status === 'completed');
      if (allocJob) {
        allocation = await withTenant(stack.db, accountId, async (tx) => (await tx.maybeOne(sql.unsafe`
          SELECT method, (summary->>'groups')::int AS groups, (summary->'lp'->>'certified_groups')::int AS certified_groups,
                 (summary->'lp'->>'columns')::int AS lp_columns, (summary->>'arcs')::int AS arcs
          FROM allocation_runs WHERE run_id = ${allocJob.job_id}`)) as CycleResult['allocation']);
        if (allocation) log(`allocation: ${allocation.method}; greedy proven optimal in ${int(allocation.certified_groups ?? 0)} of ${int(allocation.groups)} groups, HiGHS on ${int(allocation.lp_columns ?? 0)} of ${int(allocation.arcs)} arcs`);
      }
    }

    // 4. freeze
    if (!failed) {
      t0 = Date.now();
      const fr = await client.post('/api/history/freeze', { pipeline_id: pipelineId, comment: 'bench:week' });
      if (fr.status !== 200 && fr.status !== 202) throw new Error(`POST /api/history/freeze: ${fr.status} ${JSON.stringify(fr.body)}`);
      const job = await waitJob(stack, accountId, fr.body.job_id, 4 * 3600_000);
      steps.push({ stage: 'freeze', status: job.status, t0: job.started_ms ?? t0, t1: job.finished_ms ?? Date.now() });
      if (job.status !== 'completed') failed = `freeze ${job.status}: ${job.error}`;
    }
    const cycleEnd = Date.now();
    await sampler.stop();
    const loadEnd = os.loadavg();
    const gaugeEnd = await measureHostGauge(stack.db);
    log(`host gauge: ${describeGauge(gaugeEnd)}`);

    const s = sampler;
    const rows: StepRow[] = steps.map((st) => {
      const d = (read: (x: Sample) => number) => s.at(st.t1, read) - s.at(st.t0, read);
      const cpu = { workers: d((x) => x.cpu.workers), pg: d((x) => x.cpu.pg), api: d((x) => x.cpu.api), temporal: d((x) => x.cpu.temporal), other: 0 };
      cpu.other = Math.max(0, d((x) => x.cpu.machine) - cpu.workers - cpu.pg - cpu.api - cpu.temporal - d((x) => x.cpu.bench));
      return {
        ...st,
        wall: (st.t1 - st.t0) / 1000,
        cpu,
        peakMiB: {
          worker: mib(s.peak(st.t0, st.t1, (x) => Math.max(0, ...x.rss.workers))),
          api: mib(s.peak(st.t0, st.t1, (x) => x.rss.api)),
          pgBackend: mib(s.peak(st.t0, st.t1, (x) => x.rss.pgBackend)),
        },
        rows: d((x) => x.rows),
        dbMiB: mib(s.at(st.t1 + 1500, (x) => x.dbBytes)),
      };
    });
    const machineCpu = s.at(cycleEnd, (x) => x.cpu.machine) - s.at(cycleStart, (x) => x.cpu.machine);
    const ours = ['workers', 'pg', 'api', 'temporal', 'bench'] as const;
    const ourCpu = ours.reduce((sum, k) => sum + s.at(cycleEnd, (x) => x.cpu[k]) - s.at(cycleStart, (x) => x.cpu[k]), 0);
    return {
      series, workers: nWorkers, shape, staged, seriesMade, allocation, steps: rows, cycleSeconds: (cycleEnd - cycleStart) / 1000,
      loadAvg: { start: loadStart, end: loadEnd }, otherCpuShare: Math.max(0, machineCpu - ourCpu) / Math.max(1, machineCpu), failed, machine,
      gauge: { start: gaugeStart, end: gaugeEnd },
    };
  } finally {
    if (sampler) await sampler.stop().catch(() => undefined);
    if (api) await stopChild(api);
    await stack.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const HEAD = ['stage / step', 'status', 'wall s', 'CPU s: workers / PostgreSQL / API / Temporal / other', 'peak RSS MiB: worker / API / PG backend', 'rows written', 'database MiB'];

function stepCells(r: StepRow): string[] {
  return [
    r.stage.startsWith('  ') ? `↳ ${r.stage.trim()}` : r.stage, r.status, secs(r.wall),
    `${fixed(r.cpu.workers)} / ${fixed(r.cpu.pg)} / ${fixed(r.cpu.api)} / ${fixed(r.cpu.temporal)} / ${fixed(r.cpu.other)}`,
    `${int(r.peakMiB.worker)} / ${int(r.peakMiB.api)} / ${int(r.peakMiB.pgBackend)}`,
    int(r.rows), int(r.dbMiB),
  ];
}

function cycleTitle(c: CycleResult): string {
  const mins = c.cycleSeconds / 60;
  return `**${int(c.series)} series, ${c.workers} worker process${c.workers > 1 ? 'es' : ''}** (${c.machine.date}): whole cycle (import → freeze) ${fixed(mins, 1)} min${c.failed ? ` — **${c.failed}**` : ''}; `
    + `load average ${c.loadAvg.start.map((x) => fixed(x, 2)).join(' ')} at the start, ${c.loadAvg.end.map((x) => fixed(x, 2)).join(' ')} at the end; `
    + `other processes used ${fixed(c.otherCpuShare * 100, 0)} % of the machine's busy CPU during the cycle`
    + (c.gauge ? `; host gauge (bench/lib/hostGauge.ts, lower is faster) ${describeGauge(c.gauge.start)} before, ${describeGauge(c.gauge.end)} after.` : '.');
}

/**
 * Per step: wall time with 1 and with 2 (or more) workers, and the ratio; only sizes measured with one worker
 * process (the newest such cycle) and with more.
 */
function speedups(results: CycleResult[]): string {
  const out: string[] = [];
  for (const size of [...new Set(results.map((r) => r.series))]) {
    const runs = results.filter((r) => r.series === size);
    const one = runs.filter((r) => r.workers === 1).at(-1);
    const more = [...new Set(runs.filter((r) => r.workers > 1).map((r) => r.workers))].sort((a, b) => a - b)
      .map((w) => runs.filter((r) => r.workers === w).at(-1)!);
    if (!one || more.length === 0) continue;
    const names = one.steps.map((s) => s.stage);
    const rows = names.map((n) => {
      const base = one.steps.find((s) => s.stage === n)!;
      return [n.startsWith('  ') ? `↳ ${n.trim()}` : n, secs(base.wall), ...more.flatMap((m) => {
        const o = m.steps.find((s) => s.stage === n);
        return o ? [secs(o.wall), `${fixed(base.wall / Math.max(0.001, o.wall), 2)}×`] : ['–', '–'];
      })];
    });
    rows.push(['whole cycle', secs(one.cycleSeconds), ...more.flatMap((m) => [secs(m.cycleSeconds), `${fixed(one.cycleSeconds / m.cycleSeconds, 2)}×`])]);
    out.push(`Speed-up at ${int(size)} series (wall seconds):\n\n${markdownTable(['step', '1 worker', ...more.flatMap((m) => [`${m.workers} workers`, 'speed-up'])], rows)}`);
  }
  return out.join('\n\n');
}

/**
 * Cycles of the same size and worker count on different dates (the code changed between them): wall and CPU seconds
 * (all processes) per step side by side, so a change shows step by step.
 */
function comparisons(results: CycleResult[]): string {
  const out: string[] = [];
  const setups = [...new Set(results.map((r) => `${r.series}/${r.workers}`))];
  for (const setup of setups) {
    const runs = results.filter((r) => `${r.series}/${r.workers}` === setup);
    if (runs.length < 2) continue;
    const cpu = (st: StepRow | undefined) => (st ? st.cpu.workers + st.cpu.pg + st.cpu.api + st.cpu.temporal : NaN);
    const rows = runs[0]!.steps.map((step) => [
      step.stage.startsWith('  ') ? `↳ ${step.stage.trim()}` : step.stage,
      ...runs.map((r) => {
        const st = r.steps.find((x) => x.stage === step.stage);
        return st ? `${secs(st.wall)} / ${secs(cpu(st))}` : '–';
      }),
    ]);
    rows.push(['whole cycle (wall)', ...runs.map((r) => `${fixed(r.cycleSeconds / 60, 1)} min`)]);
    rows.push(["other processes' share of the busy CPU", ...runs.map((r) => `${fixed(r.otherCpuShare * 100, 0)} %`)]);
    if (runs.some((r) => r.gauge)) rows.push(['host gauge before / after, Node ms (lower is faster)', ...runs.map((r) => (r.gauge ? `${fixed(r.gauge.start.node_ms, 0)} / ${fixed(r.gauge.end.node_ms, 0)}` : '–'))]);
    const [series, workers] = setup.split('/').map(Number);
    out.push(`The ${int(series!)}-series cycles with ${workers} worker process${workers! > 1 ? 'es' : ''} side by side, per step wall seconds / CPU seconds of the workers, PostgreSQL, the API and Temporal:\n\n`
      + markdownTable(['stage / step', ...runs.map((r) => r.machine.date)], rows, ['l', ...runs.map(() => 'r' as const)]));
  }
  return out.join('\n\n');
}

function docBlock(machine: Machine, results: CycleResult[]): string {
  const parts = [
    `Measured by \`npm run bench:week\` (each cycle's date beside it) on ${machine.nproc} CPUs (${machine.cpu}), ${machine.memory}, PostgreSQL ${machine.postgres}, Node ${machine.node}. `
    + `Demo data seed ${results[0]?.shape.seed}, ${results[0]?.shape.weeks} weeks; tenant defaults (pipeline.n_workers 2: two chunk activities in flight whatever the number of worker processes). `
    + 'The load averages and the other processes\' CPU share under each size say how busy the machine was; CPU seconds are a steadier measure than wall time on a shared machine.',
  ];
  for (const c of results) {
    const staged = Object.entries(c.staged).map(([k, n]) => `${k} ${int(n)}`).join(', ');
    parts.push(`${cycleTitle(c)} Staged: ${staged}; etl made ${c.seriesMade === null ? '–' : int(c.seriesMade)} series.\n\n${markdownTable(HEAD, c.steps.map(stepCells), ['l', 'l', 'r', 'r', 'r', 'r', 'r'])}`);
  }
  const sp = speedups(results);
  if (sp) parts.push(sp);
  const cmp = comparisons(results);
  if (cmp) parts.push(cmp);
  return parts.join('\n\n');
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.report) {
    // cycles saved one by one: a run stopped before its end still reports the ones it finished; several files (the
    // 100,000-series cycle takes an hour) report together, each cycle under its own date
    const saved = args.report.split(',').map((f) => JSON.parse(fs.readFileSync(f.trim(), 'utf8')) as { machine: Machine; results: CycleResult[] });
    const results = saved.flatMap((r) => r.results).sort((a, b) => a.series - b.series || a.workers - b.workers);
    replaceBlock(path.join(REPO_ROOT, 'docs', 'BENCHMARKS.md'), 'bench:week', docBlock(saved[0].machine, results), { skeleton: '# Benchmarks\n', heading: '## The weekly cycle end to end' });
    log(`docs/BENCHMARKS.md updated from ${args.report}`);
    return;
  }
  const results: CycleResult[] = [];
  const outDir = path.join(REPO_ROOT, 'bench', 'out');
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `week-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  for (const series of args.sizes) {
    for (const w of args.workers) {
      const r = await runCycle(args, series, w);
      results.push(r);
      // written after every cycle: a long run that fails later keeps what it measured
      fs.writeFileSync(file, JSON.stringify({ machine: results[0].machine, results }, null, 2));
      process.stdout.write(`\n${cycleTitle(r)}\n${textTable(HEAD, r.steps.map(stepCells), ['l', 'l', 'r', 'r', 'r', 'r', 'r'])}\n`);
    }
  }
  const machine = results[0].machine;
  log(`raw figures in ${path.relative(REPO_ROOT, file)}`);
  const sp = speedups(results);
  if (sp) process.stdout.write(`\n${sp}\n`);
  if (args.doc) {
    replaceBlock(path.join(REPO_ROOT, 'docs', 'BENCHMARKS.md'), 'bench:week', docBlock(machine, results), { skeleton: '# Benchmarks\n', heading: '## The weekly cycle end to end' });
    log('docs/BENCHMARKS.md updated');
  }
}

main().then(() => process.exit(0), (err) => {
  log(`failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
