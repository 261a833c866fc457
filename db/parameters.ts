import { sql, type Db, type Tx } from './pool';
import { defaultsOf, MASTER_SECTIONS, TENANT_SECTIONS } from '../domain/parameters/catalogue';

export interface ParameterRow {
  parameter_type: string;
  key: string;
  value: unknown;
}

/** Inserts catalogue keys the tenant does not have yet; never overwrites a value someone set. */
export async function syncTenantDefaults(tx: Tx): Promise<number> {
  let inserted = 0;
  for (const d of defaultsOf(TENANT_SECTIONS)) {
    const r = await tx.query(sql.unsafe`
      INSERT INTO parameters (parameter_type, key, value) VALUES (${d.parameter_type}, ${d.key}, ${sql.jsonb(d.value as any)})
      ON CONFLICT (parameter_type, key) DO NOTHING`);
    inserted += r.rowCount;
  }
  return inserted;
}

export async function syncMasterDefaults(db: Db | Tx, overrides: Record<string, unknown> = {}): Promise<number> {
  let inserted = 0;
  for (const d of defaultsOf(MASTER_SECTIONS)) {
    const value = overrides[`${d.parameter_type}.${d.key}`] ?? d.value;
    const r = await db.query(sql.unsafe`
      INSERT INTO master.parameters (parameter_type, key, value) VALUES (${d.parameter_type}, ${d.key}, ${sql.jsonb(value as any)})
      ON CONFLICT (parameter_type, key) DO NOTHING`);
    inserted += r.rowCount;
  }
  return inserted;
}

export async function listTenantParameters(tx: Tx): Promise<ParameterRow[]> {
  return (await tx.any(sql.unsafe`SELECT parameter_type, key, value FROM parameters ORDER BY parameter_type, key`)) as ParameterRow[];
}

export async function listMasterParameters(db: Db | Tx): Promise<ParameterRow[]> {
  return (await db.any(sql.unsafe`SELECT parameter_type, key, value FROM master.parameters ORDER BY parameter_type, key`)) as ParameterRow[];
}

export async function getMasterParameter(db: Db | Tx, type: string, key: string): Promise<unknown> {
  const row = (await db.maybeOne(sql.unsafe`SELECT value FROM master.parameters WHERE parameter_type = ${type} AND key = ${key}`)) as { value: unknown } | null;
  return row?.value;
}

/** Returns the previous value (undefined when the key was not stored yet). */
export async function setTenantParameter(tx: Tx, type: string, key: string, value: unknown): Promise<unknown> {
  const old = (await tx.maybeOne(sql.unsafe`SELECT value FROM parameters WHERE parameter_type = ${type} AND key = ${key} FOR UPDATE`)) as { value: unknown } | null;
  await tx.query(sql.unsafe`
    INSERT INTO parameters (parameter_type, key, value, updated_at) VALUES (${type}, ${key}, ${sql.jsonb(value as any)}, now())
    ON CONFLICT (parameter_type, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`);
  return old?.value;
}

export async function setMasterParameter(tx: Tx, type: string, key: string, value: unknown): Promise<unknown> {
  const old = (await tx.maybeOne(sql.unsafe`SELECT value FROM master.parameters WHERE parameter_type = ${type} AND key = ${key} FOR UPDATE`)) as { value: unknown } | null;
  await tx.query(sql.unsafe`
    INSERT INTO master.parameters (parameter_type, key, value, updated_at) VALUES (${type}, ${key}, ${sql.jsonb(value as any)}, now())
    ON CONFLICT (parameter_type, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`);
  return old?.value;
}
