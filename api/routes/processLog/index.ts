import { logTail } from '../../../db/jobs';
import { listRuns, queryProcessLog, runSteps, stepNames } from '../../../db/processLog';
import { withTenant } from '../../../db/pool';
import { notFound } from '../../errors';
import { streamJobLogs } from '../../jobs/eventStream';
import { defineRoute, type RouteTable } from '../define';
import { jobOr404, jobView } from '../pipeline';
import { JOB_STATUSES, jobSchema, logLineSchema } from '../pipeline/schemas';
import { errors, int4, nullable, obj, out, skipParam } from '../schemas';

const entrySchema = { ...jobSchema, properties: { ...(jobSchema.properties as object), run_id: { type: 'string' }, duration_seconds: nullable({ type: 'number' }) } };
const page = { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 }, offset: skipParam };
const date = { type: 'string', format: 'date' };

export function registerProcessLogRoutes(table: RouteTable): void {
  const tag = 'process-log';

  defineRoute(table, {
    method: 'get', path: '/api/process-log', tag, needsCache: false,
    summary: 'Process log: every job and step, filtered, sorted and paginated',
    description: '`run_id` selects a run and its steps; `date_to` includes the whole day; each entry carries its `run_id` (the top-level job) and `duration_seconds`.',
    query: obj({
      ...page,
      step: { type: 'string', maxLength: 100 },
      status: { type: 'string', enum: JOB_STATUSES },
      run_id: { type: 'string', maxLength: 200 },
      date_from: date,
      date_to: date,
      pipeline_id: int4(1),
      scenario_id: int4(1),
      sort_by: { type: 'string', enum: ['created_at', 'started_at', 'finished_at', 'step', 'status', 'job_id', 'kind'], default: 'created_at' },
      sort_dir: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
    }),
    responses: { 200: { description: 'page', schema: out({ items: { type: 'array', items: entrySchema }, total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } }) }, ...errors(400) },
    handler: async (ctx, { query, user }) => {
      const { items, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => queryProcessLog(tx, query));
      return { items: items.map((r) => ({ ...jobView(r), run_id: r.run_id, duration_seconds: r.duration_seconds })), total, limit: query.limit, offset: query.offset };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/process-log/runs', tag, needsCache: false,
    summary: 'Runs (top-level jobs), newest first, with their step counts',
    query: obj(page),
    responses: {
      200: {
        description: 'runs',
        schema: { type: 'array', items: out({ run_id: { type: 'string' }, kind: { type: 'string' }, status: { type: 'string' }, step_count: { type: 'integer' }, failed_steps: { type: 'integer' }, created_at: { type: 'string' } }) },
      },
      ...errors(400),
    },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, (tx) => listRuns(tx, query.limit, query.offset)),
  });

  defineRoute(table, {
    method: 'get', path: '/api/process-log/step-names', tag, needsCache: false,
    summary: 'Distinct step names that appear in the log',
    responses: { 200: { description: 'names', schema: { type: 'array', items: { type: 'string' } } } },
    handler: (ctx, { user }) => withTenant(ctx.deps.db, user.accountId, stepNames),
  });

  defineRoute(table, {
    method: 'get', path: '/api/process-log/{run_id}/steps', tag, needsCache: false,
    summary: 'Steps of a run', description: 'Child steps in order (an allocation under its supply step included); a single-step run lists itself.',
    params: obj({ run_id: { type: 'string', minLength: 1, maxLength: 200 } }, ['run_id']),
    responses: { 200: { description: 'steps', schema: { type: 'array', items: entrySchema } }, ...errors(404) },
    handler: async (ctx, { params, user }) => {
      await jobOr404(ctx, user.accountId, params.run_id);
      const rows = await withTenant(ctx.deps.db, user.accountId, (tx) => runSteps(tx, params.run_id));
      return rows.map((r) => ({ ...jobView(r), run_id: r.run_id, duration_seconds: r.duration_seconds }));
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/process-log/step/{step_id}/tail', tag, needsCache: false,
    summary: 'Last log lines of one step (a job id)',
    params: obj({ step_id: { type: 'string', minLength: 1, maxLength: 200 } }, ['step_id']),
    query: obj({ limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } }),
    responses: { 200: { description: 'tail', schema: out({ step_id: { type: 'string' }, status: { type: 'string' }, lines: { type: 'array', items: logLineSchema } }) }, ...errors(400, 404) },
    handler: async (ctx, { params, query, user }) => {
      const job = await jobOr404(ctx, user.accountId, params.step_id).catch(() => {
        throw notFound(`Step ${params.step_id} not found`);
      });
      const lines = await withTenant(ctx.deps.db, user.accountId, (tx) => logTail(tx, job.job_id, query.limit));
      return { step_id: job.job_id, status: job.status, lines };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/process/stream/{run_id}', tag, eventStream: true, needsCache: false,
    summary: 'Live log of a run and its steps (Server-Sent Events)',
    description: 'Same events as /api/pipeline/jobs/{job_id}/stream, for a run id.',
    params: obj({ run_id: { type: 'string', minLength: 1, maxLength: 200 } }, ['run_id']),
    responses: { 200: { description: 'event stream', contentType: 'text/event-stream', schema: { type: 'string' } }, ...errors(404) },
    handler: async (ctx, { params, user }) => {
      await jobOr404(ctx, user.accountId, params.run_id);
      streamJobLogs(ctx, user.accountId, params.run_id);
    },
  });
}
