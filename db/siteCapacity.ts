/**
 * Site capacity (migration 012): units per week a site can ship or make. A row with period_start NULL holds for every
 * week without its own row; a dated row holds for the ISO week (Monday to Sunday) its period_start lies in, and the
 * API only takes Mondays; a site without rows is unconstrained. capacityForWeeks lays the rows onto a run's weeks for the supply step; the rest serves
 * GET/PUT/DELETE /api/supply/capacity.
 */
import { sql, type Tx } from './pool';

export interface CapacityRow {
  id: number;
  site_id: number;
  site_code: string;
  site_name: string;
  /** YYYY-MM-DD, a Monday through the API; null: every week without its own row */
  period_start: string | null;
  qty: number;
  updated_by: string | null;
  updated_at: string;
}

const ROW = sql.fragment`c.id, c.site_id, s.xuid AS site_code, s.name AS site_name, c.period_start, c.qty::float8 AS qty, c.updated_by, c.updated_at`;

/** The capacity rows, by site, the every-week row first, then by date. */
export async function listCapacity(tx: Tx, siteId?: number): Promise<CapacityRow[]> {
  const where = siteId === undefined ? sql.fragment`TRUE` : sql.fragment`c.site_id = ${siteId}`;
  return [...((await tx.any(sql.unsafe`
    SELECT ${ROW} FROM site_capacity c JOIN sites s ON s.id = c.site_id
    WHERE ${where} ORDER BY c.site_id, c.period_start NULLS FIRST`)) as CapacityRow[])];
}

/** Serialises capacity writers of the tenant for the rest of the transaction (the upsert reads before it writes). */
export async function lockCapacity(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('site_capacity'))`);
}

/** The site's row for that period (null: the every-week row), if any. */
export async function getCapacity(tx: Tx, siteId: number, periodStart: string | null): Promise<CapacityRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${ROW} FROM site_capacity c JOIN sites s ON s.id = c.site_id
    WHERE c.site_id = ${siteId} AND c.period_start IS NOT DISTINCT FROM ${periodStart}::date`)) as CapacityRow | null;
}

/** Inserts or replaces the site's row for the period; the key is (site, period_start) with NULL as one value. */
export async function upsertCapacity(tx: Tx, siteId: number, periodStart: string | null, qty: number, updatedBy: string | null): Promise<CapacityRow> {
  await tx.query(sql.unsafe`
    INSERT INTO site_capacity (site_id, period_start, qty, updated_by) VALUES (${siteId}, ${periodStart}::date, ${qty}, ${updatedBy})
    ON CONFLICT (site_id, COALESCE(period_start, '-infinity'::date))
    DO UPDATE SET qty = EXCLUDED.qty, updated_by = EXCLUDED.updated_by, updated_at = now()`);
  return (await getCapacity(tx, siteId, periodStart))!;
}

/** Which of a site's rows a delete removes: all of them, the one of a date, or the every-week row. */
export type CapacitySelection = { kind: 'all' } | { kind: 'dated'; periodStart: string } | { kind: 'every_week' };

function selectionOf(sel: CapacitySelection) {
  switch (sel.kind) {
    case 'all': return sql.fragment`TRUE`;
    case 'dated': return sql.fragment`c.period_start = ${sel.periodStart}::date`;
    case 'every_week': return sql.fragment`c.period_start IS NULL`;
  }
}

/** Deletes the selected rows of the site; returns them as they were. */
export async function deleteCapacity(tx: Tx, siteId: number, sel: CapacitySelection): Promise<CapacityRow[]> {
  const rows = [...((await tx.any(sql.unsafe`
    SELECT ${ROW} FROM site_capacity c JOIN sites s ON s.id = c.site_id
    WHERE c.site_id = ${siteId} AND ${selectionOf(sel)} ORDER BY c.period_start NULLS FIRST`)) as CapacityRow[])];
  if (rows.length) await tx.query(sql.unsafe`DELETE FROM site_capacity WHERE id = ANY(${sql.array(rows.map((r) => r.id), 'int4')})`);
  return rows;
}

export interface WeeklyCapacity {
  site_id: number;
  week: number;
  qty: number;
}

/**
 * Capacity per site and run week 0..weeks−1, week w being the 7 days from planningDate + 7w. Week w takes the site's
 * dated row of the ISO week (Monday to Sunday) that holds most of its days, which is the ISO week of its fourth day
 * (planningDate + 7w + 3); when the planning date is a Monday that is the row dated planningDate + 7w exactly, and
 * for any planning date each run week has exactly one such ISO week and no two run weeks share one. Without a dated
 * row it takes the site's every-week row (period_start NULL); without that the (site, week) has no entry:
 * unconstrained, as is every week of a site without rows. Dated rows written around the API on another weekday count
 * for their ISO week; of two in one ISO week the later date wins. One entry per site and week (the engine would add
 * duplicates up).
 */
export async function capacityForWeeks(tx: Tx, planningDate: string, weeks: number, siteIds?: readonly number[]): Promise<WeeklyCapacity[]> {
  if (weeks <= 0 || (siteIds && !siteIds.length)) return [];
  const sites = siteIds ? sql.fragment`site_id = ANY(${sql.array([...siteIds], 'int4')}::int4[])` : sql.fragment`TRUE`;
  // date_trunc on an explicit timestamp: on a date it would go through timestamptz and the session's time zone
  return [...((await tx.any(sql.unsafe`
    WITH w AS (
      SELECT g AS week, date_trunc('week', (${planningDate}::date + 7 * g + 3)::timestamp)::date AS monday
      FROM generate_series(0, ${weeks}::int - 1) AS g
    ),
    dated AS (
      SELECT DISTINCT ON (site_id, monday) site_id, monday, qty FROM (
        SELECT site_id, date_trunc('week', period_start::timestamp)::date AS monday, period_start, qty FROM site_capacity
        WHERE period_start IS NOT NULL AND ${sites}
          AND period_start >= ${planningDate}::date - 7 AND period_start < ${planningDate}::date + 7 * ${weeks}::int + 7
      ) r
      ORDER BY site_id, monday, period_start DESC
    ),
    every AS (SELECT site_id, qty FROM site_capacity WHERE period_start IS NULL AND ${sites}),
    s AS (SELECT DISTINCT site_id FROM site_capacity WHERE ${sites})
    SELECT s.site_id, w.week, COALESCE(d.qty, e.qty)::float8 AS qty
    FROM s CROSS JOIN w
    LEFT JOIN dated d ON d.site_id = s.site_id AND d.monday = w.monday
    LEFT JOIN every e ON e.site_id = s.site_id
    WHERE d.qty IS NOT NULL OR e.qty IS NOT NULL
    ORDER BY s.site_id, w.week`)) as WeeklyCapacity[])];
}

// ---------------------------------------------------------------- the run GET /api/supply/capacity lays it onto

export interface CapacityRun {
  run_id: string;
  pipeline_id: number;
  scenario_id: number;
  status: string;
  planning_date: string;
  horizon: number;
  started_at: string;
  finished_at: string | null;
}

const RUN = sql.fragment`run_id, pipeline_id, scenario_id, status, planning_date, horizon, started_at, finished_at`;

/** The run when it belongs to the (pipeline, scenario); else the newest completed run of it; null when there is none. */
export async function capacityRun(tx: Tx, pipelineId: number, scenarioId: number, runId?: string): Promise<CapacityRun | null> {
  if (runId !== undefined) {
    return (await tx.maybeOne(sql.unsafe`
      SELECT ${RUN} FROM supply_runs WHERE run_id = ${runId} AND pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId}`)) as CapacityRun | null;
  }
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${RUN} FROM supply_runs WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId} AND status = 'completed'
    ORDER BY started_at DESC, run_id DESC LIMIT 1`)) as CapacityRun | null;
}

/** What the run consumed per site and week, summed over the items that consumed it. */
export async function capacityUsedOfRun(tx: Tx, runId: string, siteId?: number): Promise<WeeklyCapacity[]> {
  const where = siteId === undefined ? sql.fragment`TRUE` : sql.fragment`site_id = ${siteId}`;
  return [...((await tx.any(sql.unsafe`
    SELECT site_id, week, sum(qty)::float8 AS qty FROM supply_capacity_used WHERE run_id = ${runId} AND ${where}
    GROUP BY site_id, week ORDER BY site_id, week`)) as WeeklyCapacity[])];
}

/** Codes and names of the sites, for the weekly view. */
export async function siteLabels(tx: Tx, ids: readonly number[]): Promise<Map<number, { code: string; name: string }>> {
  if (!ids.length) return new Map();
  const rows = (await tx.any(sql.unsafe`SELECT id, xuid, name FROM sites WHERE id = ANY(${sql.array([...ids], 'int4')}::int4[])`)) as ReadonlyArray<{ id: number; xuid: string; name: string }>;
  return new Map(rows.map((r) => [r.id, { code: r.xuid, name: r.name }]));
}
