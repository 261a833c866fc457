/**
 * A supply run's own rows: the run (supply_runs), what each chunk of items writes (orders, pegging, plans, indirect
 * demand, exceptions, capacity used) and the run's totals at the end. Every chunk replaces exactly the rows of its
 * items, so a retried chunk writes the same result again.
 */
import type { CapacityInput, PlannedOrder, SkuSitePlan, SupplyException, IndirectDemandRow } from '../domain/supply/types';
import { floatSlice, packFloatColumn, rowsWithPackedColumns } from './floatColumns';
import { capacityForWeeks } from './siteCapacity';
import { insertHoldingReferences, type RowKeys } from './heldReferences';
import { sql, type Tx } from './pool';

const items = (ids: readonly number[]) => sql.array(ids, 'int4');

export interface SupplyRunRow {
  run_id: string;
  pipeline_id: number;
  scenario_id: number;
  planning_date: string;
  horizon: number;
  flags: Record<string, unknown>;
}

/**
 * The run's row, made by whichever chunk comes first (parallel chunks wait on the insert and then read it), so every
 * chunk plans from the same planning date and flags.
 */
export async function ensureSupplyRun(tx: Tx, r: Omit<SupplyRunRow, 'planning_date'> & { created_by: string | null }, planningDate: () => Promise<string>): Promise<{ run: SupplyRunRow; created: boolean }> {
  const existing = await getRunRow(tx, r.run_id);
  if (existing) return { run: existing, created: false };
  const inserted = await tx.maybeOneFirst(sql.unsafe`
    INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, planning_date, horizon, flags, created_by)
    VALUES (${r.run_id}, ${r.pipeline_id}, ${r.scenario_id}, ${await planningDate()}, ${r.horizon}, ${sql.jsonb(r.flags as any)}, ${r.created_by})
    ON CONFLICT (run_id) DO NOTHING RETURNING run_id`);
  return { run: (await getRunRow(tx, r.run_id))!, created: inserted !== null };
}

async function getRunRow(tx: Tx, runId: string): Promise<SupplyRunRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT run_id, pipeline_id, scenario_id, to_char(planning_date, 'YYYY-MM-DD') AS planning_date, horizon, flags FROM supply_runs WHERE run_id = ${runId}`)) as SupplyRunRow | null;
}

/**
 * Free capacity per site and week for a chunk: the site's capacity (db/siteCapacity.ts capacityForWeeks) less what
 * other items of the run have already used. Sites
 * without capacity rows do not appear: they are unconstrained. The advisory lock makes chunks that share capacity
 * take it one after the other; it is held until the chunk commits what it used.
 */
export async function freeCapacity(tx: Tx, runId: string, planningDate: string, weeks: number, itemIds: readonly number[]): Promise<CapacityInput[]> {
  const capacity = await capacityForWeeks(tx, planningDate, weeks);
  if (!capacity.length) return [];
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext(${`supply_capacity:${runId}`}))`);
  const used = (await tx.any(sql.unsafe`
    SELECT site_id, week, sum(qty)::float8 AS qty FROM supply_capacity_used
    WHERE run_id = ${runId} AND NOT (item_id = ANY(${items(itemIds)}::int4[])) GROUP BY 1, 2`)) as readonly CapacityInput[];
  const usedAt = new Map(used.map((u) => [`${u.site_id}:${u.week}`, u.qty]));
  return capacity.map((c) => ({ ...c, qty: Math.max(0, c.qty - (usedAt.get(`${c.site_id}:${c.week}`) ?? 0)) }));
}

export interface ChunkResult {
  orders: readonly PlannedOrder[];
  plans: readonly SkuSitePlan[];
  indirect: readonly IndirectDemandRow[];
  exceptions: readonly SupplyException[];
  capacityUsed: ReadonlyArray<CapacityInput & { item_id: number }>;
  notes: ReadonlyArray<{ item_id: number; kind: 'error' | 'diagnostic' | 'violation'; message: string }>;
}

const addDays = (iso: string, days: number): string => new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Replaces the chunk's items' rows of the run. Orders get their global order_id first, so that pegging, indirect
 * demand and exceptions can refer to it instead of the id the engine gave within the chunk.
 */
export async function replaceSupplyChunk(tx: Tx, run: SupplyRunRow, itemIds: readonly number[], r: ChunkResult): Promise<number> {
  const runId = run.run_id;
  for (const table of ['supply_orders', 'supply_plans', 'supply_indirect', 'supply_exceptions', 'supply_capacity_used', 'supply_item_notes'] as const) {
    await tx.query(sql.unsafe`DELETE FROM ${sql.identifier([table])} WHERE run_id = ${runId} AND item_id = ANY(${items(itemIds)}::int4[])`);
  }
  const ids = r.orders.length
    ? ((await tx.anyFirst(sql.unsafe`SELECT nextval(pg_get_serial_sequence('supply_orders', 'order_id')) FROM generate_series(1, ${r.orders.length})`)) as readonly (string | number)[]).map(Number)
    : [];
  // engine ids are unique within the chunk: item and id together find the global one
  const globalId = new Map<number, number>();
  r.orders.forEach((o, i) => globalId.set(o.id, ids[i]!));
  const costOf = new Map(r.plans.map((p) => [`${p.item_id}_${p.site_id}`, p.unit_cost]));
  // every row of the chunk's tables names the run as a foreign key (db/heldReferences.ts): the orders their item and
  // site too, pegging its order and nothing else
  const ofRun: RowKeys = { columns: ['run_id'], types: ['text'], tuples: [[runId]] };
  if (r.orders.length) {
    // the order counts' triggers (migrations 018, 041) fire on this insert whichever road it takes
    await insertHoldingReferences(tx, 'supply_orders', [
      ofRun,
      { columns: ['item_id'], types: ['int4'], tuples: r.orders.map((o) => [o.item_id]) },
      { columns: ['site_id'], types: ['int4'], tuples: r.orders.map((o) => [o.site_id]) },
    ], sql.unsafe`
      INSERT INTO supply_orders (order_id, run_id, pipeline_id, scenario_id, engine_order_id, item_id, site_id, source_site_id, route_id, order_type, kind,
        status, qty, requested_qty, release_week, arrival_week, need_week, release_date, arrival_date, late, unit_cost)
      SELECT u.order_id, ${runId}, ${run.pipeline_id}, ${run.scenario_id}, u.engine_order_id, u.item_id, u.site_id, u.source_site_id, u.route_id, u.order_type,
        u.kind, u.status, u.qty, u.requested_qty, u.release_week, u.arrival_week, u.need_week, u.release_date, u.arrival_date, u.late, u.unit_cost
      FROM ${sql.unnest(r.orders.map((o, i) => [
        ids[i], o.id, o.item_id, o.site_id, o.source_site_id, o.route_id, o.order_type, o.kind, o.status, o.qty, o.requested_qty, o.release_week, o.arrival_week,
        o.need_week, addDays(run.planning_date, 7 * o.release_week), addDays(run.planning_date, 7 * o.arrival_week), o.late, costOf.get(`${o.item_id}_${o.site_id}`) ?? 0,
      ]), ['int8', 'int4', 'int4', 'int4', 'int4', 'int4', 'text', 'text', 'text', 'float8', 'float8', 'int4', 'int4', 'int4', 'date', 'date', 'bool', 'float8'])}
        AS u(order_id, engine_order_id, item_id, site_id, source_site_id, route_id, order_type, kind, status, qty, requested_qty, release_week, arrival_week,
          need_week, release_date, arrival_date, late, unit_cost)`);
    const pegs: unknown[][] = [];
    r.orders.forEach((o, i) => {
      for (const p of o.pegging) {
        const ref = p.ref_id === undefined ? null : p.kind === 'firm_transfer' ? p.ref_id : globalId.get(p.ref_id) ?? null;
        // a line naming a downstream engine order names it by the id the API knows it by
        const line = ref !== null && (p.kind === 'indirect' || p.kind === 'prepos') ? `${p.kind}:${ref}` : p.demand_line;
        pegs.push([ids[i], line, p.kind, p.site_id, p.week, p.qty, ref]);
      }
    });
    if (pegs.length) {
      await insertHoldingReferences(tx, 'supply_pegging', [{ columns: ['order_id'], types: ['int8'], tuples: pegs.map((p) => [p[0] as number]) }], sql.unsafe`
        INSERT INTO supply_pegging (order_id, run_id, demand_line, kind, site_id, week, qty, ref_id)
        SELECT u.order_id, ${runId}, u.demand_line, u.kind, u.site_id, u.week, u.qty, u.ref_id
        FROM ${sql.unnest(pegs, ['int8', 'text', 'text', 'int4', 'int4', 'float8', 'int8'])} AS u(order_id, demand_line, kind, site_id, week, qty, ref_id)`);
    }
  }
  if (r.plans.length) {
    const arrays = ['demand', 'indirect', 'returns', 'gross', 'receipts_firm', 'receipts_planned', 'projected', 'safety_stock', 'shortage'] as const;
    const packed = arrays.map((name) => [name, packFloatColumn(r.plans.map((p) => p[name]))] as const);
    const slices = sql.join(arrays.map((a) => floatSlice(a)), sql.fragment`, `);
    await insertHoldingReferences(tx, 'supply_plans', [ofRun], sql.unsafe`
      INSERT INTO supply_plans (run_id, item_id, site_id, series_id, opening, latest_firm_week, min_lead_time, firm_beyond_horizon, unit_cost, fill_rate,
        shortage_qty, avg_inventory_value, ending_inventory_value, ${sql.join(arrays.map((a) => sql.identifier([a])), sql.fragment`, `)})
      SELECT ${runId}, u.item_id, u.site_id, u.series_id, u.opening, u.latest_firm_week::int4[], u.min_lead_time::float8[], u.firm_beyond_horizon, u.unit_cost,
        u.fill_rate, u.shortage_qty, u.avg_inventory_value, u.ending_inventory_value, ${slices}
      ${rowsWithPackedColumns(
        r.plans.map((p) => [p.item_id, p.site_id, p.series_id ?? null, p.opening, `{${p.latest_firm_week.join(',')}}`, `{${p.min_lead_time.join(',')}}`,
          p.firm_beyond_horizon, p.unit_cost, p.fill_rate, p.shortage_qty, p.avg_inventory_value, p.ending_inventory_value]),
        ['int4', 'int4', 'text', 'float8', 'text', 'text', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8'],
        ['item_id', 'site_id', 'series_id', 'opening', 'latest_firm_week', 'min_lead_time', 'firm_beyond_horizon', 'unit_cost', 'fill_rate', 'shortage_qty',
          'avg_inventory_value', 'ending_inventory_value'],
        packed,
      )}`);
  }
  if (r.indirect.length) {
    await insertHoldingReferences(tx, 'supply_indirect', [ofRun], sql.unsafe`
      INSERT INTO supply_indirect (run_id, item_id, site_id, downstream_site_id, week, qty, origin, order_id)
      SELECT ${runId}, u.item_id, u.site_id, u.downstream_site_id, u.week, u.qty, u.origin, u.order_id
      FROM ${sql.unnest(r.indirect.map((x) => [x.item_id, x.site_id, x.downstream_site_id, x.week, x.qty, x.origin, x.origin === 'firm' ? x.order_id : globalId.get(x.order_id) ?? x.order_id]),
        ['int4', 'int4', 'int4', 'int4', 'float8', 'text', 'int8'])} AS u(item_id, site_id, downstream_site_id, week, qty, origin, order_id)`);
  }
  if (r.exceptions.length) {
    await insertHoldingReferences(tx, 'supply_exceptions', [ofRun], sql.unsafe`
      INSERT INTO supply_exceptions (run_id, item_id, site_id, type, week, end_week, qty, severity, description, order_id)
      SELECT ${runId}, u.item_id, u.site_id, u.type, u.week, u.end_week, u.qty, u.severity, u.description, u.order_id
      FROM ${sql.unnest(r.exceptions.map((e) => [e.item_id, e.site_id, e.type, e.week, e.end_week, e.qty, e.severity, e.description,
        e.order_id === undefined ? null : globalId.get(e.order_id) ?? null]), ['int4', 'int4', 'text', 'int4', 'int4', 'float8', 'text', 'text', 'int8'])}
        AS u(item_id, site_id, type, week, end_week, qty, severity, description, order_id)`);
  }
  if (r.capacityUsed.length) {
    await insertHoldingReferences(tx, 'supply_capacity_used', [ofRun], sql.unsafe`
      INSERT INTO supply_capacity_used (run_id, item_id, site_id, week, qty)
      SELECT ${runId}, u.item_id, u.site_id, u.week, u.qty
      FROM ${sql.unnest(r.capacityUsed.map((c) => [c.item_id, c.site_id, c.week, c.qty]), ['int4', 'int4', 'int4', 'float8'])} AS u(item_id, site_id, week, qty)`);
  }
  if (r.notes.length) {
    await insertHoldingReferences(tx, 'supply_item_notes', [ofRun], sql.unsafe`
      INSERT INTO supply_item_notes (run_id, item_id, kind, message)
      SELECT ${runId}, u.item_id, u.kind, u.message FROM ${sql.unnest(r.notes.map((n) => [n.item_id, n.kind, n.message]), ['int4', 'text', 'text'])} AS u(item_id, kind, message)`);
  }
  return r.orders.length;
}

/**
 * The conservation checks of the issue, on what was stored (not only on what the engine returned): per SKU-site and
 * week, opening + receipts − gross = closing stock; per order, pegged quantities sum to its quantity.
 */
export async function storedSupplyChecks(tx: Tx, runId: string): Promise<{ ok: boolean; max_conservation_residual: number; max_pegging_residual: number; violations: string[] }> {
  // Each plan's arrays are unnested once, side by side: subscripting them per week read (and decompressed) every
  // array once per week (7 s against 1 s for the 29,000 SKU-sites of bench:supply).
  const c = (await tx.one(sql.unsafe`
    WITH w AS (
      SELECT max(abs(p.opening + f.flow - f.closing)) AS residual
      FROM supply_plans p CROSS JOIN LATERAL (
        SELECT sum(u.rf + u.rp - u.g) OVER (ORDER BY u.i) AS flow, u.pr AS closing
        FROM unnest(p.receipts_firm, p.receipts_planned, p.gross, p.projected) WITH ORDINALITY AS u(rf, rp, g, pr, i)
      ) f
      WHERE p.run_id = ${runId}
    )
    SELECT COALESCE(max(residual), 0)::float8 AS conservation,
      (SELECT COALESCE(max(abs(o.qty - COALESCE(pg.total, 0))), 0)::float8 FROM supply_orders o
        LEFT JOIN (SELECT order_id, sum(qty) AS total FROM supply_pegging WHERE run_id = ${runId} GROUP BY order_id) pg ON pg.order_id = o.order_id
        WHERE o.run_id = ${runId}) AS pegging
    FROM w`)) as { conservation: number; pegging: number };
  const violations = (await tx.anyFirst(sql.unsafe`SELECT 'item ' || item_id || ': ' || message FROM supply_item_notes WHERE run_id = ${runId} AND kind = 'violation' ORDER BY item_id LIMIT 50`)) as readonly string[];
  // the SQL sums in the engine's order, so only the rounding of the stored doubles is left
  const ok = c.conservation <= 1e-6 && c.pegging <= 1e-6 && !violations.length;
  return { ok, max_conservation_residual: c.conservation, max_pegging_residual: c.pegging, violations: [...violations] };
}

/**
 * The run's KPIs over all its chunks, as domain/supply/report.ts computeKpis defines them (the per-SKU-site parts are
 * sums, so the run's are sums of the stored plans), then the run is marked completed.
 */
export async function completeSupplyRun(tx: Tx, runId: string, checks: Record<string, unknown>): Promise<Record<string, unknown>> {
  const k = (await tx.one(sql.unsafe`
    SELECT count(DISTINCT item_id)::int AS n_items, count(*)::int AS n_sku_sites,
      COALESCE(sum((SELECT sum(greatest(0, g)) FROM unnest(gross) g)), 0)::float8 AS demand_qty,
      COALESCE(sum(shortage_qty), 0)::float8 AS shortage_qty,
      COALESCE(sum(avg_inventory_value), 0)::float8 AS avg_inventory_value,
      COALESCE(sum(ending_inventory_value), 0)::float8 AS ending_inventory_value
    FROM supply_plans WHERE run_id = ${runId}`)) as { n_items: number; n_sku_sites: number; demand_qty: number; shortage_qty: number; avg_inventory_value: number; ending_inventory_value: number };
  const counts = (await tx.any(sql.unsafe`
    SELECT 'type' AS dim, order_type AS key, count(*)::int AS count, sum(qty)::float8 AS qty FROM supply_orders WHERE run_id = ${runId} GROUP BY order_type
    UNION ALL SELECT 'status', status, count(*)::int, sum(qty)::float8 FROM supply_orders WHERE run_id = ${runId} GROUP BY status
    UNION ALL SELECT 'kind', kind, count(*)::int, sum(qty)::float8 FROM supply_orders WHERE run_id = ${runId} GROUP BY kind`)) as ReadonlyArray<{ dim: string; key: string; count: number; qty: number }>;
  const nExceptions = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_exceptions WHERE run_id = ${runId}`)) as number;
  const zero = (keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, { count: 0, qty: 0 }])) as Record<string, { count: number; qty: number }>;
  const byType = zero(['BUY', 'BUILD', 'REPAIR', 'TRANSFER', 'BALANCING', 'REPLENISH', 'RETURN']);
  const byStatus = zero(['planned', 'constrained', 'delayed', 'expedited']);
  const byKind = zero(['PLANNED', 'BUY_EXPEDITE', 'TRANSFER_PREPOS']);
  let nOrders = 0;
  for (const c of counts) {
    const target = c.dim === 'type' ? byType : c.dim === 'status' ? byStatus : byKind;
    target[c.key] = { count: c.count, qty: c.qty };
    if (c.dim === 'type') nOrders += c.count;
  }
  const kpis = {
    projected_fill_rate: k.demand_qty > 0 ? (k.demand_qty - k.shortage_qty) / k.demand_qty : null,
    demand_qty: k.demand_qty, served_qty: k.demand_qty - k.shortage_qty, shortage_qty: k.shortage_qty,
    avg_inventory_value: k.avg_inventory_value, ending_inventory_value: k.ending_inventory_value,
    orders_by_type: byType, orders_by_status: byStatus, orders_by_kind: byKind, n_orders: nOrders, n_exceptions: nExceptions,
  };
  await tx.query(sql.unsafe`
    UPDATE supply_runs SET status = 'completed', finished_at = now(), kpis = ${sql.jsonb(kpis as any)}, checks = ${sql.jsonb(checks as any)},
      n_items = ${k.n_items}, n_sku_sites = ${k.n_sku_sites}, n_orders = ${nOrders}, n_exceptions = ${nExceptions},
      errors = (SELECT COALESCE(jsonb_agg(jsonb_build_object('item_id', item_id, 'message', message) ORDER BY item_id), '[]') FROM supply_item_notes WHERE run_id = ${runId} AND kind = 'error'),
      diagnostics = (SELECT COALESCE(jsonb_agg(jsonb_build_object('item_id', item_id, 'message', message) ORDER BY item_id), '[]') FROM (SELECT * FROM supply_item_notes WHERE run_id = ${runId} AND kind = 'diagnostic' ORDER BY item_id LIMIT 1000) d)
    WHERE run_id = ${runId}`);
  return kpis;
}
