/**
 * Segments: the field catalogue rules may use, rules translated to SQL (bound values, field names only from the
 * catalogue), membership, and the permission scope other areas use to filter series (`seriesScope`).
 */
import { abcField, attributeField, fixedFields, inferAttributeType, type AttributeKey } from '../domain/segments/fields';
import { checkRules, type FieldDef, type Rule } from '../domain/segments/rules';
import { sql, type Tx } from './pool';

export type Fragment = ReturnType<typeof sql.fragment>;

// ---------------------------------------------------------------------------------------------------------------
// Permission scope (spec §5.12)

/** The parts of the caller that segment permissions read (structurally the API's AuthUser). */
export interface ScopeUser {
  role: string;
  allowedSegments: number[];
  allowedSegmentsEdit: number[];
}

/**
 * Segments the user may view, or null for all. An empty `allowed_segments` means no restriction, for admins (as the
 * spec says) and for other users alike (see docs/SEGMENTS_ABC.md); segments the user may edit are always viewable.
 */
export function visibleSegmentIds(user: ScopeUser): number[] | null {
  if (!user.allowedSegments.length) return null;
  return [...new Set([...user.allowedSegments, ...user.allowedSegmentsEdit])].sort((a, b) => a - b);
}

/** Segments the user may edit, or null for all: `allowed_segments_edit` when set, else whatever the user may view. */
export function editableSegmentIds(user: ScopeUser): number[] | null {
  if (user.allowedSegmentsEdit.length) return [...user.allowedSegmentsEdit].sort((a, b) => a - b);
  return visibleSegmentIds(user);
}

export const canViewSegment = (user: ScopeUser, id: number) => {
  const ids = visibleSegmentIds(user);
  return ids === null || ids.includes(id);
};

export const canEditSegment = (user: ScopeUser, id: number) => {
  const ids = editableSegmentIds(user);
  return ids === null || ids.includes(id);
};

function scopeOf(ids: number[] | null, alias: string): Fragment {
  if (ids === null) return sql.fragment`TRUE`;
  const a = sql.identifier([alias]);
  return sql.fragment`EXISTS (SELECT 1 FROM segment_members scope_m
    WHERE scope_m.segment_id = ANY(${sql.array(ids, 'int4')}) AND scope_m.item_id = ${a}.item_id AND scope_m.site_id = ${a}.site_id)`;
}

/**
 * A boolean SQL condition on `<alias>.item_id, <alias>.site_id`: true for the series the user may see (members of
 * their allowed segments), `TRUE` for an unrestricted user. Every list of series ANDs it into its WHERE clause.
 */
export function seriesScope(user: ScopeUser, alias = 's'): Fragment {
  return scopeOf(visibleSegmentIds(user), alias);
}

/** Like seriesScope, for changes: the series the user may edit (overrides, locked methods, NPI dismissal). */
export function seriesEditScope(user: ScopeUser, alias = 's'): Fragment {
  return scopeOf(editableSegmentIds(user), alias);
}

export async function canSeeSeries(tx: Tx, user: ScopeUser, itemId: number, siteId: number): Promise<boolean> {
  if (visibleSegmentIds(user) === null) return true;
  return Boolean(await tx.maybeOneFirst(sql.unsafe`
    SELECT true FROM (SELECT ${itemId}::int AS item_id, ${siteId}::int AS site_id) s WHERE ${seriesScope(user, 's')}`));
}

export async function canEditSeries(tx: Tx, user: ScopeUser, itemId: number, siteId: number): Promise<boolean> {
  if (editableSegmentIds(user) === null) return true;
  return Boolean(await tx.maybeOneFirst(sql.unsafe`
    SELECT true FROM (SELECT ${itemId}::int AS item_id, ${siteId}::int AS site_id) s WHERE ${seriesEditScope(user, 's')}`));
}

// ---------------------------------------------------------------------------------------------------------------
// Field catalogue

export interface Catalogue {
  fields: FieldDef[];
  byName: Map<string, FieldDef>;
  /** abc:<name> → configuration id */
  abcIds: Map<string, number>;
  /** attribute fields → their jsonb key */
  attributeKeys: Map<string, { scope: 'item' | 'site'; key: string }>;
}

const MAX_VALUES = 50;

async function attributeKeys(tx: Tx, scope: 'item' | 'site'): Promise<AttributeKey[]> {
  const table = sql.identifier([scope === 'item' ? 'items' : 'sites']);
  const rows = (await tx.any(sql.unsafe`
    SELECT e.key,
      array_agg(DISTINCT jsonb_typeof(e.value)) AS types,
      bool_and(jsonb_typeof(e.value) <> 'string' OR (e.value #>> '{}') ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$') AS iso,
      count(DISTINCT e.value)::int AS n_values,
      CASE WHEN count(DISTINCT e.value) <= ${MAX_VALUES} THEN jsonb_agg(DISTINCT e.value) FILTER (WHERE jsonb_typeof(e.value) <> 'null') END AS vals
    FROM ${table} t CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(t.attributes) = 'object' THEN t.attributes ELSE '{}'::jsonb END) e
    GROUP BY e.key ORDER BY e.key`)) as Array<{ key: string; types: string[]; iso: boolean; n_values: number; vals: unknown[] | null }>;
  return rows.map((r) => {
    const type = inferAttributeType(r.types, r.iso);
    const vals = r.vals && type !== 'number' ? (r.vals as Array<string | number | boolean>).map((v) => (type === 'string' ? String(v) : v)) : undefined;
    return { scope, key: r.key, type, ...(vals ? { values: [...new Set(vals)].sort((a, b) => String(a).localeCompare(String(b))) } : {}) };
  });
}

/** Every field a rule may use in this tenant: fixed fields, discovered attributes and one field per ABC configuration. */
export async function fieldCatalogue(tx: Tx): Promise<Catalogue> {
  const fields = fixedFields();
  const siteTypes = (await tx.anyFirst(sql.unsafe`
    SELECT DISTINCT site_type FROM sites WHERE site_type IS NOT NULL ORDER BY site_type LIMIT ${MAX_VALUES + 1}`)) as string[];
  const siteType = fields.find((f) => f.field === 'site_type')!;
  if (siteTypes.length <= MAX_VALUES) siteType.values = [...siteTypes];
  const attributeMap = new Map<string, { scope: 'item' | 'site'; key: string }>();
  for (const scope of ['item', 'site'] as const) {
    for (const a of await attributeKeys(tx, scope)) {
      const f = attributeField(a);
      fields.push(f);
      attributeMap.set(f.field, { scope, key: a.key });
    }
  }
  const configs = (await tx.any(sql.unsafe`SELECT id, name, class_labels FROM abc_configurations ORDER BY id`)) as Array<{ id: number; name: string; class_labels: string[] }>;
  const abcIds = new Map<string, number>();
  for (const c of configs) {
    const f = abcField(c);
    fields.push(f);
    abcIds.set(f.field, c.id);
  }
  return { fields, byName: new Map(fields.map((f) => [f.field, f])), abcIds, attributeKeys: attributeMap };
}

// ---------------------------------------------------------------------------------------------------------------
// Rules → SQL. Aliases: s = series, i = items, st = sites, wk = weekly statistics (joined when a rule needs them).

const ADI_CUTOFF = 1.32;
const CV2_CUTOFF = 0.49;

/** ADI, CoV, CV² of the non-zero demands, demand class and is_intermittent of series `s`, from series_weekly. */
export const weeklyStatsJoin = (when: Fragment = sql.fragment`TRUE`): Fragment => sql.fragment`LEFT JOIN LATERAL (
  SELECT a.adi, a.cov, a.cv2,
    CASE WHEN a.n = 0 THEN NULL
      WHEN a.adi > ${ADI_CUTOFF} THEN CASE WHEN a.cv2 > ${CV2_CUTOFF} THEN 'lumpy' ELSE 'intermittent' END
      ELSE CASE WHEN a.cv2 > ${CV2_CUTOFF} THEN 'erratic' ELSE 'smooth' END END AS demand_class,
    CASE WHEN a.n = 0 THEN NULL ELSE a.adi > ${ADI_CUTOFF} END AS is_intermittent
  FROM (
    SELECT count(w.y) AS n,
      CASE WHEN count(w.y) = 0 THEN NULL WHEN count(*) FILTER (WHERE w.y <> 0) = 0 THEN count(w.y)::float8
        ELSE count(w.y)::float8 / count(*) FILTER (WHERE w.y <> 0) END AS adi,
      CASE WHEN count(w.y) = 0 THEN NULL WHEN avg(w.y) = 0 THEN 0::float8 ELSE (COALESCE(stddev_samp(w.y), 0) / abs(avg(w.y)))::float8 END AS cov,
      CASE WHEN count(*) FILTER (WHERE w.y <> 0) < 2 THEN 0::float8
        ELSE power(stddev_samp(w.y) FILTER (WHERE w.y <> 0) / avg(w.y) FILTER (WHERE w.y <> 0), 2)::float8 END AS cv2
    FROM series_weekly w WHERE w.item_id = s.item_id AND w.site_id = s.site_id AND ${when}
  ) a
) wk ON true`;

export const WEEKLY_STATS_JOIN = weeklyStatsJoin();

const WEEKLY_FIELDS = new Set(['adi', 'cov', 'demand_class', 'is_intermittent']);

const FIXED_EXPR: Record<string, Fragment> = {
  unique_id: sql.fragment`(s.item_id::text || '_' || s.site_id::text)`,
  item_id: sql.fragment`s.item_id::float8`,
  item_xuid: sql.fragment`i.xuid`,
  item_name: sql.fragment`i.name`,
  avg_unit_cost: sql.fragment`i.avg_unit_cost::float8`,
  unit_price: sql.fragment`i.unit_price::float8`,
  site_id: sql.fragment`s.site_id::float8`,
  site_xuid: sql.fragment`st.xuid`,
  site_name: sql.fragment`st.name`,
  site_type: sql.fragment`st.site_type`,
  n_observations: sql.fragment`s.n_observations::float8`,
  date_range_start: sql.fragment`to_char(s.date_range_start, 'YYYY-MM-DD')`,
  date_range_end: sql.fragment`to_char(s.date_range_end, 'YYYY-MM-DD')`,
  mean: sql.fragment`s.mean::float8`,
  zero_ratio: sql.fragment`s.zero_ratio::float8`,
  total_demand: sql.fragment`s.total_demand::float8`,
  adi: sql.fragment`wk.adi`,
  cov: sql.fragment`wk.cov`,
  demand_class: sql.fragment`wk.demand_class`,
  is_intermittent: sql.fragment`wk.is_intermittent`,
  // no best-method results exist yet: every series' best method is unknown
  best_method: sql.fragment`NULL::text`,
};

function fieldExpr(def: FieldDef, cat: Catalogue): Fragment {
  const fixed = FIXED_EXPR[def.field];
  if (fixed) return fixed;
  const attr = cat.attributeKeys.get(def.field);
  if (attr) {
    const col = attr.scope === 'item' ? sql.fragment`i.attributes` : sql.fragment`st.attributes`;
    const key = attr.key;
    switch (def.type) {
      case 'number':
        return sql.fragment`(CASE WHEN jsonb_typeof(${col} -> ${key}::text) = 'number' THEN (${col} ->> ${key}::text)::float8 END)`;
      case 'boolean':
        return sql.fragment`(CASE WHEN jsonb_typeof(${col} -> ${key}::text) = 'boolean' THEN (${col} ->> ${key}::text)::boolean END)`;
      case 'date':
        return sql.fragment`(CASE WHEN jsonb_typeof(${col} -> ${key}::text) = 'string' THEN ${col} ->> ${key}::text END)`;
      default:
        return sql.fragment`(${col} ->> ${key}::text)`;
    }
  }
  const abcId = cat.abcIds.get(def.field);
  if (abcId !== undefined) {
    return sql.fragment`(SELECT r.class_label FROM abc_results r WHERE r.config_id = ${abcId} AND r.item_id = s.item_id AND r.site_id = s.site_id)`;
  }
  throw new Error(`no SQL for field ${def.field}`);
}

const arrayType = (def: FieldDef) => (def.type === 'number' ? 'float8' : def.type === 'boolean' ? 'bool' : 'text');

/** One validated rule as a boolean SQL condition; values are bound parameters, never spliced into the text. */
function ruleSql(rule: Rule, def: FieldDef, cat: Catalogue): Fragment {
  const raw = fieldExpr(def, cat);
  const str = def.type === 'string';
  const x = str ? sql.fragment`lower(${raw})` : raw;
  const val = (v: unknown) => (str ? String(v).toLowerCase() : (v as string | number | boolean));
  const list = () => sql.array((rule.value as unknown[]).map(val) as any[], arrayType(def) as any);
  switch (rule.operator) {
    case 'is null':
      return rule.value === false ? sql.fragment`(${raw}) IS NOT NULL` : sql.fragment`(${raw}) IS NULL`;
    case '=':
      return sql.fragment`${x} = ${val(rule.value)}`;
    case '!=':
      return sql.fragment`${x} <> ${val(rule.value)}`;
    case '<':
      return sql.fragment`${x} < ${val(rule.value)}`;
    case '<=':
      return sql.fragment`${x} <= ${val(rule.value)}`;
    case '>':
      return sql.fragment`${x} > ${val(rule.value)}`;
    case '>=':
      return sql.fragment`${x} >= ${val(rule.value)}`;
    case 'in':
      return sql.fragment`${x} = ANY(${list()})`;
    case 'not in':
      return sql.fragment`NOT (${x} = ANY(${list()}))`;
    case 'contains':
      return sql.fragment`strpos(${x}, ${val(rule.value)}) > 0`;
    case 'between': {
      const [lo, hi] = rule.value as unknown[];
      return sql.fragment`${x} BETWEEN ${val(lo)} AND ${val(hi)}`;
    }
  }
}

export interface Matcher {
  /** joins the rules need besides series s, items i and sites st */
  joins: Fragment;
  where: Fragment;
}

/** Validates the rules against the catalogue (throws RuleError naming the index) and builds their SQL. */
export function compileRules(rules: Rule[], cat: Catalogue, prefix = 'rules'): Matcher {
  const defs = checkRules(rules, cat.byName, prefix);
  const parts = rules.map((r, i) => ruleSql(r, defs[i], cat));
  const needsWeekly = defs.some((d) => WEEKLY_FIELDS.has(d.field));
  return {
    joins: needsWeekly ? WEEKLY_STATS_JOIN : sql.fragment``,
    where: parts.length ? sql.fragment`${sql.join(parts, sql.fragment` AND `)}` : sql.fragment`TRUE`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Segments

export interface SegmentRow {
  id: number;
  name: string;
  description: string | null;
  rules: Rule[];
  member_count: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  assigned_at: string | null;
}

const COLS = sql.fragment`g.id, g.name, g.description, g.rules, (SELECT count(*)::int FROM segment_members m WHERE m.segment_id = g.id) AS member_count,
  g.created_by, g.created_at, g.updated_at, g.assigned_at`;

export async function lockSegments(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('segments'))`);
}

export async function listSegments(tx: Tx, visible: number[] | null): Promise<SegmentRow[]> {
  const where = visible === null ? sql.fragment`TRUE` : sql.fragment`g.id = ANY(${sql.array(visible, 'int4')})`;
  return [...((await tx.any(sql.unsafe`SELECT ${COLS} FROM segments g WHERE ${where} ORDER BY g.id`)) as SegmentRow[])];
}

export async function getSegment(tx: Tx, id: number): Promise<SegmentRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLS} FROM segments g WHERE g.id = ${id}`)) as SegmentRow | null;
}

export async function findSegmentByName(tx: Tx, name: string, exceptId = 0): Promise<{ id: number; name: string } | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT id, name FROM segments WHERE lower(name) = lower(${name}) AND id <> ${exceptId}`)) as { id: number; name: string } | null;
}

export async function insertSegment(tx: Tx, s: { name: string; description: string | null; rules: Rule[] }, createdBy: string): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO segments (name, description, rules, created_by) VALUES (${s.name}, ${s.description}, ${sql.jsonb(s.rules as any)}, ${createdBy})
    RETURNING id`)) as number;
}

export async function updateSegment(tx: Tx, id: number, s: { name?: string; description?: string | null; rules?: Rule[] }): Promise<void> {
  const sets = [sql.fragment`updated_at = now()`];
  if (s.name !== undefined) sets.push(sql.fragment`name = ${s.name}`);
  if (s.description !== undefined) sets.push(sql.fragment`description = ${s.description}`);
  if (s.rules !== undefined) sets.push(sql.fragment`rules = ${sql.jsonb(s.rules as any)}`);
  await tx.query(sql.unsafe`UPDATE segments SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
}

export async function deleteSegment(tx: Tx, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM segments WHERE id = ${id}`);
}

export interface SegmentUsage {
  pipelines: Array<{ id: number; name: string }>;
  parameter_sets: Array<{ id: number; name: string }>;
  process_workflows: Array<{ id: number; name: string }>;
}

const tableExists = async (tx: Tx, name: string) => Boolean(await tx.oneFirst(sql.unsafe`SELECT to_regclass(${name}) IS NOT NULL`));

/** Who refers to the segment: pipelines, parameter sets (when that table exists) and process workflows. */
export async function segmentUsage(tx: Tx, id: number): Promise<SegmentUsage> {
  const pipelines = (await tx.any(sql.unsafe`
    SELECT p.id, p.name FROM pipeline_segments ps JOIN scenario_pipelines p ON p.id = ps.pipeline_id WHERE ps.segment_id = ${id} ORDER BY p.id`)) as Array<{ id: number; name: string }>;
  let sets: Array<{ id: number; name: string }> = [];
  if (await tableExists(tx, 'parameter_set_segments')) {
    sets = (await tableExists(tx, 'parameter_sets'))
      ? [...((await tx.any(sql.unsafe`
          SELECT ps.parameter_set_id AS id, COALESCE(p.name, 'parameter set ' || ps.parameter_set_id) AS name
          FROM parameter_set_segments ps LEFT JOIN parameter_sets p ON p.id = ps.parameter_set_id
          WHERE ps.segment_id = ${id} ORDER BY ps.parameter_set_id`)) as Array<{ id: number; name: string }>)]
      : [...((await tx.any(sql.unsafe`
          SELECT parameter_set_id AS id, 'parameter set ' || parameter_set_id AS name FROM parameter_set_segments WHERE segment_id = ${id} ORDER BY 1`)) as Array<{ id: number; name: string }>)];
  }
  const workflows = (await tx.any(sql.unsafe`
    SELECT workflow_id AS id, name FROM process_workflows WHERE ${id} = ANY(segment_ids) ORDER BY workflow_id`)) as Array<{ id: number; name: string }>;
  return { pipelines: [...pipelines], parameter_sets: sets, process_workflows: [...workflows] };
}

/** Removes every link to the segment (force delete). */
export async function unlinkSegment(tx: Tx, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM pipeline_segments WHERE segment_id = ${id}`);
  if (await tableExists(tx, 'parameter_set_segments')) await tx.query(sql.unsafe`DELETE FROM parameter_set_segments WHERE segment_id = ${id}`);
  await tx.query(sql.unsafe`UPDATE process_workflows SET segment_ids = array_remove(segment_ids, ${id}::int), updated_at = now() WHERE ${id} = ANY(segment_ids)`);
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation, membership, statistics

export interface SeriesRef {
  unique_id: string;
  item_id: number;
  site_id: number;
  item_xuid: string;
  item_name: string;
  site_xuid: string;
  site_name: string;
}

const REF_COLS = sql.fragment`(s.item_id::text || '_' || s.site_id::text) AS unique_id, s.item_id, s.site_id, i.xuid AS item_xuid, i.name AS item_name,
  st.xuid AS site_xuid, st.name AS site_name`;
const BASE = sql.fragment`series s JOIN items i ON i.id = s.item_id JOIN sites st ON st.id = s.site_id`;

/** Series matching the rules (within `scope`), one page plus the count and demand totals of all matches. */
export async function previewRules(tx: Tx, m: Matcher, scope: Fragment, page: { skip: number; limit: number }) {
  const totals = (await tx.one(sql.unsafe`
    SELECT count(*)::int AS count, COALESCE(sum(s.total_demand), 0)::float8 AS total_demand,
      COALESCE(sum(COALESCE(s.total_demand, 0) * i.unit_price), 0)::float8 AS total_value
    FROM ${BASE} ${m.joins} WHERE (${m.where}) AND ${scope}`)) as { count: number; total_demand: number; total_value: number };
  const rows = (await tx.any(sql.unsafe`
    SELECT ${REF_COLS} FROM ${BASE} ${m.joins} WHERE (${m.where}) AND ${scope}
    ORDER BY s.item_id, s.site_id LIMIT ${page.limit} OFFSET ${page.skip}`)) as SeriesRef[];
  return { ...totals, series: [...rows] };
}

/** Replaces the segment's members with the series matching its rules (all series: membership is not per user). */
export async function assignMembers(tx: Tx, id: number, m: Matcher): Promise<{ members: number; added: number; removed: number }> {
  await tx.query(sql.unsafe`
    CREATE TEMP TABLE seg_new ON COMMIT DROP AS SELECT s.item_id, s.site_id FROM ${BASE} ${m.joins} WHERE ${m.where}`);
  const removed = (await tx.query(sql.unsafe`
    DELETE FROM segment_members g WHERE g.segment_id = ${id}
      AND NOT EXISTS (SELECT 1 FROM seg_new n WHERE n.item_id = g.item_id AND n.site_id = g.site_id)`)).rowCount;
  const added = (await tx.query(sql.unsafe`
    INSERT INTO segment_members (segment_id, item_id, site_id) SELECT ${id}, item_id, site_id FROM seg_new ON CONFLICT DO NOTHING`)).rowCount;
  const members = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM seg_new`)) as number;
  await tx.query(sql.unsafe`DROP TABLE seg_new`);
  await tx.query(sql.unsafe`UPDATE segments SET assigned_at = now() WHERE id = ${id}`);
  return { members, added, removed };
}

const memberOf = (id: number) => sql.fragment`EXISTS (SELECT 1 FROM segment_members g WHERE g.segment_id = ${id} AND g.item_id = s.item_id AND g.site_id = s.site_id)`;

export async function listMembers(tx: Tx, id: number, scope: Fragment, page: { skip: number; limit: number }): Promise<{ rows: SeriesRef[]; total: number }> {
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${BASE} WHERE ${memberOf(id)} AND ${scope}`)) as number;
  const rows = (await tx.any(sql.unsafe`
    SELECT ${REF_COLS}, s.total_demand::float8 AS total_demand, i.unit_price::float8 AS unit_price FROM ${BASE}
    WHERE ${memberOf(id)} AND ${scope} ORDER BY s.item_id, s.site_id LIMIT ${page.limit} OFFSET ${page.skip}`)) as SeriesRef[];
  return { rows: [...rows], total };
}

/** Count, demand, value (demand × unit price, 0 without price) and, per ABC configuration, the class mix of members. */
export async function segmentDetails(tx: Tx, id: number, scope: Fragment) {
  const totals = (await tx.one(sql.unsafe`
    SELECT count(*)::int AS series_count, count(DISTINCT s.item_id)::int AS item_count, count(DISTINCT s.site_id)::int AS site_count,
      COALESCE(sum(s.total_demand), 0)::float8 AS total_demand,
      COALESCE(sum(COALESCE(s.total_demand, 0) * i.unit_price), 0)::float8 AS total_value,
      count(*) FILTER (WHERE i.unit_price > 0)::int AS priced_series
    FROM ${BASE} WHERE ${memberOf(id)} AND ${scope}`)) as Record<string, number>;
  const mix = (await tx.any(sql.unsafe`
    SELECT c.name, COALESCE(r.class_label, 'unclassified') AS class_label, count(*)::int AS n
    FROM abc_configurations c CROSS JOIN ${BASE}
    LEFT JOIN abc_results r ON r.config_id = c.id AND r.item_id = s.item_id AND r.site_id = s.site_id
    WHERE ${memberOf(id)} AND ${scope}
    GROUP BY c.id, c.name, 2 ORDER BY c.id, 2`)) as Array<{ name: string; class_label: string; n: number }>;
  const configs = (await tx.anyFirst(sql.unsafe`SELECT name FROM abc_configurations ORDER BY id`)) as string[];
  const classMix: Record<string, Record<string, number>> = Object.fromEntries(configs.map((n) => [n, {}]));
  for (const r of mix) classMix[r.name][r.class_label] = r.n;
  return { ...totals, class_mix: classMix };
}

/** Segments the series is a member of (assigned membership), restricted to `visible`. */
export async function segmentsOfSeries(tx: Tx, itemId: number, siteId: number, visible: number[] | null): Promise<SegmentRow[]> {
  const where = visible === null ? sql.fragment`TRUE` : sql.fragment`g.id = ANY(${sql.array(visible, 'int4')})`;
  return [...((await tx.any(sql.unsafe`
    SELECT ${COLS} FROM segments g
    WHERE EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = g.id AND m.item_id = ${itemId} AND m.site_id = ${siteId}) AND ${where}
    ORDER BY g.id`)) as SegmentRow[])];
}

export async function seriesExists(tx: Tx, itemId: number, siteId: number): Promise<boolean> {
  return Boolean(await tx.maybeOneFirst(sql.unsafe`SELECT true FROM series WHERE item_id = ${itemId} AND site_id = ${siteId}`));
}

/** Sites with code, name and type, for the natural-language parser. */
export async function siteVocabulary(tx: Tx): Promise<Array<{ xuid: string; name: string; site_type: string | null }>> {
  return [...((await tx.any(sql.unsafe`SELECT xuid, name, site_type FROM sites ORDER BY id LIMIT 5000`)) as Array<{ xuid: string; name: string; site_type: string | null }>)];
}

/** Segments whose rules name `field` (used when an ABC configuration is renamed or deleted). */
export async function segmentsUsingField(tx: Tx, field: string): Promise<Array<{ id: number; name: string; rules: Rule[] }>> {
  return [...((await tx.any(sql.unsafe`
    SELECT id, name, rules FROM segments WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(rules) r WHERE r ->> 'field' = ${field}) ORDER BY id`)) as Array<{ id: number; name: string; rules: Rule[] }>)];
}

export async function setSegmentRules(tx: Tx, id: number, rules: Rule[]): Promise<void> {
  await tx.query(sql.unsafe`UPDATE segments SET rules = ${sql.jsonb(rules as any)}, updated_at = now() WHERE id = ${id}`);
}
