import { sql, type Tx } from './pool';

/**
 * Calendars (tables calendars and calendar_entries of migration 003, extended by 006). A site follows its own
 * calendar (sites.calendar_id), else the tenant's default calendar, else none.
 */
export interface CalendarRow {
  id: number;
  name: string;
  description: string | null;
  is_default: boolean;
  site_ids: number[];
  entry_count: number;
  created_at: string;
  updated_at: string;
}

export interface CalendarEntry {
  ds: string;
  factor: number;
  description: string | null;
}

export interface CalendarWrite {
  name?: string;
  description?: string | null;
  is_default?: boolean;
}

const COLUMNS = sql.fragment`c.id, c.name, c.description, c.is_default,
  ARRAY(SELECT s.id FROM sites s WHERE s.calendar_id = c.id ORDER BY s.id) AS site_ids,
  (SELECT count(*)::int FROM calendar_entries e WHERE e.calendar_id = c.id) AS entry_count,
  c.created_at, c.updated_at`;

/** Serialises writes to one tenant's calendars for the rest of the transaction (names, default flag, sites). */
export async function lockCalendars(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('calendars'))`);
}

export async function listCalendars(tx: Tx, page: { skip: number; limit: number }): Promise<{ rows: CalendarRow[]; total: number }> {
  const rows = (await tx.any(sql.unsafe`SELECT ${COLUMNS} FROM calendars c ORDER BY c.id LIMIT ${page.limit} OFFSET ${page.skip}`)) as CalendarRow[];
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM calendars`)) as number;
  return { rows: [...rows], total };
}

export async function getCalendar(tx: Tx, id: number): Promise<CalendarRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM calendars c WHERE c.id = ${id}`)) as CalendarRow | null;
}

/** Names are unique ignoring case; `exceptId` lets an update keep its own name. */
export async function findCalendarByName(tx: Tx, name: string, exceptId?: number): Promise<CalendarRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM calendars c WHERE lower(c.name) = lower(${name}) AND c.id <> ${exceptId ?? 0} LIMIT 1`)) as CalendarRow | null;
}

/** Unmarks the current default calendar (other than `exceptId`); the caller marks the new one in the same transaction. */
export async function clearDefaultCalendar(tx: Tx, exceptId?: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE calendars SET is_default = false, updated_at = now() WHERE is_default AND id <> ${exceptId ?? 0}`);
}

export async function insertCalendar(tx: Tx, c: Required<CalendarWrite>): Promise<number> {
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO calendars (name, description, is_default) VALUES (${c.name}, ${c.description}, ${c.is_default}) RETURNING id`)) as number;
}

export async function updateCalendar(tx: Tx, id: number, c: CalendarWrite): Promise<boolean> {
  const sets = [sql.fragment`updated_at = now()`];
  if (c.name !== undefined) sets.push(sql.fragment`name = ${c.name}`);
  if (c.description !== undefined) sets.push(sql.fragment`description = ${c.description}`);
  if (c.is_default !== undefined) sets.push(sql.fragment`is_default = ${c.is_default}`);
  const r = await tx.query(sql.unsafe`UPDATE calendars SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
  return r.rowCount > 0;
}

/** Deletes the calendar with its entries; its sites are detached (ON DELETE SET NULL). */
export async function deleteCalendar(tx: Tx, id: number): Promise<boolean> {
  const r = await tx.query(sql.unsafe`DELETE FROM calendars WHERE id = ${id}`);
  return r.rowCount > 0;
}

/** The given site ids that name no site. */
export async function unknownSiteIds(tx: Tx, ids: readonly number[]): Promise<number[]> {
  if (!ids.length) return [];
  return [...((await tx.anyFirst(sql.unsafe`
    SELECT s FROM unnest(${sql.array([...ids], 'int4')}::int4[]) AS s
    WHERE NOT EXISTS (SELECT 1 FROM sites x WHERE x.id = s) ORDER BY s`)) as number[])];
}

/** Makes exactly these sites follow the calendar: listed sites move to it, its other sites are detached. */
export async function setCalendarSites(tx: Tx, id: number, siteIds: readonly number[]): Promise<void> {
  const ids = sql.array([...siteIds], 'int4');
  await tx.query(sql.unsafe`UPDATE sites SET calendar_id = NULL WHERE calendar_id = ${id} AND NOT (id = ANY(${ids}))`);
  await tx.query(sql.unsafe`UPDATE sites SET calendar_id = ${id} WHERE id = ANY(${ids}) AND calendar_id IS DISTINCT FROM ${id}`);
}

export async function calendarEntries(tx: Tx, id: number): Promise<CalendarEntry[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT ds, factor::float8 AS factor, description FROM calendar_entries WHERE calendar_id = ${id} ORDER BY ds`)) as CalendarEntry[])];
}

/** Replaces every entry of the calendar. */
export async function replaceCalendarEntries(tx: Tx, id: number, entries: readonly CalendarEntry[]): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM calendar_entries WHERE calendar_id = ${id}`);
  await tx.query(sql.unsafe`UPDATE calendars SET updated_at = now() WHERE id = ${id}`);
  if (!entries.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO calendar_entries (calendar_id, ds, factor, description)
    SELECT ${id}, u.ds, u.factor, u.description FROM ${sql.unnest(
      entries.map((e) => [e.ds, e.factor, e.description]),
      ['date', 'float8', 'text'],
    )} AS u(ds, factor, description)`);
}

/**
 * The calendar weeks of each site between two Mondays (inclusive): the week (its Monday) and its factor. Entries on
 * other days count for the week that contains them; several entries in one week: the smallest factor wins. Weeks
 * without an entry are not returned (factor 1). Used by the etl step and by the forecast step for future weeks.
 */
export async function calendarWeeksForSites(tx: Tx, siteIds: readonly number[], fromWeek: string, toWeek: string): Promise<Array<{ site_id: number; week: string; factor: number }>> {
  if (!siteIds.length) return [];
  return [...((await tx.any(sql.unsafe`
    WITH s AS (
      SELECT x.id AS site_id, COALESCE(x.calendar_id, (SELECT c.id FROM calendars c WHERE c.is_default LIMIT 1)) AS calendar_id
      FROM sites x WHERE x.id = ANY(${sql.array([...siteIds], 'int4')})
    )
    SELECT s.site_id, date_trunc('week', e.ds)::date AS week, min(e.factor)::float8 AS factor
    FROM s JOIN calendar_entries e ON e.calendar_id = s.calendar_id
    WHERE e.ds >= ${fromWeek}::date AND e.ds < ${toWeek}::date + 7
    GROUP BY s.site_id, date_trunc('week', e.ds)
    ORDER BY s.site_id, week`)) as Array<{ site_id: number; week: string; factor: number }>)];
}
