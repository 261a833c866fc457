import { sql, type Db, type Tx } from './pool';

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'killed';
export const TERMINAL: JobStatus[] = ['completed', 'failed', 'killed'];

export interface JobRow {
  job_id: string;
  kind: string;
  step: string | null;
  parent_job_id: string | null;
  pipeline_id: number | null;
  scenario_id: number | null;
  segment_id: number | null;
  status: JobStatus;
  params: Record<string, unknown>;
  progress: { done?: number; total?: number };
  result: unknown;
  error: string | null;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  heartbeat_at: string | null;
}

export interface NewJob {
  job_id: string;
  kind: string;
  step?: string | null;
  parent_job_id?: string | null;
  pipeline_id?: number | null;
  scenario_id?: number | null;
  segment_id?: number | null;
  params?: Record<string, unknown>;
  created_by?: string | null;
}

const COLS = sql.fragment`job_id, kind, step, parent_job_id, pipeline_id, scenario_id, segment_id, status, params, progress, result, error,
  created_by, created_at, started_at, finished_at, heartbeat_at`;

/** Idempotent: a retried activity or a replayed start finds the row it already wrote. */
export async function insertJob(tx: Tx, j: NewJob): Promise<JobRow> {
  await tx.query(sql.unsafe`
    INSERT INTO jobs (job_id, kind, step, parent_job_id, pipeline_id, scenario_id, segment_id, params, created_by)
    VALUES (${j.job_id}, ${j.kind}, ${j.step ?? null}, ${j.parent_job_id ?? null}, ${j.pipeline_id ?? null}, ${j.scenario_id ?? null},
      ${j.segment_id ?? null}, ${sql.jsonb((j.params ?? {}) as any)}, ${j.created_by ?? null})
    ON CONFLICT (job_id) DO NOTHING`);
  return (await getJob(tx, j.job_id))!;
}

export async function getJob(tx: Tx, jobId: string): Promise<JobRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLS} FROM jobs WHERE job_id = ${jobId}`)) as JobRow | null;
}

export async function listJobs(tx: Tx, q: { limit: number; offset: number; status?: string; topLevelOnly?: boolean }): Promise<JobRow[]> {
  const where = [sql.fragment`TRUE`];
  if (q.status) where.push(sql.fragment`status = ${q.status}`);
  if (q.topLevelOnly) where.push(sql.fragment`parent_job_id IS NULL`);
  return (await tx.any(sql.unsafe`
    SELECT ${COLS} FROM jobs WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY created_at DESC, job_id LIMIT ${q.limit} OFFSET ${q.offset}`)) as JobRow[];
}

export async function listActiveJobs(tx: Tx): Promise<JobRow[]> {
  return (await tx.any(sql.unsafe`SELECT ${COLS} FROM jobs WHERE status IN ('queued', 'running') ORDER BY created_at`)) as JobRow[];
}

export async function childJobs(tx: Tx, parentId: string): Promise<JobRow[]> {
  return (await tx.any(sql.unsafe`SELECT ${COLS} FROM jobs WHERE parent_job_id = ${parentId} ORDER BY created_at, job_id`)) as JobRow[];
}

/** Moves a job to running; a job already finished (killed while queued) stays as it is. */
export async function markRunning(tx: Tx, jobId: string): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE jobs SET status = 'running', started_at = COALESCE(started_at, now()), heartbeat_at = now()
    WHERE job_id = ${jobId} AND status IN ('queued', 'running')`);
}

/**
 * Marks the job alive and, with `progress`, records it. Progress only moves forward for the same total: chunks report
 * concurrently, and a late report of fewer done series must not overwrite a later one.
 */
export async function heartbeat(tx: Tx, jobId: string, progress?: { done: number; total: number }): Promise<void> {
  const p = progress ? sql.fragment`${sql.jsonb(progress)}::jsonb` : sql.fragment`NULL::jsonb`;
  await tx.query(sql.unsafe`
    UPDATE jobs SET heartbeat_at = now(), progress = CASE
        WHEN ${p} IS NULL THEN progress
        WHEN progress->>'total' IS DISTINCT FROM ${p}->>'total' THEN ${p}
        WHEN COALESCE((progress->>'done')::numeric, -1) <= (${p}->>'done')::numeric THEN ${p}
        ELSE progress END
    WHERE job_id = ${jobId}`);
}

/** Final state; the first terminal state wins, so a late "completed" cannot overwrite "killed". */
export async function finishJob(tx: Tx, jobId: string, status: 'completed' | 'failed' | 'killed', opts: { error?: string | null; result?: unknown } = {}): Promise<boolean> {
  const r = await tx.query(sql.unsafe`
    UPDATE jobs SET status = ${status}, finished_at = now(), error = ${opts.error ?? null},
      result = COALESCE(${opts.result === undefined ? null : sql.jsonb(opts.result as any)}::jsonb, result)
    WHERE job_id = ${jobId} AND status IN ('queued', 'running')`);
  return r.rowCount > 0;
}

export interface JobLogLine {
  id: number;
  job_id: string;
  ts: string;
  level: string;
  message: string;
}

/** Appends a log line and wakes event-stream listeners (NOTIFY carries only ids; listeners read the line). */
export async function appendLog(tx: Tx, jobId: string, message: string, level: 'debug' | 'info' | 'warning' | 'error' = 'info'): Promise<number> {
  const id = (await tx.oneFirst(sql.unsafe`
    INSERT INTO job_logs (job_id, level, message) VALUES (${jobId}, ${level}, ${message.slice(0, 4000)}) RETURNING id`)) as number;
  await tx.query(sql.unsafe`SELECT pg_notify('job_log', json_build_object('schema', current_schema(), 'job_id', ${jobId}::text, 'id', ${id}::bigint)::text)`);
  return id;
}

export async function logTail(tx: Tx, jobId: string, limit: number): Promise<JobLogLine[]> {
  const rows = (await tx.any(sql.unsafe`
    SELECT id, job_id, ts, level, message FROM job_logs WHERE job_id = ${jobId} ORDER BY id DESC LIMIT ${limit}`)) as JobLogLine[];
  return [...rows].reverse();
}

export async function logsAfter(tx: Tx, jobId: string, afterId: number, limit = 1000): Promise<JobLogLine[]> {
  return (await tx.any(sql.unsafe`
    SELECT id, job_id, ts, level, message FROM job_logs WHERE job_id = ${jobId} AND id > ${afterId} ORDER BY id LIMIT ${limit}`)) as JobLogLine[];
}

export type { Db };

/** Log lines of a job and all its descendants (a run and its steps), after a given line id. */
export async function treeLogsAfter(tx: Tx, rootId: string, afterId: number, limit = 1000): Promise<JobLogLine[]> {
  return (await tx.any(sql.unsafe`
    WITH RECURSIVE tree AS (
      SELECT job_id FROM jobs WHERE job_id = ${rootId}
      UNION ALL SELECT j.job_id FROM jobs j JOIN tree t ON j.parent_job_id = t.job_id
    )
    SELECT l.id, l.job_id, l.ts, l.level, l.message FROM job_logs l JOIN tree t ON t.job_id = l.job_id
    WHERE l.id > ${afterId} ORDER BY l.id LIMIT ${limit}`)) as JobLogLine[];
}
