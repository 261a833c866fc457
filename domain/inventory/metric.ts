// Repairable items on a depot + bases loop (REPAIR/RETURN routes): METRIC (Sherbrooke 1968) and VARI-METRIC
// (Sherbrooke 1986; Graves 1985), as in Sherbrooke, Optimal Inventory Modeling of Systems, 2nd ed., ch. 2-4.
// Failures at base j arrive as Poisson(m_j); a fraction r_j is repaired at the base (time A_j), the rest go to the
// depot (repair time D) and the base gets a serviceable unit after the order-and-ship time O_j plus the depot delay.
// By Palm's theorem the depot pipeline is Poisson(m_0·D), exact. METRIC takes each base pipeline as Poisson with the
// right mean; VARI-METRIC adds the variance the depot backorders pass on and fits a negative binomial to both moments.

import { traceCurve, MarginalSku, MarginalCurve, MarginalOptions } from './marginalAnalysis';

export interface PipelineMoments {
  mean: number;
  variance: number;
}

/**
 * P(X = x) for x = 0..upTo: Poisson when variance ≤ mean, negative binomial otherwise. Terms follow from p(0) by
 * their ratio p(x+1)/p(x), kept on a scale that is reset before it overflows, so means in the thousands neither
 * underflow exp(−mean) nor pay a log and an exp per term.
 */
export function pipelinePmf(d: PipelineMoments, upTo: number): Float64Array {
  const out = new Float64Array(upTo + 1);
  const { mean, variance } = d;
  if (mean <= 0) {
    out[0] = 1;
    return out;
  }
  const poisson = variance <= mean * (1 + 1e-12);
  const p = poisson ? 1 : mean / variance;
  const r = poisson ? 0 : (mean * mean) / (variance - mean);
  let logScale = poisson ? -mean : r * Math.log(p);
  let factor = Math.exp(logScale);
  let q = 1;
  for (let x = 0; x <= upTo; x++) {
    out[x] = q * factor;
    q *= poisson ? mean / (x + 1) : ((x + r) / (x + 1)) * (1 - p);
    if (q > 1e250) {
      q *= 1e-250;
      logScale += 250 * Math.LN10;
      factor = Math.exp(logScale);
    }
  }
  return out;
}

/** Expected backorders E[(X − s)⁺], from the finite sum E[X] − s + Σ_{x≤s}(s − x)p(x). */
export function expectedBackorders(s: number, d: PipelineMoments): number {
  const pmf = pipelinePmf(d, s);
  let acc = 0;
  for (let x = 0; x <= s; x++) acc += (s - x) * pmf[x];
  return Math.max(0, d.mean - s + acc);
}

/** Var[(X − s)⁺], likewise from finite sums. */
export function varianceOfBackorders(s: number, d: PipelineMoments): number {
  const pmf = pipelinePmf(d, s);
  let below = 0, acc = 0;
  for (let x = 0; x <= s; x++) {
    acc += (s - x) * pmf[x];
    below += (s - x) * (s - x) * pmf[x];
  }
  const ebo = Math.max(0, d.mean - s + acc);
  const second = d.variance + (d.mean - s) ** 2 - below;
  return Math.max(0, second - ebo * ebo);
}

/** EBO(s) for s = 0..maxS in one pass, via EBO(s+1) = EBO(s) − P(X > s). */
export function expectedBackordersTable(maxS: number, d: PipelineMoments): number[] {
  const pmf = pipelinePmf(d, maxS);
  const out: number[] = [d.mean];
  let cdf = 0;
  for (let s = 0; s < maxS; s++) {
    cdf += pmf[s];
    out.push(Math.max(0, out[s] - (1 - cdf)));
  }
  return out;
}

/** Fill rate as Sherbrooke defines it: the chance a demand finds stock on the shelf, P(X ≤ s − 1). */
export function fillRate(s: number, d: PipelineMoments): number {
  if (s <= 0) return 0;
  const pmf = pipelinePmf(d, s - 1);
  let c = 0;
  for (const q of pmf) c += q;
  return Math.min(1, c);
}

/** Aircraft availability Π_i (1 − EBO_i/(N·Z_i))^{Z_i} for N aircraft with Z_i of item i on each. */
export function availability(ebos: readonly number[], quantityPerAircraft: readonly number[], aircraft: number): number {
  let a = 1;
  ebos.forEach((e, i) => {
    const z = quantityPerAircraft[i];
    a *= Math.max(0, 1 - e / (aircraft * z)) ** z;
  });
  return a;
}

export interface MetricBase {
  demandRate: number;
  /** r_j: fraction repaired at the base. */
  repairProbability: number;
  repairTime: number;
  orderShipTime: number;
  spares: number;
}

export interface MetricSystem {
  bases: MetricBase[];
  depotRepairTime: number;
  depotSpares: number;
}

export type MetricMethod = 'metric' | 'vari-metric';

export interface MetricEvaluation {
  depot: { demandRate: number; pipeline: PipelineMoments; ebo: number; vbo: number; delay: number };
  bases: { pipeline: PipelineMoments; ebo: number; fillRate: number }[];
  totalBaseEbo: number;
}

export function evaluateMetric(system: MetricSystem, method: MetricMethod = 'vari-metric'): MetricEvaluation {
  const depot = depotState(system);
  const bases = system.bases.map((b) => {
    const pipeline = basePipeline(b, depot, method);
    return { pipeline, ebo: expectedBackorders(b.spares, pipeline), fillRate: fillRate(b.spares, pipeline) };
  });
  return { depot, bases, totalBaseEbo: bases.reduce((a, b) => a + b.ebo, 0) };
}

function depotState(system: MetricSystem): MetricEvaluation['depot'] {
  const demandRate = system.bases.reduce((a, b) => a + (1 - b.repairProbability) * b.demandRate, 0);
  const mean = demandRate * system.depotRepairTime;
  const pipeline = { mean, variance: mean };
  const ebo = expectedBackorders(system.depotSpares, pipeline);
  const vbo = varianceOfBackorders(system.depotSpares, pipeline);
  // Little's law on the depot backorder queue.
  return { demandRate, pipeline, ebo, vbo, delay: demandRate > 0 ? ebo / demandRate : 0 };
}

function basePipeline(b: MetricBase, depot: MetricEvaluation['depot'], method: MetricMethod): PipelineMoments {
  const m = b.demandRate, r = b.repairProbability;
  const mean = m * (r * b.repairTime + (1 - r) * (b.orderShipTime + depot.delay));
  if (method === 'metric') return { mean, variance: mean };
  // Each depot backorder belongs to base j with probability f (thinning), giving the binomial-mixture variance.
  const f = depot.demandRate > 0 ? ((1 - r) * m) / depot.demandRate : 0;
  const variance = m * r * b.repairTime + m * (1 - r) * b.orderShipTime + f * (1 - f) * depot.ebo + f * f * depot.vbo;
  return { mean, variance: Math.max(mean, variance) };
}

export interface MetricItem {
  unitCost: number;
  /** Spares fields of the bases are ignored: they are the decision. */
  system: MetricSystem;
  maxDepotSpares: number;
  maxBaseSpares: number;
}

export interface MetricAllocation {
  investment: number;
  totalBaseEbo: number;
  depotSpares: number;
  baseSpares: number[];
}

/**
 * Efficient (investment, base EBO) points of one item, Sherbrooke's way: for each depot level the bases are
 * allocated greedily (base EBO is separable and convex once the depot level is fixed), and the lower convex hull of
 * all those points is kept, which is what multi-item marginal analysis needs.
 */
export function metricItemCurve(item: MetricItem, method: MetricMethod = 'vari-metric'): MetricAllocation[] {
  const points: MetricAllocation[] = [];
  const nb = item.system.bases.length;
  for (let s0 = 0; s0 <= item.maxDepotSpares; s0++) {
    const sys = { ...item.system, depotSpares: s0, bases: item.system.bases.map((b) => ({ ...b, spares: 0 })) };
    const depot = depotState(sys);
    const tables = sys.bases.map((b) => expectedBackordersTable(item.maxBaseSpares, basePipeline(b, depot, method)));
    const skus: MarginalSku[] = tables.map((t) => ({ unitCost: item.unitCost, maxLevel: item.maxBaseSpares, score: (s: number) => -t[s] }));
    const curve = traceCurve(skus, { minGain: 1e-12 });
    const level = new Array<number>(nb).fill(0);
    for (let k = 0; k < curve.length; k++) {
      if (k > 0) level[curve.sku[k]] = curve.level[k];
      points.push({ investment: curve.investment[k] + s0 * item.unitCost, totalBaseEbo: -curve.score[k], depotSpares: s0, baseSpares: [...level] });
    }
  }
  return lowerHull(points);
}

function lowerHull(points: MetricAllocation[]): MetricAllocation[] {
  const sorted = [...points].sort((a, b) => a.investment - b.investment || a.totalBaseEbo - b.totalBaseEbo);
  const hull: MetricAllocation[] = [];
  for (const p of sorted) {
    if (hull.length && p.totalBaseEbo >= hull[hull.length - 1].totalBaseEbo) continue;
    while (hull.length >= 2) {
      const a = hull[hull.length - 2], b = hull[hull.length - 1];
      // b is above the chord a→p (not convex), so it is dominated by a mix of a and p.
      const cross = (b.investment - a.investment) * (p.totalBaseEbo - a.totalBaseEbo) - (b.totalBaseEbo - a.totalBaseEbo) * (p.investment - a.investment);
      if (cross <= 0) hull.pop();
      else break;
    }
    hull.push(p);
  }
  return hull;
}

/** Multi-item trade-off: marginal analysis over the items' hull points, minimising total base EBO per money. */
export function optimizeMetricItems(items: readonly MetricItem[], method: MetricMethod = 'vari-metric', options: MarginalOptions = {}): { curve: MarginalCurve; hulls: MetricAllocation[][] } {
  const hulls = items.map((it) => metricItemCurve(it, method));
  const skus: MarginalSku[] = hulls.map((h) => ({
    unitCost: 1,
    levelCost: (k: number) => h[k].investment,
    score: (k: number) => -h[k].totalBaseEbo,
    maxLevel: h.length - 1,
  }));
  return { curve: traceCurve(skus, { minGain: 1e-12, ...options }), hulls };
}
