/**
 * The in-memory reads (api/readCache.ts) against the data version of migration 011: a write that changes what they
 * show is seen by the next request, however it was made (a step's chunk, a finishing job, SQL from anywhere), and
 * what does not change it (a job's heartbeat) keeps the memory.
 */
import { sql, withTenant, type Db } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let token: string;
let uid: string;
let pipelineId: number;

const version = (db: Db, accountId: string) => withTenant(db, accountId, async (tx) => Number(await tx.oneFirst(sql.unsafe`SELECT version FROM data_version`)));

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('readcache');
  token = await t.login(a.planner);
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I1', 'Cola')`);
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'DC')`);
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) SELECT i.id, s.id FROM items i, sites s`);
    uid = (await tx.oneFirst(sql.unsafe`SELECT item_id::text || '_' || site_id::text FROM series`)) as string;
    pipelineId = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name, is_active) VALUES ('p', true) RETURNING id`)) as number;
  });
});
afterAll(() => t.close());

async function completeStep(step: string, jobId: string, write: (tx: Parameters<Parameters<typeof withTenant>[2]>[0]) => Promise<unknown>) {
  // as a step runs: the job row, its chunks' writes in transactions of their own, heartbeats, then the job finishes
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
    INSERT INTO jobs (job_id, kind, step, pipeline_id, status, started_at) VALUES (${jobId}, 'step', ${step}, ${pipelineId}, 'running', now())`));
  await withTenant(t.db, a.accountId, write);
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE jobs SET status = 'completed', finished_at = now() WHERE job_id = ${jobId}`));
}

test('the series list and the forecasts show a step\'s results on the first read after it completed', async () => {
  const before = await t.call('get', '/api/series', { token });
  expect(before.body[0]).toMatchObject({ unique_id: uid, best_method: null, characterized: false });
  expect((await t.call('get', `/api/forecasts/${uid}`, { token })).body).toMatchObject({ pipeline_id: 0, forecasts: {}, best_method: null });

  await completeStep('best-method', 'job-best', (tx) => tx.query(sql.unsafe`
    INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, metric) SELECT ${pipelineId}, item_id, site_id, 'croston', 'mase' FROM series`));
  await completeStep('forecast', 'job-forecast', (tx) => tx.query(sql.unsafe`
    INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
    SELECT ${pipelineId}, item_id, site_id, 'croston', '2026-01-05', '{1,2}', '{0,1}', '{2,3}', 0.9 FROM series`));

  const after = await t.call('get', '/api/series', { token });
  expect(after.body[0]).toMatchObject({ unique_id: uid, best_method: 'croston' });
  const f = await t.call('get', `/api/forecasts/${uid}`, { token });
  expect(f.body).toMatchObject({ pipeline_id: pipelineId, best_method: 'croston' });
  expect(f.body.forecasts.croston).toEqual([
    { ds: '2026-01-05', yhat: 1, yhat_lower: 0, yhat_upper: 2 }, { ds: '2026-01-12', yhat: 2, yhat_lower: 1, yhat_upper: 3 },
  ]);

  // a later run rewrites the rows: the next read shows them, not the memory of the previous one
  await completeStep('forecast', 'job-forecast-2', (tx) => tx.query(sql.unsafe`UPDATE forecast_results SET yhat = '{5,6}'`));
  expect((await t.call('get', `/api/forecasts/${uid}`, { token })).body.forecasts.croston[0].yhat).toBe(5);
});

test('the version moves once per committed transaction, at commit, and not for heartbeats or rolled-back writes', async () => {
  const v0 = await version(t.db, a.accountId);
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`UPDATE items SET name = 'Cola 1'`);
    await tx.query(sql.unsafe`UPDATE items SET name = 'Cola 2'`);
    await tx.query(sql.unsafe`UPDATE sites SET name = 'DC 2'`);
    // not yet: a reader in another transaction must not see a version whose data is not committed
    expect(await version(t.db, a.accountId)).toBe(v0);
  });
  expect(await version(t.db, a.accountId)).toBe(v0 + 1);
  expect((await t.call('get', '/api/series', { token })).body[0]).toMatchObject({ item_name: 'Cola 2', site_name: 'DC 2' });

  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE jobs SET heartbeat_at = now(), progress = '{"done": 1}'`));
  expect(await version(t.db, a.accountId)).toBe(v0 + 1);

  await expect(withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`UPDATE items SET name = 'never'`);
    throw new Error('rolled back');
  })).rejects.toThrow('rolled back');
  expect(await version(t.db, a.accountId)).toBe(v0 + 1);
  expect(await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM data_version_pending`))).toBe(0);
});

test('segment-restricted users see only their series from memory too', async () => {
  const segmentId = await withTenant(t.db, a.accountId, async (tx) => {
    const id = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('none of them') RETURNING id`)) as number;
    return id;
  });
  const restricted = await t.addUser(a.accountId, { allowed_segments: [segmentId] });
  const rt = await t.login(restricted);
  const list = await t.call('get', '/api/series', { token: rt });
  expect(list.body).toEqual([]);
  expect(list.headers['x-total-count']).toBe('0');
  expect((await t.call('get', `/api/forecasts/${uid}`, { token: rt })).status).toBe(403);
  // added to the segment: visible at once
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) SELECT ${segmentId}, item_id, site_id FROM series`));
  expect((await t.call('get', '/api/series', { token: rt })).body.map((r: { unique_id: string }) => r.unique_id)).toEqual([uid]);
  expect((await t.call('get', `/api/forecasts/${uid}`, { token: rt })).status).toBe(200);
  expect((await t.call('get', '/api/forecasts/999_999', { token: rt })).status).toBe(404);
});
