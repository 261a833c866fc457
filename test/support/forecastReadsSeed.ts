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
import type { SeriesKey } from '../../db/etl';
import { sql, withTenant, type Db } from '../../db/pool';
import type { CharacteristicsWrite } from '../../db/seriesResults';
import { insertBest, insertCharacteristics, insertForecast, insertMetrics, insertOutliers, insertWindow, writeWeeklyHistory } from './forecastFixtures';

export { insertBest, insertForecast, insertWindow };

export const WEEKS = ['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26', '2026-02-02', '2026-02-09', '2026-02-16', '2026-02-23'];
export const FORECAST_START = '2026-03-02';

export interface Seeded {
  A: string;
  B: string;
  C: string;
  keys: Record<'A' | 'B' | 'C', SeriesKey>;
}

/** The characterization row of an 8-week seed series: only the class, ADI, CoV, flags and recommendation vary. */
const characteristicsRow = (k: SeriesKey, c: Pick<CharacteristicsWrite, 'demand_class' | 'adi' | 'cov' | 'has_seasonality' | 'has_trend' | 'complexity_level' | 'recommended_methods'>): CharacteristicsWrite => ({
  ...k, ...c, n_observations: 8, mean: 1, cv2: 0.1, zero_ratio: 0, seasonal_period: 52, details: {},
  is_intermittent: c.demand_class === 'intermittent' || c.demand_class === 'lumpy',
});

export async function seedForecastReads(db: Db, accountId: string): Promise<Seeded> {
  return withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('DC1', 'Central DC')`);
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I1', 'Cola'), ('I2', 'Bread'), ('I3', 'Chips')`);
    const ids = async (item: string): Promise<SeriesKey> =>
      (await tx.one(sql.unsafe`SELECT i.id AS item_id, s.id AS site_id FROM items i, sites s WHERE i.xuid = ${item} AND s.xuid = 'DC1'`)) as SeriesKey;
    const A = await ids('I1');
    const B = await ids('I2');
    const C = await ids('I3');
    const history: Array<[SeriesKey, Array<number | null>]> = [
      [A, [10, 12, 10, 12, 10, 12, 10, 12]], [B, [0, 5, 0, 0, 0, 5, 0, 0]], [C, [1, 1, 1, 1, 1, 1, null, 1]],
    ];
    for (const [k, y] of history) {
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${k.item_id}, ${k.site_id}, 8, ${WEEKS[0]}, ${WEEKS[7]})`);
      await writeWeeklyHistory(tx, k, WEEKS, y);
    }
    await insertForecast(tx, 0, A, 'naive', FORECAST_START, [12, 12, 12], [10, 9, 8], [14, 15, 16]);
    await insertForecast(tx, 0, A, 'ses', FORECAST_START, [11, 11, 11], [9, 9, 9], [13, 13, 13]);
    await insertForecast(tx, 0, B, 'croston', FORECAST_START, [2, 2, 2], [0, 0, 0], [5, 5, 5]);
    await insertBest(tx, 0, A, 'ses', 'naive', 1, 'mae');
    await insertBest(tx, 0, B, 'croston', null, 2.5, 'mae');
    await insertMetrics(tx, 0, A, 'naive', { mae: 2, rmse: 2, mase: 1, bias: 0, coverage_90: 1, smape: 18.5, origins_evaluated: 2, points: 4 });
    await insertMetrics(tx, 0, A, 'ses', { mae: 1, rmse: 1, mase: 0.5, bias: 0, coverage_90: 1, smape: 9, origins_evaluated: 2, points: 4 });
    await insertMetrics(tx, 0, B, 'croston', { mae: 2.5, rmse: 2.9, mase: 1.5, bias: -0.5, coverage_90: 0.5, smape: 150, origins_evaluated: 1, points: 2 });
    await insertWindow(tx, 0, A, 'window', 'ses', '2026-02-02', [11, 11], [9, 9], [13, 13], [12, 10]);
    await insertWindow(tx, 0, A, 'window', 'ses', '2026-02-09', [11, 11], [9, 9], [13, 13], [10, 12]);
    await insertWindow(tx, 0, A, 'window', 'naive', '2026-02-02', [10, 10], [8, 7], [12, 13], [12, 10]);
    await insertWindow(tx, 0, A, 'origin', 'ses', '2026-02-02', [11, 11, 11], [9, 9, 9], [13, 13, 13], null);
    await insertWindow(tx, 0, B, 'window', 'croston', '2026-02-02', [2, 2], [0, 0], [5, 5], [5, 0]);
    await insertCharacteristics(tx, 0, characteristicsRow(A, { demand_class: 'smooth', adi: 1, cov: 0.1, has_seasonality: false, has_trend: false, complexity_level: 'low', recommended_methods: ['naive', 'ses', 'theta'] }));
    await insertCharacteristics(tx, 0, characteristicsRow(B, { demand_class: 'lumpy', adi: 4, cov: 2.1, has_seasonality: false, has_trend: false, complexity_level: 'high', recommended_methods: ['naive', 'croston'] }));
    // week 2026-02-09 of A corrected from 12 to 11
    await insertOutliers(tx, 0, {
      ...A, start_week: WEEKS[0], corrected_y: [10, 12, 10, 12, 10, 11, 10, 12], method: 'hampel', params: {},
      outliers: [{ ds: WEEKS[5], y: 12, corrected_y: 11 }],
    });
    const uid = (k: SeriesKey) => `${k.item_id}_${k.site_id}`;
    return { A: uid(A), B: uid(B), C: uid(C), keys: { A, B, C } };
  });
}
