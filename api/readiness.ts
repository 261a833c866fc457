import type Koa from 'koa';
import { listAccounts } from '../db/accounts';
import { orAfter } from '../lib/timeout';
import type { AppDeps } from './context';

const CHECK_TIMEOUT_MS = 2000;

/** Set when the process was told to stop (api/main.ts): readiness fails, and answers close their connections. */
export interface Lifecycle {
  stopping: boolean;
}

const TIMED_OUT = Symbol('timed out');

async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  const answer = await orAfter(p, ms, TIMED_OUT);
  if (answer === TIMED_OUT) throw new Error(`${what} did not answer within ${ms} ms`);
  return answer;
}

const problem = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 200);

/**
 * GET /ready, the orchestrator's readiness probe beside `GET /` (liveness: the process answers): 200 once the
 * database and Temporal answer and no tenant's data cache is still loading or failed to load, else 503 naming what
 * is not ready. Public and outside /api like `/`: it says nothing about any tenant but counts.
 */
export function readinessMiddleware(deps: AppDeps, lifecycle: Lifecycle): Koa.Middleware {
  return async (ctx, next) => {
    // while draining, a kept-alive client opens a new connection for its next request, which goes to another replica
    if (lifecycle.stopping) ctx.set('Connection', 'close');
    if (ctx.path !== '/ready' || ctx.method !== 'GET') return next();
    if (lifecycle.stopping) {
      ctx.status = 503;
      ctx.set('Retry-After', '5');
      ctx.body = { status: 'stopping', checks: {} };
      return;
    }
    const checks: Record<string, unknown> = {};
    let ready = true;
    try {
      const accounts = await within(CHECK_TIMEOUT_MS, 'the database', listAccounts(deps.db));
      checks.database = 'ok';
      const states = accounts.map((a) => deps.cache.status(a.id));
      const loading = states.filter((s) => s === 'loading').length;
      const failed = states.filter((s) => s === 'failed').length;
      checks.cache = { tenants: accounts.length, loaded: states.filter((s) => s === 'ready').length, loading, failed };
      if (loading || failed) ready = false;
    } catch (err) {
      checks.database = problem(err);
      ready = false;
    }
    if (!deps.temporal) {
      checks.temporal = 'not configured';
    } else {
      try {
        const { client } = deps.temporal;
        // a gRPC deadline, not only a race: a call left pending on a server that never answers would outlive the probe
        await within(CHECK_TIMEOUT_MS, 'Temporal', client.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => client.workflowService.getSystemInfo({})));
        checks.temporal = 'ok';
      } catch (err) {
        checks.temporal = problem(err);
        ready = false;
      }
    }
    ctx.status = ready ? 200 : 503;
    if (!ready) ctx.set('Retry-After', '5');
    ctx.body = { status: ready ? 'ready' : 'not ready', checks };
  };
}
