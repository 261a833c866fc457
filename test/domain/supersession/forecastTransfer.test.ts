import { planForecastTransfer, transferBatches, transferForecasts, type ForecastBand, type StoredBand, type TransferEdge } from '../../../domain/supersession/forecastTransfer';

const W0 = '2026-01-05';
const band = (item_id: number, site_id: number, yhat: number[], method = 'ses', start_week = W0): ForecastBand => ({
  item_id, site_id, method, start_week, yhat, yhat_lower: yhat.map((v) => v / 2), yhat_upper: yhat.map((v) => v * 2),
});
const edge = (id: number, from_item_id: number, to_item_id: number, more: Partial<TransferEdge> = {}): TransferEdge => ({
  id, from_item_id, to_item_id, site_id: null, effective_date: null, demand_factor: 1, ...more,
});
const find = <T extends ForecastBand>(rows: T[], item: number, site = 1, method = 'ses') => rows.find((r) => r.item_id === item && r.site_id === site && r.method === method);
const sum = (rows: ForecastBand[], k: 'yhat' | 'yhat_lower' | 'yhat_upper' = 'yhat') => rows.reduce((s, r) => s + r[k].reduce((a, b) => a + b, 0), 0);

describe('transferForecasts (document 2 §4.4 rule 3)', () => {
  test('a 3-generation chain A → B → C moves A and B onto C, predecessors first, whatever the edge order', () => {
    const rows = [band(1, 1, [10, 20, 30]), band(2, 1, [1, 2, 3]), band(3, 1, [100, 100, 100])];
    // the edge B → C has the lower id: A's demand must still reach C
    const out = transferForecasts(rows, [edge(7, 2, 3), edge(9, 1, 2)]);
    expect(find(out, 1)!.yhat).toEqual([0, 0, 0]);
    expect(find(out, 2)!.yhat).toEqual([0, 0, 0]);
    expect(find(out, 3)!.yhat).toEqual([111, 122, 133]);
    expect(find(out, 3)!.yhat_upper).toEqual([222, 244, 266]);
    expect(find(out, 2)!.applied).toEqual([
      { edge_id: 7, role: 'from', from_week: W0, to_week: '2026-01-19' },
      { edge_id: 9, role: 'to', from_week: W0, to_week: '2026-01-19' },
    ]);
    // the input is not changed
    expect(rows[0].yhat).toEqual([10, 20, 30]);
  });

  test('the sum over a chain is preserved when demand_factor is 1, bounds included', () => {
    const rows = [band(1, 1, [3.5, 0, 7]), band(2, 1, [1, 1, 1]), band(3, 1, [2, 4, 8]), band(4, 1, [5, 5, 5])];
    const out = transferForecasts(rows, [edge(1, 1, 2), edge(2, 2, 3), edge(3, 3, 4)]);
    for (const k of ['yhat', 'yhat_lower', 'yhat_upper'] as const) expect(sum(out, k)).toBeCloseTo(sum(rows, k), 12);
    expect(find(out, 4)!.yhat).toEqual([11.5, 10, 21]);
  });

  test('a future edge zeroes the predecessor only from the week of its effective date', () => {
    // effective on a Wednesday: the week of Monday 2026-01-12 moves whole
    const out = transferForecasts([band(1, 1, [4, 4, 4, 4]), band(2, 1, [1, 1, 1, 1])], [edge(5, 1, 2, { effective_date: '2026-01-14' })]);
    expect(find(out, 1)!.yhat).toEqual([4, 0, 0, 0]);
    expect(find(out, 2)!.yhat).toEqual([1, 5, 5, 5]);
    expect(find(out, 1)!.applied).toEqual([{ edge_id: 5, role: 'from', from_week: '2026-01-12', to_week: '2026-01-26' }]);
    // an edge effective after the horizon does nothing
    const later = transferForecasts([band(1, 1, [4]), band(2, 1, [1])], [edge(5, 1, 2, { effective_date: '2027-01-01' })]);
    expect(later.map((r) => [r.yhat, r.applied])).toEqual([[[4], []], [[1], []]]);
  });

  test('a site-scoped edge acts only at its site; a global one at every site', () => {
    const rows = [band(1, 1, [2]), band(1, 2, [3]), band(2, 1, [10]), band(2, 2, [10])];
    const scoped = transferForecasts(rows, [edge(1, 1, 2, { site_id: 2 })]);
    expect(scoped.map((r) => [r.item_id, r.site_id, r.yhat[0]])).toEqual([[1, 1, 2], [1, 2, 0], [2, 1, 10], [2, 2, 13]]);
    const global = transferForecasts(rows, [edge(1, 1, 2)]);
    expect(global.map((r) => [r.item_id, r.site_id, r.yhat[0]])).toEqual([[1, 1, 0], [1, 2, 0], [2, 1, 12], [2, 2, 13]]);
  });

  test('demand_factor 0.5 halves what arrives; a successor without a row gets one per method, copying the other fields', () => {
    const rows = [{ ...band(1, 1, [8, 6]), level: 0.9 }, { ...band(1, 1, [4, 2], 'naive'), level: 0.9 }, { ...band(2, 1, [1, 1]), level: 0.9 }];
    const out = transferForecasts(rows, [edge(3, 1, 2, { demand_factor: 0.5 })]);
    expect(find(out, 2)!.yhat).toEqual([5, 4]);
    expect(find(out, 2)!.yhat_lower).toEqual([2.5, 2]);
    const created = find(out, 2, 1, 'naive')!;
    expect(created).toMatchObject({ item_id: 2, site_id: 1, method: 'naive', start_week: W0, yhat: [2, 1], yhat_lower: [1, 0.5], yhat_upper: [4, 2], level: 0.9, created: true });
    expect(find(out, 1, 1, 'naive')!.yhat).toEqual([0, 0]);
  });

  test('rows starting on different weeks are aligned by week; a split gives each successor its factor', () => {
    const out = transferForecasts([band(1, 1, [1, 2, 3], 'ses', '2026-01-12'), band(2, 1, [0, 0, 0]), band(3, 1, [0])], [edge(1, 1, 2), edge(2, 1, 3, { demand_factor: 2 })]);
    expect(find(out, 2)!.yhat).toEqual([0, 1, 2]);
    expect(find(out, 3)!.yhat).toEqual([0]);
    expect(find(out, 1)!.yhat).toEqual([0, 0, 0]);
  });
});

describe('planForecastTransfer: idempotent on stored rows', () => {
  const stored = (b: ForecastBand, params: Record<string, unknown> = { method_source: 'recommended' }): StoredBand & { level: number } => ({ ...b, params, level: 0.9 });
  const apply = <T extends StoredBand>(rows: T[], plan: { write: T[]; remove: Array<{ item_id: number; site_id: number; method: string }> }) => {
    const key = (r: { item_id: number; site_id: number; method: string }) => `${r.item_id}_${r.site_id}_${r.method}`;
    const m = new Map(rows.map((r) => [key(r), r]));
    for (const w of plan.write) m.set(key(w), JSON.parse(JSON.stringify(w)));
    for (const r of plan.remove) m.delete(key(r));
    return [...m.values()];
  };

  test('a second run writes nothing; a partial re-forecast of the predecessor does not move it twice', () => {
    const rows = [stored(band(1, 1, [10, 10])), stored(band(2, 1, [1, 2]))];
    const edges = [edge(4, 1, 2)];
    const first = planForecastTransfer(rows, edges);
    expect(first.movedSeries).toBe(1);
    const after = apply(rows, first);
    expect(after.map((r) => r.yhat)).toEqual([[0, 0], [11, 12]]);
    expect(after[0].params).toMatchObject({ method_source: 'recommended', supersession: { created: false, own: { yhat: [10, 10] }, edges: [{ edge_id: 4, role: 'from' }] } });
    expect(planForecastTransfer(after, edges).write).toEqual([]);
    // the forecast step re-forecasts A only (its row loses the mark): B is rebuilt from its own forecast
    const rerun = apply(after, { write: [stored(band(1, 1, [20, 20]))], remove: [] });
    expect(apply(rerun, planForecastTransfer(rerun, edges)).map((r) => r.yhat)).toEqual([[0, 0], [21, 22]]);
  });

  test('a created successor row is removed, and the predecessor restored, when the edge goes', () => {
    const rows = [stored(band(1, 1, [3, 4]))];
    const after = apply(rows, planForecastTransfer(rows, [edge(4, 1, 2, { demand_factor: 0.5 })]));
    expect(after.map((r) => [r.item_id, r.yhat, (r.params.supersession as any).created])).toEqual([[1, [0, 0], false], [2, [1.5, 2], true]]);
    const plan = planForecastTransfer(after, []);
    expect(plan.remove).toEqual([{ item_id: 2, site_id: 1, method: 'ses' }]);
    expect(apply(after, plan)).toEqual([stored(band(1, 1, [3, 4]))]);
  });
});

describe('transferBatches: the items planned together', () => {
  test('components stay whole, are packed in order of their smallest item, and a large one is a batch of its own', () => {
    // components {1,2,3} (a chain), {4,9} (a split's two sides share item 4), {5}, {6,7,8,10} (chain 10 → 6 → 7, 8 → 7)
    const edges = [edge(1, 1, 2), edge(2, 2, 3), edge(3, 4, 9), edge(4, 10, 6), edge(5, 6, 7), edge(6, 8, 7)];
    const batches = transferBatches(edges, [5, 9], 3);
    expect(batches.map((b) => b.items)).toEqual([[1, 2, 3], [4, 9, 5], [6, 7, 8, 10]]);
    expect(batches.map((b) => b.edges.map((e) => e.id))).toEqual([[1, 2], [3], [4, 5, 6]]);
    expect(transferBatches(edges, [], 100).map((b) => b.items)).toEqual([[1, 2, 3, 4, 9, 6, 7, 8, 10]]);
    expect(transferBatches([], [], 5)).toEqual([]);
    expect(transferBatches([], [7, 3, 7], 1).map((b) => b.items)).toEqual([[3], [7]]);
  });

  test('planning batch by batch writes and removes exactly what one plan over every row does', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let round = 0; round < 20; round++) {
      const items = 12;
      const edges: TransferEdge[] = [];
      for (let id = 1; id <= 7; id++) {
        const from = 1 + Math.floor(rnd() * items);
        const to = 1 + Math.floor(rnd() * items);
        // forward only, so no cycle: the edge import refuses cycles before a transfer ever sees them
        if (from < to) edges.push(edge(id, from, to, { demand_factor: rnd() < 0.3 ? 0.5 : 1, site_id: rnd() < 0.3 ? 2 : null }));
      }
      const rows: Array<StoredBand & { level: number }> = [];
      for (let i = 1; i <= items; i++) {
        for (const site of [1, 2]) {
          if (rnd() < 0.8) rows.push({ ...band(i, site, [1, 2, 3].map(() => Math.round(rnd() * 50))), params: {}, level: 0.9 });
        }
      }
      const whole = planForecastTransfer(rows, edges);
      const batched = transferBatches(edges, [], 2).map((b) => planForecastTransfer(rows.filter((r) => b.items.includes(r.item_id)), b.edges));
      const key = (r: { item_id: number; site_id: number; method: string }) => `${r.item_id}_${r.site_id}_${r.method}`;
      const byKey = <T extends { item_id: number; site_id: number; method: string }>(xs: T[]) => [...xs].sort((a, b) => key(a).localeCompare(key(b)));
      expect(byKey(batched.flatMap((p) => p.write))).toEqual(byKey(whole.write));
      expect(byKey(batched.flatMap((p) => p.remove))).toEqual(byKey(whole.remove));
      expect(batched.reduce((n, p) => n + p.movedSeries, 0)).toBe(whole.movedSeries);
    }
  });
});
