import { segmentNames, unknownSegmentIds } from '../../../db/meioConfig';
import { withTenant, type Tx } from '../../../db/pool';
import type { RecordRow } from '../../../db/records';
import {
  getSupplyScenario, LATE_ORDER_MODES, lockSupplyScenario, normaliseParamOverrides, setSupplyParamOverrides, setSupplyScenarioSegments, SUPPLY_SCENARIO_RECORD,
  supplyRunsOfScenario, supplyScenarioSegments, type SupplyScenarioRow,
} from '../../../db/supplyScenarios';
import { resolveOptions } from '../../../domain/supply/engine';
import { scenarioFlags, scenarioOptions } from '../../../domain/supply/rules';
import type { AppContext } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { defineResource } from '../resource';
import { idParams, id32, MAX_CONFIG_IDS, nameSchema } from '../scenarios/schemas';
import { errors, nullable, obj, out } from '../schemas';
import type { JsonSchema } from '../validation';

/*
 * Supply scenarios (spec §4.8, document 2 §4.2; docs/SUPPLY.md "Supply scenarios and master data"). Reading is open
 * to every user; writing needs can_run_process or an admin role, as for MEIO scenarios, since a scenario steers what
 * a supply run computes. There is always exactly one default (run-all plans with it): the seeded 'Base' until another
 * is marked, and the default can be neither deleted nor unmarked, only replaced by marking another.
 */

// ---------------------------------------------------------------- schemas

const flag = (what: string): JsonSchema => ({
  description: `${what}. Any JSON value: stored as the boolean the engine reads it as (domain/supply/rules.ts coerceFlag): numbers are true when non-zero; strings true for true/t/yes/y/on/1 and false for false/f/no/n/off/0/'' (any case, spaces trimmed), other numeric strings by their value; anything else (null, other strings, objects, arrays) takes the default, false`,
});

/** The keys a scenario may override; the engine options in the API's snake_case (db/supplyScenarios.ts SUPPLY_OPTION_KEYS). */
const paramOverrides: JsonSchema = obj(
  {
    firm_orders_block_horizon: flag('document 2 §4.2 rule 2: a source type is skipped in the weeks before its latest firm order (by release date). Every firm order of the type counts, whatever its erp_status: a received order released after the planning date blocks like an open one although it is no longer supply; one released before it blocks nothing (docs/SUPPLY.md "Received firm orders")'),
    respect_lead_time: flag('document 2 §4.2 rule 4: a source type is skipped in the weeks before its shortest route lead time'),
    late_orders: {
      type: 'string', enum: [...LATE_ORDER_MODES],
      description: "an order that would be released before week 0: 'flag' (default) keeps it arriving when needed, released in a negative week and flagged late; 'arrive_late' releases it in week 0 so it arrives after the week it is needed",
    },
    max_delay_weeks: { type: 'integer', minimum: 0, maximum: 52, description: 'weeks capacity may push back what does not fit (default: to the end of the 52-week horizon; 0: never pushed, cut instead)' },
    expedite: { type: 'boolean', description: 'run the post-processor that adds BUY_EXPEDITE and TRANSFER_PREPOS orders for weeks still short (default true)' },
    excess_cover_weeks: { type: 'number', exclusiveMinimum: 0, maximum: 520, description: 'a week is in excess when projected stock exceeds safety stock plus this many weeks of mean gross demand (default 13)' },
  },
  [],
  { description: 'replaced as a whole: keys not given take their defaults. An unknown key is a 400 naming it' },
);

const storedOverrides: JsonSchema = {
  type: 'object',
  properties: { firm_orders_block_horizon: { type: 'boolean' }, respect_lead_time: { type: 'boolean' } },
  description: 'the overrides as stored: only the keys set, the two flags as booleans',
};

const effective: JsonSchema = out({
  firm_orders_block_horizon: { type: 'boolean' },
  respect_lead_time: { type: 'boolean' },
  late_orders: { type: 'string', enum: [...LATE_ORDER_MODES] },
  max_delay_weeks: nullable({ type: 'integer', description: 'null: no limit (to the end of the horizon)' }),
  expedite: { type: 'boolean' },
  excess_cover_weeks: { type: 'number' },
});

/** docs/SUPPLY.md "Which demand a plan covers"; the rule is domain/demand/streams.ts plannedWeeklyDemand. */
const demandSwitches: Record<string, JsonSchema> = {
  demand_statistical: { type: 'boolean', description: "plan the series' best-method (statistical) forecast (default true)" },
  demand_netted: {
    type: 'boolean',
    description: "in the weeks of the pipeline's last netting period, plan what consumption left of the statistical forecast (the netted forecast, docs/NETTING.md) instead of the forecast itself; nothing changes while demand_statistical is false or the pipeline has no netting refresh (default false)",
  },
  demand_causal: {
    type: 'boolean',
    description: "add the stored causal demand of the series (docs/CAUSAL.md): the site rows of the causal scenario last run for the pipeline, else for no pipeline. Off by default: it models the failures the statistical forecast already learnt from history, so with both on that demand counts twice",
  },
  demand_maintenance: { type: 'boolean', description: "add the parts planned maintenance events consume at the series (docs/MAINTENANCE.md, the events as defined) in the weeks they happen (default true)" },
};
const demandDefaults = { demand_statistical: true, demand_netted: false, demand_causal: false, demand_maintenance: true } as const;

const scenarioSchema: JsonSchema = out({
  id: { type: 'integer' },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
  param_overrides: storedOverrides,
  effective: { ...effective, description: 'what a supply run applies: the overrides over the defaults (both flags off)' },
  is_default: { type: 'boolean', description: 'the scenario run-all plans with; exactly one is' },
  ...demandSwitches,
  created_by: nullable({ type: 'string', description: 'e-mail of the user who created it' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

const description: JsonSchema = nullable({ type: 'string', maxLength: 2000 });
const isDefault: JsonSchema = { type: 'boolean', description: 'true makes this the default and unmarks the previous one; false on the default is a 409 (mark another instead)' };

const createBody = obj(
  {
    name: nameSchema,
    description: { ...description, default: null },
    param_overrides: { ...paramOverrides, default: {} },
    is_default: { ...isDefault, default: false },
    ...Object.fromEntries(Object.entries(demandSwitches).map(([k, v]) => [k, { ...v, default: demandDefaults[k as keyof typeof demandDefaults] }])),
  },
  ['name'],
);

const updateBody = obj({ name: nameSchema, description, param_overrides: paramOverrides, is_default: isDefault, ...demandSwitches }, [], { minProperties: 1 });

const segmentIds: JsonSchema = {
  type: 'array', items: id32, uniqueItems: true, maxItems: MAX_CONFIG_IDS,
  description: 'segments whose series the scenario plans; empty: every series of the pipeline',
};

const segmentsSchema: JsonSchema = out({
  scenario_id: { type: 'integer' },
  segment_ids: { type: 'array', items: { type: 'integer' } },
  segments: { type: 'array', items: out({ id: { type: 'integer' }, name: { type: 'string' } }) },
  applies_to_all: { type: 'boolean', description: 'true when the scenario has no segments: it plans every series' },
});

// ---------------------------------------------------------------- views

export const supplyScenarioView = (r: SupplyScenarioRow) => {
  const o = resolveOptions(scenarioOptions(r.param_overrides));
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    param_overrides: r.param_overrides,
    effective: {
      ...scenarioFlags(r.param_overrides),
      late_orders: o.lateOrders,
      max_delay_weeks: Number.isFinite(o.maxDelayWeeks) ? o.maxDelayWeeks : null,
      expedite: o.expedite,
      excess_cover_weeks: o.excessCoverWeeks,
    },
    is_default: r.is_default,
    demand_statistical: r.demand_statistical,
    demand_netted: r.demand_netted,
    demand_causal: r.demand_causal,
    demand_maintenance: r.demand_maintenance,
    created_by: r.created_by,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
};

const notFoundScenario = (id: number) => notFound(`Supply scenario ${id} not found`);

async function lockedScenario(tx: Tx, id: number): Promise<SupplyScenarioRow> {
  const row = await lockSupplyScenario(tx, id);
  if (!row) throw notFoundScenario(id);
  return row;
}

async function segmentsView(tx: Tx, id: number) {
  const ids = await supplyScenarioSegments(tx, id);
  const names = await segmentNames(tx, ids);
  return { scenario_id: id, segment_ids: ids, segments: ids.map((s) => ({ id: s, name: names.get(s)! })), applies_to_all: ids.length === 0 };
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

const view = (r: RecordRow) => supplyScenarioView(r as unknown as SupplyScenarioRow);

/** Supply scenarios with their parameter overrides and segment scopes (spec §4.8). */
export function registerSupplyScenarioRoutes(table: RouteTable): void {
  const tag = 'supply scenarios';
  const entityType = 'supply_scenario';

  defineResource(table, {
    path: '/api/supply/scenarios', tag, noun: 'Supply scenario', entityType,
    record: SUPPLY_SCENARIO_RECORD, view,
    schemas: { row: scenarioSchema, create: createBody, update: updateBody },
    filters: {
      name: { schema: { type: 'string', minLength: 1, maxLength: 200, description: 'part of the name, ignoring case' }, op: 'ilike' },
      is_default: { schema: { type: 'boolean', description: 'only the default scenario (true) or only the others (false)' } },
    },
    sortable: ['id', 'name', 'created_at', 'updated_at'],
    permissions: { read: 'user', write: 'run_process' },
    deleteQuery: obj({ force: { type: 'boolean', default: false, description: 'delete even when the scenario has supply runs, deleting them (and their orders, pegging and results) with it' } }),
    descriptions: {
      list: 'Ordered by id unless `sort` says otherwise; every tenant starts with the default scenario `Base` (both flags off). The total count is in the `X-Total-Count` header.',
      get: 'A supply scenario: its parameter overrides as stored and `effective`, what a supply run applies (overrides over the defaults). Its segments are at `/segments`.',
      create:
        'Defaults: description null, param_overrides {} (both flags off, engine defaults), is_default false, demand_statistical true, demand_netted false, demand_causal false, demand_maintenance true (docs/SUPPLY.md "Which demand a plan covers"). `param_overrides` takes the same keys, checks and coercion as `PUT /param-overrides`. `is_default: true` unmarks the previous default. Names are unique ignoring case (409). Needs can_run_process or an admin role.',
      update:
        'Partial: only the fields sent change; `param_overrides` is replaced as a whole. `is_default: true` unmarks the previous default; `is_default: false` on the default is a 409 (a tenant always has one default: mark another scenario instead).',
      delete:
        'The default scenario cannot be deleted (409): mark another default first. A scenario with supply runs is a 409 naming how many unless `force=true`, which deletes the runs with it; a scenario with a running supply run is a 409 even then.',
    },
    hooks: {
      prepare: (body, { user, old }) => ({
        ...body,
        ...(typeof body.name === 'string' ? { name: body.name.trim() } : {}),
        ...(body.param_overrides !== undefined ? { param_overrides: normaliseParamOverrides(body.param_overrides as Record<string, unknown>) } : {}),
        ...(old ? {} : { created_by: user.email }),
      }),
      beforeWrite: async ({ old, values, operation }) => {
        if (operation === 'update' && old?.is_default && values?.is_default === false) {
          throw conflict(`body.is_default: supply scenario ${old.id} '${old.name}' is the default; mark another scenario default instead (a tenant always has one)`);
        }
      },
      beforeDelete: async ({ tx, old, query }) => {
        if (old!.is_default) {
          throw conflict(`Supply scenario ${old!.id} '${old!.name}' is the default and cannot be deleted; mark another scenario default first (PUT /api/supply/scenarios/{id} with is_default true)`);
        }
        const runs = await supplyRunsOfScenario(tx, old!.id as number);
        if (runs.running) {
          throw conflict(`Supply scenario ${old!.id} has ${runs.running} running supply ${plural(runs.running, 'run', 'runs')}; wait for ${plural(runs.running, 'it', 'them')} to finish or cancel ${plural(runs.running, 'it', 'them')} first`);
        }
        if (runs.total && !query.force) {
          throw conflict(`Supply scenario ${old!.id} has ${runs.total} supply ${plural(runs.total, 'run', 'runs')}; delete with force=true to delete ${plural(runs.total, 'it', 'them')} too`);
        }
      },
    },
  });

  defineRoute(table, {
    method: 'put', path: '/api/supply/scenarios/{id}/param-overrides', tag, permission: 'run_process',
    summary: "Replace a supply scenario's parameter overrides",
    description:
      'The body is the overrides object, replaced as a whole ({} restores every default). `firm_orders_block_horizon` and `respect_lead_time` accept any value and are stored as booleans, coerced as the engine reads them ("false", "0", "off", 0 → false; "true", "yes", "1", 1 → true; null or unreadable → false). `late_orders`, `max_delay_weeks`, `expedite` and `excess_cover_weeks` are checked (400 naming the key); any other key is a 400 naming it. Answers the stored scenario.',
    params: idParams('id'), body: paramOverrides, audit: { entityType: `${entityType}.param_overrides`, action: 'update' },
    responses: { 200: { description: 'the scenario as stored', schema: scenarioSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const old = await lockedScenario(tx, params.id);
        return { old, row: await setSupplyParamOverrides(tx, params.id, normaliseParamOverrides(body)) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: { param_overrides: old.param_overrides }, newValue: { param_overrides: row.param_overrides } });
      return supplyScenarioView(row);
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/scenarios/{id}/segments', tag,
    summary: "A supply scenario's segments",
    description: 'The segments whose series a supply run of the scenario plans, by id; none (`applies_to_all`) plans every series of the pipeline.',
    params: idParams('id'),
    responses: { 200: { description: 'segments', schema: segmentsSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        if (!(await getSupplyScenario(tx, params.id))) throw notFoundScenario(params.id);
        return segmentsView(tx, params.id);
      }),
  });

  defineRoute(table, {
    method: 'put', path: '/api/supply/scenarios/{id}/segments', tag, permission: 'run_process',
    summary: "Replace a supply scenario's segments",
    description: 'Segment ids must exist (400 naming the unknown ones; nothing changes); an empty list makes the scenario plan every series.',
    params: idParams('id'), body: obj({ segment_ids: segmentIds }, ['segment_ids']), audit: { entityType: `${entityType}.segments`, action: 'update' },
    responses: { 200: { description: 'segments', schema: segmentsSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { before, after } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockedScenario(tx, params.id);
        const unknown = await unknownSegmentIds(tx, body.segment_ids);
        if (unknown.length) {
          throw badRequest(`body.segment_ids: ${plural(unknown.length, 'segment', 'segments')} ${unknown.join(', ')} ${plural(unknown.length, 'does', 'do')} not exist`);
        }
        const before = await supplyScenarioSegments(tx, params.id);
        await setSupplyScenarioSegments(tx, params.id, body.segment_ids);
        return { before, after: await segmentsView(tx, params.id) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: { segment_ids: before }, newValue: { segment_ids: after.segment_ids } });
      return after;
    },
  });
}
