import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MODEL_NAMES } from '../../scripts/inventory/schemas';
import { scriptArgs, scriptEnv } from '../support/scriptBundle';

const ROOT = path.join(__dirname, '../..');
const DOC = path.join(ROOT, 'docs/INVENTORY.md');

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...scriptArgs('scripts/inventoryCli.ts'), ...args], { cwd: ROOT, env: scriptEnv(), encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inventory-cli-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(model: string, instance: unknown): { status: number | null; result: Record<string, any>; stderr: string } {
  const file = path.join(tmp, `${model}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, typeof instance === 'string' ? instance : JSON.stringify(instance));
  const r = cli([model, '--input', file]);
  return { status: r.status, result: r.status === 0 ? JSON.parse(r.stdout) : {}, stderr: r.stderr };
}

// ------------------------------------------------------------------------------------------------ the documented examples

interface DocExample {
  model: string;
  line: number;
  input: string;
  output: string;
}

/** `<!-- example: model -->` + a json block (the instance), then `<!-- output -->` + a json block (what it prints). */
function docExamples(): DocExample[] {
  const text = fs.readFileSync(DOC, 'utf8');
  const re = /<!-- example: ([a-z-]+) -->\s*```json\n([\s\S]*?)```\s*<!-- output -->\s*```json\n([\s\S]*?)```/g;
  const out: DocExample[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) out.push({ model: m[1], line: text.slice(0, m.index).split('\n').length, input: m[2], output: m[3] });
  return out;
}

/** Every field the documentation shows must be printed with exactly that value; the documentation may leave fields out. */
function expectShown(actual: unknown, shown: unknown, where = '$'): void {
  if (Array.isArray(shown)) {
    expect({ where, length: Array.isArray(actual) ? (actual as unknown[]).length : actual }).toEqual({ where, length: shown.length });
    shown.forEach((v, i) => expectShown((actual as unknown[])[i], v, `${where}[${i}]`));
  } else if (shown !== null && typeof shown === 'object') {
    expect({ where, isObject: actual !== null && typeof actual === 'object' }).toEqual({ where, isObject: true });
    for (const [k, v] of Object.entries(shown)) expectShown((actual as Record<string, unknown>)[k], v, `${where}.${k}`);
  } else {
    expect({ where, value: actual }).toEqual({ where, value: shown });
  }
}

const examples = docExamples();
const ran = new Map<DocExample, ReturnType<typeof run>>();
const resultOf = (model: string, index = 0) => {
  const ex = examples.filter((e) => e.model === model)[index];
  if (!ran.has(ex)) ran.set(ex, run(ex.model, ex.input));
  return ran.get(ex)!.result;
};

describe('docs/INVENTORY.md examples', () => {
  it('has one worked example per model at least', () => {
    expect(examples.length).toBeGreaterThanOrEqual(MODEL_NAMES.length);
    expect(new Set(examples.map((e) => e.model))).toEqual(new Set(MODEL_NAMES));
  });

  it.each(examples.map((e) => [`${e.model} (line ${e.line})`, e] as const))('%s parses, runs and prints the output shown', (_, ex) => {
    const shown = JSON.parse(ex.output);
    if (!ran.has(ex)) ran.set(ex, run(ex.model, ex.input));
    const r = ran.get(ex)!;
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(Object.keys(shown).length).toBeGreaterThan(0);
    expectShown(r.result, shown);
  });
});

describe('the documented examples, number by number', () => {
  it('eoq: Snyder & Shen Example 3.1, Q* = √(2Kλ/h) and cost √(2Kλh)', () => {
    const r = resultOf('eoq');
    expect(r.policy.order_quantity).toBe(304.0467800264368);
    expect(r.cost).toBe(68.41052550594829);
    expect(r.policy.order_quantity).toBeCloseTo(Math.sqrt((2 * 8 * 1300) / 0.225), 12);
    expect(r.cost).toBeCloseTo(Math.sqrt(2 * 8 * 1300 * 0.225), 12);
  });

  it('wagner-whitin: orders of 210 and 150 in periods 0 and 2, cost 1,380', () => {
    const r = resultOf('wagner-whitin');
    expect(r.policy.order_quantities).toEqual([210, 0, 150, 0]);
    expect(r.policy.orders).toEqual([{ period: 0, quantity: 210, covers: [0, 1] }, { period: 2, quantity: 150, covers: [2, 3] }]);
    expect([r.cost, r.setup_cost, r.holding_cost, r.n_orders]).toEqual([1380, 1000, 380, 2]);
  });

  it('rq by cost: Snyder & Shen Example 5.8, (3, 5) at 107.92 (stockpyl 107.92358063314975)', () => {
    const r = resultOf('rq');
    expect(r.policy).toEqual({ reorder_point: 3, order_quantity: 5 });
    expect(r.cost).toBe(107.92358063314856);
    expect(r.cost).toBeCloseTo(107.92358063314975, 10);
    expect(r.cost_terms.ordering + r.cost_terms.holding + r.cost_terms.backorders).toBeCloseTo(r.cost, 12);
  });

  it('rq by service: the EOQ and the smallest reorder point with a 98 % fill rate', () => {
    const r = resultOf('rq', 1);
    expect(r.policy.order_quantity).toBeCloseTo(Math.sqrt((2 * 60 * 40) / 0.1), 12);
    expect(r.fill_rate).toBeGreaterThanOrEqual(0.98 - 1e-9);
    expect(r.fill_rate).toBeCloseTo(0.98, 9);
    expect(r.lead_time_demand).toEqual({ kind: 'continuous', mean: 120, sd: 12 * Math.sqrt(3) });
    expect(r.investment).toBeCloseTo(8 * r.expected_on_hand, 12);
  });

  it('ss: Snyder & Shen Example 4.7, (4, 10) at 8.0341 (stockpyl 8.034111561471642)', () => {
    const r = resultOf('ss');
    expect(r.policy).toEqual({ reorder_point: 4, order_up_to: 10 });
    expect(r.cost).toBeCloseTo(8.034111561471642, 12);
  });

  it('base-stock: the 95 % quantile of Poisson(36) over lead time + review', () => {
    const r = resultOf('base-stock');
    expect(r.critical_ratio).toBe(0.95);
    expect(r.protection_demand).toMatchObject({ kind: 'discrete', mean: 36 });
    // Poisson(36): P(D <= 45) = 0.9360, P(D <= 46) = 0.9508
    expect(r.policy.base_stock_level).toBe(46);
  });

  it('gsm: Snyder & Shen Example 6.5, stockpyl service times {1: 0, 3: 0, 2: 0, 4: 1} and 8.277916867529369', () => {
    const r = resultOf('gsm');
    expect(Object.fromEntries(r.stages.map((s: { id: number; service_time: number }) => [s.id, s.service_time]))).toEqual({ 1: 0, 3: 0, 2: 0, 4: 1 });
    expect(r.cost).toBeCloseTo(8.277916867529369, 12);
    expect([r.method, r.exact, r.lower_bound]).toEqual(['tree-dp', true, r.cost]);
  });

  it('metric: the cheapest allocation on the curve that brings base backorders below 0.1', () => {
    const r = resultOf('metric');
    expect(r.total_base_ebo).toBeLessThanOrEqual(0.1);
    const i = r.curve.findIndex((p: { depot_spares: number; investment: number }) => p.depot_spares === r.policy.depot_spares && p.investment === r.cost);
    expect(i).toBeGreaterThanOrEqual(0);
    if (i > 0) expect(r.curve[i - 1].total_base_ebo).toBeGreaterThan(0.1);
    expect(r.cost).toBe(100 * (r.policy.depot_spares + r.policy.base_spares.reduce((a: number, b: number) => a + b, 0)));
  });

  it('clark-scarf: Snyder & Shen Example 6.1, S* ≈ (6.49, 12.02, 22.71)', () => {
    const r = resultOf('clark-scarf');
    const [s1, s2, s3] = r.policy.echelon_base_stock;
    expect([s1, s2, s3].map((s: number) => Math.round(s * 100) / 100)).toEqual([6.49, 12.02, 22.71]);
    expect(r.cost).toBeCloseTo(47.6601, 3);
  });

  it('meio: the DC pools the stores, GSM places the stock, the group meets 95 %', () => {
    const r = resultOf('meio');
    expect(r.skus.map((s: { site_id: number }) => s.site_id)).toEqual([1, 2, 3, 4]);
    expect(r.skus[0]).toMatchObject({ distribution_type: 'pooled', weekly_mean: 7, echelon_model: 'gsm' });
    expect(r.group.n_skus).toBe(4);
    expect(r.group.meets_target).toBe(true);
    expect(r.group.expected_fill_rate).toBeGreaterThanOrEqual(0.95);
    expect(r.group.investment).toBeCloseTo(r.skus.reduce((a: number, s: { investment: number }) => a + s.investment, 0), 9);
  });
});

// ------------------------------------------------------------------------------------------------ bad input

describe('bad input: exit 1 with a message naming the field', () => {
  const rq = { demand: { type: 'poisson', lambda: 1.5 }, lead_time: 2, holding_cost: 20, stockout_cost: 150, fixed_cost: 100 };

  it.each([
    ['rq', { ...rq, lead_time: -2 }, 'error: rq: lead_time must be >= 0 (got -2)'],
    ['rq', { ...rq, service: { type: 'fill_rate', target: 1.2 } }, 'error: rq: service.target must be < 1 (got 1.2)'],
    ['rq', { ...rq, service: { type: 'cycle_service', target: 0 } }, 'error: rq: service.target must be > 0 (got 0)'],
    ['rq', { ...rq, demand: { type: 'poison', lambda: 1 } }, 'error: rq: demand.type "poison" is not one of poisson, negative_binomial, normal, gamma, empirical'],
    ['rq', { ...rq, demand: { type: 'poisson', lambda: -1 } }, 'error: rq: demand.lambda must be > 0 (got -1)'],
    ['rq', { ...rq, lead_time: { pmf: [{ lead_time: -1, probability: 1 }] } }, 'error: rq: lead_time.pmf[0].lead_time must be >= 0 (got -1)'],
    ['rq', { ...rq, lead_time: 'two' }, 'error: rq: lead_time must be number or object (got "two")'],
    ['rq', { ...rq, holding_cost: undefined }, 'error: rq: holding_cost is required'],
    ['rq', { ...rq, stockout_cost: undefined }, 'error: rq: stockout_cost is required (or a service target in service)'],
    ['rq', { ...rq, holdng_cost: 1 }, 'error: rq: holdng_cost is not a field of this model'],
    ['base-stock', { demand: { type: 'normal', mu: 10, sigma: 2 }, lead_time: { mean: -1, sd: 1 }, holding_cost: 1, stockout_cost: 9 }, 'error: base-stock: lead_time.mean must be >= 0 (got -1)'],
    ['gsm', { stages: [{ id: 1, processing_time: 1, holding_cost: 1, service_level: 1 }] }, 'error: gsm: stages[0].service_level must be < 1 (got 1)'],
    ['gsm', { stages: [{ id: 1, processing_time: 1, holding_cost: 1 }], arcs: [{ from: 1, to: 2 }] }, 'error: gsm: arcs[0].to names stage 2, which is not in stages'],
    ['ss', { demand: { type: 'normal', mu: 10, sigma: 2 }, holding_cost: 1, stockout_cost: 4, fixed_cost: 5 }, 'error: ss: demand.type must be poisson, negative_binomial or empirical (the exact (s,S) algorithm needs integer demand; got normal)'],
    ['meio', { sites: [{ site_id: 1, demand: { type: 'poisson', lambda: 2 }, master_lead_time: 1, target: { target_service: 1 } }] }, 'error: meio: sites[0].target.target_service must be < 1 (got 1)'],
    ['metric', { depot_repair_time: 5, bases: [{ demand_rate: 1, repair_probability: 0.5, repair_time: 2, order_ship_time: 1 }] }, 'error: metric: give exactly one of budget and target_backorders to optimise the spares (or depot_spares and every other spares level to evaluate them)'],
    ['wagner-whitin', { demands: [1, 2], setup_cost: [1, 2, 3], holding_cost: 1 }, 'error: wagner-whitin: setup_cost has 3 values, demands has 2 periods (give one value, or one per period)'],
  ])('%s %j', (model, instance, message) => {
    const r = run(model, instance);
    expect(r.stderr.trim()).toBe(message);
    expect(r.status).toBe(1);
  });

  it('an unknown model, a missing file and invalid JSON', () => {
    const file = path.join(tmp, 'ok.json');
    fs.writeFileSync(file, '{}');
    expect(cli(['foo', '--input', file])).toMatchObject({ status: 1, stderr: `error: unknown model 'foo' (known: ${MODEL_NAMES.join(', ')})\n` });
    expect(cli(['eoq', '--input', path.join(tmp, 'missing.json')])).toMatchObject({ status: 1, stderr: expect.stringContaining('error: cannot read') });
    const r = run('eoq', '{ "fixed_cost": 8, }');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: .* is not valid JSON: /);
  });

  it('usage errors exit 2', () => {
    expect(cli(['eoq'])).toMatchObject({ status: 2, stderr: expect.stringContaining('--input <instance.json> is required') });
    expect(cli([])).toMatchObject({ status: 2, stderr: expect.stringContaining('the model is missing') });
    expect(cli(['eoq', '--input', 'x.json', '--bogus'])).toMatchObject({ status: 2, stderr: expect.stringContaining("Unknown option '--bogus'") });
  });
});

it('--output writes the result to a file and nothing to stdout', () => {
  const input = path.join(tmp, 'eoq.json');
  const output = path.join(tmp, 'eoq-out.json');
  fs.writeFileSync(input, JSON.stringify({ fixed_cost: 100, holding_cost: 2, demand_rate: 400, min_quantity: 250, order_multiple: 50 }));
  const r = cli(['eoq', '--input', input, '--output', output]);
  expect(r).toMatchObject({ status: 0, stdout: '' });
  const result = JSON.parse(fs.readFileSync(output, 'utf8'));
  // free EOQ √(2·100·400/2) = 200, below the minimum: the smallest multiple of 50 at or above 250
  expect(result).toMatchObject({ model: 'eoq', variant: 'constrained', policy: { order_quantity: 250, unconstrained_quantity: 200, binding: 'min' }, cost: 100 * 400 / 250 + 250 });
});
