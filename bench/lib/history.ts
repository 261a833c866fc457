/**
 * Where a workflow's time went, read from its Temporal history: per activity, the time from scheduled to started
 * (waiting for a worker slot) and from started to completed (running). Log lines written inside a transaction carry
 * the transaction's start time (now()), so the history is the only reliable clock for activities.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

export interface ActivitySpan {
  type: string;
  /** the first argument, decoded (our activities take one JSON object) */
  input: Record<string, unknown>;
  scheduled: number;
  started: number;
  closed: number;
  attempt: number;
  /** why the previous attempt failed, when this is a retry */
  lastFailure?: string;
  /** why the activity failed for good (timed out or failed after its last attempt) */
  failure?: string;
  outcome: 'completed' | 'failed' | 'timed_out' | 'canceled' | 'open';
}

export interface HistorySummary {
  workflowStart: number;
  workflowEnd: number;
  activities: ActivitySpan[];
  /** workflow tasks: count and summed started→completed time */
  workflowTasks: { count: number; seconds: number };
  events: number;
}

/** A failure's message, its timeout type and the messages of its causes. */
function failureText(f: temporal.api.failure.v1.IFailure): string {
  const parts: string[] = [];
  for (let c: temporal.api.failure.v1.IFailure | null | undefined = f, i = 0; c && i < 4; c = c.cause, i += 1) {
    const timeout = c.timeoutFailureInfo ? ` (${temporal.api.enums.v1.TimeoutType[c.timeoutFailureInfo.timeoutType ?? 0]})` : '';
    if (c.message) parts.push(`${c.message}${timeout}`);
  }
  return parts.join(': ');
}

const num = (v: unknown): number => (v === null || v === undefined ? NaN : Number(v));

function decodeFirst(payloads: Array<{ data?: Uint8Array | null }> | null | undefined): Record<string, unknown> {
  const data = payloads?.[0]?.data;
  if (!data) return {};
  try {
    return JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export async function summarizeHistory(client: Client, workflowId: string): Promise<HistorySummary> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const spans = new Map<number, ActivitySpan>();
  const wfTaskStarted = new Map<number, number>();
  const workflowTasks = { count: 0, seconds: 0 };
  let workflowStart = NaN;
  let workflowEnd = NaN;
  for (const e of events) {
    const t = tsToMs(e.eventTime);
    const id = num(e.eventId);
    if (Number.isNaN(workflowStart)) workflowStart = t;
    workflowEnd = t;
    if (e.activityTaskScheduledEventAttributes) {
      const a = e.activityTaskScheduledEventAttributes;
      spans.set(id, { type: a.activityType?.name ?? '?', input: decodeFirst(a.input?.payloads), scheduled: t, started: NaN, closed: NaN, attempt: 1, outcome: 'open' });
    } else if (e.activityTaskStartedEventAttributes) {
      const a = e.activityTaskStartedEventAttributes;
      const s = spans.get(num(a.scheduledEventId));
      if (s) {
        s.started = t;
        s.attempt = a.attempt ?? 1;
        if (a.lastFailure) s.lastFailure = failureText(a.lastFailure);
      }
    } else {
      const closed: Array<[ActivitySpan['outcome'], { scheduledEventId?: unknown; failure?: temporal.api.failure.v1.IFailure | null } | null | undefined]> = [
        ['completed', e.activityTaskCompletedEventAttributes],
        ['failed', e.activityTaskFailedEventAttributes],
        ['timed_out', e.activityTaskTimedOutEventAttributes],
        ['canceled', e.activityTaskCanceledEventAttributes],
      ];
      for (const [outcome, attrs] of closed) {
        if (!attrs) continue;
        const s = spans.get(num(attrs.scheduledEventId));
        if (s) {
          s.closed = t;
          s.outcome = outcome;
          if (attrs.failure) s.failure = failureText(attrs.failure);
          // the started event of a retried activity is written only when it closes, with the last attempt's time
        }
      }
      if (e.workflowTaskStartedEventAttributes) wfTaskStarted.set(id, t);
      if (e.workflowTaskCompletedEventAttributes) {
        const started = wfTaskStarted.get(num(e.workflowTaskCompletedEventAttributes.startedEventId));
        workflowTasks.count += 1;
        if (started !== undefined) workflowTasks.seconds += (t - started) / 1000;
      }
    }
  }
  return { workflowStart, workflowEnd, activities: [...spans.values()], workflowTasks, events: events.length };
}

export interface ActivityStats {
  count: number;
  /** summed running time (started → closed), seconds */
  runSeconds: number;
  /** summed wait for a worker slot (scheduled → started), seconds */
  waitSeconds: number;
  maxRunSeconds: number;
  /** from the first scheduled to the last closed, seconds */
  wallSeconds: number;
  retries: number;
  /** the reasons of the retried attempts */
  retryReasons: string[];
  /** activities that failed for good, with the reason */
  failures: string[];
}

export function statsOf(spans: ActivitySpan[]): ActivityStats {
  const run = spans.map((s) => (s.closed - s.started) / 1000).filter(Number.isFinite);
  const wait = spans.map((s) => (s.started - s.scheduled) / 1000).filter(Number.isFinite);
  return {
    count: spans.length,
    runSeconds: run.reduce((a, b) => a + b, 0),
    waitSeconds: wait.reduce((a, b) => a + b, 0),
    maxRunSeconds: run.length ? Math.max(...run) : NaN,
    wallSeconds: spans.length ? (Math.max(...spans.map((s) => s.closed)) - Math.min(...spans.map((s) => s.scheduled))) / 1000 : NaN,
    retries: spans.filter((s) => s.attempt > 1).length,
    retryReasons: spans.filter((s) => s.attempt > 1).map((s) => `${s.type} attempt ${s.attempt}: ${s.lastFailure ?? '?'}`),
    failures: spans.filter((s) => s.failure).map((s) => `${s.type} ${s.outcome} after ${s.attempt} attempt(s): ${s.failure}`),
  };
}
