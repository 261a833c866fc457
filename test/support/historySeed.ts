/**
 * Three frozen versions of one pipeline with hand-computable differences, for the compare, plan-vs-actual and
 * timeline tests (test/api/historyViews.test.ts). Live rows are written by SQL and frozen with freezeVersion, no
 * Temporal. Series A = I1@S1, B = I2@S1, C = I3@S1, D = I4@S1.
 *
 * v1 2026-06-01 ("week 23"):
 *   best method A ses (mase 0.5), B croston (1.5), C naive (1.0); forecasts from 06-01, 4 weeks: A ses 10, A naive 12, B croston 2, C naive 5
 *   supply run run-b (default supply scenario; KPIs fill 0.85, inventory value 36, shortage 6):
 *     orders A BUY 10×2, BUY 5×2, TRANSFER 4×1; B BUY 6×3; C BUY 8×1
 *     plans A projected [10, 20] gross [8, 12] ending 40 avg value 30 shortage 2 fill 0.9; B projected [−4, 6] gross [10, 10] ending 12 avg 6 shortage 4 fill 0.8
 *     exceptions A shortage/high ×2 (qty 3, 4), A excess/low (10), B late_order/medium (6)
 *   MEIO (scenario M1): A ss 5 rop 15 out 25 inv 50 fr 0.95 mean 10; B 2 4 8 10 0.90 mean 2; C 1 3 6 4 0.99 mean 1
 * v2 2026-06-08: C gone, D new; B's best method croston → naive (1.2); A ses 11 (0.4), B naive 3, D ses 7 (0.8), all from 06-08
 *   supply run run-t (KPIs 0.95, 53, 1): orders A BUY 12×2; B BUY 6×3; D BUILD 3×5
 *     plans A projected [12, 16] gross [8, 12] ending 32 avg 28 shortage 0 fill 1; D projected [5, 5] gross [4, 6] ending 25 avg 25 shortage 1 fill 0.9
 *     exceptions A shortage/high (2), B below_safety_stock/medium (1), D shortage/high (5)
 *   MEIO: A 6 16 26 60 0.96 mean 10; B unchanged
 * v3 2026-06-15, pinned ("quarter close"): A ses [11, 11, 20, 11]; B's MEIO row gone. The live rows stay as v3 froze them.
 * Actuals (series_weekly): A 05-25 9, 06-01 12, 06-08 6, 06-15 10; B 06-01 0, 06-08 4, 06-15 closed; D 06-08 7.
 */
import { freezeVersion } from '../../db/history';
import { sql, withTenant, type Db, type Tx } from '../../db/pool';

export const V1 = '2026-06-01';
export const V2 = '2026-06-08';
export const V3 = '2026-06-15';

export interface HistorySeed {
  pipelineId: number;
  site: number;
  items: Record<'I1' | 'I2' | 'I3' | 'I4', number>;
  supplyScenario: number;
  meioScenario: number;
}

type Key = readonly [item: number, site: number];

async function forecast(tx: Tx, p: number, [item, site]: Key, method: string, start: string, yhat: number[]): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
    VALUES (${p}, ${item}, ${site}, ${method}, ${start}, ${sql.array(yhat, 'float8')}, ${sql.array(yhat, 'float8')}, ${sql.array(yhat, 'float8')}, 0.8)
    ON CONFLICT (pipeline_id, item_id, site_id, method) DO UPDATE SET start_week = EXCLUDED.start_week, yhat = EXCLUDED.yhat,
      yhat_lower = EXCLUDED.yhat_lower, yhat_upper = EXCLUDED.yhat_upper`);
}

async function best(tx: Tx, p: number, [item, site]: Key, method: string, score: number): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, best_score, metric) VALUES (${p}, ${item}, ${site}, ${method}, ${score}, 'mase')
    ON CONFLICT (pipeline_id, item_id, site_id) DO UPDATE SET best_method = EXCLUDED.best_method, best_score = EXCLUDED.best_score`);
}

async function run(tx: Tx, p: number, scenario: number, runId: string, date: string, kpis: Record<string, number>): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date, kpis, finished_at)
    VALUES (${runId}, ${p}, ${scenario}, 'completed', ${date}, ${sql.jsonb(kpis)}, now())`);
}

async function order(tx: Tx, p: number, scenario: number, runId: string, [item, site]: Key, type: string, qty: number, cost: number): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO supply_orders (run_id, pipeline_id, scenario_id, engine_order_id, item_id, site_id, order_type, status, qty, requested_qty,
      release_week, arrival_week, need_week, release_date, arrival_date, unit_cost)
    VALUES (${runId}, ${p}, ${scenario}, 1, ${item}, ${site}, ${type}, 'planned', ${qty}, ${qty}, 0, 1, 1, '2026-06-01', '2026-06-08', ${cost})`);
}

async function plan(tx: Tx, runId: string, [item, site]: Key, projected: number[], gross: number[], f: { ending: number; avg: number; shortage: number; fill: number }): Promise<void> {
  const zeros = sql.array(projected.map(() => 0), 'float8');
  await tx.query(sql.unsafe`
    INSERT INTO supply_plans (run_id, item_id, site_id, opening, demand, indirect, returns, gross, receipts_firm, receipts_planned, projected, safety_stock,
      shortage, latest_firm_week, min_lead_time, unit_cost, fill_rate, shortage_qty, avg_inventory_value, ending_inventory_value)
    VALUES (${runId}, ${item}, ${site}, 0, ${sql.array(gross, 'float8')}, ${zeros}, ${zeros}, ${sql.array(gross, 'float8')}, ${zeros}, ${zeros},
      ${sql.array(projected, 'float8')}, ${zeros}, ${zeros}, ${sql.array(projected.map(() => 255), 'int4')}, ${zeros}, 2, ${f.fill}, ${f.shortage}, ${f.avg}, ${f.ending})`);
}

async function exception(tx: Tx, runId: string, [item, site]: Key, type: string, severity: string, qty: number): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO supply_exceptions (run_id, item_id, site_id, type, week, end_week, qty, severity, description)
    VALUES (${runId}, ${item}, ${site}, ${type}, 0, 0, ${qty}, ${severity}, ${`${type} of ${qty}`})`);
}

async function meio(tx: Tx, p: number, scenario: number, [item, site]: Key, v: [ss: number, rop: number, out: number, inv: number, fr: number, mean: number]): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO meio_results (pipeline_id, scenario_id, item_id, site_id, policy, service_type, target_service, target_source, echelon_model,
      weekly_mean, safety_stock, reorder_point, order_up_to, investment, expected_fill_rate)
    VALUES (${p}, ${scenario}, ${item}, ${site}, 'rQ', 'fill_rate', 0.95, 'scenario', 'single', ${v[5]}, ${v[0]}, ${v[1]}, ${v[2]}, ${v[3]}, ${v[4]})
    ON CONFLICT (pipeline_id, scenario_id, item_id, site_id) DO UPDATE SET safety_stock = EXCLUDED.safety_stock, reorder_point = EXCLUDED.reorder_point,
      order_up_to = EXCLUDED.order_up_to, investment = EXCLUDED.investment, expected_fill_rate = EXCLUDED.expected_fill_rate, weekly_mean = EXCLUDED.weekly_mean`);
}

async function weekly(tx: Tx, [item, site]: Key, weeks: Array<[string, number | null]>): Promise<void> {
  for (const [week, y] of weeks) {
    await tx.query(sql.unsafe`INSERT INTO series_weekly (item_id, site_id, week, y, closed, factor) VALUES (${item}, ${site}, ${week}, ${y}, ${y === null}, ${y === null ? 0 : 1})`);
  }
}

const freeze = (tx: Tx, pipelineId: number, archiveDate: string, comment: string | null, pin: boolean) =>
  freezeVersion(tx, { pipelineId, archiveDate, comment, pin, createdBy: 'seed@example.com', jobId: null, source: 'api' });

export async function seedHistory(db: Db, accountId: string): Promise<HistorySeed> {
  const s = await withTenant(db, accountId, async (tx) => {
    const pipelineId = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('History views pipeline') RETURNING id`)) as number;
    const site = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Store 1') RETURNING id`)) as number;
    const items = {} as HistorySeed['items'];
    for (const x of ['I1', 'I2', 'I3', 'I4'] as const) {
      items[x] = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${x}, ${`Item ${x}`}) RETURNING id`)) as number;
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${items[x]}, ${site})`);
    }
    const supplyScenario = (await tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as number;
    const meioScenario = (await tx.oneFirst(sql.unsafe`INSERT INTO meio_scenarios (name) VALUES ('M1') RETURNING id`)) as number;
    return { pipelineId, site, items, supplyScenario, meioScenario };
  });
  const p = s.pipelineId;
  const A = [s.items.I1, s.site] as const;
  const B = [s.items.I2, s.site] as const;
  const C = [s.items.I3, s.site] as const;
  const D = [s.items.I4, s.site] as const;

  await withTenant(db, accountId, async (tx) => {
    await best(tx, p, A, 'ses', 0.5);
    await best(tx, p, B, 'croston', 1.5);
    await best(tx, p, C, 'naive', 1.0);
    await forecast(tx, p, A, 'ses', V1, [10, 10, 10, 10]);
    await forecast(tx, p, A, 'naive', V1, [12, 12, 12, 12]);
    await forecast(tx, p, B, 'croston', V1, [2, 2, 2, 2]);
    await forecast(tx, p, C, 'naive', V1, [5, 5, 5, 5]);
    await run(tx, p, s.supplyScenario, 'run-b', V1, { projected_fill_rate: 0.85, avg_inventory_value: 36, shortage_qty: 6 });
    await order(tx, p, s.supplyScenario, 'run-b', A, 'BUY', 10, 2);
    await order(tx, p, s.supplyScenario, 'run-b', A, 'BUY', 5, 2);
    await order(tx, p, s.supplyScenario, 'run-b', A, 'TRANSFER', 4, 1);
    await order(tx, p, s.supplyScenario, 'run-b', B, 'BUY', 6, 3);
    await order(tx, p, s.supplyScenario, 'run-b', C, 'BUY', 8, 1);
    await plan(tx, 'run-b', A, [10, 20], [8, 12], { ending: 40, avg: 30, shortage: 2, fill: 0.9 });
    await plan(tx, 'run-b', B, [-4, 6], [10, 10], { ending: 12, avg: 6, shortage: 4, fill: 0.8 });
    await exception(tx, 'run-b', A, 'shortage', 'high', 3);
    await exception(tx, 'run-b', A, 'shortage', 'high', 4);
    await exception(tx, 'run-b', A, 'excess', 'low', 10);
    await exception(tx, 'run-b', B, 'late_order', 'medium', 6);
    await meio(tx, p, s.meioScenario, A, [5, 15, 25, 50, 0.95, 10]);
    await meio(tx, p, s.meioScenario, B, [2, 4, 8, 10, 0.9, 2]);
    await meio(tx, p, s.meioScenario, C, [1, 3, 6, 4, 0.99, 1]);
    await weekly(tx, A, [['2026-05-25', 9], [V1, 12], [V2, 6], [V3, 10]]);
    await weekly(tx, B, [[V1, 0], [V2, 4], [V3, null]]);
    await weekly(tx, D, [[V2, 7]]);
    await freeze(tx, p, V1, 'week 23', false);
  });

  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`DELETE FROM series_best_method WHERE pipeline_id = ${p} AND item_id = ${C[0]}`);
    await tx.query(sql.unsafe`DELETE FROM forecast_results WHERE pipeline_id = ${p} AND (item_id = ${C[0]} OR (item_id = ${A[0]} AND method = 'naive'))`);
    await best(tx, p, A, 'ses', 0.4);
    await best(tx, p, B, 'naive', 1.2);
    await best(tx, p, D, 'ses', 0.8);
    await forecast(tx, p, A, 'ses', V2, [11, 11, 11, 11]);
    await forecast(tx, p, B, 'naive', V2, [3, 3, 3, 3]);
    await forecast(tx, p, D, 'ses', V2, [7, 7, 7, 7]);
    await tx.query(sql.unsafe`DELETE FROM supply_runs WHERE run_id = 'run-b'`);
    await run(tx, p, s.supplyScenario, 'run-t', V2, { projected_fill_rate: 0.95, avg_inventory_value: 53, shortage_qty: 1 });
    await order(tx, p, s.supplyScenario, 'run-t', A, 'BUY', 12, 2);
    await order(tx, p, s.supplyScenario, 'run-t', B, 'BUY', 6, 3);
    await order(tx, p, s.supplyScenario, 'run-t', D, 'BUILD', 3, 5);
    await plan(tx, 'run-t', A, [12, 16], [8, 12], { ending: 32, avg: 28, shortage: 0, fill: 1 });
    await plan(tx, 'run-t', D, [5, 5], [4, 6], { ending: 25, avg: 25, shortage: 1, fill: 0.9 });
    await exception(tx, 'run-t', A, 'shortage', 'high', 2);
    await exception(tx, 'run-t', B, 'below_safety_stock', 'medium', 1);
    await exception(tx, 'run-t', D, 'shortage', 'high', 5);
    await meio(tx, p, s.meioScenario, A, [6, 16, 26, 60, 0.96, 10]);
    await tx.query(sql.unsafe`DELETE FROM meio_results WHERE pipeline_id = ${p} AND item_id = ${C[0]}`);
    await freeze(tx, p, V2, null, false);
  });

  await withTenant(db, accountId, async (tx) => {
    await forecast(tx, p, A, 'ses', V2, [11, 11, 20, 11]);
    await tx.query(sql.unsafe`DELETE FROM meio_results WHERE pipeline_id = ${p} AND item_id = ${B[0]}`);
    await freeze(tx, p, V3, 'quarter close', true);
  });
  return s;
}
