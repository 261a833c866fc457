/**
 * A progress bar on stderr for the offline forecaster. Small and dependency-free: on a TTY one line redrawn in place
 * (at most every 100 ms); otherwise (a log file, a CI job, a parent process reading a pipe) plain lines, one per
 * 10 % step and at least every 30 s, since carriage returns would pile up there as one enormous line.
 */

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(s: string): unknown;
}

export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** "[####------] 40/100 series 40% 12.5/s ETA 5s"; width 0 leaves the bar out. */
export function progressText(done: number, total: number, elapsedMs: number, barWidth = 24): string {
  const frac = total > 0 ? Math.min(1, done / total) : 1;
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const eta = done >= total ? 0 : rate > 0 ? (total - done) / rate : Number.NaN;
  const filled = Math.round(frac * barWidth);
  const bar = barWidth > 0 ? `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ` : '';
  const rateText = rate >= 100 ? rate.toFixed(0) : rate.toFixed(1);
  return `${bar}${done}/${total} series ${Math.floor(frac * 100)}% ${rateText}/s ETA ${duration(eta)}`;
}

export class Progress {
  private done = 0;
  private readonly started: number;
  private lastDraw = -Infinity;
  private lastDecile = -1;
  private lastDone = -1;
  private finished = false;

  constructor(
    private readonly total: number,
    private readonly stream: ProgressStream,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
    this.draw(true);
  }

  tick(n = 1): void {
    this.done += n;
    this.draw(false);
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.draw(true);
    if (this.stream.isTTY) this.stream.write('\n');
  }

  private draw(force: boolean): void {
    const t = this.now();
    const text = (w: number) => progressText(this.done, this.total, t - this.started, w);
    if (this.stream.isTTY) {
      if (!force && t - this.lastDraw < 100) return;
      this.lastDraw = t;
      const cols = this.stream.columns ?? 80;
      this.stream.write(`\r${text(cols >= 90 ? 24 : 0).slice(0, cols - 1)}\x1b[K`);
      return;
    }
    const decile = this.total > 0 ? Math.floor((10 * this.done) / this.total) : 10;
    if (force ? this.done === this.lastDone : decile === this.lastDecile && t - this.lastDraw < 30_000) return;
    this.lastDecile = decile;
    this.lastDone = this.done;
    this.lastDraw = t;
    this.stream.write(`forecast: ${text(0)}\n`);
  }
}
