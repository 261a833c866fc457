import { sql, withTenant } from '../../db/pool';
import { seedExceptions, type ExceptionSeed } from '../support/exceptionSeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/**
 * GET /api/exceptions, GET /api/exceptions/{unique_id} and the per-series snoozes (spec §4.11; docs/EXCEPTIONS.md
 * "Computed exceptions") over HTTP on real PostgreSQL. The facts are the exception-log test's (test/support/exceptionSeed.ts):
 * P@S1 trips high_mase (medium) and misses its io target by 15 points (high); P@S2 trips bias (medium) and has no
 * distribution (high); Q@S1 is quiet on every rule; R@S2 has a forecast without a best method (high). Supply issues come
 * from supply runs written here: the default scenario's newest completed run has a shortage (high) at P@S1 and an excess
 * (low) at Q@S1, the other scenario's a no_source (medium) at P@S2.
 */

let t: TestApp;
let a: TestTenant;
let planner: string;
let seed: ExceptionSeed;
let itemR: number;
let altScenario: number;
let defaultScenario: number;
let uid: Record<'P_S1' | 'P_S2' | 'Q_S1' | 'R_S2', string>;

const q = <T>(fn: (tx: any) => Promise<T>) => withTenant(t.db, a.accountId, fn);

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('exceptions');
  planner = await t.login(a.planner);
  seed = await seedExceptions(t.db, a.accountId);
  itemR = seed.itemR;
  const { pipelineId: p, items, sites } = seed;
  await q(async (tx) => {
    // supply runs: only the newest completed run of the chosen scenario counts
    defaultScenario = (await tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as number;
    altScenario = (await tx.oneFirst(sql.unsafe`INSERT INTO supply_scenarios (name) VALUES ('alt') RETURNING id`)) as number;
    const run = async (id: string, scenario: number, status: string, startedAt: string, exceptions: Array<[number, number, string, string]>) => {
      await tx.query(sql.unsafe`INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date, started_at)
        VALUES (${id}, ${p}, ${scenario}, ${status}, '2026-06-01', ${startedAt}::timestamptz)`);
      for (const [i, s, type, severity] of exceptions) {
        await tx.query(sql.unsafe`INSERT INTO supply_exceptions (run_id, item_id, site_id, type, week, end_week, qty, severity, description)
          VALUES (${id}, ${i}, ${s}, ${type}, 2, 4, 7, ${severity}, ${`${type} in weeks 2-4`})`);
      }
    };
    await run('sup-old', defaultScenario, 'completed', '2026-06-01T08:00:00Z', [[items.Q, sites.S1, 'shortage', 'high']]);
    await run('sup-new', defaultScenario, 'completed', '2026-06-02T08:00:00Z', [[items.P, sites.S1, 'shortage', 'high'], [items.Q, sites.S1, 'excess', 'low']]);
    await run('sup-failed', defaultScenario, 'failed', '2026-06-03T08:00:00Z', [[itemR, sites.S2, 'shortage', 'high']]);
    await run('sup-alt', altScenario, 'completed', '2026-06-02T09:00:00Z', [[items.P, sites.S2, 'no_source', 'medium']]);
    // the seeded pipeline is the default one of reads without pipeline_id
    await tx.query(sql.unsafe`UPDATE scenario_pipelines SET last_run_at = now() WHERE id = ${p}`);
  });
  uid = { P_S1: `${items.P}_${sites.S1}`, P_S2: `${items.P}_${sites.S2}`, Q_S1: `${items.Q}_${sites.S1}`, R_S2: `${itemR}_${sites.S2}` };
}, 120_000);
afterAll(() => t.close());

const get = async (path: string, token = planner) => {
  const res = await t.call('get', path, { token });
  expect([path, res.status, res.body.detail]).toEqual([path, 200, undefined]);
  return res.body;
};
/** `unique_id:type:severity` of each item, in the order answered. */
const keys = (body: { items: any[] }) => body.items.map((i) => `${i.unique_id}:${i.exc_type}:${i.severity}`);
const snooze = (u: string, type: string, until: string) => t.call('post', `/api/exceptions/${u}/${type}/snooze`, { token: planner, body: { until_date: until } });
const unsnooze = (u: string, type: string) => t.call('delete', `/api/exceptions/${u}/${type}/snooze`, { token: planner });
const dbToday = () => q((tx) => tx.oneFirst(sql.unsafe`SELECT current_date::text`)) as Promise<string>;

test('the list: every series and type with issues, most severe first, the default pipeline and supply scenario', async () => {
  const body = await get('/api/exceptions');
  expect(body).toMatchObject({ total: 7, skip: 0, limit: 100, pipeline_id: seed.pipelineId, scenario_id: defaultScenario, supply_run_id: 'sup-new' });
  expect(keys(body)).toEqual([
    `${uid.P_S1}:io:high`, `${uid.P_S1}:supply:high`, `${uid.P_S2}:io:high`, `${uid.R_S2}:forecast:high`,
    `${uid.P_S1}:forecast:medium`, `${uid.P_S2}:forecast:medium`,
    `${uid.Q_S1}:supply:low`,
  ]);
  const byKey = Object.fromEntries(body.items.map((i: any) => [`${i.unique_id}:${i.exc_type}`, i]));
  expect(byKey[`${uid.P_S1}:io`]).toEqual({
    unique_id: uid.P_S1, item_id: seed.items.P, site_id: seed.sites.S1, item_code: 'P', item_name: 'Item P', site_name: 'Site S1',
    exc_type: 'io', severity: 'high', snoozed_until: null,
    issues: [expect.objectContaining({ type: 'io', code: 'below_target', severity: 'high', value: 0.8, threshold: 0.95 })],
  });
  expect(byKey[`${uid.P_S1}:forecast`].issues).toEqual([expect.objectContaining({ type: 'forecast', code: 'high_mase', severity: 'medium', value: 2 })]);
  expect(byKey[`${uid.P_S2}:forecast`].issues.map((i: any) => i.code)).toEqual(['bias']);
  expect(byKey[`${uid.P_S2}:io`].issues.map((i: any) => i.code)).toEqual(['no_distribution']);
  expect(byKey[`${uid.R_S2}:forecast`].issues.map((i: any) => i.code)).toEqual(['no_best_method']);
  // supply issues are the newest completed run's exceptions, as they are
  expect(byKey[`${uid.P_S1}:supply`].issues).toEqual([expect.objectContaining({ type: 'supply', code: 'shortage', severity: 'high', week: 2, end_week: 4, qty: 7, run_id: 'sup-new' })]);
  expect(byKey[`${uid.Q_S1}:supply`].issues.map((i: any) => i.code)).toEqual(['excess']);
  // Q@S1 is quiet on the forecast and io rules
  expect(Object.keys(byKey).filter((k) => k.startsWith(`${uid.Q_S1}:`))).toEqual([`${uid.Q_S1}:supply`]);

  // the same answer when the pipeline and scenario are named
  expect(keys(await get(`/api/exceptions?pipeline_id=${seed.pipelineId}&scenario_id=${defaultScenario}`))).toEqual(keys(body));
});

test('scenario_id chooses the supply run; another pipeline has its own results', async () => {
  const alt = await get(`/api/exceptions?scenario_id=${altScenario}`);
  expect(alt).toMatchObject({ total: 6, scenario_id: altScenario, supply_run_id: 'sup-alt' });
  expect(keys(alt)).toEqual([
    `${uid.P_S1}:io:high`, `${uid.P_S2}:io:high`, `${uid.R_S2}:forecast:high`,
    `${uid.P_S1}:forecast:medium`, `${uid.P_S2}:forecast:medium`, `${uid.P_S2}:supply:medium`,
  ]);
  // the quiet series has no supply exception in this scenario, so it does not appear at all
  expect(alt.items.some((i: any) => i.unique_id === uid.Q_S1)).toBe(false);

  const empty = (await q((tx) => tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('no results') RETURNING id`))) as number;
  expect(await get(`/api/exceptions?pipeline_id=${empty}`)).toMatchObject({ total: 0, items: [], pipeline_id: empty, supply_run_id: null });
});

test('filters and paging: type, unique_id, skip and limit; totals count what the filters match', async () => {
  const io = await get('/api/exceptions?type=io');
  expect([io.total, keys(io)]).toEqual([2, [`${uid.P_S1}:io:high`, `${uid.P_S2}:io:high`]]);
  expect((await get('/api/exceptions?type=supply')).total).toBe(2);
  const forecast = await get('/api/exceptions?type=forecast');
  expect([forecast.total, forecast.items.some((i: any) => i.unique_id === uid.Q_S1)]).toEqual([3, false]);

  const all = keys(await get('/api/exceptions'));
  const page1 = await get('/api/exceptions?limit=3');
  const page2 = await get('/api/exceptions?limit=3&skip=3');
  const page3 = await get('/api/exceptions?limit=3&skip=6');
  expect([page1.total, page2.total, page3.total, page3.skip, page3.limit]).toEqual([7, 7, 7, 6, 3]);
  expect([...keys(page1), ...keys(page2), ...keys(page3)]).toEqual(all);
  expect((await get('/api/exceptions?skip=50')).items).toEqual([]);
  const forecastPage = await get('/api/exceptions?type=forecast&limit=2&skip=2');
  expect([forecastPage.total, keys(forecastPage)]).toEqual([3, [`${uid.P_S2}:forecast:medium`]]);

  const one = await get(`/api/exceptions?unique_id=${uid.P_S2}`);
  expect([one.total, keys(one)]).toEqual([2, [`${uid.P_S2}:io:high`, `${uid.P_S2}:forecast:medium`]]);
  expect((await get(`/api/exceptions?unique_id=${uid.Q_S1}&type=forecast`)).total).toBe(0);
});

test('one series: its items by type; a quiet series answers none', async () => {
  const p1 = await get(`/api/exceptions/${uid.P_S1}`);
  expect(p1).toMatchObject({ unique_id: uid.P_S1, pipeline_id: seed.pipelineId, scenario_id: defaultScenario, supply_run_id: 'sup-new' });
  expect(keys(p1)).toEqual([`${uid.P_S1}:io:high`, `${uid.P_S1}:supply:high`, `${uid.P_S1}:forecast:medium`]);
  expect(keys(await get(`/api/exceptions/${uid.P_S2}?scenario_id=${altScenario}`))).toEqual([`${uid.P_S2}:io:high`, `${uid.P_S2}:forecast:medium`, `${uid.P_S2}:supply:medium`]);
  expect((await get(`/api/exceptions/${uid.Q_S1}?scenario_id=${altScenario}`)).items).toEqual([]);
  // the single-series read gives exactly what the list gives for that series
  const list = (await get('/api/exceptions')).items.filter((i: any) => i.unique_id === uid.P_S1);
  expect(p1.items).toEqual(list);
});

test('snoozes hide a series and type until and including their date; include_snoozed; DELETE brings it back', async () => {
  const set = await snooze(uid.P_S1, 'io', '2999-01-01');
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ unique_id: uid.P_S1, item_id: seed.items.P, site_id: seed.sites.S1, exc_type: 'io', until_date: '2999-01-01', created_by: a.planner.email, replaced: false, previous_until_date: null });

  let list = await get('/api/exceptions');
  expect(list.total).toBe(6);
  expect(keys(list)).not.toContain(`${uid.P_S1}:io:high`);
  expect((await get('/api/exceptions?type=io')).total).toBe(1);
  const withSnoozed = await get('/api/exceptions?include_snoozed=true');
  expect(withSnoozed.total).toBe(7);
  expect(withSnoozed.items.find((i: any) => i.unique_id === uid.P_S1 && i.exc_type === 'io').snoozed_until).toBe('2999-01-01');
  expect(withSnoozed.items.filter((i: any) => i.snoozed_until !== null)).toHaveLength(1);
  // the series read shows snoozed items with their date
  const p1 = await get(`/api/exceptions/${uid.P_S1}`);
  expect(p1.items.map((i: any) => [i.exc_type, i.snoozed_until])).toEqual([['io', '2999-01-01'], ['supply', null], ['forecast', null]]);

  // replace: a new date
  const again = await snooze(uid.P_S1, 'io', '2998-06-30');
  expect([again.status, again.body.until_date, again.body.replaced, again.body.previous_until_date]).toEqual([200, '2998-06-30', true, '2999-01-01']);
  const audit = await q((tx) => tx.any(sql.unsafe`SELECT action, entity_id, old_value, new_value, outcome FROM audit_log WHERE entity_type = 'exception_snooze' ORDER BY id`));
  expect(audit).toEqual([
    { action: 'snooze', entity_id: `${uid.P_S1}/io`, old_value: null, new_value: { until_date: '2999-01-01', created_by: a.planner.email }, outcome: 'success' },
    { action: 'snooze', entity_id: `${uid.P_S1}/io`, old_value: { until_date: '2999-01-01', created_by: a.planner.email }, new_value: { until_date: '2998-06-30', created_by: a.planner.email }, outcome: 'success' },
  ]);

  // today is still hidden (POST accepts today); a snooze whose date has passed hides nothing
  const today = await dbToday();
  expect((await snooze(uid.R_S2, 'forecast', today)).status).toBe(200);
  await q((tx) => tx.query(sql.unsafe`INSERT INTO exception_snoozes (item_id, site_id, exc_type, until_date, created_by)
    VALUES (${seed.items.P}, ${seed.sites.S2}, 'forecast', current_date - 1, 'someone')`));
  list = await get('/api/exceptions');
  expect(keys(list)).toEqual([
    `${uid.P_S1}:supply:high`, `${uid.P_S2}:io:high`,
    `${uid.P_S1}:forecast:medium`, `${uid.P_S2}:forecast:medium`,
    `${uid.Q_S1}:supply:low`,
  ]);
  expect(list.items.find((i: any) => i.unique_id === uid.P_S2 && i.exc_type === 'forecast').snoozed_until).toBeNull();
  expect((await get('/api/exceptions?include_snoozed=true&type=forecast')).items.map((i: any) => [i.unique_id, i.snoozed_until]))
    .toEqual([[uid.R_S2, today], [uid.P_S1, null], [uid.P_S2, null]]);

  // DELETE: back at once; a second DELETE has nothing to remove; the expired row can be removed too
  const removed = await unsnooze(uid.P_S1, 'io');
  expect([removed.status, removed.body.until_date, removed.body.exc_type]).toEqual([200, '2998-06-30', 'io']);
  expect(keys(await get('/api/exceptions?type=io'))).toEqual([`${uid.P_S1}:io:high`, `${uid.P_S2}:io:high`]);
  expect((await unsnooze(uid.P_S1, 'io')).status).toBe(404);
  expect((await unsnooze(uid.P_S2, 'forecast')).status).toBe(200);
  expect((await unsnooze(uid.R_S2, 'forecast')).status).toBe(200);
  expect((await get('/api/exceptions')).total).toBe(7);
  const deletes: any[] = await q((tx) => tx.any(sql.unsafe`SELECT entity_id, old_value, new_value FROM audit_log WHERE entity_type = 'exception_snooze' AND action = 'unsnooze' AND outcome = 'success' ORDER BY id`));
  expect(deletes[0]).toEqual({ entity_id: `${uid.P_S1}/io`, old_value: { until_date: '2998-06-30', created_by: a.planner.email }, new_value: null });
});

test('a planner restricted to a segment sees only its series', async () => {
  const seg = (await q((tx) => tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('only P at S1') RETURNING id`))) as number;
  await q((tx) => tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${seg}, ${seed.items.P}, ${seed.sites.S1})`));
  const restricted = await t.login(await t.addUser(a.accountId, { allowed_segments: [seg] }));
  const list = await get('/api/exceptions', restricted);
  expect([list.total, keys(list)]).toEqual([3, [`${uid.P_S1}:io:high`, `${uid.P_S1}:supply:high`, `${uid.P_S1}:forecast:medium`]]);
  expect((await get(`/api/exceptions?unique_id=${uid.P_S2}`, restricted)).total).toBe(0);
  expect((await t.call('get', `/api/exceptions/${uid.P_S2}`, { token: restricted })).status).toBe(403);
  expect((await t.call('post', `/api/exceptions/${uid.P_S2}/io/snooze`, { token: restricted, body: { until_date: '2999-01-01' } })).status).toBe(403);
  expect((await get(`/api/exceptions/${uid.P_S1}`, restricted)).items).toHaveLength(3);
});

test('bad input is a 400 naming the field; unknown things are 404s', async () => {
  const bad = async (method: string, path: string, field: string, body?: unknown) => {
    const res = await t.call(method, path, { token: planner, body });
    expect([method, path, res.status]).toEqual([method, path, 400]);
    expect(res.body.detail).toContain(field);
  };
  await bad('post', `/api/exceptions/${uid.P_S1}/io/snooze`, 'until_date', { until_date: 'soon' });
  await bad('post', `/api/exceptions/${uid.P_S1}/io/snooze`, 'until_date', { until_date: '2030-02-30' });
  await bad('post', `/api/exceptions/${uid.P_S1}/io/snooze`, 'until_date', { until_date: '2000-01-01' });
  await bad('post', `/api/exceptions/${uid.P_S1}/io/snooze`, 'until_date', {});
  await bad('post', `/api/exceptions/${uid.P_S1}/io/snooze`, 'until_date', { until_date: 20300101 });
  await bad('post', `/api/exceptions/${uid.P_S1}/bogus/snooze`, 'exc_type', { until_date: '2999-01-01' });
  await bad('delete', `/api/exceptions/${uid.P_S1}/bogus/snooze`, 'exc_type');
  await bad('post', '/api/exceptions/abc/io/snooze', 'unique_id', { until_date: '2999-01-01' });
  await bad('delete', '/api/exceptions/1_0/io/snooze', 'unique_id');
  await bad('get', '/api/exceptions/12x_3', 'unique_id');
  await bad('get', '/api/exceptions?unique_id=7', 'unique_id');
  await bad('get', '/api/exceptions?type=bogus', 'type');
  await bad('get', '/api/exceptions?include_snoozed=maybe', 'include_snoozed');
  await bad('get', '/api/exceptions?limit=0', 'limit');
  await bad('get', '/api/exceptions?limit=1001', 'limit');
  await bad('get', '/api/exceptions?skip=-1', 'skip');
  await bad('get', '/api/exceptions?scenario_id=0', 'scenario_id');
  await bad('get', '/api/exceptions?colour=red', 'colour');
  expect(await q((tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM exception_snoozes`))).toBe(0);

  const notFound = async (method: string, path: string, body?: unknown) => {
    const res = await t.call(method, path, { token: planner, body });
    expect([method, path, res.status]).toEqual([method, path, 404]);
    return res.body.detail as string;
  };
  expect(await notFound('get', '/api/exceptions/999999_1')).toContain('999999_1');
  expect(await notFound('get', '/api/exceptions?unique_id=999999_1')).toContain('unique_id');
  expect(await notFound('get', '/api/exceptions?scenario_id=999999')).toContain('scenario_id');
  expect(await notFound('get', '/api/exceptions?pipeline_id=999999')).toContain('pipeline_id');
  expect(await notFound('get', `/api/exceptions/${uid.P_S1}?scenario_id=999999`)).toContain('scenario_id');
  await notFound('post', '/api/exceptions/999999_1/io/snooze', { until_date: '2999-01-01' });
  await notFound('delete', '/api/exceptions/999999_1/io/snooze');
  expect(await notFound('delete', `/api/exceptions/${uid.Q_S1}/supply/snooze`)).toContain('snooze');
});

test('deleting a series takes its snoozes with it', async () => {
  const item = (await q((tx) => tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('Z', 'Item Z') RETURNING id`))) as number;
  await q((tx) => tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${item}, ${seed.sites.S1})`));
  expect((await snooze(`${item}_${seed.sites.S1}`, 'supply', '2999-01-01')).status).toBe(200);
  await q((tx) => tx.query(sql.unsafe`DELETE FROM series WHERE item_id = ${item}`));
  expect(await q((tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM exception_snoozes WHERE item_id = ${item}`))).toBe(0);
});
