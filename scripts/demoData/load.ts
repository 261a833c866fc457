import { withTenant, type Db } from '../../db/pool';
import { insertStagingRows } from '../../db/importStaging';
import type { StagedRow } from '../../domain/import/validate';
import type { TableName } from '../../domain/import/tables';
import { createDemoPlan, demandRows, generateMasterData, type DemoOptions } from './generator';

const text = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v));

function staged<T extends object>(rows: T[], map: (r: T) => Record<string, unknown>): StagedRow[] {
  return rows.map((r) => Object.fromEntries(Object.entries(map(r)).map(([k, v]) => [k, text(v)])));
}

/**
 * Generates the seeded demo tenant and puts it in the tenant's import staging tables, as a customer's files would
 * arrive; an import run then moves it into master data. Demand rows stream in batches, so 100,000 series fit in flat
 * memory. Returns the rows staged per table.
 */
export async function loadDemoIntoStaging(db: Db, accountId: string, opts: DemoOptions & { batchSize?: number }): Promise<Record<string, number>> {
  const plan = createDemoPlan(opts);
  const master = generateMasterData(plan);
  const batchSize = opts.batchSize ?? 20_000;
  const tables: Array<[TableName, StagedRow[]]> = [
    ['items', staged(master.items, ({ category, abc_hint, ...r }) => ({ ...r, attributes: { category, ...(abc_hint ? { abc_hint } : {}) } }))],
    ['sites', staged(master.sites, (r) => ({ ...r }))],
    ['item_site', staged(master.item_site, (r) => ({ ...r }))],
    ['routes', staged(master.routes, (r) => ({ ...r }))],
    ['calendars', staged(master.calendars, (r) => ({ ...r }))],
    ['firm_orders', staged(master.firm_orders, (r) => ({
      external_id: r.order_ref, source_system: 'demo', item_xuid: r.item_xuid, site_xuid: r.site_xuid, order_type: 'BUY',
      qty: r.qty, release_dt: r.due_date, arrival_dt: r.due_date, erp_status: 'firm',
    }))],
    ['supersession', staged(master.supersession, (r) => ({
      from_item_xuid: r.old_item_xuid, to_item_xuid: r.new_item_xuid, effective_date: r.effective_date, demand_factor: r.ratio,
    }))],
  ];
  const counts: Record<string, number> = {};
  for (const [table, rows] of tables) {
    counts[table] = await withTenant(db, accountId, (tx) => insertStagingRows(tx, table, rows));
  }
  counts.demand_history = 0;
  let batch: StagedRow[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const rows = batch;
    batch = [];
    counts.demand_history += await withTenant(db, accountId, (tx) => insertStagingRows(tx, 'demand_history', rows));
  };
  for (const r of demandRows(plan)) {
    batch.push({ item_xuid: r.item_xuid, site_xuid: r.site_xuid, ds: r.ds, qty: String(r.qty) });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return counts;
}
