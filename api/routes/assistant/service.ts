/**
 * The data assistant's chat (spec §4.7; docs/ASSISTANT.md): the tenant's model writes one SELECT from the schema index,
 * the textual rules check it, db/assistantQuery.ts runs it read-only as the tenant's reader role, and the answer
 * explains the result. Without a model (none configured, or unreachable) the template questions answer instead.
 * Sessions and the response cache live in this process only.
 */
import { loadIndex, readCatalog, revokedTokenIds } from '../../../db/assistant';
import { ASSISTANT_RESULT_MAX_BYTES, ASSISTANT_ROW_LIMIT, runReadOnly } from '../../../db/assistantQuery';
import { templateSql } from '../../../db/assistantTemplates';
import { tenantSchemaName, withTenant, type Db } from '../../../db/pool';
import type { Admission } from '../../../domain/assistant/admission';
import { buildContext, relevance, type IndexEntry } from '../../../domain/assistant/budget';
import { cacheKey, CACHE_ENTRIES, CACHE_TTL_SECONDS, ResponseCache } from '../../../domain/assistant/cache';
import { chooseChart, type Chart, type ChartHint } from '../../../domain/assistant/chart';
import { answerText, readModelSql, retryMessage, systemPrompt, tablesIn } from '../../../domain/assistant/prompt';
import { resolveSessionId, resultSummary, SessionMemory, type Turn } from '../../../domain/assistant/sessions';
import { checkReadOnlySql } from '../../../domain/assistant/sqlRules';
import { describeTemplate, matchTemplate } from '../../../domain/assistant/templates';
import { logger } from '../../../lib/logger';
import type { AuthUser } from '../../context';
import { HttpError } from '../../errors';
import { chatCompletion, llmSettings, LlmUnavailable, type LlmSettings } from '../../llm';

export interface ChatResponse {
  answer: string;
  sql: string;
  tables_used: string[];
  concepts_used: string[];
  chart: Chart;
  data: Array<Record<string, unknown>>;
  columns: string[];
  row_count: number;
  attempts: number;
  duration_ms: number;
  session_id: string;
  error?: string;
  mode: 'llm' | 'template' | 'none';
  cached: boolean;
}

export interface ChatRequest { question: string; pipeline_id?: number | null; scenario_id?: number | null; session_id?: string }

/** Spec §4.7 rule 2: attempts per question, from MAX_SQL_RETRIES (default 2, 1 to 10). */
export function maxSqlRetries(): number {
  const n = Number.parseInt(process.env.MAX_SQL_RETRIES ?? '', 10);
  return Number.isInteger(n) && n >= 1 && n <= 10 ? n : 2;
}

export const sessions = new SessionMemory();
export const responses = new ResponseCache<Omit<ChatResponse, 'session_id' | 'cached'>>();
export const CACHE_LIMITS = { max_entries: CACHE_ENTRIES, ttl_seconds: CACHE_TTL_SECONDS };

const NO_CHART = (title: string): Chart => ({ type: 'none', x_col: null, y_cols: [], title });

/** The session of a request (rule 4). */
export function sessionOf(user: AuthUser, explicit: string | undefined, ip: string): string {
  return resolveSessionId({ sessionId: explicit, jti: user.jti, userId: user.id, email: user.email, ip });
}

/** Rule 5 "cleared on logout": sessions written by a token that has since been revoked are dropped before any read. */
export async function forgetLoggedOut(db: Db, accountId: string): Promise<void> {
  const owners = sessions.owners(accountId);
  if (!owners.length) return;
  for (const jti of await revokedTokenIds(db, owners)) sessions.clearOwner(accountId, jti);
}

/** The stored index, or the catalogue read live when POST /api/assistant/index has not run. */
export async function tenantContext(db: Db, accountId: string): Promise<{ llm: LlmSettings | null; entries: IndexEntry[]; indexed: boolean; builtAt: string | null }> {
  return withTenant(db, accountId, async (tx) => {
    const llm = await llmSettings(tx);
    const stored = await loadIndex(tx);
    if (stored.entries.length) return { llm, entries: stored.entries, indexed: true, builtAt: stored.builtAt };
    return { llm, entries: await readCatalog(tx, tenantSchemaName(accountId)), indexed: false, builtAt: null };
  });
}

interface Attempted { response: Omit<ChatResponse, 'session_id' | 'cached'>; turnSql: string }

function failure(mode: ChatResponse['mode'], attempts: number, lastSql: string, error: string, durationMs: number, concepts: string[], tables: string[], answer: string): Attempted {
  return {
    response: { answer, sql: lastSql, tables_used: tables, concepts_used: concepts, chart: NO_CHART('no result'), data: [], columns: [], row_count: 0, attempts, duration_ms: durationMs, error, mode },
    turnSql: lastSql,
  };
}

async function viaModel(run: Runner, llm: LlmSettings, req: ChatRequest, entries: IndexEntry[], history: Turn[]): Promise<Attempted | { unavailable: string }> {
  const ctx = buildContext(entries, req.question, history);
  const concepts = ctx.concepts.filter((c) => relevance(entries.find((e) => e.kind === 'concept' && e.name === c)!, req.question) > 0);
  const tableNames = entries.filter((e) => e.kind === 'table').map((e) => e.name);
  const system = systemPrompt(ctx.schema, ctx.history, { pipelineId: req.pipeline_id ?? null, scenarioId: req.scenario_id ?? null });
  const budget = maxSqlRetries();
  let lastSql = '';
  let lastError = '';
  let lastTooLarge = false;
  let lastDuration = 0;
  let attempts = 0;
  for (let attempt = 1; attempt <= budget; attempt++) {
    attempts = attempt;
    let content: string;
    try {
      content = await chatCompletion(llm, [
        { role: 'system', content: system },
        { role: 'user', content: attempt === 1 ? req.question : retryMessage(req.question, lastSql || null, lastError) },
      ], { json: true });
    } catch (err) {
      if (!(err instanceof LlmUnavailable)) throw err;
      if (attempt === 1) return { unavailable: err.message };
      lastError = `the language model became unavailable: ${err.message}`;
      break;
    }
    const parsed = readModelSql(content);
    if (!parsed) {
      lastError = 'the model answer holds no SQL statement';
      continue;
    }
    lastSql = parsed.sql.slice(0, 20_000);
    const check = checkReadOnlySql(parsed.sql);
    if (!check.ok) {
      lastError = `statement rejected: ${check.reason}`;
      continue;
    }
    const result = await run(check.sql);
    lastDuration = result.durationMs;
    lastTooLarge = !result.ok && result.tooLarge === true;
    if (!result.ok) {
      lastError = `statement failed: ${result.error}`;
      continue;
    }
    const chart = chooseChart(result.columns, result.rows, parsed.chart as ChartHint | null, req.question.slice(0, 200));
    return {
      response: {
        answer: answerText({ rowCount: result.rowCount, truncated: result.truncated, columns: result.columns, rows: result.rows, explanation: parsed.explanation }),
        sql: check.sql, tables_used: tablesIn(check.sql, tableNames), concepts_used: concepts, chart,
        data: result.rows, columns: result.columns, row_count: result.rowCount, attempts, duration_ms: result.durationMs, mode: 'llm',
      },
      turnSql: check.sql,
    };
  }
  // a result too large for any answer is the question's fault, not a failed query: 422, as the rows never arrived
  if (lastTooLarge) throw tooLargeError(attempts, lastError);
  return failure('llm', attempts, lastSql, lastError, lastDuration, concepts, tablesIn(lastSql, tableNames),
    `No query answered the question after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${lastError}.`);
}

const TEMPLATE_LIST = 'top N series by demand, forecast, safety stock or shortage; how many series per demand class or ABC class; series with open forecast, io or supply exceptions; which items (at a site) run short in the next N weeks; the forecast of one series (item X at site Y, or its unique id)';

async function viaTemplate(run: Runner, req: ChatRequest, entries: IndexEntry[], why: string): Promise<Attempted> {
  const concepts = entries.filter((e) => e.kind === 'concept' && relevance(e, req.question) > 0).map((e) => e.name);
  const tableNames = entries.filter((e) => e.kind === 'table').map((e) => e.name);
  const match = matchTemplate(req.question);
  if (!match) {
    return failure('none', 0, '', `${why}, and the question matches none of the template questions`, 0, concepts, [],
      `${why}, so only the template questions can be answered: ${TEMPLATE_LIST}. This question matches none of them.`);
  }
  const text = templateSql(match, req.pipeline_id ?? null, req.scenario_id ?? null);
  const check = checkReadOnlySql(text);
  if (!check.ok) throw new Error(`template ${match.kind} breaks the textual rules: ${check.reason}`);
  const via = `Answered from the template question "${describeTemplate(match)}" because ${why.charAt(0).toLowerCase()}${why.slice(1)}.`;
  const result = await run(check.sql);
  if (!result.ok && result.tooLarge) throw tooLargeError(1, `statement failed: ${result.error}`);
  if (!result.ok) return failure('template', 1, check.sql, `statement failed: ${result.error}`, result.durationMs, concepts, tablesIn(check.sql, tableNames), `${via} The query failed: ${result.error}`);
  return {
    response: {
      answer: answerText({ rowCount: result.rowCount, truncated: result.truncated, columns: result.columns, rows: result.rows, via }),
      sql: check.sql, tables_used: tablesIn(check.sql, tableNames), concepts_used: concepts,
      chart: chooseChart(result.columns, result.rows, null, describeTemplate(match)), data: result.rows, columns: result.columns, row_count: result.rowCount,
      attempts: 1, duration_ms: result.durationMs, mode: 'template',
    },
    turnSql: check.sql,
  };
}

/** Runs one checked statement as the tenant's reader, once the admission lets it (AdmissionRefused otherwise). */
type Runner = (statement: string) => ReturnType<typeof runReadOnly>;

function tooLargeError(attempts: number, lastError: string): HttpError {
  return new HttpError(422, `the answer would be too large to send after ${attempts} attempt${attempts === 1 ? '' : 's'} (at most ${ASSISTANT_RESULT_MAX_BYTES} bytes of rows): ${lastError.replace(/^statement failed: /, '')}`);
}

export async function chat(
  db: Db, databaseUrl: string, admission: Admission, timeoutMs: number, user: AuthUser, ip: string, req: ChatRequest,
): Promise<ChatResponse> {
  const run: Runner = (statement) => admission.run(user.accountId, () => runReadOnly(databaseUrl, user.accountId, statement, { timeoutMs }));
  await forgetLoggedOut(db, user.accountId);
  const sessionId = sessionOf(user, req.session_id, ip);
  const key = cacheKey(user.accountId, req.pipeline_id ?? null, req.scenario_id ?? null, req.question);
  const userTurn: Turn = { role: 'user', content: req.question, ts: new Date().toISOString() };
  const remember = (r: Omit<ChatResponse, 'session_id' | 'cached'>, turnSql: string) =>
    sessions.append(user.accountId, sessionId, user.jti, [userTurn, {
      role: 'assistant', content: r.answer.slice(0, 1000), ts: new Date().toISOString(), sql: turnSql,
      result_summary: resultSummary(r.row_count, r.columns, r.data, r.error),
    }], Date.now());

  const hit = responses.get(key, Date.now());
  if (hit) {
    remember(hit, hit.sql);
    return { ...hit, session_id: sessionId, cached: true };
  }
  const c = await tenantContext(db, user.accountId);
  const history = sessions.history(user.accountId, sessionId, Date.now());
  let done: Attempted | null = null;
  let why = 'no language model is configured (tenant parameter llm.base_url)';
  if (c.llm) {
    const r = await viaModel(run, c.llm, req, c.entries, history);
    if ('unavailable' in r) {
      logger.warn({ err: r.unavailable }, 'language model unavailable; the assistant answers from its templates');
      why = `the language model at ${c.llm.baseUrl} is unavailable (${r.unavailable.slice(0, 200)})`;
    } else done = r;
  }
  done ??= await viaTemplate(run, req, c.entries, why);
  remember(done.response, done.turnSql);
  if (done.response.error === undefined) responses.set(key, done.response, Date.now());
  return { ...done.response, session_id: sessionId, cached: false };
}

export const limits = (timeoutMs: number) => ({ row_limit: ASSISTANT_ROW_LIMIT, statement_timeout_ms: timeoutMs });
/** A refused statement is told to come back when a running one must have ended: after one time-out. */
export const retryAfterSeconds = (timeoutMs: number) => Math.ceil(timeoutMs / 1000);
