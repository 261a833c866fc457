/**
 * A supply run written by SQL for the allocation tests (docs/SUPPLY.md "Allocation step"), small enough to solve by
 * hand. Planning date 2026-01-05 (week 0), one site S1, demand classes from the newest active ABC configuration:
 *
 * | item | class | opening | forecast (week: qty)   | pool                                                              |
 * |------|-------|---------|------------------------|-------------------------------------------------------------------|
 * | X    | A     | 5       | 0: 3, 1: 4, 2: 10      | SO planned 10 @1; FIRM firm 10 @2 (+ legacy engine rows, dead firm orders) |
 * | Y    | C     | 0       | 0: 5, 8: 5             | SO delayed 5 @1; FIRM released 5 @8                               |
 * | Z    | —     | 0       | 3: 4                   | SO planned 4 @3; FIRM in_transit 10 received 6 → 4 @3             |
 * | V    | B     | 0       | 4: 3, 5: 3, 6: 3       | SO constrained 3 @4, delayed 3 @5, expedited 3 @6                 |
 * | Q    | —     | 0       | 0: 2, 51: 2            | FIRM in_transit 2 arriving before week 0 (→ 0), FIRM firm 2 in week 60 (→ 51) |
 *
 * Item U has a firm order but no plan in the run (out of scope). An older completed run, a newer failed run and a newer
 * run of another supply scenario must all be ignored.
 */
import { sql, withTenant, type Db, type Tx } from '../../db/pool';

export const PLANNING_DATE = '2026-01-05';
const H = 52;

export interface AllocationSeed {
  site: number;
  items: Record<'X' | 'Y' | 'Z' | 'V' | 'Q' | 'U', number>;
  supplyRunId: string;
  /** order_id of the engine orders that enter the pool */
  so: Record<'X' | 'Y' | 'Z' | 'V4' | 'V5' | 'V6', number>;
  /** engine orders with a legacy status that must stay out */
  legacy: number[];
  /** id of the firm orders that enter the pool */
  firm: Record<'X' | 'Y' | 'Z' | 'Qpast' | 'Qfar', number>;
  /** firm orders that must stay out (received, nothing left, over-received, no plan) */
  firmOut: number[];
  abcConfig: number;
}

const zeros = (n = H) => new Array<number>(n).fill(0);
const weekDate = (week: number) => sql.fragment`(${PLANNING_DATE}::date + ${7 * week}::int)`;

export async function insertSupplyRun(tx: Tx, r: { runId: string; pipelineId: number; scenarioId: number; status?: string; startedAt: string }): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date, started_at, finished_at)
    VALUES (${r.runId}, ${r.pipelineId}, ${r.scenarioId}, ${r.status ?? 'completed'}, ${PLANNING_DATE}, ${r.startedAt}::timestamptz, ${r.startedAt}::timestamptz + interval '1 minute')`);
}

let engineIds = 0;

export async function insertEngineOrder(
  tx: Tx, runId: string, o: { item: number; site: number; status: string; qty: number; arrival: number; type?: string },
): Promise<number> {
  const run = (await tx.one(sql.unsafe`SELECT pipeline_id, scenario_id FROM supply_runs WHERE run_id = ${runId}`)) as { pipeline_id: number; scenario_id: number };
  const release = o.arrival - 1;
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO supply_orders (run_id, pipeline_id, scenario_id, engine_order_id, item_id, site_id, order_type, status, qty, requested_qty,
      release_week, arrival_week, need_week, release_date, arrival_date)
    VALUES (${runId}, ${run.pipeline_id}, ${run.scenario_id}, ${++engineIds}, ${o.item}, ${o.site}, ${o.type ?? 'BUY'}, ${o.status}, ${o.qty}, ${o.qty},
      ${release}, ${o.arrival}, ${o.arrival}, ${weekDate(release)}, ${weekDate(o.arrival)})
    RETURNING order_id`)) as number;
}

export async function insertPlan(tx: Tx, runId: string, p: { item: number; site: number; opening: number; demand: Record<number, number> }): Promise<void> {
  const demand = zeros();
  for (const [w, q] of Object.entries(p.demand)) demand[Number(w)] = q;
  const z = sql.array(zeros(), 'float8');
  await tx.query(sql.unsafe`
    INSERT INTO supply_plans (run_id, item_id, site_id, opening, demand, indirect, returns, gross, receipts_firm, receipts_planned, projected,
      safety_stock, shortage, latest_firm_week, min_lead_time)
    VALUES (${runId}, ${p.item}, ${p.site}, ${p.opening}, ${sql.array(demand, 'float8')}, ${z}, ${z}, ${sql.array(demand, 'float8')}, ${z}, ${z}, ${z},
      ${z}, ${z}, ${sql.array(new Array<number>(7).fill(255), 'int4')}, ${sql.array(zeros(7), 'float8')})`);
}

export async function insertFirmOrder(
  tx: Tx, f: { item: number; site: number; status: string; qty: number; received?: number; arrival: string; release?: string },
): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO firm_orders (external_id, item_id, site_id, order_type, qty, received_qty, erp_status, release_dt, arrival_dt)
    VALUES (${`PO-${Math.random().toString(36).slice(2)}`}, ${f.item}, ${f.site}, 'BUY', ${f.qty}, ${f.received ?? 0}, ${f.status},
      ${f.release ?? '2025-11-01T00:00:00Z'}::timestamptz, ${f.arrival}::timestamptz)
    RETURNING id`)) as number;
}

async function abcConfig(tx: Tx, name: string, active: boolean, computedAt: string, classes: Array<[number, number, string]>): Promise<number> {
  const id = (await tx.oneFirst(sql.unsafe`
    INSERT INTO abc_configurations (name, is_active) VALUES (${name}, ${active}) RETURNING id`)) as number;
  for (const [rank, [item, site, label]] of classes.entries()) {
    await tx.query(sql.unsafe`
      INSERT INTO abc_results (config_id, item_id, site_id, class_label, rank, metric_value, share, cumulative_share, annual_volume, annual_value, computed_at)
      VALUES (${id}, ${item}, ${site}, ${label}, ${rank + 1}, 1, 0.1, 0.1, 1, 1, ${computedAt}::timestamptz)`);
  }
  return id;
}

/** The default supply scenario of the tenant (migration 012 creates 'Base'). */
export async function defaultSupplyScenario(db: Db, accountId: string): Promise<number> {
  return withTenant(db, accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as Promise<number>;
}

export async function seedAllocationCase(db: Db, accountId: string, pipelineId: number, scenarioId: number): Promise<AllocationSeed> {
  return withTenant(db, accountId, async (tx) => {
    const site = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('AL-S1', 'Allocation site') RETURNING id`)) as number;
    const item = async (xuid: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${xuid}, ${`Item ${xuid}`}) RETURNING id`)) as number;
    const items = { X: await item('AL-X'), Y: await item('AL-Y'), Z: await item('AL-Z'), V: await item('AL-V'), Q: await item('AL-Q'), U: await item('AL-U') };
    const other = (await tx.oneFirst(sql.unsafe`INSERT INTO supply_scenarios (name) VALUES ('Allocation other') RETURNING id`)) as number;

    // the run to allocate, between an older completed run and newer runs that do not count
    const supplyRunId = `supply-alloc-${pipelineId}`;
    await insertSupplyRun(tx, { runId: `${supplyRunId}-old`, pipelineId, scenarioId, startedAt: '2026-01-01T08:00:00Z' });
    await insertSupplyRun(tx, { runId: supplyRunId, pipelineId, scenarioId, startedAt: '2026-01-02T08:00:00Z' });
    await insertSupplyRun(tx, { runId: `${supplyRunId}-failed`, pipelineId, scenarioId, status: 'failed', startedAt: '2026-01-03T08:00:00Z' });
    await insertSupplyRun(tx, { runId: `${supplyRunId}-other`, pipelineId, scenarioId: other, startedAt: '2026-01-04T08:00:00Z' });
    for (const stale of [`${supplyRunId}-old`, `${supplyRunId}-failed`, `${supplyRunId}-other`]) {
      await insertPlan(tx, stale, { item: items.X, site, opening: 0, demand: { 0: 50 } });
      await insertEngineOrder(tx, stale, { item: items.X, site, status: 'planned', qty: 999, arrival: 0 });
    }

    await insertPlan(tx, supplyRunId, { item: items.X, site, opening: 5, demand: { 0: 3, 1: 4, 2: 10 } });
    await insertPlan(tx, supplyRunId, { item: items.Y, site, opening: 0, demand: { 0: 5, 8: 5 } });
    await insertPlan(tx, supplyRunId, { item: items.Z, site, opening: 0, demand: { 3: 4 } });
    await insertPlan(tx, supplyRunId, { item: items.V, site, opening: 0, demand: { 4: 3, 5: 3, 6: 3 } });
    await insertPlan(tx, supplyRunId, { item: items.Q, site, opening: 0, demand: { 0: 2, 51: 2 } });

    const so = {
      X: await insertEngineOrder(tx, supplyRunId, { item: items.X, site, status: 'planned', qty: 10, arrival: 1 }),
      Y: await insertEngineOrder(tx, supplyRunId, { item: items.Y, site, status: 'delayed', qty: 5, arrival: 1 }),
      Z: await insertEngineOrder(tx, supplyRunId, { item: items.Z, site, status: 'planned', qty: 4, arrival: 3 }),
      V4: await insertEngineOrder(tx, supplyRunId, { item: items.V, site, status: 'constrained', qty: 3, arrival: 4 }),
      V5: await insertEngineOrder(tx, supplyRunId, { item: items.V, site, status: 'delayed', qty: 3, arrival: 5 }),
      V6: await insertEngineOrder(tx, supplyRunId, { item: items.V, site, status: 'expedited', qty: 3, arrival: 6, type: 'BUY_EXPEDITE' }),
    };
    // rows of an older system (document 2 §4.3 rule 4): had they entered, X's early line would take them
    const legacy = [
      await insertEngineOrder(tx, supplyRunId, { item: items.X, site, status: 'firm', qty: 100, arrival: 0 }),
      await insertEngineOrder(tx, supplyRunId, { item: items.X, site, status: 'released', qty: 100, arrival: 0 }),
      await insertEngineOrder(tx, supplyRunId, { item: items.X, site, status: 'in_transit', qty: 100, arrival: 0 }),
    ];

    const firm = {
      X: await insertFirmOrder(tx, { item: items.X, site, status: 'firm', qty: 10, arrival: '2026-01-19T10:00:00Z' }),
      Y: await insertFirmOrder(tx, { item: items.Y, site, status: 'released', qty: 5, arrival: '2026-03-02T12:00:00Z' }),
      Z: await insertFirmOrder(tx, { item: items.Z, site, status: 'in_transit', qty: 10, received: 6, arrival: '2026-01-26T00:00:00Z' }),
      Qpast: await insertFirmOrder(tx, { item: items.Q, site, status: 'in_transit', qty: 2, arrival: '2025-12-20T00:00:00Z', release: '2025-12-01T00:00:00Z' }),
      Qfar: await insertFirmOrder(tx, { item: items.Q, site, status: 'firm', qty: 2, arrival: '2027-03-01T00:00:00Z' }),
    };
    const firmOut = [
      await insertFirmOrder(tx, { item: items.X, site, status: 'received', qty: 50, arrival: '2026-01-06T00:00:00Z' }),
      await insertFirmOrder(tx, { item: items.X, site, status: 'firm', qty: 5, received: 5, arrival: '2026-01-06T00:00:00Z' }),
      await insertFirmOrder(tx, { item: items.X, site, status: 'released', qty: 3, received: 4, arrival: '2026-01-06T00:00:00Z' }),
      await insertFirmOrder(tx, { item: items.U, site, status: 'firm', qty: 7, arrival: '2026-01-06T00:00:00Z' }),
    ];

    // the newest active configuration classifies; an older one and a newer inactive one must not
    await abcConfig(tx, 'AL old', true, '2025-01-01T00:00:00Z', [[items.X, site, 'C'], [items.Z, site, 'A'], [items.Q, site, 'A']]);
    const abc = await abcConfig(tx, 'AL value', true, '2026-01-01T00:00:00Z', [[items.X, site, 'A'], [items.V, site, 'B'], [items.Y, site, 'C']]);
    await abcConfig(tx, 'AL inactive', false, '2026-06-01T00:00:00Z', [[items.X, site, 'B'], [items.Z, site, 'A']]);

    return { site, items, supplyRunId, so, legacy, firm, firmOut, abcConfig: abc };
  });
}

/** Allocation runs and rows written straight into the tables, for the read API's tests. */
export async function insertAllocationRun(tx: Tx, r: {
  runId: string; supplyRunId: string | null; pipelineId: number; scenarioId: number; status?: string; startedAt: string;
  greedy?: number | null; lp?: number | null; method?: string | null;
}): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO allocation_runs (run_id, supply_run_id, pipeline_id, scenario_id, status, method, greedy_objective, lp_objective, started_at)
    VALUES (${r.runId}, ${r.supplyRunId}, ${r.pipelineId}, ${r.scenarioId}, ${r.status ?? 'completed'}, ${r.method ?? null}, ${r.greedy ?? null}, ${r.lp ?? null},
      ${r.startedAt}::timestamptz)`);
}

export async function insertAllocationResult(tx: Tx, runId: string, a: {
  supply: string; demand: string; item: number; site: number; qty: number; arrival: number; due: number; cls?: string | null;
}): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO allocation_results (run_id, supply_id, demand_id, item_id, site_id, qty, is_firm, arrival_week, due_week, priority_class)
    VALUES (${runId}, ${a.supply}, ${a.demand}, ${a.item}, ${a.site}, ${a.qty}, ${a.supply.startsWith('FIRM_') ? 1 : 0}, ${a.arrival}, ${a.due}, ${a.cls ?? null})`);
}
