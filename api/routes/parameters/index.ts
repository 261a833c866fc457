import { materialiseAssignments, resolveSeriesParameters } from '../../../db/parameterResolution';
import { listSeriesOverrides } from '../../../db/hyperparams';
import {
  assignmentsOfSeries, deleteParameterSet, dropAssignmentsOfOtherTypes, findParameterSetByName, getParameterSet, insertParameterSet,
  listParameterSets, lockParameterSets, membershipsInRange, nextPriority, parameterSetIdsOfType, reorderParameterSets, segmentNames,
  seriesChunks, seriesCount, setParameterSetSegments, typesOfParameterSets, unknownSegmentIds, updateParameterSet,
  type ParameterSetRow,
} from '../../../db/parameterSets';
import { withTenant, type Tx } from '../../../db/pool';
import { FORECAST_METHOD_NAMES, PARAMETER_DEFAULTS, PARAMETER_TYPES } from '../../../domain/parameters/defaults';
import type { AppContext } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { newJobId } from '../../jobs/service';
import { defineRoute, type RouteTable } from '../define';
import { launch } from '../pipeline';
import { visibleSeries } from '../segments/access';
import { errors } from '../schemas';
import * as s from './schemas';
import { checkSetValues } from './validate';

/** POST /api/parameters/resolve with mode auto resolves in the request up to this many series, else starts a job. */
export const RESOLVE_SYNC_MAX_SERIES = 5000;

export const setView = (r: ParameterSetRow) => ({
  id: r.id,
  parameter_type: r.parameter_type,
  name: r.name,
  description: r.description,
  priority: r.priority,
  values: r.values,
  segment_ids: [...r.segment_ids],
  is_active: r.is_active,
  created_by: r.created_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

async function setOr404(tx: Tx, id: number): Promise<ParameterSetRow> {
  const row = await getParameterSet(tx, id);
  if (!row) throw notFound(`Parameter set ${id} not found`);
  return row;
}

async function checkNameFree(tx: Tx, type: string, name: string, exceptId?: number): Promise<void> {
  const clash = await findParameterSetByName(tx, type, name, exceptId);
  if (clash) throw conflict(`body.name: parameter set ${clash.id} of type '${type}' is already named '${clash.name}'`);
}

async function checkSegments(tx: Tx, ids: readonly number[] | undefined): Promise<void> {
  if (!ids?.length) return;
  const unknown = await unknownSegmentIds(tx, ids);
  if (unknown.length) throw badRequest(`body.segment_ids: segment${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} ${unknown.length > 1 ? 'do' : 'does'} not exist`);
}

const setAudit = (ctx: AppContext, note: { entityId?: number | string | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

export function registerParameterRoutes(table: RouteTable): void {
  const tag = 'parameters';
  const entityType = 'parameter_set';

  // Fixed paths first, so `catalogue`, `reorder` and `resolve` are never read as an id.
  defineRoute(table, {
    method: 'get', path: '/api/parameters/catalogue', tag,
    summary: 'The parameter catalogue: global defaults per parameter type',
    description:
      "Level 1 of the hierarchy: every key the steps read, per parameter type, with its default, JSON Schema and meaning. Parameter sets and per-series overrides may only set these keys. Forecasting methods' hyperparameters are the forecast keys `<method>.<key>`. Not in the spec.",
    responses: { 200: { description: 'catalogue', schema: s.catalogueResponse }, ...errors(401) },
    handler: () => ({ parameter_types: PARAMETER_DEFAULTS, forecast_methods: [...FORECAST_METHOD_NAMES] }),
  });

  defineRoute(table, {
    method: 'put', path: '/api/parameters/reorder', tag, permission: 'run_process',
    summary: 'Reorder the parameter sets of one type',
    description:
      '`ordered_ids` must list every set of `parameter_type` exactly once; an unknown id, an id of another type, a repeated or a missing id is a 400 and nothing moves. Priorities become 1..n. Returns the sets of the type in their new order.',
    body: s.reorderBody, audit: { entityType, action: 'reorder' },
    responses: { 200: { description: 'sets of the type in their new order', schema: { type: 'array', items: s.setSchema } }, ...errors(400, 401, 403) },
    handler: async (ctx, { body, user }) => {
      const type: string = body.parameter_type;
      const ids: number[] = body.ordered_ids;
      const { before, rows } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockParameterSets(tx);
        const types = await typesOfParameterSets(tx, ids);
        ids.forEach((id, i) => {
          const t = types.get(id);
          if (!t) throw badRequest(`body.ordered_ids[${i}]: parameter set ${id} does not exist`);
          if (t !== type) throw badRequest(`body.ordered_ids[${i}]: parameter set ${id} is of type '${t}', not '${type}'`);
        });
        const before = await parameterSetIdsOfType(tx, type);
        const given = new Set(ids);
        const missing = before.filter((id) => !given.has(id));
        if (missing.length) throw badRequest(`body.ordered_ids: missing parameter set${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; list every set of type '${type}' exactly once`);
        await reorderParameterSets(tx, ids);
        return { before, rows: (await listParameterSets(tx, { parameter_type: type, skip: 0, limit: 100000 })).rows };
      });
      setAudit(ctx, { entityId: null, oldValue: { parameter_type: type, ordered_ids: before }, newValue: { parameter_type: type, ordered_ids: ids } });
      return rows.map(setView);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/parameters/resolve', tag, permission: 'run_process',
    summary: "Resolve every series' parameter assignment",
    description: `Materialises, per series and parameter type, the active sets that apply in priority order (table series_parameter_assignment) through the one resolution function. Mode \`auto\` resolves in the request for up to ${RESOLVE_SYNC_MAX_SERIES} series and starts a job (kind \`parameters_resolve\`, followed like any job at /api/pipeline/jobs/{job_id}) above that. Steps never depend on it: they resolve live.`,
    body: s.resolveBody, audit: { entityType: 'parameter_assignment', action: 'resolve' },
    responses: { 200: { description: 'resolved, or job started', schema: s.resolveResponse }, ...errors(400, 401, 403, 503) },
    handler: async (ctx, { body, user }) => {
      const total = await withTenant(ctx.deps.db, user.accountId, seriesCount);
      const mode = body.mode === 'auto' ? (total <= RESOLVE_SYNC_MAX_SERIES ? 'sync' : 'job') : body.mode;
      if (body.run_id && mode !== 'job') throw badRequest('body.run_id is only used with a job (mode job, or auto above the sync limit)');
      if (mode === 'job') {
        const jobId = body.run_id ?? newJobId('parameters');
        const started = await launch(ctx, user, { job_id: jobId, kind: 'parameters_resolve', created_by: user.email, params: { series: total } }, 'parametersResolve', [
          { jobId, accountId: user.accountId, createdBy: user.email },
        ]);
        return { status: 'queued', mode, job_id: started.job_id, series: total, assignments: null };
      }
      const r = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockParameterSets(tx);
        const [all] = await seriesChunks(tx, 2_000_000_000);
        const done = all ? await materialiseAssignments(tx, all.from, all.to, null) : { series: 0, rows: 0 };
        await dropAssignmentsOfOtherTypes(tx, PARAMETER_TYPES);
        return done;
      });
      setAudit(ctx, { entityId: null, newValue: { mode, series: r.series, assignments: r.rows } });
      return { status: 'completed', mode, job_id: null, series: r.series, assignments: r.rows };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/parameters', tag,
    summary: 'List parameter sets',
    description: 'Ordered by parameter type, priority, id; `parameter_type` filters. The total count is in the `X-Total-Count` header.',
    query: s.listQuery,
    responses: { 200: { description: 'parameter sets', schema: { type: 'array', items: s.setSchema } }, ...errors(400, 401) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => listParameterSets(tx, query));
      ctx.set('X-Total-Count', String(total));
      return rows.map(setView);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/parameters', tag, permission: 'run_process', status: 201,
    summary: 'Create a parameter set',
    description:
      "`values` may only hold keys of the type's catalogue with values its schema accepts (400 naming the key otherwise). Without `priority` the set goes last in its type. `segment_ids` must name existing segments; none means every series.",
    body: s.createSetBody, audit: { entityType, action: 'create' },
    responses: { 201: { description: 'created set', schema: s.setSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body, user }) => {
      const name = body.name.trim();
      checkSetValues(body.parameter_type, body.values);
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockParameterSets(tx);
        await checkNameFree(tx, body.parameter_type, name);
        await checkSegments(tx, body.segment_ids);
        const priority = body.priority ?? (await nextPriority(tx, body.parameter_type));
        const id = await insertParameterSet(tx, { parameter_type: body.parameter_type, name, description: body.description, priority, values: body.values, is_active: body.is_active }, user.email);
        await setParameterSetSegments(tx, id, body.segment_ids);
        return (await getParameterSet(tx, id))!;
      });
      const view = setView(row);
      setAudit(ctx, { entityId: row.id, newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/parameters/{id}', tag,
    summary: 'One parameter set',
    params: s.idParams('id'),
    responses: { 200: { description: 'parameter set', schema: s.setSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) => setView(await withTenant(ctx.deps.db, user.accountId, (tx) => setOr404(tx, params.id))),
  });

  defineRoute(table, {
    method: 'put', path: '/api/parameters/{id}', tag, permission: 'run_process',
    summary: 'Update a parameter set',
    description: 'Partial: only the fields sent change; `values` and `segment_ids` are replaced as a whole. The parameter type cannot change.',
    params: s.idParams('id'), body: s.updateSetBody, audit: { entityType, action: 'update' },
    responses: { 200: { description: 'updated set', schema: s.setSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const name = body.name?.trim();
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockParameterSets(tx);
        const old = await setOr404(tx, params.id);
        if (body.values) checkSetValues(old.parameter_type, body.values);
        if (name !== undefined) await checkNameFree(tx, old.parameter_type, name, params.id);
        await checkSegments(tx, body.segment_ids);
        await updateParameterSet(tx, params.id, { name, description: body.description, priority: body.priority, values: body.values, is_active: body.is_active });
        if (body.segment_ids) await setParameterSetSegments(tx, params.id, body.segment_ids);
        return { old, row: (await getParameterSet(tx, params.id))! };
      });
      const view = setView(row);
      setAudit(ctx, { entityId: row.id, oldValue: setView(old), newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/parameters/{id}', tag, permission: 'run_process',
    summary: 'Delete a parameter set',
    description: 'Its segment links go with it, and it is taken out of the materialised assignments.',
    params: s.idParams('id'), audit: { entityType, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deleteResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockParameterSets(tx);
        const old = await setOr404(tx, params.id);
        await deleteParameterSet(tx, params.id);
        return old;
      });
      setAudit(ctx, { entityId: params.id, oldValue: setView(old), newValue: { deleted: true } });
      return { status: 'deleted', id: params.id };
    },
  });

  const segmentsView = async (tx: Tx, row: ParameterSetRow) => {
    const names = await segmentNames(tx, row.segment_ids);
    return {
      parameter_set_id: row.id, parameter_type: row.parameter_type, segment_ids: [...row.segment_ids],
      segments: row.segment_ids.map((id) => ({ id, name: names.get(id) ?? null })), applies_to_all: row.segment_ids.length === 0,
    };
  };

  defineRoute(table, {
    method: 'get', path: '/api/parameters/{id}/segments', tag,
    summary: 'Segments a parameter set applies to',
    description: 'No segments means the set applies to every series.',
    params: s.idParams('id'),
    responses: { 200: { description: 'linked segments', schema: s.segmentsResponse }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => segmentsView(tx, await setOr404(tx, params.id))),
  });

  defineRoute(table, {
    method: 'put', path: '/api/parameters/{id}/segments', tag, permission: 'run_process',
    summary: "Replace a parameter set's segments",
    description: 'Segment ids must exist (400 naming the unknown ones); an empty list makes the set apply to every series.',
    params: s.idParams('id'), body: s.segmentsBody, audit: { entityType: 'parameter_set.segments', action: 'update' },
    responses: { 200: { description: 'linked segments', schema: s.segmentsResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { old, view } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockParameterSets(tx);
        const old = await setOr404(tx, params.id);
        await checkSegments(tx, body.segment_ids);
        await setParameterSetSegments(tx, params.id, body.segment_ids);
        await updateParameterSet(tx, params.id, {});
        return { old, view: await segmentsView(tx, (await getParameterSet(tx, params.id))!) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: { segment_ids: old.segment_ids }, newValue: { segment_ids: view.segment_ids } });
      return view;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/series/{unique_id}/parameters', tag,
    summary: "A series' effective parameters",
    description:
      'The three-level hierarchy resolved live for the series: per parameter type every effective value and its source (`default`, `set` with its id and name, or `override` with its target), the applicable sets in the order they are tried, the per-series overrides and the last materialised assignment. `parameter_type` limits the answer to one type. An unknown series is a 404; one outside the caller\'s segments a 403.',
    params: s.uniqueIdParams, query: s.seriesParametersQuery,
    responses: { 200: { description: 'effective parameters', schema: s.seriesParametersResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, query, user }) => {
      return withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { itemId, siteId } = await visibleSeries(tx, user, params.unique_id);
        const key = { item_id: itemId, site_id: siteId };
        const types = query.parameter_type ? [query.parameter_type] : PARAMETER_TYPES;
        const parameters = await resolveSeriesParameters(tx, key.item_id, key.site_id, types);
        const overrides = await listSeriesOverrides(tx, key);
        const assignment = (await assignmentsOfSeries(tx, key)).filter((a) => types.includes(a.parameter_type));
        return {
          unique_id: `${key.item_id}_${key.site_id}`, item_id: key.item_id, site_id: key.site_id,
          segment_ids: (await membershipsInRange(tx, key, key)).map((m) => m.segment_id),
          parameters,
          overrides: overrides.filter((o) => types.includes(o.parameter_type)).map((o) => ({ method: o.method, parameter_type: o.parameter_type, overrides: o.overrides, updated_by: o.updated_by, updated_at: o.updated_at })),
          assignment: assignment.map((a) => ({ parameter_type: a.parameter_type, set_ids: [...a.set_ids], has_override: a.has_override, resolved_at: a.resolved_at })),
        };
      });
    },
  });
}
