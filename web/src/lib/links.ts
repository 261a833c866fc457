/**
 * Where a job is in the Temporal Web UI: a job's id is its workflow id (api/jobs/service.ts). The UI listens beside
 * the API on its own port (8233 in the local stack, TEMPORAL_UI_PORT); a deployment behind a proxy sets its own base.
 */
export function temporalRunUrl(jobId: string, opts: { protocol: string; hostname: string; uiPort?: number; namespace?: string; base?: string }): string {
  const base = opts.base ?? `${opts.protocol}//${opts.hostname}:${opts.uiPort ?? 8233}`;
  return `${base.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(opts.namespace ?? 'default')}/workflows/${encodeURIComponent(jobId)}`;
}
