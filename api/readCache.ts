/**
 * The reads the API serves from memory (core-service.md §1: "The API keeps an in-memory data cache, which can be
 * reloaded on demand"): the series list with its step results, the default pipeline, the series index and segment
 * membership, and the forecasts of the series read lately. Each tenant's entry belongs to one data version (migration
 * 011: raised by every commit that changes what these reads show, steps' chunks and finishing jobs included), read
 * with the user on every request (db/authLookup.ts); a request that brings a newer version starts a fresh entry, so
 * a read after a step completed sees its results, at the cost of one integer compared per request.
 */

/**
 * Bounds of the least-recently-read maps, per tenant and version: one entry per series (its forecast rows, about
 * 5 KB for 3 methods of 52 weeks), one per list page (the answer's bytes, 150 KB for 200 series).
 */
export const MAX_SERIES_ENTRIES = 20_000;
const MAX_PAGES = 32;

export class TenantReads {
  private memo = new Map<string, Promise<unknown>>();
  private series = new Map<string, Promise<unknown>>();
  private pages = new Map<string, Promise<unknown>>();
  private loaded = new Map<string, unknown>();

  constructor(readonly version: number) {}

  /** One load per key and version, shared by the requests that arrive while it runs; a failed load is retried. */
  once<T>(key: string, load: () => Promise<T>): Promise<T> {
    const known = this.memo.has(key);
    const p = remember(this.memo, key, load);
    if (!known) p.then((v) => this.loaded.set(key, v), () => undefined);
    return p;
  }

  /**
   * once(key)'s value if it has loaded; else starts the load and returns undefined, so that a request does not wait
   * for a large load it can do without (it reads the database instead, as before the cache).
   */
  ifLoaded<T>(key: string, load: () => Promise<T>): T | undefined {
    if (this.loaded.has(key)) return this.loaded.get(key) as T;
    void this.once(key, load);
    return undefined;
  }

  /** Like once, in a bounded least-recently-read map: one entry per series. */
  seriesEntry<T>(key: string, load: () => Promise<T>): Promise<T> {
    return lru(this.series, MAX_SERIES_ENTRIES, key, load);
  }

  /** Like once, for a few answers that are read again and again (the first page of a list). */
  page<T>(key: string, load: () => Promise<T>): Promise<T> {
    return lru(this.pages, MAX_PAGES, key, load);
  }
}

function lru<T>(map: Map<string, Promise<unknown>>, max: number, key: string, load: () => Promise<T>): Promise<T> {
  const hit = map.get(key);
  if (hit) {
    map.delete(key);
    map.set(key, hit);
    return hit as Promise<T>;
  }
  if (map.size >= max) map.delete(map.keys().next().value!);
  return remember(map, key, load);
}

function remember<T>(map: Map<string, Promise<unknown>>, key: string, load: () => Promise<T>): Promise<T> {
  let p = map.get(key) as Promise<T> | undefined;
  if (!p) {
    const loading = load();
    p = loading;
    map.set(key, loading);
    loading.catch(() => {
      if (map.get(key) === loading) map.delete(key);
    });
  }
  return p;
}

export class ReadCache {
  private tenants = new Map<string, TenantReads>();

  /**
   * The tenant's reads at `version`, or undefined when the request carries none (read the database then). An entry
   * of a newer version than asked for is returned as it is: it shows at least what that version shows.
   */
  at(accountId: string, version: number | undefined): TenantReads | undefined {
    if (version === undefined) return undefined;
    const current = this.tenants.get(accountId);
    if (current && current.version >= version) return current;
    const fresh = new TenantReads(version);
    this.tenants.set(accountId, fresh);
    return fresh;
  }

  drop(accountId: string): void {
    this.tenants.delete(accountId);
  }
}
