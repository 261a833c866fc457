import { getPipeline } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import { getScenario } from '../../../db/scenarios';
import { seriesScope, visibleSegmentIds } from '../../../db/segments';
import { defaultResultsPipeline, latestPipelineOfScenario } from '../../../db/forecastReads';
import { demandClassCounts, listSeries, type SeriesFilter } from '../../../db/series';
import { maintenanceSeriesCount } from '../../../db/maintenance';
import { causalSeriesCount } from '../../../db/causal';
import type { AuthUser } from '../../context';
import { notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { takingPathParam, withLinks } from '../links';
import { errors } from '../schemas';
import { viewableSegment } from '../segments/access';
import * as s from './schemas';
import { defaultPipelineOf, jsonArray, jsonText, membershipOf, readsOf, seriesListIfLoaded, seriesView } from './memory';
import { inScope } from '../segments/access';

/**
 * Resolves the pipeline and segment filters (404 unknown, 403 segment not visible) into a series filter, and whose
 * step results fill the rows: `pipeline_id`, else the latest pipeline of `scenario_id`, else the default pipeline.
 * Only an explicit pipeline narrows the list to its segments: the series list is the catalogue, so an implicit
 * default must not hide series from a caller who never chose a pipeline.
 */
async function seriesFilter(tx: Tx, user: AuthUser, q: { pipeline_id?: number; segment_id?: number; scenario_id?: number }): Promise<SeriesFilter> {
  if (q.scenario_id !== undefined && !(await getScenario(tx, q.scenario_id))) throw notFound(`scenario_id: forecast scenario ${q.scenario_id} not found`);
  const f: SeriesFilter = { scope: seriesScope(user), segmentSets: [], resultsPipelineId: 0 };
  if (q.pipeline_id === undefined) {
    f.resultsPipelineId = q.scenario_id !== undefined ? (await latestPipelineOfScenario(tx, q.scenario_id)) ?? 0 : await defaultResultsPipeline(tx);
  }
  if (q.pipeline_id !== undefined) {
    f.resultsPipelineId = q.pipeline_id;
    const p = await getPipeline(tx, q.pipeline_id);
    if (!p) throw notFound(`pipeline_id: pipeline ${q.pipeline_id} not found`);
    if (p.segment_ids.length) f.segmentSets.push([...p.segment_ids]);
  }
  if (q.segment_id !== undefined) {
    await viewableSegment(tx, user, q.segment_id);
    f.segmentSets.push([q.segment_id]);
  }
  return f;
}

export function registerSeriesRoutes(table: RouteTable): void {
  const tag = 'series';

  defineRoute(table, {
    method: 'get', path: '/api/series', tag,
    summary: 'Series with their statistics and classifications',
    description:
      'Every series (row of `series`) the caller may see, by item_id and site_id; the total is in `X-Total-Count`. Field sources are given per field: etl statistics from `series`; ADI, CoV, demand class, intermittency, seasonality, trend, complexity and recommended methods from the characterization step (series_characteristics), best method, runner-up and score from the best-method step (series_best_method), both of the results pipeline: `pipeline_id`, else the most recently updated pipeline of `scenario_id`, else the default pipeline (docs/API.md, \"Which pipeline a read uses\"; only an explicit `pipeline_id` narrows the list to its segments). A series not characterized yet has ADI, CoV, demand class and intermittency computed from `series_weekly` and null characterization fields (`characterized: false`); classifications come from ABC results.',
    query: s.seriesListQuery,
    // the first series' id leads to every operation on one series
    responses: { 200: withLinks(table, { description: 'series', schema: { type: 'array', items: s.seriesSchema } }, takingPathParam('unique_id', '$response.body#/0/unique_id')), ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) => {
      const reads = readsOf(ctx, user);
      // The catalogue as most callers read it (default pipeline, no filter) comes from memory; a pipeline, scenario or
      // segment filter needs its 404/403 checks and is read from the database.
      if (reads && query.pipeline_id === undefined && query.scenario_id === undefined && query.segment_id === undefined) {
        const p = await defaultPipelineOf(ctx, reads, user.accountId);
        const all = seriesListIfLoaded(ctx, reads, user.accountId, p);
        if (all) {
          const scope = visibleSegmentIds(user);
          // the same page for everyone who sees the same segments: its bytes are built once per version
          const { total, body } = await reads.page(`series:${p}:${scope?.join(',') ?? 'all'}:${query.skip}:${query.limit}`, async () => {
            const members = await membershipOf(ctx, reads, user);
            const visible = members === null ? all : all.filter((r) => inScope(user, r.uid, members));
            return { total: visible.length, body: jsonArray(visible.slice(query.skip, query.skip + query.limit)) };
          });
          ctx.set('X-Total-Count', String(total));
          return jsonText(ctx, body);
        }
      }
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        return listSeries(tx, await seriesFilter(tx, user, query), query);
      });
      ctx.set('X-Total-Count', String(total));
      return rows.map(seriesView);
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/series/type-counts', tag,
    summary: 'Series per demand type',
    description: "Syntetos-Boylan classes of the series the caller may see: the characterization step's class of the results pipeline (`pipeline_id`, omitted: the default pipeline, docs/API.md \"Which pipeline a read uses\"), else, for a series not characterized yet, the class computed from series_weekly. `causal` counts the series (of the same filter) with a causal model: a failure rate of the part and coverage of the site for that asset type (docs/CAUSAL.md), and overlaps the demand classes; `maintenance` counts the series (of the same filter) that appear in the BOM of a maintenance event (docs/MAINTENANCE.md), and overlaps the demand classes; `erratic` and `no_history` are given as well so the counts add up to `total`.",
    query: s.typeCountsQuery,
    responses: { 200: { description: 'counts', schema: s.typeCountsSchema }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const filter = await seriesFilter(tx, user, query);
        const c = await demandClassCounts(tx, filter);
        const n = (k: string) => c[k] ?? 0;
        return {
          intermittent: n('intermittent'), smooth: n('smooth'), lumpy: n('lumpy'), causal: await causalSeriesCount(tx, filter), maintenance: await maintenanceSeriesCount(tx, filter),
          erratic: n('erratic'), no_history: n('no_history'), total: Object.values(c).reduce((a, b) => a + b, 0),
        };
      }),
  });
}
