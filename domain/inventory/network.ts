// Route graphs: sites are nodes, routes are arcs from the supplying site to the receiving site.

export type RouteType = 'REPLENISHMENT' | 'RETURN' | 'REPAIR' | 'BUY' | 'BUILD' | 'TRANSFER' | 'BALANCING';

export interface RouteEdge {
  from: number;
  to: number;
  lead_time: number;
  type: RouteType | string;
  priority: number;
}

// RETURN and REPAIR carry items back up the chain and BALANCING moves stock sideways, so they close loops by design
// (METRIC works on exactly those loops); acyclicity is a property of the forward supply flow only.
export const SUPPLY_ROUTE_TYPES: readonly string[] = ['REPLENISHMENT', 'BUY', 'BUILD', 'TRANSFER'];

export function supplyEdges<E extends RouteEdge>(edges: readonly E[]): E[] {
  return edges.filter((e) => SUPPLY_ROUTE_TYPES.includes(e.type));
}

export interface RouteGraph {
  sites: number[];
  upstream: Map<number, number[]>;
  downstream: Map<number, number[]>;
}

export function buildRouteGraph(edges: readonly Pick<RouteEdge, 'from' | 'to'>[], extraSites: readonly number[] = []): RouteGraph {
  const upstream = new Map<number, number[]>();
  const downstream = new Map<number, number[]>();
  const touch = (site: number) => {
    if (!upstream.has(site)) {
      upstream.set(site, []);
      downstream.set(site, []);
    }
  };
  for (const s of extraSites) touch(s);
  for (const e of edges) {
    touch(e.from);
    touch(e.to);
    // Parallel routes of different types between the same pair are one adjacency for graph questions.
    const down = downstream.get(e.from)!;
    if (!down.includes(e.to)) down.push(e.to);
    const up = upstream.get(e.to)!;
    if (!up.includes(e.from)) up.push(e.from);
  }
  const sites = [...upstream.keys()].sort((a, b) => a - b);
  for (const s of sites) {
    upstream.get(s)!.sort((a, b) => a - b);
    downstream.get(s)!.sort((a, b) => a - b);
  }
  return { sites, upstream, downstream };
}

/**
 * The first directed cycle found, as the sites along it with the first repeated at the end (3, 5, 3), or null.
 * Iterative DFS so deep chains cannot overflow the stack; sites visited in ascending id order so the answer is stable.
 */
export function detectCycle(graph: RouteGraph): number[] | null {
  const WHITE = 0, GREY = 1, BLACK = 2;
  const colour = new Map<number, number>();
  for (const s of graph.sites) colour.set(s, WHITE);
  for (const start of graph.sites) {
    if (colour.get(start) !== WHITE) continue;
    const path: number[] = [start];
    const nextChild: number[] = [0];
    colour.set(start, GREY);
    while (path.length > 0) {
      const site = path[path.length - 1];
      const children = graph.downstream.get(site)!;
      const i = nextChild[nextChild.length - 1]++;
      if (i >= children.length) {
        colour.set(site, BLACK);
        path.pop();
        nextChild.pop();
        continue;
      }
      const child = children[i];
      const c = colour.get(child);
      if (c === GREY) return [...path.slice(path.indexOf(child)), child];
      if (c === WHITE) {
        colour.set(child, GREY);
        path.push(child);
        nextChild.push(0);
      }
    }
  }
  return null;
}

export function formatCycle(cycle: readonly number[]): string {
  return `route cycle: ${cycle.join(' → ')}`;
}

/** Upstream sites before downstream ones (Kahn, smallest ready id first); null when the graph has a cycle. */
export function topologicalOrder(graph: RouteGraph): number[] | null {
  const indegree = new Map<number, number>();
  for (const s of graph.sites) indegree.set(s, graph.upstream.get(s)!.length);
  const ready = new MinHeap();
  for (const s of graph.sites) if (indegree.get(s) === 0) ready.push(s);
  const order: number[] = [];
  while (ready.size > 0) {
    const s = ready.pop();
    order.push(s);
    for (const d of graph.downstream.get(s)!) {
      const left = indegree.get(d)! - 1;
      indegree.set(d, left);
      if (left === 0) ready.push(d);
    }
  }
  return order.length === graph.sites.length ? order : null;
}

/** Connected components of the undirected graph, each sorted, ordered by smallest site. */
export function components(graph: RouteGraph): number[][] {
  const seen = new Set<number>();
  const out: number[][] = [];
  for (const s of graph.sites) {
    if (seen.has(s)) continue;
    const comp: number[] = [];
    const stack = [s];
    seen.add(s);
    while (stack.length) {
      const x = stack.pop()!;
      comp.push(x);
      for (const y of [...graph.upstream.get(x)!, ...graph.downstream.get(x)!]) {
        if (!seen.has(y)) {
          seen.add(y);
          stack.push(y);
        }
      }
    }
    out.push(comp.sort((a, b) => a - b));
  }
  return out;
}

/**
 * Whether the underlying undirected graph is a forest (a tree per component). The Graves-Willems DP is exact
 * exactly then; assembly and distribution may mix freely.
 */
export function isUndirectedForest(graph: RouteGraph): boolean {
  let arcs = 0;
  for (const s of graph.sites) arcs += graph.downstream.get(s)!.length;
  if (hasAntiparallelPair(graph)) return false;
  return arcs === graph.sites.length - components(graph).length;
}

export function isUndirectedTree(graph: RouteGraph): boolean {
  return components(graph).length <= 1 && isUndirectedForest(graph);
}

function hasAntiparallelPair(graph: RouteGraph): boolean {
  for (const s of graph.sites) for (const d of graph.downstream.get(s)!) if (graph.downstream.get(d)!.includes(s)) return true;
  return false;
}

export interface SpanningForest {
  treeArcs: { from: number; to: number }[];
  /** Arcs left out; each closes one undirected cycle. */
  droppedArcs: { from: number; to: number }[];
}

/**
 * A spanning forest of the undirected graph. Arcs are offered in the caller's order (e.g. most important first)
 * and kept when they join two different components (Kruskal with union-find).
 */
export function spanningForest(arcs: readonly { from: number; to: number }[]): SpanningForest {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    let y = x;
    while (y !== r) {
      const next = parent.get(y)!;
      parent.set(y, r);
      y = next;
    }
    return r;
  };
  for (const a of arcs) {
    if (!parent.has(a.from)) parent.set(a.from, a.from);
    if (!parent.has(a.to)) parent.set(a.to, a.to);
  }
  const treeArcs: { from: number; to: number }[] = [];
  const droppedArcs: { from: number; to: number }[] = [];
  for (const a of arcs) {
    const ra = find(a.from), rb = find(a.to);
    if (ra === rb) droppedArcs.push({ from: a.from, to: a.to });
    else {
      parent.set(ra, rb);
      treeArcs.push({ from: a.from, to: a.to });
    }
  }
  return { treeArcs, droppedArcs };
}

class MinHeap {
  private a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  push(x: number): void {
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p] <= x) break;
      a[i] = a[p];
      i = p;
    }
    a[i] = x;
  }
  pop(): number {
    const a = this.a;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const c = l + 1 < a.length && a[l + 1] < a[l] ? l + 1 : l;
        if (a[c] >= last) break;
        a[i] = a[c];
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

export interface ItemRoute {
  item_id: number | null;
  from: number;
  to: number;
  type: string;
}

/**
 * The first supply cycle in any item's network, where an item's network is its own routes plus the routes for every
 * item (item_id null): null when every network is acyclic. `item` is null when the routes for every item close it.
 */
export function findSupplyCycle(routes: readonly ItemRoute[]): { item: number | null; cycle: number[] } | null {
  const supply = routes.filter((r) => SUPPLY_ROUTE_TYPES.includes(r.type));
  const items = [null, ...new Set(supply.filter((r) => r.item_id !== null).map((r) => r.item_id as number))].sort((a, b) => (a ?? 0) - (b ?? 0));
  for (const item of items) {
    const cycle = detectCycle(buildRouteGraph(supply.filter((r) => r.item_id === null || r.item_id === item)));
    if (cycle) return { item, cycle };
  }
  return null;
}
