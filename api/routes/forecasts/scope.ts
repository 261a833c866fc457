import { defaultResultsPipeline, latestPipelineOfScenario, type ResultScope } from '../../../db/forecastReads';
import { getPipeline } from '../../../db/pipelines';
import type { Tx } from '../../../db/pool';
import { getScenario } from '../../../db/scenarios';
import { seriesScope } from '../../../db/segments';
import type { SeriesFilter } from '../../../db/series';
import type { AuthUser } from '../../context';
import { notFound } from '../../errors';
import { viewableSegment } from '../segments/access';

/** The rule of SCOPE_RULE (schemas.ts): which pipeline's results, filtered on which scenario. */
export async function resolveScope(tx: Tx, q: { pipeline_id?: number; scenario_id?: number }, scenarioField = 'scenario_id'): Promise<ResultScope & { segmentIds: number[] }> {
  if (q.scenario_id !== undefined && !(await getScenario(tx, q.scenario_id))) throw notFound(`${scenarioField}: forecast scenario ${q.scenario_id} not found`);
  if (q.pipeline_id !== undefined) {
    let segmentIds: number[] = [];
    if (q.pipeline_id > 0) {
      const p = await getPipeline(tx, q.pipeline_id);
      if (!p) throw notFound(`pipeline_id: pipeline ${q.pipeline_id} not found`);
      segmentIds = [...p.segment_ids];
    }
    return { pipelineId: q.pipeline_id, scenarioId: q.scenario_id ?? null, segmentIds };
  }
  if (q.scenario_id !== undefined) {
    const latest = await latestPipelineOfScenario(tx, q.scenario_id);
    if (latest !== null) return { pipelineId: latest, scenarioId: null, segmentIds: [...(await getPipeline(tx, latest))!.segment_ids] };
    return { pipelineId: 0, scenarioId: q.scenario_id, segmentIds: [] };
  }
  const fallback = await defaultResultsPipeline(tx);
  return { pipelineId: fallback, scenarioId: null, segmentIds: fallback ? [...(await getPipeline(tx, fallback))!.segment_ids] : [] };
}

/**
 * The pipeline a read names, else the default results pipeline (docs/API.md, "Which pipeline a read uses"), with its
 * segments; 404 for a pipeline that does not exist. Pipeline 0 (runs outside any pipeline) always exists.
 */
export async function resultsPipelineOr404(tx: Tx, id: number | undefined): Promise<{ id: number; segmentIds: number[] }> {
  const p = id ?? (await defaultResultsPipeline(tx));
  if (p === 0) return { id: 0, segmentIds: [] };
  const row = await getPipeline(tx, p);
  if (!row) throw notFound(`pipeline_id: pipeline ${p} not found`);
  return { id: p, segmentIds: [...row.segment_ids] };
}

/** The series a list read covers: the caller's segments, the pipeline's segments (when it has any), `segment_id`. */
export async function listFilter(tx: Tx, user: AuthUser, scope: { segmentIds: number[] }, segmentId?: number): Promise<SeriesFilter> {
  const f: SeriesFilter = { scope: seriesScope(user), segmentSets: [] };
  if (scope.segmentIds.length) f.segmentSets.push(scope.segmentIds);
  if (segmentId !== undefined) {
    await viewableSegment(tx, user, segmentId);
    f.segmentSets.push([segmentId]);
  }
  return f;
}
