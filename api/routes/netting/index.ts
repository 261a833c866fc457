import { getNettingRun, nettingOfSeries, nettingSeriesPage, nettingTotals, type NettingRunRow, type NettingSeriesRow } from '../../../db/netting';
import { withTenant } from '../../../db/pool';
import { directionOf } from '../../../domain/netting/consume';
import { DEFAULT_NETTING_SETTINGS, type NettingSettings } from '../../../domain/netting/series';
import type { NettingWorkflowInput } from '../../../workflows/netting';
import { notFound } from '../../errors';
import { newJobId, requireTemporal, startJob } from '../../jobs/service';
import { defineRoute, type RouteTable } from '../define';
import { resultsPipelineOr404, listFilter } from '../forecasts/scope';
import { DEFAULT_PIPELINE_RULE } from '../forecasts/schemas';
import { errors } from '../schemas';
import { visibleSeries } from '../segments/access';
import * as s from './schemas';

const DAY_MS = 86_400_000;
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

function periodView(run: NettingRunRow | null) {
  if (!run) return null;
  return {
    start_week: run.period_start,
    end_date: run.period_start ? addDays(run.period_start, 7 * run.period_weeks - 1) : null,
    weeks: run.period_weeks,
    backward_weeks: run.backward_weeks,
    forward_weeks: run.forward_weeks,
  };
}

const rate = (consumed: number, forecast: number) => (forecast > 0 ? consumed / forecast : null);

const seriesView = (r: NettingSeriesRow) => ({
  unique_id: r.unique_id, item_id: r.item_id, site_id: r.site_id, item_xuid: r.item_xuid, item_name: r.item_name, site_xuid: r.site_xuid, site_name: r.site_name,
  best_method: r.best_method, total_forecast: r.total_forecast, total_actual: r.total_actual, total_firm_demand: r.total_firm_demand,
  total_consumed: r.total_consumed, total_netted: r.total_netted, total_over_consumption: r.total_over_consumption, total_supply_plan: r.total_supply_plan,
  consumption_rate: r.consumption_rate, consumed_same: r.consumed_same, consumed_backward: r.consumed_backward, consumed_forward: r.consumed_forward,
  direction: r.direction, computed_at: r.computed_at, job_id: r.job_id,
});

/** Forecast netting (spec §4.5 `/api/forecast/netting/*`, §2.4 netting summary; docs/NETTING.md). */
export function registerNettingRoutes(table: RouteTable): void {
  const tag = 'forecast netting';

  // Literal paths before `{unique_id}`: the router tries routes in order, and 'summary' is no series id.
  defineRoute(table, {
    method: 'get', path: '/api/forecast/netting/summary', tag,
    summary: 'Netting summary: how much of the forecast actual orders and firm demand already consumed',
    description: `The netting summary record (spec §2.4) over the series of the pipeline's last refresh (POST /api/forecast/netting/refresh), limited to the caller's segments and \`segment_id\`. \`pipeline_id\` omitted: ${DEFAULT_PIPELINE_RULE}. Before the pipeline's first refresh every total is 0, \`period\` and \`computed_at\` are null. ${s.NETTING_RULE} \`netting_direction\` sums the backward and forward consumption of the series.`,
    query: s.summaryQuery,
    responses: { 200: { description: 'netting summary', schema: s.summaryResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const p = await resultsPipelineOr404(tx, query.pipeline_id);
        const f = await listFilter(tx, user, p, query.segment_id);
        const run = await getNettingRun(tx, p.id);
        const t = await nettingTotals(tx, p.id, f);
        return {
          pipeline_id: p.id, period: periodView(run), computed_at: run?.computed_at ?? null, series_count: t.series_count,
          total_forecast: t.total_forecast, total_consumed: t.total_consumed, total_netted: t.total_netted, total_firm_demand: t.total_firm_demand,
          total_supply_plan: t.total_supply_plan, consumption_rate: rate(t.total_consumed, t.total_forecast),
          netting_direction: directionOf(t.consumed_backward, t.consumed_forward),
        };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/forecast/netting/series', tag,
    summary: 'Netting per series',
    description: `One row per netted series of the pipeline's last refresh, with its totals, consumption rate and direction; filters \`segment_id\`, \`item_id\`, \`site_id\`, \`direction\`, \`over_consumed\`; \`sort_by\`/\`sort_dir\` (consumption_rate: series without forecast last); paged with \`skip\`/\`limit\`, the total in \`X-Total-Count\`. Only series in the caller's segments. \`pipeline_id\` omitted: ${DEFAULT_PIPELINE_RULE}. ${s.NETTING_RULE}`,
    query: s.seriesQuery,
    responses: { 200: { description: 'series', schema: { type: 'array', items: s.seriesRow } }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const p = await resultsPipelineOr404(tx, query.pipeline_id);
        const f = await listFilter(tx, user, p, query.segment_id);
        return nettingSeriesPage(tx, p.id, f, query);
      });
      ctx.set('X-Total-Count', String(total));
      return rows.map(seriesView);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/forecast/netting/refresh', tag, permission: 'run_process',
    summary: 'Recompute the netting of a pipeline (a job)',
    description: `Starts workflow \`nettingRefresh\` (job kind and step \`netting\`) and answers at once with status queued; follow it with GET /api/pipeline/jobs/{job_id}. The refresh replaces the pipeline's netting in one transaction. Settings omitted from the body take the values of the pipeline's previous refresh, else period ${DEFAULT_NETTING_SETTINGS.period_weeks} weeks, window ${DEFAULT_NETTING_SETTINGS.backward_weeks} back / ${DEFAULT_NETTING_SETTINGS.forward_weeks} forward; the answer shows the values used. ${s.NETTING_RULE}`,
    body: s.refreshBody,
    audit: { entityType: 'netting', action: 'refresh' },
    responses: { 200: { description: 'job started', schema: s.refreshResponse }, ...errors(400, 403, 404, 503) },
    handler: async (ctx, { body, user }) => {
      const { pipelineId, settings } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const p = await resultsPipelineOr404(tx, body.pipeline_id);
        const previous = await getNettingRun(tx, p.id);
        const pick = (key: keyof NettingSettings) => body[key] ?? previous?.[key] ?? DEFAULT_NETTING_SETTINGS[key];
        const chosen: NettingSettings = { period_weeks: pick('period_weeks'), backward_weeks: pick('backward_weeks'), forward_weeks: pick('forward_weeks') };
        return { pipelineId: p.id, settings: chosen };
      });
      const temporal = requireTemporal(ctx.deps.temporal);
      const jobId = newJobId('netting');
      const input: NettingWorkflowInput = { accountId: user.accountId, jobId, pipelineId, ...settings };
      const row = await startJob(ctx.deps.db, temporal, user.accountId,
        { job_id: jobId, kind: 'netting', step: 'netting', pipeline_id: pipelineId, created_by: user.email, params: { ...settings } }, 'nettingRefresh', [input]);
      ctx.state.audit = { ...ctx.state.audit, entityId: String(pipelineId), newValue: { job_id: jobId, ...settings } };
      return { job_id: row.job_id, step: 'netting', status: row.status, pipeline_id: pipelineId, ...settings };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/forecast/netting/{unique_id}', tag,
    summary: 'Netting of one series, week by week',
    description: `The series' netting from the pipeline's last refresh: totals, and per period week the forecast, actual orders, firm demand, consumed, netted, over-consumption and supply plan, with every consumption step (which week's demand consumed which week's forecast). 404 for an unknown series, or one the last refresh did not net (no best-method forecast, or no refresh yet); 403 for a series outside the caller's segments. \`pipeline_id\` omitted: ${DEFAULT_PIPELINE_RULE}. ${s.NETTING_RULE}`,
    params: s.detailParams, query: s.detailQuery,
    responses: { 200: { description: 'the series\' netting', schema: s.detailResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const key = await visibleSeries(tx, user, params.unique_id);
        const p = await resultsPipelineOr404(tx, query.pipeline_id);
        const run = await getNettingRun(tx, p.id);
        const r = await nettingOfSeries(tx, p.id, { item_id: key.itemId, site_id: key.siteId });
        if (!r || !run?.period_start) {
          throw notFound(`Series ${params.unique_id} has no netting in pipeline ${p.id}: ${run ? 'the last refresh had no best-method forecast of it' : 'the pipeline was never refreshed (POST /api/forecast/netting/refresh)'}`);
        }
        const week = (i: number) => addDays(run.period_start!, 7 * i);
        return {
          ...seriesView(r), pipeline_id: p.id, period: periodView(run), supply_run_id: run.supply_run_id,
          weeks: Array.from({ length: r.weeks }, (_, i) => week(i)),
          forecast: r.forecast, actual: r.actual, firm_demand: r.firm_demand, demand: r.demand,
          consumed: r.consumed, netted: r.netted, over_consumption: r.over_consumption, supply_plan: r.supply_plan,
          consumption: r.allocations.map(([d, f, q]) => ({
            demand_week: week(d), forecast_week: week(f), qty: q, direction: f === d ? 'same' : f < d ? 'backward' : 'forward',
          })),
        };
      }),
  });
}
