/**
 * The one parameter resolution function. Pure: no database, no Temporal. Given the catalogue (level 1, global
 * defaults), the parameter sets (level 2) with their segment ids, the segments the series belongs to, and the series'
 * own overrides (level 3), it gives every effective value of the requested parameter types and where it came from.
 *
 * Rules (docs/PARAMETERS.md):
 * - Per type, the active sets are tried in priority order (lower `priority` first, then lower id). A set applies to
 *   the series when one of its segments contains the series; a set without segments applies to every series.
 * - A key takes its value from the first applicable set whose `values` has the key; keys it does not set fall
 *   through to the next applicable set, then to the default.
 * - A per-series override of the key wins over every set and the default.
 * - Only catalogue keys are resolved: a key stored in a set or override that the catalogue no longer lists is ignored.
 */
import { overrideTarget, type Catalogue } from './defaults';

export interface ResolutionSet {
  id: number;
  name: string;
  parameter_type: string;
  priority: number;
  is_active: boolean;
  values: Record<string, unknown>;
  /** empty: applies to every series */
  segment_ids: readonly number[];
}

/** A per-series override row: `method` is a parameter type or a forecasting method (see overrideTarget). */
export interface ResolutionOverride {
  method: string;
  overrides: Record<string, unknown>;
}

export type ValueSource =
  | { level: 'default' }
  | { level: 'set'; set_id: number; set_name: string }
  | { level: 'override'; method: string };

export interface ResolvedType {
  /** applicable active sets in the order they are tried */
  set_ids: number[];
  /** true when at least one key comes from a per-series override */
  has_override: boolean;
  values: Record<string, unknown>;
  sources: Record<string, ValueSource>;
}

export type ResolvedParameters = Record<string, ResolvedType>;

const has = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k);

const clone = <T>(v: T): T => (v !== null && typeof v === 'object' ? (JSON.parse(JSON.stringify(v)) as T) : v);

export const bySetOrder = (a: ResolutionSet, b: ResolutionSet) => a.priority - b.priority || a.id - b.id;

/**
 * Resolves the parameters of one series. `types` limits the result (default: every catalogue type); unknown types
 * are left out. `sets` may hold sets of any type, in any order.
 */
export function resolveParameters(
  catalogue: Catalogue,
  sets: readonly ResolutionSet[],
  memberships: Iterable<number>,
  overrides: readonly ResolutionOverride[],
  types: readonly string[] = Object.keys(catalogue),
): ResolvedParameters {
  const member = new Set(memberships);
  const ordered = [...sets].filter((s) => s.is_active).sort(bySetOrder);
  const overridden = new Map<string, Map<string, { value: unknown; method: string }>>();
  for (const o of overrides) {
    const target = overrideTarget(o.method, catalogue);
    if (!target) continue;
    const byKey = overridden.get(target.parameter_type) ?? new Map();
    for (const [k, v] of Object.entries(o.overrides)) byKey.set(`${target.prefix}${k}`, { value: v, method: o.method });
    overridden.set(target.parameter_type, byKey);
  }

  const out: ResolvedParameters = {};
  for (const type of types) {
    const defs = catalogue[type];
    if (!defs) continue;
    const applicable = ordered.filter((s) => s.parameter_type === type && (s.segment_ids.length === 0 || s.segment_ids.some((id) => member.has(id))));
    const own = overridden.get(type);
    const values: Record<string, unknown> = {};
    const sources: Record<string, ValueSource> = {};
    let hasOverride = false;
    for (const [key, def] of Object.entries(defs)) {
      const o = own?.get(key);
      if (o) {
        values[key] = clone(o.value);
        sources[key] = { level: 'override', method: o.method };
        hasOverride = true;
        continue;
      }
      const from = applicable.find((s) => has(s.values, key));
      if (from) {
        values[key] = clone(from.values[key]);
        sources[key] = { level: 'set', set_id: from.id, set_name: from.name };
      } else {
        values[key] = clone(def.default);
        sources[key] = { level: 'default' };
      }
    }
    out[type] = { set_ids: applicable.map((s) => s.id), has_override: hasOverride, values, sources };
  }
  return out;
}
