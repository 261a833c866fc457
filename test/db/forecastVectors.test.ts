import { createTestAccount } from '../support/tenantPool';
import { openPool, sql, tenantSchemaName, withTenant, type Db } from '../../db/pool';
import { closePreparedReadPools, pipelineForecastVectors, tenantPreparedQuery } from '../../db/preparedReads';
import { seriesForecastsOf } from '../../db/seriesDetail';

let db: Db;
let accountId: string;
let key: { item_id: number; site_id: number };
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `vectors-${Date.now()}`)).id;
  key = await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S', 'S')`);
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I', 'I')`);
    const k = (await tx.one(sql.unsafe`SELECT i.id AS item_id, s.id AS site_id FROM items i, sites s`)) as { item_id: number; site_id: number };
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${k.item_id}, ${k.site_id}, 8, '2026-01-05', '2026-02-23')`);
    for (const [method, yhat] of [['naive', `{1.5,NULL,NaN,-2.25}`], ['ses', `{}`]] as const) {
      await tx.query(sql.unsafe`
        INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level, params)
        VALUES (0, ${k.item_id}, ${k.site_id}, ${method}, '2026-03-02', ${yhat}::float8[], ${yhat}::float8[], ${yhat}::float8[], 0.9, '{"alpha": 0.3}')`);
    }
    return k;
  });
}, 60_000);
afterAll(async () => {
  await db.end();
});

test('one series\' forecast vectors come back as stored, NULL and NaN included, as the whole-pipeline read gives them', async () => {
  const one = await seriesForecastsOf(process.env.DATABASE_URL!, accountId, 0, key);
  expect(one.rows.map((r) => [r.method, r.yhat, r.yhat_lower, r.yhat_upper, r.level, r.params])).toEqual([
    ['naive', [1.5, null, NaN, -2.25], [1.5, null, NaN, -2.25], [1.5, null, NaN, -2.25], 0.9, { alpha: 0.3 }],
    ['ses', [], [], [], 0.9, { alpha: 0.3 }],
  ]);
  const all = (await pipelineForecastVectors(process.env.DATABASE_URL!, accountId, 0)).get(`${key.item_id}_${key.site_id}`)!;
  expect(all.rows.map((r) => [r.method, r.yhat, r.yhat_lower, r.yhat_upper])).toEqual(one.rows.map((r) => [r.method, r.yhat, r.yhat_lower, r.yhat_upper]));
  expect(await seriesForecastsOf(process.env.DATABASE_URL!, accountId, 0, { item_id: key.item_id + 1000, site_id: key.site_id })).toEqual({ rows: [], best_method: null });
});

test('closing the prepared-read pools ends their connections at once, and the next read opens them again', async () => {
  // the shared pool's statement and a tenant pool's (search_path set per connection), each holding a backend
  await pipelineForecastVectors(process.env.DATABASE_URL!, accountId, 0);
  expect(await tenantPreparedQuery(process.env.DATABASE_URL!, accountId, sql.unsafe`SELECT count(*)::int AS n /* pools-closed */ FROM forecast_results`)).toEqual([{ n: 2 }]);
  // the backends whose last statement was one of these two reads (the shared one names this tenant's schema), none
  // left idle for the pools' 10 s timeout after the close
  const backends = async () => Number(await db.oneFirst(sql.unsafe`
    SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle'
      AND (query LIKE ${`%"${tenantSchemaName(accountId)}".forecast_results%`} OR query LIKE '%pools-closed%') AND query NOT LIKE '%pg_stat_activity%'`));
  expect(await backends()).toBe(2);
  await closePreparedReadPools();
  for (let i = 0; i < 100 && (await backends()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(await backends()).toBe(0);
  expect(await tenantPreparedQuery(process.env.DATABASE_URL!, accountId, sql.unsafe`SELECT count(*)::int AS n /* pools-closed */ FROM forecast_results`)).toEqual([{ n: 2 }]);
  await closePreparedReadPools();
});
