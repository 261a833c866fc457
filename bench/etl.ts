/**
 * `npm run bench:etl`: import + etl of generated demand through the real pipeline, at 10,000 and 100,000 weekly series
 * of 156 weeks. One embedded PostgreSQL and one headless Temporal dev server in a fresh temporary directory; per size a
 * fresh account (createAccount) and a fresh worker process (`node --import tsx temporal/worker.ts`). Stages per size:
 *
 *   1. load staging: scripts/demoData/load.ts puts the seeded demo tenant into the stg_* tables (this process)
 *   2. import:       startImportRun (what POST /api/import/run calls), workflow importRun on the worker
 *   3. etl:          a jobs row + workflow runStep {step: 'etl'} started with startJob (what POST /api/pipeline/run/etl
 *                    calls), chunk activities on the worker
 *   4. reference:    the same two transformations as single set-based SQL statements, as a floor (--no-reference skips)
 *
 * Measured: wall time, rows/s, the worker's peak RSS per stage (VmHWM from /proc, reset at the start of each stage, and
 * the max of a 250 ms VmRSS sample), this process's peak RSS, CPU seconds of the worker, PostgreSQL, Temporal, this
 * process and every other process on the machine per stage, activity times from the workflow histories, PostgreSQL
 * time per statement (pg_stat_activity sampled every 250 ms; --no-profile skips) and table sizes. A failed job is a
 * result, not a crash. Results: a table on stdout, JSON and RSS curves in bench/out/, and (for the full run, or with
 * --doc) the results block of docs/BENCHMARKS.md.
 *
 *   npm run bench:etl                          # 10000,100000
 *   npm run bench:etl -- --quick               # 1000 only, docs untouched
 *   npm run bench:etl -- --sizes 10000 [--doc | --no-doc] [--no-reference] [--no-profile] [--seed 42] [--weeks 156]
 *                                              [--n-workers 2] [--chunk-size 500] [--keep]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startImportRun } from '../api/routes/import';
import { newJobId, startJob } from '../api/jobs/service';
import { createAccount } from '../db/accounts';
import { getRunTables } from '../db/importStaging';
import { getJob } from '../db/jobs';
import { listTenantParameters, setTenantParameter } from '../db/parameters';
import { insertPipeline } from '../db/pipelines';
import { sql, withTenant, type Db } from '../db/pool';
import { REPO_ROOT } from '../lib/env';
import { logger } from '../lib/logger';
import { loadDemoIntoStaging } from '../scripts/demoData/load';
import type { ImportRunResult } from '../workflows/importRun';
import type { RunStepInput, StepResult } from '../workflows/runStep';
import { optionValue, positiveInt } from './lib/args';
import { statsOf, summarizeHistory, type ActivityStats } from './lib/history';
import { describeMachine, type Machine } from './lib/machine';
import { PgSampler, type PgProfile } from './lib/pgSampler';
import { machineBusySeconds, memStatus, mib, resetPeak, RssSampler, treeCpuSeconds } from './lib/proc';
import { fixed, int, markdownTable, replaceBlock, secs, textTable } from './lib/report';
import { followWorkflow } from './lib/followWorkflow';
import { startBenchStack, type BenchStack, type WorkerProcess } from './lib/stack';

// ---------------------------------------------------------------------------------------------------------------
// Arguments

interface Args {
  sizes: number[];
  seed: number;
  weeks: number;
  doc: boolean;
  reference: boolean;
  nWorkers: number | null;
  chunkSize: number | null;
  keep: boolean;
  profile: boolean;
}

function parseArgs(argv: string[]): Args {
  const value = (name: string) => optionValue(argv, name);
  const known = ['--sizes', '--quick', '--seed', '--weeks', '--no-doc', '--doc', '--no-reference', '--n-workers', '--chunk-size', '--keep', '--no-profile', '--help'];
  for (const a of argv) if (a.startsWith('--') && !known.includes(a)) throw new Error(`unknown option ${a} (known: ${known.join(' ')})`);
  if (argv.includes('--help')) {
    process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0].replace(/^\/\*\*?|^ \* ?/gm, '') + '\n');
    process.exit(0);
  }
  const quick = argv.includes('--quick');
  const sizesArg = value('--sizes');
  const sizes = sizesArg ? sizesArg.split(',').map((s) => positiveInt('--sizes', s.trim())) : quick ? [1000] : [10_000, 100_000];
  const fullRun = !quick && !sizesArg;
  return {
    sizes,
    seed: value('--seed') ? Number(value('--seed')) : 42,
    weeks: value('--weeks') ? positiveInt('--weeks', value('--weeks')!) : 156,
    // only the standard run rewrites the published figures, unless asked
    doc: argv.includes('--doc') || (fullRun && !argv.includes('--no-doc')),
    reference: !argv.includes('--no-reference'),
    nWorkers: value('--n-workers') ? positiveInt('--n-workers', value('--n-workers')!) : null,
    chunkSize: value('--chunk-size') ? positiveInt('--chunk-size', value('--chunk-size')!) : null,
    keep: argv.includes('--keep'),
    profile: !argv.includes('--no-profile'),
  };
}

/** items × sites of the generated tenant: the shapes docs/DEMO_DATA.md uses, else 20 series per item over ≤ 60 sites. */
function shapeOf(series: number): { items: number; sites: number } {
  const known: Record<number, { items: number; sites: number }> = { 1000: { items: 200, sites: 10 }, 10_000: { items: 1000, sites: 30 }, 100_000: { items: 5000, sites: 60 } };
  if (known[series]) return known[series];
  const sites = Math.min(60, Math.max(3, Math.ceil(series / 20)));
  return { items: Math.max(1, Math.ceil((series * 3) / sites)), sites };
}

// ---------------------------------------------------------------------------------------------------------------
// Measurement

const log = (msg: string) => process.stdout.write(`[bench:etl ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OUT_DIR = path.join(REPO_ROOT, 'bench', 'out');
const DOC = path.join(REPO_ROOT, 'docs', 'BENCHMARKS.md');

interface Cpu {
  worker: number;
  postgres: number;
  temporal: number;
  bench: number;
  /** every other process on the machine (other people's tests, say): busy CPU of the machine minus the four above */
  other: number;
}

interface StageResult {
  stage: 'load' | 'import' | 'etl';
  seconds: number;
  /** the rows that define the rate: all staged rows (load), demand rows (import), weekly rows (etl) */
  rows: number;
  rowsPerSec: number;
  /** worker VmHWM over the stage (reset at its start); NaN for load, where the worker is idle */
  workerPeak: number;
  workerSampledMax: number;
  workerRssAfter: number;
  benchPeak: number;
  cpu: Cpu;
  /** PostgreSQL backend-seconds per statement, from sampling pg_stat_activity (absent with --no-profile) */
  pg?: PgProfile;
  detail: Record<string, unknown>;
}

interface SizeResult {
  series: number;
  shape: { items: number; sites: number; seriesTarget: number; weeks: number; seed: number };
  accountId: string;
  staged: Record<string, number>;
  workerStartup: { seconds: number; peak: number; rss: number };
  stages: StageResult[];
  sizes: Record<string, number>;
  reference?: { importSeconds: number; importRows: number; importFkSeconds: number; importFkRows: number; etlSeconds: number; etlRows: number };
  settings: { nWorkers: number; chunkSize: number };
}

function cpuNow(stack: BenchStack, worker: WorkerProcess | undefined): Cpu {
  const self = process.cpuUsage();
  return {
    worker: worker ? treeCpuSeconds(worker.pid) : NaN,
    postgres: treeCpuSeconds(stack.pgPid),
    temporal: stack.temporalPid ? treeCpuSeconds(stack.temporalPid) : NaN,
    bench: (self.user + self.system) / 1e6,
    other: machineBusySeconds(),
  };
}

const cpuDiff = (a: Cpu, b: Cpu): Cpu => {
  const d = { worker: b.worker - a.worker, postgres: b.postgres - a.postgres, temporal: b.temporal - a.temporal, bench: b.bench - a.bench };
  const ours = (Number.isFinite(d.worker) ? d.worker : 0) + d.postgres + (Number.isFinite(d.temporal) ? d.temporal : 0) + d.bench;
  return { ...d, other: Math.max(0, b.other - a.other - ours) };
};

let peakResetWorks = true;
let profile = true;

function logProfile(pg: PgProfile | undefined): void {
  if (!pg) return;
  log(`  PostgreSQL backend-seconds by statement (sampled every ${pg.intervalMs} ms): ${pg.seconds.slice(0, 6).map((x) => `${x.label} ${secs(x.seconds)}`).join('; ')}`);
}

/** Runs one stage with timing, CPU and memory around it. */
async function measure(
  stack: BenchStack,
  worker: WorkerProcess | undefined,
  label: string,
  body: () => Promise<{ rows?: number; detail?: Record<string, unknown>; after?: () => Promise<{ rows?: number; detail?: Record<string, unknown> }> }>,
): Promise<Omit<StageResult, 'stage'>> {
  if (worker) peakResetWorks = resetPeak(worker.pid) && peakResetWorks;
  const workerSampler = worker ? RssSampler.ofPid(worker.pid) : undefined;
  const selfSampler = RssSampler.ofSelf();
  const pgSampler = profile ? new PgSampler(stack.db) : undefined;
  const cpu0 = cpuNow(stack, worker);
  const t0 = performance.now();
  const timed = await body();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuDiff(cpu0, cpuNow(stack, worker));
  const w = workerSampler?.stop();
  const self = selfSampler.stop();
  const pg = await pgSampler?.stop();
  const status = worker ? memStatus(worker.pid) : undefined;
  // reading results and histories is not part of the stage's time
  const more = (await timed.after?.()) ?? {};
  const rows = more.rows ?? timed.rows ?? NaN;
  const detail = { ...timed.detail, ...more.detail };
  if (w) {
    fs.mkdirSync(OUT_DIR, { recursive: true });
    fs.writeFileSync(path.join(OUT_DIR, `etl-${label}-worker-rss.csv`), 'ms,rss_mib\n' + w.samples.map((s) => `${s.ms},${mib(s.rss).toFixed(1)}`).join('\n') + '\n');
  }
  return {
    seconds, rows, rowsPerSec: rows / seconds,
    // without a working reset VmHWM is the worker's lifetime peak, so the sampled max is the better per-stage figure
    workerPeak: status ? (peakResetWorks ? status.hwm : w!.max) : NaN,
    workerSampledMax: w?.max ?? NaN,
    workerRssAfter: status?.rss ?? NaN,
    benchPeak: self.max,
    cpu,
    ...(pg ? { pg } : {}),
    detail,
  };
}

async function tableSizes(db: Db, accountId: string): Promise<Record<string, number>> {
  return withTenant(db, accountId, async (tx) => {
    const row = (await tx.one(sql.unsafe`
      SELECT pg_total_relation_size('stg_demand_history')::int8 AS stg_demand_history,
        pg_total_relation_size('demand_history')::int8 AS demand_history,
        pg_total_relation_size('series_weekly')::int8 AS series_weekly,
        pg_total_relation_size('series')::int8 AS series,
        pg_database_size(current_database())::int8 AS database`)) as Record<string, number>;
    return { ...row };
  });
}



// ---------------------------------------------------------------------------------------------------------------
// One size

async function runSize(stack: BenchStack, args: Args, series: number): Promise<SizeResult> {
  const { items, sites } = shapeOf(series);
  const shape = { items, sites, seriesTarget: series, weeks: args.weeks, seed: args.seed };
  log(`=== ${int(series)} series: ${items} items × ${sites} sites, ${args.weeks} weeks, seed ${args.seed}`);
  const account = await createAccount(stack.db, stack.databaseUrl, `bench-etl-${series}-${Date.now()}`);
  const accountId = account.id;
  const pipelineId = await withTenant(stack.db, accountId, (tx) =>
    insertPipeline(tx, { name: 'bench', description: 'bench:etl', forecast_scenario_id: null, is_active: true, settings: {} }, 'bench'));
  // what stepSettings will read: the tenant's pipeline parameters (API defaults), --chunk-size stored as one
  const settings = await withTenant(stack.db, accountId, async (tx) => {
    if (args.chunkSize) await setTenantParameter(tx, 'pipeline', 'chunk_size', args.chunkSize);
    const params = await listTenantParameters(tx);
    const get = (key: string, fallback: number) => Number(params.find((p) => p.parameter_type === 'pipeline' && p.key === key)?.value ?? fallback);
    return { nWorkers: args.nWorkers ?? get('n_workers', 2), chunkSize: get('chunk_size', 500) };
  });

  // A fresh worker per size: its startup peak (webpack bundles the workflows in-process) is reported separately.
  const t0 = performance.now();
  const worker = await stack.startWorker(`worker-${series}`);
  const startup = memStatus(worker.pid)!;
  const workerStartup = { seconds: (performance.now() - t0) / 1000, peak: startup.hwm, rss: startup.rss };
  log(`worker pid ${worker.pid} healthy in ${secs(workerStartup.seconds)} s; startup peak ${fixed(mib(startup.hwm), 0)} MiB, now ${fixed(mib(startup.rss), 0)} MiB`);

  const stages: StageResult[] = [];
  try {
    // 1. load staging
    let staged: Record<string, number> = {};
    log('load staging …');
    const load = await measure(stack, worker, `${series}-load`, async () => {
      staged = await loadDemoIntoStaging(stack.db, accountId, { seed: args.seed, items, sites, seriesTarget: series, weeks: args.weeks });
      return { rows: Object.values(staged).reduce((n, v) => n + v, 0), detail: { demandRows: staged.demand_history } };
    });
    stages.push({ stage: 'load', ...load, workerPeak: NaN, workerSampledMax: NaN });
    const demandRows = staged.demand_history;
    log(`  staged ${int(load.rows)} rows (${int(demandRows)} demand) in ${secs(load.seconds)} s = ${int(load.rowsPerSec)} rows/s`);
    const stgSize = (await tableSizes(stack.db, accountId)).stg_demand_history;

    // 2. import, as POST /api/import/run does it
    log('import run …');
    const temporal = { client: stack.client, taskQueue: stack.taskQueue };
    const imp = await measure(stack, worker, `${series}-import`, async () => {
      const run = await startImportRun(stack.db, temporal, { accountId, createdBy: 'bench' });
      const outcome = await followWorkflow<ImportRunResult>(stack, worker, accountId, run.run_id, log);
      return { after: async () => {
        const job = (await withTenant(stack.db, accountId, (tx) => getJob(tx, run.run_id)))!;
        const tables = await withTenant(stack.db, accountId, (tx) => getRunTables(tx, [run.run_id]));
        const demand = tables.find((t) => t.table_name === 'demand_history')!;
        // per-table activity times from the workflow history (import_run_tables.finished_at is the transaction's now())
        const h = await summarizeHistory(stack.client, run.run_id);
        const tableSpan = (t: string) => statsOf(h.activities.filter((a) => a.type === 'importTable' && a.input.table === t));
        const all = statsOf(h.activities);
        const failed = !outcome.ok || outcome.result.status !== 'completed' || job.status !== 'completed';
        return {
          rows: demand.inserted,
          detail: {
            runId: run.run_id,
            ...(failed ? { error: `import ${job.status}: ${job.error ?? (outcome.ok ? '' : outcome.error)}${all.failures.length ? ` (${all.failures.join('; ')})` : ''}` } : {}),
            workflowSeconds: (h.workflowEnd - h.workflowStart) / 1000,
            tables: Object.fromEntries(tables.map((t) => [t.table_name, { rows: t.rows_read, inserted: t.inserted, rejected: t.rejected, seconds: tableSpan(t.table_name).runSeconds }])),
            bookkeeping: statsOf(h.activities.filter((a) => a.type !== 'importTable')),
            retries: all.retryReasons,
            workflowTasks: h.workflowTasks,
          },
        };
      } };
    });
    stages.push({ stage: 'import', ...imp });
    const demandSeconds = (imp.detail.tables as Record<string, { seconds: number }>).demand_history.seconds;
    if (imp.detail.error) log(`  FAILED after ${secs(imp.seconds)} s: ${String(imp.detail.error)}`);
    else if (imp.rows !== demandRows) log(`  note: demand_history inserted ${int(imp.rows)} of ${int(demandRows)} staged rows`);
    log(`  imported ${int(imp.rows)} demand rows in ${secs(imp.seconds)} s = ${int(imp.rowsPerSec)} rows/s (demand_history activity ${secs(demandSeconds)} s); worker peak ${fixed(mib(imp.workerPeak), 0)} MiB`);
    const impRetries = imp.detail.retries as string[];
    if (impRetries.length) log(`  RETRIED: ${impRetries.join('; ')}`);
    logProfile(imp.pg);
    const sizes: Record<string, number> = { stg_demand_history: stgSize, demand_history: (await tableSizes(stack.db, accountId)).demand_history };
    if (imp.detail.error) return { series, shape, accountId, staged, workerStartup, stages, sizes, settings };

    // 3. etl, as POST /api/pipeline/run/etl does it
    log(`etl (n_workers ${settings.nWorkers}, chunk_size ${settings.chunkSize}) …`);
    const etl = await measure(stack, worker, `${series}-etl`, async () => {
      const jobId = newJobId('etl');
      const input: RunStepInput = { jobId, accountId, pipelineId, scenarioId: null, segmentId: null, createdBy: 'bench', nWorkers: args.nWorkers, step: 'etl' };
      await startJob(stack.db, temporal, accountId, {
        job_id: jobId, kind: 'step', step: 'etl', pipeline_id: pipelineId, scenario_id: null, segment_id: null, created_by: 'bench',
        params: { n_workers: args.nWorkers },
      }, 'runStep', [input]);
      const outcome = await followWorkflow<StepResult>(stack, worker, accountId, jobId, log);
      return { after: async () => {
        // where the time went, from the workflow history
        const h = await summarizeHistory(stack.client, jobId);
        const of = (type: string) => statsOf(h.activities.filter((a) => a.type === type));
        const all = statsOf(h.activities);
        // a failed step still wrote the chunks it finished: count them from the table
        const written = outcome.ok ? undefined : ((await withTenant(stack.db, accountId, (tx) =>
          tx.one(sql.unsafe`SELECT (SELECT count(*) FROM series_weekly)::int AS rows, (SELECT count(*) FROM series)::int AS series`))) as { rows: number; series: number });
        return {
          rows: outcome.ok ? outcome.result.rows : written!.rows,
          detail: {
            jobId,
            ...(outcome.ok ? {} : { error: `etl ${outcome.error}${all.failures.length ? ` (${all.failures.join('; ')})` : ''}` }),
            series: outcome.ok ? outcome.result.series : written!.series,
            chunks: outcome.ok ? outcome.result.chunks : of('etlChunk').count,
            workflowSeconds: (h.workflowEnd - h.workflowStart) / 1000,
            plan: of('etlPlan'), chunk: of('etlChunk'), finalize: of('etlFinalize'),
            bookkeeping: statsOf(h.activities.filter((a) => !a.type.startsWith('etl'))),
            retries: all.retryReasons,
            workflowTasks: h.workflowTasks,
            events: h.events,
          },
        };
      } };
    });
    stages.push({ stage: 'etl', ...etl });
    const d = etl.detail as { error?: string; series: number; chunks: number; plan: ActivityStats; chunk: ActivityStats; finalize: ActivityStats; bookkeeping: ActivityStats; retries: string[] };
    if (d.error) log(`  FAILED after ${secs(etl.seconds)} s: ${d.error}`);
    log(`  etl ${int(d.series)} series → ${int(etl.rows)} weekly rows in ${d.chunks} chunks, ${secs(etl.seconds)} s = ${int(d.series / etl.seconds)} series/s, ${int(etl.rowsPerSec)} rows/s; worker peak ${fixed(mib(etl.workerPeak), 0)} MiB`);
    log(`  etl activities: plan ${secs(d.plan.runSeconds)} s, chunks ${secs(d.chunk.wallSeconds)} s wall (one chunk mean ${secs(d.chunk.runSeconds / d.chunk.count)} s, max ${secs(d.chunk.maxRunSeconds)} s), finalize ${secs(d.finalize.runSeconds)} s, bookkeeping ${secs(d.bookkeeping.runSeconds)} s in ${d.bookkeeping.count} activities`);
    if (d.retries.length) log(`  RETRIED: ${d.retries.join('; ')}`);
    logProfile(etl.pg);
    Object.assign(sizes, await tableSizes(stack.db, accountId), { stg_demand_history: stgSize });

    const result: SizeResult = { series, shape, accountId, staged, workerStartup, stages, sizes, settings };
    if (args.reference) {
      // the reference gets the database to itself: no worker, and no statement left over from an abandoned attempt
      await worker.stop();
      await waitForIdleDatabase(stack.db);
      result.reference = await reference(stack, accountId);
    }
    return result;
  } finally {
    await worker.stop();
  }
}

/**
 * The floor: the same transformations as single set-based statements in PostgreSQL (no validation, no rejections, no
 * statistics, no chunking, no Temporal), into scratch copies of the target tables with the same primary keys.
 */
/**
 * Waits until no other client backend runs a statement. An activity attempt that Temporal timed out keeps running in
 * the worker, and its statement keeps running in PostgreSQL even after the worker exits.
 */
async function waitForIdleDatabase(db: Db, timeoutMs = 600_000): Promise<void> {
  const t0 = Date.now();
  for (let logged = false; ; ) {
    const busy = (await db.any(sql.unsafe`
      SELECT left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 60) AS query, round(extract(epoch FROM now() - query_start))::int AS seconds
      FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`)) as Array<{ query: string; seconds: number }>;
    if (!busy.length) {
      if (logged) log(`  database idle after ${secs((Date.now() - t0) / 1000)} s`);
      return;
    }
    if (!logged) log(`  waiting for ${busy.length} statement(s) still running: ${busy.map((b) => `${b.query} (${b.seconds} s)`).join('; ')}`);
    logged = true;
    if (Date.now() - t0 > timeoutMs) throw new Error(`statements still running after ${timeoutMs / 1000} s: ${busy.map((b) => b.query).join('; ')}`);
    await sleep(1000);
  }
}

const FK_SAMPLE = 1_000_000;

async function reference(stack: BenchStack, accountId: string): Promise<NonNullable<SizeResult['reference']>> {
  log('reference: INSERT … SELECT of the same rows in PostgreSQL …');
  const timed = async (statement: ReturnType<typeof sql.unsafe>) =>
    withTenant(stack.db, accountId, async (tx) => {
      const t0 = performance.now();
      const r = await tx.query(statement);
      return { seconds: (performance.now() - t0) / 1000, rows: r.rowCount };
    });
  try {
    await withTenant(stack.db, accountId, async (tx) => {
      await tx.query(sql.unsafe`CREATE TABLE bench_ref_demand (LIKE demand_history INCLUDING ALL)`);
      // LIKE copies no foreign keys; demand_history has two, checked row by row, so this copy has them too
      await tx.query(sql.unsafe`
        CREATE TABLE bench_ref_demand_fk (LIKE demand_history INCLUDING ALL, FOREIGN KEY (item_id) REFERENCES items (id), FOREIGN KEY (site_id) REFERENCES sites (id))`);
      await tx.query(sql.unsafe`CREATE TABLE bench_ref_weekly (LIKE series_weekly INCLUDING ALL)`);
    });
    const imp = await timed(sql.unsafe`
      INSERT INTO bench_ref_demand (item_id, site_id, ds, qty)
      SELECT i.id, s.id, d.ds::date, d.qty::numeric
      FROM stg_demand_history d JOIN items i ON i.xuid = d.item_xuid JOIN sites s ON s.xuid = d.site_xuid`);
    // row-by-row foreign key checks are slow, so this one runs on the first million staged rows only (a rate, not a total)
    const impFk = await timed(sql.unsafe`
      INSERT INTO bench_ref_demand_fk (item_id, site_id, ds, qty)
      SELECT i.id, s.id, d.ds::date, d.qty::numeric
      FROM stg_demand_history d JOIN items i ON i.xuid = d.item_xuid JOIN sites s ON s.xuid = d.site_xuid
      WHERE d.row_no <= ${FK_SAMPLE}`);
    // one hash aggregate over the demand rows plus a zero for every (series, week) from the series' first week on
    const etl = await timed(sql.unsafe`
      WITH e AS (SELECT date_trunc('week', max(ds))::date AS last_week FROM demand_history),
      b AS (SELECT item_id, site_id, date_trunc('week', min(ds))::date AS first_week FROM demand_history GROUP BY 1, 2)
      INSERT INTO bench_ref_weekly (item_id, site_id, week, y)
      SELECT item_id, site_id, week, sum(y) FROM (
        SELECT b.item_id, b.site_id, g.week::date AS week, 0::numeric AS y
        FROM b CROSS JOIN e CROSS JOIN LATERAL generate_series(b.first_week::timestamp, e.last_week::timestamp, interval '7 days') AS g(week)
        UNION ALL
        SELECT item_id, site_id, date_trunc('week', ds)::date, qty FROM demand_history
      ) x GROUP BY 1, 2, 3`);
    log(`  import floor ${int(imp.rows)} rows in ${secs(imp.seconds)} s = ${int(imp.rows / imp.seconds)} rows/s (with the two foreign keys: ${int(impFk.rows)} rows in ${secs(impFk.seconds)} s = ${int(impFk.rows / impFk.seconds)} rows/s); weekly floor ${int(etl.rows)} rows in ${secs(etl.seconds)} s = ${int(etl.rows / etl.seconds)} rows/s`);
    return { importSeconds: imp.seconds, importRows: imp.rows, importFkSeconds: impFk.seconds, importFkRows: impFk.rows, etlSeconds: etl.seconds, etlRows: etl.rows };
  } finally {
    await withTenant(stack.db, accountId, async (tx) => {
      await tx.query(sql.unsafe`DROP TABLE IF EXISTS bench_ref_demand`);
      await tx.query(sql.unsafe`DROP TABLE IF EXISTS bench_ref_demand_fk`);
      await tx.query(sql.unsafe`DROP TABLE IF EXISTS bench_ref_weekly`);
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const STAGE_LABEL = { load: 'load staging', import: 'import', etl: 'etl' } as const;

function resultRows(results: SizeResult[], fmtMiB: (b: number) => string): string[][] {
  const rows: string[][] = [];
  for (const r of results) {
    for (const s of r.stages) {
      const what = s.stage === 'load' ? `${int(s.rows)} rows (${int(r.staged.demand_history)} demand)`
        : s.stage === 'import' ? `${int(s.rows)} demand rows`
        : `${int((s.detail as { series: number }).series)} series → ${int(s.rows)} weekly rows`;
      const rate = s.detail.error ? `**failed** (${int(s.rows)} rows written)`
        : s.stage === 'etl' ? `${int(s.rowsPerSec)} (${int((s.detail as { series: number }).series / s.seconds)} series/s)` : int(s.rowsPerSec);
      rows.push([
        int(r.series), STAGE_LABEL[s.stage], what, secs(s.seconds), rate,
        s.stage === 'load' ? 'idle' : fmtMiB(s.workerPeak), fmtMiB(s.benchPeak),
        `${fixed(s.cpu.worker)} / ${fixed(s.cpu.postgres)} / ${fixed(s.cpu.temporal)} / ${fixed(s.cpu.bench)} / ${fixed(s.cpu.other)}`,
      ]);
    }
  }
  return rows;
}

const RESULT_HEAD = ['series', 'stage', 'rows', 'seconds', 'rows/s', 'worker peak RSS (MiB)', 'bench peak RSS (MiB)', 'CPU s: worker / PostgreSQL / Temporal / bench / other'];

function printReport(results: SizeResult[]): void {
  const m = (b: number) => fixed(mib(b), 0);
  process.stdout.write(`\n${textTable(RESULT_HEAD, resultRows(results, m), ['r', 'l', 'l', 'r', 'r', 'r', 'r', 'r'])}\n\n`);
  const mem = results.map((r) => [
    int(r.series), `${m(r.workerStartup.peak)} / ${m(r.workerStartup.rss)}`,
    ...r.stages.filter((s) => s.stage !== 'load').map((s) => `${m(s.workerPeak)} (sampled ${m(s.workerSampledMax)}), after ${m(s.workerRssAfter)}`),
  ]);
  process.stdout.write(`${textTable(['series', 'worker startup peak / idle', 'import peak', 'etl peak'], mem)}\n\n`);
}

function markdownResults(results: SizeResult[], machine: Machine, args: Args, totalSeconds: number): string {
  const m = (b: number) => fixed(mib(b), 0);
  const out: string[] = [];
  out.push(`Measured ${machine.date} by \`npm run bench:etl\` (seed ${args.seed}, ${args.weeks} weeks, n_workers ${results[0]?.settings.nWorkers}, chunk_size ${results[0]?.settings.chunkSize}); whole run ${fixed(totalSeconds / 60, 1)} min. ${interference(results, machine.nproc)}`);
  out.push('');
  out.push(markdownTable(RESULT_HEAD, resultRows(results, m), ['r', 'l', 'l', 'r', 'r', 'r', 'r', 'r']));
  out.push('');
  out.push('Worker memory (MiB). *Startup* is the peak while the worker bundles its workflows and connects, then its idle RSS; each stage\'s peak is VmHWM reset at the start of the stage, with the max of the 250 ms VmRSS samples and the RSS when the stage ended.');
  out.push('');
  out.push(markdownTable(['series', 'startup peak / idle', 'import: peak (sampled) / after', 'etl: peak (sampled) / after'], results.map((r) => [
    int(r.series), `${m(r.workerStartup.peak)} / ${m(r.workerStartup.rss)}`,
    ...r.stages.filter((s) => s.stage !== 'load').map((s) => `${m(s.workerPeak)} (${m(s.workerSampledMax)}) / ${m(s.workerRssAfter)}`),
  ])));
  out.push('');
  out.push('Where the time went, from the workflow histories (activity started → completed). Import: each table is one activity and one transaction. '
    + 'Etl: the planning activity, the chunk activities (wall time with `n_workers` in parallel, then the mean and max of one chunk), the finalising activity, '
    + 'and the bookkeeping activities (settings, progress after each chunk, job start/finish) summed.');
  out.push('');
  out.push(markdownTable(['series', 'import: demand_history', 'import: other tables', 'etl: plan', 'etl: chunks (wall)', 'etl: chunks', 'etl: one chunk, mean / max', 'etl: finalize', 'etl: bookkeeping'], results.map((r) => {
    const imp = r.stages.find((s) => s.stage === 'import')!.detail as { tables: Record<string, { seconds: number }> };
    const other = Object.entries(imp.tables).filter(([t]) => t !== 'demand_history').reduce((n, [, t]) => n + (Number.isFinite(t.seconds) ? t.seconds : 0), 0);
    const e = (r.stages.find((s) => s.stage === 'etl')?.detail ?? {}) as Record<string, ActivityStats | undefined>;
    if (!e.chunk || !e.plan || !e.finalize || !e.bookkeeping) return [int(r.series), secs(imp.tables.demand_history.seconds), secs(other), '–', '–', '–', '–', '–', '–'];
    return [
      int(r.series), secs(imp.tables.demand_history.seconds), secs(other), secs(e.plan.runSeconds), secs(e.chunk.wallSeconds), String(e.chunk.count),
      `${secs(e.chunk.runSeconds / e.chunk.count)} / ${secs(e.chunk.maxRunSeconds)}`, secs(e.finalize.runSeconds), `${secs(e.bookkeeping.runSeconds)} (${e.bookkeeping.count})`,
    ];
  })));
  out.push('');
  out.push('PostgreSQL sizes after each stage (`pg_total_relation_size`, MiB; database = `pg_database_size` at the end).');
  out.push('');
  out.push(markdownTable(['series', 'stg_demand_history', 'demand_history', 'series_weekly', 'series', 'database'], results.map((r) => [
    int(r.series), m(r.sizes.stg_demand_history), m(r.sizes.demand_history), m(r.sizes.series_weekly), m(r.sizes.series), m(r.sizes.database),
  ])));
  if (results.some((r) => r.stages.some((s) => s.pg))) {
    out.push('');
    out.push('PostgreSQL time by statement: `pg_stat_activity` sampled every 250 ms during the stage; backend-seconds (two chunk activities run at once, so etl sums can exceed the wall time). '
      + '*idle in transaction* is time a transaction stayed open while the worker computed between statements.');
    out.push('');
    const rows: string[][] = [];
    for (const r of results) {
      for (const st of r.stages) {
        if (!st.pg || st.stage === 'load') continue;
        for (const x of st.pg.seconds.slice(0, 7)) rows.push([int(r.series), STAGE_LABEL[st.stage], x.label, secs(x.seconds), `${fixed((100 * x.seconds) / st.seconds, 0)} %`]);
      }
    }
    out.push(markdownTable(['series', 'stage', 'statement', 'backend-s', 'of stage wall'], rows, ['r', 'l', 'l', 'r', 'r']));
  }
  const retried = results.flatMap((r) => r.stages.flatMap((st) => {
    const d = st.detail as { retries?: string[] };
    return (d.retries ?? []).map((x) => `${int(r.series)} series, ${STAGE_LABEL[st.stage]}: ${x}`);
  }));
  if (retried.length) {
    out.push('');
    out.push(`Activity retries seen in the histories: ${retried.map((x) => `\`${x}\``).join('; ')}.`);
  }
  const failures = results.flatMap((r) => r.stages.filter((st) => st.detail.error).map((st) => `${int(r.series)} series, ${STAGE_LABEL[st.stage]}: \`${String(st.detail.error)}\``));
  if (failures.length) {
    out.push('');
    out.push(`**Failed stages**: ${failures.join('; ')}.`);
  }
  if (results.some((r) => r.reference)) {
    out.push('');
    out.push('Reference: the same rows moved by one set-based statement each (no validation, rejections, statistics, chunks or Temporal) into scratch tables with the same primary keys. '
      + '`LIKE … INCLUDING ALL` copies no foreign keys, so the FK column repeats the import floor on a table that also has demand_history\'s two foreign keys (first million rows).');
    out.push('');
    out.push(markdownTable(['series', 'stg → demand: INSERT … SELECT with code lookups', 'rows/s', 'same with the two foreign keys', 'floor ÷ pipeline import rate (FK floor)', 'demand → weekly: GROUP BY + generate_series', 'rows/s', 'floor ÷ pipeline etl rate'], results.filter((r) => r.reference).map((r) => {
      const ref = r.reference!;
      const imp = r.stages.find((s) => s.stage === 'import')!;
      const etl = r.stages.find((s) => s.stage === 'etl')!;
      return [
        int(r.series), `${int(ref.importRows)} rows, ${secs(ref.importSeconds)} s`, int(ref.importRows / ref.importSeconds),
        `${int(ref.importFkRows / ref.importFkSeconds)} rows/s (first ${int(ref.importFkRows)} rows)`,
        `${fixed(imp.rowsPerSec > 0 ? ref.importRows / ref.importSeconds / imp.rowsPerSec : NaN, 1)}× (${fixed(ref.importFkRows / ref.importFkSeconds / imp.rowsPerSec, 1)}×)`,
        `${int(ref.etlRows)} rows, ${secs(ref.etlSeconds)} s`, int(ref.etlRows / ref.etlSeconds), `${fixed(ref.etlRows / ref.etlSeconds / etl.rowsPerSec, 1)}×`,
      ];
    })));
  }
  return out.join('\n');
}

/** How much of the machine other processes took during the measured stages. */
function interference(results: SizeResult[], nproc: number): string {
  const stages = results.flatMap((r) => r.stages);
  const other = stages.reduce((n, st) => n + (Number.isFinite(st.cpu.other) ? st.cpu.other : 0), 0);
  const capacity = stages.reduce((n, st) => n + st.seconds, 0) * nproc;
  const share = (100 * other) / capacity;
  return `Other processes on the machine used ${int(other)} CPU-seconds during the measured stages, ${fixed(share, 0)} % of its ${nproc} CPUs`
    + (share > 10 ? ' — **a disturbed run**: wall times and rates are worse than on a quiet machine, CPU seconds of our processes much less so.' : ' (a quiet run).');
}

function machineBlock(machine: Machine): string {
  return markdownTable(['', ''], [
    ['CPUs (`nproc`)', String(machine.nproc)],
    ['CPU model', machine.cpu],
    ['memory', machine.memory],
    ['OS', `${machine.os} (kernel ${machine.kernel})`],
    ['Node', machine.node],
    ['PostgreSQL', `${machine.postgres}, fsync / synchronous_commit / full_page_writes off`],
    ['date (of the `bench:etl` run)', machine.date],
  ], ['l', 'l']);
}

const SKELETON = `# Benchmarks

Figures measured on the machine below; rerun the commands to refresh them.

## Machine

<!-- bench:machine:begin -->
<!-- bench:machine:end -->

## ETL

<!-- bench:etl:begin -->
<!-- bench:etl:end -->
`;

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  // migrations and the dev server log at info; the benchmark's own lines are enough
  logger.level = process.env.LOG_LEVEL ?? 'warn';
  const args = parseArgs(process.argv.slice(2));
  profile = args.profile;
  const tStart = performance.now();
  log(`sizes ${args.sizes.map(int).join(', ')} series × ${args.weeks} weeks${args.doc ? '; will update docs/BENCHMARKS.md' : ''}`);
  const stack = await startBenchStack({
    log,
    keep: args.keep,
    onSignal: () => process.exit(130),
  });
  const results: SizeResult[] = [];
  let failed = false;
  try {
    const machine = await describeMachine(stack.db);
    log(`machine: ${machine.nproc} CPUs (${machine.cpu}), ${machine.memory}, ${machine.os}, Node ${machine.node}, PostgreSQL ${machine.postgres}`);
    for (const series of args.sizes) {
      results.push(await runSize(stack, args, series));
      printReport(results);
    }
    const total = (performance.now() - tStart) / 1000;
    const bench = process.resourceUsage().maxRSS * 1024;
    log(interference(results, os.availableParallelism()).replace(/\*\*/g, ''));
    log(`done in ${fixed(total / 60, 1)} min; this process's peak RSS ${fixed(mib(bench), 0)} MiB (VmHWM ${fixed(mib(memStatus(process.pid)?.hwm ?? NaN), 0)} MiB)`);
    if (!peakResetWorks) log('note: /proc/<pid>/clear_refs was refused, so stage peaks are the max of the 250 ms samples');
    fs.mkdirSync(OUT_DIR, { recursive: true });
    const jsonFile = path.join(OUT_DIR, `etl-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(jsonFile, JSON.stringify({ machine, args, totalSeconds: total, benchPeakRss: bench, peakResetWorks, results }, null, 2));
    log(`raw figures: ${path.relative(REPO_ROOT, jsonFile)}`);
    if (args.doc) {
      replaceBlock(DOC, 'bench:machine', machineBlock(machine), { skeleton: SKELETON, heading: '## Machine' });
      replaceBlock(DOC, 'bench:etl', markdownResults(results, machine, args, total), { skeleton: SKELETON, heading: '## ETL' });
      log(`updated ${path.relative(REPO_ROOT, DOC)}`);
    }
  } catch (err) {
    failed = true;
    if (stack.signal.aborted) return; // interrupted: the signal handler stops the stack and exits
    process.stderr.write(`bench:etl failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    if (results.length) printReport(results);
  } finally {
    await stack.stop();
  }
  process.exit(failed ? 1 : 0);
}

void main();
