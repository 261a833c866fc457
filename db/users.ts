import { sql, type Tx } from './pool';

export interface UserRow {
  id: number;
  email: string;
  name: string;
  password_hash: string | null;
  role: 'admin' | 'user';
  auth_provider: 'local' | 'microsoft' | 'google';
  is_active: boolean;
  can_run_process: boolean;
  can_create_override: boolean;
  allowed_segments: number[];
  allowed_segments_edit: number[];
  last_login_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface UserWrite {
  email?: string;
  name?: string;
  password_hash?: string | null;
  role?: 'admin' | 'user';
  auth_provider?: 'local' | 'microsoft' | 'google';
  can_run_process?: boolean;
  can_create_override?: boolean;
  allowed_segments?: number[];
  allowed_segments_edit?: number[];
  is_active?: boolean;
}

const COLUMNS = sql.fragment`id, email, name, password_hash, role, auth_provider, is_active, can_run_process, can_create_override,
  allowed_segments, allowed_segments_edit, last_login_at, created_at, updated_at`;

export async function findUserByEmail(tx: Tx, email: string): Promise<UserRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM users WHERE email = ${email.toLowerCase()}`)) as UserRow | null;
}

export async function getUser(tx: Tx, id: number): Promise<UserRow | null> {
  return (await tx.maybeOne(sql.unsafe`SELECT ${COLUMNS} FROM users WHERE id = ${id}`)) as UserRow | null;
}

export async function listUsers(tx: Tx): Promise<UserRow[]> {
  return (await tx.any(sql.unsafe`SELECT ${COLUMNS} FROM users ORDER BY id`)) as UserRow[];
}

export async function insertUser(tx: Tx, u: Required<Omit<UserWrite, 'is_active'>>): Promise<UserRow> {
  return (await tx.one(sql.unsafe`
    INSERT INTO users (email, name, password_hash, role, auth_provider, can_run_process, can_create_override, allowed_segments, allowed_segments_edit)
    VALUES (${u.email.toLowerCase()}, ${u.name}, ${u.password_hash}, ${u.role}, ${u.auth_provider}, ${u.can_run_process}, ${u.can_create_override},
      ${sql.array(u.allowed_segments, 'int4')}, ${sql.array(u.allowed_segments_edit, 'int4')})
    RETURNING ${COLUMNS}`)) as UserRow;
}

/** Updates only the fields given; COALESCE keeps the others. */
export async function updateUser(tx: Tx, id: number, u: UserWrite): Promise<UserRow | null> {
  const arr = (v: number[] | undefined) => (v === undefined ? null : sql.array(v, 'int4'));
  return (await tx.maybeOne(sql.unsafe`
    UPDATE users SET
      email = COALESCE(${u.email?.toLowerCase() ?? null}, email),
      name = COALESCE(${u.name ?? null}, name),
      password_hash = CASE WHEN ${u.password_hash !== undefined} THEN ${u.password_hash ?? null} ELSE password_hash END,
      role = COALESCE(${u.role ?? null}, role),
      auth_provider = COALESCE(${u.auth_provider ?? null}, auth_provider),
      can_run_process = COALESCE(${u.can_run_process ?? null}, can_run_process),
      can_create_override = COALESCE(${u.can_create_override ?? null}, can_create_override),
      allowed_segments = COALESCE(${arr(u.allowed_segments)}, allowed_segments),
      allowed_segments_edit = COALESCE(${arr(u.allowed_segments_edit)}, allowed_segments_edit),
      is_active = COALESCE(${u.is_active ?? null}, is_active),
      updated_at = now()
    WHERE id = ${id}
    RETURNING ${COLUMNS}`)) as UserRow | null;
}

export async function touchLogin(tx: Tx, id: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE users SET last_login_at = now() WHERE id = ${id}`);
}

export interface SuperadminRow {
  id: number;
  email: string;
  name: string;
  password_hash: string;
  is_active: boolean;
}

export async function findSuperadmin(db: Tx | import('./pool').Db, email: string): Promise<SuperadminRow | null> {
  return (await db.maybeOne(sql.unsafe`SELECT id, email, name, password_hash, is_active FROM master.superadmins WHERE email = ${email.toLowerCase()} AND is_active`)) as SuperadminRow | null;
}

export async function getSuperadmin(db: Tx | import('./pool').Db, id: number): Promise<SuperadminRow | null> {
  return (await db.maybeOne(sql.unsafe`SELECT id, email, name, password_hash, is_active FROM master.superadmins WHERE id = ${id} AND is_active`)) as SuperadminRow | null;
}

export async function upsertSuperadmin(db: Tx | import('./pool').Db, email: string, name: string, passwordHash: string): Promise<SuperadminRow> {
  return (await db.one(sql.unsafe`
    INSERT INTO master.superadmins (email, name, password_hash) VALUES (${email.toLowerCase()}, ${name}, ${passwordHash})
    ON CONFLICT (email) DO UPDATE SET name = EXCLUDED.name
    RETURNING id, email, name, password_hash, is_active`)) as SuperadminRow;
}

export async function setSuperadminPassword(tx: Tx, id: number, passwordHash: string): Promise<void> {
  await tx.query(sql.unsafe`UPDATE master.superadmins SET password_hash = ${passwordHash}, updated_at = now() WHERE id = ${id}`);
}
