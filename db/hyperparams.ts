import { keyRange, type SeriesKey } from './etl';
import { sql, type Tx } from './pool';

/** A per-series override row (table series_hyperparams, migration 006). */
export interface HyperparamRow {
  item_id: number;
  site_id: number;
  method: string;
  parameter_type: string;
  overrides: Record<string, unknown>;
  updated_by: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = sql.fragment`item_id, site_id, method, parameter_type, overrides, updated_by, created_at, updated_at`;

export async function listSeriesOverrides(tx: Tx, key: SeriesKey): Promise<HyperparamRow[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT ${COLUMNS} FROM series_hyperparams WHERE item_id = ${key.item_id} AND site_id = ${key.site_id} ORDER BY method`)) as HyperparamRow[])];
}

/** Replaces the overrides of one target (method) of the series; returns the previous row, if any. */
export async function upsertSeriesOverride(tx: Tx, key: SeriesKey, method: string, parameterType: string, overrides: Record<string, unknown>, by: string | null): Promise<HyperparamRow | null> {
  const old = (await tx.maybeOne(sql.unsafe`
    SELECT ${COLUMNS} FROM series_hyperparams WHERE item_id = ${key.item_id} AND site_id = ${key.site_id} AND method = ${method} FOR UPDATE`)) as HyperparamRow | null;
  await tx.query(sql.unsafe`
    INSERT INTO series_hyperparams (item_id, site_id, method, parameter_type, overrides, updated_by)
    VALUES (${key.item_id}, ${key.site_id}, ${method}, ${parameterType}, ${sql.jsonb(overrides as any)}, ${by})
    ON CONFLICT (item_id, site_id, method) DO UPDATE SET parameter_type = EXCLUDED.parameter_type, overrides = EXCLUDED.overrides,
      updated_by = EXCLUDED.updated_by, updated_at = now()`);
  return old;
}

/** Deletes the overrides of one target, or all of the series when `method` is undefined; returns the rows removed. */
export async function deleteSeriesOverrides(tx: Tx, key: SeriesKey, method?: string): Promise<HyperparamRow[]> {
  const which = method === undefined ? sql.fragment`TRUE` : sql.fragment`method = ${method}`;
  return [...((await tx.any(sql.unsafe`
    DELETE FROM series_hyperparams WHERE item_id = ${key.item_id} AND site_id = ${key.site_id} AND ${which}
    RETURNING ${COLUMNS}`)) as HyperparamRow[])];
}

/** Override rows of the series whose key lies in [from, to], ordered by key. */
export async function overridesInRange(tx: Tx, from: SeriesKey, to: SeriesKey): Promise<HyperparamRow[]> {
  return [...((await tx.any(sql.unsafe`
    SELECT ${COLUMNS} FROM series_hyperparams
    WHERE ${keyRange(from, to)}
    ORDER BY item_id, site_id, method`)) as HyperparamRow[])];
}
