import http from 'node:http';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { logger } from '../lib/logger';

/**
 * The worker's Prometheus metrics (docs/OPERATIONS.md): activities by name and step, started, completed, failed and
 * retried (an attempt after the first), their durations, and the series the per-series steps processed (a rate of
 * it is series per second). Counted by an activity interceptor, so no activity knows about them.
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly started: Counter<'activity' | 'step'>;
  private readonly completed: Counter<'activity' | 'step'>;
  private readonly failed: Counter<'activity' | 'step'>;
  private readonly retried: Counter<'activity' | 'step'>;
  private readonly duration: Histogram<'activity' | 'step' | 'outcome'>;
  private readonly series: Counter<'step'>;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry });
    const labelNames = ['activity', 'step'] as const;
    this.started = new Counter({ name: 'planning_activities_started_total', help: 'Activity attempts started, by activity and step', labelNames, registers });
    this.completed = new Counter({ name: 'planning_activities_completed_total', help: 'Activity attempts that completed', labelNames, registers });
    this.failed = new Counter({ name: 'planning_activities_failed_total', help: 'Activity attempts that failed (Temporal may retry them)', labelNames, registers });
    this.retried = new Counter({ name: 'planning_activities_retried_total', help: 'Activity attempts after the first (retries)', labelNames, registers });
    this.duration = new Histogram({
      name: 'planning_activity_duration_seconds', help: 'Time an activity attempt ran, by activity, step and outcome', labelNames: ['activity', 'step', 'outcome'], registers,
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    });
    this.series = new Counter({ name: 'planning_series_processed_total', help: 'Series processed by the per-series steps (rate() of it: series per second)', labelNames: ['step'], registers });
  }

  /** The interceptor to give Worker.create: one per worker, sharing this registry. */
  interceptor(): ActivityInterceptorsFactory {
    return (ctx) => ({
      inbound: {
        execute: async (input, next) => {
          const first = input.args[0] as { step?: unknown } | undefined;
          const labels = { activity: ctx.info.activityType, step: typeof first?.step === 'string' ? first.step : '' };
          this.started.inc(labels);
          if (ctx.info.attempt > 1) this.retried.inc(labels);
          const t0 = process.hrtime.bigint();
          const seconds = () => Number(process.hrtime.bigint() - t0) / 1e9;
          try {
            const result = await next(input);
            this.completed.inc(labels);
            this.duration.observe({ ...labels, outcome: 'completed' }, seconds());
            const n = (result as { series?: unknown } | null)?.series;
            if (labels.step && typeof n === 'number') this.series.inc({ step: labels.step }, n);
            return result;
          } catch (err) {
            this.failed.inc(labels);
            this.duration.observe({ ...labels, outcome: 'failed' }, seconds());
            throw err;
          }
        },
      },
    });
  }
}

/**
 * Serves GET /metrics on its own port: this process's metrics, then the Temporal SDK's (its Prometheus exporter,
 * bound to `sdkAddress` on loopback by Runtime.install), so one scrape target carries both.
 */
export function serveWorkerMetrics(metrics: WorkerMetrics, port: number, host: string, sdkAddress?: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ detail: 'Not found: the worker serves GET /metrics only' }));
      return;
    }
    void (async () => {
      let text = await metrics.registry.metrics();
      if (sdkAddress) {
        try {
          const sdk = await fetch(`http://${sdkAddress}/metrics`, { signal: AbortSignal.timeout(2000) });
          text += `\n${await sdk.text()}`;
        } catch (err) {
          logger.warn({ err, sdkAddress }, 'Temporal SDK metrics not reachable; serving the worker metrics alone');
        }
      }
      res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text);
    })().catch((err) => {
      logger.error({ err }, 'worker metrics failed');
      res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ detail: 'internal error' }));
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
