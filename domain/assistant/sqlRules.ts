/**
 * The textual rules a generated statement must pass before it runs (spec §4.7 rule 1; docs/ASSISTANT.md). They are the
 * first of three locks: the statement then runs in a READ ONLY transaction as the tenant's SELECT-only role
 * (db/assistantQuery.ts), so a statement that slipped past these rules still could not write or read another tenant.
 *
 * The text is lexed, not pattern-matched blindly: comments (`--`, nested `/* *\/`) are replaced by a space, as
 * PostgreSQL reads them, so `DEL/**\/ETE` is two words and `SEL/* x *\/ECT` does not start with SELECT; a `;` inside a
 * string literal or quoted identifier is not a statement separator. Forbidden words are then looked for in the whole
 * remaining text, string literals included (stricter than needed: a string cannot execute, but a few functions run
 * the text they are given).
 */

/** Spec §4.7 rule 1: any of these as a whole word rejects the statement. */
export const FORBIDDEN_KEYWORDS = [
  'INSERT', 'UPDATE', 'DELETE', 'DROP', 'ALTER', 'TRUNCATE', 'CREATE', 'GRANT', 'REVOKE', 'ATTACH', 'DETACH', 'RENAME',
  'OPTIMIZE', 'EXCHANGE', 'REPLACE', 'MOVE', 'MUTATE',
] as const;

/**
 * Beyond the spec's list, words PostgreSQL would accept in a SELECT and that reach outside it: session settings
 * (set_config can change the role), sleeps, advisory locks (a session lock outlives the transaction), functions that
 * run the text they are given (query_to_xml and kin, ts_stat, ts_rewrite), files, large objects, other databases,
 * notifications, sequences, backend signals, and the statements a WITH or SELECT cannot start but a second statement
 * could (COPY, SET, RESET, ROLE, EXECUTE, CALL, LOCK, ...).
 */
export const FORBIDDEN_WORDS = [
  'COPY', 'SET', 'RESET', 'ROLE', 'SESSION', 'AUTHORIZATION', 'EXECUTE', 'PREPARE', 'DEALLOCATE', 'CALL', 'DO', 'LOCK', 'LISTEN', 'NOTIFY', 'UNLISTEN',
  'VACUUM', 'ANALYZE', 'CLUSTER', 'REINDEX', 'CHECKPOINT', 'DISCARD', 'LOAD', 'IMPORT', 'SECURITY', 'REFRESH', 'COMMENT', 'MERGE', 'UPSERT',
  'INTO', 'SAVEPOINT', 'ROLLBACK', 'COMMIT', 'BEGIN', 'TRANSACTION', 'DECLARE', 'FETCH', 'CLOSE', 'CURSOR',
  'SET_CONFIG', 'CURRENT_SETTING', 'DBLINK', 'CROSSTAB', 'TS_STAT', 'TS_REWRITE', 'NEXTVAL', 'SETVAL', 'CURRVAL', 'LASTVAL',
  'QUERY_TO_XML', 'QUERY_TO_XMLSCHEMA', 'QUERY_TO_XML_AND_XMLSCHEMA', 'TABLE_TO_XML', 'TABLE_TO_XMLSCHEMA', 'TABLE_TO_XML_AND_XMLSCHEMA',
  'CURSOR_TO_XML', 'CURSOR_TO_XMLSCHEMA', 'SCHEMA_TO_XML', 'SCHEMA_TO_XMLSCHEMA', 'SCHEMA_TO_XML_AND_XMLSCHEMA',
  'DATABASE_TO_XML', 'DATABASE_TO_XMLSCHEMA', 'DATABASE_TO_XML_AND_XMLSCHEMA',
  'PG_CATALOG', 'INFORMATION_SCHEMA', 'MASTER', 'PUBLIC',
] as const;

/** Identifier prefixes that are never data: PostgreSQL's own functions and catalogs, large objects, dblink, file access. */
const FORBIDDEN_PREFIXES = ['pg_', 'lo_', 'dblink', 'txid_', 'file_', 'binary_upgrade'];

export type SqlCheck = { ok: true; sql: string } | { ok: false; reason: string };

interface Lexed {
  /** the text with comments replaced by one space */
  text: string;
  /** `;` found outside literals and comments */
  separators: number;
  error?: string;
}

/** Strips comments and finds statement separators, honouring '…', E'…', "…", $tag$…$tag$ and nested block comments. */
export function lexSql(input: string): Lexed {
  let out = '';
  let separators = 0;
  let i = 0;
  const n = input.length;
  while (i < n) {
    const c = input[i];
    const next = input[i + 1];
    if (c === '-' && next === '-') {
      while (i < n && input[i] !== '\n' && input[i] !== '\r') i++;
      out += ' ';
      continue;
    }
    if (c === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (input[i] === '/' && input[i + 1] === '*') { depth++; i += 2; } else if (input[i] === '*' && input[i + 1] === '/') { depth--; i += 2; } else i++;
      }
      if (depth > 0) return { text: out, separators, error: 'unterminated comment' };
      out += ' ';
      continue;
    }
    if (c === "'" || c === '"') {
      // E'…' strings take backslash escapes; '' and "" double the quote
      const escapes = c === "'" && /[eE]$/.test(out) && !/[\w$]$/.test(out.slice(0, -1));
      let j = i + 1;
      for (;;) {
        if (j >= n) return { text: out, separators, error: c === "'" ? 'unterminated string' : 'unterminated quoted identifier' };
        if (escapes && input[j] === '\\') { j += 2; continue; }
        if (input[j] === c) {
          if (input[j + 1] === c) { j += 2; continue; }
          break;
        }
        j++;
      }
      out += input.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '$') {
      const m = /^\$([A-Za-z_][A-Za-z_0-9]*)?\$/.exec(input.slice(i));
      if (m && !/[\w$]$/.test(out)) {
        const tag = m[0];
        const end = input.indexOf(tag, i + tag.length);
        if (end < 0) return { text: out, separators, error: 'unterminated dollar-quoted string' };
        out += input.slice(i, end + tag.length);
        i = end + tag.length;
        continue;
      }
    }
    if (c === ';') separators++;
    out += c;
    i++;
  }
  return { text: out, separators };
}

const wordRe = (w: string) => new RegExp(`(^|[^A-Za-z0-9_$])${w}($|[^A-Za-z0-9_$])`, 'i');
const KEYWORD_RES = FORBIDDEN_KEYWORDS.map((w) => [w, wordRe(w)] as const);
const WORD_RES = FORBIDDEN_WORDS.map((w) => [w, wordRe(w)] as const);
const PREFIX_RE = new RegExp(`(^|[^A-Za-z0-9_$])(${FORBIDDEN_PREFIXES.join('|')})`, 'i');
const TENANT_SCHEMA_RE = /(^|[^A-Za-z0-9_$])t_[0-9a-f]{32}/i;

/**
 * Spec §4.7 rule 1, then the extra words above. The statement returned is the one to run: comments removed, a
 * trailing `;` and surrounding space trimmed.
 */
export function checkReadOnlySql(input: string): SqlCheck {
  if (typeof input !== 'string' || !input.trim()) return { ok: false, reason: 'empty statement' };
  if (input.length > 20_000) return { ok: false, reason: 'statement longer than 20000 characters' };
  if (/\u0000/.test(input)) return { ok: false, reason: 'NUL character in the statement' };
  const lexed = lexSql(input);
  if (lexed.error) return { ok: false, reason: lexed.error };
  let text = lexed.text.trim();
  let separators = lexed.separators;
  while (text.endsWith(';')) {
    text = text.slice(0, -1).trimEnd();
    separators--;
  }
  if (separators > 0) return { ok: false, reason: 'more than one statement' };
  if (!/^(SELECT|WITH)($|[^A-Za-z0-9_$])/i.test(text)) return { ok: false, reason: 'the statement must start with SELECT or WITH' };
  // U&"…" and U&'…' spell names with escapes (U&"set\005fconfig"): no textual rule could read them
  if (/U&['"]/i.test(text)) return { ok: false, reason: 'unicode-escaped names or strings (U&) are not allowed' };
  for (const [w, re] of KEYWORD_RES) if (re.test(text)) return { ok: false, reason: `forbidden keyword ${w}` };
  for (const [w, re] of WORD_RES) if (re.test(text)) return { ok: false, reason: `forbidden word ${w}` };
  const prefix = PREFIX_RE.exec(text);
  if (prefix) return { ok: false, reason: `forbidden name ${prefix[2].toLowerCase()}…` };
  if (TENANT_SCHEMA_RE.test(text)) return { ok: false, reason: 'schema-qualified names are not allowed: the query sees its own tenant only' };
  return { ok: true, sql: text };
}
