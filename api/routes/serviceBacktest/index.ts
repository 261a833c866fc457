/**
 * The service backtest (docs/SERVICE_BACKTEST.md), not in the spec: its settings per pipeline, a run of the
 * service-backtest step, and the reads of what it stored: the rows, one SKU-site's rows, the summaries per group with
 * the peers and the equal-service stock, and a Vega-Lite chart of achieved against target.
 */
import { getMeioScenario } from '../../../db/meioConfig';
import { getPipeline } from '../../../db/pipelines';
import { seriesScope } from '../../../db/segments';
import { withTenant, type Tx } from '../../../db/pool';
import {
  saveServiceBacktestSettings, scenarioWithResults, serviceBacktestResults, serviceBacktestSettings, serviceBacktestSummaryRows,
  type ServiceBacktestFilter, type ServiceBacktestSettings,
} from '../../../db/serviceBacktest';
import { serviceBacktestChart, type ChartPoint } from '../../../domain/serviceBacktest/chart';
import { summarize, type GroupBy } from '../../../domain/serviceBacktest/summarize';
import { notFound } from '../../errors';
import { newJobId } from '../../jobs/service';
import { defineRoute, type RouteTable } from '../define';
import { launch } from '../pipeline';
import { errors, obj } from '../schemas';
import { uniqueIdSchema, visibleSeries } from '../segments/access';
import type { AuthUser } from '../../context';
import * as s from './schemas';

const STEP = 'service-backtest';
const EXTRA = 'Not in the spec (docs/SERVICE_BACKTEST.md).';

async function pipelineOr404(tx: Tx, id: number): Promise<void> {
  if (!(await getPipeline(tx, id))) throw notFound(`pipeline_id: pipeline ${id} not found`);
}

/** The scenario asked for (404 if it does not exist), else the one the pipeline's results are for; null: no results. */
async function scenarioOf(tx: Tx, pipelineId: number, asked: number | undefined): Promise<number | null> {
  await pipelineOr404(tx, pipelineId);
  if (asked === undefined) return scenarioWithResults(tx, pipelineId);
  if (!(await getMeioScenario(tx, asked))) throw notFound(`scenario_id: MEIO scenario ${asked} not found`);
  return asked;
}

type Query = Record<string, unknown>;
const filterOf = (q: Query, user: AuthUser, pipelineId: number, scenarioId: number): ServiceBacktestFilter => ({
  pipelineId, scenarioId, scope: seriesScope(user, 'r'),
  variant: q.variant as string | undefined, originWeeks: q.origin_weeks as number | undefined, itemId: q.item_id as number | undefined,
  siteId: q.site_id as number | undefined, demandClass: q.demand_class as string | undefined, abcClass: q.abc_class as string | undefined,
  segmentId: q.segment_id as number | undefined, missedBy: q.missed_by as number | undefined,
});

/** The settings sent, over the stored ones: fields left out keep their value. */
function merged(stored: ServiceBacktestSettings, b: Partial<ServiceBacktestSettings>): ServiceBacktestSettings {
  return {
    origin_weeks: b.origin_weeks ?? stored.origin_weeks, shortage_mode: b.shortage_mode ?? stored.shortage_mode, tolerance: b.tolerance ?? stored.tolerance,
    warmup_weeks: b.warmup_weeks ?? stored.warmup_weeks, peers: b.peers ?? stored.peers, sweep_targets: b.sweep_targets ?? stored.sweep_targets,
  };
}

export function registerServiceBacktestRoutes(table: RouteTable): void {
  const tag = 'service-backtest';

  defineRoute(table, {
    method: 'get', path: '/api/service-backtest/settings', tag,
    summary: 'Service backtest settings of a pipeline',
    description: `Origins, shortage mode, exception tolerance, warm-up, peers and target sweep the pipeline's service-backtest step runs with (the defaults until set). ${EXTRA}`,
    query: obj({ pipeline_id: s.pipelineQuery }, ['pipeline_id']),
    responses: { 200: { description: 'settings', schema: s.settingsSchema }, ...errors(400, 404) },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      await pipelineOr404(tx, query.pipeline_id);
      return { pipeline_id: query.pipeline_id, ...(await serviceBacktestSettings(tx, query.pipeline_id)) };
    }),
  });

  defineRoute(table, {
    method: 'put', path: '/api/service-backtest/settings', tag, permission: 'run_process',
    summary: 'Set the service backtest settings of a pipeline',
    description: `Fields left out keep their value. The next service-backtest run of the pipeline (alone or in run-all) uses them. ${EXTRA}`,
    body: s.settingsBody, audit: { entityType: 'service_backtest_settings', action: 'update' },
    responses: { 200: { description: 'the settings now', schema: s.settingsSchema }, ...errors(400, 403, 404) },
    handler: (ctx, { body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      await pipelineOr404(tx, body.pipeline_id);
      const saved = await saveServiceBacktestSettings(tx, body.pipeline_id, merged(await serviceBacktestSettings(tx, body.pipeline_id), body), user.email);
      return { pipeline_id: body.pipeline_id, ...saved };
    }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/service-backtest/run', tag, permission: 'run_process', needsCache: false,
    summary: 'Run the service backtest',
    description: `Stores the settings given (as PUT /api/service-backtest/settings does), then starts the service-backtest step as a job (workflow runStep, chunks of whole items on the compute queue), like POST /api/pipeline/run/service-backtest but with a MEIO scenario of choice. Follow it with GET /api/pipeline/jobs/{job_id}. ${EXTRA}`,
    body: s.runBody, audit: { entityType: 'job', action: 'run_service_backtest' },
    responses: { 200: { description: 'job started', schema: s.startedSchema }, ...errors(400, 403, 404, 503) },
    handler: async (ctx, { body, user }) => {
      await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await pipelineOr404(tx, body.pipeline_id);
        if (body.meio_scenario_id !== undefined && !(await getMeioScenario(tx, body.meio_scenario_id))) throw notFound(`meio_scenario_id: MEIO scenario ${body.meio_scenario_id} not found`);
        await saveServiceBacktestSettings(tx, body.pipeline_id, merged(await serviceBacktestSettings(tx, body.pipeline_id), body), user.email);
      });
      const jobId = body.run_id ?? newJobId(STEP);
      return launch(ctx, user, {
        job_id: jobId, kind: 'step', step: STEP, pipeline_id: body.pipeline_id, scenario_id: null, segment_id: body.segment_id ?? null, created_by: user.email,
        params: { meio_scenario_id: body.meio_scenario_id ?? null, n_workers: body.n_workers ?? null },
      }, 'runStep', [{
        jobId, accountId: user.accountId, step: STEP, pipelineId: body.pipeline_id, scenarioId: null, meioScenarioId: body.meio_scenario_id ?? null,
        segmentId: body.segment_id ?? null, createdBy: user.email, nWorkers: body.n_workers ?? null,
      }]);
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/service-backtest/results', tag,
    summary: 'Service backtest rows',
    description: `One row per SKU-site, origin and variant (ours at the target, the normal and bootstrap peers, ours at each sweep level): the policy sized as of the origin and what it achieved on the held-out weeks. Filters by variant, origin, SKU-site, demand class, ABC class, segment and a miss of more than \`missed_by\`; a user limited to segments reads only their SKU-sites (here, in the summary and in the chart). Paged; the total is in \`X-Total-Count\`. ${EXTRA}`,
    query: s.listQuery,
    responses: { 200: { description: 'rows', schema: { type: 'array', items: s.resultSchema } }, ...errors(400, 404) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const scenarioId = await scenarioOf(tx, query.pipeline_id, query.scenario_id);
        if (scenarioId === null) return { rows: [], total: 0 };
        return serviceBacktestResults(tx, filterOf(query, user, query.pipeline_id, scenarioId), { skip: query.skip, limit: query.limit });
      });
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/service-backtest/results/{unique_id}', tag,
    summary: 'Service backtest rows of one SKU-site',
    description: `Every origin and variant of the SKU-site; 404 when it has none, 403 when it is outside the caller's segments. ${EXTRA}`,
    params: obj({ unique_id: uniqueIdSchema }, ['unique_id']), query: s.oneQuery,
    responses: { 200: { description: 'rows', schema: { type: 'array', items: s.resultSchema } }, ...errors(400, 403, 404) },
    handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const scenarioId = await scenarioOf(tx, query.pipeline_id, query.scenario_id);
      const { itemId, siteId } = await visibleSeries(tx, user, params.unique_id, { mustExist: false });
      const { rows } = scenarioId === null ? { rows: [] } : await serviceBacktestResults(tx, { pipelineId: query.pipeline_id, scenarioId, itemId, siteId }, { skip: 0, limit: 1000 });
      if (!rows.length) throw notFound(`SKU-site ${params.unique_id} has no service backtest rows in pipeline ${query.pipeline_id}`);
      return rows;
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/service-backtest/summary', tag,
    summary: 'Service backtest summary per group',
    description: `Per group (all, demand_class, abc_class or segment) and variant: SKU-site replays, mean target and achieved fill rate and their gap in points, pooled fill rate, mean cycle service level, stock value and units; ours along the target sweep; and per peer the stock our policies need for the peer's achieved service. ${EXTRA}`,
    query: s.summaryQuery,
    responses: { 200: { description: 'summary', schema: s.summarySchema }, ...errors(400, 404) },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const scenarioId = await scenarioOf(tx, query.pipeline_id, query.scenario_id);
      const groupBy = query.group_by as GroupBy;
      if (scenarioId === null) return { pipeline_id: query.pipeline_id, scenario_id: null, group_by: groupBy, groups: [] };
      const rows = await serviceBacktestSummaryRows(tx, filterOf(query, user, query.pipeline_id, scenarioId));
      return { pipeline_id: query.pipeline_id, scenario_id: scenarioId, group_by: groupBy, groups: summarize(rows, groupBy) };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/service-backtest/chart', tag,
    summary: 'Vega-Lite chart of achieved against target',
    description: `A Vega-Lite spec: each replayed SKU-site a point of target (x) against achieved fill rate (y), by variant, over the diagonal; below it a target was missed. At most \`limit\` points, in SKU-site order. ${EXTRA}`,
    query: s.chartQuery,
    responses: { 200: { description: 'Vega-Lite spec', schema: { type: 'object' } }, ...errors(400, 404) },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const scenarioId = await scenarioOf(tx, query.pipeline_id, query.scenario_id);
      const { rows } = scenarioId === null ? { rows: [] } : await serviceBacktestResults(tx, filterOf(query, user, query.pipeline_id, scenarioId), { skip: 0, limit: query.limit });
      const points = (rows as unknown as ChartPoint[]).filter((r) => r.fill_rate !== null).map((r) => ({
        unique_id: r.unique_id, origin_weeks: r.origin_weeks, variant: r.variant, target_service: r.target_service, fill_rate: r.fill_rate,
        demand_class: r.demand_class, average_inventory_value: r.average_inventory_value,
      }));
      return serviceBacktestChart(points, `Service backtest, pipeline ${query.pipeline_id}: achieved against target fill rate`);
    }),
  });
}
