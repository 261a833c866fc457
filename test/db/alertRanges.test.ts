import { seriesGridTenant } from '../support/seriesGrid';
import { alertFactsPage, alertItemRanges, type ItemRange } from '../../db/alerts';
import { openPool, sql, withTenant, type Db } from '../../db/pool';

// 30 items × 4 sites, then 10 more items at one site each: 130 series, unevenly spread over the items
let db: Db;
let accountId: string;
let keys: string[];
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = await seriesGridTenant(db, 'alertranges', 30, 4);
  keys = await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT 'J' || g, 'J' || g FROM generate_series(1, 10) g`);
    await tx.query(sql.unsafe`
      INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end)
      SELECT i.id, (SELECT min(id) FROM sites), 52, '2025-01-06', '2025-12-29' FROM items i WHERE i.xuid LIKE 'J%'`);
    return ((await tx.anyFirst(sql.unsafe`SELECT item_id || '_' || site_id FROM series ORDER BY item_id, site_id`)) as string[]);
  });
}, 120_000);
afterAll(async () => {
  await db.end();
});

/** Every series of a range, read page by page as the alerts step reads them. */
async function seriesOf(range: ItemRange, pageSize = 7): Promise<string[]> {
  return withTenant(db, accountId, async (tx) => {
    const out: string[] = [];
    let after = null;
    for (;;) {
      const page = await alertFactsPage(tx, 1, [], after, pageSize, null, range);
      if (!page.length) return out;
      out.push(...page.map((f) => `${f.item_id}_${f.site_id}`));
      after = page[page.length - 1];
    }
  });
}

test('the ranges split the series about evenly, never an item\'s sites, and cover every item id', async () => {
  const ranges = await withTenant(db, accountId, (tx) => alertItemRanges(tx, 2));
  expect(ranges).toHaveLength(2);
  expect(ranges[0]!.from).toBeNull();
  expect(ranges[1]!.to).toBeNull();
  expect(ranges[0]!.to).toBe(ranges[1]!.from);
  const parts = await Promise.all(ranges.map((r) => seriesOf(r)));
  // disjoint, and together every series once, in the order of the whole
  expect([...parts[0]!, ...parts[1]!]).toEqual(keys);
  // ntile's halves are 65 series each; the second starts at the item of its first series, so each is within an item's 4
  expect(parts.map((p) => p.length)).toEqual([64, 66]);
  const itemsOf = (p: string[]) => new Set(p.map((k) => k.split('_')[0]));
  expect([...itemsOf(parts[0]!)].filter((i) => itemsOf(parts[1]!).has(i))).toEqual([]);
});

test('three ranges, one, and more ranges than items', async () => {
  const three = await withTenant(db, accountId, (tx) => alertItemRanges(tx, 3));
  expect(three).toHaveLength(3);
  const sizes = await Promise.all(three.map(async (r) => (await seriesOf(r)).length));
  expect(sizes.reduce((a, b) => a + b, 0)).toBe(130);
  // ntile's thirds of 130 series are 44, 43, 43; a boundary moves to the next item start, so a part is off by < 4
  expect(sizes.every((n) => Math.abs(n - 130 / 3) < 4)).toBe(true);
  expect(await withTenant(db, accountId, (tx) => alertItemRanges(tx, 1))).toEqual([{ from: null, to: null }]);
  const many = await withTenant(db, accountId, (tx) => alertItemRanges(tx, 500));
  expect(many).toHaveLength(40);
  expect((await Promise.all(many.map((r) => seriesOf(r, 50)))).flat()).toEqual(keys);
});

test('a tenant without series gets the one open range', async () => {
  const empty = await seriesGridTenant(db, 'alertranges-empty', 0, 0);
  expect(await withTenant(db, empty, (tx) => alertItemRanges(tx, 2))).toEqual([{ from: null, to: null }]);
});
