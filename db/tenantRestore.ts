import crypto from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream';
import zlib from 'node:zlib';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { migrateTenant, tenantMigrations } from './migrate';
import { forgetAccount, sql, tenantSchemaName, type Db } from './pool';
import { accountNameTaken, findAccountById } from './tenantAdmin';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, END_OF_TABLE, SESSION_SETTINGS, run, type BackupHeader } from './tenantBackupFormat';

/** A restore refused before anything changed: the message says what to do instead. */
export class RestoreRefused extends Error {}

export interface RestoreOptions {
  /** restore under this account id instead of the one the backup was taken from */
  accountId?: string;
  /** the account's name after the restore (default: the backup's) */
  name?: string;
  /** replace an account that exists; without it, restoring over one is refused */
  replace?: boolean;
}

export interface RestoreResult {
  account: { id: string; name: string };
  migration: number;
  tables: number;
  rows: number;
  replaced: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkHeader(h: BackupHeader): number {
  if (h?.format !== BACKUP_FORMAT) throw new RestoreRefused('this file is not a tenant backup (made by `admin backup`)');
  if (h.format_version !== BACKUP_FORMAT_VERSION) throw new RestoreRefused(`backup format version ${h.format_version}; this release reads version ${BACKUP_FORMAT_VERSION}`);
  const known = new Map(tenantMigrations().map((m) => [m.version, m.name]));
  for (const m of h.migrations) {
    if (known.get(m.version) !== m.name) throw new RestoreRefused(`the backup's schema has migration ${m.name}, which this release does not have: restore it with the release that made it`);
  }
  return h.migrations[h.migrations.length - 1].version;
}

/**
 * Lines of the gunzipped file; the first is the header, then each table's COPY rows up to its `\.`. Split here
 * rather than by readline, which does not pass on its input's errors: a cut or corrupt file must fail the restore.
 */
async function* readLines(file: string): AsyncGenerator<string> {
  // pipeline passes a read error on to the gunzip stream, whose iteration then throws
  const input = pipeline(fs.createReadStream(file), zlib.createGunzip(), () => undefined);
  input.setEncoding('utf8');
  let rest = '';
  for await (const chunk of input as AsyncIterable<string>) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    yield* parts;
  }
  if (rest) yield rest;
}

/** Streams one table's rows into COPY FROM STDIN, batched, and returns the row count. */
async function copyTable(client: pg.Client, schema: string, table: BackupHeader['tables'][number], lines: AsyncIterator<string>): Promise<number> {
  const stream = client.query(copyFrom(sql.unsafe`COPY ${sql.identifier([schema, table.name])} (${sql.join(table.columns.map((c) => sql.identifier([c])), sql.fragment`, `)}) FROM STDIN`.sql));
  const finished = once(stream, 'finish');
  finished.catch(() => undefined);
  let rows = 0;
  let batch: string[] = [];
  let size = 0;
  const flush = async () => {
    if (!batch.length) return;
    const ok = stream.write(`${batch.join('\n')}\n`);
    batch = [];
    size = 0;
    if (!ok) await once(stream, 'drain');
  };
  try {
    for (;;) {
      const next = await lines.next();
      if (next.done) throw new RestoreRefused(`the backup ends inside table ${table.name}: the file is cut short`);
      if (next.value === END_OF_TABLE) break;
      batch.push(next.value);
      size += next.value.length;
      rows++;
      if (size > 1 << 20) await flush();
    }
  } catch (err) {
    // a COPY left open would hold the connection, and the ROLLBACK queued behind it, for ever: CopyFail ends it
    stream.on('error', () => undefined);
    await new Promise((resolve) => {
      stream.once('close', resolve);
      stream.destroy(err as Error);
    });
    throw err;
  }
  await flush();
  stream.end();
  await finished;
  return rows;
}

async function loadInto(databaseUrl: string, schema: string, header: BackupHeader, lines: AsyncIterator<string>): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const [name, value] of SESSION_SETTINGS) await run(client, sql.unsafe`SELECT set_config(${name}, ${value}, true)`);
    await run(client, sql.unsafe`SELECT set_config('search_path', ${`${schema}, public`}, true)`);
    // Tables that triggers keep (supply_order_counts from supply_orders, the data version) are in the backup as they
    // were: firing the triggers again while emptying and loading would count every order twice. Foreign keys stay checked.
    const triggers = await run<{ rel: string; name: string; always: boolean }>(client, sql.unsafe`
      SELECT c.relname AS rel, g.tgname AS name, g.tgenabled = 'A' AS always FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${schema} AND NOT g.tgisinternal AND g.tgenabled <> 'D' AND g.tgparentid = 0`);
    // back on as they were: the order counts fire ALWAYS (migration 041), the others in the origin role
    const toggle = async (on: boolean) => {
      for (const g of triggers) {
        const table = sql.identifier([schema, g.rel]);
        const trigger = sql.identifier([g.name]);
        await run(client, !on ? sql.unsafe`ALTER TABLE ${table} DISABLE TRIGGER ${trigger}`
          : g.always ? sql.unsafe`ALTER TABLE ${table} ENABLE ALWAYS TRIGGER ${trigger}` : sql.unsafe`ALTER TABLE ${table} ENABLE TRIGGER ${trigger}`);
      }
    };
    await toggle(false);
    // the fresh schema's own rows (default parameters, seeded lists) give way to the backup's
    const present = await run<{ name: string }>(client, sql.unsafe`
      SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p')`);
    if (present.length) await run(client, sql.unsafe`TRUNCATE ${sql.join(present.map((t) => sql.identifier([schema, t.name])), sql.fragment`, `)} RESTART IDENTITY`);
    for (const t of header.tables) {
      if (!t.partition_of) continue;
      if (!Number.isSafeInteger(t.partition_of.value)) throw new RestoreRefused(`partition ${t.name}: bound ${t.partition_of.value} is not a whole number`);
      await run(client, sql.unsafe`CREATE TABLE IF NOT EXISTS ${sql.identifier([schema, t.name])} PARTITION OF ${sql.identifier([schema, t.partition_of.parent])}
        FOR VALUES IN (${sql.literalValue(String(t.partition_of.value))})`);
    }
    let rows = 0;
    for (const t of header.tables) rows += await copyTable(client, schema, t, lines);
    await toggle(true);
    for (const s of header.sequences) {
      const seq = sql.fragment`format('%I.%I', ${schema}::text, ${s.name}::text)::regclass`;
      await run(client, s.last_value === null
        ? sql.unsafe`SELECT setval(${seq}, ${s.start_value}, false)`
        : sql.unsafe`SELECT setval(${seq}, ${s.last_value}, true)`);
    }
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

/**
 * Swaps the loaded schema in under the account's schema name in one transaction: until then the account (if it
 * exists) is untouched, and a restore that fails half-way leaves it as it was. The account's counters move past
 * both the replaced ones and the backup's, so every API process sees new data at the next request, and the probe
 * index is rebuilt from the restored users.
 */
async function swapIn(db: Db, staging: string, id: string, name: string, replace: boolean): Promise<void> {
  const schema = tenantSchemaName(id);
  await db.transaction(async (tx) => {
    const old = replace
      ? ((await tx.maybeOne(sql.unsafe`SELECT to_regclass(${`${schema}.data_version`}) IS NOT NULL AS present`)) as { present: boolean } | null)
      : null;
    const counters = old?.present
      ? ((await tx.one(sql.unsafe`SELECT version::float8 AS version, plan_version::float8 AS plan_version FROM ${sql.identifier([schema, 'data_version'])}`)) as { version: number; plan_version: number })
      : { version: 0, plan_version: 0 };
    await tx.query(sql.unsafe`DROP SCHEMA IF EXISTS ${sql.identifier([schema])} CASCADE`);
    await tx.query(sql.unsafe`DELETE FROM master.schema_migrations WHERE schema_name = ${schema}`);
    await tx.query(sql.unsafe`ALTER SCHEMA ${sql.identifier([staging])} RENAME TO ${sql.identifier([schema])}`);
    await tx.query(sql.unsafe`UPDATE master.schema_migrations SET schema_name = ${schema} WHERE schema_name = ${staging}`);
    await tx.query(sql.unsafe`
      INSERT INTO master.accounts (id, name, schema_name, is_active) VALUES (${id}::uuid, ${name}, ${schema}, true)
      ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, schema_name = EXCLUDED.schema_name, is_active = true`);
    await tx.query(sql.unsafe`DELETE FROM master.account_emails WHERE account_id = ${id}::uuid`);
    await tx.query(sql.unsafe`
      INSERT INTO master.account_emails (email, account_id) SELECT lower(email), ${id}::uuid FROM ${sql.identifier([schema, 'users'])} WHERE is_active
      ON CONFLICT DO NOTHING`);
    await tx.query(sql.unsafe`
      UPDATE ${sql.identifier([schema, 'data_version'])}
      SET version = greatest(version, ${counters.version}) + 1, plan_version = greatest(plan_version, ${counters.plan_version}) + 1`);
  });
  forgetAccount(id);
}

async function dropStaging(db: Db, staging: string): Promise<void> {
  await db.query(sql.unsafe`DROP SCHEMA IF EXISTS ${sql.identifier([staging])} CASCADE`);
  await db.query(sql.unsafe`DELETE FROM master.schema_migrations WHERE schema_name = ${staging}`);
}

/**
 * Restores a backup made by backupTenant: a fresh schema migrated to the backup's level, every table loaded with
 * COPY in one transaction, then the migrations this release added since, then the swap (swapIn). The API's
 * in-memory master data must then be reloaded (POST /api/reload): this process cannot reach the API's memory.
 */
export async function restoreTenant(db: Db, databaseUrl: string, file: string, opts: RestoreOptions = {}): Promise<RestoreResult> {
  if (!fs.existsSync(file)) throw new RestoreRefused(`no such file: ${file}`);
  const lines = readLines(file);
  let header: BackupHeader;
  try {
    const first = await lines.next();
    header = JSON.parse(first.done ? '' : first.value) as BackupHeader;
  } catch (err) {
    // a gzip stream that ends early: the gunzip's error can overtake the lines it had already decoded, so a file cut
    // anywhere may fail here, at its first line
    if ((err as NodeJS.ErrnoException).code === 'Z_BUF_ERROR') throw new RestoreRefused(`the backup is cut short: ${(err as Error).message}`);
    throw new RestoreRefused('this file is not a tenant backup (made by `admin backup`)');
  }
  const level = checkHeader(header);
  const id = (opts.accountId ?? header.account.id).toLowerCase();
  if (!UUID.test(id)) throw new RestoreRefused(`--account ${id}: an account id is a UUID`);
  const name = opts.name ?? header.account.name;
  const existing = await findAccountById(db, id);
  if (existing && !opts.replace) {
    throw new RestoreRefused(`account ${id} (${existing.name}) exists: add --replace to overwrite it with the backup, or --account <new id> to restore beside it`);
  }
  if (await accountNameTaken(db, name, id)) throw new RestoreRefused(`another account is named '${name}': give the restored one another with --name`);

  const staging = tenantSchemaName(crypto.randomUUID());
  try {
    await migrateTenant(databaseUrl, staging, level);
    const rows = await loadInto(databaseUrl, staging, header, lines);
    await migrateTenant(databaseUrl, staging);
    await swapIn(db, staging, id, name, Boolean(existing));
    return { account: { id, name }, migration: level, tables: header.tables.length, rows, replaced: Boolean(existing) };
  } catch (err) {
    await dropStaging(db, staging).catch(() => undefined);
    throw err;
  }
}
