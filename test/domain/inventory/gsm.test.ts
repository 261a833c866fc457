import { evaluateGsm, GsmInstance, solveGsm, solveGsmEnumeration, solveGsmHeuristic, solveGsmTree } from '../../../domain/inventory/gsm';

// Deterministic generator so failures reproduce.
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

/** Independent brute force over every S_j in 0..min(s_j, M_j), SI_j = max(si_j, S_i of suppliers, S_j − T_j). */
function bruteForce(inst: GsmInstance): number {
  const n = inst.stages.length;
  const idx = new Map(inst.stages.map((s, i) => [s.id, i]));
  const preds: number[][] = inst.stages.map(() => []);
  const succs: number[][] = inst.stages.map(() => []);
  for (const a of inst.arcs) {
    preds[idx.get(a.to)!].push(idx.get(a.from)!);
    succs[idx.get(a.from)!].push(idx.get(a.to)!);
  }
  const variance = new Array(n).fill(-1);
  const v = (j: number): number => (variance[j] >= 0 ? variance[j] : (variance[j] = (inst.stages[j].demandStd ?? 0) ** 2 + succs[j].reduce((a, c) => a + v(c), 0)));
  const M = new Array(n).fill(-1);
  const m = (j: number): number => (M[j] >= 0 ? M[j] : (M[j] = inst.stages[j].processingTime + Math.max(inst.stages[j].inboundServiceTime ?? 0, ...preds[j].map(m))));
  const hi = inst.stages.map((s, j) => Math.min(s.maxServiceTime ?? (succs[j].length ? Infinity : 0), m(j)));
  const S = new Array(n).fill(0);
  let best = Infinity;
  const z = inst.safetyFactor ?? 1;
  const rec = (j: number): void => {
    if (j === n) {
      let cost = 0;
      for (let k = 0; k < n; k++) {
        const st = inst.stages[k];
        const SI = Math.max(st.inboundServiceTime ?? 0, S[k] - st.processingTime, ...preds[k].map((i) => S[i]));
        cost += st.holdingCost * z * Math.sqrt(v(k)) * Math.sqrt(SI + st.processingTime - S[k]);
      }
      best = Math.min(best, cost);
      return;
    }
    for (let s = 0; s <= hi[j]; s++) {
      S[j] = s;
      rec(j + 1);
    }
  };
  rec(0);
  return best;
}

function randomInstance(r: () => number, n: number, extraArcs: number): GsmInstance {
  const arcs: { from: number; to: number }[] = [];
  // Orient every arc from lower to higher rank of a random permutation so the graph stays acyclic.
  const rank = Array.from({ length: n }, (_, i) => i).sort(() => r() - 0.5);
  const orient = (a: number, b: number) => (rank[a] < rank[b] ? { from: a + 1, to: b + 1 } : { from: b + 1, to: a + 1 });
  for (let k = 1; k < n; k++) arcs.push(orient(int(r, 0, k - 1), k));
  for (let e = 0; e < extraArcs; e++) {
    const a = int(r, 0, n - 1), b = int(r, 0, n - 1);
    if (a === b) continue;
    const arc = orient(a, b);
    if (!arcs.some((x) => x.from === arc.from && x.to === arc.to)) arcs.push(arc);
  }
  const hasSucc = new Set(arcs.map((a) => a.from));
  const hasPred = new Set(arcs.map((a) => a.to));
  return {
    safetyFactor: 1 + r() * 2,
    arcs,
    stages: Array.from({ length: n }, (_, i) => ({
      id: i + 1,
      processingTime: int(r, 0, 2),
      holdingCost: 0.1 + r() * 5,
      demandStd: !hasSucc.has(i + 1) || r() < 0.2 ? 0.5 + r() * 10 : 0,
      maxServiceTime: !hasSucc.has(i + 1) ? int(r, 0, 2) : undefined,
      inboundServiceTime: !hasPred.has(i + 1) && r() < 0.5 ? int(r, 0, 1) : undefined,
    })),
  };
}

describe('GSM tree DP (Graves & Willems 2000)', () => {
  // Snyder & Shen, Fundamentals of Supply Chain Theory, 2nd ed. (2019), Example 6.5: stage 1 (T=2, h=1, si=1)
  // feeds stage 3 (T=1, h=2), which feeds demand stages 2 (T=1, h=3, s=0) and 4 (T=1, h=3, s=1), σ=1 each, z=1.
  // Optimal S = (0, 0, 0, 1): τ = (3, 1, 1, 0) and cost √2·√3 + 2·√2 + 3·1 = 8.27791686752937
  // (stockpyl 1.0.2 gives 8.277916867529369 and the same service times).
  const example65: GsmInstance = {
    safetyFactor: 1,
    stages: [
      { id: 1, processingTime: 2, holdingCost: 1, inboundServiceTime: 1 },
      { id: 3, processingTime: 1, holdingCost: 2 },
      { id: 2, processingTime: 1, holdingCost: 3, demandStd: 1, maxServiceTime: 0 },
      { id: 4, processingTime: 1, holdingCost: 3, demandStd: 1, maxServiceTime: 1 },
    ],
    arcs: [
      { from: 1, to: 3 },
      { from: 3, to: 2 },
      { from: 3, to: 4 },
    ],
  };

  it('solves Snyder & Shen Example 6.5 exactly', () => {
    const sol = solveGsmTree(example65);
    expect(sol.cost).toBeCloseTo(Math.sqrt(6) + 2 * Math.sqrt(2) + 3, 12);
    expect(sol.cost).toBeCloseTo(8.277916867529369, 12);
    expect(Object.fromEntries(sol.stages.map((s) => [s.id, s.serviceTime]))).toEqual({ 1: 0, 3: 0, 2: 0, 4: 1 });
    expect(sol.stages.map((s) => s.netLeadTime)).toEqual([3, 1, 1, 0]);
    expect(sol.exact).toBe(true);
    expect(sol.method).toBe('tree-dp');
  });

  // Snyder & Shen (2019) Figure 6.14 instance as shipped by stockpyl ("figure_6_14"): an assembly tree of 10 stages.
  it('matches stockpyl 1.0.2 on the Figure 6.14 assembly tree', () => {
    const T = [2, 3, 2, 4, 2, 3, 6, 4, 3, 2];
    const h = [0.01, 0.03, 0.04, 0.06, 0.12, 0.13, 0.2, 0.08, 0.04, 0.5];
    const succ = [2, 3, 5, 5, 6, 10, 10, 10, 10, 0];
    const inst: GsmInstance = {
      safetyFactor: 1.6448536269514722,
      stages: T.map((t, i) => ({ id: i + 1, processingTime: t, holdingCost: h[i], ...(i === 9 ? { demandStd: 10, maxServiceTime: 2 } : {}) })),
      arcs: succ.flatMap((s, i) => (s ? [{ from: i + 1, to: s }] : [])),
    };
    const sol = solveGsm(inst);
    // stockpyl 1.0.2 gives 18.824004472592172 with S = {1:0, 2:3, 3:5, 4:4, 5:7, 6:0, 7:0, 8:0, 9:0, 10:2}
    expect(sol.cost).toBeCloseTo(18.824004472592172, 9);
    expect(evaluateGsm(inst, [0, 3, 5, 4, 7, 0, 0, 0, 0, 2]).cost).toBeCloseTo(18.824004472592172, 9);
  });

  it('matches stockpyl 1.0.2 on Snyder & Shen Problems 6.8 (serial, external si = 7) and 6.9 (tree)', () => {
    const z68 = 2.0537489106318225;
    const T68 = [5, 10, 2, 15, 8, 5, 9, 5, 1, 5];
    const h68 = [5.73, 4.56, 3.04, 2.93, 2.47, 2.37, 1.15, 1.1, 0.98, 0.87];
    const p68: GsmInstance = {
      safetyFactor: z68,
      stages: T68.map((t, i) => ({ id: i + 1, processingTime: t, holdingCost: h68[i], ...(i === 0 ? { demandStd: 15.8, maxServiceTime: 3 } : {}), ...(i === 9 ? { inboundServiceTime: 7 } : {}) })),
      arcs: T68.slice(1).map((_, i) => ({ from: i + 2, to: i + 1 })),
    };
    // stockpyl 1.0.2 gives 1378.3020369043727
    expect(solveGsm(p68).cost).toBeCloseTo(1378.3020369043727, 8);

    const p69: GsmInstance = {
      safetyFactor: 4,
      stages: [
        { id: 1, processingTime: 7, holdingCost: 44 / 365, demandStd: 4.1, maxServiceTime: 3 },
        { id: 2, processingTime: 7, holdingCost: 28 / 365, demandStd: 6.2, maxServiceTime: 3 },
        { id: 3, processingTime: 21, holdingCost: 18 / 365 },
        { id: 4, processingTime: 3, holdingCost: 1 / 365 },
        { id: 5, processingTime: 8, holdingCost: 4 / 365 },
        { id: 6, processingTime: 2, holdingCost: 1.5 / 365 },
      ],
      arcs: [
        { from: 3, to: 1 },
        { from: 3, to: 2 },
        { from: 4, to: 3 },
        { from: 5, to: 3 },
        { from: 6, to: 5 },
      ],
    };
    // stockpyl 1.0.2 gives 15.649530249501026 with S = {1:3, 2:3, 3:0, 4:0, 5:0, 6:2}
    const sol = solveGsm(p69);
    expect(sol.cost).toBeCloseTo(15.649530249501026, 9);
    expect(sol.stages.map((s) => s.serviceTime)).toEqual([3, 3, 0, 0, 0, 2]);
  });

  it('equals brute force on 300 random trees mixing assembly and distribution', () => {
    const r = lcg(42);
    for (let k = 0; k < 300; k++) {
      const inst = randomInstance(r, int(r, 1, 5), 0);
      const sol = solveGsmTree(inst);
      const bf = bruteForce(inst);
      expect(Math.abs(sol.cost - bf)).toBeLessThan(1e-9 * Math.max(1, bf));
      // The reported service times realise the reported cost.
      expect(evaluateGsm(inst, sol.stages.map((s) => s.serviceTime)).cost).toBeCloseTo(sol.cost, 9);
      for (const s of sol.stages) expect(s.netLeadTime).toBeGreaterThanOrEqual(0);
    }
  });

  it('on DAGs: enumeration equals brute force; the heuristic is feasible and bracketed by its bound', () => {
    const r = lcg(7);
    let dags = 0;
    for (let k = 0; k < 150; k++) {
      const inst = randomInstance(r, int(r, 3, 5), int(r, 1, 3));
      const bf = bruteForce(inst);
      const exact = solveGsmEnumeration(inst)!;
      expect(Math.abs(exact.cost - bf)).toBeLessThan(1e-9 * Math.max(1, bf));
      const heur = solveGsmHeuristic(inst);
      expect(heur.cost).toBeGreaterThanOrEqual(bf - 1e-9);
      expect(heur.lowerBound).toBeLessThanOrEqual(bf + 1e-9);
      expect(evaluateGsm(inst, heur.stages.map((s) => s.serviceTime)).feasible).toBe(true);
      const auto = solveGsm(inst);
      expect(auto.cost).toBeCloseTo(bf, 9);
      if (auto.method !== 'tree-dp') dags++;
    }
    expect(dags).toBeGreaterThan(50);
  });

  it('falls back to the heuristic when the enumeration budget runs out', () => {
    const r = lcg(99);
    const inst = randomInstance(r, 12, 6);
    const sol = solveGsm(inst, { maxEnumerationNodes: 10 });
    expect(['spanning-tree-heuristic', 'enumeration']).toContain(sol.method);
    expect(sol.lowerBound).toBeLessThanOrEqual(sol.cost + 1e-9);
    expect(evaluateGsm(inst, sol.stages.map((s) => s.serviceTime)).cost).toBeCloseTo(sol.cost, 9);
  });

  it('rejects cycles naming the stages, unknown stages and fractional times', () => {
    const base = { processingTime: 1, holdingCost: 1, demandStd: 1 };
    expect(() => solveGsm({ stages: [{ id: 3, ...base }, { id: 5, ...base }], arcs: [{ from: 3, to: 5 }, { from: 5, to: 3 }] })).toThrow('route cycle: 3 → 5 → 3');
    expect(() => solveGsm({ stages: [{ id: 1, ...base }], arcs: [{ from: 1, to: 2 }] })).toThrow(/unknown stage/);
    expect(() => solveGsm({ stages: [{ id: 1, ...base, processingTime: 1.5 }], arcs: [] })).toThrow(/integer/);
  });

  it('solves a 1,000-stage random tree quickly', () => {
    const r = lcg(5);
    const n = 1000;
    const arcs = Array.from({ length: n - 1 }, (_, i) => {
      const k = i + 1, o = int(r, Math.max(0, k - 20), k - 1);
      return r() < 0.5 ? { from: o + 1, to: k + 1 } : { from: k + 1, to: o + 1 };
    });
    const hasSucc = new Set(arcs.map((a) => a.from));
    const inst: GsmInstance = {
      safetyFactor: 1.65,
      arcs,
      stages: Array.from({ length: n }, (_, i) => ({ id: i + 1, processingTime: int(r, 1, 5), holdingCost: 1 + r(), demandStd: hasSucc.has(i + 1) ? 0 : 5 + 10 * r() })),
    };
    const sol = solveGsm(inst);
    expect(sol.method).toBe('tree-dp');
    expect(sol.stages).toHaveLength(n);
  });
});
