import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../lib/net';
import { TEST_GO_RUNTIME } from './goRuntime';
import { scratchDirectory } from './runDirectory';

export const ROOT = path.join(__dirname, '../..');

export interface StackPorts {
  api: number;
  pg: number;
  temporal: number;
  ui: number;
}

/**
 * The local stack of the README's start command, on free ports and in a fresh data directory so a test run never
 * meets a developer's stack or `.data/`. One launcher process at a time; `launch` again after it stopped reuses the
 * data directory, as a second start by hand would.
 */
export class LocalStack {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  child!: ChildProcess;
  output = '';

  private constructor(readonly ports: StackPorts, extraEnv: NodeJS.ProcessEnv) {
    this.dataDir = scratchDirectory('planning-start-');
    this.env = {
      ...process.env, DATA_DIR: this.dataDir, PORT: String(ports.api), PGPORT: String(ports.pg), TEMPORAL_PORT: String(ports.temporal),
      TEMPORAL_UI_PORT: String(ports.ui), NODE_ENV: 'development', LOG_LEVEL: 'warn',
      // read by the stack's Temporal dev server alone (test/support/goRuntime.ts)
      ...TEST_GO_RUNTIME, ...extraEnv,
    };
    // the test run's own database and Temporal server must not be picked up: the launcher starts its own
    delete this.env.DATABASE_URL;
    delete this.env.TEMPORAL_ADDRESS;
  }

  static async create(extraEnv: NodeJS.ProcessEnv = {}): Promise<LocalStack> {
    return new LocalStack({ api: await freePort(), pg: await freePort(), temporal: await freePort(), ui: await freePort() }, extraEnv);
  }

  get apiUrl(): string {
    return `http://localhost:${this.ports.api}`;
  }

  /** Runs `argv` (the launcher) and resolves once it prints its banner. */
  async launch(argv: string[], timeoutMs = 240_000): Promise<void> {
    this.output = '';
    this.child = spawn(argv[0], argv.slice(1), { cwd: ROOT, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (c) => (this.output += c.toString()));
    this.child.stderr!.on('data', (c) => (this.output += c.toString()));
    const deadline = Date.now() + timeoutMs;
    while (!this.output.includes('Planning platform is running')) {
      if (this.child.exitCode !== null || Date.now() > deadline) {
        // the workers' own log lines fill the tail: lead with the lines that say what went wrong
        const telling = this.output.split('\n').filter((l) => /error|exited|fail|refus|cannot|could not|panic/i.test(l)).slice(0, 30).join('\n');
        throw new Error(`stack did not come up (exit code ${this.child.exitCode}):\n${telling}\n--- last output ---\n${this.output.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** Sends `signal` (SIGINT: Ctrl-C) and resolves with the launcher's exit code. */
  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
    if (!this.child || this.child.exitCode !== null) return this.child?.exitCode ?? null;
    const exited = new Promise<number | null>((r) => this.child.once('exit', (code) => r(code)));
    this.child.kill(signal);
    return exited;
  }

  /** After the tests, whatever state they left: stop the launcher (it stops what it started), then drop the data. */
  async dispose(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
      await this.stop('SIGTERM');
      clearTimeout(timer);
    }
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}
