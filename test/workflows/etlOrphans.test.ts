import { sql, withTenant } from '../../db/pool';
import { createPipeline, isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

// Series that lose all their demand (a replace import) must lose their weekly rows and history statistics. The etl
// chunks clear them by key span — before the first chunk, in the gaps between chunks and after the last — so this
// uses two series per chunk and removes series at each of those places.
describe('etl drops the weekly rows of series without demand (real worker)', () => {
  let tw: TestWorker;
  let t: TestApp;
  let a: TestTenant;
  let planner: string;
  let pipelineId: number;
  beforeAll(async () => {
    tw = await startTestWorker();
    t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
    a = await t.newTenant('etl-orphans');
    planner = await t.login(a.planner);
    const admin = await t.login(a.admin);
    expect((await t.call('post', '/api/config/update', { token: admin, body: { path: 'pipeline.chunk_size', value: 2 } })).status).toBe(200);
    pipelineId = await createPipeline(t, planner, 'Orphans');
    await withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT 'I' || g, 'Item ' || g FROM generate_series(1, 8) g`);
      await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S', 'Site')`);
      await tx.query(sql.unsafe`
        INSERT INTO demand_history (item_id, site_id, ds, qty)
        SELECT i.id, s.id, d::date, 1 + i.id FROM items i CROSS JOIN sites s CROSS JOIN generate_series('2026-01-05'::date, '2026-02-23'::date, '7 days') d`);
    });
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await tw.close();
  });

  const runEtl = async () => {
    const res = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
    const job = await waitForJob(t, planner, res.body.job_id, isFinished);
    expect(job.status).toBe('completed');
    return job;
  };
  const state = () =>
    withTenant(t.db, a.accountId, (tx) =>
      tx.any(sql.unsafe`
        SELECT i.xuid AS item, x.n_observations, (SELECT count(*)::int FROM series_weekly w WHERE w.item_id = x.item_id AND w.site_id = x.site_id) AS weeks
        FROM series x JOIN items i ON i.id = x.item_id ORDER BY x.item_id`),
    );

  test('series removed before the first chunk, between two chunks and after the last one are cleared', async () => {
    expect((await runEtl()).result).toEqual({ step: 'etl', series: 8, rows: 64, chunks: 4 });
    expect((await state()).map((r: any) => r.weeks)).toEqual([8, 8, 8, 8, 8, 8, 8, 8]);

    await withTenant(t.db, a.accountId, (tx) =>
      tx.query(sql.unsafe`DELETE FROM demand_history WHERE item_id IN (SELECT id FROM items WHERE xuid IN ('I1', 'I4', 'I8'))`),
    );
    // remaining I2 I3 | I5 I6 | I7: I1 lies before the first chunk, I4 in the gap after I3, I8 after the last chunk
    expect((await runEtl()).result).toEqual({ step: 'etl', series: 5, rows: 40, chunks: 3 });
    expect(await state()).toEqual([
      { item: 'I1', n_observations: null, weeks: 0 },
      { item: 'I2', n_observations: 8, weeks: 8 },
      { item: 'I3', n_observations: 8, weeks: 8 },
      { item: 'I4', n_observations: null, weeks: 0 },
      { item: 'I5', n_observations: 8, weeks: 8 },
      { item: 'I6', n_observations: 8, weeks: 8 },
      { item: 'I7', n_observations: 8, weeks: 8 },
      { item: 'I8', n_observations: null, weeks: 0 },
    ]);

    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM demand_history`));
    const empty = await runEtl();
    expect(empty.result).toEqual({ step: 'etl', series: 0, rows: 0, chunks: 0 });
    expect((await state()).map((r: any) => r.weeks)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
