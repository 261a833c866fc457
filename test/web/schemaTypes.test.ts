import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CHECKED_IN = path.join(ROOT, 'web/src/api/schema.d.ts');

/**
 * The workbench's API types are generated from the routes' own OpenAPI document and checked in; a route whose schema
 * changed without `npm run web:types` fails here, and the app's type check (webTypecheck.test.ts) then shows what
 * the change breaks in the pages.
 */
test('web/src/api/schema.d.ts is what the API publishes now (regenerate with `npm run web:types`)', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/webTypes.ts'), '--print'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`npm run web:types failed:\n${run.stderr}`);
  const fresh = run.stdout;
  expect(fresh.length).toBeGreaterThan(100_000);
  expect(fresh).toContain('"/api/exception-log": {');
  if (fresh !== fs.readFileSync(CHECKED_IN, 'utf8')) throw new Error('web/src/api/schema.d.ts is out of date: run `npm run web:types` and commit it');
}, 180_000);
