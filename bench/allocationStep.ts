/**
 * `npm run bench:allocation-step`: the allocation step's worker memory against the size of the supply run (issue 28).
 * bench:allocation measures the engines alone on generated instances; this runs the step as production does (the
 * runStep workflow through Temporal, its chunks on worker processes of bench/lib/stack.ts) over a supply run written
 * by SQL, at several sizes, with the tenant's chunk_size (500 SKU-sites unless --chunk) and with one chunk of the
 * whole run, which holds in memory what the step held before it was chunked. Per run, on fresh worker processes: wall
 * time, chunks, how many ran the LP, and the peak RSS of the busiest worker process (VmHWM since the step started).
 *
 * The supply run's shape, per SKU-site (10 sites per item): 52 weeks of forecast, 3 of 4 weeks non-zero (1–20 units),
 * opening stock of about two weeks, an engine order every 4 weeks of about 4 weeks' demand (13 per SKU-site), and one
 * SKU-site in 10 with a firm order. About 37 demand lines, 13 supplies and 300 arcs per SKU-site.
 *
 *   npm run bench:allocation-step                                  # 10,000 and 40,000 SKU-sites, 2 worker processes
 *   npm run bench:allocation-step -- --sizes 5000,20000 --workers 1 --chunk 500 --no-whole
 *
 * It prints its table and writes nothing to docs/.
 */
import { newJobId, startJob } from '../api/jobs/service';
import { createAccount } from '../db/accounts';
import { setTenantParameter } from '../db/parameters';
import { insertPipeline } from '../db/pipelines';
import { sql, withTenant, type Db } from '../db/pool';
import type { RunStepInput, StepResult } from '../workflows/runStep';
import { optionValue, positiveInt } from './lib/args';
import { followWorkflow } from './lib/followWorkflow';
import { describeMachine } from './lib/machine';
import { memStatus, mib, resetPeak, treeCpuSeconds } from './lib/proc';
import { fixed, int, markdownTable, secs } from './lib/report';
import { startBenchStack } from './lib/stack';

const log = (m: string) => console.log(`[bench:allocation-step ${new Date().toISOString().slice(11, 19)}] ${m}`);
const SITES = 10;
const PLANNING_DATE = '2026-01-05';

/** A completed supply run of `skuSites` SKU-sites written straight into the tables the allocation step reads. */
async function seedSupplyRun(db: Db, accountId: string, pipelineId: number, skuSites: number): Promise<{ runId: string; scenarioId: number }> {
  const items = Math.ceil(skuSites / SITES);
  return withTenant(db, accountId, async (tx) => {
    const scenarioId = (await tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as number;
    const runId = `bench-supply-${skuSites}`;
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) SELECT 'S' || g, 'Site ' || g FROM generate_series(1, ${SITES}) g`);
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT 'I' || g, 'Item ' || g FROM generate_series(1, ${items}) g`);
    await tx.query(sql.unsafe`
      INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date, started_at, finished_at)
      VALUES (${runId}, ${pipelineId}, ${scenarioId}, 'completed', ${PLANNING_DATE}, now(), now())`);
    // SKU-site k = (item, site); demand of week w from a hash of (k, w), a quarter of the weeks zero
    await tx.query(sql.unsafe`
      WITH ss AS (
        SELECT i.id AS item_id, s.id AS site_id, row_number() OVER (ORDER BY i.id, s.id) AS k
        FROM items i CROSS JOIN sites s),
      d AS (
        SELECT ss.item_id, ss.site_id, ss.k,
          array_agg(CASE WHEN (ss.k * 7 + w) % 4 = 0 THEN 0 ELSE 1 + ((ss.k * 31 + w * 17) % 20) END::float8 ORDER BY w) AS demand
        FROM ss CROSS JOIN generate_series(0, 51) w WHERE ss.k <= ${skuSites} GROUP BY ss.item_id, ss.site_id, ss.k)
      INSERT INTO supply_plans (run_id, item_id, site_id, opening, demand, indirect, returns, gross, receipts_firm, receipts_planned, projected,
        safety_stock, shortage, latest_firm_week, min_lead_time)
      SELECT ${runId}, d.item_id, d.site_id, d.demand[1] + d.demand[2], d.demand, z.a, z.a, d.demand, z.a, z.a, z.a, z.a, z.a,
        array_fill(255, ARRAY[7]), array_fill(0::float8, ARRAY[7])
      FROM d CROSS JOIN (SELECT array_fill(0::float8, ARRAY[52]) AS a) z`);
    await tx.query(sql.unsafe`
      INSERT INTO supply_orders (run_id, pipeline_id, scenario_id, engine_order_id, item_id, site_id, order_type, status, qty, requested_qty,
        release_week, arrival_week, need_week, release_date, arrival_date)
      SELECT ${runId}, ${pipelineId}, ${scenarioId}, row_number() OVER ()::int, p.item_id, p.site_id, 'BUY',
        (ARRAY['planned', 'constrained', 'delayed', 'expedited'])[1 + (w / 4) % 4], q.qty, q.qty, greatest(w - 1, 0), w, w,
        ${PLANNING_DATE}::date + 7 * greatest(w - 1, 0), ${PLANNING_DATE}::date + 7 * w
      FROM supply_plans p CROSS JOIN generate_series(0, 48, 4) w
      CROSS JOIN LATERAL (SELECT coalesce(sum(x), 0) AS qty FROM unnest(p.demand[w + 1:w + 4]) x) q
      WHERE p.run_id = ${runId} AND q.qty > 0`);
    await tx.query(sql.unsafe`
      INSERT INTO firm_orders (external_id, item_id, site_id, order_type, qty, erp_status, release_dt, arrival_dt)
      SELECT 'PO-' || p.item_id || '-' || p.site_id, p.item_id, p.site_id, 'BUY', 10, 'firm', ${PLANNING_DATE}::timestamptz - interval '4 weeks',
        ${PLANNING_DATE}::timestamptz + ((p.item_id + p.site_id) % 20) * interval '1 week'
      FROM supply_plans p WHERE p.run_id = ${runId} AND (p.item_id * 10 + p.site_id) % 10 = 0`);
    await tx.query(sql.unsafe`ANALYZE supply_plans`);
    await tx.query(sql.unsafe`ANALYZE supply_orders`);
    return { runId, scenarioId };
  });
}

interface Row {
  skuSites: number;
  chunkSize: number;
  ok: boolean;
  error?: string;
  seconds: number;
  chunks: number;
  lpChunks: number;
  lines: number;
  arcs: number;
  rows: number;
  method: string;
  peakWorkerMiB: number;
  workerCpu: number;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sizes = (optionValue(argv, '--sizes') ?? '10000,40000').split(',').map((s) => positiveInt('--sizes', s));
  const workerCount = positiveInt('--workers', optionValue(argv, '--workers') ?? '2');
  const chunk = positiveInt('--chunk', optionValue(argv, '--chunk') ?? '500');
  const whole = !argv.includes('--no-whole');
  const stack = await startBenchStack({ log, onSignal: () => process.exit(130) });
  const out: Row[] = [];
  try {
    const machine = await describeMachine(stack.db);
    const temporal = { client: stack.client, taskQueue: stack.taskQueue };
    for (const size of sizes) {
      const account = await createAccount(stack.db, stack.databaseUrl, `bench-allocation-${size}-${Date.now()}`);
      const pipelineId = await withTenant(stack.db, account.id, (tx) =>
        insertPipeline(tx, { name: 'bench', description: 'bench:allocation-step', forecast_scenario_id: null, is_active: true, settings: {} }, 'bench'));
      const t0 = performance.now();
      await seedSupplyRun(stack.db, account.id, pipelineId, size);
      log(`${size} SKU-sites seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      for (const chunkSize of whole ? [chunk, size] : [chunk]) {
        await withTenant(stack.db, account.id, (tx) => setTenantParameter(tx, 'pipeline', 'chunk_size', chunkSize));
        // fresh worker processes each time: V8 keeps the heap an earlier run grew, which would count against this one
        const workers = await Promise.all(Array.from({ length: workerCount }, (_, i) => stack.startWorker(`worker-allocation-${size}-${chunkSize}-${i + 1}`)));
        for (const w of workers) resetPeak(w.pid);
        const cpu0 = workers.reduce((n, w) => n + treeCpuSeconds(w.pid), 0);
        const jobId = newJobId('allocation');
        const input: RunStepInput = { jobId, accountId: account.id, pipelineId, scenarioId: null, segmentId: null, createdBy: 'bench', nWorkers: workerCount, step: 'allocation' };
        const ts = performance.now();
        await startJob(stack.db, temporal, account.id, {
          job_id: jobId, kind: 'step', step: 'allocation', pipeline_id: pipelineId, scenario_id: null, segment_id: null, created_by: 'bench', params: { n_workers: workerCount },
        }, 'runStep', [input]);
        const r = await followWorkflow<StepResult>(stack, workers[0]!, account.id, jobId, log);
        const seconds = (performance.now() - ts) / 1000;
        const peak = Math.max(...workers.map((w) => memStatus(w.pid)?.hwm ?? 0));
        const run = (await withTenant(stack.db, account.id, (tx) => tx.maybeOne(sql.unsafe`
          SELECT method, n_demands, (summary->>'arcs')::int8 AS arcs, coalesce((summary->>'lp_chunks')::int, 0) AS lp_chunks FROM allocation_runs WHERE run_id = ${jobId}`))) as
          { method: string | null; n_demands: number; arcs: number | null; lp_chunks: number } | null;
        const row: Row = {
          skuSites: size, chunkSize, ok: r.ok, ...(r.ok ? {} : { error: r.error }), seconds,
          chunks: r.ok ? r.result.chunks : NaN, lpChunks: run?.lp_chunks ?? NaN, lines: run?.n_demands ?? NaN, arcs: Number(run?.arcs ?? NaN),
          rows: r.ok ? r.result.rows : NaN, method: run?.method ?? '–', peakWorkerMiB: mib(peak), workerCpu: workers.reduce((n, w) => n + treeCpuSeconds(w.pid), 0) - cpu0,
        };
        out.push(row);
        await Promise.all(workers.map((w) => w.stop()));
        log(`${size} SKU-sites, chunk_size ${chunkSize}: ${r.ok ? 'completed' : `FAILED: ${row.error}`} in ${secs(seconds)} s, ${row.chunks} chunks (${row.lpChunks} with the LP), ${int(row.lines)} lines, ${int(row.arcs)} arcs, ${int(row.rows)} rows, peak worker RSS ${fixed(row.peakWorkerMiB, 0)} MiB`);
      }
    }
    const head = ['SKU-sites', 'chunk_size', 'status', 'wall s', 'worker CPU s', 'chunks (LP)', 'demand lines', 'arcs', 'rows', 'method', 'peak RSS of a worker, MiB'];
    const table = markdownTable(head, out.map((r) => [
      int(r.skuSites), int(r.chunkSize), r.ok ? 'completed' : 'failed', secs(r.seconds), secs(r.workerCpu), `${int(r.chunks)} (${int(r.lpChunks)})`, int(r.lines), int(r.arcs), int(r.rows), r.method, fixed(r.peakWorkerMiB, 0),
    ]));
    console.log(`\nRun ${machine.date} on ${machine.nproc} × ${machine.cpu}, ${machine.memory}, Node ${machine.node}, PostgreSQL ${machine.postgres}; ${workerCount} worker processes, n_workers ${workerCount}.\n\n${table}`);
  } finally {
    await stack.stop();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
