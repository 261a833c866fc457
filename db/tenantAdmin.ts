import { forgetAccount, sql, type Db, type Tx } from './pool';
import type { Account } from './accounts';

const ACCOUNT_COLUMNS = sql.fragment`id, name, schema_name, is_active, created_at`;

/** Every account, deactivated ones too: the operator's view, unlike listAccounts which serves sign-in. */
export async function listAllAccounts(db: Db): Promise<Account[]> {
  return (await db.any(sql.unsafe`SELECT ${ACCOUNT_COLUMNS} FROM master.accounts ORDER BY name`)) as Account[];
}

/** An account by id whatever its state; a deactivated one must still be found to be renamed or restored over. */
export async function findAccountById(db: Db | Tx, id: string): Promise<Account | null> {
  return (await db.maybeOne(sql.unsafe`SELECT ${ACCOUNT_COLUMNS} FROM master.accounts WHERE id = ${id}::uuid`)) as Account | null;
}

export async function accountNameTaken(db: Db | Tx, name: string, exceptId?: string): Promise<boolean> {
  return (await db.exists(sql.unsafe`SELECT 1 FROM master.accounts WHERE name = ${name} AND id IS DISTINCT FROM ${exceptId ?? null}::uuid`)) as boolean;
}

export async function renameAccount(db: Db, id: string, name: string): Promise<Account | null> {
  return (await db.maybeOne(sql.unsafe`UPDATE master.accounts SET name = ${name} WHERE id = ${id}::uuid RETURNING ${ACCOUNT_COLUMNS}`)) as Account | null;
}

/**
 * Deactivating keeps the schema and every row (a restore or a reactivation brings the tenant back); sign-in and
 * existing tokens stop at once because the auth statement joins the account on is_active.
 */
export async function setAccountActive(db: Db, id: string, active: boolean): Promise<Account | null> {
  const row = (await db.maybeOne(sql.unsafe`UPDATE master.accounts SET is_active = ${active} WHERE id = ${id}::uuid RETURNING ${ACCOUNT_COLUMNS}`)) as Account | null;
  forgetAccount(id);
  return row;
}

export interface SuperadminSummary {
  id: number;
  email: string;
  name: string;
  is_active: boolean;
}

export async function insertSuperadmin(db: Db, email: string, name: string, passwordHash: string): Promise<SuperadminSummary | null> {
  return (await db.maybeOne(sql.unsafe`
    INSERT INTO master.superadmins (email, name, password_hash) VALUES (${email.toLowerCase()}, ${name}, ${passwordHash})
    ON CONFLICT (email) DO NOTHING RETURNING id, email, name, is_active`)) as SuperadminSummary | null;
}
