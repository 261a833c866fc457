/**
 * GET /api/alerts keeps its answers per plan version (api/planReads.ts), like the supply orders and the exception log.
 * A kept answer is what a reader gets until something the list shows commits: an alert raised or decided, a series'
 * demand class, a segment's members. Proof that answers are kept at all: a change made with the plan-version trigger
 * switched off is not seen.
 */
import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let planner: string;
let P: number;
let site: number;
let south: number;
const item: Record<string, number> = {};
const alertId: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('alerts-kept');
  planner = await t.login(a.planner);
  await withTenant(t.db, a.accountId, async (tx) => {
    P = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('Kept alerts') RETURNING id`)) as number;
    site = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S', 'Site S') RETURNING id`)) as number;
    south = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('South') RETURNING id`)) as number;
    for (const [xuid, cls, value] of [['I1', 'lumpy', 0.8], ['I2', 'smooth', 0.6]] as const) {
      item[xuid] = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${xuid}, ${`Item ${xuid}`}) RETURNING id`)) as number;
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${item[xuid]!}, ${site})`);
      await tx.query(sql.unsafe`
        INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, demand_class, is_intermittent, has_seasonality, seasonal_period, has_trend, complexity_level)
        VALUES (${P}, ${item[xuid]!}, ${site}, 20, ${cls}, false, false, 52, false, 'low')`);
      alertId[xuid] = (await tx.oneFirst(sql.unsafe`
        INSERT INTO alerts (pipeline_id, item_id, site_id, metric_name, domain, value, threshold, comparison, severity, message)
        VALUES (${P}, ${item[xuid]!}, ${site}, 'fill_rate_low', 'inventory', ${value}, 0.9, 'lt', 'high', 'low fill rate') RETURNING id`)) as number;
    }
    await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${south}, ${item.I2!}, ${site})`);
  });
});
afterAll(() => t.close());

const list = async (query: Record<string, unknown> = {}, token = planner) => {
  const res = await t.call('get', '/api/alerts', { token, query: { pipeline_id: P, ...query } });
  expect(res.status).toBe(200);
  return res.body as { total: number; items: Array<{ id: number; item_id: number; status: string; value: number }> };
};
const ids = (body: { items: Array<{ id: number }> }) => body.items.map((x) => x.id).sort((x, y) => x - y);
const untracked = (change: (tx: Parameters<Parameters<typeof withTenant>[2]>[0]) => Promise<unknown>) =>
  withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`ALTER TABLE alerts DISABLE TRIGGER plan_version_mark`);
    await change(tx);
    await tx.query(sql.unsafe`ALTER TABLE alerts ENABLE TRIGGER plan_version_mark`);
  });

test('a kept answer is served until the plan version moves, and a tracked change moves it', async () => {
  expect(ids(await list())).toEqual([alertId.I1, alertId.I2]);
  // changed without raising the plan version: the kept answer still shows the old value
  await untracked((tx) => tx.query(sql.unsafe`UPDATE alerts SET value = 0.1 WHERE id = ${alertId.I1!}`));
  expect((await list()).items.find((x) => x.id === alertId.I1)!.value).toBe(0.8);
  // a new alert commits through the trigger: the list is read again, and shows both changes
  const I3 = await withTenant(t.db, a.accountId, async (tx) => {
    const id = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I3', 'Item I3') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${id}, ${site})`);
    return (await tx.oneFirst(sql.unsafe`
      INSERT INTO alerts (pipeline_id, item_id, site_id, metric_name, domain, value, threshold, comparison, severity, message)
      VALUES (${P}, ${id}, ${site}, 'fill_rate_low', 'inventory', 0.5, 0.9, 'lt', 'critical', 'very low fill rate') RETURNING id`)) as number;
  });
  const after = await list();
  expect(after.total).toBe(3);
  expect(after.items[0]!.id).toBe(I3); // critical first
  expect(after.items.find((x) => x.id === alertId.I1)!.value).toBe(0.1);
});

test('approving an alert through the API shows at once in the list', async () => {
  expect((await list({ status: 'open' })).items.map((x) => x.id)).toContain(alertId.I2);
  const res = await t.call('post', '/api/alerts/batch', { token: planner, body: { alert_ids: [alertId.I2], action: 'approve' } });
  expect(res.status).toBe(200);
  expect((await list({ status: 'open' })).items.map((x) => x.id)).not.toContain(alertId.I2);
  expect((await list({ status: 'approved' })).items.map((x) => x.id)).toEqual([alertId.I2]);
});

test('a new demand class shows at once in the demand_class filter (migration 035)', async () => {
  expect(ids(await list({ demand_class: 'lumpy' }))).toEqual([alertId.I1]);
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE series_characteristics SET demand_class = 'lumpy' WHERE pipeline_id = ${P} AND item_id = ${item.I2!}`));
  expect(ids(await list({ demand_class: 'lumpy' }))).toEqual([alertId.I1, alertId.I2]);
});

test('a user limited to a segment gets an answer of their own, and a new member shows at once', async () => {
  const limited = await t.login(await t.addUser(a.accountId, { allowed_segments: [south] }));
  expect((await list({}, planner)).total).toBe(3);
  expect(ids(await list({}, limited))).toEqual([alertId.I2]);
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${south}, ${item.I1!}, ${site})`));
  expect(ids(await list({}, limited))).toEqual([alertId.I1, alertId.I2]);
});
