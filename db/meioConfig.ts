import type { MeioParameterSet, MeioScenario, MeioSegmentParams, MeioSettings, MeioValues, ServiceType } from '../domain/inventory/serviceTargets';
import { sql, type Tx } from './pool';
import type { RecordTable } from './records';

/** MEIO configuration (migration 008): scenarios, per-segment overrides, parameter sets and their segments. */

export interface MeioScenarioRow extends MeioScenario {
  description: string | null;
  /** the demand streams the meio step plans against (migration 034, domain/demand/streams.ts) */
  demand_statistical: boolean;
  demand_causal: boolean;
  demand_maintenance: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** Scenarios are plain records (db/records.ts): list, get, create, update and delete go through this declaration. */
export const MEIO_SCENARIO_RECORD: RecordTable = {
  table: 'meio_scenarios', key: 'id', orderBy: ['id'], uniqueIgnoringCase: 'name', exclusiveFlag: 'is_default', touch: 'updated_at',
  columns: {
    id: { type: 'int', writable: false }, name: { type: 'text' }, description: { type: 'text' },
    service_type: { type: 'text' }, target_service: { type: 'numeric' }, policy: { type: 'text' },
    review_period_weeks: { type: 'numeric' }, holding_rate: { type: 'numeric' }, ordering_cost: { type: 'numeric' },
    budget: { type: 'numeric' }, is_default: { type: 'bool' }, created_by: { type: 'text' },
    demand_statistical: { type: 'bool' }, demand_causal: { type: 'bool' }, demand_maintenance: { type: 'bool' },
    created_at: { type: 'timestamptz', writable: false }, updated_at: { type: 'timestamptz', writable: false },
  },
};

const SCENARIO_COLUMNS = sql.fragment`id, name, description, service_type, target_service, policy, review_period_weeks, holding_rate,
  ordering_cost, budget, is_default, demand_statistical, demand_causal, demand_maintenance, created_by, created_at, updated_at`;

/**
 * The scenario, locked until the transaction ends. Every write below a scenario (segment parameters, parameter sets)
 * takes this lock first: it serialises priorities and names per scenario, and a concurrent scenario delete waits
 * instead of leaving a write to fail on its foreign key.
 */
export async function lockMeioScenario(tx: Tx, id: number): Promise<MeioScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${SCENARIO_COLUMNS} FROM meio_scenarios WHERE id = ${id} FOR UPDATE`)) as MeioScenarioRow | null;
}

export async function getMeioScenario(tx: Tx, id: number): Promise<MeioScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${SCENARIO_COLUMNS} FROM meio_scenarios WHERE id = ${id}`)) as MeioScenarioRow | null;
}

// ---------------------------------------------------------------- segments (migration 005, another area)

/** The given segment ids that name no segment, ascending. */
export async function unknownSegmentIds(tx: Tx, ids: readonly number[]): Promise<number[]> {
  if (!ids.length) return [];
  return [...((await tx.anyFirst(sql.unsafe`
    SELECT DISTINCT s FROM unnest(${sql.array([...ids], 'int4')}::int4[]) AS s
    WHERE NOT EXISTS (SELECT 1 FROM segments g WHERE g.id = s) ORDER BY s`)) as number[])];
}

export async function segmentNames(tx: Tx, ids: readonly number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = (await tx.any(sql.unsafe`SELECT id, name FROM segments WHERE id = ANY(${sql.array([...ids], 'int4')})`)) as Array<{ id: number; name: string }>;
  return new Map(rows.map((r) => [r.id, r.name]));
}

// ---------------------------------------------------------------- segment parameters

export interface SegmentParamsRow extends MeioSegmentParams {
  scenario_id: number;
  segment_name: string;
  updated_by: string | null;
  updated_at: string;
}

export interface SegmentParamsWrite {
  segment_id: number;
  target_service: number;
  service_type: ServiceType | null;
  holding_rate: number | null;
}

export async function listSegmentParams(tx: Tx, scenarioId: number): Promise<SegmentParamsRow[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT p.scenario_id, p.segment_id, g.name AS segment_name, p.target_service, p.service_type, p.holding_rate, p.updated_by, p.updated_at
    FROM meio_segment_params p JOIN segments g ON g.id = p.segment_id
    WHERE p.scenario_id = ${scenarioId} ORDER BY p.segment_id`)) as SegmentParamsRow[])];
}

/** Inserts or replaces (every field) the rows of the given segments; the scenario's other segments keep theirs. */
export async function upsertSegmentParams(tx: Tx, scenarioId: number, rows: readonly SegmentParamsWrite[], updatedBy: string | null): Promise<void> {
  if (!rows.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO meio_segment_params (scenario_id, segment_id, target_service, service_type, holding_rate, updated_by)
    SELECT ${scenarioId}, u.segment_id, u.target_service, u.service_type, u.holding_rate, ${updatedBy}
    FROM ${sql.unnest(
      rows.map((r) => [r.segment_id, r.target_service, r.service_type, r.holding_rate]),
      ['int4', 'numeric', 'text', 'numeric'],
    )} AS u(segment_id, target_service, service_type, holding_rate)
    ON CONFLICT (scenario_id, segment_id) DO UPDATE SET
      target_service = EXCLUDED.target_service, service_type = EXCLUDED.service_type, holding_rate = EXCLUDED.holding_rate,
      updated_by = EXCLUDED.updated_by, updated_at = now()`);
}

export async function deleteSegmentParams(tx: Tx, scenarioId: number, segmentId: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`DELETE FROM meio_segment_params WHERE scenario_id = ${scenarioId} AND segment_id = ${segmentId}`);
  return r.rowCount > 0;
}

/** Removes every segment override of the scenario; returns how many there were. */
export async function clearSegmentParams(tx: Tx, scenarioId: number): Promise<number> {
  const r = await tx.query(sql.unsafe`DELETE FROM meio_segment_params WHERE scenario_id = ${scenarioId}`);
  return r.rowCount;
}

// ---------------------------------------------------------------- parameter sets

export interface MeioParameterSetRow extends MeioParameterSet {
  scenario_id: number;
  name: string;
  description: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface MeioParameterSetWrite {
  name?: string;
  description?: string | null;
  is_active?: boolean;
  values?: Partial<MeioValues>;
}

const SET_COLUMNS = sql.fragment`p.id, p.scenario_id, p.name, p.description, p.priority, p.is_active, p.param_values AS values,
  ARRAY(SELECT l.segment_id FROM meio_parameter_set_segments l WHERE l.pset_id = p.id ORDER BY l.segment_id) AS segment_ids,
  p.created_by, p.created_at, p.updated_at`;

/** The scenario's sets in the order they are tried. */
export async function listMeioParameterSets(tx: Tx, scenarioId: number, onlyActive = false): Promise<MeioParameterSetRow[]> {
  const active = onlyActive ? sql.fragment`AND p.is_active` : sql.fragment``;
  return [...((await tx.any(sql.unsafe`
    SELECT ${SET_COLUMNS} FROM meio_parameter_sets p WHERE p.scenario_id = ${scenarioId} ${active} ORDER BY p.priority, p.id`)) as MeioParameterSetRow[])];
}

export async function getMeioParameterSet(tx: Tx, id: number): Promise<MeioParameterSetRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${SET_COLUMNS} FROM meio_parameter_sets p WHERE p.id = ${id}`)) as MeioParameterSetRow | null;
}

/** The scenario a set belongs to, or null when the set does not exist. */
export async function scenarioOfParameterSet(tx: Tx, id: number): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT scenario_id FROM meio_parameter_sets WHERE id = ${id}`)) as number | null;
}

/** Names are unique per scenario, ignoring case; `exceptId` lets an update keep its own name. */
export async function findMeioParameterSetByName(tx: Tx, scenarioId: number, name: string, exceptId?: number): Promise<{ id: number; name: string } | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT id, name FROM meio_parameter_sets
    WHERE scenario_id = ${scenarioId} AND lower(name) = lower(${name}) AND id <> ${exceptId ?? 0}`)) as { id: number; name: string } | null;
}

/** Ids of the scenario's sets in priority order. */
export async function meioParameterSetIds(tx: Tx, scenarioId: number): Promise<number[]> {
  return [...((await tx.anyFirst(sql.unsafe`SELECT id FROM meio_parameter_sets WHERE scenario_id = ${scenarioId} ORDER BY priority, id`)) as number[])];
}

/** Inserts the set last (priority n+1); the caller renumbers when it belongs elsewhere. */
export async function insertMeioParameterSet(tx: Tx, scenarioId: number, p: Required<MeioParameterSetWrite>, createdBy: string | null): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO meio_parameter_sets (scenario_id, name, description, priority, is_active, param_values, created_by)
    VALUES (${scenarioId}, ${p.name}, ${p.description},
      (SELECT COALESCE(max(priority), 0) + 1 FROM meio_parameter_sets WHERE scenario_id = ${scenarioId}),
      ${p.is_active}, ${sql.jsonb(p.values as any)}, ${createdBy})
    RETURNING id`)) as number;
}

/** Sets only the fields given (`values` is replaced as a whole) and touches updated_at. */
export async function updateMeioParameterSet(tx: Tx, id: number, p: MeioParameterSetWrite): Promise<void> {
  const sets = [sql.fragment`updated_at = now()`];
  if (p.name !== undefined) sets.push(sql.fragment`name = ${p.name}`);
  if (p.description !== undefined) sets.push(sql.fragment`description = ${p.description}`);
  if (p.is_active !== undefined) sets.push(sql.fragment`is_active = ${p.is_active}`);
  if (p.values !== undefined) sets.push(sql.fragment`param_values = ${sql.jsonb(p.values as any)}`);
  await tx.query(sql.unsafe`UPDATE meio_parameter_sets SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
}

export async function deleteMeioParameterSet(tx: Tx, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM meio_parameter_sets WHERE id = ${id}`);
}

/** Replaces the set's segment links. */
export async function setMeioParameterSetSegments(tx: Tx, id: number, segmentIds: readonly number[]): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM meio_parameter_set_segments WHERE pset_id = ${id}`);
  if (!segmentIds.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO meio_parameter_set_segments (pset_id, segment_id)
    SELECT ${id}, s FROM unnest(${sql.array([...segmentIds], 'int4')}::int4[]) AS s ON CONFLICT DO NOTHING`);
}

/**
 * Gives each id its 1-based position as priority, so priorities stay 1..n; the caller has checked the ids are exactly
 * the scenario's sets. Only moved sets are touched (and get a new updated_at).
 */
export async function renumberMeioParameterSets(tx: Tx, scenarioId: number, orderedIds: readonly number[]): Promise<void> {
  if (!orderedIds.length) return;
  await tx.query(sql.unsafe`
    UPDATE meio_parameter_sets p SET priority = o.ord::int, updated_at = now()
    FROM unnest(${sql.array([...orderedIds], 'int4')}::int4[]) WITH ORDINALITY AS o(id, ord)
    WHERE p.id = o.id AND p.scenario_id = ${scenarioId} AND p.priority IS DISTINCT FROM o.ord::int`);
}

// ---------------------------------------------------------------- what the meio step reads

/**
 * Everything domain/inventory/serviceTargets.ts resolves a series' target from: the scenario, its segment overrides
 * and its active parameter sets in priority order with their segment ids. Null when the scenario does not exist.
 */
export async function loadMeioSettings(tx: Tx, scenarioId: number): Promise<MeioSettings | null> {
  const scenario = await getMeioScenario(tx, scenarioId);
  if (!scenario) return null;
  const segmentParams = await listSegmentParams(tx, scenarioId);
  const sets = await listMeioParameterSets(tx, scenarioId, true);
  return {
    scenario: {
      id: scenario.id, name: scenario.name, service_type: scenario.service_type, target_service: scenario.target_service,
      policy: scenario.policy, review_period_weeks: scenario.review_period_weeks, holding_rate: scenario.holding_rate,
      ordering_cost: scenario.ordering_cost, budget: scenario.budget, is_default: scenario.is_default,
    },
    segment_params: segmentParams.map((p) => ({ segment_id: p.segment_id, target_service: p.target_service, service_type: p.service_type, holding_rate: p.holding_rate })),
    parameter_sets: sets.map((s) => ({ id: s.id, priority: s.priority, is_active: s.is_active, values: s.values, segment_ids: [...s.segment_ids] })),
  };
}
