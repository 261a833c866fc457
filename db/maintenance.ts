/**
 * Maintenance events, their BOMs, maintenance scenarios with their schedules and date overrides (spec §4.10;
 * migration 029; docs/MAINTENANCE.md). The engine that turns them into occurrences and demand is domain/maintenance.
 */
import { sql, type Tx } from './pool';
import { filterSql, type SeriesFilter } from './series';
import type { BomLine, DateOverride, MaintenanceEvent, ScheduleEntry } from '../domain/maintenance/engine';

type Fragment = ReturnType<typeof sql.fragment>;
const f = sql.fragment;

export interface EventRow extends MaintenanceEvent {
  description: string | null;
  event_type: string | null;
  asset: string | null;
  created_at: string;
  updated_at: string;
}

export type EventValues = Omit<EventRow, 'id' | 'created_at' | 'updated_at'>;

const EVENT_COLUMNS = f`id, name, description, event_type, asset, start_date, interval_weeks, end_date,
  ARRAY(SELECT to_char(d, 'YYYY-MM-DD') FROM unnest(dates) AS d ORDER BY d) AS dates, created_at, updated_at`;

export async function listEvents(tx: Tx, ids?: readonly number[]): Promise<EventRow[]> {
  const where = ids ? f`WHERE id = ANY(${sql.array([...ids], 'int4')})` : f``;
  return [...(await tx.any(sql.unsafe`SELECT ${EVENT_COLUMNS} FROM maintenance_events ${where} ORDER BY id`))] as EventRow[];
}

export async function getEvent(tx: Tx, id: number): Promise<EventRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${EVENT_COLUMNS} FROM maintenance_events WHERE id = ${id}`)) as EventRow | null;
}

export async function eventNamed(tx: Tx, name: string, exceptId: number): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM maintenance_events WHERE name = ${name} AND id <> ${exceptId}`)) as number | null;
}

export async function insertEvent(tx: Tx, v: EventValues): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO maintenance_events (name, description, event_type, asset, start_date, interval_weeks, end_date, dates)
    VALUES (${v.name}, ${v.description}, ${v.event_type}, ${v.asset}, ${v.start_date}::date, ${v.interval_weeks}, ${v.end_date}::date,
      ${sql.array(v.dates, 'date')})
    RETURNING id`)) as number;
}

export async function updateEvent(tx: Tx, id: number, v: EventValues): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE maintenance_events SET name = ${v.name}, description = ${v.description}, event_type = ${v.event_type}, asset = ${v.asset},
      start_date = ${v.start_date}::date, interval_weeks = ${v.interval_weeks}, end_date = ${v.end_date}::date,
      dates = ${sql.array(v.dates, 'date')}, updated_at = now()
    WHERE id = ${id}`);
}

export async function deleteEvent(tx: Tx, id: number): Promise<boolean> {
  return (await tx.query(sql.unsafe`DELETE FROM maintenance_events WHERE id = ${id}`)).rowCount > 0;
}

/** A BOM line with the code and name of its item and site. */
export interface BomLineView extends BomLine {
  item_xuid: string;
  item_name: string;
  site_xuid: string;
  site_name: string;
}

export async function bomLines(tx: Tx, eventIds?: readonly number[]): Promise<BomLineView[]> {
  const where = eventIds ? f`WHERE b.event_id = ANY(${sql.array([...eventIds], 'int4')})` : f``;
  return [...(await tx.any(sql.unsafe`
    SELECT b.event_id, b.item_id, b.site_id, b.qty_per_occurrence, i.xuid AS item_xuid, i.name AS item_name, s.xuid AS site_xuid, s.name AS site_name
    FROM maintenance_event_bom b JOIN items i ON i.id = b.item_id JOIN sites s ON s.id = b.site_id
    ${where} ORDER BY b.event_id, b.item_id, b.site_id`))] as BomLineView[];
}

export async function replaceBom(tx: Tx, eventId: number, lines: ReadonlyArray<{ item_id: number; site_id: number; qty_per_occurrence: number }>): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM maintenance_event_bom WHERE event_id = ${eventId}`);
  if (!lines.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO maintenance_event_bom (event_id, item_id, site_id, qty_per_occurrence)
    SELECT ${eventId}, * FROM unnest(${sql.array(lines.map((l) => l.item_id), 'int4')}::int[], ${sql.array(lines.map((l) => l.site_id), 'int4')}::int[],
      ${sql.array(lines.map((l) => l.qty_per_occurrence), 'float8')}::float8[])`);
  await tx.query(sql.unsafe`UPDATE maintenance_events SET updated_at = now() WHERE id = ${eventId}`);
}

/** The ids among `ids` that exist in items or sites. */
export async function existingIds(tx: Tx, table: 'items' | 'sites', ids: readonly number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = (await tx.anyFirst(sql.unsafe`SELECT id FROM ${sql.identifier([table])} WHERE id = ANY(${sql.array([...new Set(ids)], 'int4')})`)) as readonly number[];
  return new Set(rows);
}

/** Codes and names of items or sites, for the views. */
export async function namesOf(tx: Tx, table: 'items' | 'sites', ids: readonly number[]): Promise<Map<number, { xuid: string; name: string }>> {
  if (!ids.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT id, xuid, name FROM ${sql.identifier([table])} WHERE id = ANY(${sql.array([...new Set(ids)], 'int4')})`)) as ReadonlyArray<{ id: number; xuid: string; name: string }>;
  return new Map(rows.map((r) => [r.id, { xuid: r.xuid, name: r.name }]));
}

// ---------------------------------------------------------------------------------------------------- scenarios

export interface ScenarioRow {
  id: number;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

const SCENARIO_COLUMNS = f`id, name, description, created_at, updated_at`;

export async function listScenarios(tx: Tx): Promise<Array<ScenarioRow & { scheduled_events: number; date_overrides: number }>> {
  return [...(await tx.any(sql.unsafe`
    SELECT ${SCENARIO_COLUMNS},
      (SELECT count(*)::int FROM maintenance_schedules x WHERE x.scenario_id = m.id) AS scheduled_events,
      (SELECT count(*)::int FROM maintenance_date_overrides o WHERE o.scenario_id = m.id) AS date_overrides
    FROM maintenance_scenarios m ORDER BY id`))] as Array<ScenarioRow & { scheduled_events: number; date_overrides: number }>;
}

export async function getMaintenanceScenario(tx: Tx, id: number): Promise<ScenarioRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${SCENARIO_COLUMNS} FROM maintenance_scenarios WHERE id = ${id}`)) as ScenarioRow | null;
}

export async function scenarioNamed(tx: Tx, name: string): Promise<number | null> {
  return (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM maintenance_scenarios WHERE name = ${name}`)) as number | null;
}

export async function insertScenario(tx: Tx, v: { name: string; description: string | null }): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`INSERT INTO maintenance_scenarios (name, description) VALUES (${v.name}, ${v.description}) RETURNING id`)) as number;
}

export async function deleteScenario(tx: Tx, id: number): Promise<boolean> {
  return (await tx.query(sql.unsafe`DELETE FROM maintenance_scenarios WHERE id = ${id}`)).rowCount > 0;
}

const touchScenario = (tx: Tx, id: number) => tx.query(sql.unsafe`UPDATE maintenance_scenarios SET updated_at = now() WHERE id = ${id}`);

export async function scheduleEntries(tx: Tx, scenarioId: number): Promise<ScheduleEntry[]> {
  return [...(await tx.any(sql.unsafe`
    SELECT event_id, active, shift_weeks, interval_weeks, start_date, end_date FROM maintenance_schedules
    WHERE scenario_id = ${scenarioId} ORDER BY event_id`))] as ScheduleEntry[];
}

export async function replaceSchedule(tx: Tx, scenarioId: number, entries: readonly ScheduleEntry[]): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM maintenance_schedules WHERE scenario_id = ${scenarioId}`);
  for (const e of entries) {
    await tx.query(sql.unsafe`
      INSERT INTO maintenance_schedules (scenario_id, event_id, active, shift_weeks, interval_weeks, start_date, end_date)
      VALUES (${scenarioId}, ${e.event_id}, ${e.active}, ${e.shift_weeks}, ${e.interval_weeks}, ${e.start_date}::date, ${e.end_date}::date)`);
  }
  await touchScenario(tx, scenarioId);
}

export async function dateOverrides(tx: Tx, scenarioId: number, eventId?: number): Promise<DateOverride[]> {
  const ev = eventId === undefined ? f`` : f`AND event_id = ${eventId}`;
  return [...(await tx.any(sql.unsafe`
    SELECT event_id, date, new_date FROM maintenance_date_overrides WHERE scenario_id = ${scenarioId} ${ev} ORDER BY event_id, date`))] as DateOverride[];
}

export async function replaceDateOverrides(tx: Tx, scenarioId: number, eventId: number, list: ReadonlyArray<{ date: string; new_date: string | null }>): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM maintenance_date_overrides WHERE scenario_id = ${scenarioId} AND event_id = ${eventId}`);
  for (const o of list) {
    await tx.query(sql.unsafe`
      INSERT INTO maintenance_date_overrides (scenario_id, event_id, date, new_date) VALUES (${scenarioId}, ${eventId}, ${o.date}::date, ${o.new_date}::date)`);
  }
  await touchScenario(tx, scenarioId);
}

/** Everything the engine needs for one scenario (null: the events as defined, no entries or overrides). */
export async function loadPlan(tx: Tx, scenarioId: number | null) {
  return {
    events: await listEvents(tx),
    bom: await bomLines(tx),
    entries: scenarioId === null ? [] : await scheduleEntries(tx, scenarioId),
    overrides: scenarioId === null ? [] : await dateOverrides(tx, scenarioId),
  };
}

// ---------------------------------------------------------------------------------------------------- series views

/** The series (item × site, rows of `series` under the condition on alias `s`) that appear in a maintenance BOM. */
export async function bomSeriesWhere(tx: Tx, where: Fragment): Promise<Set<string>> {
  const rows = (await tx.any(sql.unsafe`
    SELECT DISTINCT s.item_id, s.site_id FROM series s
    WHERE ${where} AND EXISTS (SELECT 1 FROM maintenance_event_bom b WHERE b.item_id = s.item_id AND b.site_id = s.site_id)`)) as ReadonlyArray<{ item_id: number; site_id: number }>;
  return new Set(rows.map((r) => `${r.item_id}_${r.site_id}`));
}

/** type-counts `maintenance`: series of the filter that appear in the BOM of a maintenance event. */
export async function maintenanceSeriesCount(tx: Tx, filter: SeriesFilter): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    SELECT count(*)::int FROM series s
    WHERE ${filterSql(filter)} AND EXISTS (SELECT 1 FROM maintenance_event_bom b WHERE b.item_id = s.item_id AND b.site_id = s.site_id)`)) as number;
}

/** The first series by item and site id (the demo tenant's maintenance events take their parts from them). */
export async function firstSeries(tx: Tx, limit: number): Promise<Array<{ item_id: number; site_id: number }>> {
  return [...(await tx.any(sql.unsafe`SELECT item_id, site_id FROM series ORDER BY item_id, site_id LIMIT ${limit}`))] as Array<{ item_id: number; site_id: number }>;
}

export async function eventCount(tx: Tx): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM maintenance_events`)) as number;
}
