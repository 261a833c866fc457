// Greedy marginal analysis (Sherbrooke, Optimal Inventory Modeling of Systems, 2nd ed., §2.5): buy the stock unit
// with the most service per unit of money, repeatedly, tracing the whole service-versus-investment curve. When each
// SKU-site's score is concave in its level, every point of the curve is optimal for its own investment (it
// maximises score − λ·cost for λ the next ratio), so picking a point by target or budget needs no re-solve.
// Scores must be additive across SKU-sites: −EBO, demand-weighted fill rate, or log-availability all are.

export interface MarginalSku {
  unitCost: number;
  /** Cumulative cost of holding a level, when it is not level × unitCost (e.g. hull points of a multi-echelon item). */
  levelCost?: (level: number) => number;
  /** Score at a stock level, higher is better, e.g. −EBO(level). */
  score: (level: number) => number;
  minLevel?: number;
  maxLevel: number;
}

export interface MarginalOptions {
  /**
   * Units looked ahead per step: the step taken is the run of 1..lookahead units with the best average ratio, which
   * bridges the non-concave start of fill-rate curves (Sherbrooke's convex-hull device). 1 = plain greedy.
   */
  lookahead?: number;
  /** Stop once the investment would exceed this. */
  maxInvestment?: number;
  /** Stop once the aggregate score reaches this. */
  stopAtScore?: number;
  /** Steps whose gain is not above this are never taken. */
  minGain?: number;
}

/** Columnar so that millions of steps stay cheap; point 0 is the starting allocation. */
export interface MarginalCurve {
  length: number;
  investment: Float64Array;
  score: Float64Array;
  /** SKU index changed by the step that reached the point (−1 for point 0). */
  sku: Int32Array;
  /** That SKU's new level. */
  level: Int32Array;
  startLevels: Int32Array;
}

export interface CurvePoint {
  index: number;
  investment: number;
  score: number;
  sku: number;
  level: number;
}

export function traceCurve(skus: readonly MarginalSku[], options: MarginalOptions = {}): MarginalCurve {
  const n = skus.length;
  const lookahead = Math.max(1, Math.floor(options.lookahead ?? 1));
  const maxInvestment = options.maxInvestment ?? Infinity;
  const stopAtScore = options.stopAtScore ?? Infinity;
  const minGain = options.minGain ?? 0;
  const level = new Int32Array(n);
  const current = new Float64Array(n);
  let investment = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const s = skus[i];
    if (!(s.unitCost > 0) && !s.levelCost) throw new Error(`SKU ${i}: unit cost must be positive`);
    level[i] = s.minLevel ?? 0;
    current[i] = s.score(level[i]);
    investment += costOf(s, level[i]);
    total += current[i];
  }
  const startLevels = Int32Array.from(level);
  const curve = new CurveBuilder(Math.max(16, n * 4));
  curve.push(investment, total, -1, -1);

  // Each SKU's best next step, ordered by ratio in a binary max-heap keyed by SKU.
  const ratio = new Float64Array(n);
  const stepUnits = new Int32Array(n);
  const stepGain = new Float64Array(n);
  const heap = new IndexHeap(n, ratio);
  const evaluate = (i: number): void => {
    const s = skus[i];
    let bestRatio = -Infinity, bestUnits = 0, bestGain = 0;
    for (let u = 1; u <= lookahead && level[i] + u <= s.maxLevel; u++) {
      const gain = s.score(level[i] + u) - current[i];
      const r = gain / (costOf(s, level[i] + u) - costOf(s, level[i]));
      if (r > bestRatio) {
        bestRatio = r;
        bestUnits = u;
        bestGain = gain;
      }
    }
    ratio[i] = bestRatio;
    stepUnits[i] = bestUnits;
    stepGain[i] = bestGain;
  };
  for (let i = 0; i < n; i++) {
    evaluate(i);
    if (stepUnits[i] > 0 && stepGain[i] > minGain) heap.push(i);
  }
  while (heap.size > 0 && total < stopAtScore) {
    const i = heap.peek();
    const cost = costOf(skus[i], level[i] + stepUnits[i]) - costOf(skus[i], level[i]);
    if (investment + cost > maxInvestment) {
      // A cheaper SKU further down may still fit; this one never will again.
      heap.pop();
      continue;
    }
    level[i] += stepUnits[i];
    current[i] += stepGain[i];
    investment += cost;
    total += stepGain[i];
    curve.push(investment, total, i, level[i]);
    evaluate(i);
    if (stepUnits[i] > 0 && stepGain[i] > minGain) heap.update(i);
    else heap.pop();
  }
  return curve.build(startLevels);
}

function costOf(s: MarginalSku, level: number): number {
  return s.levelCost ? s.levelCost(level) : level * s.unitCost;
}

export function curvePoint(curve: MarginalCurve, index: number): CurvePoint {
  return { index, investment: curve.investment[index], score: curve.score[index], sku: curve.sku[index], level: curve.level[index] };
}

/** First point whose score reaches the target, or null when the curve never does. */
export function pickByTarget(curve: MarginalCurve, targetScore: number): CurvePoint | null {
  // Scores rise along the curve (every step has a positive gain), so binary search applies.
  let lo = 0, hi = curve.length - 1;
  if (curve.score[hi] < targetScore) return null;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (curve.score[mid] >= targetScore) hi = mid;
    else lo = mid + 1;
  }
  return curvePoint(curve, lo);
}

/** Last point within the budget, or null when even the starting allocation exceeds it. */
export function pickByBudget(curve: MarginalCurve, budget: number): CurvePoint | null {
  let lo = 0, hi = curve.length - 1;
  if (curve.investment[0] > budget) return null;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (curve.investment[mid] <= budget) lo = mid;
    else hi = mid - 1;
  }
  return curvePoint(curve, lo);
}

/** Stock levels of every SKU at a point of the curve. */
export function levelsAt(curve: MarginalCurve, index: number): number[] {
  const level = Array.from(curve.startLevels);
  for (let k = 1; k <= index; k++) level[curve.sku[k]] = curve.level[k];
  return level;
}

class CurveBuilder {
  private investment: Float64Array;
  private score: Float64Array;
  private sku: Int32Array;
  private level: Int32Array;
  private n = 0;
  constructor(capacity: number) {
    this.investment = new Float64Array(capacity);
    this.score = new Float64Array(capacity);
    this.sku = new Int32Array(capacity);
    this.level = new Int32Array(capacity);
  }
  push(investment: number, score: number, sku: number, level: number): void {
    if (this.n === this.investment.length) this.grow();
    this.investment[this.n] = investment;
    this.score[this.n] = score;
    this.sku[this.n] = sku;
    this.level[this.n] = level;
    this.n++;
  }
  build(startLevels: Int32Array): MarginalCurve {
    const n = this.n;
    return { length: n, investment: this.investment.slice(0, n), score: this.score.slice(0, n), sku: this.sku.slice(0, n), level: this.level.slice(0, n), startLevels };
  }
  private grow(): void {
    const cap = this.investment.length * 2;
    const f = (a: Float64Array) => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    const g = (a: Int32Array) => {
      const b = new Int32Array(cap);
      b.set(a);
      return b;
    };
    this.investment = f(this.investment);
    this.score = f(this.score);
    this.sku = g(this.sku);
    this.level = g(this.level);
  }
}

/** Max-heap of indices keyed by key[index]; ties go to the lower index so runs are reproducible. */
class IndexHeap {
  private heap: Int32Array;
  private pos: Int32Array;
  size = 0;
  constructor(n: number, private readonly key: Float64Array) {
    this.heap = new Int32Array(n);
    this.pos = new Int32Array(n).fill(-1);
  }
  peek(): number {
    return this.heap[0];
  }
  push(i: number): void {
    this.heap[this.size] = i;
    this.pos[i] = this.size;
    this.size++;
    this.up(this.size - 1);
  }
  pop(): number {
    const top = this.heap[0];
    this.size--;
    this.pos[top] = -1;
    if (this.size > 0) {
      this.heap[0] = this.heap[this.size];
      this.pos[this.heap[0]] = 0;
      this.down(0);
    }
    return top;
  }
  /** Restores order after key[i] changed. */
  update(i: number): void {
    const p = this.pos[i];
    this.up(p);
    this.down(this.pos[i]);
  }
  private before(a: number, b: number): boolean {
    const ka = this.key[a], kb = this.key[b];
    return ka > kb || (ka === kb && a < b);
  }
  private up(p: number): void {
    const h = this.heap;
    const x = h[p];
    while (p > 0) {
      const q = (p - 1) >> 1;
      if (!this.before(x, h[q])) break;
      h[p] = h[q];
      this.pos[h[p]] = p;
      p = q;
    }
    h[p] = x;
    this.pos[x] = p;
  }
  private down(p: number): void {
    const h = this.heap;
    const x = h[p];
    for (;;) {
      const l = 2 * p + 1;
      if (l >= this.size) break;
      const c = l + 1 < this.size && this.before(h[l + 1], h[l]) ? l + 1 : l;
      if (!this.before(h[c], x)) break;
      h[p] = h[c];
      this.pos[h[p]] = p;
      p = c;
    }
    h[p] = x;
    this.pos[x] = p;
  }
}
