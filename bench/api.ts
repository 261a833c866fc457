/**
 * `npm run bench:api`: read throughput of the API at 10,000 series, side by side with the bare `GET /` of the same
 * process (no auth, no database: the ceiling of Koa + Node on this machine).
 *
 * One embedded PostgreSQL in a fresh temporary directory; a fresh account whose data is written with straight SQL
 * (items, sites, series with their etl statistics, 156 weeks of series_weekly, and for one pipeline of the baseline
 * scenario the characterization, best-method and forecast rows plus the completed jobs that make it the default
 * pipeline). The rows have the shapes the steps store; they are not the steps' numbers. Straight SQL instead of import
 * + etl + the forecasting steps: the reads cost the same whatever computed the rows, and the load takes seconds instead
 * of minutes (no Temporal, no worker). The API runs as production runs it, in a process of its own
 * (`node --import tsx api/main.ts`, NODE_ENV=production, pool of 10); autocannon runs here, so the load generator does
 * not share the API's event loop (it does share the machine's 2 CPUs).
 *
 * Rows: GET / (the ceiling), GET /api/auth/me, GET /api/series?limit=200, GET /api/forecasts/{unique_id} (a different
 * series on every request, all 10,000 in turn). Measured per row: req/s, latency p50 and p99, bytes per answer,
 * req/s as a share of the ceiling, and over the row's measured seconds the CPU per request of the API, PostgreSQL,
 * autocannon and interrupts, and how many CPUs the machine's other processes kept busy (the machine is shared: a
 * ratio to the ceiling means little when one of the two rows had company). Non-2xx answers are counted and fail the
 * row.
 *
 *   npm run bench:api                          # 10000 series, 10 s per row, 10 connections; writes docs/BENCHMARKS.md
 *   npm run bench:api -- [--series 10000] [--seconds 10] [--connections 10] [--no-doc] [--label NAME] [--keep]
 *                                              # --label NAME writes block bench:api-NAME instead of bench:api
 *   npm run bench:api -- --only auth/me        # the ceiling and the rows whose request contains the text; docs untouched
 *   API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:api -- --no-doc   # profile the API process
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAccount } from '../db/accounts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded';
import { migrateAll } from '../db/migrate';
import { openPool, sql, withTenant, type Db } from '../db/pool';
import { REPO_ROOT } from '../lib/env';
import { freePort } from '../lib/net';
import { addPlanner, login, measure as measureLoad, startApi, stopChild, waitForCache, type LoadRow as Row } from './lib/apiLoad';
import { describeMachine } from './lib/machine';
import { findProcess, treeCpuSeconds } from './lib/proc';
import { fixed, int, markdownTable, replaceBlock, textTable } from './lib/report';

interface Args {
  series: number;
  seconds: number;
  connections: number;
  doc: boolean;
  label: string;
  keep: boolean;
  /** run only the rows whose request contains this text (and the ceiling); docs untouched */
  only: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i < 0 ? undefined : argv[i + 1];
  };
  const known = ['--series', '--seconds', '--connections', '--no-doc', '--label', '--keep', '--only', '--help'];
  for (const a of argv) if (a.startsWith('--') && !known.includes(a)) throw new Error(`unknown option ${a} (known: ${known.join(' ')})`);
  if (argv.includes('--help')) {
    process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0].replace(/^\/\*\*?|^ \* ?/gm, '') + '\n');
    process.exit(0);
  }
  return {
    series: Number(value('--series') ?? 10_000),
    seconds: Number(value('--seconds') ?? 10),
    connections: Number(value('--connections') ?? 10),
    doc: !argv.includes('--no-doc') && !argv.includes('--only'),
    label: value('--label') ?? '',
    keep: argv.includes('--keep'),
    only: value('--only'),
  };
}

const log = (msg: string) => process.stdout.write(`[bench:api ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const DOC = path.join(REPO_ROOT, 'docs', 'BENCHMARKS.md');
/** clock ticks per second of /proc/stat (USER_HZ, 100 on Linux) */
const CLK_TCK = 100;
const WEEKS = 156;
const HORIZON = 52;
const METHODS = ['auto_ets', 'auto_arima', 'croston'];

/** items × sites as bench/etl.ts shapes 10,000 series (1000 × 30 would be its shape; 10 sites keep the ids short). */
function shapeOf(series: number): { items: number; sites: number } {
  const sites = series >= 100 ? 10 : 1;
  return { items: Math.ceil(series / sites), sites };
}

/** The tenant, in set-based statements: a few seconds for 10,000 series × 156 weeks. */
async function loadTenant(db: Db, accountId: string, series: number): Promise<{ pipelineId: number; uids: string[] }> {
  const { items, sites } = shapeOf(series);
  return withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`
      INSERT INTO items (xuid, name, image_url, attributes, avg_unit_cost, unit_price)
      SELECT 'ITEM-' || g, 'Item ' || g, NULL, jsonb_build_object('family', 'F' || (g % 20), 'brand', 'B' || (g % 7), 'abc', chr(65 + g % 3)),
        1 + (g % 50), 2 + (g % 50) * 1.4
      FROM generate_series(1, ${items}) g`);
    await tx.query(sql.unsafe`
      INSERT INTO sites (xuid, name, attributes) SELECT 'SITE-' || g, 'Site ' || g, jsonb_build_object('region', 'R' || (g % 3))
      FROM generate_series(1, ${sites}) g`);
    await tx.query(sql.unsafe`
      INSERT INTO series (item_id, site_id) SELECT i.id, s.id FROM items i CROSS JOIN sites s ORDER BY 1, 2 LIMIT ${series}`);
    // 156 weeks ending on a Monday; demand is a seeded function of the ids so reruns load the same numbers
    await tx.query(sql.unsafe`
      INSERT INTO series_weekly (item_id, site_id, week, y)
      SELECT s.item_id, s.site_id, date '2023-01-02' + 7 * w,
        greatest(0, round((10 + (s.item_id % 13) * 3 + 6 * sin(w / 8.0 + s.site_id) + ((s.item_id * 31 + s.site_id * 17 + w * 7) % 11) - 5)::numeric, 0))
      FROM series s CROSS JOIN generate_series(0, ${WEEKS - 1}) w`);
    await tx.query(sql.unsafe`
      UPDATE series s SET n_observations = a.n, date_range_start = a.first, date_range_end = a.last, mean = a.mean,
        zero_ratio = a.zero_ratio, total_demand = a.total, updated_at = now()
      FROM (SELECT item_id, site_id, count(*) AS n, min(week) AS first, max(week) AS last, avg(y) AS mean,
              avg((y = 0)::int) AS zero_ratio, sum(y) AS total
            FROM series_weekly GROUP BY 1, 2) a
      WHERE a.item_id = s.item_id AND a.site_id = s.site_id`);
    const scenarioId = (await tx.oneFirst(sql.unsafe`
      INSERT INTO forecast_scenarios (name, is_baseline) VALUES ('Baseline', true) RETURNING id`)) as number;
    const pipelineId = (await tx.oneFirst(sql.unsafe`
      INSERT INTO scenario_pipelines (name, forecast_scenario_id, is_active, last_run_at) VALUES ('bench', ${scenarioId}, true, now()) RETURNING id`)) as number;
    await tx.query(sql.unsafe`
      INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, mean, adi, cv2, zero_ratio, cov, demand_class,
        is_intermittent, has_seasonality, seasonal_period, has_trend, complexity_level, recommended_methods, details, job_id)
      SELECT ${pipelineId}, item_id, site_id, n_observations, mean, 1 + (item_id % 5) * 0.2, 0.1 + (site_id % 4) * 0.2, zero_ratio, 0.3,
        CASE item_id % 4 WHEN 0 THEN 'smooth' WHEN 1 THEN 'erratic' WHEN 2 THEN 'intermittent' ELSE 'lumpy' END,
        item_id % 4 IN (2, 3), item_id % 3 = 0, 52, item_id % 5 = 0, 'medium', ${sql.array(METHODS, 'text')}, '{}'::jsonb, 'bench-char'
      FROM series`);
    await tx.query(sql.unsafe`
      INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, runner_up_method, best_score, metric, ranking, job_id)
      SELECT ${pipelineId}, item_id, site_id, ${METHODS[0]}, ${METHODS[1]}, 0.8 + (item_id % 7) * 0.05, 'mase',
        jsonb_build_array(jsonb_build_object('method', ${METHODS[0]}::text, 'score', 0.8), jsonb_build_object('method', ${METHODS[1]}::text, 'score', 0.9)), 'bench-best'
      FROM series`);
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level, params, job_id)
      SELECT ${pipelineId}, s.item_id, s.site_id, m.method, ${scenarioId}, date '2023-01-02' + 7 * ${WEEKS},
        f.yhat, ARRAY(SELECT v * 0.8 FROM unnest(f.yhat) v), ARRAY(SELECT v * 1.2 FROM unnest(f.yhat) v), 0.9, '{}'::jsonb, 'bench-forecast'
      FROM series s CROSS JOIN unnest(${sql.array(METHODS, 'text')}::text[]) WITH ORDINALITY AS m(method, k)
      CROSS JOIN LATERAL (SELECT ARRAY(SELECT (s.mean + m.k + 3 * sin(h / 6.0))::float8 FROM generate_series(1, ${HORIZON}) h) AS yhat) f`);
    for (const step of ['etl', 'characterization', 'forecast', 'best-method']) {
      await tx.query(sql.unsafe`
        INSERT INTO jobs (job_id, kind, step, pipeline_id, status, created_at, started_at, finished_at)
        VALUES (${`bench-${step}`}, 'step', ${step}, ${pipelineId}, 'completed', now(), now(), now())`);
    }
    await tx.query(sql.unsafe`ANALYZE`);
    const uids = (await tx.anyFirst(sql.unsafe`SELECT item_id::text || '_' || site_id::text FROM series ORDER BY item_id, site_id`)) as readonly string[];
    return { pipelineId, uids: [...uids] };
  });
}

/**
 * CPU seconds used so far by the API, PostgreSQL (postmaster and backends), this process (autocannon), every process
 * of the machine (user, nice and system time of /proc/stat) and its interrupts: the kernel's loopback network work
 * mostly runs as softirq, which no process is charged with.
 */
interface CpuReading {
  api: number;
  pg: number;
  bench: number;
  processes: number;
  interrupts: number;
}

function machineCpu(): { processes: number; interrupts: number } {
  // user nice system idle iowait irq softirq steal
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { processes: (f[0] + f[1] + f[2]) / CLK_TCK, interrupts: (f[5] + f[6]) / CLK_TCK };
}

/** A row with the CPU its measured seconds cost each party, so that a run disturbed by other processes shows as such. */
interface MeasuredRow extends Row {
  /** CPU µs per request */
  apiUs: number;
  pgUs: number;
  benchUs: number;
  /** CPU seconds of other processes on the machine per second of the row */
  otherCpus: number;
  /** CPU seconds of interrupt handling (the loopback network) per request, µs */
  interruptUs: number;
}

async function measure(name: string, url: string, args: Args, cpuNow: () => CpuReading, opts: { token?: string; paths?: string[] }): Promise<MeasuredRow> {
  let from: CpuReading | undefined;
  let to: CpuReading | undefined;
  let t0 = 0;
  let t1 = 0;
  const window = { start: () => ((from = cpuNow()), (t0 = performance.now())), end: () => ((to = cpuNow()), (t1 = performance.now())) };
  const row = await measureLoad(name, url, { connections: args.connections, seconds: args.seconds, log }, { ...opts, window });
  const requests = row.reqPerSec * ((t1 - t0) / 1000);
  const used = (k: keyof CpuReading) => to![k] - from![k];
  const other = Math.max(0, used('processes') - used('api') - used('pg') - used('bench'));
  const us = (k: keyof CpuReading) => (1e6 * used(k)) / requests;
  return { ...row, apiUs: us('api'), pgUs: us('pg'), benchUs: us('bench'), interruptUs: us('interrupts'), otherCpus: other / ((t1 - t0) / 1000) };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-'));
  let pg: EmbeddedDatabase | undefined;
  let db: Db | undefined;
  let api: ChildProcess | undefined;
  const cleanup = async () => {
    if (api) await stopChild(api);
    await db?.end().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    if (!args.keep) fs.rmSync(tmpDir, { recursive: true, force: true, maxRetries: 3 });
    else log(`kept ${tmpDir}`);
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(sig);
    process.once(sig, () => void cleanup().finally(() => process.exit(130)));
  }
  try {
    const pgPort = await freePort();
    log(`embedded PostgreSQL in ${tmpDir} (port ${pgPort})`);
    pg = await startEmbeddedPostgres({ dataDir: path.join(tmpDir, 'postgres'), port: pgPort, fast: true });
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(sig);
      process.once(sig, () => void cleanup().finally(() => process.exit(130)));
    }
    await migrateAll(pg.url);
    db = await openPool(pg.url, 4);
    const machine = await describeMachine(db);
    const account = await createAccount(db, pg.url, `bench-api-${Date.now()}`);
    const t0 = performance.now();
    const { uids } = await loadTenant(db, account.id, args.series);
    log(`${int(uids.length)} series × ${WEEKS} weeks, ${METHODS.length} forecasts each, loaded in ${fixed((performance.now() - t0) / 1000, 1)} s`);
    const email = 'bench-planner@example.com';
    const password = 'bench-planner-password';
    await addPlanner(db, account.id, email, password);

    const port = await freePort();
    api = await startApi(pg.url, port, path.join(tmpDir, 'api.log'));
    const url = `http://127.0.0.1:${port}`;
    const token = await login(url, email, password, account.id);
    await waitForCache(url, token, '/api/series?limit=1');

    log(`API pid ${api.pid} on ${url}; ${args.connections} connections, ${args.seconds} s per row after a 2 s warm-up`);
    const apiPid = api.pid!;
    const pgPid = findProcess(path.join(tmpDir, 'postgres'));
    const cpuNow = (): CpuReading => {
      const self = process.cpuUsage();
      return { api: treeCpuSeconds(apiPid), pg: pgPid ? treeCpuSeconds(pgPid) : NaN, bench: (self.user + self.system) / 1e6, ...machineCpu() };
    };
    const rows: MeasuredRow[] = [];
    const wanted = (name: string) => !args.only || name.includes(args.only);
    rows.push(await measure('GET / (ceiling)', `${url}/`, args, cpuNow, {}));
    if (wanted('GET /api/auth/me')) rows.push(await measure('GET /api/auth/me', `${url}/api/auth/me`, args, cpuNow, { token }));
    if (wanted('GET /api/series?limit=200')) rows.push(await measure('GET /api/series?limit=200', `${url}/api/series?limit=200`, args, cpuNow, { token }));
    if (wanted('GET /api/forecasts/{unique_id}')) {
      rows.push(await measure('GET /api/forecasts/{unique_id}', `${url}/api/forecasts/${uids[0]}`, args, cpuNow, { token, paths: uids.map((u) => `/api/forecasts/${u}`) }));
    }

    const ceiling = rows[0].reqPerSec;
    const head = ['request', 'req/s', 'p50 ms', 'p99 ms', 'bytes / answer', 'req/s vs ceiling', 'CPU µs / request: API / PostgreSQL / autocannon / interrupts', 'other processes (CPUs)'];
    const cells = rows.map((r) => [
      r.name, int(r.reqPerSec), String(r.p50), String(r.p99), int(r.bytes), `${fixed((100 * r.reqPerSec) / ceiling, 1)} %`,
      `${fixed(r.apiUs, 0)} / ${fixed(r.pgUs, 0)} / ${fixed(r.benchUs, 0)} / ${fixed(r.interruptUs, 0)}`, fixed(r.otherCpus, 2),
    ]);
    process.stdout.write(`\n${textTable(head, cells)}\n\n`);
    const bad = rows.filter((r) => r.non2xx || r.errors);
    if (bad.length) throw new Error(`non-2xx answers or errors: ${bad.map((r) => `${r.name} (${r.non2xx} non-2xx, ${r.errors} errors)`).join('; ')}`);

    if (args.doc) {
      const body = [
        `Run ${machine.date}${args.label ? ` (${args.label})` : ''} on ${machine.nproc} × ${machine.cpu}, ${machine.memory}, Node ${machine.node}, PostgreSQL ${machine.postgres};`,
        `${int(uids.length)} series (${WEEKS} weeks, ${METHODS.length} forecast methods × ${HORIZON} weeks each); autocannon ${args.connections} connections,`,
        `${args.seconds} s per row after a 2 s warm-up, from a separate process on the same machine.`,
        `CPU per request from /proc over each row's measured seconds; *other processes* is what the rest of the machine`,
        `used meanwhile, in CPUs of its ${machine.nproc} (a quiet row shows about 0).`,
        '',
        markdownTable(head, cells),
      ].join('\n');
      // the plain run refreshes the published figures; a labelled run (--label before) keeps a block of its own
      const block = args.label ? `bench:api-${args.label}` : 'bench:api';
      replaceBlock(DOC, block, body, { skeleton: '# Benchmarks\n', heading: '## API reads (`npm run bench:api`)' });
      log(`docs/BENCHMARKS.md: block ${block} written`);
    }
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
