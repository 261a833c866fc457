/**
 * `npm run bench:service`: the service backtest (docs/SERVICE_BACKTEST.md) on a generated tenant of 10,000 SKU-sites,
 * through the pure engine the step calls (domain/serviceBacktest with the pipeline's own outlier correction and
 * distribution fit, activities/serviceBacktest/models.ts): smooth, seasonal, intermittent and lumpy parts, each item
 * sold at four stores supplied by one DC, which buys from a supplier with the item's own lead time. Every SKU-site's
 * policy is sized 26 weeks before the end of its history at a 95 % fill-rate target, replayed with the normal and
 * bootstrap peers and along a target sweep, and the table of docs/BENCHMARKS.md is written: per demand class the
 * achieved fill rate and average stock of each policy, and the stock ours needs to reach each peer's achieved service.
 * Two passes on the same demand: the default (r,Q) policy, and (s,S) with a one-week review period, which counts the
 * week an order waits for the next weekly release (docs/SERVICE_BACKTEST.md "What the bench found").
 *
 *   npm run bench:service                                  # 10,000 SKU-sites, writes docs/BENCHMARKS.md
 *   npm run bench:service -- --sku-sites 2000 --no-doc
 *   npm run bench:service -- --step 2000                   # only: the step through a throw-away stack on N demo series
 *   options: --sku-sites N, --seed N, --weeks N, --target F, --warmup N, --lost-sales, --step N, --no-doc
 */
import os from 'node:os';
import path from 'node:path';
import { pipelineModels } from '../activities/serviceBacktest/models';
import { createRng, samplePoisson, sampleStandardNormal, type Rng } from '../domain/inventory/random';
import type { SiteTarget } from '../domain/inventory/meio';
import { allocateBudget } from '../domain/inventory/portfolioBudget';
import { backtestItem, itemServiceCurve, type BacktestItemInput, type BacktestRow, type PortfolioCap } from '../domain/serviceBacktest/derive';
import { summarize, summarizePortfolio, type GroupSummary, type PortfolioSummary, type SummaryRow } from '../domain/serviceBacktest/summarize';
import { REPO_ROOT } from '../lib/env';
import { runForecastPipeline } from './lib/forecastPipeline';
import { fixed, int, markdownTable, replaceBlock, secs } from './lib/report';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const PATTERNS = ['smooth', 'seasonal', 'intermittent', 'lumpy'] as const;
type Pattern = (typeof PATTERNS)[number];
const STORES = 4;
const SWEEP = [0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995];
/** portfolio budgets, as shares of what the pattern's items take at their own targets */
const PORTFOLIO_SHARES = [0.3, 0.45, 0.6, 0.75, 0.9, 1.05, 1.2];

/** One store's weekly demand of a part of the given pattern. */
function demandPath(rng: Rng, pattern: Pattern, weeks: number): number[] {
  const u = (a: number, b: number) => a + (b - a) * rng();
  switch (pattern) {
    case 'smooth': {
      const m = u(5, 40);
      return Array.from({ length: weeks }, () => samplePoisson(rng, m));
    }
    case 'seasonal': {
      const m = u(5, 40);
      const phase = u(0, 2 * Math.PI);
      return Array.from({ length: weeks }, (_, w) => samplePoisson(rng, m * (1 + 0.5 * Math.sin((2 * Math.PI * w) / 52 + phase))));
    }
    case 'intermittent': {
      // occasional demand of steady size: ADI > 1.32, CV² of the sizes small
      const p = u(0.15, 0.4);
      const s = u(1, 4);
      return Array.from({ length: weeks }, () => (rng() < p ? 1 + samplePoisson(rng, s) : 0));
    }
    case 'lumpy': {
      // occasional demand of very variable size: log-normal sizes
      const p = u(0.1, 0.35);
      const mu = u(0.5, 2);
      return Array.from({ length: weeks }, () => (rng() < p ? Math.max(1, Math.round(Math.exp(mu + 1.1 * sampleStandardNormal(rng)))) : 0));
    }
  }
}

interface Generated {
  items: Array<{ input: BacktestItemInput; pattern: Pattern }>;
}

function generate(skuSites: number, weeks: number, seed: number, target: SiteTarget): Generated {
  const rng = createRng(seed);
  const nItems = Math.ceil(skuSites / STORES);
  const SUP = 1, DC = 2;
  const stores = Array.from({ length: STORES }, (_, i) => 3 + i);
  const items: Generated['items'] = [];
  for (let i = 0; i < nItems; i++) {
    const pattern = PATTERNS[i % PATTERNS.length];
    const unitCost = Math.round(Math.exp(Math.log(1) + rng() * Math.log(500)) * 100) / 100;
    const buyLead = 2 + Math.floor(rng() * 5);
    const storeCount = Math.min(STORES, skuSites - i * STORES);
    items.push({
      pattern,
      input: {
        itemId: i + 1,
        sites: [
          { siteId: SUP, history: null, unitCost, masterLeadTime: null, moq: 0, orderMultiple: 1, target },
          { siteId: DC, history: null, unitCost, masterLeadTime: null, moq: 0, orderMultiple: 1, target },
          ...stores.slice(0, storeCount).map((siteId) => ({ siteId, history: demandPath(rng, pattern, weeks), unitCost, masterLeadTime: 1, moq: 0, orderMultiple: 1, target, abcClass: pattern })),
        ],
        routes: [
          { from: SUP, to: DC, type: 'BUY', leadTime: buyLead, priority: 1 },
          ...stores.map((s) => ({ from: DC, to: s, type: 'REPLENISHMENT', leadTime: 1, priority: 1 })),
        ],
      },
    });
  }
  return { items };
}

const summaryRow = (r: BacktestRow, pattern: Pattern): SummaryRow & { pattern: Pattern } => ({
  item_id: r.itemId, site_id: r.siteId, origin_weeks: r.originWeeks, variant: r.variant, target_service: r.targetService, fill_rate: r.result.fillRate,
  cycle_service_level: r.result.cycleServiceLevel, average_on_hand: r.result.averageOnHand, unit_cost: r.unitCost, demand: r.result.demand,
  served_from_stock: r.result.servedFromStock, stockout_weeks: r.result.stockoutWeeks, demand_class: r.demandClass, abc_class: r.abcClass, segment_ids: r.segmentIds, pattern,
});

const pct = (v: number | null | undefined, digits = 1) => (typeof v === 'number' ? `${(100 * v).toFixed(digits)} %` : '–');
const money = (v: number | null | undefined) => (typeof v === 'number' ? int(v) : '–');

function peersTable(groups: readonly GroupSummary[]): string[][] {
  return groups.map((g) => {
    const v = (name: string) => g.variants.find((x) => x.variant === name);
    const eq = (name: string) => g.equal_service.find((e) => e.peer === name);
    const ours = v('target')!;
    const equal = (name: string) => {
      const e = eq(name);
      if (!e) return '–';
      if (e.ours_inventory_value === null) return `beyond the sweep (peer ${pct(e.peer_fill_rate)})`;
      return `${money(e.ours_inventory_value)} vs ${money(e.peer_inventory_value)} (${e.saving! >= 0 ? '−' : '+'}${fixed(Math.abs(100 * e.saving!), 1)} %)`;
    };
    return [
      g.group, int(ours.sku_sites), pct(ours.mean_target), pct(ours.mean_fill_rate), `${ours.gap_points >= 0 ? '+' : ''}${fixed(ours.gap_points, 2)}`, pct(ours.pooled_fill_rate),
      pct(v('normal')?.mean_fill_rate), pct(v('bootstrap')?.mean_fill_rate), pct(ours.mean_cycle_service_level),
      money(ours.inventory_value), money(v('normal')?.inventory_value), money(v('bootstrap')?.inventory_value), equal('normal'), equal('bootstrap'),
    ];
  });
}

function portfolioTable(groups: readonly PortfolioSummary[]): string[][] {
  return groups.map((g) => {
    const vs = (name: string) => {
      const e = g.equal_service.find((x) => x.peer === name);
      if (!e) return ['–', '–', '–'];
      const ours = e.ours_inventory_value === null ? `beyond the curve (${pct(g.curve[0]?.mean_fill_rate)}–${pct(g.curve[g.curve.length - 1]?.mean_fill_rate)})` : money(e.ours_inventory_value);
      const saving = e.saving === null ? '–' : `${e.saving >= 0 ? '−' : '+'}${fixed(Math.abs(100 * e.saving), 1)} %`;
      return [`${pct(e.peer_fill_rate)}, ${money(e.peer_inventory_value)}`, ours, saving];
    };
    return [g.group, `${pct(g.curve[0]?.mean_fill_rate)} … ${pct(g.curve[g.curve.length - 1]?.mean_fill_rate)}`, ...vs('normal'), ...vs('bootstrap')];
  });
}

const PORTFOLIO_HEAD = ['pattern', 'ours along the budgets: mean fill rate', 'normal peer: fill rate, stock', 'ours (portfolio) at that fill rate: stock', 'ours vs normal', 'bootstrap peer: fill rate, stock', 'ours (portfolio) at that fill rate: stock', 'ours vs bootstrap'];

const HEAD = [
  'group', 'SKU-sites', 'target', 'ours: fill rate', 'ours − target (points)', 'ours: units served / asked', 'normal peer: fill rate', 'bootstrap peer: fill rate', 'ours: cycle service',
  'ours: avg stock value', 'normal: avg stock value', 'bootstrap: avg stock value', 'ours at the normal peer\'s service vs normal', 'ours at the bootstrap peer\'s service vs bootstrap',
];

async function stepTiming(series: number, log: (m: string) => void): Promise<string> {
  const run = await runForecastPipeline({ series, seed: 42, weeks: 156, backtestWindows: 3, workerProcesses: os.availableParallelism(), log, steps: ['service-backtest'] });
  const s = run.steps[0];
  return `The step through the pipeline (throw-away stack, ${os.availableParallelism()} worker processes, the demo generator's tenant of ${int(run.series)} series, default settings: one origin, peers, a 9-level sweep): ${s.ok ? `${secs(s.seconds)} s wall, ${int(s.rows)} rows, ${int(s.chunks)} chunks, worker CPU ${fixed(s.cpu.worker, 1)} s, PostgreSQL CPU ${fixed(s.cpu.postgres, 1)} s` : `FAILED: ${s.error}`}.`;
}

interface Pass {
  policy: SiteTarget['policy'];
  seconds: number;
  cpuSeconds: number;
  replays: number;
  skipped: number;
  byClass: GroupSummary[];
  byPattern: GroupSummary[];
  portfolio: PortfolioSummary[];
  all: GroupSummary[];
}

/** Sizes and replays every generated item under one policy type; the demand paths are the same for every pass. */
function runPass(policy: SiteTarget['policy'], o: { skuSites: number; weeks: number; seed: number; target: number; mode: 'backorder' | 'lost_sales'; warmupWeeks: number }, log: (m: string) => void): Pass {
  const target: SiteTarget = { service_type: 'fill_rate', target_service: o.target, holding_rate: 0.25, ordering_cost: 50, policy, review_period_weeks: 1, source: 'scenario' };
  const { items } = generate(o.skuSites, o.weeks, o.seed, target);
  const models = pipelineModels(new Map());
  const rows: Array<SummaryRow & { pattern: Pattern }> = [];
  let skipped = 0;
  const cpu0 = process.cpuUsage();
  const t1 = performance.now();
  const options = { originWeeks: [26], mode: o.mode, warmupWeeks: o.warmupWeeks };
  // a budget per pattern, shared out over its items by marginal analysis on their curves: each budget of the sweep
  // gives every item its cap, within which it is planned again and replayed (variant 'portfolio')
  const caps = new Map<number, PortfolioCap[]>();
  for (const pattern of PATTERNS) {
    const curves = items.filter((i) => i.pattern === pattern).map((i) => itemServiceCurve(i.input, models, options)).filter((c) => c !== null);
    const reference = curves.reduce((n, c) => n + c.targetInvestment, 0);
    for (const share of PORTFOLIO_SHARES) {
      const allocation = allocateBudget(curves, share * reference);
      for (const c of curves) {
        const list = caps.get(c.itemId) ?? [];
        list.push({ level: share, cap: allocation.caps.get(c.itemId) ?? null });
        caps.set(c.itemId, list);
      }
    }
    log(`${policy}: ${pattern} portfolio curves of ${curves.length} items, ${secs((performance.now() - t1) / 1000)} s`);
  }
  items.forEach(({ input, pattern }, i) => {
    const r = backtestItem(input, models, { ...options, sweepTargets: SWEEP, portfolio: caps.get(input.itemId) ?? [] });
    for (const row of r.rows) rows.push(summaryRow(row, pattern));
    skipped += r.skipped.length;
    if ((i + 1) % 500 === 0) log(`${policy}: ${i + 1} / ${items.length} items, ${secs((performance.now() - t1) / 1000)} s`);
  });
  const seconds = (performance.now() - t1) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pass: Pass = {
    policy, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, replays: rows.length, skipped,
    byClass: summarize(rows, 'demand_class'), byPattern: summarize(rows.map((r) => ({ ...r, demand_class: r.pattern })), 'demand_class'), all: summarize(rows, 'all'),
    portfolio: summarizePortfolio(rows.map((r) => ({ ...r, demand_class: r.pattern })), 'demand_class'),
  };
  log(`${policy}: ${rows.length} replays in ${secs(seconds)} s (${fixed(pass.cpuSeconds, 1)} CPU s), ${skipped} skipped`);
  return pass;
}

function verdictsOf(p: Pass): string[] {
  const out: string[] = [];
  for (const g of p.byClass) {
    const ours = g.variants.find((v) => v.variant === 'target')!;
    out.push(`${p.policy}, ${g.group}: ours ${ours.gap_points >= 0 ? '+' : ''}${fixed(ours.gap_points, 2)} points from the target (goal within 2: ${Math.abs(ours.gap_points) <= 2 ? 'met' : 'NOT met'})`);
  }
  for (const g of p.portfolio) {
    if (g.group !== 'intermittent' && g.group !== 'lumpy') continue;
    const eq = g.equal_service.find((e) => e.peer === 'normal');
    const verdict = !eq || eq.saving === null ? 'not measurable: the peer\'s achieved service is outside our portfolio curve' : eq.saving > 0 ? `met, ${fixed(100 * eq.saving, 1)} % less` : `NOT met, ${fixed(-100 * eq.saving, 1)} % more`;
    out.push(`${p.policy}, ${g.group} parts: less stock than the normal peer at the peer's achieved service (ours under a portfolio budget): ${verdict}`);
  }
  return out;
}

const POLICY_NAMES: Record<string, string> = { rQ: '(r,Q), the default MEIO policy, replayed with weekly review', sS: '(s,S) with a one-week review period (a scenario setting)' };

async function main(): Promise<void> {
  const o = {
    skuSites: arg('sku-sites', 10_000), weeks: arg('weeks', 156), seed: arg('seed', 29), target: arg('target', 0.95),
    mode: process.argv.includes('--lost-sales') ? 'lost_sales' as const : 'backorder' as const, warmupWeeks: arg('warmup', 52),
  };
  const stepSeries = arg('step', 0);
  const load = os.loadavg()[0].toFixed(1);
  const doc = !process.argv.includes('--no-doc');
  const log = (m: string) => console.log(`[bench:service] ${m}`);
  if (stepSeries > 0) {
    const step = await stepTiming(stepSeries, log);
    log(step);
    const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
    const body = `Run ${date} UTC on ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, load average ${load} at the start on ${os.availableParallelism()} cores. ${step}`;
    if (doc) replaceBlock(path.join(REPO_ROOT, 'docs/BENCHMARKS.md'), 'bench:service-step', body, { skeleton: '# Benchmarks\n', heading: '### The service-backtest step through the pipeline (`npm run bench:service -- --step N`)' });
    return;
  }
  const passes = (['rQ', 'sS'] as const).map((policy) => runPass(policy, o, log));
  const verdicts = passes.flatMap(verdictsOf);
  for (const p of passes) console.log(`${POLICY_NAMES[p.policy]}\n${markdownTable(HEAD, peersTable([...p.byClass, ...p.all]))}\n${markdownTable(PORTFOLIO_HEAD, portfolioTable(p.portfolio))}`);
  for (const v of verdicts) log(v);
  if (!doc) return;

  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const [rq] = passes;
  const body = [
    `Run ${date} UTC on ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'unknown'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}. Load average ${load} at the start on ${os.availableParallelism()} cores (other runs share the machine when it exceeds the core count, and then the times are inflated); the service figures do not depend on load.`,
    '',
    `${int(o.skuSites)} generated SKU-sites (seed ${o.seed}): ${int(Math.ceil(o.skuSites / STORES))} items, a quarter each smooth (Poisson 5–40 a week), seasonal (the same with a ±50 % yearly swing), intermittent (a demand in 15–40 % of weeks, sizes 1 + Poisson 1–4) and lumpy (10–35 % of weeks, log-normal sizes), each sold at ${STORES} stores supplied by a DC (1 week) that buys from a supplier (2–6 weeks, per item); unit costs 1–500; ${o.weeks} weeks of history. Every SKU-site at a ${pct(o.target, 0)} fill-rate target, ${o.mode === 'backorder' ? 'backorders' : 'lost sales'}, origin 26 weeks before the end, ${o.warmupWeeks} warm-up weeks, sweep ${SWEEP.join(', ')}.`,
    `Pure-engine path (what the step's chunks run, without the database), one process: ${passes.map((p) => `${p.policy} ${secs(p.seconds)} s wall, ${fixed(p.cpuSeconds, 1)} CPU s for ${int(p.replays)} replays`).join('; ')}. The step through the pipeline is timed separately (\`--step N\`, below).`,
    '',
    ...passes.flatMap((p) => [
      `**${POLICY_NAMES[p.policy]}**, by demand class as characterized on the weeks before the origin (the project's Syntetos–Boylan–Croston classes):`,
      '',
      markdownTable(HEAD, peersTable([...p.byClass, ...p.all])),
      '',
    ]),
    `By the pattern the generator drew, (r,Q) (a seasonal part is classified smooth or erratic above):`,
    '',
    markdownTable(HEAD, peersTable(rq.byPattern)),
    '',
    ...passes.flatMap((p) => [
      `**Equal service, ${p.policy}: ours under a portfolio budget.** Per pattern, one budget shared out over its items by marginal analysis on their service-versus-investment curves (\`domain/inventory/portfolioBudget.ts\`, the meio step's scenario budget; each item weighs as its number of SKU-sites), at ${PORTFOLIO_SHARES.map((x) => `${Math.round(100 * x)} %`).join(', ')} of what the items take at their own 95 % targets; each item planned within its share and replayed. Our stock is read off that curve at the mean fill rate each peer achieved:`,
      '',
      markdownTable(PORTFOLIO_HEAD, portfolioTable(p.portfolio)),
      '',
    ]),
    'Fill rates are the unweighted means of the SKU-sites\' achieved fill rates over the 26 held-out weeks ("units served / asked" pools the units instead: the demand-weighted view, in which the large stores weigh most); stock values are Σ average end-of-week on hand × unit cost. "Ours at the peer\'s service" interpolates our policies\' stock along the target sweep at the mean fill rate the peer achieved (docs/SERVICE_BACKTEST.md); "−" is less stock than the peer, "beyond the sweep" means even the 99.5 % level of our sizing did not reach the peer\'s achieved service.',
    '',
    ...verdicts.map((v) => `- ${v}`),
  ].join('\n');
  replaceBlock(path.join(REPO_ROOT, 'docs/BENCHMARKS.md'), 'bench:service', body, { skeleton: '# Benchmarks\n', heading: '## Service backtest: stock targets against demand they never saw (`npm run bench:service`)' });
  log('docs/BENCHMARKS.md updated');
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
