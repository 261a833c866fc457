import { kcurveItems } from '../../db/kcurve';
import { openPool, sql, withTenant, type Db } from '../../db/pool';
import { seriesGridTenant } from '../support/seriesGrid';

/**
 * The EOQ's demand (db/kcurve.ts kcurveItems): the best method's forecast mean, or the history's where the forecast
 * has no finite mean. The history of a series is read only then: the eoq step and GET /api/kcurve read every series.
 */
let db: Db;
let accountId: string;
const ITEMS = 6;
const SITES = 2;

beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = await seriesGridTenant(db, 'kcurve-items', ITEMS, SITES);
  await withTenant(db, accountId, async (tx) => {
    // history: 52 weeks of item number × 2 (I1 → 2 a week)
    await tx.query(sql.unsafe`
      INSERT INTO series_weekly (item_id, site_id, week, y)
      SELECT i.id, s.id, '2025-01-06'::date + 7 * g, 2 * substr(i.xuid, 2)::int FROM items i, sites s, generate_series(0, 51) g`);
    // a best method for every series of I1…I4: I1, I2 a forecast of 100 a week, I3 only NaN, I4 none stored
    await tx.query(sql.unsafe`
      INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, metric)
      SELECT 0, s.item_id, s.site_id, 'ses', 'mase' FROM series s JOIN items i ON i.id = s.item_id WHERE i.xuid IN ('I1', 'I2', 'I3', 'I4')`);
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      SELECT 0, s.item_id, s.site_id, 'ses', '2026-01-05',
        CASE WHEN i.xuid = 'I3' THEN ARRAY['NaN', 'NaN']::float8[] ELSE ARRAY[100, 100]::float8[] END, ARRAY[0, 0]::float8[], ARRAY[200, 200]::float8[], 0.9
      FROM series s JOIN items i ON i.id = s.item_id WHERE i.xuid IN ('I1', 'I2', 'I3')`);
  });
});
afterAll(() => db.end());

test('the history stands in where the forecast has no finite mean, and only there is it read', async () => {
  const { rows, scans } = await withTenant(db, accountId, async (tx) => {
    const keys = (await tx.any(sql.unsafe`SELECT item_id, site_id FROM series ORDER BY item_id, site_id`)) as Array<{ item_id: number; site_id: number }>;
    const scansNow = () => tx.oneFirst(sql.unsafe`SELECT pg_stat_get_xact_numscans('series_weekly_pkey'::regclass)::int`) as Promise<number>;
    const before = await scansNow();
    const rows = await kcurveItems(tx, 0, { keys });
    return { rows, scans: (await scansNow()) - before };
  });
  const byItem = new Map<string, Array<[number | null, number | null]>>();
  for (const r of rows) byItem.set(r.item_xuid, [...(byItem.get(r.item_xuid) ?? []), [r.forecast_weekly_mean, r.history_weekly_mean]]);
  expect(Object.fromEntries(byItem)).toEqual({
    I1: [[100, null], [100, null]],
    I2: [[100, null], [100, null]],
    I3: [[null, 6], [null, 6]],
    I4: [[null, 8], [null, 8]],
    I5: [[null, 10], [null, 10]],
    I6: [[null, 12], [null, 12]],
  });
  // the weeks of the eight series without a finite forecast, not of the four with one
  expect(scans).toBe(8);
});
