/**
 * Snoozes of the computed exceptions (migration 027; spec §4.11 `/api/exceptions*`; docs/EXCEPTIONS.md): one per
 * SKU-site and exception type, active until and including its date. Also the labels the exception list shows.
 */
import type { SeriesKey, Snooze } from '../domain/exceptions/series';
import { sql, type Tx } from './pool';

export interface SnoozeRow extends Snooze {
  unique_id: string;
  created_by: string;
  created_at: string;
}

const COLUMNS = sql.fragment`item_id, site_id, (item_id::text || '_' || site_id::text) AS unique_id, exc_type, until_date::text AS until_date, created_by, created_at`;

/** The database's today (`YYYY-MM-DD`): the day snoozes are compared with, whatever the API host's clock or zone. */
export async function databaseToday(tx: Tx): Promise<string> {
  return (await tx.oneFirst(sql.unsafe`SELECT current_date::text`)) as string;
}

/** The snoozes still in force (until_date today or later), of one series or of all. */
export async function activeSnoozes(tx: Tx, key?: SeriesKey): Promise<SnoozeRow[]> {
  const only = key ? sql.fragment`AND item_id = ${key.item_id} AND site_id = ${key.site_id}` : sql.fragment``;
  return [...((await tx.any(sql.unsafe`
    SELECT ${COLUMNS} FROM exception_snoozes WHERE until_date >= current_date ${only} ORDER BY item_id, site_id, exc_type`)) as unknown as SnoozeRow[])];
}

export async function getSnooze(tx: Tx, key: SeriesKey, excType: string, lock = false): Promise<SnoozeRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM exception_snoozes WHERE item_id = ${key.item_id} AND site_id = ${key.site_id} AND exc_type = ${excType}
    ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`)) as SnoozeRow | null;
}

/** Sets or replaces the snooze of a series and type. */
export async function upsertSnooze(tx: Tx, key: SeriesKey, excType: string, untilDate: string, by: string): Promise<SnoozeRow> {
  return (await tx.one(sql.unsafe`
    INSERT INTO exception_snoozes (item_id, site_id, exc_type, until_date, created_by)
    VALUES (${key.item_id}, ${key.site_id}, ${excType}, ${untilDate}::date, ${by})
    ON CONFLICT (item_id, site_id, exc_type) DO UPDATE SET until_date = EXCLUDED.until_date, created_by = EXCLUDED.created_by, created_at = now()
    RETURNING ${COLUMNS}`)) as SnoozeRow;
}

/** Removes the snooze; the removed row, or null when there was none. */
export async function deleteSnooze(tx: Tx, key: SeriesKey, excType: string): Promise<SnoozeRow | null> {
  return (await tx.maybeOne(sql.unsafe`
    DELETE FROM exception_snoozes WHERE item_id = ${key.item_id} AND site_id = ${key.site_id} AND exc_type = ${excType}
    RETURNING ${COLUMNS}`)) as SnoozeRow | null;
}

export interface SeriesLabel extends SeriesKey {
  item_code: string;
  item_name: string;
  site_name: string;
}

/** Item code and name and site name of the given series, for the page a list shows. */
export async function seriesLabels(tx: Tx, keys: readonly SeriesKey[]): Promise<SeriesLabel[]> {
  if (!keys.length) return [];
  return [...((await tx.any(sql.unsafe`
    SELECT u.item_id, u.site_id, i.xuid AS item_code, i.name AS item_name, s.name AS site_name
    FROM unnest(${sql.array(keys.map((k) => k.item_id), 'int4')}::int[], ${sql.array(keys.map((k) => k.site_id), 'int4')}::int[]) AS u(item_id, site_id)
    JOIN items i ON i.id = u.item_id JOIN sites s ON s.id = u.site_id`)) as unknown as SeriesLabel[])];
}
