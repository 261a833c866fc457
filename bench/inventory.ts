/**
 * `npm run bench:inventory`: the inventory engines (domain/inventory/) against stockpyl 1.0.2 in the same run, and the
 * speed targets of the inventory steps.
 *
 * (a) Agreement. Seeded random instances per model (--instances, default 300), solved by ours and by stockpyl
 *     (bench/peers/stockpyl_runner.py, a child process): EOQ; Wagner-Whitin (12-52 periods, some zero demands);
 *     (r,Q) with Poisson demand (Federgruen-Zheng, both exact) and with normal demand (ours: the exact optimum;
 *     stockpyl: the Hadley-Whitin loss-function iteration, whose fixed point is that optimum, to its tolerance 1e-6);
 *     (s,S) with Poisson demand (Zheng-Federgruen, both exact); base stock (newsvendor on Poisson or normal lead-time
 *     demand); GSM on random trees of 2-12 stages (Graves-Willems DP, both exact); Clark-Scarf serial systems of 2-5
 *     stages with Poisson demand (Chen-Zheng; stockpyl with its tails at 1e-12). Reported per model: the largest
 *     difference in the decision (order quantity, reorder point, levels, service times) and in the cost (relative),
 *     how many decisions are identical, and stockpyl's failures.
 * (b) Time per SKU, single-threaded, solver call only: (r,Q) optimisation (Poisson and normal) and GSM (one tree = one
 *     item's network), ours timed in process over the same instances (repeated until 0.5 s), stockpyl as its runner
 *     timed each call; the ratio is stockpyl's time over ours. The peer runs before ours, not beside it.
 * (c) Speed targets, in process: the exchange curve for 10,000 items (the unconstrained curve, the curve constrained
 *     to 1, 2, 4, 6, 12, 24, 52 orders a year, and every item's frequency plan at one k) under 1 s; Wagner-Whitin for
 *     10,000 items × 52 weeks under 5 s; planItemNetwork over 10,000 SKU-sites of networks built like the demo
 *     generator's (scripts/demoData/generator.ts, seed 42: 2 plants → DCs → stores over REPLENISHMENT routes, the
 *     generator's item-site costs, lead times, MOQs and order multiples, weekly demand from each series' planted
 *     process: Poisson or negative binomial by its two moments, normal above 100 a week; the scenario defaults:
 *     fill rate 0.95, (r,Q), holding rate 0.25, ordering cost 50), reported as SKU-sites per second.
 *
 * stockpyl lives in a throwaway virtual environment outside the repository, ~/.cache/planning-platform/stockpyl-venv,
 * created on first use with `python3 -m venv` and `pip install stockpyl==1.0.2 "numpy<2"` (its Poisson paths call
 * numpy aliases that numpy 2 removed); when that fails the peer is reported as unavailable.
 *
 *   npm run bench:inventory                          # everything; writes docs/BENCHMARKS.md
 *   npm run bench:inventory -- --no-python --no-doc  # options: --instances N (300) --seed N (42)
 * Exit status 1 when a target is missed or stockpyl disagrees beyond the tolerances below.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { optimalBaseStock } from '../domain/inventory/baseStock';
import { optimizeSerialBaseStock, type SerialInstance } from '../domain/inventory/clarkScarf';
import { eoq } from '../domain/inventory/eoq';
import { constrainedExchangeCurve, DEFAULT_ALLOWED_ORDERS_PER_YEAR, exchangeCurve, itemFrequencyPlan, kForTargetOrders, type ExchangeItem } from '../domain/inventory/exchangeCurve';
import { solveGsm, type GsmInstance } from '../domain/inventory/gsm';
import { leadTimeDemand, normalDistribution, type DemandDistribution } from '../domain/inventory/leadTimeDemand';
import { planItemNetwork, type MeioRoute, type MeioSite, type SiteTarget } from '../domain/inventory/meio';
import { optimalRQContinuous, optimalRQDiscrete, rqCost } from '../domain/inventory/rq';
import { optimalSS } from '../domain/inventory/sS';
import { wagnerWhitin } from '../domain/inventory/wagnerWhitin';
import { REPO_ROOT } from '../lib/env';
import { createDemoPlan, generateMasterData, seriesTruth } from '../scripts/demoData/generator';
import { Rng } from '../scripts/demoData/random';
import { fixed, int, markdownTable, replaceBlock, textTable } from './lib/report';

const log = (msg: string): void => {
  process.stderr.write(`[bench:inventory] ${msg}\n`);
};

interface Args {
  python: boolean;
  instances: number;
  seed: number;
  doc: boolean;
}

function parseArgs(argv: string[]): Args {
  const known = ['--no-python', '--instances', '--seed', '--no-doc', '--help'];
  for (const a of argv) if (a.startsWith('--') && !known.includes(a)) throw new Error(`unknown option ${a} (known: ${known.join(' ')})`);
  if (argv.includes('--help')) {
    process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0].replace(/^\/\*\*?|^ \* ?/gm, '') + '\n');
    process.exit(0);
  }
  const int_ = (name: string, dflt: number, min: number): number => {
    const i = argv.indexOf(name);
    if (i < 0) return dflt;
    const n = Number(argv[i + 1]);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got '${argv[i + 1]}'`);
    return n;
  };
  return { python: !argv.includes('--no-python'), instances: int_('--instances', 300, 1), seed: int_('--seed', 42, 0), doc: !argv.includes('--no-doc') };
}

// ---------------------------------------------------------------------------------------------------------------
// instances: plain JSON, read by ours and by the Python runner alike

const r2 = (x: number) => Math.round(x * 100) / 100;

interface EoqX { K: number; h: number; lam: number }
interface WwX { d: number[]; K: number; h: number }
interface RqPoissonX { h: number; p: number; K: number; lam: number; L: number }
interface RqNormalX { h: number; p: number; K: number; lam: number; sd: number; L: number }
interface SsX { h: number; p: number; K: number; mu: number }
interface BaseStockX { kind: 'poisson' | 'normal'; h: number; p: number; mean: number; sd?: number }
interface GsmStageX { id: number; T: number; h: number; mean?: number; sd?: number; sOut?: number; si?: number }
interface GsmX { stages: GsmStageX[]; arcs: Array<{ from: number; to: number }>; z: number }
interface SerialX { stages: Array<{ h: number; L: number }>; p: number; mean: number }

interface Instances {
  eoq: EoqX[];
  ww: WwX[];
  rq_poisson: RqPoissonX[];
  rq_normal: RqNormalX[];
  ss: SsX[];
  base_stock: BaseStockX[];
  gsm: GsmX[];
  serial: SerialX[];
}

function makeInstances(n: number, seed: number): Instances {
  const g = (tag: string) => Rng.derive(seed, 'bench-inventory', tag);
  const times = <T>(rng: Rng, f: (rng: Rng) => T) => Array.from({ length: n }, () => f(rng));
  return {
    eoq: times(g('eoq'), (r) => ({ K: r2(r.uniform(1, 500)), h: r2(r.uniform(0.1, 10)), lam: r2(r.uniform(10, 10000)) })),
    ww: times(g('ww'), (r) => ({
      d: Array.from({ length: r.int(12, 52) }, () => (r.bernoulli(0.2) ? 0 : r.int(1, 200))),
      K: r2(r.uniform(50, 500)),
      h: r2(r.uniform(0.1, 5)),
    })),
    rq_poisson: times(g('rq-poisson'), (r) => ({ h: r2(r.uniform(0.5, 5)), p: r2(r.uniform(5, 100)), K: r2(r.uniform(5, 200)), lam: r2(r.uniform(0.5, 20)), L: r.int(1, 4) })),
    rq_normal: times(g('rq-normal'), (r) => {
      const lam = r2(r.uniform(100, 5000));
      return { h: r2(r.uniform(0.1, 5)), p: r2(r.uniform(1, 50)), K: r2(r.uniform(5, 500)), lam, sd: r2(lam * r.uniform(0.2, 1)), L: r2(r.uniform(0.02, 0.25)) };
    }),
    ss: times(g('ss'), (r) => ({ h: r2(r.uniform(0.5, 5)), p: r2(r.uniform(2, 50)), K: r2(r.uniform(1, 200)), mu: r2(r.uniform(1, 20)) })),
    base_stock: times(g('base-stock'), (r) => {
      const [h, p] = [r2(r.uniform(0.5, 5)), r2(r.uniform(2, 100))];
      if (r.bernoulli(0.5)) return { kind: 'poisson' as const, h, p, mean: r2(r.uniform(0.5, 60)) };
      const mean = r2(r.uniform(10, 1000));
      return { kind: 'normal' as const, h, p, mean, sd: r2(mean * r.uniform(0.05, 0.6)) };
    }),
    gsm: times(g('gsm'), (r) => {
      const k = r.int(2, 12);
      const arcs: Array<{ from: number; to: number }> = [];
      // each new stage hangs off an earlier one, as its customer (distribution) or its supplier (assembly)
      for (let i = 2; i <= k; i++) {
        const j = r.int(1, i - 1);
        arcs.push(r.bernoulli(0.7) ? { from: j, to: i } : { from: i, to: j });
      }
      const hasSucc = new Set(arcs.map((a) => a.from));
      const hasPred = new Set(arcs.map((a) => a.to));
      const stages: GsmStageX[] = Array.from({ length: k }, (_, i) => {
        const id = i + 1;
        const s: GsmStageX = { id, T: r.int(0, 5), h: r2(r.uniform(0.5, 10)) };
        if (!hasSucc.has(id)) {
          s.mean = r2(r.uniform(10, 100));
          s.sd = r2(r.uniform(1, 30));
          s.sOut = r.int(0, 2);
        }
        if (!hasPred.has(id)) s.si = r.int(0, 1);
        return s;
      });
      return { stages, arcs, z: r2(r.uniform(1, 2.5)) };
    }),
    serial: times(g('serial'), (r) => ({
      stages: Array.from({ length: r.int(2, 5) }, () => ({ h: r2(r.uniform(0.5, 3)), L: r.int(1, 3) })),
      p: r2(r.uniform(10, 50)),
      mean: r2(r.uniform(1, 10)),
    })),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// ours, one function per model, each returning what the runner returns

const normalLtd = (x: RqNormalX) => normalDistribution(x.lam * x.L, x.sd * Math.sqrt(x.L));
const rqNormalParams = (x: RqNormalX) => ({ holdingCost: x.h, stockoutCost: x.p, fixedCost: x.K, demandRate: x.lam });

function rqNormalExact(x: RqNormalX): { r: number; Q: number; cost: number } {
  const s = optimalRQContinuous(normalLtd(x), rqNormalParams(x), 'exact');
  return { r: s.reorderPoint, Q: s.orderQuantity, cost: s.cost };
}

/**
 * The exact optimum against stockpyl's loss-function policy: both costs are the exact g(r,Q), ours of our policy and
 * stockpyl's (its r_q_cost) of its own; and our exact cost function at stockpyl's (r,Q) against its r_q_cost.
 */
function compareRqNormalExact(xs: RqNormalX[], peer: PeerRow[]): { compared: number; maxGain: number; medianGain: number; worse: number; maxWorse: number; costFunction: number; maxShift: number } {
  const gains: number[] = [];
  let worse = 0, maxWorse = 0, costFunction = 0, maxShift = 0;
  xs.forEach((x, i) => {
    const p = peer[i];
    if (!p?.ok) return;
    const e = rqNormalExact(x);
    const gain = (Number(p.cost) - e.cost) / Number(p.cost);
    gains.push(gain);
    if (gain < -1e-9) {
      worse++;
      maxWorse = Math.max(maxWorse, -gain);
    }
    maxShift = Math.max(maxShift, Math.abs(e.r - Number(p.r)), Math.abs(e.Q - Number(p.Q)));
    const atPeer = rqCost(normalLtd(x), Number(p.r), Number(p.Q), rqNormalParams(x));
    costFunction = Math.max(costFunction, Math.abs(atPeer - Number(p.cost)) / Number(p.cost));
  });
  return { compared: gains.length, maxGain: Math.max(0, ...gains), medianGain: gains.length ? median(gains) : NaN, worse, maxWorse, costFunction, maxShift };
}

const ours = {
  eoq: (x: EoqX) => {
    const e = eoq(x.K, x.h, x.lam);
    return { Q: e.orderQuantity, cost: e.cost };
  },
  ww: (x: WwX) => {
    const plan = wagnerWhitin(x.d, x.K, x.h);
    return { Q: plan.orderQuantities, cost: plan.total_cost };
  },
  rq_poisson: (x: RqPoissonX) => {
    const ltd = leadTimeDemand({ type: 'poisson', lambda: x.lam }, x.L);
    if (ltd.kind !== 'discrete') throw new Error('Poisson lead-time demand must be discrete');
    const s = optimalRQDiscrete(ltd, { holdingCost: x.h, stockoutCost: x.p, fixedCost: x.K, demandRate: x.lam });
    return { r: s.reorderPoint, Q: s.orderQuantity, cost: s.cost };
  },
  // stockpyl has no exact optimiser for normal demand: the same Hadley-Whitin iteration is compared, and the exact
  // optimum separately (rqNormalExact)
  rq_normal: (x: RqNormalX) => {
    const s = optimalRQContinuous(normalLtd(x), rqNormalParams(x), 'loss_function');
    return { r: s.reorderPoint, Q: s.orderQuantity, cost: s.cost };
  },
  ss: (x: SsX) => {
    const periodDemand = leadTimeDemand({ type: 'poisson', lambda: x.mu }, 1);
    if (periodDemand.kind !== 'discrete') throw new Error('Poisson demand must be discrete');
    const s = optimalSS({ holdingCost: x.h, stockoutCost: x.p, fixedCost: x.K, periodDemand });
    return { s: s.reorderPoint, S: s.orderUpToLevel, cost: s.cost };
  },
  base_stock: (x: BaseStockX) => {
    const ltd = x.kind === 'poisson' ? leadTimeDemand({ type: 'poisson', lambda: x.mean }, 1) : normalDistribution(x.mean, x.sd!);
    const b = optimalBaseStock(ltd, x.h, x.p);
    return { S: b.baseStockLevel, cost: b.cost };
  },
  gsm: (x: GsmX) => {
    const inst: GsmInstance = {
      stages: x.stages.map((s) => ({ id: s.id, processingTime: s.T, holdingCost: s.h, demandMean: s.mean, demandStd: s.sd, maxServiceTime: s.sOut, inboundServiceTime: s.si })),
      arcs: x.arcs,
      safetyFactor: x.z,
    };
    const sol = solveGsm(inst);
    return { S: Object.fromEntries(sol.stages.map((s) => [String(s.id), s.serviceTime])) as Record<string, number>, cost: sol.cost };
  },
  serial: (x: SerialX) => {
    const inst: SerialInstance = { stages: x.stages.map((s) => ({ leadTime: s.L, echelonHoldingCost: s.h })), stockoutCost: x.p, demand: { kind: 'poisson', mean: x.mean } };
    const sol = optimizeSerialBaseStock(inst);
    return { S: sol.echelonBaseStock, cost: sol.expectedCost };
  },
};

type ModelKey = keyof Instances;

const MODEL_LABEL: Record<ModelKey, string> = {
  eoq: 'EOQ',
  ww: 'Wagner-Whitin',
  rq_poisson: '(r,Q) Poisson, exact',
  rq_normal: '(r,Q) normal, Hadley-Whitin iteration',
  ss: '(s,S) Poisson',
  base_stock: 'base stock (Poisson / normal)',
  gsm: 'GSM, random trees',
  serial: 'Clark-Scarf serial, Poisson',
};

/** What is compared as "the decision" per model, and how two decisions differ (largest absolute difference). */
function decisionDiff(key: ModelKey, a: Record<string, unknown>, b: Record<string, unknown>): number {
  const num = (v: unknown) => Number(v);
  const vec = (u: unknown, v: unknown) => {
    const x = u as number[], y = v as number[];
    if (x.length !== y.length) return Infinity;
    return Math.max(0, ...x.map((xi, i) => Math.abs(xi - y[i])));
  };
  switch (key) {
    case 'eoq':
    case 'base_stock':
      return Math.abs(num(a.Q ?? a.S) - num(b.Q ?? b.S));
    case 'ww':
    case 'serial':
      return vec(a.Q ?? a.S, b.Q ?? b.S);
    case 'rq_poisson':
    case 'rq_normal':
      return Math.max(Math.abs(num(a.r) - num(b.r)), Math.abs(num(a.Q) - num(b.Q)));
    case 'ss':
      return Math.max(Math.abs(num(a.s) - num(b.s)), Math.abs(num(a.S) - num(b.S)));
    case 'gsm': {
      const x = a.S as Record<string, number>, y = b.S as Record<string, number>;
      return Math.max(0, ...Object.keys(x).map((k) => Math.abs(x[k] - (y[k] ?? Infinity))));
    }
  }
}

const DECISION: Record<ModelKey, string> = {
  eoq: 'Q',
  ww: 'order quantity per period',
  rq_poisson: 'r, Q',
  rq_normal: 'r, Q',
  ss: 's, S',
  base_stock: 'S',
  gsm: 'service times',
  serial: 'echelon S',
};

/**
 * Tolerances that count as agreement: integer decisions identical, continuous ones to 1e-6 relative (stockpyl's own
 * stopping tolerances); a tie between optimal decisions (same cost, another plan) is reported, not a failure.
 */
const COST_TOLERANCE: Record<ModelKey, number> = { eoq: 1e-12, ww: 1e-9, rq_poisson: 1e-9, rq_normal: 1e-6, ss: 1e-9, base_stock: 1e-6, gsm: 1e-9, serial: 1e-6 };

interface PeerRow {
  ok: boolean;
  error?: string;
  seconds: number;
  [k: string]: unknown;
}

interface Agreement {
  key: ModelKey;
  instances: number;
  compared: number;
  failures: number;
  firstFailure?: string;
  identical: number;
  maxDecision: number;
  maxDecisionRel: number;
  maxCostRel: number;
  /** instances whose decisions differ with costs within the tolerance (alternative optima) */
  ties: number;
  /** instances whose cost differs beyond the tolerance */
  disagreements: number;
  /** ours cheaper (negative) or dearer (positive) than stockpyl's, largest relative signed difference */
  worstSigned: number;
}

function compare(key: ModelKey, xs: unknown[], peer: PeerRow[]): Agreement {
  const a: Agreement = { key, instances: xs.length, compared: 0, failures: 0, identical: 0, maxDecision: 0, maxDecisionRel: 0, maxCostRel: 0, ties: 0, disagreements: 0, worstSigned: 0 };
  xs.forEach((x, i) => {
    const p = peer[i];
    if (!p?.ok) {
      a.failures++;
      a.firstFailure ??= p?.error ?? 'no answer';
      return;
    }
    const o = (ours[key] as (x: unknown) => Record<string, unknown>)(x);
    a.compared++;
    const d = decisionDiff(key, o, p);
    const scale = Math.max(1, Math.abs(Number(o.Q ?? o.r ?? o.S ?? 1)) || 1);
    const costRel = Math.abs(Number(o.cost) - Number(p.cost)) / Math.max(1e-12, Math.abs(Number(p.cost)));
    const signed = (Number(o.cost) - Number(p.cost)) / Math.max(1e-12, Math.abs(Number(p.cost)));
    a.maxDecision = Math.max(a.maxDecision, d);
    a.maxDecisionRel = Math.max(a.maxDecisionRel, typeof o.Q === 'number' || typeof o.r === 'number' ? d / scale : d);
    a.maxCostRel = Math.max(a.maxCostRel, costRel);
    if (Math.abs(signed) > Math.abs(a.worstSigned)) a.worstSigned = signed;
    const continuous = key === 'eoq' || key === 'rq_normal' || (key === 'base_stock' && (x as BaseStockX).kind === 'normal');
    const same = continuous ? d <= 1e-6 * scale : d === 0;
    if (same) a.identical++;
    if (costRel > COST_TOLERANCE[key]) a.disagreements++;
    else if (!same) a.ties++;
  });
  return a;
}

// ---------------------------------------------------------------------------------------------------------------
// stockpyl in its own virtual environment

const VENV = path.join(os.homedir(), '.cache', 'planning-platform', 'stockpyl-venv');
const STOCKPYL = 'stockpyl==1.0.2';

function stockpylPython(): { python: string | null; version?: string; error?: string } {
  const python = path.join(VENV, 'bin', 'python');
  const probe = () =>
    spawnSync(python, ['-c', 'import importlib.metadata as m, sys, stockpyl.rq, numpy; print(m.version("stockpyl"), "numpy", numpy.__version__, "Python", sys.version.split()[0])'], { encoding: 'utf8' });
  if (fs.existsSync(python)) {
    const p = probe();
    if (p.status === 0 && p.stdout.startsWith('1.0.2 ')) return { python, version: `stockpyl ${p.stdout.trim()}` };
  }
  log(`creating ${VENV} and installing ${STOCKPYL} "numpy<2" from PyPI …`);
  fs.rmSync(VENV, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(VENV), { recursive: true });
  const v = spawnSync('python3', ['-m', 'venv', VENV], { encoding: 'utf8' });
  if (v.status !== 0) return { python: null, error: `python3 -m venv failed: ${v.stderr}` };
  const pip = spawnSync(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', STOCKPYL, 'numpy<2'], { encoding: 'utf8', timeout: 15 * 60_000 });
  if (pip.status !== 0) return { python: null, error: `pip install ${STOCKPYL} failed: ${(pip.stderr || '').slice(-2000)}` };
  const p = probe();
  if (p.status !== 0) return { python: null, error: `stockpyl does not import: ${p.stderr.slice(-2000)}` };
  return { python, version: `stockpyl ${p.stdout.trim()}` };
}

async function runStockpyl(instances: Instances): Promise<{ ok: true; version: string; rows: Record<ModelKey, PeerRow[]>; wall: number } | { ok: false; error: string }> {
  const py = stockpylPython();
  if (!py.python) return { ok: false, error: py.error ?? 'unavailable' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-inventory-'));
  try {
    const input = path.join(dir, 'instances.json');
    const output = path.join(dir, 'out.json');
    fs.writeFileSync(input, JSON.stringify(instances));
    const t0 = performance.now();
    const code = await new Promise<number>((resolve) => {
      const child = spawn(py.python!, [path.join(REPO_ROOT, 'bench', 'peers', 'stockpyl_runner.py'), input, output], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stdout.on('data', (d) => {
        for (const line of String(d).split('\n')) if (line.trim()) log(line);
      });
      child.stderr.on('data', (d) => {
        stderr = (stderr + String(d)).slice(-5000);
      });
      child.on('exit', (c) => {
        if (c !== 0) log(`stockpyl runner exited ${c}: ${stderr}`);
        resolve(c ?? -1);
      });
    });
    if (code !== 0 || !fs.existsSync(output)) return { ok: false, error: `stockpyl runner exited ${code}` };
    return { ok: true, version: py.version!, rows: JSON.parse(fs.readFileSync(output, 'utf8')), wall: (performance.now() - t0) / 1000 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// timing

/** Seconds per instance of f over xs: one warm-up pass, then whole passes until at least minSeconds have elapsed. */
function perInstance<X>(xs: readonly X[], f: (x: X) => unknown, minSeconds = 0.5): number {
  for (const x of xs) f(x);
  let passes = 0;
  const t0 = performance.now();
  do {
    for (const x of xs) f(x);
    passes++;
  } while (performance.now() - t0 < minSeconds * 1000);
  return (performance.now() - t0) / 1000 / (passes * xs.length);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

interface Target {
  what: string;
  detail: string;
  seconds: number;
  limit: number | null;
  rate?: string;
}

function exchangeCurveTarget(seed: number): Target {
  const rng = Rng.derive(seed, 'bench-inventory', 'exchange');
  const items: ExchangeItem[] = Array.from({ length: 10_000 }, (_, i) => ({ id: `I${i}`, annualDemand: r2(rng.lognormal(6, 1.5)), unitCost: r2(rng.lognormal(2, 1) + 0.01) }));
  const run = () => {
    exchangeCurve(items, { points: 100 });
    constrainedExchangeCurve(items, { allowedOrdersPerYear: DEFAULT_ALLOWED_ORDERS_PER_YEAR, points: 100 });
    const k = kForTargetOrders(items, 12 * items.length);
    for (const it of items) itemFrequencyPlan(it, k, { allowedOrdersPerYear: DEFAULT_ALLOWED_ORDERS_PER_YEAR, holdingRate: 0.25 });
  };
  run();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    run();
    times.push((performance.now() - t0) / 1000);
  }
  return { what: 'exchange curve, 10,000 items', detail: 'unconstrained + constrained curve (100 points each) + 10,000 item frequency plans; median of 5', seconds: median(times), limit: 1 };
}

function wagnerWhitinTarget(seed: number): Target {
  const rng = Rng.derive(seed, 'bench-inventory', 'ww-speed');
  const items = Array.from({ length: 10_000 }, () => {
    const level = rng.lognormal(3, 1.2);
    const p = rng.uniform(0.2, 1);
    return { d: Array.from({ length: 52 }, () => (rng.bernoulli(p) ? Math.round(level * rng.lognormal(0, 0.5)) : 0)), K: r2(rng.uniform(20, 500)), h: r2(rng.uniform(0.05, 2)) };
  });
  for (const x of items.slice(0, 200)) wagnerWhitin(x.d, x.K, x.h);
  const t0 = performance.now();
  let orders = 0;
  for (const x of items) orders += wagnerWhitin(x.d, x.K, x.h).n_orders;
  const seconds = (performance.now() - t0) / 1000;
  return { what: 'Wagner-Whitin, 10,000 items × 52 weeks', detail: `${int(orders)} orders planned`, seconds, limit: 5 };
}

const DEFAULT_TARGET: SiteTarget = { service_type: 'fill_rate', target_service: 0.95, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ', review_period_weeks: 1, source: 'scenario' };

/** Each item's MeioSite list and routes, as the meio step would load them for the generator's tenant. */
function demoNetworks(seed: number): { shape: string; networks: Array<{ sites: MeioSite[]; routes: MeioRoute[] }> } {
  const plan = createDemoPlan({ seed, items: 1500, sites: 30, seriesTarget: 9000, weeks: 156 });
  const master = generateMasterData(plan);
  const siteId = new Map(plan.sites.map((s, j) => [s.xuid, j + 1]));
  // routes are for every item (item_xuid null), so every item's network holds every site on a route
  const routes: MeioRoute[] = plan.routes.map((r) => ({ from: siteId.get(r.from_site_xuid)!, to: siteId.get(r.to_site_xuid)!, type: r.route_type, leadTime: r.lead_time, priority: r.priority }));
  const networkSites = [...new Set(routes.flatMap((r) => [r.from, r.to]))];
  const byItem = new Map<number, number[]>();
  for (let k = 0; k < plan.seriesItem.length; k++) byItem.set(plan.seriesItem[k], [...(byItem.get(plan.seriesItem[k]) ?? []), k]);
  const out: Array<{ sites: MeioSite[]; routes: MeioRoute[] }> = [];
  for (const [i, ks] of byItem) {
    const own = new Map<number, MeioSite>();
    for (const k of ks) {
      const t = seriesTruth(plan, k);
      const row = master.item_site[k];
      const mean = t.p_demand * t.base_level;
      const variance = Math.max(1e-9, t.p_demand * t.base_level ** 2 * (1 + t.size_cv ** 2 - t.p_demand));
      const demand: DemandDistribution =
        mean > 100 ? { type: 'normal', mu: mean, sigma: Math.sqrt(variance) } : variance > mean * 1.0001 ? { type: 'negative_binomial', r: (mean * mean) / (variance - mean), p: mean / variance } : { type: 'poisson', lambda: mean };
      const id = plan.seriesSite[k] + 1;
      own.set(id, { siteId: id, demand, hasSeries: true, unitCost: row.unit_cost, masterLeadTime: row.lead_time_weeks, moq: row.moq, orderMultiple: row.order_multiple, target: DEFAULT_TARGET });
    }
    const sites = [...new Set([...own.keys(), ...networkSites])].sort((a, b) => a - b).map(
      (id) => own.get(id) ?? { siteId: id, demand: null, hasSeries: false, unitCost: plan.items[i].avg_unit_cost, masterLeadTime: null, moq: 0, orderMultiple: 1, target: DEFAULT_TARGET },
    );
    out.push({ sites, routes });
  }
  const count = (type: string) => plan.sites.filter((s) => s.site_type === type).length;
  return { shape: `${count('plant')} plants, ${count('dc')} DCs, ${count('store')} stores`, networks: out };
}

function meioTarget(seed: number): Target {
  const { shape, networks } = demoNetworks(seed);
  for (const n of networks.slice(0, 30)) planItemNetwork(n.sites, n.routes);
  let skus = 0;
  let items = 0;
  let gsm = 0;
  let metric = 0;
  let below = 0;
  const t0 = performance.now();
  for (const n of networks) {
    const r = planItemNetwork(n.sites, n.routes);
    skus += r.skus.length;
    items++;
    if (r.group.echelonModel === 'gsm') gsm++;
    if (r.group.echelonModel === 'metric') metric++;
    below += r.skus.filter((s) => !s.meetsTarget).length;
    if (skus >= 10_000) break;
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    what: `planItemNetwork, ${int(skus)} SKU-sites`,
    detail: `${int(items)} items of the demo network (${shape}), ${fixed(skus / items, 1)} SKU-sites per item, ${int(gsm)} items placed by GSM, ${int(metric)} repairables planned with VARI-METRIC, ${int(below)} SKU-sites below target`,
    seconds,
    limit: null,
    rate: `${int(skus / seconds)} SKU-sites/s`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// report

function sci(x: number): string {
  if (!Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  return x >= 0.01 && x < 1000 ? String(Number(x.toPrecision(2))) : x.toExponential(1);
}

const micro = (s: number) => (Number.isFinite(s) ? (s * 1e6 < 10 ? (s * 1e6).toFixed(2) : s * 1e6 < 100 ? (s * 1e6).toFixed(1) : int(s * 1e6)) : '–');

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) return m[1].trim();
  } catch {
    /* not Linux */
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  const instances = makeInstances(args.instances, args.seed);
  const keys = Object.keys(instances) as ModelKey[];
  let failed = false;

  // (a) + (b): the peer first, alone on the machine, then ours
  let peer: Awaited<ReturnType<typeof runStockpyl>> | null = null;
  if (args.python) {
    log(`stockpyl on ${int(args.instances)} instances of each of ${keys.length} models …`);
    peer = await runStockpyl(instances);
    if (!peer.ok) log(`stockpyl unavailable: ${peer.error}`);
  }
  const agreements: Agreement[] = [];
  if (peer?.ok) for (const k of keys) agreements.push(compare(k, instances[k], peer.rows[k]));

  const exact = peer?.ok ? compareRqNormalExact(instances.rq_normal, peer.rows.rq_normal) : null;
  if (exact && exact.worse > 0) failed = true;
  const pct = (x: number) => `${fixed(100 * x, 2)} %`;
  const exactNote = exact
    ? `(r,Q) normal, our exact optimum against stockpyl's loss-function policy (each cost the exact g(r,Q) of its own policy): ours cheaper by up to ${pct(exact.maxGain)} ` +
      `(median ${pct(exact.medianGain)}), dearer on ${exact.worse} of ${exact.compared} instances${exact.worse ? ` (by at most ${sci(exact.maxWorse)} relative)` : ''}; r and Q differ by up to ` +
      `${fixed(exact.maxShift, 1)} units. Our cost function at stockpyl's (r,Q) equals its r_q_cost to ${sci(exact.costFunction)} (relative).`
    : '';

  const timed: Array<{ label: string; key: ModelKey; f?: (x: never) => unknown }> = [
    { label: '(r,Q) optimisation, Poisson (both Federgruen-Zheng)', key: 'rq_poisson' },
    { label: '(r,Q) optimisation, normal (both Hadley-Whitin iteration)', key: 'rq_normal' },
    { label: '(r,Q) optimisation, normal (ours exact, stockpyl Hadley-Whitin)', key: 'rq_normal', f: rqNormalExact },
    { label: 'GSM, one tree of 2-12 stages (both Graves-Willems DP)', key: 'gsm' },
  ];
  const speed = timed.map((t) => {
    const oursSec = perInstance(instances[t.key] as unknown[], (t.f ?? ours[t.key]) as (x: unknown) => unknown);
    const rows = peer?.ok ? peer.rows[t.key].filter((r) => r.ok) : [];
    const peerSec = rows.length ? rows.reduce((a, r) => a + r.seconds, 0) / rows.length : NaN;
    return { ...t, oursSec, peerSec, ratio: peerSec / oursSec };
  });

  // (c)
  log('speed targets …');
  const targets = [exchangeCurveTarget(args.seed), wagnerWhitinTarget(args.seed), meioTarget(args.seed)];
  for (const t of targets) if (t.limit !== null && !(t.seconds < t.limit)) failed = true;
  for (const a of agreements) if (a.disagreements > 0) failed = true;

  // the report
  const header = `${os.availableParallelism()} CPUs (${cpuModel()}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}${peer?.ok ? `, ${peer.version}` : ''}; ${date}; seed ${args.seed}.`;
  const agreeHead = ['model', 'instances', 'stockpyl failures', 'decision', 'identical', 'largest decision difference', 'largest cost difference (relative)', 'alternative optima', 'cost beyond tolerance'];
  const agreeRows = agreements.map((a) => [
    MODEL_LABEL[a.key],
    int(a.instances),
    a.failures ? `${a.failures} (${a.firstFailure!.slice(0, 60)})` : '0',
    DECISION[a.key],
    `${int(a.identical)} / ${int(a.compared)}`,
    a.key === 'eoq' || a.key === 'rq_normal' || a.key === 'base_stock' ? `${sci(a.maxDecision)} (${sci(a.maxDecisionRel)} rel.)` : sci(a.maxDecision),
    sci(a.maxCostRel),
    int(a.ties),
    int(a.disagreements),
  ]);
  const speedHead = ['per SKU, solver call only', 'ours µs', 'stockpyl µs', 'stockpyl / ours'];
  const speedRows = speed.map((s) => [s.label, micro(s.oursSec), micro(s.peerSec), Number.isFinite(s.ratio) ? `${fixed(s.ratio, s.ratio < 10 ? 1 : 0)} ×` : '–']);
  const targetHead = ['target', 'seconds', 'limit', 'met', 'detail'];
  const targetRows = targets.map((t) => [t.what, t.seconds < 0.1 ? t.seconds.toFixed(3) : t.seconds.toFixed(2), t.limit === null ? (t.rate ?? '–') : `< ${t.limit} s`, t.limit === null ? '–' : t.seconds < t.limit ? 'yes' : '**no**', t.detail]);

  const md = [
    header,
    '',
    peer?.ok
      ? `**Agreement with stockpyl** (${int(args.instances)} random instances per model; stockpyl's runner took ${fixed(peer.wall, 0)} s):`
      : `**Agreement with stockpyl**: not measured (${args.python ? `stockpyl unavailable: ${peer && !peer.ok ? peer.error : ''}` : '--no-python'}).`,
    '',
    ...(agreements.length ? [markdownTable(agreeHead, agreeRows, ['l', 'r', 'r', 'l', 'r', 'r', 'r', 'r', 'r']), '', exactNote, ''] : []),
    '**Time per SKU** (single thread; ours repeated over the same instances until 0.5 s, stockpyl each call timed once):',
    '',
    markdownTable(speedHead, speedRows),
    '',
    '**Speed targets** (in process, one thread):',
    '',
    markdownTable(targetHead, targetRows, ['l', 'r', 'r', 'l', 'l']),
  ].join('\n');

  process.stdout.write(`\n${header}\n\n`);
  if (agreements.length) process.stdout.write(`${textTable(agreeHead, agreeRows)}\n${exactNote}\n\n`);
  process.stdout.write(`${textTable(speedHead, speedRows)}\n\n${textTable(targetHead, targetRows.map((r) => r.map((c) => c.replace(/\*/g, ''))))}\n`);
  if (args.doc) {
    const file = path.join(REPO_ROOT, 'docs', 'BENCHMARKS.md');
    replaceBlock(file, 'bench:inventory', md, { skeleton: '# Benchmarks\n', heading: '## Inventory' });
    log(`wrote the inventory block of ${path.relative(REPO_ROOT, file)}`);
  }
  if (failed) process.exitCode = 1;
}

main().catch((err) => {
  log(String(err instanceof Error ? (err.stack ?? err.message) : err));
  process.exit(1);
});
