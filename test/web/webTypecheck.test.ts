import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
// As scripts/test.sh does for the root check: tsc's build info (each file's hash and diagnostics) lets it check again
// only what changed; a copy outside the clone starts a fresh clone from the last run's. Paths in it are relative to it.
const INFO = path.join(ROOT, 'node_modules/.cache/planning-web-tsc.tsbuildinfo');
const SHARED = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'planning-platform', 'tsc', 'web.tsbuildinfo');

/**
 * The workbench has its own compiler settings (DOM, JSX, bundler resolution), so the root `tsc --noEmit` leaves it
 * out; this is its type check in the test command, against the generated API types.
 */
test('the workbench type-checks against the API types (tsc -p web/tsconfig.json)', () => {
  fs.mkdirSync(path.dirname(INFO), { recursive: true });
  if (!fs.existsSync(INFO) && fs.existsSync(SHARED)) fs.copyFileSync(SHARED, INFO);
  const tsc = spawnSync(process.execPath, [
    path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'web/tsconfig.json'), '--noEmit', '--incremental', '--tsBuildInfoFile', INFO,
  ], { cwd: ROOT, encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`web type check failed:\n${tsc.stdout}${tsc.stderr}`);
  expect(tsc.status).toBe(0);
  try {
    fs.mkdirSync(path.dirname(SHARED), { recursive: true });
    fs.copyFileSync(INFO, `${SHARED}.${process.pid}`);
    fs.renameSync(`${SHARED}.${process.pid}`, SHARED);
  } catch {
    // a read-only cache only costs the next clone the whole check
  }
}, 180_000);
