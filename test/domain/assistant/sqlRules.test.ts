import { checkReadOnlySql, FORBIDDEN_KEYWORDS, lexSql } from '../../../domain/assistant/sqlRules';

const ok = (s: string) => checkReadOnlySql(s);
const reason = (s: string) => {
  const r = checkReadOnlySql(s);
  return r.ok ? null : r.reason;
};

test('plain SELECT and WITH pass; a trailing semicolon and comments are removed', () => {
  expect(ok('SELECT 1')).toEqual({ ok: true, sql: 'SELECT 1' });
  expect(ok('  with x as (select 1 as a) select a from x ;  ')).toEqual({ ok: true, sql: 'with x as (select 1 as a) select a from x' });
  expect(ok('-- the items\nSELECT id /* the id */ FROM items;')).toEqual({ ok: true, sql: 'SELECT id   FROM items' });
});

test('rule 1: must start with SELECT or WITH once comments are stripped', () => {
  expect(reason('EXPLAIN SELECT 1')).toBe('the statement must start with SELECT or WITH');
  expect(reason('/* SELECT */ VALUES (1)')).toBe('the statement must start with SELECT or WITH');
  expect(reason('SEL/**/ECT 1')).toBe('the statement must start with SELECT or WITH');
  expect(reason('SELECTED 1')).toBe('the statement must start with SELECT or WITH');
  expect(reason('')).toBe('empty statement');
});

test('rule 1: more than one statement is rejected, a ; inside a literal is not a separator', () => {
  expect(reason('SELECT 1; SELECT 2')).toBe('more than one statement');
  expect(reason('SELECT 1;;')).toBeNull();
  expect(reason("SELECT ';' AS semi")).toBeNull();
  expect(reason('SELECT 1 AS ";"')).toBeNull();
  expect(reason('SELECT $$;$$')).toBeNull();
  expect(reason('SELECT 1 --; DROP\n; SELECT 2')).toBe('more than one statement');
});

test.each(FORBIDDEN_KEYWORDS.map((k) => [k]))('rule 1: %s as a whole word is rejected, in any case, also hidden by comments', (k) => {
  expect(reason(`SELECT 1 FROM items WHERE 'x' <> '${k}'`)).toBe(`forbidden keyword ${k}`);
  expect(reason(`WITH d AS (${k.toLowerCase()} something) SELECT 1`)).toBe(`forbidden keyword ${k}`);
  // a comment is a space: the two halves are two words, and neither is the keyword
  const half = Math.ceil(k.length / 2);
  expect(reason(`SELECT 1 AS ${k.slice(0, half)}/* */${k.slice(half)}x`)).toBeNull();
  // part of a longer word is not the word
  expect(reason(`SELECT 1 AS ${k.toLowerCase()}_count`)).toBeNull();
});

test('settings, sleeps, locks, dynamic SQL, files, other schemas and escaped names are rejected', () => {
  expect(reason("SELECT set_config('search_path', 'x', false)")).toBe('forbidden word SET_CONFIG');
  expect(reason('SELECT pg_sleep(10)')).toBe('forbidden name pg_…');
  expect(reason('SELECT "pg_sleep"(10)')).toBe('forbidden name pg_…');
  expect(reason('SELECT pg_advisory_lock(1)')).toBe('forbidden name pg_…');
  expect(reason("SELECT query_to_xml('select 1', true, true, '')")).toBe('forbidden word QUERY_TO_XML');
  expect(reason("SELECT ts_stat('select 1')")).toBe('forbidden word TS_STAT');
  expect(reason("SELECT * FROM dblink('x', 'y')")).toBe('forbidden word DBLINK');
  expect(reason('SELECT * FROM master.accounts')).toBe('forbidden word MASTER');
  expect(reason('SELECT * FROM t_0123456789abcdef0123456789abcdef.items')).toBe('schema-qualified names are not allowed: the query sees its own tenant only');
  expect(reason('SELECT U&"\\0070g_sleep"(1)')).toBe('unicode-escaped names or strings (U&) are not allowed');
  expect(reason('SELECT * INTO copy_of_items FROM items')).toBe('forbidden word INTO');
  expect(reason('SELECT * FROM items FOR UPDATE')).toBe('forbidden keyword UPDATE');
  expect(reason("SELECT nextval('items_id_seq')")).toBe('forbidden word NEXTVAL');
  expect(reason("SELECT lo_import('/etc/passwd')")).toBe('forbidden name lo_…');
});

test('the lexer: nested comments, escapes and unterminated text', () => {
  expect(lexSql('a /* x /* y */ z */ b').text).toBe('a   b');
  expect(lexSql("E'it\\'s' ; x").separators).toBe(1);
  expect(lexSql("'it''s;'").separators).toBe(0);
  expect(reason("SELECT 'open")).toBe('unterminated string');
  expect(reason('SELECT 1 /* open')).toBe('unterminated comment');
  expect(reason('SELECT $a$ open')).toBe('unterminated dollar-quoted string');
});
