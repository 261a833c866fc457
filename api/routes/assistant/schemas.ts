import { CHART_TYPES } from '../../../domain/assistant/chart';
import { int4, nullable, obj, out } from '../schemas';
import type { JsonSchema } from '../validation';

const str: JsonSchema = { type: 'string' };
const strings: JsonSchema = { type: 'array', items: str };
const sessionId: JsonSchema = { type: 'string', maxLength: 200, pattern: '^[^\\u0000-\\u001f]*$', description: 'the session to continue; empty: resolved from the token (spec §4.7 rule 4)' };

export const chatBody = obj({
  question: { type: 'string', minLength: 1, maxLength: 2000, description: 'the question in plain language' },
  pipeline_id: nullable(int4(0, { description: 'pipeline the question is about (results are filtered by it); omitted: the most recent one' })),
  scenario_id: nullable(int4(0, { description: 'scenario the question is about, where a table has one' })),
  session_id: sessionId,
}, ['question']);

export const chart = out({
  type: { type: 'string', enum: [...CHART_TYPES] },
  x_col: nullable(str),
  y_cols: strings,
  title: str,
});

export const chatResponse = out({
  answer: { type: 'string', description: 'the result explained in words' },
  sql: { type: 'string', description: 'the query behind the answer (the last one tried when none worked)' },
  tables_used: strings,
  concepts_used: strings,
  chart,
  data: { type: 'array', items: { type: 'object' }, description: `rows as objects keyed by column (at most 500)` },
  columns: strings,
  row_count: { type: 'integer' },
  attempts: { type: 'integer', description: 'model calls used (at most MAX_SQL_RETRIES); 1 for a template answer, 0 when nothing could be tried' },
  duration_ms: { type: 'number', description: 'statement time of the last query run, measured by the server' },
  session_id: str,
  error: { type: 'string', description: 'present only when no query produced a result: why the last attempt failed' },
  mode: { type: 'string', enum: ['llm', 'template', 'none'], description: 'who wrote the query: the model, a template (no model configured or reachable), or nobody' },
  cached: { type: 'boolean', description: 'true when the answer came from the response cache (64 entries, 300 s)' },
}, ['answer', 'sql', 'tables_used', 'concepts_used', 'chart', 'data', 'columns', 'row_count', 'attempts', 'duration_ms', 'session_id', 'mode', 'cached']);

export const statusResponse = out({
  ollama_url: { ...nullable(str), description: "the model host: the tenant parameter llm.base_url (null: none configured)" },
  model: nullable(str),
  available: { type: 'boolean', description: 'the model host answered GET /models within 3 seconds' },
  available_models: strings,
  embedding_model: nullable(str),
  embedding_fallback: { type: 'boolean', description: 'true: tables are chosen for the context by shared words, not embeddings' },
  index_ready: { type: 'boolean' },
  index_path: str,
  index_built_at: nullable(str),
  index_stats: { type: 'object', additionalProperties: { type: 'integer' }, description: 'columns per indexed table' },
  memory: out({ sessions: { type: 'integer' }, total_turns: { type: 'integer' }, max_turns_per_session: { type: 'integer' }, ttl_seconds: { type: 'integer' } }),
  cache: out({ entries: { type: 'integer' }, max_entries: { type: 'integer' }, ttl_seconds: { type: 'integer' } }),
  max_sql_retries: { type: 'integer' },
  row_limit: { type: 'integer' },
  statement_timeout_ms: { type: 'integer' },
}, ['ollama_url', 'model', 'available', 'available_models', 'embedding_model', 'embedding_fallback', 'index_ready', 'index_path', 'index_stats', 'memory']);

export const indexResponse = out({
  status: str,
  counts: { type: 'object', additionalProperties: { type: 'integer' }, description: 'rows of the index by kind: tables, columns, concepts' },
});

const turn = out({
  role: { type: 'string', enum: ['user', 'assistant'] }, content: str, ts: str,
  sql: str, result_summary: { type: 'string', maxLength: 200 },
}, ['role', 'content', 'ts']);

export const historyQuery = obj({ session_id: sessionId });
export const historyResponse = out({ session_id: str, history: { type: 'array', items: turn } });
export const clearBody = obj({ session_id: sessionId });
export const clearResponse = out({ cleared: { type: 'boolean' }, session_id: str });
