import { sql, type Db } from './pool';

export interface DatabaseStats {
  accounts: number;
  server_version: string;
}

/** One round trip: the health check runs on every probe and should not hold a pool connection longer than needed. */
export async function readDatabaseStats(db: Db): Promise<DatabaseStats> {
  return (await db.one(
    sql.unsafe`SELECT (SELECT count(*) FROM master.accounts) AS accounts, current_setting('server_version') AS server_version`,
  )) as DatabaseStats;
}
