import {
  actualsAfter, bestMethodCounts, defaultResultsHaveScenario, lastHistoryWeek, originForecasts, pipelineResultSummary, scenarioPipelines,
  seriesOrigins, sparklineRows, type PipelineResultSummary,
} from '../../../db/forecastReads';
import { backtestMetricsOf } from '../../../db/forecastResults';
import { withTenant, type Tx } from '../../../db/pool';
import { getScenario } from '../../../db/scenarios';
import { seriesScope } from '../../../db/segments';
import { pipelineForecastVectors } from '../../../db/preparedReads';
import { forecastResults, getBestMethod, seriesForecastsOf, type ForecastRow } from '../../../db/seriesDetail';
import { MAX_SERIES_ENTRIES } from '../../readCache';
import { uniqueId } from '../../../db/seriesResults';
import type { AuthUser } from '../../context';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors } from '../schemas';
import { parseUniqueId, visibleSeries, visibleSeriesInMemory } from '../segments/access';
import { defaultPipelineOf, jsonText, membershipOf, readsOf, seriesIdsOf } from '../series/memory';
import { backtestWindows, finite, forecastPoints } from '../../../domain/series/detail';
import { checkCompatibility, CompatibilityInputError } from '../../../domain/forecast/compatibility';
import * as s from './schemas';
import { listFilter, resolveScope } from './scope';

/** The series (404 unknown, 403 outside the caller's segments), then whose results (resolveScope). */
async function openSeries(tx: Tx, user: AuthUser, uid: string, q: { pipeline_id?: number; scenario_id?: number }) {
  const key = await visibleSeries(tx, user, uid);
  const scope = await resolveScope(tx, q);
  return { key, k: { item_id: key.itemId, site_id: key.siteId }, scope };
}

type ShownForecast = Pick<ForecastRow, 'method' | 'start_week' | 'yhat' | 'yhat_lower' | 'yhat_upper' | 'level' | 'updated_at'>;

export function forecastsView(uid: string, scope: { pipelineId: number; scenarioId: number | null }, rows: readonly ShownForecast[], bestMethod: string | null) {
  return {
    unique_id: uid,
    pipeline_id: scope.pipelineId,
    scenario_id: scope.scenarioId,
    forecasts: Object.fromEntries(rows.map((r) => [r.method, forecastPoints(r.start_week, r)])),
    levels: Object.fromEntries(rows.map((r) => [r.method, r.level])),
    best_method: bestMethod,
    updated_at: rows.length ? rows.map((r) => r.updated_at).sort().at(-1)! : null,
  };
}

/** Forecasts, metrics and backtest origins of one series, sparklines, best-method counts and method compatibility. */
export function registerForecastRoutes(table: RouteTable): void {
  const tag = 'forecasts';

  defineRoute(table, {
    method: 'get', path: '/api/forecasts/{unique_id}', tag,
    summary: "A series' forecasts per method",
    description:
      `The forecast step's forecast of every method it fitted, weekly from the week after the history, with the prediction interval (its level in \`levels\`). ${s.SCOPE_RULE} ` +
      'An unknown series is a 404, one outside the caller\'s segments a 403; a series not forecast yet answers `forecasts: {}`.',
    params: s.uidParams, query: s.forecastQuery,
    responses: { 200: { description: 'forecasts', schema: s.forecastsResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, query, user }) => {
      const reads = readsOf(ctx, user);
      // The default pipeline's forecasts come from memory: the series index and the pipeline once per data version,
      // the series' answer once per version too (one statement, no transaction, when it is not held yet).
      if (reads && query.pipeline_id === undefined && query.scenario_id === undefined) {
        const [ids, members, p] = await Promise.all([
          seriesIdsOf(ctx, reads, user.accountId), membershipOf(ctx, reads, user), defaultPipelineOf(ctx, reads, user.accountId),
        ]);
        const key = visibleSeriesInMemory(user, params.unique_id, ids, members);
        // A pipeline whose series all fit in memory is loaded whole, in the background, once per version: planners
        // walk through many series, and one set-based read costs far less than a statement per series.
        if (ids.size <= MAX_SERIES_ENTRIES) {
          void reads.once(`forecastsLoaded:${p}`, async () => {
            for (const [uid, entry] of await pipelineForecastVectors(ctx.deps.env.databaseUrl!, user.accountId, p)) {
              void reads.seriesEntry(`forecasts:${p}:${uid}`, async () => entry);
            }
          });
        }
        // The rows, not the answer's text, are what memory holds: a tenth of the size, so the bound covers 10× the series.
        const { rows, best_method } = await reads.seriesEntry(`forecasts:${p}:${params.unique_id}`, () =>
          seriesForecastsOf(ctx.deps.env.databaseUrl!, user.accountId, p, { item_id: key.itemId, site_id: key.siteId }));
        const text = JSON.stringify(forecastsView(params.unique_id, { pipelineId: p, scenarioId: null }, rows, best_method));
        return jsonText(ctx, text);
      }
      return withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { k, scope } = await openSeries(tx, user, params.unique_id, query);
        const rows = await forecastResults(tx, k, scope.pipelineId, null, scope.scenarioId);
        const best = await getBestMethod(tx, k, scope.pipelineId);
        return forecastsView(params.unique_id, scope, rows, best?.best_method ?? null);
      });
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/metrics/{unique_id}', tag,
    summary: "A series' backtest metrics per method",
    description:
      "Rolling-origin backtest accuracy of every method (backtest step; the combination's row comes from the best-method step): mae, rmse, mase, bias (forecast − actual, > 0 over-forecasts), coverage_90, smape and the number of origins evaluated. A metric that could not be computed is null. `pipeline_id` chooses whose results (omitted: " + s.DEFAULT_PIPELINE_RULE + "). 404 unknown series, 403 outside the caller's segments; `metrics: {}` before the backtest step ran.",
    params: s.uidParams, query: s.pipelineQuery,
    responses: { 200: { description: 'metrics', schema: s.metricsResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { k, scope } = await openSeries(tx, user, params.unique_id, { pipeline_id: query.pipeline_id });
        const rows = (await backtestMetricsOf(tx, scope.pipelineId, [k])).get(uniqueId(k)) ?? [];
        const best = await getBestMethod(tx, k, scope.pipelineId);
        return {
          unique_id: params.unique_id,
          pipeline_id: scope.pipelineId,
          metrics: Object.fromEntries(rows.map((r) => [r.method, {
            mae: finite(r.mae), rmse: finite(r.rmse), mase: finite(r.mase), bias: finite(r.bias), coverage_90: finite(r.coverage_90), smape: finite(r.smape),
            origins_evaluated: r.origins_evaluated,
          }])),
          best_method: best?.best_method ?? null,
          metric: best?.metric ?? null,
        };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/forecasts/{unique_id}/origins', tag,
    summary: "A series' backtest origin dates",
    description:
      "Every origin (the last week of training data; its forecast starts the week after) with stored forecasts, oldest first, with the kinds and methods stored there: kind 'window' is the backtest step's scored windows (horizon-long, with actuals), kind 'origin' the backtest-forecast step's full-horizon forecasts. Both kinds are listed unless `kind` picks one. `pipeline_id` chooses whose results (omitted: " + s.DEFAULT_PIPELINE_RULE + "). 404 unknown series, 403 outside the caller's segments.",
    params: s.uidParams, query: s.originsQuery,
    responses: {
      200: {
        description: 'origins', schema: s.originsResponse,
        // the oldest origin leads to its forecasts
        links: { originForecasts: { operation: 'GET /api/forecasts/{unique_id}/origins/{origin_date}', parameters: { 'path.unique_id': '$response.body#/unique_id', 'path.origin_date': '$response.body#/origins/0/origin_date', 'query.pipeline_id': '$response.body#/pipeline_id' } } },
      },
      ...errors(400, 403, 404),
    },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { key, scope } = await openSeries(tx, user, params.unique_id, { pipeline_id: query.pipeline_id });
        const origins = await seriesOrigins(tx, key, scope.pipelineId, query.kind);
        return { unique_id: params.unique_id, pipeline_id: scope.pipelineId, origins };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/forecasts/{unique_id}/origins/{origin_date}', tag,
    summary: 'The forecasts made at one backtest origin',
    description:
      "Per method, the forecast made with the history up to `origin_date` (weeks from the week after it), with the actual demand of each week: the full-horizon 'origin' forecast when the backtest-forecast step stored one, else the backtest's 'window' (`kinds` says which; `kind` forces one). A malformed date or one that is not a Monday is a 400; an origin with no stored forecast a 404.",
    params: s.originParams, query: s.originsQuery,
    responses: { 200: { description: 'forecasts at the origin', schema: s.originForecastResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, query, user }) => {
      if (new Date(`${params.origin_date}T00:00:00Z`).getUTCDay() !== 1) {
        throw badRequest(`path.origin_date: ${params.origin_date} is not a Monday (origins are week starts)`);
      }
      return withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { key, scope } = await openSeries(tx, user, params.unique_id, { pipeline_id: query.pipeline_id });
        const rows = await originForecasts(tx, key, scope.pipelineId, params.origin_date, query.kind);
        if (!rows.length) throw notFound(`Series ${params.unique_id} has no backtest forecast at origin ${params.origin_date} in pipeline ${scope.pipelineId}${query.kind ? ` (kind ${query.kind})` : ''}`);
        const longest = Math.max(...rows.map((r) => r.yhat.length));
        const history = await actualsAfter(tx, key, params.origin_date, longest);
        // A window stores its actuals; an 'origin' forecast's weeks (and weeks observed since) come from the history.
        const windows = backtestWindows(rows.map((r) => ({ ...r, origin_week: params.origin_date })), (ds) => finite(history.get(ds)));
        const forecasts = Object.fromEntries(windows.map((w) => [w.method, w.points]));
        return {
          unique_id: params.unique_id, pipeline_id: scope.pipelineId, origin_date: params.origin_date,
          forecasts, kinds: Object.fromEntries(rows.map((r) => [r.method, r.kind])),
        };
      });
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/sparklines', tag,
    summary: 'Recent weekly demand of many series, for list sparklines',
    description:
      `For each series, the weekly demand of the last \`weeks\` weeks (default 52) as [week, value] pairs, oldest first. Every sparkline ends at the tenant's latest history week, so lines drawn side by side share their x axis; a week the series has no row for is absent and a closed calendar week is null. \`values: corrected\` shows the outlier step's corrected demand of \`pipeline_id\` (omitted: ${s.DEFAULT_PIPELINE_RULE}) where stored. At most ${s.MAX_SPARKLINE_IDS} ids; ids of unknown series or series outside the caller's segments are omitted from the answer (a series with no history in the window maps to []). The answer holds no forecast: /api/forecasts gives it.`,
    body: s.sparklinesBody, audit: { entityType: 'sparklines', action: 'read' },
    responses: { 200: { description: 'sparklines', schema: s.sparklinesResponse }, ...errors(400, 404) },
    handler: async (ctx, { body, user }) => {
      // A read sent as POST is audited like any POST; the id count, not up to 1000 ids, keeps the row small.
      const audited = { unique_ids: body.unique_ids.length, weeks: body.weeks, values: body.values, pipeline_id: body.pipeline_id ?? null };
      ctx.state.audit = { ...ctx.state.audit, newValue: audited };
      return withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const scope = await resolveScope(tx, { pipeline_id: body.pipeline_id });
        ctx.state.audit = { ...ctx.state.audit, newValue: { ...audited, pipeline_id: scope.pipelineId } };
        const keys = (body.unique_ids as string[]).map(parseUniqueId);
        const last = await lastHistoryWeek(tx);
        if (!last) return {};
        const rows = await sparklineRows(tx, keys, { scope: seriesScope(user), segmentSets: [] }, last, body.weeks, body.values === 'corrected' ? { pipelineId: scope.pipelineId } : null);
        return Object.fromEntries(rows.map((r) => [`${r.item_id}_${r.site_id}`, r.points]));
      });
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/best-methods', tag,
    summary: 'How many series each method won',
    description: `Best method per series (best-method step) over the series the caller may see, counted. ${s.SCOPE_RULE} With a pipeline that has segments, only its segments' series; \`segment_id\` narrows further.`,
    query: s.bestMethodsQuery,
    responses: { 200: { description: 'counts', schema: s.bestMethodsResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const scope = await resolveScope(tx, query);
        const f = await listFilter(tx, user, scope, query.segment_id);
        const { counts, inScope } = await bestMethodCounts(tx, f, scope);
        return { method_counts: counts, total_series: Object.values(counts).reduce((a, b) => a + b, 0), series_in_scope: inScope, pipeline_id: scope.pipelineId };
      }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/methods/check-compatibility', tag,
    summary: 'Which forecasting methods fit a series with these characteristics',
    description:
      "Applies the forecast step's rules: every method needs its minimum history; seasonal_naive one full season and holt_winters two (season_length ≥ 2, default 52); croston, sba, tsb, adida and imapa need 2 non-zero demands and no negative value; combination needs 3 observations. Non-zero periods come from `n_nonzero`, else `zero_ratio`, else all. `recommended` are the methods characterization would recommend for these characteristics. Contradictions (is_intermittent vs demand_class, n_nonzero > n_observations) and unknown method names are 400s naming the field.",
    body: s.compatibilityBody, audit: { entityType: 'methods', action: 'check' },
    responses: { 200: { description: 'compatibility', schema: s.compatibilityResponse }, ...errors(400) },
    handler: (_ctx, { body }) => {
      try {
        return checkCompatibility(body);
      } catch (e) {
        if (e instanceof CompatibilityInputError) throw badRequest(`body.${e.field}: ${e.message}`);
        throw e;
      }
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/forecast/scenarios/{id}/results/summary', tag: 'forecast scenarios',
    summary: "A forecast scenario's results",
    description:
      "Per pipeline using the scenario (and pipeline 0 when runs outside any pipeline stored forecasts under it): series forecasted, methods, best-method counts, the best method's forecast summed over the scenario's horizon, the mean best-method score and the last run (the later of the pipeline's last run and its newest stored forecast). Totals over all of them follow. Only series the caller may see count. 404 for an unknown scenario; a scenario nothing ran for answers zeros and `pipelines: []`.",
    params: s.summaryParams,
    responses: { 200: { description: 'summary', schema: s.summaryResponse }, ...errors(400, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const scenario = await getScenario(tx, params.id);
        if (!scenario) throw notFound(`Forecast scenario ${params.id} not found`);
        const scope = seriesScope(user);
        const entries: Array<{ pipeline_id: number; name: string | null; lastRun: string | null; sum: PipelineResultSummary }> = [];
        for (const p of await scenarioPipelines(tx, params.id)) {
          entries.push({ pipeline_id: p.id, name: p.name, lastRun: p.last_run_at, sum: await pipelineResultSummary(tx, scope, { pipelineId: p.id, scenarioId: null }, scenario.horizon_weeks) });
        }
        if (await defaultResultsHaveScenario(tx, params.id)) {
          entries.unshift({ pipeline_id: 0, name: null, lastRun: null, sum: await pipelineResultSummary(tx, scope, { pipelineId: 0, scenarioId: params.id }, scenario.horizon_weeks) });
        }
        const latest = (...ts: Array<string | null>) => ts.filter((t): t is string => t !== null).sort().at(-1) ?? null;
        const pipelines = entries.map((e) => ({
          pipeline_id: e.pipeline_id, name: e.name, series_forecasted: e.sum.series_forecasted, methods_count: e.sum.methods_count, methods: e.sum.methods,
          best_method_counts: e.sum.best_method_counts, total_forecast_volume: e.sum.total_forecast_volume,
          mean_backtest_score: finite(e.sum.mean_backtest_score), score_metrics: e.sum.score_metrics, last_run_at: latest(e.lastRun, e.sum.last_forecast_at),
        }));
        const bestCounts: Record<string, number> = {};
        for (const p of pipelines) for (const [m, n] of Object.entries(p.best_method_counts)) bestCounts[m] = (bestCounts[m] ?? 0) + n;
        const scored = pipelines.filter((p) => p.mean_backtest_score !== null);
        const scoredSeries = scored.reduce((a, p) => a + Object.values(p.best_method_counts).reduce((x, y) => x + y, 0), 0);
        return {
          scenario_id: scenario.id, scenario_name: scenario.name, horizon_weeks: scenario.horizon_weeks, pipelines,
          series_forecasted: pipelines.reduce((a, p) => a + p.series_forecasted, 0),
          methods_count: new Set(pipelines.flatMap((p) => p.methods)).size,
          best_method_counts: Object.fromEntries(Object.keys(bestCounts).sort().map((m) => [m, bestCounts[m]])),
          total_forecast_volume: pipelines.reduce((a, p) => a + p.total_forecast_volume, 0),
          mean_backtest_score: scoredSeries > 0
            ? scored.reduce((a, p) => a + p.mean_backtest_score! * Object.values(p.best_method_counts).reduce((x, y) => x + y, 0), 0) / scoredSeries
            : null,
          last_run_at: latest(...pipelines.map((p) => p.last_run_at)),
        };
      }),
  });
}
