import { resultsPipelineOr404 } from '../forecasts/scope';
import {
  bestForecasts, defaultKcurveScenario, eoqResults, eoqResultScenarios, getKcurveScenario, KCURVE_SCENARIO_RECORD, kcurveItems, lockKcurveScenario,
  setScenarioK, upsertEoqResults, type KcurveItemRow, type KcurveScenarioRow,
} from '../../../db/kcurve';
import { overridesOf } from '../../../db/meioResults';
import { getPipeline } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import type { SeriesFilter } from '../../../db/series';
import { addWeeks } from '../../../domain/time/weeks';
import {
  curveView, CurveRangeError, eoqTotals, itemEoq, lotDemands, lotPlan, lotTotals, portfolioItem, resolveSettings, settingsRangeProblem, WEEKS_PER_YEAR,
  type ItemEoq, type KcurveSettings, type KRequest, type PortfolioItem,
} from '../../../domain/inventory/kcurveViews';
import { defaultValues } from '../../../domain/parameters/defaults';
import type { AppContext, AuthUser } from '../../context';
import { badRequest, conflict, forbidden, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { listFilter } from '../forecasts/scope';
import { defineResource } from '../resource';
import { errors } from '../schemas';
import { visibleSeries } from '../segments/access';
import * as s from './schemas';

/*
 * The K-curve (spec §4.9). Reads are open to every user over the series they may see; creating and deleting
 * scenarios and persisting a solve need can_run_process or an admin role, as for running the eoq step, since both
 * write what the step writes.
 */

interface SettingsQuery {
  pipeline_id?: number;
  scenario_id?: number;
  segment_id?: number;
  ordering_cost?: number;
  holding_rate?: number;
}

interface Portfolio {
  pipelineId: number;
  scenario: KcurveScenarioRow | null;
  filter: SeriesFilter;
  rows: KcurveItemRow[];
  items: PortfolioItem[];
}

const uid = (r: { item_id: number; site_id: number }) => `${r.item_id}_${r.site_id}`;

const pipelineOr404 = resultsPipelineOr404;

/** The scenario asked for (404 when it is not one of the pipeline's), else the pipeline's default, else none. */
async function scenarioOf(tx: Tx, pipelineId: number, scenarioId: number | undefined, field: string, lock = false): Promise<KcurveScenarioRow | null> {
  if (scenarioId === undefined) return defaultKcurveScenario(tx, pipelineId);
  const sc = lock ? await lockKcurveScenario(tx, scenarioId) : await getKcurveScenario(tx, scenarioId);
  // a scenario of another pipeline configuration is not the caller's to use here: not found, as if it did not exist
  if (!sc || sc.pipeline_id !== pipelineId) throw notFound(`${field}: K-curve scenario ${scenarioId} not found in pipeline ${pipelineId}`);
  return sc;
}

async function loadPortfolio(tx: Tx, user: AuthUser, q: SettingsQuery, lockScenario = false): Promise<Portfolio> {
  const pipeline = await pipelineOr404(tx, q.pipeline_id);
  const scenario = await scenarioOf(tx, pipeline.id, q.scenario_id, 'scenario_id', lockScenario);
  const filter = await listFilter(tx, user, { segmentIds: pipeline.segmentIds }, q.segment_id);
  const rows = await kcurveItems(tx, pipeline.id, { filter });
  return { pipelineId: pipeline.id, scenario, filter, rows, items: rows.map(portfolioItem) };
}

/** Settings of a portfolio (see SETTINGS_RULE); null when a requested target meets a portfolio without demand. */
function settingsOf(p: Portfolio, q: SettingsQuery, request: KRequest): KcurveSettings | null {
  const d = defaultValues('eoq');
  const sc = p.scenario;
  // costs given in the request redefine the cost basis: the scenario's k and targets were solved for its own
  const ownBasis = q.ordering_cost === undefined && q.holding_rate === undefined;
  return resolveSettings(p.items, {
    ordering_cost: q.ordering_cost ?? sc?.ordering_cost ?? (d.ordering_cost as number),
    holding_rate: q.holding_rate ?? sc?.holding_rate ?? (d.holding_cost_rate as number),
    k: ownBasis ? sc?.k ?? null : null,
    target_orders_per_year: ownBasis ? sc?.target_orders_per_year ?? null : null,
    target_inventory_value: ownBasis ? sc?.target_inventory_value ?? null : null,
    allowed_orders_per_year: sc?.allowed_orders_per_year ?? null,
  }, request);
}

const settingsView = (p: Portfolio, st: KcurveSettings, constrained: boolean) => ({
  scenario_id: p.scenario?.id ?? null,
  ordering_cost: st.ordering_cost,
  holding_rate: st.holding_rate,
  k: st.k,
  k_source: st.k_source,
  implied_ordering_cost: st.implied_ordering_cost,
  constrained,
  allowed_orders_per_year: st.allowed_orders_per_year,
  allowed_param_name: st.allowed_param_name,
});

async function overridesFor(tx: Tx, p: Portfolio, items: readonly { item_id: number }[]): Promise<Map<string, number | null>> {
  // K-curve scenarios are not MEIO scenarios: only the overrides for every MEIO scenario of the pipeline apply
  const found = await overridesOf(tx, p.pipelineId, null, [...new Set(items.map((i) => i.item_id))]);
  return new Map([...found].map(([k, o]) => [k, o.eoq_override]));
}

/** The EOQ of every SKU-site of the portfolio that has a cost, in key order. */
async function eoqOfPortfolio(tx: Tx, p: Portfolio, st: KcurveSettings, constrained: boolean): Promise<ItemEoq[]> {
  const inCurve = p.items.filter((i) => i.in_curve);
  const overrides = await overridesFor(tx, p, inCurve);
  return inCurve.map((i) => itemEoq(i, st, overrides.get(uid(i)) ?? null, constrained));
}

function names(p: Portfolio): Map<string, KcurveItemRow> {
  return new Map(p.rows.map((r) => [uid(r), r]));
}

const identity = (r: KcurveItemRow) => ({
  unique_id: uid(r), item_id: r.item_id, site_id: r.site_id, item_xuid: r.item_xuid, item_name: r.item_name, site_xuid: r.site_xuid, site_name: r.site_name,
});

function page<T>(ctx: AppContext, rows: readonly T[], q: { skip: number; limit: number }): T[] {
  ctx.set('X-Total-Count', String(rows.length));
  return rows.slice(q.skip, q.skip + q.limit);
}

/**
 * A 400 naming the setting when a SKU-site's EOQ, cost or holding cost would leave the doubles at these settings (a
 * denormal rate times a cheap item is 0), instead of the engines' RangeError as a 500.
 */
function checkComputable(items: readonly PortfolioItem[], st: KcurveSettings, where: 'query' | 'body'): KcurveSettings {
  const problem = settingsRangeProblem(items, st);
  if (problem) throw badRequest(`${where}.${problem.field}: ${problem.detail}; choose a value that keeps it finite`);
  return st;
}

function requireSettings(st: KcurveSettings | null): KcurveSettings {
  if (!st) throw conflict('The portfolio has no demand (no SKU-site with a cost has a forecast or history above 0): a target cannot set k');
  return st;
}

const canWrite = (user: AuthUser) => user.role === 'admin' || user.role === 'superadmin' || user.canRunProcess;

export function registerKcurveRoutes(table: RouteTable): void {
  const tag = 'kcurve';

  defineRoute(table, {
    method: 'get', path: '/api/kcurve/items', tag,
    summary: 'The SKU-sites of the K-curve with their demand and cost',
    description:
      'Every series of the pipeline the caller may see, in key order, with its annual demand (52 × the mean weekly best-method forecast of the pipeline, else 52 × the mean of the open history weeks), unit cost (item_site, else the item) and its own allowed order frequencies. A SKU-site without a unit cost is listed with `in_curve: false`. Paged; the count is in `X-Total-Count`.',
    query: s.itemsQuery,
    responses: { 200: { description: 'SKU-sites', schema: s.itemsResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const p = await loadPortfolio(tx, user, query);
        const all = p.rows.map((r, i) => {
          const it = p.items[i]!;
          return {
            ...identity(r),
            annual_demand: it.annual_demand,
            weekly_mean: it.demand_source === 'none' ? null : it.annual_demand / WEEKS_PER_YEAR,
            demand_source: it.demand_source,
            best_method: r.best_method,
            forecast_weeks: r.forecast_weeks,
            unit_cost: it.unit_cost,
            cost_source: r.cost_source,
            sqrt_dc: it.unit_cost === null ? null : Math.sqrt(it.annual_demand * it.unit_cost),
            allowed_orders_per_year: it.item_allowed_orders_per_year,
            in_curve: it.in_curve,
          };
        });
        return { pipeline_id: p.pipelineId, total: all.length, n_in_curve: p.items.filter((i) => i.in_curve).length, items: page(ctx, all, query) };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/kcurve/curve', tag,
    summary: 'The exchange curve: cycle-stock value against orders per year',
    description: `Total cycle-stock value Σ c Q / 2 and orders Σ D / Q of the SKU-sites with a cost, for k on a geometric grid (\`points\` from \`k_min\` to \`k_max\`), and the point at the k in force. With \`constrained=true\` also \`constrained_curve\`: each SKU-site ordered at the allowed frequency nearest its optimum. ${s.SETTINGS_RULE} A 400 when k_max < k_min.`,
    query: s.curveQuery,
    responses: { 200: { description: 'the curve', schema: s.curveResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const p = await loadPortfolio(tx, user, query);
        const st = checkComputable(p.items, settingsOf(p, query, { k: query.k })!, 'query');
        try {
          const view = curveView(p.items, st, { constrained: query.constrained, points: query.points, k_min: query.k_min, k_max: query.k_max });
          return { pipeline_id: p.pipelineId, settings: settingsView(p, st, query.constrained), ...view };
        } catch (err) {
          if (err instanceof CurveRangeError) throw badRequest(err.message);
          throw err;
        }
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/kcurve/eoq', tag,
    summary: 'The EOQ of every SKU-site at the k in force',
    description: `Per SKU-site with a cost: the unconstrained EOQ k sqrt(D / c), the quantity in force (IO override, else snapped to the allowed frequencies when constrained, else the EOQ), orders per year, cycle-stock value, annual cost, every allowed frequency with its cost (\`freq_options\`) and the constraint (\`freq_constraint\`); totals over all of them. ${s.SETTINGS_RULE} Paged; the count is in \`X-Total-Count\`.`,
    query: s.eoqQuery,
    responses: { 200: { description: 'EOQs', schema: s.eoqResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const p = await loadPortfolio(tx, user, query);
        const st = checkComputable(p.items, settingsOf(p, query, { k: query.k })!, 'query');
        const constrained = query.constrained ?? p.scenario?.constrained ?? false;
        const rows = await eoqOfPortfolio(tx, p, st, constrained);
        const byKey = names(p);
        const items = rows.map((r) => ({ ...identity(byKey.get(uid(r))!), ...r }));
        return { pipeline_id: p.pipelineId, settings: settingsView(p, st, constrained), totals: eoqTotals(rows), total: items.length, items: page(ctx, items, query) };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/kcurve/eoq/item', tag,
    summary: 'The EOQ of one SKU-site',
    description: `As one row of /api/kcurve/eoq, with \`respect_frequency_constraints\` (default true) deciding whether the frequency snaps to the allowed set: \`freq_constrained\` is true when snapping changed the EOQ, \`freq_param_name\` names the parameter whose set applied. An IO override wins over snapping. ${s.SETTINGS_RULE} A 404 for an unknown series or one outside the pipeline, a 403 outside the caller's segments, a 409 when the SKU-site has no unit cost.`,
    query: s.eoqItemQuery,
    responses: { 200: { description: 'the SKU-site\'s EOQ', schema: s.eoqItemResponse }, ...errors(400, 403, 404, 409) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await visibleSeries(tx, user, query.unique_id);
        const p = await loadPortfolio(tx, user, query);
        const at = p.rows.findIndex((r) => uid(r) === query.unique_id);
        if (at < 0) throw notFound(`query.unique_id: series ${query.unique_id} is not in pipeline ${p.pipelineId}`);
        const item = p.items[at]!;
        if (!item.in_curve) throw conflict(`Series ${query.unique_id} has no unit cost (item_site.unit_cost or items.avg_unit_cost): it has no EOQ`);
        const st = checkComputable([item], settingsOf(p, query, { k: query.k })!, 'query');
        const overrides = await overridesFor(tx, p, [item]);
        const r = itemEoq(item, st, overrides.get(query.unique_id) ?? null, query.respect_frequency_constraints);
        return { pipeline_id: p.pipelineId, settings: settingsView(p, st, query.respect_frequency_constraints), ...identity(p.rows[at]!), ...r };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/kcurve/wagner-whitin', tag,
    summary: 'Wagner-Whitin lot sizing over the forecast',
    description: `Per SKU-site with a cost and a best-method forecast in the pipeline: the optimal orders over the forecast's weeks (setup cost A, holding r c / 52 per unit and week, no backorders, zero lead time and stock), with the classic EOQ beside it. An IO override applies as for the classic EOQ: \`eoq\` is the override, and the schedule orders multiples of it whenever stock runs short (\`lot_sizing: eoq_override\`). Totals over all SKU-sites planned. ${s.SETTINGS_RULE} Paged; the count is in \`X-Total-Count\`.`,
    query: s.wwQuery,
    responses: { 200: { description: 'lot sizing', schema: s.wwResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        if (query.unique_id) await visibleSeries(tx, user, query.unique_id);
        const p = await loadPortfolio(tx, user, query);
        const st = checkComputable(p.items, settingsOf(p, query, { k: query.k })!, 'query');
        const chosen = p.items.filter((i) => i.in_curve && (!query.unique_id || uid(i) === query.unique_id));
        const forecasts = new Map((await bestForecasts(tx, p.pipelineId, { keys: chosen })).map((f) => [uid(f), f]));
        const overrides = await overridesFor(tx, p, chosen);
        const byKey = names(p);
        const planned = chosen.filter((i) => forecasts.has(uid(i))).map((i) => {
          const f = forecasts.get(uid(i))!;
          const classic = itemEoq(i, st, overrides.get(uid(i)) ?? null, false);
          const plan = lotPlan(lotDemands(f.yhat), st.implied_ordering_cost, (st.holding_rate * i.unit_cost!) / WEEKS_PER_YEAR, classic.eoq_override);
          return {
            classic, plan,
            view: {
              ...identity(byKey.get(uid(i))!),
              best_method: f.best_method, start_week: f.start_week, horizon_weeks: f.yhat.length, unit_cost: i.unit_cost!, annual_demand: i.annual_demand,
              eoq: classic.eoq, eoq_override: classic.eoq_override, orders_per_year: classic.orders_per_year,
              lot_sizing: plan.method, n_orders: plan.n_orders, avg_lot_size: plan.avg_lot_size, total_quantity: plan.total_quantity,
              setup_cost: plan.setup_cost, holding_cost: plan.holding_cost, total_cost: plan.total_cost,
              schedule: plan.orders.map((o) => ({ period: o.period, week: addWeeks(f.start_week, o.period), quantity: o.quantity, covers: o.covers })),
            },
          };
        });
        const totals = lotTotals(planned.map((x) => x.plan));
        return {
          pipeline_id: p.pipelineId,
          settings: settingsView(p, st, false),
          weekly_holding_rate: st.holding_rate / WEEKS_PER_YEAR,
          totals: { ...totals, total_orders_per_year: planned.reduce((n, x) => n + x.classic.orders_per_year, 0) },
          total: planned.length,
          n_without_forecast: chosen.length - planned.length,
          items: page(ctx, planned.map((x) => x.view), query),
        };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/kcurve/pipeline/{pipeline_id}', tag,
    summary: 'Stored EOQ results of a pipeline',
    description:
      'The eoq_results rows of the pipeline and a K-curve scenario (default the pipeline\'s default scenario, its oldest), written by the eoq step and by POST /api/kcurve/solve with persist, for the series the caller may see; `scenarios` lists the pipeline\'s scenarios that hold results. A 404 for an unknown pipeline or a scenario of another pipeline. Paged; the count is in `X-Total-Count`.',
    params: s.pipelineParams, query: s.pipelineQuery,
    responses: { 200: { description: 'stored results', schema: s.pipelineResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const pipeline = await pipelineOr404(tx, params.pipeline_id);
        const sc = await scenarioOf(tx, pipeline.id, query.scenario_id, 'query.scenario_id');
        const filter = await listFilter(tx, user, { segmentIds: pipeline.segmentIds }, query.segment_id);
        const rows = sc ? await eoqResults(tx, pipeline.id, sc.id, filter) : [];
        const items = rows.map((r) => ({
          unique_id: uid(r), item_id: r.item_id, site_id: r.site_id, item_xuid: r.item_xuid, item_name: r.item_name, site_xuid: r.site_xuid, site_name: r.site_name,
          annual_demand: r.annual_demand, unit_cost: r.unit_cost, k: r.k, eoq: r.eoq, eoq_override: r.eoq_override, orders_per_year: r.orders_per_year,
          cycle_stock_value: r.cycle_stock_value, total_annual_cost: r.total_annual_cost, freq_constrained: r.freq_constrained,
          freq_param_name: r.freq_param_name, job_id: r.job_id, updated_at: r.updated_at,
        }));
        const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((n, r) => n + f(r), 0);
        return {
          pipeline_id: pipeline.id,
          scenario_id: sc?.id ?? null,
          scenarios: await eoqResultScenarios(tx, pipeline.id),
          totals: {
            n_items: rows.length, total_orders_per_year: sum((r) => r.orders_per_year), total_cycle_stock_value: sum((r) => r.cycle_stock_value),
            total_annual_cost: sum((r) => r.total_annual_cost), n_overridden: rows.filter((r) => r.eoq_override !== null).length,
            n_freq_constrained: rows.filter((r) => r.freq_constrained).length,
            updated_at: rows.length ? rows.map((r) => r.updated_at).sort().at(-1)! : null,
          },
          total: items.length,
          items: page(ctx, items, query),
        };
      }),
  });

  defineResource(table, {
    path: '/api/kcurve/scenarios', tag, noun: 'K-curve scenario', entityType: 'kcurve_scenario',
    record: KCURVE_SCENARIO_RECORD,
    schemas: { row: s.scenarioSchema, create: s.createScenarioBody },
    filters: s.scenarioFilters,
    sortable: ['id', 'name', 'pipeline_id', 'created_at', 'updated_at'],
    permissions: { read: 'user', write: 'run_process' },
    operations: ['list', 'create', 'delete'],
    descriptions: {
      list: 'K-curve scenarios, ordered by id unless `sort` says otherwise; `pipeline_id` lists one pipeline\'s (its oldest is its default, the one the eoq step uses). The total count is in the `X-Total-Count` header.',
      create:
        'Defaults: ordering_cost 50, holding_rate 0.25, k null (sqrt(2A/r) until a solve sets it), no targets, constrained false, allowed_orders_per_year null (1, 2, 4, 6, 12, 24, 52). At most one of target_orders_per_year and target_inventory_value (400). The pipeline must exist (404). Names are unique per tenant ignoring case (409). Needs can_run_process or an admin role.',
      delete: 'Its stored EOQ results go with it. Needs can_run_process or an admin role.',
    },
    hooks: {
      prepare: (body, { user, old }) => ({
        ...body,
        ...(typeof body.name === 'string' ? { name: body.name.trim() } : {}),
        ...(old ? {} : { created_by: user.email }),
      }),
      beforeWrite: async ({ tx, values }) => {
        if (values!.target_orders_per_year != null && values!.target_inventory_value != null) {
          throw badRequest('body.target_inventory_value: set at most one of target_orders_per_year and target_inventory_value (each fixes k)');
        }
        const p = values!.pipeline_id as number;
        if (p > 0 && !(await getPipeline(tx, p))) throw notFound(`body.pipeline_id: pipeline ${p} not found`);
      },
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/kcurve/solve', tag, audit: { entityType: 'kcurve_scenario', action: 'solve' },
    summary: 'Choose k and compute every EOQ; optionally persist',
    description:
      'k is, first found: `k`, `target_orders_per_year` or `target_inventory_value` of the body (at most one; a target is solved in closed form over the portfolio), the scenario\'s target, the scenario\'s k, sqrt(2A/r). ' +
      'With `constrained` (default false) frequencies snap to the allowed sets at that k (so totals are near, not equal to, a target). ' +
      '`persist` (default true when `scenario_id` is given, and it needs one) merges the results in one transaction into eoq_results of the pipeline and scenario (rows of other SKU-sites stay) and stores k on the scenario; the item master is never written. ' +
      'Persisting needs can_run_process or an admin role (403). `scenario_id` must be a scenario of the pipeline (404). A 409 when a target meets a portfolio without demand.',
    body: s.solveBody,
    responses: { 200: { description: 'the solution', schema: s.solveResponse }, ...errors(400, 403, 404, 409) },
    handler: async (ctx, { body, user }) => {
      const asked = (['k', 'target_orders_per_year', 'target_inventory_value'] as const).filter((f) => body[f] !== undefined);
      if (asked.length > 1) throw badRequest(`body.${asked[1]}: give at most one of k, target_orders_per_year and target_inventory_value (each fixes k)`);
      const persist: boolean = body.persist ?? body.scenario_id !== undefined;
      if (persist && body.scenario_id === undefined) throw badRequest('body.persist: persisting needs scenario_id (the scenario whose results receive the rows)');
      if (persist && !canWrite(user)) throw forbidden('Permission can_run_process (or an admin role) required to persist a solve');
      const out = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const p = await loadPortfolio(tx, user, body, persist);
        const request: KRequest = { k: body.k, target_orders_per_year: body.target_orders_per_year, target_inventory_value: body.target_inventory_value };
        const st = checkComputable(p.items, requireSettings(settingsOf(p, body, request)), 'body');
        const rows = await eoqOfPortfolio(tx, p, st, body.constrained);
        let written = 0;
        if (persist) {
          written = await upsertEoqResults(tx, p.pipelineId, p.scenario!.id, rows.map((r) => ({
            item_id: r.item_id, site_id: r.site_id, annual_demand: r.annual_demand, unit_cost: r.unit_cost, k: r.k, eoq: r.eoq, eoq_override: r.eoq_override,
            orders_per_year: r.orders_per_year, cycle_stock_value: r.cycle_stock_value, total_annual_cost: r.total_annual_cost,
            freq_constrained: r.freq_constrained, freq_param_name: r.freq_param_name,
          })), `solve:${user.email}`);
          await setScenarioK(tx, p.scenario!.id, st.k);
        }
        const byKey = names(p);
        const current = curveView(p.items, st, { constrained: false, points: 1, k_min: st.k, k_max: st.k }).current;
        return {
          pipeline_id: p.pipelineId,
          scenario_id: p.scenario?.id ?? null,
          persisted: persist,
          rows_written: written,
          settings: settingsView(p, st, body.constrained),
          current,
          totals: eoqTotals(rows),
          items: body.include_items
            ? rows.map(({ freq_options: _o, freq_constraint: _c, ...r }) => ({ ...identity(byKey.get(uid(r))!), ...r }))
            : [],
        };
      });
      ctx.state.audit = { ...ctx.state.audit, entityId: out.scenario_id, newValue: { pipeline_id: out.pipeline_id, persisted: out.persisted, k: out.settings.k, rows_written: out.rows_written } };
      return out;
    },
  });
}
