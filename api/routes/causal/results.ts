import {
  bomEdges, demandSum, exists, getScenario, leversOf, listResults, loadCausalData, namesOf, resultCells, resultsPipeline, resultsSummary, storeIntervals,
  upsertFittedRate, usageRows, weeklyTotals, type ScenarioRow,
} from '../../../db/causal';
import { resolvePlanningDate, TENANT_PIPELINE } from '../../../db/planningDate';
import { withTenant, type Tx } from '../../../db/pool';
import { explodedTotals } from '../../../domain/causal/bom';
import { breakdownTerms, CausalModel, parseSeriesId, pickActual, weeklyUsage } from '../../../domain/causal/engine';
import { fitPoissonRate, usageInWindow } from '../../../domain/causal/fit';
import { countInterval } from '../../../domain/causal/uncertainty';
import { isValidDate } from '../../../domain/import/validate';
import { dayNumber, mondayOf } from '../../../domain/time/weeks';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, int4, nullable, obj, out } from '../schemas';
import { TAG } from './masterData';
import * as s from './schemas';

/*
 * Causal results (core-service.md §4.10): the stored weekly demand of runs, its summary, the breakdown of one value
 * (document 2 §4.6), scenario comparisons, intervals and the failure-rate fit.
 */

const int = { type: 'integer' };
const num = { type: 'number' };
const str = { type: 'string' };
const d = { type: 'string', format: 'date' };

function queryDate(field: string, v: string, where = 'query'): string {
  if (!isValidDate(v)) throw badRequest(`${where}.${field}: '${v}' is not a valid date (YYYY-MM-DD)`);
  return v;
}

async function scenarioOr404(tx: Tx, id: number): Promise<ScenarioRow> {
  const sc = await getScenario(tx, id);
  if (!sc) throw notFound(`Causal scenario ${id} not found`);
  return sc;
}

/** The pipeline whose stored results are read: `pipelineId` when given (404 when it has none), else the latest run's. */
async function pipelineOf(tx: Tx, scenarioId: number, pipelineId: number | undefined): Promise<number | null> {
  const p = await resultsPipeline(tx, scenarioId, pipelineId);
  if (p === null && pipelineId !== undefined) throw notFound(`No stored causal results for scenario ${scenarioId} and pipeline ${pipelineId}; run POST /api/causal/scenarios/run first`);
  return p;
}

function parseIds(v: string): number[] {
  const ids = v.split(',').map(Number);
  if (new Set(ids).size !== ids.length) throw badRequest('query.scenario_ids: an id appears twice');
  if (ids.some((x) => x < 1 || x > 2147483647)) throw badRequest('query.scenario_ids: ids are between 1 and 2147483647');
  return ids;
}

const pipelineParam = int4(1, { description: 'read the results stored for this pipeline; default the scenario\'s most recent run' });
const RESULTS_NOTE = 'Stored results are those of the most recent POST /api/causal/scenarios/run of the scenario unless `pipeline_id` picks the run stored for a pipeline.';

export function registerCausalResultRoutes(table: RouteTable): void {
  defineRoute(table, {
    method: 'get', path: '/api/causal/results', tag: TAG,
    summary: 'Stored weekly causal demand',
    description: `Weekly causal demand per part and site (series_id \`<item_id>_<site_id>\`), with the interval of POST /api/causal/uncertainty when one was computed (else null). \`aggregate=true\` gives each part's total over every site instead (site_id 0, series_id \`<item_id>\`). Ordered by item, site and week; paged with \`skip\` and \`limit\`. ${RESULTS_NOTE} A scenario never run answers an empty page with pipeline_id null. 404 when the scenario does not exist.`,
    query: obj({
      scenario_id: s.id('the causal scenario'), pipeline_id: pipelineParam, item_id: s.id('only this part'), site_id: s.id('only this site'),
      date_from: s.date('weeks on or after'), date_to: s.date('weeks on or before'), aggregate: { type: 'boolean', default: false }, ...s.page,
    }, ['scenario_id']),
    responses: {
      200: { description: 'a page of results', schema: out({ scenario_id: int, pipeline_id: nullable(int), total: int, items: { type: 'array', items: s.resultRow } }) },
      ...errors(400, 401, 404),
    },
    handler: async (ctx, { query: q, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      await scenarioOr404(tx, q.scenario_id);
      if (q.date_from) queryDate('date_from', q.date_from);
      if (q.date_to) queryDate('date_to', q.date_to);
      const p = await pipelineOf(tx, q.scenario_id, q.pipeline_id);
      if (p === null) return { scenario_id: q.scenario_id, pipeline_id: null, total: 0, items: [] };
      const { rows, total } = await listResults(tx, q.scenario_id, p, q, { skip: q.skip, limit: q.limit });
      return { scenario_id: q.scenario_id, pipeline_id: p, total, items: rows };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/causal/results/summary', tag: TAG,
    summary: 'Summary of a scenario\'s stored results',
    description: `Totals of the stored site rows: total demand, parts, series, weeks and their range, the run's job id; \`weekly\` (the chart: total demand per week), the 50 parts with the most demand (\`by_item\`) and every site (\`by_site\`). ${RESULTS_NOTE} A scenario never run answers zeros and empty lists with pipeline_id null. 404 when the scenario does not exist.`,
    query: obj({ scenario_id: s.id('the causal scenario'), pipeline_id: pipelineParam }, ['scenario_id']),
    responses: {
      200: {
        description: 'the summary',
        schema: out({
          scenario_id: int, scenario_name: str, usage_mode: str, last_run_at: nullable(str), pipeline_id: nullable(int), total_demand: num, items: int, series: int, weeks: int,
          first_week: nullable(d), last_week: nullable(d), job_id: nullable(str), weekly: { type: 'array', items: s.seriesPoint },
          by_item: { type: 'array', items: out({ item_id: int, item_code: str, item_name: str, total_demand: num }) },
          by_site: { type: 'array', items: out({ site_id: int, site_code: str, site_name: str, total_demand: num }) },
        }),
      },
      ...errors(400, 401, 404),
    },
    handler: async (ctx, { query: q, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const sc = await scenarioOr404(tx, q.scenario_id);
      const head = { scenario_id: sc.id, scenario_name: sc.name, usage_mode: sc.usage_mode, last_run_at: sc.last_run_at };
      const p = await pipelineOf(tx, sc.id, q.pipeline_id);
      if (p === null) return { ...head, pipeline_id: null, total_demand: 0, items: 0, series: 0, weeks: 0, first_week: null, last_week: null, job_id: null, weekly: [], by_item: [], by_site: [] };
      return { ...head, pipeline_id: p, ...(await resultsSummary(tx, sc.id, p)) };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/causal/results/breakdown', tag: TAG,
    summary: 'Why a causal value is what it is (document 2 §4.6)',
    description: [
      'The terms of one part\'s causal demand at one site in one week, one row per (asset type, customer, usage type) with a failure rate for the part and usage recorded for the customer.',
      '`item_id` is the full series id `<item_id>_<site_id>` (the site is the part after the underscore); `period` is normalised to the Monday of its week.',
      'Rule 1: `usage_mode` comes from the scenario (default fleet_total): computed_demand = qty_per_asset × failure_rate × weekly usage, times fleet_qty in per_asset mode.',
      'Rule 2: weekly usage = total_usage × 7 / days of the usage period, both ends counted (also returned as `weekly_usage` with the period).',
      'Rule 3: coverage_pct is the site\'s share in the customer\'s own coverage map (customer-less rows are the fallback), normalised so the customer\'s sites sum to 1; computed_demand is multiplied by it.',
      'Rule 4: Σ computed_demand equals actual_demand within 0.01, and actual_demand is the value GET /api/causal/results shows for that series and week.',
      'Rule 5: actual_demand is read from the stored causal forecast of exactly that series (a run stores every site it reaches in every week, 0 in a week no term reaches it); the part\'s aggregate over every site is read only when the series has no stored value in any week of the run, never both (`actual_source`: series, item_aggregate, or computed when the scenario has no stored value at all, e.g. never run or the week outside its horizon: then it is Σ computed_demand).',
      'Rule 6: an asset type with no coverage rows gives coverage_pct 0 and computed_demand 0.',
      '`pipeline_id`: read actual_demand from the results stored for that pipeline (404 when there are none); default the most recent run.',
      'The values shown (failure_rate, total_usage, fleet_qty) include the scenario\'s multipliers. 400 naming the parameter for a malformed series id or date; 404 for an unknown scenario.',
    ].join(' '),
    query: obj({
      scenario_id: s.id('the causal scenario'),
      item_id: { type: 'string', pattern: '^[0-9]{1,10}_[0-9]{1,10}$', description: 'full series id `<item_id>_<site_id>`: two positive integers joined by an underscore', examples: ['12_3'] },
      period: s.date('any day of the week (YYYY-MM-DD); normalised to its Monday'),
      pipeline_id: pipelineParam,
    }, ['scenario_id', 'item_id', 'period']),
    responses: {
      200: {
        description: 'the breakdown',
        schema: out({
          period: d, actual_demand: num, usage_mode: { type: 'string', enum: ['fleet_total', 'per_asset'] }, breakdown: { type: 'array', items: s.breakdownRow },
          scenario_id: int, series_id: str, item_id: int, site_id: int, pipeline_id: nullable(int),
          actual_source: { type: 'string', enum: ['series', 'item_aggregate', 'computed'] }, computed_total: num,
        }),
      },
      ...errors(400, 401, 404),
    },
    handler: async (ctx, { query: q, user }) => {
      const ids = parseSeriesId(q.item_id);
      if (!ids) throw badRequest(`query.item_id: '${q.item_id}' is not a series id <item_id>_<site_id> (two positive integers joined by an underscore)`);
      const period = mondayOf(queryDate('period', q.period));
      return withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const sc = await scenarioOr404(tx, q.scenario_id);
        const model = new CausalModel(await loadCausalData(tx), leversOf(sc));
        const terms = breakdownTerms(model, ids.item_id, ids.site_id, period);
        const names = await namesOf(tx);
        const computedTotal = terms.reduce((a, t) => a + t.computed_demand, 0);
        const p = await pipelineOf(tx, sc.id, q.pipeline_id);
        let actual = { value: computedTotal, source: 'computed' as 'series' | 'item_aggregate' | 'computed' };
        if (p !== null) {
          const cells = await resultCells(tx, sc.id, p, ids.item_id, ids.site_id, period);
          const picked = pickActual(cells.exact, cells.aggregate, cells.seriesStored);
          if (picked.source !== 'none') actual = { value: picked.value, source: picked.source };
        }
        return {
          period, actual_demand: actual.value, usage_mode: sc.usage_mode,
          breakdown: terms.map((t) => ({
            asset_type_id: t.asset_type_id, asset_type_name: names.assetTypes.get(t.asset_type_id)?.name ?? '', asset_type_code: names.assetTypes.get(t.asset_type_id)?.code ?? '',
            customer_id: t.customer_id, customer_name: names.customers.get(t.customer_id)?.name ?? '', asset_qty: t.asset_qty,
            usage_type_id: t.usage_type_id, usage_type_name: names.usageTypes.get(t.usage_type_id)?.name ?? '', qty_per_asset: t.qty_per_asset,
            fleet_qty: t.fleet_qty, total_usage: t.total_usage, failure_rate: t.failure_rate, computed_demand: t.computed_demand, usage_mode: t.usage_mode,
            coverage_pct: t.coverage_pct, weekly_usage: t.weekly_usage, usage_period_start: t.usage_period_start, usage_period_end: t.usage_period_end,
          })),
          scenario_id: sc.id, series_id: q.item_id, item_id: ids.item_id, site_id: ids.site_id, pipeline_id: p, actual_source: actual.source, computed_total: computedTotal,
        };
      });
    },
  });

  const compareQuery = obj({ scenario_ids: s.scenarioIds, item_id: s.id('only this part') }, ['scenario_ids']);
  defineRoute(table, {
    method: 'get', path: '/api/causal/results/compare', tag: TAG,
    summary: 'Compare the stored demand of causal scenarios',
    description: 'Weekly total causal demand (site rows; one part with `item_id`) of each scenario\'s most recent run, over the union of their weeks (a week a scenario did not compute counts 0), with each scenario\'s total and its difference to the first scenario (the base): `diff` = total − base total, `diff_pct` = diff / base total × 100 (null when the base total is 0). A scenario never run has an empty series and pipeline_id null. 404 naming the first scenario that does not exist.',
    query: compareQuery,
    responses: {
      200: {
        description: 'the comparison',
        schema: out({
          base_scenario_id: int, weeks: { type: 'array', items: d },
          scenarios: { type: 'array', items: out({ scenario_id: int, name: str, usage_mode: str, pipeline_id: nullable(int), total: num, diff: num, diff_pct: nullable(num), series: { type: 'array', items: s.seriesPoint } }) },
        }),
      },
      ...errors(400, 401, 404),
    },
    handler: async (ctx, { query: q, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const ids = parseIds(q.scenario_ids);
      const per = [];
      for (const id of ids) {
        const sc = await scenarioOr404(tx, id);
        const p = await resultsPipeline(tx, id);
        per.push({ sc, p, pts: p === null ? [] : await weeklyTotals(tx, id, p, q.item_id) });
      }
      const weeks = [...new Set(per.flatMap((x) => x.pts.map((pt) => pt.date)))].sort();
      const totals = per.map((x) => x.pts.reduce((a, pt) => a + pt.value, 0));
      return {
        base_scenario_id: ids[0], weeks,
        scenarios: per.map((x, i) => {
          const byWeek = new Map(x.pts.map((pt) => [pt.date, pt.value]));
          const diff = totals[i] - totals[0];
          return {
            scenario_id: x.sc.id, name: x.sc.name, usage_mode: x.sc.usage_mode, pipeline_id: x.p, total: totals[i], diff, diff_pct: totals[0] === 0 ? null : (diff / totals[0]) * 100,
            series: weeks.map((w) => ({ date: w, value: byWeek.get(w) ?? 0 })),
          };
        }),
      };
    }),
  });

  const atQuery = obj({ scenario_ids: s.scenarioIds, date: s.date('the day compared (its week\'s Monday is used); default the tenant\'s planning today (its stored planning date, else today UTC)') }, ['scenario_ids']);
  const scenarioHeads = async (tx: Tx, v: string) => {
    const out: ScenarioRow[] = [];
    for (const id of parseIds(v)) out.push(await scenarioOr404(tx, id));
    return out;
  };

  defineRoute(table, {
    method: 'get', path: '/api/causal/results/compare/deployments', tag: TAG,
    summary: 'Compare the fleets of causal scenarios',
    description: 'For each (asset type, customer) with deployments, a fleet plan or usage: the assets deployed in the week of `date` (asset_qty, the same in every scenario) and each scenario\'s fleet quantity that week: the fleet plan quantity when plan rows cover the week, else the deployed count, times the scenario\'s fleet_multiplier (the fleet_qty per_asset scenarios multiply demand by). Ordered by asset type and customer. 404 naming the first scenario that does not exist.',
    query: atQuery,
    responses: {
      200: {
        description: 'fleets per scenario',
        schema: out({
          week: d, scenario_ids: { type: 'array', items: int },
          rows: { type: 'array', items: out({ asset_type_id: int, asset_type_code: str, customer_id: int, customer_name: str, asset_qty: num, fleet: { type: 'array', items: out({ scenario_id: int, fleet_qty: num }) } }) },
        }),
      },
      ...errors(400, 401, 404),
    },
    handler: async (ctx, { query: q, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const scs = await scenarioHeads(tx, q.scenario_ids);
      const week = mondayOf(q.date ? queryDate('date', q.date) : (await resolvePlanningDate(tx, TENANT_PIPELINE)).date);
      const day = dayNumber(week);
      const data = await loadCausalData(tx);
      const names = await namesOf(tx);
      const pairs = new Map<string, { a: number; c: number }>();
      for (const r of [...data.deployments, ...data.fleetPlan, ...data.usage]) pairs.set(`${r.asset_type_id}:${r.customer_id}`, { a: r.asset_type_id, c: r.customer_id });
      const models = scs.map((sc) => ({ id: sc.id, m: new CausalModel(data, leversOf(sc)) }));
      const base = new CausalModel(data);
      return {
        week, scenario_ids: scs.map((x) => x.id),
        rows: [...pairs.values()].sort((x, y) => x.a - y.a || x.c - y.c).map(({ a, c }) => ({
          asset_type_id: a, asset_type_code: names.assetTypes.get(a)?.code ?? '', customer_id: c, customer_name: names.customers.get(c)?.name ?? '',
          asset_qty: base.assetQty(a, c, day), fleet: models.map((x) => ({ scenario_id: x.id, fleet_qty: x.m.fleetQty(a, c, day) })),
        })),
      };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/causal/results/compare/usage', tag: TAG,
    summary: 'Compare the usage of causal scenarios',
    description: 'For each (asset type, customer, usage type) with recorded usage: the weekly usage in the week of `date` (document 2 §4.6 rule 2 on the period holding that week: the one containing its Monday, else the last before it; 0 before the first) as recorded, and per scenario times its usage_multiplier. Ordered by asset type, customer and usage type. 404 naming the first scenario that does not exist.',
    query: atQuery,
    responses: {
      200: {
        description: 'usage per scenario',
        schema: out({
          week: d, scenario_ids: { type: 'array', items: int },
          rows: { type: 'array', items: out({ asset_type_id: int, asset_type_code: str, customer_id: int, customer_name: str, usage_type_id: int, usage_type_name: str, weekly_usage: num, usage: { type: 'array', items: out({ scenario_id: int, weekly_usage: num }) } }) },
        }),
      },
      ...errors(400, 401, 404),
    },
    handler: async (ctx, { query: q, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const scs = await scenarioHeads(tx, q.scenario_ids);
      const week = mondayOf(q.date ? queryDate('date', q.date) : (await resolvePlanningDate(tx, TENANT_PIPELINE)).date);
      const day = dayNumber(week);
      const usage = await usageRows(tx, {});
      const names = await namesOf(tx);
      const model = new CausalModel({ bom: [], failureRates: [], usage, coverage: [], deployments: [], fleetPlan: [] });
      const keys = new Map<string, { a: number; c: number; u: number }>();
      for (const r of usage) keys.set(`${r.asset_type_id}:${r.customer_id}:${r.usage_type_id}`, { a: r.asset_type_id, c: r.customer_id, u: r.usage_type_id });
      return {
        week, scenario_ids: scs.map((x) => x.id),
        rows: [...keys.values()].sort((x, y) => x.a - y.a || x.c - y.c || x.u - y.u).map(({ a, c, u }) => {
          const p = model.usagePeriod(a, c, u, day);
          const weekly = p ? weeklyUsage(p.total, p.start_date, p.end_date) : 0;
          return {
            asset_type_id: a, asset_type_code: names.assetTypes.get(a)?.code ?? '', customer_id: c, customer_name: names.customers.get(c)?.name ?? '',
            usage_type_id: u, usage_type_name: names.usageTypes.get(u)?.name ?? '', weekly_usage: weekly,
            usage: scs.map((sc) => ({ scenario_id: sc.id, weekly_usage: weekly * sc.usage_multiplier })),
          };
        }),
      };
    }),
  });

  const MAX_INTERVAL_ROWS = 200_000;
  defineRoute(table, {
    method: 'post', path: '/api/causal/uncertainty', tag: TAG, permission: 'run_process',
    summary: 'Intervals of the stored causal demand',
    description: `A week's causal demand μ is the mean of a count of failures. \`distribution\` poisson (default; variance μ, independent failures) or negative_binomial (size \`dispersion\` r, variance μ + μ²/r, failures that cluster; smaller r, wider interval). The interval is [q(α/2), q(1 − α/2)] with α = 1 − \`confidence\` (default 0.9), q(p) the smallest count whose CDF reaches p. Computed for every stored row of the scenario's run (site rows and aggregates; one part or site with \`item_id\`, \`site_id\`), stored with them (GET /api/causal/results shows lower and upper) unless \`store\` is false, and the first \`limit\` rows are returned. At most ${MAX_INTERVAL_ROWS} rows per call (400 beyond: narrow by item). 404 when the scenario does not exist or has no stored results.`,
    body: obj({
      scenario_id: s.id('the causal scenario'),
      pipeline_id: pipelineParam,
      distribution: { type: 'string', enum: ['poisson', 'negative_binomial'], default: 'poisson' },
      dispersion: { type: 'number', exclusiveMinimum: 0, maximum: 1e6, default: 1, description: 'negative binomial size r (ignored for poisson)' },
      confidence: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.9 },
      item_id: s.id('only this part'), site_id: s.id('only this site'),
      store: { type: 'boolean', default: true },
      limit: { type: 'integer', minimum: 0, maximum: 1000, default: 200, description: 'rows returned' },
    }, ['scenario_id']),
    audit: { entityType: 'causal_results', action: 'uncertainty' },
    responses: {
      200: {
        description: 'the intervals',
        schema: out({
          scenario_id: int, pipeline_id: int, distribution: str, dispersion: nullable(num), confidence: num, rows: int, stored: { type: 'boolean' },
          total_demand: num, items: { type: 'array', items: s.resultRow },
        }),
      },
      ...errors(400, 401, 403, 404),
    },
    handler: async (ctx, { body: b, user }) => {
      const r = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await scenarioOr404(tx, b.scenario_id);
        const p = await pipelineOf(tx, b.scenario_id, b.pipeline_id);
        if (p === null) throw notFound(`No stored causal results for scenario ${b.scenario_id}; run POST /api/causal/scenarios/run first`);
        const filter = { item_id: b.item_id, site_id: b.site_id };
        const all = [
          ...(await listResults(tx, b.scenario_id, p, filter, { skip: 0, limit: MAX_INTERVAL_ROWS + 1 })).rows,
          ...(b.site_id === undefined ? (await listResults(tx, b.scenario_id, p, { ...filter, aggregate: true }, { skip: 0, limit: MAX_INTERVAL_ROWS + 1 })).rows : []),
        ];
        if (all.length > MAX_INTERVAL_ROWS) throw badRequest(`body.item_id: ${all.length} rows exceed ${MAX_INTERVAL_ROWS}; narrow the call to a part or site`);
        const rows = all.map((x) => ({ ...x, ...countInterval(x.demand, b.confidence, b.distribution, b.dispersion) }));
        if (b.store) await storeIntervals(tx, b.scenario_id, p, rows);
        return {
          scenario_id: b.scenario_id, pipeline_id: p, distribution: b.distribution, dispersion: b.distribution === 'poisson' ? null : b.dispersion, confidence: b.confidence,
          rows: rows.length, stored: b.store, total_demand: rows.filter((x) => x.site_id > 0).reduce((a, x) => a + x.demand, 0), items: rows.slice(0, b.limit),
        };
      });
      ctx.state.audit = { ...ctx.state.audit, entityId: b.scenario_id, newValue: { distribution: b.distribution, confidence: b.confidence, rows: r.rows, stored: r.stored } };
      return r;
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/causal/failure-rate/fit', tag: TAG, permission: 'run_process',
    summary: 'Fit a failure rate from actual demand and usage',
    description: 'Takes the part\'s actual demand (demand_history, every site or `site_id`) between `date_from` and `date_to` (both inclusive) as N failures of a Poisson process in usage, over the exposure E = qty_per_asset (the asset type\'s BOM exploded over every level) × usage of the asset type\'s fleets in the window (each usage period prorated by the days it shares with it, every customer). rate = N / E; the exact (Garwood) interval at `confidence` (default 0.95): [Γ⁻¹(α/2; N) / E, Γ⁻¹(1 − α/2; N + 1) / E]. All of the part\'s demand in the window is attributed to this asset type. With `save` (default true) the rate is stored as source fit for (asset type, part, usage type), replacing one there. 400 naming the field when a reference does not exist, the part is not in the asset type\'s BOM, the window is reversed, or no usage falls in it.',
    body: obj({
      asset_type_id: s.id('the asset type'), item_id: s.id('the part'), usage_type_id: s.id('the usage the rate is per'),
      date_from: s.date('first day of the window'), date_to: s.date('last day of the window (inclusive)'),
      site_id: s.id('only the demand of this site (default every site)'),
      confidence: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.95 },
      save: { type: 'boolean', default: true },
    }, ['asset_type_id', 'item_id', 'usage_type_id', 'date_from', 'date_to']),
    audit: { entityType: 'causal_failure_rate', action: 'fit' },
    responses: {
      200: {
        description: 'the fitted rate',
        schema: out({
          asset_type_id: int, item_id: int, usage_type_id: int, date_from: d, date_to: d, rate: num, ci_lower: num, ci_upper: num, confidence: num,
          n_events: num, exposure: num, usage: num, qty_per_asset: num, demand_rows: int, saved: { type: 'boolean' }, failure_rate_id: nullable(int),
        }),
      },
      ...errors(400, 401, 403),
    },
    handler: async (ctx, { body: b, user }) => {
      queryDate('date_from', b.date_from, 'body');
      queryDate('date_to', b.date_to, 'body');
      if (b.date_to < b.date_from) throw badRequest(`body.date_to: ${b.date_to} is before date_from ${b.date_from}`);
      const r = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        for (const [f, t, noun] of [['asset_type_id', 'causal_asset_types', 'asset type'], ['item_id', 'items', 'item'], ['usage_type_id', 'causal_usage_types', 'usage type'], ['site_id', 'sites', 'site']] as const) {
          if (b[f] !== undefined && !(await exists(tx, t, b[f]))) throw badRequest(`body.${f}: ${noun} ${b[f]} does not exist`);
        }
        const qpa = explodedTotals(await bomEdges(tx), b.asset_type_id).get(b.item_id) ?? 0;
        if (qpa <= 0) throw badRequest(`body.item_id: item ${b.item_id} is not in the bill of materials of asset type ${b.asset_type_id}`);
        const usage = usageInWindow(await usageRows(tx, { asset_type_id: b.asset_type_id, usage_type_id: b.usage_type_id }), b.date_from, b.date_to);
        if (!(usage > 0)) throw badRequest(`body.date_from: no usage of asset type ${b.asset_type_id} in that usage type is recorded between ${b.date_from} and ${b.date_to}`);
        const demand = await demandSum(tx, b.item_id, b.date_from, b.date_to, b.site_id);
        if (!Number.isFinite(qpa * usage)) throw badRequest(`body.asset_type_id: the exposure (qty_per_asset ${qpa} × usage ${usage}) is too large to fit`);
        const fit = fitPoissonRate(demand.qty, qpa * usage, b.confidence);
        const id = b.save ? await upsertFittedRate(tx, { asset_type_id: b.asset_type_id, item_id: b.item_id, usage_type_id: b.usage_type_id, ...fit }) : null;
        return {
          asset_type_id: b.asset_type_id, item_id: b.item_id, usage_type_id: b.usage_type_id, date_from: b.date_from, date_to: b.date_to, ...fit,
          usage, qty_per_asset: qpa, demand_rows: demand.rows, saved: id !== null, failure_rate_id: id,
        };
      });
      ctx.state.audit = { ...ctx.state.audit, entityId: r.failure_rate_id, newValue: r };
      return r;
    },
  });
}
