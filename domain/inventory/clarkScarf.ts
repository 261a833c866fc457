// Serial systems under echelon base-stock policies: Clark & Scarf (1960) optimality, computed with the Chen & Zheng
// (1994) recursion in the notation of Snyder & Shen, Fundamentals of Supply Chain Theory, 2nd ed., §6.2:
//   g̲_0(x) = (p + h'_1)·x⁻,  ĝ_j(x) = h_j·x + g̲_{j−1}(x),  g_j(y) = E[ĝ_j(y − D_j)],
//   S*_j = argmin g_j,  g̲_j(x) = g_j(min(S*_j, x)),  optimal cost g_N(S*_N),
// where stage 1 faces demand, D_j is demand over stage j's lead time L_j, h_j echelon holding costs and
// h'_1 = Σ h_j the local holding cost at stage 1. Discrete demand is exact up to a 1e-15 tail; normal demand is
// integrated on a fine grid (hat-function weights, a parabola through the grid minimum), accurate to about 1e-6 relative.

import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import poissonQuantile from '@stdlib/stats-base-dists-poisson-quantile';

export type PeriodDemand =
  | { kind: 'normal'; mean: number; sd: number }
  | { kind: 'poisson'; mean: number }
  /** pmf[k] = P(demand in a period = k). */
  | { kind: 'discrete'; pmf: number[] };

export interface SerialStage {
  leadTime: number;
  echelonHoldingCost: number;
}

export interface SerialInstance {
  /** Stage 1 (the one facing customers) first. */
  stages: SerialStage[];
  stockoutCost: number;
  demand: PeriodDemand;
}

export interface SerialSolution {
  echelonBaseStock: number[];
  /** S_1, then S_j − S_{j−1} (never negative). */
  localBaseStock: number[];
  expectedCost: number;
}

export interface SerialOptions {
  /** Grid step for normal demand; defaults to σ/100 of the shortest positive lead time, widened if needed. */
  gridStep?: number;
}

const MAX_GRID = 400_000;
const TAIL = 1e-15;

export function optimizeSerialBaseStock(instance: SerialInstance, options: SerialOptions = {}): SerialSolution {
  const { echelon, cost } = chenZheng(instance, null, options);
  return { echelonBaseStock: echelon, localBaseStock: toLocal(echelon), expectedCost: cost };
}

/** Expected cost per period of given echelon base-stock levels (stage 1 first). */
export function serialExpectedCost(instance: SerialInstance, echelonBaseStock: readonly number[], options: SerialOptions = {}): number {
  if (echelonBaseStock.length !== instance.stages.length) throw new Error('one base-stock level per stage');
  return chenZheng(instance, echelonBaseStock, options).cost;
}

export function toLocal(echelon: readonly number[]): number[] {
  return echelon.map((s, j) => (j === 0 ? s : Math.max(0, s - echelon[j - 1])));
}

export function toEchelon(local: readonly number[]): number[] {
  let acc = 0;
  return local.map((s) => (acc += s));
}

interface LeadTimeDemand {
  /** Grid offsets k (demand = k·step) from kLo with weights w. */
  kLo: number;
  w: Float64Array;
  mean: number;
  sd: number;
}

function chenZheng(instance: SerialInstance, fixed: readonly number[] | null, options: SerialOptions): { echelon: number[]; cost: number } {
  validate(instance);
  const N = instance.stages.length;
  const H = instance.stages.reduce((a, s) => a + s.echelonHoldingCost, 0);
  const p = instance.stockoutCost;
  const discrete = instance.demand.kind !== 'normal';
  const perPeriod = periodMoments(instance.demand);
  const totalL = instance.stages.reduce((a, s) => a + s.leadTime, 0);
  const totalMean = perPeriod.mean * totalL;
  const totalSd = perPeriod.sd * Math.sqrt(totalL);

  let step = 1;
  if (!discrete) {
    const minL = Math.min(...instance.stages.map((s) => s.leadTime).filter((l) => l > 0), Infinity);
    step = options.gridStep ?? (perPeriod.sd * Math.sqrt(Number.isFinite(minL) ? minL : 1)) / 100;
    if (!(step > 0)) step = Math.max(1e-9, Math.abs(perPeriod.mean) / 1000 || 1);
  }
  const upperSpan = (d: LeadTimeDemand) => (d.kLo + d.w.length - 1) * step;
  let ltd = instance.stages.map((s) => leadTimeDemand(instance.demand, s.leadTime, step));
  const spread = 9 * Math.max(totalSd, step);
  let lo = Math.min(totalMean, 0) - spread - ltd.reduce((a, d) => a + Math.max(0, upperSpan(d)), 0);
  const hi = Math.max(totalMean, 0) + spread + Math.max(0, ...(fixed ?? []));
  if (!discrete && (hi - lo) / step > MAX_GRID) {
    step = (hi - lo) / MAX_GRID;
    ltd = instance.stages.map((s) => leadTimeDemand(instance.demand, s.leadTime, step));
    lo = Math.min(totalMean, 0) - spread - ltd.reduce((a, d) => a + Math.max(0, upperSpan(d)), 0);
  }
  lo = Math.floor(lo / step) * step;
  // Negative demand (normal tails) looks above the top; the padding holds the flat part of g̲ there.
  const pad = Math.max(0, ...ltd.map((d) => -d.kLo));
  const top = Math.ceil((hi - lo) / step);
  const size = top + 1 + pad;
  const x = (i: number) => lo + i * step;

  let gBar = new Float64Array(size);
  for (let i = 0; i < size; i++) gBar[i] = (p + H) * Math.max(0, -x(i));
  let validLo = 0;
  const echelon: number[] = [];
  let cost = 0;
  for (let j = 0; j < N; j++) {
    const hj = instance.stages[j].echelonHoldingCost;
    const gHat = new Float64Array(size);
    for (let i = 0; i < size; i++) gHat[i] = hj * x(i) + gBar[i];
    const { kLo, w } = ltd[j];
    const kHi = kLo + w.length - 1;
    const from = validLo + Math.max(0, kHi);
    const g = new Float64Array(size).fill(NaN);
    for (let i = from; i <= top; i++) {
      let acc = 0;
      const base = i - kLo;
      for (let k = 0; k < w.length; k++) acc += w[k] * gHat[base - k];
      g[i] = acc;
    }
    if (from > top) throw new Error('serial grid too small');
    let Sj: number, gS: number, iS: number;
    if (fixed) {
      Sj = fixed[j];
      iS = Math.min(top, Math.max(from, Math.round((Sj - lo) / step)));
      gS = interpolate(g, (Sj - lo) / step, from, top);
    } else {
      iS = from;
      for (let i = from + 1; i <= top; i++) if (g[i] < g[iS]) iS = i;
      if (iS === from || iS === top) throw new Error('serial optimum at the edge of the grid');
      Sj = x(iS);
      gS = g[iS];
      if (!discrete) {
        // The vertex of the parabola through the three grid points nearest the minimum.
        const a = g[iS - 1], b = g[iS], c = g[iS + 1];
        const denom = a - 2 * b + c;
        if (denom > 0) {
          const t = (0.5 * (a - c)) / denom;
          Sj = x(iS) + t * step;
          gS = b - 0.25 * (a - c) * t;
        }
      }
    }
    echelon.push(discrete ? Math.round(Sj) : Sj);
    cost = gS;
    const next = new Float64Array(size);
    for (let i = 0; i < size; i++) next[i] = i < from ? NaN : x(i) < Sj ? g[i] : gS;
    gBar = next;
    validLo = from;
  }
  return { echelon, cost };
}

const Phi = (z: number) => normalCdf(z, 0, 1);
const pdf = (z: number) => Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);

function interpolate(g: Float64Array, pos: number, from: number, top: number): number {
  if (pos <= from) return g[from];
  if (pos >= top) return g[top];
  const i = Math.floor(pos), t = pos - i;
  return t === 0 ? g[i] : g[i] * (1 - t) + g[i + 1] * t;
}

function validate(instance: SerialInstance): void {
  if (instance.stages.length === 0) throw new Error('a serial system needs at least one stage');
  if (!(instance.stockoutCost >= 0)) throw new Error('stockout cost must be non-negative');
  for (const s of instance.stages) {
    if (!(s.leadTime >= 0)) throw new Error('lead times must be non-negative');
    if (instance.demand.kind === 'discrete' && !Number.isInteger(s.leadTime)) throw new Error('discrete demand needs integer lead times');
  }
}

function periodMoments(d: PeriodDemand): { mean: number; sd: number } {
  if (d.kind === 'normal') return { mean: d.mean, sd: d.sd };
  if (d.kind === 'poisson') return { mean: d.mean, sd: Math.sqrt(d.mean) };
  let m = 0, m2 = 0;
  d.pmf.forEach((q, k) => {
    m += q * k;
    m2 += q * k * k;
  });
  return { mean: m, sd: Math.sqrt(Math.max(0, m2 - m * m)) };
}

function leadTimeDemand(d: PeriodDemand, L: number, step: number): LeadTimeDemand {
  if (L === 0) return { kLo: 0, w: Float64Array.of(1), mean: 0, sd: 0 };
  if (d.kind === 'normal') {
    const mean = d.mean * L, sd = d.sd * Math.sqrt(L);
    if (sd === 0) return { kLo: Math.round(mean / step), w: Float64Array.of(1), mean, sd };
    const kLo = Math.floor(normalQuantile(TAIL, mean, sd) / step);
    const kHi = Math.ceil(normalQuantile(1 - TAIL, mean, sd) / step);
    const w = new Float64Array(kHi - kLo + 1);
    // Weights of the hat functions on the grid: E[f(y − D)] is then exact for f piecewise linear between grid
    // points, which g̲_0 and ĝ_1 are (their kink at 0 is a grid point), and second-order accurate beyond.
    const u = (x: number) => (x - mean) / sd;
    const rising = (a: number, b: number) => sd * ((u(mean) - u(a)) * (Phi(u(b)) - Phi(u(a))) - (pdf(u(b)) - pdf(u(a)))) / step;
    const falling = (a: number, b: number) => (Phi(u(b)) - Phi(u(a))) - rising(a, b);
    for (let k = kLo; k <= kHi; k++) {
      const x0 = (k - 1) * step, x1 = k * step, x2 = (k + 1) * step;
      w[k - kLo] = (k > kLo ? rising(x0, x1) : Phi(u(x1))) + (k < kHi ? falling(x1, x2) : 1 - Phi(u(x1)));
    }
    return { kLo, w, mean, sd };
  }
  if (d.kind === 'poisson') {
    const mean = d.mean * L;
    const kHi = poissonQuantile(1 - TAIL, mean);
    const w = new Float64Array(kHi + 1);
    // Recurrence from the mode keeps the pmf accurate for large means where exp(−λ) underflows.
    const mode = Math.floor(mean);
    w[mode] = Math.exp(-mean + mode * Math.log(mean || 1) - logFactorial(mode));
    for (let k = mode + 1; k <= kHi; k++) w[k] = (w[k - 1] * mean) / k;
    for (let k = mode - 1; k >= 0; k--) w[k] = (w[k + 1] * (k + 1)) / mean;
    normaliseTail(w);
    return { kLo: 0, w, mean, sd: Math.sqrt(mean) };
  }
  let w: Float64Array = Float64Array.from(d.pmf);
  for (let l = 1; l < L; l++) w = convolve(w, Float64Array.from(d.pmf));
  normaliseTail(w);
  const m = periodMoments(d);
  return { kLo: 0, w, mean: m.mean * L, sd: m.sd * Math.sqrt(L) };
}

// The truncated tail goes into the last point so the weights stay a distribution.
function normaliseTail(w: Float64Array): void {
  let s = 0;
  for (let k = 0; k < w.length - 1; k++) s += w[k];
  w[w.length - 1] = Math.max(0, 1 - s);
}

function convolve(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length - 1);
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) for (let j = 0; j < b.length; j++) out[i + j] += a[i] * b[j];
  return out;
}

function logFactorial(k: number): number {
  let s = 0;
  for (let i = 2; i <= k; i++) s += Math.log(i);
  return s;
}
