import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** Pinned: the CLI options of test/api/fuzz.test.ts are those of this version (schemathesis 4 reads OpenAPI 3.1). */
export const SCHEMATHESIS_VERSION = '4.32.5';

const run = promisify(execFile);

/** Outside the clone, like the Temporal CLI (temporal/cli.ts), and keyed by version so a new pin gets a new venv. */
export function schemathesisVenv(env = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cacheHome, 'planning-platform', `schemathesis-venv-${SCHEMATHESIS_VERSION}`);
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
export async function ensureSchemathesis(python = process.env.PYTHON || 'python3'): Promise<string> {
  const venv = schemathesisVenv();
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
    throw new Error(`could not install schemathesis ${SCHEMATHESIS_VERSION} with ${python} into ${venv} (Python 3.9+ with venv and PyPI access are needed): ${err?.stderr || err?.message}`);
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
