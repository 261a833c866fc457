import crypto from 'node:crypto';
import { migrateTenant } from './migrate';
import { seedAlertOntology } from './alerts';
import { syncTenantDefaults } from './parameters';
import { sql, tenantSchemaName, withTenant, type Db, type Tx } from './pool';

export interface Account {
  id: string;
  name: string;
  schema_name: string;
  is_active: boolean;
  created_at: string;
}

/**
 * Creates the account row and its schema, migrated and seeded with default parameters. `makeSchema` builds the
 * schema: the tenant migrations, unless the caller holds one already migrated (the test run keeps a pool of them,
 * test/support/tenantPool.ts).
 */
export async function createAccount(
  db: Db, databaseUrl: string, name: string, makeSchema: (schema: string) => Promise<unknown> = (schema) => migrateTenant(databaseUrl, schema),
): Promise<Account> {
  const id = crypto.randomUUID();
  const schema = tenantSchemaName(id);
  const account = (await db.one(sql.unsafe`
    INSERT INTO master.accounts (id, name, schema_name) VALUES (${id}::uuid, ${name}, ${schema})
    RETURNING id, name, schema_name, is_active, created_at`)) as Account;
  await makeSchema(schema);
  await withTenant(db, id, async (tx) => {
    await syncTenantDefaults(tx);
    // a new tenant starts with the 32 default alert rules (spec §4.11), as POST /api/alerts/ontology/seed would add them
    await seedAlertOntology(tx);
  });
  return account;
}

export async function findAccountByName(db: Db, name: string): Promise<Account | null> {
  return (await db.maybeOne(sql.unsafe`SELECT id, name, schema_name, is_active, created_at FROM master.accounts WHERE name = ${name}`)) as Account | null;
}

export async function getAccount(db: Db | Tx, id: string): Promise<Account | null> {
  return (await db.maybeOne(sql.unsafe`
    SELECT id, name, schema_name, is_active, created_at FROM master.accounts WHERE id = ${id}::uuid AND is_active`)) as Account | null;
}

export async function listAccounts(db: Db): Promise<Account[]> {
  return (await db.any(sql.unsafe`SELECT id, name, schema_name, is_active, created_at FROM master.accounts WHERE is_active ORDER BY name`)) as Account[];
}

/** Accounts where this e-mail has an active user (the probe index). */
export async function accountsForEmail(db: Db, email: string): Promise<Array<{ id: string; name: string }>> {
  return (await db.any(sql.unsafe`
    SELECT a.id, a.name FROM master.account_emails e JOIN master.accounts a ON a.id = e.account_id
    WHERE e.email = ${email.toLowerCase()} AND a.is_active ORDER BY a.name`)) as Array<{ id: string; name: string }>;
}

export async function indexEmail(tx: Tx, email: string, accountId: string): Promise<void> {
  await tx.query(sql.unsafe`INSERT INTO master.account_emails (email, account_id) VALUES (${email.toLowerCase()}, ${accountId}::uuid) ON CONFLICT DO NOTHING`);
}

export async function unindexEmail(tx: Tx, email: string, accountId: string): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM master.account_emails WHERE email = ${email.toLowerCase()} AND account_id = ${accountId}::uuid`);
}

export async function ssoDomains(db: Db, accountId: string): Promise<string[]> {
  const row = (await db.maybeOne(sql.unsafe`SELECT sso_auto_provision_domains FROM master.accounts WHERE id = ${accountId}::uuid`)) as { sso_auto_provision_domains: string[] } | null;
  return row?.sso_auto_provision_domains ?? [];
}
