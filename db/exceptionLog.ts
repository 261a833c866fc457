/**
 * The exception log (spec §2.4, §4.11; docs/EXCEPTIONS.md): the facts the forecast and io rules read, the supply
 * run's issues, the per-series issues built from both (the log's refresh and GET /api/exceptions share them), the
 * refresh that merges fresh issues into the planner's rows, and the reads of the list, the preload and the inline details.
 */
import type { ForecastFacts, Issue, IoFacts } from '../domain/exceptions/rules';
import { combineSeriesIssues, type IssueCounts, type SeriesIssues, type SeriesKey } from '../domain/exceptions/series';
import { inKeyRange, rangesCutAt, type KeyRange } from '../domain/series/keys';
import { sql, type Tx } from './pool';
import { tenantPreparedQuery } from './preparedReads';
import { keysIn } from './seriesSteps';
import type { Fragment } from './segments';
import { filterSql, type SeriesFilter } from './series';

export type { SeriesKey } from '../domain/exceptions/series';
export type { KeyRange } from '../domain/series/keys';

/**
 * Which series a read covers: every series of the pipeline (omitted), one series (`key`, read through the tables'
 * keys, so a single-series read does not scan the pipeline), and/or the series passing a list filter (`filter`: the
 * caller's segments, the pipeline's segments).
 */
export interface SeriesSelection {
  key?: SeriesKey;
  /** these series only (a run of a few series refreshes only theirs) */
  keys?: readonly SeriesKey[];
  /** the series from `from` (inclusive) to `to` (exclusive) in key order; a null end is open */
  range?: KeyRange;
  filter?: SeriesFilter;
}

/** `alias`'s key within the range, with the bounds on item_id alone too, so the keys' index narrows on its first column. */
function inRangeCond(a: ReturnType<typeof sql.identifier>, r: KeyRange): Fragment {
  const from = r.from ? sql.fragment`(${a}.item_id, ${a}.site_id) >= (${r.from.item_id}, ${r.from.site_id}) AND ${a}.item_id >= ${r.from.item_id}` : sql.fragment`TRUE`;
  const to = r.to ? sql.fragment`(${a}.item_id, ${a}.site_id) < (${r.to.item_id}, ${r.to.site_id}) AND ${a}.item_id <= ${r.to.item_id}` : sql.fragment`TRUE`;
  return sql.fragment`${from} AND ${to}`;
}

/** `alias.item_id, alias.site_id` is the selection's series (key part only). */
function keyCond(alias: string, sel: SeriesSelection | undefined): Fragment {
  const a = sql.identifier([alias]);
  const one = sel?.key ? sql.fragment`${a}.item_id = ${sel.key.item_id} AND ${a}.site_id = ${sel.key.site_id}` : sql.fragment`TRUE`;
  const some = sel?.keys ? sql.fragment`${one} AND ${keysIn(sel.keys, alias)}` : one;
  return sel?.range ? sql.fragment`${some} AND ${inRangeCond(a, sel.range)}` : some;
}

/** The whole selection as a condition on `alias`: its key and its list filter. */
function selectionCond(alias: string, sel: SeriesSelection | undefined): Fragment {
  const a = sql.identifier([alias]);
  const filter = sel?.filter ? sql.fragment`EXISTS (SELECT 1 FROM (SELECT ${a}.item_id, ${a}.site_id) s WHERE ${filterSql(sel.filter)})` : sql.fragment`TRUE`;
  return sql.fragment`${keyCond(alias, sel)} AND ${filter}`;
}

/** Every series with a forecast result of the pipeline (of the selection), with what the forecast rules read of it. */
export async function forecastFacts(tx: Tx, pipelineId: number, sel?: SeriesSelection): Promise<Array<SeriesKey & ForecastFacts>> {
  const rows = await tx.any(sql.unsafe`
    WITH keys AS (
      SELECT x.item_id, x.site_id FROM series_best_method x WHERE x.pipeline_id = ${pipelineId} AND ${keyCond('x', sel)}
      UNION SELECT x.item_id, x.site_id FROM forecast_results x WHERE x.pipeline_id = ${pipelineId} AND ${keyCond('x', sel)}
      UNION SELECT x.item_id, x.site_id FROM backtest_metrics x WHERE x.pipeline_id = ${pipelineId} AND ${keyCond('x', sel)}
    )
    SELECT k.item_id, k.site_id, b.best_method, m.mase, m.bias, c.mean
    FROM keys k
    LEFT JOIN series_best_method b ON b.pipeline_id = ${pipelineId} AND b.item_id = k.item_id AND b.site_id = k.site_id
    LEFT JOIN backtest_metrics m ON m.pipeline_id = ${pipelineId} AND m.item_id = k.item_id AND m.site_id = k.site_id AND m.method = b.best_method
    LEFT JOIN series_characteristics c ON c.pipeline_id = ${pipelineId} AND c.item_id = k.item_id AND c.site_id = k.site_id
    WHERE ${selectionCond('k', sel)}
    ORDER BY k.item_id, k.site_id`);
  return rows as unknown as Array<SeriesKey & ForecastFacts>;
}

/**
 * The io facts of the pipeline's MEIO results in one scenario: the default MEIO scenario when it has results, else the
 * pipeline's lowest-numbered scenario with results (one answer per SKU-site, never a mix of scenarios). The scenario is
 * chosen over the whole pipeline whatever the selection, so one series reads the scenario the full read does.
 */
export async function ioFacts(tx: Tx, pipelineId: number, sel?: SeriesSelection): Promise<Array<SeriesKey & IoFacts>> {
  const rows = await tx.any(sql.unsafe`
    WITH sc AS (
      SELECT r.scenario_id FROM meio_results r JOIN meio_scenarios s ON s.id = r.scenario_id
      WHERE r.pipeline_id = ${pipelineId} ORDER BY s.is_default DESC, r.scenario_id LIMIT 1
    )
    SELECT r.item_id, r.site_id, r.meets_target, r.target_service, r.expected_fill_rate, r.diagnostics
    FROM meio_results r JOIN sc ON sc.scenario_id = r.scenario_id
    WHERE r.pipeline_id = ${pipelineId} AND ${selectionCond('r', sel)} ORDER BY r.item_id, r.site_id`);
  return rows as unknown as Array<SeriesKey & IoFacts>;
}

/**
 * The supply issues of run `runId` per SKU-site (of the selection): its exceptions as they are, type → code. The one
 * statement behind both the refresh (POST /api/supply/sync-alerts and the log's generation) and GET /api/exceptions.
 */
function supplyIssuesQuery(runId: string | null, sel?: SeriesSelection): Fragment {
  return sql.fragment`
    SELECT e.item_id, e.site_id, jsonb_agg(jsonb_build_object(
      'type', 'supply', 'code', e.type, 'severity', e.severity, 'description', e.description, 'week', e.week, 'end_week', e.end_week,
      'qty', e.qty, 'order_id', e.order_id, 'run_id', e.run_id) ORDER BY e.week, e.id) AS issues
    FROM supply_exceptions e WHERE e.run_id = ${runId} AND ${selectionCond('e', sel)} GROUP BY e.item_id, e.site_id`;
}

export async function supplyIssues(tx: Tx, runId: string | null, sel?: SeriesSelection): Promise<SeriesIssues[]> {
  if (runId === null) return [];
  return [...((await tx.any(sql.unsafe`${supplyIssuesQuery(runId, sel)} ORDER BY e.item_id, e.site_id`)) as unknown as SeriesIssues[])];
}

/**
 * The issues of every SKU-site of the pipeline (of the selection) that has any: the forecast and io rules over the
 * pipeline's results and the exceptions of supply run `supplyRunId` (none when null). What the exception log stores
 * (activities/exceptionLog) and what GET /api/exceptions shows.
 */
export async function seriesIssues(
  tx: Tx, pipelineId: number, supplyRunId: string | null, sel?: SeriesSelection,
): Promise<{ series: SeriesIssues[]; counts: IssueCounts }> {
  return combineSeriesIssues(await forecastFacts(tx, pipelineId, sel), await ioFacts(tx, pipelineId, sel), await supplyIssues(tx, supplyRunId, sel));
}

export interface RefreshResult {
  sku_sites_with_issues: number;
  created: number;
  updated: number;
  reopened: number;
  cleared: number;
}

/**
 * Replaces the issues of kinds `kinds` (default: forecast, io and supply) of the pipeline's rows (of the selection:
 * rows outside it are left as they are) with `fresh` plus the exceptions of supply run `supplyRunId` (none when
 * null); POST /api/supply/sync-alerts is this with the supply kind alone, the log's generation passes every kind in
 * `fresh` (seriesIssues) and no run. The planner's status is kept: a
 * resolved row opens again only when an issue appears that it did not have (same type, code, week and order), a snoozed
 * row stays snoozed until its date and opens after it, a row left without issues is resolved. Without a selection of
 * keys it goes key range by key range (`chunkSeries` SKU-sites each) in the caller's transaction.
 */
export async function refreshExceptionLog(
  tx: Tx, pipelineId: number, fresh: ReadonlyArray<SeriesKey & { issues: Issue[] }>, supplyRunId: string | null,
  kinds: readonly string[] = LOG_KINDS, sel?: SeriesSelection, chunkSeries = REFRESH_CHUNK_SERIES,
): Promise<RefreshResult> {
  let total = NOTHING_REFRESHED;
  for (const part of await selectionParts(tx, sel, chunkSeries)) {
    const own = part.range ? fresh.filter((f) => inKeyRange(f, part.range!)) : fresh;
    total = addRefreshes(total, await refreshSelection(tx, pipelineId, own, supplyRunId, kinds, part));
  }
  return total;
}

/** The kinds of issue the log's generation owns; the service backtest's `service` is refreshed on its own. */
const LOG_KINDS = ['forecast', 'io', 'supply'] as const;

/**
 * Series per statement of a whole-pipeline refresh. One statement over 100,000 series (a JSON parameter of every
 * series' issues, aggregated and joined in one go) grew a PostgreSQL backend to 0.8-0.95 GiB in bench:week; a few
 * thousand keep each statement's parameter and aggregates to a few MB whatever the pipeline's size.
 */
export const REFRESH_CHUNK_SERIES = 5000;

const NOTHING_REFRESHED: RefreshResult = { sku_sites_with_issues: 0, created: 0, updated: 0, reopened: 0, cleared: 0 };

const addRefreshes = (a: RefreshResult, b: RefreshResult): RefreshResult => ({
  sku_sites_with_issues: a.sku_sites_with_issues + b.sku_sites_with_issues, created: a.created + b.created,
  updated: a.updated + b.updated, reopened: a.reopened + b.reopened, cleared: a.cleared + b.cleared,
});

/**
 * Key ranges that together cover every key, each holding at most `size` of the tenant's SKU-sites (its series and its
 * item-site rows: supply issues can be on an item-site without demand history).
 */
export async function seriesKeyRanges(tx: Tx, size: number): Promise<KeyRange[]> {
  const cuts = (await tx.any(sql.unsafe`
    SELECT item_id, site_id FROM (
      SELECT item_id, site_id, row_number() OVER (ORDER BY item_id, site_id) AS n
      FROM (SELECT item_id, site_id FROM series UNION SELECT item_id, site_id FROM item_site) k
    ) s WHERE n > 1 AND (n - 1) % ${size} = 0 ORDER BY item_id, site_id`)) as unknown as SeriesKey[];
  return rangesCutAt(cuts);
}

/**
 * The exception log's generation over the pipeline (or the selection): the issues of each key range and the refresh
 * of its rows, range after range in the caller's transaction, so neither this process nor a PostgreSQL backend ever
 * holds the whole pipeline's issues. `onRange` hears of each range done.
 */
export async function generateExceptionLog(
  tx: Tx, pipelineId: number, supplyRunId: string | null, sel?: SeriesSelection,
  opts: { chunkSeries?: number; onRange?: (done: number, total: number) => void } = {},
): Promise<{ result: RefreshResult; counts: IssueCounts }> {
  const parts = await selectionParts(tx, sel, opts.chunkSeries ?? REFRESH_CHUNK_SERIES);
  let result = NOTHING_REFRESHED;
  const counts: IssueCounts = { forecast: 0, io: 0, supply: 0 };
  for (const [i, part] of parts.entries()) {
    const issues = await seriesIssues(tx, pipelineId, supplyRunId, part);
    for (const k of LOG_KINDS) counts[k] += issues.counts[k];
    // every kind is in `series` already, so the refresh reads no supply run of its own
    result = addRefreshes(result, await refreshSelection(tx, pipelineId, issues.series, null, LOG_KINDS, part));
    opts.onRange?.(i + 1, parts.length);
  }
  return { result, counts };
}

/** A selection of keys as it is (a few series), anything wider cut into key ranges of `chunkSeries` SKU-sites. */
async function selectionParts(tx: Tx, sel: SeriesSelection | undefined, chunkSeries: number): Promise<SeriesSelection[]> {
  if (sel?.key || sel?.keys || sel?.range) return [sel];
  return (await seriesKeyRanges(tx, chunkSeries)).map((range) => ({ ...sel, range }));
}

async function refreshSelection(
  tx: Tx, pipelineId: number, fresh: ReadonlyArray<SeriesKey & { issues: Issue[] }>, supplyRunId: string | null,
  kinds: readonly string[], sel?: SeriesSelection,
): Promise<RefreshResult> {
  const payload = JSON.stringify(fresh.filter((f) => f.issues.length));
  const owned = sql.array(kinds, 'text');
  return (await tx.one(sql.unsafe`
    WITH derived AS (
      SELECT r.item_id, r.site_id, r.issues FROM jsonb_to_recordset(${payload}::jsonb) AS r(item_id int4, site_id int4, issues jsonb)
    ),
    supply AS (${supplyIssuesQuery(supplyRunId, sel)}),
    fresh AS (
      SELECT item_id, site_id, jsonb_agg(x ORDER BY ord, n) AS issues
      FROM (SELECT d.item_id, d.site_id, x, 0 AS ord, n FROM derived d, jsonb_array_elements(d.issues) WITH ORDINALITY AS a(x, n)
            UNION ALL SELECT s.item_id, s.site_id, x, 1, n FROM supply s, jsonb_array_elements(s.issues) WITH ORDINALITY AS a(x, n)) u
      GROUP BY item_id, site_id
    ),
    keys AS (
      SELECT item_id, site_id FROM fresh
      UNION SELECT x.item_id, x.site_id FROM exception_log x WHERE x.pipeline_id = ${pipelineId} AND x.exception_types && ${owned}::text[] AND ${selectionCond('x', sel)}
    ),
    joined AS (
      SELECT k.item_id, k.site_id, l.status AS old_status, l.snoozed_until,
        COALESCE((SELECT jsonb_agg(x) FROM jsonb_array_elements(l.issues) x WHERE NOT (x->>'type' = ANY(${owned}::text[]))), '[]') || COALESCE(f.issues, '[]') AS issues,
        EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(f.issues, '[]')) n WHERE NOT EXISTS (
          SELECT 1 FROM jsonb_array_elements(COALESCE(l.issues, '[]')) o
          WHERE o->>'type' = n->>'type' AND o->>'code' IS NOT DISTINCT FROM n->>'code' AND o->>'week' IS NOT DISTINCT FROM n->>'week'
            AND o->>'end_week' IS NOT DISTINCT FROM n->>'end_week')) AS has_new
      FROM keys k
      LEFT JOIN fresh f ON f.item_id = k.item_id AND f.site_id = k.site_id
      LEFT JOIN exception_log l ON l.pipeline_id = ${pipelineId} AND l.item_id = k.item_id AND l.site_id = k.site_id
    ),
    merged AS (
      SELECT j.*, CASE WHEN jsonb_array_length(j.issues) = 0 THEN 'resolved'
          WHEN j.old_status = 'snoozed' AND j.snoozed_until >= current_date THEN 'snoozed'
          WHEN j.old_status = 'snoozed' THEN 'open'
          WHEN j.has_new THEN 'open'
          ELSE COALESCE(j.old_status, 'open') END AS status
      FROM joined j
    ),
    written AS (
      INSERT INTO exception_log (pipeline_id, item_id, site_id, exception_types, issues, status)
      SELECT ${pipelineId}, m.item_id, m.site_id,
        COALESCE((SELECT array_agg(DISTINCT x->>'type' ORDER BY x->>'type') FROM jsonb_array_elements(m.issues) x), '{}'), m.issues, m.status
      FROM merged m
      ON CONFLICT (pipeline_id, item_id, site_id) DO UPDATE SET
        exception_types = EXCLUDED.exception_types, issues = EXCLUDED.issues, status = EXCLUDED.status,
        snoozed_until = CASE WHEN EXCLUDED.status = 'snoozed' THEN exception_log.snoozed_until END, updated_at = now()
      RETURNING (xmax = 0) AS created, status, jsonb_array_length(issues) AS n_issues
    )
    SELECT count(*) FILTER (WHERE n_issues > 0)::int AS sku_sites_with_issues, count(*) FILTER (WHERE created)::int AS created,
      count(*) FILTER (WHERE NOT created)::int AS updated,
      (SELECT count(*)::int FROM merged WHERE old_status IN ('resolved', 'snoozed') AND status = 'open') AS reopened,
      count(*) FILTER (WHERE n_issues = 0)::int AS cleared
    FROM written`)) as RefreshResult;
}

export type ExceptionStatus = 'open' | 'resolved' | 'snoozed';

export interface ExceptionLogFilter {
  pipelineId: number;
  status?: ExceptionStatus;
  types?: string[];
  segmentId?: number;
  itemIds?: number[];
}

const ITEM_COLUMNS = sql.fragment`
  l.id, l.pipeline_id, l.item_id, l.site_id, l.exception_types, l.issues, l.status, l.snoozed_until::text AS snoozed_until,
  i.name AS item_name, i.xuid AS item_code, s.name AS site_name, (l.item_id::text || '_' || l.site_id::text) AS unique_id,
  l.created_at, l.updated_at`;

export interface ExceptionLogRow {
  id: number;
  pipeline_id: number;
  item_id: number;
  site_id: number;
  exception_types: string[];
  issues: Issue[];
  status: ExceptionStatus;
  snoozed_until: string | null;
  item_name: string;
  item_code: string;
  site_name: string;
  unique_id: string;
}

function where(f: ExceptionLogFilter) {
  const w = [sql.fragment`l.pipeline_id = ${f.pipelineId}`];
  if (f.status) w.push(sql.fragment`l.status = ${f.status}`);
  if (f.types?.length) w.push(sql.fragment`l.exception_types && ${sql.array(f.types, 'text')}`);
  if (f.segmentId !== undefined) {
    w.push(sql.fragment`EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${f.segmentId} AND m.item_id = l.item_id AND m.site_id = l.site_id)`);
  }
  if (f.itemIds) w.push(sql.fragment`l.item_id = ANY(${sql.array(f.itemIds, 'int4')})`);
  return sql.join(w.map((x) => sql.fragment`(${x})`), sql.fragment` AND `);
}

export async function listExceptionLog(tx: Tx, f: ExceptionLogFilter, skip: number, limit: number): Promise<{ rows: ExceptionLogRow[]; total: number }> {
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM exception_log l WHERE ${where(f)}`)) as number;
  const rows = await tx.any(sql.unsafe`
    SELECT ${ITEM_COLUMNS} FROM exception_log l JOIN items i ON i.id = l.item_id JOIN sites s ON s.id = l.site_id
    WHERE ${where(f)} ORDER BY l.item_id, l.site_id OFFSET ${skip} LIMIT ${limit}`);
  return { rows: rows as unknown as ExceptionLogRow[], total };
}

/**
 * GET /api/exception-log in one round trip and no transaction: whether the pipeline (and the segment, when given)
 * exist, and the answer's body `{total, page, page_size, items}` as JSON text, from one prepared statement on the
 * tenant's connections (db/preparedReads.ts tenantPreparedQuery). The planner's list is the hot read of the work
 * queue, and the API's one thread was its limit (bench:alerts, CPU profile: parsing the rows and serialising them
 * again cost more than the statement), so the text goes out as PostgreSQL wrote it. For an unknown pipeline or segment
 * the flags say so.
 */
export async function exceptionLogPage(
  databaseUrl: string, accountId: string, f: { pipelineId: number; status?: ExceptionStatus; types?: string[]; segmentId?: number },
  page: { page: number; pageSize: number },
): Promise<{ pipeline: boolean; segment: boolean; body: string }> {
  // Only the filters given are in the text, so each set of filters is a statement with a plan of its own (the segment
  // filter a semi join, not a probe per row). The count and the page each scan on their own, the page in key order,
  // ordering ids only and reading its rows' issues after.
  const where = sql.join([
    sql.fragment`l.pipeline_id = ${f.pipelineId}`,
    ...(f.status !== undefined ? [sql.fragment`l.status = ${f.status}`] : []),
    ...(f.types !== undefined ? [sql.fragment`l.exception_types && ${sql.array(f.types, 'text')}`] : []),
    ...(f.segmentId !== undefined
      ? [sql.fragment`EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${f.segmentId} AND m.item_id = l.item_id AND m.site_id = l.site_id)`]
      : []),
  ], sql.fragment` AND `);
  const skip = Math.min((page.page - 1) * page.pageSize, 2147483647);
  const [r] = await tenantPreparedQuery<{ pipeline: boolean; segment: boolean; body: string }>(databaseUrl, accountId, sql.unsafe`
    SELECT EXISTS (SELECT 1 FROM scenario_pipelines WHERE id = ${f.pipelineId}) AS pipeline,
      ${f.segmentId === undefined ? sql.fragment`true` : sql.fragment`EXISTS (SELECT 1 FROM segments WHERE id = ${f.segmentId})`} AS segment,
      json_build_object(
        'total', (SELECT count(*)::int FROM exception_log l WHERE ${where}), 'page', ${page.page}::int, 'page_size', ${page.pageSize}::int,
        'items', COALESCE((SELECT json_agg(x ORDER BY x.item_id, x.site_id) FROM (
          SELECT l.id, l.pipeline_id, l.item_id, l.site_id, l.exception_types, l.issues, l.status, l.snoozed_until::text AS snoozed_until,
            i.name AS item_name, i.xuid AS item_code, s.name AS site_name, (l.item_id::text || '_' || l.site_id::text) AS unique_id
          FROM (SELECT l.id FROM exception_log l WHERE ${where} ORDER BY l.item_id, l.site_id OFFSET ${skip} LIMIT ${page.pageSize}) k
          JOIN exception_log l ON l.id = k.id
          JOIN items i ON i.id = l.item_id JOIN sites s ON s.id = l.site_id) x), '[]')
      )::text AS body`);
  return r;
}

export async function getExceptionLogRow(tx: Tx, id: number): Promise<ExceptionLogRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${ITEM_COLUMNS} FROM exception_log l JOIN items i ON i.id = l.item_id JOIN sites s ON s.id = l.site_id WHERE l.id = ${id}`)) as ExceptionLogRow | null;
}

export async function setExceptionStatus(tx: Tx, id: number, status: ExceptionStatus, snoozedUntil: string | null): Promise<void> {
  await tx.query(sql.unsafe`UPDATE exception_log SET status = ${status}, snoozed_until = ${snoozedUntil}::date, updated_at = now() WHERE id = ${id}`);
}

/** The series' last `weeks` weeks of clean demand and the pipeline's best-method forecast. */
export async function forecastDetail(tx: Tx, pipelineId: number, k: SeriesKey, weeks: number) {
  const history = await tx.any(sql.unsafe`
    SELECT week::text AS week, y FROM (SELECT week, y FROM series_weekly WHERE item_id = ${k.item_id} AND site_id = ${k.site_id} ORDER BY week DESC LIMIT ${weeks}) h
    ORDER BY week`);
  const best = await tx.maybeOne(sql.unsafe`
    SELECT b.best_method, b.best_score, b.metric, f.start_week::text AS start_week, f.yhat, f.yhat_lower, f.yhat_upper, f.level,
      m.mase, m.bias, m.smape, m.mae
    FROM series_best_method b
    LEFT JOIN forecast_results f ON f.pipeline_id = b.pipeline_id AND f.item_id = b.item_id AND f.site_id = b.site_id AND f.method = b.best_method
    LEFT JOIN backtest_metrics m ON m.pipeline_id = b.pipeline_id AND m.item_id = b.item_id AND m.site_id = b.site_id AND m.method = b.best_method
    WHERE b.pipeline_id = ${pipelineId} AND b.item_id = ${k.item_id} AND b.site_id = ${k.site_id}`);
  return { history: [...history], best };
}

export async function ioDetail(tx: Tx, pipelineId: number, k: SeriesKey) {
  return tx.any(sql.unsafe`
    SELECT r.scenario_id, r.policy, r.service_type, r.target_service, r.expected_fill_rate, r.expected_csl, r.safety_stock, r.reorder_point,
      r.order_up_to, r.order_qty, r.weekly_mean, r.weekly_std, r.lead_time_weeks, r.investment, r.meets_target, r.diagnostics
    FROM meio_results r WHERE r.pipeline_id = ${pipelineId} AND r.item_id = ${k.item_id} AND r.site_id = ${k.site_id} ORDER BY r.scenario_id`);
}

export async function supplyDetail(tx: Tx, runId: string, k: SeriesKey) {
  const plan = await tx.maybeOne(sql.unsafe`
    SELECT opening, demand, indirect, gross, receipts_firm, receipts_planned, projected, safety_stock, shortage, fill_rate, shortage_qty
    FROM supply_plans WHERE run_id = ${runId} AND item_id = ${k.item_id} AND site_id = ${k.site_id}`);
  const exceptions = await tx.any(sql.unsafe`
    SELECT id, type, week, end_week, qty, severity, description, order_id FROM supply_exceptions
    WHERE run_id = ${runId} AND item_id = ${k.item_id} AND site_id = ${k.site_id} ORDER BY week, id`);
  return { plan, exceptions: [...exceptions] };
}

/** What the list screen shows inline beside each row, for many items at once. */
export async function preloadFacts(tx: Tx, pipelineId: number, itemIds: number[]) {
  return tx.any(sql.unsafe`
    SELECT l.item_id, l.site_id, b.best_method, m.mase, m.bias, f.start_week::text AS start_week, f.yhat[1:13] AS forecast_13w,
      r.target_service, r.expected_fill_rate, r.safety_stock, r.meets_target
    FROM exception_log l
    LEFT JOIN series_best_method b ON b.pipeline_id = l.pipeline_id AND b.item_id = l.item_id AND b.site_id = l.site_id
    LEFT JOIN backtest_metrics m ON m.pipeline_id = l.pipeline_id AND m.item_id = l.item_id AND m.site_id = l.site_id AND m.method = b.best_method
    LEFT JOIN forecast_results f ON f.pipeline_id = l.pipeline_id AND f.item_id = l.item_id AND f.site_id = l.site_id AND f.method = b.best_method
    LEFT JOIN LATERAL (SELECT * FROM meio_results r WHERE r.pipeline_id = l.pipeline_id AND r.item_id = l.item_id AND r.site_id = l.site_id ORDER BY r.scenario_id LIMIT 1) r ON true
    WHERE l.pipeline_id = ${pipelineId} AND l.item_id = ANY(${sql.array(itemIds, 'int4')})
    ORDER BY l.item_id, l.site_id`);
}
