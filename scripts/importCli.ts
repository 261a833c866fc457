/**
 * Command-line import, through the same functions as the API:
 *
 *   tsx scripts/importCli.ts load   --account <id> --table demand_history --file demand.csv [--truncate] [--delimiter ';']
 *   tsx scripts/importCli.ts tables --account <id>
 *   tsx scripts/importCli.ts run    --account <id> [--tables items,sites] [--mode items=replace ...] [--wait]
 *
 * Needs DATABASE_URL; `run` also needs TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE if not default).
 * A file has no size limit here, unlike an upload.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { TABLE_ORDER, isTableName, type TableName } from '../domain/import/tables';
import { LoadError, stageCsv } from '../domain/import/validate';
import { getRunTables, insertStagingRows, stagingStat, stagingStats, truncateStaging, type ImportMode } from '../db/importStaging';
import { openPool, withTenant, type Db } from '../db/pool';
import { readEnv } from '../lib/env';
import { connectTemporal } from '../temporal/client';
import { startImportRun } from '../api/routes/import';

const USAGE = `usage:
  importCli load   --account <id> --table <${TABLE_ORDER.join('|')}> --file <x.csv> [--truncate] [--delimiter ,]
  importCli tables --account <id>
  importCli run    --account <id> [--tables a,b] [--mode table=upsert|replace ...] [--wait]`;

class UsageError extends Error {}

function table(name: string | undefined): TableName {
  if (!name || !isTableName(name)) throw new UsageError(`--table must be one of ${TABLE_ORDER.join(', ')}`);
  return name;
}

export async function loadFile(db: Db, accountId: string, name: TableName, file: string, opts: { truncate?: boolean; delimiter?: string } = {}) {
  const rows = stageCsv(name, fs.readFileSync(file, 'utf8'), opts.delimiter ?? ',');
  return withTenant(db, accountId, async (tx) => {
    if (opts.truncate) await truncateStaging(tx, name);
    await insertStagingRows(tx, name, rows);
    return { loaded: rows.length, ...(await stagingStat(tx, name)) };
  });
}

async function run(db: Db, accountId: string, tables: TableName[] | undefined, modes: Record<string, ImportMode>, wait: boolean) {
  const env = readEnv();
  if (!env.temporalAddress) throw new UsageError('TEMPORAL_ADDRESS is required for run');
  const { connection, client } = await connectTemporal(env.temporalAddress, env.temporalNamespace, { timeoutMs: 15_000 });
  try {
    const started = await startImportRun(db, { client, taskQueue: env.taskQueue }, { accountId, tables, modes, createdBy: 'cli' });
    if (!wait) return started;
    const result = await client.workflow.getHandle(started.run_id).result();
    const results = await withTenant(db, accountId, (tx) => getRunTables(tx, [started.run_id]));
    return { ...started, status: (result as { status: string }).status, results };
  } finally {
    await connection.close();
  }
}

export async function main(argv: string[]): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      account: { type: 'string' }, table: { type: 'string' }, file: { type: 'string' }, truncate: { type: 'boolean' }, delimiter: { type: 'string' },
      tables: { type: 'string' }, mode: { type: 'string', multiple: true }, wait: { type: 'boolean' },
    },
  });
  const command = positionals[0];
  if (!['load', 'tables', 'run'].includes(command)) throw new UsageError(USAGE);
  if (!values.account) throw new UsageError('--account <account id> is required');
  const url = readEnv().databaseUrl;
  if (!url) throw new UsageError('DATABASE_URL is required');
  const db = await openPool(url, 2);
  try {
    if (command === 'tables') return await withTenant(db, values.account, stagingStats);
    if (command === 'load') {
      if (!values.file) throw new UsageError('--file <path to a CSV file> is required');
      return await loadFile(db, values.account, table(values.table), values.file, { truncate: values.truncate, delimiter: values.delimiter });
    }
    const modes: Record<string, ImportMode> = {};
    for (const m of values.mode ?? []) {
      const [t, mode] = m.split('=');
      if (mode !== 'upsert' && mode !== 'replace') throw new UsageError(`--mode ${m}: expected <table>=upsert or <table>=replace`);
      modes[table(t)] = mode;
    }
    const tables = values.tables ? values.tables.split(',').map((t) => table(t.trim())) : undefined;
    return await run(db, values.account, tables, modes, Boolean(values.wait));
  } finally {
    await db.end();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (out) => {
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      process.exit(0);
    },
    (err) => {
      const known = err instanceof UsageError || err instanceof LoadError || typeof err?.detail === 'string';
      process.stderr.write(`${known ? err.detail ?? err.message : err?.stack ?? err}\n`);
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
