/**
 * The in-memory reads of the series routes (api/readCache.ts): what they hold and how each is loaded. Every load runs
 * once per tenant and data version; the requests in between are answered from memory.
 */
import { defaultResultsPipeline } from '../../../db/forecastReads';
import { withTenant } from '../../../db/pool';
import { seriesScope } from '../../../db/segments';
import { segmentMembership, seriesIds, seriesRows, type SeriesListRow } from '../../../db/series';
import type { AppContext, AuthUser } from '../../context';
import type { TenantReads } from '../../readCache';
import { needsMembership, type Membership } from '../segments/access';

/** The tenant's in-memory reads for this request, or undefined (no data version: read the database). */
export const readsOf = (ctx: AppContext, user: AuthUser): TenantReads | undefined => ctx.deps.cache.reads.at(user.accountId, ctx.state.dataVersion);

/** defaultResultsPipeline, once per version. */
export const defaultPipelineOf = (ctx: AppContext, reads: TenantReads, accountId: string): Promise<number> =>
  reads.once('defaultPipeline', () => withTenant(ctx.deps.db, accountId, (tx) => defaultResultsPipeline(tx)));

export const seriesIdsOf = (ctx: AppContext, reads: TenantReads, accountId: string): Promise<ReadonlySet<string>> =>
  reads.once('seriesIds', async () => new Set(await withTenant(ctx.deps.db, accountId, (tx) => seriesIds(tx))));

export const membershipOf = (ctx: AppContext, reads: TenantReads, user: AuthUser): Promise<Membership> =>
  needsMembership(user) ? reads.once('segmentMembership', () => withTenant(ctx.deps.db, user.accountId, (tx) => segmentMembership(tx))) : Promise.resolve(null);

/** A row of GET /api/series as it is answered. */
export const seriesView = (r: SeriesListRow) => ({ ...r, recommended_methods: r.recommended_methods ? [...r.recommended_methods] : null });

export interface CachedSeriesRow {
  uid: string;
  /** the row's JSON as UTF-8, serialised and encoded once per version instead of once per answer */
  json: Buffer;
}

const EVERY_SERIES = seriesScope({ role: 'admin', allowedSegments: [], allowedSegmentsEdit: [] });

/**
 * Every series with the results of pipeline p, ordered as the list is, once it has loaded (undefined until then: a
 * whole list takes a second or more at 10,000 series, and every commit of a running step's chunks starts a new
 * version, so the request that finds it missing reads its page from the database instead of waiting).
 */
export const seriesListIfLoaded = (ctx: AppContext, reads: TenantReads, accountId: string, p: number): CachedSeriesRow[] | undefined =>
  reads.ifLoaded(`series:${p}`, async () => {
    const rows = await withTenant(ctx.deps.db, accountId, (tx) => seriesRows(tx, { scope: EVERY_SERIES, segmentSets: [], resultsPipelineId: p }, null));
    return rows.map((r) => ({ uid: r.unique_id, json: Buffer.from(JSON.stringify(seriesView(r))) }));
  });

/** Answers JSON that is already serialised. */
export function jsonText<T extends string | Buffer>(ctx: AppContext, text: T): T {
  ctx.type = 'application/json';
  return text;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** A JSON array of rows serialised beforehand. */
export function jsonArray(rows: readonly CachedSeriesRow[]): Buffer {
  const parts: Buffer[] = [OPEN];
  rows.forEach((r, i) => {
    if (i) parts.push(COMMA);
    parts.push(r.json);
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}
