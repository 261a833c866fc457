/**
 * Linux /proc readings for the benchmarks: resident memory (current and peak) and CPU time of a process, the
 * processes under a parent, and a sampler that records a process's RSS curve.
 */
import fs from 'node:fs';

const KIB = 1024;
const MIB = 1024 * 1024;

/** Clock ticks per second of the utime/stime fields; 100 on every Linux build Node supports. */
const CLK_TCK = 100;

export interface MemStatus {
  /** current resident set size, bytes */
  rss: number;
  /** peak resident set size since start (or since the last resetPeak), bytes */
  hwm: number;
}

/** VmRSS and VmHWM of a process, or undefined when it is gone. */
export function memStatus(pid: number): MemStatus | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text)?.[1] ?? NaN) * KIB;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/**
 * Resets VmHWM to the current RSS (`echo 5 > /proc/<pid>/clear_refs`, Linux ≥ 4.0), so the next reading is the
 * peak of what happened since. Needs the right to write the file (our own child: yes). Returns false when refused.
 */
export function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface StatFields {
  ppid: number;
  /** CPU seconds of the process itself */
  self: number;
  /** CPU seconds of its waited-for (exited) children */
  children: number;
}

function stat(pid: number): StatFields | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm may contain spaces and parentheses: the fields start after the last ')'
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state): ppid = field 4, utime 14, stime 15, cutime 16, cstime 17
  return { ppid: Number(f[1]), self: (Number(f[11]) + Number(f[12])) / CLK_TCK, children: (Number(f[13]) + Number(f[14])) / CLK_TCK };
}

function allPids(): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
}

/** Every descendant of `root` (not root itself) that is alive now. */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const pid of allPids()) {
    const s = stat(pid);
    if (s) parent.set(pid, s.ppid);
  }
  const out: number[] = [];
  const frontier = [root];
  while (frontier.length) {
    const p = frontier.pop()!;
    for (const [pid, pp] of parent) {
      if (pp === p) {
        out.push(pid);
        frontier.push(pid);
      }
    }
  }
  return out;
}

/**
 * CPU seconds used so far by a process tree: the root, its live descendants, and every descendant that has exited
 * and been waited for (counted in its parent's cutime/cstime). Differences of two readings give a stage's CPU.
 * A descendant that exits between two readings moves from "live" to its parent's children time, so nothing is lost.
 */
export function treeCpuSeconds(root: number): number {
  const r = stat(root);
  if (!r) return NaN;
  let total = r.self + r.children;
  for (const pid of descendants(root)) {
    const s = stat(pid);
    if (s) total += s.self + s.children;
  }
  return total;
}

/** The first process whose command line contains `needle` (used to find a server by its unique data directory). */
export function findProcess(needle: string): number | undefined {
  for (const pid of allPids()) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(needle) && pid !== process.pid) return pid;
    } catch {
      /* gone */
    }
  }
  return undefined;
}

/** Samples one process's RSS at a fixed interval; `stop()` returns the maximum and the curve. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private readonly t0 = Date.now();
  readonly samples: Array<{ ms: number; rss: number }> = [];
  max = 0;

  constructor(private readonly read: () => number | undefined, intervalMs = 250) {
    this.take();
    this.timer = setInterval(() => this.take(), intervalMs);
    this.timer.unref();
  }

  static ofPid(pid: number, intervalMs = 250): RssSampler {
    return new RssSampler(() => memStatus(pid)?.rss, intervalMs);
  }

  static ofSelf(intervalMs = 250): RssSampler {
    return new RssSampler(() => process.memoryUsage.rss(), intervalMs);
  }

  private take(): void {
    const rss = this.read();
    if (rss === undefined || !Number.isFinite(rss)) return;
    this.samples.push({ ms: Date.now() - this.t0, rss });
    if (rss > this.max) this.max = rss;
  }

  stop(): { max: number; samples: Array<{ ms: number; rss: number }> } {
    this.take();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    return { max: this.max, samples: this.samples };
  }
}

/** Busy CPU seconds of the whole machine so far (all CPUs: user, nice, system, irq, softirq, steal from /proc/stat). */
export function machineBusySeconds(): number {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / CLK_TCK;
  } catch {
    return NaN;
  }
}

export const mib = (bytes: number): number => bytes / MIB;
