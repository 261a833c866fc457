import fs from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { findAccountById } from './tenantAdmin';
import { sql, type Db } from './pool';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, END_OF_TABLE, SESSION_SETTINGS, run, type BackupHeader, type BackupSequence, type BackupTable } from './tenantBackupFormat';

export class BackupError extends Error {}

interface TableRow {
  name: string;
  columns: string[];
  parent: string | null;
  bound: string | null;
}

/** Tables referenced by a foreign key come before the tables that reference them, so a restore can load in order. */
function dependencyOrder(tables: TableRow[], edges: Array<{ child: string; parent: string }>): TableRow[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const parents = new Map<string, Set<string>>();
  for (const e of edges) if (e.child !== e.parent && byName.has(e.parent)) (parents.get(e.child) ?? parents.set(e.child, new Set()).get(e.child)!).add(e.parent);
  const done = new Set<string>();
  const out: TableRow[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (done.has(name)) return;
    if (path.has(name)) throw new BackupError(`foreign keys form a cycle through table ${name}; this backup format cannot order it`);
    path.add(name);
    for (const p of [...(parents.get(name) ?? [])].sort()) visit(p, path);
    path.delete(name);
    done.add(name);
    out.push(byName.get(name)!);
  };
  for (const t of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(t.name, new Set());
  return out;
}

function partitionOf(t: TableRow): BackupTable['partition_of'] {
  if (!t.parent) return undefined;
  const m = /^FOR VALUES IN \((\d+)\)$/.exec(t.bound ?? '');
  if (!m) throw new BackupError(`table ${t.name} is a partition with a bound this format does not know: ${t.bound}`);
  return { parent: t.parent, value: Number(m[1]) };
}

function countLines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}

export interface BackupResult {
  account: { id: string; name: string };
  migration: number;
  tables: number;
  rows: number;
  bytes: number;
}

/**
 * Writes one tenant (its migration level and every table) to `outFile`, all read in one REPEATABLE READ snapshot, so
 * the file is the tenant at one instant even while steps keep writing.
 */
export async function backupTenant(db: Db, databaseUrl: string, accountId: string, outFile: string): Promise<BackupResult> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(accountId)) throw new BackupError(`unknown account ${accountId}: an account id is a UUID`);
  const account = await findAccountById(db, accountId);
  if (!account) throw new BackupError(`unknown account ${accountId}`);
  const schema = account.schema_name;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const tmp = `${outFile}.partial-${process.pid}`;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    for (const [name, value] of SESSION_SETTINGS) await run(client, sql.unsafe`SELECT set_config(${name}, ${value}, true)`);
    const migrations = await run<{ version: number; name: string }>(client, sql.unsafe`
      SELECT version, name FROM master.schema_migrations WHERE schema_name = ${schema} ORDER BY version`);
    if (!migrations.length) throw new BackupError(`account ${accountId} has no migrated schema ${schema}`);
    const tables = await run<TableRow>(client, sql.unsafe`
      SELECT c.relname AS name,
        array(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum) AS columns,
        p.relname AS parent, pg_get_expr(c.relpartbound, c.oid) AS bound
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent
      WHERE n.nspname = ${schema} AND c.relkind = 'r'
        -- a freeze's staged copy that is no partition belongs to no version: a freeze in progress, or one that failed
        -- (the next freeze drops it; migration 040)
        AND (c.relispartition OR c.relname !~ '^history_[a-z0-9_]+_[0-9]+$')`);
    const edges = await run<{ child: string; parent: string }>(client, sql.unsafe`
      SELECT c.relname AS child, p.relname AS parent
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE k.contype = 'f' AND n.nspname = ${schema}`);
    const sequences = await run<BackupSequence>(client, sql.unsafe`
      SELECT sequencename AS name, last_value::float8 AS last_value, start_value::float8 AS start_value
      FROM pg_sequences WHERE schemaname = ${schema} ORDER BY sequencename`);
    const ordered = dependencyOrder(tables, edges).map((t) => ({ name: t.name, columns: t.columns, ...(t.parent ? { partition_of: partitionOf(t) } : {}) }));
    const version = await run<{ v: string }>(client, sql.unsafe`SELECT current_setting('server_version') AS v`);
    const header: BackupHeader = {
      format: BACKUP_FORMAT, format_version: BACKUP_FORMAT_VERSION, created_at: new Date().toISOString(), server_version: version[0].v,
      account: { id: account.id, name: account.name }, migrations, tables: ordered,
      sequences: sequences.map((s) => ({ name: s.name, last_value: s.last_value === null ? null : Number(s.last_value), start_value: Number(s.start_value) })),
    };

    const body = new PassThrough();
    const gzip = zlib.createGzip();
    const written = pipeline(body, gzip, fs.createWriteStream(tmp));
    const write = async (data: string | Buffer) => {
      if (!body.write(data)) await once(body, 'drain');
    };
    let rows = 0;
    await write(`${JSON.stringify(header)}\n`);
    for (const t of ordered) {
      const copy = client.query(copyTo(sql.unsafe`COPY ${sql.identifier([schema, t.name])} (${sql.join(t.columns.map((c) => sql.identifier([c])), sql.fragment`, `)}) TO STDOUT`.sql));
      for await (const chunk of copy as AsyncIterable<Buffer>) {
        rows += countLines(chunk);
        await write(chunk);
      }
      await write(`${END_OF_TABLE}\n`);
    }
    body.end();
    await written;
    await client.query('COMMIT');
    // the named file appears only complete: a backup cut short never passes for a whole one
    fs.renameSync(tmp, outFile);
    return { account: header.account, migration: migrations[migrations.length - 1].version, tables: ordered.length, rows, bytes: fs.statSync(outFile).size };
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  } finally {
    await client.end();
  }
}
