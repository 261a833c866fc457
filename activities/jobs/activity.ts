import { Context } from '@temporalio/activity';
import { appendLog, finishJob, heartbeat, insertJob, markRunning } from '../../db/jobs';
import { listTenantParameters } from '../../db/parameters';
import { withTenant, type Db } from '../../db/pool';

export interface JobRef {
  accountId: string;
  jobId: string;
}

export interface StepSettings {
  nWorkers: number;
  chunkSize: number;
}

/** Job bookkeeping the workflows call: status transitions and log lines live in PostgreSQL, not in history. */
export function createJobActivities({ db }: { db: Db }) {
  return {
    async jobStarted(ref: JobRef & { message?: string }): Promise<void> {
      await withTenant(db, ref.accountId, async (tx) => {
        await markRunning(tx, ref.jobId);
        await appendLog(tx, ref.jobId, ref.message ?? 'started');
      });
    },

    async jobLog(ref: JobRef & { message: string; level?: 'info' | 'warning' | 'error' }): Promise<void> {
      await withTenant(db, ref.accountId, (tx) => appendLog(tx, ref.jobId, ref.message, ref.level ?? 'info').then(() => undefined));
    },

    async jobProgress(ref: JobRef & { done: number; total: number }): Promise<void> {
      await withTenant(db, ref.accountId, (tx) => heartbeat(tx, ref.jobId, { done: ref.done, total: ref.total }));
    },

    async jobFinished(ref: JobRef & { status: 'completed' | 'failed' | 'killed'; error?: string; result?: unknown }): Promise<boolean> {
      return withTenant(db, ref.accountId, async (tx) => {
        const changed = await finishJob(tx, ref.jobId, ref.status, { error: ref.error, result: ref.result });
        if (changed) await appendLog(tx, ref.jobId, ref.status === 'completed' ? 'completed' : `${ref.status}${ref.error ? `: ${ref.error}` : ''}`, ref.status === 'completed' ? 'info' : 'error');
        return changed;
      });
    },

    /** The job row of a child step, written before the child workflow starts so it is listed at once. */
    async createChildJob(input: JobRef & { parentJobId: string; kind: string; step: string; pipelineId: number | null; scenarioId: number | null; segmentId: number | null; createdBy: string | null }): Promise<void> {
      await withTenant(db, input.accountId, async (tx) => {
        await insertJob(tx, {
          job_id: input.jobId, kind: input.kind, step: input.step, parent_job_id: input.parentJobId,
          pipeline_id: input.pipelineId, scenario_id: input.scenarioId, segment_id: input.segmentId, created_by: input.createdBy,
        });
      });
    },

    /** Concurrency and chunk size of a step: the request's n_workers wins over the tenant's pipeline parameters. */
    async stepSettings(input: { accountId: string; nWorkers?: number | null }): Promise<StepSettings> {
      const params = await withTenant(db, input.accountId, listTenantParameters);
      const get = (key: string, fallback: number) => Number(params.find((p) => p.parameter_type === 'pipeline' && p.key === key)?.value ?? fallback);
      return { nWorkers: input.nWorkers ?? get('n_workers', 2), chunkSize: get('chunk_size', 500) };
    },
  };
}

/** Heartbeats and stops at once when the job was killed: Temporal delivers cancellation through the heartbeat. */
export function checkpoint(details?: unknown): void {
  const ctx = Context.current();
  ctx.heartbeat(details);
  if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? new Error('cancelled');
}
