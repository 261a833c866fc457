/**
 * The SQL of the allocation step (docs/SUPPLY.md "Allocation step"): the scope it runs on (supply scenario, newest
 * completed supply run), its chunks of items, the supply pool and demand plans a chunk loads, the runs, chunk reports
 * and results it writes, and the reads of GET /api/supply/allocations*.
 */
import type { ChunkStats } from '../domain/allocation/chunks';
import { ENGINE_POOL_STATUSES, FIRM_POOL_STATUSES, type EngineSupplyOrder, type FirmSupplyOrder } from '../domain/allocation/pool';
import { insertHoldingReferences } from './heldReferences';
import { sql, type Tx } from './pool';

const ORDER_PAGE = 50_000;

/** A chunk's items: item_id > after (null: no lower bound) and <= through (null: no upper bound). */
export interface ItemRange {
  after: number | null;
  through: number | null;
}

export interface AllocationChunk extends ItemRange {
  /** SKU-sites (supply_plans rows) of the chunk's items */
  sku_sites: number;
  items: number;
}

function inRange(column: 'item_id', alias: 'o' | 'f' | 'p' | 'a', r: ItemRange) {
  const col = sql.identifier([alias, column]);
  return sql.fragment`${r.after === null ? sql.fragment`TRUE` : sql.fragment`${col} > ${r.after}`}
    AND ${r.through === null ? sql.fragment`TRUE` : sql.fragment`${col} <= ${r.through}`}`;
}

/**
 * The run's items cut into chunks of whole items of about `skuSites` SKU-sites each (an item larger than that is a
 * chunk of its own). The first chunk has no lower bound and the last no upper one, so every row of the run, whatever
 * its item, falls in exactly one chunk; a run without plans is one unbounded chunk.
 */
export async function allocationChunks(tx: Tx, supplyRunId: string, skuSites: number): Promise<AllocationChunk[]> {
  const rows = (await tx.any(sql.unsafe`
    WITH per_item AS (SELECT item_id, count(*)::int8 AS n FROM supply_plans WHERE run_id = ${supplyRunId} GROUP BY item_id),
    numbered AS (SELECT item_id, n, ((sum(n) OVER (ORDER BY item_id))::int8 - n) / ${Math.max(1, Math.floor(skuSites))}::int8 AS chunk FROM per_item)
    SELECT chunk, max(item_id) AS through, sum(n)::int AS sku_sites, count(*)::int AS items FROM numbered GROUP BY chunk ORDER BY chunk`,
  )) as Array<{ through: number; sku_sites: number; items: number }>;
  if (rows.length === 0) return [{ after: null, through: null, sku_sites: 0, items: 0 }];
  return rows.map((r, i) => ({
    after: i === 0 ? null : rows[i - 1]!.through,
    through: i === rows.length - 1 ? null : r.through,
    sku_sites: r.sku_sites,
    items: r.items,
  }));
}

/**
 * Document 2 §4.3 rule 1 in SQL: the run's engine orders of the chunk's items whose status lets them into the pool,
 * read in pages by order_id so the caller can heartbeat between them.
 */
export async function enginePoolOrders(tx: Tx, supplyRunId: string, range: ItemRange, onPage: () => void = () => {}): Promise<EngineSupplyOrder[]> {
  const out: EngineSupplyOrder[] = [];
  let after = 0;
  for (;;) {
    const page = (await tx.any(sql.unsafe`
      SELECT o.order_id AS id, o.item_id, o.site_id, o.qty, o.arrival_week, o.status, o.order_type, o.source_site_id
      FROM supply_orders o
      WHERE o.run_id = ${supplyRunId} AND ${inRange('item_id', 'o', range)} AND o.order_id > ${after}
        AND o.status = ANY(${sql.array([...ENGINE_POOL_STATUSES], 'text')})
      ORDER BY o.order_id LIMIT ${ORDER_PAGE}`)) as EngineSupplyOrder[];
    for (const o of page) out.push(o);
    onPage();
    if (page.length < ORDER_PAGE) return out;
    after = page[page.length - 1]!.id as number;
  }
}

/**
 * Document 2 §4.3 rule 2 in SQL: firm orders of the chunk's items with a pool status and something left to receive.
 * Only those of the item-sites the supply run planned: a firm order elsewhere has no demand line of this run to serve.
 */
export async function firmPoolOrders(tx: Tx, supplyRunId: string, range: ItemRange): Promise<FirmSupplyOrder[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT f.id, f.item_id, f.site_id, f.qty, f.received_qty, f.erp_status, f.arrival_dt, f.order_type, f.source_site_id
    FROM firm_orders f
    WHERE ${inRange('item_id', 'f', range)} AND f.erp_status = ANY(${sql.array([...FIRM_POOL_STATUSES], 'text')})
      AND f.qty - COALESCE(f.received_qty, 0) > 0
      AND EXISTS (SELECT 1 FROM supply_plans p WHERE p.run_id = ${supplyRunId} AND p.item_id = f.item_id AND p.site_id = f.site_id)
    ORDER BY f.id`)) as FirmSupplyOrder[])];
}

export interface DemandPlanRow {
  item_id: number;
  site_id: number;
  opening: number;
  /** The SKU-site's own forecast per week of the horizon (supply_plans.demand). */
  demand: Array<number | null>;
  /** Class of the series in the ABC configuration used, or null. */
  priority_class: string | null;
}

/**
 * The ABC configuration that classifies the whole run, so every line is ranked by the same rule: the active
 * configuration whose results are the newest (ties: the lower id). ABC results are not per pipeline, so "newest" is
 * across the tenant. Chosen once per run, before its chunks, so results written meanwhile cannot split the run.
 */
export async function allocationAbcConfig(tx: Tx): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT r.config_id FROM abc_results r JOIN abc_configurations c ON c.id = r.config_id
    WHERE c.is_active GROUP BY r.config_id ORDER BY max(r.computed_at) DESC, r.config_id LIMIT 1`)) as number | null;
}

/** The run's SKU-site plans of the chunk's items with their class in the run's ABC configuration. */
export async function demandPlans(tx: Tx, supplyRunId: string, abcConfigId: number | null, range: ItemRange): Promise<DemandPlanRow[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT p.item_id, p.site_id, p.opening, p.demand, a.class_label AS priority_class
    FROM supply_plans p
    LEFT JOIN abc_results a ON a.config_id = ${abcConfigId ?? 0} AND a.item_id = p.item_id AND a.site_id = p.site_id
    WHERE p.run_id = ${supplyRunId} AND ${inRange('item_id', 'p', range)}
    ORDER BY p.item_id, p.site_id`)) as DemandPlanRow[])];
}

/**
 * The run's row, status running. A retried step finds its own row and resets it, and its rows and chunk reports of an
 * earlier attempt go, so nothing of that attempt survives.
 */
export async function startAllocationRun(tx: Tx, r: { run_id: string; supply_run_id: string; pipeline_id: number; scenario_id: number }): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO allocation_runs (run_id, supply_run_id, pipeline_id, scenario_id, status)
    VALUES (${r.run_id}, ${r.supply_run_id}, ${r.pipeline_id}, ${r.scenario_id}, 'running')
    ON CONFLICT (run_id) DO UPDATE SET
      supply_run_id = EXCLUDED.supply_run_id, pipeline_id = EXCLUDED.pipeline_id, scenario_id = EXCLUDED.scenario_id,
      status = 'running', method = NULL, n_supplies = 0, n_demands = 0, supply_qty = 0, demand_qty = 0, allocated_qty = 0,
      greedy_objective = NULL, lp_objective = NULL, summary = '{}', error = NULL, started_at = now(), finished_at = NULL`);
  await tx.query(sql.unsafe`DELETE FROM allocation_results WHERE run_id = ${r.run_id}`);
  await tx.query(sql.unsafe`DELETE FROM allocation_chunks WHERE run_id = ${r.run_id}`);
}

export interface AllocationResultWrite {
  supply_id: string;
  demand_id: string;
  item_id: number;
  site_id: number;
  qty: number;
  is_firm: 0 | 1;
  arrival_week: number;
  due_week: number;
  priority_class: string | null;
}

const WRITE_CHUNK = 5000;

/**
 * Replaces one chunk's rows and report in the caller's transaction (delete the chunk's items' rows, insert), calling
 * `onPart` between inserts: a retried chunk leaves exactly its last answer, and other chunks' rows are not touched.
 * Writes nothing and returns false when the run is no longer running: a chunk still at work when another failed the
 * run must not leave rows behind. The share lock on the run's row holds failAllocationRun back until this commits.
 */
export async function replaceAllocationChunk(
  tx: Tx, runId: string, chunk: number, range: ItemRange, rows: readonly AllocationResultWrite[], stats: ChunkStats, onPart: () => void = () => {},
): Promise<boolean> {
  const status = await tx.maybeOneFirst(sql.unsafe`SELECT status FROM allocation_runs WHERE run_id = ${runId} FOR SHARE`);
  if (status !== 'running') return false;
  await tx.query(sql.unsafe`DELETE FROM allocation_results a WHERE a.run_id = ${runId} AND ${inRange('item_id', 'a', range)}`);
  for (let k = 0; k < rows.length; k += WRITE_CHUNK) {
    const part = rows.slice(k, k + WRITE_CHUNK);
    // the run is the rows' one foreign key, held once for the part instead of checked per row (db/heldReferences.ts)
    await insertHoldingReferences(tx, 'allocation_results', [{ columns: ['run_id'], types: ['text'], tuples: [[runId]] }], sql.unsafe`
      INSERT INTO allocation_results (run_id, supply_id, demand_id, item_id, site_id, qty, is_firm, arrival_week, due_week, priority_class)
      SELECT ${runId}, u.supply_id, u.demand_id, u.item_id, u.site_id, u.qty, u.is_firm, u.arrival_week, u.due_week, u.priority_class
      FROM ${sql.unnest(
        part.map((r) => [r.supply_id, r.demand_id, r.item_id, r.site_id, r.qty, r.is_firm, r.arrival_week, r.due_week, r.priority_class]),
        ['text', 'text', 'int4', 'int4', 'float8', 'int2', 'int4', 'int4', 'text'],
      )} AS u(supply_id, demand_id, item_id, site_id, qty, is_firm, arrival_week, due_week, priority_class)`);
    onPart();
  }
  await tx.query(sql.unsafe`
    INSERT INTO allocation_chunks (run_id, chunk, after_item, through_item, stats)
    VALUES (${runId}, ${chunk}, ${range.after}, ${range.through}, ${sql.jsonb(stats as any)}::jsonb)
    ON CONFLICT (run_id, chunk) DO UPDATE SET after_item = EXCLUDED.after_item, through_item = EXCLUDED.through_item, stats = EXCLUDED.stats`);
  return true;
}

/** The chunks' reports of a run, in chunk order. */
export async function allocationChunkStats(tx: Tx, runId: string): Promise<Array<{ chunk: number; stats: ChunkStats }>> {
  return [...((await tx.any(sql.unsafe`
    SELECT chunk, stats FROM allocation_chunks WHERE run_id = ${runId} ORDER BY chunk`)) as Array<{ chunk: number; stats: ChunkStats }>)];
}

export interface AllocationRunTotals {
  method: 'lp' | 'greedy';
  n_supplies: number;
  n_demands: number;
  supply_qty: number;
  demand_qty: number;
  allocated_qty: number;
  greedy_objective: number;
  lp_objective: number | null;
  summary: Record<string, unknown>;
}

export async function completeAllocationRun(tx: Tx, runId: string, t: AllocationRunTotals): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE allocation_runs SET status = 'completed', method = ${t.method}, n_supplies = ${t.n_supplies}, n_demands = ${t.n_demands},
      supply_qty = ${t.supply_qty}, demand_qty = ${t.demand_qty}, allocated_qty = ${t.allocated_qty},
      greedy_objective = ${t.greedy_objective}, lp_objective = ${t.lp_objective}, summary = ${sql.jsonb(t.summary as any)}::jsonb,
      error = NULL, finished_at = now()
    WHERE run_id = ${runId}`);
}

/**
 * Marks the run failed; the rows its chunks wrote go, so a failed run never shows rows. The row is updated first: that
 * waits for a chunk writing at the same time (replaceAllocationChunk), whose rows are then committed and deleted here,
 * and any later chunk finds the run failed and writes nothing.
 */
export async function failAllocationRun(tx: Tx, runId: string, error: string): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE allocation_runs SET status = 'failed', error = ${error.slice(0, 4000)}, finished_at = now() WHERE run_id = ${runId}`);
  await tx.query(sql.unsafe`DELETE FROM allocation_results WHERE run_id = ${runId}`);
  await tx.query(sql.unsafe`DELETE FROM allocation_chunks WHERE run_id = ${runId}`);
}

// ---- reads (GET /api/supply/allocations*) ----

export interface AllocationRunRow {
  run_id: string;
  supply_run_id: string | null;
  parent_job_id: string | null;
  pipeline_id: number;
  scenario_id: number;
  status: string;
  method: string | null;
  n_supplies: number;
  n_demands: number;
  supply_qty: number;
  demand_qty: number;
  allocated_qty: number;
  greedy_objective: number | null;
  lp_objective: number | null;
  error: string | null;
  summary: Record<string, unknown>;
  started_at: string;
  finished_at: string | null;
}

const RUN_COLUMNS = sql.fragment`r.run_id, r.supply_run_id, j.parent_job_id, r.pipeline_id, r.scenario_id, r.status, r.method, r.n_supplies,
  r.n_demands, r.supply_qty, r.demand_qty, r.allocated_qty, r.greedy_objective, r.lp_objective, r.error, r.summary, r.started_at, r.finished_at`;

export async function listAllocationRuns(
  tx: Tx, f: { pipelineId: number; scenarioId: number; supplyRunId?: string }, page: { skip: number; limit: number },
): Promise<{ rows: AllocationRunRow[]; total: number }> {
  const where = sql.fragment`r.pipeline_id = ${f.pipelineId} AND r.scenario_id = ${f.scenarioId}
    AND ${f.supplyRunId === undefined ? sql.fragment`TRUE` : sql.fragment`r.supply_run_id = ${f.supplyRunId}`}`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM allocation_runs r WHERE ${where}`)) as number;
  const rows = (await tx.any(sql.unsafe`
    SELECT ${RUN_COLUMNS} FROM allocation_runs r LEFT JOIN jobs j ON j.job_id = r.run_id
    WHERE ${where} ORDER BY r.started_at DESC, r.run_id DESC LIMIT ${page.limit} OFFSET ${page.skip}`)) as AllocationRunRow[];
  return { rows: [...rows], total };
}

export async function getAllocationRun(tx: Tx, runId: string): Promise<AllocationRunRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${RUN_COLUMNS} FROM allocation_runs r LEFT JOIN jobs j ON j.job_id = r.run_id WHERE r.run_id = ${runId}`)) as AllocationRunRow | null;
}

export interface AllocationResultFilter {
  itemId?: number;
  siteId?: number;
  isFirm?: 0 | 1;
  supplyId?: string;
}

export async function listAllocationResults(
  tx: Tx, runId: string, f: AllocationResultFilter, page: { skip: number; limit: number },
): Promise<{ rows: Record<string, unknown>[]; total: number }> {
  // A run's chunks write their rows before it completes: readers see them only once the run has.
  const parts = [sql.fragment`a.run_id = ${runId}`,
    sql.fragment`EXISTS (SELECT 1 FROM allocation_runs r WHERE r.run_id = ${runId} AND r.status = 'completed')`];
  if (f.itemId !== undefined) parts.push(sql.fragment`a.item_id = ${f.itemId}`);
  if (f.siteId !== undefined) parts.push(sql.fragment`a.site_id = ${f.siteId}`);
  if (f.isFirm !== undefined) parts.push(sql.fragment`a.is_firm = ${f.isFirm}`);
  if (f.supplyId !== undefined) parts.push(sql.fragment`a.supply_id = ${f.supplyId}`);
  const where = sql.join(parts, sql.fragment` AND `);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM allocation_results a WHERE ${where}`)) as number;
  const rows = await tx.any(sql.unsafe`
    SELECT a.supply_id, a.demand_id, a.item_id, a.site_id, i.xuid AS item_xuid, s.xuid AS site_xuid, a.qty, a.is_firm::int AS is_firm,
      a.arrival_week, a.due_week, GREATEST(a.arrival_week - a.due_week, 0) AS late_weeks, a.priority_class
    FROM allocation_results a LEFT JOIN items i ON i.id = a.item_id LEFT JOIN sites s ON s.id = a.site_id
    WHERE ${where} ORDER BY a.item_id, a.site_id, a.due_week, a.demand_id, a.supply_id LIMIT ${page.limit} OFFSET ${page.skip}`);
  return { rows: [...rows] as Record<string, unknown>[], total };
}
