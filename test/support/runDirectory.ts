import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PREFIX = 'planning-test-run-';
const OWNER = 'owner.pid';
/** room the run's files need in memory: the template and each worker's copy of it, and what the suites write */
const NEEDED_BYTES = 6 * 2 ** 30;

/**
 * The directory of one test run's servers and bundles. In memory (/dev/shm) when it has room: PostgreSQL's files
 * there are made and copied without the file system's journal, and the run makes a few hundred thousand of them
 * (every tenant's tables, each worker's copy of the template). On this machine's ext4 creating a file took
 * anywhere from 60 µs to 560 µs and copying the 50-tenant template 4 to 17 s of system time; in memory 1.1 s.
 * Nothing of it outlives the run: the global teardown removes it, and a run whose jest process died before its
 * teardown is removed by the next one (its owner's pid is gone). TEST_RUN_PARENT names another parent directory.
 */
export function makeRunDirectory(): string {
  const parent = process.env.TEST_RUN_PARENT || (roomInMemory('/dev/shm') ? '/dev/shm' : os.tmpdir());
  removeAbandonedRuns(parent);
  const run = openDirectory(parent, PREFIX);
  fs.writeFileSync(path.join(run, OWNER), String(process.pid));
  return run;
}

function roomInMemory(dir: string): boolean {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize >= NEEDED_BYTES;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeAbandonedRuns(parent: string): void {
  for (const name of fs.readdirSync(parent)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = path.join(parent, name);
    let owner: number;
    try {
      owner = Number(fs.readFileSync(path.join(dir, OWNER), 'utf8'));
    } catch {
      continue; // a run from before owners were written, or one still being made
    }
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A directory for a server a test file starts of its own (a launched stack, a PostgreSQL to take down, a Temporal
 * server to kill): inside the run's directory, in memory like the run's own servers, and removed with it.
 */
export function scratchDirectory(prefix: string): string {
  return openDirectory(process.env.TEST_RUN_DIR || os.tmpdir(), prefix);
}

/** A new directory any user may write in: PostgreSQL runs as its own user when the tests run as root. */
function openDirectory(parent: string, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(parent, prefix));
  fs.chmodSync(dir, 0o777);
  return dir;
}
