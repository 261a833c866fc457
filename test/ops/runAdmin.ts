import { execFile } from 'node:child_process';
import path from 'node:path';
import { scriptArgs, scriptEnv } from '../support/scriptBundle';

const ROOT = path.join(__dirname, '../..');

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, for --json runs */
  json: any;
}

/** Runs `npm run admin -- …` as an operator would (without npm's own banner), against this jest worker's database. */
export function runAdmin(args: string[], env: Record<string, string> = {}): Promise<AdminRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...scriptArgs('scripts/admin.ts'), ...args], { cwd: ROOT, env: scriptEnv({ ...process.env, ...env }), timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0;
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}
