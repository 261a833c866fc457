import {
  availability,
  evaluateMetric,
  expectedBackorders,
  expectedBackordersTable,
  fillRate,
  MetricItem,
  metricItemCurve,
  MetricSystem,
  optimizeMetricItems,
  pipelinePmf,
  varianceOfBackorders,
} from '../../../domain/inventory/metric';

/** Independent: a long direct sum over the pmf tail. */
function directMoments(s: number, pmf: Float64Array): { ebo: number; vbo: number } {
  let e = 0, e2 = 0;
  for (let x = s + 1; x < pmf.length; x++) {
    e += (x - s) * pmf[x];
    e2 += (x - s) ** 2 * pmf[x];
  }
  return { ebo: e, vbo: e2 - e * e };
}

describe('METRIC / VARI-METRIC', () => {
  it('single-site Poisson EBO: analytic values for λT = 2 and the tail sum for many (s, λT)', () => {
    // Sherbrooke (2004) ch. 2 tabulates EBO(s | λT); rather than copy printed digits we check the analytic values
    // EBO(0) = λT, EBO(1) = λT − 1 + e^{−λT}, EBO(2) = EBO(1) − 1 + e^{−λT}(1 + λT).
    const d = { mean: 2, variance: 2 };
    expect(expectedBackorders(0, d)).toBeCloseTo(2, 14);
    expect(expectedBackorders(1, d)).toBeCloseTo(1 + Math.exp(-2), 14);
    expect(expectedBackorders(2, d)).toBeCloseTo(1 + Math.exp(-2) - 1 + 3 * Math.exp(-2), 14);
    for (const mean of [0.1, 1, 2.5, 10, 40]) {
      const pmf = pipelinePmf({ mean, variance: mean }, 400);
      const table = expectedBackordersTable(60, { mean, variance: mean });
      for (const s of [0, 1, 3, 7, 15, 30, 60]) {
        const direct = directMoments(s, pmf);
        expect(expectedBackorders(s, { mean, variance: mean })).toBeCloseTo(direct.ebo, 10);
        expect(table[s]).toBeCloseTo(direct.ebo, 10);
        expect(varianceOfBackorders(s, { mean, variance: mean })).toBeCloseTo(direct.vbo, 8);
      }
    }
  });

  it('negative binomial fits both moments and gives the same tail sums', () => {
    for (const [mean, variance] of [[3, 6], [10, 25], [0.5, 0.9]]) {
      const pmf = pipelinePmf({ mean, variance }, 2000);
      let m = 0, m2 = 0, tot = 0;
      pmf.forEach((q, x) => {
        tot += q;
        m += x * q;
        m2 += x * x * q;
      });
      expect(tot).toBeCloseTo(1, 12);
      expect(m).toBeCloseTo(mean, 9);
      expect(m2 - m * m).toBeCloseTo(variance, 8);
      for (const s of [0, 2, 5, 12]) {
        expect(expectedBackorders(s, { mean, variance })).toBeCloseTo(directMoments(s, pmf).ebo, 10);
        expect(varianceOfBackorders(s, { mean, variance })).toBeCloseTo(directMoments(s, pmf).vbo, 8);
      }
    }
  });

  it('keeps large pipelines accurate (no underflow of exp(−λT))', () => {
    const d = { mean: 1500, variance: 1500 };
    expect(expectedBackorders(1500, d)).toBeCloseTo(Math.sqrt(1500) / Math.sqrt(2 * Math.PI), 0);
    expect(fillRate(1600, d)).toBeGreaterThan(0.99);
  });

  const system: MetricSystem = {
    depotRepairTime: 10,
    depotSpares: 3,
    bases: [
      { demandRate: 0.2, repairProbability: 0.3, repairTime: 4, orderShipTime: 2, spares: 2 },
      { demandRate: 0.5, repairProbability: 0.1, repairTime: 3, orderShipTime: 5, spares: 4 },
      { demandRate: 0.1, repairProbability: 0.6, repairTime: 6, orderShipTime: 1, spares: 1 },
    ],
  };

  it('depot delay and base pipelines follow the METRIC formulas', () => {
    const ev = evaluateMetric(system, 'metric');
    const m0 = 0.2 * 0.7 + 0.5 * 0.9 + 0.1 * 0.4;
    expect(ev.depot.demandRate).toBeCloseTo(m0, 14);
    expect(ev.depot.pipeline.mean).toBeCloseTo(m0 * 10, 14);
    expect(ev.depot.delay).toBeCloseTo(expectedBackorders(3, { mean: m0 * 10, variance: m0 * 10 }) / m0, 14);
    const b = system.bases[1];
    const mu = b.demandRate * (b.repairProbability * b.repairTime + (1 - b.repairProbability) * (b.orderShipTime + ev.depot.delay));
    expect(ev.bases[1].pipeline.mean).toBeCloseTo(mu, 14);
    expect(ev.bases[1].pipeline.variance).toBe(mu);
    expect(ev.bases[1].ebo).toBeCloseTo(expectedBackorders(4, { mean: mu, variance: mu }), 14);
    // With zero shipping time the bases' depot-related pipelines add up to the depot backorders (Little).
    const noShip = evaluateMetric({ ...system, bases: system.bases.map((x) => ({ ...x, repairProbability: 0, orderShipTime: 0 })) }, 'metric');
    expect(noShip.bases.reduce((a, x) => a + x.pipeline.mean, 0)).toBeCloseTo(noShip.depot.ebo, 12);
  });

  it('VARI-METRIC adds variance only through depot backorders', () => {
    const vm = evaluateMetric(system, 'vari-metric');
    const m = evaluateMetric(system, 'metric');
    vm.bases.forEach((b, j) => {
      expect(b.pipeline.mean).toBeCloseTo(m.bases[j].pipeline.mean, 14);
      expect(b.pipeline.variance).toBeGreaterThan(b.pipeline.mean);
      expect(b.ebo).toBeGreaterThanOrEqual(m.bases[j].ebo - 1e-12);
    });
    const rich = evaluateMetric({ ...system, depotSpares: 60 }, 'vari-metric');
    rich.bases.forEach((b) => expect(b.pipeline.variance).toBeCloseTo(b.pipeline.mean, 9));
    expect(availability([0.5, 0.2], [2, 1], 10)).toBeCloseTo((1 - 0.5 / 20) ** 2 * (1 - 0.2 / 10), 14);
  });

  it('item curve points are optimal for their investment (brute force over depot and base spares)', () => {
    const item: MetricItem = { unitCost: 3, system: { ...system, depotSpares: 0 }, maxDepotSpares: 6, maxBaseSpares: 5 };
    const hull = metricItemCurve(item, 'vari-metric');
    for (let k = 1; k < hull.length; k++) {
      expect(hull[k].investment).toBeGreaterThan(hull[k - 1].investment);
      expect(hull[k].totalBaseEbo).toBeLessThan(hull[k - 1].totalBaseEbo);
    }
    const all: { cost: number; ebo: number }[] = [];
    for (let s0 = 0; s0 <= 6; s0++)
      for (let a = 0; a <= 5; a++)
        for (let b = 0; b <= 5; b++)
          for (let c = 0; c <= 5; c++) {
            const sys = { ...system, depotSpares: s0, bases: system.bases.map((x, j) => ({ ...x, spares: [a, b, c][j] })) };
            all.push({ cost: 3 * (s0 + a + b + c), ebo: evaluateMetric(sys, 'vari-metric').totalBaseEbo });
          }
    for (const p of hull) {
      const best = Math.min(...all.filter((x) => x.cost <= p.investment + 1e-9).map((x) => x.ebo));
      expect(p.totalBaseEbo).toBeLessThanOrEqual(best + 1e-9);
      const check = evaluateMetric({ ...system, depotSpares: p.depotSpares, bases: system.bases.map((x, j) => ({ ...x, spares: p.baseSpares[j] })) }, 'vari-metric');
      expect(check.totalBaseEbo).toBeCloseTo(p.totalBaseEbo, 12);
    }
  });

  it('multi-item optimisation trades EBO against money across items', () => {
    const items: MetricItem[] = [
      { unitCost: 5, system, maxDepotSpares: 8, maxBaseSpares: 6 },
      { unitCost: 1, system: { ...system, depotRepairTime: 20 }, maxDepotSpares: 8, maxBaseSpares: 6 },
    ];
    const { curve, hulls } = optimizeMetricItems(items);
    expect(curve.score[0]).toBeCloseTo(-(hulls[0][0].totalBaseEbo + hulls[1][0].totalBaseEbo), 12);
    for (let k = 1; k < curve.length; k++) expect(curve.score[k]).toBeGreaterThan(curve.score[k - 1]);
    // The cheap item is bought first: its first step has the better ratio.
    expect(curve.sku[1]).toBe(1);
  });
});
