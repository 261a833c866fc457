import { sql, type Tx } from './pool';
import type { JobRow } from './jobs';

export interface ProcessLogQuery {
  limit: number;
  offset: number;
  step?: string;
  status?: string;
  run_id?: string;
  date_from?: string;
  date_to?: string;
  pipeline_id?: number;
  scenario_id?: number;
  sort_by: 'created_at' | 'started_at' | 'finished_at' | 'step' | 'status' | 'job_id' | 'kind';
  sort_dir: 'asc' | 'desc';
}

export type ProcessLogRow = JobRow & { run_id: string; duration_seconds: number | null };

const COLS = sql.fragment`j.job_id, j.kind, j.step, j.parent_job_id, j.pipeline_id, j.scenario_id, j.segment_id, j.status, j.params, j.progress,
  j.result, j.error, j.created_by, j.created_at, j.started_at, j.finished_at, j.heartbeat_at,
  COALESCE(gp.job_id, p.job_id, j.job_id) AS run_id,
  extract(epoch FROM (COALESCE(j.finished_at, now()) - j.started_at))::float8 AS duration_seconds`;

// Runs nest at most two levels (run → step → allocation under supply), so the root is found by two joins.
const FROM = sql.fragment`jobs j LEFT JOIN jobs p ON p.job_id = j.parent_job_id LEFT JOIN jobs gp ON gp.job_id = p.parent_job_id`;

export async function queryProcessLog(tx: Tx, q: ProcessLogQuery): Promise<{ items: ProcessLogRow[]; total: number }> {
  const where = [sql.fragment`TRUE`];
  if (q.step) where.push(sql.fragment`j.step = ${q.step}`);
  if (q.status) where.push(sql.fragment`j.status = ${q.status}`);
  if (q.run_id) where.push(sql.fragment`COALESCE(gp.job_id, p.job_id, j.job_id) = ${q.run_id}`);
  if (q.date_from) where.push(sql.fragment`j.created_at >= ${q.date_from}::date`);
  if (q.date_to) where.push(sql.fragment`j.created_at < ${q.date_to}::date + 1`);
  if (q.pipeline_id !== undefined) where.push(sql.fragment`j.pipeline_id = ${q.pipeline_id}`);
  if (q.scenario_id !== undefined) where.push(sql.fragment`j.scenario_id = ${q.scenario_id}`);
  const cond = sql.join(where, sql.fragment` AND `);
  const dir = q.sort_dir === 'asc' ? sql.fragment`ASC` : sql.fragment`DESC`;
  const items = (await tx.any(sql.unsafe`
    SELECT ${COLS} FROM ${FROM} WHERE ${cond}
    ORDER BY ${sql.identifier(['j', q.sort_by])} ${dir} NULLS LAST, j.job_id ${dir}
    LIMIT ${q.limit} OFFSET ${q.offset}`)) as ProcessLogRow[];
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*) FROM ${FROM} WHERE ${cond}`)) as number;
  return { items: [...items], total };
}

export interface RunSummary {
  run_id: string;
  kind: string;
  step: string | null;
  status: string;
  pipeline_id: number | null;
  scenario_id: number | null;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  step_count: number;
  failed_steps: number;
}

export async function listRuns(tx: Tx, limit: number, offset: number): Promise<RunSummary[]> {
  return (await tx.any(sql.unsafe`
    SELECT j.job_id AS run_id, j.kind, j.step, j.status, j.pipeline_id, j.scenario_id, j.created_by, j.created_at, j.started_at, j.finished_at,
      st.step_count, st.failed_steps
    FROM jobs j
    -- the steps of a run and their children (the allocation under a supply step), as GET /api/process-log/{run_id}/steps lists them
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS step_count, count(*) FILTER (WHERE d.status = 'failed')::int AS failed_steps FROM (
        SELECT c.status FROM jobs c WHERE c.parent_job_id = j.job_id
        UNION ALL SELECT g.status FROM jobs c JOIN jobs g ON g.parent_job_id = c.job_id WHERE c.parent_job_id = j.job_id
      ) d
    ) st
    WHERE j.parent_job_id IS NULL
    ORDER BY j.created_at DESC, j.job_id LIMIT ${limit} OFFSET ${offset}`)) as RunSummary[];
}

export async function stepNames(tx: Tx): Promise<string[]> {
  const rows = (await tx.anyFirst(sql.unsafe`SELECT DISTINCT step FROM jobs WHERE step IS NOT NULL ORDER BY step`)) as string[];
  return [...rows];
}

/** Steps of a run: its child jobs (and their children), or the run itself when it is a single step. */
export async function runSteps(tx: Tx, runId: string): Promise<ProcessLogRow[]> {
  return (await tx.any(sql.unsafe`
    SELECT ${COLS} FROM ${FROM}
    WHERE COALESCE(gp.job_id, p.job_id, j.job_id) = ${runId}
      AND (j.job_id <> ${runId} OR NOT EXISTS (SELECT 1 FROM jobs c WHERE c.parent_job_id = ${runId}))
    ORDER BY j.created_at, j.job_id`)) as ProcessLogRow[];
}
