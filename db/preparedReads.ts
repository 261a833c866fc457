/**
 * The statements every request runs (db/authLookup.ts), a hot read runs on a miss (db/seriesDetail.ts
 * seriesForecastsOf) or the API runs to hold a pipeline's forecasts in memory (pipelineForecastVectors below), as
 * named prepared statements on a small pg pool of their own. Measured on the development
 * machine (10 concurrent callers, one small statement): slonik 4,200–4,700 statements/s at 120–160 µs of Node CPU
 * each, plain pg 10,000/s at 40 µs, a prepared statement 23,000–25,000/s at 30 µs (PostgreSQL skips parse and plan).
 * slonik stays the pool for everything else; results come back with pg's own type parsing, so the statements here
 * cast what slonik's parsers would have changed (int8, date, timestamptz).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { logger } from '../lib/logger';
import { CONNECTION_TIMEOUT_MS, tenantSchemaName, type sql } from './pool';

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

const tenantPools = new Map<string, pg.Pool>();

/**
 * A few connections per tenant whose search_path is the tenant's schema from the start, so that a statement written
 * with unqualified names, as every tenant read is, can be prepared once per connection: PostgreSQL resolves the names
 * when it prepares and keeps that search_path for any later re-planning. Idle connections close after 10 s.
 */
function tenantPoolFor(databaseUrl: string, schema: string): pg.Pool {
  const key = `${databaseUrl}\u0000${schema}`;
  let pool = tenantPools.get(key);
  if (!pool) {
    pool = new pg.Pool({
      connectionString: databaseUrl, max: 4, idleTimeoutMillis: 10_000, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS, allowExitOnIdle: true,
      options: `-c search_path=${schema},public`,
    });
    pool.on('error', (err) => logger.debug({ err }, 'tenant prepared-read connection lost'));
    tenantPools.set(key, pool);
  }
  return pool;
}

/**
 * Ends every connection of these pools (the API's shutdown, a test app's close): idle ones would otherwise linger
 * for their 10 s, and in a test worker each holds the whole context of the file that opened it until then.
 */
export async function closePreparedReadPools(): Promise<void> {
  const all = [...pools.values(), ...tenantPools.values()];
  pools.clear();
  tenantPools.clear();
  await Promise.all(all.map((pool) => pool.end().catch((err) => logger.debug({ err }, 'prepared-read pool did not end cleanly'))));
}

const statementNames = new Map<string, string>();

/**
 * A tenant read written as a slonik template, run as a named prepared statement (named by its text, so each shape of
 * a read with optional filters is a statement of its own) on the tenant's connections, outside any transaction: for
 * the hot reads whose planning cost PostgreSQL more than running them (GET /api/supply/orders: 3 ms of planning for a
 * 1 ms page). Rows come back with pg's own type parsing (see above): select text where slonik's parsers matter.
 */
export async function tenantPreparedQuery<T>(databaseUrl: string, accountId: string, query: ReturnType<typeof sql.unsafe>): Promise<T[]> {
  const text = query.sql.replace(/\$slonik_(\d+)/g, '$$$1');
  let name = statementNames.get(text);
  if (!name) {
    name = `tenant_read_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (statementNames.size > 10_000) statementNames.clear();
    statementNames.set(text, name);
  }
  return (await tenantPoolFor(databaseUrl, tenantSchemaName(accountId)).query({ name, text, values: query.values as unknown[] })).rows as T[];
}

/**
 * A float8[] in PostgreSQL's binary format (array_send: ndim, has-nulls flag, element type, then size and lower bound
 * per dimension; per element an int32 length, −1 for NULL, and 8 bytes IEEE 754 big-endian), one dimension or empty.
 */
export function float8ArrayOf(b: Buffer): Array<number | null> {
  const ndim = b.readInt32BE(0);
  if (ndim === 0) return [];
  if (ndim !== 1) throw new Error(`float8[] of ${ndim} dimensions where one was expected`);
  const n = b.readInt32BE(12);
  const out: Array<number | null> = [];
  let pos = 20;
  for (let i = 0; i < n; i++) {
    const len = b.readInt32BE(pos);
    pos += 4;
    if (len < 0) {
      out.push(null);
    } else {
      out.push(b.readDoubleBE(pos));
      pos += 8;
    }
  }
  return out;
}

/** One stored forecast as GET /api/forecasts/{unique_id} shows it. */
export interface ForecastVectorsRow {
  method: string;
  start_week: string;
  yhat: Array<number | null>;
  yhat_lower: Array<number | null>;
  yhat_upper: Array<number | null>;
  level: number;
  updated_at: string;
}

/**
 * Every series' forecasts of a pipeline with its best method, keyed `<item_id>_<site_id>`: what the API loads at once
 * to hold a whole pipeline's forecasts in memory (series without forecasts are absent). The arrays travel in
 * PostgreSQL's binary format (array_send, as bytea): at 10,000 series they hold 4.7 million doubles, which as decimal
 * text took the API about 3.5 s of its one thread to parse (node-postgres' array parser, then parseFloat per element)
 * while every other request waited its turn (bench:api), and PostgreSQL about as long to print; as IEEE 754 bytes they
 * are copied. (node-postgres reads every field as UTF-8 text, so the query's binary result format is no way round it:
 * bytea comes as hex, which it turns into a Buffer natively.)
 */
export async function pipelineForecastVectors(databaseUrl: string, accountId: string, pipelineId: number): Promise<Map<string, { rows: ForecastVectorsRow[]; best_method: string | null }>> {
  const schema = tenantSchemaName(accountId);
  type Packed = { uid: string; method: string; start_week: string; yhat: Buffer; yhat_lower: Buffer; yhat_upper: Buffer; level: number; updated_at: Date; best_method: string | null };
  const rows = await preparedQuery<Packed>(databaseUrl, `pipeline_forecast_vectors_${schema}`, `
    SELECT f.item_id::text || '_' || f.site_id::text AS uid, f.method, f.start_week::text AS start_week,
      array_send(f.yhat) AS yhat, array_send(f.yhat_lower) AS yhat_lower, array_send(f.yhat_upper) AS yhat_upper, f.level, f.updated_at,
      b.best_method
    FROM "${schema}".forecast_results f
    LEFT JOIN "${schema}".series_best_method b ON b.pipeline_id = $1 AND b.item_id = f.item_id AND b.site_id = f.site_id
    WHERE f.pipeline_id = $1
    ORDER BY f.item_id, f.site_id, f.method`, [pipelineId]);
  const out = new Map<string, { rows: ForecastVectorsRow[]; best_method: string | null }>();
  for (const r of rows) {
    let entry = out.get(r.uid);
    if (!entry) out.set(r.uid, (entry = { rows: [], best_method: r.best_method }));
    entry.rows.push({
      method: r.method, start_week: r.start_week, level: r.level, updated_at: r.updated_at.toISOString(),
      yhat: float8ArrayOf(r.yhat), yhat_lower: float8ArrayOf(r.yhat_lower), yhat_upper: float8ArrayOf(r.yhat_upper),
    });
  }
  return out;
}
