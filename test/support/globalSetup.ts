import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '@jest/types';
import { bundleWorkflowCode } from '@temporalio/worker';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../db/embedded';
import { migrateAll } from '../../db/migrate';
import { freePort } from '../../lib/net';
import { startDevServer } from '../../temporal/devServer';
import { TEST_GO_RUNTIME } from './goRuntime';
import { bundleScripts } from './scriptBundle';
import { cachedTemplate, copyDataDirectory, saveTemplate, templateKey } from './templateCache';
import { makeRunDirectory } from './runDirectory';
import { fillTenantPool } from './tenantPool';
import { workerDatabaseName } from './workerDatabase';

const quiet = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} } as any;

/**
 * One real PostgreSQL server and one Temporal dev server for the whole run, however many jest workers share them.
 * Each worker gets a database of its own, cloned from one migrated template, so that what a suite changes in the
 * master schema (the JWT secret, superadmins, the account list, LISTEN channels) is never seen by a suite running
 * beside it; each test file makes its own tenants inside that. The workflow bundle is built here once: webpack took
 * seconds in every workflow test file; so are the command-line scripts the tests run (test/support/scriptBundle.ts).
 * The run's files live in memory where there is room (test/support/runDirectory.ts), and the migrated template comes
 * from a cache when an earlier run left the same one (test/support/templateCache.ts). The Temporal server keeps its state in memory: nothing of it outlives the run,
 * and a file of its own cost it about 40 % more CPU. PostgreSQL runs without autovacuum and
 * asks this machine's connections for no password (db/embedded.ts).
 */
export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  process.env.NODE_ENV = 'test';
  process.env.BCRYPT_ROUNDS ??= '4';
  const run = makeRunDirectory();
  // the global teardown removes it; the workers' own servers go there too (scratchDirectory)
  process.env.TEST_RUN_DIR = run;
  const bundling = bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quiet });
  const scripts = path.join(run, 'scripts');
  const scriptBundling = bundleScripts(scripts);
  const temporal = process.env.TEMPORAL_ADDRESS
    ? undefined
    : startDevServer({ dataDir: path.join(run, 'temporal'), port: await freePort(), uiPort: await freePort(), ui: false, inMemory: true, env: TEST_GO_RUNTIME });
  // whole runs only (scripts/test.sh sets it): one file's run would wait on migrations it never uses
  const poolSize = Number(process.env.TEST_TENANT_POOL ?? 0);
  if (process.env.DATABASE_URL) {
    await migrateAll(process.env.DATABASE_URL);
    await fillTenantPool(process.env.DATABASE_URL, poolSize);
  } else {
    await startRunDatabase(run, poolSize);
  }
  await cloneWorkerDatabases(process.env.DATABASE_URL!, Math.max(1, globalConfig.maxWorkers));
  if (temporal) {
    const server = await temporal;
    (globalThis as any).__TEMPORAL__ = server;
    process.env.TEMPORAL_ADDRESS = server.address;
    process.env.TEMPORAL_NAMESPACE = server.namespace;
  }
  const codePath = path.join(run, 'workflow-bundle.js');
  fs.writeFileSync(codePath, (await bundling).code);
  process.env.TEST_WORKFLOW_BUNDLE = codePath;
  await scriptBundling;
  process.env.TEST_SCRIPT_BUNDLES = scripts;
}

/**
 * The run's own PostgreSQL, migrated and with its tenant pool: from the template cache when an earlier run left the
 * same one (test/support/templateCache.ts), otherwise built and then kept there.
 */
async function startRunDatabase(run: string, poolSize: number): Promise<void> {
  const socketDir = path.join(run, 'pg-socket');
  fs.mkdirSync(socketDir, { mode: 0o777 });
  fs.chmodSync(socketDir, 0o777);
  const dataDir = path.join(run, 'pg');
  const port = await freePort();
  const start = async () => {
    // persistent: the package deletes the directory on stop otherwise; the global teardown removes the run's directory
    const db = await startEmbeddedPostgres({ dataDir, port, persistent: true, fast: true, autovacuum: false, trustLocal: true, socketDir });
    (globalThis as any).__EMBEDDED_PG__ = db;
    // every suite and every process it starts reaches the server through the socket (db/embedded.ts socketDir)
    process.env.DATABASE_URL = db.socketUrl!;
    return db;
  };
  const key = poolSize > 0 ? templateKey(poolSize) : undefined;
  const cached = key ? cachedTemplate(key) : undefined;
  if (cached) copyDataDirectory(cached, dataDir);
  const db = await start();
  await migrateAll(process.env.DATABASE_URL!);
  if (cached || !key) return;
  await fillTenantPool(process.env.DATABASE_URL!, poolSize);
  // a stopped server's files are consistent: keep them for the next run, then start again on them
  await db.stop();
  saveTemplate(dataDir, key);
  await start();
}

/** `CREATE DATABASE … TEMPLATE` copies the migrated files: milliseconds per worker, against seconds of migrations. */
async function cloneWorkerDatabases(templateUrl: string, workers: number): Promise<void> {
  const template = new URL(templateUrl).pathname.slice(1);
  const admin = new Client({ connectionString: withDatabase(templateUrl, 'postgres') });
  await admin.connect();
  try {
    for (let w = 1; w <= workers; w++) {
      const name = workerDatabaseName(template, String(w));
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      // FILE_COPY copies the template's directory as files; the default (WAL_LOG) reads and logs every page, which
      // grew with the pooled tenants' schemas
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}" STRATEGY FILE_COPY`);
    }
  } finally {
    await admin.end();
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
