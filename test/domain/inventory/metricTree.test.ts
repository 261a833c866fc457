import { evaluateMetric, type MetricMethod, type MetricSystem } from '../../../domain/inventory/metric';
import { backorderTables, evaluateMetricTree, metricTreeCurve, type MetricTree } from '../../../domain/inventory/metricTree';

const poisson = (mu: number, x: number) => {
  let p = Math.exp(-mu);
  for (let k = 1; k <= x; k++) p *= mu / k;
  return p;
};
/** E[(X − s)⁺] for Poisson(μ) written out: μ − s + Σ_{x<s} (s − x)·p(x). */
const poissonEbo = (mu: number, s: number) => {
  let acc = mu - s;
  for (let x = 0; x < s; x++) acc += (s - x) * poisson(mu, x);
  return acc;
};

/** The textbook system as a tree: node 0 the depot, node j the base j − 1; each base's failures are two streams. */
function asTree(system: MetricSystem, unitCost = 1): MetricTree {
  return {
    nodes: [{ parent: null, unitCost, transitTime: 0 }, ...system.bases.map((b) => ({ parent: 0, unitCost, transitTime: b.orderShipTime }))],
    streams: system.bases.flatMap((b, j) => [
      { origin: j + 1, landing: j + 1, rate: b.demandRate * b.repairProbability, time: b.repairTime },
      { origin: j + 1, landing: 0, rate: b.demandRate * (1 - b.repairProbability), time: system.depotRepairTime },
    ]),
  };
}

// The two-outlet instance of LINDO's METRIC.lng: 0.1 failures a day at each base, 2 days to ship from the depot, 14
// days of depot repair, everything repaired at the depot.
const lindo: MetricSystem = {
  depotRepairTime: 14,
  depotSpares: 1,
  bases: [
    { demandRate: 0.1, repairProbability: 0, repairTime: 0, orderShipTime: 2, spares: 1 },
    { demandRate: 0.1, repairProbability: 0, repairTime: 0, orderShipTime: 2, spares: 1 },
  ],
};

describe('METRIC on a tree: the textbook numbers', () => {
  it('METRIC, by hand: Palm gives the depot Poisson(0.2 × 14), Little the delay, and each base Poisson(0.1 × (2 + delay))', () => {
    const ev = evaluateMetricTree(asTree(lindo), [1, 1, 1], 'metric');
    // EBO_0(1) = μ0 − 1 + e^{−μ0} with μ0 = 2.8: 1.860810062625218 (mpmath, 30 digits)
    expect(ev.nodes[0].pipeline).toEqual({ mean: 0.2 * 14, variance: 0.2 * 14 });
    expect(ev.nodes[0].ebo).toBeCloseTo(1.8 + Math.exp(-2.8), 14);
    expect(ev.nodes[0].ebo).toBeCloseTo(1.860810062625218, 13);
    expect(ev.nodes[0].delay).toBeCloseTo(9.30405031312609, 12);
    // base pipeline 0.1 × (2 + 9.304) = 1.130405031312609; EBO(1) = μ − 1 + e^{−μ} = 0.45330747564428153
    for (const b of ev.nodes.slice(1)) {
      expect(b.pipeline.mean).toBeCloseTo(1.130405031312609, 13);
      expect(b.ebo).toBeCloseTo(0.45330747564428153, 13);
      expect(b.fillRate).toBeCloseTo(Math.exp(-1.130405031312609), 14);
      expect(b.customerEbo).toBe(b.ebo);
    }
    expect(ev.totalEbo).toBeCloseTo(2 * 0.45330747564428153, 13);
    // the depot's own backorders belong to the bases, not to customers
    expect(ev.nodes[0].customerEbo).toBe(0);
    expect(ev.fillRate).toBeCloseTo(Math.exp(-1.130405031312609), 14);
  });

  it('VARI-METRIC, by hand: each base gets f(1−f)·EBO_0 + f²·VBO_0 on top of its Poisson transit, and a negative binomial', () => {
    const ev = evaluateMetricTree(asTree(lindo), [1, 1, 1], 'vari-metric');
    // VBO_0(1) = E[(X−1)⁺²] − EBO² = μ0 + (μ0 − 1)² − e^{−μ0} − EBO², with μ0 = 2.8
    const e0 = 1.8 + Math.exp(-2.8);
    const v0 = 2.8 + 1.8 * 1.8 - Math.exp(-2.8) - e0 * e0;
    expect(ev.nodes[0].vbo).toBeCloseTo(v0, 13);
    expect(v0).toBeCloseTo(2.5165758482075145, 13);
    const mean = 0.1 * (2 + e0 / 0.2);
    const variance = 0.1 * 2 + 0.25 * e0 + 0.25 * v0;
    expect(variance).toBeCloseTo(1.294346477708183, 13);
    // negative binomial with p = mean/variance, r = mean²/(variance − mean): P(X = 0) = p^r, EBO(1) = mean − 1 + p^r
    const p0 = (mean / variance) ** ((mean * mean) / (variance - mean));
    for (const b of ev.nodes.slice(1)) {
      expect(b.pipeline.mean).toBeCloseTo(mean, 14);
      expect(b.pipeline.variance).toBeCloseTo(variance, 13);
      expect(b.ebo).toBeCloseTo(mean - 1 + p0, 13);
      expect(b.ebo).toBeCloseTo(0.47839315406862276, 13);
      expect(b.fillRate).toBeCloseTo(0.34798812275601376, 13);
    }
    // more variance, more backorders than METRIC at the same stock
    expect(ev.totalEbo).toBeGreaterThan(evaluateMetricTree(asTree(lindo), [1, 1, 1], 'metric').totalEbo);
    // EBO(2) from the same fit: mean − 2 + 2 p(0) + p(1), 0.16992501634694002 (mpmath)
    expect(evaluateMetricTree(asTree(lindo), [1, 2, 2], 'vari-metric').nodes[1].ebo).toBeCloseTo(0.16992501634694002, 12);
  });

  it('equals the depot + bases engine (metric.ts) with local repair, for both methods and many stock levels', () => {
    const system: MetricSystem = {
      depotRepairTime: 10,
      depotSpares: 0,
      bases: [
        { demandRate: 0.2, repairProbability: 0.3, repairTime: 4, orderShipTime: 2, spares: 0 },
        { demandRate: 0.5, repairProbability: 0.1, repairTime: 3, orderShipTime: 5, spares: 0 },
        { demandRate: 0.1, repairProbability: 0.6, repairTime: 6, orderShipTime: 1, spares: 0 },
      ],
    };
    for (const method of ['metric', 'vari-metric'] as MetricMethod[]) {
      for (const levels of [[0, 0, 0, 0], [3, 2, 4, 1], [7, 1, 5, 2], [12, 3, 3, 3]]) {
        const ref = evaluateMetric({ ...system, depotSpares: levels[0], bases: system.bases.map((b, j) => ({ ...b, spares: levels[j + 1] })) }, method);
        const ev = evaluateMetricTree(asTree(system), levels, method);
        expect(ev.nodes[0].ebo).toBeCloseTo(ref.depot.ebo, 12);
        expect(ev.nodes[0].vbo).toBeCloseTo(ref.depot.vbo, 11);
        expect(ev.nodes[0].delay).toBeCloseTo(ref.depot.delay, 12);
        ref.bases.forEach((b, j) => {
          expect(ev.nodes[j + 1].pipeline.mean).toBeCloseTo(b.pipeline.mean, 12);
          expect(ev.nodes[j + 1].pipeline.variance).toBeCloseTo(b.pipeline.variance, 11);
          expect(ev.nodes[j + 1].ebo).toBeCloseTo(b.ebo, 11);
          expect(ev.nodes[j + 1].fillRate).toBeCloseTo(b.fillRate, 12);
        });
        expect(ev.totalEbo).toBeCloseTo(ref.totalBaseEbo, 11);
      }
    }
  });

  it('Little and Palm: with no transit the bases\' depot pipelines add up to the depot\'s backorders', () => {
    const tree: MetricTree = {
      nodes: [{ parent: null, unitCost: 1, transitTime: 0 }, { parent: 0, unitCost: 1, transitTime: 0 }, { parent: 0, unitCost: 1, transitTime: 0 }],
      streams: [{ origin: 1, landing: 0, rate: 0.7, time: 6 }, { origin: 2, landing: 0, rate: 0.3, time: 6 }],
    };
    for (const s0 of [0, 2, 5, 9]) {
      const ev = evaluateMetricTree(tree, [s0, 0, 0], 'metric');
      expect(ev.nodes[1].pipeline.mean + ev.nodes[2].pipeline.mean).toBeCloseTo(ev.nodes[0].ebo, 12);
      expect(ev.nodes[0].ebo).toBeCloseTo(poissonEbo(6, s0), 12);
    }
  });

  it('a three-echelon chain, by hand: each site waits its parent\'s EBO/λ; streams land where their loop ends', () => {
    // root R ← mid M ← leaf L, one failure a period at L, repaired into R's stock in 5; shipping 1 at each step
    const chain: MetricTree = {
      nodes: [{ parent: null, unitCost: 1, transitTime: 0 }, { parent: 0, unitCost: 1, transitTime: 1 }, { parent: 1, unitCost: 1, transitTime: 1 }],
      streams: [{ origin: 2, landing: 0, rate: 1, time: 5 }],
    };
    const ev = evaluateMetricTree(chain, [2, 1, 1], 'metric');
    // EBO_R(2) = 5 − 2 + 2e^{−5} + 5e^{−5} = 3 + 7e^{−5}
    const eR = 3 + 7 * Math.exp(-5);
    expect(ev.nodes[0].ebo).toBeCloseTo(eR, 13);
    expect(ev.nodes[1].pipeline.mean).toBeCloseTo(1 + eR, 13);
    const eM = poissonEbo(1 + eR, 1);
    expect(ev.nodes[1].ebo).toBeCloseTo(eM, 13);
    expect(ev.nodes[2].pipeline.mean).toBeCloseTo(1 + eM, 13);
    expect(ev.nodes[2].ebo).toBeCloseTo(poissonEbo(1 + eM, 1), 13);
    expect(ev.nodes[2].ebo).toBeCloseTo(3.081806667910464, 12);
    // VARI-METRIC: f = 1 all the way, so the mid site's variance is its transit plus the root's VBO
    const vm = evaluateMetricTree(chain, [2, 1, 1], 'vari-metric');
    expect(vm.nodes[1].pipeline.variance).toBeCloseTo(1 + vm.nodes[0].vbo, 13);
    expect(vm.nodes[2].pipeline.variance).toBeCloseTo(1 + vm.nodes[1].vbo, 12);

    // the same failures repaired at the mid site instead (a loop of 3): the root sees nothing, the mid site a Poisson(3)
    const atMid = evaluateMetricTree({ ...chain, streams: [{ origin: 2, landing: 1, rate: 1, time: 3 }] }, [2, 1, 1], 'vari-metric');
    expect(atMid.nodes[0].lambda).toBe(0);
    expect(atMid.nodes[1].pipeline).toEqual({ mean: 3, variance: 3 });
    expect(atMid.nodes[2].pipeline.mean).toBeCloseTo(1 + poissonEbo(3, 1), 13);
    // and repaired at the leaf itself: no order goes up at all
    const local = evaluateMetricTree({ ...chain, streams: [{ origin: 2, landing: 2, rate: 1, time: 4 }] }, [0, 0, 3], 'vari-metric');
    expect(local.nodes[2].pipeline).toEqual({ mean: 4, variance: 4 });
    expect(local.nodes[1].lambda + local.nodes[0].lambda).toBe(0);
    expect(local.nodes[2].ebo).toBeCloseTo(poissonEbo(4, 3), 13);
  });

  it('streams with their own times add at the site they land at; over-dispersed failures keep their ratio in VARI-METRIC', () => {
    const tree: MetricTree = {
      nodes: [{ parent: null, unitCost: 1, transitTime: 0 }, { parent: 0, unitCost: 1, transitTime: 2 }, { parent: 0, unitCost: 1, transitTime: 2 }],
      streams: [{ origin: 1, landing: 0, rate: 0.5, time: 4 }, { origin: 2, landing: 0, rate: 0.25, time: 10, varianceToMean: 3 }],
    };
    const vm = evaluateMetricTree(tree, [0, 0, 0], 'vari-metric');
    expect(vm.nodes[0].pipeline).toEqual({ mean: 0.5 * 4 + 0.25 * 10, variance: 0.5 * 4 + 3 * 0.25 * 10 });
    expect(vm.nodes[0].demandVariance).toBeCloseTo(0.5 + 0.75, 14);
    // METRIC is Poisson throughout
    expect(evaluateMetricTree(tree, [0, 0, 0], 'metric').nodes[0].pipeline.variance).toBe(4.5);
    // base 2: transit 0.25·2 with ratio 3, plus f = 1/3 of the depot's backorders (with S0 = 0, EBO = mean, VBO = variance)
    const f = 0.25 / 0.75;
    expect(vm.nodes[2].pipeline.mean).toBeCloseTo(0.5 + f * 4.5, 13);
    expect(vm.nodes[2].pipeline.variance).toBeCloseTo(3 * 0.5 + f * (1 - f) * 4.5 + f * f * (2 + 7.5), 12);
  });

  it('backorder tables agree with the tail sums for Poisson and negative binomial pipelines', () => {
    for (const d of [{ mean: 2.5, variance: 2.5 }, { mean: 40, variance: 40 }, { mean: 6, variance: 15 }, { mean: 1500, variance: 1500 }]) {
      const t = backorderTables(d, Math.ceil(d.mean + 12 * Math.sqrt(d.variance)));
      for (const s of [0, 1, Math.round(d.mean), Math.round(d.mean + 2 * Math.sqrt(d.variance))]) {
        const pmf = backorderTables(d, 4 * t.ebo.length).ebo;
        expect(t.ebo[s]).toBeCloseTo(pmf[s], 9);
      }
      expect(t.ebo[0]).toBe(d.mean);
      expect(t.vbo[0]).toBeCloseTo(d.variance, 8);
    }
    // the Poisson(2) table: EBO(1) = 1 + e^{−2}, EBO(2) = 3e^{−2} + e^{−2}; fill(2) = P(X ≤ 1) = 3e^{−2}
    const t = backorderTables({ mean: 2, variance: 2 }, 5);
    expect(t.ebo[1]).toBeCloseTo(1 + Math.exp(-2), 14);
    expect(t.ebo[2]).toBeCloseTo(4 * Math.exp(-2), 14);
    expect(t.fill[2]).toBeCloseTo(3 * Math.exp(-2), 14);
    expect(t.fill[0]).toBe(0);
  });

  it('refuses a stream that lands below its origin or a parent cycle', () => {
    const nodes = [{ parent: null, unitCost: 1, transitTime: 0 }, { parent: 0, unitCost: 1, transitTime: 1 }];
    expect(() => evaluateMetricTree({ nodes, streams: [{ origin: 0, landing: 1, rate: 1, time: 1 }] }, [0, 0])).toThrow(/not 0 or one of its ancestors/);
    expect(() => evaluateMetricTree({ nodes: [{ parent: 1, unitCost: 1, transitTime: 1 }, { parent: 0, unitCost: 1, transitTime: 1 }], streams: [] }, [0, 0])).toThrow(/cycle/);
  });
});

describe('METRIC on a tree: Sherbrooke\'s curve', () => {
  /** Every allocation within the box, evaluated. */
  function bruteForce(tree: MetricTree, max: number[], method: MetricMethod) {
    const out: Array<{ cost: number; ebo: number; fill: number; levels: number[] }> = [];
    const levels = max.map(() => 0);
    const walk = (i: number): void => {
      if (i === max.length) {
        const ev = evaluateMetricTree(tree, levels, method);
        out.push({ cost: levels.reduce((a, s, j) => a + s * tree.nodes[j].unitCost, 0), ebo: ev.totalEbo, fill: ev.fillRate ?? 0, levels: [...levels] });
        return;
      }
      for (let s = 0; s <= max[i]; s++) {
        levels[i] = s;
        walk(i + 1);
      }
    };
    walk(0);
    return out;
  }

  function checkEfficient(tree: MetricTree, box: number[], method: MetricMethod) {
    const curve = metricTreeCurve(tree, { method });
    expect(curve.exact).toBe(true);
    const all = bruteForce(tree, box, method);
    for (let k = 1; k < curve.length; k++) {
      expect(curve.investment[k]).toBeGreaterThan(curve.investment[k - 1]);
      expect(curve.ebo[k]).toBeLessThan(curve.ebo[k - 1]);
    }
    let checked = 0;
    for (let k = 0; k < curve.length; k++) {
      const levels = curve.levelsAt(k);
      const ev = evaluateMetricTree(tree, levels, method);
      // the point is what its levels give
      expect(ev.totalEbo).toBeCloseTo(curve.ebo[k], 10);
      expect(ev.fillRate!).toBeCloseTo(curve.fillRate[k], 10);
      expect(levels.reduce((a, s, j) => a + s * tree.nodes[j].unitCost, 0)).toBeCloseTo(curve.investment[k], 9);
      // and no allocation in the box does better for the money
      if (levels.every((s, j) => s <= box[j])) {
        const best = Math.min(...all.filter((x) => x.cost <= curve.investment[k] + 1e-9).map((x) => x.ebo));
        expect(curve.ebo[k]).toBeLessThanOrEqual(best + 1e-9);
        checked++;
      }
    }
    return { curve, checked };
  }

  it('depot and three bases with local repair: every point is optimal for its investment (brute force)', () => {
    const system: MetricSystem = {
      depotRepairTime: 10,
      depotSpares: 0,
      bases: [
        { demandRate: 0.2, repairProbability: 0.3, repairTime: 4, orderShipTime: 2, spares: 0 },
        { demandRate: 0.5, repairProbability: 0.1, repairTime: 3, orderShipTime: 5, spares: 0 },
        { demandRate: 0.1, repairProbability: 0.6, repairTime: 6, orderShipTime: 1, spares: 0 },
      ],
    };
    const tree = asTree(system, 3);
    tree.nodes[1].unitCost = 2;
    for (const method of ['metric', 'vari-metric'] as MetricMethod[]) expect(checkEfficient(tree, [7, 5, 7, 4], method).checked).toBeGreaterThan(15);
  });

  it('a three-echelon tree (root, two depots, four bases) and two roots side by side: optimal points, levels recomputed exactly', () => {
    const tree: MetricTree = {
      nodes: [
        { parent: null, unitCost: 4, transitTime: 0 },
        { parent: 0, unitCost: 3, transitTime: 1 },
        { parent: 0, unitCost: 3, transitTime: 2 },
        { parent: 1, unitCost: 2, transitTime: 1 },
        { parent: 1, unitCost: 2, transitTime: 1 },
        { parent: 2, unitCost: 1, transitTime: 1 },
        { parent: null, unitCost: 5, transitTime: 0 },
      ],
      streams: [
        { origin: 3, landing: 0, rate: 0.3, time: 4 },
        { origin: 4, landing: 1, rate: 0.2, time: 2 },
        { origin: 5, landing: 0, rate: 0.4, time: 4 },
        { origin: 1, landing: 1, rate: 0.1, time: 3 },
        { origin: 6, landing: 6, rate: 0.3, time: 2 },
      ],
    };
    const { curve, checked } = checkEfficient(tree, [4, 3, 3, 4, 3, 4, 3], 'vari-metric');
    expect(checked).toBeGreaterThan(8);
    // the curve ends where every customer is served: nothing owed, everyone filled
    expect(curve.ebo[curve.length - 1]).toBeLessThan(1e-6);
    expect(curve.fillRate[curve.length - 1]).toBeGreaterThan(0.999);
  });

  it('a fill-rate floor (an override) holds at every point of the curve', () => {
    const tree = asTree(lindo, 10);
    tree.nodes[2].minFillRate = 0.9;
    const curve = metricTreeCurve(tree);
    for (let k = 0; k < curve.length; k++) expect(evaluateMetricTree(tree, curve.levelsAt(k)).nodes[2].fillRate).toBeGreaterThanOrEqual(0.9 - 1e-12);
    const free = metricTreeCurve(asTree(lindo, 10));
    expect(curve.investment[0]).toBeGreaterThan(free.investment[0]);
  });

  it('a large pipeline is searched on a grid: still efficient among the levels tried, and close to the full search', () => {
    const big: MetricTree = {
      nodes: [{ parent: null, unitCost: 1, transitTime: 0 }, ...[0, 1, 2].map(() => ({ parent: 0, unitCost: 1, transitTime: 1 }))],
      streams: [1, 2, 3].map((j) => ({ origin: j, landing: 0, rate: 20 * j, time: 3 })),
    };
    const grid = metricTreeCurve(big);
    const full = metricTreeCurve(big, { maxDepotLevels: 2000, maxPoints: 10_000_000 });
    expect(grid.exact).toBe(false);
    expect(full.exact).toBe(true);
    // at the first point reaching 95 %, the grid's plan costs at most a few units more than the full search's
    const at = (c: typeof grid) => {
      let k = 0;
      while (c.fillRate[k] < 0.95) k++;
      return c.investment[k];
    };
    expect(at(grid)).toBeGreaterThanOrEqual(at(full) - 1e-9);
    expect(at(grid) - at(full)).toBeLessThan(0.01 * at(full));
  });
});
