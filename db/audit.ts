import { sql, type Tx } from './pool';

export interface AuditEntry {
  entity_type: string;
  entity_id: string | null;
  action: string;
  old_value: unknown;
  new_value: unknown;
  changed_by: string | null;
  user_id: string | null;
  ip: string | null;
  outcome: 'success' | 'failure' | 'denied';
  method: string;
  path: string;
  status_code: number;
  detail: string | null;
}

const json = (v: unknown) => (v === undefined || v === null ? null : sql.jsonb(v as any));

export async function insertAudit(tx: Tx, e: AuditEntry): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO audit_log (entity_type, entity_id, action, old_value, new_value, changed_by, user_id, ip, outcome, method, path, status_code, detail)
    VALUES (${e.entity_type}, ${e.entity_id}, ${e.action}, ${json(e.old_value)}, ${json(e.new_value)}, ${e.changed_by}, ${e.user_id},
      ${e.ip}, ${e.outcome}, ${e.method}, ${e.path}, ${e.status_code}, ${e.detail})`);
}

export interface AuditQuery {
  entity_type?: string;
  entity_id?: string;
  action?: string;
  changed_by?: string;
  outcome?: string;
  date_from?: string;
  date_to?: string;
  sort_by: 'id' | 'entity_type' | 'entity_id' | 'action' | 'changed_by' | 'created_at';
  sort_dir: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export async function queryAudit(tx: Tx, q: AuditQuery): Promise<{ items: unknown[]; total: number }> {
  const where = [sql.fragment`TRUE`];
  if (q.entity_type) where.push(sql.fragment`entity_type = ${q.entity_type}`);
  if (q.entity_id !== undefined) where.push(sql.fragment`entity_id = ${String(q.entity_id)}`);
  if (q.action) where.push(sql.fragment`action = ${q.action}`);
  if (q.changed_by) where.push(sql.fragment`changed_by ILIKE ${`%${q.changed_by.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);
  if (q.outcome) where.push(sql.fragment`outcome = ${q.outcome}`);
  if (q.date_from) where.push(sql.fragment`created_at >= ${q.date_from}::date`);
  // date_to names a day; everything on that day is included.
  if (q.date_to) where.push(sql.fragment`created_at < ${q.date_to}::date + 1`);
  const cond = sql.join(where, sql.fragment` AND `);
  const dir = q.sort_dir === 'asc' ? sql.fragment`ASC` : sql.fragment`DESC`;
  const items = await tx.any(sql.unsafe`
    SELECT id, entity_type, entity_id, action, old_value, new_value, changed_by, user_id, ip, outcome, method, path, status_code, detail, created_at
    FROM audit_log WHERE ${cond}
    ORDER BY ${sql.identifier([q.sort_by])} ${dir}, id ${dir}
    LIMIT ${q.limit} OFFSET ${q.offset}`);
  const total = (await tx.oneFirst(sql.unsafe`SELECT count(*) FROM audit_log WHERE ${cond}`)) as number;
  return { items: [...items], total };
}
