/** What the assistant says to the model and how it reads the answer (docs/ASSISTANT.md). */
import type { ChartHint } from './chart';
import type { ContextTurn } from './budget';

export const DEFAULT_ROW_LIMIT = 500;

export function systemPrompt(schema: string, history: readonly ContextTurn[], opts: { pipelineId: number | null; scenarioId: number | null }): string {
  const past = history.map((t) => (t.role === 'user' ? `User: ${t.content}` : `Assistant: ${t.sql ? `SQL: ${t.sql}; ` : ''}${t.result_summary ?? t.content}`)).join('\n');
  return [
    'You write one PostgreSQL SELECT statement that answers the planner\'s question from the tables below.',
    'Rules: one statement only; it starts with SELECT or WITH; no comments; no schema names; never write, create or change anything; no functions starting with pg_.',
    `At most ${DEFAULT_ROW_LIMIT} rows are returned; the query is cancelled after 8 seconds.`,
    opts.pipelineId !== null ? `Filter results by pipeline_id = ${opts.pipelineId}.` : '',
    opts.scenarioId !== null ? `Where a table has scenario_id, use scenario_id = ${opts.scenarioId}.` : '',
    'Answer with a JSON object: {"sql": "...", "explanation": "one sentence", "chart": {"type": "none|kpi|line|bar|bar_stacked|table", "x_col": "...", "y_cols": ["..."], "title": "..."}}.',
    '',
    'Schema:',
    schema,
    past ? `\nConversation so far:\n${past}` : '',
  ].filter((l) => l !== '').join('\n');
}

export interface ModelSql { sql: string; explanation: string | null; chart: ChartHint | null }

/** The SQL of a model answer: a JSON object with `sql`, or a ```sql block, or the bare text. Null when there is none. */
export function readModelSql(content: string): ModelSql | null {
  const text = content.trim();
  const json = /^\s*```(?:json)?\s*([\s\S]*?)```\s*$/i.exec(text)?.[1] ?? text;
  try {
    const v = JSON.parse(json);
    if (v && typeof v === 'object' && typeof v.sql === 'string' && v.sql.trim()) {
      return {
        sql: v.sql,
        explanation: typeof v.explanation === 'string' ? v.explanation.slice(0, 500) : null,
        chart: v.chart && typeof v.chart === 'object' && !Array.isArray(v.chart) ? v.chart : null,
      };
    }
    return null;
  } catch {
    // not JSON: a fenced block or the bare statement
  }
  const block = /```(?:sql)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  const sql = (block ?? text).trim();
  return sql ? { sql, explanation: null, chart: null } : null;
}

/** The retry message of rule 2: the previous statement and why it failed. */
export function retryMessage(question: string, previousSql: string | null, error: string): string {
  return `${question}\n\nYour previous answer${previousSql ? ` (${previousSql.slice(0, 600)})` : ''} failed: ${error.slice(0, 300)}. Write a corrected statement.`;
}

/** The answer in words: what was found, the first rows, and the model's explanation when it gave one. */
export function answerText(opts: { rowCount: number; truncated: boolean; columns: readonly string[]; rows: ReadonlyArray<Record<string, unknown>>; explanation?: string | null; via?: string | null }): string {
  const parts: string[] = [];
  if (opts.via) parts.push(opts.via);
  if (opts.explanation) parts.push(opts.explanation.trim());
  if (opts.rowCount === 0) parts.push('The query returned no rows.');
  else {
    parts.push(`The query returned ${opts.rowCount} row${opts.rowCount === 1 ? '' : 's'}${opts.truncated ? ` (cut at the limit of ${DEFAULT_ROW_LIMIT})` : ''}.`);
    const show = opts.rows.slice(0, 3).map((r) => opts.columns.slice(0, 5).map((c) => `${c} ${fmt(r[c])}`).join(', '));
    parts.push(`${opts.rowCount === 1 ? 'Result' : 'First rows'}: ${show.join('; ')}.`);
  }
  return parts.join(' ');
}

function fmt(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 100) / 100);
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') return JSON.stringify(v).slice(0, 60);
  return String(v).slice(0, 60);
}

/** The tables a statement names (from the index's table names, as whole words, quoted or not). */
export function tablesIn(statement: string, tableNames: readonly string[]): string[] {
  const lower = statement.toLowerCase();
  return tableNames.filter((t) => new RegExp(`(^|[^a-z0-9_$])"?${t.toLowerCase()}"?($|[^a-z0-9_$])`).test(lower));
}
