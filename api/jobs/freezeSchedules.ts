/**
 * The weekly freeze of a pipeline as a Temporal Schedule (docs/HISTORY.md "The weekly schedule"): one schedule per
 * pipeline, id `freeze-<account>-<pipeline>`, firing every Monday at the pipeline's hour in its time zone and starting
 * workflow freezePipeline with source 'schedule'. It shows, and can be paused, in the Temporal UI.
 *
 * Catch-up policy: when the server was down at the firing time, the missed Monday's freeze still runs when it comes
 * back within CATCHUP_WINDOW (the version is of the planning week, so a late freeze is still the right one); later
 * than that it is skipped and counted in the schedule's missed-catchup figure. Overlap: SKIP, a freeze still running
 * is not started twice.
 */
import type { Client } from '@temporalio/client';
import { isTemporalError } from './temporalErrors';
import type { FreezeWorkflowInput } from '../../workflows/history';

export const CATCHUP_WINDOW = '2 days';

export const freezeScheduleId = (accountId: string, pipelineId: number) => `freeze-${accountId}-${pipelineId}`;

export interface ScheduleSettings {
  timezone: string;
  hour: number;
}

export interface FreezeScheduleView {
  schedule_id: string;
  exists: boolean;
  paused: boolean;
  note: string | null;
  timezone: string | null;
  hour: number | null;
  next_runs: string[];
  recent_runs: Array<{ scheduled_at: string; started_at: string; workflow_id: string }>;
  actions_taken: number;
  missed_catchup: number;
  catchup_window: string;
}

function spec(s: ScheduleSettings) {
  return { calendars: [{ dayOfWeek: 'MONDAY' as const, hour: s.hour, minute: 0 }], timezone: s.timezone };
}

/** Creates the pipeline's schedule, or brings an existing one to these settings (idempotent). */
export async function ensureFreezeSchedule(client: Client, taskQueue: string, accountId: string, pipelineId: number, s: ScheduleSettings): Promise<void> {
  const scheduleId = freezeScheduleId(accountId, pipelineId);
  const args: [FreezeWorkflowInput] = [{ accountId, pipelineId, source: 'schedule', createdBy: 'schedule', comment: 'weekly freeze' }];
  const action = { type: 'startWorkflow' as const, workflowType: 'freezePipeline', args, taskQueue, workflowId: `${scheduleId}-run` };
  const handle = client.schedule.getHandle(scheduleId);
  try {
    await handle.update((prev) => ({ ...prev, spec: spec(s), action, policies: { ...prev.policies, overlap: 'SKIP', catchupWindow: CATCHUP_WINDOW } }));
  } catch (err) {
    if (!isTemporalError(err, 'ScheduleNotFoundError')) throw err;
    await client.schedule.create({
      scheduleId, spec: spec(s), action,
      policies: { overlap: 'SKIP', catchupWindow: CATCHUP_WINDOW },
      state: { note: `weekly freeze of pipeline ${pipelineId}` },
    });
  }
}

export async function deleteFreezeSchedule(client: Client, accountId: string, pipelineId: number): Promise<boolean> {
  try {
    await client.schedule.getHandle(freezeScheduleId(accountId, pipelineId)).delete();
    return true;
  } catch (err) {
    if (isTemporalError(err, 'ScheduleNotFoundError')) return false;
    throw err;
  }
}

export async function describeFreezeSchedule(client: Client, accountId: string, pipelineId: number): Promise<FreezeScheduleView> {
  const scheduleId = freezeScheduleId(accountId, pipelineId);
  try {
    const d = await client.schedule.getHandle(scheduleId).describe();
    const cal = d.spec.calendars?.[0];
    const hour = cal?.hour?.[0]?.start ?? null;
    return {
      schedule_id: scheduleId, exists: true, paused: d.state.paused, note: d.state.note ?? null, timezone: d.spec.timezone ?? null,
      hour: typeof hour === 'number' ? hour : null,
      next_runs: d.info.nextActionTimes.map((t) => t.toISOString()),
      recent_runs: d.info.recentActions.map((a) => ({
        scheduled_at: a.scheduledAt.toISOString(), started_at: a.takenAt.toISOString(), workflow_id: a.action.workflow.workflowId,
      })),
      actions_taken: d.info.numActionsTaken, missed_catchup: d.info.numActionsMissedCatchupWindow, catchup_window: CATCHUP_WINDOW,
    };
  } catch (err) {
    if (!isTemporalError(err, 'ScheduleNotFoundError')) throw err;
    return {
      schedule_id: scheduleId, exists: false, paused: false, note: null, timezone: null, hour: null, next_runs: [], recent_runs: [],
      actions_taken: 0, missed_catchup: 0, catchup_window: CATCHUP_WINDOW,
    };
  }
}

/** Pause, resume or fire now; false when the pipeline has no schedule. */
export async function controlFreezeSchedule(client: Client, accountId: string, pipelineId: number, action: 'pause' | 'resume' | 'trigger', note?: string): Promise<boolean> {
  const handle = client.schedule.getHandle(freezeScheduleId(accountId, pipelineId));
  try {
    if (action === 'pause') await handle.pause(note ?? 'paused through the API');
    else if (action === 'resume') await handle.unpause(note ?? 'resumed through the API');
    // a manual trigger is a deliberate extra freeze: it runs even while another is running (it waits on the lock)
    else await handle.trigger('ALLOW_ALL');
    return true;
  } catch (err) {
    if (isTemporalError(err, 'ScheduleNotFoundError')) return false;
    throw err;
  }
}
