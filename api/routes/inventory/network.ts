import { resultsPipelineOr404 } from '../forecasts/scope';
import { getMeioScenario } from '../../../db/meioConfig';
import { latestMeioRun, networkNodes } from '../../../db/meioReads';
import { networkSites, upsertIoOverride } from '../../../db/meioResults';
import { getPipeline } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import { missingIds, routesOfItems, type RouteRow } from '../../../db/routes';
import { weeklyHistory } from '../../../db/seriesDetail';
import { distributionsFor } from '../../../db/seriesResults';
import { weeklyDemandOf } from '../../../domain/inventory/fittedDemand';
import { leadTimeDemand } from '../../../domain/inventory/leadTimeDemand';
import { DEFAULT_QUANTILES, simulateLeadTimeDemand } from '../../../domain/inventory/monteCarlo';
import { SUPPLY_ROUTE_TYPES } from '../../../domain/inventory/network';
import type { AuthUser } from '../../context';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, nullable, obj, out } from '../schemas';
import { uniqueIdSchema, visibleSeries } from '../segments/access';
import * as s from './schemas';

const seriesParams = obj({ unique_id: uniqueIdSchema }, ['unique_id']);

const pipelineOf = async (tx: Tx, id: number | undefined): Promise<number> => (await resultsPipelineOr404(tx, id)).id;

async function openSeries(tx: Tx, user: AuthUser, uid: string) {
  const { itemId, siteId } = await visibleSeries(tx, user, uid);
  return { itemId, siteId };
}

/** The lead time a series' site is replenished in: its preferred inbound supply route, else the item-site master. */
function leadTimeOf(routes: readonly RouteRow[], siteId: number, master: number | null): number | null {
  const inbound = routes.filter((r) => r.to_site_id === siteId && SUPPLY_ROUTE_TYPES.includes(r.route_type))
    .sort((a, b) => a.priority - b.priority || Number(a.lead_time) - Number(b.lead_time) || a.from_site_id - b.from_site_id);
  return inbound.length ? Number(inbound[0].lead_time) : master;
}

/** IO overrides (spec §4.11), the network view and the Monte Carlo lead-time demand of a series (spec §4.3). */
export function registerInventoryNetworkRoutes(table: RouteTable): void {
  defineRoute(table, {
    method: 'post', path: '/api/io-overrides', tag: 'inventory', permission: 'create_override', status: 200,
    summary: 'Set inventory overrides of one SKU-site',
    description: 'Upsert per item, site, pipeline and MEIO scenario (null: every scenario of the pipeline; a row for the scenario wins). `fr_override` sets a fill-rate target and `sl_override` a cycle-service target for the meio step; `eoq_override` replaces the EOQ in meio and in the K-curve and Wagner-Whitin views. Fields left out keep their stored value; null clears one. Takes effect at the next meio or eoq run.',
    body: s.ioOverrideBody, audit: { entityType: 'io_override', action: 'upsert' },
    responses: { 200: { description: 'the stored override', schema: s.ioOverrideSchema }, ...errors(400, 403, 404) },
    handler: async (ctx, { body, user }) => {
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        if ((await missingIds(tx, 'items', [body.item_id])).length) throw badRequest(`body.item_id: item ${body.item_id} does not exist`);
        if ((await missingIds(tx, 'sites', [body.site_id])).length) throw badRequest(`body.site_id: site ${body.site_id} does not exist`);
        if (body.pipeline_id && !(await getPipeline(tx, body.pipeline_id))) throw notFound(`body.pipeline_id: pipeline ${body.pipeline_id} not found`);
        if (body.scenario_id && !(await getMeioScenario(tx, body.scenario_id))) throw notFound(`body.scenario_id: MEIO scenario ${body.scenario_id} not found`);
        return upsertIoOverride(tx, body, user.email);
      });
      ctx.state.audit = { ...ctx.state.audit, entityId: row.id, newValue: row };
      return row;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/series/{unique_id}/io-network', tag: 'inventory',
    summary: 'The series\' item across its network of sites',
    description: 'Nodes are the sites of the item\'s network (where it has series, and both ends of every route it may take) with stock on hand, the best method\'s mean weekly forecast, safety stock and reorder point from the MEIO scenario\'s latest run (else the item-site master safety stock), target service, expected fill rate and the model that planned it (metric for a repairable item); edges are the routes (type, lead time, priority). Roles: source (nothing supplies it), internal, demand (supplies no other site).',
    params: seriesParams, query: s.ioNetworkQuery,
    responses: { 200: { description: 'network', schema: s.ioNetworkSchema }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const { itemId, siteId } = await openSeries(tx, user, params.unique_id);
      const pipeline = await pipelineOf(tx, query.pipeline_id);
      if (query.scenario_id && !(await getMeioScenario(tx, query.scenario_id))) throw notFound(`scenario_id: MEIO scenario ${query.scenario_id} not found`);
      const scenario = query.scenario_id ?? (await latestMeioRun(tx, pipeline))?.scenario_id ?? null;
      const routes = await routesOfItems(tx, [itemId]);
      const siteIds = [...new Set([siteId, ...(await networkSites(tx, pipeline, [itemId])).map((r) => r.site_id)])].sort((a, b) => a - b);
      const nodes = await networkNodes(tx, itemId, siteIds, pipeline, scenario);
      const supply = routes.filter((r) => SUPPLY_ROUTE_TYPES.includes(r.route_type));
      return {
        unique_id: params.unique_id, item_id: itemId, site_id: siteId, pipeline_id: pipeline, scenario_id: scenario,
        nodes: nodes.map((n) => {
          const into = supply.some((r) => r.to_site_id === n.site_id);
          const out = supply.some((r) => r.from_site_id === n.site_id);
          return {
            site_id: n.site_id, site_xuid: n.site_xuid, site_name: n.site_name,
            role: into && out ? 'internal' : out ? 'source' : into ? 'demand' : 'isolated',
            has_series: n.has_series, on_hand: n.on_hand, forecast_weekly_mean: n.forecast_weekly_mean,
            safety_stock: n.meio_safety_stock ?? n.master_safety_stock ?? null, reorder_point: n.reorder_point ?? null,
            target_service: n.target_service ?? null, expected_fill_rate: n.expected_fill_rate ?? null, echelon_model: n.echelon_model ?? null,
          };
        }),
        edges: routes.map((r) => ({
          route_id: r.id, from_site_id: r.from_site_id, to_site_id: r.to_site_id, route_type: r.route_type, lead_time: Number(r.lead_time),
          priority: r.priority, item_specific: r.item_id !== null,
        })),
      };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/series/{unique_id}/mc-distribution', tag: 'inventory',
    summary: 'Monte Carlo lead-time demand',
    description: 'Simulates demand over the supply lead time (the preferred inbound route\'s, else the item-site\'s, else `lead_time_weeks`) from the fitted weekly distribution of the pipeline, seeded so the same query gives the same answer: histogram, mean, standard deviation and quantiles, next to the analytic lead-time-demand distribution the meio step uses and the largest quantile difference between the two.',
    params: seriesParams,
    query: obj({
      pipeline_id: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'pipeline of the fitted distribution; default the default results pipeline' },
      lead_time_weeks: { type: 'number', minimum: 0, maximum: 520, description: 'overrides the network\'s lead time' },
      samples: { type: 'integer', minimum: 100, maximum: 200000, default: 20000 },
      seed: { type: 'integer', minimum: 0, maximum: 2147483647, default: 42 },
      bins: { type: 'integer', minimum: 5, maximum: 200, default: 40 },
    }),
    responses: {
      200: {
        description: 'simulated and analytic lead-time demand', schema: out({
          unique_id: { type: 'string' }, pipeline_id: { type: 'integer' }, distribution_type: { type: 'string' }, lead_time_weeks: { type: 'number' },
          lead_time_source: { type: 'string', enum: ['query', 'route', 'item_site'] }, samples: { type: 'integer' }, seed: { type: 'integer' },
          mean: { type: 'number' }, sd: { type: 'number' }, quantiles: { type: 'object', additionalProperties: { type: 'number' } },
          histogram: out({ edges: { type: 'array', items: { type: 'number' } }, counts: { type: 'array', items: { type: 'integer' } } }),
          analytic: out({ mean: { type: 'number' }, sd: { type: 'number' }, quantiles: { type: 'object', additionalProperties: { type: 'number' } } }),
          max_quantile_difference: nullable({ type: 'number', description: 'largest |simulated − analytic| over the quantiles' }),
        }),
      },
      ...errors(400, 403, 404),
    },
    handler: async (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const { itemId, siteId } = await openSeries(tx, user, params.unique_id);
      const pipeline = await pipelineOf(tx, query.pipeline_id);
      const fit = (await distributionsFor(tx, pipeline, [{ item_id: itemId, site_id: siteId }])).get(params.unique_id);
      if (!fit) throw notFound(`Series ${params.unique_id} has no fitted distribution for pipeline ${pipeline} yet (run the distribution step)`);
      const site = (await networkSites(tx, pipeline, [itemId])).find((r) => r.site_id === siteId);
      const routeLead = leadTimeOf(await routesOfItems(tx, [itemId]), siteId, null);
      const lead = query.lead_time_weeks ?? routeLead ?? site?.lead_time_weeks ?? null;
      if (lead === null) throw badRequest('query.lead_time_weeks: the series\' site has no supply route and no item-site lead time; give lead_time_weeks');
      const history = fit.distribution_type === 'empirical' ? await weeklyValues(tx, itemId, siteId) : [];
      const demand = weeklyDemandOf({ distribution_type: fit.distribution_type, params: fit.params, basis: fit.basis, lead_time_weeks: fit.lead_time_weeks, mean: fit.mean, std: fit.std }, history);
      if (!demand) throw notFound(`Series ${params.unique_id}: the stored ${fit.distribution_type} fit cannot be simulated (no parameters or no history)`);
      const sim = simulateLeadTimeDemand(demand, lead, { samples: query.samples, seed: query.seed, bins: query.bins });
      const ltd = leadTimeDemand(demand, lead);
      const analyticQ = Object.fromEntries(DEFAULT_QUANTILES.map((p) => [String(p), ltd.quantile(p)]));
      const diffs = DEFAULT_QUANTILES.map((p) => Math.abs(sim.quantiles[String(p)] - analyticQ[String(p)]));
      return {
        unique_id: params.unique_id, pipeline_id: pipeline, distribution_type: fit.distribution_type, lead_time_weeks: lead,
        lead_time_source: query.lead_time_weeks !== undefined ? 'query' : routeLead !== null ? 'route' : 'item_site',
        samples: sim.samples, seed: sim.seed, mean: sim.mean, sd: sim.sd, quantiles: sim.quantiles, histogram: sim.histogram,
        analytic: { mean: ltd.mean, sd: Math.sqrt(ltd.variance), quantiles: analyticQ },
        max_quantile_difference: diffs.length ? Math.max(...diffs) : null,
      };
    }),
  });
}

async function weeklyValues(tx: Tx, itemId: number, siteId: number): Promise<number[]> {
  return (await weeklyHistory(tx, { item_id: itemId, site_id: siteId })).map((p) => p.y).filter((y): y is number => y !== null);
}
