import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The workbench has its own compiler settings (DOM, JSX, bundler resolution), so the root `tsc --noEmit` leaves it
 * out; this is its type check in the test command, against the generated API types.
 */
test('the workbench type-checks against the API types (tsc -p web/tsconfig.json)', () => {
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'web/tsconfig.json'), '--noEmit'], { cwd: ROOT, encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`web type check failed:\n${tsc.stdout}${tsc.stderr}`);
  expect(tsc.status).toBe(0);
}, 180_000);
