import { resultsPipelineOr404 } from '../forecasts/scope';
import { getMeioScenario } from '../../../db/meioConfig';
import { diagnosticCounts, fillRateHeatmap, latestMeioRun, meioGroupResults, meioResults, skuFacts } from '../../../db/meioReads';
import { withTenant, type Tx } from '../../../db/pool';
import { notFound } from '../../errors';
import { newJobId } from '../../jobs/service';
import { defineRoute, type RouteTable } from '../define';
import { launch } from '../pipeline';
import { errors, nullable, obj, out } from '../schemas';
import { id32 } from '../scenarios/schemas';
import { parseUniqueId, uniqueIdSchema } from '../segments/access';
import type { JsonSchema } from '../validation';

const pipelineId: JsonSchema = { type: 'integer', minimum: 0, maximum: 2147483647, description: 'pipeline of the results; default the default results pipeline' };
const page = {
  skip: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0 },
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200 },
};

const diagnostic: JsonSchema = out({ code: { type: 'string' }, detail: { type: 'string' } });
const skuResult: JsonSchema = out({
  unique_id: { type: 'string' }, item_id: { type: 'integer' }, site_id: { type: 'integer' },
  item_xuid: { type: 'string' }, item_name: { type: 'string' }, site_xuid: { type: 'string' }, site_name: { type: 'string' },
  policy: { type: 'string', enum: ['rQ', 'sS', 'base_stock'], description: 'base_stock at every site of a repairable (metric) item' }, service_type: { type: 'string', enum: ['fill_rate', 'cycle_service'] },
  target_service: { type: 'number' }, target_source: { type: 'string', description: 'scenario, segment:<id>, parameter_set:<id> or override' },
  echelon_model: {
    type: 'string', enum: ['single', 'gsm', 'metric'],
    description: 'single: one stocking site; gsm: the guaranteed-service model placed safety stock across the item\'s network; metric: a repairable item (its failed units come back along RETURN/REPAIR routes), planned with VARI-METRIC: one-for-one base stock (order_up_to = S, reorder_point = S − 1, order_qty 1), ltd_mean/ltd_std the units in resupply, investment = unit_cost × S',
  },
  distribution_type: nullable({ type: 'string', description: 'the fitted weekly demand family, or pooled for a site serving others' }),
  weekly_mean: nullable({ type: 'number' }), weekly_std: nullable({ type: 'number' }),
  lead_time_weeks: nullable({ type: 'number' }), net_lead_time_weeks: nullable({ type: 'number', description: 'the replenishment time the policy covers' }),
  review_period_weeks: nullable({ type: 'number' }), ltd_mean: nullable({ type: 'number' }), ltd_std: nullable({ type: 'number' }),
  order_qty: nullable({ type: 'number' }), reorder_point: nullable({ type: 'number' }), order_up_to: nullable({ type: 'number' }),
  safety_stock: nullable({ type: 'number' }), expected_fill_rate: nullable({ type: 'number' }), expected_csl: nullable({ type: 'number' }),
  expected_backorders: nullable({ type: 'number' }), expected_on_hand: nullable({ type: 'number' }),
  unit_cost: nullable({ type: 'number' }),
  investment: nullable({ type: 'number', description: 'unit cost × expected on hand; for a metric site unit cost × base stock (every spare is owned: on the shelf, in transit or in repair)' }),
  meets_target: { type: 'boolean' }, diagnostics: { type: 'array', items: diagnostic },
});
const groupResult: JsonSchema = out({
  item_id: { type: 'integer' }, item_xuid: { type: 'string' }, item_name: { type: 'string' }, n_skus: { type: 'integer' },
  echelon_model: nullable({ type: 'string', enum: ['single', 'gsm', 'metric'], description: 'the model that planned the item (null for rows of runs before it was recorded)' }),
  target_service: nullable({ type: 'number', description: 'demand-weighted target of the item\'s demand sites' }),
  expected_fill_rate: nullable({ type: 'number' }),
  expected_backorders: nullable({ type: 'number', description: 'metric: units owed to the item\'s customers at the chosen point, what METRIC minimises for the money; null otherwise' }),
  investment: { type: 'number' }, meets_target: { type: 'boolean' },
  curve: {
    type: 'array',
    items: out({ investment: { type: 'number' }, fill_rate: { type: 'number' }, expected_backorders: { type: 'number', description: 'metric curves: the customers\' expected backorders at the point' } }, ['investment', 'fill_rate']),
    description: 'the service-vs-investment curve, sampled, cheapest first: the greedy optimiser\'s, or for a metric item Sherbrooke\'s efficient curve of investment against expected backorders (with the fill rate at each point), which includes the chosen point',
  },
  curve_investment: nullable({ type: 'number', description: 'the chosen point\'s investment on the curve (the demand sites\' stock; for a metric item every site\'s spares)' }),
  weekly_demand: { type: 'number', description: 'mean weekly demand of the demand sites: the item\'s weight in a portfolio budget' },
  budget_cap: nullable({ type: 'number', description: 'the share of the scenario budget this item got, when the budget binds' }),
});

async function scenarioOr404(tx: Tx, id: number) {
  const s = await getMeioScenario(tx, id);
  if (!s) throw notFound(`MEIO scenario ${id} not found`);
  return s;
}

const pipelineOr404 = async (tx: Tx, id: number | undefined): Promise<number> => (await resultsPipelineOr404(tx, id)).id;

/** MEIO runs and results (spec §4.9): run, results (SKU and group), fill-rate heatmap, diagnostic. */
export function registerMeioResultRoutes(table: RouteTable): void {
  const tag = 'meio';

  defineRoute(table, {
    method: 'post', path: '/api/meio/scenarios/{id}/run', tag, permission: 'run_process',
    summary: 'Run the optimiser for a MEIO scenario',
    description: 'Starts the meio step as a job (workflow runStep, chunks of whole items on the compute queue) for the pipeline\'s series under this scenario\'s targets and costs. Follow it with GET /api/pipeline/jobs/{job_id}. Results: GET /api/meio/scenarios/{id}/results. A repeated `run_id` returns the job it started.',
    params: obj({ id: id32 }, ['id']),
    body: obj({
      pipeline_id: { ...pipelineId, description: 'pipeline whose distributions and series the run uses (0: runs outside any pipeline); default the default results pipeline' },
      segment_id: { ...id32, description: 'only the series of this segment' },
      run_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'idempotency key: a retried request with the same run_id returns the same job' },
      n_workers: { type: 'integer', minimum: 1, maximum: 64 },
    }),
    audit: { entityType: 'job', action: 'run_meio' },
    responses: { 200: { description: 'job started', schema: out({ job_id: { type: 'string' }, step: nullable({ type: 'string' }), status: { type: 'string' } }) }, ...errors(400, 403, 404, 503) },
    handler: async (ctx, { params, body, user }) => {
      const pipeline = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await scenarioOr404(tx, params.id);
        return pipelineOr404(tx, body.pipeline_id);
      });
      const jobId = body.run_id ?? newJobId('meio');
      return launch(ctx, user, {
        job_id: jobId, kind: 'step', step: 'meio', pipeline_id: pipeline, scenario_id: null, segment_id: body.segment_id ?? null, created_by: user.email,
        params: { meio_scenario_id: params.id, n_workers: body.n_workers ?? null },
      }, 'runStep', [{
        jobId, accountId: user.accountId, step: 'meio', pipelineId: pipeline, scenarioId: null, meioScenarioId: params.id,
        segmentId: body.segment_id ?? null, createdBy: user.email, nWorkers: body.n_workers ?? null,
      }]);
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/meio/scenarios/{id}/results', tag,
    summary: 'MEIO results: per SKU-site or per item',
    description: '`level=sku` (default): one row per SKU-site with its policy, reorder point, order-up-to level, safety stock, expected fill rate and backorders, investment and why it misses its target; `level=group`: one row per item network with the optimiser\'s curve. Items whose failed units come back along RETURN/REPAIR routes are planned with VARI-METRIC (`echelon_model` `metric`, docs/INVENTORY.md). Paged; the total is in `X-Total-Count`.',
    params: obj({ id: id32 }, ['id']),
    query: obj({
      pipeline_id: pipelineId,
      level: { type: 'string', enum: ['sku', 'group'], default: 'sku' },
      item_id: id32, site_id: id32,
      meets_target: { type: 'boolean', description: 'only SKU-sites (or items) that meet (true) or miss (false) their target' },
      diagnostic: { type: 'string', enum: ['no_distribution', 'no_route', 'no_unit_cost', 'budget', 'long_lead_time', 'group_allocation', 'pass_through'], description: 'only SKU-sites with this diagnostic' },
      ...page,
    }),
    responses: { 200: { description: 'results', schema: { type: 'array', items: { anyOf: [skuResult, groupResult] } } }, ...errors(400, 404) },
    handler: async (ctx, { params, query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await scenarioOr404(tx, params.id);
        const p = await pipelineOr404(tx, query.pipeline_id);
        const f = { pipelineId: p, scenarioId: params.id, itemId: query.item_id, siteId: query.site_id, meetsTarget: query.meets_target, diagnostic: query.diagnostic };
        return query.level === 'group' ? meioGroupResults(tx, f, query) : meioResults(tx, f, query);
      });
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/meio/fr-heatmap', tag,
    summary: 'Expected fill rate by segment and site',
    description: 'Demand-weighted expected fill rate, target, SKU-sites below target and investment per segment × site, from the latest meio run of the pipeline (default: the default results pipeline) and scenario (default: the pipeline\'s latest run). A SKU-site counts in each of its segments; those in none form "(no segment)".',
    query: obj({ pipeline_id: pipelineId, scenario_id: id32, segment_id: id32 }),
    responses: {
      200: {
        description: 'heatmap', schema: out({
          pipeline_id: nullable({ type: 'integer' }), scenario_id: nullable({ type: 'integer' }),
          segments: { type: 'array', items: out({ segment_id: nullable({ type: 'integer' }), segment_name: { type: 'string' } }) },
          sites: { type: 'array', items: out({ site_id: { type: 'integer' }, site_xuid: { type: 'string' } }) },
          cells: { type: 'array', items: out({
            segment_id: nullable({ type: 'integer' }), segment_name: { type: 'string' }, site_id: { type: 'integer' }, site_xuid: { type: 'string' },
            sku_sites: { type: 'integer' }, fill_rate: nullable({ type: 'number' }), target_service: nullable({ type: 'number' }),
            below_target: { type: 'integer' }, investment: { type: 'number' },
          }) },
        }),
      },
      ...errors(400, 404),
    },
    handler: async (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      if (query.scenario_id) await scenarioOr404(tx, query.scenario_id);
      const pipeline = await pipelineOr404(tx, query.pipeline_id);
      const run = await latestMeioRun(tx, pipeline, query.scenario_id);
      if (!run) return { pipeline_id: pipeline, scenario_id: query.scenario_id ?? null, segments: [], sites: [], cells: [] };
      const cells = await fillRateHeatmap(tx, run.pipeline_id, run.scenario_id, query.segment_id ? [query.segment_id] : undefined);
      const segments = [...new Map(cells.map((c) => [c.segment_id, { segment_id: c.segment_id, segment_name: c.segment_name }])).values()];
      const sites = [...new Map(cells.map((c) => [c.site_id, { site_id: c.site_id, site_xuid: c.site_xuid }])).values()].sort((a, b) => a.site_id - b.site_id);
      return { ...run, segments, sites, cells };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/meio/diagnostic', tag,
    summary: 'Why SKU-sites miss their service target',
    description: 'With `unique_id`: that SKU-site\'s result, its diagnostics (no_distribution: run the distribution step; no_route: no supply route and no item-site lead time; no_unit_cost; budget: the scenario budget stopped the optimiser; group_allocation: the item\'s group target is met more cheaply elsewhere; long_lead_time; pass_through: GSM holds its stock downstream) and the facts behind them. Without: the counts per diagnostic of the latest run. The pipeline defaults to the default results pipeline (docs/API.md, "Which pipeline a read uses").',
    query: obj({ pipeline_id: pipelineId, scenario_id: id32, unique_id: uniqueIdSchema }),
    responses: {
      200: {
        description: 'diagnostic', schema: out({
          pipeline_id: nullable({ type: 'integer' }), scenario_id: nullable({ type: 'integer' }),
          sku_sites: { type: 'integer' }, below_target: { type: 'integer' }, by_code: { type: 'object', additionalProperties: { type: 'integer' } },
          unique_id: { type: 'string' }, result: nullable(skuResult),
          facts: out({ has_series: { type: 'boolean' }, has_distribution: { type: 'boolean' }, inbound_routes: { type: 'integer' }, master_lead_time: nullable({ type: 'number' }) }),
          reasons: { type: 'array', items: diagnostic },
        }, ['pipeline_id', 'scenario_id']),
      },
      ...errors(400, 404),
    },
    handler: async (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      if (query.scenario_id) await scenarioOr404(tx, query.scenario_id);
      const pipeline = await pipelineOr404(tx, query.pipeline_id);
      const run = await latestMeioRun(tx, pipeline, query.scenario_id);
      const scope = { pipeline_id: run?.pipeline_id ?? pipeline, scenario_id: run?.scenario_id ?? query.scenario_id ?? null };
      if (!query.unique_id) {
        if (!run) return { ...scope, sku_sites: 0, below_target: 0, by_code: {} };
        return { ...scope, ...(await diagnosticCounts(tx, run.pipeline_id, run.scenario_id)) };
      }
      const { itemId, siteId } = parseUniqueId(query.unique_id);
      const facts = await skuFacts(tx, scope.pipeline_id, itemId, siteId);
      const result = run ? (await meioResults(tx, { pipelineId: run.pipeline_id, scenarioId: run.scenario_id, itemId, siteId }, { skip: 0, limit: 1 })).rows[0] ?? null : null;
      const reasons = result ? [...(result.diagnostics as Array<{ code: string; detail: string }>)] : [];
      if (!result) {
        if (!facts.has_series) reasons.push({ code: 'no_series', detail: 'the item has no demand history at this site' });
        if (!facts.has_distribution) reasons.push({ code: 'no_distribution', detail: 'no fitted demand distribution for this pipeline: run the distribution step' });
        if (!facts.inbound_routes && facts.master_lead_time === null) reasons.push({ code: 'no_route', detail: 'no supply route leads into this site and the item-site has no lead time' });
        if (!run) reasons.push({ code: 'not_run', detail: 'no meio run for this pipeline and scenario yet' });
      }
      return { ...scope, unique_id: query.unique_id, result, facts, reasons };
    }),
  });
}
