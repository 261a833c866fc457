/**
 * Which service target and costs a series is planned with in a MEIO scenario (docs/INVENTORY_CONFIG.md). Each field
 * is resolved on its own, first level that sets it wins:
 *   1. the IO override of the SKU-site (target and service type only),
 *   2. the first active parameter set, by priority, that applies to the series and sets the field,
 *   3. the segment parameters of the series' segment with the highest target,
 *   4. the scenario.
 */

export const SERVICE_TYPES = ['fill_rate', 'cycle_service'] as const;
export const POLICIES = ['rQ', 'sS', 'base_stock'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];
export type Policy = (typeof POLICIES)[number];

/** The fields every level may set (segment parameters and overrides only some of them). */
export interface MeioValues {
  target_service: number;
  service_type: ServiceType;
  holding_rate: number;
  ordering_cost: number;
  policy: Policy;
  review_period_weeks: number;
}

export const MEIO_VALUE_KEYS = ['target_service', 'service_type', 'holding_rate', 'ordering_cost', 'policy', 'review_period_weeks'] as const;

export interface MeioScenario extends MeioValues {
  id: number;
  name: string;
  /** investment cap of the optimiser; null: none */
  budget: number | null;
  is_default: boolean;
}

export interface MeioSegmentParams {
  segment_id: number;
  target_service: number;
  service_type: ServiceType | null;
  holding_rate: number | null;
}

export interface MeioParameterSet {
  id: number;
  priority: number;
  is_active: boolean;
  values: Partial<MeioValues>;
  /** none: the set applies to every series */
  segment_ids: number[];
}

export interface MeioSettings {
  scenario: MeioScenario;
  segment_params: MeioSegmentParams[];
  parameter_sets: MeioParameterSet[];
}

export interface IoOverride {
  /** cycle-service target */
  sl_override?: number | null;
  /** fill-rate target */
  fr_override?: number | null;
}

export type TargetSource = 'override' | 'scenario' | `parameter_set:${number}` | `segment:${number}`;

export interface ResolvedServiceTarget extends MeioValues {
  /** where target_service came from */
  source: TargetSource;
  /** where each field came from */
  sources: Record<keyof MeioValues, TargetSource>;
}

const given = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** The override's target and type, or null. Both set: the one of the type the series would have without it. */
function overrideTarget(o: IoOverride | undefined, typeWithout: ServiceType): { target_service: number; service_type: ServiceType } | null {
  if (!o) return null;
  const fr = given(o.fr_override) ? { target_service: o.fr_override, service_type: 'fill_rate' as const } : null;
  const sl = given(o.sl_override) ? { target_service: o.sl_override, service_type: 'cycle_service' as const } : null;
  if (fr && sl) return typeWithout === 'cycle_service' ? sl : fr;
  return fr ?? sl;
}

/**
 * The segment level for a series in several segments: the one with the highest target (ties: the lowest segment
 * id), so a series shared by a critical and a standard segment gets the critical service level.
 */
function segmentLevel(params: readonly MeioSegmentParams[], segmentIds: ReadonlySet<number>): MeioSegmentParams | null {
  let best: MeioSegmentParams | null = null;
  for (const p of params) {
    if (!segmentIds.has(p.segment_id)) continue;
    if (!best || p.target_service > best.target_service || (p.target_service === best.target_service && p.segment_id < best.segment_id)) best = p;
  }
  return best;
}

/** Active sets that apply to the series, in the order they are tried (priority, then id). */
export function applicableSets(sets: readonly MeioParameterSet[], segmentIds: ReadonlySet<number>): MeioParameterSet[] {
  return sets
    .filter((s) => s.is_active && (s.segment_ids.length === 0 || s.segment_ids.some((id) => segmentIds.has(id))))
    .sort((a, b) => a.priority - b.priority || a.id - b.id);
}

export function resolveServiceTarget(settings: MeioSettings, segmentIdsOfSeries: readonly number[], override?: IoOverride): ResolvedServiceTarget {
  const segs = new Set(segmentIdsOfSeries);
  const sets = applicableSets(settings.parameter_sets, segs);
  const seg = segmentLevel(settings.segment_params, segs);
  const values = {} as Record<keyof MeioValues, unknown>;
  const sources = {} as Record<keyof MeioValues, TargetSource>;

  for (const key of MEIO_VALUE_KEYS) {
    const set = sets.find((s) => s.values[key] !== undefined && s.values[key] !== null);
    if (set) {
      values[key] = set.values[key];
      sources[key] = `parameter_set:${set.id}`;
      continue;
    }
    const fromSegment = seg && (key === 'target_service' || key === 'service_type' || key === 'holding_rate') ? seg[key] : null;
    if (fromSegment !== null && fromSegment !== undefined) {
      values[key] = fromSegment;
      sources[key] = `segment:${seg!.segment_id}`;
      continue;
    }
    values[key] = settings.scenario[key];
    sources[key] = 'scenario';
  }

  const o = overrideTarget(override, values.service_type as ServiceType);
  if (o) {
    values.target_service = o.target_service;
    values.service_type = o.service_type;
    sources.target_service = 'override';
    sources.service_type = 'override';
  }
  return { ...(values as unknown as MeioValues), source: sources.target_service, sources };
}
