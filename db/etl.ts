import { sql, type Tx } from './pool';

export interface SeriesKey {
  item_id: number;
  site_id: number;
}

/**
 * The keys in [from, to] (by item, then site) of a table keyed on (item_id, site_id, …). The row comparison alone is
 * exact but PostgreSQL estimates it blind (a third of the table for each bound): at 100,000 series it read a chunk's
 * weekly history with a parallel scan of all 15 million rows of series_weekly (1.2 s and three processes a chunk,
 * against 0.12 s through the primary key). The item range beside it is implied by the row comparison, changes no
 * result, and is estimated from the column's statistics.
 */
export function keyRange(from: SeriesKey, to: SeriesKey, alias?: string) {
  const item = alias === undefined ? sql.identifier(['item_id']) : sql.identifier([alias, 'item_id']);
  const site = alias === undefined ? sql.identifier(['site_id']) : sql.identifier([alias, 'site_id']);
  return sql.fragment`(${item}, ${site}) >= (${from.item_id}, ${from.site_id}) AND (${item}, ${site}) <= (${to.item_id}, ${to.site_id})
    AND ${item} BETWEEN ${from.item_id} AND ${to.item_id}`;
}

/** The Monday of the latest demand date: every series is extended to this planning week. */
export async function lastDemandWeek(tx: Tx): Promise<string | null> {
  return (await tx.oneFirst(sql.unsafe`SELECT date_trunc('week', max(ds))::date FROM demand_history`)) as string | null;
}

/** Series keys with demand, in key order, cut into chunks: only the first and last key of each chunk are returned. */
export async function demandChunks(tx: Tx, chunkSize: number): Promise<Array<{ from: SeriesKey; to: SeriesKey; count: number }>> {
  const rows = (await tx.any(sql.unsafe`
    WITH keys AS (
      SELECT DISTINCT item_id, site_id FROM demand_history
    ), numbered AS (
      SELECT item_id, site_id, (row_number() OVER (ORDER BY item_id, site_id) - 1) / ${chunkSize} AS chunk FROM keys
    )
    SELECT chunk, count(*)::int AS count,
      (array_agg(item_id ORDER BY item_id, site_id))[1] AS from_item, (array_agg(site_id ORDER BY item_id, site_id))[1] AS from_site,
      (array_agg(item_id ORDER BY item_id DESC, site_id DESC))[1] AS to_item, (array_agg(site_id ORDER BY item_id DESC, site_id DESC))[1] AS to_site
    FROM numbered GROUP BY chunk ORDER BY chunk`)) as Array<{ count: number; from_item: number; from_site: number; to_item: number; to_site: number }>;
  return rows.map((r) => ({ from: { item_id: r.from_item, site_id: r.from_site }, to: { item_id: r.to_item, site_id: r.to_site }, count: r.count }));
}

export interface DemandColumns {
  item_id: number[];
  site_id: number[];
  ds: string[];
  qty: number[];
}

/** Demand rows of the series whose key lies in [from, to], ordered by key. */
export async function demandInRange(tx: Tx, from: SeriesKey, to: SeriesKey): Promise<DemandColumns> {
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, ds, qty FROM demand_history
    WHERE ${keyRange(from, to)}
    ORDER BY item_id, site_id, ds`)) as Array<{ item_id: number; site_id: number; ds: string; qty: number }>;
  const out: DemandColumns = { item_id: [], site_id: [], ds: [], qty: [] };
  for (const r of rows) {
    out.item_id.push(r.item_id);
    out.site_id.push(r.site_id);
    out.ds.push(r.ds);
    out.qty.push(r.qty);
  }
  return out;
}

export interface WeeklyWrite {
  item_id: number;
  site_id: number;
  start: string;
  /** null: a closed week (missing, not zero) */
  y: Array<number | null>;
  /** capacity factor per week (0 = closed); absent: every week 1 */
  factor?: number[];
  stats: { n_observations: number; date_range_start: string; date_range_end: string; mean: number | null; zero_ratio: number | null; total_demand: number; closed_weeks: number };
}

/** A chunk's share of the key space for rewriting: keys after `after` (exclusive) up to `through` (inclusive); null = open end. */
export interface KeySpan {
  after: SeriesKey | null;
  through: SeriesKey | null;
}

/**
 * Replaces the weekly rows and statistics of the chunk's series: a retried chunk rewrites exactly what it wrote
 * before, so retries never duplicate rows. A closed week is written as y NULL, closed true, factor 0.
 * The span reaches back to the previous chunk's last key (and, for the first and last chunks, to either end), so the
 * chunks together also clear the weekly rows of series that no longer have demand — by index range, without a
 * separate anti-join over the whole table (which took minutes at 100,000 series and outlived the heartbeat).
 */
export async function writeWeekly(tx: Tx, span: KeySpan, series: WeeklyWrite[]): Promise<number> {
  const lower = span.after ? sql.fragment`(item_id, site_id) > (${span.after.item_id}, ${span.after.site_id})` : sql.fragment`TRUE`;
  const upper = span.through ? sql.fragment`(item_id, site_id) <= (${span.through.item_id}, ${span.through.site_id})` : sql.fragment`TRUE`;
  await tx.query(sql.unsafe`DELETE FROM series_weekly WHERE ${lower} AND ${upper}`);
  // a series without demand any more keeps its row (master data, overrides) but no longer counts as having history
  await tx.query(sql.unsafe`
    UPDATE series SET n_observations = NULL, date_range_start = NULL, date_range_end = NULL, mean = NULL, zero_ratio = NULL,
      total_demand = NULL, closed_weeks = NULL, updated_at = now()
    WHERE ${lower} AND ${upper} AND n_observations IS NOT NULL`);
  if (!series.length) return 0;
  const rows: Array<[number, number, string, number | null, boolean, number]> = [];
  for (const s of series) {
    const start = Date.parse(`${s.start}T00:00:00Z`);
    s.y.forEach((v, i) => {
      const f = s.factor ? s.factor[i] : 1;
      rows.push([s.item_id, s.site_id, new Date(start + i * 7 * 86_400_000).toISOString().slice(0, 10), f === 0 ? null : v, f === 0, f]);
    });
  }
  await tx.query(sql.unsafe`
    INSERT INTO series_weekly (item_id, site_id, week, y, closed, factor)
    SELECT * FROM ${sql.unnest(rows, ['int4', 'int4', 'date', 'float8', 'bool', 'float8'])}`);
  await tx.query(sql.unsafe`
    INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end, mean, zero_ratio, total_demand, closed_weeks, updated_at)
    SELECT item_id, site_id, n, d0, d1, m, z, t, c, now() FROM ${sql.unnest(
      series.map((s) => [s.item_id, s.site_id, s.stats.n_observations, s.stats.date_range_start, s.stats.date_range_end, s.stats.mean, s.stats.zero_ratio, s.stats.total_demand, s.stats.closed_weeks]),
      ['int4', 'int4', 'int4', 'date', 'date', 'float8', 'float8', 'float8', 'int4'],
    )} AS u(item_id, site_id, n, d0, d1, m, z, t, c)
    ON CONFLICT (item_id, site_id) DO UPDATE SET n_observations = EXCLUDED.n_observations, date_range_start = EXCLUDED.date_range_start,
      date_range_end = EXCLUDED.date_range_end, mean = EXCLUDED.mean, zero_ratio = EXCLUDED.zero_ratio,
      total_demand = EXCLUDED.total_demand, closed_weeks = EXCLUDED.closed_weeks, updated_at = now()`);
  return rows.length;
}

/** With no demand at all there is no chunk to clear the weekly rows (a replace import may have removed everything). */
export async function dropAllWeekly(tx: Tx): Promise<number> {
  const r = await tx.query(sql.unsafe`DELETE FROM series_weekly`);
  return r.rowCount;
}

export async function countWeeklySeries(tx: Tx): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`SELECT count(*) FROM series WHERE n_observations IS NOT NULL`)) as number;
}
