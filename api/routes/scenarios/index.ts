import { lockPipelines, pipelinesOfScenario } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import {
  clearBaseline, deleteScenario, findScenarioByName, getScenario, insertScenario, listScenarios, lockScenarios, updateScenario,
  type ScenarioRow,
} from '../../../db/scenarios';
import type { AppContext } from '../../context';
import { conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors } from '../schemas';
import * as s from './schemas';

/** The API view of a scenario: the row as stored. */
export const scenarioView = (r: ScenarioRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  is_baseline: r.is_baseline,
  horizon_weeks: r.horizon_weeks,
  methods: [...r.methods],
  settings: r.settings,
  created_by: r.created_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

async function scenarioOr404(tx: Tx, id: number): Promise<ScenarioRow> {
  const row = await getScenario(tx, id);
  if (!row) throw notFound(`Forecast scenario ${id} not found`);
  return row;
}

async function checkNameFree(tx: Tx, name: string, exceptId?: number): Promise<void> {
  const clash = await findScenarioByName(tx, name, exceptId);
  if (clash) throw conflict(`body.name: forecast scenario ${clash.id} is already named '${clash.name}'`);
}

const MAX_NAME = 200;

/** "<name> (copy)", then "<name> (copy 2)", "(copy 3)"...: the first one not taken, cut to fit the name limit. */
async function copyName(tx: Tx, source: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const suffix = n === 1 ? ' (copy)' : ` (copy ${n})`;
    const candidate = `${source.slice(0, MAX_NAME - suffix.length).trimEnd()}${suffix}`;
    if (!(await findScenarioByName(tx, candidate))) return candidate;
  }
}

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

export function registerScenarioRoutes(table: RouteTable): void {
  const tag = 'forecast scenarios';
  const entityType = 'forecast_scenario';

  defineRoute(table, {
    method: 'get', path: '/api/forecast/scenarios', tag,
    summary: 'List forecast scenarios',
    description: 'Ordered by id. The total count is in the `X-Total-Count` header.',
    query: s.pageQuery,
    responses: { 200: { description: 'scenarios', schema: { type: 'array', items: s.scenarioSchema } }, ...errors(400, 401) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => listScenarios(tx, query));
      ctx.set('X-Total-Count', String(total));
      return rows.map(scenarioView);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/forecast/scenarios', tag, status: 201,
    summary: 'Create a forecast scenario',
    description:
      'A scenario names the forecast methods and horizon a forecast run uses. `is_baseline: true` makes it the tenant\'s baseline and unmarks the previous one. Defaults: horizon 52 weeks, methods `[]` (each series\' recommended methods), settings `{}`.',
    body: s.createScenarioBody, audit: { entityType, action: 'create' },
    responses: { 201: { description: 'created scenario', schema: s.scenarioSchema }, ...errors(400, 401, 409) },
    handler: async (ctx, { body, user }) => {
      const name = body.name.trim();
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockScenarios(tx);
        await checkNameFree(tx, name);
        if (body.is_baseline) await clearBaseline(tx);
        return insertScenario(tx, { ...body, name }, user.email);
      });
      const view = scenarioView(row);
      setAudit(ctx, { entityId: row.id, newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/forecast/scenarios/{id}', tag,
    summary: 'One forecast scenario',
    params: s.idParams('id'),
    responses: { 200: { description: 'scenario', schema: s.scenarioSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) => scenarioView(await withTenant(ctx.deps.db, user.accountId, (tx) => scenarioOr404(tx, params.id))),
  });

  defineRoute(table, {
    method: 'put', path: '/api/forecast/scenarios/{id}', tag,
    summary: 'Update a forecast scenario',
    description: 'Partial: only the fields sent change; `settings` is replaced as a whole. `is_baseline: true` unmarks the previous baseline; `false` on the baseline leaves the tenant without one.',
    params: s.idParams('id'), body: s.updateScenarioBody, audit: { entityType, action: 'update' },
    responses: { 200: { description: 'updated scenario', schema: s.scenarioSchema }, ...errors(400, 401, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const name = body.name?.trim();
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockScenarios(tx);
        const old = await scenarioOr404(tx, params.id);
        if (name !== undefined) await checkNameFree(tx, name, params.id);
        if (body.is_baseline) await clearBaseline(tx, params.id);
        const row = (await updateScenario(tx, params.id, { ...body, name }))!;
        return { old, row };
      });
      const view = scenarioView(row);
      setAudit(ctx, { entityId: row.id, oldValue: scenarioView(old), newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/forecast/scenarios/{id}', tag,
    summary: 'Delete a forecast scenario',
    description: 'A scenario that pipelines use is not deleted (409 naming them) unless `force=true`, which sets those pipelines\' `forecast_scenario_id` to null.',
    params: s.idParams('id'), query: s.forceQuery('delete even when pipelines use the scenario, detaching them'),
    audit: { entityType, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deleteScenarioResponse }, ...errors(400, 401, 404, 409) },
    handler: async (ctx, { params, query, user }) => {
      const { old, detached } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockPipelines(tx);
        await lockScenarios(tx);
        const old = await scenarioOr404(tx, params.id);
        const users = await pipelinesOfScenario(tx, params.id);
        if (users.length && !query.force) {
          const names = users.map((p) => `${p.id} '${p.name}'`).join(', ');
          throw conflict(`Forecast scenario ${params.id} is used by pipeline${users.length > 1 ? 's' : ''} ${names}; point ${users.length > 1 ? 'them' : 'it'} at another scenario first, or delete with force=true to detach ${users.length > 1 ? 'them' : 'it'}`);
        }
        await deleteScenario(tx, params.id);
        return { old, detached: users.map((p) => p.id) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: scenarioView(old), newValue: { deleted: true, detached_pipeline_ids: detached } });
      return { status: 'deleted', id: params.id, detached_pipeline_ids: detached };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/forecast/scenarios/{id}/clone', tag, status: 201,
    summary: 'Copy a forecast scenario',
    description:
      'The copy has the source\'s horizon, methods, settings and description, a new id and name (`name` in the body, else "<name> (copy)", numbered when taken) and is never the baseline. The caller becomes its `created_by`.',
    params: s.idParams('id'), body: s.cloneScenarioBody, audit: { entityType, action: 'clone' },
    responses: { 201: { description: 'the copy', schema: s.scenarioSchema }, ...errors(400, 401, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const { source, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockScenarios(tx);
        const source = await scenarioOr404(tx, params.id);
        let name = body.name?.trim();
        if (name !== undefined) await checkNameFree(tx, name);
        else name = await copyName(tx, source.name);
        const row = await insertScenario(tx, {
          name, description: body.description !== undefined ? body.description : source.description, is_baseline: false,
          horizon_weeks: source.horizon_weeks, methods: [...source.methods], settings: source.settings,
        }, user.email);
        return { source, row };
      });
      const view = scenarioView(row);
      setAudit(ctx, { entityId: row.id, newValue: { ...view, cloned_from: source.id } });
      return view;
    },
  });
}
