import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { finishJob, getJob, insertJob, listActiveJobs, type JobRow, type NewJob } from '../../db/jobs';
import { withTenant, type Db } from '../../db/pool';
import { logger } from '../../lib/logger';
import { jobSearchAttributes } from '../../lib/searchAttributes';
import type { TemporalDeps } from '../context';
import { unavailable } from '../errors';
import { isTemporalError } from './temporalErrors';

export const KILL_GRACE_MS = Number(process.env.KILL_GRACE_MS ?? 10_000);

export function requireTemporal(t: TemporalDeps | undefined): TemporalDeps {
  if (!t) throw unavailable('Job service unavailable: the API has no Temporal connection', 15);
  return t;
}

export const newJobId = (prefix: string) => `${prefix}-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${crypto.randomUUID().slice(0, 8)}`;

/**
 * Writes the job row (status queued) and starts its workflow with workflow id = job id. If Temporal refuses, the row
 * is marked failed so nothing stays queued forever.
 */
export async function startJob(
  db: Db,
  temporal: TemporalDeps,
  accountId: string,
  job: NewJob,
  workflow: string,
  args: unknown[],
): Promise<JobRow> {
  const row = await withTenant(db, accountId, (tx) => insertJob(tx, job));
  try {
    await temporal.client.workflow.start(workflow, {
      workflowId: job.job_id,
      taskQueue: temporal.taskQueue,
      args,
      typedSearchAttributes: jobSearchAttributes({ accountId, kind: job.kind, step: job.step, pipelineId: job.pipeline_id, scenarioId: job.scenario_id }),
    });
  } catch (err) {
    logger.error({ err, jobId: job.job_id }, 'workflow start failed');
    await withTenant(db, accountId, (tx) => finishJob(tx, job.job_id, 'failed', { error: 'could not start the workflow: Temporal unavailable' }));
    throw unavailable('Job service unavailable: Temporal did not accept the workflow; retry shortly', 15);
  }
  return row;
}

export type TemporalState = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'CONTINUED_AS_NEW' | 'TIMED_OUT' | 'NOT_FOUND' | 'UNKNOWN';

/**
 * Long enough for a describe on a busy server; short enough that a request asking about a job while Temporal is down
 * or restarting answers from PostgreSQL at once, instead of waiting out the client's reconnect attempts (20 s and more).
 */
const DESCRIBE_DEADLINE_MS = 3000;

export async function workflowState(client: Client, jobId: string): Promise<TemporalState> {
  try {
    const d = await client.connection.withDeadline(Date.now() + DESCRIBE_DEADLINE_MS, () => client.workflow.getHandle(jobId).describe());
    return (d.status.name as TemporalState) ?? 'UNKNOWN';
  } catch (err) {
    if (isTemporalError(err, 'WorkflowNotFoundError')) return 'NOT_FOUND';
    throw err;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Kill = cancel (activities see it at their next heartbeat and stop; the workflow records `killed`), then terminate
 * whatever is still running after the grace period and record `killed` ourselves.
 */
export async function killJobs(db: Db, temporal: TemporalDeps, accountId: string, jobIds: string[], graceMs = KILL_GRACE_MS): Promise<Record<string, string>> {
  const { client } = temporal;
  await Promise.all(jobIds.map((id) => client.workflow.getHandle(id).cancel().catch(() => undefined)));
  const deadline = Date.now() + graceMs;
  let pending = [...jobIds];
  while (pending.length && Date.now() < deadline) {
    await sleep(200);
    const states = await Promise.all(pending.map(async (id) => [id, await workflowState(client, id)] as const));
    pending = states.filter(([, s]) => s === 'RUNNING').map(([id]) => id);
  }
  for (const id of pending) {
    await client.workflow.getHandle(id).terminate('killed: did not stop within the grace period').catch(() => undefined);
  }
  const out: Record<string, string> = {};
  await withTenant(db, accountId, async (tx) => {
    for (const id of jobIds) {
      await finishJob(tx, id, 'killed', { error: 'killed on request' });
      out[id] = (await getJob(tx, id))?.status ?? 'unknown';
    }
  });
  return out;
}

/**
 * Reset: queued or running jobs whose workflow is closed or unknown to Temporal, or whose heartbeat is older than
 * staleMinutes (workflow terminated then), become failed. Healthy running jobs are left alone.
 */
export async function resetStaleJobs(db: Db, temporal: TemporalDeps, accountId: string, staleMinutes: number): Promise<Array<{ job_id: string; reason: string }>> {
  const active = await withTenant(db, accountId, listActiveJobs);
  const reset: Array<{ job_id: string; reason: string }> = [];
  const now = Date.now();
  for (const job of active) {
    const state = await workflowState(temporal.client, job.job_id);
    const lastSign = Date.parse(job.heartbeat_at ?? job.started_at ?? job.created_at);
    let reason: string | undefined;
    if (state !== 'RUNNING') reason = state === 'NOT_FOUND' ? 'workflow unknown to Temporal' : `workflow is ${state.toLowerCase()}`;
    else if (now - lastSign > staleMinutes * 60_000) {
      reason = `no heartbeat for more than ${staleMinutes} minutes`;
      await temporal.client.workflow.getHandle(job.job_id).terminate(`reset: ${reason}`).catch(() => undefined);
    }
    if (reason) {
      await withTenant(db, accountId, (tx) => finishJob(tx, job.job_id, 'failed', { error: `reset: ${reason}` }));
      reset.push({ job_id: job.job_id, reason });
    }
  }
  return reset;
}
