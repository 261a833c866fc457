import { defaultResultsPipeline } from '../../../db/forecastReads';
import { getPipeline } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import {
  backtestForecasts, deleteAdjustments, deleteLockedMethod, forecastResults, getBestMethod, getLockedMethod, listAdjustments, setLockedMethod,
  upsertAdjustments, weeklyHistory, type AdjustmentRow, type BestMethodRow, type LockRow,
} from '../../../db/seriesDetail';
import { backtestMetricsOf, type MetricsRow } from '../../../db/forecastResults';
import { characteristicsFor, distributionsFor, outliersOf, uniqueId, type CharacteristicsRow } from '../../../db/seriesResults';
import { cleanModelAnswer, explainMethod, explanationMessages, improvementPct, type ExplanationFacts, type MethodMetrics } from '../../../domain/explain/methodExplanation';
import { logger } from '../../../lib/logger';
import { buildVegaSpec } from '../../../domain/charts/vegaSpec';
import type { AuthUser } from '../../context';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { chatCompletion, llmSettings, LlmUnavailable } from '../../llm';
import { errors } from '../schemas';
import { visibleSeries } from '../segments/access';
import { addWeeks, mondayOf, weeksBetween } from '../../../domain/time/weeks';
import { backtestWindows, correctedHistory, finite, forecastConvergence, forecastEvolution, forecastPoints, type OriginForecast } from '../../../domain/series/detail';
import * as s from './schemas';

interface Key {
  item_id: number;
  site_id: number;
}

/** 404 unknown series, 403 outside the caller's (editable, for changes) segments, 404 unknown pipeline. */
async function open(tx: Tx, user: AuthUser, uid: string, opts: { query?: { pipeline_id?: number }; edit?: boolean } = {}): Promise<Key> {
  const { itemId, siteId } = await visibleSeries(tx, user, uid, { edit: opts.edit });
  const q = opts.query;
  // an omitted pipeline_id becomes the default pipeline here, so every handler reads one explicit id
  if (q && q.pipeline_id === undefined) q.pipeline_id = await defaultResultsPipeline(tx);
  if (q?.pipeline_id && !(await getPipeline(tx, q.pipeline_id))) throw notFound(`pipeline_id: pipeline ${q.pipeline_id} not found`);
  return { item_id: itemId, site_id: siteId };
}

const pipelineText = (p: number) => (p ? `pipeline ${p}` : 'pipeline 0 (runs outside any pipeline)');

const adjustmentView = (r: AdjustmentRow) => ({ id: r.id, ds: r.ds, corrected_y: r.corrected_y, reason: r.reason, source: r.source, created_by: r.created_by, created_at: r.created_at });

/** The actual demand of a week (null for a closed week or one outside the history). */
function actualOf(history: Array<{ ds: string; y: number | null }>): (ds: string) => number | null {
  const m = new Map(history.map((h) => [h.ds, h.y]));
  return (ds) => finite(m.get(ds) ?? null);
}

/** The method a chart shows by default: the best method of the pipeline, else the planner's lock. */
async function defaultMethod(tx: Tx, k: Key, uid: string, pipelineId: number): Promise<string> {
  const best = await getBestMethod(tx, k, pipelineId);
  if (best) return best.best_method;
  const lock = await getLockedMethod(tx, k);
  if (lock) return lock.method;
  throw notFound(`Series ${uid} has no best method for ${pipelineText(pipelineId)} yet (run the best-method step) and no locked method; pass ?method=`);
}

/** The origin forecasts of a method plus its current forecast (whose origin is the week before it starts). */
async function originForecasts(tx: Tx, k: Key, uid: string, pipelineId: number, method: string): Promise<OriginForecast[]> {
  const past = await backtestForecasts(tx, k, pipelineId, 'origin', method);
  const [current] = await forecastResults(tx, k, pipelineId, [method]);
  if (!past.length && !current) throw notFound(`Series ${uid} has no ${method} forecast for ${pipelineText(pipelineId)} (run the forecast and backtest-forecast steps)`);
  const list: OriginForecast[] = past.map((r) => ({ origin: r.origin_week, current: false, yhat: r.yhat, yhat_lower: r.yhat_lower, yhat_upper: r.yhat_upper }));
  if (current) list.push({ origin: addWeeks(current.start_week, -1), current: true, yhat: current.yhat, yhat_lower: current.yhat_lower, yhat_upper: current.yhat_upper });
  return list;
}

const metricsOf = (m: MetricsRow | undefined): MethodMetrics | null =>
  m ? { mae: finite(m.mae), rmse: finite(m.rmse), mase: finite(m.mase), bias: finite(m.bias), coverage_90: finite(m.coverage_90), origins_evaluated: m.origins_evaluated } : null;

function explanationFacts(uid: string, pipelineId: number, best: BestMethodRow | null, lock: LockRow | null, ch: CharacteristicsRow | null, metrics: MetricsRow[]): ExplanationFacts {
  const bestMethod = best?.best_method ?? lock!.method;
  const byMethod = new Map(metrics.map((m) => [m.method, m]));
  const rank = best?.ranking ?? [];
  const runner = best?.runner_up_method ?? null;
  const runnerScore = runner ? finite(rank.find((r) => r.method === runner)?.score ?? null) : null;
  const metric = best?.metric ?? null;
  const trendZ = Number(ch?.details?.trend_z);
  return {
    unique_id: uid,
    pipeline_id: pipelineId,
    best_method: bestMethod,
    runner_up_method: runner,
    metric,
    best_score: finite(best?.best_score ?? null),
    runner_up_score: runnerScore,
    improvement_pct: improvementPct(metric, finite(best?.best_score ?? null), runnerScore),
    methods_compared: rank.length,
    locked: best ? best.locked : true,
    locked_method: lock?.method ?? null,
    locked_by: lock?.locked_by ?? null,
    characteristics: ch
      ? {
        demand_class: ch.demand_class, n_observations: ch.n_observations, mean: finite(ch.mean), adi: finite(ch.adi), cv2: finite(ch.cv2),
        zero_ratio: finite(ch.zero_ratio), has_seasonality: ch.has_seasonality, seasonal_period: ch.seasonal_period, has_trend: ch.has_trend,
        trend_direction: Number.isFinite(trendZ) && trendZ !== 0 ? (trendZ > 0 ? 1 : -1) : null, complexity_level: ch.complexity_level,
      }
      : null,
    best_metrics: metricsOf(byMethod.get(bestMethod)),
    runner_up_metrics: runner ? metricsOf(byMethod.get(runner)) : null,
  };
}

/** Per-series forecasting results (spec §4.3): history, outliers, distribution, method choice, charts, corrections. */
export function registerSeriesDetailRoutes(table: RouteTable): void {
  const tag = 'series';
  const common = { params: s.uniqueIdParams, tag };
  const scoped = 'Results are those of `pipeline_id` (omitted: the default pipeline, see the parameter; an unknown pipeline is a 404). An unknown series is a 404 naming it; a series outside the caller\'s segments a 403.';

  defineRoute(table, {
    ...common, method: 'get', path: '/api/series/{unique_id}/data',
    summary: 'Weekly demand history with corrected values',
    description: `One point per history week (series_weekly), oldest first: \`y\` is the demand (null for a closed calendar week); \`corrected_y\` is the planner's correction of that week (demand_adjustments; manual corrections win), else the outlier step's corrected value, else \`y\`; \`correction\` says which. Corrections of future weeks (copy-forecast) are listed by GET /api/adjustments/{unique_id}, not here. ${scoped}`,
    query: s.pipelineQuery,
    responses: { 200: { description: 'demand points', schema: { type: 'array', items: s.demandPoint } }, ...errors(403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query });
        const out = await outliersOf(tx, query.pipeline_id, k);
        return correctedHistory(await weeklyHistory(tx, k), out && { start_week: out.start_week, values: out.corrected_y }, await listAdjustments(tx, k));
      }),
  });

  defineRoute(table, {
    ...common, method: 'get', path: '/api/series/{unique_id}/distributions',
    summary: 'Fitted demand distribution',
    description: `The distribution the distribution step chose by the Kolmogorov-Smirnov statistic (normal, gamma, Poisson, negative binomial, or empirical), its parameters, fit statistics and service-level quantiles, with every candidate's fit and the basis (weekly or lead-time demand). 404 with a detail when the series has not been fitted for the pipeline yet. ${scoped}`,
    query: s.pipelineQuery,
    responses: { 200: { description: 'fitted distribution', schema: s.distributionSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query });
        const d = (await distributionsFor(tx, query.pipeline_id, [k])).get(uniqueId(k));
        if (!d) throw notFound(`Series ${params.unique_id} has no fitted distribution for ${pipelineText(query.pipeline_id)} yet (run the distribution step)`);
        return {
          unique_id: params.unique_id, pipeline_id: query.pipeline_id, distribution_type: d.distribution_type, mean: finite(d.mean), std: finite(d.std),
          params: d.params, ks_statistic: finite(d.ks_statistic), ks_pvalue: finite(d.ks_pvalue), service_level_quantiles: d.service_level_quantiles,
          candidates: d.candidates, basis: d.basis, lead_time_weeks: finite(d.lead_time_weeks), n: d.n, updated_at: d.updated_at,
        };
      }),
  });

  defineRoute(table, {
    ...common, method: 'get', path: '/api/series/{unique_id}/outliers',
    summary: 'Detected outliers',
    description: `The outlier step's result: detection method and parameters, and the flagged weeks with their value and corrected value. 404 with a detail when the step has not run for the series and pipeline. ${scoped}`,
    query: s.pipelineQuery,
    responses: { 200: { description: 'outliers', schema: s.outliersSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query });
        const o = await outliersOf(tx, query.pipeline_id, k);
        if (!o) throw notFound(`Series ${params.unique_id} has no outlier detection for ${pipelineText(query.pipeline_id)} yet (run the outlier step)`);
        const points = [...o.outliers].sort((a, b) => String(a.ds).localeCompare(String(b.ds)));
        return { unique_id: params.unique_id, pipeline_id: query.pipeline_id, method: o.method, params: o.params, n_outliers: o.n_outliers, points, start_week: o.start_week, updated_at: o.updated_at };
      }),
  });

  defineRoute(table, {
    ...common, method: 'get', path: '/api/series/{unique_id}/best-method',
    summary: 'The selected forecasting method',
    description: `The best-method step's choice: best method, runner-up, best score on \`metric\`, the ranking and the reason; \`locked\` says the choice came from a planner's lock. \`locked_method\` is the lock in place now: when it was set after the last run, it differs from \`best_method\` until the next run. A series with a lock but no stored choice answers the lock (metric null, empty ranking); with neither it is a 404. ${scoped}`,
    query: s.pipelineQuery,
    responses: { 200: { description: 'selected method', schema: s.bestMethodSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query });
        const [best, lock] = [await getBestMethod(tx, k, query.pipeline_id), await getLockedMethod(tx, k)];
        const base = { unique_id: params.unique_id, pipeline_id: query.pipeline_id, locked_method: lock?.method ?? null, locked_by: lock?.locked_by ?? null };
        if (best) {
          return {
            ...base, best_method: best.best_method, runner_up_method: best.runner_up_method, best_score: finite(best.best_score), metric: best.metric,
            locked: best.locked, ranking: best.ranking, reason: best.reason, updated_at: best.updated_at,
          };
        }
        if (!lock) throw notFound(`Series ${params.unique_id} has no best method for ${pipelineText(query.pipeline_id)} yet (run the best-method step)`);
        return {
          ...base, best_method: lock.method, runner_up_method: null, best_score: null, metric: null, locked: true, ranking: [],
          reason: `locked by ${lock.locked_by ?? 'a planner'}; the best-method step has not run for this series yet`, updated_at: lock.locked_at,
        };
      }),
  });

  defineRoute(table, {
    ...common, method: 'put', path: '/api/series/{unique_id}/locked-method', permission: 'create_override',
    summary: 'Lock the forecasting method of a series',
    description: "From the next run the forecast step always fits `method` and best-method always picks it, in every pipeline (the lock is tenant-wide). `method` must be a forecasting method (400 naming `body.method` otherwise). Replaces an existing lock. Needs `can_create_override` (or an admin) and edit rights on the series' segments; audited with the previous and new lock.",
    body: s.lockBody, audit: { entityType: 'locked_method', action: 'update' },
    responses: { 200: { description: 'the lock', schema: s.lockSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { k, old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { edit: true });
        return { k, ...(await setLockedMethod(tx, k, body.method, user.email)) };
      });
      ctx.state.audit = { ...ctx.state.audit, entityId: params.unique_id, oldValue: old ? { method: old.method, locked_by: old.locked_by } : null, newValue: { method: row.method } };
      return { unique_id: params.unique_id, ...k, method: row.method, locked_by: row.locked_by, locked_at: row.locked_at, previous_method: old?.method ?? null };
    },
  });

  defineRoute(table, {
    ...common, method: 'delete', path: '/api/series/{unique_id}/locked-method', permission: 'create_override',
    summary: 'Remove the lock',
    description: 'The tournament chooses again from the next run. A series without a lock is a 404. Needs `can_create_override` (or an admin); audited.',
    audit: { entityType: 'locked_method', action: 'delete' },
    responses: { 200: { description: 'removed', schema: s.unlockSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { edit: true });
        const old = await deleteLockedMethod(tx, k);
        if (!old) throw notFound(`Series ${params.unique_id} has no locked method`);
        return old;
      });
      ctx.state.audit = { ...ctx.state.audit, entityId: params.unique_id, oldValue: { method: old.method, locked_by: old.locked_by }, newValue: { deleted: true } };
      return { status: 'deleted', unique_id: params.unique_id, method: old.method };
    },
  });

  defineRoute(table, {
    ...common, method: 'get', path: '/api/series/{unique_id}/method-explanation',
    summary: 'Why the method was chosen, in plain sentences',
    description: `Built from the facts returned in \`facts\`: the characterisation (Syntetos-Boylan class, ADI, CV², seasonality, trend) and the backtest (the best method against the runner-up on the ranking metric, by how much, MAE, bias, interval coverage) and the lock. With the tenant's language model configured (parameters \`llm.base_url\`, \`llm.model\`, \`llm.api_key\`: an OpenAI-compatible chat completions endpoint) the model writes the text from these facts (\`source: 'llm'\`); without one, or when it fails (\`warning\` says why), a deterministic explanation is given (\`source: 'deterministic'\`). 404 when the series has neither a stored choice nor a lock. ${scoped}`,
    query: s.pipelineQuery,
    responses: { 200: { description: 'explanation', schema: s.explanationSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, query, user }) => {
      const { facts, llm } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query });
        const [best, lock] = [await getBestMethod(tx, k, query.pipeline_id), await getLockedMethod(tx, k)];
        if (!best && !lock) throw notFound(`Series ${params.unique_id} has no best method for ${pipelineText(query.pipeline_id)} yet (run the best-method step)`);
        const facts = explanationFacts(params.unique_id, query.pipeline_id, best, lock, (await characteristicsFor(tx, query.pipeline_id, [k])).get(uniqueId(k)) ?? null, (await backtestMetricsOf(tx, query.pipeline_id, [k])).get(uniqueId(k)) ?? []);
        return { facts, llm: await llmSettings(tx) };
      });
      const draft = explainMethod(facts);
      const answer = { unique_id: params.unique_id, pipeline_id: query.pipeline_id, best_method: facts.best_method, facts };
      if (!llm) return { ...answer, explanation: draft, source: 'deterministic', warning: null };
      // The model is called outside the transaction: a slow endpoint must not hold a connection.
      try {
        const text = cleanModelAnswer(await chatCompletion(llm, explanationMessages(facts, draft)));
        if (!text) throw new LlmUnavailable('the model returned no usable text');
        return { ...answer, explanation: text, source: 'llm', warning: null };
      } catch (err) {
        if (!(err instanceof LlmUnavailable)) throw err;
        logger.warn({ err: err.message }, 'language model unavailable; deterministic method explanation');
        return { ...answer, explanation: draft, source: 'deterministic', warning: `language model unavailable (${err.message}); deterministic explanation given` };
      }
    },
  });

  defineRoute(table, {
    ...common, method: 'get', path: '/api/series/{unique_id}/forecast-evolution',
    summary: 'How the forecast of each week changed as the origin moved',
    description: `For \`method\` (default: the best method, else the locked one): the forecasts made at each backtest origin (backtest_forecasts kind 'origin', from the backtest-forecast step) and the current forecast (forecast_results; its origin is the week before it starts, \`current: true\`). \`origins\` lists them oldest first; \`targets\` has one entry per target week, oldest first, with the week's \`actual\` demand (null when not yet known or closed) and every forecast of that week, oldest origin first, with its lead in weeks. To draw it, plot one line per origin over \`targets[].forecasts[]\` (x = ds, y = yhat, colour = origin) and the actuals as points. 404 when the method has neither origin forecasts nor a current forecast. ${scoped}`,
    query: s.methodQuery,
    responses: { 200: { description: 'evolution chart data', schema: s.evolutionSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query });
        const method = query.method ?? (await defaultMethod(tx, k, params.unique_id, query.pipeline_id));
        const forecasts = await originForecasts(tx, k, params.unique_id, query.pipeline_id, method);
        return { unique_id: params.unique_id, pipeline_id: query.pipeline_id, method, ...forecastEvolution(forecasts, actualOf(await weeklyHistory(tx, k))) };
      }),
  });

  defineRoute(table, {
    ...common, method: 'get', path: '/api/series/{unique_id}/forecast-convergence',
    summary: 'Forecast error by lead time',
    description: `For \`method\` (default: the best method, else the locked one), over the same forecasts as forecast-evolution: for each lead time (weeks from the origin to the target week) the forecasts whose target week has a known actual demand (series_weekly, closed weeks excluded), their mean absolute error \`mae\` and mean error \`bias\` (yhat − actual). Leads with no known actual are left out, so an empty list means no forecast can be scored yet. ${scoped}`,
    query: s.methodQuery,
    responses: { 200: { description: 'convergence data', schema: s.convergenceSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query });
        const method = query.method ?? (await defaultMethod(tx, k, params.unique_id, query.pipeline_id));
        const forecasts = await originForecasts(tx, k, params.unique_id, query.pipeline_id, method);
        return { unique_id: params.unique_id, pipeline_id: query.pipeline_id, method, leads: forecastConvergence(forecasts, actualOf(await weeklyHistory(tx, k))) };
      }),
  });

  defineRoute(table, {
    ...common, method: 'get', path: '/api/series/{unique_id}/backtest-forecasts',
    summary: 'Backtest forecasts over windows and methods',
    description: `Every forecast the backtest made, oldest origin first then by method: \`kind=window\` (default) the scored windows of the backtest step, \`kind=origin\` the full-horizon forecasts of the backtest-forecast step. Each point has the target week, the forecast, its interval and the actual demand (stored with the window, else from the history; null when unknown). An empty \`windows\` list means the steps have not run. ${scoped}`,
    query: s.backtestQuery,
    responses: { 200: { description: 'backtest forecasts', schema: s.backtestForecastsSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query });
        const rows = await backtestForecasts(tx, k, query.pipeline_id, query.kind, query.method);
        const windows = backtestWindows(rows, actualOf(await weeklyHistory(tx, k)));
        return { unique_id: params.unique_id, pipeline_id: query.pipeline_id, kind: query.kind, methods: [...new Set(rows.map((r) => r.method))].sort(), windows };
      }),
  });

  defineRoute(table, {
    ...common, method: 'get', path: '/api/series/{unique_id}/vega-spec',
    summary: 'A Vega-Lite chart of the series',
    description: `A Vega-Lite v5 specification with its data inline (renders as is with vega-embed or the Vega editor): the history, the corrected history (as GET /data), and the forecast of each method in \`methods\` (default: the best method, else the locked one; none when the series has neither) with its prediction-interval band. Data rows are {ds, series, value, lower, upper}, \`series\` being 'history', 'corrected history' or 'forecast: <method>'. A requested method without a stored forecast is a 404 naming it. ${scoped}`,
    query: s.vegaQuery,
    responses: { 200: { description: 'Vega-Lite spec', schema: s.vegaSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query });
        let methods: string[];
        if (query.methods) {
          methods = [...new Set((query.methods as string).split(','))];
        } else {
          const best = await getBestMethod(tx, k, query.pipeline_id);
          const lock = best ? null : await getLockedMethod(tx, k);
          methods = best ? [best.best_method] : lock ? [lock.method] : [];
        }
        const rows = methods.length ? await forecastResults(tx, k, query.pipeline_id, methods) : [];
        const missing = methods.filter((m) => !rows.some((r) => r.method === m));
        if (query.methods && missing.length) throw notFound(`query.methods: series ${params.unique_id} has no stored forecast for ${missing.join(', ')} in ${pipelineText(query.pipeline_id)}`);
        const out = await outliersOf(tx, query.pipeline_id, k);
        const history = correctedHistory(await weeklyHistory(tx, k), out && { start_week: out.start_week, values: out.corrected_y }, await listAdjustments(tx, k));
        const forecasts = methods.flatMap((m) => rows.filter((r) => r.method === m)).map((r) => ({ method: r.method, level: r.level, points: forecastPoints(r.start_week, r) }));
        return buildVegaSpec({ unique_id: params.unique_id, history, forecasts });
      }),
  });

  defineRoute(table, {
    ...common, method: 'post', path: '/api/series/{unique_id}/copy-forecast', permission: 'create_override', status: 201,
    summary: "Copy a method's forecast into demand corrections",
    description: `Writes the stored forecast of \`method\` (query \`pipeline_id\`) for every forecast week whose Monday lies in [start, end] into the series' demand corrections (source 'copy_forecast', reason naming the method), replacing corrections of those weeks; negative forecasts are stored as 0 and weeks without a finite forecast are skipped. 400 for a method that is not a forecasting method, start after end, or a period reaching outside the stored forecast (the detail gives the forecast's weeks); 404 when the series has no forecast of that method. Needs \`can_create_override\` (or an admin); audited. ${scoped}`,
    query: s.pipelineQuery, body: s.copyBody, audit: { entityType: 'demand_adjustment', action: 'copy_forecast' },
    responses: { 201: { description: 'the corrections written', schema: s.copySchema }, ...errors(403, 404) },
    handler: async (ctx, { params, query, body, user }) => {
      if (body.start > body.end) throw badRequest(`body.start: ${body.start} is after body.end (${body.end})`);
      const result = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { query, edit: true });
        const [f] = await forecastResults(tx, k, query.pipeline_id, [body.method]);
        if (!f) throw notFound(`Series ${params.unique_id} has no ${body.method} forecast for ${pipelineText(query.pipeline_id)} (run the forecast step)`);
        const last = addWeeks(f.start_week, f.yhat.length - 1);
        const covers = `the ${body.method} forecast covers the weeks ${f.start_week} to ${last}`;
        const [from, to] = [mondayOf(body.start), mondayOf(body.end)];
        if (from < f.start_week) throw badRequest(`body.start: the week of ${body.start} (${from}) is before the first forecast week; ${covers}`);
        if (to > last) throw badRequest(`body.end: the week of ${body.end} (${to}) is after the last forecast week; ${covers}`);
        const rows = [];
        for (let i = weeksBetween(f.start_week, from); i <= weeksBetween(f.start_week, to); i++) {
          const v = finite(f.yhat[i]);
          if (v !== null) rows.push({ ds: addWeeks(f.start_week, i), corrected_y: Math.max(0, v), reason: `copied from the ${body.method} forecast (pipeline ${query.pipeline_id})` });
        }
        return upsertAdjustments(tx, k, rows, 'copy_forecast', user.email);
      });
      ctx.state.audit = {
        ...ctx.state.audit, entityId: params.unique_id,
        oldValue: result.replaced.map((r) => ({ ds: r.ds, corrected_y: r.corrected_y, source: r.source })),
        newValue: { method: body.method, start: body.start, end: body.end, weeks: result.written.map((r) => ({ ds: r.ds, corrected_y: r.corrected_y })) },
      };
      return { unique_id: params.unique_id, pipeline_id: query.pipeline_id, method: body.method, n_written: result.written.length, n_replaced: result.replaced.length, rows: result.written.map(adjustmentView) };
    },
  });

  const adj = { params: s.uniqueIdParams, tag: 'adjustments' };

  defineRoute(table, {
    ...adj, method: 'get', path: '/api/adjustments/{unique_id}',
    summary: "The series' demand corrections",
    description: "Every correction, oldest week first: manual ones (POST) and those copy-forecast wrote. A past week's correction replaces the history the forecast is fitted on (GET /api/series/{unique_id}/data shows it as corrected_y); a future week's replaces that week's forecast. Corrections are tenant-wide (not per pipeline). An unknown series is a 404; one outside the caller's segments a 403.",
    responses: { 200: { description: 'corrections', schema: s.adjustmentsSchema }, ...errors(403, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id);
        return { unique_id: params.unique_id, ...k, adjustments: (await listAdjustments(tx, k)).map(adjustmentView) };
      }),
  });

  defineRoute(table, {
    ...adj, method: 'post', path: '/api/adjustments/{unique_id}', permission: 'create_override', status: 201,
    summary: 'Correct the demand of one week',
    description: "Body: a demand correction {ds, corrected_y, reason}. `ds` may be any day: the correction is for its ISO week and is stored as (and answered with) that week's Monday. `corrected_y` >= 0. Replaces the week's previous correction (returned as `replaced`), whatever wrote it. Needs `can_create_override` (or an admin) and edit rights on the series' segments; audited.",
    body: s.adjustmentBody, audit: { entityType: 'demand_adjustment', action: 'create' },
    responses: { 201: { description: 'the correction', schema: s.adjustmentWritten }, ...errors(403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const ds = mondayOf(body.ds);
      const { written, replaced } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { edit: true });
        return upsertAdjustments(tx, k, [{ ds, corrected_y: body.corrected_y, reason: body.reason }], 'manual', user.email);
      });
      ctx.state.audit = {
        ...ctx.state.audit, entityId: params.unique_id,
        oldValue: replaced[0] ? { ds, corrected_y: replaced[0].corrected_y, reason: replaced[0].reason, source: replaced[0].source } : null,
        newValue: { ds, corrected_y: body.corrected_y, reason: body.reason },
      };
      return { unique_id: params.unique_id, adjustment: adjustmentView(written[0]), replaced: replaced[0] ? adjustmentView(replaced[0]) : null };
    },
  });

  defineRoute(table, {
    ...adj, method: 'delete', path: '/api/adjustments/{unique_id}', permission: 'create_override',
    summary: 'Remove all corrections of the series',
    description: 'Manual and copied corrections alike; `count` is the number removed (0 when there were none). Needs `can_create_override` (or an admin); audited with the removed rows.',
    audit: { entityType: 'demand_adjustment', action: 'delete' },
    responses: { 200: { description: 'removed', schema: s.adjustmentsDeleted }, ...errors(403, 404) },
    handler: async (ctx, { params, user }) => {
      const removed = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const k = await open(tx, user, params.unique_id, { edit: true });
        return deleteAdjustments(tx, k);
      });
      ctx.state.audit = { ...ctx.state.audit, entityId: params.unique_id, oldValue: removed.map((r) => ({ ds: r.ds, corrected_y: r.corrected_y, source: r.source })), newValue: { deleted: removed.length } };
      return { status: 'deleted', unique_id: params.unique_id, count: removed.length };
    },
  });
}
