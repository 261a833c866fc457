/** Following a benchmark's workflows to their end, shared by bench:etl and bench:forecast. */
import { setMaxListeners } from 'node:events';
import { WorkflowFailedError } from '@temporalio/client';
import { getJob } from '../../db/jobs';
import { sql, withTenant } from '../../db/pool';
import { memStatus, mib } from './proc';
import { fixed } from './report';
import type { BenchStack, WorkerProcess } from './stack';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Outcome<T> = { ok: true; result: T } | { ok: false; error: string };

/** Follows a workflow to its end, logging the job's progress and the worker's RSS every 15 s. A failed workflow is an outcome, a dead worker an error. */
export async function followWorkflow<T>(stack: BenchStack, worker: WorkerProcess, accountId: string, jobId: string, log: (m: string) => void): Promise<Outcome<T>> {
  let settled = false;
  const watch = (async () => {
    let last = Date.now();
    while (!settled) {
      await sleep(500);
      if (settled || Date.now() - last < 15_000) continue;
      last = Date.now();
      const [job, line] = await withTenant(stack.db, accountId, async (tx) => [
        await getJob(tx, jobId),
        (await tx.maybeOneFirst(sql.unsafe`SELECT message FROM job_logs WHERE job_id = ${jobId} ORDER BY id DESC LIMIT 1`)) as string | null,
      ] as const).catch(() => [null, null] as const);
      const p = job?.progress ?? {};
      log(`  … ${job?.status ?? '?'}${p.total ? ` ${p.done ?? 0}/${p.total}` : ''}, worker RSS ${fixed(mib(memStatus(worker.pid)?.rss ?? NaN), 0)} MiB; ${line ?? ''}`);
    }
  })();
  const died = new Promise<never>((_, reject) => worker.child.once('exit', (code, signal) => reject(new Error(`the worker exited (${signal ?? code}) during ${jobId}:\n${worker.tail()}`))));
  // the long poll for the result is aborted when we stop waiting, so it never outlives the Temporal connection
  const done = new AbortController();
  const signal = AbortSignal.any([done.signal, stack.signal]);
  // every long poll of result() adds a listener to the signal; a long import makes more than Node's default 10
  setMaxListeners(1000, signal);
  const poll = stack.client.withAbortSignal(signal, () => stack.client.workflow.getHandle(jobId).result());
  poll.catch(() => undefined);
  try {
    return { ok: true, result: (await Promise.race([poll, died])) as T };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const job = await withTenant(stack.db, accountId, (tx) => getJob(tx, jobId));
    const causes: string[] = [];
    for (let c: unknown = err.cause, i = 0; c && i < 4; c = (c as { cause?: unknown }).cause, i += 1) causes.push((c as Error).message);
    return { ok: false, error: `job ${job?.status ?? '?'}: ${job?.error ?? causes.join(': ')}` };
  } finally {
    done.abort();
    settled = true;
    died.catch(() => undefined);
    await watch;
  }
}
