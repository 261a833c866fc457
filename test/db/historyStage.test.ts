/**
 * The freeze's copies side by side (db/history.ts copiesSideBySide, migration 040): they read the freeze's snapshot,
 * nobody sees the version before the freeze commits, and a failed freeze leaves nothing that the next one keeps.
 */
import { copiesSideBySide, copyPieces, freezeVersion, HISTORY_TABLES, type CopyRunner, type HistoryCopy } from '../../db/history';
import { openPool, sql, withTenant, type Db, type Tx } from '../../db/pool';
import { seriesGridTenant } from '../support/seriesGrid';

let db: Db;
let accountId: string;
let pipelineId: number;
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 6);
  accountId = await seriesGridTenant(db, 'historystage', 20, 3);
  pipelineId = await withTenant(db, accountId, async (tx) => {
    const p = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('stage') RETURNING id`)) as number;
    // one forecast per series and method (60 × 2), and one MEIO row per series
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      SELECT ${p}, item_id, site_id, m, '2026-01-05', ARRAY[1, 2]::float8[], ARRAY[0, 1]::float8[], ARRAY[2, 3]::float8[], 0.9
      FROM series, unnest(ARRAY['naive', 'ses']) m`);
    return p;
  });
}, 120_000);
afterAll(async () => {
  await db.end();
});

const q = <T>(fn: (tx: Tx) => Promise<T>) => withTenant(db, accountId, fn);
const request = (archiveDate: string) => ({ pipelineId, archiveDate, comment: null, pin: false, createdBy: 't@example.com', jobId: null, source: 'api' as const });
/** Tables named like a staged copy that are no partition (what a failed freeze can leave). */
const strayTables = () => q(async (tx) => [...((await tx.anyFirst(sql.unsafe`
  SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND NOT c.relispartition
    AND c.relname ~ '^history_[a-z0-9_]+_\\d+$' ORDER BY 1`)) as string[])]);
const historyRows = (versionId: number) => q(async (tx) => Number(await tx.oneFirst(sql.unsafe`
  SELECT count(*) FROM history_forecast_results WHERE snapshot_id = ${versionId}`)));

test('side by side, the copies read the freeze\'s snapshot, and nothing of the version shows before it commits', async () => {
  const seen: string[] = [];
  const lanes = copiesSideBySide(db, accountId, 2, { before: (t) => seen.push(t) });
  let during: { versions: number; staged: number } | null = null;
  const runner: CopyRunner = async (tx, copies, target) => {
    // a forecast committed after the freeze took its snapshot is not in the version
    await q((t2) => t2.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      SELECT ${pipelineId}, item_id, site_id, 'late', '2026-01-05', ARRAY[1]::float8[], ARRAY[1]::float8[], ARRAY[1]::float8[], 0.9 FROM series LIMIT 1`));
    const counts = await lanes(tx, copies, target);
    // from another connection, once every copy committed: no version row, no partition rows
    during = await q(async (t2) => ({
      versions: Number(await t2.oneFirst(sql.unsafe`SELECT count(*) FROM history_versions WHERE id = ${target.id}`)),
      staged: Number(await t2.oneFirst(sql.unsafe`SELECT count(*) FROM history_forecast_results WHERE snapshot_id = ${target.id}`)),
    }));
    return counts;
  };
  const out = await q((tx) => freezeVersion(tx, request('2026-01-05'), () => undefined, runner));
  await q((tx) => tx.query(sql.unsafe`DELETE FROM forecast_results WHERE method = 'late'`));
  expect(during).toEqual({ versions: 0, staged: 0 });
  expect(seen.sort()).toEqual(HISTORY_TABLES.map(([t]) => t).sort());
  expect(out.version.table_counts).toMatchObject({ forecast_results: 120, series_outliers: 0, supply_orders: 0, on_hand: 0 });
  expect(await historyRows(out.version.id)).toBe(120);
  expect(await strayTables()).toEqual([]);
  // the partition has the parent's (item_id, site_id, method) index (migration 021), built before the attach and adopted by it
  const indexes = await q(async (tx) => tx.anyFirst(sql.unsafe`
    SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ${`history_forecast_results_${out.version.id}`}`));
  expect(indexes).toEqual([expect.stringMatching(/\(item_id, site_id, method\)$/)]);
});

test('the same week again replaces the un-pinned version; its old partitions go', async () => {
  const first = (await q((tx) => freezeVersion(tx, request('2026-01-12'), () => undefined, copiesSideBySide(db, accountId, 3)))).version;
  const second = await q((tx) => freezeVersion(tx, request('2026-01-12'), () => undefined, copiesSideBySide(db, accountId, 3)));
  expect(second.replaced_archive_date).toBe('2026-01-12');
  expect(await historyRows(first.id)).toBe(0);
  expect(await historyRows(second.version.id)).toBe(120);
  const partitions = await q(async (tx) => tx.anyFirst(sql.unsafe`
    SELECT count(*)::int FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relname ~ ${`^history_.+_${first.id}$`}`));
  expect(partitions).toEqual([0]);
});

test('a copy that fails fails the freeze: no version, and the copies that had committed are swept by the next freeze', async () => {
  const before = await q(async (tx) => Number(await tx.oneFirst(sql.unsafe`SELECT count(*) FROM history_versions`)));
  let failedId = 0;
  const failing: CopyRunner = async (tx, copies, target) => {
    failedId = target.id;
    // the forecasts' copy commits; the meio one's staged table too, then its fill is asked for a scope that does not exist
    await copiesSideBySide(db, accountId, 2)(tx, copies.filter((c) => c.table === 'forecast_results'), target);
    return copiesSideBySide(db, accountId, 2)(tx, [{ table: 'meio_results', scope: 'nowhere' as 'run', runs: [] }], target);
  };
  await expect(q((tx) => freezeVersion(tx, request('2026-01-19'), () => undefined, failing))).rejects.toThrow(/history_stage_fill: unknown scope nowhere/);
  expect(await q(async (tx) => Number(await tx.oneFirst(sql.unsafe`SELECT count(*) FROM history_versions`)))).toBe(before);
  expect(await strayTables()).toEqual([`history_forecast_results_${failedId}`, `history_meio_results_${failedId}`]);

  // a stray table of a freeze still in progress (its version's advisory lock held) stays; the failed one's goes
  const schema = await q(async (tx) => (await tx.oneFirst(sql.unsafe`SELECT current_schema()`)) as string);
  const whileHeld = await db.connect((c) => c.transaction(async (htx) => {
    await htx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(${schema} || ':history-version'), ${failedId})`);
    const kept = await q((tx) => freezeVersion(tx, request('2026-01-26'), () => undefined, copiesSideBySide(db, accountId, 2)));
    return { forecasts: kept.version.table_counts.forecast_results, stray: await strayTables() };
  }));
  expect(whileHeld).toEqual({ forecasts: 120, stray: [`history_forecast_results_${failedId}`, `history_meio_results_${failedId}`] });
  const next = await q((tx) => freezeVersion(tx, request('2026-02-02'), () => undefined, copiesSideBySide(db, accountId, 2)));
  expect(next.version.table_counts.forecast_results).toBe(120);
  expect(await strayTables()).toEqual([]);
});

test('without a runner the freeze copies in its own transaction, to the same result', async () => {
  const out = await q((tx) => freezeVersion(tx, request('2026-02-09')));
  expect(out.version.table_counts).toMatchObject({ forecast_results: 120, on_hand: 0 });
  expect(await historyRows(out.version.id)).toBe(120);
  expect(await strayTables()).toEqual([]);
});

test('pieces: large tables split into block ranges of about equal size that cover every block once, largest first', () => {
  const c = (table: string): HistoryCopy => ({ table, scope: 'pipeline', runs: [] });
  const copies = [c('small'), c('big'), c('mid'), c('empty')];
  const pieces = copyPieces(copies, new Map([['small', 10], ['big', 8000], ['mid', 2100], ['empty', 0]]), 2, 1000);
  // 10,110 blocks over 2 lanes × 4 → pieces of about 1,264: big in 6, mid in 2, the others whole
  const of = (t: string) => pieces.filter((p) => p.copy.table === t).sort((x, y) => x.first - y.first).map((p) => [p.first, p.end]);
  expect(of('big')).toEqual([[0, 1334], [1334, 2668], [2668, 4002], [4002, 5336], [5336, 6670], [6670, null]]);
  expect(of('mid')).toEqual([[0, 1050], [1050, null]]);
  expect(of('small')).toEqual([[0, null]]);
  expect(of('empty')).toEqual([[0, null]]);
  expect(pieces.map((p) => p.blocks)).toEqual([...pieces.map((p) => p.blocks)].sort((x, y) => y - x));
  expect(pieces.reduce((n, p) => n + p.blocks, 0)).toBe(10_110);
});

test('a table copied in block ranges side by side holds exactly the live rows', async () => {
  const out = await q((tx) => freezeVersion(tx, request('2026-02-16'), () => undefined, copiesSideBySide(db, accountId, 2, {}, 1)));
  expect(out.version.table_counts.forecast_results).toBe(120);
  const rows = (sel: string) => q(async (tx) => [...((await tx.anyFirst(sql.unsafe`
    SELECT item_id || '_' || site_id || '_' || method FROM ${sql.identifier([sel])} WHERE pipeline_id = ${pipelineId} ORDER BY 1`)) as string[])]);
  const live = await rows('forecast_results');
  expect(live).toHaveLength(120);
  expect(await rows(`history_forecast_results_${out.version.id}`)).toEqual(live);
  // the live table spans more than one block, so the copy really was split
  const blocks = await q(async (tx) => Number(await tx.oneFirst(sql.unsafe`SELECT pg_relation_size('forecast_results') / current_setting('block_size')::int`)));
  expect(blocks).toBeGreaterThan(1);
});

test('the freeze\'s transaction waits on its copies longer than the pool\'s idle-in-transaction limit', async () => {
  const slow: CopyRunner = async (tx, copies, target) => {
    // copies that outlast the limit set below: the freeze's connection is idle in its transaction meanwhile
    await new Promise((r) => setTimeout(r, 1500));
    return copiesSideBySide(db, accountId, 2)(tx, copies, target);
  };
  const out = await q(async (tx) => {
    await tx.query(sql.unsafe`SELECT set_config('idle_in_transaction_session_timeout', '500ms', true)`);
    return freezeVersion(tx, request('2026-02-23'), () => undefined, slow);
  });
  expect(out.version.table_counts.forecast_results).toBe(120);
  expect(await historyRows(out.version.id)).toBe(120);
});
