/**
 * The import activities called directly (no Temporal) against the real test PostgreSQL: what lands in every master
 * table, upsert and replace counts, duplicates, retries after a commit, and a table whose transaction fails.
 */
import crypto from 'node:crypto';
import { createImportActivities, isTableFailure, TableFailure } from '../../activities/import/activity';
import type { TableName } from '../../domain/import/tables';
import { stageRows } from '../../domain/import/validate';
import { createTestAccount } from '../support/tenantPool';
import { errorSamples, getRunTables, insertRunTables, insertStagingRows, truncateStaging, type ImportMode } from '../../db/importStaging';
import { getJob, insertJob, logTail } from '../../db/jobs';
import { openPool, sql, withTenant, type Db } from '../../db/pool';

let db: Db;
let accountId: string;
let acts: ReturnType<typeof createImportActivities>;

beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 4);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `import-acts-${crypto.randomBytes(3).toString('hex')}`)).id;
  acts = createImportActivities({ db });
});
afterAll(() => db.end());

type Query = ReturnType<typeof sql.unsafe>;
const q = <T = Record<string, unknown>>(query: Query): Promise<T[]> => withTenant(db, accountId, async (tx) => [...((await tx.any(query)) as T[])]);

async function stage(table: TableName, rows: Array<Record<string, unknown>>, truncate = true): Promise<void> {
  await withTenant(db, accountId, async (tx) => {
    if (truncate) await truncateStaging(tx, table);
    await insertStagingRows(tx, table, stageRows(table, rows));
  });
}

/** A run as the API creates it, then the workflow's steps in order. */
async function runImport(plan: Array<[TableName, ImportMode]>) {
  const runId = `import-test-${crypto.randomUUID()}`;
  await withTenant(db, accountId, async (tx) => {
    await insertJob(tx, { job_id: runId, kind: 'import', params: {} });
    await insertRunTables(tx, runId, plan.map(([table, mode]) => ({ table, mode })));
  });
  const ref = { runId, accountId };
  await acts.importStart(ref);
  const results = [];
  for (const [table, mode] of plan) results.push(await acts.importTable({ ...ref, table, mode }));
  const { status } = await acts.importFinish(ref);
  const byTable = Object.fromEntries(results.map((r) => [r.table_name, r]));
  return { runId, status, results, byTable };
}

beforeEach(async () => {
  await withTenant(db, accountId, async (tx) => {
    for (const t of ['supersession', 'firm_orders', 'demand_history', 'calendar_entries', 'calendars', 'routes', 'item_site', 'series', 'items', 'sites']) {
      await tx.query(sql.unsafe`DELETE FROM ${sql.identifier([t])}`);
    }
    for (const t of ['items', 'sites', 'item_site', 'routes', 'calendars', 'demand_history', 'firm_orders', 'supersession'] as TableName[]) await truncateStaging(tx, t);
  });
});

test('every staging table lands in its master table, codes resolved to ids', async () => {
  await stage('items', [
    { xuid: 'I1', name: 'Pump', avg_unit_cost: '10.5', unit_price: 20, attributes: { family: 'pumps' }, attr_colour: 'red' },
    { xuid: 'I2' },
  ]);
  await stage('sites', [{ xuid: 'S1', name: 'Central', site_type: 'DC' }, { xuid: 'S2', name: 'Store', site_type: 'STORE', attr_region: 'north' }]);
  await stage('item_site', [{ item_xuid: 'I1', site_xuid: 'S2', unit_cost: 9, lead_time_weeks: 2, on_hand: 40, safety_stock: 5, moq: 10, order_multiple: 5 }]);
  await stage('routes', [
    { item_xuid: '', from_site_xuid: 'S1', to_site_xuid: 'S2', route_type: 'replenishment', lead_time: 1 },
    { item_xuid: 'I1', from_site_xuid: 'S2', to_site_xuid: 'S1', route_type: 'REPAIR', lead_time: 3, priority: 2 },
  ]);
  await stage('calendars', [{ calendar: 'EU', ds: '2024-12-23', factor: 0, description: 'Christmas' }, { calendar: 'EU', ds: '2024-12-30', factor: 0.5 }]);
  await stage('demand_history', [
    { item_xuid: 'I1', site_xuid: 'S2', ds: '2024-01-01', qty: 4 },
    { item_xuid: 'I1', site_xuid: 'S2', ds: '2024-01-08', qty: 0 },
  ]);
  await stage('firm_orders', [{ external_id: 'PO-1', item_xuid: 'I1', site_xuid: 'S2', source_site_xuid: 'S1', order_type: 'transfer', qty: 12, release_dt: '2024-02-01', arrival_dt: '2024-02-15T08:00:00Z' }]);
  await stage('supersession', [{ from_item_xuid: 'I1', to_item_xuid: 'I2', effective_date: '2024-06-01', demand_factor: 1.5, stock_rollable: 'no' }]);

  const all: Array<[TableName, ImportMode]> = [['items', 'upsert'], ['sites', 'upsert'], ['item_site', 'upsert'], ['routes', 'upsert'], ['calendars', 'upsert'], ['demand_history', 'upsert'], ['firm_orders', 'upsert'], ['supersession', 'upsert']];
  const run = await runImport(all);
  expect(run.status).toBe('completed');
  for (const r of run.results) expect([r.table_name, r.status, r.rejected]).toEqual([r.table_name, 'completed', 0]);
  expect(run.results.map((r) => [r.table_name, r.inserted])).toEqual([['items', 2], ['sites', 2], ['item_site', 1], ['routes', 2], ['calendars', 2], ['demand_history', 2], ['firm_orders', 1], ['supersession', 1]]);

  const items = await q(sql.unsafe`SELECT xuid, name, avg_unit_cost, unit_price, attributes FROM items ORDER BY xuid`);
  expect(items).toEqual([
    { xuid: 'I1', name: 'Pump', avg_unit_cost: 10.5, unit_price: 20, attributes: { family: 'pumps', colour: 'red' } },
    { xuid: 'I2', name: 'I2', avg_unit_cost: 0, unit_price: 0, attributes: {} },
  ]);
  expect(await q(sql.unsafe`SELECT xuid, site_type, attributes FROM sites ORDER BY xuid`)).toEqual([
    { xuid: 'S1', site_type: 'DC', attributes: {} },
    { xuid: 'S2', site_type: 'STORE', attributes: { region: 'north' } },
  ]);
  expect(await q(sql.unsafe`SELECT i.xuid AS item, s.xuid AS site, unit_cost, lead_time_weeks, on_hand, safety_stock, moq, order_multiple
    FROM item_site x JOIN items i ON i.id = x.item_id JOIN sites s ON s.id = x.site_id`)).toEqual([
    { item: 'I1', site: 'S2', unit_cost: 9, lead_time_weeks: 2, on_hand: 40, safety_stock: 5, moq: 10, order_multiple: 5 },
  ]);
  expect(await q(sql.unsafe`SELECT i.xuid AS item, f.xuid AS from_site, t.xuid AS to_site, route_type, lead_time, priority FROM routes r
    LEFT JOIN items i ON i.id = r.item_id JOIN sites f ON f.id = r.from_site_id JOIN sites t ON t.id = r.to_site_id ORDER BY route_type`)).toEqual([
    { item: 'I1', from_site: 'S2', to_site: 'S1', route_type: 'REPAIR', lead_time: 3, priority: 2 },
    { item: null, from_site: 'S1', to_site: 'S2', route_type: 'REPLENISHMENT', lead_time: 1, priority: 1 },
  ]);
  expect(await q(sql.unsafe`SELECT c.name, e.ds, e.factor, e.description FROM calendar_entries e JOIN calendars c ON c.id = e.calendar_id ORDER BY ds`)).toEqual([
    { name: 'EU', ds: '2024-12-23', factor: 0, description: 'Christmas' },
    { name: 'EU', ds: '2024-12-30', factor: 0.5, description: null },
  ]);
  expect(await q(sql.unsafe`SELECT ds, qty FROM demand_history ORDER BY ds`)).toEqual([{ ds: '2024-01-01', qty: 4 }, { ds: '2024-01-08', qty: 0 }]);
  expect(await q(sql.unsafe`SELECT external_id, source_system, order_type, qty, release_dt, arrival_dt, erp_status, received_qty, (source_site_id IS NOT NULL) AS has_source FROM firm_orders`)).toEqual([
    { external_id: 'PO-1', source_system: 'manual_upload', order_type: 'TRANSFER', qty: 12, release_dt: '2024-02-01T00:00:00.000Z', arrival_dt: '2024-02-15T08:00:00.000Z', erp_status: 'firm', received_qty: 0, has_source: true },
  ]);
  expect(await q(sql.unsafe`SELECT effective_date, demand_factor, stock_rollable, site_id FROM supersession`)).toEqual([{ effective_date: '2024-06-01', demand_factor: 1.5, stock_rollable: false, site_id: null }]);

  const job = await withTenant(db, accountId, (tx) => getJob(tx, run.runId));
  expect(job).toMatchObject({ status: 'completed', progress: { done: 8, total: 8 }, result: { totals: { inserted: 13, rejected: 0 } } });
  const log = await withTenant(db, accountId, (tx) => logTail(tx, run.runId, 50));
  expect(log[0].message).toMatch(/^import started: items \(upsert\), sites \(upsert\)/);
  expect(log[log.length - 1].message).toBe('import completed: inserted 13, updated 0, deleted 0, rejected 0');
});

test('upsert updates existing keys (an empty cell keeps the stored value); replace also deletes unstaged keys', async () => {
  await stage('items', [{ xuid: 'A', name: 'Alpha', avg_unit_cost: 5, attributes: { a: 1 } }, { xuid: 'B', name: 'Beta' }]);
  await stage('sites', [{ xuid: 'S', name: 'Site' }]);
  await stage('demand_history', [
    { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-01', qty: 1 },
    { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-08', qty: 2 },
    { item_xuid: 'B', site_xuid: 'S', ds: '2024-01-01', qty: 3 },
  ]);
  let run = await runImport([['items', 'upsert'], ['sites', 'upsert'], ['demand_history', 'upsert']]);
  expect(run.byTable.demand_history).toMatchObject({ inserted: 3, updated: 0, deleted: 0 });

  await stage('items', [{ xuid: 'A', name: '', unit_price: 7, attributes: { b: 2 } }, { xuid: 'C' }]);
  await stage('demand_history', [
    { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-08', qty: 20 },
    { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-15', qty: 30 },
  ]);
  run = await runImport([['items', 'upsert'], ['demand_history', 'upsert']]);
  expect(run.byTable.items).toMatchObject({ status: 'completed', rows_read: 2, inserted: 1, updated: 1, deleted: 0 });
  expect(run.byTable.demand_history).toMatchObject({ inserted: 1, updated: 1, deleted: 0 });
  expect(await q(sql.unsafe`SELECT xuid, name, avg_unit_cost, unit_price, attributes FROM items WHERE xuid = 'A'`)).toEqual([
    { xuid: 'A', name: 'Alpha', avg_unit_cost: 5, unit_price: 7, attributes: { a: 1, b: 2 } },
  ]);
  expect((await q<{ qty: number }>(sql.unsafe`SELECT qty FROM demand_history ORDER BY item_id, ds`)).map((r) => r.qty)).toEqual([1, 20, 30, 3]);

  // replace: the staged rows are all that remain; kept keys are updated, not re-inserted
  await stage('demand_history', [{ item_xuid: 'A', site_xuid: 'S', ds: '2024-01-08', qty: 8 }, { item_xuid: 'B', site_xuid: 'S', ds: '2024-02-01', qty: 9 }]);
  run = await runImport([['demand_history', 'replace']]);
  expect(run.byTable.demand_history).toMatchObject({ status: 'completed', rows_read: 2, inserted: 1, updated: 1, deleted: 3, rejected: 0 });
  expect(await q(sql.unsafe`SELECT i.xuid, ds, qty FROM demand_history d JOIN items i ON i.id = d.item_id ORDER BY i.xuid, ds`)).toEqual([
    { xuid: 'A', ds: '2024-01-08', qty: 8 },
    { xuid: 'B', ds: '2024-02-01', qty: 9 },
  ]);

  // replace on items resets empty cells to their defaults (and keeps ids, so references survive)
  const idBefore = (await q<{ id: number }>(sql.unsafe`SELECT id FROM items WHERE xuid = 'A'`))[0].id;
  await stage('items', [{ xuid: 'A' }, { xuid: 'B', name: 'Beta 2' }]);
  run = await runImport([['items', 'replace']]);
  expect(run.byTable.items).toMatchObject({ status: 'completed', inserted: 0, updated: 2, deleted: 1 });
  expect(await q(sql.unsafe`SELECT id, xuid, name, unit_price, attributes FROM items ORDER BY xuid`)).toEqual([
    { id: idBefore, xuid: 'A', name: 'A', unit_price: 0, attributes: {} },
    { id: expect.any(Number), xuid: 'B', name: 'Beta 2', unit_price: 0, attributes: {} },
  ]);
});

test('bad rows are rejected with their reason and the good rows of the same table still land', async () => {
  await stage('items', [{ xuid: 'A' }]);
  await stage('sites', [{ xuid: 'S' }]);
  await stage('demand_history', [
    { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-01', qty: 1 },
    { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-08', qty: -4 },
    { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-15', qty: 'lots' },
    { item_xuid: 'ZZ', site_xuid: 'S', ds: '2024-01-22', qty: 1 },
    { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-01', qty: 2 },
    { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-29', qty: 5 },
  ]);
  const run = await runImport([['items', 'upsert'], ['sites', 'upsert'], ['demand_history', 'upsert']]);
  expect(run.status).toBe('completed');
  expect(run.byTable.demand_history).toMatchObject({ status: 'completed', rows_read: 6, inserted: 2, updated: 0, rejected: 4 });
  expect(await q(sql.unsafe`SELECT ds, qty FROM demand_history ORDER BY ds`)).toEqual([{ ds: '2024-01-01', qty: 1 }, { ds: '2024-01-29', qty: 5 }]);
  const errs = await withTenant(db, accountId, (tx) => errorSamples(tx, run.runId, 10));
  expect(errs.map((e) => [e.row_no, e.reason])).toEqual([
    [2, 'qty: -4 is negative; it must be >= 0'],
    [3, "qty: 'lots' is not a number"],
    [4, "item_xuid: unknown item 'ZZ'"],
    [5, 'duplicate key (item_xuid, site_xuid, ds): the same key is given by row 1, which is kept'],
  ]);
  expect(errs[0].row).toEqual({ item_xuid: 'A', site_xuid: 'S', ds: '2024-01-08', qty: '-4' });
  const log = (await withTenant(db, accountId, (tx) => logTail(tx, run.runId, 50))).map((l) => `${l.level} ${l.message}`);
  expect(log).toContain('warning demand_history: row 2 rejected: qty: -4 is negative; it must be >= 0');
  expect(log).toContain('warning demand_history: read 6, inserted 2, updated 0, deleted 0, rejected 4 (upsert)');
});

test('a retried activity after its commit returns the stored result and changes nothing', async () => {
  await stage('items', [{ xuid: 'A' }, { xuid: 'B' }]);
  const runId = `import-test-${crypto.randomUUID()}`;
  await withTenant(db, accountId, async (tx) => {
    await insertJob(tx, { job_id: runId, kind: 'import', params: {} });
    await insertRunTables(tx, runId, [{ table: 'items', mode: 'upsert' }]);
  });
  const first = await acts.importTable({ runId, accountId, table: 'items', mode: 'upsert' });
  const again = await acts.importTable({ runId, accountId, table: 'items', mode: 'upsert' });
  expect(first).toMatchObject({ status: 'completed', inserted: 2, updated: 0 });
  expect(again).toEqual(first);
  expect(await q(sql.unsafe`SELECT count(*)::int AS n FROM items`)).toEqual([{ n: 2 }]);
});

test('a table whose transaction fails applies nothing, records why, and the run goes on', async () => {
  await stage('items', [{ xuid: 'KEEP' }, { xuid: 'GONE' }]);
  await stage('sites', [{ xuid: 'S' }]);
  await stage('demand_history', [{ item_xuid: 'GONE', site_xuid: 'S', ds: '2024-01-01', qty: 1 }]);
  await runImport([['items', 'upsert'], ['sites', 'upsert'], ['demand_history', 'upsert']]);

  // replace would delete GONE, which demand history still refers to: the whole items table is refused
  await stage('items', [{ xuid: 'KEEP', name: 'renamed' }, { xuid: 'NEW' }, { xuid: 'BAD', unit_price: 'x' }]);
  await stage('sites', [{ xuid: 'S', name: 'Site renamed' }]);
  const run = await runImport([['items', 'replace'], ['sites', 'upsert']]);
  expect(run.status).toBe('failed');
  expect(run.byTable.items).toMatchObject({ status: 'failed', rows_read: 3, inserted: 0, updated: 0, deleted: 0, rejected: 1 });
  expect(run.byTable.items.error).toMatch(/^nothing was applied to items: .*foreign key/);
  expect(run.byTable.sites).toMatchObject({ status: 'completed', updated: 1 });
  expect(await q(sql.unsafe`SELECT xuid, name FROM items ORDER BY xuid`)).toEqual([{ xuid: 'GONE', name: 'GONE' }, { xuid: 'KEEP', name: 'KEEP' }]);
  expect(await q(sql.unsafe`SELECT name FROM sites`)).toEqual([{ name: 'Site renamed' }]);
  const errs = await withTenant(db, accountId, (tx) => errorSamples(tx, run.runId, 10));
  expect(errs.map((e) => [e.table_name, e.row_no, e.reason])).toEqual([['items', 3, "unit_price: 'x' is not a number"]]);
  const job = await withTenant(db, accountId, (tx) => getJob(tx, run.runId));
  expect(job).toMatchObject({ status: 'failed', error: 'tables not applied: items' });
});

test('replace with no valid row fails the table instead of emptying the target; an empty staging table is skipped', async () => {
  await stage('items', [{ xuid: 'A' }]);
  await runImport([['items', 'upsert']]);
  await stage('items', [{ xuid: '' }, { xuid: 'B', unit_price: '-1' }]);
  const run = await runImport([['items', 'replace'], ['sites', 'replace']]);
  expect(run.byTable.items).toMatchObject({ status: 'failed', rejected: 2, deleted: 0 });
  expect(run.byTable.items.error).toMatch(/replace would have emptied the target/);
  expect(run.byTable.sites).toMatchObject({ status: 'skipped', rows_read: 0, error: 'the staging table is empty' });
  expect(await q(sql.unsafe`SELECT xuid FROM items`)).toEqual([{ xuid: 'A' }]);
  const tables = await withTenant(db, accountId, (tx) => getRunTables(tx, [run.runId]));
  expect(tables.map((t) => [t.table_name, t.status])).toEqual([['items', 'failed'], ['sites', 'skipped']]);
});

test('which errors fail a table rather than retry', () => {
  expect(isTableFailure(new TableFailure('x'))).toBe(true);
  expect(isTableFailure(Object.assign(new Error('fk'), { cause: { code: '23503' } }))).toBe(true);
  expect(isTableFailure(Object.assign(new Error('conn'), { code: '08006' }))).toBe(false);
  expect(isTableFailure(new Error('ECONNRESET'))).toBe(false);
});
