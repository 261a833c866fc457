/**
 * Free capacity per site and week, shared by all items of a run. An order draws on its source site (the site that
 * ships or makes it) in its release week. Consumption is logged so that an item's first pass can be rolled back when
 * the post-processor sends the item round again, and so that a failed item leaves no trace.
 */
import type { CapacityInput } from './types';

export class CapacityLedger {
  private readonly free = new Map<number, Float64Array>();
  private readonly used = new Map<number, Float64Array>();
  private log: number[] = [];

  constructor(rows: readonly CapacityInput[], readonly horizon: number) {
    for (const r of rows) {
      if (!Number.isInteger(r.week) || r.week < 0 || r.week >= horizon) continue;
      let f = this.free.get(r.site_id);
      if (!f) {
        f = new Float64Array(horizon);
        this.free.set(r.site_id, f);
        this.used.set(r.site_id, new Float64Array(horizon));
      }
      // Duplicate rows add up: two resources at one site are one pool of units here.
      f[r.week] = f[r.week]! + Math.max(0, r.qty);
    }
  }

  isConstrained(siteId: number | null): boolean {
    return siteId !== null && this.free.has(siteId);
  }

  /** Free units; Infinity for an unconstrained site or a week outside the horizon's rows. */
  available(siteId: number | null, week: number): number {
    if (siteId === null) return Infinity;
    const f = this.free.get(siteId);
    return f ? f[week]! : Infinity;
  }

  consume(siteId: number | null, week: number, qty: number): void {
    if (siteId === null || !(qty > 0)) return;
    const f = this.free.get(siteId);
    if (!f) return;
    f[week] = f[week]! - qty;
    this.used.get(siteId)![week] += qty;
    this.log.push(siteId, week, qty);
  }

  /** What was consumed since `mark` and not rolled back, summed per site and week (one item's use, in planSupply). */
  usageSince(mark: number): CapacityInput[] {
    const sum = new Map<string, CapacityInput>();
    for (let i = mark; i + 2 < this.log.length; i += 3) {
      const key = `${this.log[i]}:${this.log[i + 1]}`;
      const row = sum.get(key);
      if (row) row.qty += this.log[i + 2]!;
      else sum.set(key, { site_id: this.log[i]!, week: this.log[i + 1]!, qty: this.log[i + 2]! });
    }
    return [...sum.values()].filter((r) => r.qty > 1e-12).sort((a, b) => a.site_id - b.site_id || a.week - b.week);
  }

  /** Forget the log: what was consumed so far stays consumed. */
  commit(): void {
    this.log.length = 0;
  }

  /** A mark to roll back to. */
  mark(): number {
    return this.log.length;
  }

  rollback(mark: number): void {
    for (let i = this.log.length - 3; i >= mark; i -= 3) {
      const [site, week, qty] = [this.log[i]!, this.log[i + 1]!, this.log[i + 2]!];
      this.free.get(site)![week] += qty;
      this.used.get(site)![week] -= qty;
    }
    this.log.length = mark;
  }

  /** Consumption per site and week, sites ascending, weeks ascending, non-zero only. */
  usage(): CapacityInput[] {
    const out: CapacityInput[] = [];
    for (const site of [...this.used.keys()].sort((a, b) => a - b)) {
      const u = this.used.get(site)!;
      for (let w = 0; w < u.length; w++) if (u[w]! > 1e-12) out.push({ site_id: site, week: w, qty: u[w]! });
    }
    return out;
  }
}
