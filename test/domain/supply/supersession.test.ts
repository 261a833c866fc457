import { rollStock, stockSources, supersededItems } from '../../../domain/supersession/effects';
import type { Edge } from '../../../domain/supersession/edges';
import { planSupply } from '../../../domain/supply/engine';
import type { SupplyItemInput } from '../../../domain/supply/types';

const edge = (id: number, from: number, to: number, o: Partial<Edge> = {}): Edge => ({
  id, from_item_id: from, to_item_id: to, site_id: null, effective_date: null, demand_factor: 1, stock_rollable: true, notes: null, ...o,
});

describe('document 2 §4.4 rule 4: stock rolls to the successor', () => {
  test('a chain A → B → C carries A\'s and B\'s stock on to C at each site; the predecessors keep none', () => {
    const stock = new Map([['1_10', 5], ['1_20', 7], ['2_10', 3], ['3_10', 1]]);
    // edges listed successor-first on purpose: the order of application must not depend on it
    const rolled = rollStock([edge(2, 2, 3), edge(1, 1, 2)], stock);
    expect(Object.fromEntries([...rolled].sort())).toEqual({ '1_10': 0, '1_20': 0, '2_10': 0, '2_20': 0, '3_10': 9, '3_20': 7 });
  });

  test('a site-scoped edge moves that site\'s stock only; a non-rollable edge moves none', () => {
    const stock = new Map([['1_10', 5], ['1_20', 7]]);
    expect(Object.fromEntries(rollStock([edge(1, 1, 2, { site_id: 20 })], stock))).toEqual({ '1_20': 0, '2_20': 7 });
    expect(rollStock([edge(1, 1, 2, { stock_rollable: false })], stock).size).toBe(0);
  });

  test('the sources of an item\'s stock are its rollable predecessors, transitively', () => {
    const edges = [edge(1, 1, 2), edge(2, 2, 3), edge(3, 4, 3, { stock_rollable: false }), edge(4, 5, 6)];
    expect([...stockSources(edges, [3])].sort()).toEqual([1, 2]);
  });

  test('a split: at each site all of the predecessor\'s stock goes to its lowest-id rollable edge acting there; the others get none', () => {
    const stock = new Map([['1_10', 5], ['1_20', 7], ['2_10', 1], ['3_10', 2]]);
    // 1 → 3 has the lower id: it takes every site's stock, whatever the order the edges come in
    for (const edges of [[edge(4, 1, 2), edge(3, 1, 3)], [edge(3, 1, 3), edge(4, 1, 2)]]) {
      expect(Object.fromEntries([...rollStock(edges, stock)].sort())).toEqual({ '1_10': 0, '1_20': 0, '3_10': 7, '3_20': 7 });
    }
    // a site-scoped edge with the lower id takes its own site's stock; the global edge the rest
    expect(Object.fromEntries([...rollStock([edge(4, 1, 2), edge(3, 1, 3, { site_id: 20 })], stock)].sort())).toEqual({ '1_10': 0, '1_20': 0, '2_10': 6, '3_20': 7 });
    // with the higher id it finds its site already emptied by the global edge
    expect(Object.fromEntries([...rollStock([edge(2, 1, 2), edge(3, 1, 3, { site_id: 20 })], stock)].sort())).toEqual({ '1_10': 0, '1_20': 0, '2_10': 6, '2_20': 7 });
    // stock_rollable false on the lower-id edge sends the stock down the other one
    expect(Object.fromEntries([...rollStock([edge(4, 1, 2), edge(3, 1, 3, { stock_rollable: false })], stock)].sort())).toEqual({ '1_10': 0, '1_20': 0, '2_10': 6, '2_20': 7 });
    // the total is kept: nothing is counted twice
    const total = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((x, y) => x + y, 0);
    expect(total(new Map([...stock, ...rollStock([edge(4, 1, 2), edge(3, 1, 3)], stock)]))).toBe(total(stock));
  });

  test('rules 4 and 5 act on items replaced by a global edge only', () => {
    expect([...supersededItems([edge(1, 1, 2), edge(2, 3, 4, { site_id: 10 })])]).toEqual([1]);
  });
});

describe('a superseded item in the engine', () => {
  const item = (superseded: boolean): SupplyItemInput => ({
    item_id: 1, superseded,
    sites: [
      { site_id: 10, forecast: new Float64Array(52), on_hand: 0, safety_stock: 0, lot: { eoq: null, moq: 0, multiple: 1 }, unit_cost: 1 },
      { site_id: 20, forecast: new Float64Array(52).fill(4), on_hand: 0, safety_stock: 0, lot: { eoq: null, moq: 0, multiple: 1 }, unit_cost: 1 },
    ],
    routes: [
      { route_id: 1, from_site_id: 99, to_site_id: 10, route_type: 'BUY', lead_time: 1, priority: 1 },
      { route_id: 2, from_site_id: 10, to_site_id: 20, route_type: 'TRANSFER', lead_time: 1, priority: 1 },
      { route_id: 3, from_site_id: 98, to_site_id: 20, route_type: 'REPLENISHMENT', lead_time: 0, priority: 1 },
    ],
    // a firm transfer not yet shipped: indirect demand at site 10 unless rule 5 drops it
    firm_orders: [{ id: 7, site_id: 20, source_site_id: 10, order_type: 'TRANSFER', qty: 6, erp_status: 'firm', release_dt: '2026-06-08T00:00:00Z', arrival_dt: '2026-06-15T00:00:00Z' }],
  });
  const plan = (superseded: boolean) => planSupply({ planning_date: '2026-06-01', flags: { firm_orders_block_horizon: false, respect_lead_time: false }, items: [item(superseded)] });

  test('its BUY, BUILD, TRANSFER and BALANCING routes are not used (REPLENISHMENT still is) and no indirect demand is drawn (rules 4, 5)', () => {
    const normal = plan(false);
    expect(new Set(normal.orders.map((o) => o.order_type))).toEqual(new Set(['TRANSFER', 'BUY']));
    expect(normal.indirect.length).toBeGreaterThan(0);

    const r = plan(true);
    expect(r.checks.ok).toBe(true);
    expect(new Set(r.orders.map((o) => o.order_type))).toEqual(new Set(['REPLENISH']));
    expect(r.indirect).toEqual([]);
    expect(r.plans.find((p) => p.site_id === 10)!.indirect.every((v) => v === 0)).toBe(true);
    expect(r.diagnostics).toEqual([{ item_id: 1, message: 'superseded on an active global edge: routes 1, 2 (BUY, BUILD, TRANSFER, BALANCING) blocked' }]);
  });
});
