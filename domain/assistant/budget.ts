/**
 * The context the model sees (spec §8: about 2000 tokens): the concepts, then the tables that share the most words
 * with the question, then the session's last turns, each added while the estimate stays within the budget.
 * Tokens are estimated at 4 characters each (no tokenizer: the budget is a bound, not an exact count).
 */

export const CONTEXT_BUDGET_TOKENS = 2000;

export interface IndexColumn { name: string; type: string }
export interface IndexEntry { kind: 'table' | 'concept'; name: string; description: string; columns: IndexColumn[]; keywords: string[] }

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

const STOP = new Set(['the', 'a', 'an', 'of', 'in', 'at', 'for', 'by', 'to', 'and', 'or', 'with', 'which', 'what', 'how', 'many', 'are', 'is', 'will', 'next', 'show', 'me', 'all', 'per', 'on', 'from', 'that', 'this', 'do', 'does']);

/** Lower-case words of a text, plural `s` dropped, stop words out. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z0-9]*/g) ?? []).filter((w) => !STOP.has(w)).map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

export function describeEntry(e: IndexEntry): string {
  if (e.kind === 'concept') return `- ${e.name}: ${e.description}`;
  return `TABLE ${e.name} (${e.columns.map((c) => `${c.name} ${c.type}`).join(', ')})${e.description ? ` -- ${e.description}` : ''}`;
}

/** How strongly an entry relates to the question: shared words between the question and its name, keywords and columns. */
export function relevance(e: IndexEntry, question: string): number {
  const q = new Set(words(question));
  let score = 0;
  for (const w of words(e.name.replace(/_/g, ' '))) if (q.has(w)) score += 3;
  for (const k of e.keywords) for (const w of words(k)) if (q.has(w)) score += 2;
  for (const c of e.columns) for (const w of words(c.name.replace(/_/g, ' '))) if (q.has(w)) score += 1;
  return score;
}

export interface ContextTurn { role: 'user' | 'assistant'; content: string; sql?: string; result_summary?: string }

/** The schema text and the history that fit in the budget; `tables` names the tables it kept. */
export function buildContext(entries: readonly IndexEntry[], question: string, history: readonly ContextTurn[], budget = CONTEXT_BUDGET_TOKENS): { schema: string; history: ContextTurn[]; tables: string[]; concepts: string[]; tokens: number } {
  let used = estimateTokens(question);
  const lines: string[] = [];
  const tables: string[] = [];
  const concepts: string[] = [];
  const conceptEntries = entries.filter((e) => e.kind === 'concept').sort((a, b) => relevance(b, question) - relevance(a, question));
  const tableEntries = entries.filter((e) => e.kind === 'table').map((e, i) => ({ e, i, r: relevance(e, question) })).sort((a, b) => b.r - a.r || a.i - b.i).map((x) => x.e);
  // a quarter of the budget for concepts, three quarters less the history for tables
  const historyBudget = Math.floor(budget * 0.15);
  for (const c of conceptEntries) {
    const text = describeEntry(c);
    if (used + estimateTokens(text) > budget * 0.25) continue;
    lines.push(text);
    concepts.push(c.name);
    used += estimateTokens(text);
  }
  for (const t of tableEntries) {
    const text = describeEntry(t);
    if (used + estimateTokens(text) > budget - historyBudget) continue;
    lines.push(text);
    tables.push(t.name);
    used += estimateTokens(text);
  }
  const kept: ContextTurn[] = [];
  for (const turn of [...history].reverse()) {
    const cost = estimateTokens(turn.content) + estimateTokens(turn.sql ?? '') + estimateTokens(turn.result_summary ?? '');
    if (used + cost > budget) break;
    kept.unshift(turn);
    used += cost;
  }
  return { schema: lines.join('\n'), history: kept, tables, concepts, tokens: used };
}
