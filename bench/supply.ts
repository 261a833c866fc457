/**
 * `npm run bench:supply`: the supply step on 10,000 SKU-sites × 52 weeks through the real pipeline (target: under
 * 60 s on this machine) and `GET /api/supply/orders` on its result (target: p99 under 50 ms).
 *
 * The stack and tenant of bench:meio (bench/lib/forecastPipeline.ts: embedded PostgreSQL, Temporal dev server, one
 * worker process per core, the demo generator's tenant loaded through import staging, an import run and etl). The
 * supply step plans from the best method's forecasts; the forecasting steps that make them take many minutes at
 * 10,000 series and do not change what supply costs, so they are seeded after the etl with straight SQL: per series
 * the mean of its last 13 weeks as a flat 52-week `moving_average` forecast from the Monday after the last week of
 * history, and that method as the series' best method. Then distribution, meio, eoq and supply run as
 * POST /api/pipeline/run/{step} starts them. The supply job ends by running its allocation child, so its wall time
 * is split: the allocation child job's span (and the allocation activity's, from allocation_runs), and the supply
 * part alone, which the target is about.
 *
 * Then, with the stack and the run still there: a few thousand firm orders more (SQL; the demo brings some) so the
 * merge is real, the API as production runs it (bench/lib/apiLoad.ts), a planner logged in, and autocannon on the
 * orders list: the first page unfiltered, one item (a different one per request), firm orders only, and an
 * arrival-week window of one order type.
 *
 *   npm run bench:supply                       # 10,000 series; writes docs/BENCHMARKS.md
 *   npm run bench:supply -- --series 1000 --no-doc
 *   options: --series N, --seed N, --weeks N, --workers N (worker processes, default one per core), --firm N (firm
 *            orders added, default 3000), --seconds N and --connections N (autocannon, default 10 and 10), --no-doc,
 *            --label NAME (writes block bench:supply-NAME instead of bench:supply, e.g. --label before)
 *   API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" and BENCH_WORKER_NODE_ARGS=… profile the API and the workers
 */
import os from 'node:os';
import path from 'node:path';
import { sql, withTenant } from '../db/pool';
import { REPO_ROOT } from '../lib/env';
import { LIST_COLUMNS, listCells, listVerdict, measureLists, type ListRow } from './lib/apiLoad';
import { runForecastPipeline, type PipelineContext, type StepTiming } from './lib/forecastPipeline';
import { fixed, int, markdownTable, replaceBlock, secs, textTable } from './lib/report';
import { seedFlatForecasts } from './lib/seedForecasts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const log = (m: string) => console.log(`[bench:supply ${new Date().toISOString().slice(11, 19)}] ${m}`);
const SUPPLY_TARGET_SECONDS = 60;
const P99_TARGET_MS = 50;
const HORIZON = 52;
const DOC = path.join(REPO_ROOT, 'docs', 'BENCHMARKS.md');

interface SupplyFacts {
  run_id: string;
  scenario_id: number;
  planning_date: string;
  n_items: number;
  n_sku_sites: number;
  n_orders: number;
  n_exceptions: number;
  pegging_rows: number;
  checks: { ok: boolean; max_conservation_residual: number; max_pegging_residual: number; violations: string[] } | null;
  /** the allocation child job: created → finished, seconds */
  allocation_job_seconds: number;
  /** the allocation activity (allocation_runs started_at → finished_at), seconds */
  allocation_run_seconds: number;
  allocation_method: string | null;
  allocation_demands: number;
  allocation_supplies: number;
  allocation_status: string | null;
  top_order_type: string;
}


async function supplyFacts(ctx: PipelineContext): Promise<SupplyFacts> {
  return withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    const run = (await tx.one(sql.unsafe`
      SELECT run_id, scenario_id, to_char(planning_date, 'YYYY-MM-DD') AS planning_date, n_items, n_sku_sites, n_orders, n_exceptions, checks, kpis
      FROM supply_runs WHERE pipeline_id = ${ctx.pipelineId} ORDER BY started_at DESC LIMIT 1`)) as Omit<SupplyFacts, 'pegging_rows'> & { kpis: { orders_by_type?: Record<string, { count: number }> } | null };
    const pegging = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_pegging WHERE run_id = ${run.run_id}`)) as number;
    const job = (await tx.maybeOne(sql.unsafe`
      SELECT extract(epoch FROM finished_at - created_at)::float8 AS seconds FROM jobs WHERE job_id = ${`${run.run_id}-allocation`}`)) as { seconds: number | null } | null;
    const alloc = (await tx.maybeOne(sql.unsafe`
      SELECT status, method, n_demands, n_supplies, extract(epoch FROM finished_at - started_at)::float8 AS seconds
      FROM allocation_runs WHERE supply_run_id = ${run.run_id} ORDER BY started_at DESC LIMIT 1`)) as { status: string; method: string | null; n_demands: number; n_supplies: number; seconds: number | null } | null;
    const byType = Object.entries(run.kpis?.orders_by_type ?? {}).sort((a, b) => b[1].count - a[1].count);
    return {
      run_id: run.run_id, scenario_id: run.scenario_id, planning_date: run.planning_date, n_items: run.n_items, n_sku_sites: run.n_sku_sites,
      n_orders: run.n_orders, n_exceptions: run.n_exceptions, pegging_rows: pegging, checks: run.checks,
      allocation_job_seconds: job?.seconds ?? NaN, allocation_run_seconds: alloc?.seconds ?? NaN, allocation_method: alloc?.method ?? null,
      allocation_demands: alloc?.n_demands ?? NaN, allocation_supplies: alloc?.n_supplies ?? NaN, allocation_status: alloc?.status ?? null,
      top_order_type: byType[0]?.[0] ?? 'REPLENISH',
    };
  });
}

/**
 * Firm orders on the series' SKU-sites, arriving over the plan's 52 weeks, in every ERP status (received ones do not
 * count as supply and drop out of the default list, as in a real ERP feed). Returns the firm orders now in the table.
 */
async function addFirmOrders(ctx: PipelineContext, planningDate: string, n: number): Promise<{ before: number; after: number }> {
  return withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    const before = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM firm_orders`)) as number;
    await tx.query(sql.unsafe`
      WITH s AS (SELECT item_id, site_id, row_number() OVER (ORDER BY item_id, site_id) - 1 AS k, count(*) OVER () AS n FROM series),
      g AS (SELECT g, (g * 7919) % (SELECT count(*) FROM series) AS k FROM generate_series(0, ${n - 1}) g)
      INSERT INTO firm_orders (external_id, item_id, site_id, order_type, qty, release_dt, arrival_dt, erp_status, received_qty, unit_cost, source_system)
      SELECT 'BENCH-' || g.g, s.item_id, s.site_id, (ARRAY['BUY', 'BUY', 'BUILD', 'REPLENISH'])[1 + g.g % 4], 10 + g.g % 90,
        ${planningDate}::date + 7 * (g.g % ${HORIZON}) - 14, ${planningDate}::date + 7 * (g.g % ${HORIZON}),
        (ARRAY['firm', 'firm', 'released', 'in_transit', 'received'])[1 + g.g % 5], CASE WHEN g.g % 5 = 2 THEN 5 ELSE 0 END, 1 + g.g % 17, 'bench'
      FROM g JOIN s ON s.k = g.k`);
    await tx.query(sql.unsafe`ANALYZE firm_orders`);
    return { before, after: (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM firm_orders`)) as number };
  });
}

/** The API on the finished run: one row per request shape, each with the total the list reports. */
async function measureOrders(ctx: PipelineContext, facts: SupplyFacts, load: { connections: number; seconds: number }): Promise<ListRow[]> {
  const itemIds = (await withTenant(ctx.stack.db, ctx.accountId, (tx) =>
    tx.anyFirst(sql.unsafe`SELECT DISTINCT item_id FROM supply_orders WHERE run_id = ${facts.run_id} ORDER BY item_id`))) as readonly number[];
  const scope = `pipeline_id=${ctx.pipelineId}&scenario_id=${facts.scenario_id}`;
  // a fixed shuffle: consecutive requests ask for items far apart, as different planners' screens would
  const shuffled = itemIds.map((id, i) => ({ id, k: (i * 2654435761) % 4294967296 })).sort((a, b) => a.k - b.k).map((x) => x.id);
  return measureLists(
    { db: ctx.stack.db, accountId: ctx.accountId, databaseUrl: ctx.stack.databaseUrl, logFile: path.join(ctx.stack.tmpDir, 'api.log') },
    [
      { name: 'first page (limit 200), engine + firm', path: `/api/supply/orders?${scope}&limit=200` },
      { name: 'item_id=… (a different item per request)', path: `/api/supply/orders?${scope}&item_id=${shuffled[0]}`, paths: shuffled.map((id) => `/api/supply/orders?${scope}&item_id=${id}`) },
      { name: 'firm_only=true', path: `/api/supply/orders?${scope}&firm_only=true` },
      { name: `week_from=10&week_to=19&order_type=${facts.top_order_type}`, path: `/api/supply/orders?${scope}&week_from=10&week_to=19&order_type=${facts.top_order_type}` },
    ],
    { ...load, log, probePath: `/api/supply/runs?${scope}&limit=1`, totalOf: (res) => Number(res.headers.get('x-total-count')) },
  );
}

async function main(): Promise<void> {
  const series = arg('series', 10_000);
  const workers = arg('workers', os.availableParallelism());
  const firm = arg('firm', 3000);
  const load = { connections: arg('connections', 10), seconds: arg('seconds', 10) };
  const doc = !process.argv.includes('--no-doc');
  const labelAt = process.argv.indexOf('--label');
  const label = labelAt >= 0 ? process.argv[labelAt + 1] : '';
  let seedSeconds = NaN;
  let seeded = 0;
  let facts: SupplyFacts | undefined;
  let firmCounts = { before: 0, after: 0 };
  let api: ListRow[] = [];
  const run = await runForecastPipeline({
    series, seed: arg('seed', 42), weeks: arg('weeks', 156), backtestWindows: 3, workerProcesses: workers, log,
    steps: ['distribution', 'meio', 'eoq', 'supply'],
    prepare: async (ctx) => {
      const t = performance.now();
      seeded = await seedFlatForecasts(ctx, { horizon: HORIZON, label: 'bench:supply' });
      seedSeconds = (performance.now() - t) / 1000;
      log(`  seeded ${int(seeded)} flat forecasts and best methods in ${secs(seedSeconds)} s`);
    },
    after: async (ctx, steps) => {
      if (!steps.find((s) => s.step === 'supply')?.ok) return;
      facts = await supplyFacts(ctx);
      if (!facts.checks?.ok) return;
      firmCounts = await addFirmOrders(ctx, facts.planning_date, firm);
      log(`firm orders: ${int(firmCounts.before)} from the demo, ${int(firmCounts.after)} after adding ${int(firm)}`);
      api = await measureOrders(ctx, facts, load);
    },
  });

  const supply = run.steps.find((s) => s.step === 'supply')!;
  if (!supply.ok) throw new Error(`the supply step failed: ${supply.error}`);
  const f = facts!;
  if (!f.checks?.ok) throw new Error(`supply run ${f.run_id}: checks not ok: ${JSON.stringify(f.checks)}`);
  const supplyAlone = supply.seconds - f.allocation_job_seconds;

  const stepHead = ['step', 'status', 'series', 'rows', 'chunks', 'wall s', 'worker CPU s', 'PostgreSQL CPU s', 'workers busy'];
  const stepRows = run.steps.map((s: StepTiming) => [
    s.step === 'supply' ? 'supply (job, allocation child included)' : s.step, s.ok ? 'ok' : `FAILED: ${s.error}`, int(s.series), int(s.rows), int(s.chunks),
    secs(s.seconds), fixed(s.cpu.worker, 1), fixed(s.cpu.postgres, 1), s.chunks_timeline ? `${fixed(100 * s.chunks_timeline.utilisation, 0)} %` : '–',
  ]);
  const factRows: string[][] = [
    ['SKU-sites planned (supply_runs.n_sku_sites)', int(f.n_sku_sites)],
    ['items', int(f.n_items)],
    ['orders', int(f.n_orders)],
    ['pegging rows', int(f.pegging_rows)],
    ['exceptions', int(f.n_exceptions)],
    ['checks', f.checks.ok ? `ok (conservation residual ${f.checks.max_conservation_residual.toExponential(1)}, pegging ${f.checks.max_pegging_residual.toExponential(1)})` : 'FAILED'],
    ['supply job wall s (allocation included)', secs(supply.seconds)],
    ['allocation child job s', `${secs(f.allocation_job_seconds)} (activity ${secs(f.allocation_run_seconds)} s; ${f.allocation_method ?? '?'}, ${int(f.allocation_demands)} demand lines, ${int(f.allocation_supplies)} supplies)`],
    ['**supply part alone s**', `**${secs(supplyAlone)}**`],
    ['worker / PostgreSQL CPU s (whole job)', `${fixed(supply.cpu.worker, 1)} / ${fixed(supply.cpu.postgres, 1)}`],
  ];
  const supplyVerdict = supplyAlone < SUPPLY_TARGET_SECONDS
    ? `supply: ${int(f.n_sku_sites)} SKU-sites × ${HORIZON} weeks planned in ${secs(supplyAlone)} s (target ${SUPPLY_TARGET_SECONDS} s: met, ${fixed(SUPPLY_TARGET_SECONDS / supplyAlone, 1)}× under); its allocation child ${secs(f.allocation_job_seconds)} s more`
    : `supply: ${int(f.n_sku_sites)} SKU-sites in ${secs(supplyAlone)} s (target ${SUPPLY_TARGET_SECONDS} s: NOT met)`;
  const apiHead = ['GET /api/supply/orders', ...LIST_COLUMNS];
  const apiRows = api.map(listCells);
  const apiVerdict = listVerdict('GET /api/supply/orders', api, P99_TARGET_MS);

  console.log(`\n${textTable(stepHead, stepRows)}\n\n${textTable(['', ''], factRows.map((r) => r.map((c) => c.replace(/\*\*/g, ''))), ['l', 'l'])}\n\n${textTable(apiHead, apiRows)}\n`);
  console.log(supplyVerdict);
  console.log(apiVerdict);
  const bad = api.filter((r) => r.non2xx || r.errors);
  if (bad.length) throw new Error(`non-2xx answers or errors: ${bad.map((r) => `${r.name} (${r.non2xx} non-2xx, ${r.errors} errors)`).join('; ')}`);
  if (!doc) return;

  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const body = [
    `Run ${date} UTC${label ? ` (${label})` : ''} on ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'unknown'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}; ${workers} worker processes;`,
    `${int(run.series)} generated series (${run.shape.items} items × ${run.shape.sites} sites, ${run.shape.weeks} weeks, seed ${run.shape.seed}); chunk size ${run.settings.chunkSize} series, cut at item boundaries.`,
    `Prepared by load ${secs(run.prepare.loadSeconds)} s, import ${secs(run.prepare.importSeconds)} s, etl ${secs(run.prepare.etlSeconds)} s, ${int(seeded)} seeded flat forecasts ${secs(seedSeconds)} s (not timed below).`,
    '',
    markdownTable(stepHead, stepRows),
    '',
    markdownTable(['supply run', ''], factRows, ['l', 'r']),
    '',
    `**${supplyVerdict}.**`,
    '',
    `Orders list at ${int(f.n_orders)} engine orders and ${int(firmCounts.after)} firm orders (${int(firmCounts.after - firmCounts.before)} added by SQL, ${int(firmCounts.before)} from the demo); API as production runs it (answers kept per plan version), then with PLAN_READ_CACHE_MB=0 (every request reads PostgreSQL), autocannon ${load.connections} connections, ${load.seconds} s per row after a 2 s warm-up, from the benchmark's process on the same machine:`,
    '',
    markdownTable(apiHead, apiRows),
    '',
    `**${apiVerdict}.**`,
  ].join('\n');
  // the plain run refreshes the published figures; a labelled run (--label before) keeps a block of its own
  const block = label ? `bench:supply-${label}` : 'bench:supply';
  replaceBlock(DOC, block, body, { skeleton: '# Benchmarks\n', heading: '## Supply through the pipeline (`npm run bench:supply`)' });
  log(`docs/BENCHMARKS.md: block ${block} written`);
}

main().then(() => process.exit(0), (err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
