/**
 * Supersession edges (document 2 §2.4, §4.4; docs/SUPERSESSION.md): the loaders the planning steps read the edges
 * with (rule 7: they fail, never answer empty, when the table cannot be read), the planning today that decides which
 * edges are active (rule 1), the reads and writes of the API, and the cycle guard of the import run.
 */
import type { ImportMode } from './importStaging';
import { sql, type Tx } from './pool';
import { cycleMessage, SupersessionGraph, type ChainEdge } from '../domain/supersession/chains';
import type { Edge, EdgeKey } from '../domain/supersession/edges';
import type { CleanRow, Refs } from '../domain/import/validate';

export type { Edge } from '../domain/supersession/edges';

type Fragment = ReturnType<typeof sql.fragment>;
const f = sql.fragment;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The edges could not be read: a planning step must stop rather than plan as if no item were replaced. */
export class SupersessionReadError extends Error {
  constructor(cause: unknown) {
    super(`supersession edges could not be read (document 2 §4.4 rule 7): ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'SupersessionReadError';
  }
}

/**
 * Runs a read of the edge table, turning any failure (table missing or renamed, no privilege, a broken column) into a
 * SupersessionReadError; the cause stays attached, so a lost connection is still recognised as one upstream.
 */
async function readEdges<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw new SupersessionReadError(err);
  }
}

const EDGE_COLUMNS = f`e.id, e.from_item_id, e.to_item_id, e.site_id, e.effective_date, e.demand_factor, e.stock_rollable, e.notes`;

/** Every edge, global and site-scoped, whatever its effective date; ordered by id. */
export async function allEdges(tx: Tx): Promise<Edge[]> {
  return readEdges(async () => [...(await tx.any(sql.unsafe`SELECT ${EDGE_COLUMNS} FROM supersession e ORDER BY e.id`))] as Edge[]);
}

/** Rule 1: the edges active on `asOf` (YYYY-MM-DD): no effective date, or one not later than it; ordered by id. */
export async function activeEdges(tx: Tx, asOf: string): Promise<Edge[]> {
  if (!ISO_DATE.test(asOf)) throw new Error(`activeEdges: asOf must be a date YYYY-MM-DD (got '${asOf}')`);
  return readEdges(async () => [...(await tx.any(sql.unsafe`
    SELECT ${EDGE_COLUMNS} FROM supersession e
    WHERE e.effective_date IS NULL OR e.effective_date <= ${asOf}::date ORDER BY e.id`))] as Edge[]);
}

/** Serialises the writers of edges (API writes, import runs), so two of them cannot each add half of a cycle. */
export async function lockSupersession(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('supersession'))`);
}

// ---------------------------------------------------------------------------------------------------- API reads

/** An edge as the API shows it: the row with the codes and names of its items and site. */
export interface EdgeView extends Edge {
  from_item_xuid: string;
  from_item_name: string;
  to_item_xuid: string;
  to_item_name: string;
  site_xuid: string | null;
  site_name: string | null;
  created_at: string;
  updated_at: string;
}

const VIEW_COLUMNS = f`${EDGE_COLUMNS}, fi.xuid AS from_item_xuid, fi.name AS from_item_name, ti.xuid AS to_item_xuid, ti.name AS to_item_name,
  s.xuid AS site_xuid, s.name AS site_name, e.created_at, e.updated_at`;
const VIEW_FROM = f`supersession e JOIN items fi ON fi.id = e.from_item_id JOIN items ti ON ti.id = e.to_item_id LEFT JOIN sites s ON s.id = e.site_id`;

export interface EdgeFilter {
  /** edges with this item at either end */
  item_id?: number;
  from_item_id?: number;
  to_item_id?: number;
  site_id?: number;
  /** true: global edges only; false: site-scoped edges only */
  global?: boolean;
  /** with `asOf`: true keeps the edges active on that date, false the ones not active yet */
  active?: boolean;
  asOf?: string;
  /** case-insensitive text in the code or name of either item or the site, or in the notes */
  search?: string;
}

export const EDGE_SORTS = ['id', 'from_item_xuid', 'to_item_xuid', 'site_xuid', 'effective_date', 'demand_factor', 'created_at', 'updated_at'] as const;
export type EdgeSort = (typeof EDGE_SORTS)[number];

const SORT_COLUMN: Record<EdgeSort, Fragment> = {
  id: f`e.id`, from_item_xuid: f`fi.xuid`, to_item_xuid: f`ti.xuid`, site_xuid: f`s.xuid`, effective_date: f`e.effective_date`,
  demand_factor: f`e.demand_factor`, created_at: f`e.created_at`, updated_at: f`e.updated_at`,
};

function whereOf(q: EdgeFilter): Fragment {
  const parts: Fragment[] = [];
  if (q.item_id !== undefined) parts.push(f`(e.from_item_id = ${q.item_id} OR e.to_item_id = ${q.item_id})`);
  if (q.from_item_id !== undefined) parts.push(f`e.from_item_id = ${q.from_item_id}`);
  if (q.to_item_id !== undefined) parts.push(f`e.to_item_id = ${q.to_item_id}`);
  if (q.site_id !== undefined) parts.push(f`e.site_id = ${q.site_id}`);
  if (q.global !== undefined) parts.push(q.global ? f`e.site_id IS NULL` : f`e.site_id IS NOT NULL`);
  if (q.active !== undefined && q.asOf !== undefined) {
    const active = f`(e.effective_date IS NULL OR e.effective_date <= ${q.asOf}::date)`;
    parts.push(q.active ? active : f`NOT ${active}`);
  }
  if (q.search !== undefined && q.search !== '') {
    // the text is a literal: % and _ typed by the planner match themselves
    const p = `%${q.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    parts.push(f`(fi.xuid ILIKE ${p} OR fi.name ILIKE ${p} OR ti.xuid ILIKE ${p} OR ti.name ILIKE ${p} OR s.xuid ILIKE ${p} OR s.name ILIKE ${p}
      OR e.notes ILIKE ${p})`);
  }
  return parts.length ? f`WHERE ${sql.join(parts, f` AND `)}` : f``;
}

export async function listEdgeViews(
  tx: Tx, q: EdgeFilter, page: { skip: number; limit: number; sort?: EdgeSort; order?: 'asc' | 'desc' },
): Promise<{ rows: EdgeView[]; total: number }> {
  const where = whereOf(q);
  const dir = page.order === 'desc' ? f`DESC` : f`ASC`;
  const sort = page.sort ?? 'id';
  const order = sort === 'id' ? f`e.id ${dir}` : f`${SORT_COLUMN[sort]} ${dir} NULLS FIRST, e.id ASC`;
  return readEdges(async () => {
    const rows = await tx.any(sql.unsafe`SELECT ${VIEW_COLUMNS} FROM ${VIEW_FROM} ${where} ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.skip}`);
    const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${VIEW_FROM} ${where}`)) as number;
    return { rows: [...rows] as EdgeView[], total };
  });
}

/** Every edge as the API shows it, or only those of `filter` (no paging: chains and the active list need them all). */
export async function allEdgeViews(tx: Tx, filter: EdgeFilter = {}): Promise<EdgeView[]> {
  return readEdges(async () => [...(await tx.any(sql.unsafe`SELECT ${VIEW_COLUMNS} FROM ${VIEW_FROM} ${whereOf(filter)} ORDER BY e.id`))] as EdgeView[]);
}

/** Global edges and those of one site: how the chains read at that site. */
export async function edgeViewsAtSite(tx: Tx, siteId: number): Promise<EdgeView[]> {
  return readEdges(async () => [...(await tx.any(sql.unsafe`
    SELECT ${VIEW_COLUMNS} FROM ${VIEW_FROM} WHERE e.site_id IS NULL OR e.site_id = ${siteId} ORDER BY e.id`))] as EdgeView[]);
}

export async function getEdgeView(tx: Tx, id: number): Promise<EdgeView | null> {
  return readEdges(async () => (await tx.maybeOne(sql.unsafe`SELECT ${VIEW_COLUMNS} FROM ${VIEW_FROM} WHERE e.id = ${id}`)) as EdgeView | null);
}

/** One item's code and name, or null when it does not exist. */
export async function itemById(tx: Tx, id: number): Promise<{ id: number; xuid: string; name: string } | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT id, xuid, name FROM items WHERE id = ${id}`)) as { id: number; xuid: string; name: string } | null;
}

/** Codes of items or sites by id, for messages. */
export async function codesOf(tx: Tx, table: 'items' | 'sites', ids: readonly number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT id, xuid FROM ${sql.identifier([table])} WHERE id = ANY(${sql.array([...new Set(ids)], 'int4')})`)) as ReadonlyArray<{ id: number; xuid: string }>;
  return new Map(rows.map((r) => [r.id, r.xuid]));
}

// ---------------------------------------------------------------------------------------------------- API writes

/** Another edge with the same natural key (site null as 0, date null as the minimum date), if any. */
export async function edgeTwin(tx: Tx, key: EdgeKey, exceptId: number): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`
    SELECT id FROM supersession
    WHERE from_item_id = ${key.from_item_id} AND to_item_id = ${key.to_item_id} AND COALESCE(site_id, 0) = ${key.site_id ?? 0}
      AND COALESCE(effective_date, '-infinity'::date) = COALESCE(${key.effective_date}::date, '-infinity'::date) AND id <> ${exceptId}`)) as number | null;
}

export type EdgeValues = Omit<Edge, 'id'>;

export async function insertEdge(tx: Tx, v: EdgeValues): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO supersession (from_item_id, to_item_id, site_id, effective_date, demand_factor, stock_rollable, notes)
    VALUES (${v.from_item_id}, ${v.to_item_id}, ${v.site_id}, ${v.effective_date}::date, ${v.demand_factor}, ${v.stock_rollable}, ${v.notes})
    RETURNING id`)) as number;
}

export async function updateEdge(tx: Tx, id: number, v: EdgeValues): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE supersession SET from_item_id = ${v.from_item_id}, to_item_id = ${v.to_item_id}, site_id = ${v.site_id},
      effective_date = ${v.effective_date}::date, demand_factor = ${v.demand_factor}, stock_rollable = ${v.stock_rollable}, notes = ${v.notes},
      updated_at = now()
    WHERE id = ${id}`);
}

export async function deleteEdge(tx: Tx, id: number): Promise<boolean> {
  return (await tx.query(sql.unsafe`DELETE FROM supersession WHERE id = ${id}`)).rowCount > 0;
}

// ---------------------------------------------------------------------------------------------------- import

/**
 * The import run's cycle check (one truth with the API): a staged row, read in row order, is refused with the API's
 * message when it would close a cycle with the edges the table will hold: the stored ones (upsert keeps them; replace
 * deletes those not staged, so it starts empty) and the rows kept before it. Takes the writers' lock first.
 * Returns the check of one validated row (ids as text, as validateRow leaves them): the reason, or undefined when the
 * row is kept (its edge then joins the graph for the rows after it).
 */
export async function supersessionImportGuard(tx: Tx, mode: ImportMode, refs: Refs): Promise<(values: CleanRow) => string | undefined> {
  await lockSupersession(tx);
  const graph = new SupersessionGraph(mode === 'upsert' ? await allEdges(tx) : []);
  const itemCodes = new Map([...refs.items].map(([code, id]) => [id, code]));
  const siteCodes = new Map([...refs.sites].map(([code, id]) => [id, code]));
  return (values) => {
    const edge: ChainEdge = {
      from_item_id: Number(values.from_item_xuid), to_item_id: Number(values.to_item_xuid),
      site_id: values.site_xuid === null ? null : Number(values.site_xuid),
    };
    const closed = graph.closingChain(edge);
    if (closed) return cycleMessage(closed, itemCodes, siteCodes);
    graph.add(edge);
    return undefined;
  };
}
