import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, tenantSchemaName } from '../../db/pool';
import { seedHistory, V1, V2, V3, type HistorySeed } from '../support/historySeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';
import { runAdmin } from './runAdmin';

/**
 * A tenant with forecasts, supply orders and three frozen versions (history partitions) is backed up with the admin
 * CLI, dropped, restored, and read again: through the API and as a sorted dump of every table, byte for byte.
 */

let t: TestApp;
let tenant: TestTenant;
let seed: HistorySeed;
let admin: string;
let schema: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenant-backup-'));
const file = path.join(dir, 'tenant.backup.gz');
// each step runs the CLI as a child process, seconds apiece on a busy machine
jest.setTimeout(240_000);

// every table but the counters, which a restore moves on purpose so API processes see new data
const COUNTERS = new Set(['data_version', 'data_version_pending']);

async function dump(schemaName: string): Promise<Record<string, string>> {
  const tables = (await t.db.anyFirst(sql.unsafe`
    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${schemaName} AND c.relkind = 'r' ORDER BY c.relname`)) as string[];
  const out: Record<string, string> = {};
  for (const name of tables.filter((n) => !COUNTERS.has(n))) {
    out[name] = ((await t.db.oneFirst(sql.unsafe`
      SELECT coalesce(string_agg(r::text, E'\n' ORDER BY r::text), '') FROM ${sql.identifier([schemaName, name])} r`)) as string);
  }
  return out;
}

async function apiReads(): Promise<unknown[]> {
  const P = seed.pipelineId;
  const a = `${seed.items.I1}_${seed.site}`;
  const b = `${seed.items.I2}_${seed.site}`;
  const reads = [
    ['/api/history/versions', { pipeline_id: P }],
    ['/api/compare/versions', { pipeline_id: P, base: V1, target: V2, dimension: 'order' }],
    ['/api/compare/versions', { pipeline_id: P, base: V2, target: V3, dimension: 'forecast' }],
    ['/api/supply/orders', { pipeline_id: P, scenario_id: seed.supplyScenario }],
    [`/api/forecasts/${a}`, { pipeline_id: P }],
    [`/api/forecasts/${b}`, { pipeline_id: P }],
    ['/api/auth/users', {}],
  ] as const;
  const out: unknown[] = [];
  for (const [p, query] of reads) {
    const res = await t.call('get', p, { token: admin, query });
    expect([p, res.status, res.body.detail]).toEqual([p, 200, undefined]);
    out.push(res.body);
  }
  return out;
}

const dataVersion = async () => Number(await t.db.oneFirst(sql.unsafe`SELECT version FROM ${sql.identifier([schema, 'data_version'])}`));

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.newTenant('backup');
  schema = tenantSchemaName(tenant.accountId);
  seed = await seedHistory(t.db, tenant.accountId);
  admin = await t.login(tenant.admin);
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('tenant backup and restore', () => {
  let before: Record<string, string>;
  let reads: unknown[];

  it('backs up, drops and restores a tenant; every table and every API read come back the same', async () => {
    before = await dump(schema);
    // the seed is what the test is about: forecasts, orders and frozen versions in history partitions
    expect(before.forecast_results.split('\n').length).toBe(4);
    expect(before.supply_orders.split('\n').length).toBe(3);
    expect(Object.keys(before).filter((n) => /^history_forecast_results_\d+$/.test(n))).toHaveLength(3);
    reads = await apiReads();
    expect((reads[0] as any).versions ?? reads[0]).toBeTruthy();
    // what a freeze that failed after its copies committed leaves until the next freeze: no partition, no version
    await t.db.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT set_config('search_path', ${schema}, true)`);
      await tx.query(sql.unsafe`SELECT history_stage_create('forecast_results', 99999)`);
    });

    const backup = await runAdmin(['backup', '--account', tenant.accountId, '--out', file, '--json']);
    expect([backup.code, backup.stderr, backup.json?.error]).toEqual([0, '', undefined]);
    expect(backup.json).toMatchObject({ account: { id: tenant.accountId, name: tenant.name }, tables: Object.keys(before).length + COUNTERS.size });
    expect(backup.json.rows).toBeGreaterThan(50);

    await t.db.transaction(async (tx) => {
      await tx.query(sql.unsafe`DROP SCHEMA ${sql.identifier([schema])} CASCADE`);
      await tx.query(sql.unsafe`DELETE FROM master.schema_migrations WHERE schema_name = ${schema}`);
      await tx.query(sql.unsafe`DELETE FROM master.accounts WHERE id = ${tenant.accountId}::uuid`);
    });
    expect((await t.call('get', '/api/supply/orders', { token: admin, query: { pipeline_id: seed.pipelineId } })).status).toBe(401);

    const restored = await runAdmin(['restore', '--in', file, '--json']);
    expect([restored.code, restored.json?.error]).toEqual([0, undefined]);
    expect(restored.json).toMatchObject({ account: { id: tenant.accountId, name: tenant.name }, rows: backup.json.rows, replaced: false });

    expect(await dump(schema)).toEqual(before);
    // what POST /api/reload does after a restore: the API's in-memory data is read again
    expect((await t.call('post', '/api/reload', { token: admin })).status).toBe(200);
    expect(await apiReads()).toEqual(reads);
    // the probe index is rebuilt from the restored users
    expect((await t.call('get', '/api/auth/probe', { query: { email: tenant.planner.email } })).body.accounts).toEqual([{ id: tenant.accountId, name: tenant.name }]);
    // a new row after the restore takes the next id, not one the backup already holds
    const next = await t.db.oneFirst(sql.unsafe`INSERT INTO ${sql.identifier([schema, 'sites'])} (xuid, name) VALUES ('S9', 'Nine') RETURNING id`);
    expect(Number(next)).toBeGreaterThan(seed.site);
    await t.db.query(sql.unsafe`DELETE FROM ${sql.identifier([schema, 'sites'])} WHERE xuid = 'S9'`);
  });

  it('refuses to restore over an account that exists unless told to replace it, and then raises its data version', async () => {
    const version = await dataVersion();
    const refused = await runAdmin(['restore', '--in', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`account ${tenant.accountId} (${tenant.name}) exists: add --replace to overwrite it with the backup, or --account <new id> to restore beside it`);
    expect(await dataVersion()).toBe(version);

    // a change made after the backup is undone by the replace
    await t.db.query(sql.unsafe`UPDATE ${sql.identifier([schema, 'supply_orders'])} SET qty = qty + 1000`);
    const replaced = await runAdmin(['restore', '--in', file, '--replace', '--json']);
    expect([replaced.code, replaced.json?.error]).toEqual([0, undefined]);
    expect(replaced.json.replaced).toBe(true);
    expect(await dump(schema)).toEqual(before);
    // the triggers the restore switched off for the load are back as the migrations made them: the order counts ALWAYS
    expect(await t.db.any(sql.unsafe`SELECT tgname, tgenabled::text FROM pg_trigger WHERE tgrelid = ${`${schema}.supply_orders`}::regclass AND NOT tgisinternal ORDER BY tgname`)).toEqual([
      { tgname: 'plan_version_mark', tgenabled: 'O' },
      ...['delete', 'insert', 'truncate', 'update'].map((op) => ({ tgname: `supply_order_counts_${op}`, tgenabled: 'A' })),
    ]);
    expect(await dataVersion()).toBeGreaterThan(version);
    expect((await t.call('post', '/api/reload', { token: admin })).status).toBe(200);
    expect(await apiReads()).toEqual(reads);
  });

  it('restores beside the original under another id and name; a cut file is refused and leaves nothing behind', async () => {
    const copyId = crypto.randomUUID();
    const copy = await runAdmin(['restore', '--in', file, '--account', copyId, '--name', `${tenant.name} copy`, '--json']);
    expect([copy.code, copy.json?.error]).toEqual([0, undefined]);
    expect(await dump(tenantSchemaName(copyId))).toEqual(before);
    const sameName = await runAdmin(['restore', '--in', file, '--account', crypto.randomUUID()]);
    expect([sameName.code, sameName.stderr.trim()]).toEqual([1, `another account is named '${tenant.name}': give the restored one another with --name`]);

    const schemasBefore = await t.db.anyFirst(sql.unsafe`SELECT DISTINCT schema_name FROM master.schema_migrations ORDER BY 1`);
    const cut = path.join(dir, 'cut.gz');
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const r = await runAdmin(['restore', '--in', cut, '--account', crypto.randomUUID(), '--name', 'cut']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/unexpected end of file|cut short/);
    // cut inside its first line: the same answer, not "not a backup"
    const head = path.join(dir, 'head.gz');
    fs.writeFileSync(head, bytes.subarray(0, 40));
    const h = await runAdmin(['restore', '--in', head, '--account', crypto.randomUUID(), '--name', 'cut']);
    expect([h.code, h.stderr.trim()]).toEqual([1, 'the backup is cut short: unexpected end of file']);
    expect(await t.db.anyFirst(sql.unsafe`SELECT DISTINCT schema_name FROM master.schema_migrations ORDER BY 1`)).toEqual(schemasBefore);
    expect(await t.db.oneFirst(sql.unsafe`SELECT count(*) FROM master.accounts WHERE name = 'cut'`)).toBe(0);

    const notBackup = path.join(dir, 'not.gz');
    fs.writeFileSync(notBackup, 'hello');
    const r2 = await runAdmin(['restore', '--in', notBackup]);
    expect([r2.code, r2.stderr.trim()]).toEqual([1, 'this file is not a tenant backup (made by `admin backup`)']);
    const r3 = await runAdmin(['backup', '--account', crypto.randomUUID(), '--out', path.join(dir, 'x.gz')]);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toMatch(/^unknown account /);
    expect(fs.existsSync(path.join(dir, 'x.gz'))).toBe(false);
  });
});
