import {
  createSuperadmin, createTenant, createTenantUser, listTenants, renameTenant, resetUserPassword, setTenantActive, setUserActive,
} from '../../api/admin/tenantOperations';
import type { Db } from '../../db/pool';
import { backupTenant } from '../../db/tenantBackup';
import { restoreTenant } from '../../db/tenantRestore';

/** A refusal the operator can act on: printed as it is, exit status 1 (like an HttpError from the shared checks). */
export class UsageError extends Error {}

export type Options = Record<string, string | boolean | undefined>;

export interface CommandContext {
  db: Db;
  databaseUrl: string;
  opts: Options;
}

export interface Command {
  /** e.g. `tenants create` */
  name: string;
  usage: string;
  /** flags this command reads; anything else is refused so a typo never goes unseen */
  flags: Record<string, 'string' | 'boolean'>;
  run(c: CommandContext): Promise<{ json: unknown; text: string }>;
}

function need(opts: Options, name: string): string {
  const v = opts[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

const str = (opts: Options, name: string): string | undefined => (typeof opts[name] === 'string' ? (opts[name] as string) : undefined);

/** A password from --password, or from the environment variable PLANNING_PASSWORD so it stays out of `ps` and shell history. */
function password(opts: Options): string {
  const v = str(opts, 'password') ?? process.env.PLANNING_PASSWORD;
  if (!v) throw new UsageError('--password (or the environment variable PLANNING_PASSWORD) is required');
  return v;
}

function segmentList(opts: Options, name: string): number[] | undefined {
  const raw = str(opts, name);
  if (raw === undefined) return undefined;
  const ids = raw.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (ids.some((n) => !Number.isInteger(n) || n < 1)) throw new UsageError(`--${name} takes segment ids separated by commas, e.g. 3,7`);
  return ids;
}

const ACCOUNT = { account: 'string' } as const;

export const COMMANDS: Command[] = [
  {
    name: 'tenants list', usage: 'tenants list [--json]', flags: {},
    async run({ db }) {
      const rows = await listTenants(db);
      const text = rows.length
        ? rows.map((a) => `${a.id}  ${a.is_active ? 'active     ' : 'deactivated'}  ${a.name}`).join('\n')
        : 'no accounts';
      return { json: rows, text };
    },
  },
  {
    name: 'tenants create', usage: 'tenants create --name <name>', flags: { name: 'string' },
    async run({ db, databaseUrl, opts }) {
      const a = await createTenant(db, databaseUrl, need(opts, 'name'));
      return { json: a, text: `created account ${a.name} (${a.id}), schema ${a.schema_name} migrated` };
    },
  },
  {
    name: 'tenants rename', usage: 'tenants rename --account <id> --name <new name>', flags: { ...ACCOUNT, name: 'string' },
    async run({ db, opts }) {
      const a = await renameTenant(db, need(opts, 'account'), need(opts, 'name'));
      return { json: a, text: `account ${a.id} is now named ${a.name}` };
    },
  },
  {
    name: 'tenants deactivate', usage: 'tenants deactivate --account <id>', flags: ACCOUNT,
    async run({ db, opts }) {
      const { after } = await setTenantActive(db, need(opts, 'account'), false);
      return { json: after, text: `account ${after.name} (${after.id}) deactivated: its users can no longer sign in; data kept` };
    },
  },
  {
    name: 'tenants activate', usage: 'tenants activate --account <id>', flags: ACCOUNT,
    async run({ db, opts }) {
      const { after } = await setTenantActive(db, need(opts, 'account'), true);
      return { json: after, text: `account ${after.name} (${after.id}) active again` };
    },
  },
  {
    name: 'users create',
    usage: 'users create --account <id> --email <e-mail> --name <name> [--password <p>] [--role admin|user] [--auth-provider local|microsoft|google] [--can-run-process] [--can-create-override] [--allowed-segments 1,2] [--allowed-segments-edit 1,2]',
    flags: { ...ACCOUNT, email: 'string', name: 'string', password: 'string', role: 'string', 'auth-provider': 'string', 'can-run-process': 'boolean', 'can-create-override': 'boolean', 'allowed-segments': 'string', 'allowed-segments-edit': 'string' },
    async run({ db, opts }) {
      const provider = (str(opts, 'auth-provider') ?? 'local') as 'local';
      const u = await createTenantUser(db, need(opts, 'account'), {
        email: need(opts, 'email'), name: need(opts, 'name'),
        ...(provider === 'local' ? { password: password(opts) } : {}),
        role: (str(opts, 'role') ?? 'user') as 'user', auth_provider: provider,
        can_run_process: opts['can-run-process'] === true, can_create_override: opts['can-create-override'] === true,
        allowed_segments: segmentList(opts, 'allowed-segments'), allowed_segments_edit: segmentList(opts, 'allowed-segments-edit'),
      });
      return { json: u, text: `created ${u.role} ${u.email} (user ${u.id}) in account ${u.account_name}` };
    },
  },
  {
    name: 'users reset-password', usage: 'users reset-password --account <id> --email <e-mail> [--password <p>]', flags: { ...ACCOUNT, email: 'string', password: 'string' },
    async run({ db, opts }) {
      const u = await resetUserPassword(db, need(opts, 'account'), need(opts, 'email'), password(opts));
      return { json: u, text: `password of ${u.email} in account ${u.account_name} reset` };
    },
  },
  {
    name: 'users deactivate', usage: 'users deactivate --account <id> --email <e-mail>', flags: { ...ACCOUNT, email: 'string' },
    async run({ db, opts }) {
      const u = await setUserActive(db, need(opts, 'account'), need(opts, 'email'), false);
      return { json: u, text: `${u.email} in account ${u.account_name} deactivated` };
    },
  },
  {
    name: 'superadmin create', usage: 'superadmin create --email <e-mail> --name <name> [--password <p>]', flags: { email: 'string', name: 'string', password: 'string' },
    async run({ db, opts }) {
      const s = await createSuperadmin(db, need(opts, 'email'), need(opts, 'name'), password(opts));
      return { json: s, text: `created superadmin ${s.email} (id ${s.id})` };
    },
  },
  {
    name: 'backup', usage: 'backup --account <id> --out <file>', flags: { ...ACCOUNT, out: 'string' },
    async run({ db, databaseUrl, opts }) {
      const r = await backupTenant(db, databaseUrl, need(opts, 'account'), need(opts, 'out'));
      return { json: r, text: `backed up account ${r.account.name} (${r.account.id}) at migration ${r.migration}: ${r.tables} tables, ${r.rows} rows into ${need(opts, 'out')}` };
    },
  },
  {
    name: 'restore', usage: 'restore --in <file> [--account <id>] [--name <name>] [--replace]', flags: { ...ACCOUNT, in: 'string', name: 'string', replace: 'boolean' },
    async run({ db, databaseUrl, opts }) {
      const r = await restoreTenant(db, databaseUrl, need(opts, 'in'), { accountId: str(opts, 'account'), name: str(opts, 'name'), replace: opts.replace === true });
      return {
        json: r,
        text: `restored account ${r.account.name} (${r.account.id}): ${r.tables} tables, ${r.rows} rows. ` +
          'A running API still holds the old data in memory: call POST /api/reload as an admin of the account, or POST /api/admin/accounts/{id}/reload as a superadmin, or restart the API.',
      };
    },
  },
];
