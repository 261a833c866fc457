/**
 * Weekly plan versions (document 2 §2.5, §4.5; docs/HISTORY.md): the effective planning date, the freeze that copies
 * a pipeline's live output rows into the history tables (migration 019), the registry reads and writes, and
 * retention. A freeze commits with the caller's transaction, so one that fails or is killed leaves no version behind.
 */
import { sql, withTenant, withTenantAtSnapshot, type Db, type Tx } from './pool';

/** What a version holds, in copy order: (live table, which of its rows belong to the version). */
export const HISTORY_TABLES: ReadonlyArray<readonly [string, 'pipeline' | 'run']> = [
  ['series_outliers', 'pipeline'], ['series_characteristics', 'pipeline'], ['forecast_results', 'pipeline'], ['backtest_metrics', 'pipeline'],
  ['backtest_forecasts', 'pipeline'], ['series_best_method', 'pipeline'], ['series_distributions', 'pipeline'], ['meio_results', 'pipeline'],
  ['meio_group_results', 'pipeline'], ['eoq_results', 'pipeline'], ['exception_log', 'pipeline'], ['netting_runs', 'pipeline'], ['netting_results', 'pipeline'],
  ['supply_runs', 'run'], ['supply_orders', 'run'], ['supply_pegging', 'run'], ['supply_plans', 'run'], ['supply_indirect', 'run'],
  ['supply_exceptions', 'run'], ['supply_capacity_used', 'run'], ['allocation_runs', 'run'], ['allocation_results', 'run'],
];

export interface VersionRow {
  id: number;
  pipeline_id: number;
  scenario_id: number | null;
  archive_date: string;
  snapshot_ts: string;
  created_by: string | null;
  comment: string | null;
  frozen: boolean;
  pinned: boolean;
  parent_archive_date: string | null;
  replaced_archive_date: string | null;
  row_count_total: number;
  table_counts: Record<string, number>;
  kpi_fill_rate: number | null;
  kpi_inventory_value: number | null;
  kpi_shortage_qty: number | null;
  kpi_forecast_mase: number | null;
  kpi_series: number | null;
  job_id: string | null;
  source: string;
}

const COLUMNS = sql.fragment`id, pipeline_id, scenario_id, to_char(archive_date, 'YYYY-MM-DD') AS archive_date, snapshot_ts, created_by, comment, frozen,
  pinned, to_char(parent_archive_date, 'YYYY-MM-DD') AS parent_archive_date, to_char(replaced_archive_date, 'YYYY-MM-DD') AS replaced_archive_date,
  row_count_total::float8 AS row_count_total, table_counts, kpi_fill_rate, kpi_inventory_value, kpi_shortage_qty, kpi_forecast_mase, kpi_series, job_id, source`;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Freeze rule 1: the Monday of the date's week. */
export function mondayOf(date: string): string {
  const t = Date.parse(`${date}T00:00:00Z`);
  const dow = (new Date(t).getUTCDay() + 6) % 7;
  return new Date(t - dow * 86_400_000).toISOString().slice(0, 10);
}

export async function getPlanningDates(tx: Tx, pipelineId: number): Promise<{ pipeline: string | null; global: string | null }> {
  const rows = (await tx.any(sql.unsafe`
    SELECT pipeline_id, to_char(planning_date, 'YYYY-MM-DD') AS d FROM pipeline_planning_dates WHERE pipeline_id IN (${pipelineId}, -1)`)) as ReadonlyArray<{ pipeline_id: number; d: string }>;
  return { pipeline: rows.find((r) => r.pipeline_id === pipelineId)?.d ?? null, global: rows.find((r) => r.pipeline_id === -1)?.d ?? null };
}

export async function setPlanningDate(tx: Tx, pipelineId: number, date: string | null, by: string | null): Promise<void> {
  if (date === null) {
    await tx.query(sql.unsafe`DELETE FROM pipeline_planning_dates WHERE pipeline_id = ${pipelineId}`);
    return;
  }
  await tx.query(sql.unsafe`
    INSERT INTO pipeline_planning_dates (pipeline_id, planning_date, updated_by) VALUES (${pipelineId}, ${date}, ${by})
    ON CONFLICT (pipeline_id) DO UPDATE SET planning_date = EXCLUDED.planning_date, updated_by = EXCLUDED.updated_by, updated_at = now()`);
}

/** The supply runs a version of the pipeline holds: the newest completed run of each supply scenario (a subquery). */
export const versionSupplyRuns = (pipelineId: number) => sql.fragment`(
  SELECT DISTINCT ON (scenario_id) run_id, scenario_id, started_at, kpis FROM supply_runs
  WHERE pipeline_id = ${pipelineId} AND status = 'completed' ORDER BY scenario_id, started_at DESC, run_id DESC)`;

export interface PipelineKpis {
  fill_rate: number | null;
  inventory_value: number | null;
  shortage_qty: number | null;
  forecast_mase: number | null;
  series: number;
}

/**
 * The headline KPIs a version stores (rule 4), from the live tables: the supply plan's fill rate, average inventory
 * value and shortage (the default supply scenario's run, else the newest), the best methods' mean backtest MASE, and
 * the series with a best method.
 */
export async function pipelineKpis(tx: Tx, pipelineId: number): Promise<PipelineKpis> {
  return (await tx.one(sql.unsafe`
    WITH head AS (
      SELECT kpis FROM ${versionSupplyRuns(pipelineId)} v ORDER BY (scenario_id = (SELECT id FROM supply_scenarios WHERE is_default)) DESC, started_at DESC LIMIT 1)
    SELECT (SELECT (kpis->>'projected_fill_rate')::float8 FROM head) AS fill_rate,
      (SELECT (kpis->>'avg_inventory_value')::float8 FROM head) AS inventory_value,
      (SELECT (kpis->>'shortage_qty')::float8 FROM head) AS shortage_qty,
      (SELECT avg(best_score)::float8 FROM series_best_method WHERE pipeline_id = ${pipelineId} AND metric = 'mase' AND best_score IS NOT NULL) AS forecast_mase,
      (SELECT count(*)::int FROM series_best_method WHERE pipeline_id = ${pipelineId}) AS series`)) as PipelineKpis;
}

export interface FreezeRequest {
  pipelineId: number;
  archiveDate: string;
  comment: string | null;
  pin: boolean;
  createdBy: string | null;
  jobId: string | null;
  source: 'api' | 'schedule';
}

export interface FreezeOutcome {
  version: VersionRow;
  replaced_archive_date: string | null;
}

/** One live table's copy into a version: its rows of the pipeline ('pipeline') or of the version's runs ('run'). */
export interface HistoryCopy {
  table: string;
  scope: 'pipeline' | 'run';
  runs: readonly string[];
}

/** Where and as of when a freeze copies: the version, and the snapshot its transaction exported. */
export interface CopyTarget {
  id: number;
  archiveDate: string;
  pipelineId: number;
  snapshot: string;
}

/**
 * Runs the copies into the version's staged tables (created and committed by `createStagedTables`), in transactions of
 * its own that import `target.snapshot` (`withTenantAtSnapshot`), builds their indexes, and resolves with the rows per
 * table once all of it has committed; `tx` is the freeze's. Without one, a freeze copies in its own transaction, one
 * table after another.
 */
export type CopyRunner = (tx: Tx, copies: readonly HistoryCopy[], target: CopyTarget) => Promise<Record<string, number>>;

/** Part of one table's copy: the rows in its live table's blocks first … end − 1 (end null: to the last block). */
export interface CopyPiece { copy: HistoryCopy; first: number; end: number | null; blocks: number }

/** Blocks below which a table is copied in one piece: splitting it would cost more statements than it saves. */
const MIN_PIECE_BLOCKS = 1024;

/**
 * Pieces of about equal size, largest first, so that `lanes` connections taking the next piece as they finish end
 * together: one table held most of a version (the backtest windows), and copied whole it kept one lane busy for most
 * of the freeze while the other had finished.
 */
export function copyPieces(copies: readonly HistoryCopy[], blocksOf: ReadonlyMap<string, number>, lanes: number, minPieceBlocks = MIN_PIECE_BLOCKS): CopyPiece[] {
  const total = copies.reduce((n, c) => n + (blocksOf.get(c.table) ?? 0), 0);
  const target = Math.max(minPieceBlocks, Math.ceil(total / (Math.max(1, lanes) * 4)));
  const pieces: CopyPiece[] = [];
  for (const copy of copies) {
    const blocks = blocksOf.get(copy.table) ?? 0;
    const k = Math.max(1, Math.round(blocks / target));
    const size = Math.ceil(blocks / k);
    for (let i = 0; i < k; i++) pieces.push({ copy, first: i * size, end: i === k - 1 ? null : (i + 1) * size, blocks: i === k - 1 ? blocks - i * size : size });
  }
  return pieces.sort((x, y) => y.blocks - x.blocks);
}

/** The live tables' sizes in blocks. */
export async function liveBlocks(tx: Tx, copies: readonly HistoryCopy[]): Promise<Map<string, number>> {
  const rows = (await tx.any(sql.unsafe`
    SELECT t AS table, (pg_relation_size(to_regclass(quote_ident(current_schema()) || '.' || quote_ident(t))) / current_setting('block_size')::int)::float8 AS blocks
    FROM unnest(${sql.array(copies.map((c) => c.table), 'text')}::text[]) t`)) as Array<{ table: string; blocks: number | null }>;
  return new Map(rows.map((r) => [r.table, r.blocks ?? 0]));
}

export async function createStagedTables(tx: Tx, copies: readonly HistoryCopy[], id: number): Promise<void> {
  for (const c of copies) await tx.query(sql.unsafe`SELECT history_stage_create(${c.table}, ${id})`);
}

/** One piece of a copy into the version's staged table (migration 040): the rows copied. */
export async function fillStagedTable(tx: Tx, target: Omit<CopyTarget, 'snapshot'>, p: Pick<CopyPiece, 'copy' | 'first' | 'end'>): Promise<number> {
  return Number(await tx.oneFirst(sql.unsafe`
    SELECT history_stage_fill(${p.copy.table}, ${target.id}, ${target.archiveDate}::date, ${p.copy.scope}, ${target.pipelineId},
      ${sql.array([...p.copy.runs], 'text')}::text[], ${p.first}, ${p.end}::int8)`));
}

export async function indexStagedTable(tx: Tx, table: string, id: number): Promise<void> {
  await tx.query(sql.unsafe`SELECT history_stage_index(${table}, ${id})`);
}

/**
 * The copies on `lanes` connections side by side, each taking the largest piece left (`copyPieces`), then the staged
 * tables' indexes the same way. Every lane ends before the freeze's transaction does, a failed one included: a copy
 * still running would outlive the snapshot it started on. What the copies committed before a failure is no partition;
 * the next freeze drops it (history_drop_orphan_stages).
 */
export function copiesSideBySide(
  db: Db, accountId: string, lanes: number, hooks: { before?: (table: string) => void; after?: (table: string, ms: number) => void } = {},
  minPieceBlocks = MIN_PIECE_BLOCKS,
): CopyRunner {
  const inLanes = async (work: (ltx: Tx) => Promise<void>, snapshot: string | null) => {
    const lane = () => (snapshot ? withTenantAtSnapshot(db, accountId, snapshot, work) : withTenant(db, accountId, work));
    const settled = await Promise.allSettled(Array.from({ length: Math.max(1, lanes) }, lane));
    const failed = settled.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
  };
  return async (tx, copies, target) => {
    const pieces = copyPieces(copies, await liveBlocks(tx, copies), lanes, minPieceBlocks);
    await withTenant(db, accountId, (ptx) => createStagedTables(ptx, copies, target.id));
    const counts: Record<string, number> = Object.fromEntries(copies.map((c) => [c.table, 0]));
    await inLanes(async (ltx) => {
      for (let p = pieces.shift(); p; p = pieces.shift()) {
        hooks.before?.(p.copy.table);
        const t0 = performance.now();
        const rows = await fillStagedTable(ltx, target, p);
        // added after the await: `counts[t] += await …` reads the sum before another lane's piece adds to it
        counts[p.copy.table] += rows;
        hooks.after?.(p.copy.table, performance.now() - t0);
      }
    }, target.snapshot);
    const indexes = [...copies];
    await inLanes(async (ltx) => {
      for (let c = indexes.shift(); c; c = indexes.shift()) await indexStagedTable(ltx, c.table, target.id);
    }, null);
    return counts;
  };
}

/**
 * Freeze rules 3 and 4 in one transaction: two freezes of the same pipeline and week queue on an advisory lock; an
 * un-pinned version of the week is dropped (its date becomes `replaced_archive_date`), pinned ones stay; the live rows
 * are copied table by table into staged tables, which this transaction attaches as the version's partitions, so the
 * version appears whole when it commits and not at all if it fails (`onTable` runs before each copy and before the
 * attach: the activity's heartbeat and kill check); on-hand stock is snapshotted under the archive date; the KPIs and
 * counts are stored and the version marked frozen. With `runCopies` the copies run side by side in other transactions,
 * on this one's snapshot; the old version's partitions are dropped only after them, as a copy needs the parent tables
 * that the drop locks.
 */
export async function freezeVersion(tx: Tx, r: FreezeRequest, onTable: (table: string) => void = () => {}, runCopies?: CopyRunner): Promise<FreezeOutcome> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext(${`history:${r.pipelineId}:${r.archiveDate}`}))`);
  const old = (await tx.maybeOne(sql.unsafe`
    SELECT id, to_char(archive_date, 'YYYY-MM-DD') AS archive_date FROM history_versions
    WHERE pipeline_id = ${r.pipelineId} AND archive_date = ${r.archiveDate} AND NOT pinned`)) as { id: number; archive_date: string } | null;
  if (old) await tx.query(sql.unsafe`DELETE FROM history_versions WHERE id = ${old.id}`);
  const parent = (await tx.maybeOneFirst(sql.unsafe`
    SELECT to_char(archive_date, 'YYYY-MM-DD') FROM history_versions WHERE pipeline_id = ${r.pipelineId} AND frozen
    ORDER BY snapshot_ts DESC, id DESC LIMIT 1`)) as string | null;
  const id = (await tx.oneFirst(sql.unsafe`
    INSERT INTO history_versions (pipeline_id, scenario_id, archive_date, created_by, comment, pinned, parent_archive_date, replaced_archive_date, job_id, source)
    VALUES (${r.pipelineId}, (SELECT forecast_scenario_id FROM scenario_pipelines WHERE id = ${r.pipelineId}), ${r.archiveDate}, ${r.createdBy}, ${r.comment},
      ${r.pin}, ${parent}, ${old?.archive_date ?? null}, ${r.jobId}, ${r.source})
    RETURNING id`)) as number;
  // held until commit: the orphan sweep of another freeze leaves this one's staged tables alone
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':history-version'), ${id})`);
  await tx.query(sql.unsafe`SELECT history_drop_orphan_stages()`);
  const runs = (await tx.anyFirst(sql.unsafe`SELECT run_id FROM ${versionSupplyRuns(r.pipelineId)} v`)) as readonly string[];
  const allocationRuns = runs.length
    ? ((await tx.anyFirst(sql.unsafe`
        SELECT DISTINCT ON (supply_run_id) run_id FROM allocation_runs WHERE supply_run_id = ANY(${sql.array(runs, 'text')}) AND status = 'completed'
        ORDER BY supply_run_id, started_at DESC`)) as readonly string[])
    : [];
  const copies: HistoryCopy[] = HISTORY_TABLES.map(([table, scope]) => ({ table, scope, runs: table.startsWith('allocation_') ? allocationRuns : runs }));
  const target = { id, archiveDate: r.archiveDate, pipelineId: r.pipelineId };
  let counts: Record<string, number> = {};
  if (runCopies) {
    // this transaction waits on its copies without a statement of its own: the pool's idle-in-transaction limit
    // (slonik: 60 s) would end it, and with it the snapshot and the version, in the middle of a large freeze
    await tx.query(sql.unsafe`SELECT set_config('idle_in_transaction_session_timeout', '0', true)`);
    counts = await runCopies(tx, copies, { ...target, snapshot: (await tx.oneFirst(sql.unsafe`SELECT pg_export_snapshot()`)) as string });
  } else {
    await createStagedTables(tx, copies, id);
    for (const c of copies) {
      onTable(c.table);
      counts[c.table] = await fillStagedTable(tx, target, { copy: c, first: 0, end: null });
      await indexStagedTable(tx, c.table, id);
    }
  }
  onTable('attach');
  if (old) await tx.query(sql.unsafe`SELECT history_drop(${old.id})`);
  for (const c of copies) await tx.query(sql.unsafe`SELECT history_attach(${c.table}, ${id})`);
  onTable('on_hand');
  await tx.query(sql.unsafe`DELETE FROM history_on_hand WHERE archive_date = ${r.archiveDate}`);
  counts.on_hand = (await tx.query(sql.unsafe`
    INSERT INTO history_on_hand (archive_date, item_id, site_id, on_hand) SELECT ${r.archiveDate}, item_id, site_id, on_hand FROM item_site`)).rowCount;
  const kpis = await pipelineKpis(tx, r.pipelineId);
  const total = Object.values(counts).reduce((n, c) => n + c, 0);
  await tx.query(sql.unsafe`
    UPDATE history_versions SET frozen = true, table_counts = ${sql.jsonb(counts)}, row_count_total = ${total}, kpi_fill_rate = ${kpis.fill_rate},
      kpi_inventory_value = ${kpis.inventory_value}, kpi_shortage_qty = ${kpis.shortage_qty}, kpi_forecast_mase = ${kpis.forecast_mase}, kpi_series = ${kpis.series}
    WHERE id = ${id}`);
  return { version: (await getVersionById(tx, id))!, replaced_archive_date: old?.archive_date ?? null };
}

export async function getVersionById(tx: Tx, id: number): Promise<VersionRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM history_versions WHERE id = ${id}`)) as VersionRow | null;
}

/**
 * The version of a pipeline for an archive date: the un-pinned one when there is one (the week's current version),
 * else the newest pinned one.
 */
export async function getVersion(tx: Tx, pipelineId: number, archiveDate: string): Promise<VersionRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM history_versions WHERE pipeline_id = ${pipelineId} AND archive_date = ${archiveDate}
    ORDER BY pinned, snapshot_ts DESC, id DESC LIMIT 1`)) as VersionRow | null;
}

/** Freeze rule 6: the newest frozen archive date of the pipeline, null when it has none (readers then use live data). */
export async function latestFrozenVersion(tx: Tx, pipelineId: number): Promise<VersionRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM history_versions WHERE pipeline_id = ${pipelineId} AND frozen
    ORDER BY archive_date DESC, pinned, snapshot_ts DESC, id DESC LIMIT 1`)) as VersionRow | null;
}

export async function listVersions(
  tx: Tx, pipelineId: number, f: { frozen_only?: boolean; from?: string; to?: string }, skip: number, limit: number,
): Promise<{ rows: VersionRow[]; total: number }> {
  const where = [sql.fragment`pipeline_id = ${pipelineId}`];
  if (f.frozen_only) where.push(sql.fragment`frozen`);
  if (f.from) where.push(sql.fragment`archive_date >= ${f.from}`);
  if (f.to) where.push(sql.fragment`archive_date <= ${f.to}`);
  const w = sql.join(where, sql.fragment` AND `);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM history_versions WHERE ${w}`)) as number;
  const rows = (await tx.any(sql.unsafe`
    SELECT ${COLUMNS} FROM history_versions WHERE ${w} ORDER BY archive_date DESC, pinned, snapshot_ts DESC, id DESC OFFSET ${skip} LIMIT ${limit}`)) as readonly VersionRow[];
  return { rows: [...rows], total };
}

export async function updateVersion(tx: Tx, id: number, c: { comment?: string | null; pinned?: boolean }): Promise<void> {
  const sets = [sql.fragment`id = id`];
  if (c.comment !== undefined) sets.push(sql.fragment`comment = ${c.comment}`);
  if (c.pinned !== undefined) sets.push(sql.fragment`pinned = ${c.pinned}`);
  await tx.query(sql.unsafe`UPDATE history_versions SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
}

/** Another un-pinned version of the same pipeline and week (un-pinning this one would make two). */
export async function unpinnedTwin(tx: Tx, v: VersionRow): Promise<VersionRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM history_versions WHERE pipeline_id = ${v.pipeline_id} AND archive_date = ${v.archive_date} AND NOT pinned AND id <> ${v.id}`)) as VersionRow | null;
}

export async function deleteVersion(tx: Tx, id: number): Promise<void> {
  await tx.query(sql.unsafe`SELECT history_drop(${id})`);
  await tx.query(sql.unsafe`DELETE FROM history_versions WHERE id = ${id}`);
}

export interface HistorySettings {
  pipeline_id: number;
  retention_versions: number;
  retention_min_age_days: number;
  schedule_timezone: string;
  schedule_hour: number;
}

export async function historySettings(tx: Tx, pipelineId: number): Promise<HistorySettings> {
  const row = (await tx.maybeOne(sql.unsafe`
    SELECT pipeline_id, retention_versions, retention_min_age_days, schedule_timezone, schedule_hour FROM history_settings WHERE pipeline_id = ${pipelineId}`)) as HistorySettings | null;
  return row ?? { pipeline_id: pipelineId, retention_versions: 52, retention_min_age_days: 0, schedule_timezone: 'UTC', schedule_hour: 6 };
}

export async function saveHistorySettings(tx: Tx, s: HistorySettings, by: string | null): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO history_settings (pipeline_id, retention_versions, retention_min_age_days, schedule_timezone, schedule_hour, updated_by)
    VALUES (${s.pipeline_id}, ${s.retention_versions}, ${s.retention_min_age_days}, ${s.schedule_timezone}, ${s.schedule_hour}, ${by})
    ON CONFLICT (pipeline_id) DO UPDATE SET retention_versions = EXCLUDED.retention_versions, retention_min_age_days = EXCLUDED.retention_min_age_days,
      schedule_timezone = EXCLUDED.schedule_timezone, schedule_hour = EXCLUDED.schedule_hour, updated_by = EXCLUDED.updated_by, updated_at = now()`);
}

/**
 * Retention (§8, §9): of the pipeline's un-pinned versions, those beyond the newest `retention_versions` and older than
 * `retention_min_age_days` are deleted; pinned versions never are. Returns the archive dates deleted.
 */
export async function applyRetention(tx: Tx, pipelineId: number): Promise<string[]> {
  const s = await historySettings(tx, pipelineId);
  const doomed = (await tx.any(sql.unsafe`
    SELECT id, to_char(archive_date, 'YYYY-MM-DD') AS archive_date FROM (
      SELECT id, archive_date, snapshot_ts, row_number() OVER (ORDER BY archive_date DESC, snapshot_ts DESC, id DESC) AS n
      FROM history_versions WHERE pipeline_id = ${pipelineId} AND NOT pinned AND frozen
    ) v
    WHERE v.n > ${s.retention_versions} AND v.snapshot_ts < now() - make_interval(days => ${s.retention_min_age_days})
    ORDER BY archive_date`)) as ReadonlyArray<{ id: number; archive_date: string }>;
  for (const d of doomed) await deleteVersion(tx, d.id);
  return doomed.map((d) => d.archive_date);
}

/** Series per best method of a pipeline (what a replay's summary shows). */
export async function bestMethodCountsOf(tx: Tx, pipelineId: number): Promise<Record<string, number>> {
  const rows = (await tx.any(sql.unsafe`
    SELECT best_method, count(*)::int AS n FROM series_best_method WHERE pipeline_id = ${pipelineId} GROUP BY best_method ORDER BY best_method`)) as ReadonlyArray<{ best_method: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.best_method, r.n]));
}

/** Thrown to roll back a replay transaction once its answer is in hand. */
class ReplayDone<T> extends Error {
  constructor(readonly value: T) {
    super('replay done');
  }
}

/**
 * Runs `read` with the version's copies in place of the live tables (migration 020: temporary views of the same
 * names), so any live reader returns what it returned when the version was frozen. The transaction is rolled back
 * afterwards: the views never outlive the read and nothing can be written through it.
 */
export async function readAsOfVersion<T>(tx: Tx, snapshotId: number, read: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    await tx.transaction(async (inner) => {
      for (const [table] of HISTORY_TABLES) await inner.query(sql.unsafe`SELECT history_shadow(${table}, ${snapshotId})`);
      throw new ReplayDone(await read(inner));
    });
  } catch (err) {
    if (err instanceof ReplayDone) return err.value as T;
    throw err;
  }
  throw new Error('unreachable: a replay always rolls back');
}
