/** The SQL of the alert ontology, the facts the rules read, and the alerts (docs/ALERTS.md). */
import type { FiredAlert } from '../domain/alerts/evaluate';
import { emptyFacts, type SeriesFacts } from '../domain/alerts/facts';
import { defaultRuleRows, defaultSynonyms, type AlertRule } from '../domain/alerts/ontology';
import type { AlertStatus } from '../domain/alerts/query';
import { sql, type Tx } from './pool';
import { filterSql, type SeriesFilter } from './series';
import { keysIn } from './seriesSteps';

const RULE_COLUMNS = sql.fragment`metric_name, domain, description, formula, comparison, threshold, severity, enabled, updated_at`;

export interface AlertRuleRow extends AlertRule { updated_at: string }

/** Adds the default rules and synonyms that are missing; existing rows (and a tenant's edits) stay. */
export async function seedAlertOntology(tx: Tx): Promise<{ rules_added: number; synonyms_added: number }> {
  const rules = defaultRuleRows();
  const added = await tx.query(sql.unsafe`
    INSERT INTO alert_rules (metric_name, domain, description, formula, comparison, threshold, severity, enabled)
    SELECT * FROM unnest(${sql.array(rules.map((r) => r.metric_name), 'text')}::text[], ${sql.array(rules.map((r) => r.domain), 'text')}::text[],
      ${sql.array(rules.map((r) => r.description), 'text')}::text[], ${sql.array(rules.map((r) => r.formula), 'text')}::text[],
      ${sql.array(rules.map((r) => r.comparison), 'text')}::text[], ${sql.array(rules.map((r) => r.threshold), 'float8')}::float8[],
      ${sql.array(rules.map((r) => r.severity), 'text')}::text[], ${sql.array(rules.map((r) => r.enabled), 'bool')}::bool[])
    ON CONFLICT (metric_name) DO NOTHING`);
  const syn = defaultSynonyms();
  const synAdded = await tx.query(sql.unsafe`
    INSERT INTO alert_synonyms (term, canonical_metric)
    SELECT u.term, u.metric FROM unnest(${sql.array(syn.map((s) => s.term), 'text')}::text[], ${sql.array(syn.map((s) => s.canonical_metric), 'text')}::text[]) AS u(term, metric)
    WHERE EXISTS (SELECT 1 FROM alert_rules r WHERE r.metric_name = u.metric)
    ON CONFLICT (term) DO NOTHING`);
  return { rules_added: added.rowCount, synonyms_added: synAdded.rowCount };
}

export async function listAlertRules(tx: Tx): Promise<AlertRuleRow[]> {
  return [...((await tx.any(sql.unsafe`SELECT ${RULE_COLUMNS} FROM alert_rules ORDER BY domain, metric_name`)) as AlertRuleRow[])];
}

export async function getAlertRule(tx: Tx, metric: string): Promise<AlertRuleRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE metric_name = ${metric}`)) as AlertRuleRow | null;
}

export interface AlertRulePatch { threshold?: number; severity?: string; enabled?: boolean; description?: string }

export async function updateAlertRule(tx: Tx, metric: string, p: AlertRulePatch): Promise<AlertRuleRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    UPDATE alert_rules SET threshold = COALESCE(${p.threshold ?? null}::float8, threshold), severity = COALESCE(${p.severity ?? null}::text, severity),
      enabled = COALESCE(${p.enabled ?? null}::bool, enabled), description = COALESCE(${p.description ?? null}::text, description), updated_at = now()
    WHERE metric_name = ${metric} RETURNING ${RULE_COLUMNS}`)) as AlertRuleRow | null;
}

export async function deleteAlertRule(tx: Tx, metric: string): Promise<AlertRuleRow | null> {
  return (await tx.maybeOne(sql.unsafe`DELETE FROM alert_rules WHERE metric_name = ${metric} RETURNING ${RULE_COLUMNS}`)) as AlertRuleRow | null;
}

export interface AlertSynonymRow { term: string; canonical_metric: string }

export async function listAlertSynonyms(tx: Tx): Promise<AlertSynonymRow[]> {
  return [...((await tx.any(sql.unsafe`SELECT term, canonical_metric FROM alert_synonyms ORDER BY term`)) as AlertSynonymRow[])];
}

/** null: the term exists already. */
export async function insertAlertSynonym(tx: Tx, term: string, metric: string): Promise<AlertSynonymRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    INSERT INTO alert_synonyms (term, canonical_metric) VALUES (${term}, ${metric}) ON CONFLICT (term) DO NOTHING RETURNING term, canonical_metric`)) as AlertSynonymRow | null;
}

export type SeriesKey = { item_id: number; site_id: number };

/** Series of items from `from` (inclusive) to `to` (exclusive); null is open-ended. */
export interface ItemRange { from: number | null; to: number | null }

/**
 * Up to `parts` item ranges that split the series of the pipeline's scope about evenly, for generations that run side by
 * side. Bounds are item ids, so an item's sites stay in one range (a series' facts and alerts never span two), and the
 * ranges cover every item id: a series added between the split and the generation still falls in one.
 */
export async function alertItemRanges(tx: Tx, parts: number): Promise<ItemRange[]> {
  const starts = (await tx.anyFirst(sql.unsafe`
    SELECT DISTINCT min(item_id) FROM (SELECT item_id, ntile(${Math.max(1, Math.floor(parts))}) OVER (ORDER BY item_id) AS part FROM series) t
    GROUP BY part ORDER BY 1`)) as readonly number[];
  if (starts.length <= 1) return [{ from: null, to: null }];
  return starts.map((s, i) => ({ from: i === 0 ? null : s, to: starts[i + 1] ?? null }));
}

/**
 * The facts of one page of series (ordered by item and site, after `after`), of the pipeline's segments when it has
 * any. Forecast facts from the pipeline's step results; inventory facts from the default MEIO scenario's results of
 * the pipeline; supply facts from the newest completed run of the pipeline and the default supply scenario.
 * "Recent" is the last 13 weeks of the series' history.
 */
export async function alertFactsPage(
  tx: Tx, pipelineId: number, segmentIds: readonly number[], after: SeriesKey | null, limit: number, only: readonly SeriesKey[] | null = null,
  items: ItemRange = { from: null, to: null },
): Promise<SeriesFacts[]> {
  const P = pipelineId;
  const afterSql = after ? sql.fragment`(s.item_id, s.site_id) > (${after.item_id}, ${after.site_id})` : sql.fragment`true`;
  const rangeSql = sql.join([
    items.from === null ? sql.fragment`true` : sql.fragment`s.item_id >= ${items.from}`,
    items.to === null ? sql.fragment`true` : sql.fragment`s.item_id < ${items.to}`,
  ], sql.fragment` AND `);
  const onlySql = only ? keysIn(only, 's') : sql.fragment`true`;
  const segSql = segmentIds.length
    ? sql.fragment`EXISTS (SELECT 1 FROM segment_members fm WHERE fm.segment_id = ANY(${sql.array([...segmentIds], 'int4')}) AND fm.item_id = s.item_id AND fm.site_id = s.site_id)`
    : sql.fragment`true`;
  const rows = (await tx.any(sql.unsafe`
    WITH page AS (
      SELECT s.item_id, s.site_id FROM series s WHERE ${afterSql} AND ${rangeSql} AND ${segSql} AND ${onlySql} ORDER BY s.item_id, s.site_id LIMIT ${limit}
    ),
    meio AS (SELECT id FROM meio_scenarios WHERE is_default ORDER BY id LIMIT 1),
    run AS (
      SELECT r.run_id FROM supply_runs r JOIN supply_scenarios sc ON sc.id = r.scenario_id AND sc.is_default
      WHERE r.pipeline_id = ${P} AND r.status = 'completed' ORDER BY r.started_at DESC, r.run_id DESC LIMIT 1
    )
    SELECT p.item_id, p.site_id,
      w.n_observations, COALESCE(c.mean, w.mean_all) AS mean_demand, w.recent_mean, o.recent_outliers,
      c.demand_class, st.demand_class AS previous_demand_class, st.best_method AS previous_best_method,
      bm.best_method, fr.forecast_mean, m.bias, m.mae, m.points, m.smape, bw.smape_recent, m.mase, m.coverage_90,
      mr.expected_fill_rate, mr.target_service, mr.safety_stock AS policy_safety_stock, sp.safety_stock[1] AS planned_safety_stock,
      isx.on_hand::float8 AS on_hand, mr.reorder_point, mr.order_qty, mr.weekly_mean, mg.investment AS item_investment, mg.budget_cap,
      mr.expected_backorders, mr.lead_time_weeks,
      sp.shortage_qty, ex.late_orders, ex.below_safety_stock_exceptions, ex.excess_exceptions, ex.no_source_exceptions,
      so.constrained_orders, so.expedited_orders, so.order_qty_total, so.pegged_qty_total,
      (SELECT run_id FROM run) AS run_id
    FROM page p
    LEFT JOIN LATERAL (
      SELECT count(z.y)::int AS n_observations, avg(z.y) AS mean_all, avg(z.y) FILTER (WHERE z.week > z.last - 91) AS recent_mean, max(z.last) AS last
      FROM (SELECT sw.y, sw.week, max(sw.week) OVER () AS last FROM series_weekly sw WHERE sw.item_id = p.item_id AND sw.site_id = p.site_id) z
    ) w ON true
    LEFT JOIN series_characteristics c ON c.pipeline_id = ${P} AND c.item_id = p.item_id AND c.site_id = p.site_id
    LEFT JOIN series_best_method bm ON bm.pipeline_id = ${P} AND bm.item_id = p.item_id AND bm.site_id = p.site_id
    LEFT JOIN backtest_metrics m ON m.pipeline_id = ${P} AND m.item_id = p.item_id AND m.site_id = p.site_id AND m.method = bm.best_method
    LEFT JOIN alert_series_state st ON st.pipeline_id = ${P} AND st.item_id = p.item_id AND st.site_id = p.site_id
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS recent_outliers FROM series_outliers so, jsonb_array_elements(so.outliers) e
      WHERE so.pipeline_id = ${P} AND so.item_id = p.item_id AND so.site_id = p.site_id AND (e->>'ds')::date > w.last - 91
    ) o ON w.last IS NOT NULL
    LEFT JOIN LATERAL (
      SELECT (SELECT avg(v) FROM unnest(f.yhat[1:13]) v) AS forecast_mean FROM forecast_results f
      WHERE f.pipeline_id = ${P} AND f.item_id = p.item_id AND f.site_id = p.site_id AND f.method = bm.best_method
    ) fr ON true
    LEFT JOIN LATERAL (
      SELECT avg(CASE WHEN abs(u.a) + abs(u.f) = 0 THEN 0 ELSE 200 * abs(u.f - u.a) / (abs(u.a) + abs(u.f)) END) AS smape_recent
      FROM (SELECT bf.yhat, bf.actual FROM backtest_forecasts bf
            WHERE bf.pipeline_id = ${P} AND bf.item_id = p.item_id AND bf.site_id = p.site_id AND bf.kind = 'window' AND bf.method = bm.best_method
            ORDER BY bf.origin_week DESC LIMIT 1) lw, unnest(lw.yhat, lw.actual) AS u(f, a)
      WHERE u.a IS NOT NULL AND u.f IS NOT NULL
    ) bw ON true
    LEFT JOIN meio_results mr ON mr.pipeline_id = ${P} AND mr.scenario_id = (SELECT id FROM meio) AND mr.item_id = p.item_id AND mr.site_id = p.site_id
    LEFT JOIN meio_group_results mg ON mg.pipeline_id = ${P} AND mg.scenario_id = (SELECT id FROM meio) AND mg.item_id = p.item_id
    LEFT JOIN item_site isx ON isx.item_id = p.item_id AND isx.site_id = p.site_id
    LEFT JOIN supply_plans sp ON sp.run_id = (SELECT run_id FROM run) AND sp.item_id = p.item_id AND sp.site_id = p.site_id
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE e.type = 'late_order')::int AS late_orders, count(*) FILTER (WHERE e.type = 'below_safety_stock')::int AS below_safety_stock_exceptions,
        count(*) FILTER (WHERE e.type = 'excess')::int AS excess_exceptions, count(*) FILTER (WHERE e.type = 'no_source')::int AS no_source_exceptions
      FROM supply_exceptions e WHERE e.run_id = (SELECT run_id FROM run) AND e.item_id = p.item_id AND e.site_id = p.site_id
    ) ex ON true
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE o2.status = 'constrained')::int AS constrained_orders, count(*) FILTER (WHERE o2.status = 'expedited')::int AS expedited_orders,
        sum(o2.qty) AS order_qty_total, COALESCE(sum((SELECT sum(pg.qty) FROM supply_pegging pg WHERE pg.order_id = o2.order_id)), 0) AS pegged_qty_total
      FROM supply_orders o2 WHERE o2.run_id = (SELECT run_id FROM run) AND o2.item_id = p.item_id AND o2.site_id = p.site_id
    ) so ON true
    ORDER BY p.item_id, p.site_id`)) as Array<Record<string, any>>;
  return rows.map((r) => {
    const f = emptyFacts(r.item_id, r.site_id);
    const hasRun = r.run_id !== null;
    for (const k of Object.keys(f) as Array<keyof SeriesFacts>) {
      if (k === 'item_id' || k === 'site_id' || k === 'has_forecast') continue;
      if (r[k] !== undefined && r[k] !== null) (f as any)[k] = r[k];
    }
    f.has_forecast = r.best_method !== null;
    // Counts over a run are 0, not unknown, for a SKU-site the run planned without trouble; without a run they stay unknown.
    if (!hasRun) {
      for (const k of ['late_orders', 'below_safety_stock_exceptions', 'excess_exceptions', 'no_source_exceptions', 'constrained_orders', 'expedited_orders', 'order_qty_total', 'pegged_qty_total'] as const) f[k] = null;
    } else if (r.order_qty_total === null) {
      f.order_qty_total = null;
      f.pegged_qty_total = null;
    }
    return f;
  });
}

/** What this generation saw of the page's series, for the change rules of the next one. */
export async function saveAlertSeriesState(tx: Tx, pipelineId: number, facts: readonly SeriesFacts[]): Promise<void> {
  if (!facts.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO alert_series_state (pipeline_id, item_id, site_id, best_method, demand_class)
    SELECT ${pipelineId}, * FROM unnest(${sql.array(facts.map((f) => f.item_id), 'int4')}::int4[], ${sql.array(facts.map((f) => f.site_id), 'int4')}::int4[],
      ${sql.array(facts.map((f) => f.best_method), 'text')}::text[], ${sql.array(facts.map((f) => f.demand_class), 'text')}::text[])
    ON CONFLICT (pipeline_id, item_id, site_id) DO UPDATE SET best_method = EXCLUDED.best_method, demand_class = EXCLUDED.demand_class, updated_at = now()`);
}

function itemBounds(keys: ReadonlyArray<{ item_id: number }>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const k of keys) {
    if (k.item_id < lo) lo = k.item_id;
    if (k.item_id > hi) hi = k.item_id;
  }
  return [lo, hi];
}

/**
 * The open alerts of a page of series. The page's item range bounds the read as well as its keys: with the keys alone
 * PostgreSQL took every open alert of the pipeline from the (pipeline, status, metric) index and hashed them against
 * the page, 194 ms a page at 100,000 series; with the range it walks the (pipeline, item, site, metric) key.
 */
export function openAlertsOfPage(pipelineId: number, page: readonly SeriesKey[]) {
  const [lo, hi] = itemBounds(page);
  return sql.fragment`
    SELECT id, item_id, site_id, metric_name FROM alerts
    WHERE pipeline_id = ${pipelineId} AND status = 'open' AND item_id BETWEEN ${lo} AND ${hi}
      AND (item_id, site_id) IN (SELECT * FROM unnest(${sql.array(page.map((k) => k.item_id), 'int4')}::int4[], ${sql.array(page.map((k) => k.site_id), 'int4')}::int4[]))`;
}

/**
 * Writes the alerts of one page. An existing alert of the same (pipeline, series, metric) is updated in place; a
 * decided one (approved or rejected) keeps its status unless the new value is worse than the one decided on, when it
 * opens again and the decision is cleared. `badness` (domain/alerts/evaluate.ts) orders values, larger = worse.
 * Open alerts of the page's series that no longer fire are deleted; decided ones stay as the record of the decision.
 */
export async function upsertAlerts(tx: Tx, pipelineId: number, jobId: string | null, page: readonly SeriesKey[], fired: ReadonlyArray<FiredAlert & { domain: string; badness: number }>): Promise<{ written: number; cleared: number }> {
  let written = 0;
  if (fired.length) {
    const col = <T,>(f: (a: (typeof fired)[number]) => T) => fired.map(f);
    // bounded like openAlertsOfPage, for the same plan without statistics
    const [lo, hi] = itemBounds(fired);
    const rows = (await tx.any(sql.unsafe`
      WITH input AS (
        SELECT * FROM unnest(${sql.array(col((a) => a.item_id), 'int4')}::int4[], ${sql.array(col((a) => a.site_id), 'int4')}::int4[],
          ${sql.array(col((a) => a.metric_name), 'text')}::text[], ${sql.array(col((a) => a.domain), 'text')}::text[],
          ${sql.array(col((a) => a.value), 'float8')}::float8[], ${sql.array(col((a) => a.threshold), 'float8')}::float8[],
          ${sql.array(col((a) => a.comparison), 'text')}::text[], ${sql.array(col((a) => a.severity), 'text')}::text[],
          ${sql.array(col((a) => a.message), 'text')}::text[], ${sql.array(col((a) => a.badness), 'float8')}::float8[])
          AS u(item_id, site_id, metric_name, domain, value, threshold, comparison, severity, message, badness)
      ),
      old AS (
        SELECT a.item_id, a.site_id, a.metric_name, a.status,
          CASE a.comparison WHEN 'abs_gt' THEN abs(a.value) WHEN 'lt' THEN -a.value WHEN 'lte' THEN -a.value ELSE a.value END AS badness
        FROM alerts a JOIN input i USING (item_id, site_id, metric_name)
        WHERE a.pipeline_id = ${pipelineId} AND a.item_id BETWEEN ${lo} AND ${hi}
      )
      INSERT INTO alerts AS a (pipeline_id, item_id, site_id, metric_name, domain, value, threshold, comparison, severity, status, message, job_id)
      SELECT ${pipelineId}, i.item_id, i.site_id, i.metric_name, i.domain, i.value, i.threshold, i.comparison, i.severity,
        CASE WHEN o.status IS NULL OR o.status = 'open' OR i.badness > o.badness THEN 'open' ELSE o.status END, i.message, ${jobId}
      FROM input i LEFT JOIN old o USING (item_id, site_id, metric_name)
      ON CONFLICT (pipeline_id, item_id, site_id, metric_name) DO UPDATE SET
        domain = EXCLUDED.domain, value = EXCLUDED.value, threshold = EXCLUDED.threshold, comparison = EXCLUDED.comparison, severity = EXCLUDED.severity,
        message = EXCLUDED.message, job_id = EXCLUDED.job_id, updated_at = now(), status = EXCLUDED.status,
        decided_by = CASE WHEN EXCLUDED.status = 'open' THEN NULL ELSE a.decided_by END,
        decided_at = CASE WHEN EXCLUDED.status = 'open' THEN NULL ELSE a.decided_at END
      RETURNING a.id`)) as Array<{ id: number }>;
    written = rows.length;
  }
  const firedKeys = new Set(fired.map((a) => `${a.item_id}_${a.site_id}_${a.metric_name}`));
  const stale = page.length ? ((await tx.any(sql.unsafe`${openAlertsOfPage(pipelineId, page)}`)) as Array<{ id: number; item_id: number; site_id: number; metric_name: string }>) : [];
  const clear = stale.filter((a) => !firedKeys.has(`${a.item_id}_${a.site_id}_${a.metric_name}`)).map((a) => a.id);
  if (clear.length) await tx.query(sql.unsafe`DELETE FROM alerts WHERE id = ANY(${sql.array(clear, 'int8')})`);
  return { written, cleared: clear.length };
}

export interface AlertRow {
  id: number;
  pipeline_id: number;
  item_id: number;
  site_id: number;
  unique_id: string;
  metric_name: string;
  domain: string;
  value: number;
  threshold: number;
  comparison: string;
  severity: string;
  status: AlertStatus;
  message: string;
  job_id: string | null;
  created_at: string;
  updated_at: string;
  decided_by: string | null;
  decided_at: string | null;
}

const ALERT_COLUMNS = sql.fragment`a.id, a.pipeline_id, a.item_id, a.site_id, (a.item_id::text || '_' || a.site_id::text) AS unique_id, a.metric_name, a.domain,
  a.value, a.threshold, a.comparison, a.severity, a.status, a.message, a.job_id, a.created_at, a.updated_at, a.decided_by, a.decided_at`;

export interface AlertListFilter {
  pipelineId: number;
  series: SeriesFilter;
  status?: AlertStatus;
  metric?: string;
  severity?: string;
  value?: { op: 'gt' | 'gte' | 'lt' | 'lte'; value: number };
  /** the series' demand class (series_characteristics of the alert's pipeline) is one of these; an uncharacterized series never matches */
  demandClass?: readonly string[];
}

function alertWhere(f: AlertListFilter) {
  const parts = [sql.fragment`a.pipeline_id = ${f.pipelineId}`, filterSql(f.series)];
  if (f.status) parts.push(sql.fragment`a.status = ${f.status}`);
  if (f.metric) parts.push(sql.fragment`a.metric_name = ${f.metric}`);
  if (f.severity) parts.push(sql.fragment`a.severity = ${f.severity}`);
  if (f.value) {
    const op = { gt: sql.fragment`>`, gte: sql.fragment`>=`, lt: sql.fragment`<`, lte: sql.fragment`<=` }[f.value.op];
    parts.push(sql.fragment`a.value ${op} ${f.value.value}`);
  }
  if (f.demandClass?.length) {
    parts.push(sql.fragment`EXISTS (SELECT 1 FROM series_characteristics sc
      WHERE sc.pipeline_id = a.pipeline_id AND sc.item_id = a.item_id AND sc.site_id = a.site_id AND sc.demand_class = ANY(${sql.array([...f.demandClass], 'text')}))`);
  }
  return sql.join(parts, sql.fragment` AND `);
}

/** `s` is the alert's SKU-site, so the caller's and the segments' series filters apply as on any series list. */
export async function listAlerts(tx: Tx, f: AlertListFilter, page: { page: number; pageSize: number }): Promise<{ total: number; items: AlertRow[] }> {
  const from = sql.fragment`alerts a CROSS JOIN LATERAL (SELECT a.item_id, a.site_id) s`;
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${from} WHERE ${alertWhere(f)}`)) as number;
  const items = (await tx.any(sql.unsafe`
    SELECT ${ALERT_COLUMNS} FROM ${from} WHERE ${alertWhere(f)}
    ORDER BY a.pipeline_id, CASE a.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END, a.id
    LIMIT ${page.pageSize} OFFSET ${(page.page - 1) * page.pageSize}`)) as AlertRow[];
  return { total, items: [...items] };
}

export async function getAlerts(tx: Tx, ids: readonly number[]): Promise<AlertRow[]> {
  return [...((await tx.any(sql.unsafe`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.id = ANY(${sql.array([...ids], 'int8')}) ORDER BY a.id FOR UPDATE`)) as AlertRow[])];
}

export async function decideAlerts(tx: Tx, ids: readonly number[], status: 'approved' | 'rejected', by: string): Promise<AlertRow[]> {
  return [...((await tx.any(sql.unsafe`
    UPDATE alerts a SET status = ${status}, decided_by = ${by}, decided_at = now(), updated_at = now()
    WHERE a.id = ANY(${sql.array([...ids], 'int8')}) RETURNING ${ALERT_COLUMNS}`)) as AlertRow[])].sort((x, y) => x.id - y.id);
}

export async function segmentIdByName(tx: Tx, name: string): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM segments WHERE lower(name) = lower(${name}) ORDER BY id LIMIT 1`)) as number | null;
}

/** The ids among `ids` whose SKU-site passes the series filter (the caller's segments). */
export async function visibleAlertIds(tx: Tx, ids: readonly number[], series: SeriesFilter): Promise<Set<number>> {
  return new Set((await tx.anyFirst(sql.unsafe`
    SELECT a.id FROM alerts a CROSS JOIN LATERAL (SELECT a.item_id, a.site_id) s
    WHERE a.id = ANY(${sql.array([...ids], 'int8')}) AND ${filterSql(series)}`)) as number[]);
}
