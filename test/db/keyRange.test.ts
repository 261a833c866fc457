import { seriesGridTenant } from '../support/seriesGrid';
import { demandInRange, keyRange } from '../../db/etl';
import { openPool, sql, withTenant, type Db } from '../../db/pool';
import { seriesInRange, weeklyInRange } from '../../db/seriesSteps';

// 200 items × 10 sites × 52 weeks: enough rows for PostgreSQL to weigh a scan of series_weekly against its index
const ITEMS = 200;
const SITES = 10;

let db: Db;
let accountId: string;
let itemIds: number[];
let siteIds: number[];
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = await seriesGridTenant(db, 'keyrange', ITEMS, SITES);
  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`
      INSERT INTO series_weekly (item_id, site_id, week, y)
      SELECT i.id, s.id, '2025-01-06'::date + 7 * g, g FROM items i, sites s, generate_series(0, 51) g`);
    await tx.query(sql.unsafe`INSERT INTO demand_history (item_id, site_id, ds, qty) SELECT i.id, s.id, '2025-01-06', 1 FROM items i, sites s`);
    await tx.query(sql.unsafe`ANALYZE series, series_weekly, demand_history`);
    itemIds = (await tx.anyFirst(sql.unsafe`SELECT id FROM items ORDER BY id`)) as number[];
    siteIds = (await tx.anyFirst(sql.unsafe`SELECT id FROM sites ORDER BY id`)) as number[];
  });
}, 120_000);
afterAll(async () => {
  await db.end();
});

const key = (i: number, s: number) => ({ item_id: itemIds[i]!, site_id: siteIds[s]! });

test('a key range runs from the first key to the last by item, then site, both ends included', async () => {
  const from = key(10, 7);
  const to = key(12, 1);
  const expected = [key(10, 7), key(10, 8), key(10, 9), ...siteIds.map((_, s) => key(11, s)), key(12, 0), key(12, 1)];
  const scope = { pipelineId: 0, segmentId: null, keys: null };
  const weekly = await withTenant(db, accountId, (tx) => weeklyInRange(tx, scope, from, to));
  expect(weekly.map((w) => ({ item_id: w.item_id, site_id: w.site_id }))).toEqual(expected);
  expect(Array.from(weekly[0]!.y.slice(0, 3))).toEqual([0, 1, 2]);
  expect(weekly[0]!.start).toBe('2025-01-06');
  const demand = await withTenant(db, accountId, (tx) => demandInRange(tx, from, to));
  expect(demand.item_id.map((item, i) => ({ item_id: item, site_id: demand.site_id[i] }))).toEqual(expected);
});

test('the planner sees how few rows a chunk\'s range holds (the row comparison alone looks like a fifth of the table) and reads them through the primary key', async () => {
  const from = key(100, 3);
  const to = key(102, 6);
  const inRange = (7 + SITES + 7) * 52;
  const plan = (where: ReturnType<typeof keyRange>) =>
    withTenant(db, accountId, async (tx) => ((await tx.anyFirst(sql.unsafe`EXPLAIN SELECT * FROM series_weekly w WHERE ${where}`)) as string[]).join('\n'));
  const estimate = (p: string) => Number(/rows=(\d+)/.exec(p)![1]);
  const withItemRange = await plan(keyRange(from, to, 'w'));
  expect(estimate(withItemRange)).toBeLessThanOrEqual(3 * inRange);
  expect(withItemRange).toMatch(/Index (Only )?Scan using series_weekly_pkey|Bitmap Index Scan on series_weekly_pkey/);
  expect(withItemRange).not.toMatch(/Seq Scan/);
  const rowComparisonOnly = await plan(sql.fragment`(w.item_id, w.site_id) >= (${from.item_id}, ${from.site_id}) AND (w.item_id, w.site_id) <= (${to.item_id}, ${to.site_id})`);
  expect(estimate(rowComparisonOnly)).toBeGreaterThan(10 * inRange);
});

test('the keys-only read (eoq, supply) gives the same series as the weekly read, a series without weekly rows left out of both, a segment scope applied to both', async () => {
  const from = key(150, 0);
  const to = key(153, 9);
  const keysOf = (rows: ReadonlyArray<{ item_id: number; site_id: number; unique_id: string }>) => rows.map((r) => `${r.item_id}/${r.site_id}/${r.unique_id}`);
  const both = (scope: { pipelineId: number; segmentId: number | null; keys: null }) => withTenant(db, accountId, async (tx) => ({
    weekly: keysOf(await weeklyInRange(tx, scope, from, to)),
    keys: keysOf(await seriesInRange(tx, scope, from, to)),
  }));
  const noHistory = key(151, 4);
  const segmentId = await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`DELETE FROM series_weekly WHERE item_id = ${noHistory.item_id} AND site_id = ${noHistory.site_id}`);
    const id = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('keyrange-odd-sites') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id)
      SELECT ${id}, item_id, site_id FROM series WHERE site_id IN (${siteIds[1]!}, ${siteIds[3]!}, ${siteIds[4]!})`);
    return id;
  });
  const all = await both({ pipelineId: 0, segmentId: null, keys: null });
  expect(all.keys).toEqual(all.weekly);
  expect(all.keys).toHaveLength(4 * SITES - 1);
  expect(all.keys).not.toContain(`${noHistory.item_id}/${noHistory.site_id}/${noHistory.item_id}_${noHistory.site_id}`);
  const segment = await both({ pipelineId: 0, segmentId, keys: null });
  expect(segment.keys).toEqual(segment.weekly);
  // three sites of four items, less the one without history
  expect(segment.keys).toHaveLength(4 * 3 - 1);
});
