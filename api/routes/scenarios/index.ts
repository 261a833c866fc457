import { lockPipelines, pipelinesOfScenario } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import {
  deleteScenario, findScenarioByName, getScenario, insertScenario, lockScenarios, SCENARIO_RECORD, type ScenarioRow,
} from '../../../db/scenarios';
import type { AppContext } from '../../context';
import { conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { defineResource } from '../resource';
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

  defineResource(table, {
    path: '/api/forecast/scenarios', tag, noun: 'Forecast scenario', entityType,
    record: SCENARIO_RECORD, view: (r) => scenarioView(r as unknown as ScenarioRow),
    schemas: { row: s.scenarioSchema, create: s.createScenarioBody, update: s.updateScenarioBody },
    filters: {
      name: { schema: { type: 'string', minLength: 1, maxLength: 200, description: 'part of the name, ignoring case' }, op: 'ilike' },
      is_baseline: { schema: { type: 'boolean', description: 'only the baseline (true) or only the others (false)' } },
    },
    sortable: ['id', 'name', 'created_at', 'updated_at'],
    permissions: { read: 'user', write: 'user' },
    operations: ['list', 'get', 'create', 'update'],
    descriptions: {
      list: 'Ordered by id unless `sort` says otherwise. The total count is in the `X-Total-Count` header.',
      create: 'A scenario names the forecast methods and horizon a forecast run uses. `is_baseline: true` makes it the tenant\'s baseline and unmarks the previous one. Defaults: horizon 52 weeks, methods `[]` (each series\' recommended methods), settings `{}`.',
      update: 'Partial: only the fields sent change; `settings` is replaced as a whole. `is_baseline: true` unmarks the previous baseline; `false` on the baseline leaves the tenant without one.',
    },
    hooks: {
      prepare: (body, { user, old }) => ({
        ...body,
        ...(typeof body.name === 'string' ? { name: body.name.trim() } : {}),
        ...(old ? {} : { created_by: user.email }),
      }),
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
