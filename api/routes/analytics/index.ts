import {
  aggregateBestForecast, aggregateHistory, countSeries, keysCondition, scopedSeries, seriesAccuracy, visibleKeys, type ResultScope,
} from '../../../db/forecastReads';
import { sql, withTenant, type Tx } from '../../../db/pool';
import type { Fragment } from '../../../db/segments';
import { seriesScope } from '../../../db/segments';
import type { SeriesFilter } from '../../../db/series';
import { accuracyPrecision, groupAccuracy, groupBy, methodDistribution, type SeriesAccuracy } from '../../../domain/analytics/analytics';
import type { AuthUser } from '../../context';
import { defineRoute, type RouteTable } from '../define';
import { DEFAULT_PIPELINE_RULE, SCOPE_RULE } from '../forecasts/schemas';
import { listFilter, resolveScope } from '../forecasts/scope';
import { errors } from '../schemas';
import { parseUniqueId } from '../segments/access';
import * as s from './schemas';
import { bomSeriesWhere } from '../../../db/maintenance';
import { maintenanceForecast, scenarioOf as maintenanceScenarioOf } from '../maintenance/demand';
import { causalForecast, getScenario as getCausalScenario } from '../../../db/causal';
import { notFound } from '../../errors';

async function accuracyRows(tx: Tx, user: AuthUser, q: { pipeline_id?: number; scenario_id?: number; segment_id?: number }): Promise<{ scope: ResultScope; rows: SeriesAccuracy[] }> {
  const scope = await resolveScope(tx, q);
  const f = await listFilter(tx, user, scope, q.segment_id);
  const rows = (await seriesAccuracy(tx, f, scope)).map((r) => ({ ...r, unique_id: `${r.item_id}_${r.site_id}` }));
  return { scope, rows };
}

async function aggregate(tx: Tx, where: Fragment, scope: ResultScope, maintenanceScenarioId: number | null = null, causalScenarioId: number | null = null) {
  const historical = await aggregateHistory(tx, where);
  const forecast = await aggregateBestForecast(tx, where, scope);
  return {
    historical, forecast: forecast.points, forecast_causal: causalScenarioId === null ? [] : await causalForecast(tx, causalScenarioId, scope.pipelineId, where),
    forecast_maint: await maintenanceForecast(tx, maintenanceScenarioId, await bomSeriesWhere(tx, where), forecast.points.map((p) => p.date)),
    pipeline_id: scope.pipelineId, series_count: await countSeries(tx, where), forecast_series_count: forecast.series,
  };
}

/** Portfolio analytics: accuracy by class and method, accuracy vs precision, aggregate demand. Definitions: domain/analytics/analytics.ts. */
export function registerAnalyticsRoutes(table: RouteTable): void {
  const tag = 'analytics';

  defineRoute(table, {
    method: 'get', path: '/api/analytics', tag,
    summary: 'Portfolio forecast accuracy',
    description:
      "Accuracy of each series' best method over its scored backtest windows (errors e = forecast − actual), for the series the caller may see: `overall`, `by_demand_class` (characterization step; 'unclassified' when not characterized), `by_best_method` ('none' without one) and the distribution of best methods. " +
      'Per group: series_count, forecasted_count, with_best_method, backtested_count; wape = Σ|e|/Σ|actual|·100 (the volume-weighted MAPE, pooled over points); weighted_mape = per-series MAPE over weeks with demand, weighted by actual volume; bias_pct = Σe/Σ|actual|·100 (> 0 over-forecast); mean_mase, mean_smape, mean_bias, mean_coverage_90 and mean_best_score are plain means of the per-series values; forecast_volume sums the best methods\' current forecasts. A ratio with nothing to compute from is null. ' +
      `${SCOPE_RULE} With a pipeline that has segments, only its segments' series; \`segment_id\` narrows further.`,
    query: s.analyticsQuery,
    responses: { 200: { description: 'analytics', schema: s.analyticsResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { scope, rows } = await accuracyRows(tx, user, query);
        return {
          pipeline_id: scope.pipelineId,
          scenario_id: scope.scenarioId,
          overall: groupAccuracy(rows),
          by_demand_class: groupBy(rows, (r) => r.demand_class, 'unclassified'),
          by_best_method: groupBy(rows, (r) => r.best_method, 'none'),
          best_method_distribution: methodDistribution(rows),
        };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/analytics/accuracy-precision', tag,
    summary: 'Accuracy against precision, per series',
    description:
      "One point per series with a best method, a scored backtest of it and a current forecast of it. accuracy = clip(1 − Σ|forecast − actual| / Σ|actual|, 0, 1) over the best method's backtest windows (1 − WAPE; with no actual demand 1 when every error is 0, else 0). precision = clip(1 − Σ(yhat_upper − yhat_lower) / (2·Σ|yhat|), 0, 1) over the best method's current forecast: 1 minus the interval's half-width relative to the forecast, so 100 ± 10 is 0.9 (a zero forecast: 1 when the interval has no width, else 0). " +
      `summary: the means over the points, and per best method. ${SCOPE_RULE}`,
    query: s.accuracyPrecisionQuery,
    responses: { 200: { description: 'points and summary', schema: s.accuracyPrecisionResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => accuracyPrecision((await accuracyRows(tx, user, query)).rows)),
  });

  defineRoute(table, {
    method: 'get', path: '/api/analytics/aggregate-demand', tag,
    summary: 'Demand and forecast summed over the portfolio',
    description:
      "`historical`: weekly demand summed over the series the caller may see (closed weeks add nothing). `forecast`: each series' best-method forecast (best-method step) summed per week; series without a best method add nothing (`forecast_series_count` says how many did). " +
      '`forecast_causal`: the stored causal demand (docs/CAUSAL.md) of causal scenario `causal_scenario_id` (404 unknown) summed per week over the series in scope: the results its run stored for this pipeline, else its most recent run; [] without `causal_scenario_id` or when the scenario was never run. ' +
      '`forecast_maint`: the maintenance demand (docs/MAINTENANCE.md) of the series in scope that appear in a maintenance BOM, in `maintenance_scenario_id` (404 unknown; omitted: the events as defined), summed per week over every week from the first to the last week of `forecast` (none: 52 weeks from the planning today); [] when no series in scope is in a BOM. ' +
      `\`series_scenario_id\` picks the results as \`scenario_id\` does elsewhere: ${SCOPE_RULE} With a pipeline that has segments, only its segments' series; \`segment_id\` narrows further.`,
    query: s.aggregateQuery,
    responses: { 200: { description: 'aggregate demand', schema: s.aggregateResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const scope = await resolveScope(tx, { pipeline_id: query.pipeline_id, scenario_id: query.series_scenario_id }, 'series_scenario_id');
        const f = await listFilter(tx, user, scope, query.segment_id);
        if (query.causal_scenario_id !== undefined && !(await getCausalScenario(tx, query.causal_scenario_id))) throw notFound(`causal_scenario_id: causal scenario ${query.causal_scenario_id} not found`);
        return aggregate(tx, scopedSeries(f, scope), scope, await maintenanceScenarioOf(tx, query.maintenance_scenario_id, 'maintenance_scenario_id'), query.causal_scenario_id ?? null);
      }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/analytics/aggregate-demand', tag,
    summary: 'Demand and forecast summed over chosen series',
    description:
      `As the GET, over the listed series (at most ${s.MAX_AGGREGATE_IDS}) and the results of \`pipeline_id\` (404 unknown; omitted: ${DEFAULT_PIPELINE_RULE}). Ids of unknown series and of series outside the caller's segments are left out and listed in \`unknown_ids\`.`,
    body: s.aggregateBody, audit: { entityType: 'analytics.aggregate_demand', action: 'read' },
    responses: { 200: { description: 'aggregate demand', schema: s.aggregateResponse }, ...errors(400, 404) },
    handler: async (ctx, { body, user }) => {
      // Audited like any POST; the id count, not up to 50000 ids, keeps the audit row small.
      const audited = { unique_ids: body.unique_ids.length, pipeline_id: body.pipeline_id ?? null };
      ctx.state.audit = { ...ctx.state.audit, newValue: audited };
      return withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const scope = await resolveScope(tx, { pipeline_id: body.pipeline_id });
        ctx.state.audit = { ...ctx.state.audit, newValue: { ...audited, pipeline_id: scope.pipelineId } };
        const f: SeriesFilter = { scope: seriesScope(user), segmentSets: [] };
        const asked = [...new Set(body.unique_ids as string[])];
        const visible = await visibleKeys(tx, asked.map(parseUniqueId), f);
        const seen = new Set(visible.map((k) => `${k.itemId}_${k.siteId}`));
        const where = visible.length ? keysCondition(visible) : sql.fragment`FALSE`;
        return { ...(await aggregate(tx, where, scope)), unknown_ids: asked.filter((u) => !seen.has(u)) };
      });
    },
  });
}
