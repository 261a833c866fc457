/**
 * The exception tests' tenant (docs/EXCEPTIONS.md): the supply network of supplySeed.ts, with forecast and io results
 * of its pipeline built to trip the exception rules:
 * P@S1: MASE 2 (trips high_mase) and an io miss (fill rate 0.8 against 0.95); P@S2: bias 2 on a mean of 5 (trips bias)
 * and no distribution; Q@S1: quiet on every rule; R@S2 (item R, made here): a forecast without a best method.
 * No supply run is written: each test makes the supply runs it needs.
 */
import { sql, withTenant, type Db } from '../../db/pool';
import { seedSupply, type SupplySeed } from './supplySeed';

export interface ExceptionSeed extends SupplySeed {
  /** item R, a series at S2 only, with a forecast of the pipeline but no best method */
  itemR: number;
}

export async function seedExceptions(db: Db, accountId: string): Promise<ExceptionSeed> {
  const seed = await seedSupply(db, accountId);
  const { pipelineId: p, items, sites } = seed;
  const itemR = await withTenant(db, accountId, async (tx) => {
    const metrics: Array<[number, number, number, number, number]> = [[items.P, sites.S1, 2, 0, 10], [items.P, sites.S2, 0.8, 2, 5], [items.Q, sites.S1, 0.5, 0.1, 4]];
    for (const [i, s, mase, bias, mean] of metrics) {
      await tx.query(sql.unsafe`INSERT INTO backtest_metrics (pipeline_id, item_id, site_id, method, mase, bias) VALUES (${p}, ${i}, ${s}, 'naive', ${mase}, ${bias})`);
      await tx.query(sql.unsafe`INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, mean, demand_class, is_intermittent, has_seasonality, seasonal_period, has_trend, complexity_level)
        VALUES (${p}, ${i}, ${s}, 20, ${mean}, 'smooth', false, false, 52, false, 'low')`);
    }
    const r = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('R', 'Item R') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${r}, ${sites.S2})`);
    await tx.query(sql.unsafe`INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      VALUES (${p}, ${r}, ${sites.S2}, 'naive', '2026-06-01', '{1}', '{1}', '{1}', 0.8)`);
    const sc = (await tx.oneFirst(sql.unsafe`INSERT INTO meio_scenarios (name, is_default) VALUES ('io', true) RETURNING id`)) as number;
    const meio = async (i: number, s: number, meets: boolean, fill: number, diagnostics: unknown[]) => tx.query(sql.unsafe`
      INSERT INTO meio_results (pipeline_id, scenario_id, item_id, site_id, policy, service_type, target_service, target_source, echelon_model, expected_fill_rate, meets_target, diagnostics)
      VALUES (${p}, ${sc}, ${i}, ${s}, 'rQ', 'fill_rate', 0.95, 'scenario', 'single', ${fill}, ${meets}, ${sql.jsonb(diagnostics as any)})`);
    await meio(items.P, sites.S1, false, 0.8, []);
    await meio(items.P, sites.S2, false, 0, [{ code: 'no_distribution', detail: 'no fitted demand distribution for this pipeline' }]);
    await meio(items.Q, sites.S1, true, 0.97, []);
    return r;
  });
  return { ...seed, itemR };
}
