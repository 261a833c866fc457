import { sql, withTenant } from '../../db/pool';
import { seedExceptions, type ExceptionSeed } from '../support/exceptionSeed';
import { isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let seed: ExceptionSeed;
let itemR: number;

const q = (fn: (tx: any) => Promise<unknown>) => withTenant(t.db, a.accountId, fn);

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('exception-log');
  planner = await t.login(a.planner);
  // P@S1 trips high_mase and misses its io target; P@S2 trips bias and has no distribution; Q@S1 is quiet on every rule;
  // R@S2 has a forecast without a best method (test/support/exceptionSeed.ts).
  seed = await seedExceptions(t.db, a.accountId);
  itemR = seed.itemR;
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

async function generate() {
  const started = await t.call('post', '/api/exception-log/generate', { token: planner, body: { pipeline_id: seed.pipelineId } });
  expect(started.status).toBe(200);
  const job = await waitForJob(t, planner, started.body.job_id, isFinished, 120_000);
  expect([job.status, job.error]).toEqual(['completed', null]);
  return job;
}
const list = async (query: string) => {
  const res = await t.call('get', `/api/exception-log?pipeline_id=${seed.pipelineId}${query}`, { token: planner });
  expect(res.status).toBe(200);
  return res.body;
};
const byKey = (items: any[]) => Object.fromEntries(items.map((r) => [`${r.item_id}_${r.site_id}`, r]));

test('generate: each rule fires on the series built to trip it, the quiet series has no row; refresh keeps planners\' statuses', async () => {
  const { items, sites } = seed;
  await generate();
  const all = await list('');
  expect(all.total).toBe(3);
  const rows = byKey(all.items);
  const codes = (k: string) => rows[k].issues.map((i: any) => `${i.type}:${i.code}`).sort();
  expect(codes(`${items.P}_${sites.S1}`)).toEqual(['forecast:high_mase', 'io:below_target']);
  expect(codes(`${items.P}_${sites.S2}`)).toEqual(['forecast:bias', 'io:no_distribution']);
  expect(codes(`${itemR}_${sites.S2}`)).toEqual(['forecast:no_best_method']);
  expect(rows[`${items.Q}_${sites.S1}`]).toBeUndefined();
  expect(rows[`${items.P}_${sites.S1}`]).toMatchObject({
    pipeline_id: seed.pipelineId, status: 'open', exception_types: ['forecast', 'io'], item_name: 'Item P', item_code: 'P', site_name: 'Site S1', unique_id: `${items.P}_${sites.S1}`,
  });
  for (const i of rows[`${items.P}_${sites.S1}`].issues) expect(Object.keys(i)).toEqual(expect.arrayContaining(['type', 'severity', 'description']));

  const p1 = rows[`${items.P}_${sites.S1}`].id;
  const p2 = rows[`${items.P}_${sites.S2}`].id;
  const r = rows[`${itemR}_${sites.S2}`].id;
  expect((await t.call('patch', `/api/exception-log/${p1}/status`, { token: planner, body: { status: 'resolved' } })).status).toBe(200);
  const snoozed = await t.call('patch', `/api/exception-log/${p2}/status`, { token: planner, body: { status: 'snoozed', snoozed_until: '2999-01-01' } });
  expect(snoozed.body).toMatchObject({ status: 'snoozed', snoozed_until: '2999-01-01' });
  const audit = await q((tx) => tx.any(sql.unsafe`SELECT action, old_value, new_value FROM audit_log WHERE entity_type = 'exception_log' AND action = 'status' AND entity_id = ${String(p1)}`));
  expect(audit).toEqual([expect.objectContaining({ action: 'status', old_value: { status: 'open', snoozed_until: null }, new_value: { status: 'resolved', snoozed_until: null } })]);

  // same issues again: the planners' statuses stay
  await generate();
  let now = byKey((await list('')).items);
  expect([now[`${items.P}_${sites.S1}`].status, now[`${items.P}_${sites.S2}`].status, now[`${itemR}_${sites.S2}`].status]).toEqual(['resolved', 'snoozed', 'open']);

  // a new issue on the resolved row reopens it; the series given a best method is left without issues and resolved
  await q(async (tx) => {
    await tx.query(sql.unsafe`UPDATE backtest_metrics SET bias = 5 WHERE pipeline_id = ${seed.pipelineId} AND item_id = ${items.P} AND site_id = ${sites.S1}`);
    await tx.query(sql.unsafe`INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, metric) VALUES (${seed.pipelineId}, ${itemR}, ${sites.S2}, 'naive', 'mase')`);
  });
  const job = await generate();
  expect(job.result).toMatchObject({ pipeline_id: seed.pipelineId, reopened: 1, cleared: 1 });
  now = byKey((await list('')).items);
  expect([now[`${items.P}_${sites.S1}`].status, now[`${items.P}_${sites.S2}`].status, now[`${itemR}_${sites.S2}`].status]).toEqual(['open', 'snoozed', 'resolved']);
  expect(now[`${itemR}_${sites.S2}`].issues).toEqual([]);
  expect(now[`${itemR}_${sites.S2}`].id).toBe(r);

  // paging and filter totals
  expect((await list('&status=open')).total).toBe(1);
  expect((await list('&status=resolved')).items.map((x: any) => x.id)).toEqual([r]);
  expect((await list('&types=io')).total).toBe(2);
  expect((await list('&types=supply')).total).toBe(0);
  expect((await list('&types=forecast,supply&status=snoozed')).total).toBe(1);
  const page1 = await list('&page_size=2');
  const page2 = await list('&page_size=2&page=2');
  expect([page1.total, page1.items.length, page2.total, page2.items.length, page2.page, page2.page_size]).toEqual([3, 2, 3, 1, 2, 2]);
  expect(new Set([...page1.items, ...page2.items].map((x: any) => x.id)).size).toBe(3);
  const seg = (await q((tx) => tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('only P S1') RETURNING id`))) as number;
  await q((tx) => tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${seg}, ${items.P}, ${sites.S1})`));
  expect((await list(`&segment_id=${seg}`)).items.map((x: any) => x.id)).toEqual([p1]);
  const noSegment = await t.call('get', `/api/exception-log?pipeline_id=${seed.pipelineId}&segment_id=999999`, { token: planner });
  expect([noSegment.status, noSegment.body.detail]).toEqual([404, 'Segment 999999 not found']);
  const noPipeline = await t.call('get', '/api/exception-log?pipeline_id=999999', { token: planner });
  expect([noPipeline.status, noPipeline.body.detail]).toEqual([404, 'pipeline_id: pipeline 999999 not found']);

  // inline data
  const fd = await t.call('get', `/api/exception-log/${p1}/forecast-data?weeks=4`, { token: planner });
  expect(fd.status).toBe(200);
  expect(fd.body.history).toHaveLength(4);
  expect(fd.body.best).toMatchObject({ best_method: 'naive', mase: 2, bias: 5 });
  const io = await t.call('get', `/api/exception-log/${p1}/io-data`, { token: planner });
  expect(io.body.results).toEqual([expect.objectContaining({ meets_target: false, expected_fill_rate: 0.8 })]);
  const sd = await t.call('get', `/api/exception-log/${p1}/supply-data`, { token: planner });
  expect(sd.body).toMatchObject({ exception_id: p1, run_id: null, plan: null, exceptions: [] });
  const pre = await t.call('get', `/api/exception-log/preload?pipeline_id=${seed.pipelineId}&item_ids=${items.P},${items.Q}`, { token: planner });
  expect(pre.status).toBe(200);
  expect(pre.body.items.map((x: any) => [x.item_id, x.exceptions.length])).toEqual([[items.P, 2], [items.Q, 0]]);
  expect(pre.body.items[0].sku_sites.find((s: any) => s.site_id === sites.S1)).toMatchObject({ best_method: 'naive', mase: 2 });
  expect((await t.call('get', '/api/exception-log/999999/io-data', { token: planner })).status).toBe(404);
}, 300_000);

test('supply issues come from the newest completed supply run and are kept beside forecast and io issues', async () => {
  const run = await t.call('post', '/api/pipeline/run/supply', { token: planner, body: { pipeline_id: seed.pipelineId } });
  expect(run.status).toBe(200);
  const job = await waitForJob(t, planner, run.body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
  const expected = (await q((tx) => tx.any(sql.unsafe`SELECT DISTINCT item_id, site_id FROM supply_exceptions WHERE run_id = ${job.job_id}`))) as any[];
  expect(expected.length).toBeGreaterThan(0);
  const gen = await generate();
  expect(gen.result).toMatchObject({ supply_run_id: job.job_id });
  const supply = await list('&types=supply&page_size=500');
  expect(supply.total).toBe(expected.length);
  for (const r of supply.items) expect(r.issues.filter((i: any) => i.type === 'supply').every((i: any) => i.run_id === job.job_id)).toBe(true);
  const sd = await t.call('get', `/api/exception-log/${supply.items[0].id}/supply-data`, { token: planner });
  expect(sd.body.run_id).toBe(job.job_id);
  expect(sd.body.exceptions.length).toBeGreaterThan(0);
}, 300_000);

test('every validation error is a 400 naming the field', async () => {
  const bad = async (method: string, path: string, field: string, body?: unknown) => {
    const res = await t.call(method, path, { token: planner, body });
    expect([path, res.status]).toEqual([path, 400]);
    expect(res.body.detail).toContain(field);
  };
  const p = seed.pipelineId;
  await bad('get', '/api/exception-log', 'pipeline_id');
  await bad('get', '/api/exception-log?pipeline_id=0', 'pipeline_id');
  await bad('get', `/api/exception-log?pipeline_id=${p}&status=closed`, 'status');
  await bad('get', `/api/exception-log?pipeline_id=${p}&types=forecast,bogus`, 'query.types must match pattern');
  await bad('get', `/api/exception-log?pipeline_id=${p}&types=,`, 'types');
  await bad('get', `/api/exception-log?pipeline_id=${p}&page=0`, 'page');
  await bad('get', `/api/exception-log?pipeline_id=${p}&page_size=501`, 'page_size');
  await bad('get', `/api/exception-log?pipeline_id=${p}&page_size=0`, 'page_size');
  await bad('get', '/api/exception-log/preload?item_ids=1', 'pipeline_id');
  await bad('get', `/api/exception-log/preload?pipeline_id=${p}&item_ids=1,x`, 'item_ids');
  await bad('get', `/api/exception-log/preload?pipeline_id=${p}&item_ids=1,2147483648`, 'query.item_ids must match pattern');
  await bad('get', `/api/exception-log/preload?pipeline_id=${p}&item_ids=0`, 'query.item_ids must match pattern');
  const ids = (n: number) => Array.from({ length: n }, (_, i) => 2147483000 + i).join(',');
  await bad('get', `/api/exception-log/preload?pipeline_id=${p}&item_ids=${ids(501)}`, 'item_ids: at most 500 ids');
  expect((await t.call('get', `/api/exception-log/preload?pipeline_id=${p}&item_ids=${ids(500)}`, { token: planner })).status).toBe(200);
  await bad('get', `/api/exception-log/preload?pipeline_id=${p}`, 'item_ids');
  await bad('patch', '/api/exception-log/1/status', 'status', { status: 'closed' });
  await bad('patch', '/api/exception-log/1/status', 'status', {});
  await bad('patch', '/api/exception-log/1/status', 'snoozed_until', { status: 'snoozed', snoozed_until: 'soon' });
  await bad('post', '/api/exception-log/generate', 'pipeline_id', {});
  await bad('post', '/api/exception-log/generate', 'pipeline_id', { pipeline_id: 0 });
  expect((await t.call('post', '/api/exception-log/generate', { token: planner, body: { pipeline_id: 999999 } })).status).toBe(404);
  expect((await t.call('get', '/api/exception-log?pipeline_id=999999', { token: planner })).status).toBe(404);
});
