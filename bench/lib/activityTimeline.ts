/**
 * When each activity of a finished workflow (and of its child workflows) ran, and on which worker, read from the
 * Temporal history: how busy the worker processes were during a step, and how much of the wall time went to the tail
 * (one process still computing while the others wait) and to scheduling.
 */
import type { Client } from '@temporalio/client';

export interface ActivityRun {
  type: string;
  /** worker identity that ran the last attempt */
  identity: string;
  scheduled: number;
  started: number;
  ended: number;
}

export interface Timeline {
  activities: ActivityRun[];
  /** seconds from the first activity scheduled to the last one ended */
  span: number;
  /** per worker identity: seconds spent running activities of this type filter */
  busy: Record<string, number>;
  /** busy seconds ÷ (workers × span): 1 = every worker ran an activity all the time */
  utilisation: number;
  /** seconds between the first and the last worker finishing its last activity */
  tail: number;
  /** mean seconds from scheduled to started */
  queueWait: number;
  /** mean seconds a worker waited between the end of one activity and the start of its next one */
  gap: number;
}

const ms = (t: unknown): number => {
  if (!t) return NaN;
  const { seconds, nanos } = t as { seconds?: { toNumber?: () => number } | number | string; nanos?: number };
  const s = typeof seconds === 'object' && seconds && 'toNumber' in seconds && seconds.toNumber ? seconds.toNumber() : Number(seconds ?? 0);
  return s * 1000 + (nanos ?? 0) / 1e6;
};

async function collect(client: Client, workflowId: string, runId: string | undefined, out: ActivityRun[], depth: number): Promise<void> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const scheduled = new Map<number, { type: string; at: number }>();
  const started = new Map<number, { scheduledId: number; at: number; identity: string }>();
  for (const e of history.events ?? []) {
    const id = Number(e.eventId);
    const at = ms(e.eventTime);
    if (e.activityTaskScheduledEventAttributes) {
      scheduled.set(id, { type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?', at });
    } else if (e.activityTaskStartedEventAttributes) {
      const a = e.activityTaskStartedEventAttributes;
      started.set(id, { scheduledId: Number(a.scheduledEventId), at, identity: a.identity ?? '?' });
    } else if (e.activityTaskCompletedEventAttributes || e.activityTaskFailedEventAttributes) {
      const a = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes!;
      const st = started.get(Number(a.startedEventId));
      const sc = st && scheduled.get(st.scheduledId);
      if (st && sc) out.push({ type: sc.type, identity: st.identity, scheduled: sc.at, started: st.at, ended: at });
    } else if (e.childWorkflowExecutionStartedEventAttributes && depth < 3) {
      const w = e.childWorkflowExecutionStartedEventAttributes.workflowExecution;
      if (w?.workflowId) await collect(client, w.workflowId, w.runId ?? undefined, out, depth + 1);
    }
  }
}

/** The timeline of the activities whose type passes `keep` (default: every activity). */
export async function activityTimeline(client: Client, workflowId: string, keep: (type: string) => boolean = () => true): Promise<Timeline> {
  const all: ActivityRun[] = [];
  await collect(client, workflowId, undefined, all, 0);
  const activities = all.filter((a) => keep(a.type)).sort((a, b) => a.started - b.started);
  if (!activities.length) return { activities, span: 0, busy: {}, utilisation: NaN, tail: 0, queueWait: NaN, gap: NaN };
  const first = Math.min(...activities.map((a) => a.scheduled));
  const last = Math.max(...activities.map((a) => a.ended));
  const busy: Record<string, number> = {};
  const lastEnd: Record<string, number> = {};
  let gaps = 0;
  let gapCount = 0;
  for (const a of activities) {
    if (lastEnd[a.identity] !== undefined) {
      gaps += Math.max(0, a.started - lastEnd[a.identity]) / 1000;
      gapCount++;
    }
    busy[a.identity] = (busy[a.identity] ?? 0) + (a.ended - a.started) / 1000;
    lastEnd[a.identity] = Math.max(lastEnd[a.identity] ?? 0, a.ended);
  }
  const span = (last - first) / 1000;
  const workers = Object.keys(busy).length;
  const ends = Object.values(lastEnd);
  return {
    activities,
    span,
    busy,
    utilisation: span > 0 ? Object.values(busy).reduce((s, v) => s + v, 0) / (workers * span) : NaN,
    tail: (Math.max(...ends) - Math.min(...ends)) / 1000,
    queueWait: activities.reduce((s, a) => s + (a.started - a.scheduled), 0) / activities.length / 1000,
    gap: gapCount ? gaps / gapCount : 0,
  };
}
