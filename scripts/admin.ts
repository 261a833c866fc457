import { parseArgs } from 'node:util';
import { HttpError } from '../api/errors';
import { migrateAll } from '../db/migrate';
import { openPool, type Db } from '../db/pool';
import { logger } from '../lib/logger';
import { COMMANDS, UsageError, type Command } from './admin/commands';

/**
 * The operator's command line: tenants, users, superadmins, backup and restore (docs/OPERATIONS.md).
 *   npm run admin -- <group> <action> [--flags] [--json]      (node dist/scripts/admin.js … in the image)
 * Exit status 0 on success, 1 on any refusal or failure, with one line saying why (or {"error": …} with --json).
 */

function help(): string {
  return ['usage: npm run admin -- <command> [--json]', '', ...COMMANDS.map((c) => `  ${c.usage}`), '',
    'DATABASE_URL names the database. Passwords may come from PLANNING_PASSWORD instead of --password.'].join('\n');
}

function findCommand(positionals: string[]): Command {
  const words = positionals.join(' ');
  const cmd = COMMANDS.find((c) => c.name === words);
  if (!cmd) throw new UsageError(words ? `unknown command '${words}'\n\n${help()}` : help());
  return cmd;
}

function parse(argv: string[]): { cmd: Command; opts: Record<string, string | boolean | undefined>; json: boolean } {
  // the command is the words before the first flag; its own flags are then checked strictly
  const firstFlag = argv.findIndex((a) => a.startsWith('-'));
  const cmd = findCommand(firstFlag === -1 ? argv : argv.slice(0, firstFlag));
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } };
  for (const [name, type] of Object.entries(cmd.flags)) options[name] = { type };
  try {
    const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
    if (positionals.join(' ') !== cmd.name) throw new UsageError(`unexpected argument '${positionals.slice(cmd.name.split(' ').length).join(' ')}'`);
    return { cmd, opts: values as Record<string, string | boolean | undefined>, json: values.json === true };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${(err as Error).message}\nusage: npm run admin -- ${cmd.usage}`);
  }
}

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const fail = (message: string) => {
    if (json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    else process.stderr.write(`${message}\n`);
    return 1;
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    return fail((err as Error).message);
  }
  // the migrations' progress lines would mix with --json output; LOG_LEVEL still lets them through
  logger.level = process.env.LOG_LEVEL ?? 'warn';
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) return fail('DATABASE_URL is required (the database the API uses)');
  let db: Db | undefined;
  try {
    // the master schema and every tenant must be current before an account is created or a backup read
    await migrateAll(databaseUrl);
    db = await openPool(databaseUrl, 2);
    const result = await parsed.cmd.run({ db, databaseUrl, opts: parsed.opts });
    process.stdout.write(`${parsed.json ? JSON.stringify(result.json) : result.text}\n`);
    return 0;
  } catch (err) {
    // refusals (HttpError from the shared checks, a refused restore) and failures alike: one line, no stack
    return fail(err instanceof HttpError ? err.detail : (err as Error).message);
  } finally {
    await db?.end();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`admin: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
