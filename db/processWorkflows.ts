import { sql, type Tx } from './pool';

/** A process workflow (spec §2.4; table process_workflows, migration 004). */
export interface ProcessWorkflowRow {
  workflow_id: number;
  name: string;
  steps: string[];
  segment_ids: number[];
  scenario_pipeline_id: number | null;
  step_workers: Record<string, number>;
  sort_order: number;
  last_run_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProcessWorkflowWrite {
  name?: string;
  steps?: string[];
  segment_ids?: number[];
  scenario_pipeline_id?: number | null;
  step_workers?: Record<string, number>;
}

const COLUMNS = sql.fragment`workflow_id, name, steps, segment_ids, scenario_pipeline_id, step_workers, sort_order, last_run_at,
  created_by, created_at, updated_at`;

/** Serialises writes to one tenant's workflows for the rest of the transaction (name checks, sort order, reorder). */
export async function lockProcessWorkflows(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('process_workflows'))`);
}

export async function listProcessWorkflows(tx: Tx, page: { skip: number; limit: number }): Promise<{ rows: ProcessWorkflowRow[]; total: number }> {
  const rows = (await tx.any(sql.unsafe`
    SELECT ${COLUMNS} FROM process_workflows ORDER BY sort_order, workflow_id LIMIT ${page.limit} OFFSET ${page.skip}`)) as ProcessWorkflowRow[];
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM process_workflows`)) as number;
  return { rows: [...rows], total };
}

/** For the run endpoint: the workflow, or null when the id is unknown. */
export async function getProcessWorkflow(tx: Tx, id: number): Promise<ProcessWorkflowRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM process_workflows WHERE workflow_id = ${id}`)) as ProcessWorkflowRow | null;
}

/** For the run endpoint: records that the workflow was started now. */
export async function touchLastRun(tx: Tx, id: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE process_workflows SET last_run_at = now() WHERE workflow_id = ${id}`);
}

/** Names are unique ignoring case; `exceptId` lets an update keep its own name. */
export async function findProcessWorkflowByName(tx: Tx, name: string, exceptId?: number): Promise<ProcessWorkflowRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM process_workflows WHERE lower(name) = lower(${name}) AND workflow_id <> ${exceptId ?? 0}`)) as ProcessWorkflowRow | null;
}

/** Workflows that run on `pipelineId` (the ones a pipeline delete would detach). */
export async function workflowsOfPipeline(tx: Tx, pipelineId: number): Promise<Array<{ workflow_id: number; name: string }>> {
  return [...((await tx.any(sql.unsafe`
    SELECT workflow_id, name FROM process_workflows WHERE scenario_pipeline_id = ${pipelineId} ORDER BY sort_order, workflow_id`)) as Array<{ workflow_id: number; name: string }>)];
}

/** New workflows go last: one past the highest sort_order. */
export async function insertProcessWorkflow(tx: Tx, w: Required<ProcessWorkflowWrite>, createdBy: string | null): Promise<ProcessWorkflowRow> {
  return (await tx.one(sql.unsafe`
    INSERT INTO process_workflows (name, steps, segment_ids, scenario_pipeline_id, step_workers, sort_order, created_by)
    VALUES (${w.name}, ${sql.array(w.steps, 'text')}, ${sql.array(w.segment_ids, 'int4')}, ${w.scenario_pipeline_id},
      ${sql.jsonb(w.step_workers)}, (SELECT COALESCE(max(sort_order), 0) + 1 FROM process_workflows), ${createdBy})
    RETURNING ${COLUMNS}`)) as ProcessWorkflowRow;
}

/** Sets only the fields given (step_workers is replaced as a whole). */
export async function updateProcessWorkflow(tx: Tx, id: number, w: ProcessWorkflowWrite): Promise<ProcessWorkflowRow | null> {
  const sets = [sql.fragment`updated_at = now()`];
  if (w.name !== undefined) sets.push(sql.fragment`name = ${w.name}`);
  if (w.steps !== undefined) sets.push(sql.fragment`steps = ${sql.array(w.steps, 'text')}`);
  if (w.segment_ids !== undefined) sets.push(sql.fragment`segment_ids = ${sql.array(w.segment_ids, 'int4')}`);
  if (w.scenario_pipeline_id !== undefined) sets.push(sql.fragment`scenario_pipeline_id = ${w.scenario_pipeline_id}`);
  if (w.step_workers !== undefined) sets.push(sql.fragment`step_workers = ${sql.jsonb(w.step_workers)}`);
  return (await tx.maybeOne(sql.unsafe`
    UPDATE process_workflows SET ${sql.join(sets, sql.fragment`, `)} WHERE workflow_id = ${id} RETURNING ${COLUMNS}`)) as ProcessWorkflowRow | null;
}

export async function deleteProcessWorkflow(tx: Tx, id: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`DELETE FROM process_workflows WHERE workflow_id = ${id}`);
  return r.rowCount > 0;
}

export async function processWorkflowIds(tx: Tx): Promise<number[]> {
  return [...((await tx.anyFirst(sql.unsafe`SELECT workflow_id FROM process_workflows ORDER BY sort_order, workflow_id`)) as number[])];
}

/** Gives each id its 1-based position as sort_order; the caller has checked the ids are exactly the existing ones. */
export async function reorderProcessWorkflows(tx: Tx, orderedIds: number[]): Promise<void> {
  if (!orderedIds.length) return;
  await tx.query(sql.unsafe`
    UPDATE process_workflows w SET sort_order = o.ord::int, updated_at = now()
    FROM unnest(${sql.array(orderedIds, 'int4')}::int4[]) WITH ORDINALITY AS o(id, ord)
    WHERE w.workflow_id = o.id AND w.sort_order IS DISTINCT FROM o.ord::int`);
}
