import { seriesIssues, type SeriesKey } from '../../../db/exceptionLog';
import { activeSnoozes, databaseToday, deleteSnooze, getSnooze, seriesLabels, upsertSnooze, type SnoozeRow } from '../../../db/exceptionSnoozes';
import { withTenant, type Tx } from '../../../db/pool';
import { seriesExists } from '../../../db/segments';
import { latestSupplyRun } from '../../../db/supplyReads';
import { defaultSupplyScenarioId, getSupplyScenario } from '../../../db/supplyScenarios';
import { EXCEPTION_TYPES } from '../../../domain/exceptions/rules';
import { compareExceptions, exceptionsByType, withSnoozes, type SeriesException } from '../../../domain/exceptions/series';
import type { AuthUser } from '../../context';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { pipelineIdQuery } from '../forecasts/schemas';
import { listFilter, resultsPipelineOr404 } from '../forecasts/scope';
import { errors, int4, nullable, obj, out, skipParam } from '../schemas';
import { parseUniqueId, uniqueIdSchema, visibleSeries } from '../segments/access';
import type { JsonSchema } from '../validation';

const TYPES = [...EXCEPTION_TYPES];
const SEVERITIES = ['high', 'medium', 'low'];

const RULES = 'Each item is one series (SKU-site) and one type: `forecast` and `io` issues come from the rules of the exception log '
  + '(domain/exceptions/rules.ts) applied live to the pipeline\'s results, `supply` issues are the exceptions of the pipeline\'s newest '
  + 'completed supply run in the supply scenario; `severity` is the highest of the item\'s issues. Rules and thresholds: docs/EXCEPTIONS.md.';
const SCOPE = '`pipeline_id` omitted: the default pipeline (as GET /api/alerts); `scenario_id` is the supply scenario whose newest completed run '
  + 'gives the supply issues (omitted: the default supply scenario; no supply issues without a completed run); 404 for an unknown pipeline or scenario.';
const SNOOZE_RULE = 'A snooze hides one series and type from GET /api/exceptions until and including `until_date` (the database\'s date), '
  + 'for every pipeline; after that date the item shows again. Snoozes are per series and type, not per issue.';

const scenarioIdQuery: JsonSchema = { ...int4(1), description: 'the supply scenario whose newest completed run gives the supply issues; omitted: the default supply scenario; 404 when unknown' };
const excType: JsonSchema = { type: 'string', enum: TYPES, description: 'forecast, io or supply' };

const issueSchema = out({ type: { type: 'string', enum: TYPES }, code: { type: 'string' }, severity: { type: 'string' }, description: { type: 'string' } });
const itemSchema = out({
  unique_id: { type: 'string' }, item_id: { type: 'integer' }, site_id: { type: 'integer' }, item_code: { type: 'string' }, item_name: { type: 'string' },
  site_name: { type: 'string' }, exc_type: excType, severity: { type: 'string', enum: SEVERITIES, description: 'highest severity of the issues' },
  issues: { type: 'array', items: issueSchema, minItems: 1 },
  snoozed_until: { ...nullable({ type: 'string', format: 'date' }), description: 'the snooze in force (null: not snoozed)' },
});
const scopeProps = {
  pipeline_id: { type: 'integer', description: 'the pipeline whose results were read' },
  scenario_id: { ...nullable({ type: 'integer' }), description: 'the supply scenario (null only when the tenant has none)' },
  supply_run_id: { ...nullable({ type: 'string' }), description: 'the supply run whose exceptions are the supply issues; null: none completed' },
};
const listResponse = out({
  total: { type: 'integer', description: 'items matching the filters' }, skip: { type: 'integer' }, limit: { type: 'integer' },
  ...scopeProps, items: { type: 'array', items: itemSchema },
});
const oneResponse = out({ unique_id: { type: 'string' }, ...scopeProps, items: { type: 'array', items: itemSchema } });
const snoozeSchema = out({
  unique_id: { type: 'string' }, item_id: { type: 'integer' }, site_id: { type: 'integer' }, exc_type: excType,
  until_date: { type: 'string', format: 'date' }, created_by: { type: 'string' }, created_at: { type: 'string' },
});
const snoozeParams = obj({ unique_id: uniqueIdSchema, exc_type: excType }, ['unique_id', 'exc_type']);

interface Scope {
  pipelineId: number;
  segmentIds: number[];
  scenarioId: number | null;
  runId: string | null;
}

async function scopeOf(tx: Tx, q: { pipeline_id?: number; scenario_id?: number }): Promise<Scope> {
  const p = await resultsPipelineOr404(tx, q.pipeline_id);
  let scenarioId: number | null;
  if (q.scenario_id !== undefined) {
    if (!(await getSupplyScenario(tx, q.scenario_id))) throw notFound(`scenario_id: supply scenario ${q.scenario_id} not found`);
    scenarioId = q.scenario_id;
  } else {
    scenarioId = await defaultSupplyScenarioId(tx);
  }
  const run = scenarioId === null ? null : await latestSupplyRun(tx, p.id, scenarioId);
  return { pipelineId: p.id, segmentIds: p.segmentIds, scenarioId, runId: run?.run_id ?? null };
}

const scopeView = (s: Scope) => ({ pipeline_id: s.pipelineId, scenario_id: s.scenarioId, supply_run_id: s.runId });

/** The exceptions of the selected series with their snoozes, most severe first. */
async function computed(tx: Tx, scope: Scope, sel: { key?: SeriesKey; user?: AuthUser }) {
  const filter = sel.user ? await listFilter(tx, sel.user, { segmentIds: scope.segmentIds }) : undefined;
  const { series } = await seriesIssues(tx, scope.pipelineId, scope.runId, { key: sel.key, filter });
  return withSnoozes(exceptionsByType(series), await activeSnoozes(tx, sel.key)).sort(compareExceptions);
}

async function labelled(tx: Tx, items: Array<SeriesException & { snoozed_until: string | null }>) {
  const labels = new Map((await seriesLabels(tx, items)).map((l) => [`${l.item_id}_${l.site_id}`, l]));
  return items.map((e) => {
    const l = labels.get(`${e.item_id}_${e.site_id}`);
    return {
      unique_id: `${e.item_id}_${e.site_id}`, item_id: e.item_id, site_id: e.site_id, item_code: l?.item_code ?? '', item_name: l?.item_name ?? '',
      site_name: l?.site_name ?? '', exc_type: e.exc_type, severity: e.severity, issues: e.issues, snoozed_until: e.snoozed_until,
    };
  });
}

const keyOf = (uid: string): SeriesKey => {
  const { itemId, siteId } = parseUniqueId(uid);
  return { item_id: itemId, site_id: siteId };
};
const snoozeAudit = (r: SnoozeRow | null) => (r ? { until_date: r.until_date, created_by: r.created_by } : null);

/** Computed exceptions per series and their snoozes (spec §4.11 `/api/exceptions*`; docs/EXCEPTIONS.md "Computed exceptions"). */
export function registerSeriesExceptionRoutes(table: RouteTable): void {
  const tag = 'exceptions';

  defineRoute(table, {
    method: 'get', path: '/api/exceptions', tag,
    summary: 'Computed exceptions per series and type, filtered and paged',
    description: `Computed at request time, not read from the exception log (which holds the same issues as of its last generation, with planners' statuses). ${RULES} ${SCOPE} `
      + 'Only series in the caller\'s segments (and in the pipeline\'s segments when it has any). Filters: `unique_id` (one series; 404 when the series does not exist, empty when it is outside your segments), '
      + '`type` (forecast, io or supply), `include_snoozed` (default false: snoozed items are left out and not counted). Sorted most severe first, then by unique_id (item id, then site id, numerically), '
      + `then forecast, io, supply; \`skip\` (default 0) and \`limit\` (1–1000, default 100) page the sorted list, \`total\` counts every item the filters match. ${SNOOZE_RULE}`,
    query: obj({
      pipeline_id: { ...pipelineIdQuery, description: 'whose results; omitted: the default pipeline; 404 when unknown' },
      scenario_id: scenarioIdQuery,
      unique_id: { ...uniqueIdSchema, description: 'only this series `<item_id>_<site_id>`' },
      type: { ...excType, description: 'only this type: forecast, io or supply' },
      include_snoozed: { type: 'boolean', default: false, description: 'also items snoozed today, with their snoozed_until' },
      skip: skipParam,
      limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'items per page (1–1000, default 100)' },
    }),
    responses: { 200: { description: 'a page of computed exceptions', schema: listResponse }, ...errors(403, 404) },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      let key: SeriesKey | undefined;
      if (query.unique_id !== undefined) {
        key = keyOf(query.unique_id);
        if (!(await seriesExists(tx, key.item_id, key.site_id))) throw notFound(`unique_id: series ${query.unique_id} not found`);
      }
      const scope = await scopeOf(tx, query);
      const all = (await computed(tx, scope, { key, user }))
        .filter((e) => (query.type === undefined || e.exc_type === query.type) && (query.include_snoozed || e.snoozed_until === null));
      return {
        total: all.length, skip: query.skip, limit: query.limit, ...scopeView(scope),
        items: await labelled(tx, all.slice(query.skip, query.skip + query.limit)),
      };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/exceptions/{unique_id}', tag,
    summary: 'Computed exceptions of one series',
    description: `The items of GET /api/exceptions for one series, one per type that has issues, snoozed ones included with their \`snoozed_until\`; \`items\` is empty for a series without issues. ${RULES} ${SCOPE} `
      + 'Reads only this series\' results. 404 for an unknown series, 403 for one outside your segments.',
    params: obj({ unique_id: uniqueIdSchema }, ['unique_id']),
    query: obj({ pipeline_id: { ...pipelineIdQuery, description: 'whose results; omitted: the default pipeline; 404 when unknown' }, scenario_id: scenarioIdQuery }),
    responses: { 200: { description: 'the series\' computed exceptions', schema: oneResponse }, ...errors(403, 404) },
    handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      await visibleSeries(tx, user, params.unique_id);
      const scope = await scopeOf(tx, query);
      return { unique_id: params.unique_id, ...scopeView(scope), items: await labelled(tx, await computed(tx, scope, { key: keyOf(params.unique_id) })) };
    }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/exceptions/{unique_id}/{exc_type}/snooze', tag,
    summary: 'Snooze one type of exception of a series',
    description: `Sets the snooze of the series and type, or replaces it (a new date, a new created_by): always 200 with the snooze row, plus \`replaced\` and the \`previous_until_date\` (null when it is new). ${SNOOZE_RULE} `
      + 'The series need not have exceptions of that type now (a snooze set ahead hides them when they appear). 400 naming `until_date` when it is not a date or is before today, naming `exc_type` when it is not forecast, io or supply; '
      + '404 for an unknown series, 403 for one outside your segments. Any signed-in user may snooze (the permission PATCH /api/exception-log/{exception_id}/status needs). Audited (entity exception_snooze, action snooze) with the old and new date.',
    params: snoozeParams,
    body: obj({ until_date: { type: 'string', format: 'date', description: 'last day hidden (YYYY-MM-DD), today or later' } }, ['until_date']),
    audit: { entityType: 'exception_snooze', action: 'snooze' },
    responses: { 200: { description: 'the snooze', schema: out({ ...(snoozeSchema.properties as object), replaced: { type: 'boolean' }, previous_until_date: nullable({ type: 'string', format: 'date' }) }) }, ...errors(403, 404) },
    handler: (ctx, { params, body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const today = await databaseToday(tx);
      if (body.until_date < today) throw badRequest(`until_date: ${body.until_date} is before today (${today})`);
      await visibleSeries(tx, user, params.unique_id);
      const key = keyOf(params.unique_id);
      const before = await getSnooze(tx, key, params.exc_type, true);
      const row = await upsertSnooze(tx, key, params.exc_type, body.until_date, user.email);
      ctx.state.audit = { ...ctx.state.audit, entityId: `${params.unique_id}/${params.exc_type}`, oldValue: snoozeAudit(before), newValue: snoozeAudit(row) };
      return { ...row, replaced: before !== null, previous_until_date: before?.until_date ?? null };
    }),
  });

  defineRoute(table, {
    method: 'delete', path: '/api/exceptions/{unique_id}/{exc_type}/snooze', tag,
    summary: 'Remove the snooze of one type of exception of a series',
    description: 'The series and type show in GET /api/exceptions again at once. 200 with the removed snooze row (also an expired one); 404 when the series does not exist or has no snooze of that type, '
      + '403 for a series outside your segments, 400 naming `exc_type` when it is not forecast, io or supply. Any signed-in user (as for the snooze). Audited (entity exception_snooze, action unsnooze) with the removed date.',
    params: snoozeParams,
    audit: { entityType: 'exception_snooze', action: 'unsnooze' },
    responses: { 200: { description: 'the removed snooze', schema: snoozeSchema }, ...errors(403, 404) },
    handler: (ctx, { params, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      await visibleSeries(tx, user, params.unique_id);
      const row = await deleteSnooze(tx, keyOf(params.unique_id), params.exc_type);
      if (!row) throw notFound(`no snooze of ${params.exc_type} exceptions for series ${params.unique_id}`);
      ctx.state.audit = { ...ctx.state.audit, entityId: `${params.unique_id}/${params.exc_type}`, oldValue: snoozeAudit(row), newValue: null };
      return row;
    }),
  });
}
