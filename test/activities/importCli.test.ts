/** scripts/importCli.ts: load a CSV into staging and run an import from the command line. */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestAccount } from '../support/tenantPool';
import { openPool, sql, withTenant, type Db } from '../../db/pool';
import { main } from '../../scripts/importCli';
import { startTestWorker, type TestWorker } from '../support/temporal';

let db: Db;
let accountId: string;
let dir: string;
let tw: TestWorker;

beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `import-cli-${crypto.randomBytes(3).toString('hex')}`)).id;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cli-'));
  tw = await startTestWorker();
}, 120_000);
afterAll(async () => {
  await tw.close();
  await db.end();
  fs.rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};

test('load puts a CSV into staging through the same checks as the API; run imports it', async () => {
  const items = file('items.csv', 'xuid,name\nA,Alpha\nB,Beta\n');
  const sites = file('sites.csv', 'xuid;name\nS;Site\n');
  const demand = file('demand.csv', 'item_xuid,site_xuid,ds,qty\nA,S,2024-01-01,3\nB,S,2024-01-01,-1\n');
  expect(await main(['load', '--account', accountId, '--table', 'items', '--file', items])).toMatchObject({ table_name: 'items', loaded: 2, row_count: 2 });
  expect(await main(['load', '--account', accountId, '--table', 'sites', '--file', sites, '--delimiter', ';'])).toMatchObject({ loaded: 1 });
  expect(await main(['load', '--account', accountId, '--table', 'demand_history', '--file', demand])).toMatchObject({ loaded: 2, row_count: 2 });
  expect(await main(['load', '--account', accountId, '--table', 'demand_history', '--file', demand, '--truncate'])).toMatchObject({ loaded: 2, row_count: 2 });

  process.env.TEMPORAL_TASK_QUEUE = tw.taskQueue;
  try {
    const out = (await main(['run', '--account', accountId, '--mode', 'demand_history=replace', '--wait'])) as any;
    expect(out).toMatchObject({ status: 'completed', tables: ['items', 'sites', 'demand_history'], modes: { demand_history: 'replace' } });
    expect(out.results.map((r: any) => [r.table_name, r.inserted, r.rejected])).toEqual([['items', 2, 0], ['sites', 1, 0], ['demand_history', 1, 1]]);
  } finally {
    delete process.env.TEMPORAL_TASK_QUEUE;
  }
  expect(await withTenant(db, accountId, (tx) => tx.any(sql.unsafe`SELECT qty FROM demand_history`))).toEqual([{ qty: 3 }]);
}, 120_000);

test('a bad file or argument is refused with a message and stores nothing', async () => {
  const bad = file('bad.csv', 'item_xuid,site_xuid,ds,quantity\nA,S,2024-01-01,1\n');
  await expect(main(['load', '--account', accountId, '--table', 'supersession', '--file', bad])).rejects.toThrow(/CSV header: unknown columns 'item_xuid', 'ds', 'quantity' for table supersession/);
  await expect(main(['load', '--account', accountId, '--table', 'widgets', '--file', bad])).rejects.toThrow(/--table must be one of items, sites/);
  await expect(main(['frobnicate', '--account', accountId])).rejects.toThrow(/usage:/);
  await expect(main(['run', '--account', accountId, '--mode', 'items=merge'])).rejects.toThrow(/expected <table>=upsert or <table>=replace/);
  const stats = (await main(['tables', '--account', accountId])) as Array<{ table_name: string; row_count: number }>;
  expect(stats.find((s) => s.table_name === 'supersession')!.row_count).toBe(0);
});

test('runs as a script under tsx', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/importCli.ts', 'tables', '--account', accountId], {
    cwd: path.resolve(__dirname, '../..'),
    env: process.env,
  });
  const out = JSON.parse(stdout);
  expect(out.map((t: { table_name: string }) => t.table_name)).toEqual(['items', 'sites', 'item_site', 'routes', 'calendars', 'demand_history', 'firm_orders', 'supersession']);
}, 60_000);
