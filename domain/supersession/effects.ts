/**
 * What active supersession edges do to a supply plan (document 2 §4.4 rules 4 and 5; docs/SUPERSESSION.md): which
 * items are superseded (their sourcing routes blocked, their indirect demand dropped) and where their stock goes.
 */
import type { Edge } from './edges';

/** Rules 4 and 5 act on items replaced by an active global edge; a site-scoped edge blocks nothing. */
export function supersededItems(active: readonly Edge[]): Set<number> {
  return new Set(active.filter((e) => e.site_id === null).map((e) => e.from_item_id));
}

/** The items whose stock can reach `itemIds` through rollable edges: their predecessors, transitively. */
export function stockSources(active: readonly Edge[], itemIds: Iterable<number>): Set<number> {
  const into = new Map<number, number[]>();
  for (const e of active) if (e.stock_rollable) into.set(e.to_item_id, [...(into.get(e.to_item_id) ?? []), e.from_item_id]);
  const out = new Set<number>();
  const stack = [...itemIds];
  while (stack.length) {
    for (const p of into.get(stack.pop()!) ?? []) {
      if (!out.has(p)) {
        out.add(p);
        stack.push(p);
      }
    }
  }
  return out;
}

/**
 * Rule 4's stock roll: for every active edge with `stock_rollable`, the predecessor's on-hand at a site (every site
 * for a global edge, its own site for a site-scoped one) moves to the successor at the same site. The predecessor
 * keeps none of it, so stock is counted once. Edges are applied predecessors first, so a chain A → B → C carries A's
 * stock on to C. `onHand` is keyed `<item_id>_<site_id>`; the answer holds every key that changed.
 */
export function rollStock(active: readonly Edge[], onHand: ReadonlyMap<string, number>): Map<string, number> {
  const rollable = active.filter((e) => e.stock_rollable);
  const next = new Map(onHand);
  const changed = new Map<string, number>();
  const set = (key: string, v: number) => {
    next.set(key, v);
    changed.set(key, v);
  };
  for (const e of orderPredecessorsFirst(rollable)) {
    const prefix = `${e.from_item_id}_`;
    const keys = e.site_id === null ? [...next.keys()].filter((k) => k.startsWith(prefix)) : [`${e.from_item_id}_${e.site_id}`];
    for (const key of keys) {
      const qty = next.get(key) ?? 0;
      if (!(qty > 0)) continue;
      const site = key.slice(prefix.length);
      const to = `${e.to_item_id}_${site}`;
      set(to, (next.get(to) ?? 0) + qty);
      set(key, 0);
    }
  }
  return changed;
}

/** Edges ordered so that every edge into an item comes before the edges out of it (the graph has no cycle: the API and the import refuse one). */
function orderPredecessorsFirst(edges: readonly Edge[]): Edge[] {
  const indegree = new Map<number, number>();
  for (const e of edges) indegree.set(e.to_item_id, (indegree.get(e.to_item_id) ?? 0) + 1);
  const out: Edge[] = [];
  let left = [...edges].sort((a, b) => a.id - b.id);
  while (left.length) {
    const ready = left.filter((e) => !(indegree.get(e.from_item_id) ?? 0));
    if (!ready.length) return [...out, ...left];
    for (const e of ready) indegree.set(e.to_item_id, indegree.get(e.to_item_id)! - 1);
    out.push(...ready);
    left = left.filter((e) => !ready.includes(e));
  }
  return out;
}
