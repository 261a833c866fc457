import { insertJob } from '../../db/jobs';
import { sql, withTenant } from '../../db/pool';
import { defaultSupplyScenario, insertAllocationResult, insertAllocationRun, insertSupplyRun } from '../support/allocationSeed';
import { createPipeline } from '../support/jobs';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let user: string;
let pipelineId: number;
let scenarioId: number;
let item: number;
let site: number;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('allocation-api');
  user = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  pipelineId = await createPipeline(t, await t.login(a.planner), 'Allocation reads');
  scenarioId = await defaultSupplyScenario(t.db, a.accountId);
  await withTenant(t.db, a.accountId, async (tx) => {
    site = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('AR-S', 'S') RETURNING id`)) as number;
    item = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('AR-I', 'I') RETURNING id`)) as number;
    await insertSupplyRun(tx, { runId: 'sr-1', pipelineId, scenarioId, startedAt: '2026-01-01T00:00:00Z' });
    await insertSupplyRun(tx, { runId: 'sr-2', pipelineId, scenarioId, startedAt: '2026-01-08T00:00:00Z' });
    // ar-2 is the child of supply job sr-2; ar-3 a standalone run over the same supply run that failed
    await insertJob(tx, { job_id: 'sr-2', kind: 'step', step: 'supply', pipeline_id: pipelineId });
    await insertJob(tx, { job_id: 'ar-2', kind: 'step', step: 'allocation', parent_job_id: 'sr-2', pipeline_id: pipelineId });
    await insertAllocationRun(tx, { runId: 'ar-1', supplyRunId: 'sr-1', pipelineId, scenarioId, startedAt: '2026-01-01T01:00:00Z', method: 'lp', greedy: 90, lp: 100 });
    await insertAllocationRun(tx, { runId: 'ar-2', supplyRunId: 'sr-2', pipelineId, scenarioId, startedAt: '2026-01-08T01:00:00Z', method: 'greedy', greedy: 50, lp: null });
    await insertAllocationRun(tx, { runId: 'ar-3', supplyRunId: 'sr-2', pipelineId, scenarioId, status: 'failed', startedAt: '2026-01-09T01:00:00Z' });
    await tx.query(sql.unsafe`UPDATE allocation_runs SET error = 'allocation: LP: 1 conservation violation(s)' WHERE run_id = 'ar-3'`);
    for (const [supply, due, qty] of [['SO_1', 0, 4], ['FIRM_7', 0, 6], ['FIRM_7', 1, 2], ['SO_2', 3, 5]] as const) {
      await insertAllocationResult(tx, 'ar-1', { supply, demand: `${item}_${site}:${due}`, item, site, qty, arrival: 1, due, cls: 'A' });
    }
    await insertAllocationResult(tx, 'ar-1', { supply: 'SO_3', demand: `${item + 1000}_${site}:0`, item: item + 1000, site, qty: 1, arrival: 0, due: 0 });
  });
}, 60_000);
afterAll(() => t.close());

const runs = (query: Record<string, unknown>) => t.call('get', '/api/supply/allocations', { token: user, query });
const results = (runId: string, query: Record<string, unknown> = {}) => t.call('get', `/api/supply/allocations/${runId}/results`, { token: user, query });

describe('GET /api/supply/allocations', () => {
  test('runs of the pipeline and supply scenario, newest first, with both objectives and the ratio', async () => {
    const res = await runs({ pipeline_id: pipelineId, scenario_id: scenarioId });
    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.body.map((r: any) => [r.run_id, r.supply_run_id, r.parent_job_id, r.status, r.method, r.greedy_objective, r.lp_objective, r.greedy_pct_of_lp])).toEqual([
      ['ar-3', 'sr-2', null, 'failed', null, null, null, null],
      ['ar-2', 'sr-2', 'sr-2', 'completed', 'greedy', 50, null, null],
      ['ar-1', 'sr-1', null, 'completed', 'lp', 90, 100, 90],
    ]);
    expect(res.body[0].error).toBe('allocation: LP: 1 conservation violation(s)');
  });

  test('supply_run_id narrows to the runs of one supply run; paging keeps the total', async () => {
    const one = await runs({ pipeline_id: pipelineId, scenario_id: scenarioId, supply_run_id: 'sr-2', skip: 1, limit: 1 });
    expect([one.headers['x-total-count'], one.body.map((r: any) => r.run_id)]).toEqual(['2', ['ar-2']]);
    const none = await runs({ pipeline_id: pipelineId, scenario_id: scenarioId, supply_run_id: 'sr-404' });
    expect([none.status, none.headers['x-total-count'], none.body]).toEqual([200, '0', []]);
  });

  test('pipeline_id and scenario_id are required; unknown ones are 404s', async () => {
    expect((await runs({ scenario_id: scenarioId })).body.detail).toBe('pipeline_id is required (a positive pipeline id; 0 is not a pipeline)');
    expect((await runs({ pipeline_id: 0, scenario_id: scenarioId })).status).toBe(400);
    const noScenario = await runs({ pipeline_id: pipelineId });
    expect([noScenario.status, noScenario.body.detail]).toEqual([400, expect.stringContaining('scenario_id')]);
    expect((await runs({ pipeline_id: pipelineId, scenario_id: scenarioId, limit: 0 })).status).toBe(400);
    const p = await runs({ pipeline_id: 999999, scenario_id: scenarioId });
    expect([p.status, p.body.detail]).toEqual([404, 'pipeline_id: pipeline 999999 not found']);
    const s = await runs({ pipeline_id: pipelineId, scenario_id: 999999 });
    expect([s.status, s.body.detail]).toEqual([404, 'scenario_id: supply scenario 999999 not found']);
  });

  test('another supply scenario sees none of these runs', async () => {
    const other = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`INSERT INTO supply_scenarios (name) VALUES ('AR other') RETURNING id`)) as number;
    const res = await runs({ pipeline_id: pipelineId, scenario_id: other });
    expect([res.status, res.body]).toEqual([200, []]);
  });
});

describe('GET /api/supply/allocations/{run_id}/results', () => {
  test('every row of the run in (item, site, due week) order, is_firm from the supply id, lateness', async () => {
    const res = await results('ar-1');
    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe('5');
    expect(res.body[0]).toEqual({
      supply_id: 'FIRM_7', demand_id: `${item}_${site}:0`, item_id: item, site_id: site, item_xuid: 'AR-I', site_xuid: 'AR-S',
      qty: 6, is_firm: 1, arrival_week: 1, due_week: 0, late_weeks: 1, priority_class: 'A',
    });
    expect(res.body.map((r: any) => [r.supply_id, r.due_week, r.is_firm, r.late_weeks])).toEqual([
      ['FIRM_7', 0, 1, 1], ['SO_1', 0, 0, 1], ['FIRM_7', 1, 1, 0], ['SO_2', 3, 0, 0], ['SO_3', 0, 0, 0],
    ]);
    // an item unknown to master data still shows, without codes
    expect(res.body[4]).toMatchObject({ item_xuid: null, priority_class: null });
  });

  test('filters: item_id, site_id, is_firm, supply_id; paged', async () => {
    const firm = await results('ar-1', { is_firm: 1 });
    expect([firm.headers['x-total-count'], firm.body.map((r: any) => r.qty)]).toEqual(['2', [6, 2]]);
    const engine = await results('ar-1', { is_firm: 0, item_id: item, site_id: site });
    expect(engine.body.map((r: any) => r.supply_id)).toEqual(['SO_1', 'SO_2']);
    const one = await results('ar-1', { supply_id: 'SO_2' });
    expect(one.body.map((r: any) => r.demand_id)).toEqual([`${item}_${site}:3`]);
    const page = await results('ar-1', { skip: 1, limit: 2 });
    expect([page.headers['x-total-count'], page.body.map((r: any) => r.supply_id)]).toEqual(['5', ['SO_1', 'FIRM_7']]);
    expect((await results('ar-1', { site_id: site + 1 })).body).toEqual([]);
  });

  test('an unknown run is a 404; a run without rows is an empty list; bad filters are 400s', async () => {
    const missing = await results('ar-404');
    expect([missing.status, missing.body.detail]).toEqual([404, 'Allocation run ar-404 not found']);
    const failed = await results('ar-3');
    expect([failed.status, failed.headers['x-total-count'], failed.body]).toEqual([200, '0', []]);
    const bad = await results('ar-1', { is_firm: 2 });
    expect([bad.status, bad.body.detail]).toEqual([400, expect.stringContaining('is_firm')]);
    expect((await results('ar-1', { item_id: 0 })).status).toBe(400);
    expect((await results(encodeURIComponent('bad id!'))).status).toBe(400);
  });
});
