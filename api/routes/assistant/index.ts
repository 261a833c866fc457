import { readCatalog, storeIndex } from '../../../db/assistant';
import { tenantSchemaName, withTenant } from '../../../db/pool';
import { Admission, AdmissionRefused } from '../../../domain/assistant/admission';
import type { Env } from '../../../lib/env';
import { forbidden, HttpError } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, errorSchema } from '../schemas';
import { probeModelHost } from './model';
import { CACHE_LIMITS, chat, forgetLoggedOut, limits, maxSqlRetries, responses, retryAfterSeconds, sessionOf, sessions, tenantContext } from './service';
import * as s from './schemas';

const READ_ONLY = 'The statement runs on a connection of its own in a READ ONLY transaction that is always rolled back, as the tenant\'s role `<schema>_reader` (SELECT on this tenant\'s tables only: not users, parameters or audit_log, no other tenant, not the master schema), with search_path = the tenant schema, statement_timeout 8 s (ASSISTANT_STATEMENT_TIMEOUT_MS sets another) and at most 500 rows.';

/** One admission per app (its env), so test apps with their own limits do not share slots. */
const admissions = new WeakMap<Env, Admission>();
const admissionOf = (env: Env) => {
  let a = admissions.get(env);
  if (!a) admissions.set(env, (a = new Admission({ overall: env.assistantConcurrency, perTenant: env.assistantConcurrencyPerTenant, queue: env.assistantQueue })));
  return a;
};

/** The data assistant (spec §4.7 `/api/assistant/*`; docs/ASSISTANT.md). */
export function registerAssistantRoutes(table: RouteTable): void {
  const tag = 'assistant';

  defineRoute(table, {
    method: 'post', path: '/api/assistant/chat', tag,
    summary: 'Answer a question about the planning data: the answer, the query behind it, the rows and a chart',
    description: `The tenant's model (parameters \`llm.base_url\`, \`llm.model\`, \`llm.api_key\`, an OpenAI-compatible chat-completions host) writes one SQL statement from the schema index (POST /api/assistant/index; the live catalogue when not built) within a context of about 2000 tokens, with the session's last turns. `
      + 'Rule 1: the statement must start with SELECT or WITH after comments are stripped, be a single statement, and contain none of INSERT, UPDATE, DELETE, DROP, ALTER, TRUNCATE, CREATE, GRANT, REVOKE, ATTACH, DETACH, RENAME, OPTIMIZE, EXCHANGE, REPLACE, MOVE, MUTATE as a whole word, nor settings, sleeps, locks, COPY, dblink, file or catalogue functions, schema names (docs/ASSISTANT.md). '
      + `${READ_ONLY} `
      + 'Rule 2: a failed generation, check or execution is retried with the error, up to MAX_SQL_RETRIES attempts (default 2); `attempts` says how many were used; after the last failure the answer is a 200 with `error`, empty `data` and chart type `none`. '
      + 'Rule 3: the model\'s chart hint is kept when its columns exist; otherwise 0 rows `none`, 1 row `kpi`, date + numeric `line`, category + one numeric within 30 rows `bar`, category + several numerics within 30 rows `bar_stacked`, else `table`. '
      + 'Rule 4: session = `session_id`, else `u:<token id>`, else user, else `ip:<host>`, else `anonymous`. Rule 5: 6 turns per session, 60 minutes idle, in this process only, cleared by POST /api/assistant/clear and on logout. '
      + 'A user limited to segments (`allowed_segments`) gets a 403: the statements read every series of the tenant. '
      + 'PostgreSQL measures the rows before sending them: more than 4 MiB of row text is refused (retried as a failure, and a 422 when the last attempt is still too large). '
      + 'Statements are admitted a few at a time (ASSISTANT_CONCURRENCY overall, ASSISTANT_CONCURRENCY_PER_TENANT per tenant, ASSISTANT_QUEUE waiting; docs/ASSISTANT.md); beyond that a 429 with `Retry-After`. '
      + 'Answers are cached 300 s (64 entries) per tenant, pipeline, scenario and question (`cached`). Without a model, or when it cannot be reached, template questions still answer (`mode` = `template`, and the answer says so): top N by demand, forecast, safety stock or shortage; series per demand or ABC class; series with open exceptions of a type; shortages in the next N weeks (at a site); the forecast of one series.',
    body: s.chatBody,
    audit: { entityType: 'assistant', action: 'chat' },
    responses: {
      200: { description: 'the answer (with `error` when no query worked)', schema: s.chatResponse }, ...errors(403),
      422: { description: 'every attempt\'s result was larger than an answer may be; `detail` says how large', schema: errorSchema },
      429: { description: 'as many assistant statements running and waiting as allowed, for the tenant or overall; retry after the Retry-After seconds', schema: errorSchema },
    },
    handler: async (ctx, { body, user }) => {
      // the statements read every series of the tenant (its reader role has no notion of segments), so a user limited
      // to some segments would see the others through it
      if (user.allowedSegments.length) {
        throw forbidden(`the assistant reads every series of the tenant; users limited to segments (yours: ${user.allowedSegments.join(', ')}) cannot use it`);
      }
      let r: Awaited<ReturnType<typeof chat>>;
      try {
        r = await chat(ctx.deps.db, ctx.deps.env.databaseUrl!, admissionOf(ctx.deps.env), ctx.deps.env.assistantStatementTimeoutMs, user, ctx.ip, body);
      } catch (err) {
        if (!(err instanceof AdmissionRefused)) throw err;
        const limit = err.reason === 'tenant' ? `${ctx.deps.env.assistantConcurrencyPerTenant} for this tenant` : `${ctx.deps.env.assistantConcurrency} overall`;
        const retryAfter = retryAfterSeconds(ctx.deps.env.assistantStatementTimeoutMs);
        throw new HttpError(429, `too many assistant statements at once (${limit}, and ${ctx.deps.env.assistantQueue} waiting); retry after ${retryAfter} s`, { 'Retry-After': String(retryAfter) });
      }
      ctx.state.audit = { ...ctx.state.audit, entityId: r.session_id, newValue: { question: body.question.slice(0, 500), sql: r.sql.slice(0, 2000), mode: r.mode, attempts: r.attempts, row_count: r.row_count, error: r.error ?? null } };
      return r;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/assistant/status', tag,
    summary: 'The model host, the index and the session memory',
    description: '`ollama_url` is the configured model host (tenant parameter `llm.base_url`; any OpenAI-compatible server, Ollama included), `available` whether it answered GET /models within 3 s, with `available_models`. No embedding model is used: `embedding_fallback` is true and tables are chosen for the context by the words they share with the question. `index_ready` says whether POST /api/assistant/index has run; `index_stats` gives the columns of each indexed table. `memory` counts this tenant\'s sessions in this process.',
    responses: { 200: { description: 'status', schema: s.statusResponse }, ...errors(403) },
    handler: async (ctx, { user }) => {
      await forgetLoggedOut(ctx.deps.db, user.accountId);
      const c = await tenantContext(ctx.deps.db, user.accountId);
      const probe = c.llm ? await probeModelHost(c.llm) : { available: false, models: [] };
      return {
        ollama_url: c.llm?.baseUrl ?? null, model: c.llm?.model ?? null, available: probe.available, available_models: probe.models,
        embedding_model: null, embedding_fallback: true,
        index_ready: c.indexed, index_path: `${tenantSchemaName(user.accountId)}.assistant_index`, index_built_at: c.builtAt,
        index_stats: c.indexed ? Object.fromEntries(c.entries.filter((e) => e.kind === 'table').map((e) => [e.name, e.columns.length])) : {},
        memory: sessions.stats(user.accountId, Date.now()),
        cache: { entries: responses.size, ...CACHE_LIMITS },
        max_sql_retries: maxSqlRetries(), ...limits(ctx.deps.env.assistantStatementTimeoutMs),
      };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/assistant/index', tag,
    summary: 'Rebuild the schema index the model writes SQL from (admin only)',
    description: 'Reads the tables the tenant\'s reader role may SELECT, with their columns, adds the planning concepts (series, weeks, pipelines, shortages, forecasts, classes, exceptions, inventory) and stores them in the tenant table `assistant_index`; the tenant\'s cached answers are dropped. 403 with detail `admin only` for any other role.',
    audit: { entityType: 'assistant.index', action: 'rebuild' },
    responses: { 200: { description: 'rebuilt', schema: s.indexResponse }, ...errors(403) },
    handler: async (ctx, { user }) => {
      if (user.role !== 'admin' && user.role !== 'superadmin' && !user.isSuperadmin) throw forbidden('admin only');
      const counts = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const entries = await readCatalog(tx, tenantSchemaName(user.accountId));
        await storeIndex(tx, entries);
        const tables = entries.filter((e) => e.kind === 'table');
        return { tables: tables.length, columns: tables.reduce((n, e) => n + e.columns.length, 0), concepts: entries.length - tables.length };
      });
      responses.dropPrefix(`${user.accountId}|`);
      ctx.state.audit = { ...ctx.state.audit, newValue: counts };
      return { status: 'ok', counts };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/assistant/history', tag,
    summary: 'The turns of a session',
    description: 'Oldest first, at most 6. A user turn is `{role, content, ts}`; an assistant turn adds `sql` and `result_summary` (at most 200 characters). `session_id` omitted: the session resolved from the token (spec §4.7 rule 4). An unknown or expired session has no turns.',
    query: s.historyQuery,
    responses: { 200: { description: 'the session', schema: s.historyResponse }, ...errors(403) },
    handler: async (ctx, { query, user }) => {
      await forgetLoggedOut(ctx.deps.db, user.accountId);
      const sessionId = sessionOf(user, query.session_id, ctx.ip);
      return { session_id: sessionId, history: sessions.history(user.accountId, sessionId, Date.now()) };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/assistant/clear', tag,
    summary: 'Forget a session',
    description: 'Clears the session given in the body, or the one resolved from the token. `cleared` is false when it held nothing.',
    body: s.clearBody,
    audit: { entityType: 'assistant.session', action: 'clear' },
    responses: { 200: { description: 'cleared', schema: s.clearResponse }, ...errors(403) },
    handler: async (ctx, { body, user }) => {
      const sessionId = sessionOf(user, body.session_id, ctx.ip);
      const cleared = sessions.clear(user.accountId, sessionId, Date.now());
      ctx.state.audit = { ...ctx.state.audit, entityId: sessionId };
      return { cleared, session_id: sessionId };
    },
  });
}
