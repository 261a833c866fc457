import { getAllocationRun, listAllocationResults, listAllocationRuns, type AllocationRunRow } from '../../../db/allocation';
import { getSupplyScenario } from '../../../db/supplyScenarios';
import { getPipeline } from '../../../db/pipelines';
import { withTenant } from '../../../db/pool';
import { greedyPercentOfLp } from '../../../domain/allocation/compare';
import { notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, int4, nullable, obj, out, skipParam } from '../schemas';
import { SUPPLY_SCOPE_REQUIRED, supplyScopeQuery } from './scope';

const NOT_IN_SPEC = 'Not in the spec: where allocation results are read (spec §4.6 runs the allocation step; document 2 §2.3 names its fields).';
const runId = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,200}$' };
const limit = int4(1, { maximum: 1000, default: 200, description: 'rows to return (at most 1000)' });

const runSchema = out({
  run_id: { type: 'string', description: 'the allocation job id' },
  supply_run_id: nullable({ type: 'string', description: 'the supply run whose pool and plans were allocated' }),
  parent_job_id: nullable({ type: 'string', description: 'the supply job when the run was its child; null when started on its own' }),
  pipeline_id: { type: 'integer' }, scenario_id: { type: 'integer', description: 'the supply scenario' },
  status: { type: 'string', enum: ['running', 'completed', 'failed'] },
  method: nullable({ type: 'string', enum: ['lp', 'greedy'], description: 'whose allocation is stored: lp when the HiGHS LP ran (it is optimal), else greedy' }),
  n_supplies: { type: 'integer', description: 'pool entries (SO_ and FIRM_)' }, n_demands: { type: 'integer', description: 'demand lines after opening stock' },
  supply_qty: { type: 'number' }, demand_qty: { type: 'number' }, allocated_qty: { type: 'number' },
  greedy_objective: nullable({ type: 'number' }),
  lp_objective: nullable({ type: 'number', description: 'null when the LP did not run (over its size limit or the solver gave up: summary.method_reason)' }),
  greedy_pct_of_lp: nullable({ type: 'number', description: '100 × greedy_objective / lp_objective; null without an LP objective' }),
  error: nullable({ type: 'string' }),
  summary: { type: 'object', description: 'pool and demand counts, arcs, slices, both solvers\' served and late quantities and times, the ABC configuration used, the model parameters' },
  started_at: { type: 'string' }, finished_at: nullable({ type: 'string' }),
});

const resultSchema = out({
  supply_id: { type: 'string', description: '`SO_<order_id>` (engine order, reliability 0.85) or `FIRM_<id>` (firm order, reliability 1.0)' },
  demand_id: { type: 'string', description: '`<item_id>_<site_id>:<week>`: the SKU-site\'s forecast of that week, net of opening stock' },
  item_id: { type: 'integer' }, site_id: { type: 'integer' }, item_xuid: nullable({ type: 'string' }), site_xuid: nullable({ type: 'string' }),
  qty: { type: 'number' }, is_firm: { type: 'integer', enum: [0, 1] },
  arrival_week: { type: 'integer' }, due_week: { type: 'integer' }, late_weeks: { type: 'integer', description: 'max(0, arrival_week − due_week)' },
  priority_class: nullable({ type: 'string', description: 'ABC class of the SKU-site; null when it has none' }),
});

function runView(r: AllocationRunRow) {
  const pct = r.greedy_objective !== null && r.lp_objective !== null ? greedyPercentOfLp(r.greedy_objective, r.lp_objective) : null;
  return { ...r, greedy_pct_of_lp: pct !== null && Number.isFinite(pct) ? pct : null };
}

/** Allocation runs and their results (spec §4.6 child allocation step; document 2 §2.3, §4.3). */
export function registerAllocationRoutes(table: RouteTable): void {
  const tag = 'supply';

  defineRoute(table, {
    method: 'get', path: '/api/supply/allocations', tag, pipelineScoped: true,
    summary: 'Allocation runs of a pipeline and supply scenario, newest first',
    description: `${NOT_IN_SPEC} One row per run of the allocation step (a child of a supply run, or started alone with POST /api/pipeline/run/allocation): the supply run it allocated, the method whose allocation is stored, the greedy and LP objectives side by side and the greedy's as a percentage of the LP's. \`supply_run_id\` narrows to the runs of one supply run. The total is in \`X-Total-Count\`. docs/SUPPLY.md, "Allocation step".`,
    query: obj({ ...supplyScopeQuery, supply_run_id: { ...runId, description: 'only runs that allocated this supply run' }, skip: skipParam, limit }, [...SUPPLY_SCOPE_REQUIRED]),
    responses: { 200: { description: 'runs', schema: { type: 'array', items: runSchema } }, ...errors(400, 404) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        if (!(await getPipeline(tx, query.pipeline_id))) throw notFound(`pipeline_id: pipeline ${query.pipeline_id} not found`);
        if (!(await getSupplyScenario(tx, query.scenario_id))) throw notFound(`scenario_id: supply scenario ${query.scenario_id} not found`);
        return listAllocationRuns(tx, { pipelineId: query.pipeline_id, scenarioId: query.scenario_id, supplyRunId: query.supply_run_id }, query);
      });
      ctx.set('X-Total-Count', String(total));
      return rows.map(runView);
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/supply/allocations/{run_id}/results', tag,
    summary: 'What an allocation run gave: supply to demand line',
    description: `${NOT_IN_SPEC} One row per (supply, demand line) with the quantity allocated, in (item, site, due week) order: \`is_firm\` = 1 for \`FIRM_\` supplies (document 2 §2.3), the supply's arrival week and the line's due week (week 0 = the supply run's planning date), how late and the line's priority class. A line that is missing, or whose rows sum to less than its quantity, is short by the difference; a supply without rows is unused. Filters: \`item_id\`, \`site_id\`, \`is_firm\`, \`supply_id\`. Paged; the total is in \`X-Total-Count\`.`,
    params: obj({ run_id: runId }, ['run_id']),
    query: obj({
      item_id: int4(1), site_id: int4(1), is_firm: { type: 'integer', enum: [0, 1], description: '1: firm orders only; 0: engine orders only' },
      supply_id: { type: 'string', minLength: 1, maxLength: 100, description: 'one supply, e.g. `FIRM_12` or `SO_3401`' },
      skip: skipParam, limit,
    }),
    responses: { 200: { description: 'results', schema: { type: 'array', items: resultSchema } }, ...errors(400, 404) },
    handler: async (ctx, { params, query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        if (!(await getAllocationRun(tx, params.run_id))) throw notFound(`Allocation run ${params.run_id} not found`);
        return listAllocationResults(tx, params.run_id, { itemId: query.item_id, siteId: query.site_id, isFirm: query.is_firm, supplyId: query.supply_id }, query);
      });
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });
}
