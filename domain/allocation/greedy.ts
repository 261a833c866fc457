/**
 * Greedy allocator for scale. Per (item, site) group, demand lines are served in priority order (weight desc, then
 * due week asc, then demand_id), each from the supplies in this order:
 *
 *   1. on time (arrival_week <= due_week) before late;
 *   2. within each, reliability desc (firm 1.0 before engine 0.85: document 2 §4.3 rule 3);
 *   3. then arrival week asc (the least late first; among on-time supplies the earliest, since later-due lines of the
 *      same priority come after this one in the order and can still use later arrivals), then supply_id.
 *
 * Only arcs of the model (model.ts) are used: same item and site, at most maxLatenessWeeks late, value > 0.
 *
 * Cost: supplies are bucketed by reliability level and sorted by arrival; a "next supply with stock" pointer per
 * bucket (path-compressed union-find) skips exhausted supplies, so each step either exhausts a supply or finishes a
 * line. O((D + S) log(D + S) + (D + S) * R) per group with R distinct reliabilities (2 under the pool rules).
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
  /** next[i] = i while supply i has stock; path-compressed pointer to the next one with stock otherwise. */
  next: Int32Array;
}

function find(next: Int32Array, i: number): number {
  let root = i;
  while (next[root] !== root) root = next[root]!;
  while (next[i] !== root) {
    const up = next[i]!;
    next[i] = root;
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
      for (let i = 0; i <= n; i++) next[i] = i;
      return {
        reliability,
        supplies: list,
        arrival: Float64Array.from(list, (s) => s.arrival_week),
        remaining: Float64Array.from(list, (s) => s.qty),
        next,
      };
    });
}

/**
 * Serves `need` of line d from bucket b starting at index `from`, while the arc is allowed (and, when onTime, the
 * supply arrives by the due week). Returns the quantity still needed.
 */
function serveFrom(
  b: Bucket,
  from: number,
  d: DemandLine,
  weight: number,
  need: number,
  onTime: boolean,
  params: AllocationParams,
  out: AllocationRow[],
): number {
  const n = b.supplies.length;
  let i = find(b.next, from);
  while (need > 0 && i < n) {
    if (onTime && b.arrival[i]! > d.due_week) break;
    const s = b.supplies[i]!;
    // Within a bucket the value only falls as arrival grows, so the first arc refused ends the scan.
    const value = arcValue(s, d, weight, params);
    if (value === null) break;
    const take = Math.min(b.remaining[i]!, need);
    out.push(makeRow(s, d, take, value));
    need -= take;
    b.remaining[i]! -= take;
    if (b.remaining[i]! <= 0) {
      b.remaining[i] = 0;
      b.next[i] = i + 1;
      i = find(b.next, i + 1);
    }
  }
  return need;
}

export function allocateGreedy(problem: AllocationProblem, paramsIn: Partial<AllocationParams> = {}): AllocationResult {
  const t0 = Date.now();
  const params = resolveParams(paramsIn);
  const { supplies, demands } = validateProblem(problem);
  const out: AllocationRow[] = [];
  for (const g of groupByItemSite(supplies, demands)) {
    const weights = new Map<string, number>();
    for (const d of g.demands) weights.set(d.demand_id, demandWeight(d, params));
    const order = g.demands.slice().sort(
      (a, b) => weights.get(b.demand_id)! - weights.get(a.demand_id)! || a.due_week - b.due_week || compareIds(a.demand_id, b.demand_id),
    );
    const bs = buckets(g.supplies);
    for (const d of order) {
      const w = weights.get(d.demand_id)!;
      let need = d.qty;
      for (const b of bs) {
        if (need <= 0) break;
        need = serveFrom(b, 0, d, w, need, true, params, out);
      }
      for (const b of bs) {
        if (need <= 0) break;
        need = serveFrom(b, firstAfter(b.arrival, d.due_week), d, w, need, false, params, out);
      }
    }
  }
  return summarise('greedy', supplies, demands, out, Date.now() - t0);
}
