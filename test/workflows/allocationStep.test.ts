import { demandLines } from '../../domain/allocation/demandLines';
import { roadsTaken } from '../../db/heldReferences';
import { insertJob } from '../../db/jobs';
import { sql, withTenant } from '../../db/pool';
import { compareAllocations } from '../../domain/allocation/compare';
import { type AllocationProblem, type AllocationRow, checkAllocation } from '../../domain/allocation/model';
import { runAllocationActivities } from '../support/allocationRun';
import { defaultSupplyScenario, insertAllocationResult, seedAllocationCase, type AllocationSeed } from '../support/allocationSeed';
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
let jobId: string;

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('allocation-step');
  planner = await t.login(a.planner);
  pipelineId = await createPipeline(t, planner, 'Allocation pipeline');
  scenarioId = await defaultSupplyScenario(t.db, a.accountId);
  seed = await seedAllocationCase(t.db, a.accountId, pipelineId, scenarioId);
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

const line = (item: number, week: number) => `${item}_${seed.site}:${week}`;

/** The pool and lines of the seeded run as document 2 §4.3 and docs/SUPPLY.md make them, written out by hand. */
function handProblem(): AllocationProblem {
  const { items: i, site, so, firm } = seed;
  const s = (id: string, item: number, qty: number, arrival_week: number) => ({ supply_id: id, item_id: item, site_id: site, qty, arrival_week, reliability: id.startsWith('FIRM_') ? 1 : 0.85 });
  const d = (item: number, week: number, qty: number, cls: string | null) => ({ demand_id: line(item, week), item_id: item, site_id: site, qty, due_week: week, priority_class: cls });
  return {
    supplies: [
      s(`SO_${so.X}`, i.X, 10, 1), s(`SO_${so.Y}`, i.Y, 5, 1), s(`SO_${so.Z}`, i.Z, 4, 3),
      s(`SO_${so.V4}`, i.V, 3, 4), s(`SO_${so.V5}`, i.V, 3, 5), s(`SO_${so.V6}`, i.V, 3, 6),
      s(`FIRM_${firm.X}`, i.X, 10, 2), s(`FIRM_${firm.Y}`, i.Y, 5, 8), s(`FIRM_${firm.Z}`, i.Z, 4, 3),
      s(`FIRM_${firm.Qpast}`, i.Q, 2, 0), s(`FIRM_${firm.Qfar}`, i.Q, 2, 51),
    ],
    demands: [
      // X: opening 5 serves week 0 (3) and 2 of week 1
      d(i.X, 1, 2, 'A'), d(i.X, 2, 10, 'A'),
      d(i.Y, 0, 5, 'C'), d(i.Y, 8, 5, 'C'),
      d(i.Z, 3, 4, null),
      d(i.V, 4, 3, 'B'), d(i.V, 5, 3, 'B'), d(i.V, 6, 3, 'B'),
      d(i.Q, 0, 2, null), d(i.Q, 51, 2, null),
    ],
  };
}

type Row = { supply_id: string; demand_id: string; item_id: number; site_id: number; qty: number; is_firm: number; arrival_week: number; due_week: number; priority_class: string | null };

/**
 * The optimum, by hand (weights A 3, B 2, C 1, null 1; value = weight × reliability − 0.05 × weeks late, at most 8 late):
 * - X: FIRM (arrives week 2) to week 2 is worth 3.00 a unit, to week 1 (1 late) 2.95; SO (week 1) is worth 2.55 to
 *   either. All 12 units are served; FIRM 10 → week 2 and SO 2 → week 1 (35.1) beats any split (35.1 − 0.05 t).
 * - Y: SO (week 1) → week 0 is 0.80 (1 late), → week 8 0.85; FIRM (week 8) → week 0 is 0.60 (8 late), → week 8 1.00.
 *   SO → week 0 and FIRM → week 8: 9.0. The greedy takes the highest arc first, FIRM → week 8, then SO → week 0: the
 *   same 9.0 (when it ranked on time before late it served week 0 first with the firm order, 8 weeks late: 7.25).
 * - Z: firm and engine tie on time; the firm order (1.0 > 0.85) serves: 4.0.
 * - V: each week only on time from its own arrival: 3 × 3 × 1.7 = 15.3.
 * - Q: the firm order before week 0 arrives in week 0, the one in week 60 in week 51 (unclamped it would be 9 late,
 *   past the cap): 4.0.
 * LP 67.4, greedy 67.4 (it was 65.65 before the greedy ranked supplies by value as the LP does).
 */
function expectedLpRows(): Row[] {
  const { items: i, site, so, firm } = seed;
  const r = (supply: string, item: number, qty: number, arrival: number, due: number, cls: string | null): Row => ({
    supply_id: supply, demand_id: line(item, due), item_id: item, site_id: site, qty, is_firm: supply.startsWith('FIRM_') ? 1 : 0, arrival_week: arrival, due_week: due, priority_class: cls,
  });
  return [
    r(`SO_${so.X}`, i.X, 2, 1, 1, 'A'), r(`FIRM_${firm.X}`, i.X, 10, 2, 2, 'A'),
    r(`SO_${so.Y}`, i.Y, 5, 1, 0, 'C'), r(`FIRM_${firm.Y}`, i.Y, 5, 8, 8, 'C'),
    r(`FIRM_${firm.Z}`, i.Z, 4, 3, 3, null),
    r(`SO_${so.V4}`, i.V, 3, 4, 4, 'B'), r(`SO_${so.V5}`, i.V, 3, 5, 5, 'B'), r(`SO_${so.V6}`, i.V, 3, 6, 6, 'B'),
    r(`FIRM_${firm.Qpast}`, i.Q, 2, 0, 0, null), r(`FIRM_${firm.Qfar}`, i.Q, 2, 51, 51, null),
  ];
}

const resultRows = (runId: string) => withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
  SELECT supply_id, demand_id, item_id, site_id, qty, is_firm::int AS is_firm, arrival_week, due_week, priority_class
  FROM allocation_results WHERE run_id = ${runId} ORDER BY item_id, due_week, supply_id`)) as Promise<Row[]>;
const runRow = (runId: string) => withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`SELECT * FROM allocation_runs WHERE run_id = ${runId}`)) as Promise<any>;
const asDomainRows = (rows: readonly AllocationRow[]) => rows.map((x) => ({ supply_id: x.supply_id, demand_id: x.demand_id, qty: x.qty }));

test('the step allocates the newest completed supply run through Temporal: pool rules, netted lines, the LP stored, both objectives', async () => {
  const started = await t.call('post', '/api/pipeline/run/allocation', { token: planner, body: { pipeline_id: pipelineId, scenario_id: scenarioId } });
  expect(started.status).toBe(200);
  jobId = started.body.job_id;
  const job = await waitForJob(t, planner, jobId, isFinished, 120_000);
  expect([job.status, job.error]).toEqual(['completed', null]);
  expect(job.result).toEqual({ step: 'allocation', series: 5, rows: 10, chunks: 1 });
  // the results' run key was held once per part, not checked per row (db/heldReferences.ts)
  expect([roadsTaken.get('allocation_results')?.ordinary, (roadsTaken.get('allocation_results')?.held ?? 0) > 0]).toEqual([0, true]);
  const log = job.log.map((l) => l.message);
  expect(log).toEqual(expect.arrayContaining([
    `allocation: supply run ${seed.supplyRunId} (pipeline ${pipelineId}, supply scenario ${scenarioId}, planning date 2026-01-05): pool 11 supplies (6 SO_, 5 FIRM_), `
      + `10 demand lines from 5 SKU-sites (opening stock served 5 of 44; ABC configuration ${seed.abcConfig}, 2 SKU-sites without class)`,
    expect.stringMatching(/^allocation: LP objective 67\.4 \([\d,]+ ms; greedy proven optimal in 5 of 5 groups, HiGHS for the rest\), greedy objective 67\.4 \([\d,]+ ms\), greedy at 100\.00 % of the LP; stored the LP allocation: 10 rows, 39 of 39 demand served \(5 late\) from 51 supply in 5 item-site groups$/),
  ]));

  // exactly the hand-computed optimum: legacy engine rows, dead firm orders and other runs stayed out
  const rows = await resultRows(jobId);
  expect(rows).toEqual(expectedLpRows());

  const run = await runRow(jobId);
  expect(run).toMatchObject({
    supply_run_id: seed.supplyRunId, pipeline_id: pipelineId, scenario_id: scenarioId, status: 'completed', method: 'lp', error: null,
    n_supplies: 11, n_demands: 10, supply_qty: 51, demand_qty: 39, allocated_qty: 39,
  });
  expect(run.lp_objective).toBeCloseTo(67.4, 9);
  expect(run.greedy_objective).toBeCloseTo(67.4, 9);
  expect(run.summary).toMatchObject({
    planning_date: '2026-01-05', now: '2026-01-05T00:00:00.000Z', abc_config_id: seed.abcConfig, unclassified_sku_sites: 2,
    arcs: expect.any(Number), groups: 5, slices: 1, max_lp_arcs: 1_000_000,
    pool: { engine: 6, firm: 5, engine_qty: 28, firm_qty: 23 },
    demand: { sku_sites: 5, forecast_qty: 44, opening_served_qty: 5, lines: 10 },
    greedy: { served_qty: 39, late_qty: 5 }, lp: { served_qty: 39, late_qty: 5, highs_version: null, certified_groups: 5, columns: 0 },
  });
  expect(run.summary.greedy_pct_of_lp).toBeCloseTo(100, 3);

  // the same input straight through the domain: the same objectives and the same allocation
  const problem = handProblem();
  const c = await compareAllocations(problem);
  expect(run.greedy_objective).toBe(c.greedy_objective);
  expect(run.lp_objective).toBe(c.lp_objective);
  expect(rows.map((x) => ({ supply_id: x.supply_id, demand_id: x.demand_id, qty: x.qty }))).toEqual(
    expect.arrayContaining(asDomainRows(c.lp.allocations)),
  );
  expect(rows).toHaveLength(c.lp.allocations.length);

  // conservation: per supply and per line against the pool and the lines, and by SQL against the pool's quantities
  const stored = rows.map((x) => ({ ...x, late_weeks: Math.max(0, x.arrival_week - x.due_week), reliability: x.is_firm ? 1 : 0.85, is_firm: x.is_firm as 0 | 1, value: 0 }));
  const withValues = stored.map((x) => ({ ...x, value: c.lp.allocations.find((y) => y.supply_id === x.supply_id && y.demand_id === x.demand_id)!.value }));
  expect(checkAllocation(problem, { allocations: withValues })).toEqual([]);
  const perSupply = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT supply_id, sum(qty)::float8 AS used FROM allocation_results WHERE run_id = ${jobId} GROUP BY supply_id`)) as Array<{ supply_id: string; used: number }>;
  for (const u of perSupply) expect(u.used).toBeLessThanOrEqual(problem.supplies.find((s) => s.supply_id === u.supply_id)!.qty);
});

test('the read API shows the run with both objectives and its results, filtered and paged', async () => {
  const list = await t.call('get', '/api/supply/allocations', { token: planner, query: { pipeline_id: pipelineId, scenario_id: scenarioId } });
  expect(list.status).toBe(200);
  expect(list.headers['x-total-count']).toBe('1');
  expect(list.body).toHaveLength(1);
  expect(list.body[0]).toMatchObject({ run_id: jobId, supply_run_id: seed.supplyRunId, parent_job_id: null, status: 'completed', method: 'lp', n_supplies: 11, n_demands: 10 });
  expect(list.body[0].greedy_pct_of_lp).toBeCloseTo(100, 9);

  const firm = await t.call('get', `/api/supply/allocations/${jobId}/results`, { token: planner, query: { is_firm: 1 } });
  expect(firm.status).toBe(200);
  expect(firm.headers['x-total-count']).toBe('5');
  expect(firm.body.map((r: any) => r.supply_id)).toEqual([seed.firm.X, seed.firm.Y, seed.firm.Z, seed.firm.Qpast, seed.firm.Qfar].map((id) => `FIRM_${id}`));
  const y = await t.call('get', `/api/supply/allocations/${jobId}/results`, { token: planner, query: { item_id: seed.items.Y, site_id: seed.site } });
  expect(y.body).toEqual([
    { supply_id: `SO_${seed.so.Y}`, demand_id: line(seed.items.Y, 0), item_id: seed.items.Y, site_id: seed.site, item_xuid: 'AL-Y', site_xuid: 'AL-S1', qty: 5, is_firm: 0, arrival_week: 1, due_week: 0, late_weeks: 1, priority_class: 'C' },
    { supply_id: `FIRM_${seed.firm.Y}`, demand_id: line(seed.items.Y, 8), item_id: seed.items.Y, site_id: seed.site, item_xuid: 'AL-Y', site_xuid: 'AL-S1', qty: 5, is_firm: 1, arrival_week: 8, due_week: 8, late_weeks: 0, priority_class: 'C' },
  ]);
  const page = await t.call('get', `/api/supply/allocations/${jobId}/results`, { token: planner, query: { skip: 8, limit: 5 } });
  expect([page.headers['x-total-count'], page.body.map((r: any) => r.due_week)]).toEqual(['10', [0, 51]]);
});

describe('the activity again, as a retry or with other limits', () => {
  const runActivity = async (id: string, limits?: Record<string, number>) => {
    await withTenant(t.db, a.accountId, (tx) => insertJob(tx, { job_id: id, kind: 'step', step: 'allocation', pipeline_id: pipelineId }));
    return runAllocationActivities(t.db, { accountId: a.accountId, jobId: id, pipelineId, limits });
  };

  test('a retry of the same job rewrites its rows in one piece: nothing of the earlier attempt stays', async () => {
    await withTenant(t.db, a.accountId, (tx) => insertAllocationResult(tx, jobId, { supply: 'SO_999999', demand: 'stale', item: seed.items.X, site: seed.site, qty: 1, arrival: 0, due: 0 }));
    const before = await runRow(jobId);
    const r = await runActivity(jobId);
    expect(r).toMatchObject({ supply_run_id: seed.supplyRunId, method: 'lp', rows: 10 });
    expect(await resultRows(jobId)).toEqual(expectedLpRows());
    const after = await runRow(jobId);
    expect(after).toMatchObject({ status: 'completed', greedy_objective: before.greedy_objective, lp_objective: before.lp_objective, n_supplies: 11 });
    const runs = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM allocation_runs WHERE supply_run_id = ${seed.supplyRunId}`));
    expect(runs).toBe(1);
  });

  test('past the LP size limit the greedy allocation is stored and no LP objective is claimed', async () => {
    const id = 'allocation-greedy-only';
    const r = await runActivity(id, { maxLpArcs: 0 });
    expect(r).toMatchObject({ method: 'greedy', lp_objective: null });
    const run = await runRow(id);
    expect(run).toMatchObject({ method: 'greedy', lp_objective: null, allocated_qty: 39 });
    expect(run.greedy_objective).toBeCloseTo(67.4, 9);
    expect(run.summary.method_reason).toMatch(/^\d+ arcs exceed the LP limit of 0$/);
    const rows = await resultRows(id);
    // The greedy gives the LP's allocation here, Y included: the firm order to week 8 on time (1.00 a unit) rather
    // than to week 0 eight weeks late (0.60), where a greedy ranking on time before late had put it.
    expect(rows).toEqual(expectedLpRows());
    const c = await compareAllocations(handProblem());
    expect(rows.map((x) => ({ supply_id: x.supply_id, demand_id: x.demand_id, qty: x.qty }))).toEqual(expect.arrayContaining(asDomainRows(c.greedy.allocations)));
  });

  test('solved one item-site group per slice, the answer is that of the whole problem', async () => {
    const id = 'allocation-sliced';
    const r = await runActivity(id, { sliceArcs: 1 });
    expect(r).toMatchObject({ method: 'lp', slices: 5, groups: 5 });
    expect(await resultRows(id)).toEqual(expectedLpRows());
    const [whole, sliced] = [await runRow(jobId), await runRow(id)];
    expect(sliced.lp_objective).toBe(whole.lp_objective);
    expect(sliced.greedy_objective).toBe(whole.greedy_objective);
  });
});

test('without a completed supply run the job fails with a message that says so, and writes no allocation', async () => {
  const empty = await createPipeline(t, planner, 'Allocation without supply');
  const started = await t.call('post', '/api/pipeline/run/allocation', { token: planner, body: { pipeline_id: empty } });
  expect(started.status).toBe(200);
  const job = await waitForJob(t, planner, started.body.job_id, isFinished, 120_000);
  expect(job.status).toBe('failed');
  expect(job.error).toBe(`allocation: no completed supply run for pipeline ${empty} and supply scenario ${scenarioId}; run the supply step first`);
  const rows = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM allocation_runs WHERE run_id = ${started.body.job_id}`));
  expect(rows).toBe(0);
});

test('demand lines: opening stock serves the earliest weeks; a backlog serves nothing; noise is not a line', () => {
  const r = demandLines([
    { item_id: 1, site_id: 2, opening: 4.5, demand: [1, null, 3, -2, 2], priority_class: 'A' },
    { item_id: 3, site_id: 2, opening: -10, demand: [1], priority_class: null },
    { item_id: 4, site_id: 2, opening: 0.3, demand: [0.1, 0.2, 0.3], priority_class: null },
  ]);
  expect(r.lines).toEqual([
    { demand_id: '1_2:4', item_id: 1, site_id: 2, qty: 1.5, due_week: 4, priority_class: 'A' },
    { demand_id: '3_2:0', item_id: 3, site_id: 2, qty: 1, due_week: 0, priority_class: null },
    { demand_id: '4_2:2', item_id: 4, site_id: 2, qty: expect.closeTo(0.3, 12), due_week: 2, priority_class: null },
  ]);
  expect(r.opening_served).toBeCloseTo(4.5 + 0.3, 12);
});
