// Guaranteed-service model (Graves & Willems 2000, "Optimizing strategic safety stock placement in supply chains",
// MSOM 2(1); erratum 2003). Each stage j quotes an outbound service time S_j, waits SI_j = max(si_j, max over its
// suppliers i of S_i), and holds z·σ_j·√τ_j of safety stock for its net lead time τ_j = SI_j + T_j − S_j ≥ 0.
// Minimise Σ h_j·z·σ_j·√τ_j subject to S_j ≤ s_j (the service time promised to external customers).
//
// What is exact and what is not:
//  - undirected forests (any mix of assembly and distribution): the Graves-Willems labelling DP, exact;
//  - other DAGs (a stage with several suppliers and several customers closing undirected cycles): exact
//    branch-and-bound enumeration in topological order while the search stays under a node budget, otherwise a
//    heuristic: the DP on a spanning forest (dropping arcs relaxes SI_j ≥ S_i, so its cost is a lower bound), made
//    feasible by recomputing every SI on all arcs (SI only grows, so τ stays ≥ 0), then improved by single-stage
//    moves until none helps. The heuristic reports its lower bound so the gap is visible.
// Service and processing times are integer periods, as in the paper.

import { buildRouteGraph, detectCycle, formatCycle, isUndirectedForest, spanningForest, topologicalOrder } from './network';

export interface GsmStage {
  id: number;
  processingTime: number;
  holdingCost: number;
  /** Std of the stage's own external demand per period. */
  demandStd?: number;
  demandMean?: number;
  /** s_j; defaults to 0 for stages without customers inside the network, unbounded otherwise. */
  maxServiceTime?: number;
  /** si_j: service time quoted by an external supplier; defaults to 0. */
  inboundServiceTime?: number;
  safetyFactor?: number;
  /** Replaces the default pooling of downstream demand (see netDemand). */
  netDemandStd?: number;
}

export interface GsmArc {
  from: number;
  to: number;
}

export interface GsmInstance {
  stages: GsmStage[];
  arcs: GsmArc[];
  /** z, used where a stage sets none; defaults to 1. */
  safetyFactor?: number;
}

export interface GsmStageResult {
  id: number;
  serviceTime: number;
  inboundServiceTime: number;
  netLeadTime: number;
  netDemandStd: number;
  safetyStock: number;
  baseStock: number;
  cost: number;
}

export type GsmMethod = 'tree-dp' | 'enumeration' | 'spanning-tree-heuristic';

export interface GsmSolution {
  stages: GsmStageResult[];
  cost: number;
  method: GsmMethod;
  exact: boolean;
  /** Equals cost when exact. */
  lowerBound: number;
}

export interface GsmOptions {
  /** Search-node budget of the exact DAG enumeration before falling back to the heuristic. */
  maxEnumerationNodes?: number;
}

interface Prepared {
  ids: number[];
  T: number[];
  h: number[];
  z: number[];
  sigma: number[];
  mean: number[];
  sOut: number[];
  sIn: number[];
  preds: number[][];
  succs: number[][];
  M: number[];
  topo: number[];
  arcs: [number, number][];
}

export function solveGsm(instance: GsmInstance, options: GsmOptions = {}): GsmSolution {
  const P = prepare(instance);
  const graph = buildRouteGraph(P.arcs.map(([a, b]) => ({ from: a, to: b })), P.ids.map((_, i) => i));
  if (isUndirectedForest(graph)) return solveTree(P);
  const exact = enumerate(P, options.maxEnumerationNodes ?? 2_000_000);
  if (exact) return exact;
  return spanningTreeHeuristic(P);
}

/** Exact DP; throws when the arcs do not form an undirected forest. */
export function solveGsmTree(instance: GsmInstance): GsmSolution {
  const P = prepare(instance);
  const graph = buildRouteGraph(P.arcs.map(([a, b]) => ({ from: a, to: b })), P.ids.map((_, i) => i));
  if (!isUndirectedForest(graph)) throw new Error('GSM tree DP needs a network whose undirected graph is a forest');
  return solveTree(P);
}

/** Exact for any DAG; null when the search exceeds maxNodes. */
export function solveGsmEnumeration(instance: GsmInstance, maxNodes = 2_000_000): GsmSolution | null {
  return enumerate(prepare(instance), maxNodes);
}

export function solveGsmHeuristic(instance: GsmInstance): GsmSolution {
  return spanningTreeHeuristic(prepare(instance));
}

/** Cost of given outbound service times (in stage order), each stage taking the smallest feasible SI. */
export function evaluateGsm(instance: GsmInstance, serviceTimes: readonly number[]): { feasible: boolean; cost: number; stages: GsmStageResult[] } {
  const P = prepare(instance);
  const S = [...serviceTimes];
  const SI = inboundTimes(P, S);
  let feasible = true;
  for (let j = 0; j < S.length; j++) if (!Number.isInteger(S[j]) || S[j] < 0 || S[j] > P.sOut[j]) feasible = false;
  const stages = results(P, S, SI);
  return { feasible, cost: feasible ? sum(stages.map((s) => s.cost)) : Infinity, stages };
}

function prepare(instance: GsmInstance): Prepared {
  const n = instance.stages.length;
  const index = new Map<number, number>();
  instance.stages.forEach((s, i) => {
    if (index.has(s.id)) throw new Error(`duplicate stage ${s.id}`);
    index.set(s.id, i);
  });
  const arcs: [number, number][] = [];
  const seen = new Set<string>();
  for (const a of instance.arcs) {
    const f = index.get(a.from), t = index.get(a.to);
    if (f === undefined || t === undefined) throw new Error(`arc ${a.from} → ${a.to} names an unknown stage`);
    const key = `${f},${t}`;
    if (!seen.has(key)) {
      seen.add(key);
      arcs.push([f, t]);
    }
  }
  const byId = buildRouteGraph(instance.arcs, instance.stages.map((s) => s.id));
  const cycle = detectCycle(byId);
  if (cycle) throw new Error(formatCycle(cycle));

  const preds: number[][] = Array.from({ length: n }, () => []);
  const succs: number[][] = Array.from({ length: n }, () => []);
  for (const [f, t] of arcs) {
    succs[f].push(t);
    preds[t].push(f);
  }
  const topo = topologicalOrder(buildRouteGraph(arcs.map(([f, t]) => ({ from: f, to: t })), [...index.values()]))!;
  const zDefault = instance.safetyFactor ?? 1;
  const T: number[] = [], h: number[] = [], z: number[] = [], sOut: number[] = [], sIn: number[] = [];
  instance.stages.forEach((s, j) => {
    requireInteger(s.processingTime, `processing time of stage ${s.id}`);
    T.push(s.processingTime);
    h.push(s.holdingCost);
    z.push(s.safetyFactor ?? zDefault);
    const out = s.maxServiceTime ?? (succs[j].length === 0 ? 0 : Infinity);
    if (out !== Infinity) requireInteger(out, `maximum service time of stage ${s.id}`);
    sOut.push(out);
    const inbound = s.inboundServiceTime ?? 0;
    requireInteger(inbound, `inbound service time of stage ${s.id}`);
    sIn.push(inbound);
  });
  const { sigma, mean } = netDemand(instance.stages, succs, topo);
  const M = new Array<number>(n).fill(0);
  for (const j of topo) M[j] = T[j] + Math.max(sIn[j], ...preds[j].map((i) => M[i]));
  return { ids: instance.stages.map((s) => s.id), T, h, z, sigma, mean, sOut, sIn, preds, succs, M, topo, arcs };
}

function requireInteger(x: number, what: string): void {
  if (!Number.isInteger(x) || x < 0) throw new Error(`${what} must be a non-negative integer (got ${x})`);
}

// Each customer's demand passes whole to every supplier (one unit per unit, as in Graves-Willems), and demands of
// different customers are independent, so variances add; on a DAG a demand reaching a stage by two paths is
// counted once per path, which is the assembly reading (one component per path). Override with netDemandStd.
function netDemand(stages: readonly GsmStage[], succs: number[][], topo: number[]): { sigma: number[]; mean: number[] } {
  const n = stages.length;
  const variance = new Array<number>(n).fill(0);
  const mean = new Array<number>(n).fill(0);
  for (let t = topo.length - 1; t >= 0; t--) {
    const j = topo[t];
    variance[j] = (stages[j].demandStd ?? 0) ** 2;
    mean[j] = stages[j].demandMean ?? 0;
    for (const c of succs[j]) {
      variance[j] += variance[c];
      mean[j] += mean[c];
    }
  }
  return { sigma: variance.map((v, j) => stages[j].netDemandStd ?? Math.sqrt(v)), mean };
}

function stageCost(P: Prepared, j: number, tau: number): number {
  return P.h[j] * P.z[j] * P.sigma[j] * Math.sqrt(tau);
}

// SI is a decision in Graves-Willems (SI_j ≥ S_i, SI_j + T_j ≥ S_j); the cheapest choice for given S is the
// smallest one, and a stage quoting more than it needs simply waits (τ = 0), which optimal solutions may tie with.
function inboundTimes(P: Prepared, S: readonly number[]): number[] {
  return P.ids.map((_, j) => Math.max(P.sIn[j], S[j] - P.T[j], ...P.preds[j].map((i) => S[i])));
}

function results(P: Prepared, S: readonly number[], SI: readonly number[]): GsmStageResult[] {
  return P.ids.map((id, j) => {
    const tau = SI[j] + P.T[j] - S[j];
    const ss = tau >= 0 ? P.z[j] * P.sigma[j] * Math.sqrt(tau) : NaN;
    return {
      id,
      serviceTime: S[j],
      inboundServiceTime: SI[j],
      netLeadTime: tau,
      netDemandStd: P.sigma[j],
      safetyStock: ss,
      baseStock: P.mean[j] * tau + ss,
      cost: P.h[j] * ss,
    };
  });
}

function solution(P: Prepared, S: number[], method: GsmMethod, exact: boolean, lowerBound?: number): GsmSolution {
  const stages = results(P, S, inboundTimes(P, S));
  const cost = sum(stages.map((s) => s.cost));
  return { stages, cost, method, exact, lowerBound: exact ? cost : Math.min(lowerBound ?? cost, cost) };
}

function solveTree(P: Prepared): GsmSolution {
  const { S, cost } = treeDp(P, P.arcs);
  const sol = solution(P, S, 'tree-dp', true);
  // The realised SI are the tightest the chosen S allow, so they can only undercut the DP value by rounding.
  return { ...sol, cost: Math.min(sol.cost, cost), lowerBound: Math.min(sol.cost, cost) };
}

/**
 * Graves-Willems §3: label stages so that each has at most one higher-labelled neighbour p(k); evaluate f_k(S)
 * (best cost of the subtree hanging below k when p(k) is k's customer) or g_k(SI) (when p(k) is k's supplier or k
 * is the last label). Suppliers are allowed S ≤ SI and customers SI ≥ S, which is the model's own constraint.
 */
function treeDp(P: Prepared, treeArcs: readonly [number, number][]): { S: number[]; cost: number } {
  const n = P.ids.length;
  const W = Math.max(0, ...P.M) + 1;
  const nbrs: { node: number; upstream: boolean }[][] = Array.from({ length: n }, () => []);
  for (const [f, t] of treeArcs) {
    nbrs[t].push({ node: f, upstream: true });
    nbrs[f].push({ node: t, upstream: false });
  }
  const remaining = nbrs.map((x) => x.length);
  const labelled = new Uint8Array(n);
  const queued = new Uint8Array(n);
  const queue: number[] = [];
  for (let j = 0; j < n; j++) if (remaining[j] <= 1) {
    queue.push(j);
    queued[j] = 1;
  }
  const order: number[] = [];
  const parent = new Array<number>(n).fill(-1);
  const parentIsCustomer = new Uint8Array(n);
  for (let q = 0; q < queue.length; q++) {
    const k = queue[q];
    labelled[k] = 1;
    order.push(k);
    for (const { node, upstream } of nbrs[k]) {
      if (labelled[node]) continue;
      parent[k] = node;
      parentIsCustomer[k] = upstream ? 0 : 1;
      if (--remaining[node] <= 1 && !queued[node]) {
        queue.push(node);
        queued[node] = 1;
      }
    }
  }

  const sqrtTable = new Float64Array(2 * W + 1);
  for (let t = 0; t < sqrtTable.length; t++) sqrtTable[t] = Math.sqrt(t);
  // For stages whose parent is a customer: prefix minimum of f over S' ≤ x and its argmin; otherwise suffix
  // minimum of g over SI' ≥ x. bestOther maps the stage's own argument to its best other service time.
  const envelope: Float64Array[] = new Array(n);
  const envelopeArg: Int32Array[] = new Array(n);
  const bestOther: Int32Array[] = new Array(n);
  const rootValue: number[] = new Array(n).fill(NaN);
  const rootArg: number[] = new Array(n).fill(-1);

  for (const k of order) {
    const A = new Float64Array(W);
    const B = new Float64Array(W);
    for (const { node: c, upstream } of nbrs[k]) {
      if (parent[c] !== k) continue;
      const env = envelope[c];
      if (upstream) for (let x = 0; x < W; x++) A[x] += env[x];
      else for (let x = 0; x < W; x++) B[x] += env[x];
    }
    const T = P.T[k], Mk = P.M[k], sIn = P.sIn[k];
    const coef = P.h[k] * P.z[k] * P.sigma[k];
    const maxS = Math.min(P.sOut[k], Mk);
    const value = new Float64Array(W).fill(Infinity);
    const other = new Int32Array(W).fill(-1);
    if (parent[k] >= 0 && parentIsCustomer[k]) {
      for (let S = 0; S <= maxS; S++) {
        let best = Infinity, arg = -1;
        for (let SI = Math.max(sIn, S - T); SI <= Mk - T; SI++) {
          const v = A[SI] + coef * sqrtTable[SI + T - S];
          if (v < best) {
            best = v;
            arg = SI;
          }
        }
        value[S] = best + B[S];
        other[S] = arg;
      }
      [envelope[k], envelopeArg[k]] = runningMin(value, 'up');
    } else {
      for (let SI = 0; SI <= Mk - T; SI++) {
        const SIe = Math.max(SI, sIn);
        let best = Infinity, arg = -1;
        const hi = Math.min(SIe + T, maxS);
        for (let S = 0; S <= hi; S++) {
          const v = B[S] + coef * sqrtTable[SIe + T - S];
          if (v < best) {
            best = v;
            arg = S;
          }
        }
        value[SI] = best + A[SIe];
        other[SI] = arg;
      }
      const [env, envArg] = runningMin(value, 'down');
      envelope[k] = env;
      envelopeArg[k] = envArg;
      if (parent[k] < 0) {
        rootValue[k] = env[0];
        rootArg[k] = envArg[0];
      }
    }
    bestOther[k] = other;
  }

  const S = new Array<number>(n).fill(0);
  const SIe = new Array<number>(n).fill(0);
  let cost = 0;
  for (let q = order.length - 1; q >= 0; q--) {
    const k = order[q];
    if (parent[k] < 0) {
      cost += rootValue[k];
      const si = rootArg[k];
      SIe[k] = Math.max(si, P.sIn[k]);
      S[k] = bestOther[k][si];
    }
    for (const { node: c, upstream } of nbrs[k]) {
      if (parent[c] !== k) continue;
      if (upstream) {
        S[c] = envelopeArg[c][SIe[k]];
        SIe[c] = Math.max(bestOther[c][S[c]], P.sIn[c]);
      } else {
        const si = envelopeArg[c][S[k]];
        SIe[c] = Math.max(si, P.sIn[c]);
        S[c] = bestOther[c][si];
      }
    }
  }
  return { S, cost };
}

function enumerate(P: Prepared, maxNodes: number): GsmSolution | null {
  const n = P.ids.length;
  const S = new Array<number>(n).fill(0);
  const best = { cost: Infinity, S: [] as number[] };
  // A tree-DP-on-spanning-forest start gives a tight incumbent, which is what keeps the pruning effective.
  const start = spanningTreeHeuristic(P);
  best.cost = start.cost;
  best.S = start.stages.map((s) => s.serviceTime);
  if (best.cost - start.lowerBound <= 1e-12 * Math.max(1, best.cost)) return solution(P, best.S, 'enumeration', true);
  let nodes = 0;
  let aborted = false;
  const visit = (t: number, partial: number): void => {
    if (aborted) return;
    if (++nodes > maxNodes) {
      aborted = true;
      return;
    }
    if (t === n) {
      if (partial < best.cost - 1e-12) {
        best.cost = partial;
        best.S = [...S];
      }
      return;
    }
    const j = P.topo[t];
    let SI = P.sIn[j];
    for (const i of P.preds[j]) if (S[i] > SI) SI = S[i];
    const hi = Math.min(P.sOut[j], SI + P.T[j]);
    for (let s = hi; s >= 0; s--) {
      const c = partial + stageCost(P, j, SI + P.T[j] - s);
      if (c >= best.cost - 1e-12) continue;
      S[j] = s;
      visit(t + 1, c);
    }
  };
  visit(0, 0);
  if (aborted) return null;
  return solution(P, best.S, 'enumeration', true);
}

function spanningTreeHeuristic(P: Prepared): GsmSolution {
  // Arcs into long-lead-time stages first: the supplier with the longest path usually fixes SI, so it is the
  // constraint most worth keeping exact.
  const ordered = [...P.arcs].sort((a, b) => P.M[b[0]] - P.M[a[0]] || P.h[b[1]] * P.sigma[b[1]] - P.h[a[1]] * P.sigma[a[1]] || a[0] - b[0] || a[1] - b[1]);
  const forest = spanningForest(ordered.map(([f, t]) => ({ from: f, to: t })));
  const treeArcs = forest.treeArcs.map((a) => [a.from, a.to] as [number, number]);
  const { S, cost: relaxed } = treeDp(P, treeArcs);
  localSearch(P, S);
  return solution(P, S, 'spanning-tree-heuristic', forest.droppedArcs.length === 0, relaxed);
}

function localSearch(P: Prepared, S: number[]): void {
  // Inbound time from suppliers only; a stage's own τ is max(0, ·) of it (see inboundTimes).
  const supplied = (c: number, j: number, s: number): number => {
    let v = P.sIn[c];
    for (const i of P.preds[c]) v = Math.max(v, i === j ? s : S[i]);
    return v;
  };
  const cost = (c: number, si: number, s: number): number => stageCost(P, c, Math.max(0, si + P.T[c] - s));
  for (let pass = 0; pass < 100; pass++) {
    let improved = false;
    for (const j of P.topo) {
      const SIj = supplied(j, -1, 0);
      const current = cost(j, SIj, S[j]) + sum(P.succs[j].map((k) => cost(k, supplied(k, -1, 0), S[k])));
      let bestDelta = -1e-12 * Math.max(1, current), bestS = -1;
      for (let s = 0; s <= Math.min(P.sOut[j], SIj + P.T[j]); s++) {
        if (s === S[j]) continue;
        let c = cost(j, SIj, s);
        for (const k of P.succs[j]) c += cost(k, supplied(k, j, s), S[k]);
        if (c - current < bestDelta) {
          bestDelta = c - current;
          bestS = s;
        }
      }
      if (bestS >= 0) {
        S[j] = bestS;
        improved = true;
      }
    }
    if (!improved) break;
  }
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

/**
 * The envelope a parent reads a child's cost from: the minimum over every service time at or below x ('up': the
 * child quotes its customer at most x) or at or above x ('down': the child may wait at least x), with where it is.
 */
function runningMin(value: Float64Array, direction: 'up' | 'down'): [Float64Array, Int32Array] {
  const W = value.length;
  const env = new Float64Array(W), envArg = new Int32Array(W);
  let best = Infinity, arg = -1;
  for (let i = 0; i < W; i++) {
    const x = direction === 'up' ? i : W - 1 - i;
    if (value[x] < best) {
      best = value[x];
      arg = x;
    }
    env[x] = best;
    envArg[x] = arg;
  }
  return [env, envArg];
}
