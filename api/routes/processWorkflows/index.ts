import { getPipeline, lockPipelines } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import {
  deleteProcessWorkflow, findProcessWorkflowByName, getProcessWorkflow, insertProcessWorkflow, listProcessWorkflows, lockProcessWorkflows,
  processWorkflowIds, reorderProcessWorkflows, updateProcessWorkflow, type ProcessWorkflowRow,
} from '../../../db/processWorkflows';
import type { AppContext } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors } from '../schemas';
import * as s from './schemas';

export const workflowView = (r: ProcessWorkflowRow) => ({
  workflow_id: r.workflow_id,
  name: r.name,
  steps: [...r.steps],
  segment_ids: [...r.segment_ids],
  scenario_pipeline_id: r.scenario_pipeline_id,
  step_workers: r.step_workers,
  sort_order: r.sort_order,
  last_run_at: r.last_run_at,
  created_by: r.created_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

async function workflowOr404(tx: Tx, id: number): Promise<ProcessWorkflowRow> {
  const row = await getProcessWorkflow(tx, id);
  if (!row) throw notFound(`Process workflow ${id} not found`);
  return row;
}

async function checkNameFree(tx: Tx, name: string, exceptId?: number): Promise<void> {
  const clash = await findProcessWorkflowByName(tx, name, exceptId);
  if (clash) throw conflict(`body.name: process workflow ${clash.workflow_id} is already named '${clash.name}'`);
}

/** The caller holds the pipeline lock, so the pipeline cannot be deleted before the workflow row points at it. */
async function checkPipeline(tx: Tx, id: number | null | undefined): Promise<void> {
  if (id === null || id === undefined) return;
  if (!(await getPipeline(tx, id))) throw badRequest(`body.scenario_pipeline_id: scenario pipeline ${id} does not exist`);
}

/** step_workers may only size steps the workflow runs. */
function checkStepWorkers(steps: string[], workers: Record<string, number>, stepsChangedAlone: boolean): void {
  for (const key of Object.keys(workers)) {
    if (steps.includes(key)) continue;
    if (stepsChangedAlone) throw badRequest(`body.steps: step_workers has '${key}', which is no longer one of the steps; send step_workers too`);
    throw badRequest(`body.step_workers.${key}: '${key}' is not one of the workflow's steps (${steps.join(', ')})`);
  }
}

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

export function registerProcessWorkflowRoutes(table: RouteTable): void {
  const tag = 'process workflows';
  const entityType = 'process_workflow';

  defineRoute(table, {
    method: 'get', path: '/api/process-workflows', tag,
    summary: 'List process workflows',
    description: 'Ordered by `sort_order`, then `workflow_id`. The total count is in the `X-Total-Count` header.',
    query: s.pageQuery,
    responses: { 200: { description: 'workflows', schema: { type: 'array', items: s.workflowSchema } }, ...errors(400, 401) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => listProcessWorkflows(tx, query));
      ctx.set('X-Total-Count', String(total));
      return rows.map(workflowView);
    },
  });

  // Registered before /{workflow_id}, so `reorder` is never read as an id.
  defineRoute(table, {
    method: 'put', path: '/api/process-workflows/reorder', tag, permission: 'run_process',
    summary: 'Reorder process workflows',
    description: '`ordered_ids` must list every workflow id exactly once; an unknown, repeated or missing id is a 400 and nothing moves. Returns the whole list in its new order.',
    body: s.reorderBody, audit: { entityType, action: 'reorder' },
    responses: { 200: { description: 'workflows in their new order', schema: { type: 'array', items: s.workflowSchema } }, ...errors(400, 401, 403) },
    handler: async (ctx, { body, user }) => {
      const ids: number[] = body.ordered_ids;
      const { before, rows } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockProcessWorkflows(tx);
        const before = await processWorkflowIds(tx);
        const known = new Set(before);
        ids.forEach((id, i) => {
          if (!known.has(id)) throw badRequest(`body.ordered_ids[${i}]: process workflow ${id} does not exist`);
        });
        const given = new Set(ids);
        const missing = before.filter((id) => !given.has(id));
        if (missing.length) throw badRequest(`body.ordered_ids: missing process workflow${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; list every workflow exactly once`);
        await reorderProcessWorkflows(tx, ids);
        return { before, rows: (await listProcessWorkflows(tx, { skip: 0, limit: 10000 })).rows };
      });
      setAudit(ctx, { entityId: null, oldValue: { ordered_ids: before }, newValue: { ordered_ids: ids } });
      return rows.map(workflowView);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/process-workflows', tag, permission: 'run_process', status: 201,
    summary: 'Create a process workflow',
    description: 'A named sequence of steps run on a scenario pipeline (which must exist: 400 otherwise). The new workflow goes last in the list.',
    body: s.createWorkflowBody, audit: { entityType, action: 'create' },
    responses: { 201: { description: 'created workflow', schema: s.workflowSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body, user }) => {
      const name = body.name.trim();
      checkStepWorkers(body.steps, body.step_workers, false);
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockPipelines(tx);
        await lockProcessWorkflows(tx);
        await checkNameFree(tx, name);
        await checkPipeline(tx, body.scenario_pipeline_id);
        return insertProcessWorkflow(tx, { ...body, name }, user.email);
      });
      const view = workflowView(row);
      setAudit(ctx, { entityId: row.workflow_id, newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'put', path: '/api/process-workflows/{workflow_id}', tag, permission: 'run_process',
    summary: 'Update a process workflow',
    description: 'Partial: only the fields sent change. `step_workers` keys must stay within `steps` (the stored ones when `steps` is not sent).',
    params: s.idParams('workflow_id'), body: s.updateWorkflowBody, audit: { entityType, action: 'update' },
    responses: { 200: { description: 'updated workflow', schema: s.workflowSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const name = body.name?.trim();
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockPipelines(tx);
        await lockProcessWorkflows(tx);
        const old = await workflowOr404(tx, params.workflow_id);
        checkStepWorkers(body.steps ?? old.steps, body.step_workers ?? old.step_workers, body.step_workers === undefined);
        if (name !== undefined) await checkNameFree(tx, name, params.workflow_id);
        await checkPipeline(tx, body.scenario_pipeline_id);
        const row = (await updateProcessWorkflow(tx, params.workflow_id, { ...body, name }))!;
        return { old, row };
      });
      const view = workflowView(row);
      setAudit(ctx, { entityId: row.workflow_id, oldValue: workflowView(old), newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/process-workflows/{workflow_id}', tag, permission: 'run_process',
    summary: 'Delete a process workflow',
    description: 'The others keep their sort_order (gaps are harmless: the list is ordered, not numbered).',
    params: s.idParams('workflow_id'), audit: { entityType, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deleteWorkflowResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockProcessWorkflows(tx);
        const old = await workflowOr404(tx, params.workflow_id);
        await deleteProcessWorkflow(tx, params.workflow_id);
        return old;
      });
      setAudit(ctx, { entityId: params.workflow_id, oldValue: workflowView(old), newValue: { deleted: true } });
      return { status: 'deleted', workflow_id: params.workflow_id };
    },
  });
}
