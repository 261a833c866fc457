import { hashPassword } from '../api/auth/passwords';
import { createAccount, findAccountByName, indexEmail } from '../db/accounts';
import { withTenant, type Db } from '../db/pool';
import { findSuperadmin, findUserByEmail, insertUser, upsertSuperadmin } from '../db/users';

export interface DemoLogin {
  accountId: string;
  accountName: string;
  admin: { email: string; password: string };
  planner: { email: string; password: string };
  created: boolean;
}

export const DEMO = {
  account: process.env.DEMO_ACCOUNT ?? 'Demo',
  adminEmail: process.env.DEMO_ADMIN_EMAIL ?? 'admin@demo.local',
  adminPassword: process.env.DEMO_ADMIN_PASSWORD ?? 'demo-admin-123',
  plannerEmail: process.env.DEMO_PLANNER_EMAIL ?? 'planner@demo.local',
  plannerPassword: process.env.DEMO_PLANNER_PASSWORD ?? 'demo-planner-123',
};

/**
 * Creates the demo account with an admin and a planner the first time; later runs find it and change nothing,
 * so passwords a user changed stay changed.
 */
export async function ensureDemoTenant(db: Db, databaseUrl: string, demo = DEMO): Promise<DemoLogin> {
  const existing = await findAccountByName(db, demo.account);
  const account = existing ?? (await createAccount(db, databaseUrl, demo.account));
  const users = [
    { email: demo.adminEmail, password: demo.adminPassword, role: 'admin' as const, name: 'Demo Admin' },
    { email: demo.plannerEmail, password: demo.plannerPassword, role: 'user' as const, name: 'Demo Planner' },
  ];
  for (const u of users) {
    const hash = await hashPassword(u.password);
    await withTenant(db, account.id, async (tx) => {
      if (await findUserByEmail(tx, u.email)) return;
      await insertUser(tx, {
        email: u.email, name: u.name, password_hash: hash, role: u.role, auth_provider: 'local',
        can_run_process: true, can_create_override: true, allowed_segments: [], allowed_segments_edit: [],
      });
      await indexEmail(tx, u.email, account.id);
    });
  }
  return {
    accountId: account.id,
    accountName: account.name,
    admin: { email: demo.adminEmail, password: demo.adminPassword },
    planner: { email: demo.plannerEmail, password: demo.plannerPassword },
    created: !existing,
  };
}

/** A platform superadmin from SUPERADMIN_EMAIL / SUPERADMIN_PASSWORD, created once (its password is never overwritten). */
export async function ensureSuperadmin(db: Db, email?: string, password?: string): Promise<string | undefined> {
  if (!email || !password) return undefined;
  if (!(await findSuperadmin(db, email))) await upsertSuperadmin(db, email, 'Superadmin', await hashPassword(password));
  return email;
}
