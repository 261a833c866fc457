/** ABC configurations, the annual figures the engine classifies, and its results. */
import { sql, type Tx } from './pool';
import type { Fragment } from './segments';

export interface AbcConfigRow {
  id: number;
  name: string;
  description: string | null;
  metric: 'annual_value' | 'volume' | 'frequency' | 'margin';
  class_labels: string[];
  thresholds: number[];
  is_active: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  last_run_at: string | null;
  last_job_id: string | null;
  result_count: number;
}

const COLS = sql.fragment`c.id, c.name, c.description, c.metric, c.class_labels, c.thresholds, c.is_active, c.created_by, c.created_at,
  c.updated_at, c.last_run_at, c.last_job_id, (SELECT count(*)::int FROM abc_results r WHERE r.config_id = c.id) AS result_count`;

export async function lockAbc(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('abc_configurations'))`);
}

export async function listAbcConfigs(tx: Tx, activeOnly = false): Promise<AbcConfigRow[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT ${COLS} FROM abc_configurations c WHERE ${activeOnly ? sql.fragment`c.is_active` : sql.fragment`TRUE`} ORDER BY c.id`)) as AbcConfigRow[])];
}

export async function getAbcConfig(tx: Tx, id: number): Promise<AbcConfigRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLS} FROM abc_configurations c WHERE c.id = ${id}`)) as AbcConfigRow | null;
}

export async function findAbcConfigByName(tx: Tx, name: string, exceptId = 0): Promise<{ id: number; name: string } | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT id, name FROM abc_configurations WHERE lower(name) = lower(${name}) AND id <> ${exceptId}`)) as { id: number; name: string } | null;
}

export interface AbcConfigWrite {
  name?: string;
  description?: string | null;
  metric?: string;
  class_labels?: string[];
  thresholds?: number[];
  is_active?: boolean;
}

export async function insertAbcConfig(tx: Tx, c: Required<AbcConfigWrite>, createdBy: string): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO abc_configurations (name, description, metric, class_labels, thresholds, is_active, created_by)
    VALUES (${c.name}, ${c.description}, ${c.metric}, ${sql.array(c.class_labels, 'text')}, ${sql.array(c.thresholds, 'float8')}, ${c.is_active}, ${createdBy})
    RETURNING id`)) as number;
}

export async function updateAbcConfig(tx: Tx, id: number, c: AbcConfigWrite): Promise<void> {
  const sets = [sql.fragment`updated_at = now()`];
  if (c.name !== undefined) sets.push(sql.fragment`name = ${c.name}`);
  if (c.description !== undefined) sets.push(sql.fragment`description = ${c.description}`);
  if (c.metric !== undefined) sets.push(sql.fragment`metric = ${c.metric}`);
  if (c.class_labels !== undefined) sets.push(sql.fragment`class_labels = ${sql.array(c.class_labels, 'text')}`);
  if (c.thresholds !== undefined) sets.push(sql.fragment`thresholds = ${sql.array(c.thresholds, 'float8')}`);
  if (c.is_active !== undefined) sets.push(sql.fragment`is_active = ${c.is_active}`);
  await tx.query(sql.unsafe`UPDATE abc_configurations SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
}

export async function deleteAbcConfig(tx: Tx, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM abc_configurations WHERE id = ${id}`);
}

/** Results no longer match the configuration's labels or metric: they go (the next run writes new ones). */
export async function clearAbcResults(tx: Tx, id: number): Promise<number> {
  return (await tx.query(sql.unsafe`DELETE FROM abc_results WHERE config_id = ${id}`)).rowCount;
}

export async function markAbcRun(tx: Tx, id: number, jobId: string): Promise<void> {
  await tx.query(sql.unsafe`UPDATE abc_configurations SET last_run_at = now(), last_job_id = ${jobId} WHERE id = ${id}`);
}

/** The annual window: the 52 weeks ending at the latest week of series_weekly (the planning week). */
export async function annualWindow(tx: Tx): Promise<{ from: string; to: string } | null> {
  const to = (await tx.oneFirst(sql.unsafe`SELECT max(week) FROM series_weekly`)) as string | null;
  if (!to) return null;
  const from = (await tx.oneFirst(sql.unsafe`SELECT (${to}::date - 51 * 7)::date`)) as string;
  return { from, to };
}

export interface AnnualColumns {
  item_id: number[];
  site_id: number[];
  volume: number[];
  frequency: number[];
  unit_price: number[];
  avg_unit_cost: number[];
}

/** Per series (every row of `series`, in key order): demand and weeks with demand in the window, and item prices. */
export async function annualFigures(tx: Tx, window: { from: string; to: string } | null): Promise<AnnualColumns> {
  const from = window?.from ?? '1900-01-01';
  const to = window?.to ?? '1900-01-01';
  const rows = (await tx.any(sql.unsafe`
    SELECT s.item_id, s.site_id, COALESCE(w.volume, 0)::float8 AS volume, COALESCE(w.frequency, 0)::int AS frequency,
      i.unit_price::float8 AS unit_price, i.avg_unit_cost::float8 AS avg_unit_cost
    FROM series s JOIN items i ON i.id = s.item_id
    LEFT JOIN (
      SELECT item_id, site_id, sum(y) AS volume, count(*) FILTER (WHERE y <> 0) AS frequency
      FROM series_weekly WHERE week BETWEEN ${from}::date AND ${to}::date GROUP BY item_id, site_id
    ) w ON w.item_id = s.item_id AND w.site_id = s.site_id
    ORDER BY s.item_id, s.site_id`)) as Array<{ item_id: number; site_id: number; volume: number; frequency: number; unit_price: number; avg_unit_cost: number }>;
  const out: AnnualColumns = { item_id: [], site_id: [], volume: [], frequency: [], unit_price: [], avg_unit_cost: [] };
  for (const r of rows) {
    out.item_id.push(r.item_id);
    out.site_id.push(r.site_id);
    out.volume.push(r.volume);
    out.frequency.push(r.frequency);
    out.unit_price.push(r.unit_price);
    out.avg_unit_cost.push(r.avg_unit_cost);
  }
  return out;
}

export interface AbcResultWrite {
  item_id: number;
  site_id: number;
  class_label: string;
  rank: number;
  metric_value: number;
  share: number;
  cumulative_share: number;
  annual_volume: number;
  annual_value: number;
}

/** Replaces the configuration's results in the caller's transaction. */
export async function replaceAbcResults(tx: Tx, configId: number, jobId: string | null, rows: AbcResultWrite[]): Promise<number> {
  await tx.query(sql.unsafe`DELETE FROM abc_results WHERE config_id = ${configId}`);
  const CHUNK = 5000;
  for (let k = 0; k < rows.length; k += CHUNK) {
    const part = rows.slice(k, k + CHUNK);
    await tx.query(sql.unsafe`
      INSERT INTO abc_results (config_id, item_id, site_id, class_label, rank, metric_value, share, cumulative_share, annual_volume, annual_value, job_id)
      SELECT ${configId}, u.item_id, u.site_id, u.class_label, u.rank, u.metric_value, u.share, u.cumulative_share, u.annual_volume, u.annual_value, ${jobId}
      FROM ${sql.unnest(
        part.map((r) => [r.item_id, r.site_id, r.class_label, r.rank, r.metric_value, r.share, r.cumulative_share, r.annual_volume, r.annual_value]),
        ['int4', 'int4', 'text', 'int4', 'float8', 'float8', 'float8', 'float8', 'float8'],
      )} AS u(item_id, site_id, class_label, rank, metric_value, share, cumulative_share, annual_volume, annual_value)`);
  }
  return rows.length;
}

export interface AbcResultRow {
  unique_id: string;
  item_id: number;
  site_id: number;
  item_xuid: string;
  item_name: string;
  site_xuid: string;
  site_name: string;
  class_label: string;
  rank: number;
  metric_value: number;
  share: number;
  cumulative_share: number;
  annual_volume: number;
  annual_value: number;
  computed_at: string;
}

const RESULT_COLS = sql.fragment`(s.item_id::text || '_' || s.site_id::text) AS unique_id, s.item_id, s.site_id, i.xuid AS item_xuid, i.name AS item_name,
  st.xuid AS site_xuid, st.name AS site_name, s.class_label, s.rank, s.metric_value, s.share, s.cumulative_share, s.annual_volume, s.annual_value, s.computed_at`;

export async function listAbcResults(tx: Tx, configId: number, scope: Fragment, q: { skip: number; limit: number; class_label?: string }): Promise<{ rows: AbcResultRow[]; total: number }> {
  const where = sql.fragment`s.config_id = ${configId} AND ${scope} AND ${q.class_label === undefined ? sql.fragment`TRUE` : sql.fragment`s.class_label = ${q.class_label}`}`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM abc_results s WHERE ${where}`)) as number;
  const rows = (await tx.any(sql.unsafe`
    SELECT ${RESULT_COLS} FROM abc_results s JOIN items i ON i.id = s.item_id JOIN sites st ON st.id = s.site_id
    WHERE ${where} ORDER BY s.rank LIMIT ${q.limit} OFFSET ${q.skip}`)) as AbcResultRow[];
  return { rows: [...rows], total };
}

export async function abcResultsOfSeries(tx: Tx, itemId: number, siteId: number) {
  return [...((await tx.any(sql.unsafe`
    SELECT c.id AS config_id, c.name AS config_name, c.metric, r.class_label, r.rank, r.metric_value, r.share, r.cumulative_share,
      r.annual_volume, r.annual_value, r.computed_at
    FROM abc_results r JOIN abc_configurations c ON c.id = r.config_id
    WHERE r.item_id = ${itemId} AND r.site_id = ${siteId} ORDER BY c.id`)) as Array<Record<string, unknown>>)];
}

/** Per class label: series count, metric total and share, annual volume and value (within the user's scope). */
export async function abcSummary(tx: Tx, configId: number, scope: Fragment) {
  return [...((await tx.any(sql.unsafe`
    SELECT s.class_label, count(*)::int AS series_count, COALESCE(sum(s.metric_value), 0)::float8 AS metric_total,
      COALESCE(sum(s.share), 0)::float8 AS metric_share, COALESCE(sum(s.annual_volume), 0)::float8 AS annual_volume,
      COALESCE(sum(s.annual_value), 0)::float8 AS annual_value
    FROM abc_results s WHERE s.config_id = ${configId} AND ${scope} GROUP BY s.class_label`)) as Array<{
    class_label: string; series_count: number; metric_total: number; metric_share: number; annual_volume: number; annual_value: number;
  }>)];
}

export async function priceAvailability(tx: Tx) {
  return (await tx.one(sql.unsafe`
    SELECT count(*)::int AS items_total,
      count(*) FILTER (WHERE unit_price > 0)::int AS with_unit_price,
      count(*) FILTER (WHERE avg_unit_cost > 0)::int AS with_avg_unit_cost,
      count(*) FILTER (WHERE unit_price > 0 AND avg_unit_cost > 0)::int AS with_both,
      count(*) FILTER (WHERE unit_price <= 0 AND avg_unit_cost <= 0)::int AS with_neither
    FROM items`)) as Record<string, number>;
}
