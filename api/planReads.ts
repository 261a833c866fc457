/**
 * The answers of the planner's work lists (GET /api/supply/orders, GET /api/exception-log, GET /api/alerts), kept
 * by the API for the tenant's plan version (migrations 033 and 035) they were read at. The plan version is read with the user on every request
 * (db/authLookup.ts) and raised at the commit of anything those lists show, so an answer kept for a version is the
 * answer for every request that brings that version; a request that brings a newer one reads the database again.
 *
 * Why: a page of 200 orders is 40 columns × 200 rows of JSON that PostgreSQL spends about 4 ms formatting, more than
 * the API's whole path, and the same pages are read over and over between changes (bench:supply, bench:alerts).
 *
 * One least-recently-read map over every tenant, bounded by the bytes of the answers it holds (PLAN_READ_CACHE_MB,
 * default 128; 0 keeps nothing). A load in flight is shared by the requests that ask for it meanwhile; a failed one
 * (a 404, a 400, a lost connection) is not kept.
 */
import { DEFAULT_PLAN_READ_CACHE_MB } from '../lib/env';

/** An answer's body as read, with whatever else the route needs to send it (a total, whether the pipeline exists). */
export interface PlanAnswer {
  body: string;
}

/** The answer as kept and sent: the body encoded once, so a hit writes bytes and the budget counts them exactly. */
export type KeptAnswer<T extends PlanAnswer> = Omit<T, 'body'> & { body: Buffer };

interface Entry {
  version: number;
  answer: Promise<unknown>;
  bytes: number;
}

export class PlanReads {
  private entries = new Map<string, Entry>();
  private bytes = 0;
  /** answers served from memory and loaded, since the process started (the API's /metrics) */
  hits = 0;
  misses = 0;

  constructor(private readonly budgetBytes: number = DEFAULT_PLAN_READ_CACHE_MB * 1024 * 1024) {}

  /**
   * The answer to `key` of the tenant at plan version `version`: kept, or read by `load` and kept. An answer kept for
   * a newer version than asked for is returned as it is (it shows at least what the older version shows). Without a
   * version (a tenant not migrated yet) or a budget, `load` runs every time.
   */
  answer<T extends PlanAnswer>(accountId: string, version: number | undefined, key: string, load: () => Promise<T>): Promise<KeptAnswer<T>> {
    const encoded = () => load().then((a) => ({ ...a, body: Buffer.from(a.body) }));
    if (version === undefined || this.budgetBytes <= 0) return encoded();
    const k = `${accountId}\u0000${key}`;
    const hit = this.entries.get(k);
    if (hit && hit.version >= version) {
      this.hits++;
      this.entries.delete(k);
      this.entries.set(k, hit);
      return hit.answer as Promise<KeptAnswer<T>>;
    }
    if (hit) this.forget(k, hit);
    this.misses++;
    const answer = encoded();
    const entry: Entry = { version, answer, bytes: 0 };
    this.entries.set(k, entry);
    answer.then(
      (a) => {
        if (this.entries.get(k) !== entry) return;
        // the body's bytes, and the key and the entry's bookkeeping beside them
        entry.bytes = a.body.length + 2 * k.length + 200;
        this.bytes += entry.bytes;
        this.evict();
      },
      () => {
        if (this.entries.get(k) === entry) this.entries.delete(k);
      },
    );
    return answer;
  }

  /** The answers held and their bytes (for tests and the health page). */
  size(): { answers: number; bytes: number } {
    return { answers: this.entries.size, bytes: this.bytes };
  }

  /** Forgets every answer of the tenant (a reload of its data). */
  drop(accountId: string): void {
    const prefix = `${accountId}\u0000`;
    for (const [k, e] of this.entries) if (k.startsWith(prefix)) this.forget(k, e);
  }

  private forget(k: string, e: Entry): void {
    this.entries.delete(k);
    this.bytes -= e.bytes;
  }

  private evict(): void {
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.budgetBytes) return;
      // a load still in flight has no size yet and is the newest entry: leave it
      if (e.bytes) this.forget(k, e);
    }
  }
}

/**
 * The key of a list request: the route and its query as validated (defaults applied), in a fixed order, so that two
 * spellings of one question share an answer.
 */
export function answerKey(route: string, query: Record<string, unknown>): string {
  const parts = Object.keys(query).sort().filter((k) => query[k] !== undefined).map((k) => `${k}=${JSON.stringify(query[k])}`);
  return `${route}?${parts.join('&')}`;
}
