import { sql, type Tx } from './pool';
import { keyRange, type SeriesKey } from './etl';

/** A parameter set (table parameter_sets, migration 006) with its segment ids from parameter_set_segments. */
export interface ParameterSetRow {
  id: number;
  parameter_type: string;
  name: string;
  description: string | null;
  priority: number;
  values: Record<string, unknown>;
  segment_ids: number[];
  is_active: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface ParameterSetWrite {
  name?: string;
  description?: string | null;
  priority?: number;
  values?: Record<string, unknown>;
  is_active?: boolean;
}

const COLUMNS = sql.fragment`p.id, p.parameter_type, p.name, p.description, p.priority, p.param_values AS values,
  ARRAY(SELECT l.segment_id FROM parameter_set_segments l WHERE l.parameter_set_id = p.id ORDER BY l.segment_id) AS segment_ids,
  p.is_active, p.created_by, p.created_at, p.updated_at`;

const ORDER = sql.fragment`p.parameter_type, p.priority, p.id`;

/** Serialises writes to one tenant's parameter sets for the rest of the transaction (names, priorities, reorder). */
export async function lockParameterSets(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('parameter_sets'))`);
}

export async function listParameterSets(tx: Tx, q: { parameter_type?: string; skip: number; limit: number }): Promise<{ rows: ParameterSetRow[]; total: number }> {
  const where = q.parameter_type ? sql.fragment`p.parameter_type = ${q.parameter_type}` : sql.fragment`TRUE`;
  const rows = (await tx.any(sql.unsafe`SELECT ${COLUMNS} FROM parameter_sets p WHERE ${where} ORDER BY ${ORDER} LIMIT ${q.limit} OFFSET ${q.skip}`)) as ParameterSetRow[];
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM parameter_sets p WHERE ${where}`)) as number;
  return { rows: [...rows], total };
}

export async function getParameterSet(tx: Tx, id: number): Promise<ParameterSetRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM parameter_sets p WHERE p.id = ${id}`)) as ParameterSetRow | null;
}

/** Names are unique per parameter type, ignoring case; `exceptId` lets an update keep its own name. */
export async function findParameterSetByName(tx: Tx, type: string, name: string, exceptId?: number): Promise<ParameterSetRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM parameter_sets p WHERE p.parameter_type = ${type} AND lower(p.name) = lower(${name}) AND p.id <> ${exceptId ?? 0}`)) as ParameterSetRow | null;
}

/** One more than the highest priority of the type: where a new set goes when no priority is given. */
export async function nextPriority(tx: Tx, type: string): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`SELECT COALESCE(max(priority), 0)::int + 1 FROM parameter_sets WHERE parameter_type = ${type}`)) as number;
}

export async function insertParameterSet(tx: Tx, p: Required<ParameterSetWrite> & { parameter_type: string }, createdBy: string | null): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO parameter_sets (parameter_type, name, description, priority, param_values, is_active, created_by)
    VALUES (${p.parameter_type}, ${p.name}, ${p.description}, ${p.priority}, ${sql.jsonb(p.values as any)}, ${p.is_active}, ${createdBy})
    RETURNING id`)) as number;
}

/** Sets only the fields given (`values` is replaced as a whole, not merged). */
export async function updateParameterSet(tx: Tx, id: number, p: ParameterSetWrite): Promise<boolean> {
  const sets = [sql.fragment`updated_at = now()`];
  if (p.name !== undefined) sets.push(sql.fragment`name = ${p.name}`);
  if (p.description !== undefined) sets.push(sql.fragment`description = ${p.description}`);
  if (p.priority !== undefined) sets.push(sql.fragment`priority = ${p.priority}`);
  if (p.values !== undefined) sets.push(sql.fragment`param_values = ${sql.jsonb(p.values as any)}`);
  if (p.is_active !== undefined) sets.push(sql.fragment`is_active = ${p.is_active}`);
  const r = await tx.query(sql.unsafe`UPDATE parameter_sets SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
  return r.rowCount > 0;
}

/** Deletes the set and its segment links, and takes it out of the materialised assignments. */
export async function deleteParameterSet(tx: Tx, id: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`DELETE FROM parameter_sets WHERE id = ${id}`);
  await tx.query(sql.unsafe`
    UPDATE series_parameter_assignment SET set_ids = array_remove(set_ids, ${id}) WHERE set_ids @> ARRAY[${id}::int4]`);
  return r.rowCount > 0;
}

/** Replaces the set's segment links. */
export async function setParameterSetSegments(tx: Tx, id: number, segmentIds: readonly number[]): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM parameter_set_segments WHERE parameter_set_id = ${id}`);
  if (!segmentIds.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO parameter_set_segments (parameter_set_id, segment_id)
    SELECT ${id}, s FROM unnest(${sql.array([...segmentIds], 'int4')}::int4[]) AS s ON CONFLICT DO NOTHING`);
}

/** The parameter type of each of the given ids that exists. */
export async function typesOfParameterSets(tx: Tx, ids: readonly number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT id, parameter_type FROM parameter_sets WHERE id = ANY(${sql.array([...ids], 'int4')})`)) as Array<{ id: number; parameter_type: string }>;
  return new Map(rows.map((r) => [r.id, r.parameter_type]));
}

/** Ids of the sets of one type in their current order. */
export async function parameterSetIdsOfType(tx: Tx, type: string): Promise<number[]> {
  return [...((await tx.anyFirst(sql.unsafe`SELECT id FROM parameter_sets p WHERE p.parameter_type = ${type} ORDER BY ${ORDER}`)) as number[])];
}

/** Gives each id its 1-based position as priority; the caller has checked the ids are exactly the sets of one type. */
export async function reorderParameterSets(tx: Tx, orderedIds: readonly number[]): Promise<void> {
  if (!orderedIds.length) return;
  await tx.query(sql.unsafe`
    UPDATE parameter_sets p SET priority = o.ord::int, updated_at = now()
    FROM unnest(${sql.array([...orderedIds], 'int4')}::int4[]) WITH ORDINALITY AS o(id, ord)
    WHERE p.id = o.id AND p.priority IS DISTINCT FROM o.ord::int`);
}

/** Every set of the given types (all types when omitted), active or not, in resolution order. */
export async function setsForResolution(tx: Tx, types?: readonly string[]): Promise<ParameterSetRow[]> {
  const where = types ? sql.fragment`p.parameter_type = ANY(${sql.array([...types], 'text')})` : sql.fragment`TRUE`;
  return [...((await tx.any(sql.unsafe`SELECT ${COLUMNS} FROM parameter_sets p WHERE ${where} ORDER BY ${ORDER}`)) as ParameterSetRow[])];
}

// ---------------------------------------------------------------- segments (tables of migration 005, another area)

/** Whether the segments area's tables exist yet (migration 005); until they do, no series belongs to any segment. */
export async function segmentTables(tx: Tx): Promise<{ segments: boolean; members: boolean }> {
  const row = (await tx.one(sql.unsafe`
    SELECT to_regclass('segments') IS NOT NULL AS segments, to_regclass('segment_members') IS NOT NULL AS members`)) as { segments: boolean; members: boolean };
  return row;
}

/** The given segment ids that name no segment (empty when the segments table does not exist yet). */
export async function unknownSegmentIds(tx: Tx, ids: readonly number[]): Promise<number[]> {
  if (!ids.length || !(await segmentTables(tx)).segments) return [];
  return [...((await tx.anyFirst(sql.unsafe`
    SELECT s FROM unnest(${sql.array([...ids], 'int4')}::int4[]) AS s
    WHERE NOT EXISTS (SELECT 1 FROM segments g WHERE g.id = s) ORDER BY s`)) as number[])];
}

/** Names of the given segments (none when the segments table does not exist yet). */
export async function segmentNames(tx: Tx, ids: readonly number[]): Promise<Map<number, string>> {
  if (!ids.length || !(await segmentTables(tx)).segments) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT id, name FROM segments WHERE id = ANY(${sql.array([...ids], 'int4')})`)) as Array<{ id: number; name: string }>;
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Segment memberships of the series whose key lies in [from, to], ordered by key. */
export async function membershipsInRange(tx: Tx, from: SeriesKey, to: SeriesKey): Promise<Array<{ item_id: number; site_id: number; segment_id: number }>> {
  if (!(await segmentTables(tx)).members) return [];
  return [...((await tx.any(sql.unsafe`
    SELECT item_id, site_id, segment_id FROM segment_members
    WHERE ${keyRange(from, to)}
    ORDER BY item_id, site_id, segment_id`)) as Array<{ item_id: number; site_id: number; segment_id: number }>)];
}

// ---------------------------------------------------------------- series and the materialised assignment

export async function seriesExists(tx: Tx, key: SeriesKey): Promise<boolean> {
  return (await tx.exists(sql.unsafe`SELECT 1 FROM series WHERE item_id = ${key.item_id} AND site_id = ${key.site_id}`)) as boolean;
}

export async function seriesCount(tx: Tx): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM series`)) as number;
}

/** All series keys in key order cut into chunks: only the first and last key of each chunk are returned. */
export async function seriesChunks(tx: Tx, chunkSize: number): Promise<Array<{ from: SeriesKey; to: SeriesKey; count: number }>> {
  const rows = (await tx.any(sql.unsafe`
    WITH numbered AS (
      SELECT item_id, site_id, (row_number() OVER (ORDER BY item_id, site_id) - 1) / ${chunkSize} AS chunk FROM series
    )
    SELECT chunk, count(*)::int AS count,
      (array_agg(item_id ORDER BY item_id, site_id))[1] AS from_item, (array_agg(site_id ORDER BY item_id, site_id))[1] AS from_site,
      (array_agg(item_id ORDER BY item_id DESC, site_id DESC))[1] AS to_item, (array_agg(site_id ORDER BY item_id DESC, site_id DESC))[1] AS to_site
    FROM numbered GROUP BY chunk ORDER BY chunk`)) as Array<{ count: number; from_item: number; from_site: number; to_item: number; to_site: number }>;
  return rows.map((r) => ({ from: { item_id: r.from_item, site_id: r.from_site }, to: { item_id: r.to_item, site_id: r.to_site }, count: r.count }));
}

export async function seriesInRange(tx: Tx, from: SeriesKey, to: SeriesKey): Promise<SeriesKey[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT item_id, site_id FROM series
    WHERE ${keyRange(from, to)}
    ORDER BY item_id, site_id`)) as SeriesKey[])];
}

export interface AssignmentWrite {
  item_id: number;
  site_id: number;
  parameter_type: string;
  set_ids: number[];
  has_override: boolean;
}

/**
 * Replaces the assignment rows of the series in [from, to] (every type): a retried chunk rewrites exactly what it
 * wrote. Set ids travel as a `{1,2}` array literal per row because unnest cannot carry arrays of arrays.
 */
export async function writeAssignments(tx: Tx, from: SeriesKey, to: SeriesKey, rows: readonly AssignmentWrite[], jobId: string | null): Promise<number> {
  await tx.query(sql.unsafe`
    DELETE FROM series_parameter_assignment
    WHERE ${keyRange(from, to)}`);
  if (!rows.length) return 0;
  await tx.query(sql.unsafe`
    INSERT INTO series_parameter_assignment (item_id, site_id, parameter_type, set_ids, has_override, job_id, resolved_at)
    SELECT u.item_id, u.site_id, u.parameter_type, u.set_ids::int4[], u.has_override, ${jobId}, now()
    FROM ${sql.unnest(
      rows.map((r) => [r.item_id, r.site_id, r.parameter_type, `{${r.set_ids.join(',')}}`, r.has_override]),
      ['int4', 'int4', 'text', 'text', 'bool'],
    )} AS u(item_id, site_id, parameter_type, set_ids, has_override)`);
  return rows.length;
}

/** Assignment rows of types the catalogue no longer has are dropped by the finalising step. */
export async function dropAssignmentsOfOtherTypes(tx: Tx, types: readonly string[]): Promise<number> {
  const r = await tx.query(sql.unsafe`DELETE FROM series_parameter_assignment WHERE NOT (parameter_type = ANY(${sql.array([...types], 'text')}))`);
  return r.rowCount;
}

export async function assignmentsOfSeries(tx: Tx, key: SeriesKey): Promise<Array<{ parameter_type: string; set_ids: number[]; has_override: boolean; resolved_at: string; job_id: string | null }>> {
  return [...((await tx.any(sql.unsafe`
    SELECT parameter_type, set_ids, has_override, resolved_at, job_id FROM series_parameter_assignment
    WHERE item_id = ${key.item_id} AND site_id = ${key.site_id} ORDER BY parameter_type`)) as any[])];
}
