import { chainContext, cycleMessage, roleOf, SupersessionGraph, type ChainEdge } from '../../domain/supersession/chains';
import { API_FIELDS, edgeProblem, IMPORT_FIELDS, isActiveOn } from '../../domain/supersession/edges';

const e = (from: number, to: number, site: number | null = null): ChainEdge => ({ from_item_id: from, to_item_id: to, site_id: site });

describe('closingChain', () => {
  test('a path back over global edges closes a cycle; the shortest one is named', () => {
    const g = new SupersessionGraph([e(1, 2), e(2, 3), e(3, 4), e(2, 4)]);
    expect(g.closingChain(e(4, 1))).toEqual({ items: [4, 1, 2, 4], site_id: null });
    expect(g.closingChain(e(1, 4))).toBeNull();
    expect(g.closingChain(e(5, 5))).toEqual({ items: [5, 5], site_id: null });
  });

  test('site edges count at their own site only; a global candidate meets one site at a time', () => {
    const g = new SupersessionGraph([e(1, 2, 10), e(2, 3, 20)]);
    // 3 → 1 would need the edges of sites 10 and 20 together: no site sees both
    expect(g.closingChain(e(3, 1))).toBeNull();
    expect(g.closingChain(e(2, 1))).toEqual({ items: [2, 1, 2], site_id: 10 });
    expect(g.closingChain(e(2, 1, 10))).toEqual({ items: [2, 1, 2], site_id: 10 });
    expect(g.closingChain(e(2, 1, 20))).toBeNull();
    g.add(e(3, 1));
    expect(g.closingChain(e(1, 2, 30))).toBeNull();
    expect(g.closingChain(e(1, 2, 20))).toEqual({ items: [1, 2, 3, 1], site_id: 20 });
  });

  test('a chain of 100,000 generations is walked without overflowing the stack', () => {
    const g = new SupersessionGraph(Array.from({ length: 100_000 }, (_, i) => e(i + 1, i + 2)));
    expect(g.closingChain(e(100_001, 1))!.items).toHaveLength(100_002);
  });

  test('the message names every item of the chain by code and id, and the site', () => {
    const codes = new Map([[1, 'A'], [2, 'B']]);
    expect(cycleMessage({ items: [1, 2, 1], site_id: null }, codes, new Map())).toBe(
      'this edge would close a supersession cycle: A (item 1) → B (item 2) → A (item 1); an item cannot come back as its own successor');
    expect(cycleMessage({ items: [2, 1, 2], site_id: 7 }, codes, new Map([[7, 'DC']]))).toBe(
      'this edge would close a supersession cycle: B (item 2) → A (item 1) → B (item 2) (global edges with those of site DC (site 7)); an item cannot come back as its own successor');
  });
});

describe('roles and chain context', () => {
  const edges = [e(1, 2), e(2, 3), e(4, 5), e(4, 6), e(7, 5)].map((x, i) => ({ ...x, id: i + 1 }));

  test('rule 2, and an item without edges is top', () => {
    expect([1, 2, 3, 4, 5, 8].map((i) => roleOf(edges, i))).toEqual(['replaced', 'middle', 'top', 'replaced', 'top', 'top']);
  });

  test('upstream and downstream over every generation, nearest first, with the edges walked', () => {
    expect(chainContext(edges, 3)).toEqual({
      item_id: 3, role: 'top', in_chain: true, upstream: [{ item_id: 2, depth: 1 }, { item_id: 1, depth: 2 }], downstream: [], edges: [edges[0], edges[1]],
    });
    expect(chainContext(edges, 5)).toMatchObject({ upstream: [{ item_id: 4, depth: 1 }, { item_id: 7, depth: 1 }], edges: [edges[2], edges[4]] });
    expect(chainContext(edges, 8)).toEqual({ item_id: 8, role: 'top', in_chain: false, upstream: [], downstream: [], edges: [] });
  });
});

describe('edge rules shared by the API and the import', () => {
  test('the same item at both ends and a demand factor not above 0, in each caller\'s names', () => {
    expect(edgeProblem({ from: 3, to: 3, demand_factor: 1 }, API_FIELDS)).toEqual({ field: 'to_item_id', message: 'from_item_id and to_item_id are the same item' });
    expect(edgeProblem({ from: '3', to: '3', demand_factor: 1 }, IMPORT_FIELDS)).toEqual({ field: 'to_item_xuid', message: 'from_item_xuid and to_item_xuid are the same item' });
    expect(edgeProblem({ from: 3, to: 4, demand_factor: 0 }, API_FIELDS)).toEqual({ field: 'demand_factor', message: 'demand_factor must be greater than 0 (got 0)' });
    expect(edgeProblem({ from: 3, to: 4, demand_factor: Number.NaN }, API_FIELDS)?.field).toBe('demand_factor');
    expect(edgeProblem({ from: 3, to: 4, demand_factor: 0.5 }, API_FIELDS)).toBeNull();
  });

  test('rule 1: active without a date or from the date on', () => {
    expect([null, '2026-01-04', '2026-01-05', '2026-01-06'].map((d) => isActiveOn({ effective_date: d }, '2026-01-05'))).toEqual([true, true, true, false]);
  });
});
