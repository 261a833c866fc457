/**
 * New-part introduction (NPI): series with no or short history. A series is an NPI candidate when it exists in
 * `series` or `item_site` and its weekly history (n_observations of the etl step; none = 0) is shorter than the
 * tenant's threshold, or when npi_series flags it (is_npi = true); npi_series.is_npi = false (a dismissal) removes it.
 */
import { sql, type Tx } from './pool';
import type { Fragment } from './segments';

export interface NpiRow {
  unique_id: string;
  item_id: number;
  site_id: number;
  item_xuid: string;
  item_name: string;
  item_image_url: string | null;
  site_xuid: string;
  site_name: string;
  history_weeks: number;
  first_week: string | null;
  total_demand: number;
  reason: 'no_history' | 'short_history' | 'flagged';
  launch_date: string | null;
  reference_unique_id: string | null;
  notes: string | null;
}

const candidates = (minWeeks: number) => sql.fragment`
  WITH keys AS (
    SELECT item_id, site_id FROM series UNION SELECT item_id, site_id FROM item_site UNION SELECT item_id, site_id FROM npi_series WHERE is_npi
  ), c AS (
    SELECT k.item_id, k.site_id, COALESCE(se.n_observations, 0) AS history_weeks, se.date_range_start AS first_week,
      COALESCE(se.total_demand, 0)::float8 AS total_demand, n.is_npi, n.launch_date, n.reference_item_id, n.reference_site_id, n.notes
    FROM keys k
    LEFT JOIN series se ON se.item_id = k.item_id AND se.site_id = k.site_id
    LEFT JOIN npi_series n ON n.item_id = k.item_id AND n.site_id = k.site_id
  )
  SELECT c.*, CASE WHEN c.is_npi THEN 'flagged' WHEN c.history_weeks = 0 THEN 'no_history' ELSE 'short_history' END AS reason
  FROM c WHERE c.is_npi IS TRUE OR (c.is_npi IS NULL AND c.history_weeks < ${minWeeks})`;

const NPI_COLS = sql.fragment`(s.item_id::text || '_' || s.site_id::text) AS unique_id, s.item_id, s.site_id, i.xuid AS item_xuid, i.name AS item_name,
  i.image_url AS item_image_url, st.xuid AS site_xuid, st.name AS site_name, s.history_weeks, s.first_week, s.total_demand, s.reason,
  s.launch_date, CASE WHEN s.reference_item_id IS NULL THEN NULL ELSE s.reference_item_id::text || '_' || s.reference_site_id::text END AS reference_unique_id,
  s.notes`;

export async function listNpi(tx: Tx, q: { minWeeks: number; search?: string; skip: number; limit: number; scope: Fragment }): Promise<{ rows: NpiRow[]; total: number }> {
  const term = q.search?.trim();
  const search = term
    ? sql.fragment`(strpos(lower(i.xuid), lower(${term})) > 0 OR strpos(lower(i.name), lower(${term})) > 0
        OR strpos(lower(st.xuid), lower(${term})) > 0 OR strpos(lower(st.name), lower(${term})) > 0)`
    : sql.fragment`TRUE`;
  const base = sql.fragment`(${candidates(q.minWeeks)}) s JOIN items i ON i.id = s.item_id JOIN sites st ON st.id = s.site_id
    WHERE ${search} AND ${q.scope}`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${base}`)) as number;
  const rows = (await tx.any(sql.unsafe`SELECT ${NPI_COLS} FROM ${base} ORDER BY s.item_id, s.site_id LIMIT ${q.limit} OFFSET ${q.skip}`)) as NpiRow[];
  return { rows: [...rows], total };
}

export async function getNpi(tx: Tx, minWeeks: number, itemId: number, siteId: number): Promise<NpiRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${NPI_COLS} FROM (${candidates(minWeeks)}) s JOIN items i ON i.id = s.item_id JOIN sites st ON st.id = s.site_id
    WHERE s.item_id = ${itemId} AND s.site_id = ${siteId}`)) as NpiRow | null;
}

/** Dismisses the series as NPI and clears its NPI data (launch date, reference series, notes). */
export async function dismissNpi(tx: Tx, itemId: number, siteId: number, by: string): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO npi_series (item_id, site_id, is_npi, updated_by) VALUES (${itemId}, ${siteId}, false, ${by})
    ON CONFLICT (item_id, site_id) DO UPDATE SET is_npi = false, launch_date = NULL, reference_item_id = NULL, reference_site_id = NULL,
      notes = NULL, updated_by = EXCLUDED.updated_by, updated_at = now()`);
}
