import { sql, type Tx } from './pool';
import type { RecordTable } from './records';

/** A forecast scenario (table forecast_scenarios, migration 004). */
export interface ScenarioRow {
  id: number;
  name: string;
  description: string | null;
  is_baseline: boolean;
  horizon_weeks: number;
  methods: string[];
  settings: Record<string, unknown>;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScenarioWrite {
  name?: string;
  description?: string | null;
  is_baseline?: boolean;
  horizon_weeks?: number;
  methods?: string[];
  settings?: Record<string, unknown>;
}

/** The table as a plain record resource (db/records.ts): the list, get, create and update routes use this. */
export const SCENARIO_RECORD: RecordTable = {
  table: 'forecast_scenarios', key: 'id', orderBy: ['id'], uniqueIgnoringCase: 'name', exclusiveFlag: 'is_baseline', touch: 'updated_at',
  columns: {
    id: { type: 'int', writable: false }, name: { type: 'text' }, description: { type: 'text' }, is_baseline: { type: 'bool' },
    horizon_weeks: { type: 'int' }, methods: { type: 'text[]' }, settings: { type: 'jsonb' }, created_by: { type: 'text' },
    created_at: { type: 'timestamptz', writable: false }, updated_at: { type: 'timestamptz', writable: false },
  },
};

const COLUMNS = sql.fragment`id, name, description, is_baseline, horizon_weeks, methods, settings, created_by, created_at, updated_at`;

/**
 * Serialises writes to one tenant's scenarios for the rest of the transaction, so "check the name, then insert"
 * and "clear the old baseline, then set the new one" cannot interleave with another request doing the same.
 */
export async function lockScenarios(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('forecast_scenarios'))`);
}

export async function getScenario(tx: Tx, id: number): Promise<ScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM forecast_scenarios WHERE id = ${id}`)) as ScenarioRow | null;
}

/** The tenant's baseline scenario, if one is marked. */
export async function getBaselineScenario(tx: Tx): Promise<ScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM forecast_scenarios WHERE is_baseline`)) as ScenarioRow | null;
}

/** Makes `id` the tenant's only baseline (callers hold lockScenarios, as the routes do for their writes). */
export async function markBaseline(tx: Tx, id: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE forecast_scenarios SET is_baseline = (id = ${id}), updated_at = now() WHERE is_baseline OR id = ${id}`);
}

/** Names are unique ignoring case; `exceptId` lets an update keep its own name. */
export async function findScenarioByName(tx: Tx, name: string, exceptId?: number): Promise<ScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM forecast_scenarios WHERE lower(name) = lower(${name}) AND id <> ${exceptId ?? 0}`)) as ScenarioRow | null;
}

export async function insertScenario(tx: Tx, s: Required<ScenarioWrite>, createdBy: string | null): Promise<ScenarioRow> {
  return (await tx.one(sql.unsafe`
    INSERT INTO forecast_scenarios (name, description, is_baseline, horizon_weeks, methods, settings, created_by)
    VALUES (${s.name}, ${s.description}, ${s.is_baseline}, ${s.horizon_weeks}, ${sql.array(s.methods, 'text')},
      ${sql.jsonb(s.settings as any)}, ${createdBy})
    RETURNING ${COLUMNS}`)) as ScenarioRow;
}

/** Deletes the scenario; pipelines pointing at it are detached by the foreign key (ON DELETE SET NULL). */
export async function deleteScenario(tx: Tx, id: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`DELETE FROM forecast_scenarios WHERE id = ${id}`);
  return r.rowCount > 0;
}
