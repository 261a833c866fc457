/**
 * Hand-computable step results for the forecast, metrics and analytics route tests, written straight into the
 * migration-007 tables (the values the tests assert are derived in the comments here).
 *
 * Series (weeks 2026-01-05 … 2026-02-23, 8 weeks):
 *   A = I1@DC1  y = 10 12 10 12 10 12 10 12   (smooth; best method ses)
 *   B = I2@DC1  y =  0  5  0  0  0  5  0  0   (lumpy; best method croston)
 *   C = I3@DC1  y =  1  1  1  1  1  1  –  1   (week 2026-02-16 closed; no results at all)
 * Pipeline 0 forecasts start 2026-03-02: A naive 12±, A ses 11 [9, 13], B croston 2 [0, 5].
 * Backtest windows (kind 'window', 2 weeks) of the best methods:
 *   A ses origin 02-02: 11 11 vs 12 10; origin 02-09: 11 11 vs 10 12  → Σ|e| 4, Σ|A| 44, Σe 0
 *   B croston origin 02-02: 2 2 vs 5 0                                 → Σ|e| 5, Σ|A| 5,  Σe −1
 */
import { sql, withTenant, type Db, type Tx } from '../../db/pool';

export const WEEKS = ['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26', '2026-02-02', '2026-02-09', '2026-02-16', '2026-02-23'];
export const FORECAST_START = '2026-03-02';

export interface Seeded {
  A: string;
  B: string;
  C: string;
  keys: Record<'A' | 'B' | 'C', { item_id: number; site_id: number }>;
}

type Key = { item_id: number; site_id: number };

export async function insertForecast(tx: Tx, p: number, k: Key, method: string, start: string, yhat: number[], lower: number[], upper: number[], scenarioId: number | null = null): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level)
    VALUES (${p}, ${k.item_id}, ${k.site_id}, ${method}, ${scenarioId}, ${start}::date, ${sql.array(yhat, 'float8')}, ${sql.array(lower, 'float8')}, ${sql.array(upper, 'float8')}, 0.9)`);
}

export async function insertBest(tx: Tx, p: number, k: Key, best: string, runnerUp: string | null, score: number, metric: string): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, runner_up_method, best_score, metric)
    VALUES (${p}, ${k.item_id}, ${k.site_id}, ${best}, ${runnerUp}, ${score}, ${metric})`);
}

export async function insertWindow(tx: Tx, p: number, k: Key, kind: 'window' | 'origin', method: string, origin: string, yhat: number[], lower: number[], upper: number[], actual: number[] | null): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO backtest_forecasts (pipeline_id, item_id, site_id, kind, method, origin_week, yhat, yhat_lower, yhat_upper, actual)
    VALUES (${p}, ${k.item_id}, ${k.site_id}, ${kind}, ${method}, ${origin}::date, ${sql.array(yhat, 'float8')}, ${sql.array(lower, 'float8')},
      ${sql.array(upper, 'float8')}, ${actual ? sql.array(actual, 'float8') : null})`);
}

export async function insertMetrics(tx: Tx, p: number, k: Key, method: string, m: { mae: number; rmse: number; mase: number; bias: number; coverage_90: number; smape: number; origins: number; points: number }): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO backtest_metrics (pipeline_id, item_id, site_id, method, mae, rmse, mase, bias, coverage_90, smape, origins_evaluated, points)
    VALUES (${p}, ${k.item_id}, ${k.site_id}, ${method}, ${m.mae}, ${m.rmse}, ${m.mase}, ${m.bias}, ${m.coverage_90}, ${m.smape}, ${m.origins}, ${m.points})`);
}

export async function insertCharacteristics(tx: Tx, p: number, k: Key, c: { demand_class: string; adi: number; cov: number; has_seasonality: boolean; has_trend: boolean; complexity: string; recommended: string[] }): Promise<void> {
  const intermittent = c.demand_class === 'intermittent' || c.demand_class === 'lumpy';
  await tx.query(sql.unsafe`
    INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, mean, adi, cv2, zero_ratio, cov, demand_class, is_intermittent,
      has_seasonality, seasonal_period, has_trend, complexity_level, recommended_methods)
    VALUES (${p}, ${k.item_id}, ${k.site_id}, 8, 1, ${c.adi}, 0.1, 0, ${c.cov}, ${c.demand_class}, ${intermittent}, ${c.has_seasonality}, 52, ${c.has_trend},
      ${c.complexity}, ${sql.array(c.recommended, 'text')})`);
}

export async function seedForecastReads(db: Db, accountId: string): Promise<Seeded> {
  return withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('DC1', 'Central DC')`);
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I1', 'Cola'), ('I2', 'Bread'), ('I3', 'Chips')`);
    const ids = async (item: string): Promise<Key> =>
      (await tx.one(sql.unsafe`SELECT i.id AS item_id, s.id AS site_id FROM items i, sites s WHERE i.xuid = ${item} AND s.xuid = 'DC1'`)) as Key;
    const A = await ids('I1');
    const B = await ids('I2');
    const C = await ids('I3');
    const history: Array<[Key, Array<number | null>]> = [
      [A, [10, 12, 10, 12, 10, 12, 10, 12]], [B, [0, 5, 0, 0, 0, 5, 0, 0]], [C, [1, 1, 1, 1, 1, 1, null, 1]],
    ];
    for (const [k, y] of history) {
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${k.item_id}, ${k.site_id}, 8, ${WEEKS[0]}, ${WEEKS[7]})`);
      for (let i = 0; i < y.length; i++) {
        await tx.query(sql.unsafe`
          INSERT INTO series_weekly (item_id, site_id, week, y, closed, factor)
          VALUES (${k.item_id}, ${k.site_id}, ${WEEKS[i]}::date, ${y[i]}, ${y[i] === null}, ${y[i] === null ? 0 : 1})`);
      }
    }
    await insertForecast(tx, 0, A, 'naive', FORECAST_START, [12, 12, 12], [10, 9, 8], [14, 15, 16]);
    await insertForecast(tx, 0, A, 'ses', FORECAST_START, [11, 11, 11], [9, 9, 9], [13, 13, 13]);
    await insertForecast(tx, 0, B, 'croston', FORECAST_START, [2, 2, 2], [0, 0, 0], [5, 5, 5]);
    await insertBest(tx, 0, A, 'ses', 'naive', 1, 'mae');
    await insertBest(tx, 0, B, 'croston', null, 2.5, 'mae');
    await insertMetrics(tx, 0, A, 'naive', { mae: 2, rmse: 2, mase: 1, bias: 0, coverage_90: 1, smape: 18.5, origins: 2, points: 4 });
    await insertMetrics(tx, 0, A, 'ses', { mae: 1, rmse: 1, mase: 0.5, bias: 0, coverage_90: 1, smape: 9, origins: 2, points: 4 });
    await insertMetrics(tx, 0, B, 'croston', { mae: 2.5, rmse: 2.9, mase: 1.5, bias: -0.5, coverage_90: 0.5, smape: 150, origins: 1, points: 2 });
    await insertWindow(tx, 0, A, 'window', 'ses', '2026-02-02', [11, 11], [9, 9], [13, 13], [12, 10]);
    await insertWindow(tx, 0, A, 'window', 'ses', '2026-02-09', [11, 11], [9, 9], [13, 13], [10, 12]);
    await insertWindow(tx, 0, A, 'window', 'naive', '2026-02-02', [10, 10], [8, 7], [12, 13], [12, 10]);
    await insertWindow(tx, 0, A, 'origin', 'ses', '2026-02-02', [11, 11, 11], [9, 9, 9], [13, 13, 13], null);
    await insertWindow(tx, 0, B, 'window', 'croston', '2026-02-02', [2, 2], [0, 0], [5, 5], [5, 0]);
    await insertCharacteristics(tx, 0, A, { demand_class: 'smooth', adi: 1, cov: 0.1, has_seasonality: false, has_trend: false, complexity: 'low', recommended: ['naive', 'ses', 'theta'] });
    await insertCharacteristics(tx, 0, B, { demand_class: 'lumpy', adi: 4, cov: 2.1, has_seasonality: false, has_trend: false, complexity: 'high', recommended: ['naive', 'croston'] });
    await tx.query(sql.unsafe`
      INSERT INTO series_outliers (pipeline_id, item_id, site_id, start_week, corrected_y, method, n_outliers)
      VALUES (0, ${A.item_id}, ${A.site_id}, ${WEEKS[0]}::date, ${sql.array([10, 12, 10, 12, 10, 11, 10, 12], 'float8')}, 'hampel', 1)`);
    const uid = (k: Key) => `${k.item_id}_${k.site_id}`;
    return { A: uid(A), B: uid(B), C: uid(C), keys: { A, B, C } };
  });
}
