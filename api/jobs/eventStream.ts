import { PassThrough } from 'node:stream';
import { getJob, TERMINAL, treeLogsAfter } from '../../db/jobs';
import { tenantSchemaName, withTenant } from '../../db/pool';
import type { AppContext } from '../context';

const POLL_MS = 2000;
const KEEPALIVE_MS = 15000;

/**
 * Server-Sent Events of a job's log lines (and those of its child steps): `event: log` with the line as JSON, one per
 * line, `id:` = line id so `Last-Event-ID` resumes; `event: end` with the final status, then the stream closes.
 */
export function streamJobLogs(ctx: AppContext, accountId: string, jobId: string): void {
  const { db, notifications } = ctx.deps;
  const schema = tenantSchemaName(accountId);
  const stream = new PassThrough();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  ctx.status = 200;
  ctx.body = stream;

  let lastId = Number(ctx.get('Last-Event-ID')) || 0;
  let closed = false;
  let wake: (() => void) | undefined;
  const nudge = () => wake?.();
  ctx.req.on('close', () => {
    closed = true;
    nudge();
  });

  void (async () => {
    const unsubscribe = await notifications.subscribe((n) => {
      if (n.schema === schema) nudge();
    });
    let lastWrite = Date.now();
    try {
      stream.write(`retry: 3000\n\n`);
      while (!closed) {
        const { lines, job } = await withTenant(db, accountId, async (tx) => ({ lines: await treeLogsAfter(tx, jobId, lastId), job: await getJob(tx, jobId) }));
        for (const line of lines) {
          stream.write(`id: ${line.id}\nevent: log\ndata: ${JSON.stringify(line)}\n\n`);
          lastId = line.id;
          lastWrite = Date.now();
        }
        if (!job || (TERMINAL.includes(job.status) && lines.length === 0)) {
          stream.write(`event: end\ndata: ${JSON.stringify({ job_id: jobId, status: job?.status ?? 'unknown', error: job?.error ?? null })}\n\n`);
          break;
        }
        if (Date.now() - lastWrite > KEEPALIVE_MS) {
          stream.write(': keep-alive\n\n');
          lastWrite = Date.now();
        }
        if (lines.length < 1000) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, POLL_MS);
          });
        }
      }
    } catch {
      stream.write(`event: error\ndata: ${JSON.stringify({ detail: 'log stream interrupted' })}\n\n`);
    } finally {
      unsubscribe();
      stream.end();
    }
  })();
}
