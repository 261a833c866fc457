import { defaultResultsPipeline } from '../../../db/forecastReads';
import { getPipeline } from '../../../db/pipelines';
import { defaultSupplyScenarioId } from '../../../db/supplyScenarios';
import { withTenant, type Tx } from '../../../db/pool';
import {
  approveEngineOrder, dashboardFacts, deleteSupplyRun, editEngineOrder, engineOrderView, exceptionRows, getEngineOrder, inventoryRows,
  indirectOfSku, listSupplyRuns, supplyReadScope, mergedOrderPageJson, orderBreakdown, orderReadScope, orderPegging, runPegging, type SupplyRunView,
} from '../../../db/supplyReads';
import { getSupplyScenario } from '../../../db/supplyScenarios';
import { consumptionPreview, syncSupplyIssues } from '../../../db/supplySignals';
import type { AppContext } from '../../context';
import { answerKey } from '../../planReads';
import { conflict, badRequest, notFound } from '../../errors';
import { newJobId } from '../../jobs/service';
import { defineRoute, type RouteTable } from '../define';
import { firstOf, onItem, readsTaking, withLinks, withRequestQuery } from '../links';
import { launch } from '../pipeline';
import { errors, nullable, obj, out } from '../schemas';
import type { JsonSchema } from '../validation';
import { uniqueIdSchema, visibleSeries } from '../segments/access';
import { supplyScopeQuery, SUPPLY_SCOPE_REQUIRED } from './scope';

const id32: JsonSchema = { type: 'integer', minimum: 1, maximum: 2147483647 };
const runIdSchema: JsonSchema = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'a supply run id (its job id); omitted: the newest completed run of the pipeline and scenario' };
const page = {
  skip: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0 },
  limit: { type: 'integer', minimum: 1, maximum: 5000, default: 200 },
} as const;
const week: JsonSchema = { type: 'integer', minimum: -520, maximum: 520 };
const date: JsonSchema = { type: 'string', format: 'date' };
const scoped = (props: Record<string, JsonSchema>, required: string[] = []) => obj({ ...supplyScopeQuery, ...props }, [...SUPPLY_SCOPE_REQUIRED, ...required]);
const ORDER_TYPE_ENUM = ['BUY', 'BUILD', 'REPAIR', 'TRANSFER', 'BALANCING', 'REPLENISH', 'RETURN'];
const ORDER_STATUS_ENUM = ['planned', 'constrained', 'delayed', 'expedited', 'firm', 'released', 'in_transit', 'received'];

const runSchema: JsonSchema = out({
  run_id: { type: 'string' }, pipeline_id: { type: 'integer' }, scenario_id: { type: 'integer' }, scenario_name: nullable({ type: 'string' }),
  status: { type: 'string', enum: ['running', 'completed', 'failed'] }, planning_date: { type: 'string', description: 'week 0 starts here' },
  horizon: { type: 'integer' }, flags: { type: 'object', description: 'document 2 §4.2 flags as the run applied them' },
  kpis: nullable({ type: 'object', description: 'projected_fill_rate, demand_qty, served_qty, shortage_qty, avg_inventory_value, ending_inventory_value, orders_by_type/status/kind, n_orders, n_exceptions' }),
  checks: nullable({ type: 'object', description: 'conservation and pegging residuals on the stored rows' }),
  n_items: { type: 'integer' }, n_sku_sites: { type: 'integer' }, n_orders: { type: 'integer' }, n_exceptions: { type: 'integer' },
  errors: { type: 'array', description: 'items that could not be planned (a TRANSFER cycle)' }, diagnostics: { type: 'array', description: 'data notes (first 1,000)' },
  created_by: nullable({ type: 'string' }), started_at: { type: 'string' }, finished_at: nullable({ type: 'string' }),
  job_status: nullable({ type: 'string' }), job_error: nullable({ type: 'string' }),
});
const orderSchema: JsonSchema = out({
  order_id: { type: 'integer', description: 'engine order id, or the firm order id when is_firm' },
  supply_id: { type: 'string', description: '`SO_<order_id>` or `FIRM_<id>`, as in the allocation pool' },
  is_firm: { type: 'boolean' }, run_id: nullable({ type: 'string' }),
  item_id: { type: 'integer' }, item_xuid: { type: 'string' }, item_name: { type: 'string' }, site_id: { type: 'integer' }, site_xuid: { type: 'string' }, site_name: { type: 'string' },
  source_site_id: nullable({ type: 'integer' }), source_site_xuid: nullable({ type: 'string' }), route_id: nullable({ type: 'integer' }),
  order_type: { type: 'string', enum: ORDER_TYPE_ENUM }, kind: { type: 'string', enum: ['PLANNED', 'BUY_EXPEDITE', 'TRANSFER_PREPOS', 'FIRM'] },
  status: { type: 'string', description: 'engine: planned, constrained, delayed, expedited; firm rows: their erp_status' },
  qty: { type: 'number' }, requested_qty: { type: 'number', description: 'before a capacity cut' }, remaining_qty: { type: 'number', description: 'firm rows: qty − received_qty, floored at 0' },
  release_week: { type: 'integer' }, arrival_week: { type: 'integer' }, need_week: nullable({ type: 'integer' }),
  release_date: { type: 'string' }, arrival_date: { type: 'string' }, late: { type: 'boolean' }, unit_cost: { type: 'number' }, value: { type: 'number' },
  engine_qty: nullable({ type: 'number', description: 'the engine\'s quantity when a planner changed it' }), edited_by: nullable({ type: 'string' }), edited_at: nullable({ type: 'string' }),
  approved_quantity: nullable({ type: 'number' }), approved_availability_date: nullable({ type: 'string' }), approved_by: nullable({ type: 'string' }), approved_at: nullable({ type: 'string' }),
  external_id: nullable({ type: 'string' }), source_system: nullable({ type: 'string' }),
});
const pegSchema: JsonSchema = out({
  order_id: { type: 'integer' }, demand_line: { type: 'string', description: 'forecast:<site>:<week>, indirect:<order_id>, prepos:<order_id>, firm_transfer:<firm id>, backlog:<site>, safety_stock:<site>, excess:<site>' },
  kind: { type: 'string', enum: ['forecast', 'indirect', 'firm_transfer', 'prepos', 'backlog', 'safety_stock', 'excess'] },
  site_id: { type: 'integer' }, week: { type: 'integer' }, week_start: { type: 'string' }, qty: { type: 'number' },
  ref_id: nullable({ type: 'integer', description: 'the downstream order (indirect, prepos) or firm order (firm_transfer)' }),
}, ['order_id', 'demand_line', 'kind', 'site_id', 'week', 'week_start', 'qty', 'ref_id']);

async function scenarioAndPipelineOr404(tx: Tx, pipelineId: number, scenarioId: number): Promise<void> {
  if (!(await getPipeline(tx, pipelineId))) throw notFound(`pipeline_id: pipeline ${pipelineId} not found`);
  if (!(await getSupplyScenario(tx, scenarioId))) throw notFound(`scenario_id: supply scenario ${scenarioId} not found`);
}

/** The run a read is about: `run_id` (which must belong to the pipeline and scenario), else the newest completed one. */
async function runOr404(tx: Tx, q: { pipeline_id: number; scenario_id: number; run_id?: string }): Promise<SupplyRunView> {
  return scopedRun(await supplyReadScope(tx, q.pipeline_id, q.scenario_id, q.run_id), q);
}

/** The scope's run, else the 404 that says what is missing. */
function scopedRun<R>(scope: { pipeline: boolean; scenario: boolean; run: R | null }, q: { pipeline_id: number; scenario_id: number; run_id?: string }): R {
  if (!scope.pipeline) throw notFound(`pipeline_id: pipeline ${q.pipeline_id} not found`);
  if (!scope.scenario) throw notFound(`scenario_id: supply scenario ${q.scenario_id} not found`);
  if (scope.run) return scope.run;
  if (q.run_id) throw notFound(`run_id: supply run ${q.run_id} not found for pipeline ${q.pipeline_id} and supply scenario ${q.scenario_id}`);
  throw notFound(`no completed supply run for pipeline ${q.pipeline_id} and supply scenario ${q.scenario_id}: start one with POST /api/supply/run`);
}

/** A page of one of a run's lists, its total in `X-Total-Count`. */
async function pageOfRun<T>(
  ctx: AppContext, accountId: string, query: { pipeline_id: number; scenario_id: number; run_id?: string },
  read: (tx: Tx, run: SupplyRunView) => Promise<{ rows: T[]; total: number }>,
): Promise<T[]> {
  const { rows, total } = await withTenant(ctx.deps.db, accountId, async (tx) => read(tx, await runOr404(tx, query)));
  ctx.set('X-Total-Count', String(total));
  return rows;
}

/** The dashboard of a run (also what a replay of a version shows). */
export async function supplyDashboard(tx: Tx, run: SupplyRunView) {
  return { run, kpis: run.kpis, ...(await dashboardFacts(tx, run.run_id)) };
}

/** An engine order of the pipeline and scenario, else 404. */
async function orderOr404(tx: Tx, orderId: number, q: { pipeline_id: number; scenario_id: number }) {
  await scenarioAndPipelineOr404(tx, q.pipeline_id, q.scenario_id);
  const o = await getEngineOrder(tx, orderId);
  if (!o || o.pipeline_id !== q.pipeline_id || o.scenario_id !== q.scenario_id) throw notFound(`order ${orderId} not found for pipeline ${q.pipeline_id} and supply scenario ${q.scenario_id}`);
  return o;
}

const DAY_MS = 86_400_000;
const weekOf = (d: string, planningDate: string) => Math.floor(Math.round((Date.parse(`${d}T00:00:00Z`) - Date.parse(`${planningDate}T00:00:00Z`)) / DAY_MS) / 7);
const isDate = (d: string) => /^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) === d;

/** Supply runs and their results (spec §4.8; document 2 §4.1 for the merged order list). */
export function registerSupplyResultRoutes(table: RouteTable): void {
  const tag = 'supply';

  defineRoute(table, {
    method: 'post', path: '/api/supply/run', tag, permission: 'run_process', pipelineScoped: true, needsCache: false,
    summary: 'Launch a supply run',
    description: 'Starts the supply step as a job (workflow runStep; chunks of whole items on the compute queue) for the pipeline under the supply scenario\'s flags and segments; its allocation follows as a child job. The run id is the job id. A repeated `run_id` returns the job it started.',
    body: obj({
      ...supplyScopeQuery,
      run_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'idempotency key: a retried request with the same run_id returns the same job' },
      n_workers: { type: 'integer', minimum: 1, maximum: 64 },
    }, [...SUPPLY_SCOPE_REQUIRED]),
    audit: { entityType: 'job', action: 'run_supply' },
    responses: { 200: { description: 'job started', schema: out({ job_id: { type: 'string' }, run_id: { type: 'string' }, step: nullable({ type: 'string' }), status: { type: 'string' } }) }, ...errors(403, 404, 503) },
    handler: async (ctx, { body, user }) => {
      await withTenant(ctx.deps.db, user.accountId, (tx) => scenarioAndPipelineOr404(tx, body.pipeline_id, body.scenario_id));
      const jobId = body.run_id ?? newJobId('supply');
      const started = await launch(ctx, user, {
        job_id: jobId, kind: 'step', step: 'supply', pipeline_id: body.pipeline_id, scenario_id: body.scenario_id, segment_id: null, created_by: user.email,
        params: { n_workers: body.n_workers ?? null },
      }, 'runStep', [{
        jobId, accountId: user.accountId, step: 'supply', pipelineId: body.pipeline_id, scenarioId: null, supplyScenarioId: body.scenario_id,
        segmentId: null, createdBy: user.email, nWorkers: body.n_workers ?? null,
      }]);
      return { ...started, run_id: started.job_id };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/runs', tag, pipelineScoped: true,
    summary: 'Supply runs of a pipeline and supply scenario',
    description: 'Newest first; `status` is completed, running, or failed (the job failed or was killed). The total is in `X-Total-Count`.',
    query: scoped(page),
    // the newest run's id leads to the run and to the reads of one run, in the same pipeline and scenario
    responses: {
      200: withLinks(table, { description: 'runs', schema: { type: 'array', items: runSchema } }, withRequestQuery(['pipeline_id', 'scenario_id'], firstOf(
        onItem('/api/supply/runs/{run_id}', 'run_id', '$response.body#/0/run_id'), readsTaking('run_id', '$response.body#/0/run_id'),
        (r) => (r.path === '/api/supply/allocations/{run_id}/results' ? { 'path.run_id': '$response.body#/0/run_id' } : undefined)))),
      ...errors(404),
    },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await scenarioAndPipelineOr404(tx, query.pipeline_id, query.scenario_id);
        return listSupplyRuns(tx, query.pipeline_id, query.scenario_id, query.skip, query.limit);
      });
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/runs/{run_id}', tag, pipelineScoped: true,
    summary: 'One supply run with its KPIs and checks',
    params: obj({ run_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$' } }, ['run_id']),
    query: scoped({}),
    responses: { 200: { description: 'run', schema: runSchema }, ...errors(404) },
    handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, (tx) => runOr404(tx, { ...query, run_id: params.run_id })),
  });

  defineRoute(table, {
    method: 'delete', path: '/api/supply/runs/{run_id}', tag, permission: 'run_process', pipelineScoped: true,
    summary: 'Delete a supply run and everything it wrote',
    description: 'Orders, pegging, projection, exceptions, capacity use and its allocation go with it. A running run answers 409: kill its job first.',
    params: obj({ run_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$' } }, ['run_id']),
    query: scoped({}),
    audit: { entityType: 'supply_run', action: 'delete' },
    responses: { 200: { description: 'deleted', schema: out({ run_id: { type: 'string' }, deleted: { type: 'boolean' } }) }, ...errors(403, 404, 409) },
    handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const run = await runOr404(tx, { ...query, run_id: params.run_id });
      if (run.status === 'running') throw conflict(`supply run ${run.run_id} is still running: kill job ${run.run_id} first`);
      await deleteSupplyRun(tx, run.run_id);
      ctx.state.audit = { ...ctx.state.audit, entityId: run.run_id, oldValue: { run_id: run.run_id, n_orders: run.n_orders } };
      return { run_id: run.run_id, deleted: true };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/orders/breakdown', tag, pipelineScoped: true,
    summary: 'Engine orders aggregated by item, site and week',
    description: 'One row per item, receiving site and arrival week: number of orders, quantity, value and quantity per order type. Paged; the total is in `X-Total-Count`.',
    query: scoped({ run_id: runIdSchema, item_id: id32, site_id: id32, ...page }),
    responses: { 200: { description: 'aggregates', schema: { type: 'array', items: out({
      item_id: { type: 'integer' }, item_xuid: { type: 'string' }, site_id: { type: 'integer' }, site_xuid: { type: 'string' }, week: { type: 'integer' },
      period_start: { type: 'string' }, n_orders: { type: 'integer' }, qty: { type: 'number' }, value: { type: 'number' }, qty_by_type: { type: 'object' },
    }) } }, ...errors(404) },
    handler: async (ctx, { query, user }) => {
      return pageOfRun(ctx, user.accountId, query, (tx, run) => orderBreakdown(tx, run.run_id, query, query.skip, query.limit));
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/orders', tag, pipelineScoped: true,
    summary: 'Supply orders: engine recommendations merged with firm orders',
    description: 'Document 2 §4.1: engine orders of the run merged with firm orders. `include_firm` (default true) adds firm rows; `firm_only` returns only them and skips engine output. Firm rows carry weeks counted from the run\'s planning date (floor of days / 7) and their `erp_status` as status; without a `status` filter only firm rows that count as supply (firm, released, in_transit) are listed. `week_from`/`week_to` bound the arrival week (inclusive; `week_from` after `week_to` is a 400, a rule between two parameters that the schema cannot state). Ordered by item, site, arrival week, engine before firm, id; paging applies to the merged list; the total is in `X-Total-Count`.',
    query: scoped({
      run_id: runIdSchema, item_id: id32, site_id: id32, source_site_id: id32,
      order_type: { type: 'string', enum: ORDER_TYPE_ENUM }, status: { type: 'string', enum: ORDER_STATUS_ENUM },
      week_from: week, week_to: week, include_firm: { type: 'boolean', default: true }, firm_only: { type: 'boolean', default: false }, ...page,
    }),
    responses: { 200: { description: 'orders', schema: { type: 'array', items: orderSchema } }, ...errors(404) },
    handler: async (ctx, { query, user }) => {
      if (query.week_from !== undefined && query.week_to !== undefined && query.week_from > query.week_to) throw badRequest('week_from: must not be after week_to');
      // kept per plan version (api/planReads.ts): the same pages are read again and again between changes
      // when not, two prepared statements without a transaction: planning the union cost more than running it
      const url = ctx.deps.env.databaseUrl!;
      const { body, total } = await ctx.deps.cache.plan.answer(user.accountId, ctx.state.planVersion, answerKey('supply/orders', query), async () =>
        mergedOrderPageJson(url, user.accountId, scopedRun(await orderReadScope(url, user.accountId, query.pipeline_id, query.scenario_id, query.run_id), query), query, query.skip, query.limit));
      ctx.set('X-Total-Count', String(total));
      // the body as PostgreSQL wrote it, with the columns of orderSchema
      ctx.type = 'application/json';
      ctx.body = body;
      return undefined;
    },
  });

  defineRoute(table, {
    method: 'put', path: '/api/supply/orders/{order_id}', tag, permission: 'run_process', pipelineScoped: true,
    summary: 'Change an engine order\'s quantity or dates',
    description: 'Any of `qty` (> 0), `release_date`, `arrival_date` (YYYY-MM-DD, arrival not before release). Weeks are recomputed from the run\'s planning date; the engine\'s quantity and weeks are kept in `engine_qty` (and the run) beside the first change. Firm orders are changed through /api/supply/firm-orders.',
    params: obj({ order_id: { type: 'integer', minimum: 1, maximum: 2147483647 } }, ['order_id']),
    query: scoped({}),
    body: obj({ qty: { type: 'number', exclusiveMinimum: 0, maximum: 1e12 }, release_date: date, arrival_date: date }, [], { minProperties: 1 }),
    audit: { entityType: 'supply_order', action: 'update' },
    responses: { 200: { description: 'the order', schema: orderSchema }, ...errors(403, 404) },
    handler: (ctx, { params, query, body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const o = await orderOr404(tx, params.order_id, query);
      for (const f of ['release_date', 'arrival_date'] as const) if (body[f] !== undefined && !isDate(body[f])) throw badRequest(`body.${f}: not a valid date YYYY-MM-DD`);
      const release = body.release_date ?? o.release_date;
      const arrival = body.arrival_date ?? o.arrival_date;
      if (arrival < release) throw badRequest(`body.arrival_date: ${arrival} is before the release date ${release}`);
      await editEngineOrder(tx, o.order_id, {
        qty: body.qty ?? o.qty, release_date: release, arrival_date: arrival, release_week: weekOf(release, o.planning_date), arrival_week: weekOf(arrival, o.planning_date),
      }, user.email);
      ctx.state.audit = { ...ctx.state.audit, entityId: String(o.order_id), oldValue: { qty: o.qty, release_date: o.release_date, arrival_date: o.arrival_date }, newValue: body };
      return engineOrderView(tx, o.order_id);
    }),
  });

  for (const path of ['/api/supply/orders/{order_id}/pegging', '/api/supply/pegging/{order_id}']) {
    defineRoute(table, {
      method: 'get', path, tag, pipelineScoped: true,
      summary: 'The demand lines behind an engine order',
      description: 'FIFO pegging per site (docs/SUPPLY.md "Reading pegging"): each line is a slice of the order\'s quantity and the demand it serves; the lines sum to the order\'s quantity as the engine planned it. Both paths answer the same.',
      params: obj({ order_id: { type: 'integer', minimum: 1, maximum: 2147483647 } }, ['order_id']),
      query: scoped({}),
      responses: { 200: { description: 'pegging', schema: out({ order_id: { type: 'integer' }, qty: { type: 'number' }, pegged_qty: { type: 'number' }, lines: { type: 'array', items: pegSchema } }) }, ...errors(404) },
      handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const o = await orderOr404(tx, params.order_id, query);
        const lines = await orderPegging(tx, o.order_id);
        return { order_id: o.order_id, qty: o.engine_qty ?? o.qty, pegged_qty: lines.reduce((n, l) => n + (l.qty as number), 0), lines };
      }),
    });
  }

  defineRoute(table, {
    method: 'get', path: '/api/supply/pegging', tag, pipelineScoped: true,
    summary: 'Pegging of every order of a run',
    description: 'Bulk pegging, one row per order and demand line, with the order\'s item, type and arrival week; filters `item_id`, `site_id`, `kind`. Paged; the total is in `X-Total-Count`.',
    query: scoped({ run_id: runIdSchema, item_id: id32, site_id: id32, kind: { type: 'string', enum: ['forecast', 'indirect', 'firm_transfer', 'prepos', 'backlog', 'safety_stock', 'excess'] }, ...page }),
    responses: { 200: { description: 'pegging rows', schema: { type: 'array', items: { type: 'object' } } }, ...errors(404) },
    handler: async (ctx, { query, user }) => {
      return pageOfRun(ctx, user.accountId, query, (tx, run) => runPegging(tx, run.run_id, query, query.skip, query.limit));
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/inventory', tag, pipelineScoped: true,
    summary: 'Projected inventory per SKU-site and week',
    description: 'One row per SKU-site and week: opening, own demand, indirect demand, returns, gross requirement, firm and planned receipts, projected stock (negative = backlog), safety stock, shortage and inventory value. `short_only` keeps weeks below safety stock. Paged over rows; the total is in `X-Total-Count`.',
    query: scoped({ run_id: runIdSchema, item_id: id32, site_id: id32, week_from: { type: 'integer', minimum: 0, maximum: 51 }, week_to: { type: 'integer', minimum: 0, maximum: 51 }, short_only: { type: 'boolean', default: false }, ...page }),
    responses: { 200: { description: 'positions', schema: { type: 'array', items: out({
      item_id: { type: 'integer' }, item_xuid: { type: 'string' }, site_id: { type: 'integer' }, site_xuid: { type: 'string' }, unique_id: nullable({ type: 'string' }),
      week: { type: 'integer' }, week_start: { type: 'string' }, opening: { type: 'number' }, demand: { type: 'number' }, indirect: { type: 'number' }, returns: { type: 'number' },
      gross: { type: 'number' }, receipts_firm: { type: 'number' }, receipts_planned: { type: 'number' }, projected: { type: 'number' }, safety_stock: { type: 'number' },
      shortage: { type: 'number' }, inventory_value: { type: 'number' },
    }) } }, ...errors(404) },
    handler: async (ctx, { query, user }) => {
      return pageOfRun(ctx, user.accountId, query, (tx, run) => inventoryRows(tx, run.run_id, query, query.skip, query.limit));
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/exceptions', tag, pipelineScoped: true,
    summary: 'Exceptions of a supply run',
    description: 'Runs of consecutive weeks per SKU-site: shortage (high), below_safety_stock (medium), excess (low), no_source (the reason in the description), and one late_order per late or capacity-cut order. High severity first, then by week. Paged; the total is in `X-Total-Count`.',
    query: scoped({
      run_id: runIdSchema, item_id: id32, site_id: id32,
      type: { type: 'string', enum: ['shortage', 'below_safety_stock', 'excess', 'late_order', 'no_source'] }, severity: { type: 'string', enum: ['high', 'medium', 'low'] }, ...page,
    }),
    responses: { 200: { description: 'exceptions', schema: { type: 'array', items: out({
      id: { type: 'integer' }, item_id: { type: 'integer' }, item_xuid: { type: 'string' }, site_id: { type: 'integer' }, site_xuid: { type: 'string' }, unique_id: { type: 'string' },
      type: { type: 'string' }, severity: { type: 'string' }, week: { type: 'integer' }, end_week: { type: 'integer' }, week_start: { type: 'string' }, qty: { type: 'number' },
      description: { type: 'string' }, order_id: nullable({ type: 'integer' }),
    }) } }, ...errors(404) },
    handler: async (ctx, { query, user }) => {
      return pageOfRun(ctx, user.accountId, query, (tx, run) => exceptionRows(tx, run.run_id, query, query.skip, query.limit));
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/dashboard', tag, pipelineScoped: true,
    summary: 'KPIs of a supply run',
    description: 'The run\'s KPIs (projected fill rate, demand, served and shortage quantities, inventory values, orders by type, status and kind), exceptions by type and severity, the ten SKU-sites with the largest shortage, counts of late, edited and approved orders, and the run\'s checks.',
    query: scoped({ run_id: runIdSchema }),
    responses: { 200: { description: 'dashboard', schema: out({
      run: runSchema, kpis: nullable({ type: 'object' }), exceptions: { type: 'array', items: { type: 'object' } }, top_shortages: { type: 'array', items: { type: 'object' } },
      late_orders: { type: 'integer' }, edited_orders: { type: 'integer' }, approved_orders: { type: 'integer' },
    }) }, ...errors(404) },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => supplyDashboard(tx, await runOr404(tx, query))),
  });

  defineRoute(table, {
    method: 'post', path: '/api/supply/sync-alerts', tag, permission: 'run_process', pipelineScoped: true,
    summary: 'Write the run\'s exceptions into the exception log',
    description: 'The run\'s exceptions become the `supply` issues of the pipeline\'s exception-log rows (one row per SKU-site; forecast and io issues are kept). A resolved row with new supply issues opens again, a snoozed one stays snoozed until its date, a row left without issues is resolved. Idempotent: a second call with the same run changes nothing.',
    query: scoped({ run_id: runIdSchema }),
    audit: { entityType: 'exception_log', action: 'sync_supply' },
    responses: { 200: { description: 'what changed', schema: out({
      run_id: { type: 'string' }, pipeline_id: { type: 'integer' }, sku_sites_with_issues: { type: 'integer' }, created: { type: 'integer' }, updated: { type: 'integer' },
      reopened: { type: 'integer' }, cleared: { type: 'integer' },
    }) }, ...errors(403, 404) },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const run = await runOr404(tx, query);
      const r = await syncSupplyIssues(tx, run.run_id, run.pipeline_id);
      ctx.state.audit = { ...ctx.state.audit, entityId: run.run_id, newValue: r };
      return { run_id: run.run_id, pipeline_id: run.pipeline_id, ...r };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/consumption-preview', tag, pipelineScoped: true,
    summary: 'Forecast consumption by booked demand over the first weeks of the plan',
    description: 'For the run\'s first `weeks` weeks (default 4) and each SKU-site with a series: the planned forecast, the demand already booked in those weeks (demand_history), the forecast it consumes (week by week, up to the forecast), the remaining forecast and the over-consumption (booked beyond the forecast), with totals. Paged over SKU-sites; the total is in `X-Total-Count`.',
    query: scoped({ run_id: runIdSchema, weeks: { type: 'integer', minimum: 1, maximum: 52, default: 4 }, item_id: id32, site_id: id32, ...page }),
    responses: { 200: { description: 'preview', schema: out({
      run_id: { type: 'string' }, planning_date: { type: 'string' }, weeks: { type: 'integer' }, totals: { type: 'object' },
      items: { type: 'array', items: out({
        item_id: { type: 'integer' }, site_id: { type: 'integer' }, unique_id: { type: 'string' }, forecast: { type: 'number' }, actual: { type: 'number' }, consumed: { type: 'number' },
        remaining: { type: 'number' }, over_consumption: { type: 'number' }, consumption_rate: nullable({ type: 'number' }),
      }) },
    }) }, ...errors(404) },
    handler: async (ctx, { query, user }) => {
      const { run, preview } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const run = await runOr404(tx, query);
        return { run, preview: await consumptionPreview(tx, run.run_id, query.weeks, query, query.skip, query.limit) };
      });
      ctx.set('X-Total-Count', String(preview.total));
      return { run_id: run.run_id, planning_date: run.planning_date, weeks: query.weeks, totals: preview.totals, items: preview.rows };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/series/{unique_id}/indirect', tag: 'series',
    summary: 'Indirect demand at a SKU-site: what downstream sites draw on it',
    description: 'From a supply run: per week, the quantity downstream TRANSFER orders (planned, pre-positioning, firm not yet shipped) take out of this SKU-site, each row naming the downstream site and the order. `pipeline_id` omitted: the default pipeline; `scenario_id` omitted: the default supply scenario; `run_id` omitted: their newest completed run. The SKU-site need not have a series of its own (a central warehouse): an unknown item or site, or a SKU-site the run did not plan, is a 404.',
    params: obj({ unique_id: uniqueIdSchema }, ['unique_id']),
    query: obj({ ...supplyScopeQuery, run_id: runIdSchema }),
    responses: { 200: { description: 'indirect demand', schema: out({
      unique_id: { type: 'string' }, item_id: { type: 'integer' }, site_id: { type: 'integer' }, run_id: { type: 'string' }, planning_date: { type: 'string' },
      total: { type: 'number' }, weekly: { type: 'array', items: { type: 'number' }, description: 'indirect demand per week 0 … 51' },
      rows: { type: 'array', items: out({
        downstream_site_id: { type: 'integer' }, downstream_site_xuid: { type: 'string' }, week: { type: 'integer' }, week_start: { type: 'string' }, qty: { type: 'number' },
        origin: { type: 'string', enum: ['planned', 'prepos', 'firm'] }, order_id: { type: 'integer', description: 'the engine order (planned, prepos) or firm order (firm)' },
      }) },
    }) }, ...errors(403, 404) },
    handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const { itemId, siteId } = await visibleSeries(tx, user, params.unique_id, { mustExist: false });
      const pipelineId = query.pipeline_id ?? (await defaultResultsPipeline(tx));
      const scenarioId = query.scenario_id ?? (await defaultSupplyScenarioId(tx));
      if (!pipelineId) throw notFound('no supply run: the default pipeline is 0, which supply does not plan; pass pipeline_id');
      if (!scenarioId) throw notFound('no default supply scenario; pass scenario_id');
      const run = await runOr404(tx, { pipeline_id: pipelineId, scenario_id: scenarioId, run_id: query.run_id });
      const found = await indirectOfSku(tx, run.run_id, itemId, siteId);
      if (!found) throw notFound(`Supply run ${run.run_id} did not plan ${params.unique_id} (item ${itemId}, site ${siteId})`);
      return {
        unique_id: params.unique_id, item_id: itemId, site_id: siteId, run_id: run.run_id, planning_date: found.plan.planning_date,
        total: found.plan.indirect.reduce((n, v) => n + v, 0), weekly: found.plan.indirect, rows: found.rows,
      };
    }),
  });

  defineRoute(table, {
    method: 'patch', path: '/api/orders/{order_id}/approve', tag, permission: 'run_process',
    summary: 'Approve an engine order',
    description: 'Records the approved quantity and availability date beside the engine\'s values (the plan itself is not changed). Both fields are required; the quantity must be > 0.',
    params: obj({ order_id: { type: 'integer', minimum: 1, maximum: 2147483647 } }, ['order_id']),
    body: obj({ approved_quantity: { type: 'number', exclusiveMinimum: 0, maximum: 1e12 }, approved_availability_date: date }, ['approved_quantity', 'approved_availability_date']),
    audit: { entityType: 'supply_order', action: 'approve' },
    responses: { 200: { description: 'the order', schema: orderSchema }, ...errors(403, 404) },
    handler: (ctx, { params, body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      if (!isDate(body.approved_availability_date)) throw badRequest('body.approved_availability_date: not a valid date YYYY-MM-DD');
      const o = await getEngineOrder(tx, params.order_id);
      if (!o) throw notFound(`order ${params.order_id} not found`);
      await approveEngineOrder(tx, o.order_id, body.approved_quantity, body.approved_availability_date, user.email);
      ctx.state.audit = { ...ctx.state.audit, entityId: String(o.order_id), newValue: body };
      return engineOrderView(tx, o.order_id);
    }),
  });
}
