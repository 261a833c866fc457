/**
 * The statements every request runs (db/authLookup.ts) or a hot read runs on a miss (db/seriesDetail.ts
 * seriesForecastsOf), as named prepared statements on a small pg pool of their own. Measured on the development
 * machine (10 concurrent callers, one small statement): slonik 4,200–4,700 statements/s at 120–160 µs of Node CPU
 * each, plain pg 10,000/s at 40 µs, a prepared statement 23,000–25,000/s at 30 µs (PostgreSQL skips parse and plan).
 * slonik stays the pool for everything else; results come back with pg's own type parsing, so the statements here
 * cast what slonik's parsers would have changed (int8, date, timestamptz).
 */
import pg from 'pg';
import { logger } from '../lib/logger';
import { CONNECTION_TIMEOUT_MS } from './pool';

const pools = new Map<string, pg.Pool>();

function poolFor(databaseUrl: string): pg.Pool {
  let pool = pools.get(databaseUrl);
  if (!pool) {
    // allowExitOnIdle: nothing closes this pool explicitly; idle connections must not keep a process (or a test run) alive
    pool = new pg.Pool({ connectionString: databaseUrl, max: 8, idleTimeoutMillis: 10_000, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS, allowExitOnIdle: true });
    // an idle connection the server closes (restart, shutdown) must not become an unhandled 'error' event
    pool.on('error', (err) => logger.debug({ err }, 'prepared-read connection lost'));
    pools.set(databaseUrl, pool);
  }
  return pool;
}

/** Runs a named prepared statement; `name` must be unique per text (one per tenant schema where the text names it). */
export async function preparedQuery<T>(databaseUrl: string, name: string, text: string, values: unknown[]): Promise<T[]> {
  return (await poolFor(databaseUrl).query({ name, text, values })).rows as T[];
}
