import type { SeriesKey } from '../../db/etl';
import { overridesInRange } from '../../db/hyperparams';
import { appendLog } from '../../db/jobs';
import {
  dropAssignmentsOfOtherTypes, membershipsInRange, seriesChunks, seriesInRange, setsForResolution, writeAssignments,
  type AssignmentWrite, type ParameterSetRow,
} from '../../db/parameterSets';
import { withTenant, type Db, type Tx } from '../../db/pool';
import { PARAMETER_DEFAULTS, PARAMETER_TYPES } from '../../lib/parameterDefaults';
import { checkpoint } from '../jobs/activity';
import { resolveParameters, type ResolutionSet, type ResolvedParameters } from './resolve';

export type { ResolvedParameters, ResolvedType, ValueSource } from './resolve';

const keyOf = (itemId: number, siteId: number) => `${itemId}_${siteId}`;

const toResolutionSet = (r: ParameterSetRow): ResolutionSet => ({
  id: r.id, name: r.name, parameter_type: r.parameter_type, priority: r.priority, is_active: r.is_active, values: r.values, segment_ids: r.segment_ids,
});

/**
 * Effective parameters of every series whose key lies in [from, to], keyed `<item_id>_<site_id>`: what a chunked
 * step calls once per chunk. Every value goes through the one resolution function (./resolve.ts).
 */
export async function resolveParametersInRange(tx: Tx, from: SeriesKey, to: SeriesKey, types: readonly string[] = PARAMETER_TYPES, keys?: readonly SeriesKey[]): Promise<Map<string, ResolvedParameters>> {
  const sets = (await setsForResolution(tx, types)).map(toResolutionSet);
  const members = new Map<string, number[]>();
  for (const m of await membershipsInRange(tx, from, to)) {
    const k = keyOf(m.item_id, m.site_id);
    members.set(k, [...(members.get(k) ?? []), m.segment_id]);
  }
  const overrides = new Map<string, Array<{ method: string; overrides: Record<string, unknown> }>>();
  for (const o of await overridesInRange(tx, from, to)) {
    const k = keyOf(o.item_id, o.site_id);
    overrides.set(k, [...(overrides.get(k) ?? []), { method: o.method, overrides: o.overrides }]);
  }
  const out = new Map<string, ResolvedParameters>();
  for (const s of keys ?? (await seriesInRange(tx, from, to))) {
    const k = keyOf(s.item_id, s.site_id);
    out.set(k, resolveParameters(PARAMETER_DEFAULTS, sets, members.get(k) ?? [], overrides.get(k) ?? [], types));
  }
  return out;
}

/**
 * The effective parameters of one series, per parameter type, with where each value came from (default, which set,
 * override). The function the steps call; `types` limits the result (default: every type of the catalogue).
 * The series need not have a row in `series` yet.
 */
export async function resolveSeriesParameters(tx: Tx, itemId: number, siteId: number, types: readonly string[] = PARAMETER_TYPES): Promise<ResolvedParameters> {
  const key = { item_id: itemId, site_id: siteId };
  return (await resolveParametersInRange(tx, key, key, types, [key])).get(keyOf(itemId, siteId))!;
}

/** Materialises the assignment of the series in [from, to]: per series and type, the applicable sets and whether overrides exist. */
export async function materialiseAssignments(tx: Tx, from: SeriesKey, to: SeriesKey, jobId: string | null): Promise<{ series: number; rows: number }> {
  const resolved = await resolveParametersInRange(tx, from, to);
  const rows: AssignmentWrite[] = [];
  for (const [k, byType] of resolved) {
    const [item_id, site_id] = k.split('_').map(Number);
    for (const [parameter_type, r] of Object.entries(byType)) rows.push({ item_id, site_id, parameter_type, set_ids: r.set_ids, has_override: r.has_override });
  }
  return { series: resolved.size, rows: await writeAssignments(tx, from, to, rows, jobId) };
}

export interface ResolvePlan {
  total: number;
  chunks: Array<{ from: SeriesKey; to: SeriesKey; count: number }>;
}

/** The parameters_resolve job (POST /api/parameters/resolve with many series): plan, chunks, finalise. */
export function createParameterActivities({ db }: { db: Db }) {
  return {
    async parametersResolvePlan(input: { accountId: string; jobId: string; chunkSize: number }): Promise<ResolvePlan> {
      return withTenant(db, input.accountId, async (tx) => {
        const chunks = await seriesChunks(tx, input.chunkSize);
        const total = chunks.reduce((n, c) => n + c.count, 0);
        await appendLog(tx, input.jobId, `parameters: resolving ${total} series in ${chunks.length} chunks`);
        return { total, chunks };
      });
    },

    async parametersResolveChunk(input: { accountId: string; jobId: string; from: SeriesKey; to: SeriesKey; index: number; of: number }): Promise<{ series: number; rows: number }> {
      checkpoint({ index: input.index, phase: 'resolve' });
      return withTenant(db, input.accountId, async (tx) => {
        const r = await materialiseAssignments(tx, input.from, input.to, input.jobId);
        await appendLog(tx, input.jobId, `parameters: chunk ${input.index + 1}/${input.of}: ${r.series} series, ${r.rows} assignments`);
        return r;
      });
    },

    async parametersResolveFinalize(input: { accountId: string; jobId: string }): Promise<{ dropped: number }> {
      return withTenant(db, input.accountId, async (tx) => ({ dropped: await dropAssignmentsOfOtherTypes(tx, PARAMETER_TYPES) }));
    },
  };
}
