/**
 * The planner's work queue follows the results: a supply, MEIO or forecasting step refreshes the pipeline's alerts
 * and exception log as part of its job, and a sequence of steps does it once, after its last step. Real PostgreSQL
 * and Temporal, over HTTP, on the supply seed (its firm orders arrive late at P@S2, Q@S1 and the DC).
 */
import { sql, withTenant } from '../../db/pool';
import { completedJob } from '../support/jobs';
import { seedSupply, type SupplySeed } from '../support/supplySeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let seed: SupplySeed;
let base: number;

const q = <T>(fn: (tx: any) => Promise<T>) => withTenant(t.db, a.accountId, fn);

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('step-signals');
  planner = await t.login(a.planner);
  seed = await seedSupply(t.db, a.accountId);
  base = (await q((tx) => tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`))) as number;
}, 120_000);

afterAll(async () => {
  await t?.close();
  await tw?.close();
});

async function finished(started: { status: number; body: any }) {
  expect(started.status).toBe(200);
  return completedJob(t, planner, started.body.job_id, 180_000);
}

/** What the rules should have seen of the newest supply run: its SKU-sites with exceptions, and its shortages. */
async function supplyTruth() {
  return q(async (tx) => {
    const run = (await tx.oneFirst(sql.unsafe`
      SELECT run_id FROM supply_runs WHERE pipeline_id = ${seed.pipelineId} AND status = 'completed' ORDER BY started_at DESC, run_id DESC LIMIT 1`)) as string;
    const skuSites = (await tx.any(sql.unsafe`
      SELECT DISTINCT item_id || '_' || site_id AS uid FROM supply_exceptions WHERE run_id = ${run} ORDER BY 1`)).map((r: any) => r.uid as string);
    // the rules read series only: the DC's late order is in the exception log but raises no alert
    const late = (await tx.any(sql.unsafe`
      SELECT e.item_id || '_' || e.site_id AS uid, count(*)::float8 AS n FROM supply_exceptions e JOIN series s USING (item_id, site_id)
      WHERE e.run_id = ${run} AND e.type = 'late_order' GROUP BY 1 ORDER BY 1`)).map((r: any) => [r.uid as string, r.n as number]);
    return { run, skuSites, late };
  });
}

test('a supply step raises the alerts and exception-log rows of its plan, in the same job', async () => {
  const before = await t.call('get', '/api/alerts', { token: planner, query: { pipeline_id: seed.pipelineId } });
  expect(before.body.total).toBe(0);

  const job = await finished(await t.call('post', '/api/supply/run', { token: planner, body: { pipeline_id: seed.pipelineId, scenario_id: base } }));
  const truth = await supplyTruth();
  expect(truth.skuSites.length).toBeGreaterThan(0);
  expect(truth.late).toEqual([[`${seed.items.P}_${seed.sites.S2}`, 1], [`${seed.items.Q}_${seed.sites.S1}`, 2]]);

  const alerts = await t.call('get', '/api/alerts', { token: planner, query: { pipeline_id: seed.pipelineId, page_size: 1000 } });
  expect(alerts.status).toBe(200);
  expect(job.result.signals).toEqual({ pipeline_id: seed.pipelineId, alerts: alerts.body.total, alerts_cleared: 0, exception_rows: truth.skuSites.length });
  // every alert was written by this job, and each series with late firm orders carries a late_firm_order alert of their count
  expect(new Set(alerts.body.items.map((x: any) => x.job_id))).toEqual(new Set([job.job_id]));
  const late = alerts.body.items.filter((x: any) => x.metric_name === 'late_firm_order').map((x: any) => [x.unique_id, x.value]).sort();
  expect(late).toEqual(truth.late);

  const log = await t.call('get', '/api/exception-log', { token: planner, query: { pipeline_id: seed.pipelineId, page_size: 100 } });
  expect(log.body.total).toBe(truth.skuSites.length);
  expect(log.body.items.map((r: any) => r.unique_id).sort()).toEqual(truth.skuSites);
  expect(log.body.items.every((r: any) => r.exception_types.includes('supply') && r.status === 'open')).toBe(true);
  expect(job.log.map((l) => l.message)).toEqual(expect.arrayContaining([
    expect.stringMatching(/^alerts: pipeline \d+, \d+ enabled rules over \d+ series/),
    `exception log: pipeline ${seed.pipelineId}, ${truth.skuSites.length} SKU-sites with issues (${truth.skuSites.length} new, 0 reopened, 0 cleared)`,
  ]));
  // the alerts ran as two generations side by side, over two item ranges that together hold every series once
  const lines = job.log.map((l) => l.message).filter((m) => m.startsWith('alerts: '));
  expect(lines).toHaveLength(2);
  expect(lines.every((m) => / series of items (first|\d+) to (last|before \d+): /.test(m))).toBe(true);
  const seriesCount = (await q((tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM series`))) as number;
  expect(lines.map((m) => Number(/over (\d+) series/.exec(m)![1])).reduce((x, y) => x + y, 0)).toBe(seriesCount);
  expect(lines.map((m) => Number(/: (\d+) alerts raised/.exec(m)![1])).reduce((x, y) => x + y, 0)).toBe(alerts.body.total);
}, 240_000);

test('a planner\'s decision survives the next step; a sequence refreshes once, after its last step', async () => {
  const all = await t.call('get', '/api/alerts', { token: planner, query: { pipeline_id: seed.pipelineId, page_size: 1000 } });
  const first = await t.call('get', '/api/alerts', { token: planner, query: { pipeline_id: seed.pipelineId, metric: 'late_firm_order' } });
  const target = first.body.items[0];
  expect((await t.call('post', `/api/alerts/${target.id}/approve`, { token: planner })).status).toBe(200);
  const row = (await t.call('get', '/api/exception-log', { token: planner, query: { pipeline_id: seed.pipelineId } })).body.items[0];
  expect((await t.call('patch', `/api/exception-log/${row.id}/status`, { token: planner, body: { status: 'resolved' } })).status).toBe(200);

  const wf = await t.call('post', '/api/process-workflows', { token: planner, body: { name: 'Plan only', steps: ['supply'], scenario_pipeline_id: seed.pipelineId } });
  expect(wf.status).toBe(201);
  const job = await finished(await t.call('post', `/api/process-workflows/${wf.body.workflow_id}/run`, { token: planner, body: {} }));
  const truth = await supplyTruth();

  // the child supply step left the refresh to its sequence
  expect(job.result.steps).toHaveLength(1);
  expect(job.result.steps[0].signals).toBeUndefined();
  expect(job.result.signals).toMatchObject({ pipeline_id: seed.pipelineId, alerts_cleared: 0, exception_rows: truth.skuSites.length });
  const after = await t.call('get', '/api/alerts', { token: planner, query: { pipeline_id: seed.pipelineId, page_size: 1000 } });
  // the same plan again: the same alerts, refreshed by this run
  expect(after.body.items.map((x: any) => x.id).sort()).toEqual(all.body.items.map((x: any) => x.id).sort());
  expect(after.body.items.filter((x: any) => x.status === 'open').every((x: any) => x.job_id === job.job_id)).toBe(true);
  const decided = after.body.items.find((x: any) => x.id === target.id);
  // the value did not get worse, so the decision stands
  expect([decided.status, decided.decided_by]).toEqual(['approved', a.planner.email]);
  const kept = (await t.call('get', '/api/exception-log', { token: planner, query: { pipeline_id: seed.pipelineId, status: 'resolved' } })).body;
  expect(kept.items.map((r: any) => r.id)).toEqual([row.id]);
}, 240_000);

test('a run of a few series refreshes only their alerts and exception-log rows', async () => {
  const uid = `${seed.items.P}_${seed.sites.S1}`;
  const snapshot = () => q(async (tx) => ({
    alerts: [...(await tx.any(sql.unsafe`
      SELECT item_id || '_' || site_id AS uid, metric_name, job_id, status FROM alerts WHERE pipeline_id = ${seed.pipelineId} ORDER BY 1, 2`))],
    log: [...(await tx.any(sql.unsafe`
      SELECT item_id || '_' || site_id AS uid, updated_at::text AS updated_at, status, issues FROM exception_log WHERE pipeline_id = ${seed.pipelineId} ORDER BY 1`))],
  }));
  const before = await snapshot();
  expect(before.log.filter((r: any) => r.uid !== uid).length).toBeGreaterThan(0);
  expect(before.alerts.filter((r: any) => r.uid !== uid).length).toBeGreaterThan(0);

  const job = await finished(await t.call('post', '/api/pipeline/run-forecast', { token: planner, body: { pipeline_id: seed.pipelineId, series: [uid], methods: ['naive'] } }));
  const after = await snapshot();
  const others = (s: typeof before) => ({ alerts: s.alerts.filter((r: any) => r.uid !== uid), log: s.log.filter((r: any) => r.uid !== uid) });
  expect(others(after)).toEqual(others(before));
  expect(job.log.map((l) => l.message)).toEqual(expect.arrayContaining([
    expect.stringMatching(new RegExp(`^alerts: pipeline ${seed.pipelineId}, \\d+ enabled rules over 1 of the run's 1 series`)),
  ]));
  const own = after.log.filter((r: any) => r.uid === uid && r.issues.length > 0).length;
  expect(job.result.signals).toMatchObject({ pipeline_id: seed.pipelineId, exception_rows: own });
}, 240_000);
