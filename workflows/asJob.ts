import { CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
// Types only: the workflow bundle must not pull in slonik or node built-ins.
import type * as activities from '../activities';

/** The job row's bookkeeping: short, and retried often, so a job's state survives a brief database outage. */
export const bookkeeping = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10, initialInterval: '500 milliseconds' },
});

/** What a failed activity says: the cause Temporal wrapped it in, else the error itself. */
export const messageOf = (err: unknown): string => {
  const e = err as { cause?: { message?: string }; message?: string };
  return e?.cause?.message ?? e?.message ?? String(err);
};

/** Runs body as the job: running → completed, failed (with the error) or killed (on cancellation). */
export async function asJob<T>(ref: { accountId: string; jobId: string }, startMessage: string, body: () => Promise<T>): Promise<T> {
  await bookkeeping.jobStarted({ ...ref, message: startMessage });
  try {
    const result = await body();
    await bookkeeping.jobFinished({ ...ref, status: 'completed', result });
    return result;
  } catch (err) {
    const killed = isCancellation(err);
    await CancellationScope.nonCancellable(() =>
      bookkeeping.jobFinished({ ...ref, status: killed ? 'killed' : 'failed', error: killed ? 'killed on request' : messageOf(err) }),
    );
    throw err;
  }
}
