import { canEditSegment, canSeeSeries, canEditSeries, canViewSegment, editableSegmentIds, getSegment, seriesExists, visibleSegmentIds, type SegmentRow } from '../../../db/segments';
import type { Tx } from '../../../db/pool';
import type { AuthUser } from '../../context';
import { forbidden, notFound } from '../../errors';
import type { JsonSchema } from '../validation';

/** `<item_id>_<site_id>` with PostgreSQL-sized positive ids. */
export const uniqueIdSchema: JsonSchema = {
  type: 'string', pattern: '^[1-9][0-9]{0,8}_[1-9][0-9]{0,8}$', description: 'series id `<item_id>_<site_id>`',
};

export function parseUniqueId(uid: string): { itemId: number; siteId: number } {
  const [itemId, siteId] = uid.split('_').map(Number);
  return { itemId, siteId };
}

const restriction = (user: AuthUser) => `your segments: ${user.allowedSegments.length ? user.allowedSegments.join(', ') : 'all'}`;

/** 404 when the segment does not exist, 403 when the user may not see it (spec §5.12). */
export async function viewableSegment(tx: Tx, user: AuthUser, id: number): Promise<SegmentRow> {
  const row = await getSegment(tx, id);
  requireViewableSegment(user, id, row !== null);
  return row!;
}

/** viewableSegment's 404 and 403 for a read that learnt whether segment `id` exists in its own statement. */
export function requireViewableSegment(user: AuthUser, id: number, exists: boolean): void {
  if (!exists) throw notFound(`Segment ${id} not found`);
  if (!canViewSegment(user, id)) throw forbidden(`Access to segment ${id} denied (${restriction(user)})`);
}

export async function editableSegment(tx: Tx, user: AuthUser, id: number): Promise<SegmentRow> {
  const row = await viewableSegment(tx, user, id);
  if (!canEditSegment(user, id)) throw forbidden(`You may view segment ${id} but not edit it (editable segments: ${editableSegmentIds(user)?.join(', ')})`);
  return row;
}

export function requireUnrestrictedEdit(user: AuthUser, what: string): void {
  if (editableSegmentIds(user) !== null) throw forbidden(`Users restricted to segments cannot ${what}`);
}

/** 404 for an unknown series, 403 for one outside the user's segments. */
export async function visibleSeries(tx: Tx, user: AuthUser, uid: string, opts: { mustExist?: boolean; edit?: boolean } = {}): Promise<{ itemId: number; siteId: number }> {
  const { itemId, siteId } = parseUniqueId(uid);
  if (opts.mustExist !== false && !(await seriesExists(tx, itemId, siteId))) throw notFound(`Series ${uid} not found (item ${itemId}, site ${siteId})`);
  if (!(await canSeeSeries(tx, user, itemId, siteId))) throw forbidden(`Access to series ${uid} denied: it is in none of ${restriction(user)}`);
  if (opts.edit && !(await canEditSeries(tx, user, itemId, siteId))) throw forbidden(`You may view series ${uid} but not change it (it is in none of the segments you may edit)`);
  return { itemId, siteId };
}

/**
 * visibleSeries over the API's in-memory series index and segment membership (api/readCache.ts): the same 404 and
 * 403, without a query.
 */
export function visibleSeriesInMemory(user: AuthUser, uid: string, ids: ReadonlySet<string>, members: Membership): { itemId: number; siteId: number } {
  const { itemId, siteId } = parseUniqueId(uid);
  if (!ids.has(uid)) throw notFound(`Series ${uid} not found (item ${itemId}, site ${siteId})`);
  if (!inScope(user, uid, members)) throw forbidden(`Access to series ${uid} denied: it is in none of ${restriction(user)}`);
  return { itemId, siteId };
}

/** Segment id → member series; null when the user is not restricted to segments (needsMembership false). */
export type Membership = ReadonlyMap<number, ReadonlySet<string>> | null;

export const needsMembership = (user: AuthUser): boolean => visibleSegmentIds(user) !== null;

/** Whether the user may see the series (seriesScope, in memory). */
export function inScope(user: AuthUser, uid: string, members: Membership): boolean {
  const segments = visibleSegmentIds(user);
  if (segments === null) return true;
  return segments.some((id) => members?.get(id)?.has(uid) ?? false);
}
