import { execFile, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** Pinned: the CLI options of test/api/fuzz.test.ts are those of this version (schemathesis 4 reads OpenAPI 3.1). */
export const SCHEMATHESIS_VERSION = '4.32.5';

const run = promisify(execFile);

/** schemathesis 4 requires it (its package metadata) */
const MIN_PYTHON: [number, number] = [3, 11];

/**
 * The interpreter the fuzz's venv is built from: `PYTHON` when set; otherwise the operating system's own `python3`
 * when it is recent enough, before whatever `python3` comes first on PATH. Distributions build their Python with
 * profile-guided and link-time optimisation, and version managers such as pyenv build without them unless asked:
 * on this machine (Debian's 3.11.2 against pyenv's 3.11.7) schemathesis took 17-28 % less CPU for the same calls
 * (a third of the operations, two paired runs: 53.1 and 42.6 against 56.7 and 59.4 CPU-s).
 */
export function schemathesisPython(env = process.env): string {
  if (env.PYTHON) return env.PYTHON;
  chosenPython ??= firstRecentPython();
  return chosenPython;
}

let chosenPython: string | undefined;

function firstRecentPython(): string {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    const version = pythonVersion(candidate);
    if (version && (version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1]))) return candidate;
  }
  return 'python3';
}

/** The interpreter's major and minor version, when it runs and has venv; undefined otherwise. */
export function pythonVersion(python: string): [number, number] | undefined {
  try {
    const out = execFileSync(python, ['-c', 'import sys, venv; print(sys.version_info[0], sys.version_info[1])'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    const [major, minor] = out.trim().split(' ').map(Number);
    return [major, minor];
  } catch {
    return undefined;
  }
}

/** The file an interpreter name or path stands for (PATH looked up, links followed); the name itself if none. */
export function interpreterFile(python: string): string {
  try {
    return fs.realpathSync(python.includes('/') ? python : execFileSync('sh', ['-c', 'command -v "$1"', 'sh', python], { encoding: 'utf8' }).trim());
  } catch {
    return python;
  }
}

/**
 * Outside the clone, like the Temporal CLI (temporal/cli.ts), and keyed by version and by the interpreter it is built
 * from, so a new pin or another Python gets a venv of its own.
 */
export function schemathesisVenv(env = process.env, python = schemathesisPython(env)): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const key = crypto.createHash('sha256').update(interpreterFile(python)).digest('hex').slice(0, 8);
  return path.join(cacheHome, 'planning-platform', `schemathesis-venv-${SCHEMATHESIS_VERSION}-${key}`);
}

/**
 * Hypothesis' own storage for the schemathesis processes: the Unicode tables it derives on first use (which
 * characters a codec encodes: a loop over every code point, about 4 CPU-s) are kept there and read back by every
 * later process. Each process runs in a scratch directory of its own, where the default (`.hypothesis/` under the
 * working directory) made all five of them compute the tables again in every run. Only those tables land here: the
 * fuzz runs without an example database (`--generation-database none`), so no run's cases depend on an earlier one.
 */
export function hypothesisStorage(env = process.env): string {
  return path.join(schemathesisVenv(env), 'hypothesis-storage');
}

/**
 * The `st` executable of the pinned schemathesis, installed from PyPI into a virtual environment on first use
 * (about 10 s). A venv cannot be moved after creation, so it is built in place and marked complete at the end; a
 * half-built one (an interrupted first run) is removed and built again. Async: the API under test runs in this process.
 */
export async function ensureSchemathesis(python = schemathesisPython()): Promise<string> {
  const venv = schemathesisVenv(process.env, python);
  const st = path.join(venv, 'bin', 'st');
  const marker = path.join(venv, '.installed');
  if (fs.existsSync(marker) && fs.existsSync(st)) return st;
  fs.rmSync(venv, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(venv), { recursive: true });
  try {
    await run(python, ['-m', 'venv', venv]);
    await run(path.join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`], { maxBuffer: 16 << 20 });
    // Hypothesis' Unicode tables once here, where all five fuzz processes would each derive them on a fresh venv
    // (about 2 CPU-s apiece)
    await run(path.join(venv, 'bin', 'python'), ['-c', 'from hypothesis.internal.charmap import charmap, intervals_from_codec; charmap(); intervals_from_codec("utf-8")'], {
      env: { ...process.env, HYPOTHESIS_STORAGE_DIRECTORY: hypothesisStorage() },
    });
  } catch (err: any) {
    throw new Error(`could not install schemathesis ${SCHEMATHESIS_VERSION} with ${python} into ${venv} (Python ${MIN_PYTHON.join('.')}+ with venv and PyPI access are needed): ${err?.stderr || err?.message}`);
  }
  fs.writeFileSync(marker, `${SCHEMATHESIS_VERSION}\n`);
  return st;
}

export interface ProcessResult {
  code: number | null;
  output: string;
  ms: number;
}

/** Runs a command without blocking the event loop (the server it talks to lives in this process). */
export function runProcess(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<ProcessResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started }));
  });
}
