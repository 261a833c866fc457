/**
 * The API's permission model (api/routes/define.ts checkPermission, docs/API.md) as the workbench needs it: what a
 * user may not do is not offered. The API refuses it all the same; this only keeps buttons from promising it.
 */
export type Permission = 'public' | 'user' | 'admin' | 'superadmin' | 'run_process' | 'create_override';

export interface Caller {
  role: 'admin' | 'user' | 'superadmin';
  is_superadmin?: boolean;
  can_run_process?: boolean;
  can_create_override?: boolean;
  allowed_segments?: number[];
}

export const isAdmin = (u: Caller): boolean => u.role === 'admin' || u.role === 'superadmin';

export function may(u: Caller | null | undefined, permission: Permission): boolean {
  if (permission === 'public') return true;
  if (!u) return false;
  switch (permission) {
    case 'user':
      return true;
    case 'admin':
      return isAdmin(u);
    case 'superadmin':
      return u.is_superadmin === true;
    case 'run_process':
      return isAdmin(u) || u.can_run_process === true;
    case 'create_override':
      return isAdmin(u) || u.can_create_override === true;
  }
}

/**
 * The workbench's actions and the route each one calls; test/web/permissions.test.ts checks every entry against
 * the permission the API's route table declares, so a route whose rule changes cannot leave a button behind.
 */
export const ACTIONS = {
  startRun: { route: 'POST /api/pipeline/run-all', permission: 'run_process' },
  startStep: { route: 'POST /api/pipeline/run/{step}', permission: 'run_process' },
  killJob: { route: 'POST /api/pipeline/jobs/{job_id}/kill', permission: 'run_process' },
  resetJobs: { route: 'POST /api/pipeline/jobs/reset', permission: 'run_process' },
  freeze: { route: 'POST /api/history/freeze', permission: 'run_process' },
  adjustDemand: { route: 'POST /api/adjustments/{unique_id}', permission: 'create_override' },
  lockMethod: { route: 'PUT /api/series/{unique_id}/locked-method', permission: 'create_override' },
  setExceptionStatus: { route: 'PATCH /api/exception-log/{exception_id}/status', permission: 'user' },
  decideAlert: { route: 'POST /api/alerts/{alert_id}/approve', permission: 'user' },
  askAssistant: { route: 'POST /api/assistant/chat', permission: 'user' },
} as const satisfies Record<string, { route: string; permission: Permission }>;

export type Action = keyof typeof ACTIONS;

export const mayDo = (u: Caller | null | undefined, action: Action): boolean => may(u, ACTIONS[action].permission);

/** A user with allowed_segments sees only those; an empty list means no limit (docs/API.md, segment scoping). */
export function visibleSegments<T extends { id: number }>(u: Caller, segments: readonly T[]): T[] {
  const allowed = u.allowed_segments ?? [];
  if (isAdmin(u) || allowed.length === 0) return [...segments];
  return segments.filter((s) => allowed.includes(s.id));
}

export const segmentLimited = (u: Caller): boolean => !isAdmin(u) && (u.allowed_segments ?? []).length > 0;
