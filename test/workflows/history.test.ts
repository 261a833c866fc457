import { sql, withTenant } from '../../db/pool';
import { isFinished, waitForJob } from '../support/jobs';
import { seedSupply, type SupplySeed } from '../support/supplySeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let seed: SupplySeed;
let pipelineId: number;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('history');
  planner = await t.login(a.planner);
  seed = await seedSupply(t.db, a.accountId);
  pipelineId = seed.pipelineId;
  const run = await t.call('post', '/api/supply/run', { token: planner, body: { pipeline_id: pipelineId, scenario_id: await defaultSupplyScenario() } });
  const job = await waitForJob(t, planner, run.body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
}, 180_000);
afterAll(async () => {
  delete process.env.PLANNING_DATE_OVERRIDE;
  await t.close();
  await tw.close();
});

const q = <T = any>(query: ReturnType<typeof sql.unsafe>) => withTenant(t.db, a.accountId, async (tx) => [...(await tx.any(query))] as T[]);
const defaultSupplyScenario = async () => (await q(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`))[0].id as number;
const setPlanningDate = async (pipeline: number, date: string | null) => {
  const res = await t.call('put', '/api/history/planning-date', { token: planner, body: { pipeline_id: pipeline, planning_date: date } });
  expect(res.status).toBe(200);
};
const freeze = (body: Record<string, unknown> = {}) => t.call('post', '/api/history/freeze', { token: planner, body: { pipeline_id: pipelineId, ...body } });

describe('freeze', () => {
  test('the planning date resolves in the order of freeze rule 2 (the pipeline\'s data before the calendar), and the archive date is its Monday', async () => {
    const dates = async () => (await t.call('get', '/api/history/planning-date', { token: planner, query: { pipeline_id: pipelineId } })).body;
    // nothing stored: the first week of the pipeline's forecasts (supplySeed), not the calendar (db/planningDate.ts)
    expect(await dates()).toMatchObject({ effective: '2026-06-01', source: 'forecast', archive_date: '2026-06-01', pipeline_planning_date: null, global_planning_date: null });
    await setPlanningDate(-1, '2026-03-12');
    expect(await dates()).toMatchObject({ effective: '2026-03-12', source: 'global', archive_date: '2026-03-09' });
    await setPlanningDate(pipelineId, '2026-06-03');
    expect(await dates()).toMatchObject({ effective: '2026-06-03', source: 'pipeline', archive_date: '2026-06-01', global_planning_date: '2026-03-12' });
    process.env.PLANNING_DATE_OVERRIDE = '2026-02-01';
    expect(await dates()).toMatchObject({ effective: '2026-02-01', source: 'override', archive_date: '2026-01-26' });
    delete process.env.PLANNING_DATE_OVERRIDE;
    const zero = await t.call('put', '/api/history/planning-date', { token: planner, body: { pipeline_id: 0, planning_date: '2026-01-01' } });
    expect([zero.status, zero.body.detail]).toEqual([400, 'body.pipeline_id: 0 is not a pipeline (−1 is the tenant-wide date)']);
  });

  test('a freeze copies every live table of the pipeline, stores counts and KPIs, and answers the §4.5 shape', async () => {
    await setPlanningDate(pipelineId, '2026-06-03');
    // the delays of the timers cleared while the freeze is answered (clearing sets a timer's own to -1)
    const clearedDelays: number[] = [];
    const clear = global.clearTimeout;
    const spy = jest.spyOn(global, 'clearTimeout').mockImplementation((timer) => {
      clearedDelays.push((timer as { _idleTimeout?: number } | undefined)?._idleTimeout ?? NaN);
      clear(timer);
    });
    const res = await freeze({ comment: 'first plan' });
    spy.mockRestore();
    expect(res.status).toBe(200);
    // the request's wait for the job (FREEZE_WAIT_MS, 120 s) ended with the answer instead of staying pending
    expect(clearedDelays).toContain(120_000);
    expect(res.body).toMatchObject({ archive_date: '2026-06-01', replaced_archive_date: null, comment: 'first plan', pinned: false, planning_date: '2026-06-03', planning_date_source: 'pipeline' });
    expect(Object.keys(res.body).sort()).toEqual(['archive_date', 'comment', 'job_id', 'kpis', 'pinned', 'planning_date', 'planning_date_source', 'replaced_archive_date', 'retention_deleted', 'snapshot_ts', 'table_counts', 'version']);
    const live = (await q(sql.unsafe`SELECT
      (SELECT count(*)::int FROM forecast_results WHERE pipeline_id = ${pipelineId}) AS forecast_results,
      (SELECT count(*)::int FROM series_best_method WHERE pipeline_id = ${pipelineId}) AS series_best_method,
      (SELECT count(*)::int FROM supply_orders o JOIN supply_runs r USING (run_id) WHERE r.pipeline_id = ${pipelineId}) AS supply_orders,
      (SELECT count(*)::int FROM supply_plans p JOIN supply_runs r USING (run_id) WHERE r.pipeline_id = ${pipelineId}) AS supply_plans,
      (SELECT count(*)::int FROM supply_pegging p JOIN supply_runs r USING (run_id) WHERE r.pipeline_id = ${pipelineId}) AS supply_pegging,
      (SELECT count(*)::int FROM supply_runs WHERE pipeline_id = ${pipelineId}) AS supply_runs,
      (SELECT count(*)::int FROM allocation_results x JOIN allocation_runs r USING (run_id) WHERE r.pipeline_id = ${pipelineId}) AS allocation_results,
      (SELECT count(*)::int FROM item_site) AS on_hand`))[0];
    expect(res.body.table_counts).toMatchObject(live);
    expect(live.forecast_results).toBe(3);
    expect(live.supply_orders).toBeGreaterThan(0);
    // the copies are the live rows, column for column
    const diff = await q(sql.unsafe`
      (SELECT item_id, site_id, method, yhat FROM forecast_results WHERE pipeline_id = ${pipelineId}
       EXCEPT SELECT item_id, site_id, method, yhat FROM history_forecast_results WHERE snapshot_id = ${res.body.version.id})
      UNION ALL
      (SELECT item_id, site_id, method, yhat FROM history_forecast_results WHERE snapshot_id = ${res.body.version.id}
       EXCEPT SELECT item_id, site_id, method, yhat FROM forecast_results WHERE pipeline_id = ${pipelineId})`);
    expect(diff).toEqual([]);
    const run = (await q(sql.unsafe`SELECT kpis FROM supply_runs WHERE pipeline_id = ${pipelineId}`))[0].kpis;
    expect(res.body.kpis).toEqual({ fill_rate: run.projected_fill_rate, inventory_value: run.avg_inventory_value, shortage_qty: run.shortage_qty, forecast_mase: null, series: 3 });
    expect(res.body.version).toMatchObject({ frozen: true, pinned: false, source: 'api', job_id: res.body.job_id, row_count_total: Object.values(res.body.table_counts).reduce((n: number, c: any) => n + c, 0) });
    const job = await waitForJob(t, planner, res.body.job_id, isFinished);
    expect(job.status).toBe('completed');
  }, 60_000);

  test('freeze rule 3: the same week again replaces the un-pinned version; a pinned one coexists and cannot be deleted', async () => {
    const again = await freeze({ comment: 'second take' });
    expect(again.body).toMatchObject({ archive_date: '2026-06-01', replaced_archive_date: '2026-06-01', comment: 'second take' });
    let versions = (await t.call('get', '/api/history/versions', { token: planner, query: { pipeline_id: pipelineId } })).body;
    expect(versions.map((v: any) => [v.archive_date, v.comment, v.pinned])).toEqual([['2026-06-01', 'second take', false]]);
    // the replaced version's copies are gone with it
    const snapshots = await q(sql.unsafe`SELECT DISTINCT snapshot_id FROM history_forecast_results`);
    expect(snapshots.map((s) => s.snapshot_id)).toEqual([again.body.version.id]);

    // a pinned freeze too replaces the week's un-pinned version (rule 3 drops it whatever the new one is)
    const pinned = await freeze({ comment: 'committed', pin: true });
    expect(pinned.body).toMatchObject({ archive_date: '2026-06-01', replaced_archive_date: '2026-06-01', pinned: true });
    versions = (await t.call('get', '/api/history/versions', { token: planner, query: { pipeline_id: pipelineId } })).body;
    expect(versions.map((v: any) => [v.comment, v.pinned])).toEqual([['committed', true]]);
    // a later freeze finds no un-pinned version to replace and stands beside the pinned one
    const third = await freeze({ comment: 'third take' });
    expect(third.body.replaced_archive_date).toBe(null);
    versions = (await t.call('get', '/api/history/versions', { token: planner, query: { pipeline_id: pipelineId } })).body;
    expect(versions.map((v: any) => [v.comment, v.pinned])).toEqual([['third take', false], ['committed', true]]);

    // un-pinning while the week has an un-pinned version would make two: refused
    await t.call('delete', '/api/history/versions/2026-06-01', { token: planner, query: { pipeline_id: pipelineId } }); // deletes 'third take'
    const onlyPinned = await t.call('get', '/api/history/versions/2026-06-01', { token: planner, query: { pipeline_id: pipelineId } });
    expect(onlyPinned.body).toMatchObject({ comment: 'committed', pinned: true });
    const del = await t.call('delete', '/api/history/versions/2026-06-01', { token: planner, query: { pipeline_id: pipelineId } });
    expect([del.status, del.body.detail]).toEqual([409, 'The version of 2026-06-01 is pinned: un-pin it (PATCH with pinned false) before deleting it']);
    await freeze({ comment: 'fourth take' });
    const unpin = await t.call('patch', '/api/history/versions/2026-06-01', { token: planner, query: { pipeline_id: pipelineId }, body: { pinned: false } });
    // the week's un-pinned version is 'fourth take', so the PATCH addresses it: un-pinning it again changes nothing
    expect(unpin.body).toMatchObject({ comment: 'fourth take', pinned: false });
    const renamed = await t.call('patch', '/api/history/versions/2026-06-01', { token: planner, query: { pipeline_id: pipelineId }, body: { comment: 'renamed' } });
    expect(renamed.body.comment).toBe('renamed');
  }, 120_000);

  test('two freezes of the same week at once: both answer, one un-pinned version survives', async () => {
    await setPlanningDate(pipelineId, '2026-06-10');
    const [x, y] = await Promise.all([freeze({ comment: 'x' }), freeze({ comment: 'y' })]);
    expect([x.status, y.status]).toEqual([200, 200]);
    const week = (await t.call('get', '/api/history/versions', { token: planner, query: { pipeline_id: pipelineId, from: '2026-06-08', to: '2026-06-08' } })).body;
    expect(week.length).toBe(1);
    expect(['x', 'y']).toContain(week[0].comment);
    // the one that went second replaced the first
    expect([x.body.replaced_archive_date, y.body.replaced_archive_date].sort()).toEqual(['2026-06-08', null].sort());
    const orphans = await q(sql.unsafe`SELECT DISTINCT h.snapshot_id FROM history_supply_orders h WHERE NOT EXISTS (SELECT 1 FROM history_versions v WHERE v.id = h.snapshot_id)`);
    expect(orphans).toEqual([]);
  }, 120_000);
});

describe('versions', () => {
  test('list filters and paging, get, bad input and unknown ids', async () => {
    const all = await t.call('get', '/api/history/versions', { token: planner, query: { pipeline_id: pipelineId } });
    expect(all.body.map((v: any) => v.archive_date)).toEqual(['2026-06-08', '2026-06-01', '2026-06-01']);
    expect(all.headers['x-total-count']).toBe('3');
    const page = await t.call('get', '/api/history/versions', { token: planner, query: { pipeline_id: pipelineId, skip: 1, limit: 1 } });
    expect(page.body).toEqual([all.body[1]]);
    const to = await t.call('get', '/api/history/versions', { token: planner, query: { pipeline_id: pipelineId, to: '2026-06-07', frozen_only: true } });
    expect(to.body.map((v: any) => v.archive_date)).toEqual(['2026-06-01', '2026-06-01']);
    expect((await t.call('get', '/api/history/versions/2026-06-15', { token: planner, query: { pipeline_id: pipelineId } })).status).toBe(404);
    const bad = await t.call('get', '/api/history/versions/june', { token: planner, query: { pipeline_id: pipelineId } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('archive_date');
    const noPipeline = await t.call('get', '/api/history/versions', { token: planner });
    expect([noPipeline.status, noPipeline.body.detail]).toEqual([400, 'pipeline_id is required (a positive pipeline id; 0 is not a pipeline)']);
    const unknown = await freeze({ pipeline_id: 999999 });
    expect([unknown.status, unknown.body.detail]).toEqual([404, 'pipeline_id: pipeline 999999 not found']);
  });

  test('retention keeps the newest retention_versions un-pinned versions; pinned ones are exempt', async () => {
    for (const d of ['2026-06-17', '2026-06-24']) {
      await setPlanningDate(pipelineId, d);
      expect((await freeze()).status).toBe(200);
    }
    const settings = await t.call('put', '/api/history/settings', { token: planner, body: { pipeline_id: pipelineId, retention_versions: 2 } });
    expect(settings.body).toEqual({ pipeline_id: pipelineId, retention_versions: 2, retention_min_age_days: 0, schedule_timezone: 'UTC', schedule_hour: 6 });
    const r = await t.call('post', '/api/history/retention', { token: planner, body: { pipeline_id: pipelineId } });
    // un-pinned: 06-22, 06-15, 06-08, 06-01 → the two oldest go; the pinned 06-01 stays
    expect(r.body).toEqual({ pipeline_id: pipelineId, deleted: ['2026-06-01', '2026-06-08'] });
    const left = (await t.call('get', '/api/history/versions', { token: planner, query: { pipeline_id: pipelineId } })).body;
    expect(left.map((v: any) => [v.archive_date, v.pinned])).toEqual([['2026-06-22', false], ['2026-06-15', false], ['2026-06-01', true]]);
    const aged = await t.call('put', '/api/history/settings', { token: planner, body: { pipeline_id: pipelineId, retention_versions: 1, retention_min_age_days: 30 } });
    expect(aged.status).toBe(200);
    expect((await t.call('post', '/api/history/retention', { token: planner, body: { pipeline_id: pipelineId } })).body.deleted).toEqual([]);
    await t.call('put', '/api/history/settings', { token: planner, body: { pipeline_id: pipelineId, retention_versions: 52, retention_min_age_days: 0 } });
  }, 120_000);
});

describe('the weekly schedule', () => {
  test('a new pipeline gets its Temporal Schedule; settings move it; pause, resume and trigger work; deleting the pipeline removes it', async () => {
    const created = await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'Scheduled' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const schedule = async () => (await t.call('get', '/api/history/schedule', { token: planner, query: { pipeline_id: id } })).body;
    const first = await schedule();
    expect(first).toMatchObject({ schedule_id: `freeze-${a.accountId}-${id}`, exists: true, paused: false, timezone: 'UTC', hour: 6, catchup_window: '2 days' });
    expect(first.next_runs.length).toBeGreaterThan(0);
    for (const n of first.next_runs) expect([new Date(n).getUTCDay(), new Date(n).getUTCHours(), new Date(n).getUTCMinutes()]).toEqual([1, 6, 0]);

    const moved = await t.call('put', '/api/history/settings', { token: planner, body: { pipeline_id: id, schedule_timezone: 'Asia/Tokyo', schedule_hour: 9 } });
    expect(moved.status).toBe(200);
    const second = await schedule();
    expect(second).toMatchObject({ timezone: 'Asia/Tokyo', hour: 9 });
    // 09:00 on a Monday in Tokyo is 00:00 UTC the same Monday
    for (const n of second.next_runs) expect([new Date(n).getUTCDay(), new Date(n).getUTCHours()]).toEqual([1, 0]);
    const badTz = await t.call('put', '/api/history/settings', { token: planner, body: { pipeline_id: id, schedule_timezone: 'Mars/Olympus' } });
    expect([badTz.status, badTz.body.detail]).toEqual([400, "body.schedule_timezone: unknown time zone 'Mars/Olympus'"]);

    expect((await t.call('post', '/api/history/schedule/pause', { token: planner, body: { pipeline_id: id, note: 'holiday' } })).body).toMatchObject({ paused: true, note: 'holiday' });
    expect((await t.call('post', '/api/history/schedule/resume', { token: planner, body: { pipeline_id: id } })).body.paused).toBe(false);

    // trigger: the schedule starts the freeze now, on this worker; it is a job with source schedule, then retention
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`INSERT INTO pipeline_planning_dates (pipeline_id, planning_date) VALUES (${id}, '2026-07-01')`));
    const fired = await t.call('post', '/api/history/schedule/trigger', { token: planner, body: { pipeline_id: id } });
    expect(fired.status).toBe(200);
    let versions: any[] = [];
    for (let i = 0; i < 100 && !versions.length; i++) {
      await new Promise((r) => setTimeout(r, 200));
      versions = (await t.call('get', '/api/history/versions', { token: planner, query: { pipeline_id: id } })).body;
    }
    expect(versions.map((v: any) => [v.archive_date, v.source, v.frozen, v.created_by])).toEqual([['2026-06-29', 'schedule', true, 'schedule']]);
    const job = await waitForJob(t, planner, versions[0].job_id, isFinished);
    expect(job.status).toBe('completed');
    expect((await schedule()).recent_runs.map((r: any) => r.workflow_id)).toEqual([versions[0].job_id]);

    expect((await t.call('delete', `/api/scenario-pipeline/${id}`, { token: planner })).status).toBe(200);
    expect((await t.call('get', '/api/history/schedule', { token: planner, query: { pipeline_id: id } })).status).toBe(404);
    const gone = await tw.client.schedule.getHandle(`freeze-${a.accountId}-${id}`).describe().then(() => 'exists', (err) => err.name);
    expect(gone).toBe('ScheduleNotFoundError');
  }, 120_000);
});

describe('replay', () => {
  test('each view of a frozen week answers byte for byte what the live reader answered at freeze time, after the live data moved on', async () => {
    const supplyScenario = await defaultSupplyScenario();
    const meioScenario = (await t.call('post', '/api/meio/scenarios', { token: planner, body: { name: 'Replay' } })).body.id;
    const meioRun = await t.call('post', `/api/meio/scenarios/${meioScenario}/run`, { token: planner, body: { pipeline_id: pipelineId } });
    expect((await waitForJob(t, planner, meioRun.body.job_id, isFinished, 120_000)).status).toBe('completed');
    const uid = `${seed.items.P}_${seed.sites.S1}`;
    const scope = { pipeline_id: pipelineId, scenario_id: supplyScenario };
    const live = async () => ({
      series: (await t.call('get', `/api/forecasts/${uid}`, { token: planner, query: { pipeline_id: pipelineId } })).text,
      orders: (await t.call('get', '/api/supply/orders', { token: planner, query: { ...scope, include_firm: false, limit: 50 } })).text,
      dashboard: (await t.call('get', '/api/supply/dashboard', { token: planner, query: scope })).text,
      meio: (await t.call('get', `/api/meio/scenarios/${meioScenario}/results`, { token: planner, query: { pipeline_id: pipelineId } })).text,
    });
    const atFreeze = await live();
    expect(JSON.parse(atFreeze.meio).length).toBeGreaterThan(0);
    await setPlanningDate(pipelineId, '2026-07-08');
    expect((await freeze({ comment: 'replayed' })).status).toBe(200);

    // the live data moves on: new forecasts, a new supply run, new meio results
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
      UPDATE forecast_results SET yhat = ARRAY(SELECT v * 2 FROM unnest(yhat) v), updated_at = now() WHERE pipeline_id = ${pipelineId}`));
    const rerun = await t.call('post', '/api/supply/run', { token: planner, body: scope });
    expect((await waitForJob(t, planner, rerun.body.job_id, isFinished, 120_000)).status).toBe('completed');
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE meio_results SET target_service = 0.9, updated_at = now() WHERE pipeline_id = ${pipelineId}`));
    const now = await live();
    for (const k of ['series', 'orders', 'dashboard', 'meio'] as const) expect(now[k]).not.toBe(atFreeze[k]);

    const replay = async (view: string, extra: Record<string, unknown> = {}) => {
      const res = await t.call('get', '/api/history/replay/2026-07-06', { token: planner, query: { pipeline_id: pipelineId, view, ...extra } });
      expect(res.status).toBe(200);
      return res.body;
    };
    expect(JSON.stringify((await replay('series', { unique_id: uid })).data)).toBe(atFreeze.series);
    const supply = (await replay('supply', { limit: 50 })).data;
    expect(JSON.stringify(supply.orders)).toBe(atFreeze.orders);
    expect(JSON.stringify(supply.dashboard)).toBe(atFreeze.dashboard);
    expect(JSON.stringify((await replay('meio', { meio_scenario_id: meioScenario })).data.results)).toBe(atFreeze.meio);
    const summary = (await replay('summary')).data;
    expect(summary.version).toMatchObject({ archive_date: '2026-07-06', comment: 'replayed' });
    expect(summary.best_methods).toEqual({ naive: 3 });
    expect(JSON.stringify(summary.supply)).toBe(atFreeze.dashboard);

    // a replay leaves nothing behind: the live readers answer as before it
    expect((await live()).orders).toBe(now.orders);
    const noUid = await t.call('get', '/api/history/replay/2026-07-06', { token: planner, query: { pipeline_id: pipelineId, view: 'series' } });
    expect([noUid.status, noUid.body.detail]).toEqual([400, 'query.unique_id is required with view=series']);
    expect((await t.call('get', '/api/history/replay/2026-07-13', { token: planner, query: { pipeline_id: pipelineId } })).status).toBe(404);
  }, 180_000);
});
