/**
 * The allocation model shared by the greedy allocator and the LP: supplies from the pool (pool.ts) against demand
 * lines, per (item, site).
 *
 * A supply s can serve a demand line d when they share item_id and site_id. It serves d on time when
 * arrival_week(s) <= due_week(d), else late by L(s, d) = arrival_week(s) - due_week(d) weeks. Supply arriving early
 * serves on time with no holding cost: the model has no inventory cost, only service value.
 *
 * Value of one unit of s given to d (the "arc value"):
 *
 *   v(s, d) = weight(d) * reliability(s) - latenessPenaltyPerWeek * L(s, d)
 *
 * The arc exists only when L(s, d) <= maxLatenessWeeks and v(s, d) > 0 (an arc worth nothing or less is never used by
 * an optimum, so the greedy must not use it either for the two objectives to be the same function).
 *
 *   maximise   sum over arcs of v(s, d) * x(s, d)
 *   subject to sum over d of x(s, d) <= qty(s)       for each supply   (conservation)
 *              sum over s of x(s, d) <= qty(d)       for each demand line
 *              x >= 0
 *
 * The penalty is absolute (not scaled by weight) on purpose: a unit for an A line (weight 3) is still worth serving
 * after more weeks of delay than a unit for a C line (weight 1), which is what a planner means by priority. The
 * reliability factor makes a firm order (1.0) preferred over an engine recommendation (0.85) for the same demand,
 * which is §4.3 rule 3 of document 2.
 *
 * A supply or demand line with qty <= 0 takes no part. Ids must be unique (supply_id across supplies, demand_id
 * across demand lines): results are keyed by them and ties are broken on them, which makes both allocators
 * independent of input order.
 */

export interface AllocationSupply {
  /** `SO_<id>` or `FIRM_<id>` (pool.ts); any unique string works. */
  supply_id: string;
  item_id: number;
  site_id: number;
  qty: number;
  arrival_week: number;
  /** 0.85 for engine recommendations, 1.0 for firm orders (pool.ts). */
  reliability: number;
}

export interface DemandLine {
  demand_id: string;
  item_id: number;
  site_id: number;
  qty: number;
  due_week: number;
  /** ABC class ('A', 'B', 'C') or a segment priority label; mapped to a weight by `AllocationParams.classWeights`. */
  priority_class: string | null;
}

export interface AllocationProblem {
  supplies: readonly AllocationSupply[];
  demands: readonly DemandLine[];
}

export interface AllocationParams {
  /** Weight per priority class. Higher is served first by the greedy and is worth more in the objective. */
  classWeights: Readonly<Record<string, number>>;
  /** Weight of a line whose class is null or not in `classWeights`. */
  defaultWeight: number;
  /** Objective units lost per unit served per week late. */
  latenessPenaltyPerWeek: number;
  /** A supply arriving more than this many weeks after the due week cannot serve the line; 0 means on time only. */
  maxLatenessWeeks: number;
}

/**
 * Defaults: A/B/C weights 3/2/1; unknown class as C. With penalty 0.05 per week an engine order (0.85) is still worth
 * serving a C line up to 8 weeks late (0.85 - 0.4 = 0.45 > 0), so the 8-week cap is the binding limit for every class.
 */
export const DEFAULT_ALLOCATION_PARAMS: AllocationParams = Object.freeze({
  classWeights: Object.freeze({ A: 3, B: 2, C: 1 }),
  defaultWeight: 1,
  latenessPenaltyPerWeek: 0.05,
  maxLatenessWeeks: 8,
});

/** One row of the result: qty of supply_id given to demand_id. */
export interface AllocationRow {
  supply_id: string;
  demand_id: string;
  item_id: number;
  site_id: number;
  qty: number;
  arrival_week: number;
  due_week: number;
  /** max(0, arrival_week - due_week). */
  late_weeks: number;
  reliability: number;
  /** Document 2 §2.3: 1 when supply_id starts with `FIRM_`, else 0. */
  is_firm: 0 | 1;
  /** v(s, d) of this arc; objective contribution is value * qty. */
  value: number;
}

export interface AllocationResult {
  method: 'greedy' | 'lp';
  /** Sorted by demand_id, then supply_id (code-unit order). */
  allocations: AllocationRow[];
  /** sum of value * qty over `allocations`, computed the same way for both methods. */
  objective: number;
  served_qty: number;
  late_qty: number;
  demand_qty: number;
  supply_qty: number;
  elapsed_ms: number;
}

export function resolveParams(params: Partial<AllocationParams> = {}): AllocationParams {
  const p: AllocationParams = { ...DEFAULT_ALLOCATION_PARAMS, ...params };
  for (const [cls, w] of Object.entries(p.classWeights)) {
    if (!(Number.isFinite(w) && w > 0)) throw new RangeError(`class weight of ${cls} must be a finite number > 0, got ${w}`);
  }
  if (!(Number.isFinite(p.defaultWeight) && p.defaultWeight > 0)) throw new RangeError(`defaultWeight must be > 0, got ${p.defaultWeight}`);
  if (!(Number.isFinite(p.latenessPenaltyPerWeek) && p.latenessPenaltyPerWeek >= 0)) {
    throw new RangeError(`latenessPenaltyPerWeek must be >= 0, got ${p.latenessPenaltyPerWeek}`);
  }
  if (!(Number.isInteger(p.maxLatenessWeeks) && p.maxLatenessWeeks >= 0)) {
    throw new RangeError(`maxLatenessWeeks must be an integer >= 0, got ${p.maxLatenessWeeks}`);
  }
  return p;
}

export function demandWeight(line: DemandLine, params: AllocationParams): number {
  const cls = line.priority_class;
  return cls !== null && Object.prototype.hasOwnProperty.call(params.classWeights, cls) ? params.classWeights[cls]! : params.defaultWeight;
}

export function lateWeeks(arrivalWeek: number, dueWeek: number): number {
  return arrivalWeek > dueWeek ? arrivalWeek - dueWeek : 0;
}

/** v(s, d), or null when the arc does not exist (different item/site, too late, or worth <= 0). */
export function arcValue(s: AllocationSupply, d: DemandLine, weight: number, params: AllocationParams): number | null {
  if (s.item_id !== d.item_id || s.site_id !== d.site_id) return null;
  const late = lateWeeks(s.arrival_week, d.due_week);
  if (late > params.maxLatenessWeeks) return null;
  const v = weight * s.reliability - params.latenessPenaltyPerWeek * late;
  return v > VALUE_EPSILON ? v : null;
}

/** Arcs worth less than this are treated as worthless, so float noise cannot decide whether an arc exists. */
export const VALUE_EPSILON = 1e-12;

export function isFirmSupplyId(supplyId: string): 0 | 1 {
  return supplyId.startsWith('FIRM_') ? 1 : 0;
}

/** Plain code-unit comparison, so ordering never depends on the process locale. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Checks the fields both allocators rely on and returns the lines and supplies that take part (qty > 0).
 * Throws on duplicate ids or non-finite numbers: a silently dropped row would show up as unexplained shortage.
 */
export function validateProblem(problem: AllocationProblem): { supplies: AllocationSupply[]; demands: DemandLine[] } {
  const seenS = new Set<string>();
  const supplies: AllocationSupply[] = [];
  for (const s of problem.supplies) {
    if (seenS.has(s.supply_id)) throw new RangeError(`duplicate supply_id ${s.supply_id}`);
    seenS.add(s.supply_id);
    if (!Number.isFinite(s.qty) || !Number.isFinite(s.arrival_week) || !Number.isFinite(s.reliability)) {
      throw new RangeError(`supply ${s.supply_id}: qty, arrival_week and reliability must be finite`);
    }
    if (!(s.reliability >= 0)) throw new RangeError(`supply ${s.supply_id}: reliability must be >= 0, got ${s.reliability}`);
    if (s.qty > 0) supplies.push(s);
  }
  const seenD = new Set<string>();
  const demands: DemandLine[] = [];
  for (const d of problem.demands) {
    if (seenD.has(d.demand_id)) throw new RangeError(`duplicate demand_id ${d.demand_id}`);
    seenD.add(d.demand_id);
    if (!Number.isFinite(d.qty) || !Number.isFinite(d.due_week)) throw new RangeError(`demand ${d.demand_id}: qty and due_week must be finite`);
    if (d.qty > 0) demands.push(d);
  }
  return { supplies, demands };
}

/** Group key of an (item, site) pair; the LP decomposes into independent blocks along it. */
export function groupKey(itemId: number, siteId: number): string {
  return `${itemId}|${siteId}`;
}

export interface Group {
  item_id: number;
  site_id: number;
  /** Sorted by supply_id. */
  supplies: AllocationSupply[];
  /** Sorted by demand_id. */
  demands: DemandLine[];
}

/** Groups with at least one supply and one demand line, in (item_id, site_id) order; members in id order. */
export function groupByItemSite(supplies: readonly AllocationSupply[], demands: readonly DemandLine[]): Group[] {
  const byKey = new Map<string, Group>();
  for (const d of demands) {
    const k = groupKey(d.item_id, d.site_id);
    let g = byKey.get(k);
    if (!g) byKey.set(k, (g = { item_id: d.item_id, site_id: d.site_id, supplies: [], demands: [] }));
    g.demands.push(d);
  }
  for (const s of supplies) byKey.get(groupKey(s.item_id, s.site_id))?.supplies.push(s);
  const groups = [...byKey.values()].filter((g) => g.supplies.length > 0);
  for (const g of groups) {
    g.supplies.sort((a, b) => compareIds(a.supply_id, b.supply_id));
    g.demands.sort((a, b) => compareIds(a.demand_id, b.demand_id));
  }
  return groups.sort((a, b) => a.item_id - b.item_id || a.site_id - b.site_id);
}

export function makeRow(s: AllocationSupply, d: DemandLine, qty: number, value: number): AllocationRow {
  return {
    supply_id: s.supply_id,
    demand_id: d.demand_id,
    item_id: d.item_id,
    site_id: d.site_id,
    qty,
    arrival_week: s.arrival_week,
    due_week: d.due_week,
    late_weeks: lateWeeks(s.arrival_week, d.due_week),
    reliability: s.reliability,
    is_firm: isFirmSupplyId(s.supply_id),
    value,
  };
}

export function summarise(
  method: AllocationResult['method'],
  supplies: readonly AllocationSupply[],
  demands: readonly DemandLine[],
  allocations: AllocationRow[],
  elapsedMs: number,
): AllocationResult {
  allocations.sort((a, b) => compareIds(a.demand_id, b.demand_id) || compareIds(a.supply_id, b.supply_id));
  let objective = 0;
  let served = 0;
  let late = 0;
  for (const a of allocations) {
    objective += a.value * a.qty;
    served += a.qty;
    if (a.late_weeks > 0) late += a.qty;
  }
  let demandQty = 0;
  for (const d of demands) demandQty += d.qty;
  let supplyQty = 0;
  for (const s of supplies) supplyQty += s.qty;
  return { method, allocations, objective, served_qty: served, late_qty: late, demand_qty: demandQty, supply_qty: supplyQty, elapsed_ms: elapsedMs };
}

export interface ConservationViolation {
  kind: 'supply' | 'demand' | 'arc';
  id: string;
  detail: string;
}

/**
 * Every check an allocation must pass, whichever method produced it: per supply allocated <= qty, per line allocated
 * <= qty, every row qty > 0 on an arc that exists with the value the model gives it. `tolerance` absorbs float sums.
 */
export function checkAllocation(
  problem: AllocationProblem,
  result: Pick<AllocationResult, 'allocations'>,
  paramsIn: Partial<AllocationParams> = {},
  tolerance = 1e-9,
): ConservationViolation[] {
  const params = resolveParams(paramsIn);
  const supplies = new Map(problem.supplies.map((s) => [s.supply_id, s]));
  const demands = new Map(problem.demands.map((d) => [d.demand_id, d]));
  const usedS = new Map<string, number>();
  const usedD = new Map<string, number>();
  const out: ConservationViolation[] = [];
  for (const a of result.allocations) {
    const s = supplies.get(a.supply_id);
    const d = demands.get(a.demand_id);
    const v = s && d ? arcValue(s, d, demandWeight(d, params), params) : null;
    if (!s || !d || v === null || !(a.qty > 0) || Math.abs(v - a.value) > 1e-12) {
      out.push({ kind: 'arc', id: `${a.supply_id}->${a.demand_id}`, detail: `qty ${a.qty}, value ${a.value}, model value ${v}` });
    }
    usedS.set(a.supply_id, (usedS.get(a.supply_id) ?? 0) + a.qty);
    usedD.set(a.demand_id, (usedD.get(a.demand_id) ?? 0) + a.qty);
  }
  for (const [id, used] of usedS) {
    const cap = Math.max(0, supplies.get(id)?.qty ?? 0);
    if (used > cap + tolerance * Math.max(1, cap)) out.push({ kind: 'supply', id, detail: `allocated ${used} > qty ${cap}` });
  }
  for (const [id, used] of usedD) {
    const cap = Math.max(0, demands.get(id)?.qty ?? 0);
    if (used > cap + tolerance * Math.max(1, cap)) out.push({ kind: 'demand', id, detail: `allocated ${used} > qty ${cap}` });
  }
  return out;
}
