/**
 * Greedy allocator for scale. Per (item, site) group it serves, again and again, the arc of highest value v(s, d) of
 * the model (model.ts) among the lines still short and the supplies still in stock, as much as the two allow. So a
 * unit goes where the LP's objective says it is worth most, and the greedy ranks supplies for a line exactly as the
 * LP does: by value, which is how document 2 §4.3 rule 3 ("higher reliability is preferred") reaches both.
 *
 * Ranking on time before late instead (as this allocator first did) contradicts the objective: for a C line, a firm
 * order one week late is worth 1.0 - 0.05 = 0.95 and an engine order on time 0.85, so the LP takes the firm order and
 * that greedy took the engine one.
 *
 * For a line, the arcs of one reliability level are worth the same for every supply on time, and less the later a
 * late supply arrives; so its best arc of that level is either
 *   - on time: among the supplies arriving by the due week, the LATEST one (worth the same to this line as an earlier
 *     one, and an earlier arrival can still serve lines due before it on time: best fit), or
 *   - late: the earliest supply arriving after the due week (the least late), while the arc exists.
 * Ties in value go to the line first in priority order (weight desc, due week asc, demand_id), then to the higher
 * reliability, then on time before late. Every tie is broken on values and ids, so the result does not depend on
 * input order.
 *
 * Agreement with the LP is not exact in general (a greedy cannot see that a unit is worth more to a line served
 * later); test/domain/allocation/agreement.test.ts measures it on generated instances (docs/SUPPLY.md, "Allocation").
 *
 * Cost: supplies are bucketed by reliability level and sorted by arrival; per bucket two path-compressed pointers
 * skip exhausted supplies (the next in stock to the right, the previous in stock to the left). A max-heap holds each
 * short line's best on-time and best late arc per bucket; an entry whose supply ran out is re-valued when it comes
 * up (values only fall as stock runs out, so a lazy re-insert keeps the heap order right). Each step either
 * exhausts a supply, finishes a line or re-values an entry: O((D * R + S + stale) log(D * R)) per group with R
 * distinct reliabilities (2 under the pool rules); stale re-valuations are at most one per (entry, exhausted supply).
 */
import {
  type AllocationParams,
  type AllocationProblem,
  type AllocationResult,
  type AllocationRow,
  type AllocationSupply,
  type DemandLine,
  arcValue,
  compareIds,
  demandWeight,
  groupByItemSite,
  makeRow,
  resolveParams,
  summarise,
  validateProblem,
} from './model';

interface Bucket {
  reliability: number;
  /** Sorted by arrival_week asc, then supply_id. */
  supplies: AllocationSupply[];
  arrival: Float64Array;
  remaining: Float64Array;
  /** next[i] = i while supply i has stock; path-compressed pointer to the next one with stock otherwise (n: none). */
  next: Int32Array;
  /** prev[i + 1] = i + 1 while supply i has stock; pointer to the previous one with stock otherwise (0: none). */
  prev: Int32Array;
}

function find(link: Int32Array, i: number): number {
  let root = i;
  while (link[root] !== root) root = link[root]!;
  while (link[i] !== root) {
    const up = link[i]!;
    link[i] = root;
    i = up;
  }
  return root;
}

/** First index whose arrival is > week (arrival is sorted asc). */
function firstAfter(arrival: Float64Array, week: number): number {
  let lo = 0;
  let hi = arrival.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arrival[mid]! <= week) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function buckets(supplies: AllocationSupply[]): Bucket[] {
  const byRel = new Map<number, AllocationSupply[]>();
  for (const s of supplies) {
    const list = byRel.get(s.reliability);
    if (list) list.push(s);
    else byRel.set(s.reliability, [s]);
  }
  return [...byRel.entries()]
    .sort((a, b) => b[0] - a[0])
    .map(([reliability, list]) => {
      list.sort((a, b) => a.arrival_week - b.arrival_week || compareIds(a.supply_id, b.supply_id));
      const n = list.length;
      const next = new Int32Array(n + 1);
      const prev = new Int32Array(n + 1);
      for (let i = 0; i <= n; i++) next[i] = prev[i] = i;
      return {
        reliability,
        supplies: list,
        arrival: Float64Array.from(list, (s) => s.arrival_week),
        remaining: Float64Array.from(list, (s) => s.qty),
        next,
        prev,
      };
    });
}

const ON_TIME = 0;
const LATE = 1;

/** The supply index of a line's best arc of one kind in a bucket, or -1. */
function candidate(b: Bucket, d: DemandLine, kind: number): number {
  const split = firstAfter(b.arrival, d.due_week);
  if (kind === ON_TIME) return find(b.prev, split) - 1;
  const i = find(b.next, split);
  return i < b.supplies.length ? i : -1;
}

interface Entry {
  value: number;
  /** Position of the line in priority order (weight desc, due asc, demand_id). */
  rank: number;
  bucket: number;
  kind: number;
}

/** a before b in the heap: higher value, then the line first in priority order, then higher reliability, then on time. */
function before(a: Entry, b: Entry): boolean {
  if (a.value !== b.value) return a.value > b.value;
  if (a.rank !== b.rank) return a.rank < b.rank;
  if (a.bucket !== b.bucket) return a.bucket < b.bucket;
  return a.kind < b.kind;
}

class EntryHeap {
  private readonly items: Entry[] = [];
  get size(): number {
    return this.items.length;
  }
  push(e: Entry): void {
    const h = this.items;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  pop(): Entry {
    const h = this.items;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

/** The greedy's rows for one (item, site) group, appended to `out`. */
export function allocateGreedyGroup(supplies: AllocationSupply[], demands: DemandLine[], params: AllocationParams, out: AllocationRow[]): void {
  const weights = new Map<string, number>();
  for (const d of demands) weights.set(d.demand_id, demandWeight(d, params));
  const order = demands.slice().sort(
    (a, b) => weights.get(b.demand_id)! - weights.get(a.demand_id)! || a.due_week - b.due_week || compareIds(a.demand_id, b.demand_id),
  );
  const need = Float64Array.from(order, (d) => d.qty);
  const bs = buckets(supplies);
  const heap = new EntryHeap();

  /** Queues the line's current best arc of this bucket and kind, if it has one. */
  const offer = (rank: number, bucket: number, kind: number): void => {
    const d = order[rank]!;
    const b = bs[bucket]!;
    const i = candidate(b, d, kind);
    if (i < 0) return;
    const value = arcValue(b.supplies[i]!, d, weights.get(d.demand_id)!, params);
    if (value !== null) heap.push({ value, rank, bucket, kind });
  };

  for (let rank = 0; rank < order.length; rank++) {
    for (let bucket = 0; bucket < bs.length; bucket++) {
      offer(rank, bucket, ON_TIME);
      offer(rank, bucket, LATE);
    }
  }
  while (heap.size > 0) {
    const e = heap.pop();
    if (!(need[e.rank]! > 0)) continue;
    const d = order[e.rank]!;
    const b = bs[e.bucket]!;
    const i = candidate(b, d, e.kind);
    if (i < 0) continue;
    const s = b.supplies[i]!;
    const value = arcValue(s, d, weights.get(d.demand_id)!, params);
    if (value === null) continue;
    if (value !== e.value) {
      // The supply this entry was valued on ran out; the next one is worth less, so it waits its turn again.
      heap.push({ ...e, value });
      continue;
    }
    const take = Math.min(b.remaining[i]!, need[e.rank]!);
    out.push(makeRow(s, d, take, value));
    need[e.rank]! -= take;
    b.remaining[i]! -= take;
    if (b.remaining[i]! <= 0) {
      b.remaining[i] = 0;
      b.next[i] = i + 1;
      b.prev[i + 1] = i;
    }
    if (need[e.rank]! > 0) offer(e.rank, e.bucket, e.kind);
  }
}

export function allocateGreedy(problem: AllocationProblem, paramsIn: Partial<AllocationParams> = {}): AllocationResult {
  const t0 = Date.now();
  const params = resolveParams(paramsIn);
  const { supplies, demands } = validateProblem(problem);
  const out: AllocationRow[] = [];
  for (const g of groupByItemSite(supplies, demands)) allocateGreedyGroup(g.supplies, g.demands, params, out);
  return summarise('greedy', supplies, demands, out, Date.now() - t0);
}
