import { orAfter } from '../lib/timeout';
import { logger } from '../lib/logger';
import type { TenantData } from '../db/masterData';
import { PlanReads } from './planReads';
import { ReadCache } from './readCache';

export type { TenantData };

export type CacheLoader = (accountId: string) => Promise<TenantData>;

interface Entry {
  state: 'loading' | 'ready' | 'failed';
  promise: Promise<TenantData>;
  data?: TenantData;
  error?: string;
}

export const cacheSizes = (d: TenantData): Record<string, number> => ({
  items: d.items.size,
  sites: d.sites.size,
  series: d.series.length,
});

/**
 * Per-tenant in-memory cache. A tenant's first request starts its load; callers wait briefly and otherwise get a
 * 503 with Retry-After, which is what a planner sees right after a restart.
 */
export class DataCache {
  private entries = new Map<string, Entry>();
  /** series list, results and forecasts, checked against the tenant's data version on every request */
  readonly reads = new ReadCache();
  /** the answers of the work lists, checked against the tenant's plan version on every request */
  readonly plan: PlanReads;

  constructor(private readonly loader: CacheLoader, planBudgetBytes?: number) {
    this.plan = new PlanReads(planBudgetBytes);
  }

  private start(accountId: string): Entry {
    const entry: Entry = { state: 'loading', promise: Promise.resolve(undefined as unknown as TenantData) };
    entry.promise = this.loader(accountId).then(
      (data) => {
        entry.state = 'ready';
        entry.data = data;
        logger.info({ accountId, ...cacheSizes(data) }, 'data cache loaded');
        return data;
      },
      (err: unknown) => {
        entry.state = 'failed';
        entry.error = err instanceof Error ? err.message : String(err);
        logger.error({ accountId, err }, 'data cache load failed');
        throw err;
      },
    );
    entry.promise.catch(() => undefined);
    this.entries.set(accountId, entry);
    return entry;
  }

  status(accountId: string): 'absent' | Entry['state'] {
    return this.entries.get(accountId)?.state ?? 'absent';
  }

  /** Starts loading without waiting: used at API start for every tenant. */
  warm(accountId: string): void {
    if (!this.entries.has(accountId)) this.start(accountId);
  }

  /** The tenant's data if it is (or becomes within waitMs) ready; undefined while it is still loading. */
  async whenReady(accountId: string, waitMs: number): Promise<TenantData | undefined> {
    let entry = this.entries.get(accountId);
    if (!entry || entry.state === 'failed') entry = this.start(accountId);
    if (entry.state === 'ready') return entry.data;
    return orAfter(entry.promise.catch(() => undefined), waitMs, undefined);
  }

  /** Drops the tenant's data and reads it again; resolves when the new data is in. */
  async reload(accountId: string): Promise<TenantData> {
    this.entries.delete(accountId);
    this.reads.drop(accountId);
    this.plan.drop(accountId);
    return this.start(accountId).promise;
  }

  get(accountId: string): TenantData | undefined {
    return this.entries.get(accountId)?.data;
  }
}
