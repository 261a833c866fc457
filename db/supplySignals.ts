/**
 * Two things the supply API derives from a run for other parts of the platform: the supply issues of the exception
 * log (POST /api/supply/sync-alerts) and the forecast consumption preview (GET /api/supply/consumption-preview).
 */
import { sql, type Tx } from './pool';

export interface SyncResult {
  sku_sites_with_issues: number;
  created: number;
  updated: number;
  reopened: number;
  cleared: number;
}

/**
 * Replaces the supply issues of the pipeline's exception-log rows with the run's exceptions, keeping every other kind
 * of issue and the planner's status, by the rule of the exception-log refresh (db/exceptionLog.ts): a row opens again
 * only for an issue it did not have (a snoozed one stays snoozed until its date), and a row left with no issue at all
 * is resolved.
 */
export async function syncSupplyIssues(tx: Tx, runId: string, pipelineId: number): Promise<SyncResult> {
  const r = (await tx.one(sql.unsafe`
    WITH fresh AS (
      SELECT e.item_id, e.site_id, jsonb_agg(jsonb_build_object(
        'type', 'supply', 'code', e.type, 'severity', e.severity, 'description', e.description, 'week', e.week, 'end_week', e.end_week,
        'qty', e.qty, 'order_id', e.order_id, 'run_id', e.run_id) ORDER BY e.week, e.id) AS issues
      FROM supply_exceptions e WHERE e.run_id = ${runId} GROUP BY e.item_id, e.site_id
    ),
    keys AS (
      SELECT item_id, site_id FROM fresh
      UNION SELECT item_id, site_id FROM exception_log WHERE pipeline_id = ${pipelineId} AND 'supply' = ANY(exception_types)
    ),
    joined AS (
      SELECT k.item_id, k.site_id, l.id, l.status AS old_status, l.snoozed_until,
        COALESCE((SELECT jsonb_agg(x) FROM jsonb_array_elements(l.issues) x WHERE x->>'type' IS DISTINCT FROM 'supply'), '[]') || COALESCE(f.issues, '[]') AS issues,
        -- a planner's status gives way only to an issue the row did not have (same code, week and order)
        EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(f.issues, '[]')) n WHERE NOT EXISTS (
          SELECT 1 FROM jsonb_array_elements(COALESCE(l.issues, '[]')) o
          WHERE o->>'type' = n->>'type' AND o->>'code' IS NOT DISTINCT FROM n->>'code' AND o->>'week' IS NOT DISTINCT FROM n->>'week'
            AND o->>'order_id' IS NOT DISTINCT FROM n->>'order_id')) AS has_new
      FROM keys k
      LEFT JOIN fresh f ON f.item_id = k.item_id AND f.site_id = k.site_id
      LEFT JOIN exception_log l ON l.pipeline_id = ${pipelineId} AND l.item_id = k.item_id AND l.site_id = k.site_id
    ),
    merged AS (
      SELECT j.*, CASE WHEN jsonb_array_length(j.issues) = 0 THEN 'resolved'
          WHEN j.old_status = 'snoozed' AND j.snoozed_until >= current_date THEN 'snoozed'
          WHEN j.old_status = 'snoozed' OR j.has_new THEN 'open'
          ELSE COALESCE(j.old_status, 'open') END AS status
      FROM joined j
    ),
    written AS (
      INSERT INTO exception_log (pipeline_id, item_id, site_id, exception_types, issues, status)
      SELECT ${pipelineId}, m.item_id, m.site_id,
        COALESCE((SELECT array_agg(DISTINCT x->>'type' ORDER BY x->>'type') FROM jsonb_array_elements(m.issues) x), '{}'), m.issues, m.status
      FROM merged m
      ON CONFLICT (pipeline_id, item_id, site_id) DO UPDATE SET
        exception_types = EXCLUDED.exception_types, issues = EXCLUDED.issues, status = EXCLUDED.status, updated_at = now()
      RETURNING (xmax = 0) AS created, status, jsonb_array_length(issues) AS n_issues
    )
    SELECT count(*) FILTER (WHERE n_issues > 0)::int AS sku_sites_with_issues, count(*) FILTER (WHERE created)::int AS created,
      count(*) FILTER (WHERE NOT created)::int AS updated,
      (SELECT count(*)::int FROM merged WHERE old_status IN ('resolved', 'snoozed') AND status = 'open') AS reopened,
      count(*) FILTER (WHERE n_issues = 0)::int AS cleared
    FROM written`)) as SyncResult;
  return r;
}

export interface ConsumptionRow {
  item_id: number;
  site_id: number;
  unique_id: string;
  forecast: number;
  actual: number;
  consumed: number;
  remaining: number;
  over_consumption: number;
  consumption_rate: number | null;
}

/**
 * Forecast consumption over the run's first `weeks` weeks: each week, demand already booked (demand_history rows
 * dated in the week) consumes the planned forecast of the SKU-site up to the forecast; what is left is the remaining
 * forecast, what exceeds it is over-consumption (demand beyond the forecast).
 */
export async function consumptionPreview(
  tx: Tx, runId: string, weeks: number, f: { item_id?: number; site_id?: number }, skip: number, limit: number,
): Promise<{ rows: ConsumptionRow[]; total: number; totals: Omit<ConsumptionRow, 'item_id' | 'site_id' | 'unique_id'> }> {
  const where = [sql.fragment`p.run_id = ${runId}`, sql.fragment`(p.series_id IS NOT NULL)`];
  if (f.item_id !== undefined) where.push(sql.fragment`p.item_id = ${f.item_id}`);
  if (f.site_id !== undefined) where.push(sql.fragment`p.site_id = ${f.site_id}`);
  const base = sql.fragment`
    WITH wk AS (
      SELECT p.item_id, p.site_id, p.item_id || '_' || p.site_id AS unique_id, t.w, COALESCE(p.demand[t.w + 1], 0) AS fc,
        COALESCE((SELECT sum(h.qty) FROM demand_history h WHERE h.item_id = p.item_id AND h.site_id = p.site_id
          AND h.ds >= r.planning_date + 7 * t.w AND h.ds < r.planning_date + 7 * (t.w + 1)), 0)::float8 AS act
      FROM supply_plans p JOIN supply_runs r ON r.run_id = p.run_id CROSS JOIN generate_series(0, ${weeks - 1}) AS t(w)
      WHERE ${sql.join(where, sql.fragment` AND `)} AND EXISTS (SELECT 1 FROM series s WHERE s.item_id = p.item_id AND s.site_id = p.site_id)
    ),
    per AS (
      SELECT item_id, site_id, unique_id, sum(fc)::float8 AS forecast, sum(act)::float8 AS actual, sum(least(fc, act))::float8 AS consumed,
        sum(greatest(0, act - fc))::float8 AS over_consumption
      FROM wk GROUP BY 1, 2, 3
    )`;
  const totals = (await tx.one(sql.unsafe`${base}
    SELECT count(*)::int AS n, COALESCE(sum(forecast), 0)::float8 AS forecast, COALESCE(sum(actual), 0)::float8 AS actual,
      COALESCE(sum(consumed), 0)::float8 AS consumed, COALESCE(sum(over_consumption), 0)::float8 AS over_consumption FROM per`)) as {
    n: number; forecast: number; actual: number; consumed: number; over_consumption: number;
  };
  const rows = (await tx.any(sql.unsafe`${base}
    SELECT item_id, site_id, unique_id, forecast, actual, consumed, (forecast - consumed)::float8 AS remaining, over_consumption,
      CASE WHEN forecast > 0 THEN consumed / forecast END AS consumption_rate
    FROM per ORDER BY item_id, site_id OFFSET ${skip} LIMIT ${limit}`)) as readonly ConsumptionRow[];
  return {
    rows: [...rows],
    total: totals.n,
    totals: {
      forecast: totals.forecast, actual: totals.actual, consumed: totals.consumed, remaining: totals.forecast - totals.consumed,
      over_consumption: totals.over_consumption, consumption_rate: totals.forecast > 0 ? totals.consumed / totals.forecast : null,
    },
  };
}
