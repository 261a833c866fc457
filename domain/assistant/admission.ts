/**
 * Admission of the assistant's statements: at most `perTenant` running for one tenant and `overall` for the process,
 * and at most `queue` waiting behind them, first come first served; anything beyond is refused at once, so the
 * caller can answer 429 instead of letting scans of 8 s each pile up. Twenty such scans at once took the planning
 * reads from 5,900 requests a second to 80.
 */

export interface AdmissionLimits {
  /** statements running at once over every tenant */
  overall: number;
  /** statements running at once for one tenant */
  perTenant: number;
  /** statements waiting for a slot, over every tenant */
  queue: number;
}

export class AdmissionRefused extends Error {
  constructor(public readonly reason: 'tenant' | 'overall') {
    super(reason === 'tenant' ? 'the tenant has as many assistant statements running and waiting as allowed' : 'as many assistant statements are running and waiting as allowed');
  }
}

interface Waiter { tenant: string; admit: () => void }

export class Admission {
  private readonly running = new Map<string, number>();
  private total = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly limits: AdmissionLimits) {
    for (const [k, v] of Object.entries(limits)) {
      if (!Number.isInteger(v) || v < (k === 'queue' ? 0 : 1)) throw new RangeError(`admission ${k} must be an integer >= ${k === 'queue' ? 0 : 1}, got ${v}`);
    }
  }

  /** Runs `work` once a slot is free; refuses (AdmissionRefused) when none is and the queue is full. */
  async run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    await this.acquire(tenant);
    try {
      return await work();
    } finally {
      this.release(tenant);
    }
  }

  stats(tenant?: string): { running: number; waiting: number } {
    return tenant === undefined
      ? { running: this.total, waiting: this.waiting.length }
      : { running: this.running.get(tenant) ?? 0, waiting: this.waiting.filter((w) => w.tenant === tenant).length };
  }

  private fits(tenant: string): boolean {
    return this.total < this.limits.overall && (this.running.get(tenant) ?? 0) < this.limits.perTenant;
  }

  private take(tenant: string): void {
    this.total += 1;
    this.running.set(tenant, (this.running.get(tenant) ?? 0) + 1);
  }

  private acquire(tenant: string): Promise<void> {
    // a waiter ahead of this one keeps its place: jumping it would starve tenants behind a busy one
    if (this.fits(tenant) && !this.waiting.some((w) => w.tenant === tenant)) {
      this.take(tenant);
      return Promise.resolve();
    }
    if (this.waiting.length >= this.limits.queue) {
      throw new AdmissionRefused((this.running.get(tenant) ?? 0) >= this.limits.perTenant ? 'tenant' : 'overall');
    }
    return new Promise<void>((resolve) => this.waiting.push({ tenant, admit: resolve }));
  }

  private release(tenant: string): void {
    this.total -= 1;
    const n = (this.running.get(tenant) ?? 1) - 1;
    if (n > 0) this.running.set(tenant, n);
    else this.running.delete(tenant);
    // the first waiter whose tenant has room goes next; one tenant at its limit does not hold up the others
    for (let i = 0; i < this.waiting.length && this.total < this.limits.overall; ) {
      const w = this.waiting[i]!;
      if (this.fits(w.tenant)) {
        this.waiting.splice(i, 1);
        this.take(w.tenant);
        w.admit();
      } else i++;
    }
  }
}
