import { sql, withTenant } from '../../db/pool';
import { addWeeks } from '../../domain/time/weeks';
import { createPipeline, isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/** Document 2 §4.4 rule 3 through the forecast step on the Temporal dev server (docs/SUPERSESSION.md). */
describe('forecast step: supersession moves the predecessor forecast onto the successor (real worker)', () => {
  const N = 60;
  const FIRST = '2025-09-29';
  const H = 13;
  let tw: TestWorker;
  let t: TestApp;
  let a: TestTenant;
  let planner: string;
  let pipelineId: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    tw = await startTestWorker();
    t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
    a = await t.newTenant('fc-supersession');
    planner = await t.login(a.planner);
    pipelineId = await createPipeline(t, planner, 'Supersession');
    const demand: Array<[string, string, number]> = [];
    for (let k = 0; k < N; k++) demand.push(['OLD', addWeeks(FIRST, k), 5 + (k % 4)], ['NEW', addWeeks(FIRST, k), 20 + (k % 3)]);
    await withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('OLD', 'Old pump'), ('NEW', 'New pump')`);
      await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Main')`);
      await tx.query(sql.unsafe`
        INSERT INTO demand_history (item_id, site_id, ds, qty)
        SELECT i.id, s.id, d.ds, d.qty FROM ${sql.unnest(demand, ['text', 'date', 'float8'])} AS d(item, ds, qty)
        JOIN items i ON i.xuid = d.item JOIN sites s ON s.xuid = 'S1'`);
      for (const r of (await tx.any(sql.unsafe`SELECT xuid, id FROM items`)) as any[]) ids[r.xuid] = r.id;
      const scenario = await tx.oneFirst(sql.unsafe`
        INSERT INTO forecast_scenarios (name, horizon_weeks, methods) VALUES ('Quarter', ${H}, ${sql.array(['ses', 'naive', 'theta'], 'text')}) RETURNING id`);
      await tx.query(sql.unsafe`UPDATE scenario_pipelines SET forecast_scenario_id = ${scenario as number} WHERE id = ${pipelineId}`);
    });
    const etl = await t.call('post', '/api/pipeline/run/etl', { token: planner, body: { pipeline_id: pipelineId } });
    expect((await waitForJob(t, planner, etl.body.job_id, isFinished)).status).toBe('completed');
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await tw.close();
  });

  const runForecast = async () => {
    const res = await t.call('post', '/api/pipeline/run/forecast', { token: planner, body: { pipeline_id: pipelineId } });
    expect(res.status).toBe(200);
    const job = await waitForJob(t, planner, res.body.job_id, isFinished, 180_000);
    expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });
    return job;
  };
  /** item code → method → the stored row */
  const forecasts = async () => {
    const rows = (await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
      SELECT i.xuid AS item, f.method, f.start_week, f.yhat, f.yhat_lower, f.yhat_upper, f.params
      FROM forecast_results f JOIN items i ON i.id = f.item_id WHERE f.pipeline_id = ${pipelineId} ORDER BY i.xuid, f.method`))) as any[];
    const out: Record<string, Record<string, any>> = {};
    for (const r of rows) (out[r.item] ??= {})[r.method] = r;
    return out;
  };
  const close = (actual: number[], expected: number[]) => {
    expect(actual).toHaveLength(expected.length);
    actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 9));
  };

  test('an active edge OLD → NEW: NEW = its own forecast + OLD\'s per method, OLD zero; a second run does not move it twice', async () => {
    await runForecast();
    const before = await forecasts();
    expect(Object.keys(before.OLD).sort()).toEqual(['naive', 'ses', 'theta']);
    expect(Object.keys(before.NEW).sort()).toEqual(['naive', 'ses', 'theta']);
    expect(before.OLD.ses.yhat.some((v: number) => v > 0)).toBe(true);

    const edgeId = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`
      INSERT INTO supersession (from_item_id, to_item_id) VALUES (${ids.OLD}, ${ids.NEW}) RETURNING id`))) as number;
    const job = await runForecast();
    expect(job.log.map((l) => l.message)).toContain('forecast: supersession: 1 series moved to their successors by 1 edges (6 rows written, 0 removed)');
    const after = await forecasts();
    for (const method of ['naive', 'ses', 'theta']) {
      const [o, n, o2, n2] = [before.OLD[method], before.NEW[method], after.OLD[method], after.NEW[method]];
      expect(n2.start_week).toBe(n.start_week);
      for (const k of ['yhat', 'yhat_lower', 'yhat_upper']) {
        close(n2[k], n[k].map((v: number, i: number) => v + o[k][i]));
        expect(o2[k]).toEqual(new Array(H).fill(0));
      }
      const weeks = { from_week: n.start_week, to_week: addWeeks(n.start_week, H - 1) };
      expect(o2.params.supersession).toEqual({ created: false, own: { yhat: o.yhat, yhat_lower: o.yhat_lower, yhat_upper: o.yhat_upper }, edges: [{ edge_id: edgeId, role: 'from', ...weeks }] });
      expect(n2.params.supersession.edges).toEqual([{ edge_id: edgeId, role: 'to', ...weeks }]);
      // the forecast step's own params stay
      expect(n2.params.method_source).toBe('scenario');
    }

    // the step rewrites both series and the finalize starts again from their own forecasts: no double transfer
    const again = await runForecast();
    expect(await forecasts()).toEqual(after);
    expect(again.log.map((l) => l.message)).toContain('forecast: supersession: 1 series moved to their successors by 1 edges (6 rows written, 0 removed)');

    // a partial run re-forecasts OLD only: NEW keeps the mark and is rebuilt from its own forecast, not added to again
    const site = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT id FROM sites WHERE xuid = 'S1'`))) as number;
    const partial = await t.call('post', '/api/pipeline/run-forecast', {
      token: planner, body: { pipeline_id: pipelineId, series: [`${ids.OLD}_${site}`], methods: ['ses', 'naive', 'theta'] },
    });
    expect(partial.status).toBe(200);
    expect((await waitForJob(t, planner, partial.body.job_id, isFinished, 180_000)).status).toBe('completed');
    const afterPartial = await forecasts();
    for (const method of ['naive', 'ses', 'theta']) {
      close(afterPartial.NEW[method].yhat, after.NEW[method].yhat);
      expect(afterPartial.OLD[method].yhat).toEqual(new Array(H).fill(0));
      expect(afterPartial.OLD[method].params.supersession.own.yhat).toEqual(before.OLD[method].yhat);
    }
  }, 400_000);
});
