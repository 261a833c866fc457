/**
 * `npm run bench:alerts`: the planner's work queue at 10,000 series through the real pipeline. Targets (issue 17):
 * alert and exception generation under 20 s; `GET /api/exception-log` p99 under 50 ms.
 *
 * The stack and tenant of bench:supply (bench/lib/forecastPipeline.ts). The forecasting steps are seeded after the
 * etl with straight SQL (bench/lib/seedForecasts.ts: flat best-method forecasts, and a tournament's rows: outliers,
 * characteristics, every method's forecasts, backtest metrics and windows), so every alert rule has facts to read.
 * Then distribution, meio and supply run as POST /api/pipeline/run/{step} starts them; meio and supply each end with
 * the refresh of alerts and exception log that every forecasting, MEIO and supply step now runs (workflows/runStep.ts
 * SIGNAL_STEPS), and the report splits those activities out of the step's wall time. Then, on the finished plan, the
 * two generations again as the jobs planners start (POST /api/alerts/generate, POST /api/exception-log/generate):
 * wall time from the job's creation to its end, which is what the target is about.
 *
 * Then the API as production runs it and autocannon on the exception log: the first page, open supply rows, a
 * segment of a third of the series, and a deep page; and the alerts list beside it.
 *
 *   npm run bench:alerts                       # 10,000 series; writes docs/BENCHMARKS.md
 *   npm run bench:alerts -- --series 1000 --no-doc
 *   options: --series N, --seed N, --weeks N, --workers N, --seconds N, --connections N, --no-doc
 */
import os from 'node:os';
import path from 'node:path';
import { newJobId, startJob } from '../api/jobs/service';
import { sql, withTenant } from '../db/pool';
import { REPO_ROOT } from '../lib/env';
import { activityTimeline } from './lib/activityTimeline';
import { LIST_COLUMNS, listCells, listVerdict, measureLists, type ListRow } from './lib/apiLoad';
import { followWorkflow } from './lib/followWorkflow';
import { runForecastPipeline, type PipelineContext, type StepTiming } from './lib/forecastPipeline';
import { fixed, int, markdownTable, replaceBlock, secs, textTable } from './lib/report';
import { seedFlatForecasts, seedTournamentRows } from './lib/seedForecasts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const log = (m: string) => console.log(`[bench:alerts ${new Date().toISOString().slice(11, 19)}] ${m}`);
const GENERATION_TARGET_SECONDS = 20;
const P99_TARGET_MS = 50;
const HORIZON = 52;
const DOC = path.join(REPO_ROOT, 'docs', 'BENCHMARKS.md');
const SIGNAL_ACTIVITIES = ['alertsGenerate', 'exceptionLogGenerate'];

interface Generation {
  what: string;
  seconds: number;
  result: Record<string, unknown>;
}

interface InStep {
  step: string;
  step_seconds: number;
  alerts_seconds: number;
  exception_log_seconds: number;
}

interface QueueFacts {
  alerts: number;
  alerts_by_domain: Record<string, number>;
  rules_fired: number;
  exception_rows: number;
  exception_rows_by_type: Record<string, number>;
}

async function generate(ctx: PipelineContext, workflow: 'alertsGenerate' | 'exceptionLogGenerate'): Promise<Generation> {
  const kind = workflow === 'alertsGenerate' ? 'alerts' : 'exception_log';
  const jobId = newJobId(kind);
  const temporal = { client: ctx.stack.client, taskQueue: ctx.stack.taskQueue };
  await startJob(ctx.stack.db, temporal, ctx.accountId, {
    job_id: jobId, kind, step: kind, pipeline_id: ctx.pipelineId, created_by: 'bench', params: {},
  }, workflow, [{ accountId: ctx.accountId, jobId, pipelineId: ctx.pipelineId }]);
  const out = await followWorkflow<Record<string, unknown>>(ctx.stack, ctx.workers[0], ctx.accountId, jobId, log);
  if (!out.ok) throw new Error(`${workflow} failed: ${out.error}`);
  const seconds = (await withTenant(ctx.stack.db, ctx.accountId, (tx) =>
    tx.oneFirst(sql.unsafe`SELECT extract(epoch FROM finished_at - created_at)::float8 FROM jobs WHERE job_id = ${jobId}`))) as number;
  log(`${workflow}: ${secs(seconds)} s, ${JSON.stringify(out.result)}`);
  return { what: workflow === 'alertsGenerate' ? 'POST /api/alerts/generate (job)' : 'POST /api/exception-log/generate (job)', seconds, result: out.result };
}

/** The refresh inside a step's job: the spans of its activities, from Temporal's history (they overlap). */
async function inStep(ctx: PipelineContext, step: StepTiming): Promise<InStep> {
  const jobId = (await withTenant(ctx.stack.db, ctx.accountId, (tx) =>
    tx.oneFirst(sql.unsafe`SELECT job_id FROM jobs WHERE step = ${step.step} AND parent_job_id IS NULL AND kind = 'step' ORDER BY created_at DESC LIMIT 1`))) as string;
  const tl = await activityTimeline(ctx.stack.client, jobId, (type) => SIGNAL_ACTIVITIES.includes(type));
  // from the first start to the last end: a whole-pipeline refresh runs its alert generations side by side
  const span = (type: string) => {
    const of = tl.activities.filter((a) => a.type === type);
    return of.length ? (Math.max(...of.map((a) => a.ended)) - Math.min(...of.map((a) => a.started))) / 1000 : 0;
  };
  return { step: step.step, step_seconds: step.seconds, alerts_seconds: span('alertsGenerate'), exception_log_seconds: span('exceptionLogGenerate') };
}

async function queueFacts(ctx: PipelineContext): Promise<QueueFacts> {
  return withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    const byDomain = (await tx.any(sql.unsafe`SELECT domain, count(*)::int AS n FROM alerts WHERE pipeline_id = ${ctx.pipelineId} GROUP BY domain ORDER BY domain`)) as Array<{ domain: string; n: number }>;
    const rules = (await tx.oneFirst(sql.unsafe`SELECT count(DISTINCT metric_name)::int FROM alerts WHERE pipeline_id = ${ctx.pipelineId}`)) as number;
    const byType = (await tx.any(sql.unsafe`
      SELECT t AS type, count(*)::int AS n FROM exception_log, unnest(exception_types) t WHERE pipeline_id = ${ctx.pipelineId} GROUP BY t ORDER BY t`)) as Array<{ type: string; n: number }>;
    const rows = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM exception_log WHERE pipeline_id = ${ctx.pipelineId} AND cardinality(exception_types) > 0`)) as number;
    return {
      alerts: byDomain.reduce((n, r) => n + r.n, 0), alerts_by_domain: Object.fromEntries(byDomain.map((r) => [r.domain, r.n])), rules_fired: rules,
      exception_rows: rows, exception_rows_by_type: Object.fromEntries(byType.map((r) => [r.type, r.n])),
    };
  });
}

/** A segment of every third series, so the segment filter has real work. */
async function addSegment(ctx: PipelineContext): Promise<number> {
  return withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    const id = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('bench third') RETURNING id`)) as number;
    await tx.query(sql.unsafe`
      INSERT INTO segment_members (segment_id, item_id, site_id)
      SELECT ${id}, item_id, site_id FROM (SELECT item_id, site_id, row_number() OVER (ORDER BY item_id, site_id) AS k FROM series) s WHERE k % 3 = 0`);
    await tx.query(sql.unsafe`ANALYZE segment_members`);
    return id;
  });
}

async function measureApi(ctx: PipelineContext, load: { connections: number; seconds: number }): Promise<ListRow[]> {
  const segment = await addSegment(ctx);
  const p = `pipeline_id=${ctx.pipelineId}`;
  return measureLists(
    { db: ctx.stack.db, accountId: ctx.accountId, databaseUrl: ctx.stack.databaseUrl, logFile: path.join(ctx.stack.tmpDir, 'api.log') },
    [
      { name: 'exception log, first page (page_size 50)', path: `/api/exception-log?${p}&page_size=50` },
      { name: 'exception log, status=open&types=supply', path: `/api/exception-log?${p}&status=open&types=supply&page_size=50` },
      { name: 'exception log, segment_id (a third of the series)', path: `/api/exception-log?${p}&segment_id=${segment}&page_size=50` },
      { name: 'exception log, page 40', path: `/api/exception-log?${p}&page=40&page_size=50` },
      { name: 'alerts, first page (page_size 50)', path: `/api/alerts?${p}&page_size=50` },
    ],
    { ...load, log, probePath: `/api/exception-log?${p}&page_size=1`, totalOf: (_res, body) => (body as { total: number }).total },
  );
}

async function main(): Promise<void> {
  const series = arg('series', 10_000);
  const workers = arg('workers', os.availableParallelism());
  const load = { connections: arg('connections', 10), seconds: arg('seconds', 10) };
  const doc = !process.argv.includes('--no-doc');
  let seeded: Record<string, number> = {};
  let gens: Generation[] = [];
  let steps: InStep[] = [];
  let facts: QueueFacts | undefined;
  let api: ListRow[] = [];
  const run = await runForecastPipeline({
    series, seed: arg('seed', 42), weeks: arg('weeks', 156), backtestWindows: 3, workerProcesses: workers, log,
    steps: ['distribution', 'meio', 'supply'],
    prepare: async (ctx) => {
      const flat = await seedFlatForecasts(ctx, { horizon: HORIZON, label: 'bench:alerts' });
      seeded = { best_methods: flat, ...(await seedTournamentRows(ctx, { horizon: HORIZON, windows: 3, label: 'bench:alerts' })) };
      log(`  seeded ${JSON.stringify(seeded)}`);
    },
    after: async (ctx, timed) => {
      const failed = timed.find((s) => !s.ok);
      if (failed) throw new Error(`step ${failed.step} failed: ${failed.error}`);
      steps = await Promise.all(timed.filter((s) => s.step !== 'distribution').map((s) => inStep(ctx, s)));
      gens = [await generate(ctx, 'alertsGenerate'), await generate(ctx, 'exceptionLogGenerate')];
      facts = await queueFacts(ctx);
      api = await measureApi(ctx, load);
    },
  });

  const f = facts!;
  const total = gens.reduce((n, g) => n + g.seconds, 0);
  const genHead = ['generation', 'wall s', 'result'];
  const genRows = gens.map((g) => [g.what, secs(g.seconds), Object.entries(g.result).filter(([k]) => k !== 'pipeline_id').map(([k, v]) => `${k} ${v}`).join(', ')]);
  const stepHead = ['step job', 'wall s', 'of which alerts s', 'of which exception log s'];
  const stepRows = steps.map((s) => [s.step, secs(s.step_seconds), secs(s.alerts_seconds), secs(s.exception_log_seconds)]);
  const factRows = [
    ['alerts', `${int(f.alerts)} (${Object.entries(f.alerts_by_domain).map(([d, n]) => `${d} ${int(n)}`).join(', ')}); ${f.rules_fired} of 32 rules fired`],
    ['exception-log rows with issues', `${int(f.exception_rows)} (${Object.entries(f.exception_rows_by_type).map(([t, n]) => `${t} ${int(n)}`).join(', ')})`],
  ];
  const verdict = `alerts + exception log for ${int(run.series)} series: ${secs(total)} s (target ${GENERATION_TARGET_SECONDS} s: ${total < GENERATION_TARGET_SECONDS ? `met, ${fixed(GENERATION_TARGET_SECONDS / total, 1)}× under` : 'NOT met'})`;
  const apiHead = ['GET', ...LIST_COLUMNS];
  const apiRows = api.map(listCells);
  const apiVerdict = listVerdict('GET /api/exception-log', api.filter((r) => r.name.startsWith('exception log')), P99_TARGET_MS);
  const loadAvg = os.loadavg().map((x) => x.toFixed(1)).join(' / ');

  console.log(`\n${textTable(genHead, genRows, ['l', 'r', 'l'])}\n\n${textTable(stepHead, stepRows)}\n\n${textTable(['', ''], factRows, ['l', 'l'])}\n\n${textTable(apiHead, apiRows)}\n`);
  console.log(verdict);
  console.log(apiVerdict);
  const bad = api.filter((r) => r.non2xx || r.errors);
  if (bad.length) throw new Error(`non-2xx answers or errors: ${bad.map((r) => `${r.name} (${r.non2xx} non-2xx, ${r.errors} errors)`).join('; ')}`);
  if (!doc) return;

  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const body = [
    `Run ${date} UTC on ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'unknown'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}; ${workers} worker processes; load average at the end ${loadAvg};`,
    `${int(run.series)} generated series (${run.shape.items} items × ${run.shape.sites} sites, ${run.shape.weeks} weeks, seed ${run.shape.seed}); forecasting results seeded by SQL (${Object.entries(seeded).map(([k, v]) => `${k} ${int(v)}`).join(', ')}), then distribution, meio and supply through the pipeline.`,
    '',
    markdownTable(genHead, genRows, ['l', 'r', 'l']),
    '',
    `**${verdict}.**`,
    '',
    'The same refresh inside the step jobs that run it (activity spans from the workflow history):',
    '',
    markdownTable(stepHead, stepRows),
    '',
    markdownTable(['work queue', ''], factRows, ['l', 'l']),
    '',
    `API as production runs it (answers kept per plan version), then with PLAN_READ_CACHE_MB=0 (every request reads PostgreSQL), autocannon ${load.connections} connections, ${load.seconds} s per row after a 2 s warm-up, from the benchmark's process on the same machine:`,
    '',
    markdownTable(apiHead, apiRows),
    '',
    `**${apiVerdict}.**`,
  ].join('\n');
  replaceBlock(DOC, 'bench:alerts', body, { skeleton: '# Benchmarks\n', heading: '## Alerts and the exception log (`npm run bench:alerts`)' });
  log('docs/BENCHMARKS.md: block bench:alerts written');
}

main().then(() => process.exit(0), (err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
