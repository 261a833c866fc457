/**
 * Supersession chains (document 2 §4.4 rule 2; docs/SUPERSESSION.md "Chains and roles"): the cycle check every new or
 * changed edge passes (API and import alike), the chain around an item and the item's role in it. Items are nodes,
 * edges lead from the replaced item to its successor.
 */

export interface ChainEdge {
  from_item_id: number;
  to_item_id: number;
  site_id: number | null;
}

export interface ClosedChain {
  /** item ids from the new edge's from item, through its to item, back to the from item */
  items: number[];
  /** the site whose edges take part with the global ones; null when global edges alone close it */
  site_id: number | null;
}

const stateKey = (item: number, site: number | null) => `${item}:${site ?? ''}`;

/**
 * The edges by their from item, grown one edge at a time: the import checks each staged row against the edges kept
 * before it, the API checks one edge against all the others.
 */
export class SupersessionGraph {
  private readonly out = new Map<number, ChainEdge[]>();

  constructor(edges: Iterable<ChainEdge> = []) {
    for (const e of edges) this.add(e);
  }

  add(e: ChainEdge): void {
    const list = this.out.get(e.from_item_id);
    if (list) list.push(e);
    else this.out.set(e.from_item_id, [e]);
  }

  /**
   * The cycle `candidate` would close, or null. A chain is read at one site: the global edges act everywhere, a site's
   * edges only there, so a cycle is a path from the candidate's to item back to its from item over global edges and
   * the edges of at most one site (the candidate's own site when it has one). Breadth first, so the answer is the
   * shortest such chain; iterative, so a long chain cannot overflow the stack.
   */
  closingChain(candidate: ChainEdge): ClosedChain | null {
    const start = { item: candidate.to_item_id, site: candidate.site_id };
    const parent = new Map<string, { item: number; site: number | null } | null>([[stateKey(start.item, start.site), null]]);
    const queue = [start];
    for (let head = 0; head < queue.length; head += 1) {
      const at = queue[head];
      if (at.item === candidate.from_item_id) {
        const path: number[] = [];
        for (let s: { item: number; site: number | null } | null = at; s; s = parent.get(stateKey(s.item, s.site))!) path.push(s.item);
        return { items: [candidate.from_item_id, ...path.reverse()], site_id: at.site };
      }
      for (const e of this.out.get(at.item) ?? []) {
        // a global candidate may meet one site's edges; from then on the walk stays at that site
        const site = e.site_id === null ? at.site : at.site === null ? e.site_id : e.site_id === at.site ? at.site : undefined;
        if (site === undefined) continue;
        const key = stateKey(e.to_item_id, site);
        if (parent.has(key)) continue;
        parent.set(key, at);
        queue.push({ item: e.to_item_id, site });
      }
    }
    return null;
  }
}

/** How an item is named in messages: its code and id, "A (item 1)". */
export const itemLabel = (id: number, code: string | undefined) => `${code ?? '?'} (item ${id})`;
export const siteLabel = (id: number, code: string | undefined) => `${code ?? '?'} (site ${id})`;

/**
 * The refusal of an edge that closes a cycle, the same text for the API (after `body: `) and an import row:
 * "this edge would close a supersession cycle: A (item 1) → B (item 2) → A (item 1)".
 */
export function cycleMessage(chain: ClosedChain, itemCodes: ReadonlyMap<number, string>, siteCodes: ReadonlyMap<number, string>): string {
  const path = chain.items.map((id) => itemLabel(id, itemCodes.get(id))).join(' → ');
  const where = chain.site_id === null ? '' : ` (global edges with those of site ${siteLabel(chain.site_id, siteCodes.get(chain.site_id))})`;
  return `this edge would close a supersession cycle: ${path}${where}; an item cannot come back as its own successor`;
}

/**
 * Rule 2: `replaced` has outgoing and no incoming edges, `middle` both, `top` no outgoing edge. An item without any
 * edge is `top` as well (nothing replaces it, it keeps its own demand); ChainContext.in_chain tells the two apart.
 */
export type Role = 'replaced' | 'middle' | 'top';

export interface Reached {
  item_id: number;
  /** edges between the item and this one along the shortest way */
  depth: number;
}

export interface ChainContext<E> {
  item_id: number;
  role: Role;
  in_chain: boolean;
  /** predecessors, transitively: the items whose demand ends up on this item, nearest first */
  upstream: Reached[];
  /** successors, transitively: where this item's demand goes, nearest first */
  downstream: Reached[];
  /** every edge walked on the way, by id */
  edges: E[];
}

export function roleOf(edges: readonly ChainEdge[], itemId: number): Role {
  const outgoing = edges.some((e) => e.from_item_id === itemId);
  const incoming = edges.some((e) => e.to_item_id === itemId);
  return outgoing ? (incoming ? 'middle' : 'replaced') : 'top';
}

function walk<E extends ChainEdge>(edges: readonly E[], itemId: number, dir: 'up' | 'down', taken: Set<E>): Reached[] {
  const next = new Map<number, E[]>();
  for (const e of edges) {
    const k = dir === 'down' ? e.from_item_id : e.to_item_id;
    const list = next.get(k);
    if (list) list.push(e);
    else next.set(k, [e]);
  }
  const depth = new Map<number, number>([[itemId, 0]]);
  const queue = [itemId];
  for (let head = 0; head < queue.length; head += 1) {
    const at = queue[head];
    for (const e of next.get(at) ?? []) {
      taken.add(e);
      const other = dir === 'down' ? e.to_item_id : e.from_item_id;
      if (depth.has(other)) continue;
      depth.set(other, depth.get(at)! + 1);
      queue.push(other);
    }
  }
  depth.delete(itemId);
  return [...depth].map(([item_id, d]) => ({ item_id, depth: d })).sort((a, b) => a.depth - b.depth || a.item_id - b.item_id);
}

/**
 * The chain around one item: its predecessors and successors over any number of generations with their distance,
 * its role and the edges between them. Every edge given counts (pass only the edges of a site, or the active ones,
 * to read the chain there or then).
 */
export function chainContext<E extends ChainEdge & { id: number }>(edges: readonly E[], itemId: number): ChainContext<E> {
  const taken = new Set<E>();
  const upstream = walk(edges, itemId, 'up', taken);
  const downstream = walk(edges, itemId, 'down', taken);
  return {
    item_id: itemId,
    role: roleOf(edges, itemId),
    in_chain: taken.size > 0,
    upstream,
    downstream,
    edges: [...taken].sort((a, b) => a.id - b.id),
  };
}
