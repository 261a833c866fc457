/**
 * `npm run bench:history`: weekly plan versions (docs/HISTORY.md) of a 10,000-series pipeline. Targets (issue 15):
 * a freeze with forecasts, MEIO and supply results under 30 s; a comparison of two versions on any dimension under
 * 2 s; the storage per version reported.
 *
 * The stack and tenant of bench:supply (bench/lib/forecastPipeline.ts; the best methods' forecasts seeded with SQL,
 * bench/lib/seedForecasts.ts), then distribution, meio, eoq and supply as timed steps. The forecasting steps' other
 * rows — outliers, characterizations, every tournament method's forecast, backtest metrics and scored windows — are
 * seeded after those steps (bench/lib/seedForecasts.ts seedTournamentRows, not timed), so the freeze copies what a
 * real pipeline holds (most of it is backtest windows) without changing what the timed steps computed.
 *
 * Then, through the API as production runs it (bench/lib/apiLoad.ts) on the same Temporal server and workers:
 *   1. week 1: PUT /api/history/planning-date (the supply run's planning date), POST /api/history/freeze (the
 *      workflow freezePipeline; the request answers when the version is committed): wall time, the freeze
 *      activity's span from the Temporal history, per-table copy times from the job's log line; rows per table and
 *      the storage of the version's partitions against the live tables;
 *   2. week 2: the planning date a week later, forecasts of a third of the series scaled, the best method of one
 *      series in twenty changed, MEIO buffers of a quarter of the SKU-sites moved (SQL), the supply step re-run, and
 *      a second freeze; then the same week frozen again (rule 3: it replaces the un-pinned version);
 *   3. after ANALYZE of the two versions' partitions (autovacuum's work after a freeze, not timed), GET
 *      /api/compare/versions for every dimension (first page) and GET /api/history/replay/{date} for every view,
 *      `--repeat` requests each, one at a time: first (cold), p50 and max;
 *   4. DELETE /api/history/versions/{week 1} (drops its partitions) against a plain DELETE of the same rows in copies
 *      of the partitions that carry the live tables' indexes (what an archive_date key in the live tables would
 *      delete), and the VACUUM that DELETE leaves behind.
 *
 *   npm run bench:history                       # 10,000 series; writes docs/BENCHMARKS.md
 *   npm run bench:history -- --series 1000 --no-doc
 *   options: --series N, --seed N, --weeks N, --workers N (worker processes, default one per core), --windows N
 *            (backtest windows per series and method, default 7), --lean (no tournament rows), --repeat N (requests
 *            per comparison or replay, default 10), --no-doc
 */
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { newJobId, startJob } from '../api/jobs/service';
import { HISTORY_TABLES } from '../db/history';
import { sql, tenantSchemaName, withTenant } from '../db/pool';
import { REPO_ROOT } from '../lib/env';
import { freePort } from '../lib/net';
import type { RunStepInput, StepResult } from '../workflows/runStep';
import { activityTimeline } from './lib/activityTimeline';
import { addPlanner, login, startApi, stopChild, waitForCache } from './lib/apiLoad';
import { followWorkflow } from './lib/followWorkflow';
import { runForecastPipeline, type PipelineContext, type StepTiming } from './lib/forecastPipeline';
import { fixed, int, markdownTable, replaceBlock, secs, textTable } from './lib/report';
import { seedFlatForecasts, seedTournamentRows } from './lib/seedForecasts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const log = (m: string) => console.log(`[bench:history ${new Date().toISOString().slice(11, 19)}] ${m}`);
const FREEZE_TARGET_SECONDS = 30;
const COMPARE_TARGET_MS = 2000;
const HORIZON = 52;
const DOC = path.join(REPO_ROOT, 'docs', 'BENCHMARKS.md');
const DIMENSIONS = ['kpi', 'forecast', 'order', 'inventory', 'meio_buffer', 'exceptions', 'best_method'] as const;
const MIB = 1024 ** 2;

interface Freeze {
  label: string;
  archive_date: string;
  id: number;
  seconds: number;
  /** the historyFreeze activity, started → completed, from the Temporal history */
  activity_seconds: number;
  /** the job's log line: where the transaction spent its time */
  log_line: string;
  table_counts: Record<string, number>;
  row_count_total: number;
  replaced: string | null;
}

interface StorageRow {
  table: string;
  rows: number;
  version_bytes: number;
  live_bytes: number;
}

interface Timed {
  name: string;
  first: number;
  p50: number;
  max: number;
  n: number;
  /** rows listed by the comparison (X-Total-Count), or the answer's size for a replay */
  total: number | null;
  bytes: number;
}

interface DeleteContrast {
  rows: number;
  drop_seconds: number;
  delete_seconds: number;
  vacuum_seconds: number;
  copies_bytes: number;
  per_table: Array<{ table: string; rows: number; seconds: number }>;
}

interface Results {
  tournament: Record<string, number>;
  tournamentSeconds: number;
  supplyRerun: StepTiming | null;
  freezes: Freeze[];
  storage: StorageRow[];
  onHand: { rows: number; bytes: number };
  /** ANALYZE of the compared versions' partitions */
  statsSeconds: number;
  compare: Timed[];
  replay: Timed[];
  contrast: DeleteContrast;
  liveTotalBytes: number;
}

/** Starts a step as POST /api/pipeline/run/{step} does (a jobs row + workflow runStep) and follows it to its end. */
async function runStep(ctx: PipelineContext, step: string): Promise<{ ok: boolean; seconds: number; error?: string; rows: number }> {
  const jobId = newJobId(step);
  const input: RunStepInput = { jobId, accountId: ctx.accountId, pipelineId: ctx.pipelineId, scenarioId: null, segmentId: null, createdBy: 'bench', nWorkers: null, step };
  const t = performance.now();
  await startJob(ctx.stack.db, { client: ctx.stack.client, taskQueue: ctx.stack.taskQueue }, ctx.accountId, {
    job_id: jobId, kind: 'step', step, pipeline_id: ctx.pipelineId, scenario_id: null, segment_id: null, created_by: 'bench', params: { n_workers: null },
  }, 'runStep', [input]);
  const out = await followWorkflow<StepResult>(ctx.stack, ctx.workers[0], ctx.accountId, jobId, log);
  const seconds = (performance.now() - t) / 1000;
  return out.ok ? { ok: true, seconds, rows: out.result.rows } : { ok: false, seconds, error: out.error, rows: NaN };
}

const q = <T>(ctx: PipelineContext, query: ReturnType<typeof sql.unsafe>) =>
  withTenant(ctx.stack.db, ctx.accountId, async (tx) => [...(await tx.any(query))] as T[]);

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

class Api {
  constructor(readonly url: string, readonly token: string) {}

  async call(method: string, p: string, body?: unknown): Promise<{ status: number; ms: number; text: string; headers: Headers }> {
    const t = performance.now();
    const res = await fetch(`${this.url}${p}`, {
      method, headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, ms: performance.now() - t, text, headers: res.headers };
  }

  async ok<T = any>(method: string, p: string, body?: unknown): Promise<{ body: T; ms: number; headers: Headers; bytes: number }> {
    const r = await this.call(method, p, body);
    if (r.status !== 200) throw new Error(`${method.toUpperCase()} ${p}: ${r.status} ${r.text.slice(0, 500)}`);
    return { body: JSON.parse(r.text) as T, ms: r.ms, headers: r.headers, bytes: Buffer.byteLength(r.text) };
  }

  /** `n` requests one after the other (a planner's screen, not a load test): the first, the median and the slowest. */
  async timed(name: string, p: string, n: number): Promise<Timed> {
    const ms: number[] = [];
    let total: number | null = null;
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const r = await this.ok('get', p);
      ms.push(r.ms);
      const count = r.headers.get('x-total-count');
      total = count === null ? null : Number(count);
      bytes = r.bytes;
    }
    const sorted = [...ms].sort((a, b) => a - b);
    const row = { name, first: ms[0], p50: sorted[Math.floor((sorted.length - 1) / 2)], max: sorted[sorted.length - 1], n, total, bytes };
    log(`  ${name}: first ${fixed(row.first, 0)} ms, p50 ${fixed(row.p50, 0)} ms, max ${fixed(row.max, 0)} ms${total === null ? '' : `, ${int(total)} rows listed`}, ${int(bytes)} B`);
    return row;
  }
}

async function freeze(ctx: PipelineContext, api: Api, label: string): Promise<Freeze> {
  log(`freeze (${label}) …`);
  const r = await api.ok('post', '/api/history/freeze', { pipeline_id: ctx.pipelineId, comment: `bench:history ${label}` });
  if (!r.body.archive_date) throw new Error(`freeze ${label}: no version in the answer (202 after FREEZE_WAIT_MS?): ${JSON.stringify(r.body)}`);
  const jobId = r.body.job_id as string;
  const tl = await activityTimeline(ctx.stack.client, jobId, (type) => type === 'historyFreeze');
  const act = tl.activities[0];
  const [line] = await q<{ message: string }>(ctx, sql.unsafe`SELECT message FROM job_logs WHERE job_id = ${jobId} AND message LIKE 'freeze:%' ORDER BY id DESC LIMIT 1`);
  const f: Freeze = {
    label, archive_date: r.body.archive_date, id: r.body.version.id, seconds: r.ms / 1000, activity_seconds: act ? (act.ended - act.started) / 1000 : NaN,
    log_line: line?.message ?? '', table_counts: r.body.table_counts, row_count_total: r.body.version.row_count_total, replaced: r.body.replaced_archive_date,
  };
  log(`  ${label}: version ${f.id} of ${f.archive_date}, ${int(f.row_count_total)} rows in ${secs(f.seconds)} s (activity ${secs(f.activity_seconds)} s)${f.replaced ? `, replaced ${f.replaced}` : ''}`);
  log(`  ${f.log_line}`);
  return f;
}

/** The version's partitions (history_<table>_<id>) and the live tables, in bytes with indexes and TOAST. */
async function storageOf(ctx: PipelineContext, v: Freeze): Promise<{ rows: StorageRow[]; onHand: { rows: number; bytes: number }; liveTotal: number }> {
  const parts = await q<{ parent: string; bytes: number }>(ctx, sql.unsafe`
    SELECT p.relname AS parent, pg_total_relation_size(c.oid)::float8 AS bytes
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND p.relname LIKE 'history\\_%' AND c.relname = p.relname || '_' || ${v.id}`);
  const live = await q<{ relname: string; bytes: number }>(ctx, sql.unsafe`
    SELECT relname, pg_total_relation_size(c.oid)::float8 AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND relkind = 'r' AND relname = ANY(${sql.array(HISTORY_TABLES.map(([t]) => t), 'text')})`);
  const rows = HISTORY_TABLES.map(([table]) => ({
    table, rows: v.table_counts[table] ?? 0,
    version_bytes: parts.find((p) => p.parent === `history_${table}`)?.bytes ?? 0,
    live_bytes: live.find((l) => l.relname === table)?.bytes ?? 0,
  }));
  // history_on_hand is keyed by archive date, not partitioned: the date's share of the table's size
  const [oh] = await q<{ rows: number; all: number; bytes: number }>(ctx, sql.unsafe`
    SELECT count(*) FILTER (WHERE archive_date = ${v.archive_date})::int AS rows, count(*)::int AS "all", pg_total_relation_size('history_on_hand')::float8 AS bytes FROM history_on_hand`);
  return { rows, onHand: { rows: oh.rows, bytes: oh.all ? (oh.bytes * oh.rows) / oh.all : 0 }, liveTotal: live.reduce((n, l) => n + l.bytes, 0) };
}

/**
 * Planner statistics of the versions' partitions. A freeze does not gather them (at 10,000 series that would add
 * several seconds to it); autovacuum does within a minute or so of the commit, so a comparison made later, as a
 * planner's is, plans with them. Gathering them here makes the measured comparisons that case, whatever autovacuum
 * managed meanwhile. Returns the seconds it took.
 */
async function analyzeVersions(ctx: PipelineContext, versions: Freeze[]): Promise<number> {
  const t = performance.now();
  await withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    const parts = (await tx.anyFirst(sql.unsafe`
      SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND p.relname LIKE 'history\\_%'
        AND c.relname = ANY(SELECT p.relname || '_' || v FROM unnest(${sql.array(versions.map((v) => v.id), 'int4')}) v)`)) as readonly string[];
    for (const p of parts) await tx.query(sql.unsafe`ANALYZE ${sql.identifier([p])}`);
  });
  const seconds = (performance.now() - t) / 1000;
  log(`ANALYZE of the partitions of versions ${versions.map((v) => v.id).join(', ')}: ${secs(seconds)} s`);
  return seconds;
}

/** Week 2's plan: the live rows moved a little, then supply planned again from them. */
async function moveLiveData(ctx: PipelineContext): Promise<StepTiming> {
  const changed = await withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    const scale = (col: string) => sql.fragment`${sql.identifier([col])} = (SELECT array_agg(v * 1.1 ORDER BY k) FROM unnest(${sql.identifier([col])}) WITH ORDINALITY AS u(v, k))`;
    const fc = (await tx.query(sql.unsafe`
      UPDATE forecast_results SET ${scale('yhat')}, ${scale('yhat_lower')}, ${scale('yhat_upper')}
      WHERE pipeline_id = ${ctx.pipelineId} AND (item_id + site_id) % 3 = 0`)).rowCount;
    // only to a method that has a forecast, so supply plans from it
    const best = (await tx.query(sql.unsafe`
      UPDATE series_best_method b SET best_method = 'naive', reason = 'bench:history week 2'
      WHERE b.pipeline_id = ${ctx.pipelineId} AND (b.item_id * 7 + b.site_id) % 20 = 0
        AND EXISTS (SELECT 1 FROM forecast_results f WHERE f.pipeline_id = b.pipeline_id AND f.item_id = b.item_id AND f.site_id = b.site_id AND f.method = 'naive')`)).rowCount;
    const meio = (await tx.query(sql.unsafe`
      UPDATE meio_results SET safety_stock = safety_stock * 1.05, reorder_point = reorder_point * 1.05
      WHERE pipeline_id = ${ctx.pipelineId} AND (item_id + 2 * site_id) % 4 = 0`)).rowCount;
    await tx.query(sql.unsafe`ANALYZE forecast_results`);
    return { fc, best, meio };
  });
  log(`week 2: ${int(changed.fc)} forecasts scaled by 1.1, ${int(changed.best)} best methods changed, ${int(changed.meio)} MEIO buffers moved; supply again …`);
  const r = await runStep(ctx, 'supply');
  if (!r.ok) throw new Error(`week 2 supply failed: ${r.error}`);
  log(`  supply: ${int(r.rows)} rows in ${secs(r.seconds)} s`);
  return { step: 'supply (week 2)', ok: true, seconds: r.seconds, series: NaN, rows: r.rows, chunks: NaN, cpu: { worker: NaN, postgres: NaN, temporal: NaN }, workerPeak: NaN, workerSampledMax: NaN };
}

/**
 * Copies of the version's partitions, each with the live table's indexes (the rows one archive date would hold in an
 * archive_date-keyed live table), then a DELETE of all their rows and the VACUUM that reclaims them; against that,
 * DELETE /api/history/versions/{date}, which drops the partitions.
 */
async function deleteContrast(ctx: PipelineContext, api: Api, v: Freeze): Promise<DeleteContrast> {
  const tables = HISTORY_TABLES.map(([t]) => t).filter((t) => (v.table_counts[t] ?? 0) > 0);
  await withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    for (const t of tables) {
      const copy = sql.identifier([`bench_del_${t}`]);
      await tx.query(sql.unsafe`DROP TABLE IF EXISTS ${copy}`);
      await tx.query(sql.unsafe`CREATE TABLE ${copy} (snapshot_id integer, archive_date date, LIKE ${sql.identifier([t])} INCLUDING DEFAULTS INCLUDING INDEXES)`);
      const part = `history_${t}_${v.id}`;
      // the columns both have: a partition may carry columns computed at freeze (migration 021) that the live table has not
      const cols = (await tx.anyFirst(sql.unsafe`
        SELECT a.attname FROM pg_attribute a WHERE a.attrelid = ${part}::regclass AND a.attnum > 0 AND NOT a.attisdropped
          AND EXISTS (SELECT 1 FROM pg_attribute c WHERE c.attrelid = ${`bench_del_${t}`}::regclass AND c.attname = a.attname AND NOT c.attisdropped)
        ORDER BY a.attnum`)) as readonly string[];
      const list = sql.join(cols.map((x) => sql.identifier([x])), sql.fragment`, `);
      await tx.query(sql.unsafe`INSERT INTO ${copy} (${list}) SELECT ${list} FROM ${sql.identifier([part])}`);
      await tx.query(sql.unsafe`ANALYZE ${copy}`);
    }
  });
  const [{ bytes }] = await q<{ bytes: number }>(ctx, sql.unsafe`
    SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE 'bench\\_del\\_%'`);

  log(`DELETE /api/history/versions/${v.archive_date} (drops the partitions of version ${v.id}) …`);
  const drop = await api.ok('delete', `/api/history/versions/${v.archive_date}?pipeline_id=${ctx.pipelineId}`);
  log(`  dropped in ${fixed(drop.ms, 0)} ms`);

  log('DELETE of the same rows from indexed copies …');
  const perTable: DeleteContrast['per_table'] = [];
  let rows = 0;
  const t0 = performance.now();
  await withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    for (const t of tables) {
      const t1 = performance.now();
      const n = (await tx.query(sql.unsafe`DELETE FROM ${sql.identifier([`bench_del_${t}`])} WHERE archive_date = ${v.archive_date}`)).rowCount;
      perTable.push({ table: t, rows: n, seconds: (performance.now() - t1) / 1000 });
      rows += n;
    }
  });
  const deleteSeconds = (performance.now() - t0) / 1000;
  // VACUUM cannot run in a transaction block, so not through withTenant: schema-qualified, one statement per table
  const t2 = performance.now();
  const schema = tenantSchemaName(ctx.accountId);
  for (const t of tables) await ctx.stack.db.query(sql.unsafe`VACUUM ${sql.identifier([schema, `bench_del_${t}`])}`);
  const vacuumSeconds = (performance.now() - t2) / 1000;
  await withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    for (const t of tables) await tx.query(sql.unsafe`DROP TABLE ${sql.identifier([`bench_del_${t}`])}`);
  });
  log(`  DELETE ${int(rows)} rows in ${secs(deleteSeconds)} s, VACUUM ${secs(vacuumSeconds)} s`);
  return { rows, drop_seconds: drop.ms / 1000, delete_seconds: deleteSeconds, vacuum_seconds: vacuumSeconds, copies_bytes: bytes, per_table: perTable.sort((a, b) => b.seconds - a.seconds) };
}

async function measureHistory(ctx: PipelineContext, opts: { lean: boolean; windows: number; repeat: number }): Promise<Results> {
  let tournament: Record<string, number> = {};
  let tournamentSeconds = 0;
  if (!opts.lean) {
    const t = performance.now();
    tournament = await seedTournamentRows(ctx, { horizon: HORIZON, windows: opts.windows, label: 'bench:history' });
    tournamentSeconds = (performance.now() - t) / 1000;
    log(`tournament rows seeded in ${secs(tournamentSeconds)} s: ${Object.entries(tournament).map(([k, n]) => `${k} ${int(n)}`).join(', ')}`);
  }
  const [run] = await q<{ planning_date: string }>(ctx, sql.unsafe`
    SELECT to_char(planning_date, 'YYYY-MM-DD') AS planning_date FROM supply_runs WHERE pipeline_id = ${ctx.pipelineId} AND status = 'completed' ORDER BY started_at DESC LIMIT 1`);
  const email = 'bench-planner@example.com';
  const password = 'bench-planner-password';
  await addPlanner(ctx.stack.db, ctx.accountId, email, password);
  // the API child inherits this process's environment: it starts workflows on the bench's Temporal server and queue
  Object.assign(process.env, { TEMPORAL_ADDRESS: ctx.stack.temporalAddress, TEMPORAL_NAMESPACE: 'default', TEMPORAL_TASK_QUEUE: ctx.stack.taskQueue });
  let child: ChildProcess | undefined;
  try {
    const port = await freePort();
    child = await startApi(ctx.stack.databaseUrl, port, path.join(ctx.stack.tmpDir, 'api.log'));
    const url = `http://127.0.0.1:${port}`;
    const api = new Api(url, await login(url, email, password, ctx.accountId));
    const pid = ctx.pipelineId;
    await waitForCache(url, api.token, `/api/history/versions?pipeline_id=${pid}`);
    log(`API pid ${child.pid} on ${url}`);

    await api.ok('put', '/api/history/planning-date', { pipeline_id: pid, planning_date: run.planning_date });
    const week1 = await freeze(ctx, api, 'week 1');
    const st = await storageOf(ctx, week1);

    await api.ok('put', '/api/history/planning-date', { pipeline_id: pid, planning_date: addDays(run.planning_date, 7) });
    const supplyRerun = await moveLiveData(ctx);
    const week2 = await freeze(ctx, api, 'week 2');
    const again = await freeze(ctx, api, 'week 2 again (replaces)');

    const statsSeconds = await analyzeVersions(ctx, [week1, again]);
    log(`GET /api/compare/versions ${week1.archive_date} → ${again.archive_date}, ${opts.repeat} requests per dimension`);
    const compare: Timed[] = [];
    for (const d of DIMENSIONS) {
      compare.push(await api.timed(d, `/api/compare/versions?pipeline_id=${pid}&base=${week1.archive_date}&target=${again.archive_date}&dimension=${d}`, opts.repeat));
    }
    const [s] = await q<{ item_id: number; site_id: number }>(ctx, sql.unsafe`
      SELECT item_id, site_id FROM series_best_method WHERE pipeline_id = ${pid} ORDER BY item_id, site_id OFFSET (SELECT count(*) / 2 FROM series) LIMIT 1`);
    log(`GET /api/history/replay/${again.archive_date}, ${opts.repeat} requests per view`);
    const replay: Timed[] = [];
    for (const view of ['summary', 'supply', 'meio', `series&unique_id=${s.item_id}_${s.site_id}`]) {
      replay.push(await api.timed(`view=${view.replace(/&unique_id=.*/, '')}`, `/api/history/replay/${again.archive_date}?pipeline_id=${pid}&view=${view}`, opts.repeat));
    }
    const contrast = await deleteContrast(ctx, api, week1);
    return {
      tournament, tournamentSeconds, supplyRerun, freezes: [week1, week2, again], storage: st.rows, onHand: st.onHand, statsSeconds, compare, replay, contrast,
      liveTotalBytes: st.liveTotal,
    };
  } finally {
    if (child) await stopChild(child);
  }
}

async function main(): Promise<void> {
  const series = arg('series', 10_000);
  const workers = arg('workers', os.availableParallelism());
  const opts = { lean: process.argv.includes('--lean'), windows: arg('windows', 7), repeat: arg('repeat', 10) };
  const doc = !process.argv.includes('--no-doc');
  let seeded = 0;
  let seedSeconds = NaN;
  let res: Results | undefined;
  const run = await runForecastPipeline({
    series, seed: arg('seed', 42), weeks: arg('weeks', 156), backtestWindows: 3, workerProcesses: workers, log,
    steps: ['distribution', 'meio', 'eoq', 'supply'],
    prepare: async (ctx) => {
      const t = performance.now();
      seeded = await seedFlatForecasts(ctx, { horizon: HORIZON, label: 'bench:history' });
      seedSeconds = (performance.now() - t) / 1000;
      log(`  seeded ${int(seeded)} flat forecasts and best methods in ${secs(seedSeconds)} s`);
    },
    after: async (ctx, steps) => {
      const failed = steps.filter((s) => !s.ok);
      if (failed.length) throw new Error(`steps failed: ${failed.map((s) => `${s.step}: ${s.error}`).join('; ')}`);
      res = await measureHistory(ctx, opts);
    },
  });
  const r = res!;
  const [w1, w2, w2b] = r.freezes;
  const freezeWorst = Math.max(...r.freezes.map((f) => f.seconds));
  const compareWorst = Math.max(...r.compare.map((c) => c.max));

  const stepHead = ['step', 'status', 'rows', 'wall s', 'worker CPU s', 'PostgreSQL CPU s'];
  const stepRows = [...run.steps, ...(r.supplyRerun ? [r.supplyRerun] : [])].map((s) => [
    s.step, s.ok ? 'ok' : `FAILED: ${s.error}`, int(s.rows), secs(s.seconds), fixed(s.cpu.worker, 1), fixed(s.cpu.postgres, 1),
  ]);
  const freezeHead = ['freeze', 'archive date', 'rows', 'POST /api/history/freeze s', 'freeze activity s', 'replaced'];
  const freezeRows = r.freezes.map((f) => [f.label, f.archive_date, int(f.row_count_total), `**${secs(f.seconds)}**`, secs(f.activity_seconds), f.replaced ?? '–']);
  const spansOf = (f: Freeze) => Object.fromEntries([...f.log_line.matchAll(/(\w+) (\d+)(?=,| \(|$)/g)].map((m) => [m[1], Number(m[2])]));
  const spans = r.freezes.map(spansOf);
  const storageHead = ['table', 'rows (week 1)', 'copy ms (week 1 / week 2 / again)', 'version MiB', 'live table MiB', 'version ÷ live'];
  const storageRows = r.storage.filter((s) => s.rows > 0 || s.version_bytes > 0).map((s) => [
    s.table, int(s.rows), spans.map((sp) => sp[s.table] ?? '–').join(' / '), fixed(s.version_bytes / MIB, 1), fixed(s.live_bytes / MIB, 1),
    s.live_bytes ? `${fixed((100 * s.version_bytes) / s.live_bytes, 0)} %` : '–',
  ]);
  const versionBytes = r.storage.reduce((n, s) => n + s.version_bytes, 0) + r.onHand.bytes;
  storageRows.push(['on_hand (history_on_hand, the date\'s share)', int(r.onHand.rows), spans.map((sp) => sp.on_hand ?? '–').join(' / '), fixed(r.onHand.bytes / MIB, 1), '–', '–']);
  storageRows.push(['**total**', `**${int(w1.row_count_total)}**`, '', `**${fixed(versionBytes / MIB, 1)}**`, `**${fixed(r.liveTotalBytes / MIB, 1)}**`,
    `${fixed((100 * versionBytes) / r.liveTotalBytes, 0)} %`]);
  const timedHead = ['request', 'rows listed', 'bytes', 'first ms', 'p50 ms', 'max ms'];
  const timedRows = (ts: Timed[]) => ts.map((c) => [c.name, c.total === null ? '–' : int(c.total), int(c.bytes), fixed(c.first, 0), fixed(c.p50, 0), fixed(c.max, 0)]);
  const c = r.contrast;
  const contrastRows = [
    ['DELETE /api/history/versions/{date} (drops the partitions)', int(c.rows), secs(c.drop_seconds), '–'],
    ['`DELETE` of the same rows from indexed copies', int(c.rows), secs(c.delete_seconds), `VACUUM afterwards ${secs(c.vacuum_seconds)} s`],
  ];
  const freezeVerdict = `freeze of ${int(w1.row_count_total)} rows: ${secs(w1.seconds)} s, week 2 ${secs(w2.seconds)} s, the week again (replacing) ${secs(w2b.seconds)} s `
    + `(target ${FREEZE_TARGET_SECONDS} s: ${freezeWorst < FREEZE_TARGET_SECONDS ? 'met' : 'NOT met'}); ${fixed(versionBytes / MIB, 0)} MiB per version (${fixed((100 * versionBytes) / r.liveTotalBytes, 0)} % of the live tables)`;
  const compareVerdict = `compare, slowest dimension ${r.compare.reduce((a, b) => (b.max > a.max ? b : a)).name}: max ${fixed(compareWorst, 0)} ms over ${r.compare[0].n} requests (target ${COMPARE_TARGET_MS} ms: ${compareWorst < COMPARE_TARGET_MS ? 'met' : 'NOT met'})`;

  console.log(`\n${textTable(stepHead, stepRows)}\n\n${textTable(freezeHead, freezeRows.map((x) => x.map((y) => y.replace(/\*\*/g, ''))))}\n\n${textTable(storageHead, storageRows.map((x) => x.map((y) => y.replace(/\*\*/g, ''))))}`);
  console.log(`\n${textTable(timedHead, timedRows(r.compare))}\n\n${textTable(timedHead, timedRows(r.replay))}\n\n${textTable(['', 'rows', 's', ''], contrastRows.map((x) => x.map((y) => y.replace(/`/g, ''))))}\n`);
  console.log(freezeVerdict);
  console.log(compareVerdict);
  if (!doc) return;

  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const body = [
    `Run ${date} UTC on ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'unknown'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}; ${workers} worker processes;`,
    `${int(run.series)} generated series (${run.shape.items} items × ${run.shape.sites} sites, ${run.shape.weeks} weeks, seed ${run.shape.seed}).`,
    `Prepared by load ${secs(run.prepare.loadSeconds)} s, import ${secs(run.prepare.importSeconds)} s, etl ${secs(run.prepare.etlSeconds)} s, ${int(seeded)} seeded best-method forecasts ${secs(seedSeconds)} s,`
      + (Object.keys(r.tournament).length ? ` after the steps ${Object.entries(r.tournament).map(([k, n]) => `${int(n)} ${k}`).join(', ')} seeded in ${secs(r.tournamentSeconds)} s (not timed).` : ' no tournament rows (--lean).'),
    '',
    markdownTable(stepHead, stepRows),
    '',
    markdownTable(freezeHead, freezeRows),
    '',
    'Rows, copy time and storage per table (version = its partitions `history_<table>_<id>` with indexes and TOAST; live = the whole live table):',
    '',
    markdownTable(storageHead, storageRows),
    '',
    `**${freezeVerdict}.**`,
    '',
    `Comparisons of the two weeks (\`GET /api/compare/versions?pipeline_id&base=${w1.archive_date}&target=${w2b.archive_date}&dimension=…\`, first page, default paging), ${r.compare[0].n} requests one after the other, through the API, after \`ANALYZE\` of the two versions' partitions (${secs(r.statsSeconds)} s; autovacuum's work after a freeze):`,
    '',
    markdownTable(timedHead, timedRows(r.compare)),
    '',
    `**${compareVerdict}.**`,
    '',
    `Replays of week 2 (\`GET /api/history/replay/${w2b.archive_date}?pipeline_id&view=…\`):`,
    '',
    markdownTable(timedHead, timedRows(r.replay)),
    '',
    `Deleting week 1's version (the rows of its partitions; its on-hand rows stay, they are keyed by date) against deleting the same rows by key (copies of its partitions with the live tables' indexes, ${fixed(c.copies_bytes / MIB, 0)} MiB):`,
    '',
    markdownTable(['', 'rows', 's', ''], contrastRows, ['l', 'r', 'r', 'l']),
  ].join('\n');
  replaceBlock(DOC, 'bench:history', body, { skeleton: '# Benchmarks\n', heading: '## Plan versions (`npm run bench:history`)' });
  log('docs/BENCHMARKS.md: block bench:history written');
}

main().then(() => process.exit(0), (err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
