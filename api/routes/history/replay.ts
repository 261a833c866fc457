import { bestMethodCountsOf, getVersion, readAsOfVersion, type VersionRow } from '../../../db/history';
import { latestMeioRun, meioResults } from '../../../db/meioReads';
import { withTenant } from '../../../db/pool';
import { getBestMethod, forecastResults } from '../../../db/seriesDetail';
import { latestSupplyRun, mergedOrderPage } from '../../../db/supplyReads';
import { defaultSupplyScenarioId } from '../../../db/supplyScenarios';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { forecastsView } from '../forecasts';
import { errors, mondayDate, obj, out } from '../schemas';
import { uniqueIdSchema, visibleSeries } from '../segments/access';
import { supplyDashboard } from '../supply/results';
import { checkArchiveDate, pipelineOr404 } from './common';

const VIEWS = ['summary', 'series', 'supply', 'meio'] as const;

/** Replays of a version (document 2 §4.5): the live readers' answers as they were when the version was frozen. */
export function registerHistoryReplayRoutes(table: RouteTable, versionView: (v: VersionRow) => unknown): void {
  defineRoute(table, {
    method: 'get', path: '/api/history/replay/{archive_date}', tag: 'history', pipelineScoped: true,
    summary: 'A frozen version, as the live readers showed it',
    description: 'The live readers run over the version\'s copies (docs/HISTORY.md "Replay"), so each view is what the live endpoint answered at freeze time: '
      + '`series` (needs `unique_id`) = GET /api/forecasts/{unique_id}?pipeline_id; `supply` = the run (GET /api/supply/runs/{run_id}), its dashboard and the first page of '
      + 'GET /api/supply/orders?include_firm=false (`scenario_id`: the supply scenario, default the default one; `skip`, `limit`); `meio` = GET /api/meio/scenarios/{scenario_id}/results '
      + '(`meio_scenario_id`, default the version\'s newest meio scenario); `summary` = the version with its KPIs, the best method per series counted by method and the supply dashboard. '
      + 'Item and site codes and names are today\'s: master data is not versioned.',
    params: obj({ archive_date: mondayDate('a Monday (YYYY-MM-DD); another weekday is a 400') }, ['archive_date']),
    query: obj({
      pipeline_id: { type: 'integer', minimum: 1, maximum: 2147483647 }, view: { type: 'string', enum: [...VIEWS], default: 'summary' },
      unique_id: uniqueIdSchema, scenario_id: { type: 'integer', minimum: 1, maximum: 2147483647 }, meio_scenario_id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      skip: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0 }, limit: { type: 'integer', minimum: 1, maximum: 5000, default: 200 },
    }, ['pipeline_id']),
    responses: { 200: { description: 'the view', schema: out({ archive_date: { type: 'string' }, pipeline_id: { type: 'integer' }, view: { type: 'string' }, data: { type: 'object' } }) }, ...errors(403, 404) },
    handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      checkArchiveDate('path.archive_date', params.archive_date);
      await pipelineOr404(tx, query.pipeline_id);
      const v = await getVersion(tx, query.pipeline_id, params.archive_date);
      if (!v || !v.frozen) throw notFound(`No frozen version of pipeline ${query.pipeline_id} for archive date ${params.archive_date}`);
      if (query.view === 'series' && !query.unique_id) throw badRequest('query.unique_id is required with view=series');
      const key = query.view === 'series' ? await visibleSeries(tx, user, query.unique_id, { mustExist: false }) : null;
      const supplyScenario = query.scenario_id ?? (await defaultSupplyScenarioId(tx));
      const data = await readAsOfVersion(tx, v.id, async (vt) => {
        switch (query.view) {
          case 'series': {
            const k = { item_id: key!.itemId, site_id: key!.siteId };
            const rows = await forecastResults(vt, k, v.pipeline_id, null, null);
            const best = await getBestMethod(vt, k, v.pipeline_id);
            return forecastsView(query.unique_id, { pipelineId: v.pipeline_id, scenarioId: null }, rows, best?.best_method ?? null);
          }
          case 'supply': {
            const run = supplyScenario === null ? null : await latestSupplyRun(vt, v.pipeline_id, supplyScenario);
            if (!run) return { run: null, dashboard: null, orders: [], total_orders: 0 };
            const page = await mergedOrderPage(vt, run, { include_firm: false, firm_only: false }, query.skip, query.limit);
            return { run, dashboard: await supplyDashboard(vt, run), orders: page.rows, total_orders: page.total };
          }
          case 'meio': {
            const scenarioId = query.meio_scenario_id ?? (await latestMeioRun(vt, v.pipeline_id))?.scenario_id ?? null;
            if (scenarioId === null) return { scenario_id: null, results: [], total: 0 };
            const page = await meioResults(vt, { pipelineId: v.pipeline_id, scenarioId }, query);
            return { scenario_id: scenarioId, results: page.rows, total: page.total };
          }
          default: {
            const run = supplyScenario === null ? null : await latestSupplyRun(vt, v.pipeline_id, supplyScenario);
            return { version: versionView(v), best_methods: await bestMethodCountsOf(vt, v.pipeline_id), supply: run ? await supplyDashboard(vt, run) : null };
          }
        }
      });
      return { archive_date: v.archive_date, pipeline_id: v.pipeline_id, view: query.view, data };
    }),
  });
}
