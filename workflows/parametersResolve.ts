import { proxyActivities } from '@temporalio/workflow';
// Types only: the workflow bundle must not pull in slonik or node built-ins.
import type * as activities from '../activities';
import { asJob, bookkeeping } from './asJob';

const work = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

export interface ParametersResolveInput {
  jobId: string;
  accountId: string;
  createdBy: string | null;
  nWorkers?: number | null;
}

export interface ParametersResolveResult {
  series: number;
  rows: number;
  chunks: number;
}

/**
 * POST /api/parameters/resolve for tenants with many series (job kind `parameters_resolve`): the series are cut into
 * chunks like a pipeline step, each chunk resolves its series through the one resolution function and replaces its
 * rows of series_parameter_assignment, at most n_workers chunks at a time.
 */
export async function parametersResolve(input: ParametersResolveInput): Promise<ParametersResolveResult> {
  const ref = { accountId: input.accountId, jobId: input.jobId };
  return asJob(ref, 'parameters: resolve started', async () => {
    const settings = await bookkeeping.stepSettings({ accountId: input.accountId, nWorkers: input.nWorkers });
    const plan = await work.parametersResolvePlan({ ...ref, chunkSize: settings.chunkSize });
    let next = 0;
    let done = 0;
    let series = 0;
    let rows = 0;
    const lane = async () => {
      while (next < plan.chunks.length) {
        const i = next;
        next += 1;
        const c = plan.chunks[i];
        const r = await work.parametersResolveChunk({ ...ref, from: c.from, to: c.to, index: i, of: plan.chunks.length });
        series += r.series;
        rows += r.rows;
        done += c.count;
        await bookkeeping.jobProgress({ ...ref, done, total: plan.total });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(settings.nWorkers, plan.chunks.length)) }, lane));
    await work.parametersResolveFinalize(ref);
    return { series, rows, chunks: plan.chunks.length };
  });
}
