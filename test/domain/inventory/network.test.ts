import {
  buildRouteGraph,
  components,
  detectCycle,
  formatCycle,
  isUndirectedForest,
  isUndirectedTree,
  RouteEdge,
  spanningForest,
  supplyEdges,
  topologicalOrder,
} from '../../../domain/inventory/network';

const edge = (from: number, to: number, type = 'REPLENISHMENT'): RouteEdge => ({ from, to, lead_time: 1, type, priority: 1 });

describe('route network', () => {
  it('names the sites of a cycle in order for the 400 message', () => {
    const g = buildRouteGraph([edge(1, 3), edge(3, 5), edge(5, 3)]);
    expect(detectCycle(g)).toEqual([3, 5, 3]);
    expect(formatCycle(detectCycle(g)!)).toBe('route cycle: 3 → 5 → 3');
    expect(topologicalOrder(g)).toBeNull();
  });

  it('finds longer cycles and self-loops', () => {
    expect(detectCycle(buildRouteGraph([edge(1, 2), edge(2, 4), edge(4, 7), edge(7, 2)]))).toEqual([2, 4, 7, 2]);
    expect(detectCycle(buildRouteGraph([edge(9, 9)]))).toEqual([9, 9]);
  });

  it('ignores RETURN, REPAIR and BALANCING loops when only supply flow is checked', () => {
    const edges = [edge(1, 2), edge(1, 3), edge(2, 1, 'REPAIR'), edge(3, 1, 'RETURN'), edge(2, 3, 'BALANCING'), edge(3, 2, 'BALANCING')];
    expect(detectCycle(buildRouteGraph(edges))).not.toBeNull();
    expect(detectCycle(buildRouteGraph(supplyEdges(edges)))).toBeNull();
  });

  it('orders sites upstream first and lists neighbours', () => {
    const g = buildRouteGraph([edge(10, 20), edge(10, 30), edge(20, 40), edge(30, 40), edge(5, 10)], [99]);
    const order = topologicalOrder(g)!;
    expect(order).toEqual([5, 10, 20, 30, 40, 99]);
    for (const s of g.sites) for (const d of g.downstream.get(s)!) expect(order.indexOf(s)).toBeLessThan(order.indexOf(d));
    expect(g.upstream.get(40)).toEqual([20, 30]);
    expect(g.downstream.get(10)).toEqual([20, 30]);
    expect(components(g)).toEqual([[5, 10, 20, 30, 40], [99]]);
  });

  it('tells trees from DAGs with undirected cycles', () => {
    const tree = buildRouteGraph([edge(1, 2), edge(3, 2), edge(2, 4), edge(2, 5)]);
    expect(isUndirectedTree(tree)).toBe(true);
    const diamond = buildRouteGraph([edge(1, 2), edge(1, 3), edge(2, 4), edge(3, 4)]);
    expect(isUndirectedForest(diamond)).toBe(false);
    const forest = buildRouteGraph([edge(1, 2), edge(3, 4)]);
    expect(isUndirectedForest(forest)).toBe(true);
    expect(isUndirectedTree(forest)).toBe(false);
    // Parallel routes of two types are one adjacency, not a cycle.
    expect(isUndirectedTree(buildRouteGraph([edge(1, 2), edge(1, 2, 'TRANSFER')]))).toBe(true);
  });

  it('decomposes into a spanning forest plus the arcs that close cycles', () => {
    const arcs = [edge(1, 2), edge(1, 3), edge(2, 4), edge(3, 4), edge(4, 5)];
    const f = spanningForest(arcs);
    expect(f.treeArcs).toHaveLength(4);
    expect(f.droppedArcs).toEqual([{ from: 3, to: 4 }]);
    expect(isUndirectedTree(buildRouteGraph(f.treeArcs))).toBe(true);
  });

  it('handles a 100,000-site chain without recursion limits', () => {
    const edges = Array.from({ length: 99_999 }, (_, i) => edge(i, i + 1));
    const g = buildRouteGraph(edges);
    expect(detectCycle(g)).toBeNull();
    expect(topologicalOrder(g)![0]).toBe(0);
    edges.push(edge(99_999, 50_000));
    expect(detectCycle(buildRouteGraph(edges))).toHaveLength(50_001);
  });
});
