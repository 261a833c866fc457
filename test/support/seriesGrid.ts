import { sql, withTenant, type Db } from '../../db/pool';
import { createTestAccount } from './tenantPool';

/**
 * A new tenant with `items` × `sites` series (items I1…, sites S1…, 52 weeks of 2025 each) and nothing else: the
 * base of the tests that look at PostgreSQL's plans over many series, which add the rows they are about.
 */
export async function seriesGridTenant(db: Db, name: string, items: number, sites: number): Promise<string> {
  const accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `${name}-${Date.now()}`)).id;
  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT 'I' || g, 'I' || g FROM generate_series(1, ${items}) g`);
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) SELECT 'S' || g, 'S' || g FROM generate_series(1, ${sites}) g`);
    await tx.query(sql.unsafe`
      INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end)
      SELECT i.id, s.id, 52, '2025-01-06', '2025-12-29' FROM items i, sites s`);
  });
  return accountId;
}
