import { getItemSite, itemAndSiteExist, listItemSites, upsertItemSite, type ItemSiteWrite } from '../../../db/itemSite';
import { getPipeline } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import { missingIds } from '../../../db/routes';
import { findReturnByExternalId, SALES_RETURN_RECORD } from '../../../db/salesReturns';
import { seriesScope, visibleSegmentIds } from '../../../db/segments';
import {
  capacityForWeeks, capacityRun, capacityUsedOfRun, deleteCapacity, getCapacity, listCapacity, lockCapacity, siteLabels, upsertCapacity,
  type CapacityRun, type CapacitySelection,
} from '../../../db/siteCapacity';
import { getSupplyScenario } from '../../../db/supplyScenarios';
import { addWeeks } from '../../../domain/time/weeks';
import type { AppContext, AuthUser } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { defineResource } from '../resource';
import { id32, idParams } from '../scenarios/schemas';
import { errors, mondayDate, nullable, obj, out, skipParam } from '../schemas';
import type { JsonSchema } from '../validation';

/*
 * Supply master data (spec §4.8; docs/SUPPLY.md "Supply scenarios and master data"): item-site parameters, sales
 * returns and site capacity. Reading is open to every user; writing needs an admin role, as for the other master data
 * (items, routes). Not scoped by pipeline or scenario: master data belongs to the tenant.
 */

const QTY_MAX = 1e12;
const qty = (what: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'number', minimum: 0, maximum: QTY_MAX, description: what, ...extra });
const limit: JsonSchema = { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'rows to return (at most 1000)' };
const date = (what: string): JsonSchema => ({ type: 'string', format: 'date', description: what });

const setAudit = (ctx: AppContext, note: { entityId?: string | number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

// ---------------------------------------------------------------- item-site

const itemSiteSchema: JsonSchema = out({
  item_id: { type: 'integer' },
  item_code: { type: 'string', description: 'item code (xuid)' },
  item_name: { type: 'string' },
  site_id: { type: 'integer' },
  site_code: { type: 'string', description: 'site code (xuid)' },
  site_name: { type: 'string' },
  unit_cost: nullable({ type: 'number', description: "null: the item's average unit cost applies" }),
  lead_time_weeks: nullable({ type: 'number' }),
  on_hand: { type: 'number' },
  safety_stock: { type: 'number', description: 'used when the meio step has no safety stock for the SKU-site' },
  moq: { type: 'number', description: 'minimum order quantity; 0: none' },
  order_multiple: { type: 'number', description: 'order quantities are rounded up to a multiple of this; 0 or 1: none' },
  updated_at: { type: 'string', format: 'date-time' },
});

const itemSiteFields = {
  unit_cost: nullable(qty('unit cost at the site; null: the item\'s average unit cost')),
  lead_time_weeks: nullable(qty('replenishment lead time in weeks (at most 520)', { maximum: 520 })),
  on_hand: qty('stock on hand at the planning date'),
  safety_stock: qty('safety stock when the meio step gives none'),
  moq: qty('minimum order quantity; 0: none'),
  order_multiple: qty('order multiple (pack size); 0 or 1: none'),
};

const itemSiteBody = obj(itemSiteFields, [], {
  minProperties: 1,
  description: 'the fields to set; a new row takes the defaults for the others (unit_cost and lead_time_weeks null, on_hand, safety_stock and moq 0, order_multiple 1)',
});

const scopeOf = (user: AuthUser) => (visibleSegmentIds(user) === null ? null : seriesScope(user, 'x'));

// ---------------------------------------------------------------- sales returns

const salesReturnSchema: JsonSchema = out({
  id: { type: 'integer' },
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  qty: { type: 'number' },
  return_date: { type: 'string', format: 'date' },
  reason: nullable({ type: 'string' }),
  external_id: nullable({ type: 'string' }),
  created_by: nullable({ type: 'string', description: 'e-mail of the user who created it' }),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

const returnFields = {
  item_id: id32,
  site_id: { ...id32, description: 'the site the units come back to' },
  qty: { type: 'number', exclusiveMinimum: 0, maximum: QTY_MAX, description: 'units returned, above 0' },
  return_date: date('when the units are back at the site (YYYY-MM-DD): the supply step counts them in that planning week'),
  reason: nullable({ type: 'string', maxLength: 2000 }),
  external_id: nullable({ type: 'string', minLength: 1, maxLength: 200, description: "the sender's reference, unique per tenant (409 when taken)" }),
};

const createReturnBody = obj(
  { ...returnFields, reason: { ...returnFields.reason, default: null }, external_id: { ...returnFields.external_id, default: null } },
  ['item_id', 'site_id', 'qty', 'return_date'],
);
const updateReturnBody = obj(returnFields, [], { minProperties: 1 });

async function checkReturn(tx: Tx, values: Record<string, unknown>): Promise<void> {
  const itemId = values.item_id as number;
  const siteId = values.site_id as number;
  if ((await missingIds(tx, 'items', [itemId])).length) throw badRequest(`body.item_id: item ${itemId} does not exist`);
  if ((await missingIds(tx, 'sites', [siteId])).length) throw badRequest(`body.site_id: site ${siteId} does not exist`);
  const ext = values.external_id;
  if (typeof ext === 'string') {
    const twin = await findReturnByExternalId(tx, ext, (values.id as number | undefined) ?? 0);
    if (twin !== null) throw conflict(`body.external_id: sales return ${twin} already has external_id '${ext}'`);
  }
}

// ---------------------------------------------------------------- capacity

const capacityRowSchema: JsonSchema = out({
  id: { type: 'integer' },
  site_id: { type: 'integer' },
  site_code: { type: 'string' },
  site_name: { type: 'string' },
  period_start: nullable({ type: 'string', format: 'date', description: 'the Monday of the week the row holds for; null: every week without its own row' }),
  qty: { type: 'number', description: 'units a week' },
  updated_by: nullable({ type: 'string' }),
  updated_at: { type: 'string', format: 'date-time' },
});

const capacityRunSchema: JsonSchema = out({
  run_id: { type: 'string' },
  pipeline_id: { type: 'integer' },
  scenario_id: { type: 'integer' },
  status: { type: 'string' },
  planning_date: { type: 'string', format: 'date', description: 'week 0 starts on it' },
  horizon: { type: 'integer' },
  started_at: { type: 'string', format: 'date-time' },
  finished_at: nullable({ type: 'string', format: 'date-time' }),
});

const capacityWeekSchema: JsonSchema = out({
  site_id: { type: 'integer' },
  site_code: { type: 'string' },
  site_name: { type: 'string' },
  week: { type: 'integer', description: 'run week, 0 = the week starting on the planning date' },
  week_start: { type: 'string', format: 'date' },
  capacity: nullable({ type: 'number', description: 'units the site can ship or make that week; null: unconstrained' }),
  used: { type: 'number', description: 'units the run placed on it (supply_capacity_used)' },
  free: nullable({ type: 'number', description: 'capacity − used; null when unconstrained' }),
  utilisation: nullable({ type: 'number', description: 'used / capacity; null when unconstrained or the capacity is 0' }),
});

const capacityResponse: JsonSchema = out({
  capacity: { type: 'array', items: capacityRowSchema, description: 'the capacity rows as stored' },
  run: { ...nullable(capacityRunSchema), description: 'the supply run the weeks are laid onto; null without pipeline_id and scenario_id, or when that scope has no completed run' },
  weeks: { type: 'array', items: capacityWeekSchema, description: 'per site and run week 0..horizon−1, for every site with capacity rows or capacity used in the run; empty without a run' },
});

const capacityQuery = obj({
  site_id: { ...id32, description: 'only this site' },
  pipeline_id: { ...id32, description: 'with scenario_id: lay the capacity onto a supply run of this pipeline' },
  scenario_id: { ...id32, description: 'the supply scenario of the run (with pipeline_id)' },
  run_id: { type: 'string', minLength: 1, maxLength: 200, description: 'the run (of that pipeline and scenario); default the newest completed one' },
});

const capacityBody = obj(
  {
    period_start: {
      ...nullable(mondayDate('the Monday of the week')), default: null,
      description: 'the Monday of the week the quantity holds for (another weekday is a 400 naming that Monday); null (default): every week without its own row',
    },
    qty: qty('units the site can ship or make in a week (0: nothing)'),
  },
  ['qty'],
);

const capacityDeleteQuery = obj({
  period_start: date('only the row of this week (a Monday)'),
  every_week: { type: 'boolean', description: 'true: only the every-week row (period_start null)' },
});

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Dated rows name their ISO week by its Monday, so that what is stored is the week it holds for (db/siteCapacity.ts). */
function checkMonday(field: string, ds: string): void {
  const day = new Date(`${ds}T00:00:00Z`).getUTCDay();
  if (day !== 1) {
    const monday = new Date(Date.parse(`${ds}T00:00:00Z`) - ((day + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
    throw badRequest(`${field}: ${ds} is a ${WEEKDAYS[day]}; capacity periods start on a Monday (that week's is ${monday})`);
  }
}

async function siteOr404(tx: Tx, siteId: number): Promise<void> {
  if ((await missingIds(tx, 'sites', [siteId])).length) throw notFound(`Site ${siteId} not found`);
}

interface CapacityQuery {
  site_id?: number;
  pipeline_id?: number;
  scenario_id?: number;
  run_id?: string;
}

/** The run the weekly view uses: none without a scope; 404 for a scope or run that does not exist. */
async function runOfQuery(tx: Tx, q: CapacityQuery): Promise<CapacityRun | null> {
  if (q.pipeline_id === undefined || q.scenario_id === undefined) return null;
  if (!(await getPipeline(tx, q.pipeline_id))) throw notFound(`Pipeline ${q.pipeline_id} not found`);
  if (!(await getSupplyScenario(tx, q.scenario_id))) throw notFound(`Supply scenario ${q.scenario_id} not found`);
  const run = await capacityRun(tx, q.pipeline_id, q.scenario_id, q.run_id);
  if (!run && q.run_id !== undefined) throw notFound(`Supply run ${q.run_id} not found for pipeline ${q.pipeline_id} and supply scenario ${q.scenario_id}`);
  return run;
}

async function capacityWeeks(tx: Tx, run: CapacityRun, siteId?: number) {
  const cap = await capacityForWeeks(tx, run.planning_date, run.horizon, siteId === undefined ? undefined : [siteId]);
  const used = await capacityUsedOfRun(tx, run.run_id, siteId);
  const key = (s: number, w: number) => s * 1024 + w;
  const capOf = new Map(cap.map((r) => [key(r.site_id, r.week), r.qty]));
  const usedOf = new Map<number, number>();
  for (const r of used) usedOf.set(key(r.site_id, r.week), (usedOf.get(key(r.site_id, r.week)) ?? 0) + r.qty);
  const sites = [...new Set([...cap.map((r) => r.site_id), ...used.map((r) => r.site_id)])].sort((a, b) => a - b);
  const labels = await siteLabels(tx, sites);
  const out = [];
  for (const s of sites) {
    const label = labels.get(s) ?? { code: String(s), name: String(s) };
    for (let w = 0; w < run.horizon; w++) {
      const capacity = capOf.get(key(s, w)) ?? null;
      const u = usedOf.get(key(s, w)) ?? 0;
      out.push({
        site_id: s, site_code: label.code, site_name: label.name, week: w, week_start: addWeeks(run.planning_date, w),
        capacity, used: u, free: capacity === null ? null : capacity - u, utilisation: capacity === null || capacity === 0 ? null : u / capacity,
      });
    }
  }
  return out;
}

/** Supply master data: item-site, sales returns, capacity (spec §4.8). */
export function registerSupplyMasterDataRoutes(table: RouteTable): void {
  const tag = 'supply master data';

  // ---------------------------------------------------------------- item-site

  defineRoute(table, {
    method: 'get', path: '/api/supply/item-site', tag,
    summary: 'Item-site master data',
    description:
      'Per item and site: unit cost, lead time, on-hand, safety stock, MOQ and order multiple, with the item and site codes and names. Ordered by item, then site; `search` matches part of the item or site code, ignoring case. Users restricted to segments see the rows of their series only. The total is in `X-Total-Count`.',
    query: obj({
      item_id: { ...id32, description: 'only this item' },
      site_id: { ...id32, description: 'only this site' },
      search: { type: 'string', minLength: 1, maxLength: 200, description: 'part of the item code or the site code, ignoring case' },
      skip: skipParam,
      limit,
    }),
    responses: { 200: { description: 'item-site rows', schema: { type: 'array', items: itemSiteSchema } }, ...errors(400, 401) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => listItemSites(tx, { ...query, scope: scopeOf(user) }));
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'put', path: '/api/supply/item-site/{item_id}/{site_id}', tag, permission: 'admin',
    summary: 'Create or change an item-site row',
    description:
      'Sets the fields sent: on an existing row only those change; a new row takes the defaults for the others (unit_cost and lead_time_weeks null, on_hand, safety_stock and moq 0, order_multiple 1). Quantities are 0 to 1e12, lead_time_weeks at most 520. A 404 names the item or site that does not exist. Answers the row. Admins only.',
    params: idParams('item_id', 'site_id'), body: itemSiteBody, audit: { entityType: 'item_site', action: 'upsert' },
    responses: { 200: { description: 'the row as stored', schema: itemSiteSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { item_id: itemId, site_id: siteId } = params;
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const exists = await itemAndSiteExist(tx, itemId, siteId);
        if (!exists.item && !exists.site) throw notFound(`Item ${itemId} and site ${siteId} not found`);
        if (!exists.item) throw notFound(`Item ${itemId} not found`);
        if (!exists.site) throw notFound(`Site ${siteId} not found`);
        const old = await getItemSite(tx, itemId, siteId);
        return { old, row: await upsertItemSite(tx, itemId, siteId, body as ItemSiteWrite) };
      });
      setAudit(ctx, { entityId: `${itemId}_${siteId}`, oldValue: old, newValue: row });
      return row;
    },
  });

  // ---------------------------------------------------------------- sales returns

  defineResource(table, {
    path: '/api/supply/sales-returns', idParam: 'return_id', tag, noun: 'Sales return', entityType: 'sales_return',
    record: SALES_RETURN_RECORD,
    schemas: { row: salesReturnSchema, create: createReturnBody, update: updateReturnBody },
    filters: {
      item_id: { schema: { ...id32, description: 'only this item' } },
      site_id: { schema: { ...id32, description: 'only this site' } },
      date_from: { schema: date('returns on or after this date'), column: 'return_date', op: 'gte' },
      date_to: { schema: date('returns on or before this date'), column: 'return_date', op: 'lte' },
      external_id: { schema: { type: 'string', minLength: 1, maxLength: 200, description: 'the return with this reference' } },
    },
    sortable: ['id', 'return_date', 'qty', 'item_id', 'site_id', 'created_at'],
    permissions: { read: 'user', write: 'admin' },
    descriptions: {
      list: 'Ordered by return date, then id, unless `sort` says otherwise. The total count is in the `X-Total-Count` header.',
      get: 'One sales return.',
      create:
        'Units a customer sends back to a site: the supply step counts them as negative demand in the planning week of `return_date` (floor(days from the planning date / 7); returns before the planning date or beyond the horizon are left out). 400 naming the field for a bad value or an item or site that does not exist; 409 when `external_id` is taken. Admins only.',
      update: 'Partial: only the fields sent change; the same checks as on create apply to the row as it would be.',
      delete: 'Deletes the return; the next supply run no longer counts it.',
    },
    hooks: {
      prepare: (body, { user, old }) => ({ ...body, ...(old ? {} : { created_by: user.email }) }),
      beforeWrite: async ({ tx, values }) => checkReturn(tx, values!),
    },
  });

  // ---------------------------------------------------------------- capacity

  defineRoute(table, {
    method: 'get', path: '/api/supply/capacity', tag,
    summary: 'Capacity by site and period',
    description:
      'The capacity rows (units a week a site can ship or make; `period_start` null holds for every week without its own row; a site without rows is unconstrained). With `pipeline_id` and `scenario_id` (and `run_id`, else the newest completed supply run of that pipeline and scenario) also `weeks`: the capacity laid onto the run\'s weeks, what the run used, what is free and the utilisation. Capacity shown is the current master data: if it changed since the run, the run planned with other numbers. A 404 for a pipeline, supply scenario or run that does not exist.',
    query: capacityQuery,
    responses: { 200: { description: 'capacity', schema: capacityResponse }, ...errors(400, 401, 404) },
    handler: async (ctx, { query, user }) => {
      const q = query as CapacityQuery;
      if (q.pipeline_id !== undefined && q.scenario_id === undefined) throw badRequest('query.scenario_id is required with pipeline_id');
      if (q.scenario_id !== undefined && q.pipeline_id === undefined) throw badRequest('query.pipeline_id is required with scenario_id');
      if (q.run_id !== undefined && q.pipeline_id === undefined) throw badRequest('query.pipeline_id and query.scenario_id are required with run_id');
      return withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const run = await runOfQuery(tx, q);
        return {
          capacity: await listCapacity(tx, q.site_id),
          run,
          weeks: run ? await capacityWeeks(tx, run, q.site_id) : [],
        };
      });
    },
  });

  defineRoute(table, {
    method: 'put', path: '/api/supply/capacity/{site_id}', tag, permission: 'admin',
    summary: "Set a site's capacity for a week or for every week",
    description:
      'Not in the spec (§4.8 shows only the read); capacity needs a way in. Inserts or replaces the site\'s row for `period_start` (a Monday: the week it holds for; null, the default: every week without its own row). A 404 for a site that does not exist. Answers the row. Admins only.',
    params: idParams('site_id'), body: capacityBody, audit: { entityType: 'site_capacity', action: 'upsert' },
    responses: { 200: { description: 'the row as stored', schema: capacityRowSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const periodStart = body.period_start as string | null;
      if (periodStart !== null) checkMonday('body.period_start', periodStart);
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockCapacity(tx);
        await siteOr404(tx, params.site_id);
        const old = await getCapacity(tx, params.site_id, periodStart);
        return { old, row: await upsertCapacity(tx, params.site_id, periodStart, body.qty, user.email) };
      });
      setAudit(ctx, { entityId: params.site_id, oldValue: old, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/supply/capacity/{site_id}', tag, permission: 'admin',
    summary: "Remove a site's capacity rows",
    description:
      'Not in the spec; the counterpart of PUT. Without a query: every row of the site, which becomes unconstrained. `period_start`: only the row of that week; `every_week=true`: only the every-week row. A 404 when the site does not exist or has no such row. Admins only.',
    params: idParams('site_id'), query: capacityDeleteQuery, audit: { entityType: 'site_capacity', action: 'delete' },
    responses: {
      200: {
        description: 'deleted',
        schema: out({ status: { type: 'string', const: 'deleted' }, site_id: { type: 'integer' }, rows: { type: 'array', items: capacityRowSchema, description: 'the rows removed' } }),
      },
      ...errors(400, 401, 403, 404),
    },
    handler: async (ctx, { params, query, user }) => {
      if (query.period_start !== undefined && query.every_week) throw badRequest('query.every_week: give period_start or every_week=true, not both');
      const sel: CapacitySelection =
        query.period_start !== undefined ? { kind: 'dated', periodStart: query.period_start } : query.every_week ? { kind: 'every_week' } : { kind: 'all' };
      const rows = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockCapacity(tx);
        await siteOr404(tx, params.site_id);
        const rows = await deleteCapacity(tx, params.site_id, sel);
        if (!rows.length) {
          const what = sel.kind === 'dated' ? `capacity row for ${sel.periodStart}` : sel.kind === 'every_week' ? 'every-week capacity row' : 'capacity rows';
          throw notFound(`Site ${params.site_id} has no ${what}`);
        }
        return rows;
      });
      setAudit(ctx, { entityId: params.site_id, oldValue: rows, newValue: { deleted: true, count: rows.length } });
      return { status: 'deleted', site_id: params.site_id, rows };
    },
  });
}
