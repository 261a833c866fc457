import { readDatabaseStats } from '../../db/health';
import type { Db } from '../../db/pool';

export interface DatabaseHealth {
  ok: true;
  accounts: number;
  server_version: string;
  checked_at: string;
}

export function createHealthActivities(deps: { db: Db }) {
  return {
    /** Proves the worker reaches PostgreSQL and sees the migrated master schema, end to end through Temporal. */
    async databaseHealth(): Promise<DatabaseHealth> {
      const stats = await readDatabaseStats(deps.db);
      return { ok: true, accounts: stats.accounts, server_version: stats.server_version, checked_at: new Date().toISOString() };
    },
  };
}
