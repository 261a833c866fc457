import crypto from 'node:crypto';
import http from 'node:http';
import type Koa from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/pool';
import type { DataCache } from './cache';

/**
 * The API's Prometheus metrics (docs/OPERATIONS.md). One registry per app, not prom-client's global one, so that
 * two apps in one process (the tests) count their own requests. Routes are labelled by their template
 * (`/api/forecasts/:unique_id`), never the path a client sent, so the number of series stays bounded.
 */
export class ApiMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly duration: Histogram<'route' | 'method'>;
  private readonly inFlight: Gauge;

  constructor(db: Db, cache: DataCache, opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'planning_http_requests_total', help: 'HTTP requests answered, by route template, method and status', labelNames: ['route', 'method', 'status'], registers });
    this.duration = new Histogram({
      name: 'planning_http_request_duration_seconds', help: 'Time to answer a request, by route template and method', labelNames: ['route', 'method'], registers,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
    this.inFlight = new Gauge({ name: 'planning_http_requests_in_flight', help: 'Requests being answered now', registers });
    new Gauge({
      name: 'planning_plan_read_cache_bytes', help: 'Bytes of work-list answers kept (api/planReads.ts, PLAN_READ_CACHE_MB)', registers,
      collect() { this.set(cache.plan.size().bytes); },
    });
    new Gauge({
      name: 'planning_plan_read_cache_answers', help: 'Work-list answers kept', registers,
      collect() { this.set(cache.plan.size().answers); },
    });
    new Gauge({
      name: 'planning_plan_read_cache_hits_total', help: 'Work-list reads answered from memory since the process started', registers,
      collect() { this.set(cache.plan.hits); },
    });
    new Gauge({
      name: 'planning_plan_read_cache_misses_total', help: 'Work-list reads that went to the database since the process started', registers,
      collect() { this.set(cache.plan.misses); },
    });
    const pool = (name: string, help: string, pick: (s: ReturnType<Db['state']>) => number) =>
      new Gauge({ name, help, registers, collect() { this.set(pick(db.state())); } });
    pool('planning_db_pool_waiting_clients', 'Requests waiting for a database connection (the pool is full)', (s) => s.waitingClients);
    pool('planning_db_pool_acquired_connections', 'Database connections in use', (s) => s.acquiredConnections);
    pool('planning_db_pool_idle_connections', 'Database connections open and idle', (s) => s.idleConnections);
  }

  /**
   * Counts every request, the ones the error middleware answers included: it goes first in the chain. A request
   * refused before routing (401) is labelled with the route it asked for (`routeOf`), not lost as unmatched.
   */
  middleware(routeOf: (path: string, method: string) => string | undefined = () => undefined): Koa.Middleware {
    return async (ctx, next) => {
      if (ctx.path === '/metrics') return next();
      this.inFlight.inc();
      const end = process.hrtime.bigint();
      try {
        await next();
      } finally {
        this.inFlight.dec();
        const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? routeOf(ctx.path, ctx.method) ?? 'unmatched';
        const method = ctx.method;
        this.requests.inc({ route, method, status: String(ctx.status) });
        this.duration.observe({ route, method }, Number(process.hrtime.bigint() - end) / 1e9);
      }
    };
  }

  /**
   * GET /metrics with `Authorization: Bearer <METRICS_TOKEN>`; without a token configured the route does not exist
   * (404), so metrics are never public by accident. METRICS_PORT serves them without a token on a port of its own.
   */
  endpoint(token: string | undefined): Koa.Middleware {
    return async (ctx, next) => {
      if (ctx.path !== '/metrics' || ctx.method !== 'GET') return next();
      if (!token) return next();
      const given = /^Bearer (.+)$/.exec(ctx.get('Authorization'))?.[1] ?? '';
      const a = Buffer.from(given);
      const b = Buffer.from(token);
      if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer');
        ctx.body = { detail: 'A metrics token is required (Authorization: Bearer <METRICS_TOKEN>)' };
        return;
      }
      ctx.type = this.registry.contentType;
      ctx.body = await this.registry.metrics();
    };
  }

  /** METRICS_PORT: the same text without a token, on a port kept off the public network (docs/OPERATIONS.md). */
  listen(port: number, host: string): Promise<http.Server> {
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ detail: 'Not found: this port serves GET /metrics only' }));
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': this.registry.contentType }).end(text),
        () => res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ detail: 'internal error' })),
      );
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve(server));
    });
  }
}
