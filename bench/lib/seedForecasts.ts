/**
 * Forecasting results written with straight SQL, for the benchmarks that measure what comes after the forecasting
 * steps (bench/supply.ts, bench/history.ts): those steps take many minutes at 10,000 series and do not change what
 * the later steps cost, only what they compute from.
 */
import { sql, withTenant } from '../../db/pool';
import type { PipelineContext } from './forecastPipeline';

/**
 * Per series: the mean of its last 13 weeks (a missing week counts as 0) as a flat `moving_average` forecast of
 * `horizon` weeks from the Monday after the last week of history, and that method as the series' best method.
 * `label` (the benchmark's name) goes into job_id and reason, so the seeded rows say where they came from.
 * Returns the forecasts written.
 */
export async function seedFlatForecasts(ctx: PipelineContext, opts: { horizon: number; label: string }): Promise<number> {
  const jobId = `${opts.label.replace(/[^a-z0-9]+/gi, '-')}-seed`;
  return withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    const n = await tx.query(sql.unsafe`
      WITH last AS (SELECT max(week) AS w FROM series_weekly),
      m AS (
        SELECT s.item_id, s.site_id, COALESCE(sum(w.y), 0)::float8 / 13 AS v, COALESCE(stddev_samp(w.y), 0)::float8 AS sd
        FROM series s CROSS JOIN last LEFT JOIN series_weekly w ON w.item_id = s.item_id AND w.site_id = s.site_id AND w.week > last.w - 91
        GROUP BY s.item_id, s.site_id
      )
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level, params, job_id)
      SELECT ${ctx.pipelineId}, m.item_id, m.site_id, 'moving_average', NULL, (SELECT w FROM last) + 7,
        array_fill(m.v, ARRAY[${opts.horizon}::int]), array_fill(greatest(0, m.v - 1.2816 * m.sd), ARRAY[${opts.horizon}::int]), array_fill(m.v + 1.2816 * m.sd, ARRAY[${opts.horizon}::int]),
        0.8, '{"window": 13}'::jsonb, ${jobId}
      FROM m`);
    await tx.query(sql.unsafe`
      INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, metric, ranking, reason, job_id)
      SELECT ${ctx.pipelineId}, item_id, site_id, 'moving_average', 'mase', '[]'::jsonb, ${`seeded by ${opts.label}`}, ${jobId} FROM series`);
    await tx.query(sql.unsafe`ANALYZE forecast_results`);
    await tx.query(sql.unsafe`ANALYZE series_best_method`);
    return n.rowCount;
  });
}

/** The methods a real tournament leaves forecasts and backtests for besides the seeded best one (bench:forecast's winners). */
export const TOURNAMENT_METHODS = ['naive', 'seasonal_naive', 'ses', 'holt_winters', 'croston', 'theta', 'combination'] as const;

/**
 * The rest of what the forecasting steps leave for a pipeline, so that a freeze copies a real tournament's volume:
 * one outlier row (the history as corrected_y) and one characterization per series, a flat forecast of `horizon`
 * weeks for each of TOURNAMENT_METHODS (the seeded best method's level times a per-method factor), backtest metrics
 * for every method, and `windows` scored 13-week backtest windows per series and method. bench:forecast's real run at
 * 10,000 series wrote 74,495 forecasts, 657,329 backtest rows and 68,837 best-method rows (combination included);
 * the defaults land near that. The best methods and their forecasts are left as they are. Rows go in series order,
 * as the steps write them chunk by chunk, so that a series' rows sit on neighbouring pages as they would. Returns rows
 * per table.
 */
export async function seedTournamentRows(ctx: PipelineContext, opts: { horizon: number; windows: number; label: string }): Promise<Record<string, number>> {
  const jobId = `${opts.label.replace(/[^a-z0-9]+/gi, '-')}-tournament`;
  const methods = sql.array([...TOURNAMENT_METHODS], 'text');
  return withTenant(ctx.stack.db, ctx.accountId, async (tx) => {
    const out: Record<string, number> = {};
    out.series_outliers = (await tx.query(sql.unsafe`
      INSERT INTO series_outliers (pipeline_id, item_id, site_id, start_week, corrected_y, method, params, outliers, n_outliers, job_id)
      SELECT ${ctx.pipelineId}, item_id, site_id, min(week), array_agg(y::float8 ORDER BY week), 'iqr', '{"k": 3}'::jsonb, '[]'::jsonb, 0, ${jobId}
      FROM series_weekly GROUP BY item_id, site_id`)).rowCount;
    out.series_characteristics = (await tx.query(sql.unsafe`
      INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, mean, adi, cv2, zero_ratio, cov, demand_class, is_intermittent,
        has_seasonality, seasonal_period, has_trend, complexity_level, recommended_methods, details, job_id)
      SELECT ${ctx.pipelineId}, item_id, site_id, count(*)::int, avg(y)::float8, 1.1, 0.3, (count(*) FILTER (WHERE y = 0))::float8 / count(*), 0.5,
        'smooth', false, false, 52, false, 'medium', ${methods}, '{"acf": [0.1, 0.05]}'::jsonb, ${jobId}
      FROM series_weekly GROUP BY item_id, site_id`)).rowCount;
    out.forecast_results = (await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level, params, job_id)
      SELECT f.pipeline_id, f.item_id, f.site_id, m.method, f.scenario_id, f.start_week,
        (SELECT array_agg(v * (0.8 + 0.05 * m.k)) FROM unnest(f.yhat) v), (SELECT array_agg(v * (0.8 + 0.05 * m.k)) FROM unnest(f.yhat_lower) v),
        (SELECT array_agg(v * (0.8 + 0.05 * m.k)) FROM unnest(f.yhat_upper) v), f.level, '{}'::jsonb, ${jobId}
      FROM forecast_results f CROSS JOIN unnest(${methods}) WITH ORDINALITY AS m(method, k)
      WHERE f.pipeline_id = ${ctx.pipelineId} AND f.method = 'moving_average'
      ORDER BY f.item_id, f.site_id, m.k`)).rowCount;
    out.backtest_metrics = (await tx.query(sql.unsafe`
      INSERT INTO backtest_metrics (pipeline_id, item_id, site_id, method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points, job_id)
      SELECT pipeline_id, item_id, site_id, method, 1.0 + (item_id % 7) * 0.1, 1.3, 0.9 + (site_id % 5) * 0.05, 0.02, 0.88, 0.35, 3, 39, ${jobId}
      FROM forecast_results WHERE pipeline_id = ${ctx.pipelineId} ORDER BY item_id, site_id, method`)).rowCount;
    // scored windows of 13 weeks: forecast, band and the actuals of the window, from origins 4 weeks apart
    out.backtest_forecasts = (await tx.query(sql.unsafe`
      WITH last AS (SELECT max(week) AS w FROM series_weekly)
      INSERT INTO backtest_forecasts (pipeline_id, item_id, site_id, kind, method, origin_week, yhat, yhat_lower, yhat_upper, actual, job_id)
      SELECT f.pipeline_id, f.item_id, f.site_id, 'window', f.method, last.w - 7 * (13 + 4 * g.o), f.yhat[1:13], f.yhat_lower[1:13], f.yhat_upper[1:13],
        f.yhat[1:13], ${jobId}
      FROM forecast_results f CROSS JOIN last CROSS JOIN generate_series(0, ${opts.windows - 1}) AS g(o)
      WHERE f.pipeline_id = ${ctx.pipelineId}
      ORDER BY f.item_id, f.site_id, f.method, g.o`)).rowCount;
    for (const t of Object.keys(out)) await tx.query(sql.unsafe`ANALYZE ${sql.identifier([t])}`);
    return out;
  });
}
