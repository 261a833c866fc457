import { sql, withTenant } from '../../db/pool';
import { createPipeline, isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

// A step's activity heartbeats between series and pages, but one statement can keep PostgreSQL busy longer than the
// work activities' 10 s heartbeat timeout (the forecast step's finalize at 100,000 series did, and failed after five
// cancelled attempts). The worker beats for an activity while its thread waits; here a planner's lock keeps the etl
// chunk's write waiting 20 s, and the step must complete in its first attempts, nothing timed out or retried.
describe('an activity waiting on a long statement is not timed out (real worker)', () => {
  let tw: TestWorker;
  let t: TestApp;
  let a: TestTenant;
  let planner: string;
  let pipelineId: number;
  beforeAll(async () => {
    tw = await startTestWorker();
    t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
    a = await t.newTenant('long-statement');
    planner = await t.login(a.planner);
    pipelineId = await createPipeline(t, planner, 'Long statement');
    await withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT 'I' || g, 'Item ' || g FROM generate_series(1, 3) g`);
      await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S', 'Site')`);
      await tx.query(sql.unsafe`
        INSERT INTO demand_history (item_id, site_id, ds, qty)
        SELECT i.id, s.id, d::date, i.id FROM items i CROSS JOIN sites s CROSS JOIN generate_series('2026-01-05'::date, '2026-03-30'::date, '7 days') d`);
    });
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await tw.close();
  });

  test('the etl step completes after a 20 s lock wait in its first attempts', async () => {
    let started = '';
    const held = withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`LOCK TABLE series_weekly IN SHARE MODE`);
      const res = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
      started = res.body.job_id ?? `refused: ${res.status} ${JSON.stringify(res.body)}`;
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 20_000));
    });
    while (!started) await new Promise((r) => setTimeout(r, 50));
    await held;
    const job = await waitForJob(t, planner, started, isFinished);
    expect(job.status).toBe('completed');
    expect(job.result).toEqual({ step: 'etl', series: 3, rows: 39, chunks: 1 });
    const events = (await tw.client.workflow.getHandle(started).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.activityTaskFailedEventAttributes || e.activityTaskCanceledEventAttributes || e.activityTaskTimedOutEventAttributes)).toEqual([]);
    const attempts = events.filter((e) => e.activityTaskStartedEventAttributes).map((e) => Number(e.activityTaskStartedEventAttributes!.attempt));
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((n) => n === 1)).toBe(true);
  }, 90_000);
});
