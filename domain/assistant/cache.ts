/** The assistant's response cache (spec §8: 64 entries, 300 seconds), least recently used out first. In process only. */

export const CACHE_ENTRIES = 64;
export const CACHE_TTL_SECONDS = 300;

export class ResponseCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  constructor(private readonly maxEntries = CACHE_ENTRIES, private readonly ttlSeconds = CACHE_TTL_SECONDS) {}

  get(key: string, now: number): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (now - e.at > this.ttlSeconds * 1000) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, value: V, now: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at: now });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Drops every entry whose key starts with the prefix (a tenant's, after its index is rebuilt). */
  dropPrefix(prefix: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix)) this.entries.delete(k);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The cache key of a question: tenant, pipeline, scenario and the question with case and spacing normalised. */
export function cacheKey(tenant: string, pipelineId: number | null, scenarioId: number | null, question: string): string {
  return `${tenant}|${pipelineId ?? ''}|${scenarioId ?? ''}|${question.trim().toLowerCase().replace(/\s+/g, ' ')}`;
}
