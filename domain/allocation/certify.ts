/**
 * A proof that an allocation of one (item, site) group is optimal for the LP of model.ts, so the LP need not be solved
 * for it.
 *
 * The LP is a transportation problem: a min-cost flow with cost -v(s, d) on each arc, where source and sink are
 * merged into one node O because the amount shipped is free (every supply and line is a "<=" row). A feasible flow is
 * optimal exactly when its residual graph has no cycle of negative cost (the negative-cycle optimality condition of
 * min-cost flow; Ahuja, Magnanti & Orlin, Network Flows, Thm 9.1). The residual graph of an allocation x:
 *   s -> d  cost -v(s, d)   every arc of the model (its bound min(qty) is implied by the two rows)
 *   d -> s  cost +v(s, d)   when x(s, d) > 0
 *   O -> s  cost 0          when s has stock left;   s -> O cost 0 when s gives anything
 *   d -> O  cost 0          when d is still short;   O -> d cost 0 when d receives anything
 * Bellman-Ford from all nodes at distance 0 either settles (the distances are then dual prices that certify x) or
 * still relaxes after |V| passes (a negative cycle: x can be improved, and the LP decides).
 *
 * The greedy (greedy.ts) is optimal for most groups of a real plan (enough supply, or shortage only in weeks where
 * every line values the supply alike), and this check costs a fraction of building and solving the group's LP, which
 * is why solve.ts asks it first. Relaxations need an improvement above `tolerance`, so float noise in the quantities
 * cannot make a cycle; a cycle that is negative by less than |V| × tolerance is float noise too.
 */
import { type AllocationParams, type AllocationRow, type Group, arcValue, demandWeight } from './model';

/** Smallest cost improvement (objective units per unit) a relaxation must make. */
const COST_TOLERANCE = 1e-9;
/** A row or supply within this share of its quantity counts as full. */
const QTY_TOLERANCE = 1e-9;

export function isOptimalForGroup(group: Group, rows: readonly AllocationRow[], params: AllocationParams): boolean {
  const S = group.supplies.length;
  const D = group.demands.length;
  const origin = S + D;
  const supplyIndex = new Map<string, number>();
  group.supplies.forEach((s, i) => supplyIndex.set(s.supply_id, i));
  const demandIndex = new Map<string, number>();
  group.demands.forEach((d, j) => demandIndex.set(d.demand_id, j));

  const given = new Float64Array(S);
  const received = new Float64Array(D);
  const flow = new Map<number, number>();
  for (const r of rows) {
    const i = supplyIndex.get(r.supply_id);
    const j = demandIndex.get(r.demand_id);
    // A row outside the group cannot be judged here; the LP decides.
    if (i === undefined || j === undefined) return false;
    given[i]! += r.qty;
    received[j]! += r.qty;
    if (r.qty > 0) flow.set(i * D + j, (flow.get(i * D + j) ?? 0) + r.qty);
  }

  const from: number[] = [];
  const to: number[] = [];
  const cost: number[] = [];
  const edge = (a: number, b: number, c: number): void => {
    from.push(a);
    to.push(b);
    cost.push(c);
  };
  for (let j = 0; j < D; j++) {
    const d = group.demands[j]!;
    const w = demandWeight(d, params);
    for (let i = 0; i < S; i++) {
      const v = arcValue(group.supplies[i]!, d, w, params);
      if (v === null) {
        if (flow.has(i * D + j)) return false;
        continue;
      }
      edge(i, S + j, -v);
      if (flow.has(i * D + j)) edge(S + j, i, v);
    }
    if (received[j]! < d.qty * (1 - QTY_TOLERANCE)) edge(S + j, origin, 0);
    if (received[j]! > 0) edge(origin, S + j, 0);
  }
  for (let i = 0; i < S; i++) {
    const qty = group.supplies[i]!.qty;
    if (given[i]! < qty * (1 - QTY_TOLERANCE)) edge(origin, i, 0);
    if (given[i]! > 0) edge(i, origin, 0);
  }

  const nodes = S + D + 1;
  const dist = new Float64Array(nodes);
  const E = from.length;
  for (let pass = 0; pass < nodes; pass++) {
    let changed = false;
    for (let e = 0; e < E; e++) {
      const candidate = dist[from[e]!]! + cost[e]!;
      if (candidate < dist[to[e]!]! - COST_TOLERANCE) {
        dist[to[e]!] = candidate;
        changed = true;
      }
    }
    if (!changed) return true;
  }
  return false;
}
