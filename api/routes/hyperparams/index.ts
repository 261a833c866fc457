import { deleteSeriesOverrides, listSeriesOverrides, upsertSeriesOverride, type HyperparamRow } from '../../../db/hyperparams';
import { withTenant, type Tx } from '../../../db/pool';
import { FORECAST_METHOD_NAMES, METHOD_HYPERPARAMS, overrideTarget, PARAMETER_DEFAULTS, PARAMETER_TYPES } from '../../../domain/parameters/defaults';
import type { AuthUser } from '../../context';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { overrideRow, uniqueIdParams } from '../parameters/schemas';
import { checkValues } from '../parameters/validate';
import { errors, obj, out } from '../schemas';
import { visibleSeries } from '../segments/access';

const overridesResponse = out({
  unique_id: { type: 'string' },
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  overrides: { type: 'array', items: overrideRow, description: 'one entry per target, by target name' },
});

const putBody = obj(
  {
    method: {
      type: 'string', enum: [...FORECAST_METHOD_NAMES, ...PARAMETER_TYPES],
      'x-refusal': `'{value}' is neither a forecasting method nor a parameter type (methods: ${FORECAST_METHOD_NAMES.join(', ')}; types: ${PARAMETER_TYPES.join(', ')})`,
      description: `the target: a forecasting method (${FORECAST_METHOD_NAMES.join(', ')}), whose hyperparameters \`overrides\` sets, or a parameter type (${PARAMETER_TYPES.join(', ')}), whose keys it sets`,
    },
    overrides: { type: 'object', minProperties: 1, maxProperties: 200, description: "keys of the target and their values, checked against the catalogue; replaces the target's previous overrides" },
  },
  ['method', 'overrides'],
);

const deleteQuery = obj({ method: { type: 'string', minLength: 1, maxLength: 100, description: 'remove only this target; all targets of the series when absent' } });

const deleteResponse = out({
  status: { type: 'string', const: 'deleted' },
  unique_id: { type: 'string' },
  removed: { type: 'array', items: { type: 'string' }, description: 'targets whose overrides were removed' },
});

const rowView = (r: HyperparamRow) => ({ method: r.method, parameter_type: r.parameter_type, overrides: r.overrides, updated_by: r.updated_by, updated_at: r.updated_at });

/** 404 for an unknown series, 403 for one outside the caller's (editable) segments. */
async function seriesOr404(tx: Tx, user: AuthUser, uid: string, edit = false) {
  const { itemId, siteId } = await visibleSeries(tx, user, uid, { edit });
  return { item_id: itemId, site_id: siteId };
}

/** Checks the target and its keys against the catalogue; returns the parameter type the overrides belong to. */
function checkOverride(method: string, overrides: Record<string, unknown>): string {
  const target = overrideTarget(method);
  if (!target) {
    throw badRequest(`body.method: '${method}' is neither a forecasting method nor a parameter type (methods: ${FORECAST_METHOD_NAMES.join(', ')}; types: ${PARAMETER_TYPES.join(', ')})`);
  }
  if (target.prefix && !Object.keys(METHOD_HYPERPARAMS[method]).length) throw badRequest(`body.method: forecasting method '${method}' has no hyperparameters to override`);
  checkValues('body.overrides', overrides, PARAMETER_DEFAULTS[target.parameter_type], target.prefix ? `forecasting method '${method}'` : `parameter type '${method}'`, target.prefix);
  return target.parameter_type;
}

/** Per-series overrides (spec §4.3): level 3 of the parameter hierarchy, winning over every set and default. */
export function registerHyperparamRoutes(table: RouteTable): void {
  const tag = 'parameters';

  defineRoute(table, {
    method: 'get', path: '/api/hyperparams/{unique_id}', tag,
    summary: "A series' parameter overrides",
    description: 'One entry per target (a forecasting method or a parameter type). GET /api/series/{unique_id}/parameters shows their effect. An unknown series is a 404; one outside the caller\'s segments a 403.',
    params: uniqueIdParams,
    responses: { 200: { description: 'overrides', schema: overridesResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const key = await seriesOr404(tx, user, params.unique_id);
        return { unique_id: `${key.item_id}_${key.site_id}`, ...key, overrides: (await listSeriesOverrides(tx, key)).map(rowView) };
      }),
  });

  defineRoute(table, {
    method: 'put', path: '/api/hyperparams/{unique_id}', tag, permission: 'create_override',
    summary: "Set a series' overrides for one target",
    description:
      "`method` names the target: a forecasting method (`overrides` are its hyperparameters, e.g. `{method: 'ses', overrides: {alpha: 0.3}}`, i.e. forecast key `ses.alpha`) or a parameter type (`{method: 'outlier', overrides: {threshold: 4}}`). Keys and values are checked against the catalogue (400 naming the key). Replaces the target's previous overrides; other targets stay. Needs `can_create_override` (or an admin).",
    params: uniqueIdParams, body: putBody, audit: { entityType: 'hyperparams', action: 'update' },
    responses: { 200: { description: "the series' overrides", schema: overridesResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const type = checkOverride(body.method, body.overrides);
      const { key, old, rows } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const key = await seriesOr404(tx, user, params.unique_id, true);
        const old = await upsertSeriesOverride(tx, key, body.method, type, body.overrides, user.email);
        return { key, old, rows: await listSeriesOverrides(tx, key) };
      });
      const uid = `${key.item_id}_${key.site_id}`;
      ctx.state.audit = { ...ctx.state.audit, entityId: uid, oldValue: old ? { method: old.method, overrides: old.overrides } : null, newValue: { method: body.method, overrides: body.overrides } };
      return { unique_id: uid, ...key, overrides: rows.map(rowView) };
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/hyperparams/{unique_id}', tag, permission: 'create_override',
    summary: "Remove a series' overrides",
    description: 'All targets, or only `method`. Removing a target the series has no overrides for is a 404. Needs `can_create_override` (or an admin).',
    params: uniqueIdParams, query: deleteQuery, audit: { entityType: 'hyperparams', action: 'delete' },
    responses: { 200: { description: 'removed', schema: deleteResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, query, user }) => {
      const { key, removed } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const key = await seriesOr404(tx, user, params.unique_id, true);
        const removed = await deleteSeriesOverrides(tx, key, query.method);
        if (query.method !== undefined && !removed.length) throw notFound(`Series ${params.unique_id} has no overrides for '${query.method}'`);
        return { key, removed };
      });
      const uid = `${key.item_id}_${key.site_id}`;
      ctx.state.audit = { ...ctx.state.audit, entityId: uid, oldValue: removed.map((r) => ({ method: r.method, overrides: r.overrides })), newValue: { deleted: true } };
      return { status: 'deleted', unique_id: uid, removed: removed.map((r) => r.method) };
    },
  });
}
