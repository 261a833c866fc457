import { generateExceptionLog, refreshExceptionLog, seriesKeyRanges } from '../../db/exceptionLog';
import { openPool, sql, withTenant, type Db, type Tx } from '../../db/pool';
import { inKeyRange } from '../../domain/series/keys';
import { seedExceptions, type ExceptionSeed } from '../support/exceptionSeed';
import { createTestAccount } from '../support/tenantPool';

/**
 * A whole-pipeline refresh of the exception log goes key range by key range (db/exceptionLog.ts), so no statement
 * holds the pipeline's issues. Ranges of one SKU-site each must leave the log exactly as one range over everything.
 */
let db: Db;
let accountId: string;
let seed: ExceptionSeed;
const q = <T>(fn: (tx: Tx) => Promise<T>) => withTenant(db, accountId, fn);

beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `exception-ranges-${Date.now()}`)).id;
  seed = await seedExceptions(db, accountId);
  // a supply run whose exceptions are on P@S1 (which has forecast and io issues too) and on Q@DC, an item-site with
  // no series: the ranges must reach it through item_site
  await q(async (tx) => {
    const scenario = await tx.oneFirst(sql.unsafe`INSERT INTO supply_scenarios (name) VALUES ('ranges') RETURNING id`);
    await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id) VALUES (${seed.items.Q}, ${seed.sites.DC}) ON CONFLICT DO NOTHING`);
    await tx.query(sql.unsafe`INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date) VALUES ('run-ranges', ${seed.pipelineId}, ${scenario as number}, 'completed', '2026-06-01')`);
    await tx.query(sql.unsafe`
      INSERT INTO supply_exceptions (run_id, item_id, site_id, type, week, end_week, qty, severity, description) VALUES
        ('run-ranges', ${seed.items.P}, ${seed.sites.S1}, 'shortage', 2, 3, 5, 'high', 'short'),
        ('run-ranges', ${seed.items.Q}, ${seed.sites.DC}, 'excess', 1, 1, 9, 'low', 'too much')`);
  });
}, 120_000);
afterAll(async () => {
  await db.end();
});

const snapshot = () => q(async (tx) => [...(await tx.any(sql.unsafe`
  SELECT item_id, site_id, exception_types, issues, status FROM exception_log WHERE pipeline_id = ${seed.pipelineId} ORDER BY item_id, site_id`))]);

test('ranges of at most `size` SKU-sites cover every key, the item-sites without series included', async () => {
  const keys = await q((tx) => tx.any(sql.unsafe`SELECT item_id, site_id FROM series UNION SELECT item_id, site_id FROM item_site ORDER BY 1, 2`)) as any[];
  expect(keys.length).toBeGreaterThanOrEqual(5);
  for (const size of [1, 2, 3, 1000]) {
    const ranges = await q((tx) => seriesKeyRanges(tx, size));
    expect(ranges.length).toBe(Math.ceil(keys.length / size));
    expect([ranges[0].from, ranges[ranges.length - 1].to]).toEqual([null, null]);
    for (const k of keys) expect(ranges.filter((r) => inKeyRange(k, r)).length).toBe(1);
    for (const r of ranges) expect(keys.filter((k) => inKeyRange(k, r)).length).toBeLessThanOrEqual(size);
  }
});

test('generation range by range writes the same rows, results and counts as one range', async () => {
  const { items, sites } = seed;
  const oneByOne = await q((tx) => generateExceptionLog(tx, seed.pipelineId, 'run-ranges', undefined, { chunkSeries: 1 }));
  const byRange = await snapshot();
  expect(byRange.map((r: any) => [r.item_id, r.site_id, r.exception_types])).toEqual([
    [items.P, sites.S1, ['forecast', 'io', 'supply']], [items.P, sites.S2, ['forecast', 'io']],
    [items.Q, sites.DC, ['supply']], [seed.itemR, sites.S2, ['forecast']],
  ].sort((a: any, b: any) => a[0] - b[0] || a[1] - b[1]));
  expect(oneByOne).toEqual({ result: { sku_sites_with_issues: 4, created: 4, updated: 0, reopened: 0, cleared: 0 }, counts: { forecast: 3, io: 2, supply: 2 } });

  await q((tx) => tx.query(sql.unsafe`DELETE FROM exception_log`));
  const whole = await q((tx) => generateExceptionLog(tx, seed.pipelineId, 'run-ranges', undefined, { chunkSeries: 1_000_000 }));
  expect(whole).toEqual(oneByOne);
  expect(await snapshot()).toEqual(byRange);
});

test('a refresh by ranges keeps planners\' statuses and clears a row whose SKU-site is in no series', async () => {
  const { items, sites } = seed;
  await q(async (tx) => {
    await tx.query(sql.unsafe`UPDATE exception_log SET status = 'resolved' WHERE item_id = ${items.P} AND site_id = ${sites.S1}`);
    // a row left by an earlier run on a key that is neither a series nor an item-site now
    await tx.query(sql.unsafe`INSERT INTO exception_log (pipeline_id, item_id, site_id, exception_types, issues) VALUES
      (${seed.pipelineId}, ${items.Q}, ${sites.V}, '{forecast}', '[{"type": "forecast", "code": "bias", "severity": "low", "description": "old"}]')`);
  });
  const again = await q((tx) => generateExceptionLog(tx, seed.pipelineId, 'run-ranges', undefined, { chunkSeries: 1 }));
  expect(again.result).toEqual({ sku_sites_with_issues: 4, created: 0, updated: 5, reopened: 0, cleared: 1 });
  const rows = Object.fromEntries((await snapshot()).map((r: any) => [`${r.item_id}_${r.site_id}`, r]));
  expect(rows[`${items.P}_${sites.S1}`].status).toBe('resolved');
  expect(rows[`${items.Q}_${sites.V}`]).toMatchObject({ status: 'resolved', issues: [], exception_types: [] });
});

test('a whole-pipeline refresh of one kind hands each range its own part of the fresh issues', async () => {
  const { items, sites } = seed;
  const issue = (code: string) => ({ type: 'service', code, severity: 'medium', description: code }) as any;
  const r = await q((tx) => refreshExceptionLog(tx, seed.pipelineId, [
    { item_id: items.Q, site_id: sites.S1, issues: [issue('short_service')] },
    { item_id: items.P, site_id: sites.S2, issues: [issue('late')] },
  ], null, ['service'], undefined, 1));
  expect(r).toEqual({ sku_sites_with_issues: 2, created: 1, updated: 1, reopened: 0, cleared: 0 });
  const rows = Object.fromEntries((await snapshot()).map((x: any) => [`${x.item_id}_${x.site_id}`, x]));
  expect(rows[`${items.Q}_${sites.S1}`]).toMatchObject({ exception_types: ['service'], status: 'open' });
  expect(rows[`${items.P}_${sites.S2}`].exception_types).toEqual(['forecast', 'io', 'service']);
  expect(rows[`${items.P}_${sites.S2}`].issues.map((i: any) => i.code)).toEqual(['bias', 'no_distribution', 'late']);
});
