import { sql, type Tx } from './pool';

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

const COLUMNS = sql.fragment`id, name, description, is_baseline, horizon_weeks, methods, settings, created_by, created_at, updated_at`;

/**
 * Serialises writes to one tenant's scenarios for the rest of the transaction, so "check the name, then insert"
 * and "clear the old baseline, then set the new one" cannot interleave with another request doing the same.
 */
export async function lockScenarios(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('forecast_scenarios'))`);
}

export async function listScenarios(tx: Tx, page: { skip: number; limit: number }): Promise<{ rows: ScenarioRow[]; total: number }> {
  const rows = (await tx.any(sql.unsafe`SELECT ${COLUMNS} FROM forecast_scenarios ORDER BY id LIMIT ${page.limit} OFFSET ${page.skip}`)) as ScenarioRow[];
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM forecast_scenarios`)) as number;
  return { rows: [...rows], total };
}

export async function getScenario(tx: Tx, id: number): Promise<ScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM forecast_scenarios WHERE id = ${id}`)) as ScenarioRow | null;
}

/** The tenant's baseline scenario, if one is marked. */
export async function getBaselineScenario(tx: Tx): Promise<ScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM forecast_scenarios WHERE is_baseline`)) as ScenarioRow | null;
}

/** Names are unique ignoring case; `exceptId` lets an update keep its own name. */
export async function findScenarioByName(tx: Tx, name: string, exceptId?: number): Promise<ScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM forecast_scenarios WHERE lower(name) = lower(${name}) AND id <> ${exceptId ?? 0}`)) as ScenarioRow | null;
}

/** Unmarks every baseline except `keepId`; returns the ids that lost the mark. */
export async function clearBaseline(tx: Tx, keepId?: number): Promise<number[]> {
  const rows = await tx.anyFirst(sql.unsafe`
    UPDATE forecast_scenarios SET is_baseline = false, updated_at = now()
    WHERE is_baseline AND id <> ${keepId ?? 0} RETURNING id`);
  return rows as number[];
}

export async function insertScenario(tx: Tx, s: Required<ScenarioWrite>, createdBy: string | null): Promise<ScenarioRow> {
  return (await tx.one(sql.unsafe`
    INSERT INTO forecast_scenarios (name, description, is_baseline, horizon_weeks, methods, settings, created_by)
    VALUES (${s.name}, ${s.description}, ${s.is_baseline}, ${s.horizon_weeks}, ${sql.array(s.methods, 'text')},
      ${sql.jsonb(s.settings as any)}, ${createdBy})
    RETURNING ${COLUMNS}`)) as ScenarioRow;
}

/** Sets only the fields given (settings are replaced as a whole, not merged). */
export async function updateScenario(tx: Tx, id: number, s: ScenarioWrite): Promise<ScenarioRow | null> {
  const sets = [sql.fragment`updated_at = now()`];
  if (s.name !== undefined) sets.push(sql.fragment`name = ${s.name}`);
  if (s.description !== undefined) sets.push(sql.fragment`description = ${s.description}`);
  if (s.is_baseline !== undefined) sets.push(sql.fragment`is_baseline = ${s.is_baseline}`);
  if (s.horizon_weeks !== undefined) sets.push(sql.fragment`horizon_weeks = ${s.horizon_weeks}`);
  if (s.methods !== undefined) sets.push(sql.fragment`methods = ${sql.array(s.methods, 'text')}`);
  if (s.settings !== undefined) sets.push(sql.fragment`settings = ${sql.jsonb(s.settings as any)}`);
  return (await tx.maybeOne(sql.unsafe`
    UPDATE forecast_scenarios SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id} RETURNING ${COLUMNS}`)) as ScenarioRow | null;
}

/** Deletes the scenario; pipelines pointing at it are detached by the foreign key (ON DELETE SET NULL). */
export async function deleteScenario(tx: Tx, id: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`DELETE FROM forecast_scenarios WHERE id = ${id}`);
  return r.rowCount > 0;
}
