import { withTenant, type Tx } from '../../../db/pool';
import {
  allEdges, allEdgeViews, codesOf, deleteEdge, edgeTwin, edgeViewsAtSite, getEdgeView, insertEdge, itemById, listEdgeViews, lockSupersession,
  updateEdge, type EdgeValues, type EdgeView,
} from '../../../db/supersession';
import { getPipeline } from '../../../db/pipelines';
import { resolvePlanningDate, TENANT_PIPELINE, type PlanningDate } from '../../../db/planningDate';
import { isValidDate } from '../../../domain/import/validate';
import { chainContext, cycleMessage, itemLabel, siteLabel, SupersessionGraph } from '../../../domain/supersession/chains';
import { API_FIELDS, edgeProblem, isActiveOn } from '../../../domain/supersession/edges';
import type { AppContext } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, idParam } from '../schemas';
import * as s from './schemas';

/*
 * Supersession edges (document 2 §2.4, §4.4; docs/SUPERSESSION.md). Not a defineResource: an edge is read with the
 * codes and names of its items and site, and a write passes checks a single-table record cannot make (references,
 * the natural key with its null rules, cycles across global and site edges) which the import run shares
 * (domain/supersession). Reading is open to every user; writing needs an admin role (§4.4).
 */

const TABLE_NOTE = 'The table exists in every tenant schema from its migrations (003, 022), so no call ever has to create it (document 2 §4.4 "all endpoints create the table when missing").';

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

const notFoundEdge = (id: number) => notFound(`Supersession edge ${id} not found`);

/**
 * Rule 1's reference date without `as_of`: the planning today of `pipeline_id` (the date its supply step picked its
 * active edges on), else the tenant's; one resolver (db/planningDate.ts) for the API, the steps and the freeze.
 */
async function referenceDate(tx: Tx, pipelineId: number | undefined): Promise<PlanningDate> {
  if (pipelineId !== undefined && !(await getPipeline(tx, pipelineId))) throw notFound(`Pipeline ${pipelineId} not found`);
  return resolvePlanningDate(tx, pipelineId ?? TENANT_PIPELINE);
}

async function edgeOr404(tx: Tx, id: number): Promise<EdgeView> {
  const row = await getEdgeView(tx, id);
  if (!row) throw notFoundEdge(id);
  return row;
}

const valuesOf = (e: EdgeView): EdgeValues => ({
  from_item_id: e.from_item_id, to_item_id: e.to_item_id, site_id: e.site_id, effective_date: e.effective_date,
  demand_factor: e.demand_factor, stock_rollable: e.stock_rollable, notes: e.notes,
});

/**
 * Everything an edge must satisfy before it is written, as it would be stored (`exceptId`: the edge being updated).
 * 400 naming the field for the rules of §2.4, unknown items or site and a cycle; 409 naming the edge that already
 * holds the natural key. Runs under the writers' lock, so the edges read are the ones the write joins.
 */
async function checkEdge(tx: Tx, v: EdgeValues, exceptId: number): Promise<void> {
  const problem = edgeProblem({ from: v.from_item_id, to: v.to_item_id, demand_factor: v.demand_factor }, API_FIELDS);
  if (problem) throw badRequest(`body.${problem.field}: ${problem.message}`);
  if (v.effective_date !== null && !isValidDate(v.effective_date)) throw badRequest(`body.effective_date: '${v.effective_date}' is not a valid date (YYYY-MM-DD)`);
  const items = await codesOf(tx, 'items', [v.from_item_id, v.to_item_id]);
  for (const field of ['from_item_id', 'to_item_id'] as const) {
    if (!items.has(v[field])) throw badRequest(`body.${field}: item ${v[field]} does not exist`);
  }
  const sites = v.site_id === null ? new Map<number, string>() : await codesOf(tx, 'sites', [v.site_id]);
  if (v.site_id !== null && !sites.has(v.site_id)) throw badRequest(`body.site_id: site ${v.site_id} does not exist`);

  const twin = await edgeTwin(tx, v, exceptId);
  if (twin !== null) {
    const where = v.site_id === null ? 'as a global edge' : `at site ${siteLabel(v.site_id, sites.get(v.site_id))}`;
    const when = v.effective_date === null ? 'effective immediately' : `effective ${v.effective_date}`;
    throw conflict(`supersession edge ${twin} already replaces ${itemLabel(v.from_item_id, items.get(v.from_item_id))} by ${itemLabel(v.to_item_id, items.get(v.to_item_id))} ${where}, ${when}; update it instead`);
  }

  const graph = new SupersessionGraph((await allEdges(tx)).filter((e) => e.id !== exceptId));
  const closed = graph.closingChain(v);
  if (closed) {
    const itemCodes = await codesOf(tx, 'items', closed.items);
    const siteCodes = await codesOf(tx, 'sites', closed.site_id === null ? [] : [closed.site_id]);
    throw badRequest(`body: ${cycleMessage(closed, itemCodes, siteCodes)}`);
  }
}

/** A date from the query: the schema checked the form, this the calendar (year 0 and 02-30 are no dates). */
function queryDate(field: string, value: string): string {
  if (!isValidDate(value)) throw badRequest(`query.${field}: '${value}' is not a valid date (YYYY-MM-DD)`);
  return value;
}

/** Supersession edges (document 2 §2.4, §4.4). */
export function registerSupersessionRoutes(table: RouteTable): void {
  const tag = 'supersession';
  const path = '/api/supersession';
  const entityType = 'supersession';

  defineRoute(table, {
    method: 'get', path, tag,
    summary: 'List supersession edges',
    description: [
      'Edges from a replaced item to its successor, each with the code (`*_xuid`) and name of both items and of its site',
      '(null for a global edge). Filtered, sorted (default id) and paged with `skip` and `limit`; the count of matching edges',
      'is in the `X-Total-Count` header. `active` and `as_of` apply rule 1 (active: effective_date null or not later than',
      'the reference date); the reference date defaults to the planning today of `pipeline_id` (else the tenant\'s), as in GET /api/supersession/active.',
      TABLE_NOTE,
    ].join(' '),
    query: s.listQuery,
    responses: { 200: { description: 'edges', schema: { type: 'array', items: s.edgeSchema } }, ...errors(400, 401, 404) },
    handler: async (ctx, { query: q, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const byDate = q.active !== undefined || q.as_of !== undefined;
        const asOf = !byDate ? undefined : q.as_of !== undefined ? queryDate('as_of', q.as_of) : (await referenceDate(tx, q.pipeline_id)).date;
        return listEdgeViews(tx, {
          item_id: q.item_id, from_item_id: q.from_item_id, to_item_id: q.to_item_id, site_id: q.site_id, global: q.global,
          active: byDate ? q.active ?? true : undefined, asOf, search: q.search,
        }, { skip: q.skip, limit: q.limit, sort: q.sort, order: q.order });
      });
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'get', path: `${path}/active`, tag,
    summary: 'Supersession edges active on a date',
    description: [
      'Rule 1 of document 2 §4.4: the edges whose effective_date is null or not later than the reference date, ordered by id.',
      'The reference date is `as_of` when given; without it, the planning today of `pipeline_id` (the date its supply step',
      'decided which edges are active on, resolved as GET /api/history/planning-date shows: the override, the pipeline\'s',
      'stored date, its settings.planning_date, the tenant\'s (pipeline id −1), its first forecast week, the Monday after the',
      'last history week, today UTC), or without `pipeline_id` the tenant\'s: its stored date (pipeline id −1), else today UTC.',
      'The calendar date is never used while a planning date is stored or the pipeline\'s data implies one. `as_of` and',
      '`as_of_source` say which date was used. 404 for an unknown pipeline_id.',
      TABLE_NOTE,
    ].join(' '),
    query: s.activeQuery,
    responses: { 200: { description: 'the active edges and the reference date', schema: s.activeSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { query: q, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const ref = q.as_of !== undefined ? { date: queryDate('as_of', q.as_of), source: 'query' } : await referenceDate(tx, q.pipeline_id);
      const edges = await allEdgeViews(tx, { active: true, asOf: ref.date });
      return { as_of: ref.date, as_of_source: ref.source, total: edges.length, edges };
    }),
  });

  defineRoute(table, {
    method: 'get', path: `${path}/item/{item_id}`, tag,
    summary: 'The supersession chain around an item',
    description: [
      'Rule 2 of document 2 §4.4. `upstream`: the item\'s predecessors over every generation (A and B for C in A → B → C),',
      '`downstream`: its successors (B and C for A), each with its `depth` (edges along the shortest way), nearest first;',
      '`edges`: every edge walked, with codes and names. `role`: replaced (outgoing edges, no incoming), middle (both) or top',
      '(no outgoing edge). An item that takes part in no edge is top as well, with `in_chain` false and empty lists: nothing',
      'replaces it and it keeps its own demand. By default every edge counts, global and site-scoped, future ones included;',
      '`site_id` reads the chain at one site (global edges and that site\'s), `as_of` only with the edges active on that date.',
      '404 when the item does not exist.', TABLE_NOTE,
    ].join(' '),
    params: s.itemParam, query: s.chainQuery,
    responses: { 200: { description: 'the chain context', schema: s.chainSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, query: q, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const item = await itemById(tx, params.item_id);
      if (!item) throw notFound(`Item ${params.item_id} not found`);
      const asOf = q.as_of === undefined ? null : queryDate('as_of', q.as_of);
      let edges = q.site_id === undefined ? await allEdgeViews(tx) : await edgeViewsAtSite(tx, q.site_id);
      if (asOf !== null) edges = edges.filter((e) => isActiveOn(e, asOf));
      const c = chainContext(edges, item.id);
      const names = new Map<number, { xuid: string; name: string }>();
      for (const e of c.edges) {
        names.set(e.from_item_id, { xuid: e.from_item_xuid, name: e.from_item_name });
        names.set(e.to_item_id, { xuid: e.to_item_xuid, name: e.to_item_name });
      }
      const named = (r: { item_id: number; depth: number }) => ({ item_id: r.item_id, item_xuid: names.get(r.item_id)!.xuid, item_name: names.get(r.item_id)!.name, depth: r.depth });
      return {
        item_id: item.id, item_xuid: item.xuid, item_name: item.name, role: c.role, in_chain: c.in_chain,
        site_id: q.site_id ?? null, as_of: asOf,
        upstream: c.upstream.map(named), downstream: c.downstream.map(named), edges: c.edges,
      };
    }),
  });

  const checks = [
    'Checked as the import run checks staged rows (domain/supersession): 400 naming the field, and nothing written, when',
    'from_item_id equals to_item_id, an item or the site does not exist, demand_factor is not above 0, a date is not',
    'YYYY-MM-DD, or the edge would close a cycle (A → B → … → A over the global edges and those of one site; the items',
    'along it are named, "A (item 1) → B (item 2) → A (item 1)"); 409 naming the existing edge when another edge has the',
    'same (from_item_id, to_item_id, site_id with null as 0, effective_date with null as the minimum date).',
    'Needs an admin role (403 otherwise).',
  ].join(' ');

  defineRoute(table, {
    method: 'post', path, tag, permission: 'admin', status: 201,
    summary: 'Create a supersession edge',
    description: `Document 2 §2.4. Defaults: site_id null (a global edge), effective_date null (immediately), demand_factor 1, stock_rollable true, notes null. ${checks} ${TABLE_NOTE}`,
    body: s.createBody, audit: { entityType, action: 'create' },
    responses: { 201: { description: 'the stored edge', schema: s.edgeSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body, user }) => {
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockSupersession(tx);
        const values: EdgeValues = {
          from_item_id: body.from_item_id, to_item_id: body.to_item_id, site_id: body.site_id, effective_date: body.effective_date,
          demand_factor: body.demand_factor, stock_rollable: body.stock_rollable, notes: body.notes,
        };
        await checkEdge(tx, values, 0);
        return edgeOr404(tx, await insertEdge(tx, values));
      });
      setAudit(ctx, { entityId: row.id, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'put', path: `${path}/{id}`, tag, permission: 'admin',
    summary: 'Update a supersession edge',
    description: `Any of the edge fields; only those sent change (null clears site_id, effective_date or notes). The edge as it would be stored is checked as on create, leaving itself out. ${checks} ${TABLE_NOTE}`,
    params: idParam('id'), body: s.updateBody, audit: { entityType, action: 'update' },
    responses: { 200: { description: 'the updated edge', schema: s.edgeSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockSupersession(tx);
        const old = await edgeOr404(tx, params.id);
        const values: EdgeValues = { ...valuesOf(old) };
        for (const k of Object.keys(values) as Array<keyof EdgeValues>) if (body[k] !== undefined) (values as any)[k] = body[k];
        await checkEdge(tx, values, params.id);
        await updateEdge(tx, params.id, values);
        return { old, row: await edgeOr404(tx, params.id) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: old, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'delete', path: `${path}/{id}`, tag, permission: 'admin',
    summary: 'Delete a supersession edge',
    description: `The planning steps stop applying it at their next run. Needs an admin role (403 otherwise). Edges also go when one of their items or their site is deleted (rule 6). ${TABLE_NOTE}`,
    params: idParam('id'), audit: { entityType, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deletedSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockSupersession(tx);
        const row = await edgeOr404(tx, params.id);
        await deleteEdge(tx, params.id);
        return row;
      });
      setAudit(ctx, { entityId: params.id, oldValue: old, newValue: { deleted: true } });
      return { status: 'deleted', id: params.id };
    },
  });
}
