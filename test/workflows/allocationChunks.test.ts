/**
 * The allocation step in chunks of items (docs/SUPPLY.md "Allocation step", issue 28): the seeded supply run of
 * test/support/allocationSeed.ts (five items at one site) solved in one chunk and in several, by the activities
 * directly (to set the chunk size and the LP limit, or stop between chunks) and through the real workflow with
 * the tenant's chunk_size.
 */
import { allocationChunkStats, demandPlans, enginePoolOrders, firmPoolOrders } from '../../db/allocation';
import { insertJob } from '../../db/jobs';
import { sql, withTenant } from '../../db/pool';
import { demandLines, planningInstant } from '../../domain/allocation/demandLines';
import { buildSupplyPool } from '../../domain/allocation/pool';
import { solveAllocation } from '../../domain/allocation/solve';
import { allocationActivities, runAllocationActivities, type AllocationRunOptions } from '../support/allocationRun';
import { defaultSupplyScenario, seedAllocationCase, type AllocationSeed } from '../support/allocationSeed';
import { createPipeline, isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let pipelineId: number;
let scenarioId: number;
let seed: AllocationSeed;

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('allocation-chunks');
  planner = await t.login(a.planner);
  pipelineId = await createPipeline(t, planner, 'Allocation chunks');
  scenarioId = await defaultSupplyScenario(t.db, a.accountId);
  seed = await seedAllocationCase(t.db, a.accountId, pipelineId, scenarioId);
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

const resultRows = (runId: string) => withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
  SELECT supply_id, demand_id, item_id, site_id, qty, is_firm::int AS is_firm, arrival_week, due_week, priority_class
  FROM allocation_results WHERE run_id = ${runId} ORDER BY item_id, due_week, supply_id`)) as Promise<any[]>;
const runRow = (runId: string) => withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`SELECT * FROM allocation_runs WHERE run_id = ${runId}`)) as Promise<any>;

async function options(jobId: string, over: Partial<AllocationRunOptions> = {}): Promise<AllocationRunOptions> {
  await withTenant(t.db, a.accountId, (tx) => insertJob(tx, { job_id: jobId, kind: 'step', step: 'allocation', pipeline_id: pipelineId }));
  return { accountId: a.accountId, jobId, pipelineId, ...over };
}

/** The seeded run solved as the step did before chunks: every pool row and plan loaded at once, one solve. */
async function unchunkedSolve() {
  const { engine, firm, plans } = await withTenant(t.db, a.accountId, async (tx) => {
    const whole = { after: null, through: null };
    return {
      engine: await enginePoolOrders(tx, seed.supplyRunId, whole),
      firm: await firmPoolOrders(tx, seed.supplyRunId, whole),
      plans: await demandPlans(tx, seed.supplyRunId, seed.abcConfig, whole),
    };
  });
  const lines = demandLines(plans);
  return solveAllocation({ supplies: buildSupplyPool(engine, firm, planningInstant('2026-01-05')), demands: lines.lines });
}

const SUMMED = ['n_supplies', 'n_demands', 'supply_qty', 'demand_qty', 'allocated_qty', 'greedy_objective', 'lp_objective'] as const;

describe('the same run in one chunk and in several', () => {
  let one: string;

  test('in one chunk the stored rows and objectives are those of the unchunked solve of the same data', async () => {
    one = 'alloc-chunks-one';
    const r = await runAllocationActivities(t.db, await options(one));
    expect(r.plan.chunks).toEqual([{ after: null, through: null, sku_sites: 5, items: 5 }]);
    expect(r).toMatchObject({ method: 'lp', chunks: 1, lp_chunks: 1, groups: 5, rows: 10 });

    const whole = await unchunkedSolve();
    expect(whole.method).toBe('lp');
    const run = await runRow(one);
    expect(run.greedy_objective).toBe(whole.greedy.objective);
    expect(run.lp_objective).toBe(whole.lp!.objective);
    expect([run.supply_qty, run.demand_qty, run.allocated_qty]).toEqual([whole.chosen.supply_qty, whole.chosen.demand_qty, whole.chosen.served_qty]);
    expect(run.summary).toMatchObject({
      arcs: whole.arcs, groups: whole.groups, slices: whole.slices, chunks: 1, lp_chunks: 1,
      method_reason: `${whole.arcs} arcs within the LP limit of 1000000`,
      greedy: { objective: whole.greedy.objective, served_qty: whole.greedy.served_qty, late_qty: whole.greedy.late_qty },
      lp: { objective: whole.lp!.objective, served_qty: whole.lp!.served_qty, late_qty: whole.lp!.late_qty },
    });
    const stored = (await resultRows(one)).map((x) => `${x.supply_id}>${x.demand_id}:${x.qty}`).sort();
    expect(stored).toEqual(whole.chosen.allocations.map((x) => `${x.supply_id}>${x.demand_id}:${x.qty}`).sort());
  });

  test('in five chunks of one item each: the same rows, counts, quantities and objectives; the summary counts the chunks', async () => {
    const id = 'alloc-chunks-five';
    const opts = await options(id, { chunkSize: 1 });
    const acts = allocationActivities(t.db);
    const plan = await acts.plan(opts);
    for (let k = 0; k < plan.chunks.length; k++) await acts.chunk(opts, plan, k);
    // a retried chunk replaces its rows and its report: nothing doubles
    await acts.chunk(opts, plan, 3);
    const r = { ...(await acts.finalize(opts, plan)), plan };
    const i = seed.items;
    // item U has a firm order but no plan: it falls in the last chunk, which has no upper bound, and stays out of the pool
    expect(r.plan.chunks).toEqual([
      { after: null, through: i.X, sku_sites: 1, items: 1 }, { after: i.X, through: i.Y, sku_sites: 1, items: 1 },
      { after: i.Y, through: i.Z, sku_sites: 1, items: 1 }, { after: i.Z, through: i.V, sku_sites: 1, items: 1 },
      { after: i.V, through: null, sku_sites: 1, items: 1 },
    ]);
    expect(r).toMatchObject({ method: 'lp', chunks: 5, lp_chunks: 5, groups: 5, rows: 10 });

    expect(await resultRows(id)).toEqual(await resultRows(one));
    const [whole, chunked] = [await runRow(one), await runRow(id)];
    for (const k of SUMMED) expect([k, chunked[k]]).toEqual([k, expect.closeTo(whole[k], 9)]);
    expect(chunked).toMatchObject({ status: 'completed', method: 'lp', error: null });
    expect(chunked.summary).toMatchObject({
      pool: whole.summary.pool, demand: whole.summary.demand, arcs: whole.summary.arcs, groups: 5, slices: 5,
      abc_config_id: seed.abcConfig, unclassified_sku_sites: 2, chunks: 5, lp_chunks: 5,
      method_reason: `${whole.summary.arcs} arcs in 5 chunks, each within the LP limit of 1000000`,
      greedy: { served_qty: 39, late_qty: 5 }, lp: { served_qty: 39, late_qty: 5, highs_version: null, certified_groups: 5, columns: 0 },
    });
    expect(chunked.summary.greedy_pct_of_lp).toBeCloseTo(whole.summary.greedy_pct_of_lp, 6);

    const reports = await withTenant(t.db, a.accountId, (tx) => allocationChunkStats(tx, id));
    expect(reports.map((x) => [x.chunk, x.stats.rows])).toEqual([[0, 2], [1, 2], [2, 1], [3, 3], [4, 2]]);
    // a chunk arriving after the run completed (a lost lane) does not touch it
    await expect(acts.chunk(opts, plan, 0)).rejects.toMatchObject({ nonRetryable: true, message: `allocation: run ${id} is no longer running; chunk 1 not stored` });
    expect(await runRow(id)).toMatchObject({ status: 'completed', greedy_objective: chunked.greedy_objective });
  });

  test('the LP limit is per chunk: chunks over it keep the greedy, the run claims no LP objective, the summary counts both', async () => {
    const id = 'alloc-chunks-mixed';
    // arcs per item (docs: at most 8 weeks late, worth > 0): X 4, Y 4, Z 2, V 9, Q 3; a limit of 3 lets Z and Q through
    const r = await runAllocationActivities(t.db, await options(id, { chunkSize: 1, limits: { maxLpArcs: 3 } }));
    expect(r).toMatchObject({ method: 'greedy', chunks: 5, lp_chunks: 2, lp_objective: null });
    const run = await runRow(id);
    expect(run).toMatchObject({ status: 'completed', method: 'greedy', lp_objective: null, allocated_qty: 39 });
    expect(run.greedy_objective).toBeCloseTo(67.4, 9);
    expect(run.summary.method_reason).toBe('LP in 2 of 5 chunks (the LP limit of 3 arcs is per chunk); the others keep the greedy\'s allocation, e.g. 4 arcs exceed the LP limit of 3');
    // Z (4 units of a firm order on time, 4.0) and Q (two firm orders of 2 on time, 4.0): the LP's 8, the greedy's too
    expect(run.summary).toMatchObject({ chunks: 5, lp_chunks: 2, arcs: 22, lp: { objective: expect.closeTo(8, 9) } });
    expect(run.summary.greedy_pct_of_lp).toBeCloseTo(100, 6);
    expect(await resultRows(id)).toEqual(await resultRows(one));
    // the API's ratio is about the whole run, so it has none
    const list = await t.call('get', '/api/supply/allocations', { token: planner, query: { pipeline_id: pipelineId, scenario_id: scenarioId } });
    expect(list.body.find((x: any) => x.run_id === id)).toMatchObject({ method: 'greedy', lp_objective: null, greedy_pct_of_lp: null });
  });
});

test('a chunked run\'s rows are read only once it completes; a failed one keeps none, and a chunk still at work then writes nothing', async () => {
  const id = 'alloc-chunks-visible';
  const opts = await options(id, { chunkSize: 2 });
  const acts = allocationActivities(t.db);
  const plan = await acts.plan(opts);
  expect(plan.chunks).toHaveLength(3);
  await acts.chunk(opts, plan, 0);
  await acts.chunk(opts, plan, 1);
  const written = await resultRows(id);
  expect(written.length).toBeGreaterThan(0);
  const read = () => t.call('get', `/api/supply/allocations/${id}/results`, { token: planner });
  const half = await read();
  expect([half.status, half.headers['x-total-count'], half.body]).toEqual([200, '0', []]);
  expect(await runRow(id)).toMatchObject({ status: 'running', method: null, greedy_objective: null });

  await acts.chunk(opts, plan, 2);
  await acts.finalize(opts, plan);
  const whole = await read();
  expect([whole.status, whole.headers['x-total-count']]).toEqual([200, '10']);
  expect(whole.body.map((x: any) => `${x.supply_id}>${x.demand_id}`).sort()).toEqual((await resultRows(id)).map((x) => `${x.supply_id}>${x.demand_id}`).sort());

  // again, and failed after its first chunk: no rows, no reports; the next chunk refuses to store and is not retried
  const again = await acts.plan(opts);
  expect(await resultRows(id)).toEqual([]);
  await acts.chunk(opts, again, 0);
  await acts.fail(opts, 'allocation: killed on request');
  expect(await resultRows(id)).toEqual([]);
  await expect(acts.chunk(opts, again, 1)).rejects.toMatchObject({ nonRetryable: true, message: `allocation: run ${id} is no longer running; chunk 2 not stored` });
  expect(await resultRows(id)).toEqual([]);
  expect(await withTenant(t.db, a.accountId, (tx) => allocationChunkStats(tx, id))).toEqual([]);
  expect(await runRow(id)).toMatchObject({ status: 'failed', error: 'allocation: killed on request' });
  const failed = await read();
  expect([failed.headers['x-total-count'], failed.body]).toEqual(['0', []]);
});

test('through the workflow with the tenant\'s chunk_size: three chunks on the compute queue, the one-chunk answer', async () => {
  const admin = await t.login(a.admin);
  const set = await t.call('post', '/api/config/update', { token: admin, body: { path: 'pipeline.chunk_size', value: 2 } });
  expect(set.status).toBe(200);
  const started = await t.call('post', '/api/pipeline/run/allocation', { token: planner, body: { pipeline_id: pipelineId, scenario_id: scenarioId } });
  expect(started.status).toBe(200);
  const jobId = started.body.job_id;
  const job = await waitForJob(t, planner, jobId, isFinished, 120_000);
  expect([job.status, job.error]).toEqual(['completed', null]);
  expect(job.result).toEqual({ step: 'allocation', series: 5, rows: 10, chunks: 3 });
  const log = job.log.map((l) => l.message);
  expect(log).toEqual(expect.arrayContaining([
    `allocation: supply run ${seed.supplyRunId}: 5 SKU-sites of 5 items in 3 chunks`,
    expect.stringMatching(/^allocation: chunk 1\/3 \(item ids <= \d+\): 2 SKU-sites, 4 supplies, 4 lines, 2 groups, 8 arcs; stored the LP allocation: 4 rows$/),
    expect.stringMatching(/^allocation: chunk 3\/3 \(item ids > \d+\): 1 SKU-sites, 2 supplies, 2 lines, 1 groups, 3 arcs; stored the LP allocation: 2 rows$/),
    `allocation: supply run ${seed.supplyRunId} (pipeline ${pipelineId}, supply scenario ${scenarioId}, planning date 2026-01-05): pool 11 supplies (6 SO_, 5 FIRM_), `
      + `10 demand lines from 5 SKU-sites (opening stock served 5 of 44; ABC configuration ${seed.abcConfig}, 2 SKU-sites without class)`,
    expect.stringMatching(/^allocation: LP objective 67\.4 \([\d,.]+ ms; greedy proven optimal in 5 of 5 groups, HiGHS for the rest\), greedy objective 67\.4 \([\d,.]+ ms\), greedy at 100\.00 % of the LP; stored the LP allocation: 10 rows, 39 of 39 demand served \(5 late\) from 51 supply in 5 item-site groups \(3 chunks\)$/),
  ]));
  expect(job.progress).toMatchObject({ done: 5, total: 5 });
  expect(await resultRows(jobId)).toEqual(await resultRows('alloc-chunks-one'));
  expect(await runRow(jobId)).toMatchObject({ status: 'completed', method: 'lp', n_supplies: 11, n_demands: 10, summary: { chunks: 3, lp_chunks: 3 } });
});
