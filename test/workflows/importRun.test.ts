/**
 * importRun on a real Temporal dev server with a real worker: an import with bad rows reports them and loses none
 * of the good ones, across chunk boundaries, when the worker is down at start, and the history replays.
 */
import crypto from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { stageRows } from '../../domain/import/validate';
import { startImportRun } from '../../api/routes/import';
import { createTestAccount } from '../support/tenantPool';
import { errorSamples, getRunTables, insertStagingRows, truncateStaging } from '../../db/importStaging';
import { getJob } from '../../db/jobs';
import { openPool, sql, withTenant, type Db } from '../../db/pool';
import type { importRun } from '../../workflows';
import { startTestWorker, workflowBundle, type TestWorker } from '../support/temporal';

let tw: TestWorker;
let db: Db;
let accountId: string;

beforeAll(async () => {
  tw = await startTestWorker();
  db = await openPool(process.env.DATABASE_URL!, 4);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `import-wf-${crypto.randomBytes(3).toString('hex')}`)).id;
}, 120_000);
afterAll(async () => {
  await tw.close();
  await db.end();
});

const temporal = () => ({ client: tw.client, taskQueue: tw.taskQueue });

async function stage(table: 'items' | 'sites' | 'demand_history', rows: Array<Record<string, unknown>>): Promise<void> {
  await withTenant(db, accountId, async (tx) => {
    await truncateStaging(tx, table);
    await insertStagingRows(tx, table, stageRows(table, rows));
  });
}

const ITEMS = 40;
const WEEKS = 300;

/** 12 000 demand rows; every 97th is bad in one of four ways, so rejections fall in every 5 000-row chunk. */
function demandRows(): { rows: Array<Record<string, unknown>>; good: Map<string, number>; bad: Map<number, string> } {
  const rows: Array<Record<string, unknown>> = [];
  const good = new Map<string, number>();
  const bad = new Map<number, string>();
  const start = Date.UTC(2019, 0, 7);
  for (let i = 0; i < ITEMS; i += 1) {
    for (let w = 0; w < WEEKS; w += 1) {
      const rowNo = rows.length + 1;
      const ds = new Date(start + w * 7 * 86_400_000).toISOString().slice(0, 10);
      const qty = (i * 7 + w) % 13;
      if (rowNo % 97 === 0) {
        const kind = (rowNo / 97) % 4;
        if (kind === 0) {
          rows.push({ item_xuid: `IT${i}`, site_xuid: 'S1', ds, qty: -qty - 1 });
          bad.set(rowNo, `qty: ${-qty - 1} is negative; it must be >= 0`);
        } else if (kind === 1) {
          rows.push({ item_xuid: `IT${i}`, site_xuid: 'S1', ds, qty: 'n/a' });
          bad.set(rowNo, "qty: 'n/a' is not a number");
        } else if (kind === 2) {
          rows.push({ item_xuid: 'GHOST', site_xuid: 'S1', ds, qty });
          bad.set(rowNo, "item_xuid: unknown item 'GHOST'");
        } else {
          rows.push({ item_xuid: `IT${i}`, site_xuid: 'S1', ds: `${ds.slice(0, 8)}32`, qty });
          bad.set(rowNo, `ds: '${ds.slice(0, 8)}32' is not a valid date (YYYY-MM-DD)`);
        }
        continue;
      }
      rows.push({ item_xuid: `IT${i}`, site_xuid: 'S1', ds, qty });
      good.set(`IT${i}|${ds}`, qty);
    }
  }
  return { rows, good, bad };
}

let firstRunId: string;

test('an import with bad rows reports every one of them and loses none of the good ones', async () => {
  await stage('items', [...Array.from({ length: ITEMS }, (_, i) => ({ xuid: `IT${i}`, name: `Item ${i}` })), { xuid: 'BAD', avg_unit_cost: '-5' }]);
  await stage('sites', [{ xuid: 'S1', name: 'Main' }]);
  const { rows, good, bad } = demandRows();
  await stage('demand_history', rows);

  const started = await startImportRun(db, temporal(), { accountId, createdBy: 'test' });
  firstRunId = started.run_id;
  expect(started.tables).toEqual(['items', 'sites', 'demand_history']);
  const result = await tw.client.workflow.getHandle<typeof importRun>(started.run_id).result();

  expect(result.status).toBe('completed');
  expect(result.tables.map((r) => [r.table_name, r.status, r.rows_read, r.inserted, r.rejected])).toEqual([
    ['items', 'completed', ITEMS + 1, ITEMS, 1],
    ['sites', 'completed', 1, 1, 0],
    ['demand_history', 'completed', ITEMS * WEEKS, good.size, bad.size],
  ]);
  expect(good.size + bad.size).toBe(ITEMS * WEEKS);

  // every good row is in demand_history with its quantity, and nothing else is
  const stored = (await withTenant(db, accountId, (tx) =>
    tx.any(sql.unsafe`SELECT i.xuid, d.ds, d.qty FROM demand_history d JOIN items i ON i.id = d.item_id`),
  )) as Array<{ xuid: string; ds: string; qty: number }>;
  expect(stored).toHaveLength(good.size);
  for (const r of stored) expect(good.get(`${r.xuid}|${r.ds}`)).toBe(r.qty);

  // every bad row is listed with its row number and reason
  const errors = await withTenant(db, accountId, (tx) => errorSamples(tx, started.run_id, 1000));
  const demandErrors = errors.filter((e) => e.table_name === 'demand_history');
  expect(new Map(demandErrors.map((e) => [Number(e.row_no), e.reason]))).toEqual(bad);
  expect(errors.filter((e) => e.table_name === 'items').map((e) => e.reason)).toEqual(['avg_unit_cost: -5 is negative; it must be >= 0']);

  const job = await withTenant(db, accountId, (tx) => getJob(tx, started.run_id));
  expect(job).toMatchObject({ kind: 'import', status: 'completed', error: null, progress: { done: 3, total: 3 } });
  expect(job!.result).toMatchObject({ totals: { rows_read: ITEMS * WEEKS + ITEMS + 2, inserted: good.size + ITEMS + 1, rejected: bad.size + 1 } });
}, 120_000);

test('the run carries the AccountId and JobKind search attributes', async () => {
  const d = await tw.client.workflow.getHandle(firstRunId).describe();
  expect(d.searchAttributes.AccountId).toEqual([accountId]);
  expect(d.searchAttributes.JobKind).toEqual(['import']);
});

test('a run started while no worker polls waits, then completes with exact counts', async () => {
  await tw.worker.shutdown();
  await stage('demand_history', [
    { item_xuid: 'IT1', site_xuid: 'S1', ds: '2030-01-07', qty: 3 },
    { item_xuid: 'IT1', site_xuid: 'S1', ds: '2030-01-14', qty: -3 },
    { item_xuid: 'IT2', site_xuid: 'S1', ds: '2030-01-07', qty: 4 },
  ]);
  const started = await startImportRun(db, temporal(), { accountId, tables: ['demand_history'], createdBy: 'test' });
  expect(started.status).toBe('running');
  await new Promise((r) => setTimeout(r, 1000));
  const waiting = await withTenant(db, accountId, (tx) => getRunTables(tx, [started.run_id]));
  expect(waiting.map((x) => x.status)).toEqual(['pending']);

  await tw.restart();
  const result = await tw.client.workflow.getHandle<typeof importRun>(started.run_id).result();
  expect(result.tables).toEqual([
    { table_name: 'demand_history', mode: 'upsert', status: 'completed', rows_read: 3, inserted: 2, updated: 0, deleted: 0, rejected: 1, error: null },
  ]);
  const rows = await withTenant(db, accountId, (tx) => tx.any(sql.unsafe`SELECT qty FROM demand_history WHERE ds >= '2030-01-01' ORDER BY item_id, ds`));
  expect(rows).toEqual([{ qty: 3 }, { qty: 4 }]);
}, 120_000);

test('its history replays deterministically', async () => {
  const history = await tw.client.workflow.getHandle(firstRunId).fetchHistory();
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, firstRunId)).resolves.toBeUndefined();
}, 120_000);
