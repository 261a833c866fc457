import type { SeriesKey } from './etl';
import { overridesInRange } from './hyperparams';
import { membershipsInRange, seriesInRange, setsForResolution, writeAssignments, type AssignmentWrite, type ParameterSetRow } from './parameterSets';
import type { Tx } from './pool';
import { PARAMETER_DEFAULTS, PARAMETER_TYPES } from '../domain/parameters/defaults';
import { resolveParameters, type ResolutionSet, type ResolvedParameters } from '../domain/parameters/resolve';

/**
 * Parameter resolution over stored data: reads sets, memberships and overrides, resolves through the one pure
 * function of domain/parameters/resolve.ts. Shared by the parameters API and the steps, so it lives below both.
 */

const keyOf = (itemId: number, siteId: number) => `${itemId}_${siteId}`;

const toResolutionSet = (r: ParameterSetRow): ResolutionSet => ({
  id: r.id, name: r.name, parameter_type: r.parameter_type, priority: r.priority, is_active: r.is_active, values: r.values, segment_ids: r.segment_ids,
});

/**
 * Effective parameters of every series whose key lies in [from, to], keyed `<item_id>_<site_id>`: what a chunked
 * step calls once per chunk. Every value goes through the one resolution function (domain/parameters/resolve.ts).
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

