import {
  applyRetention, deleteVersion, getPlanningDates, getVersion, historySettings, listVersions, mondayOf, saveHistorySettings,
  setPlanningDate, unpinnedTwin, updateVersion, type VersionRow,
} from '../../../db/history';
import { PLANNING_DATE_SOURCES, resolvePlanningDate } from '../../../db/planningDate';
import { withTenant, type Tx } from '../../../db/pool';
import type { FreezeWorkflowResult } from '../../../workflows/history';
import { conflict, HttpError, notFound } from '../../errors';
import { controlFreezeSchedule, describeFreezeSchedule, ensureFreezeSchedule } from '../../jobs/freezeSchedules';
import { newJobId, requireTemporal, startJob } from '../../jobs/service';
import { isTemporalError } from '../../jobs/temporalErrors';
import { orAfter } from '../../../lib/timeout';
import { defineRoute, type RouteTable } from '../define';
import { firstOf, readsTaking, takingPathParam, withLinks, withRequestQuery } from '../links';
import { errors, mondayDate, nullable, obj, out } from '../schemas';
import type { JsonSchema } from '../validation';
import { checkArchiveDate, checkDate, pipelineOr404 } from './common';
import { registerHistoryReplayRoutes } from './replay';
import { registerHistoryViewRoutes } from './views';

const pipelineId: JsonSchema = { type: 'integer', minimum: 1, maximum: 2147483647, description: 'the scenario pipeline' };
// format date (api/routes/validation.ts): the calendar dates PostgreSQL stores, so generated dates are ones the handlers take
const monday: JsonSchema = mondayDate('archive date: the Monday of the version\'s planning week (YYYY-MM-DD); another weekday is a 400 naming that week\'s Monday');
const date: JsonSchema = { type: 'string', format: 'date' };
const FREEZE_WAIT_MS = Number(process.env.FREEZE_WAIT_MS ?? 120_000);

const kpis: JsonSchema = out({
  fill_rate: nullable({ type: 'number', description: 'projected fill rate of the supply plan (default supply scenario\'s run)' }),
  inventory_value: nullable({ type: 'number', description: 'average projected inventory value over the 52 weeks' }),
  shortage_qty: nullable({ type: 'number', description: 'demand not served in its own week' }),
  forecast_mase: nullable({ type: 'number', description: 'mean backtest MASE of the best methods (forecast accuracy; lower is better)' }),
  series: nullable({ type: 'integer', description: 'series with a best method' }),
});
const versionSchema: JsonSchema = out({
  id: { type: 'integer', description: 'snapshot id' }, pipeline_id: { type: 'integer' }, scenario_id: nullable({ type: 'integer', description: 'the pipeline\'s forecast scenario at freeze time' }),
  archive_date: { type: 'string' }, snapshot_ts: { type: 'string' }, created_by: nullable({ type: 'string' }), comment: nullable({ type: 'string' }),
  frozen: { type: 'boolean' }, pinned: { type: 'boolean' }, parent_archive_date: nullable({ type: 'string', description: 'the version frozen before this one' }),
  replaced_archive_date: nullable({ type: 'string', description: 'the un-pinned version of the same week this one replaced' }),
  row_count_total: { type: 'integer' }, table_counts: { type: 'object', description: 'rows per pipeline table, and on_hand' }, kpis,
  job_id: nullable({ type: 'string' }), source: { type: 'string', enum: ['api', 'schedule'] },
});

const versionView = (v: VersionRow) => ({
  id: v.id, pipeline_id: v.pipeline_id, scenario_id: v.scenario_id, archive_date: v.archive_date, snapshot_ts: v.snapshot_ts, created_by: v.created_by,
  comment: v.comment, frozen: v.frozen, pinned: v.pinned, parent_archive_date: v.parent_archive_date, replaced_archive_date: v.replaced_archive_date,
  row_count_total: v.row_count_total, table_counts: v.table_counts,
  kpis: { fill_rate: v.kpi_fill_rate, inventory_value: v.kpi_inventory_value, shortage_qty: v.kpi_shortage_qty, forecast_mase: v.kpi_forecast_mase, series: v.kpi_series },
  job_id: v.job_id, source: v.source,
});

async function versionOr404(tx: Tx, pipeline: number, archiveDate: string): Promise<VersionRow> {
  checkArchiveDate('path.archive_date', archiveDate);
  await pipelineOr404(tx, pipeline);
  const v = await getVersion(tx, pipeline, archiveDate);
  if (!v) throw notFound(`No version of pipeline ${pipeline} for archive date ${archiveDate}`);
  return v;
}

const scheduleSchema: JsonSchema = out({
  schedule_id: { type: 'string', description: 'the Temporal Schedule id (visible in the Temporal UI under Schedules)' }, exists: { type: 'boolean' },
  paused: { type: 'boolean' }, note: nullable({ type: 'string' }), timezone: nullable({ type: 'string' }), hour: nullable({ type: 'integer' }),
  next_runs: { type: 'array', items: { type: 'string' } },
  recent_runs: { type: 'array', items: out({ scheduled_at: { type: 'string' }, started_at: { type: 'string' }, workflow_id: { type: 'string' } }) },
  actions_taken: { type: 'integer' }, missed_catchup: { type: 'integer', description: 'Mondays skipped because the server was down longer than the catch-up window' },
  catchup_window: { type: 'string' },
});
const settingsSchema: JsonSchema = out({
  pipeline_id: { type: 'integer' }, retention_versions: { type: 'integer' }, retention_min_age_days: { type: 'integer' },
  schedule_timezone: { type: 'string' }, schedule_hour: { type: 'integer' },
});

/** The zones a schedule takes, listed in the published schema so a client can choose one. */
const TIME_ZONES = [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])];

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Weekly plan versions (document 2 §4.5): freeze, versions, the weekly schedule, retention and planning dates. */
export function registerHistoryRoutes(table: RouteTable): void {
  const tag = 'history';
  registerHistoryReplayRoutes(table, versionView);
  registerHistoryViewRoutes(table);

  defineRoute(table, {
    method: 'post', path: '/api/history/freeze', tag, permission: 'run_process', pipelineScoped: true, needsCache: false,
    summary: 'Freeze the pipeline\'s plan as this week\'s version',
    description: 'Runs workflow freezePipeline (a job: `job_id`) and answers when it is done. The archive date is the Monday of the effective planning date, the one every step and reader plans from (freeze rule 2, docs/HISTORY.md "The planning date"): PLANNING_DATE_OVERRIDE, the pipeline\'s stored planning date, its `settings.planning_date`, the tenant\'s under pipeline id −1, then (where the spec says today) the first week of the pipeline\'s forecasts, the Monday after the last week of history, and only then today UTC: the calendar never overrides what the pipeline\'s data plans for. `planning_date_source` says which. An un-pinned version of the same week is replaced (`replaced_archive_date`); pinned ones stay. The copy is one transaction: a freeze that fails leaves nothing. A freeze that takes longer than FREEZE_WAIT_MS (120 s) answers 202 with the job id; follow it with GET /api/pipeline/jobs/{job_id}.',
    body: obj({ pipeline_id: pipelineId, comment: nullable({ type: 'string', maxLength: 2000 }), pin: { type: 'boolean', default: false } }, ['pipeline_id']),
    audit: { entityType: 'history_version', action: 'freeze' },
    responses: {
      200: { description: 'frozen', schema: out({
        archive_date: { type: 'string' }, snapshot_ts: { type: 'string' }, replaced_archive_date: nullable({ type: 'string' }), table_counts: { type: 'object' }, kpis,
        comment: nullable({ type: 'string' }), pinned: { type: 'boolean' }, job_id: { type: 'string' }, version: versionSchema,
        planning_date: { type: 'string' }, planning_date_source: { type: 'string', enum: [...PLANNING_DATE_SOURCES] },
        retention_deleted: { type: 'array', items: { type: 'string' } },
      }) },
      202: { description: 'still running', schema: out({ job_id: { type: 'string' }, status: { type: 'string' } }) },
      ...errors(403, 404, 502, 503),
    },
    handler: async (ctx, { body, user }) => {
      await withTenant(ctx.deps.db, user.accountId, (tx) => pipelineOr404(tx, body.pipeline_id));
      const temporal = requireTemporal(ctx.deps.temporal);
      const jobId = newJobId('freeze');
      await startJob(ctx.deps.db, temporal, user.accountId, { job_id: jobId, kind: 'freeze', step: 'freeze', pipeline_id: body.pipeline_id, created_by: user.email, params: { pin: body.pin } },
        'freezePipeline', [{ accountId: user.accountId, pipelineId: body.pipeline_id, comment: body.comment ?? null, pin: body.pin, createdBy: user.email, source: 'api', jobId }]);
      const result = temporal.client.workflow.getHandle(jobId).result() as Promise<FreezeWorkflowResult>;
      let r: FreezeWorkflowResult | null;
      try {
        r = await orAfter(result, FREEZE_WAIT_MS, null);
      } catch (err) {
        const cause = isTemporalError(err, 'WorkflowFailedError') ? ((err.cause?.cause as Error | undefined)?.message ?? err.cause?.message ?? err.message) : String(err);
        throw new HttpError(502, `freeze job ${jobId} failed: ${cause}`);
      }
      if (!r) {
        ctx.status = 202;
        return { job_id: jobId, status: 'running' };
      }
      const v = versionView(r.version);
      ctx.state.audit = { ...ctx.state.audit, entityId: String(r.version.id), newValue: { archive_date: v.archive_date, replaced_archive_date: r.replaced_archive_date, pinned: v.pinned } };
      return {
        archive_date: v.archive_date, snapshot_ts: v.snapshot_ts, replaced_archive_date: r.replaced_archive_date, table_counts: v.table_counts, kpis: v.kpis,
        comment: v.comment, pinned: v.pinned, job_id: jobId, version: v, planning_date: r.planning_date, planning_date_source: r.planning_date_source,
        retention_deleted: r.retention_deleted,
      };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/history/versions', tag, pipelineScoped: true,
    summary: 'Versions of a pipeline',
    description: 'Newest archive date first (per week the un-pinned version before pinned ones); `frozen_only`, `from`/`to` (archive dates, inclusive). Paged; the total is in `X-Total-Count`.',
    query: obj({
      pipeline_id: pipelineId, frozen_only: { type: 'boolean', default: false }, from: date, to: date,
      skip: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0 }, limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
    }, ['pipeline_id']),
    // the newest version's archive date leads to the version, its replay and the views that take one, in the same pipeline
    responses: {
      200: withLinks(table, { description: 'versions', schema: { type: 'array', items: versionSchema } }, withRequestQuery(['pipeline_id'], firstOf(
        takingPathParam('archive_date', '$response.body#/0/archive_date'), readsTaking('archive_date', '$response.body#/0/archive_date'),
        (r) => (r.path === '/api/compare/versions' ? { 'query.base': '$response.body#/0/archive_date' } : undefined)))),
      ...errors(404),
    },
    handler: async (ctx, { query, user }) => {
      for (const f of ['from', 'to'] as const) if (query[f] !== undefined) checkDate(`query.${f}`, query[f]);
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await pipelineOr404(tx, query.pipeline_id);
        return listVersions(tx, query.pipeline_id, query, query.skip, query.limit);
      });
      ctx.set('X-Total-Count', String(total));
      return rows.map(versionView);
    },
  });

  const archiveParams = obj({ archive_date: monday }, ['archive_date']);

  defineRoute(table, {
    method: 'get', path: '/api/history/versions/{archive_date}', tag, pipelineScoped: true,
    summary: 'One version',
    description: 'The week\'s un-pinned version when there is one, else its newest pinned one.',
    params: archiveParams, query: obj({ pipeline_id: pipelineId }, ['pipeline_id']),
    responses: { 200: { description: 'version', schema: versionSchema }, ...errors(404) },
    handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => versionView(await versionOr404(tx, query.pipeline_id, params.archive_date))),
  });

  defineRoute(table, {
    method: 'patch', path: '/api/history/versions/{archive_date}', tag, permission: 'run_process', pipelineScoped: true,
    summary: 'Change a version\'s comment or pin',
    description: 'Un-pinning a version of a week that already has an un-pinned version is refused (409): there is one un-pinned version per week.',
    params: archiveParams, query: obj({ pipeline_id: pipelineId }, ['pipeline_id']),
    body: obj({ comment: nullable({ type: 'string', maxLength: 2000 }), pinned: { type: 'boolean' } }, [], { minProperties: 1 }),
    audit: { entityType: 'history_version', action: 'update' },
    responses: { 200: { description: 'version', schema: versionSchema }, ...errors(403, 404, 409) },
    handler: (ctx, { params, query, body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const v = await versionOr404(tx, query.pipeline_id, params.archive_date);
      if (body.pinned === false && v.pinned && (await unpinnedTwin(tx, v))) {
        throw conflict(`The week of ${v.archive_date} already has an un-pinned version; delete it before un-pinning this one`);
      }
      await updateVersion(tx, v.id, body);
      ctx.state.audit = { ...ctx.state.audit, entityId: String(v.id), oldValue: { comment: v.comment, pinned: v.pinned }, newValue: body };
      return versionView((await getVersion(tx, query.pipeline_id, params.archive_date)) ?? v);
    }),
  });

  defineRoute(table, {
    method: 'delete', path: '/api/history/versions/{archive_date}', tag, permission: 'run_process', pipelineScoped: true,
    summary: 'Delete an un-pinned version',
    description: 'Deletes the week\'s un-pinned version and its copies. A pinned version cannot be deleted (409): un-pin it first.',
    params: archiveParams, query: obj({ pipeline_id: pipelineId }, ['pipeline_id']),
    audit: { entityType: 'history_version', action: 'delete' },
    responses: { 200: { description: 'deleted', schema: out({ archive_date: { type: 'string' }, deleted: { type: 'boolean' }, id: { type: 'integer' } }) }, ...errors(403, 404, 409) },
    handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const v = await versionOr404(tx, query.pipeline_id, params.archive_date);
      if (v.pinned) throw conflict(`The version of ${v.archive_date} is pinned: un-pin it (PATCH with pinned false) before deleting it`);
      await deleteVersion(tx, v.id);
      ctx.state.audit = { ...ctx.state.audit, entityId: String(v.id), oldValue: versionView(v) };
      return { archive_date: v.archive_date, deleted: true, id: v.id };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/history/settings', tag, pipelineScoped: true,
    summary: 'Retention and schedule settings of a pipeline (not in the spec)',
    description: '`retention_versions` (default 52) and `retention_min_age_days` (default 0) of §8; the weekly freeze\'s time zone and hour (default UTC, 06:00).',
    query: obj({ pipeline_id: pipelineId }, ['pipeline_id']),
    responses: { 200: { description: 'settings', schema: settingsSchema }, ...errors(404) },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      await pipelineOr404(tx, query.pipeline_id);
      return historySettings(tx, query.pipeline_id);
    }),
  });

  defineRoute(table, {
    method: 'put', path: '/api/history/settings', tag, permission: 'run_process', pipelineScoped: true, needsCache: false,
    summary: 'Change retention and schedule settings (not in the spec)',
    description: 'Fields left out keep their value. A changed time zone or hour updates the pipeline\'s Temporal Schedule.',
    body: obj({
      pipeline_id: pipelineId, retention_versions: { type: 'integer', minimum: 1, maximum: 10000 }, retention_min_age_days: { type: 'integer', minimum: 0, maximum: 36500 },
      schedule_timezone: { type: 'string', enum: TIME_ZONES, 'x-refusal': "unknown time zone '{value}'", description: 'IANA time zone, e.g. Europe/Paris: UTC or one of the canonical names the API\'s time zone data lists (aliases such as US/Eastern are refused: send the canonical America/New_York)' }, schedule_hour: { type: 'integer', minimum: 0, maximum: 23 },
    }, ['pipeline_id']),
    audit: { entityType: 'history_settings', action: 'update' },
    responses: { 200: { description: 'settings', schema: settingsSchema }, ...errors(403, 404, 503) },
    handler: async (ctx, { body, user }) => {
      if (body.schedule_timezone !== undefined && !validTimezone(body.schedule_timezone)) throw new HttpError(400, `body.schedule_timezone: unknown time zone '${body.schedule_timezone}'`);
      const s = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await pipelineOr404(tx, body.pipeline_id);
        const next = { ...(await historySettings(tx, body.pipeline_id)) };
        for (const k of ['retention_versions', 'retention_min_age_days', 'schedule_timezone', 'schedule_hour'] as const) if (body[k] !== undefined) (next as any)[k] = body[k];
        await saveHistorySettings(tx, next, user.email);
        return next;
      });
      if (body.schedule_timezone !== undefined || body.schedule_hour !== undefined) {
        const temporal = requireTemporal(ctx.deps.temporal);
        await ensureFreezeSchedule(temporal.client, temporal.taskQueue, user.accountId, body.pipeline_id, { timezone: s.schedule_timezone, hour: s.schedule_hour });
      }
      return s;
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/history/retention', tag, permission: 'run_process', pipelineScoped: true,
    summary: 'Apply retention now (not in the spec)',
    description: 'Deletes the pipeline\'s un-pinned versions beyond the newest `retention_versions` that are older than `retention_min_age_days`; pinned versions are exempt. The weekly schedule does this after each freeze.',
    body: obj({ pipeline_id: pipelineId }, ['pipeline_id']),
    audit: { entityType: 'history_version', action: 'retention' },
    responses: { 200: { description: 'deleted', schema: out({ pipeline_id: { type: 'integer' }, deleted: { type: 'array', items: { type: 'string' } } }) }, ...errors(403, 404) },
    handler: (ctx, { body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      await pipelineOr404(tx, body.pipeline_id);
      return { pipeline_id: body.pipeline_id, deleted: await applyRetention(tx, body.pipeline_id) };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/history/schedule', tag, pipelineScoped: true, needsCache: false,
    summary: 'The pipeline\'s weekly freeze schedule (not in the spec)',
    description: 'The Temporal Schedule that freezes the pipeline every Monday: paused or not, next and recent runs, the catch-up window (a Monday missed while the server was down is still frozen when it comes back within it).',
    query: obj({ pipeline_id: pipelineId }, ['pipeline_id']),
    responses: { 200: { description: 'schedule', schema: scheduleSchema }, ...errors(404, 503) },
    handler: async (ctx, { query, user }) => {
      await withTenant(ctx.deps.db, user.accountId, (tx) => pipelineOr404(tx, query.pipeline_id));
      return describeFreezeSchedule(requireTemporal(ctx.deps.temporal).client, user.accountId, query.pipeline_id);
    },
  });

  for (const action of ['pause', 'resume', 'trigger'] as const) {
    defineRoute(table, {
      method: 'post', path: `/api/history/schedule/${action}`, tag, permission: 'run_process', pipelineScoped: true, needsCache: false,
      summary: { pause: 'Pause the weekly freeze', resume: 'Resume the weekly freeze', trigger: 'Run the weekly freeze now' }[action] + ' (not in the spec)',
      description: action === 'trigger'
        ? 'Starts the schedule\'s freeze now (as the Temporal UI\'s trigger does); the freeze is a job with source schedule, followed by retention.'
        : 'The schedule stays; only its firing stops or starts again. The same as the Temporal UI\'s pause.',
      body: obj({ pipeline_id: pipelineId, note: { type: 'string', maxLength: 500 } }, ['pipeline_id']),
      audit: { entityType: 'history_schedule', action },
      responses: { 200: { description: 'schedule', schema: scheduleSchema }, ...errors(403, 404, 503) },
      handler: async (ctx, { body, user }) => {
        await withTenant(ctx.deps.db, user.accountId, (tx) => pipelineOr404(tx, body.pipeline_id));
        const temporal = requireTemporal(ctx.deps.temporal);
        if (!(await controlFreezeSchedule(temporal.client, user.accountId, body.pipeline_id, action, body.note))) {
          throw notFound(`Pipeline ${body.pipeline_id} has no freeze schedule: PUT /api/history/settings with a schedule_hour creates it`);
        }
        return describeFreezeSchedule(temporal.client, user.accountId, body.pipeline_id);
      },
    });
  }

  defineRoute(table, {
    method: 'get', path: '/api/history/planning-date', tag, pipelineScoped: true,
    summary: 'The effective planning date of a pipeline (not in the spec)',
    description: 'The planning today of the pipeline (freeze rule 2 as docs/HISTORY.md "The planning date" resolves it; the same date the supply and meio steps plan from and GET /api/supersession/active?pipeline_id uses): `effective` and where it came from, with the stored dates (the pipeline\'s, and the tenant\'s under pipeline id −1) and the archive date a freeze would use.',
    query: obj({ pipeline_id: pipelineId }, ['pipeline_id']),
    responses: { 200: { description: 'dates', schema: out({
      pipeline_id: { type: 'integer' }, effective: { type: 'string' }, source: { type: 'string', enum: [...PLANNING_DATE_SOURCES], description: 'override, pipeline (stored for it), pipeline_setting (its settings.planning_date), global (pipeline −1), forecast (its first forecast week), history (the Monday after the last history week), today (UTC)' },
      archive_date: { type: 'string' }, pipeline_planning_date: nullable({ type: 'string' }), global_planning_date: nullable({ type: 'string' }),
    }) }, ...errors(404) },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      await pipelineOr404(tx, query.pipeline_id);
      const e = await resolvePlanningDate(tx, query.pipeline_id);
      const stored = await getPlanningDates(tx, query.pipeline_id);
      return { pipeline_id: query.pipeline_id, effective: e.date, source: e.source, archive_date: mondayOf(e.date), pipeline_planning_date: stored.pipeline, global_planning_date: stored.global };
    }),
  });

  defineRoute(table, {
    method: 'put', path: '/api/history/planning-date', tag, permission: 'run_process',
    summary: 'Store a planning date (not in the spec)',
    description: '`pipeline_id` −1 stores the tenant-wide date of freeze rule 2; `planning_date` null removes the stored date.',
    body: obj({ pipeline_id: { type: 'integer', minimum: -1, maximum: 2147483647 }, planning_date: nullable(date) }, ['pipeline_id', 'planning_date']),
    audit: { entityType: 'planning_date', action: 'update' },
    responses: { 200: { description: 'stored', schema: out({ pipeline_id: { type: 'integer' }, planning_date: nullable({ type: 'string' }) }) }, ...errors(403, 404) },
    handler: (ctx, { body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      if (body.pipeline_id === 0) throw new HttpError(400, 'body.pipeline_id: 0 is not a pipeline (−1 is the tenant-wide date)');
      if (body.pipeline_id > 0) await pipelineOr404(tx, body.pipeline_id);
      if (body.planning_date !== null) checkDate('body.planning_date', body.planning_date);
      await setPlanningDate(tx, body.pipeline_id, body.planning_date, user.email);
      return { pipeline_id: body.pipeline_id, planning_date: body.planning_date };
    }),
  });
}
