import {
  activeJobsOfPipeline, addPipelineSegment, copyPipelineConfig, copyPipelineResults, deletePipeline, findPipelineByName, getPipeline,
  insertPipeline, listPipelines, lockPipelines, removePipelineSegment, seriesExists, setPipelineSegments, updatePipeline, weeklyHistory,
  type PipelineRow,
} from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import { lockProcessWorkflows, workflowsOfPipeline } from '../../../db/processWorkflows';
import { getBaselineScenario, getScenario, lockScenarios } from '../../../db/scenarios';
import type { AppContext } from '../../context';
import { deleteFreezeSchedule, ensureFreezeSchedule } from '../../jobs/freezeSchedules';
import { logger } from '../../../lib/logger';
import { historySettings } from '../../../db/history';
import { badRequest, conflict, notFound } from '../../errors';
import { defineRoute, type RouteSpec, type RouteTable } from '../define';
import { firstOf, onItem, readsTaking, withLinks } from '../links';
import { errors } from '../schemas';
import { scenarioView } from '../scenarios';
import * as s from './schemas';

export const pipelineView = (r: PipelineRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  forecast_scenario_id: r.forecast_scenario_id,
  is_active: r.is_active,
  settings: r.settings,
  segment_ids: [...r.segment_ids],
  created_by: r.created_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
  last_run_at: r.last_run_at,
});

async function pipelineOr404(tx: Tx, id: number, what = 'Pipeline'): Promise<PipelineRow> {
  const row = await getPipeline(tx, id);
  if (!row) throw notFound(`${what} ${id} not found`);
  return row;
}

async function checkNameFree(tx: Tx, name: string, exceptId?: number): Promise<void> {
  const clash = await findPipelineByName(tx, name, exceptId);
  if (clash) throw conflict(`body.name: pipeline ${clash.id} is already named '${clash.name}'`);
}

/** A scenario link must point at an existing scenario; the caller holds the scenario lock so it cannot vanish meanwhile. */
async function checkScenario(tx: Tx, id: number | null | undefined): Promise<void> {
  if (id === null || id === undefined) return;
  await lockScenarios(tx);
  if (!(await getScenario(tx, id))) throw badRequest(`body.forecast_scenario_id: forecast scenario ${id} does not exist`);
}

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/**
 * Every pipeline has its weekly freeze schedule (docs/HISTORY.md): made with the pipeline, removed with it. Without a
 * Temporal connection the pipeline is still created; PUT /api/history/schedule makes the schedule later.
 */
async function syncFreezeSchedule(ctx: AppContext, accountId: string, pipelineId: number, change: 'create' | 'delete'): Promise<void> {
  const temporal = ctx.deps.temporal;
  if (!temporal) return;
  try {
    if (change === 'delete') await deleteFreezeSchedule(temporal.client, accountId, pipelineId);
    else {
      const s = await withTenant(ctx.deps.db, accountId, (tx) => historySettings(tx, pipelineId));
      await ensureFreezeSchedule(temporal.client, temporal.taskQueue, accountId, pipelineId, { timezone: s.schedule_timezone, hour: s.schedule_hour });
    }
  } catch (err) {
    logger.warn({ err, pipelineId, change }, 'freeze schedule not synced');
  }
}

export function registerPipelineRoutes(table: RouteTable): void {
  // A pipeline's id leads to the operations on it and to every read scoped to a pipeline (`?pipeline_id=`).
  const pipelineLinks = (expression: string) => (r: RouteSpec) => firstOf(onItem('/api/scenario-pipeline/{id}', 'id', expression), readsTaking('pipeline_id', expression))(r);
  const tag = 'scenario pipelines';
  const entityType = 'scenario_pipeline';

  defineRoute(table, {
    method: 'get', path: '/api/scenario-pipeline', tag,
    summary: 'List scenario pipelines',
    description: 'Ordered by id. The total count is in the `X-Total-Count` header.',
    query: s.pageQuery,
    responses: { 200: withLinks(table, { description: 'pipelines', schema: { type: 'array', items: s.pipelineSchema } }, pipelineLinks('$response.body#/0/id')), ...errors(400, 401) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => listPipelines(tx, query));
      ctx.set('X-Total-Count', String(total));
      return rows.map(pipelineView);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/scenario-pipeline', tag, status: 201,
    summary: 'Create a scenario pipeline',
    description: 'Results of every step are stored per pipeline. `forecast_scenario_id` must name an existing forecast scenario (400 otherwise); `segment_ids` are the segments it covers.',
    body: s.createPipelineBody, audit: { entityType, action: 'create' },
    responses: { 201: withLinks(table, { description: 'created pipeline', schema: s.pipelineSchema }, pipelineLinks('$response.body#/id')), ...errors(400, 401, 409) },
    handler: async (ctx, { body, user }) => {
      const name = body.name.trim();
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockPipelines(tx);
        await checkNameFree(tx, name);
        await checkScenario(tx, body.forecast_scenario_id);
        const id = await insertPipeline(tx, { name, description: body.description, forecast_scenario_id: body.forecast_scenario_id, is_active: body.is_active, settings: body.settings }, user.email);
        await setPipelineSegments(tx, id, body.segment_ids);
        return (await getPipeline(tx, id))!;
      });
      const view = pipelineView(row);
      setAudit(ctx, { entityId: row.id, newValue: view });
      await syncFreezeSchedule(ctx, user.accountId, row.id, 'create');
      return view;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/scenario-pipeline/{id}', tag,
    summary: 'One scenario pipeline',
    params: s.idParams('id'),
    responses: { 200: { description: 'pipeline', schema: s.pipelineSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) => pipelineView(await withTenant(ctx.deps.db, user.accountId, (tx) => pipelineOr404(tx, params.id))),
  });

  defineRoute(table, {
    method: 'put', path: '/api/scenario-pipeline/{id}', tag,
    summary: 'Update a scenario pipeline',
    description: 'Partial: only the fields sent change; `settings` and `segment_ids` are replaced as a whole.',
    params: s.idParams('id'), body: s.updatePipelineBody, audit: { entityType, action: 'update' },
    responses: { 200: { description: 'updated pipeline', schema: s.pipelineSchema }, ...errors(400, 401, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const name = body.name?.trim();
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockPipelines(tx);
        const old = await pipelineOr404(tx, params.id);
        if (name !== undefined) await checkNameFree(tx, name, params.id);
        await checkScenario(tx, body.forecast_scenario_id);
        await updatePipeline(tx, params.id, { name, description: body.description, forecast_scenario_id: body.forecast_scenario_id, is_active: body.is_active, settings: body.settings });
        if (body.segment_ids) await setPipelineSegments(tx, params.id, body.segment_ids);
        return { old, row: (await getPipeline(tx, params.id))! };
      });
      const view = pipelineView(row);
      setAudit(ctx, { entityId: row.id, oldValue: pipelineView(old), newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/scenario-pipeline/{id}', tag,
    summary: 'Delete a scenario pipeline',
    description:
      'Refused (409) while a job of the pipeline is queued or running, and, unless `force=true`, while process workflows run on it (409 naming them); `force=true` sets their `scenario_pipeline_id` to null. Segment links go with the pipeline.',
    params: s.idParams('id'), query: s.forceQuery('delete even when process workflows run on the pipeline, detaching them'),
    audit: { entityType, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deletePipelineResponse }, ...errors(400, 401, 404, 409) },
    handler: async (ctx, { params, query, user }) => {
      const { old, detached } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockPipelines(tx);
        await lockProcessWorkflows(tx);
        const old = await pipelineOr404(tx, params.id);
        const jobs = await activeJobsOfPipeline(tx, params.id);
        if (jobs.length) throw conflict(`Pipeline ${params.id} has ${plural(jobs.length, 'a job', 'jobs')} in progress (${jobs.join(', ')}); wait for ${plural(jobs.length, 'it', 'them')} to finish or kill ${plural(jobs.length, 'it', 'them')} first`);
        const workflows = await workflowsOfPipeline(tx, params.id);
        if (workflows.length && !query.force) {
          const names = workflows.map((w) => `${w.workflow_id} '${w.name}'`).join(', ');
          throw conflict(`Pipeline ${params.id} is used by process ${plural(workflows.length, 'workflow', 'workflows')} ${names}; point ${plural(workflows.length, 'it', 'them')} at another pipeline first, or delete with force=true to detach ${plural(workflows.length, 'it', 'them')}`);
        }
        await deletePipeline(tx, params.id);
        return { old, detached: workflows.map((w) => w.workflow_id) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: pipelineView(old), newValue: { deleted: true, detached_workflow_ids: detached } });
      await syncFreezeSchedule(ctx, user.accountId, params.id, 'delete');
      return { status: 'deleted', id: params.id, detached_workflow_ids: detached };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/scenario-pipeline/{id}/copy-from/{src_id}', tag,
    summary: "Copy another pipeline's configuration into this one",
    description:
      "Replaces this pipeline's forecast scenario link, settings and segment set with those of `src_id`; its name, description, is_active and last_run_at stay. Stored results are copied by the copiers that result-storing steps register (`results_copied` counts them; empty until such steps exist). All in one transaction.",
    params: s.idParams('id', 'src_id'), audit: { entityType, action: 'copy_from' },
    responses: { 200: { description: 'copied', schema: s.copyFromResponse }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) => {
      if (params.id === params.src_id) throw badRequest(`path.src_id must differ from path.id (a pipeline cannot copy from itself)`);
      const { old, row, results } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockPipelines(tx);
        const old = await pipelineOr404(tx, params.id);
        await pipelineOr404(tx, params.src_id, 'Source pipeline');
        await copyPipelineConfig(tx, params.id, params.src_id);
        const results = await copyPipelineResults(tx, params.id, params.src_id);
        return { old, row: (await getPipeline(tx, params.id))!, results };
      });
      const view = pipelineView(row);
      setAudit(ctx, { entityId: params.id, oldValue: pipelineView(old), newValue: { ...view, copied_from: params.src_id, results_copied: results } });
      return { status: 'copied', source_id: params.src_id, pipeline: view, results_copied: results };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/scenario-pipeline/{id}/segments', tag, status: 201,
    summary: 'Add a segment to a pipeline',
    description: 'Segment ids are positive integers; linking one twice is a 409.',
    params: s.idParams('id'), body: s.addSegmentBody, audit: { entityType: 'scenario_pipeline.segment', action: 'add' },
    responses: { 201: { description: 'the pipeline with its segments', schema: s.pipelineSchema }, ...errors(400, 401, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockPipelines(tx);
        await pipelineOr404(tx, params.id);
        if (!(await addPipelineSegment(tx, params.id, body.segment_id))) throw conflict(`Segment ${body.segment_id} is already linked to pipeline ${params.id}`);
        return (await getPipeline(tx, params.id))!;
      });
      setAudit(ctx, { entityId: params.id, newValue: { segment_id: body.segment_id, segment_ids: row.segment_ids } });
      return pipelineView(row);
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/scenario-pipeline/{id}/segments/{seg_id}', tag,
    summary: 'Remove a segment from a pipeline',
    params: s.idParams('id', 'seg_id'), audit: { entityType: 'scenario_pipeline.segment', action: 'remove' },
    responses: { 200: { description: 'the pipeline with its remaining segments', schema: s.pipelineSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) => {
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockPipelines(tx);
        await pipelineOr404(tx, params.id);
        if (!(await removePipelineSegment(tx, params.id, params.seg_id))) throw notFound(`Segment ${params.seg_id} is not linked to pipeline ${params.id}`);
        return (await getPipeline(tx, params.id))!;
      });
      setAudit(ctx, { entityId: params.id, oldValue: { segment_id: params.seg_id }, newValue: { segment_ids: row.segment_ids } });
      return pipelineView(row);
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/scenario-pipeline/{id}/baseline/{uid}', tag,
    summary: "A series' baseline in a pipeline",
    description:
      "The pipeline's baseline scenario (its forecast scenario, else the tenant's baseline scenario, else null) and the series' weekly demand history. `forecast` is filled once the forecast step has run; until then it is empty. `uid` is `<item_id>_<site_id>`; an unknown series is a 404.",
    params: s.baselineParams,
    responses: { 200: { description: 'baseline', schema: s.baselineResponse }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) => {
      const [itemId, siteId] = String(params.uid).split('_').map(Number);
      return withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const pipeline = await pipelineOr404(tx, params.id);
        if (!(await seriesExists(tx, itemId, siteId))) throw notFound(`Series ${params.uid} not found (item ${itemId}, site ${siteId})`);
        const own = pipeline.forecast_scenario_id === null ? null : await getScenario(tx, pipeline.forecast_scenario_id);
        const scenario = own ?? (await getBaselineScenario(tx));
        return {
          pipeline_id: pipeline.id,
          unique_id: `${itemId}_${siteId}`,
          item_id: itemId,
          site_id: siteId,
          scenario_id: scenario?.id ?? null,
          scenario_source: own ? 'pipeline' : scenario ? 'tenant_baseline' : null,
          scenario: scenario ? scenarioView(scenario) : null,
          history: await weeklyHistory(tx, itemId, siteId),
          forecast: [],
        };
      });
    },
  });
}
