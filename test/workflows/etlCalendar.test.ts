import { applyCalendar, weekFactors, weeklyStats } from '../../domain/time/weeks';
import { sql, withTenant } from '../../db/pool';
import { createPipeline, isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

describe('calendar arithmetic (pure)', () => {
  test('weekFactors: unlisted weeks are 1, other days count for their week, the smallest factor of a week wins', () => {
    const f = weekFactors('2026-01-05', 4, ['2026-01-14', '2026-01-12', '2026-01-19', '2025-12-29', '2026-02-02'], [0.5, 0.8, 0, 0, 0]);
    expect(Array.from(f)).toEqual([1, 0.5, 0, 1]);
  });

  test('applyCalendar: closed weeks become missing, their demand moves to the next open week (or the last one before)', () => {
    const r = applyCalendar({ start: '2026-01-05', y: Float64Array.from([3, 2, 0, 4, 7]) }, Float64Array.from([1, 0, 0.5, 1, 0]));
    expect(Array.from(r.series.y)).toEqual([3, NaN, 2, 11, NaN]);
    expect(Array.from(r.series.factor!)).toEqual([1, 0, 0.5, 1, 0]);
    expect([r.closed, r.moved, r.dropped]).toEqual([2, 9, 0]);
    expect(weeklyStats(r.series)).toEqual({
      n_observations: 3, date_range_start: '2026-01-05', date_range_end: '2026-02-02', mean: 16 / 3, zero_ratio: 0, total_demand: 16, closed_weeks: 2,
    });
    const allClosed = applyCalendar({ start: '2026-01-05', y: Float64Array.from([1, 2]) }, Float64Array.from([0, 0]));
    expect([allClosed.closed, allClosed.moved, allClosed.dropped]).toEqual([2, 0, 3]);
    expect(weeklyStats(allClosed.series)).toMatchObject({ n_observations: 0, mean: null, zero_ratio: null, total_demand: 0, closed_weeks: 2 });
  });
});

describe('the etl step honours site calendars (real worker)', () => {
  let tw: TestWorker;
  let t: TestApp;
  let a: TestTenant;
  let planner: string;
  let pipelineId: number;
  let plant: number;
  beforeAll(async () => {
    tw = await startTestWorker();
    t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
    a = await t.newTenant('etl-cal');
    planner = await t.login(a.planner);
    pipelineId = await createPipeline(t, planner, 'Calendars');
    await withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('A', 'Item A'), ('B', 'Item B')`);
      await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Plant site'), ('S2', 'Other site')`);
      await tx.query(sql.unsafe`
        INSERT INTO demand_history (item_id, site_id, ds, qty)
        SELECT i.id, s.id, d.ds::date, d.qty FROM (VALUES
          ('A', 'S1', '2026-01-05', 4), ('A', 'S1', '2026-01-19', 2), ('A', 'S1', '2026-01-26', 6),
          ('B', 'S1', '2026-01-13', 3), ('B', 'S1', '2026-01-26', 1),
          ('A', 'S2', '2026-01-05', 1), ('A', 'S2', '2026-01-28', 5)
        ) d(item, site, ds, qty) JOIN items i ON i.xuid = d.item JOIN sites s ON s.xuid = d.site`);
    });
    const siteId = (xuid: string) => withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT id FROM sites WHERE xuid = ${xuid}`)) as Promise<number>;
    // S1 follows its own calendar: the week of 12 January closed, the week of 19 January at half capacity
    const own = await t.call('post', '/api/calendars', {
      token: planner,
      body: { name: 'Plant', site_ids: [await siteId('S1')], entries: [{ ds: '2026-01-12', factor: 0, description: 'Stocktake' }, { ds: '2026-01-19', factor: 0.5 }] },
    });
    expect(own.status).toBe(201);
    plant = own.body.id;
    // every other site follows the default calendar; its entry is dated on a Wednesday, as an import may store it
    const company = await t.call('post', '/api/calendars', { token: planner, body: { name: 'Company', is_default: true } });
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`INSERT INTO calendar_entries (calendar_id, ds, factor, description) VALUES (${company.body.id}, '2026-01-28', 0, 'Closed')`));
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
  const weekly = () =>
    withTenant(t.db, a.accountId, (tx) =>
      tx.any(sql.unsafe`
        SELECT i.xuid || '@' || s.xuid AS series, w.week, w.y, w.closed, w.factor::float8 AS factor
        FROM series_weekly w JOIN items i ON i.id = w.item_id JOIN sites s ON s.id = w.site_id ORDER BY 1, w.week`),
    );
  const stats = () =>
    withTenant(t.db, a.accountId, (tx) =>
      tx.any(sql.unsafe`
        SELECT i.xuid || '@' || s.xuid AS series, x.n_observations, x.mean, x.zero_ratio, x.total_demand, x.closed_weeks
        FROM series x JOIN items i ON i.id = x.item_id JOIN sites s ON s.id = x.site_id ORDER BY 1`),
    );

  test('a closed week is stored as missing, not as a zero-demand week, and left out of the statistics', async () => {
    const job = await runEtl();
    expect(job.result).toEqual({ step: 'etl', series: 3, rows: 11, chunks: 1 });
    expect(job.log.map((l) => l.message)).toEqual(
      expect.arrayContaining(['etl: chunk 1/1: 3 series, 11 weekly rows; 3 closed weeks stored as missing, 8 units booked in them moved to open weeks']),
    );
    expect(await weekly()).toEqual([
      // own calendar: the closed week is missing (not 0), the half week keeps its demand and factor; the default's
      // closed week of 26 January does not apply to S1
      { series: 'A@S1', week: '2026-01-05', y: 4, closed: false, factor: 1 },
      { series: 'A@S1', week: '2026-01-12', y: null, closed: true, factor: 0 },
      { series: 'A@S1', week: '2026-01-19', y: 2, closed: false, factor: 0.5 },
      { series: 'A@S1', week: '2026-01-26', y: 6, closed: false, factor: 1 },
      // demand booked in the closed week moves to the next open week
      { series: 'A@S2', week: '2026-01-05', y: 1, closed: false, factor: 1 },
      { series: 'A@S2', week: '2026-01-12', y: 0, closed: false, factor: 1 },
      // default calendar: the closed last week's demand moves to the last open week before it
      { series: 'A@S2', week: '2026-01-19', y: 5, closed: false, factor: 1 },
      { series: 'A@S2', week: '2026-01-26', y: null, closed: true, factor: 0 },
      { series: 'B@S1', week: '2026-01-12', y: null, closed: true, factor: 0 },
      { series: 'B@S1', week: '2026-01-19', y: 3, closed: false, factor: 0.5 },
      { series: 'B@S1', week: '2026-01-26', y: 1, closed: false, factor: 1 },
    ]);
    expect(await stats()).toEqual([
      { series: 'A@S1', n_observations: 3, mean: 4, zero_ratio: 0, total_demand: 12, closed_weeks: 1 },
      { series: 'A@S2', n_observations: 3, mean: 2, zero_ratio: expect.closeTo(1 / 3, 12), total_demand: 6, closed_weeks: 1 },
      { series: 'B@S1', n_observations: 2, mean: 2, zero_ratio: 0, total_demand: 4, closed_weeks: 1 },
    ]);
  });

  test('calendars apply at each run: without entries the same week is an ordinary zero week again', async () => {
    expect((await t.call('put', `/api/calendars/${plant}/entries`, { token: planner, body: { entries: [] } })).status).toBe(200);
    await runEtl();
    const rows = (await weekly()).filter((r: any) => r.series === 'A@S1');
    expect(rows.map((r: any) => [r.y, r.closed, r.factor])).toEqual([[4, false, 1], [0, false, 1], [2, false, 1], [6, false, 1]]);
    expect((await stats())[0]).toEqual({ series: 'A@S1', n_observations: 4, mean: 3, zero_ratio: 0.25, total_demand: 12, closed_weeks: 0 });
  });
});
