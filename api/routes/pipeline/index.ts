import { childJobs, getJob, listActiveJobs, listJobs, logTail, type JobRow, type NewJob } from '../../../db/jobs';
import { listTenantParameters } from '../../../db/parameters';
import { getPipeline, touchPipelineRun } from '../../../db/pipelines';
import { withTenant } from '../../../db/pool';
import { getProcessWorkflow, touchLastRun } from '../../../db/processWorkflows';
import { getScenario } from '../../../db/scenarios';
import { getSupplyScenario } from '../../../db/supplyScenarios';
import { FORECAST_METHOD_NAMES } from '../../../domain/parameters/defaults';
import { PIPELINE_ORDER, STEPS } from '../../../lib/steps';
import type { AppContext, AuthUser } from '../../context';
import { badRequest, notFound } from '../../errors';
import { streamJobLogs } from '../../jobs/eventStream';
import { killJobs, newJobId, requireTemporal, resetStaleJobs, startJob, workflowState } from '../../jobs/service';
import { defineRoute, type RouteTable } from '../define';
import { errors, int4, obj, out, skipParam } from '../schemas';
import * as s from './schemas';

export const jobView = (j: JobRow, temporalStatus?: string) => ({
  job_id: j.job_id, kind: j.kind, step: j.step, status: j.status, parent_job_id: j.parent_job_id,
  pipeline_id: j.pipeline_id, scenario_id: j.scenario_id, segment_id: j.segment_id, progress: j.progress, error: j.error,
  created_by: j.created_by, created_at: j.created_at, started_at: j.started_at, finished_at: j.finished_at, heartbeat_at: j.heartbeat_at,
  ...(temporalStatus ? { temporal_status: temporalStatus } : {}),
});

export async function jobOr404(ctx: AppContext, accountId: string, jobId: string): Promise<JobRow> {
  const job = await withTenant(ctx.deps.db, accountId, (tx) => getJob(tx, jobId));
  if (!job) throw notFound(`Job ${jobId} not found`);
  return job;
}

/** Starts a job, or returns the existing one when the client repeats a request with the same run_id. */
export async function launch(ctx: AppContext, user: AuthUser, job: NewJob, workflow: string, args: unknown[], supplyScenarioId: number | null = null) {
  const existing = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
    const found = await getJob(tx, job.job_id);
    if (found) return found;
    if (job.pipeline_id && !(await getPipeline(tx, job.pipeline_id))) throw notFound(`pipeline_id: pipeline ${job.pipeline_id} not found`);
    if (job.scenario_id && !SUPPLY_STEPS.has(job.step ?? '') && !(await getScenario(tx, job.scenario_id))) throw notFound(`scenario_id: forecast scenario ${job.scenario_id} not found`);
    const supplyScenario = SUPPLY_STEPS.has(job.step ?? '') ? job.scenario_id : supplyScenarioId;
    if (supplyScenario && !(await getSupplyScenario(tx, supplyScenario))) {
      throw notFound(`${SUPPLY_STEPS.has(job.step ?? '') ? 'scenario_id' : 'supply_scenario_id'}: supply scenario ${supplyScenario} not found`);
    }
    return null;
  });
  if (existing) return { job_id: existing.job_id, step: existing.step, status: existing.status };
  const temporal = requireTemporal(ctx.deps.temporal);
  const row = await startJob(ctx.deps.db, temporal, user.accountId, job, workflow, args);
  if (job.pipeline_id) await withTenant(ctx.deps.db, user.accountId, (tx) => touchPipelineRun(tx, job.pipeline_id!));
  ctx.state.audit = { ...ctx.state.audit, entityId: row.job_id, newValue: { job_id: row.job_id, kind: row.kind, step: row.step, pipeline_id: row.pipeline_id } };
  return { job_id: row.job_id, step: row.step, status: 'queued' };
}

/** Steps whose `scenario_id` names a supply scenario (`/api/supply/scenarios`), not a forecast scenario. */
const SUPPLY_STEPS = new Set(['supply', 'allocation']);

// all_methods: every method the forecast step fits itself (the combination is built by best-method)
const ALL_FITTED_METHODS = FORECAST_METHOD_NAMES.filter((m) => m !== 'combination');

const jobInput = (user: AuthUser, jobId: string, b: { pipeline_id?: number; scenario_id?: number | null; segment_id?: number | null; n_workers?: number | null }) => ({
  jobId, accountId: user.accountId, pipelineId: b.pipeline_id ?? null, scenarioId: b.scenario_id ?? null, segmentId: b.segment_id ?? null,
  createdBy: user.email, nWorkers: b.n_workers ?? null,
});

export function registerPipelineControlRoutes(table: RouteTable): void {
  const tag = 'pipeline';

  defineRoute(table, {
    method: 'get', path: '/api/pipeline/steps', tag, needsCache: false,
    summary: 'Pipeline steps', description: 'The ten steps of the pipeline plus eoq and allocation. `available: false` steps fail their job with "step not available yet".',
    responses: { 200: { description: 'steps', schema: { type: 'array', items: out({ id: { type: 'string' }, label: { type: 'string' }, description: { type: 'string' }, available: { type: 'boolean' } }) } } },
    handler: () => STEPS.map((st) => ({ ...st })),
  });

  defineRoute(table, {
    method: 'post', path: '/api/pipeline/run/{step}', tag, permission: 'run_process', pipelineScoped: true, needsCache: false,
    summary: 'Run one pipeline step as a job',
    description: 'Starts workflow `runStep` (workflow id = job id, search attributes AccountId, PipelineId, ScenarioId, Step, JobKind) and answers at once with status queued. Follow it with GET /api/pipeline/jobs/{job_id} or its event stream. For the steps supply and allocation `scenario_id` is the supply scenario (`/api/supply/scenarios`; omitted: the default one), for the others the forecast scenario. A supply job brings its allocation as a child job.',
    params: s.stepParam, body: s.runStepBody, audit: { entityType: 'job', action: 'run_step' },
    responses: { 200: { description: 'job started', schema: s.startedSchema }, ...errors(400, 403, 404, 503) },
    handler: (ctx, { params, body, user }) => {
      const jobId = body.run_id ?? newJobId(params.step);
      return launch(ctx, user, {
        job_id: jobId, kind: 'step', step: params.step, pipeline_id: body.pipeline_id, scenario_id: body.scenario_id ?? null,
        segment_id: body.segment_id ?? null, created_by: user.email,
        params: { force: body.force, best_method_only: body.best_method_only, force_full_run: body.force_full_run, n_workers: body.n_workers ?? null },
      }, 'runStep', [{
        ...jobInput(user, jobId, body), step: params.step,
        ...(SUPPLY_STEPS.has(params.step) ? { scenarioId: null, supplyScenarioId: body.scenario_id ?? null } : {}),
      }]);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/pipeline/run-all', tag, permission: 'run_process', pipelineScoped: true, needsCache: false,
    summary: 'Run every pipeline step in order',
    description: `Runs ${PIPELINE_ORDER.join(', ')} as child jobs of one run; supply is followed by a child allocation logged under the supply job. The run stops at the first failing step. \`scenario_id\` is the forecast scenario; \`supply_scenario_id\` (not in the spec) picks the supply scenario of the supply step (omitted: the default one); \`service_backtest: true\` (not in the spec) adds the service-backtest step at the end.`,
    body: s.runAllBody, audit: { entityType: 'job', action: 'run_all' },
    responses: { 200: { description: 'run started', schema: s.startedSchema }, ...errors(400, 403, 404, 503) },
    handler: (ctx, { body, user }) => {
      const jobId = body.run_id ?? newJobId('run-all');
      const steps: string[] = body.service_backtest ? [...PIPELINE_ORDER, 'service-backtest'] : [...PIPELINE_ORDER];
      return launch(ctx, user, {
        job_id: jobId, kind: 'run_all', pipeline_id: body.pipeline_id, scenario_id: body.scenario_id ?? null, segment_id: body.segment_id ?? null,
        created_by: user.email, params: { steps, supply_scenario_id: body.supply_scenario_id ?? null },
      }, 'runSequence', [{ ...jobInput(user, jobId, body), steps, kind: 'run_all', supplyScenarioId: body.supply_scenario_id ?? null }], body.supply_scenario_id ?? null);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/pipeline/run-forecast', tag, permission: 'run_process', pipelineScoped: true, needsCache: false,
    summary: 'Forecast a list of series with chosen methods',
    description: '`series` are unique ids; `methods` (or `all_methods`) choose the methods. Runs the forecast step for those series only.',
    body: s.runForecastBody, audit: { entityType: 'job', action: 'run_forecast' },
    responses: { 200: { description: 'job started', schema: s.startedSchema }, ...errors(400, 403, 404, 503) },
    handler: (ctx, { body, user }) => {
      const jobId = body.run_id ?? newJobId('forecast');
      return launch(ctx, user, {
        job_id: jobId, kind: 'run_forecast', step: 'forecast', pipeline_id: body.pipeline_id, scenario_id: body.scenario_id ?? null, created_by: user.email,
        params: { series: body.series, methods: body.methods ?? [], all_methods: body.all_methods },
      }, 'runStep', [{ ...jobInput(user, jobId, body), step: 'forecast', series: body.series, methods: body.all_methods ? ALL_FITTED_METHODS : (body.methods?.length ? body.methods : null) }]);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/process-workflows/{workflow_id}/run', tag: 'process-workflows', permission: 'run_process', needsCache: false,
    summary: 'Run a saved process workflow',
    description: "Runs the workflow's steps in order as child jobs of one run (kind process_workflow) on its scenario pipeline, with its segments and per-step worker counts, and sets `last_run_at`. Not in the spec; the saved workflows are not useful without it.",
    params: obj({ workflow_id: { type: 'integer', minimum: 1, maximum: 2147483647 } }, ['workflow_id']),
    body: obj({ run_id: s.runAllBody.properties && (s.runAllBody.properties as any).run_id, scenario_id: { anyOf: [int4(1), { type: 'null' }] } }),
    audit: { entityType: 'process_workflow', action: 'run' },
    responses: { 200: { description: 'run started', schema: s.startedSchema }, ...errors(400, 403, 404, 503) },
    handler: async (ctx, { params, body, user }) => {
      const wf = await withTenant(ctx.deps.db, user.accountId, (tx) => getProcessWorkflow(tx, params.workflow_id));
      if (!wf) throw notFound(`Process workflow ${params.workflow_id} not found`);
      if (!wf.scenario_pipeline_id) throw badRequest(`Process workflow ${wf.workflow_id} has no scenario_pipeline_id; set one before running it`);
      const jobId = body.run_id ?? newJobId('workflow');
      const started = await launch(ctx, user, {
        job_id: jobId, kind: 'process_workflow', pipeline_id: wf.scenario_pipeline_id, scenario_id: body.scenario_id ?? null, created_by: user.email,
        params: { workflow_id: wf.workflow_id, name: wf.name, steps: wf.steps, segment_ids: wf.segment_ids, step_workers: wf.step_workers },
      }, 'runSequence', [{
        ...jobInput(user, jobId, { pipeline_id: wf.scenario_pipeline_id, scenario_id: body.scenario_id ?? null, segment_id: wf.segment_ids.length === 1 ? wf.segment_ids[0] : null }),
        steps: wf.steps, stepWorkers: wf.step_workers, kind: 'process_workflow',
      }]);
      await withTenant(ctx.deps.db, user.accountId, (tx) => touchLastRun(tx, wf.workflow_id));
      ctx.state.audit = { ...ctx.state.audit, entityId: wf.workflow_id };
      return started;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/pipeline/jobs', tag, needsCache: false,
    summary: "The account's jobs, newest first",
    description: 'Job rows of this account joined with their execution status from Temporal visibility (query `AccountId = <account>`).',
    query: obj({ limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, offset: skipParam, status: { type: 'string', enum: s.JOB_STATUSES } }),
    responses: { 200: { description: 'jobs', schema: { type: 'array', items: s.jobSchema } }, ...errors(400) },
    handler: async (ctx, { query, user }) => {
      const rows = await withTenant(ctx.deps.db, user.accountId, (tx) => listJobs(tx, query));
      const states = new Map<string, string>();
      if (ctx.deps.temporal && rows.length) {
        try {
          const listing = ctx.deps.temporal.client.workflow.list({ query: `AccountId = '${user.accountId}'`, pageSize: 1000 });
          let seen = 0;
          for await (const wf of listing) {
            states.set(wf.workflowId, wf.status.name);
            if ((seen += 1) >= query.limit + query.offset + 500) break;
          }
        } catch {
          // visibility unavailable: the rows alone still answer
        }
      }
      return rows.map((r) => jobView(r, states.get(r.job_id)));
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/pipeline/jobs/{job_id}', tag, needsCache: false,
    summary: 'One job: status, timestamps, error, child steps and the log tail',
    params: s.jobIdParam, query: obj({ log_limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } }),
    responses: { 200: { description: 'job', schema: s.jobDetailSchema }, ...errors(404) },
    handler: async (ctx, { params, query, user }) => {
      const job = await jobOr404(ctx, user.accountId, params.job_id);
      const [log, children] = await withTenant(ctx.deps.db, user.accountId, async (tx) => [await logTail(tx, job.job_id, query.log_limit), await childJobs(tx, job.job_id)] as const);
      let temporalStatus: string | undefined;
      if (ctx.deps.temporal) {
        temporalStatus = await workflowState(ctx.deps.temporal.client, job.job_id).catch(() => undefined);
      }
      return { ...jobView(job, temporalStatus), params: job.params, result: job.result, log, children: children.map((c) => jobView(c)) };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/pipeline/jobs/{job_id}/kill', tag, permission: 'run_process', needsCache: false,
    summary: 'Kill a job',
    description: 'Cancels the workflow: running activities stop at their next heartbeat and the job becomes `killed`. Whatever still runs after the grace period is terminated. Killing a finished job changes nothing and returns its status.',
    params: s.jobIdParam, audit: { entityType: 'job', action: 'kill' },
    responses: { 200: { description: 'resulting status', schema: out({ job_id: { type: 'string' }, status: { type: 'string' } }) }, ...errors(403, 404, 503) },
    handler: async (ctx, { params, user }) => {
      const job = await jobOr404(ctx, user.accountId, params.job_id);
      ctx.state.audit = { ...ctx.state.audit, entityId: job.job_id, oldValue: { status: job.status } };
      if (job.status !== 'queued' && job.status !== 'running') return { job_id: job.job_id, status: job.status };
      const result = await killJobs(ctx.deps.db, requireTemporal(ctx.deps.temporal), user.accountId, [job.job_id]);
      return { job_id: job.job_id, status: result[job.job_id] };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/pipeline/jobs/kill-all', tag, permission: 'run_process', needsCache: false,
    summary: "Kill every queued or running job of the caller's account",
    audit: { entityType: 'job', action: 'kill_all' },
    responses: { 200: { description: 'killed jobs', schema: out({ killed: { type: 'array', items: out({ job_id: { type: 'string' }, status: { type: 'string' } }) } }) }, ...errors(403, 503) },
    handler: async (ctx, { user }) => {
      const active = await withTenant(ctx.deps.db, user.accountId, listActiveJobs);
      const topLevel = active.filter((j) => !j.parent_job_id || !active.some((p) => p.job_id === j.parent_job_id));
      if (!topLevel.length) return { killed: [] };
      const result = await killJobs(ctx.deps.db, requireTemporal(ctx.deps.temporal), user.accountId, topLevel.map((j) => j.job_id));
      ctx.state.audit = { ...ctx.state.audit, entityId: null, newValue: result };
      return { killed: Object.entries(result).map(([job_id, status]) => ({ job_id, status })) };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/pipeline/jobs/reset', tag, permission: 'run_process', needsCache: false,
    summary: 'Fail stale and zombie jobs',
    description: 'Queued or running jobs whose workflow is closed or unknown to Temporal, or that have not heartbeated for `pipeline.stale_job_minutes`, become `failed` (a stale workflow is terminated). Healthy running jobs are untouched.',
    audit: { entityType: 'job', action: 'reset' },
    responses: { 200: { description: 'jobs reset', schema: out({ reset: { type: 'array', items: out({ job_id: { type: 'string' }, reason: { type: 'string' } }) } }) }, ...errors(403, 503) },
    handler: async (ctx, { user }) => {
      const params = await withTenant(ctx.deps.db, user.accountId, listTenantParameters);
      const stale = Number(params.find((p) => p.parameter_type === 'pipeline' && p.key === 'stale_job_minutes')?.value ?? 30);
      const reset = await resetStaleJobs(ctx.deps.db, requireTemporal(ctx.deps.temporal), user.accountId, stale);
      ctx.state.audit = { ...ctx.state.audit, entityId: null, newValue: reset };
      return { reset };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/pipeline/jobs/{job_id}/stream', tag, eventStream: true, needsCache: false,
    summary: 'Live log of a job (Server-Sent Events)',
    description: 'One `event: log` per log line (data: {id, job_id, ts, level, message}; `id:` is the line id, so `Last-Event-ID` resumes), lines of child steps included; a final `event: end` (data: {job_id, status, error}) when the job has ended, then the stream closes. `?token=` may carry the access token.',
    params: s.jobIdParam,
    responses: { 200: { description: 'event stream', contentType: 'text/event-stream', schema: { type: 'string' } }, ...errors(404) },
    handler: async (ctx, { params, user }) => {
      await jobOr404(ctx, user.accountId, params.job_id);
      streamJobLogs(ctx, user.accountId, params.job_id);
    },
  });
}
