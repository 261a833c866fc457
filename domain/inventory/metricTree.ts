/**
 * METRIC / VARI-METRIC on a tree of stocking sites, the form the meio step plans a repairable item in (Sherbrooke,
 * Optimal Inventory Modeling of Systems, 2nd ed., ch. 3-4; Graves 1985). metric.ts has the textbook depot + bases
 * system; here the same recursion runs on any tree, because an item's supply routes may stack a plant, DCs and stores,
 * and the failures of different sites come back through different loops.
 *
 * Every site holds a base stock S under one-for-one replenishment. Demand is organised in streams: a stream is the
 * Poisson failures of one site (its origin) and the site whose serviceable stock the repaired (or newly bought) unit
 * restores (its landing site, the origin itself or one of its ancestors), after a mean time T from the failure. On the
 * way from the origin up to the landing site every site passes the order on to its parent, one for one. So at site j:
 *
 *   λ_j        = rate of every stream landing at j or passing through it (its own failures and its children's orders)
 *   pipeline_j = Σ_{landing at j} rate·T  +  q_j·(O_j + δ_parent)        q_j = rate j passes to its parent,
 *                                                                       O_j = order-and-ship time from the parent,
 *                                                                       δ_parent = EBO_parent / λ_parent (Little)
 *
 * The streams landing at j are Poisson by Palm's theorem whatever T's distribution, so a root's pipeline is exactly
 * Poisson. METRIC takes every other pipeline as Poisson with its mean; VARI-METRIC adds the variance the parent's
 * backorders pass on, f(1−f)·EBO_parent + f²·VBO_parent with f = q_j / λ_parent (each outstanding parent backorder is
 * j's with probability f), and fits a negative binomial to both moments. With a depot, bases, r_j = 1 for the bases
 * that repair their own failures and a single depot repair time this is exactly metric.ts.
 */
import { pipelinePmf, type MetricMethod, type PipelineMoments } from './metric';

export interface MetricTreeNode {
  /** index of the parent stocking site, null for a root (supplied from outside the tree) */
  parent: number | null;
  unitCost: number;
  /** O_j: mean time for an order of this site to arrive once its parent ships it; unused at a root */
  transitTime: number;
  /** a floor on the fill rate of the site's own customers (an override's target) */
  minFillRate?: number | null;
}

export interface MetricStream {
  /** the site where the units fail (whose customers wait) */
  origin: number;
  /** the site whose serviceable stock the repaired or bought unit restores: the origin or one of its ancestors */
  landing: number;
  /** failures per period */
  rate: number;
  /** mean time from the failure until the unit is back in the landing site's stock */
  time: number;
  /**
   * Variance-to-mean ratio of the failures per period (default 1, Poisson). VARI-METRIC keeps it in the pipelines the
   * stream fills (compound Poisson failures whose batches travel together); METRIC ignores it.
   */
  varianceToMean?: number;
}

export interface MetricTree {
  nodes: MetricTreeNode[];
  streams: MetricStream[];
}

export interface MetricNodeState {
  /** demand on the site: its own failures and the orders of its children */
  lambda: number;
  /** its own customers' demand */
  ownRate: number;
  /** variance of the demand on the site per period (λ when every stream is Poisson) */
  demandVariance: number;
  pipeline: PipelineMoments;
  ebo: number;
  vbo: number;
  /** P(pipeline ≤ S − 1): the share of the site's demand met from the shelf; 1 for a site without demand */
  fillRate: number;
  /** average wait of an order at this site, EBO / λ */
  delay: number;
  /** its own customers' share of its backorders, (ownRate / λ)·EBO */
  customerEbo: number;
}

export interface MetricTreeEvaluation {
  nodes: MetricNodeState[];
  /** Σ customerEbo: units owed to the item's customers, the quantity METRIC minimises */
  totalEbo: number;
  /** demand-weighted fill rate of the sites' own customers (null without demand) */
  fillRate: number | null;
}

interface Prepared {
  n: number;
  parent: Array<number | null>;
  children: number[][];
  /** parents before children */
  order: number[];
  landingMean: Float64Array;
  /** Σ vtmr·rate·time of the streams landing here */
  landingVar: Float64Array;
  passRate: Float64Array;
  /** Σ vtmr·rate of the streams passing through */
  passVar: Float64Array;
  lambda: Float64Array;
  demandVar: Float64Array;
  ownRate: Float64Array;
  /** ownRate / Σ ownRate: the weight of the site's customers in the item's fill rate */
  weight: Float64Array;
  /** 0 for a site without children, else 1 + the largest of its children's */
  height: Int32Array;
}

function prepare(tree: MetricTree): Prepared {
  const n = tree.nodes.length;
  const parent = tree.nodes.map((x) => x.parent);
  const children: number[][] = tree.nodes.map(() => []);
  parent.forEach((p, j) => {
    if (p === null) return;
    if (!(p >= 0 && p < n) || p === j) throw new Error(`metric tree: node ${j} has parent ${p}, which is not another node`);
    children[p].push(j);
  });
  const order: number[] = [];
  const visit = (j: number): void => {
    order.push(j);
    for (const c of children[j]) visit(c);
  };
  parent.forEach((p, j) => p === null && visit(j));
  if (order.length !== n) throw new Error('metric tree: the parents close a cycle');
  const landingMean = new Float64Array(n), landingVar = new Float64Array(n), passRate = new Float64Array(n), passVar = new Float64Array(n);
  const landingRate = new Float64Array(n), landingRateVar = new Float64Array(n), ownRate = new Float64Array(n);
  tree.streams.forEach((s, i) => {
    if (!(s.rate >= 0) || !(s.time >= 0)) throw new Error(`metric tree: stream ${i} needs a rate and a time >= 0`);
    const v = Math.max(1, s.varianceToMean ?? 1);
    let j: number | null = s.origin;
    const path: number[] = [];
    while (j !== null && j !== s.landing) {
      path.push(j);
      j = parent[j];
    }
    if (j === null) throw new Error(`metric tree: stream ${i} lands at ${s.landing}, which is not ${s.origin} or one of its ancestors`);
    ownRate[s.origin] += s.rate;
    landingRate[s.landing] += s.rate;
    landingRateVar[s.landing] += v * s.rate;
    landingMean[s.landing] += s.rate * s.time;
    landingVar[s.landing] += v * s.rate * s.time;
    for (const k of path) {
      passRate[k] += s.rate;
      passVar[k] += v * s.rate;
    }
  });
  const lambda = new Float64Array(n), demandVar = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    lambda[j] = landingRate[j] + passRate[j];
    demandVar[j] = landingRateVar[j] + passVar[j];
  }
  const total = ownRate.reduce((a, b) => a + b, 0);
  const weight = ownRate.map((r) => (total > 0 ? r / total : 0));
  const height = new Int32Array(n);
  for (let i = n - 1; i >= 0; i--) {
    const j = order[i];
    const par = parent[j];
    if (par !== null) height[par] = Math.max(height[par], height[j] + 1);
  }
  return { n, parent, children, order, landingMean, landingVar, passRate, passVar, lambda, demandVar, ownRate, weight, height };
}

function pipelineOf(t: MetricTree, p: Prepared, j: number, parentBackorders: { ebo: number; vbo: number } | null, method: MetricMethod): PipelineMoments {
  const par = p.parent[j];
  const O = par === null ? 0 : t.nodes[j].transitTime;
  const local = p.landingMean[j] + p.passRate[j] * O;
  const f = par !== null && parentBackorders && p.lambda[par] > 0 ? p.passRate[j] / p.lambda[par] : 0;
  const mean = local + f * (parentBackorders?.ebo ?? 0);
  if (method === 'metric') return { mean, variance: mean };
  const localVar = p.landingVar[j] + p.passVar[j] * O;
  const variance = localVar + (f > 0 ? f * (1 - f) * parentBackorders!.ebo + f * f * parentBackorders!.vbo : 0);
  return { mean, variance: Math.max(mean, variance) };
}

/** The search range of a pipeline: beyond mean + 6 sd the backorders are nil for any purpose here. */
function maxLevelOf(d: PipelineMoments): number {
  return Math.ceil(d.mean + 6 * Math.sqrt(Math.max(d.variance, 0))) + 2;
}

interface Tables {
  ebo: Float64Array;
  vbo: Float64Array;
  /** fill[s] = P(X ≤ s − 1) */
  fill: Float64Array;
}

/**
 * EBO, VBO and fill rate for S = 0..maxS in one pass over the pmf: EBO(s+1) = EBO(s) − P(X > s) and
 * E[(X−s−1)⁺²] = E[(X−s)⁺²] − 2·EBO(s) + P(X > s).
 */
export function backorderTables(d: PipelineMoments, maxS: number): Tables {
  const pmf = pipelinePmf(d, maxS);
  const ebo = new Float64Array(maxS + 1), vbo = new Float64Array(maxS + 1), fill = new Float64Array(maxS + 1);
  let e = Math.max(0, d.mean), second = Math.max(0, d.variance) + d.mean * d.mean, cdf = 0;
  for (let s = 0; s <= maxS; s++) {
    ebo[s] = e;
    vbo[s] = second - e * e > 0 ? second - e * e : 0;
    fill[s] = s === 0 ? 0 : Math.min(1, cdf);
    cdf += pmf[s];
    const tail = Math.max(0, 1 - cdf);
    const next = Math.max(0, e - tail);
    second = Math.max(0, second - 2 * e + tail);
    e = next;
  }
  return { ebo, vbo, fill };
}

/** The state of every site of the tree at the given base-stock levels. */
export function evaluateMetricTree(tree: MetricTree, levels: readonly number[], method: MetricMethod = 'vari-metric'): MetricTreeEvaluation {
  const p = prepare(tree);
  if (levels.length !== p.n) throw new Error('metric tree: one level per node');
  const states: MetricNodeState[] = new Array(p.n);
  for (const j of p.order) {
    const par = p.parent[j];
    const pipeline = pipelineOf(tree, p, j, par === null ? null : states[par], method);
    const s = Math.max(0, Math.round(levels[j]));
    const t = backorderTables(pipeline, s);
    const lambda = p.lambda[j];
    states[j] = {
      lambda, ownRate: p.ownRate[j], demandVariance: p.demandVar[j], pipeline, ebo: t.ebo[s], vbo: t.vbo[s],
      fillRate: lambda > 0 ? t.fill[s] : 1, delay: lambda > 0 ? t.ebo[s] / lambda : 0,
      customerEbo: lambda > 0 ? (p.ownRate[j] / lambda) * t.ebo[s] : 0,
    };
  }
  const total = p.ownRate.reduce((a, b) => a + b, 0);
  return {
    nodes: states,
    totalEbo: states.reduce((a, s) => a + s.customerEbo, 0),
    fillRate: total > 0 ? states.reduce((a, s, j) => a + p.weight[j] * s.fillRate, 0) : null,
  };
}

// ---------------------------------------------------------------------------------------------------- optimisation

/**
 * An efficient curve of a sub-tree, cheapest first: investment, its customers' EBO (falling) and Σ weight·fill rate.
 * For a site with children a point also holds the site's level and the index on the curve that combines the
 * children's curves at that level, from which their levels are recomputed on demand.
 */
interface Curve {
  n: number;
  inv: Float64Array;
  ebo: Float64Array;
  fill: Float64Array;
  level: Int32Array;
  k: Int32Array;
}

function newCurve(capacity: number): Curve {
  const c = Math.max(4, capacity);
  return { n: 0, inv: new Float64Array(c), ebo: new Float64Array(c), fill: new Float64Array(c), level: new Int32Array(c), k: new Int32Array(c) };
}

function push(c: Curve, inv: number, ebo: number, fill: number, level: number, k: number): Curve {
  if (c.n === c.inv.length) {
    const g = newCurve(c.n * 2);
    g.inv.set(c.inv);
    g.ebo.set(c.ebo);
    g.fill.set(c.fill);
    g.level.set(c.level);
    g.k.set(c.k);
    g.n = c.n;
    c = g;
  }
  c.inv[c.n] = inv;
  c.ebo[c.n] = ebo;
  c.fill[c.n] = fill;
  c.level[c.n] = level;
  c.k[c.n] = k;
  c.n++;
  return c;
}

/**
 * Lower-left convex hull of two curves sorted by investment (a merge, then one pass): the points no mix of others
 * beats. A point that does not lower EBO below the one before is dominated.
 */
function mergeHull(a: Curve | null, b: Curve): Curve {
  let out = newCurve((a?.n ?? 0) + b.n);
  let i = 0, j = 0;
  const an = a?.n ?? 0;
  while (i < an || j < b.n) {
    const fromA = j >= b.n || (i < an && (a!.inv[i] < b.inv[j] || (a!.inv[i] === b.inv[j] && a!.ebo[i] <= b.ebo[j])));
    const c = fromA ? a! : b;
    const x = fromA ? i++ : j++;
    const inv = c.inv[x], ebo = c.ebo[x];
    if (out.n && ebo >= out.ebo[out.n - 1] - 1e-15) continue;
    while (out.n >= 2) {
      const p = out.n - 2, q = out.n - 1;
      const cross = (out.inv[q] - out.inv[p]) * (ebo - out.ebo[p]) - (out.ebo[q] - out.ebo[p]) * (inv - out.inv[p]);
      if (cross <= 0) out.n--;
      else break;
    }
    out = push(out, inv, ebo, c.fill[x], c.level[x], c.k[x]);
  }
  return out;
}

export interface MetricTreeOptions {
  method?: MetricMethod;
  /**
   * Most levels tried at a root whose children are all without children (a depot over its bases): each level is a
   * full sub-problem over the bases. Up to this every level is tried and the curve is exact; beyond, a grid.
   */
  maxDepotLevels?: number;
  /** The same for such a site under another stocking site, whose curve is re-solved for every level of its parent. */
  maxNestedDepotLevels?: number;
  /** Most levels tried at a site whose children have children of their own (each level re-solves their sub-trees). */
  maxUpperLevels?: number;
  /** Most (level, children's allocation) points a root may generate, which also bounds its grid; a nested site gets a fifth. */
  maxPoints?: number;
}

export interface MetricTreeCurve {
  length: number;
  investment: Float64Array;
  /** customers' expected backorders at each point */
  ebo: Float64Array;
  /** demand-weighted fill rate of the customers at each point (0 without demand) */
  fillRate: Float64Array;
  /** base-stock levels of every node at a point */
  levelsAt(index: number): number[];
  /** false when a site's levels were searched on a grid (large pipelines), so points are near- rather than exactly efficient */
  exact: boolean;
}

const DEFAULT_DEPOT_LEVELS = 48;
const DEFAULT_NESTED_DEPOT_LEVELS = 12;
const DEFAULT_UPPER_LEVELS = 8;
const DEFAULT_POINTS = 60_000;
const MIN_GRID = 6;
/** a site with at most this many levels to try is always searched in full, whatever the caps */
const ALWAYS_EXACT = 24;

/**
 * The levels tried at a site on a grid: half evenly over the whole range, half over its central band (mean − 3 sd to
 * mean + 4 sd of its pipeline), where service targets put the stock, so that band is searched finely.
 */
function gridLevels(minS: number, maxS: number, d: PipelineMoments, count: number): number[] {
  const out = new Set<number>([minS, maxS]);
  const even = Math.max(2, Math.ceil(count / 2));
  for (let i = 1; i < even - 1; i++) out.add(minS + Math.round((i * (maxS - minS)) / (even - 1)));
  const sd = Math.sqrt(Math.max(d.variance, 0));
  const lo = Math.max(minS, Math.floor(d.mean - 3 * sd)), hi = Math.min(maxS, Math.ceil(d.mean + 4 * sd));
  const fine = Math.max(2, count - even);
  if (hi > lo) for (let i = 0; i < fine; i++) out.add(lo + Math.round((i * (hi - lo)) / (fine - 1)));
  return [...out].sort((a, b) => a - b);
}

/**
 * Sherbrooke's efficient curve of investment (Σ unit cost × S) against the customers' expected backorders, on the
 * tree: for a site with children every level S is tried; at each, the children's own efficient curves (computed for
 * the delay that S gives them) are combined by marginal analysis, which is exact on convex curves; the lower convex
 * hull of all those points is the site's curve. A site without children has the convex curve of its EBO directly. The
 * roots' curves are combined the same way. Every point of the result is optimal for its investment among allocations
 * on the levels tried (all of them, unless `exact` is false), and a curve point's levels are recomputed on demand
 * rather than stored.
 */
export function metricTreeCurve(tree: MetricTree, options: MetricTreeOptions = {}): MetricTreeCurve {
  const method = options.method ?? 'vari-metric';
  const depotCap = Math.max(MIN_GRID, options.maxDepotLevels ?? DEFAULT_DEPOT_LEVELS);
  const nestedCap = Math.max(MIN_GRID, options.maxNestedDepotLevels ?? DEFAULT_NESTED_DEPOT_LEVELS);
  const upperCap = Math.max(MIN_GRID, options.maxUpperLevels ?? DEFAULT_UPPER_LEVELS);
  const pointCap = Math.max(1000, options.maxPoints ?? DEFAULT_POINTS);
  const p = prepare(tree);
  const cost = tree.nodes.map((x) => Math.max(x.unitCost, 1e-9));
  let exact = true;

  const curveOf = (j: number, parentBackorders: { ebo: number; vbo: number } | null): Curve => {
    const d = pipelineOf(tree, p, j, parentBackorders, method);
    const maxS = maxLevelOf(d);
    const lambda = p.lambda[j];
    const share = lambda > 0 ? p.ownRate[j] / lambda : 0;
    const w = p.weight[j];
    const floor = lambda > 0 ? tree.nodes[j].minFillRate ?? 0 : 0;
    const kids = p.children[j];
    if (!kids.length) return leafCurve(d, maxS, cost[j], share, lambda > 0 ? w : 0, lambda > 0 ? 0 : w, floor);
    const t = backorderTables(d, maxS);
    const own = (s: number) => w * (lambda > 0 ? t.fill[s] : 1);
    let minS = 0;
    if (floor > 0) while (minS < maxS && t.fill[minS] + 1e-12 < floor) minS++;
    let hull: Curve | null = null;
    let generated = 0;
    const at = (s: number): void => {
      const sum = combine(kids.map((c) => curveOf(c, { ebo: t.ebo[s], vbo: t.vbo[s] })));
      // the sum's arrays become this level's chain in place
      const base = cost[j] * s, e0 = share * t.ebo[s], f0 = own(s);
      for (let k = 0; k < sum.n; k++) {
        sum.inv[k] += base;
        sum.ebo[k] += e0;
        sum.fill[k] += f0;
        sum.to[k] = k;
      }
      sum.which.fill(s, 0, sum.n);
      generated = sum.n;
      hull = mergeHull(hull, { n: sum.n, inv: sum.inv, ebo: sum.ebo, fill: sum.fill, level: sum.which, k: sum.to });
    };
    // the lowest level gives the children the longest delay, so the largest curves: it sizes the grid
    at(minS);
    const nested = p.parent[j] !== null;
    const cap = p.height[j] > 1 ? upperCap : nested ? nestedCap : depotCap;
    const count = Math.max(MIN_GRID, Math.min(cap, Math.floor((nested ? pointCap / 5 : pointCap) / Math.max(1, generated))));
    if (maxS - minS + 1 <= Math.max(count, ALWAYS_EXACT)) for (let s = minS + 1; s <= maxS; s++) at(s);
    else {
      exact = false;
      for (const s of gridLevels(minS, maxS, d, count)) if (s > minS) at(s);
    }
    return hull!;
  };

  const roots = p.order.filter((j) => p.parent[j] === null);
  const rootCurves = roots.map((r) => curveOf(r, null));
  const sum = combine(rootCurves);
  const ebo = new Float64Array(sum.n);
  for (let k = 0; k < sum.n; k++) ebo[k] = Math.max(0, sum.ebo[k]);

  const descend = (j: number, parentBackorders: { ebo: number; vbo: number } | null, c: Curve, at: number, out: number[]): void => {
    const level = c.level[at];
    out[j] = level;
    const kids = p.children[j];
    if (!kids.length) return;
    const t = backorderTables(pipelineOf(tree, p, j, parentBackorders, method), level);
    const state = { ebo: t.ebo[level], vbo: t.vbo[level] };
    // the same inputs as when the curve was built, so the same curves: only the chosen point's path is recomputed
    const curves = kids.map((x) => curveOf(x, state));
    const idx = positionsAt(combine(curves), c.k[at], kids.length);
    kids.forEach((x, i) => descend(x, state, curves[i], idx[i], out));
  };

  return {
    length: sum.n,
    investment: sum.inv.slice(0, sum.n),
    ebo,
    fillRate: sum.fill.slice(0, sum.n),
    exact,
    levelsAt(index: number): number[] {
      const out = new Array<number>(p.n).fill(0);
      const idx = positionsAt(sum, index, roots.length);
      roots.forEach((r, i) => descend(r, null, rootCurves[i], idx[i], out));
      return out;
    },
  };
}

/**
 * The curve of a site without children, straight from its pipeline: levels from the lowest that meets `floor` (its
 * own customers' fill rate), then from mean − 5 sd on, where below every unit cuts EBO by 1 (to 1e-7), so the hull
 * is one straight segment there. EBO is convex in the level, so every point is efficient. Fill counts as
 * `fillWeight`·P(X ≤ s − 1) + `fillConstant`.
 */
function leafCurve(d: PipelineMoments, maxS: number, unitCost: number, share: number, fillWeight: number, fillConstant: number, floor: number): Curve {
  const pmf = pipelinePmf(d, maxS);
  const lo = Math.floor(d.mean - 5 * Math.sqrt(Math.max(d.variance, 0)));
  const c = newCurve(maxS - Math.max(0, lo) + 2);
  let e = Math.max(0, d.mean), cdf = 0, started = false;
  const add = (s: number, fill: number): void => {
    const k = c.n++;
    c.inv[k] = unitCost * s;
    c.ebo[k] = share * e;
    c.fill[k] = fillWeight * fill + fillConstant;
    c.level[k] = s;
  };
  for (let s = 0; s <= maxS; s++) {
    const fill = s === 0 ? 0 : cdf < 1 ? cdf : 1;
    if (!started) {
      if (fill + 1e-12 >= floor || s === maxS) {
        started = true;
        add(s, fill);
      }
    } else if (s >= lo) add(s, fill);
    cdf += pmf[s];
    const tail = 1 - cdf;
    e = tail > 0 ? (e > tail ? e - tail : 0) : e;
  }
  return c;
}

interface Sum {
  n: number;
  inv: Float64Array;
  /** Σ EBO (not negated) */
  ebo: Float64Array;
  fill: Float64Array;
  /** the curve whose point the step k advanced, and to which point */
  which: Int32Array;
  to: Int32Array;
}

/**
 * Marginal analysis over convex curves: each step takes the next point of the curve whose next segment lowers EBO the
 * most per unit of money (ties to the lower index), which on convex curves is their sum's efficient curve: a merge of
 * all segments by slope. Segments that lower EBO by no more than 1e-12 are never taken.
 */
function combine(curves: Curve[]): Sum {
  const m = curves.length;
  let cap = 1;
  for (const c of curves) cap += c.n - 1;
  const out: Sum = { n: 1, inv: new Float64Array(cap), ebo: new Float64Array(cap), fill: new Float64Array(cap), which: new Int32Array(cap), to: new Int32Array(cap) };
  const pos = new Int32Array(m);
  const slope = new Float64Array(m);
  let inv = 0, ebo = 0, fill = 0;
  const next = (i: number): void => {
    const c = curves[i], a = pos[i];
    const gain = a + 1 < c.n ? c.ebo[a] - c.ebo[a + 1] : 0;
    slope[i] = gain > 1e-12 ? gain / (c.inv[a + 1] - c.inv[a]) : -1;
  };
  for (let i = 0; i < m; i++) {
    inv += curves[i].inv[0];
    ebo += curves[i].ebo[0];
    fill += curves[i].fill[0];
    next(i);
  }
  out.inv[0] = inv;
  out.ebo[0] = ebo;
  out.fill[0] = fill;
  out.which[0] = -1;
  for (;;) {
    let best = -1, bestSlope = 0;
    for (let i = 0; i < m; i++) if (slope[i] > bestSlope) {
      best = i;
      bestSlope = slope[i];
    }
    if (best < 0) break;
    const c = curves[best], a = pos[best];
    inv += c.inv[a + 1] - c.inv[a];
    ebo += c.ebo[a + 1] - c.ebo[a];
    fill += c.fill[a + 1] - c.fill[a];
    pos[best] = a + 1;
    next(best);
    const k = out.n++;
    out.inv[k] = inv;
    out.ebo[k] = ebo;
    out.fill[k] = fill;
    out.which[k] = best;
    out.to[k] = a + 1;
  }
  return out;
}

/** Where each curve stands at step k of their sum. */
function positionsAt(sum: Sum, k: number, m: number): number[] {
  const at = new Array<number>(m).fill(0);
  for (let i = 1; i <= k; i++) at[sum.which[i]] = sum.to[i];
  return at;
}
