/**
 * The SQL of the assistant's template questions (domain/assistant/templates.ts), used without a language model. The
 * text goes through the same textual rules and read-only runner as a model's statement, and is shown in the response
 * as the query behind the answer. Values inlined here are integers or codes matched by CODE below: nothing else.
 */
import type { TemplateMatch } from '../domain/assistant/templates';

const CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const int = (v: number | null): number | null => (v !== null && Number.isInteger(v) && v >= 0 && v <= 2147483647 ? v : null);
const code = (v: string): string => {
  if (!CODE.test(v)) throw new Error(`not a code: ${v}`);
  return `'${v}'`;
};

/** `<alias>.pipeline_id = P`, or the most recent pipeline of the table when no pipeline was given. */
const pipelineFilter = (alias: string, table: string, pipelineId: number | null, order = 'updated_at') =>
  int(pipelineId) !== null ? `${alias}.pipeline_id = ${pipelineId}` : `${alias}.pipeline_id = (SELECT x.pipeline_id FROM ${table} x ORDER BY x.${order} DESC LIMIT 1)`;

const latestRun = (pipelineId: number | null, scenarioId: number | null) =>
  `SELECT r.run_id, r.planning_date FROM supply_runs r WHERE r.status = 'completed'${int(pipelineId) !== null ? ` AND r.pipeline_id = ${pipelineId}` : ''}${int(scenarioId) !== null ? ` AND r.scenario_id = ${scenarioId}` : ''} ORDER BY r.finished_at DESC NULLS LAST, r.started_at DESC LIMIT 1`;

const siteMatch = (alias: string, site: string) => `(${/^\d+$/.test(site) ? `${alias}.id = ${Number(site)} OR ` : ''}${alias}.xuid = ${code(site)})`;
const itemMatch = siteMatch;

export function templateSql(m: TemplateMatch, pipelineId: number | null, scenarioId: number | null): string {
  switch (m.kind) {
    case 'forecast':
      return `WITH pick AS (
  SELECT f.item_id, f.site_id, f.method, f.start_week, f.yhat
  FROM forecast_results f
  JOIN items i ON i.id = f.item_id
  JOIN sites s ON s.id = f.site_id
  LEFT JOIN series_best_method b ON b.pipeline_id = f.pipeline_id AND b.item_id = f.item_id AND b.site_id = f.site_id
  WHERE ${itemMatch('i', m.item)} AND ${siteMatch('s', m.site)}${int(pipelineId) !== null ? ` AND f.pipeline_id = ${pipelineId}` : ''}
  ORDER BY (f.method = b.best_method) DESC NULLS LAST, f.pipeline_id DESC, f.method
  LIMIT 1
)
SELECT (p.start_week + (h.k::int - 1) * 7) AS week, h.yhat AS forecast, p.method
FROM pick p CROSS JOIN LATERAL unnest(p.yhat) WITH ORDINALITY AS h(yhat, k)
ORDER BY week`;
    case 'shortages':
      return `WITH run AS (${latestRun(pipelineId, scenarioId)})
SELECT i.xuid AS item, s.xuid AS site, min(w.week)::int AS first_short_week,
       (run.planning_date + (min(w.week)::int - 1) * 7) AS first_short_date, sum(w.qty) AS shortage_qty
FROM run
JOIN supply_plans p ON p.run_id = run.run_id
JOIN items i ON i.id = p.item_id
JOIN sites s ON s.id = p.site_id
CROSS JOIN LATERAL unnest(p.shortage) WITH ORDINALITY AS w(qty, week)
WHERE w.week <= ${Math.max(1, Math.min(52, Math.trunc(m.weeks)))} AND w.qty > 0${m.site ? ` AND ${siteMatch('s', m.site)}` : ''}
GROUP BY i.xuid, s.xuid, run.planning_date
ORDER BY first_short_week, shortage_qty DESC`;
    case 'exceptions':
      return `SELECT i.xuid AS item, s.xuid AS site, e.exception_types, e.status, e.updated_at
FROM exception_log e
JOIN items i ON i.id = e.item_id
JOIN sites s ON s.id = e.site_id
WHERE e.status = 'open' AND ${pipelineFilter('e', 'exception_log', pipelineId)}${m.type ? ` AND ${code(m.type)} = ANY(e.exception_types)` : ''}
ORDER BY i.xuid, s.xuid`;
    case 'count_by_class':
      return m.classKind === 'abc'
        ? `SELECT a.class_label, count(*)::int AS series
FROM abc_results a
WHERE a.config_id = (SELECT x.config_id FROM abc_results x ORDER BY x.computed_at DESC LIMIT 1)
GROUP BY a.class_label
ORDER BY a.class_label`
        : `SELECT c.demand_class, count(*)::int AS series
FROM series_characteristics c
WHERE ${pipelineFilter('c', 'series_characteristics', pipelineId)}
GROUP BY c.demand_class
ORDER BY series DESC, c.demand_class`;
    case 'top': {
      const n = Math.max(1, Math.min(500, Math.trunc(m.n)));
      switch (m.measure) {
        case 'demand':
          return `SELECT i.xuid AS item, s.xuid AS site, sum(d.qty) AS total_demand
FROM demand_history d
JOIN items i ON i.id = d.item_id
JOIN sites s ON s.id = d.site_id
GROUP BY i.xuid, s.xuid
ORDER BY total_demand DESC, i.xuid, s.xuid
LIMIT ${n}`;
        case 'forecast':
          return `SELECT i.xuid AS item, s.xuid AS site, sum(h.v) AS total_forecast
FROM forecast_results f
JOIN series_best_method b ON b.pipeline_id = f.pipeline_id AND b.item_id = f.item_id AND b.site_id = f.site_id AND b.best_method = f.method
JOIN items i ON i.id = f.item_id
JOIN sites s ON s.id = f.site_id
CROSS JOIN LATERAL unnest(f.yhat) AS h(v)
WHERE ${pipelineFilter('f', 'forecast_results', pipelineId)}
GROUP BY i.xuid, s.xuid
ORDER BY total_forecast DESC, i.xuid, s.xuid
LIMIT ${n}`;
        case 'safety_stock':
          return `SELECT i.xuid AS item, s.xuid AS site, m.safety_stock
FROM meio_results m
JOIN items i ON i.id = m.item_id
JOIN sites s ON s.id = m.site_id
WHERE ${pipelineFilter('m', 'meio_results', pipelineId)}${int(scenarioId) !== null ? ` AND m.scenario_id = ${scenarioId}` : ''} AND m.safety_stock IS NOT NULL
ORDER BY m.safety_stock DESC, i.xuid, s.xuid
LIMIT ${n}`;
        case 'shortage':
          return `WITH run AS (${latestRun(pipelineId, scenarioId)})
SELECT i.xuid AS item, s.xuid AS site, p.shortage_qty
FROM run
JOIN supply_plans p ON p.run_id = run.run_id
JOIN items i ON i.id = p.item_id
JOIN sites s ON s.id = p.site_id
WHERE p.shortage_qty > 0
ORDER BY p.shortage_qty DESC, i.xuid, s.xuid
LIMIT ${n}`;
      }
    }
  }
  throw new Error('unknown template');
}
