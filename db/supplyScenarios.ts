/**
 * Supply scenarios (migration 012): the parameter overrides a supply run applies and the segments it plans. The API
 * writes them (api/routes/supply/scenarios.ts); the supply step reads them through getSupplyScenario,
 * defaultSupplyScenarioId and supplyScenarioSegments.
 */
import { coerceFlag, scenarioFlags, scenarioOptions } from '../domain/supply/rules';
import type { SupplyFlags, SupplyOptions } from '../domain/supply/types';
import { sql, type Tx } from './pool';
import type { RecordTable } from './records';

/** Scenarios are plain records (db/records.ts): list, get, create, update and delete go through this declaration. */
export const SUPPLY_SCENARIO_RECORD: RecordTable = {
  table: 'supply_scenarios', key: 'id', orderBy: ['id'], uniqueIgnoringCase: 'name', exclusiveFlag: 'is_default', touch: 'updated_at',
  columns: {
    id: { type: 'int', writable: false }, name: { type: 'text' }, description: { type: 'text' },
    param_overrides: { type: 'jsonb' }, is_default: { type: 'bool' }, created_by: { type: 'text' },
    demand_statistical: { type: 'bool' }, demand_netted: { type: 'bool' }, demand_causal: { type: 'bool' }, demand_maintenance: { type: 'bool' },
    created_at: { type: 'timestamptz', writable: false }, updated_at: { type: 'timestamptz', writable: false },
  },
};

export interface SupplyScenarioRow {
  id: number;
  name: string;
  description: string | null;
  param_overrides: Record<string, unknown>;
  is_default: boolean;
  /** the demand streams the supply step plans against (migration 034, domain/demand/streams.ts) */
  demand_statistical: boolean;
  demand_netted: boolean;
  demand_causal: boolean;
  demand_maintenance: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** A scenario with what the engine makes of its overrides: the two §4.2 flags and the engine options it sets. */
export interface SupplyScenario extends SupplyScenarioRow {
  flags: SupplyFlags;
  options: SupplyOptions;
}

// ---------------------------------------------------------------- parameter overrides

/** The two flags of document 2 §4.2: any JSON value is accepted and stored as the boolean coerceFlag reads it as. */
export const SUPPLY_FLAG_KEYS = ['firm_orders_block_horizon', 'respect_lead_time'] as const;

/**
 * Besides the flags a scenario may set the engine options late_orders, max_delay_weeks, expedite and
 * excess_cover_weeks (snake_case; domain/supply/rules.ts scenarioOptions reads them). horizon (52 weeks, spec) and
 * check (the conservation check runs on every run) are not the scenario's to change.
 */
export const LATE_ORDER_MODES = ['flag', 'arrive_late'] as const;

/**
 * The overrides as stored: flags coerced to booleans, so the stored value is the one the engine acts on and a reader
 * of the row sees no "false" string that means false. The API has validated the other keys.
 */
export function normaliseParamOverrides(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k] = (SUPPLY_FLAG_KEYS as readonly string[]).includes(k) ? coerceFlag(v, false) : v;
  }
  return out;
}

// ---------------------------------------------------------------- reads the supply step uses

const COLUMNS = sql.fragment`id, name, description, param_overrides, is_default, demand_statistical, demand_netted, demand_causal, demand_maintenance,
  created_by, created_at, updated_at`;

const withEngineView = (row: SupplyScenarioRow): SupplyScenario => ({
  ...row,
  flags: scenarioFlags(row.param_overrides),
  options: scenarioOptions(row.param_overrides),
});

/**
 * The scenario with what the engine makes of its overrides (domain/supply/rules.ts scenarioFlags and scenarioOptions:
 * flags coerced, both off by default; an option that does not read is left to the engine's default); null when it
 * does not exist.
 */
export async function getSupplyScenario(tx: Tx, id: number): Promise<SupplyScenario | null> {
  const row = (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM supply_scenarios WHERE id = ${id}`)) as SupplyScenarioRow | null;
  return row ? withEngineView(row) : null;
}

/** The default scenario (run-all plans with it); null only when none is marked, which the API does not allow. */
export async function defaultSupplyScenarioId(tx: Tx): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default ORDER BY id LIMIT 1`)) as number | null;
}

/** The segments the scenario plans, ascending; empty: every series of the pipeline. */
export async function supplyScenarioSegments(tx: Tx, id: number): Promise<number[]> {
  return [...((await tx.anyFirst(sql.unsafe`
    SELECT segment_id FROM supply_scenario_segments WHERE scenario_id = ${id} ORDER BY segment_id`)) as number[])];
}

// ---------------------------------------------------------------- writes

/**
 * The scenario, locked until the transaction ends: param-overrides and segment writes take it first, so a concurrent
 * delete waits instead of leaving them to fail on a foreign key.
 */
export async function lockSupplyScenario(tx: Tx, id: number): Promise<SupplyScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM supply_scenarios WHERE id = ${id} FOR UPDATE`)) as SupplyScenarioRow | null;
}

export async function setSupplyParamOverrides(tx: Tx, id: number, overrides: Record<string, unknown>): Promise<SupplyScenarioRow> {
  return (await tx.one(sql.unsafe`
    UPDATE supply_scenarios SET param_overrides = ${sql.jsonb(overrides as any)}, updated_at = now()
    WHERE id = ${id} RETURNING ${COLUMNS}`)) as SupplyScenarioRow;
}

/** Replaces the scenario's segments; the scenario's updated_at moves, since what a run plans changed. */
export async function setSupplyScenarioSegments(tx: Tx, id: number, segmentIds: readonly number[]): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM supply_scenario_segments WHERE scenario_id = ${id}`);
  if (segmentIds.length) {
    await tx.query(sql.unsafe`
      INSERT INTO supply_scenario_segments (scenario_id, segment_id)
      SELECT ${id}, s FROM unnest(${sql.array([...segmentIds], 'int4')}::int4[]) AS s ON CONFLICT DO NOTHING`);
  }
  await tx.query(sql.unsafe`UPDATE supply_scenarios SET updated_at = now() WHERE id = ${id}`);
}

/** Supply runs of the scenario (they go with it: supply_runs.scenario_id cascades), and how many are still running. */
export async function supplyRunsOfScenario(tx: Tx, id: number): Promise<{ total: number; running: number }> {
  return (await tx.one(sql.unsafe`
    SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'running')::int AS running
    FROM supply_runs WHERE scenario_id = ${id}`)) as { total: number; running: number };
}
