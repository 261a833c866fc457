/**
 * Periodic-review (s,S) policy with discrete iid demand, fixed order cost K, holding h and backorder p per unit per
 * period: whenever the inventory position is at or below s, order up to S. Exact optimisation by Zheng & Federgruen
 * (1991), "Finding optimal (s,S) policies is about as simple as evaluating a single policy", Oper. Res. 39(4).
 */
import { newsvendorCost } from './baseStock';
import { convolutionPower, discreteDistribution, type DiscreteDistribution } from './discrete';

export interface SSParams {
  holdingCost: number;
  stockoutCost: number;
  fixedCost: number;
  /** Demand per period. */
  periodDemand: DiscreteDistribution;
  /** Whole periods between ordering and receipt; costs then fall on the demand over leadTime + 1 periods. */
  leadTime?: number;
}

export interface SSSolution {
  reorderPoint: number;
  orderUpToLevel: number;
  /** Expected cost per period. */
  cost: number;
}

/**
 * c(s,S) = [K + sum_{j=0}^{S-s-1} m(j) G(S-j)] / M(S-s), where m(j) is the expected number of periods the position
 * spends at S - j during a cycle and M(n) = sum_{j<n} m(j) the expected cycle length (renewal equations of ZF 1991).
 */
export function sSCost(s: number, S: number, params: SSParams): number {
  return createEvaluator(params).cost(s, S);
}

export function optimalSS(params: SSParams): SSSolution {
  const ev = createEvaluator(params);
  const { G, cost } = ev;
  const yStar = ev.minimiser;

  // Step 0: lower s from y* until the cycle cost of (s, y*) no longer exceeds G(s).
  let s = yStar;
  do s--;
  while (cost(s, yStar) > G(s));
  let bestS = yStar;
  let bestCost = cost(s, yStar);

  // Step 1: any better S has G(S) <= current best cost; on each improvement push s up while c(s, S) <= G(s + 1).
  for (let S = yStar + 1; G(S) <= bestCost; S++) {
    if (cost(s, S) < bestCost) {
      bestS = S;
      while (cost(s, bestS) <= G(s + 1)) s++;
      bestCost = cost(s, bestS);
    }
  }
  return { reorderPoint: s, orderUpToLevel: bestS, cost: bestCost };
}

function createEvaluator(params: SSParams) {
  const { holdingCost: h, stockoutCost: p, fixedCost: K, periodDemand } = params;
  if (!(h > 0) || !(p > 0) || !(K >= 0)) throw new RangeError('(s,S) needs h > 0, p > 0 and K >= 0');
  const L = params.leadTime ?? 0;
  if (!Number.isInteger(L) || L < 0) throw new RangeError(`lead time must be a whole number of periods, got ${L}`);
  const f = periodDemand.pmf;
  const f0 = f[0] ?? 0;
  if (f0 >= 1) throw new RangeError('(s,S) needs demand that is positive with positive probability');
  const charged = L === 0 ? periodDemand : discreteDistribution(convolutionPower(f, L + 1));
  const G = (y: number) => newsvendorCost(charged, y, h, p);

  // m and M grow on demand; each cost call is O(S - s).
  const m: number[] = [1 / (1 - f0)];
  const M: number[] = [0, m[0]!];
  const ensure = (n: number) => {
    for (let j = m.length; j < n; j++) {
      let acc = 0;
      for (let l = 1; l <= j && l < f.length; l++) acc += f[l]! * m[j - l]!;
      m.push(m[0]! * acc);
      M.push(M[j]! + m[j]!);
    }
  };
  const cost = (s: number, S: number): number => {
    if (!Number.isInteger(s) || !Number.isInteger(S) || S <= s) throw new RangeError(`(s,S) needs integers s < S, got (${s}, ${S})`);
    const n = S - s;
    ensure(n);
    let total = K;
    for (let j = 0; j < n; j++) total += m[j]! * G(S - j);
    return total / M[n]!;
  };
  const minimiser = charged.quantile(p / (p + h));
  return { G, cost, minimiser };
}
