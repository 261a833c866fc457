/** The series list of spec §2.3 and the demand-class counts, read from series, series_weekly, master data and ABC results. */
import { sql, type Tx } from './pool';
import { weeklyStatsJoin, type Fragment } from './segments';

export interface SeriesFilter {
  /** the user's permission scope (seriesScope) */
  scope: Fragment;
  /** each set must hold: the series is assigned to at least one segment of the set (pipeline segments, a segment filter) */
  segmentSets: number[][];
  /** whose step results (series_characteristics, series_best_method) fill the list; 0 = runs outside any pipeline */
  resultsPipelineId?: number;
}

/** The filter as a boolean condition on series alias `s`. */
export function filterSql(f: SeriesFilter): Fragment {
  const parts: Fragment[] = [f.scope];
  for (const ids of f.segmentSets) {
    parts.push(sql.fragment`EXISTS (SELECT 1 FROM segment_members fm
      WHERE fm.segment_id = ANY(${sql.array(ids, 'int4')}) AND fm.item_id = s.item_id AND fm.site_id = s.site_id)`);
  }
  return sql.fragment`${sql.join(parts, sql.fragment` AND `)}`;
}

export interface SeriesListRow {
  unique_id: string;
  item_id: number;
  site_id: number;
  item_name: string;
  site_name: string;
  item_xuid: string;
  site_xuid: string;
  item_image_url: string | null;
  item_attributes: Record<string, unknown>;
  site_attributes: Record<string, unknown>;
  n_observations: number | null;
  date_range_start: string | null;
  date_range_end: string | null;
  mean: number | null;
  adi: number | null;
  zero_ratio: number | null;
  cov: number | null;
  total_demand: number | null;
  demand_class: string | null;
  is_intermittent: boolean | null;
  has_seasonality: boolean | null;
  has_trend: boolean | null;
  complexity_level: string | null;
  recommended_methods: string[] | null;
  best_method: string | null;
  runner_up_method: string | null;
  best_score: number | null;
  /** true when the statistics come from the characterization step, false when computed from series_weekly */
  characterized: boolean;
  classifications: Record<string, string>;
  avg_unit_cost: number;
  unit_price: number;
}

export async function listSeries(tx: Tx, f: SeriesFilter, page: { skip: number; limit: number }): Promise<{ rows: SeriesListRow[]; total: number }> {
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM series s WHERE ${filterSql(f)}`)) as number;
  return { rows: await seriesRows(tx, f, page), total };
}

/**
 * The rows of the list, ordered by item and site: one page, or (page null) every series of the filter, which is what
 * the API's in-memory series list (api/readCache.ts) holds.
 */
export async function seriesRows(tx: Tx, f: SeriesFilter, page: { skip: number; limit: number } | null): Promise<SeriesListRow[]> {
  const where = filterSql(f);
  const p = f.resultsPipelineId ?? 0;
  // The page is chosen first, so weekly statistics and classifications are computed for its series only. A series the
  // characterization step has not reached yet keeps the statistics computed from series_weekly; for the others the
  // scan of their weeks is skipped (c.item_id is an outer value, so PostgreSQL gates the scan on it).
  const rows = (await tx.any(sql.unsafe`
    WITH page AS (
      SELECT s.* FROM series s WHERE ${where} ORDER BY s.item_id, s.site_id ${page ? sql.fragment`LIMIT ${page.limit} OFFSET ${page.skip}` : sql.fragment``}
    )
    SELECT (s.item_id::text || '_' || s.site_id::text) AS unique_id, s.item_id, s.site_id,
      i.name AS item_name, st.name AS site_name, i.xuid AS item_xuid, st.xuid AS site_xuid, i.image_url AS item_image_url,
      i.attributes AS item_attributes, st.attributes AS site_attributes,
      s.n_observations, s.date_range_start, s.date_range_end, s.mean::float8 AS mean,
      CASE WHEN c.item_id IS NULL THEN wk.adi ELSE c.adi END AS adi, s.zero_ratio::float8 AS zero_ratio,
      CASE WHEN c.item_id IS NULL THEN wk.cov ELSE c.cov END AS cov,
      s.total_demand::float8 AS total_demand,
      CASE WHEN c.item_id IS NULL THEN wk.demand_class ELSE c.demand_class END AS demand_class,
      CASE WHEN c.item_id IS NULL THEN wk.is_intermittent ELSE c.is_intermittent END AS is_intermittent,
      c.has_seasonality, c.has_trend, c.complexity_level, c.recommended_methods,
      b.best_method, b.runner_up_method, b.best_score, (c.item_id IS NOT NULL) AS characterized,
      COALESCE((SELECT jsonb_object_agg(c.name, r.class_label) FROM abc_results r JOIN abc_configurations c ON c.id = r.config_id
        WHERE r.item_id = s.item_id AND r.site_id = s.site_id), '{}'::jsonb) AS classifications,
      i.avg_unit_cost::float8 AS avg_unit_cost, i.unit_price::float8 AS unit_price
    FROM page s JOIN items i ON i.id = s.item_id JOIN sites st ON st.id = s.site_id
    LEFT JOIN series_characteristics c ON c.pipeline_id = ${p} AND c.item_id = s.item_id AND c.site_id = s.site_id
    LEFT JOIN series_best_method b ON b.pipeline_id = ${p} AND b.item_id = s.item_id AND b.site_id = s.site_id
    ${weeklyStatsJoin(sql.fragment`c.item_id IS NULL`)}
    ORDER BY s.item_id, s.site_id`)) as SeriesListRow[];
  return [...rows];
}

/** Every series as `<item_id>_<site_id>`: the index the per-series reads check existence against. */
export async function seriesIds(tx: Tx): Promise<string[]> {
  return [...((await tx.anyFirst(sql.unsafe`SELECT item_id::text || '_' || site_id::text FROM series`)) as readonly string[])];
}

/** Segment id → its member series (`<item_id>_<site_id>`): the permission scope of seriesScope, held in memory. */
export async function segmentMembership(tx: Tx): Promise<Map<number, Set<string>>> {
  const rows = (await tx.any(sql.unsafe`
    SELECT segment_id, array_agg(item_id::text || '_' || site_id::text) AS ids FROM segment_members GROUP BY segment_id`)) as Array<{ segment_id: number; ids: string[] }>;
  return new Map(rows.map((r) => [r.segment_id, new Set(r.ids)]));
}

/**
 * Series per Syntetos-Boylan demand class: the characterization step's class for the pipeline, else (series not
 * characterized yet) the class computed from series_weekly.
 */
export async function demandClassCounts(tx: Tx, f: SeriesFilter): Promise<Record<string, number>> {
  const p = f.resultsPipelineId ?? 0;
  // Weekly statistics (a scan of the series' weeks) only for the series the step has not characterized.
  const rows = (await tx.any(sql.unsafe`
    SELECT demand_class, sum(n)::int AS n FROM (
      SELECT c.demand_class, count(*) AS n FROM series s
      JOIN series_characteristics c ON c.pipeline_id = ${p} AND c.item_id = s.item_id AND c.site_id = s.site_id
      WHERE ${filterSql(f)} GROUP BY 1
      UNION ALL
      SELECT COALESCE(wk.demand_class, 'no_history'), count(*) FROM series s ${weeklyStatsJoin()}
      WHERE ${filterSql(f)} AND NOT EXISTS (SELECT 1 FROM series_characteristics c WHERE c.pipeline_id = ${p} AND c.item_id = s.item_id AND c.site_id = s.site_id)
      GROUP BY 1
    ) x GROUP BY demand_class`)) as Array<{ demand_class: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.demand_class, r.n]));
}

export async function segmentExists(tx: Tx, id: number): Promise<boolean> {
  return Boolean(await tx.maybeOneFirst(sql.unsafe`SELECT true FROM segments WHERE id = ${id}`));
}
