import { seriesGridTenant } from '../support/seriesGrid';
import { openAlertsOfPage } from '../../db/alerts';
import { openPool, sql, withTenant, type Db } from '../../db/pool';

// 400 items × 10 sites × 8 metrics of alerts, 7 of the 8 open
let db: Db;
let accountId: string;
let keys: Array<{ item_id: number; site_id: number }>;
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = await seriesGridTenant(db, 'alertspage', 400, 10);
  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`
      INSERT INTO alerts (pipeline_id, item_id, site_id, metric_name, domain, value, threshold, comparison, severity, status, message)
      SELECT 1, i.id, s.id, 'm' || g, 'forecast', g, 0, 'gt', 'high', CASE WHEN g = 8 THEN 'approved' ELSE 'open' END, 'x'
      FROM items i, sites s, generate_series(1, 8) g`);
    // No ANALYZE: the alerts step reads the table in the transaction that is writing it, so at 100,000 series the
    // planner plans each page without statistics of what the earlier pages wrote (it then expects one open alert).
    keys = (await tx.any(sql.unsafe`SELECT item_id, site_id FROM series ORDER BY item_id, site_id`)) as typeof keys;
  });
}, 120_000);
afterAll(async () => {
  await db.end();
});

test('a page\'s open alerts: exactly its series\' open ones', async () => {
  const page = keys.slice(1000, 1025);
  const rows = (await withTenant(db, accountId, (tx) => tx.any(sql.unsafe`${openAlertsOfPage(1, page)}`))) as Array<{ item_id: number; site_id: number; metric_name: string }>;
  expect(rows.length).toBe(25 * 7);
  const inPage = new Set(page.map((k) => `${k.item_id}_${k.site_id}`));
  expect(rows.every((r) => inPage.has(`${r.item_id}_${r.site_id}`) && r.metric_name !== 'm8')).toBe(true);
  expect((await withTenant(db, accountId, (tx) => tx.any(sql.unsafe`${openAlertsOfPage(2, page)}`))).length).toBe(0);
});

test('it walks the (pipeline, item, site, metric) key for the page\'s items, not every open alert of the pipeline', async () => {
  const page = keys.slice(2000, 2040);
  const plan = await withTenant(db, accountId, async (tx) =>
    ((await tx.anyFirst(sql.unsafe`EXPLAIN ${openAlertsOfPage(1, page)}`)) as string[]).join('\n'));
  expect(plan).toMatch(/Index Scan using alerts_pipeline_id_item_id_site_id_metric_name_key|Bitmap Index Scan on alerts_pipeline_id_item_id_site_id_metric_name_key/);
  expect(plan).not.toMatch(/alerts_list_idx|Seq Scan on alerts/);
});
