/**
 * The allocation model of model.ts solved exactly as a linear program with HiGHS (npm `highs`, WebAssembly).
 *
 * One column per arc (s, d) with cost v(s, d) (maximised), bounds 0 <= x <= min(qty(s), qty(d)); one row per supply
 * (sum <= qty(s)) and per demand line (sum <= qty(d)) that has an arc. The matrix is given column-wise (CSC) through
 * the structured API rather than as LP text: no names to generate and parse, two nonzeros per column.
 *
 * The LP is block diagonal by (item, site). Groups are packed into batches of up to `batchColumns` columns, each
 * batch one HiGHS model; a batch per group pays the model set-up per group, one model for everything makes one large
 * simplex. The default was measured (test/domain/allocation/timing.test.ts prints the comparison).
 *
 * The model is always feasible (x = 0) and bounded (x <= min of the quantities), so anything but "optimal" is a
 * time limit or a solver failure; it throws AllocationLpError. A throw from inside HiGHS leaves the Wasm instance in
 * an unknown state (LIBRARIES.md): the runtime is discarded and reloaded and the batch retried once.
 *
 * The transportation matrix is totally unimodular, so with whole quantities a simplex vertex is whole too; HiGHS
 * returns it up to float noise, which is cleaned (values below 1e-9 dropped, then any row over its quantity scaled
 * back onto it) so conservation holds exactly as the greedy's does.
 */
import loadHighs, { type Highs } from 'highs';
import {
  type AllocationParams,
  type AllocationProblem,
  type AllocationResult,
  type AllocationRow,
  type AllocationSupply,
  type DemandLine,
  type Group,
  arcValue,
  demandWeight,
  groupByItemSite,
  makeRow,
  resolveParams,
  summarise,
  validateProblem,
} from './model';

export interface LpOptions {
  /** Upper bound on columns per HiGHS model; whole groups are packed, a larger group is a model of its own. */
  batchColumns: number;
  /** Wall-clock limit for all batches together; past it the solve throws AllocationLpError. */
  timeLimitSeconds: number;
}

export const DEFAULT_LP_OPTIONS: LpOptions = Object.freeze({ batchColumns: 2_000, timeLimitSeconds: Infinity });

export interface LpAllocationResult extends AllocationResult {
  method: 'lp';
  lp: {
    highs_version: string;
    batches: number;
    columns: number;
    rows: number;
    /** Sum of the HiGHS objective values before clean-up; equals `objective` up to float noise. */
    solver_objective: number;
    build_ms: number;
    solve_ms: number;
    /** Times the runtime was reloaded after a throw. */
    reloads: number;
  };
}

export class AllocationLpError extends Error {
  constructor(
    message: string,
    readonly status: string,
  ) {
    super(message);
    this.name = 'AllocationLpError';
  }
}

// One Wasm runtime per process: loading compiles ~3.5 MB of Wasm, far more than a small solve costs.
let runtime: Promise<Highs> | null = null;

/** The shared HiGHS runtime, loaded on first use. */
export function getHighs(): Promise<Highs> {
  if (!runtime) {
    const loading = loadHighs();
    runtime = loading;
    loading.catch(() => {
      if (runtime === loading) runtime = null;
    });
  }
  return runtime;
}

/** Drops the shared runtime so the next getHighs() loads a fresh one (after a throw inside HiGHS). */
export function discardHighs(): void {
  runtime = null;
}

interface Arc {
  s: AllocationSupply;
  d: DemandLine;
  value: number;
}

/** Arcs of one group in (supply_id, demand_id) order. */
function groupArcs(g: Group, params: AllocationParams): Arc[] {
  const weights = g.demands.map((d) => demandWeight(d, params));
  const arcs: Arc[] = [];
  for (const s of g.supplies) {
    for (let j = 0; j < g.demands.length; j++) {
      const d = g.demands[j]!;
      const value = arcValue(s, d, weights[j]!, params);
      if (value !== null) arcs.push({ s, d, value });
    }
  }
  return arcs;
}

interface Batch {
  arcs: Arc[];
}

function packBatches(groups: Group[], params: AllocationParams, batchColumns: number): Batch[] {
  const batches: Batch[] = [];
  let current: Arc[] = [];
  for (const g of groups) {
    const arcs = groupArcs(g, params);
    if (arcs.length === 0) continue;
    if (current.length > 0 && current.length + arcs.length > batchColumns) {
      batches.push({ arcs: current });
      current = [];
    }
    for (const a of arcs) current.push(a);
  }
  if (current.length > 0) batches.push({ arcs: current });
  return batches;
}

interface BatchSolution {
  x: Float64Array;
  objective: number;
  rows: number;
}

function solveBatch(highs: Highs, arcs: Arc[], timeLimitSeconds: number): BatchSolution {
  // Supply rows first, then demand rows, so each column's two row indices are already ascending.
  const supplyRow = new Map<string, number>();
  const supplyCap: number[] = [];
  for (const a of arcs) {
    if (!supplyRow.has(a.s.supply_id)) {
      supplyRow.set(a.s.supply_id, supplyCap.length);
      supplyCap.push(a.s.qty);
    }
  }
  const demandRow = new Map<string, number>();
  const demandCap: number[] = [];
  for (const a of arcs) {
    if (!demandRow.has(a.d.demand_id)) {
      demandRow.set(a.d.demand_id, demandCap.length);
      demandCap.push(a.d.qty);
    }
  }
  const nS = supplyCap.length;
  const numRows = nS + demandCap.length;
  const numCols = arcs.length;
  const colCost = new Float64Array(numCols);
  const colLower = new Float64Array(numCols);
  const colUpper = new Float64Array(numCols);
  const starts = new Int32Array(numCols + 1);
  const indices = new Int32Array(2 * numCols);
  const values = new Float64Array(2 * numCols).fill(1);
  for (let j = 0; j < numCols; j++) {
    const a = arcs[j]!;
    colCost[j] = a.value;
    colUpper[j] = Math.min(a.s.qty, a.d.qty);
    starts[j] = 2 * j;
    indices[2 * j] = supplyRow.get(a.s.supply_id)!;
    indices[2 * j + 1] = nS + demandRow.get(a.d.demand_id)!;
  }
  starts[numCols] = 2 * numCols;
  const rowUpper = Float64Array.from([...supplyCap, ...demandCap]);
  const rowLower = new Float64Array(numRows).fill(-highs.infinity);

  return highs.withModel(
    {
      numCols,
      numRows,
      sense: highs.constants.objectiveSense.maximize,
      colCost,
      colLower,
      colUpper,
      rowLower,
      rowUpper,
      matrix: { format: 'csc', numRows, numCols, starts, indices, values },
    },
    (model) => {
      model.options.set({ output_flag: false });
      if (Number.isFinite(timeLimitSeconds)) model.options.set('time_limit', Math.max(0.001, timeLimitSeconds));
      const { modelStatus } = model.run();
      if (modelStatus !== highs.constants.modelStatus.optimal) {
        throw new AllocationLpError(`HiGHS ended with model status ${statusName(highs, modelStatus)}`, statusName(highs, modelStatus));
      }
      return { x: model.getSolution().colValue, objective: model.getObjectiveValue(), rows: numRows };
    },
  );
}

function statusName(highs: Highs, code: number): string {
  for (const [name, value] of Object.entries(highs.constants.modelStatus)) if (value === code) return name;
  return String(code);
}

const ZERO = 1e-9;

/**
 * Drops float noise and pulls any supply or demand total back onto its quantity (HiGHS meets rows to a 1e-7
 * feasibility tolerance; the result must meet them exactly like the greedy's).
 */
function cleanSolution(arcs: Arc[], x: Float64Array): void {
  for (let j = 0; j < x.length; j++) if (!(x[j]! > ZERO)) x[j] = 0;
  for (const [key, cap] of [
    [(a: Arc) => a.s.supply_id, (a: Arc) => a.s.qty],
    [(a: Arc) => a.d.demand_id, (a: Arc) => a.d.qty],
  ] as const) {
    const total = new Map<string, number>();
    for (let j = 0; j < arcs.length; j++) if (x[j]! > 0) total.set(key(arcs[j]!), (total.get(key(arcs[j]!)) ?? 0) + x[j]!);
    for (let j = 0; j < arcs.length; j++) {
      if (!(x[j]! > 0)) continue;
      const t = total.get(key(arcs[j]!))!;
      const c = cap(arcs[j]!);
      if (t > c) x[j] = x[j]! * (c / t);
    }
  }
}

export async function allocateLp(
  problem: AllocationProblem,
  paramsIn: Partial<AllocationParams> = {},
  optionsIn: Partial<LpOptions> = {},
): Promise<LpAllocationResult> {
  const t0 = Date.now();
  const params = resolveParams(paramsIn);
  const options: LpOptions = { ...DEFAULT_LP_OPTIONS, ...optionsIn };
  if (!(options.batchColumns >= 1)) throw new RangeError(`batchColumns must be >= 1, got ${options.batchColumns}`);
  const { supplies, demands } = validateProblem(problem);
  const batches = packBatches(groupByItemSite(supplies, demands), params, options.batchColumns);
  const buildMs = Date.now() - t0;

  let highs = await getHighs();
  const rows: AllocationRow[] = [];
  let solverObjective = 0;
  let columns = 0;
  let rowCount = 0;
  let reloads = 0;
  for (const batch of batches) {
    const remaining = options.timeLimitSeconds - (Date.now() - t0) / 1000;
    if (remaining <= 0) throw new AllocationLpError('time limit reached before every batch was solved', 'timeLimit');
    let sol: BatchSolution;
    try {
      sol = solveBatch(highs, batch.arcs, remaining);
    } catch (e) {
      if (e instanceof AllocationLpError) throw e;
      discardHighs();
      highs = await getHighs();
      reloads++;
      try {
        sol = solveBatch(highs, batch.arcs, remaining);
      } catch (again) {
        if (!(again instanceof AllocationLpError)) discardHighs();
        throw again;
      }
    }
    cleanSolution(batch.arcs, sol.x);
    for (let j = 0; j < batch.arcs.length; j++) {
      if (sol.x[j]! > 0) {
        const a = batch.arcs[j]!;
        rows.push(makeRow(a.s, a.d, sol.x[j]!, a.value));
      }
    }
    solverObjective += sol.objective;
    columns += batch.arcs.length;
    rowCount += sol.rows;
  }
  const solveMs = Date.now() - t0 - buildMs;
  const result = summarise('lp', supplies, demands, rows, Date.now() - t0);
  return {
    ...result,
    method: 'lp',
    lp: {
      highs_version: highs.version.string,
      batches: batches.length,
      columns,
      rows: rowCount,
      solver_objective: solverObjective,
      build_ms: buildMs,
      solve_ms: solveMs,
      reloads,
    },
  };
}
