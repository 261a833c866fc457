import {
  clearSegmentParams, deleteMeioParameterSet, deleteSegmentParams, findMeioParameterSetByName, getMeioParameterSet, getMeioScenario, insertMeioParameterSet,
  listMeioParameterSets, listSegmentParams, lockMeioScenario, MEIO_SCENARIO_RECORD, meioParameterSetIds, renumberMeioParameterSets,
  scenarioOfParameterSet, segmentNames, setMeioParameterSetSegments, unknownSegmentIds, updateMeioParameterSet, upsertSegmentParams,
  type MeioParameterSetRow, type MeioScenarioRow, type SegmentParamsRow, type SegmentParamsWrite,
} from '../../../db/meioConfig';
import { withTenant, type Tx } from '../../../db/pool';
import type { AppContext } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { defineResource } from '../resource';
import { errors } from '../schemas';
import * as s from './schemas';

/*
 * MEIO configuration (spec §4.9, docs/INVENTORY_CONFIG.md). Reading is open to every user; writing needs
 * can_run_process or an admin role, as for the forecasting parameter sets, since both steer what a run computes.
 * Every write below a scenario locks the scenario row first (db/meioConfig.ts lockMeioScenario).
 */

export const meioScenarioView = (r: MeioScenarioRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  service_type: r.service_type,
  target_service: r.target_service,
  policy: r.policy,
  review_period_weeks: r.review_period_weeks,
  holding_rate: r.holding_rate,
  ordering_cost: r.ordering_cost,
  budget: r.budget,
  is_default: r.is_default,
  demand_statistical: r.demand_statistical,
  demand_causal: r.demand_causal,
  demand_maintenance: r.demand_maintenance,
  created_by: r.created_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const segmentParamsView = (r: SegmentParamsRow) => ({
  scenario_id: r.scenario_id,
  segment_id: r.segment_id,
  segment_name: r.segment_name,
  target_service: r.target_service,
  service_type: r.service_type,
  holding_rate: r.holding_rate,
  updated_by: r.updated_by,
  updated_at: r.updated_at,
});

export const meioSetView = (r: MeioParameterSetRow) => ({
  id: r.id,
  scenario_id: r.scenario_id,
  name: r.name,
  description: r.description,
  priority: r.priority,
  is_active: r.is_active,
  values: r.values,
  segment_ids: [...r.segment_ids],
  created_by: r.created_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const notFoundScenario = (id: number) => notFound(`MEIO scenario ${id} not found`);
const notFoundSet = (id: number) => notFound(`MEIO parameter set ${id} not found`);

/** For writes: the scenario, locked until the transaction ends. */
async function lockedScenario(tx: Tx, id: number): Promise<MeioScenarioRow> {
  const row = await lockMeioScenario(tx, id);
  if (!row) throw notFoundScenario(id);
  return row;
}

async function scenarioExists(tx: Tx, id: number): Promise<void> {
  if (!(await getMeioScenario(tx, id))) throw notFoundScenario(id);
}

/** The set and its scenario, the scenario locked; 404 when the set does not exist (or vanished while waiting). */
async function lockedSet(tx: Tx, psetId: number): Promise<{ scenarioId: number; set: MeioParameterSetRow }> {
  const scenarioId = await scenarioOfParameterSet(tx, psetId);
  if (scenarioId === null || !(await lockMeioScenario(tx, scenarioId))) throw notFoundSet(psetId);
  const set = await getMeioParameterSet(tx, psetId);
  if (!set) throw notFoundSet(psetId);
  return { scenarioId, set };
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

async function checkSegmentsExist(tx: Tx, field: string, ids: readonly number[]): Promise<void> {
  const unknown = await unknownSegmentIds(tx, ids);
  if (unknown.length) throw badRequest(`${field}: ${plural(unknown.length, 'segment', 'segments')} ${unknown.join(', ')} ${plural(unknown.length, 'does', 'do')} not exist`);
}

async function checkSetNameFree(tx: Tx, scenarioId: number, name: string, exceptId?: number): Promise<void> {
  const clash = await findMeioParameterSetByName(tx, scenarioId, name, exceptId);
  if (clash) throw conflict(`body.name: MEIO parameter set ${clash.id} of scenario ${scenarioId} is already named '${clash.name}'`);
}

/** `ids` with `id` moved to 1-based `position` (or added there). */
function placeAt(ids: readonly number[], id: number, position: number): number[] {
  const rest = ids.filter((x) => x !== id);
  rest.splice(position - 1, 0, id);
  return rest;
}

function checkPosition(position: number, max: number, scenarioId: number, count: number): void {
  if (position > max) {
    throw badRequest(`body.priority must be <= ${max} (MEIO scenario ${scenarioId} has ${count} parameter ${plural(count, 'set', 'sets')}; priorities are 1..n)`);
  }
}

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

export function registerMeioConfigRoutes(table: RouteTable): void {
  const tag = 'meio';

  defineResource(table, {
    path: '/api/meio/scenarios', tag, noun: 'MEIO scenario', entityType: 'meio_scenario',
    record: MEIO_SCENARIO_RECORD, view: (r) => meioScenarioView(r as unknown as MeioScenarioRow),
    schemas: { row: s.scenarioSchema, create: s.createScenarioBody, update: s.updateScenarioBody },
    filters: s.scenarioFilters,
    sortable: ['id', 'name', 'created_at', 'updated_at'],
    permissions: { read: 'user', write: 'run_process' },
    descriptions: {
      list: 'MEIO scenarios, ordered by id unless `sort` says otherwise. The total count is in the `X-Total-Count` header.',
      get: 'A MEIO scenario: the service target, policy and costs a meio run starts from, before segment parameters, parameter sets and IO overrides (docs/INVENTORY_CONFIG.md).',
      create:
        'Defaults: service_type fill_rate, target_service 0.95, policy rQ, review_period_weeks 1, holding_rate 0.25 (a year, of the unit cost), ordering_cost 50, budget null (no cap), is_default false, demand_statistical true, demand_causal false, demand_maintenance true (docs/INVENTORY_CONFIG.md "Which demand MEIO plans"). `is_default: true` unmarks the previous default. Needs can_run_process or an admin role.',
      update: 'Partial: only the fields sent change. `is_default: true` unmarks the previous default; `false` on the default leaves the tenant without one.',
      delete: 'Its segment parameters and parameter sets (with their segment links) go with it. The default scenario may be deleted too: the tenant is then left without one.',
    },
    hooks: {
      prepare: (body, { user, old }) => ({
        ...body,
        ...(typeof body.name === 'string' ? { name: body.name.trim() } : {}),
        ...(old ? {} : { created_by: user.email }),
      }),
    },
  });

  // ---------------------------------------------------------------- segment parameters

  const paramsEntity = 'meio_scenario.segment_params';

  defineRoute(table, {
    method: 'get', path: '/api/meio/scenarios/{id}/segment-params', tag,
    summary: "A MEIO scenario's per-segment overrides",
    description: 'Ordered by segment id. A series in several segments takes the override with the highest target.',
    params: s.idParams('id'),
    responses: { 200: { description: 'segment parameters', schema: { type: 'array', items: s.segmentParamsSchema } }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await scenarioExists(tx, params.id);
        return (await listSegmentParams(tx, params.id)).map(segmentParamsView);
      }),
  });

  defineRoute(table, {
    method: 'put', path: '/api/meio/scenarios/{id}/segment-params', tag, permission: 'run_process',
    summary: 'Insert or replace per-segment overrides',
    description:
      "Each entry replaces its segment's override as a whole (an omitted service_type or holding_rate becomes null: the scenario's applies); segments not listed keep theirs. A segment listed twice or one that does not exist is a 400 and nothing changes. Returns every override of the scenario.",
    params: s.idParams('id'), body: s.segmentParamsBody, audit: { entityType: paramsEntity, action: 'upsert' },
    responses: { 200: { description: 'every segment parameter row of the scenario', schema: { type: 'array', items: s.segmentParamsSchema } }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const rows: SegmentParamsWrite[] = body.segment_params;
      const seen = new Map<number, number>();
      rows.forEach((r, i) => {
        const first = seen.get(r.segment_id);
        if (first !== undefined) throw badRequest(`body.segment_params[${i}].segment_id: segment ${r.segment_id} is already listed at [${first}]`);
        seen.set(r.segment_id, i);
      });
      const { before, after } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockedScenario(tx, params.id);
        await checkSegmentsExist(tx, 'body.segment_params', rows.map((r) => r.segment_id));
        const before = await listSegmentParams(tx, params.id);
        await upsertSegmentParams(tx, params.id, rows, user.email);
        return { before, after: await listSegmentParams(tx, params.id) };
      });
      const view = after.map(segmentParamsView);
      setAudit(ctx, { entityId: params.id, oldValue: before.map(segmentParamsView), newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/meio/scenarios/{id}/segment-params/{seg}', tag, permission: 'run_process',
    summary: "Remove one segment's override",
    description: 'A 404 when the scenario has no override for the segment.',
    params: s.segmentParamsPath, audit: { entityType: paramsEntity, action: 'delete' },
    responses: { 200: { description: 'removed', schema: s.deleteSegmentParamsResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockedScenario(tx, params.id);
        const old = (await listSegmentParams(tx, params.id)).find((r) => r.segment_id === params.seg);
        if (!old) throw notFound(`MEIO scenario ${params.id} has no segment parameters for segment ${params.seg}`);
        await deleteSegmentParams(tx, params.id, params.seg);
        return old;
      });
      setAudit(ctx, { entityId: params.id, oldValue: segmentParamsView(old), newValue: { deleted: true, segment_ids: [params.seg] } });
      return { status: 'deleted', scenario_id: params.id, segment_ids: [params.seg] };
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/meio/scenarios/{id}/segment-params', tag, permission: 'run_process',
    summary: "Remove every segment override of a MEIO scenario",
    description: 'Answers 200 with the segments that had one (none is not an error).',
    params: s.idParams('id'), audit: { entityType: paramsEntity, action: 'clear' },
    responses: { 200: { description: 'removed', schema: s.deleteSegmentParamsResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const before = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockedScenario(tx, params.id);
        const before = await listSegmentParams(tx, params.id);
        await clearSegmentParams(tx, params.id);
        return before;
      });
      const ids = before.map((r) => r.segment_id);
      setAudit(ctx, { entityId: params.id, oldValue: before.map(segmentParamsView), newValue: { deleted: true, segment_ids: ids } });
      return { status: 'deleted', scenario_id: params.id, segment_ids: ids };
    },
  });

  // ---------------------------------------------------------------- parameter sets

  const setEntity = 'meio_parameter_set';

  defineRoute(table, {
    method: 'put', path: '/api/meio/scenarios/{id}/parameter-sets/reorder', tag, permission: 'run_process',
    summary: "Reorder a MEIO scenario's parameter sets",
    description:
      '`ordered_ids` must list every set of the scenario exactly once: an id of another scenario or none, a repeated or a missing id is a 400 and nothing moves. Priorities become 1..n. Returns the sets in their new order.',
    params: s.idParams('id'), body: s.reorderBody, audit: { entityType: 'meio_scenario.parameter_sets', action: 'reorder' },
    responses: { 200: { description: 'the sets in their new order', schema: { type: 'array', items: s.psetSchema } }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const ids: number[] = body.ordered_ids;
      const { before, rows } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockedScenario(tx, params.id);
        const before = await meioParameterSetIds(tx, params.id);
        const mine = new Set(before);
        ids.forEach((id, i) => {
          if (!mine.has(id)) throw badRequest(`body.ordered_ids[${i}]: parameter set ${id} is not a set of MEIO scenario ${params.id}`);
        });
        const given = new Set(ids);
        const missing = before.filter((id) => !given.has(id));
        if (missing.length) {
          throw badRequest(`body.ordered_ids: missing parameter ${plural(missing.length, 'set', 'sets')} ${missing.join(', ')}; list every set of MEIO scenario ${params.id} exactly once`);
        }
        await renumberMeioParameterSets(tx, params.id, ids);
        return { before, rows: await listMeioParameterSets(tx, params.id) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: { ordered_ids: before }, newValue: { ordered_ids: ids } });
      return rows.map(meioSetView);
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/meio/scenarios/{id}/parameter-sets', tag,
    summary: "A MEIO scenario's parameter sets",
    description: 'In the order they are tried: priority 1 first. Inactive sets are listed too.',
    params: s.idParams('id'),
    responses: { 200: { description: 'parameter sets', schema: { type: 'array', items: s.psetSchema } }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await scenarioExists(tx, params.id);
        return (await listMeioParameterSets(tx, params.id)).map(meioSetView);
      }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/meio/scenarios/{id}/parameter-sets', tag, permission: 'run_process', status: 201,
    summary: 'Create a MEIO parameter set',
    description:
      '`values` may set target_service, service_type, holding_rate, ordering_cost, policy and review_period_weeks (400 naming an unknown key or a bad value). Without `priority` the set goes last; with one it takes that position (at most n+1) and the sets from there move down. `segment_ids` must name existing segments; none means every series.',
    params: s.idParams('id'), body: s.createPsetBody, audit: { entityType: setEntity, action: 'create' },
    responses: { 201: { description: 'created set', schema: s.psetSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const name = body.name.trim();
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockedScenario(tx, params.id);
        const ids = await meioParameterSetIds(tx, params.id);
        if (body.priority !== undefined) checkPosition(body.priority, ids.length + 1, params.id, ids.length);
        await checkSetNameFree(tx, params.id, name);
        await checkSegmentsExist(tx, 'body.segment_ids', body.segment_ids);
        const id = await insertMeioParameterSet(tx, params.id, { name, description: body.description, is_active: body.is_active, values: body.values }, user.email);
        await setMeioParameterSetSegments(tx, id, body.segment_ids);
        if (body.priority !== undefined && body.priority <= ids.length) await renumberMeioParameterSets(tx, params.id, placeAt(ids, id, body.priority));
        return (await getMeioParameterSet(tx, id))!;
      });
      const view = meioSetView(row);
      setAudit(ctx, { entityId: row.id, newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'put', path: '/api/meio/parameter-sets/{pset_id}', tag, permission: 'run_process',
    summary: 'Update a MEIO parameter set',
    description:
      'Partial: only the fields sent change; `values` and `segment_ids` are replaced as a whole. `priority` moves the set to that position (at most n) and shifts the sets between.',
    params: s.psetParams, body: s.updatePsetBody, audit: { entityType: setEntity, action: 'update' },
    responses: { 200: { description: 'updated set', schema: s.psetSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const name = body.name?.trim();
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { scenarioId, set: old } = await lockedSet(tx, params.pset_id);
        const ids = await meioParameterSetIds(tx, scenarioId);
        if (body.priority !== undefined) checkPosition(body.priority, ids.length, scenarioId, ids.length);
        if (name !== undefined) await checkSetNameFree(tx, scenarioId, name, old.id);
        if (body.segment_ids) await checkSegmentsExist(tx, 'body.segment_ids', body.segment_ids);
        await updateMeioParameterSet(tx, old.id, { name, description: body.description, is_active: body.is_active, values: body.values });
        if (body.segment_ids) await setMeioParameterSetSegments(tx, old.id, body.segment_ids);
        if (body.priority !== undefined) await renumberMeioParameterSets(tx, scenarioId, placeAt(ids, old.id, body.priority));
        return { old, row: (await getMeioParameterSet(tx, old.id))! };
      });
      const view = meioSetView(row);
      setAudit(ctx, { entityId: row.id, oldValue: meioSetView(old), newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/meio/parameter-sets/{pset_id}', tag, permission: 'run_process',
    summary: 'Delete a MEIO parameter set',
    description: 'Its segment links go with it; the sets after it move up one, so priorities stay 1..n.',
    params: s.psetParams, audit: { entityType: setEntity, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deletePsetResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { scenarioId, set } = await lockedSet(tx, params.pset_id);
        await deleteMeioParameterSet(tx, set.id);
        await renumberMeioParameterSets(tx, scenarioId, await meioParameterSetIds(tx, scenarioId));
        return set;
      });
      setAudit(ctx, { entityId: params.pset_id, oldValue: meioSetView(old), newValue: { deleted: true } });
      return { status: 'deleted', id: params.pset_id };
    },
  });

  defineRoute(table, {
    method: 'put', path: '/api/meio/parameter-sets/{pset_id}/segments', tag, permission: 'run_process',
    summary: "Replace a MEIO parameter set's segments",
    description: 'Segment ids must exist (400 naming the unknown ones, nothing changed); an empty list makes the set apply to every series.',
    params: s.psetParams, body: s.psetSegmentsBody, audit: { entityType: `${setEntity}.segments`, action: 'update' },
    responses: { 200: { description: 'linked segments', schema: s.psetSegmentsResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { old, view } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { scenarioId, set: old } = await lockedSet(tx, params.pset_id);
        await checkSegmentsExist(tx, 'body.segment_ids', body.segment_ids);
        await setMeioParameterSetSegments(tx, old.id, body.segment_ids);
        await updateMeioParameterSet(tx, old.id, {});
        const ids = (await getMeioParameterSet(tx, old.id))!.segment_ids;
        const names = await segmentNames(tx, ids);
        return {
          old,
          view: {
            parameter_set_id: old.id, scenario_id: scenarioId, segment_ids: [...ids],
            segments: ids.map((id) => ({ id, name: names.get(id)! })), applies_to_all: ids.length === 0,
          },
        };
      });
      setAudit(ctx, { entityId: params.pset_id, oldValue: { segment_ids: old.segment_ids }, newValue: { segment_ids: view.segment_ids } });
      return view;
    },
  });
}
