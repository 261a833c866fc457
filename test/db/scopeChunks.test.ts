import { createTestAccount } from '../support/tenantPool';
import { openPool, sql, withTenant, type Db } from '../../db/pool';
import { scopeChunks, scopeItemChunks } from '../../db/seriesSteps';

let db: Db;
let accountId: string;
const scope = { pipelineId: 0, segmentId: null, keys: null };

beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `scope-chunks-${Date.now()}`)).id;
  // 2,150 series: 43 items × 50 sites
  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT 'i' || g, 'item ' || g FROM generate_series(1, 43) g`);
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) SELECT 's' || g, 'site ' || g FROM generate_series(1, 50) g`);
    // n_observations: the etl step has built their weekly history, which puts them in a step's scope
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations) SELECT i.id, s.id, 156 FROM items i CROSS JOIN sites s`);
  });
});
afterAll(async () => {
  await db.end();
});

const plan = (chunkSize: number, lanes: number) => withTenant(db, accountId, (tx) => scopeChunks(tx, scope, chunkSize, lanes));

test('the last lanes × chunk_size series (and the remainder) come in quarter-size chunks, in key order', async () => {
  const chunks = await plan(200, 2);
  // full chunks up to ((2150 − 400) / 200) · 200 = 1,600 series, then 550 series in chunks of 50
  expect(chunks.map((c) => c.count)).toEqual([...Array(8).fill(200), ...Array(11).fill(50)]);
  expect(chunks.reduce((n, c) => n + c.count, 0)).toBe(2150);
  for (let i = 1; i < chunks.length; i++) {
    const prev = chunks[i - 1].to;
    const next = chunks[i].from;
    expect(next.item_id > prev.item_id || (next.item_id === prev.item_id && next.site_id > prev.site_id)).toBe(true);
  }
});

test('no taper for small chunks or when there are few chunks per lane', async () => {
  expect((await plan(50, 2)).map((c) => c.count)).toEqual([...Array(43).fill(50)]);
  expect((await plan(500, 4)).map((c) => c.count)).toEqual([500, 500, 500, 500, 150]);
  expect((await plan(1000, 2)).map((c) => c.count)).toEqual([1000, 1000, 150]);
  // one lane: the last 1,000 series and the remainder are cut
  expect((await plan(1000, 1)).map((c) => c.count)).toEqual([1000, 250, 250, 250, 250, 150]);
});

test('item chunks hold whole items: about chunk_size series each, never an item split across two chunks', async () => {
  const chunks = await withTenant(db, accountId, (tx) => scopeItemChunks(tx, scope, 120));
  // 50 series per item: an item goes to chunk ⌊series before it / 120⌋, so chunks hold 2 or 3 whole items
  expect(chunks.map((c) => c.count)).toEqual([150, 100, 150, 100, 100, 150, 100, 150, 100, 100, 150, 100, 150, 100, 100, 150, 100, 100].slice(0, chunks.length));
  expect(chunks.reduce((n, c) => n + c.count, 0)).toBe(2150);
  for (const c of chunks) expect([c.from.site_id, c.to.site_id]).toEqual([expect.any(Number), expect.any(Number)]);
  for (let i = 1; i < chunks.length; i++) expect(chunks[i].from.item_id).toBe(chunks[i - 1].to.item_id + 1);
  const ids = await withTenant(db, accountId, (tx) => tx.one(sql.unsafe`SELECT min(id) AS lo, max(id) AS hi FROM sites`)) as { lo: number; hi: number };
  expect(chunks.every((c) => c.from.site_id === ids.lo && c.to.site_id === ids.hi)).toBe(true);
});
