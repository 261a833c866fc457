/**
 * Two things the supply API derives from a run for other parts of the platform: the supply issues of the exception
 * log (POST /api/supply/sync-alerts) and the forecast consumption preview (GET /api/supply/consumption-preview).
 */
import { refreshExceptionLog, type RefreshResult } from './exceptionLog';
import { sql, type Tx } from './pool';

export type SyncResult = RefreshResult;

/**
 * The run's exceptions become the supply issues of the pipeline's exception-log rows; every other kind of issue and
 * the planner's status are kept by the rule of the exception-log refresh (db/exceptionLog.ts).
 */
export function syncSupplyIssues(tx: Tx, runId: string, pipelineId: number): Promise<SyncResult> {
  return refreshExceptionLog(tx, pipelineId, [], runId, ['supply']);
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
