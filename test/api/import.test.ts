/**
 * Import staging over HTTP (spec §4.7) with a real worker on a real Temporal dev server: every route, JSON and CSV
 * loading, 400s that name the field, permissions, runs with rejected rows, upsert vs replace, a failing table.
 */
import { TABLE_ORDER } from '../../domain/import/tables';
import { sql, withTenant } from '../../db/pool';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let plain: string;

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('import');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

const load = (table: string, rows: unknown[], token = planner, query?: Record<string, unknown>) =>
  t.call('post', `/api/import/tables/${table}/rows`, { token, body: { rows }, query });
const loadCsv = (table: string, csv: string, token = planner, query?: Record<string, unknown>) =>
  t.call('post', `/api/import/tables/${table}/rows`, { token, body: csv, headers: { 'Content-Type': 'text/csv' }, query });
const tables = async (token = planner) => (await t.call('get', '/api/import/tables', { token })).body as Array<{ table_name: string; row_count: number; last_loaded: string | null; columns: any[]; natural_key: string[] }>;
const rowCount = async (table: string, token = planner) => (await tables(token)).find((x) => x.table_name === table)!.row_count;

/** Starts a run and waits for its workflow; answers the run as GET /api/import/runs/{id} shows it. */
async function runAndWait(body: Record<string, unknown>, token = planner) {
  const started = await t.call('post', '/api/import/run', { token, body });
  expect(started.status).toBe(200);
  await tw.client.workflow.getHandle(started.body.run_id).result();
  const run = await t.call('get', `/api/import/runs/${started.body.run_id}`, { token });
  expect(run.status).toBe(200);
  return { started: started.body, run: run.body, byTable: Object.fromEntries(run.body.results.map((r: any) => [r.table_name, r])) };
}

async function clearStaging(token = admin) {
  for (const name of TABLE_ORDER) expect((await t.call('delete', `/api/import/tables/${name}`, { token })).status).toBe(200);
}

describe('GET /api/import/tables', () => {
  test('lists every staging table in run order with counts and documented columns', async () => {
    const list = await tables();
    expect(list.map((x) => x.table_name)).toEqual(['items', 'sites', 'item_site', 'routes', 'calendars', 'demand_history', 'firm_orders', 'supersession']);
    for (const x of list) expect(x).toMatchObject({ row_count: 0, last_loaded: null });
    const demand = list.find((x) => x.table_name === 'demand_history')!;
    expect(demand.natural_key).toEqual(['item_xuid', 'site_xuid', 'ds']);
    expect(demand.columns.map((c) => [c.name, c.type, c.required])).toEqual([
      ['item_xuid', 'item', true], ['site_xuid', 'site', true], ['ds', 'date', true], ['qty', 'number', true],
    ]);
    const routes = list.find((x) => x.table_name === 'routes')!;
    expect(routes.columns.find((c) => c.name === 'route_type')).toMatchObject({ type: 'enum', required: false, values: ['REPLENISHMENT', 'RETURN', 'REPAIR', 'BUY', 'BUILD', 'TRANSFER', 'BALANCING'] });
    expect(routes.columns.find((c) => c.name === 'item_xuid')).toMatchObject({ required: false });
  });

  test('needs a token', async () => {
    expect((await t.call('get', '/api/import/tables')).status).toBe(401);
  });
});

describe('POST /api/import/tables/{table_name}/rows', () => {
  afterEach(() => clearStaging());

  test('JSON rows are appended; counts and last_loaded follow', async () => {
    const res = await load('items', [{ xuid: 'A', name: 'Alpha', unit_price: 3 }, { xuid: 'B', attr_colour: 'blue' }]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ table_name: 'items', loaded: 2, truncated: false, row_count: 2 });
    expect(new Date(res.body.last_loaded).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect((await load('items', [{ xuid: 'C' }])).body).toMatchObject({ loaded: 1, row_count: 3 });
    expect((await load('items', [{ xuid: 'D' }], planner, { truncate: true })).body).toMatchObject({ loaded: 1, truncated: true, row_count: 1 });
    const staged = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT row_no, xuid FROM stg_items`));
    expect(staged).toEqual([{ row_no: 1, xuid: 'D' }]);
  });

  test('unknown columns are a 400 naming them all, and nothing is stored', async () => {
    await load('demand_history', [{ item_xuid: 'A', site_xuid: 'S', ds: '2024-01-01', qty: 1 }]);
    const res = await load('demand_history', [
      { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-01', qty: 1 },
      { item_xuid: 'A', site_xuid: 'S', ds: '2024-01-08', qty: 1, quantity: 1, week: 2 },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("body.rows[1]: unknown columns 'quantity', 'week' for table demand_history (known: item_xuid, site_xuid, ds, qty)");
    expect(await rowCount('demand_history')).toBe(1);
  });

  test.each([
    [{ rows: [{ item_xuid: 'A', site_xuid: 'S', ds: '2024-01-01' }] }, 'body.rows[0].qty is required'],
    [{ rows: [{ item_xuid: 'A', site_xuid: 'S', ds: '2024-01-01', qty: { n: 1 } }] }, 'body.rows[0].qty must be a string, number, boolean or null'],
    [{ rows: [] }, 'body.rows must NOT have fewer than 1 items'],
    [{ rows: [1] }, 'body.rows[0] must be object'],
    [{}, 'body.rows is required (or send a CSV file with Content-Type text/csv)'],
    [{ rows: [{ item_xuid: 'A' }], mode: 'x' }, "body: unknown field 'mode'"],
  ])('bad JSON body %j → 400 %s', async (body, detail) => {
    const res = await t.call('post', '/api/import/tables/demand_history/rows', { token: planner, body });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(detail);
    expect(await rowCount('demand_history')).toBe(0);
  });

  test('CSV upload: header names the columns, any delimiter, attr_ columns for items', async () => {
    const res = await loadCsv('demand_history', 'item_xuid,site_xuid,ds,qty\nA,S,2024-01-01,4\nA,S,2024-01-08,"1.5"\n');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ table_name: 'demand_history', loaded: 2, row_count: 2 });
    expect((await loadCsv('demand_history', 'Item_XUID;Site_XUID;DS;QTY\nB;S;2024-01-01;-2\n', planner, { delimiter: ';' })).body).toMatchObject({ loaded: 1, row_count: 3 });
    const staged = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT item_xuid, ds, qty FROM stg_demand_history ORDER BY row_no`));
    expect(staged).toEqual([
      { item_xuid: 'A', ds: '2024-01-01', qty: '4' },
      { item_xuid: 'A', ds: '2024-01-08', qty: '1.5' },
      { item_xuid: 'B', ds: '2024-01-01', qty: '-2' },
    ]);
    expect((await loadCsv('items', 'xuid,name,attr_colour\nA,Alpha,red\n')).status).toBe(200);
    const item = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`SELECT xuid, extra_attributes FROM stg_items`));
    expect(item).toEqual({ xuid: 'A', extra_attributes: '{"colour":"red"}' });
  });

  test.each([
    ['item_xuid,site_xuid,ds,quantity\nA,S,2024-01-01,1\n', "CSV header: unknown column 'quantity' for table demand_history (known: item_xuid, site_xuid, ds, qty)"],
    ['item_xuid,ds,qty\nA,2024-01-01,1\n', "CSV header: missing required column 'site_xuid' for table demand_history"],
    ['item_xuid,site_xuid,ds,qty\nA,S,2024-01-01\n', 'body: invalid CSV: Invalid Record Length: columns length is 4, got 3 on line 2'],
    ['item_xuid,site_xuid,ds,qty\n', 'body: the CSV has a header but no data rows'],
    ['', 'body: the CSV is empty (a header row naming the columns is required)'],
  ])('bad CSV → 400 and nothing stored (%#)', async (csv, detail) => {
    const res = await loadCsv('demand_history', csv);
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(detail);
    expect(await rowCount('demand_history')).toBe(0);
  });

  test('another content type is a 415; a CSV over the body limit a 413', async () => {
    const res = await t.call('post', '/api/import/tables/items/rows', { token: planner, body: 'xuid\nA\n', headers: { 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/unsupported content type 'text\/plain'/);
    const big = `xuid,name\n${'A,'.padEnd(1000, 'x')}\n`.repeat(6 * 1024);
    const tooBig = await loadCsv('items', big);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.detail).toBe('body: request body too large');
    expect(await rowCount('items')).toBe(0);
  });

  test('an unknown table is a 404 naming the known ones', async () => {
    const res = await load('widgets', [{ a: 1 }]);
    expect(res.status).toBe(404);
    expect(res.body.detail).toBe("Unknown staging table 'widgets' (known: items, sites, item_site, routes, calendars, demand_history, firm_orders, supersession)");
  });

  test('needs can_run_process (or admin)', async () => {
    expect((await load('items', [{ xuid: 'A' }], plain)).status).toBe(403);
    expect((await load('items', [{ xuid: 'A' }], admin)).status).toBe(200);
  });

  test('the audit row holds a summary, not the rows', async () => {
    await load('sites', [{ xuid: 'S1' }, { xuid: 'S2' }]);
    const res = await t.call('get', '/api/audit-log', { token: admin, query: { entity_type: 'import_staging', action: 'load', limit: 1 } });
    expect(res.body.items[0]).toMatchObject({ entity_id: 'sites', outcome: 'success', new_value: { table_name: 'sites', format: 'json', rows: 2, truncate: false } });
  });
});

describe('DELETE /api/import/tables/{table_name}', () => {
  test('admins truncate; an empty table is a no-op; unknown is 404; others 403', async () => {
    await load('sites', [{ xuid: 'S1' }, { xuid: 'S2' }]);
    expect((await t.call('delete', '/api/import/tables/sites', { token: planner })).status).toBe(403);
    const res = await t.call('delete', '/api/import/tables/sites', { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'truncated', table_name: 'sites', rows_deleted: 2 });
    expect((await t.call('delete', '/api/import/tables/sites', { token: admin })).body).toEqual({ status: 'truncated', table_name: 'sites', rows_deleted: 0 });
    const unknown = await t.call('delete', '/api/import/tables/nope', { token: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/^Unknown staging table 'nope' \(known: items, sites, /);
  });
});

describe('POST /api/import/run', () => {
  let b: TestTenant;
  let bPlanner: string;
  let bAdmin: string;
  beforeAll(async () => {
    b = await t.newTenant('import-run');
    bPlanner = await t.login(b.planner);
    bAdmin = await t.login(b.admin);
  });
  const masterRows = (table: string) =>
    withTenant(t.db, b.accountId, (tx) => {
      if (table === 'items') return tx.any(sql.unsafe`SELECT xuid, name, unit_price FROM items ORDER BY xuid`);
      if (table === 'sites') return tx.any(sql.unsafe`SELECT xuid, name, site_type FROM sites ORDER BY xuid`);
      return tx.any(sql.unsafe`SELECT i.xuid AS item, s.xuid AS site, d.ds, d.qty FROM demand_history d JOIN items i ON i.id = d.item_id JOIN sites s ON s.id = d.site_id ORDER BY 1, 2, 3`);
    });

  test('a run with bad rows: every good row lands, every bad one is listed with its reason', async () => {
    expect((await load('items', [{ xuid: 'P1', name: 'Pump', unit_price: 10 }, { xuid: 'P2', unit_price: 'ten' }, { xuid: 'P3', name: 'Valve' }], bPlanner)).status).toBe(200);
    expect((await loadCsv('sites', 'xuid,name,site_type\nDC,Central,DC\nST,Store,STORE\n', bPlanner)).status).toBe(200);
    expect((await loadCsv('demand_history', [
      'item_xuid,site_xuid,ds,qty',
      'P1,ST,2024-01-01,5',
      'P1,ST,2024-01-08,-2',
      'P1,ST,2024-01-15,abc',
      'P2,ST,2024-01-01,1',
      'P3,XX,2024-01-01,1',
      'P3,DC,2024-02-30,1',
      'P3,DC,2024-01-01,0',
      'P1,ST,2024-01-01,6',
      'P3,ST,2024-01-22,7.25',
    ].join('\n'), bPlanner)).status).toBe(200);

    const started = await t.call('post', '/api/import/run', { token: bPlanner, body: {} });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: 'running', tables: ['items', 'sites', 'demand_history'], modes: { items: 'upsert', sites: 'upsert', demand_history: 'upsert' } });
    expect(started.body.run_id).toMatch(/^import-/);
    const wf = await tw.client.workflow.getHandle(started.body.run_id).result();
    expect(wf.status).toBe('completed');

    const res = await t.call('get', `/api/import/runs/${started.body.run_id}`, { token: bPlanner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      run_id: started.body.run_id, status: 'completed', tables: ['items', 'sites', 'demand_history'], error: null, created_by: b.planner.email,
      progress: { done: 3, total: 3 }, totals: { rows_read: 14, inserted: 7, updated: 0, deleted: 0, rejected: 7 },
    });
    const [items, sites, demand] = res.body.results;
    expect(items).toMatchObject({ table_name: 'items', mode: 'upsert', status: 'completed', rows_read: 3, inserted: 2, updated: 0, rejected: 1, error: null });
    expect(items.errors).toEqual([{ row_no: 2, reason: "unit_price: 'ten' is not a number", row: expect.objectContaining({ xuid: 'P2', unit_price: 'ten' }) }]);
    expect(sites).toMatchObject({ status: 'completed', rows_read: 2, inserted: 2, rejected: 0, errors: [] });
    expect(demand).toMatchObject({ status: 'completed', rows_read: 9, inserted: 3, updated: 0, rejected: 6 });
    expect(demand.errors.map((e: any) => [e.row_no, e.reason])).toEqual([
      [2, 'qty: -2 is negative; it must be >= 0'],
      [3, "qty: 'abc' is not a number"],
      [4, "item_xuid: unknown item 'P2'"],
      [5, "site_xuid: unknown site 'XX'"],
      [6, "ds: '2024-02-30' is not a valid date (YYYY-MM-DD)"],
      [8, 'duplicate key (item_xuid, site_xuid, ds): the same key is given by row 1, which is kept'],
    ]);
    expect((await t.call('get', `/api/import/runs/${started.body.run_id}`, { token: bPlanner, query: { errors_limit: 2 } })).body.results[2].errors).toHaveLength(2);

    expect(await masterRows('items')).toEqual([{ xuid: 'P1', name: 'Pump', unit_price: 10 }, { xuid: 'P3', name: 'Valve', unit_price: 0 }]);
    expect(await masterRows('sites')).toEqual([{ xuid: 'DC', name: 'Central', site_type: 'DC' }, { xuid: 'ST', name: 'Store', site_type: 'STORE' }]);
    expect(await masterRows('demand_history')).toEqual([
      { item: 'P1', site: 'ST', ds: '2024-01-01', qty: 5 },
      { item: 'P3', site: 'DC', ds: '2024-01-01', qty: 0 },
      { item: 'P3', site: 'ST', ds: '2024-01-22', qty: 7.25 },
    ]);

    const log = await t.call('get', `/api/import/runs/${started.body.run_id}/log`, { token: bPlanner, query: { limit: 200 } });
    expect(log.status).toBe(200);
    const messages = log.body.lines.map((l: any) => l.message);
    expect(messages[0]).toBe('import started: items (upsert), sites (upsert), demand_history (upsert)');
    expect(messages).toContain('demand_history: read 9, inserted 3, updated 0, deleted 0, rejected 6 (upsert)');
    expect(messages).toContain('demand_history: 1 more rejected rows (GET /api/import/runs/' + started.body.run_id + ' lists them)');
    expect(messages[messages.length - 1]).toBe('import completed: inserted 7, updated 0, deleted 0, rejected 7');
    expect(log.body.lines.find((l: any) => /row 2 rejected/.test(l.message)).level).toBe('warning');
  });

  test('upsert counts updates; replace deletes what the file no longer has', async () => {
    await clearStaging(bAdmin);
    await load('items', [{ xuid: 'P1', unit_price: 12 }, { xuid: 'P4' }], bPlanner);
    await load('demand_history', [{ item_xuid: 'P1', site_xuid: 'ST', ds: '2024-01-01', qty: 50 }, { item_xuid: 'P4', site_xuid: 'DC', ds: '2024-03-04', qty: 1 }], bPlanner);
    const up = await runAndWait({ tables: ['items', 'demand_history'] }, bPlanner);
    expect(up.byTable.items).toMatchObject({ status: 'completed', inserted: 1, updated: 1, deleted: 0 });
    expect(up.byTable.demand_history).toMatchObject({ status: 'completed', inserted: 1, updated: 1, deleted: 0 });
    expect((await masterRows('items')).find((r: any) => r.xuid === 'P1')).toEqual({ xuid: 'P1', name: 'Pump', unit_price: 12 });

    const rep = await runAndWait({ tables: ['demand_history'], modes: { demand_history: 'replace' } }, bPlanner);
    expect(rep.started).toMatchObject({ tables: ['demand_history'], modes: { demand_history: 'replace' } });
    expect(rep.byTable.demand_history).toMatchObject({ status: 'completed', mode: 'replace', rows_read: 2, inserted: 0, updated: 2, deleted: 2, rejected: 0 });
    expect(await masterRows('demand_history')).toEqual([
      { item: 'P1', site: 'ST', ds: '2024-01-01', qty: 50 },
      { item: 'P4', site: 'DC', ds: '2024-03-04', qty: 1 },
    ]);
  });

  test('a table whose transaction fails applies nothing; the other tables still land', async () => {
    await clearStaging(bAdmin);
    // P3 and P4 still have demand history, so replacing items with P1 + P9 cannot delete them: items fails whole
    await load('items', [{ xuid: 'P1', name: 'Pump renamed' }, { xuid: 'P9' }], bPlanner);
    await load('sites', [{ xuid: 'WH', name: 'Warehouse' }], bPlanner);
    const { run, byTable } = await runAndWait({ modes: { items: 'replace' } }, bPlanner);
    expect(run).toMatchObject({ status: 'failed', error: 'tables not applied: items' });
    expect(byTable.items).toMatchObject({ status: 'failed', mode: 'replace', rows_read: 2, inserted: 0, updated: 0, deleted: 0, rejected: 0 });
    expect(byTable.items.error).toMatch(/^nothing was applied to items: update or delete on table "items" violates foreign key constraint/);
    expect(byTable.sites).toMatchObject({ status: 'completed', inserted: 1 });
    expect((await masterRows('items')).map((r: any) => [r.xuid, r.name])).toEqual([['P1', 'Pump'], ['P3', 'Valve'], ['P4', 'P4']]);
    expect((await masterRows('sites')).map((r: any) => r.xuid)).toEqual(['DC', 'ST', 'WH']);
  });

  test('routes that would close a supply cycle fail the routes table whole, naming the sites; a RETURN loop lands', async () => {
    await clearStaging(bAdmin);
    await load('routes', [
      { from_site_xuid: 'DC', to_site_xuid: 'ST', route_type: 'replenishment', lead_time: 1 },
      { from_site_xuid: 'ST', to_site_xuid: 'DC', route_type: 'TRANSFER', lead_time: 2 },
    ], bPlanner);
    const bad = await runAndWait({ tables: ['routes'] }, bPlanner);
    expect(bad.byTable.routes).toMatchObject({ status: 'failed', inserted: 0 });
    expect(bad.byTable.routes.error).toContain('the routes would close a supply cycle: DC → ST → DC');
    const count = () => withTenant(t.db, b.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM routes`));
    expect(await count()).toBe(0);
    await clearStaging(bAdmin);
    await load('routes', [
      { from_site_xuid: 'DC', to_site_xuid: 'ST', route_type: 'replenishment', lead_time: 1 },
      { from_site_xuid: 'ST', to_site_xuid: 'DC', route_type: 'RETURN', lead_time: 2 },
      { from_site_xuid: 'WH', to_site_xuid: 'DC', lead_time: 3 },
    ], bPlanner);
    const good = await runAndWait({ tables: ['routes'] }, bPlanner);
    expect(good.byTable.routes).toMatchObject({ status: 'completed', inserted: 3 });
    const types = await withTenant(t.db, b.accountId, (tx) => tx.anyFirst(sql.unsafe`SELECT route_type FROM routes ORDER BY route_type`));
    expect(types).toEqual(['BUY', 'REPLENISHMENT', 'RETURN']);
  });

  test.each([
    [{ tables: ['widgets'] }, 'body.tables[0] must be one of: items, sites, item_site, routes, calendars, demand_history, firm_orders, supersession'],
    [{ tables: [] }, 'body.tables must NOT have fewer than 1 items'],
    [{ tables: ['items', 'items'] }, 'body.tables must NOT have duplicate items (items ## 1 and 0 are identical)'],
    [{ modes: { items: 'merge' } }, 'body.modes.items must be one of: upsert, replace'],
    [{ modes: { widgets: 'upsert' } }, "body.modes: unknown field 'widgets'"],
    [{ tables: ['sites'], modes: { items: 'replace' } }, 'body.modes.items: table items is not part of this run (tables: sites)'],
    [{ force: true }, "body: unknown field 'force'"],
  ])('invalid run body %j → 400', async (body, detail) => {
    const res = await t.call('post', '/api/import/run', { token: bPlanner, body });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(detail);
  });

  test('nothing staged and no tables named → 400; a named empty table is skipped', async () => {
    await clearStaging(bAdmin);
    const res = await t.call('post', '/api/import/run', { token: bPlanner, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Nothing to import: every staging table is empty/);
    const { run, byTable } = await runAndWait({ tables: ['routes'], modes: { routes: 'replace' } }, bPlanner);
    expect(run.status).toBe('completed');
    expect(byTable.routes).toMatchObject({ status: 'skipped', rows_read: 0, error: 'the staging table is empty' });
  });

  test('needs can_run_process or an admin role', async () => {
    const res = await t.call('post', '/api/import/run', { token: plain, body: {} });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/can_run_process/);
  });

  test('503 with {detail} when the API has no Temporal connection', async () => {
    const noTemporal = await startTestApp();
    try {
      const token = await noTemporal.login(b.planner);
      await noTemporal.call('post', '/api/import/tables/items/rows', { token, body: { rows: [{ xuid: 'Z' }] } });
      const res = await noTemporal.call('post', '/api/import/run', { token, body: {} });
      expect(res.status).toBe(503);
      expect(res.body.detail).toMatch(/Temporal/);
    } finally {
      await noTemporal.close();
    }
  });
});

describe('GET /api/import/runs, /runs/{run_id}, /runs/{run_id}/log', () => {
  let c: TestTenant;
  let token: string;
  const runIds: string[] = [];
  beforeAll(async () => {
    c = await t.newTenant('import-runs');
    token = await t.login(c.planner);
    for (let i = 0; i < 3; i += 1) {
      await t.call('post', '/api/import/tables/items/rows', { token, body: { rows: [{ xuid: `I${i}` }] }, query: { truncate: true } });
      runIds.push((await runAndWait({}, token)).started.run_id);
    }
  }, 120_000);

  test('newest first, paginated, with totals', async () => {
    const all = await t.call('get', '/api/import/runs', { token });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, limit: 20, offset: 0 });
    expect(all.body.items.map((r: any) => r.run_id)).toEqual([...runIds].reverse());
    expect(all.body.items[0]).toMatchObject({ status: 'completed', tables: ['items'], modes: { items: 'upsert' }, totals: { rows_read: 1, inserted: 1, rejected: 0 } });
    const page = await t.call('get', '/api/import/runs', { token, query: { limit: 1, offset: 1 } });
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.items.map((r: any) => r.run_id)).toEqual([runIds[1]]);
    expect((await t.call('get', '/api/import/runs', { token, query: { limit: 100, offset: 3 } })).body.items).toEqual([]);
  });

  test.each([
    [{ limit: 0 }, 'query.limit must be >= 1'],
    [{ limit: 101 }, 'query.limit must be <= 100'],
    [{ offset: -1 }, 'query.offset must be >= 0'],
    [{ limit: 'ten' }, 'query.limit must be integer'],
    [{ page: 2 }, "query: unknown field 'page'"],
  ])('runs list %j → 400', async (query, detail) => {
    const res = await t.call('get', '/api/import/runs', { token, query });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(detail);
  });

  test('the log tail: newest `limit` lines, oldest first; limits checked', async () => {
    const full = await t.call('get', `/api/import/runs/${runIds[0]}/log`, { token });
    expect(full.status).toBe(200);
    expect(full.body.run_id).toBe(runIds[0]);
    expect(full.body.status).toBe('completed');
    const msgs = full.body.lines.map((l: any) => l.message);
    expect(msgs).toEqual(['import started: items (upsert)', 'items: reading staging rows (upsert)', 'items: read 1, inserted 1, updated 0, deleted 0, rejected 0 (upsert)', 'import completed: inserted 1, updated 0, deleted 0, rejected 0']);
    const tail = await t.call('get', `/api/import/runs/${runIds[0]}/log`, { token, query: { limit: 2 } });
    expect(tail.body.lines.map((l: any) => l.message)).toEqual(msgs.slice(-2));
    for (const limit of [0, 201]) {
      const bad = await t.call('get', `/api/import/runs/${runIds[0]}/log`, { token, query: { limit } });
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toMatch(/^query\.limit must be/);
    }
  });

  test('unknown runs are 404; runs of another tenant do not exist here', async () => {
    for (const path of ['/api/import/runs/import-nope', '/api/import/runs/import-nope/log']) {
      const res = await t.call('get', path, { token });
      expect(res.status).toBe(404);
      expect(res.body.detail).toBe('Import run import-nope not found');
    }
    expect((await t.call('get', `/api/import/runs/${runIds[0]}`, { token: planner })).status).toBe(404);
    expect((await t.call('get', '/api/import/runs', { token: planner })).body.items.map((r: any) => r.run_id)).not.toContain(runIds[0]);
  });

  test('errors_limit is checked', async () => {
    const res = await t.call('get', `/api/import/runs/${runIds[0]}`, { token, query: { errors_limit: 1001 } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('query.errors_limit must be <= 1000');
  });
});
