import fs from 'node:fs';
import path from 'node:path';
import { ApiMetrics } from '../../api/metrics';
import type { DataCache } from '../../api/cache';
import type { Db } from '../../db/pool';
import { WorkerMetrics } from '../../temporal/workerMetrics';

const ROOT = path.join(__dirname, '../..');

// The Grafana dashboard and the Prometheus configuration in deploy/ read what the processes publish: a renamed
// metric fails here instead of leaving an empty panel. (Names only: the registries are not collected.)
test('every planning_* metric the dashboard queries is one the API or the worker publishes', () => {
  const published = new Set<string>();
  // the collectors read the pool and the cache only when scraped, which this test never does
  for (const registry of [new ApiMetrics({} as Db, {} as DataCache).registry, new WorkerMetrics().registry]) {
    for (const m of registry.getMetricsAsArray()) {
      published.add(m.name);
      if (String(m.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) published.add(m.name + s);
    }
  }
  const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/planning-dashboard.json'), 'utf8'));
  const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
  const used = new Set(exprs.flatMap((e) => e.match(/\bplanning_\w+/g) ?? []));
  expect(used.size).toBeGreaterThan(10);
  expect([...used].filter((n) => !published.has(n))).toEqual([]);
  // and every metric we publish has a panel
  const base = [...published].filter((n) => !/_(bucket|sum|count)$/.test(n) || !published.has(n.replace(/_(bucket|sum|count)$/, '')));
  expect(base.filter((n) => ![...used].some((u) => u.startsWith(n)))).toEqual(['planning_plan_read_cache_answers', 'planning_db_pool_idle_connections']);
});

test('prometheus.yml scrapes the ports docker-compose gives the API and the workers', () => {
  const prom = fs.readFileSync(path.join(ROOT, 'deploy/prometheus.yml'), 'utf8');
  const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  const apiPort = /^\s+METRICS_PORT: "(\d+)"$/m.exec(compose)?.[1];
  const workerPort = /^\s+WORKER_METRICS_PORT: "(\d+)"$/m.exec(compose)?.[1];
  expect(prom).toContain(`targets: ["api:${apiPort}"]`);
  expect(prom).toMatch(new RegExp(`names: \\["worker"\\]\\s+type: A\\s+port: ${workerPort}\\b`));
  expect(compose).toMatch(/^\s+profiles: \["metrics"\]$/m);
  expect(compose).toContain("fetch('http://127.0.0.1:8002/ready')");
});
