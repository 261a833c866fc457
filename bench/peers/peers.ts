/**
 * Runs the peer implementations — R's forecast package (bench/peers/forecast.R) and Nixtla statsforecast
 * (bench/peers/statsforecast_runner.py) — on forecasting tasks, exchanging data as files in a temporary directory.
 *
 * A task is "fit on y, forecast h steps" (id, seasonal period m, h, y). Each peer is one child process (one core);
 * its peak memory is VmHWM read from /proc while it runs. statsforecast lives in a throwaway virtual environment,
 * bench/.venv (git-ignored), created with `python3 -m venv` and `pip install statsforecast` on first use; when that
 * fails the peer is reported as unavailable and the benchmark goes on without it.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { memStatus } from '../lib/proc';

export interface PeerTask {
  id: string;
  m: number;
  h: number;
  y: ArrayLike<number>;
}

export interface PeerRun {
  peer: 'R' | 'statsforecast';
  ok: boolean;
  error?: string;
  version?: string;
  /** forecasts by task id, then method (null: the method failed on that task) */
  forecasts: Map<string, Map<string, Float64Array | null>>;
  /** CPU seconds per method as the peer timed them (sum over tasks) */
  methodSeconds: Record<string, number>;
  /** the same per task id */
  taskSeconds: Map<string, Record<string, number>>;
  /** wall time of the child process, start-up included */
  wallSeconds: number;
  /** peak resident memory of the child, bytes */
  peakRss: number;
  /** stopped at its time limit: `forecasts` holds the tasks it finished */
  partial?: boolean;
}

export interface PeerOptions {
  log?: (s: string) => void;
  /** stop the peer after this long and keep what it finished (its output is flushed task by task or chunk by chunk) */
  timeoutMs?: number;
  /**
   * where the peer writes its output (default: in the run's directory). A caller that keeps it at a stable path can
   * recover the finished tasks of a run that was killed before it could read them (parseOutput).
   */
  output?: string;
}

const HERE = __dirname;
export const VENV_DIR = path.join(HERE, '..', '.venv');

function writeTasks(dir: string, tasks: PeerTask[]): string {
  const file = path.join(dir, 'tasks.json');
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, '[');
  tasks.forEach((t, i) => {
    fs.writeSync(fd, (i ? ',\n' : '') + JSON.stringify({ id: t.id, m: t.m, h: t.h, y: Array.from(t.y) }));
  });
  fs.writeSync(fd, ']');
  fs.closeSync(fd);
  return file;
}

export function parseOutput(file: string): { forecasts: PeerRun['forecasts']; methodSeconds: Record<string, number>; taskSeconds: Map<string, Record<string, number>> } {
  const forecasts: PeerRun['forecasts'] = new Map();
  const methodSeconds: Record<string, number> = {};
  const taskSeconds = new Map<string, Record<string, number>>();
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (!line) continue;
    const a = line.indexOf(',');
    const b = line.indexOf(',', a + 1);
    const c = line.indexOf(',', b + 1);
    const id = line.slice(0, a);
    const method = line.slice(a + 1, b);
    const secs = Number(line.slice(b + 1, c));
    const vals = line.slice(c + 1).trim().split(/\s+/).map((v) => (v === 'NA' || v === 'NaN' ? NaN : Number(v)));
    const ok = vals.length > 0 && vals.every((v) => Number.isFinite(v));
    let byMethod = forecasts.get(id);
    if (!byMethod) forecasts.set(id, (byMethod = new Map()));
    byMethod.set(method, ok ? Float64Array.from(vals) : null);
    methodSeconds[method] = (methodSeconds[method] ?? 0) + (Number.isFinite(secs) ? secs : 0);
    let ts = taskSeconds.get(id);
    if (!ts) taskSeconds.set(id, (ts = {}));
    ts[method] = secs;
  }
  return { forecasts, methodSeconds, taskSeconds };
}

function runChild(cmd: string, args: string[], log: (s: string) => void, timeoutMs?: number): Promise<{ code: number; stderr: string; wall: number; peak: number; timedOut: boolean }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let timedOut = false;
    const limit = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
        }, timeoutMs)
      : undefined;
    let stderr = '';
    let peak = 0;
    const sample = () => {
      const s = child.pid ? memStatus(child.pid) : undefined;
      if (s && Number.isFinite(s.hwm)) peak = Math.max(peak, s.hwm);
    };
    const timer = setInterval(sample, 200);
    child.stdout.on('data', (d) => log(String(d).trimEnd()));
    child.stderr.on('data', (d) => {
      stderr += String(d);
      if (stderr.length > 20000) stderr = stderr.slice(-20000);
    });
    child.on('error', (e) => {
      clearInterval(timer);
      if (limit) clearTimeout(limit);
      resolve({ code: -1, stderr: String(e), wall: (performance.now() - t0) / 1000, peak, timedOut });
    });
    child.on('exit', (code) => {
      clearInterval(timer);
      if (limit) clearTimeout(limit);
      resolve({ code: code ?? -1, stderr, wall: (performance.now() - t0) / 1000, peak, timedOut });
    });
  });
}

function emptyRun(peer: PeerRun['peer'], error: string): PeerRun {
  return { peer, ok: false, error, forecasts: new Map(), methodSeconds: {}, taskSeconds: new Map(), wallSeconds: 0, peakRss: 0 };
}

export function rVersion(): string | null {
  const r = spawnSync('Rscript', ['-e', 'cat(R.version$major, ".", R.version$minor, " forecast ", as.character(packageVersion("forecast")), sep="")'], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  return `R ${r.stdout.trim()}`;
}

/** Keeps only complete answers: a task's forecast must have its h values (a stopped run may leave a torn line). */
export function complete(parsed: ReturnType<typeof parseOutput>, tasks: PeerTask[], methods: string[]): ReturnType<typeof parseOutput> {
  const h = new Map(tasks.map((t) => [t.id, t.h]));
  for (const [id, by] of parsed.forecasts) {
    if (by.size < methods.length) {
      parsed.forecasts.delete(id);
      continue;
    }
    for (const [m, v] of by) if (v && v.length !== h.get(id)) by.set(m, null);
  }
  return parsed;
}

/** Runs forecast.R (methods: ets, arima, theta, croston, naive, snaive, rwdrift) on the tasks. */
export async function runR(tasks: PeerTask[], methods: string[], dir: string, opts: PeerOptions = {}): Promise<PeerRun> {
  const version = rVersion();
  if (!version) return emptyRun('R', 'Rscript or the forecast package not found');
  fs.mkdirSync(dir, { recursive: true });
  const input = writeTasks(dir, tasks);
  const output = opts.output ?? path.join(dir, 'r-out.csv');
  const res = await runChild('Rscript', [path.join(HERE, 'forecast.R'), input, output, methods.join(',')], opts.log ?? (() => {}), opts.timeoutMs);
  if ((res.code !== 0 && !res.timedOut) || !fs.existsSync(output)) return { ...emptyRun('R', `Rscript exited ${res.code}: ${res.stderr.slice(-2000)}`), version };
  return { peer: 'R', ok: true, version, ...complete(parseOutput(output), tasks, methods), wallSeconds: res.wall, peakRss: res.peak, partial: res.timedOut };
}

/**
 * Python of the statsforecast venv, creating it when missing (unless `install` is false). Null with the reason when
 * it cannot be had.
 */
export function statsforecastPython(install: boolean, log: (s: string) => void = () => {}): { python: string | null; version?: string; error?: string } {
  const python = path.join(VENV_DIR, 'bin', 'python');
  const probe = () => spawnSync(python, ['-c', 'import statsforecast, sys; print(statsforecast.__version__)'], { encoding: 'utf8' });
  if (fs.existsSync(python)) {
    const p = probe();
    if (p.status === 0) return { python, version: `statsforecast ${p.stdout.trim()}` };
  }
  if (!install) return { python: null, error: 'bench/.venv has no statsforecast (run without --no-install to create it)' };
  log(`creating ${VENV_DIR} and installing statsforecast from PyPI …`);
  const v = spawnSync('python3', ['-m', 'venv', VENV_DIR], { encoding: 'utf8' });
  if (v.status !== 0) return { python: null, error: `python3 -m venv failed: ${v.stderr}` };
  const pip = spawnSync(path.join(VENV_DIR, 'bin', 'pip'), ['install', '--quiet', 'statsforecast'], { encoding: 'utf8', timeout: 15 * 60 * 1000 });
  if (pip.status !== 0) return { python: null, error: `pip install statsforecast failed: ${(pip.stderr || '').slice(-2000)}` };
  const p = probe();
  if (p.status !== 0) return { python: null, error: `statsforecast does not import: ${p.stderr.slice(-2000)}` };
  return { python, version: `statsforecast ${p.stdout.trim()}` };
}

/** Runs statsforecast_runner.py (methods: ets, arima, theta, croston, naive, snaive, rwdrift) on the tasks. */
export async function runStatsforecast(
  tasks: PeerTask[],
  methods: string[],
  dir: string,
  opts: PeerOptions & { install: boolean },
): Promise<PeerRun> {
  const log = opts.log ?? (() => {});
  const py = statsforecastPython(opts.install, log);
  if (!py.python) return emptyRun('statsforecast', py.error ?? 'unavailable');
  fs.mkdirSync(dir, { recursive: true });
  const input = writeTasks(dir, tasks);
  const output = opts.output ?? path.join(dir, 'sf-out.csv');
  const res = await runChild(py.python, [path.join(HERE, 'statsforecast_runner.py'), input, output, methods.join(',')], log, opts.timeoutMs);
  if ((res.code !== 0 && !res.timedOut) || !fs.existsSync(output)) return { ...emptyRun('statsforecast', `python exited ${res.code}: ${res.stderr.slice(-2000)}`), version: py.version };
  return { peer: 'statsforecast', ok: true, version: py.version, ...complete(parseOutput(output), tasks, methods), wallSeconds: res.wall, peakRss: res.peak, partial: res.timedOut };
}
