/** The data assistant's own tables and look-ups (spec §4.7; docs/ASSISTANT.md): the schema index and revoked owners. */
import { CONCEPTS, TABLE_NOTES } from '../domain/assistant/concepts';
import type { IndexEntry } from '../domain/assistant/budget';
import { readerRole } from './assistantQuery';
import { sql, type Db, type Tx } from './pool';

/**
 * The tables the tenant's reader role may SELECT (partitions left out: their parent stands for them), with columns.
 * The tenant's own relations are picked first and only they are checked for the privilege: checked over the whole
 * catalog (every tenant's tables, indexes and sequences), the check cost about 160 ms with 70 tenants and grew with
 * each one, on every question to a tenant whose index was not built. They are found through pg_depend, whose index
 * on the referenced object leads from the schema to its relations: pg_class has no index on the schema alone, and
 * picking them there read the whole of pg_class, every tenant's relations (21 ms a question with 140 tenants in the
 * test run's databases).
 */
export async function readCatalog(tx: Tx, schema: string): Promise<IndexEntry[]> {
  const rows = (await tx.any(sql.unsafe`
    WITH rels AS MATERIALIZED (
      SELECT c.oid, c.relname
      FROM pg_depend d JOIN pg_class c ON c.oid = d.objid
      WHERE d.refclassid = 'pg_namespace'::regclass AND d.refobjid = to_regnamespace(${schema}) AND d.refobjsubid = 0
        AND d.classid = 'pg_class'::regclass AND d.deptype = 'n'
        AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition AND c.relname <> 'assistant_index')
    SELECT r.relname AS name,
           (SELECT coalesce(json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum), '[]')
            FROM pg_attribute a WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns
    FROM rels r
    WHERE EXISTS (SELECT 1 FROM pg_roles ro WHERE ro.rolname = ${readerRole(schema)})
      AND has_table_privilege(${readerRole(schema)}, r.oid, 'SELECT')
    ORDER BY r.relname`)) as Array<{ name: string; columns: Array<{ name: string; type: string }> }>;
  return [
    ...CONCEPTS.map((c) => ({ kind: 'concept' as const, name: c.name, description: c.description, columns: [], keywords: c.keywords })),
    ...rows.map((r) => ({ kind: 'table' as const, name: r.name, description: TABLE_NOTES[r.name] ?? '', columns: r.columns, keywords: r.name.split('_') })),
  ];
}

/** Replaces the stored index. */
export async function storeIndex(tx: Tx, entries: readonly IndexEntry[]): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM assistant_index`);
  if (!entries.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO assistant_index (kind, name, description, columns, keywords)
    SELECT e->>'kind', e->>'name', e->>'description', e->'columns', ARRAY(SELECT jsonb_array_elements_text(e->'keywords'))
    FROM jsonb_array_elements(${JSON.stringify(entries)}::jsonb) AS e`);
}

export async function loadIndex(tx: Tx): Promise<{ entries: IndexEntry[]; builtAt: string | null }> {
  const rows = (await tx.any(sql.unsafe`SELECT kind, name, description, columns, keywords, built_at FROM assistant_index ORDER BY kind, name`)) as Array<IndexEntry & { built_at: string }>;
  return {
    entries: rows.map(({ built_at: _b, ...e }) => e),
    builtAt: rows.length ? rows.reduce((m, r) => (r.built_at > m ? r.built_at : m), rows[0].built_at) : null,
  };
}

/** Which of these token ids are revoked (logged out): their assistant sessions are cleared. */
export async function revokedTokenIds(db: Db, jtis: readonly string[]): Promise<Set<string>> {
  const ids = jtis.filter((j) => /^[0-9a-f-]{36}$/i.test(j));
  if (!ids.length) return new Set();
  const rows = (await db.any(sql.unsafe`SELECT jti::text AS jti FROM master.revoked_tokens WHERE jti = ANY(${sql.array(ids, 'uuid')})`)) as Array<{ jti: string }>;
  return new Set(rows.map((r) => r.jti));
}
