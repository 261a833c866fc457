/**
 * One planning today per pipeline (document 2 §4.4 rule 1, §4.5 freeze rule 2; db/planningDate.ts): the supply step's
 * week 0 and the supersession edges it treats as active, GET /api/supersession/active?pipeline_id, GET
 * /api/history/planning-date and the freeze all use the same date. The network of test/support/supplySeed.ts (forecasts
 * from 2026-06-01) with a global edge Q → P effective 2026-04-06: active on the forecasts' first week, not yet on a
 * stored planning date of 2026-03-02. While the edge is active, Q's routes are blocked (rule 4) and Q gets no orders.
 */
import { sql, withTenant } from '../../db/pool';
import { isFinished, waitForJob } from '../support/jobs';
import { seedSupply, type SupplySeed } from '../support/supplySeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let admin: string;
let seed: SupplySeed;
let edgeId: number;

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('planning-today');
  admin = await t.login(a.admin);
  seed = await seedSupply(t.db, a.accountId);
  const edge = await t.call('post', '/api/supersession', { token: admin, body: { from_item_id: seed.items.Q, to_item_id: seed.items.P, effective_date: '2026-04-06' } });
  expect(edge.status).toBe(201);
  edgeId = edge.body.id;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await tw?.close();
});

async function supplyRun(): Promise<{ planning_date: string; qOrders: number }> {
  const started = await t.call('post', '/api/pipeline/run/supply', { token: admin, body: { pipeline_id: seed.pipelineId } });
  expect(started.status).toBe(200);
  const job = await waitForJob(t, admin, started.body.job_id, isFinished, 120_000);
  expect([job.status, job.error]).toEqual(['completed', null]);
  return withTenant(t.db, a.accountId, async (tx) => ({
    planning_date: (await tx.oneFirst(sql.unsafe`SELECT planning_date::text FROM supply_runs WHERE run_id = ${job.job_id}`)) as string,
    qOrders: (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_orders WHERE run_id = ${job.job_id} AND item_id = ${seed.items.Q}`)) as number,
  }));
}

const planningDate = async () => (await t.call('get', '/api/history/planning-date', { token: admin, query: { pipeline_id: seed.pipelineId } })).body;
const active = async (query: Record<string, unknown>) => {
  const res = await t.call('get', '/api/supersession/active', { token: admin, query });
  return { status: res.status, as_of: res.body.as_of, source: res.body.as_of_source, edges: res.body.edges?.length, detail: res.body.detail };
};

test('nothing stored: the pipeline plans from its forecasts\' first week, and every reader agrees the edge is active', async () => {
  expect(await planningDate()).toMatchObject({ effective: '2026-06-01', source: 'forecast' });
  expect(await active({ pipeline_id: seed.pipelineId })).toMatchObject({ status: 200, as_of: '2026-06-01', source: 'forecast', edges: 1 });
  expect(await supplyRun()).toEqual({ planning_date: '2026-06-01', qOrders: 0 });
});

test('a stored planning date moves the supply step, the supersession read and the freeze together', async () => {
  expect((await t.call('put', '/api/history/planning-date', { token: admin, body: { pipeline_id: seed.pipelineId, planning_date: '2026-03-02' } })).status).toBe(200);
  expect(await planningDate()).toMatchObject({ effective: '2026-03-02', source: 'pipeline' });
  expect(await active({ pipeline_id: seed.pipelineId })).toMatchObject({ status: 200, as_of: '2026-03-02', source: 'pipeline', edges: 0 });
  const run = await supplyRun();
  expect(run.planning_date).toBe('2026-03-02');
  // the edge is not active on 2026-03-02: Q is sourced again (its forecast, shifted 13 weeks on, still needs buying)
  expect(run.qOrders).toBeGreaterThan(0);
  const freeze = await t.call('post', '/api/history/freeze', { token: admin, body: { pipeline_id: seed.pipelineId } });
  expect(freeze.status).toBe(200);
  expect(freeze.body).toMatchObject({ archive_date: '2026-03-02', planning_date: '2026-03-02', planning_date_source: 'pipeline' });
});

test('the tenant\'s read without pipeline_id keeps the tenant\'s date; an unknown pipeline is 404', async () => {
  // the pipeline's own date does not move the tenant-wide reference date, and no pipeline data stands in for it
  const before = new Date().toISOString().slice(0, 10);
  const tenant = await active({});
  expect([before, new Date().toISOString().slice(0, 10)]).toContain(tenant.as_of);
  expect(tenant).toMatchObject({ status: 200, source: 'today', edges: 1 });
  expect(await active({ pipeline_id: 2147483647 })).toMatchObject({ status: 404, detail: 'Pipeline 2147483647 not found' });
});

test('a mid-week effective date is compared as it is, not rounded to its Monday, by the read and the supply step alike', async () => {
  // docs/SUPERSESSION.md "Dates within a week": only the forecast step, which moves weeks, starts at the date's Monday
  expect((await t.call('put', `/api/supersession/${edgeId}`, { token: admin, body: { effective_date: '2026-04-08' } })).status).toBe(200);
  const at = async (date: string) => {
    expect((await t.call('put', '/api/history/planning-date', { token: admin, body: { pipeline_id: seed.pipelineId, planning_date: date } })).status).toBe(200);
    return { read: (await active({ pipeline_id: seed.pipelineId })).edges, qOrders: (await supplyRun()).qOrders > 0 };
  };
  // Monday 04-06 of the edge's week: not active yet, Q is still sourced; Wednesday 04-08: active, Q is not
  expect(await at('2026-04-06')).toEqual({ read: 0, qOrders: true });
  expect(await at('2026-04-08')).toEqual({ read: 1, qOrders: false });
});

test('a causal run without a start date starts on the Monday of the pipeline\'s planning today (pipeline 0: the tenant\'s)', async () => {
  const sc = await t.call('post', '/api/causal/scenarios', { token: admin, body: { name: 'No start date', horizon_weeks: 1 } });
  expect(sc.status).toBe(201);
  expect((await t.call('put', '/api/history/planning-date', { token: admin, body: { pipeline_id: seed.pipelineId, planning_date: '2026-04-08' } })).status).toBe(200);
  const start = async (pipelineId: number) => {
    const res = await t.call('post', '/api/causal/scenarios/run', { token: admin, body: { scenario_id: sc.body.id, pipeline_id: pipelineId } });
    expect(res.status).toBe(200);
    expect((await waitForJob(t, admin, res.body.job_id, isFinished, 120_000)).status).toBe('completed');
    return res.body.start_week as string;
  };
  expect(await start(seed.pipelineId)).toBe('2026-04-06');
  const monday = (d: Date) => new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
  const before = monday(new Date());
  expect([before, monday(new Date())]).toContain(await start(0));
});
