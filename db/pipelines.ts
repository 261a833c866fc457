import { sql, type Tx } from './pool';

/** A scenario pipeline (table scenario_pipelines, migration 004) with its segment ids from pipeline_segments. */
export interface PipelineRow {
  id: number;
  name: string;
  description: string | null;
  forecast_scenario_id: number | null;
  is_active: boolean;
  settings: Record<string, unknown>;
  segment_ids: number[];
  created_by: string | null;
  created_at: string;
  updated_at: string;
  last_run_at: string | null;
}

export interface PipelineWrite {
  name?: string;
  description?: string | null;
  forecast_scenario_id?: number | null;
  is_active?: boolean;
  settings?: Record<string, unknown>;
}

const COLUMNS = sql.fragment`p.id, p.name, p.description, p.forecast_scenario_id, p.is_active, p.settings,
  ARRAY(SELECT ps.segment_id FROM pipeline_segments ps WHERE ps.pipeline_id = p.id ORDER BY ps.segment_id) AS segment_ids,
  p.created_by, p.created_at, p.updated_at, p.last_run_at`;

/** Serialises writes to one tenant's pipelines for the rest of the transaction (name checks, deletes, copies). */
export async function lockPipelines(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('scenario_pipelines'))`);
}

export async function listPipelines(tx: Tx, page: { skip: number; limit: number }): Promise<{ rows: PipelineRow[]; total: number }> {
  const rows = (await tx.any(sql.unsafe`SELECT ${COLUMNS} FROM scenario_pipelines p ORDER BY p.id LIMIT ${page.limit} OFFSET ${page.skip}`)) as PipelineRow[];
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM scenario_pipelines`)) as number;
  return { rows: [...rows], total };
}

export async function getPipeline(tx: Tx, id: number): Promise<PipelineRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM scenario_pipelines p WHERE p.id = ${id}`)) as PipelineRow | null;
}

/** Names are unique ignoring case; `exceptId` lets an update keep its own name. */
export async function findPipelineByName(tx: Tx, name: string, exceptId?: number): Promise<PipelineRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM scenario_pipelines p WHERE lower(p.name) = lower(${name}) AND p.id <> ${exceptId ?? 0}`)) as PipelineRow | null;
}

/** Pipelines whose forecast scenario is `scenarioId` (the ones a scenario delete would detach). */
export async function pipelinesOfScenario(tx: Tx, scenarioId: number): Promise<Array<{ id: number; name: string }>> {
  return [...((await tx.any(sql.unsafe`
    SELECT id, name FROM scenario_pipelines WHERE forecast_scenario_id = ${scenarioId} ORDER BY id`)) as Array<{ id: number; name: string }>)];
}

export async function insertPipeline(tx: Tx, p: Required<PipelineWrite>, createdBy: string | null): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO scenario_pipelines (name, description, forecast_scenario_id, is_active, settings, created_by)
    VALUES (${p.name}, ${p.description}, ${p.forecast_scenario_id}, ${p.is_active}, ${sql.jsonb(p.settings as any)}, ${createdBy})
    RETURNING id`)) as number;
}

/** Sets only the fields given (settings are replaced as a whole, not merged). */
export async function updatePipeline(tx: Tx, id: number, p: PipelineWrite): Promise<boolean> {
  const sets = [sql.fragment`updated_at = now()`];
  if (p.name !== undefined) sets.push(sql.fragment`name = ${p.name}`);
  if (p.description !== undefined) sets.push(sql.fragment`description = ${p.description}`);
  if (p.forecast_scenario_id !== undefined) sets.push(sql.fragment`forecast_scenario_id = ${p.forecast_scenario_id}`);
  if (p.is_active !== undefined) sets.push(sql.fragment`is_active = ${p.is_active}`);
  if (p.settings !== undefined) sets.push(sql.fragment`settings = ${sql.jsonb(p.settings as any)}`);
  const r = await tx.query(sql.unsafe`UPDATE scenario_pipelines SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
  return r.rowCount > 0;
}

/** Deletes the pipeline and its segment links; process workflows pointing at it are detached (ON DELETE SET NULL). */
export async function deletePipeline(tx: Tx, id: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`DELETE FROM scenario_pipelines WHERE id = ${id}`);
  return r.rowCount > 0;
}

/** Replaces the pipeline's segment set. */
export async function setPipelineSegments(tx: Tx, id: number, segmentIds: number[]): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM pipeline_segments WHERE pipeline_id = ${id}`);
  if (!segmentIds.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO pipeline_segments (pipeline_id, segment_id)
    SELECT ${id}, s FROM unnest(${sql.array(segmentIds, 'int4')}::int4[]) AS s ON CONFLICT DO NOTHING`);
}

/** Links a segment; false when it was linked already. */
export async function addPipelineSegment(tx: Tx, id: number, segmentId: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`
    INSERT INTO pipeline_segments (pipeline_id, segment_id) VALUES (${id}, ${segmentId}) ON CONFLICT DO NOTHING`);
  return r.rowCount > 0;
}

/** Unlinks a segment; false when it was not linked. */
export async function removePipelineSegment(tx: Tx, id: number, segmentId: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`DELETE FROM pipeline_segments WHERE pipeline_id = ${id} AND segment_id = ${segmentId}`);
  return r.rowCount > 0;
}

/** For the job machinery: records that a run of the pipeline started or finished. */
export async function touchPipelineRun(tx: Tx, id: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE scenario_pipelines SET last_run_at = now() WHERE id = ${id}`);
}

/**
 * Copies `sourceId`'s configuration onto `targetId`: forecast scenario link, settings and segment set
 * (name, description, is_active and last_run_at stay the target's own).
 */
export async function copyPipelineConfig(tx: Tx, targetId: number, sourceId: number): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE scenario_pipelines t SET forecast_scenario_id = s.forecast_scenario_id, settings = s.settings, updated_at = now()
    FROM scenario_pipelines s WHERE t.id = ${targetId} AND s.id = ${sourceId}`);
  await tx.query(sql.unsafe`DELETE FROM pipeline_segments WHERE pipeline_id = ${targetId}`);
  await tx.query(sql.unsafe`
    INSERT INTO pipeline_segments (pipeline_id, segment_id)
    SELECT ${targetId}, segment_id FROM pipeline_segments WHERE pipeline_id = ${sourceId}`);
}

/**
 * Hook for results stored per pipeline_id (forecasts, metrics, supply plans, ...): an area that stores results
 * registers a copier at import time, and `POST /api/scenario-pipeline/{id}/copy-from/{src_id}` runs every copier in
 * the same transaction as the configuration copy, after it. A copier replaces the target's rows with copies of the
 * source's and returns how many rows it wrote; the counts are reported under `results_copied.<name>`.
 */
export type PipelineResultCopier = (tx: Tx, targetId: number, sourceId: number) => Promise<number>;
const resultCopiers = new Map<string, PipelineResultCopier>();

/** Registers (or replaces) the copier of one result kind; returns a function that unregisters it. */
export function registerPipelineResultCopier(name: string, copier: PipelineResultCopier): () => void {
  resultCopiers.set(name, copier);
  return () => {
    if (resultCopiers.get(name) === copier) resultCopiers.delete(name);
  };
}

export async function copyPipelineResults(tx: Tx, targetId: number, sourceId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [name, copier] of resultCopiers) counts[name] = await copier(tx, targetId, sourceId);
  return counts;
}

/** Whether the series (item, site) exists; the baseline view of a pipeline is per series. */
export async function seriesExists(tx: Tx, itemId: number, siteId: number): Promise<boolean> {
  return Boolean(await tx.maybeOneFirst(sql.unsafe`SELECT true FROM series WHERE item_id = ${itemId} AND site_id = ${siteId}`));
}

/** Weekly demand of one series, oldest week first, as written by the etl step. */
/** Weekly history; a closed calendar week has y null (it is not a zero-demand week). */
export async function weeklyHistory(tx: Tx, itemId: number, siteId: number): Promise<Array<{ ds: string; y: number | null }>> {
  return [...((await tx.any(sql.unsafe`
    SELECT week AS ds, y FROM series_weekly WHERE item_id = ${itemId} AND site_id = ${siteId} ORDER BY week`)) as Array<{ ds: string; y: number | null }>)];
}

/** Jobs of the pipeline still queued or running (a pipeline is not deleted under a running job). */
export async function activeJobsOfPipeline(tx: Tx, id: number): Promise<string[]> {
  return [...((await tx.anyFirst(sql.unsafe`
    SELECT job_id FROM jobs WHERE pipeline_id = ${id} AND status IN ('queued', 'running') ORDER BY created_at, job_id`)) as string[])];
}
