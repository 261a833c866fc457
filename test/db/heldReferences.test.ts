import { seriesKeysOf } from '../../db/forecastResults';
import { holdReferences, insertHoldingReferences } from '../../db/heldReferences';
import { openPool, sql, withTenant, type Db, type Tx } from '../../db/pool';
import { createTestAccount } from '../support/tenantPool';

/**
 * Result rows go in with their foreign keys checked set-based (db/heldReferences.ts): the referenced rows locked in
 * one statement, the insert with triggers off. It must refuse what PostgreSQL's own check refuses and lock what it
 * locks, so a delete of a series meanwhile waits and then takes the new rows with it.
 */
let db: Db;
let accountId: string;
let pipelineId: number;
const ids: Record<string, number> = {};

class Rollback extends Error {}

beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 3);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `held-references-${Date.now()}`)).id;
  await withTenant(db, accountId, async (tx) => {
    pipelineId = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('held') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('A', 'A'), ('B', 'B'), ('C', 'C')`);
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'S1')`);
    for (const r of (await tx.any(sql.unsafe`SELECT xuid, id FROM items UNION ALL SELECT xuid, id FROM sites`)) as any[]) ids[r.xuid] = r.id;
    // A and C have series at S1, B has none
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) SELECT id, ${ids.S1} FROM items WHERE xuid IN ('A', 'C')`);
  });
});
afterAll(() => db.end());

const forecastRow = (tx: Tx, keys: Array<[number, number]>, declared = seriesKeysOf(keys.map(([item_id, site_id]) => ({ item_id, site_id })))) =>
  insertHoldingReferences(tx, 'forecast_results', declared, sql.unsafe`
    INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
    SELECT ${pipelineId}, u.item_id, u.site_id, 'naive', '2026-06-01', ARRAY[1]::float8[], ARRAY[0]::float8[], ARRAY[2]::float8[], 0.9
    FROM ${sql.unnest(keys, ['int4', 'int4'])} AS u(item_id, site_id)`);

const forecastCount = (tx: Tx, item: string) =>
  tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM forecast_results WHERE pipeline_id = ${pipelineId} AND item_id = ${ids[item]}`);

test('rows whose series exist go in by the set-based road', async () => {
  await expect(withTenant(db, accountId, async (tx) => {
    const r = await forecastRow(tx, [[ids.A, ids.S1]]);
    expect(r).toEqual({ rowCount: 1, held: true });
    // the trigger road is back for what follows in the transaction
    expect(await tx.oneFirst(sql.unsafe`SELECT current_setting('session_replication_role')`)).toBe('origin');
    expect(await forecastCount(tx, 'A')).toBe(1);
    throw new Rollback();
  })).rejects.toBeInstanceOf(Rollback);
});

test('a row whose series does not exist is refused as PostgreSQL refuses it, and nothing of the statement stays', async () => {
  const err = await withTenant(db, accountId, async (tx) => {
    expect(await holdReferences(tx, 'forecast_results', seriesKeysOf([{ item_id: ids.A, site_id: ids.S1 }, { item_id: ids.B, site_id: ids.S1 }]))).toBe(false);
    return forecastRow(tx, [[ids.A, ids.S1], [ids.B, ids.S1]]);
  }).catch((e) => e);
  expect([err.cause?.code, err.cause?.constraint]).toEqual(['23503', 'forecast_results_item_id_site_id_fkey']);
  expect(await withTenant(db, accountId, (tx) => forecastCount(tx, 'A'))).toBe(0);
});

test('the insert still raises the data version the API caches by (the statement trigger the set-based road switched off)', async () => {
  const version = () => withTenant(db, accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT version FROM data_version`));
  const before = Number(await version());
  await withTenant(db, accountId, async (tx) => {
    expect((await forecastRow(tx, [[ids.A, ids.S1]])).held).toBe(true);
  });
  expect(Number(await version())).toBe(before + 1);
  await withTenant(db, accountId, (tx) => tx.query(sql.unsafe`DELETE FROM forecast_results WHERE pipeline_id = ${pipelineId}`));
});

test('without a declared key for one of the foreign keys the ordinary road runs, and still checks', async () => {
  await expect(withTenant(db, accountId, async (tx) => {
    expect(await forecastRow(tx, [[ids.A, ids.S1]], [])).toEqual({ rowCount: 1, held: false });
    await expect(forecastRow(tx, [[ids.B, ids.S1]], [])).rejects.toThrow(/foreign key/);
    throw new Rollback();
  })).rejects.toBeInstanceOf(Rollback);
});

test('a target with a trigger of its own takes the ordinary road: switching triggers off would skip it', async () => {
  await expect(withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`CREATE FUNCTION held_noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`);
    await tx.query(sql.unsafe`CREATE TRIGGER held_noop BEFORE INSERT ON forecast_results FOR EACH ROW EXECUTE FUNCTION held_noop()`);
    expect(await forecastRow(tx, [[ids.A, ids.S1]])).toEqual({ rowCount: 1, held: false });
    throw new Rollback();
  })).rejects.toBeInstanceOf(Rollback);
});

test('a trigger of its own that fires ALWAYS (as the order counts) keeps the set-based road, and fires on it', async () => {
  await expect(withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`CREATE TABLE held_seen (n int)`);
    await tx.query(sql.unsafe`CREATE FUNCTION held_count() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO held_seen SELECT count(*) FROM added; RETURN NULL; END $$`);
    await tx.query(sql.unsafe`CREATE TRIGGER held_count AFTER INSERT ON forecast_results REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION held_count()`);
    await tx.query(sql.unsafe`ALTER TABLE forecast_results ENABLE ALWAYS TRIGGER held_count`);
    expect(await forecastRow(tx, [[ids.A, ids.S1], [ids.C, ids.S1]])).toEqual({ rowCount: 2, held: true });
    expect(await tx.anyFirst(sql.unsafe`SELECT n FROM held_seen`)).toEqual([2]);
    throw new Rollback();
  })).rejects.toBeInstanceOf(Rollback);
});

test('the referenced series stay locked until the insert commits: a delete waits, then cascades to the new rows', async () => {
  await withTenant(db, accountId, async (tx) => {
    expect((await forecastRow(tx, [[ids.C, ids.S1]])).held).toBe(true);
    const refused = await withTenant(db, accountId, async (other) => {
      await other.query(sql.unsafe`SET LOCAL lock_timeout = '300ms'`);
      await other.query(sql.unsafe`DELETE FROM series WHERE item_id = ${ids.C}`);
    }).catch((e) => e);
    expect(String(refused?.message ?? refused)).toMatch(/lock timeout/);
  });
  expect(await withTenant(db, accountId, (tx) => forecastCount(tx, 'C'))).toBe(1);
  await withTenant(db, accountId, (tx) => tx.query(sql.unsafe`DELETE FROM series WHERE item_id = ${ids.C}`));
  expect(await withTenant(db, accountId, (tx) => forecastCount(tx, 'C'))).toBe(0);
});

test("the forecasting steps' result tables have no foreign key beyond the series key their writers declare", async () => {
  await withTenant(db, accountId, async (tx) => {
    for (const table of ['forecast_results', 'backtest_forecasts', 'backtest_metrics']) {
      expect([table, await holdReferences(tx, table, seriesKeysOf([{ item_id: ids.A, site_id: ids.S1 }]))]).toEqual([table, true]);
    }
  });
});
