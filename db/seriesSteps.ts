/**
 * What every per-series pipeline step (outlier … distribution) reads: the series in a run's scope, cut into key-range
 * chunks, and their weekly history. A run's scope is the pipeline's segments (if it has any), the job's segment and an
 * explicit list of series (run-forecast); a chunk is a key range, so its loader applies the same scope again.
 */
import { sql, type Tx } from './pool';
import { keyRange, type SeriesKey } from './etl';

export interface RunScope {
  /** results are written under this pipeline id; 0 = outside any pipeline */
  pipelineId: number;
  segmentId: number | null;
  /** run-forecast: only these series */
  keys: SeriesKey[] | null;
}

export interface SeriesChunk {
  from: SeriesKey;
  to: SeriesKey;
  count: number;
}

function scopeSql(scope: RunScope) {
  const parts = [sql.fragment`s.n_observations IS NOT NULL`];
  if (scope.pipelineId > 0) {
    parts.push(sql.fragment`(NOT EXISTS (SELECT 1 FROM pipeline_segments ps WHERE ps.pipeline_id = ${scope.pipelineId})
      OR EXISTS (SELECT 1 FROM pipeline_segments ps JOIN segment_members m ON m.segment_id = ps.segment_id
        WHERE ps.pipeline_id = ${scope.pipelineId} AND m.item_id = s.item_id AND m.site_id = s.site_id))`);
  }
  if (scope.segmentId) {
    parts.push(sql.fragment`EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${scope.segmentId} AND m.item_id = s.item_id AND m.site_id = s.site_id)`);
  }
  if (scope.keys) {
    parts.push(keysIn(scope.keys, 's'));
  }
  return sql.join(parts, sql.fragment` AND `);
}

/** Chunks at least this large get a tapered end (scopeChunks). */
const TAPER_MIN_CHUNK = 100;

/**
 * The scope's series in key order, cut into chunks of chunkSize: only each chunk's first and last key are returned.
 *
 * Tapered end: a step lasts until its last chunk ends, and the lanes (`lanes` chunks run at once) finish their last
 * full chunk at scattered times, so the step would end up to one chunk's time after the first lane goes idle. When
 * there are more than 2 × lanes full chunks of at least TAPER_MIN_CHUNK series, the last lanes × chunkSize series
 * (plus the remainder) are cut into quarter-size chunks, which the lanes share out as they free up.
 */
export async function scopeChunks(tx: Tx, scope: RunScope, chunkSize: number, lanes = 1): Promise<SeriesChunk[]> {
  const small = Math.max(1, Math.ceil(chunkSize / 4));
  const taper = chunkSize >= TAPER_MIN_CHUNK;
  const rows = (await tx.any(sql.unsafe`
    WITH ranked AS (
      SELECT item_id, site_id, row_number() OVER (ORDER BY item_id, site_id) - 1 AS rn, count(*) OVER () AS total
      FROM series s WHERE ${scopeSql(scope)}
    ),
    bounds AS (
      SELECT r.*, CASE WHEN ${taper}::boolean AND r.total > ${2 * lanes * chunkSize}::int8
        THEN ((r.total - ${lanes * chunkSize}::int8) / ${chunkSize}::int8) * ${chunkSize}::int8 ELSE r.total END AS tail_start
      FROM ranked r
    ),
    numbered AS (
      SELECT item_id, site_id,
        CASE WHEN rn < tail_start THEN rn / ${chunkSize}::int8 ELSE tail_start / ${chunkSize}::int8 + (rn - tail_start) / ${small}::int8 END AS chunk
      FROM bounds
    )
    SELECT chunk, count(*)::int AS count,
      (array_agg(item_id ORDER BY item_id, site_id))[1] AS from_item, (array_agg(site_id ORDER BY item_id, site_id))[1] AS from_site,
      (array_agg(item_id ORDER BY item_id DESC, site_id DESC))[1] AS to_item, (array_agg(site_id ORDER BY item_id DESC, site_id DESC))[1] AS to_site
    FROM numbered GROUP BY chunk ORDER BY chunk`)) as Array<{ count: number; from_item: number; from_site: number; to_item: number; to_site: number }>;
  return rows.map((r) => ({ from: { item_id: r.from_item, site_id: r.from_site }, to: { item_id: r.to_item, site_id: r.to_site }, count: r.count }));
}

/**
 * The scope's series cut at item boundaries, for steps that plan an item across all its sites at once (meio): a chunk
 * holds whole items and about chunkSize series; its range runs from the first item's first site to the last item's
 * last site.
 */
export async function scopeItemChunks(tx: Tx, scope: RunScope, chunkSize: number): Promise<SeriesChunk[]> {
  const rows = (await tx.any(sql.unsafe`
    WITH per_item AS (SELECT s.item_id, count(*)::int8 AS n, min(s.site_id) AS first_site, max(s.site_id) AS last_site FROM series s WHERE ${scopeSql(scope)} GROUP BY s.item_id),
    numbered AS (SELECT p.*, ((sum(p.n) OVER (ORDER BY p.item_id))::int8 - p.n) / ${chunkSize}::int8 AS chunk FROM per_item p)
    SELECT chunk, sum(n)::int AS count,
      (array_agg(item_id ORDER BY item_id))[1] AS from_item, (array_agg(first_site ORDER BY item_id))[1] AS from_site,
      (array_agg(item_id ORDER BY item_id DESC))[1] AS to_item, (array_agg(last_site ORDER BY item_id DESC))[1] AS to_site
    FROM numbered GROUP BY chunk ORDER BY chunk`)) as Array<{ count: number; from_item: number; from_site: number; to_item: number; to_site: number }>;
  return rows.map((r) => ({ from: { item_id: r.from_item, site_id: r.from_site }, to: { item_id: r.to_item, site_id: r.to_site }, count: r.count }));
}

/** A series of a chunk as every step sees it: its key. */
export interface StepSeries extends SeriesKey {
  unique_id: string;
}

/** One series' weekly history as the steps see it. */
export interface WeeklySeries extends StepSeries {
  /** Monday of y[0] */
  start: string;
  /** weekly demand; NaN = a closed week (calendar), never a zero */
  y: Float64Array;
  /** capacity factor per week (0 = closed) */
  factor: Float64Array;
}

/** Weekly history of the scope's series whose key lies in [from, to], in key order. */
export async function weeklyInRange(tx: Tx, scope: RunScope, from: SeriesKey, to: SeriesKey): Promise<WeeklySeries[]> {
  const rows = (await tx.any(sql.unsafe`
    SELECT w.item_id, w.site_id, min(w.week) AS start,
      array_agg(w.y::float8 ORDER BY w.week) AS y, array_agg(w.factor::float8 ORDER BY w.week) AS factor
    FROM series s JOIN series_weekly w ON w.item_id = s.item_id AND w.site_id = s.site_id
    WHERE ${keyRange(from, to, 's')}
      -- the same range on series_weekly: PostgreSQL does not carry a row comparison across the join, and without it
      -- every chunk scanned the whole table
      AND ${keyRange(from, to, 'w')}
      AND ${scopeSql(scope)}
    GROUP BY w.item_id, w.site_id ORDER BY w.item_id, w.site_id`)) as Array<{ item_id: number; site_id: number; start: string; y: Array<number | null>; factor: number[] }>;
  return rows.map((r) => ({
    item_id: r.item_id,
    site_id: r.site_id,
    unique_id: `${r.item_id}_${r.site_id}`,
    start: r.start,
    y: Float64Array.from(r.y, (v) => (v === null ? Number.NaN : v)),
    factor: Float64Array.from(r.factor),
  }));
}

/**
 * The series weeklyInRange returns, without their history: for the steps that plan from other steps' results (eoq,
 * supply), which read 156 weeks a series for nothing (at 100,000 series, 15.6 million weekly rows aggregated into
 * arrays in PostgreSQL and parsed in the worker, per step). The same series: those of the scope with weekly rows.
 */
export async function seriesInRange(tx: Tx, scope: RunScope, from: SeriesKey, to: SeriesKey): Promise<StepSeries[]> {
  const rows = (await tx.any(sql.unsafe`
    SELECT s.item_id, s.site_id FROM series s
    WHERE ${keyRange(from, to, 's')} AND ${scopeSql(scope)}
      AND EXISTS (SELECT 1 FROM series_weekly w WHERE w.item_id = s.item_id AND w.site_id = s.site_id)
    ORDER BY s.item_id, s.site_id`)) as Array<SeriesKey>;
  return rows.map((r) => ({ item_id: r.item_id, site_id: r.site_id, unique_id: `${r.item_id}_${r.site_id}` }));
}

/**
 * `(item_id, site_id) IN (…)` for the series a chunk processed: steps delete their old rows for exactly these keys (and
 * their pipeline) before writing, never the whole key range, which may hold series outside the run's scope.
 */
export function keysIn(keys: readonly SeriesKey[], alias?: string) {
  const set = sql.fragment`(SELECT * FROM ${sql.unnest(keys.map((k) => [k.item_id, k.site_id]), ['int4', 'int4'])})`;
  if (alias === undefined) return sql.fragment`(item_id, site_id) IN ${set}`;
  const a = sql.identifier([alias]);
  return sql.fragment`(${a}.item_id, ${a}.site_id) IN ${set}`;
}
