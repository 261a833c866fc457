/**
 * Demand rows take two roads in an import: the plainly valid ones move from staging to import_src in one statement
 * inside PostgreSQL, the others through the validator (domain/import/validate.ts). Whatever road a row takes, the run
 * must accept, reject, word and store it exactly as the validator alone would; these tests judge every staged row
 * with validateRow and compare with what the run did, over cells chosen to sit on either side of the boundary.
 */
import crypto from 'node:crypto';
import { createImportActivities } from '../../activities/import/activity';
import { stageRows, validateRow, type StagedRow } from '../../domain/import/validate';
import { createTestAccount } from '../support/tenantPool';
import { errorSamples, insertRunTables, insertStagingRows, truncateStaging } from '../../db/importStaging';
import { insertJob, logTail } from '../../db/jobs';
import { addPlainSource, createSource } from '../../db/masterDataWrite';
import { openPool, sql, withTenant, type Db } from '../../db/pool';

let db: Db;
let accountId: string;
let acts: ReturnType<typeof createImportActivities>;

beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 4);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `import-plain-${crypto.randomBytes(3).toString('hex')}`)).id;
  acts = createImportActivities({ db });
  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('P1', 'P1'), ('p1', 'p1'), ('P 2', 'P 2'), ('Ü3', 'Ü3')`);
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'S1'), ('S-2', 'S-2')`);
  });
});
afterAll(() => db.end());

async function importDemand(rows: Array<Record<string, unknown>>, mode: 'upsert' | 'replace' = 'upsert') {
  const runId = `import-plain-${crypto.randomUUID()}`;
  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`DELETE FROM demand_history`);
    await truncateStaging(tx, 'demand_history');
    await insertStagingRows(tx, 'demand_history', stageRows('demand_history', rows));
    await insertJob(tx, { job_id: runId, kind: 'import', params: {} });
    await insertRunTables(tx, runId, [{ table: 'demand_history', mode }]);
  });
  await acts.importStart({ runId, accountId });
  const result = await acts.importTable({ runId, accountId, table: 'demand_history', mode });
  await acts.importFinish({ runId, accountId });
  return withTenant(db, accountId, async (tx) => {
    const staged = (await tx.any(sql.unsafe`SELECT row_no, item_xuid, site_xuid, ds, qty FROM stg_demand_history ORDER BY row_no`)) as Array<StagedRow & { row_no: number }>;
    const items = new Map(((await tx.any(sql.unsafe`SELECT xuid, id FROM items`)) as Array<{ xuid: string; id: number }>).map((r) => [r.xuid, r.id]));
    const sites = new Map(((await tx.any(sql.unsafe`SELECT xuid, id FROM sites`)) as Array<{ xuid: string; id: number }>).map((r) => [r.xuid, r.id]));
    const stored = (await tx.any(sql.unsafe`SELECT item_id, site_id, ds, qty::text AS qty FROM demand_history ORDER BY item_id, site_id, ds`)) as Array<{ item_id: number; site_id: number; ds: string; qty: string }>;
    const errors = (await errorSamples(tx, runId, 1000)).map((e) => ({ row_no: Number(e.row_no), reason: e.reason }));
    const bulk = (await logTail(tx, runId, 50)).some((l) => l.message.includes('loaded in one statement'));
    return { result, staged, refs: { items, sites }, stored, errors, bulk };
  });
}

/** What the validator alone makes of the staged rows: rejections with reasons, then the first row of each key kept. */
function judge(staged: Array<StagedRow & { row_no: number }>, refs: { items: Map<string, number>; sites: Map<string, number> }) {
  const errors: Array<{ row_no: number; reason: string }> = [];
  const kept = new Map<string, { row_no: number; item_id: number; site_id: number; ds: string; qty: number }>();
  for (const { row_no, ...raw } of staged) {
    const r = validateRow('demand_history', raw, refs);
    if (!r.ok) {
      errors.push({ row_no: Number(row_no), reason: r.reason });
      continue;
    }
    const key = `${r.values.item_xuid}|${r.values.site_xuid}|${r.values.ds}`;
    const first = kept.get(key);
    if (first) errors.push({ row_no: Number(row_no), reason: `duplicate key (item_xuid, site_xuid, ds): the same key is given by row ${first.row_no}, which is kept` });
    else kept.set(key, { row_no: Number(row_no), item_id: Number(r.values.item_xuid), site_id: Number(r.values.site_xuid), ds: r.values.ds!, qty: Number(r.values.qty) });
  }
  errors.sort((a, b) => a.row_no - b.row_no);
  const stored = [...kept.values()]
    .map(({ item_id, site_id, ds, qty }) => ({ item_id, site_id, ds, qty }))
    .sort((a, b) => a.item_id - b.item_id || a.site_id - b.site_id || a.ds.localeCompare(b.ds));
  return { errors, stored };
}

// Cells on both sides of the in-database road's boundary; each row gets its own date unless a duplicate is meant.
const CELLS: Array<Record<string, unknown>> = [
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-01', qty: '5' },
  { item_xuid: ' P1', site_xuid: 'S1', ds: '2024-01-01', qty: '6' }, // same key once trimmed: a duplicate of row 1
  { item_xuid: 'P1 ', site_xuid: 'S1', ds: '2024-01-02', qty: '7' }, // validator road, kept …
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-02', qty: '8' }, // … so this plain row is the duplicate
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-03', qty: '5.50' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-04', qty: '007.250' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-05', qty: '0.0000001' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-06', qty: '+3' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-07', qty: '1.' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-08', qty: '.5' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-09', qty: '2e3' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-10', qty: '123456789012345' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-11', qty: '1234567890123456789' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-12', qty: '0.1000000000000000055511' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-13', qty: '-2' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-14', qty: '-0' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-15', qty: '1,5' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-16', qty: 'abc' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-17', qty: '1e400' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-02-30', qty: '1' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '0050-01-01', qty: '1' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '1999-12-31', qty: '1' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-1-18', qty: '1' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-19T00:00:00', qty: '1' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-02-29', qty: '1' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: ' 2024-01-20', qty: ' 4 ' },
  { item_xuid: 'p1', site_xuid: 'S1', ds: '2024-01-01', qty: '1' },
  { item_xuid: 'P 2', site_xuid: 'S-2', ds: '2024-01-01', qty: '1' },
  { item_xuid: 'Ü3', site_xuid: 'S-2', ds: '2024-01-01', qty: '1' },
  { item_xuid: '\u00a0P1', site_xuid: 'S-2', ds: '2024-01-02', qty: '1' },
  { item_xuid: 'P1\u3000', site_xuid: 'S-2', ds: '2024-01-03', qty: '1' },
  { item_xuid: 'P9', site_xuid: 'S1', ds: '2024-01-21', qty: '1' },
  { item_xuid: 'P1', site_xuid: 's1', ds: '2024-01-22', qty: '1' },
  { item_xuid: 'P9', site_xuid: 'S9', ds: 'soon', qty: '-1' },
  { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-01-23', qty: null },
];

test('every row is accepted, rejected, worded and stored as the validator alone would', async () => {
  const run = await importDemand(CELLS);
  const expected = judge(run.staged, run.refs);
  expect(run.errors).toEqual(expected.errors);
  expect(run.stored.map((r) => ({ ...r, qty: Number(r.qty) }))).toEqual(expected.stored);
  expect(run.result).toMatchObject({
    status: 'completed', rows_read: CELLS.length, inserted: expected.stored.length, updated: 0, rejected: expected.errors.length,
  });
  // the boundary cases behave as intended, not only alike
  expect(expected.errors).toEqual(expect.arrayContaining([
    { row_no: 2, reason: 'duplicate key (item_xuid, site_xuid, ds): the same key is given by row 1, which is kept' },
    { row_no: 4, reason: 'duplicate key (item_xuid, site_xuid, ds): the same key is given by row 3, which is kept' },
    { row_no: 21, reason: "ds: '0050-01-01' is not a valid date (YYYY-MM-DD)" },
  ]));
  expect(run.stored).toEqual(expect.arrayContaining([
    expect.objectContaining({ ds: '2024-01-03', qty: '5.5' }),
    expect.objectContaining({ ds: '2024-01-04', qty: '7.25' }),
    expect.objectContaining({ ds: '2024-01-02', qty: '7' }),
  ]));
});

test('the rows that never leave the database are exactly the plain ones; the validator judges the others', async () => {
  const taken = await withTenant(db, accountId, async (tx) => {
    await truncateStaging(tx, 'demand_history');
    await insertStagingRows(tx, 'demand_history', stageRows('demand_history', CELLS));
    await createSource(tx, 'demand_history');
    const n = await addPlainSource(tx, 'demand_history');
    const rows = (await tx.any(sql.unsafe`SELECT row_no, ds::text AS ds, qty::text AS qty FROM import_src ORDER BY row_no`)) as Array<{ row_no: number; ds: string; qty: string }>;
    return { n, rows };
  });
  expect(taken.rows.map((r) => Number(r.row_no))).toEqual([1, 4, 5, 6, 7, 12, 22, 25, 27, 28]);
  expect(taken.n).toBe(10);
  expect(taken.rows.find((r) => Number(r.row_no) === 6)).toEqual({ row_no: 6, ds: '2024-01-04', qty: '7.25' });
  // a table without an in-database road sends every row to the validator
  const none = await withTenant(db, accountId, async (tx) => {
    await createSource(tx, 'items');
    return addPlainSource(tx, 'items');
  });
  expect(none).toBe(0);
});

test('replace and a second upsert give the same counts whichever road the rows took', async () => {
  const rows = [
    { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-03-04', qty: '1' },
    { item_xuid: ' P1', site_xuid: 'S1', ds: '2024-03-11', qty: '2' },
    { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-03-18', qty: '-1' },
  ];
  const first = await importDemand(rows, 'replace');
  expect(first.result).toMatchObject({ status: 'completed', rows_read: 3, inserted: 2, updated: 0, deleted: 0, rejected: 1 });
  // staging rows stay: importing them again updates both stored rows and inserts nothing
  const runId = `import-plain-${crypto.randomUUID()}`;
  await withTenant(db, accountId, async (tx) => {
    await insertJob(tx, { job_id: runId, kind: 'import', params: {} });
    await insertRunTables(tx, runId, [{ table: 'demand_history', mode: 'upsert' }]);
  });
  const again = await acts.importTable({ runId, accountId, table: 'demand_history', mode: 'upsert' });
  expect(again).toMatchObject({ status: 'completed', rows_read: 3, inserted: 0, updated: 2, deleted: 0, rejected: 1 });
});

test('demand imported in bulk is still held by its foreign keys: its item cannot be deleted', async () => {
  const run = await importDemand([{ item_xuid: 'P 2', site_xuid: 'S1', ds: '2024-04-01', qty: '3' }]);
  expect(run.result).toMatchObject({ status: 'completed', inserted: 1 });
  const refused = withTenant(db, accountId, (tx) => tx.query(sql.unsafe`DELETE FROM items WHERE xuid = 'P 2'`));
  await expect(refused).rejects.toMatchObject({ constraint: 'demand_history_item_id_fkey' });
  const held = await withTenant(db, accountId, (tx) => tx.oneFirst(sql.unsafe`
    SELECT count(*)::int FROM pg_constraint WHERE conrelid = 'demand_history'::regclass AND contype = 'f' AND convalidated`));
  expect(held).toBe(2);
});

describe('a first load whose every row is plain goes from staging to the target in one statement', () => {
  // plain cells only, in no key order: the bulk road sorts them itself
  const CLEAN = [
    { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-05-13', qty: '4' },
    { item_xuid: 'P 2', site_xuid: 'S-2', ds: '2024-05-06', qty: '0.50' },
    { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-05-06', qty: '007' },
    { item_xuid: 'p1', site_xuid: 'S1', ds: '2024-05-06', qty: '12.125' },
  ];

  test('into an empty target: stored as the validator alone would, counted, said in the log, held by its keys', async () => {
    const run = await importDemand(CLEAN);
    expect(run.bulk).toBe(true);
    const expected = judge(run.staged, run.refs);
    expect(expected.errors).toEqual([]);
    expect(run.errors).toEqual([]);
    expect(run.stored.map((r) => ({ ...r, qty: Number(r.qty) }))).toEqual(expected.stored);
    expect(run.stored.map((r) => r.qty)).toEqual(expect.arrayContaining(['4', '0.5', '7', '12.125']));
    expect(run.result).toMatchObject({ status: 'completed', rows_read: 4, inserted: 4, updated: 0, deleted: 0, rejected: 0 });
    const refused = withTenant(db, accountId, (tx) => tx.query(sql.unsafe`DELETE FROM sites WHERE xuid = 'S-2'`));
    await expect(refused).rejects.toMatchObject({ constraint: 'demand_history_site_id_fkey' });
  });

  test('a repeated key or one row that is not plain sends the file down the ordinary road, with the same rejections', async () => {
    const repeated = await importDemand([...CLEAN, { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-05-13', qty: '9' }]);
    expect(repeated.bulk).toBe(false);
    expect(repeated.errors).toEqual([{ row_no: 5, reason: 'duplicate key (item_xuid, site_xuid, ds): the same key is given by row 1, which is kept' }]);
    expect(repeated.result).toMatchObject({ status: 'completed', rows_read: 5, inserted: 4, rejected: 1 });
    expect(repeated.stored.find((r) => r.ds === '2024-05-13')?.qty).toBe('4');

    const trimmed = await importDemand([...CLEAN, { item_xuid: 'P1', site_xuid: 'S1', ds: '2024-05-20', qty: ' 3' }]);
    expect(trimmed.bulk).toBe(false);
    expect(trimmed.errors).toEqual(judge(trimmed.staged, trimmed.refs).errors);
    expect(trimmed.result).toMatchObject({ status: 'completed', rows_read: 5, inserted: 5, rejected: 0 });
  });

  test('a target that already holds rows takes the ordinary road: its rows are updated, not refused', async () => {
    await importDemand(CLEAN);
    const runId = `import-plain-${crypto.randomUUID()}`;
    await withTenant(db, accountId, async (tx) => {
      await insertJob(tx, { job_id: runId, kind: 'import', params: {} });
      await insertRunTables(tx, runId, [{ table: 'demand_history', mode: 'upsert' }]);
    });
    const again = await acts.importTable({ runId, accountId, table: 'demand_history', mode: 'upsert' });
    expect(again).toMatchObject({ status: 'completed', rows_read: 4, inserted: 0, updated: 4, rejected: 0 });
    const lines = await withTenant(db, accountId, (tx) => logTail(tx, runId, 50));
    expect(lines.some((l) => l.message.includes('loaded in one statement'))).toBe(false);
  });
});
