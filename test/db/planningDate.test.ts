import { seriesGridTenant } from '../support/seriesGrid';
import { resolvePlanningDate } from '../../db/planningDate';
import { openPool, sql, withTenant, type Db } from '../../db/pool';

// 300 items × 10 sites, forecasts of two pipelines: enough rows that a scan of the pipeline's forecasts is not free
let db: Db;
let accountId: string;
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = await seriesGridTenant(db, 'planningdate', 300, 10);
  await withTenant(db, accountId, async (tx) => {
    // pipeline 7's newest start week is 2026-03-02 on one series; pipeline 8's are all 2026-01-05
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      SELECT p, i.id, s.id, m, CASE WHEN p = 7 AND i.xuid = 'I150' AND s.xuid = 'S3' THEN '2026-03-02'::date ELSE '2026-01-05'::date END,
             array_fill(1::float8, ARRAY[26]), array_fill(0::float8, ARRAY[26]), array_fill(2::float8, ARRAY[26]), 0.8
      FROM items i, sites s, unnest(ARRAY[7, 8]) p, unnest(ARRAY['ets', 'arima', 'croston']) m`);
    await tx.query(sql.unsafe`ANALYZE forecast_results`);
  });
}, 120_000);
afterAll(async () => {
  await db.end();
});

test('with nothing stored, a pipeline plans from the newest start week of its own forecasts', async () => {
  const [p7, p8, none] = await withTenant(db, accountId, async (tx) =>
    Promise.all([resolvePlanningDate(tx, 7, null), resolvePlanningDate(tx, 8, null), resolvePlanningDate(tx, 9, null)]));
  expect(p7).toEqual({ date: '2026-03-02', source: 'forecast' });
  expect(p8).toEqual({ date: '2026-01-05', source: 'forecast' });
  // no forecasts and no history: the calendar
  expect(none.source).toBe('today');
});

test('the newest start week is read from the end of an index, not from every forecast row of the pipeline', async () => {
  const plan = await withTenant(db, accountId, async (tx) =>
    ((await tx.anyFirst(sql.unsafe`EXPLAIN SELECT max(start_week) FROM forecast_results WHERE pipeline_id = 7`)) as string[]).join('\n'));
  expect(plan).toMatch(/Index Only Scan (Backward )?using forecast_results_start_week_idx/);
  expect(plan).not.toMatch(/Seq Scan|Bitmap Heap Scan/);
});
