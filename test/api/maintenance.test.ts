/**
 * Maintenance demand over HTTP on real PostgreSQL (spec §4.10; docs/MAINTENANCE.md): events with a recurrence and a
 * BOM, a scenario that defers one event and moves an occurrence of another, and every read against hand-computed
 * numbers; the edits with every refusal naming its field and writing nothing; 404s; maintenance demand in
 * GET/POST /api/analytics/aggregate-demand (`forecast_maint`) and in GET /api/series/type-counts.
 *
 * The plan, horizon 6 weeks from Monday 2026-03-02 (weeks k = 0 … 5: 03-02, 03-09, 03-16, 03-23, 03-30, 04-06):
 *   E1 "A-check fleet": every 2 weeks from 2026-03-02 → 03-02, 03-16, 03-30 (k 0, 2, 4); BOM I1@DC1 × 2, I3@HGR × 1
 *   E2 "Line shutdown": once on Wednesday 2026-03-11 (k 1);                              BOM I1@DC1 × 3, I2@DC1 × 4
 *   as defined:  I1@DC1 = [2, 3, 2, 0, 2, 0] (9), I2@DC1 = [0, 4, 0, 0, 0, 0] (4), I3@HGR = [1, 0, 1, 0, 1, 0] (3)
 *                weekly Σ = [3, 7, 3, 0, 3, 0], total 16 = 9 + 4 + 3
 *   scenario "Deferred 4 weeks": E1 shifted 4 weeks → 03-30 only (04-13 is outside); E2 moved 03-11 → 03-25 (k 3)
 *                I1@DC1 = [0, 0, 0, 3, 2, 0] (5), I2@DC1 = [0, 0, 0, 4, 0, 0] (4), I3@HGR = [0, 0, 0, 0, 1, 0] (1); total 10
 */
import { resolvePlanningDate } from '../../db/planningDate';
import { sql, withTenant } from '../../db/pool';
import { ADMIN_REQUIRED } from '../../api/errors';
import { seedForecastReads, type Seeded } from '../support/forecastReadsSeed';
import { seedDemoMaintenance } from '../../scripts/demoData/maintenance';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

const M = '/api/maintenance';
const H = { start_week: '2026-03-02', horizon_weeks: 6 };

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let d: Seeded;
let ids: { I1: number; I2: number; I3: number; DC1: number; HGR: number };
let e1: number;
let e2: number;
let deferred: number;

/** Every maintenance row of the tenant, to show a refused write changed nothing. */
const snapshot = () => withTenant(t.db, a.accountId, async (tx) => ({
  events: await tx.any(sql.unsafe`SELECT id, name, start_date, interval_weeks, end_date, dates, updated_at FROM maintenance_events ORDER BY id`),
  bom: await tx.any(sql.unsafe`SELECT * FROM maintenance_event_bom ORDER BY event_id, item_id, site_id`),
  scenarios: await tx.any(sql.unsafe`SELECT id, name, updated_at FROM maintenance_scenarios ORDER BY id`),
  schedules: await tx.any(sql.unsafe`SELECT * FROM maintenance_schedules ORDER BY scenario_id, event_id`),
  overrides: await tx.any(sql.unsafe`SELECT * FROM maintenance_date_overrides ORDER BY scenario_id, event_id, date`),
}));

const week = (values: number[]) => values;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('maintenance');
  d = await seedForecastReads(t.db, a.accountId);
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  ids = await withTenant(t.db, a.accountId, async (tx) => {
    const HGR = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('HGR', 'Hangar') RETURNING id`)) as number;
    const id = async (x: string) => (await tx.oneFirst(sql.unsafe`SELECT id FROM items WHERE xuid = ${x}`)) as number;
    return { I1: await id('I1'), I2: await id('I2'), I3: await id('I3'), DC1: d.keys.A.site_id, HGR };
  });
});
afterAll(() => t.close());

describe('events, BOMs, scenarios: the writes', () => {
  test('create events with their recurrence and BOM; list them', async () => {
    const r1 = await t.call('post', `${M}/events`, {
      token: admin,
      body: { name: 'A-check fleet', event_type: 'A-check', asset: 'A320 fleet', start_date: '2026-03-02', interval_weeks: 2, bom: [{ item_id: ids.I1, site_id: ids.DC1, qty_per_occurrence: 2 }] },
    });
    expect(r1.status).toBe(201);
    expect(r1.body).toMatchObject({
      name: 'A-check fleet', description: null, event_type: 'A-check', asset: 'A320 fleet', start_date: '2026-03-02', interval_weeks: 2, end_date: null, dates: [],
      bom: [{ item_id: ids.I1, item_xuid: 'I1', item_name: 'Cola', site_id: ids.DC1, site_xuid: 'DC1', site_name: 'Central DC', unique_id: d.A, qty_per_occurrence: 2 }],
    });
    e1 = r1.body.id;
    const r2 = await t.call('post', `${M}/events`, { token: admin, body: { name: 'Line shutdown', dates: ['2026-03-11'] } });
    expect(r2.status).toBe(201);
    e2 = r2.body.id;
    const list = await t.call('get', `${M}/events`, { token: planner });
    expect(list.status).toBe(200);
    expect(list.body.map((e: { id: number; bom: unknown[] }) => [e.id, e.bom.length])).toEqual([[e1, 1], [e2, 0]]);
  });

  test('PUT bom replaces the whole BOM', async () => {
    const r = await t.call('put', `${M}/events/${e1}/bom`, {
      token: admin, body: { lines: [{ item_id: ids.I3, site_id: ids.HGR, qty_per_occurrence: 1 }, { item_id: ids.I1, site_id: ids.DC1, qty_per_occurrence: 2 }] },
    });
    expect(r.status).toBe(200);
    expect(r.body.bom.map((l: any) => [l.item_xuid, l.site_xuid, l.qty_per_occurrence])).toEqual([['I1', 'DC1', 2], ['I3', 'HGR', 1]]);
    const r2 = await t.call('put', `${M}/events/${e2}/bom`, {
      token: admin, body: { lines: [{ item_id: ids.I1, site_id: ids.DC1, qty_per_occurrence: 3 }, { item_id: ids.I2, site_id: ids.DC1, qty_per_occurrence: 4 }] },
    });
    expect(r2.status).toBe(200);
    const audit = await t.call('get', '/api/audit-log', { token: admin, query: { entity_type: 'maintenance_event', action: 'update_bom' } });
    expect(audit.body.total).toBe(2);
  });

  test('a scenario "Deferred 4 weeks": E1 shifted by 4 weeks, E2 moved from 03-11 to 03-25', async () => {
    const sc = await t.call('post', `${M}/scenarios`, { token: admin, body: { name: 'Deferred 4 weeks' } });
    expect(sc.status).toBe(201);
    deferred = sc.body.id;
    const put = await t.call('put', `${M}/scenario/${deferred}/schedule`, { token: admin, body: { entries: [{ event_id: e1, shift_weeks: 4 }] } });
    expect(put.status).toBe(200);
    expect(put.body.entries).toEqual([
      { event_id: e1, name: 'A-check fleet', has_entry: true, active: true, shift_weeks: 4, interval_weeks: null, start_date: null, end_date: null,
        effective: { start_date: '2026-03-02', interval_weeks: 2, end_date: null, dates: [] }, date_overrides: [] },
      { event_id: e2, name: 'Line shutdown', has_entry: false, active: true, shift_weeks: 0, interval_weeks: null, start_date: null, end_date: null,
        effective: { start_date: null, interval_weeks: null, end_date: null, dates: ['2026-03-11'] }, date_overrides: [] },
    ]);
    const dates = await t.call('put', `${M}/events/${e2}/scenario/${deferred}/dates`, { token: admin, body: { overrides: [{ date: '2026-03-11', new_date: '2026-03-25' }] } });
    expect(dates.status).toBe(200);
    expect(dates.body).toEqual({ event_id: e2, scenario_id: deferred, overrides: [{ date: '2026-03-11', new_date: '2026-03-25' }] });
    const get = await t.call('get', `${M}/scenario/${deferred}/schedule`, { token: planner });
    expect(get.body.entries[1].date_overrides).toEqual([{ date: '2026-03-11', new_date: '2026-03-25' }]);
    const list = await t.call('get', `${M}/scenarios`, { token: planner });
    expect(list.body).toEqual([expect.objectContaining({ id: deferred, name: 'Deferred 4 weeks', description: null, scheduled_events: 1, date_overrides: 1 })]);
  });

  test('writes need an admin role: 403, nothing written', async () => {
    const before = await snapshot();
    for (const [method, path, body] of [
      ['post', `${M}/events`, { name: 'x', dates: ['2026-03-02'] }],
      ['put', `${M}/events/${e1}/bom`, { lines: [] }],
      ['put', `${M}/scenario/${deferred}/schedule`, { entries: [] }],
      ['put', `${M}/events/${e2}/scenario/${deferred}/dates`, { overrides: [] }],
      ['post', `${M}/scenarios`, { name: 'y' }],
    ] as const) {
      const res = await t.call(method, path, { token: planner, body });
      expect([path, res.status, res.body.detail]).toEqual([path, 403, ADMIN_REQUIRED]);
    }
    expect(await snapshot()).toEqual(before);
  });

  test.each([
    ['POST events: a recurrence without a start', 'post', () => `${M}/events`, () => ({ name: 'n', interval_weeks: 4 }), 'body.start_date: a recurring event (interval_weeks set) needs a start_date'],
    ['POST events: neither recurrence nor dates', 'post', () => `${M}/events`, () => ({ name: 'n' }), 'body.dates: an event without interval_weeks needs at least one date'],
    ['POST events: end before start', 'post', () => `${M}/events`, () => ({ name: 'n', start_date: '2026-03-02', interval_weeks: 1, end_date: '2026-03-01' }), 'body.end_date: end_date 2026-03-01 is before start_date 2026-03-02'],
    ['POST events: interval 0', 'post', () => `${M}/events`, () => ({ name: 'n', start_date: '2026-03-02', interval_weeks: 0 }), 'body.interval_weeks must be >= 1'],
    ['POST events: year 0', 'post', () => `${M}/events`, () => ({ name: 'n', dates: ['0000-03-06'] }), 'body.dates[0] must match format "date"'],
    ['POST events: a BOM line of an unknown site', 'post', () => `${M}/events`, () => ({ name: 'n', dates: ['2026-03-02'], bom: [{ item_id: ids.I1, site_id: 999999, qty_per_occurrence: 1 }] }), 'body.bom[0].site_id: site 999999 does not exist'],
    ['PUT bom: an unknown item', 'put', () => `${M}/events/${e1}/bom`, () => ({ lines: [{ item_id: 999999, site_id: ids.DC1, qty_per_occurrence: 1 }] }), 'body.lines[0].item_id: item 999999 does not exist'],
    ['PUT bom: qty 0', 'put', () => `${M}/events/${e1}/bom`, () => ({ lines: [{ item_id: ids.I1, site_id: ids.DC1, qty_per_occurrence: 0 }] }), 'body.lines[0].qty_per_occurrence must be > 0'],
    ['PUT bom: a line twice', 'put', () => `${M}/events/${e1}/bom`, () => ({ lines: [{ item_id: ids.I1, site_id: ids.DC1, qty_per_occurrence: 1 }, { item_id: ids.I1, site_id: ids.DC1, qty_per_occurrence: 2 }] }), () => `body.lines[1]: item ${ids.I1} at site ${ids.DC1} is already line 0; one line per item and site`],
    ['PUT bom: no lines', 'put', () => `${M}/events/${e1}/bom`, () => ({}), 'body.lines is required'],
    ['PUT schedule: an unknown event', 'put', () => `${M}/scenario/${deferred}/schedule`, () => ({ entries: [{ event_id: 999999 }] }), 'body.entries[0].event_id: maintenance event 999999 does not exist'],
    ['PUT schedule: an event twice', 'put', () => `${M}/scenario/${deferred}/schedule`, () => ({ entries: [{ event_id: e1 }, { event_id: e1, active: false }] }), () => `body.entries[1].event_id: event ${e1} is listed twice`],
    ['PUT schedule: an interval for an event without start', 'put', () => `${M}/scenario/${deferred}/schedule`, () => ({ entries: [{ event_id: e2, interval_weeks: 2 }] }), 'body.entries[0].start_date: a recurring event (interval_weeks set) needs a start_date'],
    ['PUT schedule: a text shift', 'put', () => `${M}/scenario/${deferred}/schedule`, () => ({ entries: [{ event_id: e1, shift_weeks: 'four' }] }), 'body.entries[0].shift_weeks must be integer'],
    ['PUT dates: a date that is not scheduled', 'put', () => `${M}/events/${e1}/scenario/${deferred}/dates`, () => ({ overrides: [{ date: '2026-03-02', new_date: null }] }), () => `body.overrides[0].date: 2026-03-02 is not a scheduled occurrence of maintenance event ${e1} ('A-check fleet') in scenario ${deferred}`],
    ['PUT dates: a date twice', 'put', () => `${M}/events/${e1}/scenario/${deferred}/dates`, () => ({ overrides: [{ date: '2026-03-30', new_date: null }, { date: '2026-03-30', new_date: '2026-04-01' }] }), 'body.overrides[1].date: 2026-03-30 is listed twice'],
    ['PUT dates: new_date missing', 'put', () => `${M}/events/${e1}/scenario/${deferred}/dates`, () => ({ overrides: [{ date: '2026-03-30' }] }), 'body.overrides[0].new_date is required'],
  ])('%s → 400 naming the field, nothing written', async (_what, method, path, body, detail) => {
    const before = await snapshot();
    const res = await t.call(method, path(), { token: admin, body: body() });
    expect([res.status, res.body.detail]).toEqual([400, typeof detail === 'function' ? detail() : detail]);
    expect(await snapshot()).toEqual(before);
  });

  test('a name taken is a 409; unknown events and scenarios are 404s, nothing written', async () => {
    const before = await snapshot();
    const dup = await t.call('post', `${M}/events`, { token: admin, body: { name: 'Line shutdown', dates: ['2026-05-04'] } });
    expect([dup.status, dup.body.detail]).toEqual([409, `maintenance event ${e2} is already named 'Line shutdown'; choose another name`]);
    const dupScenario = await t.call('post', `${M}/scenarios`, { token: admin, body: { name: 'Deferred 4 weeks' } });
    expect([dupScenario.status, dupScenario.body.detail]).toEqual([409, `maintenance scenario ${deferred} is already named 'Deferred 4 weeks'; choose another name`]);
    for (const [method, path, body, detail] of [
      ['put', `${M}/events/999999/bom`, { lines: [] }, 'Maintenance event 999999 not found'],
      ['put', `${M}/events/999999/scenario/${deferred}/dates`, { overrides: [] }, 'Maintenance event 999999 not found'],
      ['put', `${M}/events/${e1}/scenario/999999/dates`, { overrides: [] }, 'Maintenance scenario 999999 not found'],
      ['put', `${M}/scenario/999999/schedule`, { entries: [] }, 'Maintenance scenario 999999 not found'],
      ['get', `${M}/scenario/999999/schedule`, undefined, 'Maintenance scenario 999999 not found'],
      ['get', `${M}/scenario/999999/item-breakdown`, undefined, 'Maintenance scenario 999999 not found'],
      ['get', `${M}/events/999999/occurrences`, undefined, 'Maintenance event 999999 not found'],
      ['delete', `${M}/events/999999`, undefined, 'Maintenance event 999999 not found'],
      ['delete', `${M}/scenarios/999999`, undefined, 'Maintenance scenario 999999 not found'],
    ] as const) {
      const res = await t.call(method, path, { token: admin, body });
      expect([path, res.status, res.body.detail]).toEqual([path, 404, detail]);
    }
    for (const path of ['events-weekly', 'demand/summary', 'demand/series', 'events-summary', `events/${e1}/occurrences`]) {
      const res = await t.call('get', `${M}/${path}`, { token: planner, query: { scenario_id: 999999 } });
      expect([path, res.status, res.body.detail]).toEqual([path, 404, 'scenario_id: maintenance scenario 999999 not found']);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe('the reads, hand-computed', () => {
  test('occurrences of E1 as defined and deferred; E2 moved in the scenario', async () => {
    const asDefined = await t.call('get', `${M}/events/${e1}/occurrences`, { token: planner, query: H });
    expect(asDefined.status).toBe(200);
    expect(asDefined.body).toEqual({
      event_id: e1, name: 'A-check fleet', scenario_id: null, start_week: '2026-03-02', horizon_weeks: 6,
      occurrences: ['2026-03-02', '2026-03-16', '2026-03-30'].map((x) => ({ date: x, week: x, scheduled_date: x, status: 'scheduled' })),
    });
    const shifted = await t.call('get', `${M}/events/${e1}/occurrences`, { token: planner, query: { ...H, scenario_id: deferred } });
    expect(shifted.body.occurrences).toEqual([{ date: '2026-03-30', week: '2026-03-30', scheduled_date: '2026-03-30', status: 'scheduled' }]);
    const moved = await t.call('get', `${M}/events/${e2}/occurrences`, { token: planner, query: { ...H, scenario_id: deferred } });
    expect(moved.body.occurrences).toEqual([{ date: '2026-03-25', week: '2026-03-23', scheduled_date: '2026-03-11', status: 'moved' }]);
    // a midweek start_week means its Monday
    const midweek = await t.call('get', `${M}/events/${e2}/occurrences`, { token: planner, query: { start_week: '2026-03-04', horizon_weeks: 2 } });
    expect([midweek.body.start_week, midweek.body.occurrences.length]).toEqual(['2026-03-02', 1]);
  });

  test('demand/series: BOM × occurrences per series; demand/summary: Σ of the series', async () => {
    const series = await t.call('get', `${M}/demand/series`, { token: planner, query: H });
    expect(series.status).toBe(200);
    expect(series.body.weeks).toEqual(['2026-03-02', '2026-03-09', '2026-03-16', '2026-03-23', '2026-03-30', '2026-04-06']);
    expect(series.body.series.map((x: any) => [x.unique_id, x.item_xuid, x.site_xuid, x.values, x.total])).toEqual([
      [d.A, 'I1', 'DC1', week([2, 3, 2, 0, 2, 0]), 9],
      [d.B, 'I2', 'DC1', week([0, 4, 0, 0, 0, 0]), 4],
      [`${ids.I3}_${ids.HGR}`, 'I3', 'HGR', week([1, 0, 1, 0, 1, 0]), 3],
    ]);
    const summary = await t.call('get', `${M}/demand/summary`, { token: planner, query: H });
    expect(summary.body).toEqual({
      scenario_id: null, start_week: '2026-03-02', horizon_weeks: 6, total_qty: 16, series_count: 3, item_count: 3, site_count: 2, event_count: 2, occurrence_count: 4,
      weekly: [3, 7, 3, 0, 3, 0].map((value, k) => ({ date: series.body.weeks[k], value })),
    });
    expect(summary.body.total_qty).toBe(series.body.series.reduce((s: number, x: any) => s + x.total, 0));
    const onlyHangar = await t.call('get', `${M}/demand/series`, { token: planner, query: { ...H, site_id: ids.HGR } });
    expect(onlyHangar.body.series.map((x: any) => x.unique_id)).toEqual([`${ids.I3}_${ids.HGR}`]);
  });

  test('the scenario: deferred and moved', async () => {
    const series = await t.call('get', `${M}/demand/series`, { token: planner, query: { ...H, scenario_id: deferred } });
    expect(series.body.series.map((x: any) => [x.item_xuid, x.values, x.total])).toEqual([
      ['I1', week([0, 0, 0, 3, 2, 0]), 5], ['I2', week([0, 0, 0, 4, 0, 0]), 4], ['I3', week([0, 0, 0, 0, 1, 0]), 1],
    ]);
    const summary = await t.call('get', `${M}/demand/summary`, { token: planner, query: { ...H, scenario_id: deferred } });
    expect([summary.body.scenario_id, summary.body.total_qty, summary.body.weekly.map((w: any) => w.value)]).toEqual([deferred, 10, [0, 0, 0, 7, 3, 0]]);
    const breakdown = await t.call('get', `${M}/scenario/${deferred}/item-breakdown`, { token: planner, query: H });
    expect(breakdown.status).toBe(200);
    expect(breakdown.body).toMatchObject({ scenario_id: deferred, scenario_name: 'Deferred 4 weeks', total_qty: 10 });
    expect(breakdown.body.items).toEqual([
      { item_id: ids.I1, item_xuid: 'I1', item_name: 'Cola', total: 5, sites: [{ site_id: ids.DC1, site_xuid: 'DC1', site_name: 'Central DC', qty: 5 }],
        events: [{ event_id: e1, name: 'A-check fleet', occurrences: 1, qty: 2 }, { event_id: e2, name: 'Line shutdown', occurrences: 1, qty: 3 }] },
      { item_id: ids.I2, item_xuid: 'I2', item_name: 'Bread', total: 4, sites: [{ site_id: ids.DC1, site_xuid: 'DC1', site_name: 'Central DC', qty: 4 }],
        events: [{ event_id: e2, name: 'Line shutdown', occurrences: 1, qty: 4 }] },
      { item_id: ids.I3, item_xuid: 'I3', item_name: 'Chips', total: 1, sites: [{ site_id: ids.HGR, site_xuid: 'HGR', site_name: 'Hangar', qty: 1 }],
        events: [{ event_id: e1, name: 'A-check fleet', occurrences: 1, qty: 1 }] },
    ]);
  });

  test('items-for-week: the parts of the week of Wednesday 2026-03-11', async () => {
    const res = await t.call('get', `${M}/items-for-week`, { token: planner, query: { week: '2026-03-11' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      week: '2026-03-09', scenario_id: null, total_qty: 7,
      items: [
        { unique_id: d.A, item_id: ids.I1, item_xuid: 'I1', item_name: 'Cola', site_id: ids.DC1, site_xuid: 'DC1', site_name: 'Central DC', qty: 3, events: [{ event_id: e2, name: 'Line shutdown', date: '2026-03-11', qty: 3 }] },
        { unique_id: d.B, item_id: ids.I2, item_xuid: 'I2', item_name: 'Bread', site_id: ids.DC1, site_xuid: 'DC1', site_name: 'Central DC', qty: 4, events: [{ event_id: e2, name: 'Line shutdown', date: '2026-03-11', qty: 4 }] },
      ],
    });
    const moved = await t.call('get', `${M}/items-for-week`, { token: planner, query: { week: '2026-03-11', scenario_id: deferred } });
    expect(moved.body).toMatchObject({ items: [], total_qty: 0 });
    const missing = await t.call('get', `${M}/items-for-week`, { token: planner });
    expect([missing.status, missing.body.detail]).toEqual([400, 'query.week is required']);
  });

  test('events-weekly and events-summary', async () => {
    const weekly = await t.call('get', `${M}/events-weekly`, { token: planner, query: H });
    expect(weekly.status).toBe(200);
    expect(weekly.body.weeks.map((w: any) => [w.week, w.occurrence_count, w.event_count])).toEqual([
      ['2026-03-02', 1, 1], ['2026-03-09', 1, 1], ['2026-03-16', 1, 1], ['2026-03-23', 0, 0], ['2026-03-30', 1, 1], ['2026-04-06', 0, 0],
    ]);
    expect(weekly.body.weeks[1].events).toEqual([{ event_id: e2, name: 'Line shutdown', date: '2026-03-11' }]);
    const summary = await t.call('get', `${M}/events-summary`, { token: planner, query: { ...H, scenario_id: deferred } });
    expect(summary.body.events).toEqual([
      { event_id: e1, name: 'A-check fleet', event_type: 'A-check', asset: 'A320 fleet', active: true, shift_weeks: 4, occurrence_count: 1, moved_count: 0, cancelled_count: 0,
        first_date: '2026-03-30', last_date: '2026-03-30', bom_lines: 2, total_qty: 3 },
      { event_id: e2, name: 'Line shutdown', event_type: null, asset: null, active: true, shift_weeks: 0, occurrence_count: 1, moved_count: 1, cancelled_count: 0,
        first_date: '2026-03-25', last_date: '2026-03-25', bom_lines: 2, total_qty: 7 },
    ]);
    expect([summary.body.total_occurrences, summary.body.total_qty]).toEqual([2, 10]);
    const asDefined = await t.call('get', `${M}/events-summary`, { token: planner, query: H });
    expect([asDefined.body.total_occurrences, asDefined.body.total_qty]).toEqual([4, 16]);
  });

  test('horizon bounds are 400s naming the field', async () => {
    for (const [query, detail] of [
      [{ horizon_weeks: 0 }, 'query.horizon_weeks must be >= 1'],
      [{ horizon_weeks: 521 }, 'query.horizon_weeks must be <= 520'],
      [{ start_week: '2026-02-30' }, 'query.start_week must match format "date"'],
      [{ scenario_id: 0 }, 'query.scenario_id must be >= 1'],
    ] as const) {
      const res = await t.call('get', `${M}/demand/summary`, { token: planner, query });
      expect([res.status, res.body.detail]).toEqual([400, detail]);
    }
  });
});

describe('maintenance demand joins the portfolio views', () => {
  test('aggregate-demand: forecast_maint over the forecast weeks, for the series in scope that are in a BOM', async () => {
    // forecast weeks 03-02, 03-09, 03-16; I3@HGR is in a BOM but is no series, so it is not in the portfolio
    const res = await t.call('get', '/api/analytics/aggregate-demand', { token: planner });
    expect(res.status).toBe(200);
    expect(res.body.forecast_maint).toEqual([{ date: '2026-03-02', value: 2 }, { date: '2026-03-09', value: 7 }, { date: '2026-03-16', value: 2 }]);
    const inScenario = await t.call('get', '/api/analytics/aggregate-demand', { token: planner, query: { maintenance_scenario_id: deferred } });
    expect(inScenario.body.forecast_maint).toEqual([{ date: '2026-03-02', value: 0 }, { date: '2026-03-09', value: 0 }, { date: '2026-03-16', value: 0 }]);
    const unknown = await t.call('get', '/api/analytics/aggregate-demand', { token: planner, query: { maintenance_scenario_id: 999999 } });
    expect([unknown.status, unknown.body.detail]).toEqual([404, 'maintenance_scenario_id: maintenance scenario 999999 not found']);
    const onlyB = await t.call('post', '/api/analytics/aggregate-demand', { token: planner, body: { unique_ids: [d.B] } });
    expect(onlyB.body.forecast_maint).toEqual([{ date: '2026-03-02', value: 0 }, { date: '2026-03-09', value: 4 }, { date: '2026-03-16', value: 0 }]);
    const onlyC = await t.call('post', '/api/analytics/aggregate-demand', { token: planner, body: { unique_ids: [d.C] } });
    expect(onlyC.body.forecast_maint).toEqual([]);
  });

  test('type-counts: maintenance counts the series in a BOM', async () => {
    const res = await t.call('get', '/api/series/type-counts', { token: planner });
    expect(res.status).toBe(200);
    expect(res.body.maintenance).toBe(2);
  });
});

describe('deletes (extras)', () => {
  test('deleting a scenario keeps the events; deleting an event takes its BOM and scenario rows', async () => {
    const other = (await t.call('post', `${M}/scenarios`, { token: admin, body: { name: 'Throwaway', description: 'to delete' } })).body.id;
    await t.call('put', `${M}/scenario/${other}/schedule`, { token: admin, body: { entries: [{ event_id: e2, active: false }] } });
    const off = await t.call('get', `${M}/demand/summary`, { token: planner, query: { ...H, scenario_id: other } });
    expect(off.body.total_qty).toBe(9); // E2 switched off: only E1, 3 × (2 + 1)
    expect((await t.call('delete', `${M}/scenarios/${other}`, { token: admin })).body).toEqual({ status: 'deleted', id: other });
    const ev = (await t.call('post', `${M}/events`, { token: admin, body: { name: 'C-check', dates: ['2026-03-02'], bom: [{ item_id: ids.I2, site_id: ids.DC1, qty_per_occurrence: 1 }] } })).body.id;
    expect((await t.call('get', `${M}/demand/summary`, { token: planner, query: H })).body.total_qty).toBe(17);
    const upd = await t.call('put', `${M}/events/${ev}`, { token: admin, body: { dates: ['2026-03-09', '2026-03-16'] } });
    expect([upd.status, upd.body.dates]).toEqual([200, ['2026-03-09', '2026-03-16']]);
    expect((await t.call('get', `${M}/demand/summary`, { token: planner, query: H })).body.total_qty).toBe(18);
    expect((await t.call('delete', `${M}/events/${ev}`, { token: admin })).status).toBe(200);
    expect((await t.call('get', `${M}/demand/summary`, { token: planner, query: H })).body.total_qty).toBe(16);
    const rows = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM maintenance_event_bom WHERE event_id = ${ev}`));
    expect(rows).toBe(0);
  });
});

describe('demo data', () => {
  test('seedDemoMaintenance: three events and two scenarios over the first series, once, from the pipeline\'s planning date', async () => {
    const b = await t.newTenant('maintenance-demo');
    await seedForecastReads(t.db, b.accountId);
    const token = await t.login(b.planner);
    const pipelineId = (await withTenant(t.db, b.accountId, (tx) => tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('Demo') RETURNING id`))) as number;
    expect(await withTenant(t.db, b.accountId, (tx) => seedDemoMaintenance(tx, pipelineId))).toEqual({ events: 3, scenarios: 2 });
    expect(await withTenant(t.db, b.accountId, (tx) => seedDemoMaintenance(tx, pipelineId))).toEqual({ events: 0, scenarios: 0 });
    // the events start from the week the pipeline's supply plan starts (here the Monday after the last week of history),
    // not from the calendar, so they fall inside that plan's 52 weeks
    const planned = await withTenant(t.db, b.accountId, (tx) => resolvePlanningDate(tx, pipelineId, null));
    expect(planned.source).toBe('history');
    const cCheck = (await t.call('get', `${M}/events`, { token })).body.find((e: any) => e.event_type === 'C-check');
    const weekOf = (d: string) => Math.round((Date.parse(d) - Date.parse(planned.date)) / (7 * 86_400_000));
    expect(weekOf(cCheck.start_date)).toBe(6);
    // over those 52 weeks; series A, B, C (I1, I2, I3): A-check weeks 1, 9, …, 49 (7) × (A 4 + B 2) = 42; C-check
    // weeks 6, 32 (2) × (A 10 + C 6) = 32; shutdown week 10 × (B 20 + C 8) = 28
    const plan = { start_week: planned.date };
    const asDefined = await t.call('get', `${M}/demand/summary`, { token, query: plan });
    expect([asDefined.body.occurrence_count, asDefined.body.total_qty]).toEqual([10, 102]);
    // "Deferred 4 weeks": A-check weeks 5, …, 45 (6) → 36; the shutdown one week later, still inside
    const scenarios = await t.call('get', `${M}/scenarios`, { token });
    expect(scenarios.body.map((x: { name: string }) => x.name)).toEqual(['Baseline', 'Deferred 4 weeks']);
    const deferredDemo = await t.call('get', `${M}/demand/summary`, { token, query: { ...plan, scenario_id: scenarios.body[1].id } });
    expect([deferredDemo.body.occurrence_count, deferredDemo.body.total_qty]).toEqual([9, 96]);
  });
});
