/**
 * Load on the API as production runs it, for the benchmarks that measure reads (bench/api.ts, bench/supply.ts): the
 * API as a child process (`node --import tsx api/main.ts`, NODE_ENV=production), a planner user and its token, and
 * autocannon rows (req/s, latency p50 and p99, bytes per answer) run from the benchmark's own process, so the load
 * generator does not share the API's event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { hashPassword } from '../../api/auth/passwords';
import { indexEmail } from '../../db/accounts';
import { withTenant, type Db } from '../../db/pool';
import { insertUser } from '../../db/users';
import { REPO_ROOT } from '../../lib/env';
import { freePort } from '../../lib/net';
import { int } from './report';

// autocannon ships no types; the part used here is small
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon: (opts: Record<string, unknown>) => Promise<AutocannonResult> = require('autocannon');

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  total?: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  throughput: Histogram & { total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}

/** API_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes to the API's node: NODE_OPTIONS refuses --cpu-prof. */
export async function startApi(databaseUrl: string, port: number, logFile: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
  const nodeArgs = (process.env.API_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'api/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'warn', JWT_SECRET: 'bench-api-secret-0123456789abcdef0123456789', LOGIN_RATE_LIMIT: '1000', ...extraEnv },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`API exited (${child.exitCode}):\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).ok) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('API did not answer within 60 s');
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGINT'); // api/main.ts closes on SIGINT, which lets --cpu-prof write its profile
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** A local user of the tenant allowed to run processes, findable by e-mail at login. */
export async function addPlanner(db: Db, accountId: string, email: string, password: string): Promise<void> {
  await withTenant(db, accountId, async (tx) => {
    await insertUser(tx, {
      email, name: 'Bench planner', password_hash: await hashPassword(password), role: 'user', auth_provider: 'local',
      can_run_process: true, can_create_override: true, allowed_segments: [], allowed_segments_edit: [],
    });
    await indexEmail(tx, email, accountId);
  });
}

/** The access token of a login through the API. */
export async function login(url: string, email: string, password: string, accountId: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password, account_id: accountId }) });
  const token = ((await res.json()) as { access_token?: string }).access_token;
  if (!token) throw new Error(`login failed: ${res.status}`);
  return token;
}

/** The data cache warms in the background at start; the first measured request must not be the one that waits. */
export async function waitForCache(url: string, token: string, probePath: string): Promise<void> {
  for (let i = 0; i < 100 && (await fetch(`${url}${probePath}`, { headers: { authorization: `Bearer ${token}` } })).status === 503; i++) await new Promise((r) => setTimeout(r, 200));
}

export interface LoadRow {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  bytes: number;
  non2xx: number;
  errors: number;
}

/**
 * One row: a 2 s warm-up, then `seconds` of load on `connections` connections. `paths` rotates the request path (a
 * different one per request, in turn) instead of repeating `url`'s.
 */
export async function measure(
  name: string, url: string, load: { connections: number; seconds: number; log: (msg: string) => void },
  opts: { token?: string; paths?: string[]; /** called as the measured seconds start and end (after the warm-up) */ window?: { start(): void; end(): void } },
): Promise<LoadRow> {
  const headers = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
  let next = 0;
  const requests = opts.paths
    ? [{ method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: opts.paths![next++ % opts.paths!.length] }) }]
    : undefined;
  const base = { url, headers, connections: load.connections, ...(requests ? { requests } : {}) };
  // warm-up: the caches, the pool's connections and V8's optimisations
  await autocannon({ ...base, duration: 2 });
  opts.window?.start();
  const r = await autocannon({ ...base, duration: load.seconds });
  opts.window?.end();
  const total = r.requests.total;
  const row: LoadRow = {
    name, reqPerSec: total / r.duration, p50: r.latency.p50, p99: r.latency.p99,
    bytes: total ? r.throughput.total / total : NaN, non2xx: r.non2xx, errors: r.errors + r.timeouts,
  };
  load.log(`${name}: ${int(row.reqPerSec)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, ${int(row.bytes)} B/answer${row.non2xx || row.errors ? `, ${row.non2xx} non-2xx, ${row.errors} errors` : ''}`);
  return row;
}

export interface ListRequest {
  name: string;
  path: string;
  /** a different path per request, in turn (the first is `path`) */
  paths?: string[];
  /** false: the route keeps no answers (it reads PostgreSQL every time either way), so it is measured once */
  keeps?: boolean;
}

export interface ListRow extends LoadRow {
  /** the list's total as the probe before the row read it */
  total: number;
  /** whether the API kept the answers per plan version (api/planReads.ts), as production runs it, or read PostgreSQL every time */
  kept: boolean;
}

/**
 * The list reads of bench:supply and bench:alerts: a planner of the tenant, then each request as a row against the API
 * as production runs it, and the same rows again against an API that keeps no answers (PLAN_READ_CACHE_MB=0), so
 * the report shows what a request costs when it must read PostgreSQL: after every change, and for a question nobody
 * asked since. A probe before each row checks the answer and reads its total (`totalOf`).
 */
export async function measureLists(
  target: { db: Db; accountId: string; databaseUrl: string; logFile: string },
  requests: readonly ListRequest[],
  opts: { connections: number; seconds: number; log: (msg: string) => void; totalOf: (res: Response, body: unknown) => number; probePath: string },
): Promise<ListRow[]> {
  const email = 'bench-planner@example.com';
  const password = 'bench-planner-password';
  await addPlanner(target.db, target.accountId, email, password);
  const out: ListRow[] = [];
  for (const kept of [true, false]) {
    const port = await freePort();
    const api = await startApi(target.databaseUrl, port, target.logFile, kept ? {} : { PLAN_READ_CACHE_MB: '0' });
    try {
      const url = `http://127.0.0.1:${port}`;
      const token = await login(url, email, password, target.accountId);
      await waitForCache(url, token, opts.probePath);
      opts.log(`API pid ${api.pid} on ${url}, ${kept ? 'keeping answers per plan version' : 'PLAN_READ_CACHE_MB=0: every request reads PostgreSQL'}; ${opts.connections} connections, ${opts.seconds} s per row after a 2 s warm-up`);
      for (const r of requests.filter((x) => !kept || x.keeps !== false)) {
        const probe = await fetch(`${url}${r.path}`, { headers: { authorization: `Bearer ${token}` } });
        if (!probe.ok) throw new Error(`GET ${r.path}: ${probe.status} ${await probe.text()}`);
        const total = opts.totalOf(probe, await probe.json());
        const row = await measure(r.name, `${url}${r.path}`, opts, { token, ...(r.paths ? { paths: r.paths } : {}) });
        out.push({ ...row, total, kept });
      }
    } finally {
      await stopChild(api);
    }
  }
  return out;
}

/** The columns after a list row's name: answers kept or not, total, req/s, p50, p99, bytes per answer. */
export const LIST_COLUMNS = ['answers', 'total', 'req/s', 'p50 ms', 'p99 ms', 'bytes / answer'];

export const listCells = (r: ListRow): string[] =>
  [r.name, r.kept ? 'kept' : 'read every time', int(r.total), int(r.reqPerSec), String(r.p50), String(r.p99), int(r.bytes)];

/**
 * The verdict on a p99 target: judged on the API as production runs it (answers kept), with the worst p99 when every
 * request reads PostgreSQL beside it.
 */
export function listVerdict(what: string, rows: readonly ListRow[], targetMs: number): string {
  const worst = (kept: boolean) => Math.max(...rows.filter((r) => r.kept === kept).map((r) => r.p99));
  const kept = worst(true);
  return `${what}: worst p99 ${kept} ms as production runs it (target ${targetMs} ms: ${kept < targetMs ? 'met' : 'NOT met'}); ${worst(false)} ms when every request reads PostgreSQL`;
}
