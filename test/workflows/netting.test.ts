/**
 * Forecast netting through the real Temporal server: POST /api/forecast/netting/refresh runs workflow nettingRefresh,
 * and the summary, series and per-series reads show exactly the hand-computed consumption.
 *
 * The supply seed's pipeline (forecasts from 2026-06-01, a Monday: P@S1 10, P@S2 5, Q@S1 4 a week) plus Q@S2 at
 * 0.3333333 a week; period 4 weeks (2026-06-01 … 2026-06-28), window 1 back / 1 forward. Demand by period week:
 *   P@S1  actual 4 (06-02) + 25 (06-10); 7 on 05-30 and 9 on 06-29 lie outside the period.
 *         firm: TRANSFER out of S1 released 05-20 (overdue → week 0) 3, released 06-16 (week 2) 6 − 1 received = 5;
 *         ignored: in transit, released after the period, a BUY, a transfer out of the DC.
 *         demand [7, 25, 5, 0] against [10, 10, 10, 10]:
 *         w0 7 own · w1 10 own, 3 of w0 (back), 10 of w2 (forward), 2 over · w2 5 of w3 (forward)
 *         → consumed [10, 10, 10, 5], netted [0, 0, 0, 5], over [0, 2, 0, 0], direction both
 *   P@S2  actual 12.5 in week 3 (the firm transfers arrive here; they draw on S1, not on S2)
 *         → w3 5 own, 5 of w2, 2.5 over: consumed [0, 0, 5, 5], netted [5, 5, 0, 0], direction backward
 *   Q@S1  nothing ordered → netted 16, direction none
 *   Q@S2  forecast rounds to 0.333 a week; actual 0.5 in week 1 → 0.333 own, 0.167 of w0:
 *         consumed [0.167, 0.333, 0, 0], netted [0.166, 0, 0.333, 0.333]
 * Supply plan: the newest completed run of the default supply scenario: P@S1 20 arriving 06-08, Q@S1 12 on 06-01
 * (its P@S1 50 on 07-06 is after the period); an older completed run, a newer running one and a newer run of another
 * supply scenario are not read.
 */
import { NETTING_SORTS } from '../../db/netting';
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
let uid: Record<'P_S1' | 'P_S2' | 'Q_S1' | 'Q_S2' | 'P_DC', string>;
let segment: number;

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('netting');
  planner = await t.login(a.planner);
  seed = await seedSupply(t.db, a.accountId);
  const { items: i, sites: s } = seed;
  uid = { P_S1: `${i.P}_${s.S1}`, P_S2: `${i.P}_${s.S2}`, Q_S1: `${i.Q}_${s.S1}`, Q_S2: `${i.Q}_${s.S2}`, P_DC: `${i.P}_${s.DC}` };
  await withTenant(t.db, a.accountId, async (tx) => {
    // Q@S2: a fractional forecast; P@DC: a series without forecast
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${i.Q}, ${s.S2}), (${i.P}, ${s.DC})`);
    const third = Array(52).fill(0.3333333);
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      VALUES (${seed.pipelineId}, ${i.Q}, ${s.S2}, 'ses', '2026-06-01', ${sql.array(third, 'float8')}, ${sql.array(third, 'float8')}, ${sql.array(third, 'float8')}, 0.8)`);
    await tx.query(sql.unsafe`INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, metric) VALUES (${seed.pipelineId}, ${i.Q}, ${s.S2}, 'ses', 'mase')`);

    await tx.query(sql.unsafe`
      INSERT INTO demand_history (item_id, site_id, ds, qty) VALUES
        (${i.P}, ${s.S1}, '2026-05-30', 7), (${i.P}, ${s.S1}, '2026-06-02', 4), (${i.P}, ${s.S1}, '2026-06-10', 25), (${i.P}, ${s.S1}, '2026-06-29', 9),
        (${i.P}, ${s.S2}, '2026-06-22', 12.5), (${i.Q}, ${s.S2}, '2026-06-09', 0.5)`);
    const firm = async (site: number, source: number | null, type: string, qty: number, received: number, release: string, status: string) => tx.query(sql.unsafe`
      INSERT INTO firm_orders (item_id, site_id, source_site_id, order_type, qty, received_qty, release_dt, arrival_dt, erp_status)
      VALUES (${i.P}, ${site}, ${source}, ${type}, ${qty}, ${received}, ${release}::timestamptz, ${release}::timestamptz + interval '7 days', ${status})`);
    await firm(s.S2, s.S1, 'TRANSFER', 3, 0, '2026-05-20T00:00:00Z', 'released');
    await firm(s.S2, s.S1, 'TRANSFER', 6, 1, '2026-06-16T10:00:00Z', 'firm');
    await firm(s.S2, s.S1, 'TRANSFER', 100, 0, '2026-06-02T00:00:00Z', 'in_transit');
    await firm(s.S2, s.S1, 'TRANSFER', 40, 0, '2026-06-29T00:00:00Z', 'firm');
    await firm(s.S1, null, 'BUY', 50, 0, '2026-06-02T00:00:00Z', 'firm');
    await firm(s.S1, s.DC, 'TRANSFER', 30, 0, '2026-06-02T00:00:00Z', 'firm');

    const base = (await tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as number;
    const other = (await tx.oneFirst(sql.unsafe`INSERT INTO supply_scenarios (name) VALUES ('What-if') RETURNING id`)) as number;
    const run = async (runId: string, scenario: number, status: string, age: string, orders: Array<[number, number, number, string]>) => {
      await tx.query(sql.unsafe`
        INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date, started_at)
        VALUES (${runId}, ${seed.pipelineId}, ${scenario}, ${status}, '2026-06-01', now() - ${age}::interval)`);
      for (const [n, [item, site, qty, arrival]] of orders.entries()) {
        await tx.query(sql.unsafe`
          INSERT INTO supply_orders (run_id, pipeline_id, scenario_id, engine_order_id, item_id, site_id, order_type, status, qty, requested_qty,
            release_week, arrival_week, need_week, release_date, arrival_date)
          VALUES (${runId}, ${seed.pipelineId}, ${scenario}, ${n}, ${item}, ${site}, 'BUY', 'planned', ${qty}, ${qty}, 0, 0, 0, '2026-06-01', ${arrival})`);
      }
    };
    await run('supply-old', base, 'completed', '2 days', [[i.P, s.S1, 999, '2026-06-08']]);
    await run('supply-new', base, 'completed', '1 day', [[i.P, s.S1, 20, '2026-06-08'], [i.P, s.S1, 50, '2026-07-06'], [i.Q, s.S1, 12, '2026-06-01']]);
    await run('supply-running', base, 'running', '1 hour', [[i.P, s.S1, 777, '2026-06-08']]);
    await run('supply-what-if', other, 'completed', '1 minute', [[i.P, s.S1, 555, '2026-06-08']]);

    segment = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Store 2 P') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${segment}, ${i.P}, ${s.S2})`);
  });
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

async function refresh(body: Record<string, unknown>) {
  const started = await t.call('post', '/api/forecast/netting/refresh', { token: planner, body });
  expect(started.status).toBe(200);
  const job = await waitForJob(t, planner, started.body.job_id, isFinished, 120_000);
  expect([job.status, job.error]).toEqual(['completed', null]);
  return { started: started.body, job };
}

const summary = (query: Record<string, unknown> = {}, token = planner) =>
  t.call('get', '/api/forecast/netting/summary', { token, query: { pipeline_id: seed.pipelineId, ...query } });
const detail = (id: string, token = planner) => t.call('get', `/api/forecast/netting/${id}`, { token, query: { pipeline_id: seed.pipelineId } });

/** total_forecast − total_consumed = total_netted in integer thousandths: the precision every quantity is kept to. */
function expectReconciled(r: { total_forecast: number; total_consumed: number; total_netted: number }) {
  const m = (x: number) => Math.round(x * 1000);
  expect(Number.isInteger(x1000(r.total_forecast)) && Number.isInteger(x1000(r.total_consumed)) && Number.isInteger(x1000(r.total_netted))).toBe(true);
  expect(m(r.total_forecast) - m(r.total_consumed)).toBe(m(r.total_netted));
}
/** x × 1000, exact when x has at most three decimals (checked against its decimal text, not by tolerance). */
function x1000(x: number): number {
  const [whole, frac = ''] = String(x).split('.');
  return frac.length <= 3 ? Number(whole + frac.padEnd(3, '0')) : Number.NaN;
}

test('before the first refresh the summary is empty', async () => {
  const res = await summary();
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    pipeline_id: seed.pipelineId, period: null, computed_at: null, series_count: 0, total_forecast: 0, total_consumed: 0, total_netted: 0,
    total_firm_demand: 0, total_supply_plan: 0, consumption_rate: null, netting_direction: 'none',
  });
  expect((await detail(uid.P_S1)).status).toBe(404);
});

describe('after a refresh with window 1 back / 1 forward over 4 weeks', () => {
  let jobId: string;
  beforeAll(async () => {
    const { started, job } = await refresh({ pipeline_id: seed.pipelineId, period_weeks: 4, backward_weeks: 1, forward_weeks: 1 });
    expect(started).toMatchObject({ step: 'netting', status: 'queued', pipeline_id: seed.pipelineId, period_weeks: 4, backward_weeks: 1, forward_weeks: 1 });
    jobId = started.job_id;
    expect(job.result).toMatchObject({ series: 4, period_start: '2026-06-01', supply_run_id: 'supply-new', total_forecast: '77.332', total_consumed: '45.5', total_netted: '31.832' });
    expect(job.log.map((l) => l.message).join('\n')).toContain('4 series: forecast 77.332, consumed 45.5, netted 31.832; supply plan of run supply-new');
  }, 180_000);

  test('one series, week by week, exactly as worked out by hand', async () => {
    const res = await detail(uid.P_S1);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      unique_id: uid.P_S1, pipeline_id: seed.pipelineId, best_method: 'naive', job_id: jobId, supply_run_id: 'supply-new',
      period: { start_week: '2026-06-01', end_date: '2026-06-28', weeks: 4, backward_weeks: 1, forward_weeks: 1 },
      weeks: ['2026-06-01', '2026-06-08', '2026-06-15', '2026-06-22'],
      forecast: [10, 10, 10, 10], actual: [4, 25, 0, 0], firm_demand: [3, 0, 5, 0], demand: [7, 25, 5, 0],
      consumed: [10, 10, 10, 5], netted: [0, 0, 0, 5], over_consumption: [0, 2, 0, 0], supply_plan: [0, 20, 0, 0],
      total_forecast: 40, total_actual: 29, total_firm_demand: 8, total_consumed: 35, total_netted: 5, total_over_consumption: 2, total_supply_plan: 20,
      consumed_same: 17, consumed_backward: 3, consumed_forward: 15, direction: 'both', consumption_rate: 35 / 40,
    });
    expect(res.body.consumption).toEqual([
      { demand_week: '2026-06-01', forecast_week: '2026-06-01', qty: 7, direction: 'same' },
      { demand_week: '2026-06-08', forecast_week: '2026-06-08', qty: 10, direction: 'same' },
      { demand_week: '2026-06-08', forecast_week: '2026-06-01', qty: 3, direction: 'backward' },
      { demand_week: '2026-06-08', forecast_week: '2026-06-15', qty: 10, direction: 'forward' },
      { demand_week: '2026-06-15', forecast_week: '2026-06-22', qty: 5, direction: 'forward' },
    ]);

    const s2 = (await detail(uid.P_S2)).body;
    expect(s2).toMatchObject({
      actual: [0, 0, 0, 12.5], firm_demand: [0, 0, 0, 0], consumed: [0, 0, 5, 5], netted: [5, 5, 0, 0], over_consumption: [0, 0, 0, 2.5],
      total_forecast: 20, total_consumed: 10, total_netted: 10, direction: 'backward', consumption_rate: 0.5,
    });
    const q2 = (await detail(uid.Q_S2)).body;
    expect(q2).toMatchObject({
      forecast: [0.333, 0.333, 0.333, 0.333], actual: [0, 0.5, 0, 0], consumed: [0.167, 0.333, 0, 0], netted: [0.166, 0, 0.333, 0.333],
      total_forecast: 1.332, total_consumed: 0.5, total_netted: 0.832, direction: 'backward',
    });
    expect((await detail(uid.Q_S1)).body).toMatchObject({ consumed: [0, 0, 0, 0], netted: [4, 4, 4, 4], supply_plan: [12, 0, 0, 0], direction: 'none', consumption_rate: 0 });
    for (const body of [res.body, s2, q2]) expectReconciled(body);
  });

  test('the summary: the §2.4 fields, reconciled to the thousandth', async () => {
    const res = await summary();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pipeline_id: seed.pipelineId, period: { start_week: '2026-06-01', end_date: '2026-06-28', weeks: 4, backward_weeks: 1, forward_weeks: 1 },
      computed_at: expect.any(String), series_count: 4, total_forecast: 77.332, total_consumed: 45.5, total_netted: 31.832, total_firm_demand: 8,
      total_supply_plan: 32, consumption_rate: 45.5 / 77.332, netting_direction: 'both',
    });
    expectReconciled(res.body);
  });

  test('segment filter and the caller\'s segments', async () => {
    const bySegment = await summary({ segment_id: segment });
    expect(bySegment.body).toMatchObject({
      series_count: 1, total_forecast: 20, total_consumed: 10, total_netted: 10, total_firm_demand: 0, total_supply_plan: 0, consumption_rate: 0.5,
      netting_direction: 'backward',
    });
    const listed = await t.call('get', '/api/forecast/netting/series', { token: planner, query: { pipeline_id: seed.pipelineId, segment_id: segment } });
    expect([listed.headers['x-total-count'], listed.body.map((r: any) => r.unique_id)]).toEqual(['1', [uid.P_S2]]);

    const restricted = await t.login(await t.addUser(a.accountId, { allowed_segments: [segment] }));
    expect((await summary({}, restricted)).body).toMatchObject({ series_count: 1, total_forecast: 20, total_netted: 10 });
    const denied = await detail(uid.P_S1, restricted);
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain(`Access to series ${uid.P_S1} denied`);
    expect((await detail(uid.P_S2, restricted)).status).toBe(200);
    expect((await summary({ segment_id: segment + 1000 })).status).toBe(404);
  });

  test('the series list: filters, sorting, paging with X-Total-Count', async () => {
    const list = (query: Record<string, unknown>) => t.call('get', '/api/forecast/netting/series', { token: planner, query: { pipeline_id: seed.pipelineId, ...query } });
    const all = await list({});
    expect(all.status).toBe(200);
    expect(all.headers['x-total-count']).toBe('4');
    expect(all.body.map((r: any) => r.unique_id)).toEqual([uid.P_S1, uid.P_S2, uid.Q_S1, uid.Q_S2].sort((x, y) => {
      const [xi, xs] = x.split('_').map(Number);
      const [yi, ys] = y.split('_').map(Number);
      return xi - yi || xs - ys;
    }));
    expect(all.body.find((r: any) => r.unique_id === uid.P_S1)).toMatchObject({ item_xuid: 'P', site_xuid: 'S1', total_over_consumption: 2, direction: 'both' });
    for (const row of all.body) expectReconciled(row);
    const sum = (k: string) => all.body.reduce((n: number, r: any) => n + Math.round(r[k] * 1000), 0);
    expect([sum('total_forecast'), sum('total_consumed'), sum('total_netted')]).toEqual([77332, 45500, 31832]);

    const page = await list({ sort_by: 'total_netted', sort_dir: 'desc', limit: 2 });
    expect([page.headers['x-total-count'], page.body.map((r: any) => r.unique_id)]).toEqual(['4', [uid.Q_S1, uid.P_S2]]);
    const next = await list({ sort_by: 'total_netted', sort_dir: 'desc', limit: 2, skip: 2 });
    expect(next.body.map((r: any) => r.unique_id)).toEqual([uid.P_S1, uid.Q_S2]);
    const byRate = await list({ sort_by: 'consumption_rate', sort_dir: 'desc' });
    expect(byRate.body.map((r: any) => r.consumption_rate)).toEqual([35 / 40, 0.5, 0.5 / 1.332, 0]);
    for (const sortBy of NETTING_SORTS) {
      for (const sortDir of ['asc', 'desc']) expect([sortBy, sortDir, (await list({ sort_by: sortBy, sort_dir: sortDir })).body.length]).toEqual([sortBy, sortDir, 4]);
    }
    expect((await list({ direction: 'both' })).body.map((r: any) => r.unique_id)).toEqual([uid.P_S1]);
    expect((await list({ over_consumed: true })).headers['x-total-count']).toBe('2');
    expect((await list({ item_id: seed.items.Q, direction: 'none' })).body.map((r: any) => r.unique_id)).toEqual([uid.Q_S1]);
  });

  test('404 for an unknown series and for one without netting', async () => {
    const unknown = await detail('999999_999999');
    expect([unknown.status, unknown.body.detail]).toEqual([404, 'Series 999999_999999 not found (item 999999, site 999999)']);
    const none = await detail(uid.P_DC);
    expect(none.status).toBe(404);
    expect(none.body.detail).toContain('the last refresh had no best-method forecast of it');
  });
});

describe('bad input', () => {
  test('400 names the field', async () => {
    const post = (body: unknown) => t.call('post', '/api/forecast/netting/refresh', { token: planner, body });
    const cases: Array<[unknown, string]> = [
      [{ pipeline_id: seed.pipelineId, backward_weeks: -1 }, 'body.backward_weeks must be >= 0'],
      [{ pipeline_id: seed.pipelineId, period_weeks: 0 }, 'body.period_weeks must be >= 1'],
      [{ pipeline_id: seed.pipelineId, forward_weeks: 53 }, 'body.forward_weeks must be <= 52'],
      [{ pipeline_id: 'one' }, 'body.pipeline_id must be integer'],
      [{ pipeline_id: seed.pipelineId, window: 3 }, "body: unknown field 'window'"],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect([res.status, res.body.detail]).toEqual([400, message]);
    }
    const bad = [
      ['/api/forecast/netting/summary', { segment_id: 'x' }, 'query.segment_id must be integer'],
      ['/api/forecast/netting/series', { sort_by: 'price' }, 'query.sort_by must be one of: unique_id, total_forecast, total_consumed, total_netted, total_over_consumption, total_firm_demand, total_supply_plan, consumption_rate'],
      ['/api/forecast/netting/series', { direction: 'sideways' }, 'query.direction must be one of: backward, forward, both, none'],
      ['/api/forecast/netting/abc', {}, 'path.unique_id must match pattern "^[1-9][0-9]{0,8}_[1-9][0-9]{0,8}$"'],
    ] as const;
    for (const [path, query, message] of bad) {
      const res = await t.call('get', path, { token: planner, query });
      expect([path, res.status, res.body.detail]).toEqual([path, 400, message]);
    }
  });

  test('an unknown pipeline is a 404, a caller without can_run_process a 403', async () => {
    const missing = await t.call('post', '/api/forecast/netting/refresh', { token: planner, body: { pipeline_id: 999999 } });
    expect([missing.status, missing.body.detail]).toEqual([404, 'pipeline_id: pipeline 999999 not found']);
    expect((await summary({ pipeline_id: 999999 })).status).toBe(404);
    const viewer = await t.login(await t.addUser(a.accountId, { role: 'user', can_run_process: false }));
    const denied = await t.call('post', '/api/forecast/netting/refresh', { token: viewer, body: { pipeline_id: seed.pipelineId } });
    expect(denied.status).toBe(403);
  });
});

test('omitted settings keep the pipeline\'s last ones; window (0, 0) consumes inside each week only', async () => {
  const { started } = await refresh({ pipeline_id: seed.pipelineId, backward_weeks: 0, forward_weeks: 0 });
  expect(started).toMatchObject({ period_weeks: 4, backward_weeks: 0, forward_weeks: 0 });
  // P@S1: w0 7 own · w1 10 own, 15 over · w2 5 own
  expect((await detail(uid.P_S1)).body).toMatchObject({
    consumed: [7, 10, 5, 0], netted: [3, 0, 5, 10], over_consumption: [0, 15, 0, 0], direction: 'none', consumed_same: 22,
  });
  const again = await refresh({ pipeline_id: seed.pipelineId });
  expect(again.started).toMatchObject({ period_weeks: 4, backward_weeks: 0, forward_weeks: 0 });
  const res = await summary();
  // consumed 22 + 5 + 0 + 0.333; netted 18 + 15 + 16 + 0.999
  expect(res.body).toMatchObject({
    period: { start_week: '2026-06-01', end_date: '2026-06-28', weeks: 4, backward_weeks: 0, forward_weeks: 0 },
    series_count: 4, total_forecast: 77.332, total_consumed: 27.333, total_netted: 49.999, netting_direction: 'none',
  });
  expectReconciled(res.body);
  // a refresh replaces the rows: every stored row is of the last job
  const jobs = await withTenant(t.db, a.accountId, (tx) => tx.anyFirst(sql.unsafe`SELECT DISTINCT job_id FROM netting_results WHERE pipeline_id = ${seed.pipelineId}`));
  expect(jobs).toEqual([again.started.job_id]);
}, 180_000);

test('a two-week period with a wider window', async () => {
  await refresh({ pipeline_id: seed.pipelineId, period_weeks: 2, backward_weeks: 3, forward_weeks: 3 });
  // P@S1 over weeks 0-1: demand [7, 25] against [10, 10]: w0 7 own · w1 10 own, 3 of w0, 12 over (no week 2 in the period)
  expect((await detail(uid.P_S1)).body).toMatchObject({
    weeks: ['2026-06-01', '2026-06-08'], forecast: [10, 10], firm_demand: [3, 0], consumed: [10, 10], netted: [0, 0], over_consumption: [0, 12],
    supply_plan: [0, 20], direction: 'backward', period: { end_date: '2026-06-14', weeks: 2 },
  });
}, 180_000);

test('refresh without pipeline_id nets the default pipeline (here 0, which has no forecast)', async () => {
  const { started, job } = await refresh({});
  expect(started.pipeline_id).toBe(0);
  expect(job.result).toMatchObject({ pipeline_id: 0, series: 0, period_start: null });
  expect(job.log.map((l) => l.message).join('\n')).toContain('netting: pipeline 0 has no best-method forecast; nothing to net');
  const res = await t.call('get', '/api/forecast/netting/summary', { token: planner });
  expect(res.body).toMatchObject({ pipeline_id: 0, series_count: 0, period: { start_week: null, end_date: null, weeks: 4 }, consumption_rate: null });
}, 180_000);
