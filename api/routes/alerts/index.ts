import {
  decideAlerts, deleteAlertRule, getAlertRule, getAlerts, insertAlertSynonym, listAlertRules, listAlerts, listAlertSynonyms, segmentIdByName,
  seedAlertOntology, updateAlertRule, visibleAlertIds, type AlertListFilter,
} from '../../../db/alerts';
import { withTenant, type Tx } from '../../../db/pool';
import { listSegments, visibleSegmentIds } from '../../../db/segments';
import { answerKey } from '../../planReads';
import { alertQueryPrompt, readModelAnswer, type ModelQueryContext } from '../../../domain/alerts/modelQuery';
import { parseAlertQuery, queryTerms, type ParsedAlertQuery } from '../../../domain/alerts/query';
import { logger } from '../../../lib/logger';
import type { AlertsWorkflowInput } from '../../../workflows/alerts';
import type { AuthUser } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { newJobId, requireTemporal, startJob } from '../../jobs/service';
import { chatCompletion, llmSettings, LlmUnavailable, type LlmSettings } from '../../llm';
import { defineRoute, type RouteTable } from '../define';
import { listFilter, resultsPipelineOr404 } from '../forecasts/scope';
import { errors } from '../schemas';
import * as s from './schemas';

async function ruleOr404(tx: Tx, metric: string) {
  const r = await getAlertRule(tx, metric);
  if (!r) throw notFound(`metric_name: no alert rule ${metric}`);
  return r;
}

interface ListArgs {
  pipeline_id?: number; segment_id?: number; status?: AlertListFilter['status']; metric?: string; severity?: string; value?: AlertListFilter['value'];
  demand_class?: readonly string[]; page?: number; page_size?: number;
}

async function alertPage(tx: Tx, user: AuthUser, q: ListArgs) {
  const p = await resultsPipelineOr404(tx, q.pipeline_id);
  const series = await listFilter(tx, user, p, q.segment_id);
  const page = q.page ?? 1;
  const pageSize = q.page_size ?? 50;
  const r = await listAlerts(tx, { pipelineId: p.id, series, status: q.status, metric: q.metric, severity: q.severity, value: q.value, demandClass: q.demand_class }, { page, pageSize });
  return { pipelineId: p.id, total: r.total, page, page_size: pageSize, items: r.items };
}

/** One decision on alerts the caller can see; 404 names the first id that is missing or out of the caller's scope. */
async function decide(tx: Tx, user: AuthUser, ids: readonly number[], action: 'approve' | 'reject') {
  const found = await getAlerts(tx, ids);
  const seen = await visibleAlertIds(tx, found.map((a) => a.id), await listFilter(tx, user, { segmentIds: [] }));
  const missing = ids.find((id) => !seen.has(id));
  if (missing !== undefined) throw notFound(`alert_id: alert ${missing} not found`);
  const before = new Map(found.map((a) => [a.id, a.status]));
  const after = await decideAlerts(tx, ids, action === 'approve' ? 'approved' : 'rejected', user.email);
  return { before, after };
}

/**
 * The filter of an alert question: the tenant's model when `llm` is set (its answer checked by
 * domain/alerts/modelQuery.ts), else, or when the model is unavailable or its answer unusable, the offline parser.
 */
async function readQuery(query: string, ctx: ModelQueryContext, llm: LlmSettings | null): Promise<{ parser: 'llm' | 'offline'; filter: ParsedAlertQuery; warnings: string[] }> {
  const warnings: string[] = [];
  if (llm) {
    try {
      const content = await chatCompletion(llm, [{ role: 'system', content: alertQueryPrompt(ctx) }, { role: 'user', content: query }], { json: true });
      const answer = readModelAnswer(content, ctx);
      warnings.push(...answer.warnings);
      if (answer.ok) return { parser: 'llm', filter: answer.filter, warnings };
      warnings.push(`language model answer unusable (${answer.reason}); used the offline parser`);
    } catch (err) {
      if (!(err instanceof LlmUnavailable)) throw err;
      logger.warn({ err: err.message }, 'language model unavailable; using the offline alert query parser');
      warnings.push(`language model unavailable (${err.message}); used the offline parser`);
    }
  }
  return { parser: 'offline', filter: parseAlertQuery(query, queryTerms(ctx.rules.map((r) => r.metric_name), ctx.synonyms)), warnings };
}

/** Alerts and their ontology (spec §4.11 `/api/alerts*`; docs/ALERTS.md). */
export function registerAlertRoutes(table: RouteTable): void {
  const tag = 'alerts';

  defineRoute(table, {
    method: 'get', path: '/api/alerts/ontology', tag,
    summary: 'The alert rule set',
    description: 'Every rule (metric, domain, formula, comparison, threshold, severity, enabled) and every synonym the query parser understands. Empty until POST /api/alerts/ontology/seed.',
    responses: { 200: { description: 'rules and synonyms', schema: s.ontologyResponse }, ...errors(403) },
    handler: async (ctx, { user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const rules = await listAlertRules(tx);
      return { total: rules.length, rules, synonyms: await listAlertSynonyms(tx) };
    }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/alerts/ontology/seed', tag, permission: 'admin',
    summary: 'Seed the 32 default rules (idempotent)',
    description: 'Adds the default rules and synonyms that are missing (a deleted default comes back); rules already present keep their edited threshold, severity and enabled flag. Seeding twice leaves 32 default rules, not 64.',
    audit: { entityType: 'alerts.ontology', action: 'seed' },
    responses: { 200: { description: 'seeded', schema: s.seedResponse }, ...errors(403) },
    handler: async (ctx, { user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const r = await seedAlertOntology(tx);
      ctx.state.audit = { ...ctx.state.audit, newValue: r };
      return { rules: (await listAlertRules(tx)).length, ...r };
    }),
  });

  defineRoute(table, {
    method: 'put', path: '/api/alerts/ontology/{metric_name}', tag, permission: 'admin',
    summary: 'Change a rule: threshold, severity, enabled, description',
    description: 'Fields omitted keep their value; at least one is required. The formula and comparison belong to the rule (domain/alerts/ontology.ts) and cannot change. 404 for an unknown rule.',
    params: s.metricParams, body: s.ruleUpdateBody,
    audit: { entityType: 'alerts.ontology', action: 'update' },
    responses: { 200: { description: 'the rule', schema: s.rule }, ...errors(403, 404) },
    handler: async (ctx, { params, body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const old = await ruleOr404(tx, params.metric_name);
      const r = await updateAlertRule(tx, params.metric_name, body);
      ctx.state.audit = { ...ctx.state.audit, entityId: params.metric_name, oldValue: { threshold: old.threshold, severity: old.severity, enabled: old.enabled, description: old.description }, newValue: body };
      return r;
    }),
  });

  defineRoute(table, {
    method: 'delete', path: '/api/alerts/ontology/{metric_name}', tag, permission: 'admin',
    summary: 'Remove a rule',
    description: 'Removes the rule and its synonyms; its alerts stay until the next generation (which no longer raises it). POST /api/alerts/ontology/seed brings a default rule back. 404 for an unknown rule.',
    params: s.metricParams,
    audit: { entityType: 'alerts.ontology', action: 'delete' },
    responses: { 200: { description: 'the removed rule', schema: s.rule }, ...errors(403, 404) },
    handler: async (ctx, { params, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const r = await deleteAlertRule(tx, params.metric_name);
      if (!r) throw notFound(`metric_name: no alert rule ${params.metric_name}`);
      ctx.state.audit = { ...ctx.state.audit, entityId: params.metric_name, oldValue: r };
      return r;
    }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/alerts/synonyms', tag, permission: 'admin',
    summary: 'Add a synonym the alert query understands',
    description: 'A term (stored trimmed and lower case) that POST /api/alerts/query reads as the rule `canonical_metric`. 400 for an unknown metric, 409 for a term that exists.',
    body: s.synonymBody, status: 201,
    audit: { entityType: 'alerts.synonyms', action: 'create' },
    responses: { 201: { description: 'the synonym', schema: s.synonymResponse }, ...errors(403, 409) },
    handler: async (ctx, { body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const term = body.term.trim().toLowerCase().replace(/\s+/g, ' ');
      if (!(await getAlertRule(tx, body.canonical_metric))) throw badRequest(`canonical_metric: no alert rule ${body.canonical_metric}`);
      const r = await insertAlertSynonym(tx, term, body.canonical_metric);
      if (!r) throw conflict(`term: synonym '${term}' exists`);
      ctx.state.audit = { ...ctx.state.audit, entityId: term, newValue: r };
      return r;
    }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/alerts/generate', tag, permission: 'run_process',
    summary: 'Generate the alerts of a pipeline (a job; not in the spec)',
    description: `Starts workflow \`alertsGenerate\` (job kind and step \`alerts\`) and answers at once; follow it with GET /api/pipeline/jobs/{job_id}. The enabled rules run over every series of the pipeline (its segments when it has any) and alerts are upserted per pipeline, series and metric. ${s.STATUS_RULE} Open alerts that no longer fire are removed.`,
    body: s.generateBody,
    audit: { entityType: 'alerts', action: 'generate' },
    responses: { 200: { description: 'job started', schema: s.generateResponse }, ...errors(403, 404) },
    handler: async (ctx, { body, user }) => {
      const pipelineId = await withTenant(ctx.deps.db, user.accountId, async (tx) => (await resultsPipelineOr404(tx, body.pipeline_id)).id);
      const temporal = requireTemporal(ctx.deps.temporal);
      const jobId = newJobId('alerts');
      const input: AlertsWorkflowInput = { accountId: user.accountId, jobId, pipelineId };
      const row = await startJob(ctx.deps.db, temporal, user.accountId,
        { job_id: jobId, kind: 'alerts', step: 'alerts', pipeline_id: pipelineId, created_by: user.email, params: {} }, 'alertsGenerate', [input]);
      ctx.state.audit = { ...ctx.state.audit, entityId: String(pipelineId), newValue: { job_id: jobId } };
      return { job_id: row.job_id, status: row.status, pipeline_id: pipelineId };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/alerts', tag,
    summary: 'Alerts of a pipeline, filtered and paged',
    description: `Filters \`segment_id\`, \`status\`, \`metric\`, \`severity\`, \`demand_class\` (one class or a comma list; the series' class in series_characteristics of the alert's pipeline); most severe first, then oldest. Only series in the caller's segments. \`pipeline_id\` omitted: the default pipeline. ${s.STATUS_RULE}`,
    query: s.listQuery,
    responses: { 200: { description: 'a page of alerts', schema: s.listResponse }, ...errors(403, 404) },
    handler: async (ctx, { query, user }) => {
      // kept per plan version (api/planReads.ts; migration 035 raises it when alerts or demand classes change): the
      // count and the page were read from PostgreSQL on every request. The answer depends on the segments the user sees.
      const key = answerKey('alerts', { ...query, visible_segments: visibleSegmentIds(user) });
      const r = await ctx.deps.cache.plan.answer(user.accountId, ctx.state.planVersion, key, () => withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { demand_class: dc, ...rest } = query;
        const { pipelineId: _p, ...page } = await alertPage(tx, user, { ...rest, demand_class: dc?.split(',') });
        return { body: JSON.stringify(page) };
      }));
      ctx.type = 'application/json';
      ctx.body = r.body;
      return undefined;
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/alerts/query', tag,
    summary: 'Alerts from a question in words',
    description: 'With the tenant parameter `llm.base_url` set, the configured OpenAI-compatible model reads the question (chat completions, JSON answer): its system prompt lists the rules with their descriptions and synonyms, the statuses, severities, demand classes and the segments the caller can see. The answer is checked field by field (docs/ALERTS.md): an unknown metric, a bad op or number, an unknown segment, status, severity or class is dropped with a warning; an answer that is not a JSON object, or of which nothing checks out, falls back to the offline parser with a warning, as does a model that cannot be reached. Without a model the offline parser (domain/alerts/query.ts) reads a rule by its name or a synonym, one comparison with a number against the alert value ("under 90 %": a % sign divides by 100), "in segment <name>", a status, a severity and demand classes ("lumpy or intermittent series"). `parser` says which one read it and `filter` is the structured filter used. A body `segment_id` wins over a segment named in the query; a named segment that does not exist is 404.',
    body: s.queryBody,
    audit: { entityType: 'alerts', action: 'query' },
    responses: { 200: { description: 'the filter and the alerts', schema: s.queryResponse }, ...errors(403, 404) },
    handler: async (ctx, { body, user }) => {
      // The model is called outside any transaction: it may take seconds.
      const c = await withTenant(ctx.deps.db, user.accountId, async (tx) => ({
        rules: await listAlertRules(tx), synonyms: await listAlertSynonyms(tx), llm: await llmSettings(tx),
        segments: (await listSegments(tx, visibleSegmentIds(user))).map((g) => g.name),
      }));
      const read = await readQuery(body.query, { rules: c.rules, synonyms: c.synonyms, segments: c.segments }, c.llm);
      const parsed = read.filter;
      return withTenant(ctx.deps.db, user.accountId, async (tx) => {
        let segmentId: number | undefined = body.segment_id;
        if (segmentId === undefined && parsed.segment_name !== null) {
          const found = await segmentIdByName(tx, parsed.segment_name);
          if (found === null) throw notFound(`query: segment '${parsed.segment_name}' not found`);
          segmentId = found;
        }
        const r = await alertPage(tx, user, {
          pipeline_id: body.pipeline_id, segment_id: segmentId, status: parsed.status ?? undefined, metric: parsed.metric ?? undefined,
          severity: parsed.severity ?? undefined, value: parsed.value ?? undefined, demand_class: parsed.demand_class ?? undefined,
          page: body.page, page_size: body.page_size,
        });
        return {
          query: body.query, parser: read.parser, warnings: read.warnings,
          filter: { pipeline_id: r.pipelineId, segment_id: segmentId ?? null, ...parsed },
          total: r.total, page: r.page, page_size: r.page_size, items: r.items,
        };
      });
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/alerts/batch', tag,
    summary: 'Approve or reject many alerts',
    description: `All or nothing: 404 names the first id that does not exist or lies outside the caller's segments. One audit row lists every alert with its status before and after. ${s.STATUS_RULE}`,
    body: s.batchBody,
    audit: { entityType: 'alerts', action: 'batch' },
    responses: { 200: { description: 'the alerts after the decision', schema: s.batchResponse }, ...errors(403, 404) },
    handler: async (ctx, { body, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const { before, after } = await decide(tx, user, body.alert_ids, body.action);
      ctx.state.audit = {
        ...ctx.state.audit, action: body.action, entityId: body.alert_ids.join(','),
        oldValue: Object.fromEntries([...before].map(([id, st]) => [id, st])), newValue: Object.fromEntries(after.map((a) => [a.id, a.status])),
      };
      return { action: body.action, updated: after.length, items: after };
    }),
  });

  for (const action of ['approve', 'reject'] as const) {
    defineRoute(table, {
      method: 'post', path: `/api/alerts/{alert_id}/${action}`, tag,
      summary: action === 'approve' ? 'Approve an alert: handled' : 'Reject an alert: corrective action required',
      description: `Records the decision, who made it and when; the audit log keeps the status before and after. 404 for an unknown alert or one outside the caller's segments. ${s.STATUS_RULE}`,
      params: s.alertParams,
      audit: { entityType: 'alerts', action },
      responses: { 200: { description: 'the alert', schema: s.alert }, ...errors(403, 404) },
      handler: async (ctx, { params, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { before, after } = await decide(tx, user, [params.alert_id], action);
        ctx.state.audit = { ...ctx.state.audit, entityId: String(params.alert_id), oldValue: { status: before.get(params.alert_id) }, newValue: { status: after[0].status } };
        return after[0];
      }),
    });
  }
}
