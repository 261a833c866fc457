/**
 * What the API checks on every authenticated request, in one statement: the token's revocation, the account, the
 * user (or superadmin) as stored now, and the tenant's data version (migration 011) that tells the API whether its
 * in-memory reads are current. One round trip instead of six (revocation, account, BEGIN, search_path, user, COMMIT):
 * the statement names the tenant schema itself, derived from the account id of a verified token (tenantSchemaName
 * accepts nothing else), so it needs no transaction to set search_path; and it is a prepared statement
 * (db/preparedReads.ts).
 */
import { tenantSchemaName } from './pool';
import { preparedQuery } from './preparedReads';
import { isTokenRevoked } from './tokens';
import type { Db } from './pool';

export interface AuthLookup {
  revoked: boolean;
  /** null: no active account with this id */
  account_name: string | null;
  /** null: the tenant has no data_version (not migrated yet) or the account is gone */
  data_version: number | null;
  user: {
    id: number;
    email: string;
    name: string;
    role: 'admin' | 'user';
    auth_provider: 'local' | 'microsoft' | 'google';
    is_active: boolean;
    can_run_process: boolean;
    can_create_override: boolean;
    allowed_segments: number[];
    allowed_segments_edit: number[];
  } | null;
  superadmin: { id: number; email: string; name: string } | null;
}

const statement = (schema: string) => `
  SELECT EXISTS (SELECT 1 FROM master.revoked_tokens r WHERE r.jti = $1::uuid) AS revoked,
    a.name AS account_name,
    (SELECT v.version::float8 FROM "${schema}".data_version v WHERE a.id IS NOT NULL) AS data_version,
    CASE WHEN u.id IS NULL THEN NULL ELSE json_build_object('id', u.id, 'email', u.email, 'name', u.name, 'role', u.role,
      'auth_provider', u.auth_provider, 'is_active', u.is_active, 'can_run_process', u.can_run_process,
      'can_create_override', u.can_create_override, 'allowed_segments', u.allowed_segments,
      'allowed_segments_edit', u.allowed_segments_edit) END AS "user",
    CASE WHEN sa.id IS NULL THEN NULL ELSE json_build_object('id', sa.id, 'email', sa.email, 'name', sa.name) END AS superadmin
  FROM (SELECT 1) one
  LEFT JOIN master.accounts a ON a.id = $2::uuid AND a.is_active
  LEFT JOIN "${schema}".users u ON a.id IS NOT NULL AND u.id = $3::int
  LEFT JOIN master.superadmins sa ON a.id IS NOT NULL AND sa.id = $4::int AND sa.is_active`;

export async function authLookup(db: Db, databaseUrl: string, q: { accountId: string; jti: string; userId?: number; superadminId?: number }): Promise<AuthLookup> {
  const schema = tenantSchemaName(q.accountId);
  try {
    const [row] = await preparedQuery<AuthLookup>(databaseUrl, `auth_${schema}`, statement(schema), [q.jti, q.accountId, q.userId ?? null, q.superadminId ?? null]);
    return row;
  } catch (err) {
    // 42P01/3F000: the tenant's schema or tables went with its account; the token then names no account
    const code = (err as { code?: string }).code;
    if (code === '42P01' || code === '3F000') {
      return { revoked: await isTokenRevoked(db, q.jti), account_name: null, data_version: null, user: null, superadmin: null };
    }
    throw err;
  }
}
