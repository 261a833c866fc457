import fs from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const ROOT = path.join(__dirname, '../..');

/**
 * The command-line scripts the tests run as child processes, as an operator runs them. `node --import tsx` cost
 * about 0.9 CPU-s per call (tsx's loader thread, each module transformed and resolved again), and the CLI suites make
 * over a hundred calls; one esbuild bundle per script, made once per run by the global setup, starts in a quarter of
 * that. The production image runs tsc's output, which is compiled ahead like these; `npm run <script>` keeps tsx,
 * and test/activities/importCli.test.ts runs a script under tsx to keep that road tested.
 */
export const TEST_SCRIPTS = ['scripts/admin.ts', 'scripts/inventoryCli.ts', 'scripts/forecastCli.ts', 'scripts/demoData/cli.ts'] as const;
export type TestScript = (typeof TEST_SCRIPTS)[number];

// ESM-only packages: a CommonJS bundle cannot require them on Node 20, so they go into the bundle (jest.config.js
// transforms the same ones).
const BUNDLED_PACKAGES = new Set(['jose', 'p-limit', 'yocto-queue']);

const ENTRY_FILES = new Set(TEST_SCRIPTS.map((s) => path.join(ROOT, s)));

/**
 * A bundle is one module in one directory, the sources are many: each source file's own __dirname and __filename are
 * written in as the literal paths tsx would give them (db/migrate.ts reads db/migrations next to itself), and
 * `require.main === module`, true of every file inside a bundle, stays true only of the script itself (db/migrate.ts
 * would otherwise run its own command line inside the admin CLI).
 */
const sourceModules: Plugin = {
  name: 'source-modules',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      let contents = text
        .replace(/\b__dirname\b/g, JSON.stringify(path.dirname(args.path)))
        .replace(/\b__filename\b/g, JSON.stringify(args.path));
      if (!ENTRY_FILES.has(args.path)) contents = contents.replace(/\brequire\.main\s*===\s*module\b/g, 'false');
      return { contents, loader: 'ts' };
    });
  },
};

const externals: Plugin = {
  name: 'packages-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      return BUNDLED_PACKAGES.has(name!) ? undefined : { path: args.path, external: true };
    });
  },
};

/** Writes `<outDir>/<script path>.js` for every test script. */
export async function bundleScripts(outDir: string): Promise<void> {
  await build({
    entryPoints: TEST_SCRIPTS.map((s) => ({ in: path.join(ROOT, s), out: s.replace(/\.ts$/, '') })),
    outdir: outDir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    plugins: [sourceModules, externals],
    logLevel: 'error',
  });
}

/**
 * The arguments for `process.execPath` that run a script: its bundle when the run's setup made them
 * (TEST_SCRIPT_BUNDLES), else the script under tsx, as `npm run` does.
 */
export function scriptArgs(script: TestScript): string[] {
  const dir = process.env.TEST_SCRIPT_BUNDLES;
  return dir ? [path.join(dir, script.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', script];
}

/** The environment a script runs in: the packages are resolved from the clone's node_modules, wherever the bundle is. */
export function scriptEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, NODE_PATH: path.join(ROOT, 'node_modules') };
}
