/**
 * Sales returns (migration 012): units customers send back to a site. The API edits them as plain records; the supply
 * step reads them per planning week as negative demand (salesReturnsOfItems).
 */
import { sql, type Tx } from './pool';
import type { RecordTable } from './records';

export const SALES_RETURN_RECORD: RecordTable = {
  table: 'sales_returns', key: 'id', orderBy: ['return_date', 'id'], touch: 'updated_at',
  columns: {
    id: { type: 'int', writable: false }, item_id: { type: 'int' }, site_id: { type: 'int' }, qty: { type: 'numeric' },
    return_date: { type: 'date' }, reason: { type: 'text' }, external_id: { type: 'text' }, created_by: { type: 'text' },
    created_at: { type: 'timestamptz', writable: false }, updated_at: { type: 'timestamptz', writable: false },
  },
};

/** Another return with the same external reference, if any (the reference is unique, migration 016). */
export async function findReturnByExternalId(tx: Tx, externalId: string, exceptId: number): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT id FROM sales_returns WHERE external_id = ${externalId} AND id <> ${exceptId} LIMIT 1`)) as number | null;
}

export interface WeeklyReturn {
  item_id: number;
  site_id: number;
  week: number;
  qty: number;
}

/**
 * The items' returns summed per (item, site) and planning week: week = floor((return_date − fromDate) / 7 days), the
 * same counting as firm orders (domain/supply/rules.ts weekOffset), kept when 0 ≤ week < weeks. Returns before
 * fromDate already sit in on-hand stock and later ones lie beyond the plan, so both are left out. Sparse: a week
 * without returns has no row. Ordered by item, site, week.
 */
export async function salesReturnsOfItems(tx: Tx, itemIds: readonly number[], fromDate: string, weeks: number): Promise<WeeklyReturn[]> {
  if (!itemIds.length || weeks <= 0) return [];
  // date − date is whole days, ≥ 0 here, so integer division is the floor
  return [...((await tx.any(sql.unsafe`
    SELECT item_id, site_id, ((return_date - ${fromDate}::date) / 7)::int AS week, sum(qty)::float8 AS qty
    FROM sales_returns
    WHERE item_id = ANY(${sql.array([...itemIds], 'int4')}::int4[])
      AND return_date >= ${fromDate}::date AND return_date < ${fromDate}::date + ${weeks * 7}::int
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)) as WeeklyReturn[])];
}
