import {
  exceptionLogPage, forecastDetail, getExceptionLogRow, ioDetail, listExceptionLog, preloadFacts, setExceptionStatus, supplyDetail, type ExceptionLogRow,
} from '../../../db/exceptionLog';
import { addExceptionComment, listExceptionComments } from '../../../db/exceptionComments';
import { getPipeline } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import { latestSupplyRun } from '../../../db/supplyReads';
import { defaultSupplyScenarioId } from '../../../db/supplyScenarios';
import { parseTypes } from '../../../domain/exceptions/rules';
import type { ExceptionLogWorkflowInput } from '../../../workflows/exceptionLog';
import { badRequest, notFound } from '../../errors';
import { answerKey } from '../../planReads';
import { newJobId, requireTemporal, startJob } from '../../jobs/service';
import { defineRoute, type RouteTable } from '../define';
import { errors, int4, nullable, obj, out } from '../schemas';
import { requireViewableSegment, visibleSeries } from '../segments/access';

const STATUSES = ['open', 'resolved', 'snoozed'];
const RULES = 'Rules and thresholds: docs/EXCEPTIONS.md.';
const DAY_MS = 86_400_000;

const issueSchema = out({ type: { type: 'string' }, severity: { type: 'string' }, description: { type: 'string' } });
const itemSchema = out({
  id: { type: 'integer' }, pipeline_id: { type: 'integer' }, item_id: { type: 'integer' }, site_id: { type: 'integer' },
  exception_types: { type: 'array', items: { type: 'string' } }, issues: { type: 'array', items: issueSchema },
  status: { type: 'string', enum: STATUSES }, snoozed_until: { type: ['string', 'null'] },
  item_name: { type: 'string' }, item_code: { type: 'string' }, site_name: { type: 'string' }, unique_id: { type: 'string' },
});
const view = (r: ExceptionLogRow) => ({
  id: r.id, pipeline_id: r.pipeline_id, item_id: r.item_id, site_id: r.site_id, exception_types: r.exception_types, issues: r.issues,
  status: r.status, snoozed_until: r.snoozed_until, item_name: r.item_name, item_code: r.item_code, site_name: r.site_name, unique_id: r.unique_id,
});

const COMMENT_MAX = 2000;
const COMMENTS = 'Comments are an extra beyond the spec (the workbench\'s work queue): a history per row, oldest first, each with its author and time; '
  + 'they need the row\'s series in your segments (403 otherwise).';
const commentText = (description: string) => ({ type: 'string', minLength: 1, maxLength: COMMENT_MAX, pattern: '\\S', description });
const commentSchema = out({
  id: { type: 'integer' }, exception_id: { type: 'integer' }, author: { type: 'string' }, comment: { type: 'string' },
  status: { ...nullable({ type: 'string', enum: STATUSES }), description: 'the status set with this comment; null for a comment alone' }, created_at: { type: 'string', format: 'date-time' },
});

const pipelineParam = { ...int4(1), description: 'the pipeline (required)' };
const exceptionParams = obj({ exception_id: { ...int4(1), description: 'exception-log row id' } }, ['exception_id']);

async function pipelineOr404(tx: Tx, id: number): Promise<void> {
  if (!(await getPipeline(tx, id))) throw notFound(`pipeline_id: pipeline ${id} not found`);
}

async function rowOr404(tx: Tx, id: number): Promise<ExceptionLogRow> {
  const row = await getExceptionLogRow(tx, id);
  if (!row) throw notFound(`exception_id: exception-log row ${id} not found`);
  return row;
}

/** Comma list of positive int4 ids; the 400 names the field and the bad entry. */
/** An int4 id from 1 to 2147483647, digit by digit: a generated list then holds only ids parseIds takes. */
const INT4_ID = '0*(?:[1-9]\\d{0,8}|1\\d{9}|20\\d{8}|21[0-3]\\d{7}|214[0-6]\\d{6}|2147[0-3]\\d{5}|21474[0-7]\\d{4}|214748[0-2]\\d{3}|2147483[0-5]\\d{2}|21474836[0-3]\\d|214748364[0-7])';
const ID_LIST = `^\\s*${INT4_ID}\\s*(,\\s*${INT4_ID}\\s*)*$`;

function parseIds(field: string, text: string): number[] {
  const parts = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (!parts.length) throw badRequest(`${field}: give at least one id`);
  if (parts.length > 500) throw badRequest(`${field}: at most 500 ids`);
  return [...new Set(parts.map((p) => {
    const n = Number(p);
    if (!/^\d+$/.test(p) || n < 1 || n > 2147483647) throw badRequest(`${field}: '${p}' is not a positive integer id`);
    return n;
  }))];
}

/** The exception log (spec §2.4, §4.11 `/api/exception-log*`; docs/EXCEPTIONS.md). */
export function registerExceptionRoutes(table: RouteTable): void {
  const tag = 'exception log';

  defineRoute(table, {
    method: 'post', path: '/api/exception-log/generate', tag, permission: 'run_process', pipelineScoped: true,
    summary: 'Generate or refresh the exception log of a pipeline (a job)',
    description: `Starts workflow \`exceptionLogGenerate\` (job kind and step \`exception_log\`) and answers at once with status queued; follow it with GET /api/pipeline/jobs/{job_id}. The forecast and io issues are derived from the pipeline's results, the supply issues are the exceptions of its newest completed supply run (default supply scenario). Planners' statuses are kept: a resolved row opens again only for an issue it did not have, a snoozed row stays snoozed until its date, a row left without issues is resolved. ${RULES}`,
    body: obj({ pipeline_id: pipelineParam }, ['pipeline_id']),
    audit: { entityType: 'exception_log', action: 'generate' },
    responses: { 200: { description: 'job started', schema: out({ job_id: { type: 'string' }, step: { type: 'string' }, status: { type: 'string' }, pipeline_id: { type: 'integer' } }) }, ...errors(400, 403, 404, 503) },
    handler: async (ctx, { body, user }) => {
      await withTenant(ctx.deps.db, user.accountId, (tx) => pipelineOr404(tx, body.pipeline_id));
      const temporal = requireTemporal(ctx.deps.temporal);
      const jobId = newJobId('exclog');
      const input: ExceptionLogWorkflowInput = { accountId: user.accountId, jobId, pipelineId: body.pipeline_id };
      const row = await startJob(ctx.deps.db, temporal, user.accountId,
        { job_id: jobId, kind: 'exception_log', step: 'exception_log', pipeline_id: body.pipeline_id, created_by: user.email, params: {} }, 'exceptionLogGenerate', [input]);
      ctx.state.audit = { ...ctx.state.audit, entityId: String(body.pipeline_id), newValue: { job_id: jobId } };
      return { job_id: row.job_id, step: 'exception_log', status: row.status, pipeline_id: body.pipeline_id };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/exception-log', tag, pipelineScoped: true,
    summary: 'The exception log of a pipeline, filtered and paged',
    description: `One row per SKU-site of the pipeline with its issues (spec §2.4). \`status\` one of open, resolved, snoozed; \`types\` a comma list of forecast, io, supply (a row matches when it has any of them); \`segment_id\` limits to the segment's series; \`page\` 1-based, \`page_size\` 1–500 (default 50). \`total\` counts every row the filters match. ${RULES}`,
    query: obj({
      pipeline_id: pipelineParam, status: { type: 'string', enum: STATUSES }, types: { type: 'string', maxLength: 200, pattern: '^\\s*(forecast|io|supply)\\s*(,\\s*(forecast|io|supply)\\s*)*$', description: 'comma list of forecast, io, supply' },
      segment_id: int4(1), page: int4(1, { default: 1 }), page_size: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    }, ['pipeline_id']),
    responses: { 200: { description: 'a page of rows', schema: out({ total: { type: 'integer' }, page: { type: 'integer' }, page_size: { type: 'integer' }, items: { type: 'array', items: itemSchema } }) }, ...errors(400, 403, 404) },
    handler: async (ctx, { query, user }) => {
      let types: string[] | undefined;
      if (query.types !== undefined) {
        const parsed = parseTypes(query.types);
        if (parsed.unknown !== null) throw badRequest(`types: unknown exception type '${parsed.unknown}' (forecast, io, supply)`);
        if (!parsed.types.length) throw badRequest('types: give at least one of forecast, io, supply');
        types = parsed.types;
      }
      // kept per plan version (api/planReads.ts); the checks below depend on the user and run on every request
      const r = await ctx.deps.cache.plan.answer(user.accountId, ctx.state.planVersion, answerKey('exception-log', { ...query, types }), () =>
        exceptionLogPage(ctx.deps.env.databaseUrl!, user.accountId, { pipelineId: query.pipeline_id, status: query.status, types, segmentId: query.segment_id }, { page: query.page, pageSize: query.page_size }));
      if (!r.pipeline) throw notFound(`pipeline_id: pipeline ${query.pipeline_id} not found`);
      if (query.segment_id !== undefined) requireViewableSegment(user, query.segment_id, r.segment);
      // the body as PostgreSQL wrote it, with the columns of `view`
      ctx.type = 'application/json';
      ctx.body = r.body;
      return undefined;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/exception-log/preload', tag, pipelineScoped: true,
    summary: 'Inline data of many items at once',
    description: 'For each item of `item_ids` (comma list, at most 500): its exception-log rows of the pipeline, and per SKU-site the best method with its backtest MASE and bias, the first 13 weeks of the best forecast and the MEIO target, expected fill rate and safety stock (lowest-numbered MEIO scenario). Items without rows answer with empty lists.',
    query: obj({ pipeline_id: pipelineParam, item_ids: { type: 'string', minLength: 1, pattern: ID_LIST, description: 'comma list of item ids (1 to 2147483647, at most 500: more is a 400)' } }, ['pipeline_id', 'item_ids']),
    responses: { 200: { description: 'inline data per item', schema: out({ pipeline_id: { type: 'integer' }, items: { type: 'array', items: out({ item_id: { type: 'integer' }, exceptions: { type: 'array', items: itemSchema }, sku_sites: { type: 'array', items: { type: 'object' } } }) } }) }, ...errors(400, 403, 404) },
    handler: (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const ids = parseIds('item_ids', query.item_ids);
      await pipelineOr404(tx, query.pipeline_id);
      const { rows } = await listExceptionLog(tx, { pipelineId: query.pipeline_id, itemIds: ids }, 0, 100_000);
      const facts = await preloadFacts(tx, query.pipeline_id, ids);
      return {
        pipeline_id: query.pipeline_id,
        items: ids.map((id) => ({ item_id: id, exceptions: rows.filter((r) => r.item_id === id).map(view), sku_sites: facts.filter((f: any) => f.item_id === id) })),
      };
    }),
  });

  defineRoute(table, {
    method: 'patch', path: '/api/exception-log/{exception_id}/status', tag,
    summary: 'Set the planner\'s status of a row',
    description: 'Status open, resolved or snoozed (anything else is a 400). A snoozed row stays snoozed through refreshes until `snoozed_until` (default: 7 days from today), then opens again. '
      + `\`comment\` (not in the spec; 1–${COMMENT_MAX} characters, not only spaces) is kept with the row as a comment recording the status it came with (GET /api/exception-log/{exception_id}/comments). ${COMMENTS} `
      + 'The change is recorded in the audit log with the old and new status and the comment.',
    params: exceptionParams,
    body: obj({
      status: { type: 'string', enum: STATUSES }, snoozed_until: { type: 'string', format: 'date' },
      comment: commentText('not in the spec: why, kept in the row\'s comment history with the status'),
    }, ['status']),
    audit: { entityType: 'exception_log', action: 'status' },
    responses: { 200: { description: 'the row', schema: itemSchema }, ...errors(400, 403, 404) },
    handler: (ctx, { params, body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const before = await rowOr404(tx, params.exception_id);
      if (body.snoozed_until !== undefined && body.status !== 'snoozed') throw badRequest('snoozed_until: only with status snoozed');
      if (body.comment !== undefined) await visibleSeries(tx, user, before.unique_id, { mustExist: false });
      const until = body.status === 'snoozed' ? body.snoozed_until ?? new Date(Date.now() + 7 * DAY_MS).toISOString().slice(0, 10) : null;
      await setExceptionStatus(tx, params.exception_id, body.status, until);
      const comment = body.comment === undefined ? undefined : await addExceptionComment(tx, params.exception_id, user.email, body.comment, body.status);
      const after = (await getExceptionLogRow(tx, params.exception_id))!;
      ctx.state.audit = {
        ...ctx.state.audit, entityId: String(params.exception_id), oldValue: { status: before.status, snoozed_until: before.snoozed_until },
        newValue: { status: after.status, snoozed_until: after.snoozed_until, ...(comment ? { comment_id: comment.id, comment: comment.comment } : {}) },
      };
      return view(after);
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/exception-log/{exception_id}/comments', tag,
    summary: 'The comments of a row, oldest first (not in the spec)',
    description: `Every comment planners left on the row, with a status change (PATCH …/status with \`comment\`) or alone (POST …/comments). ${COMMENTS} 404 for an unknown row.`,
    params: exceptionParams,
    responses: { 200: { description: 'the comments, oldest first', schema: { type: 'array', items: commentSchema } }, ...errors(403, 404) },
    handler: (ctx, { params, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const row = await rowOr404(tx, params.exception_id);
      await visibleSeries(tx, user, row.unique_id, { mustExist: false });
      return listExceptionComments(tx, row.id);
    }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/exception-log/{exception_id}/comments', tag, status: 201,
    summary: 'Comment on a row without changing its status (not in the spec)',
    description: `Adds a comment (1–${COMMENT_MAX} characters, not only spaces) to the row's history; its \`status\` is null, the row's status is unchanged. ${COMMENTS} 404 for an unknown row. Audited (entity exception_comment, action create) with the comment.`,
    params: exceptionParams,
    body: obj({ comment: commentText('the comment') }, ['comment']),
    audit: { entityType: 'exception_comment', action: 'create' },
    responses: { 201: { description: 'the comment', schema: commentSchema }, ...errors(400, 403, 404) },
    handler: (ctx, { params, body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const row = await rowOr404(tx, params.exception_id);
      await visibleSeries(tx, user, row.unique_id, { mustExist: false });
      const comment = await addExceptionComment(tx, row.id, user.email, body.comment, null);
      ctx.state.audit = { ...ctx.state.audit, entityId: String(comment.id), newValue: { exception_id: row.id, comment: comment.comment } };
      return comment;
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/exception-log/{exception_id}/forecast-data', tag,
    summary: 'Inline forecast detail of a row',
    description: 'The series\' last `weeks` weeks of clean weekly demand (default 26) and the pipeline\'s best-method forecast with its backtest metrics (`best` null when no best method was chosen).',
    params: exceptionParams, query: obj({ weeks: { type: 'integer', minimum: 1, maximum: 520, default: 26 } }),
    responses: { 200: { description: 'forecast detail', schema: out({ exception_id: { type: 'integer' }, unique_id: { type: 'string' }, history: { type: 'array', items: { type: 'object' } }, best: { type: ['object', 'null'] } }) }, ...errors(400, 404) },
    handler: (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const row = await rowOr404(tx, params.exception_id);
      const d = await forecastDetail(tx, row.pipeline_id, row, query.weeks);
      return { exception_id: row.id, unique_id: row.unique_id, ...d };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/exception-log/{exception_id}/io-data', tag,
    summary: 'Inline inventory detail of a row',
    description: 'The SKU-site\'s MEIO results of the pipeline, one per MEIO scenario: policy, target and expected service, safety stock, reorder point, investment and the diagnostics behind a missed target.',
    params: exceptionParams,
    responses: { 200: { description: 'io detail', schema: out({ exception_id: { type: 'integer' }, unique_id: { type: 'string' }, results: { type: 'array', items: { type: 'object' } } }) }, ...errors(400, 404) },
    handler: (ctx, { params, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const row = await rowOr404(tx, params.exception_id);
      return { exception_id: row.id, unique_id: row.unique_id, results: [...(await ioDetail(tx, row.pipeline_id, row))] };
    }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/exception-log/{exception_id}/supply-data', tag,
    summary: 'Inline supply detail of a row',
    description: 'The SKU-site\'s weekly plan (demand, receipts, projected stock, safety stock, shortage) and supply exceptions in the pipeline\'s newest completed supply run of the default supply scenario; `run_id` and `plan` are null without such a run.',
    params: exceptionParams,
    responses: { 200: { description: 'supply detail', schema: out({ exception_id: { type: 'integer' }, unique_id: { type: 'string' }, run_id: { type: ['string', 'null'] }, planning_date: { type: ['string', 'null'] }, plan: { type: ['object', 'null'] }, exceptions: { type: 'array', items: { type: 'object' } } }) }, ...errors(400, 404) },
    handler: (ctx, { params, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const row = await rowOr404(tx, params.exception_id);
      const scenarioId = await defaultSupplyScenarioId(tx);
      const run = scenarioId === null ? null : await latestSupplyRun(tx, row.pipeline_id, scenarioId);
      if (!run) return { exception_id: row.id, unique_id: row.unique_id, run_id: null, planning_date: null, plan: null, exceptions: [] };
      const d = await supplyDetail(tx, run.run_id, row);
      return { exception_id: row.id, unique_id: row.unique_id, run_id: run.run_id, planning_date: (run as any).planning_date ?? null, ...d };
    }),
  });
}
