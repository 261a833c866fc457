import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/env';

export const WEB_ROOT = path.join(REPO_ROOT, 'web');
export const WEB_DIST = path.join(WEB_ROOT, 'dist');
const STAMP = '.sources-sha256';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'dist' || e.name === 'node_modules' ? [] : sourceFiles(full);
    return [full];
  });
}

/** What the built app depends on: its sources and the locked package versions. */
export function webSourcesHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of [...sourceFiles(WEB_ROOT).sort(), path.join(REPO_ROOT, 'package-lock.json')]) {
    hash.update(path.relative(REPO_ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Builds the workbench with Vite into outDir (web/dist unless told), and stamps it with the sources it came from. */
export async function buildWebApp(outDir = WEB_DIST, opts: { quiet?: boolean } = {}): Promise<string> {
  const { build } = await import('vite');
  const sources = webSourcesHash();
  await build({
    configFile: path.join(WEB_ROOT, 'vite.config.ts'),
    root: WEB_ROOT,
    logLevel: opts.quiet ? 'warn' : 'info',
    build: { outDir, emptyOutDir: true },
  });
  fs.writeFileSync(path.join(outDir, STAMP), sources);
  return outDir;
}

/** The start command's check: a build is a few seconds of CPU, so it is paid only when a source changed. */
export async function buildWebAppIfChanged(outDir = WEB_DIST): Promise<'built' | 'current'> {
  const stamp = path.join(outDir, STAMP);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === webSourcesHash()) return 'current';
  await buildWebApp(outDir);
  return 'built';
}

/** For the start command: a workbench that fails to build leaves the API and the demo usable, so it says so and goes on. */
export async function ensureWebAppBuilt(): Promise<string> {
  try {
    const what = await buildWebAppIfChanged();
    return `workbench ${what === 'built' ? 'built (its sources changed)' : 'is current'}: web/dist, served at /app`;
  } catch (err) {
    return `workbench not built (${err instanceof Error ? err.message : String(err)}); /app answers 503 until \`npm run web:build\` succeeds`;
  }
}

if (require.main === module) {
  const outArg = process.argv.indexOf('--out');
  const outDir = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : WEB_DIST;
  buildWebApp(outDir).then(
    (dir) => console.log(`workbench built into ${path.relative(process.cwd(), dir) || dir}`),
    (err) => {
      console.error(`web build failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
