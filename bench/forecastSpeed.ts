/**
 * `npm run bench:forecast`: speed of the full forecasting tournament on generated weekly series, against R's forecast
 * package and Nixtla statsforecast doing the equivalent work in the same run.
 *
 * Series: scripts/demoData/generator.ts (seed 42, 156 weeks), 1,000 and 10,000 (item, site) series; each series runs
 * from its first week with demand to the last week, zeros filled, as the etl step builds series_weekly.
 *
 * Ours, per series, what the forecast step will do: characterize (period 52) → the tournament with the recommended
 * methods (smooth/erratic: naive, seasonal naive when seasonal, ses, holt and damped trend when trending, Holt–Winters
 * and ETS when seasonal with two years, theta, optimised theta, auto ARIMA, combination; intermittent/lumpy: naive,
 * croston, sba, tsb, adida, moving average, combination), backtest 3 origins × 13 weeks, 4 weeks apart (at least 26
 * weeks of training), score MASE, combination of the top 3, then every candidate fitted on the full history and
 * forecast 52 weeks with 90 % intervals. Run on worker threads (one per core by default).
 *
 * Peers, per series, the nearest equivalent of that tournament: the same 3 backtest origins and the full history,
 * each fitted with ets, auto.arima, thetaf, croston, naive and snaive (R, package defaults; R's ets ignores
 * seasonality above frequency 24, so it fits non-seasonal models on weekly data) and AutoETS, AutoARIMA, AutoTheta,
 * CrostonClassic, Naive and SeasonalNaive (statsforecast, season_length 52), i.e. 4 × 6 fits per series, on every
 * series class — the peers get no characterization shortcut. Peers are slow, so they run on an evenly spaced sample
 * of the series (--r-sample, --sf-sample); their per-series cost does not depend on how many series there are.
 *
 * Measured: wall time and CPU seconds (this process with its worker threads, from process.cpuUsage; the peers' own
 * CPU time as they report it per fit, plus the child's total), series per second on the wall clock and per core
 * (series ÷ CPU seconds — robust to other load on the machine), peak RSS (VmHWM of this process, reset per size;
 * the peers' VmHWM sampled from /proc). The ratio compares per-core speeds.
 *
 * Pipeline (bench/lib/forecastPipeline.ts): --pipeline-series N (default 10,000) generated series through the real
 * stack — embedded PostgreSQL, Temporal dev server, one worker process per core (--pipeline-workers N) — loaded, imported and etl'ed as bench:etl does,
 * then the forecasting steps outlier, characterization, forecast, backtest, backtest-forecast, best-method and
 * distribution started one after the other as POST /api/pipeline/run/{step} starts them, backtest.windows = 3, the
 * pipeline's n_workers (default 2). Per step: wall time, CPU seconds of the worker and of PostgreSQL, the worker's
 * peak RSS; target: the seven steps in under 5 minutes in total. It runs after the peers have finished, so they do not
 * share the machine with it. When a step is not available yet (lib/steps.ts, activities/steps/registry.ts) the part is
 * skipped with a message.
 *
 *   npm run bench:forecast                           # 1000 and 10000 series + the pipeline; writes docs/BENCHMARKS.md
 *   npm run bench:forecast -- --sizes 1000 --no-doc  # options: --threads N --r-sample N (20) --sf-sample N (50)
 *                                                    #   --peer-minutes N (30: a peer still running then is stopped
 *                                                    #   and measured on the series it finished) --no-r --no-python
 *                                                    #   --no-install --seed N --pipeline-series N (0: skip) --pipeline-workers N (worker processes, default: cores)
 *                                                    #   --no-pipeline
 * Exit status 1 when anything failed (a peer that is unavailable is reported, not a failure; a failed step is).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { characterize } from '../domain/characterization/characterize';
import { planOrigins } from '../domain/forecast/backtest';
import { runTournament, type TournamentOptions } from '../domain/forecast/tournament';
import { REPO_ROOT } from '../lib/env';
import { createDemoPlan, demandBySeries } from '../scripts/demoData/generator';
import { FORECAST_STEPS, pipelineNotReady, runForecastPipeline, type PipelineRun } from './lib/forecastPipeline';
import { memStatus, mib, resetPeak } from './lib/proc';
import { fixed, int, markdownTable, replaceBlock, secs, textTable } from './lib/report';
import { type PeerRun, type PeerTask, runR, runStatsforecast } from './peers/peers';

const PERIOD = 52;
const H = 52;
const BACKTEST = { origins: 3, horizon: 13, step: 4, minTrain: 26 };

function tournamentOptions(y: Float64Array): TournamentOptions {
  return {
    period: PERIOD,
    h: H,
    level: 0.9,
    characteristics: characterize(y, { period: PERIOD }),
    backtest: BACKTEST,
    score: 'mase',
    combination: { top: 3, weights: 'equal' },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// worker thread: runs tournaments on the series it is sent, returns the winners

if (!isMainThread) {
  parentPort!.on('message', (msg: { series: Float64Array[] } | null) => {
    if (msg === null) process.exit(0);
    const best: string[] = [];
    let candidates = 0;
    for (const y of msg.series) {
      const t = runTournament(y, tournamentOptions(y));
      best.push(t.best);
      candidates += t.methods.length;
    }
    parentPort!.postMessage({ best, candidates });
  });
  void workerData;
}

// ---------------------------------------------------------------------------------------------------------------
// main thread

interface Args {
  sizes: number[];
  threads: number;
  seed: number;
  rSample: number;
  sfSample: number;
  peerMinutes: number;
  r: boolean;
  python: boolean;
  install: boolean;
  doc: boolean;
  pipelineSeries: number;
  pipelineWorkers: number;
}

function parseArgs(argv: string[]): Args {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const int_ = (name: string, dflt: number): number => {
    const v = value(name);
    if (v === undefined) return dflt;
    const n = Number(v.replace(/_/g, ''));
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name}: '${v}' is not a non-negative integer`);
    return n;
  };
  const known = ['--sizes', '--threads', '--seed', '--r-sample', '--sf-sample', '--peer-minutes', '--no-r', '--no-python', '--no-install', '--no-doc', '--doc', '--pipeline-series', '--pipeline-workers', '--no-pipeline', '--help'];
  for (const a of argv) if (a.startsWith('--') && !known.includes(a)) throw new Error(`unknown option ${a} (known: ${known.join(' ')})`);
  if (argv.includes('--help')) {
    process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0].replace(/^\/\*\*?|^ \* ?/gm, '') + '\n');
    process.exit(0);
  }
  const sizesArg = value('--sizes');
  const sizes = sizesArg ? sizesArg.split(',').map((s) => Number(s.replace(/_/g, ''))) : [1000, 10000];
  const full = !sizesArg;
  return {
    sizes,
    threads: int_('--threads', os.availableParallelism()),
    seed: int_('--seed', 42),
    rSample: int_('--r-sample', 20),
    sfSample: int_('--sf-sample', 50),
    peerMinutes: int_('--peer-minutes', 30),
    r: !argv.includes('--no-r'),
    python: !argv.includes('--no-python'),
    install: !argv.includes('--no-install'),
    doc: argv.includes('--doc') || (full && !argv.includes('--no-doc')),
    pipelineSeries: argv.includes('--no-pipeline') ? 0 : int_('--pipeline-series', full ? 10_000 : 0),
    pipelineWorkers: int_('--pipeline-workers', os.availableParallelism()),
  };
}

const log = (msg: string): void => {
  process.stderr.write(`[bench:forecast] ${msg}\n`);
};

interface Generated {
  series: Float64Array[];
  /** number of series (kept when the arrays are released) */
  count: number;
  classes: Record<string, number>;
  empty: number;
}

/** The generator's series as weekly arrays from the first week with demand to the last week (as the etl step). */
function generate(n: number, seed: number): Generated {
  const plan = createDemoPlan({ seed, items: Math.max(1, Math.ceil(n / 10)), sites: 30, seriesTarget: n, weeks: 156 });
  const index = new Map(plan.weekDs.map((d, t) => [d, t]));
  const series: Float64Array[] = [];
  const classes: Record<string, number> = {};
  let empty = 0;
  const weeks = plan.options.weeks;
  for (const s of demandBySeries(plan)) {
    if (s.rows.length === 0) {
      empty++;
      continue;
    }
    const w = new Float64Array(weeks);
    for (const r of s.rows) w[index.get(r.ds)!] += r.qty;
    let first = 0;
    while (first < weeks && w[first] === 0) first++;
    series.push(w.slice(first));
    classes[s.truth.pattern] = (classes[s.truth.pattern] ?? 0) + 1;
  }
  return { series, classes, empty, count: series.length };
}

interface OursResult {
  wall: number;
  cpu: number;
  peakRss: number;
  best: Map<string, number>;
  candidates: number;
}

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function runOurs(series: Float64Array[], threads: number): Promise<OursResult> {
  resetPeak(process.pid);
  const cpu0 = cpuSeconds();
  const t0 = performance.now();
  const best = new Map<string, number>();
  let candidates = 0;
  let next = 0;
  let done = 0;
  let lastLog = Date.now();
  const chunk = 25;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(threads, series.length)) }, () =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(`require('tsx/cjs'); require(${JSON.stringify(__filename)});`, { eval: true });
        const send = () => {
          if (next >= series.length) {
            w.postMessage(null);
            return;
          }
          const batch = series.slice(next, next + chunk);
          next += batch.length;
          w.postMessage({ series: batch });
        };
        w.on('message', (m: { best: string[]; candidates: number }) => {
          for (const b of m.best) best.set(b, (best.get(b) ?? 0) + 1);
          candidates += m.candidates;
          done += m.best.length;
          if (Date.now() - lastLog > 20000) {
            lastLog = Date.now();
            log(`ours: ${int(done)}/${int(series.length)} series, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
          }
          send();
        });
        w.on('error', reject);
        w.on('exit', () => resolve());
        send();
      }),
    ),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds() - cpu0;
  return { wall, cpu, peakRss: memStatus(process.pid)?.hwm ?? NaN, best, candidates };
}

/** Peer tasks for a sample of the series: the 3 backtest origins and the full history, each forecast h ahead. */
function peerTasks(series: Float64Array[], sample: number): { tasks: PeerTask[]; series: number } {
  const k = Math.min(sample, series.length);
  const tasks: PeerTask[] = [];
  for (let j = 0; j < k; j++) {
    const i = Math.floor((j * series.length) / k);
    const y = series[i];
    const plan = planOrigins(y.length, { h: H, period: PERIOD, ...BACKTEST });
    for (const o of plan.origins) tasks.push({ id: `s${i}o${o.index}`, m: PERIOD, h: o.h, y: y.subarray(0, o.train_end) });
    tasks.push({ id: `s${i}full`, m: PERIOD, h: H, y });
  }
  return { tasks, series: k };
}

const PEER_METHODS = ['ets', 'arima', 'theta', 'croston', 'naive', 'snaive'];

interface PeerResult {
  run: PeerRun;
  series: number;
  tasks: number;
  cpuPerSeries: number;
  perMethod: Record<string, number>;
  failures: number;
}

async function runPeer(which: 'R' | 'statsforecast', series: Float64Array[], sample: number, args: Args): Promise<PeerResult> {
  const { tasks, series: k } = peerTasks(series, sample);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-forecast-${which}-`));
  log(`${which}: ${k} series (${tasks.length} fits of each of ${PEER_METHODS.join(', ')}), at most ${args.peerMinutes} min …`);
  try {
    const opts = { timeoutMs: args.peerMinutes * 60_000, log };
    const run = which === 'R' ? await runR(tasks, PEER_METHODS, dir, opts) : await runStatsforecast(tasks, PEER_METHODS, dir, { ...opts, install: args.install });
    if (!run.ok) log(`${which} unavailable: ${run.error}`);
    // a series counts when all its fits (3 origins + full history) finished; stopped runs leave some out
    const bySeries = new Map<string, string[]>();
    for (const t of tasks) {
      const sid = t.id.replace(/(o\d+|full)$/, '');
      bySeries.set(sid, [...(bySeries.get(sid) ?? []), t.id]);
    }
    let done = 0;
    let fits = 0;
    let total = 0;
    let failures = 0;
    const perMethod: Record<string, number> = {};
    for (const ids of bySeries.values()) {
      if (!ids.every((id) => run.forecasts.has(id))) continue;
      done++;
      fits += ids.length;
      for (const id of ids) {
        const sec = run.taskSeconds.get(id) ?? {};
        for (const m of PEER_METHODS) {
          total += sec[m] ?? 0;
          perMethod[m] = (perMethod[m] ?? 0) + (sec[m] ?? 0);
          if (!run.forecasts.get(id)!.get(m)) failures++;
        }
      }
    }
    for (const m of Object.keys(perMethod)) perMethod[m] /= Math.max(1, done);
    if (run.ok) log(`${which}: ${done} of ${k} series done, ${run.wallSeconds.toFixed(0)} s wall, ${(total / Math.max(1, done)).toFixed(3)} CPU s per series${run.partial ? ' (time limit)' : ''}`);
    return { run, series: done, tasks: fits, cpuPerSeries: done ? total / done : NaN, perMethod, failures };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface SizeResult {
  n: number;
  gen: Generated;
  ours: OursResult;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const results: SizeResult[] = [];
  const peerJobs: Promise<PeerResult>[] = [];
  for (const n of args.sizes) {
    log(`generating ${int(n)} series …`);
    const gen = generate(n, args.seed);
    log(`${int(gen.series.length)} series (${Object.entries(gen.classes).map(([k, v]) => `${k} ${v}`).join(', ')}); tournament on ${args.threads} threads …`);
    if (n === args.sizes[0]) {
      // the peers' per-series cost does not depend on the number of series: measure them once, on a sample of the
      // first size, in child processes running next to ours (CPU time, not wall time, is compared)
      if (args.r && args.rSample > 0) peerJobs.push(runPeer('R', gen.series, args.rSample, args));
      if (args.python && args.sfSample > 0) peerJobs.push(runPeer('statsforecast', gen.series, args.sfSample, args));
    }
    const ours = await runOurs(gen.series, args.threads);
    log(`ours: ${int(gen.series.length)} series in ${secs(ours.wall)} s wall, ${secs(ours.cpu)} CPU s, peak RSS ${fixed(mib(ours.peakRss), 0)} MiB`);
    results.push({ n, gen: { ...gen, series: [] }, ours });
  }
  const peers: PeerResult[] = await Promise.all(peerJobs);

  // the real pipeline, alone on the machine as far as this benchmark goes (the peers are done)
  let pipeline: PipelineRun | null = null;
  let pipelineSkipped: string | null = null;
  if (args.pipelineSeries > 0) {
    pipelineSkipped = pipelineNotReady();
    if (pipelineSkipped) log(`pipeline part skipped: ${pipelineSkipped}`);
    else pipeline = await runForecastPipeline({ series: args.pipelineSeries, seed: args.seed, weeks: 156, backtestWindows: BACKTEST.origins, workerProcesses: args.pipelineWorkers, log });
  } else pipelineSkipped = 'not requested (--pipeline-series 0 or --no-pipeline)';
  const pipelineFailed = pipeline?.steps.filter((st) => !st.ok) ?? [];
  const pipeHead = ['step', 'series', 'rows', 'wall s', 'CPU s worker', 'CPU s PostgreSQL', 'series/s (wall)', 'chunks: s from first to last', 'workers busy during chunks %', 'tail s', 'workers\' peak RSS MiB (summed)'];
  const pipeRows = pipeline
    ? [
        ...pipeline.steps.map((st) => [st.step + (st.ok ? '' : ` FAILED: ${st.error}`), int(st.series), int(st.rows), secs(st.seconds), secs(st.cpu.worker), secs(st.cpu.postgres), fixed(st.series / st.seconds, 0), st.chunks_timeline ? secs(st.chunks_timeline.span) : '', st.chunks_timeline ? fixed(100 * st.chunks_timeline.utilisation, 0) : '', st.chunks_timeline ? secs(st.chunks_timeline.tail) : '', fixed(mib(Math.max(st.workerPeak, st.workerSampledMax)), 0)]),
        ['**total**', int(pipeline.prepare.etlSeries), '', secs(pipeline.totalSeconds), secs(pipeline.totalCpu.worker), secs(pipeline.totalCpu.postgres), fixed(pipeline.prepare.etlSeries / pipeline.totalSeconds, 0), '', '', '', fixed(mib(Math.max(...pipeline.steps.map((st) => Math.max(st.workerPeak, st.workerSampledMax)))), 0)],
      ]
    : [];
  const pipelineVerdict = pipeline
    ? `${int(pipeline.prepare.etlSeries)} series through ${FORECAST_STEPS.join(' → ')} in ${secs(pipeline.totalSeconds)} s wall (${(pipeline.totalSeconds / 60).toFixed(1)} min; target under 5 min: ${pipelineFailed.length ? 'not met — a step failed' : pipeline.totalSeconds < 300 ? 'met' : 'not met'}), ${secs(pipeline.totalCpu.worker)} CPU s in the worker and ${secs(pipeline.totalCpu.postgres)} in PostgreSQL; before that load ${secs(pipeline.prepare.loadSeconds)} s, import ${secs(pipeline.prepare.importSeconds)} s, etl ${secs(pipeline.prepare.etlSeconds)} s (not counted); n_workers ${pipeline.settings.nWorkers}, chunk_size ${pipeline.settings.chunkSize}, backtest.windows ${pipeline.settings.backtestWindows}`
    : `pipeline part skipped: ${pipelineSkipped}`;

  // report
  const rows = results.map(({ n, gen, ours }) => {
    const s = gen.count;
    return [int(n), int(s), secs(ours.wall), secs(ours.cpu), fixed(s / ours.wall, 1), fixed(s / ours.cpu, 1), fixed((ours.cpu * 1000) / s, 1), fixed(ours.candidates / s, 1), fixed(mib(ours.peakRss), 0)];
  });
  const head = ['series requested', 'series', 'wall s', 'CPU s', 'series/s (wall)', 'series/s per core', 'CPU ms per series', 'methods per series', 'peak RSS MiB'];
  const oursPerCore = results.reduce((a, r) => a + r.gen.count, 0) / results.reduce((a, r) => a + r.ours.cpu, 0);
  const peerHead = ['peer', 'series measured', 'fits', 'CPU s per series', 'series/s per core', 'ours ÷ peer (per core)', 'per-method CPU s per series', 'failed fits', 'peak RSS MiB'];
  const peerRows = peers
    .filter((p) => p.run.ok)
    .map((p) => [
      `${p.run.peer} (${p.run.version})`,
      int(p.series),
      int(p.tasks * PEER_METHODS.length),
      fixed(p.cpuPerSeries, 3),
      fixed(1 / p.cpuPerSeries, 2),
      `${fixed(oursPerCore * p.cpuPerSeries, 1)}×`,
      Object.entries(p.perMethod).map(([m, v]) => `${m} ${v.toFixed(3)}`).join(', '),
      int(p.failures),
      fixed(mib(p.run.peakRss), 0),
    ]);
  const best = new Map<string, number>();
  for (const r of results) for (const [m, c] of r.ours.best) best.set(m, (best.get(m) ?? 0) + c);
  const bestList = [...best].sort((a, b) => b[1] - a[1]).map(([m, c]) => `${m} ${int(c)}`).join(', ');
  const classes = results.map((r) => `${int(r.gen.count)}: ${Object.entries(r.gen.classes).map(([k, v]) => `${k} ${int(v)}`).join(', ')}`).join('; ');

  process.stdout.write(
    [
      '',
      textTable(head, rows),
      '',
      peerRows.length ? textTable(peerHead, peerRows, peerHead.map((_, i) => (i === 0 || i === 6 ? 'l' : 'r'))) : 'no peer ran',
      ...peers.filter((p) => !p.run.ok).map((p) => `${p.run.peer}: unavailable (${p.run.error})`),
      '',
      `winners: ${bestList}`,
      `series classes: ${classes}`,
      '',
      pipeline ? textTable(pipeHead, pipeRows, pipeHead.map((_, i) => (i === 0 ? 'l' : 'r'))) : '',
      pipelineVerdict,
    ].join('\n') + '\n',
  );

  const outDir = path.join(REPO_ROOT, 'bench', 'out');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(
    path.join(outDir, `forecast-speed-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify({ args, pipeline, pipelineSkipped, results: results.map((r) => ({ n: r.n, series: r.gen.count, classes: r.gen.classes, ...r.ours, best: Object.fromEntries(r.ours.best) })), peers: peers.map((p) => ({ ...p, run: { ...p.run, forecasts: undefined } })) }, null, 1),
  );

  if (args.doc) {
    const date = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
    const md = [
      `Measured ${date} by \`npm run bench:forecast\` on the machine above (${os.availableParallelism()} × ${os.cpus()[0]?.model.trim() ?? 'CPU'}, ${args.threads} worker threads; load average at the end ${os.loadavg().map((v) => v.toFixed(1)).join(' / ')}, other people's work included); whole run ${((performance.now() - t0) / 60000).toFixed(1)} min. Generated weekly series (seed ${args.seed}, 156 weeks, from the first week with demand). Ours: characterize → tournament over the recommended methods, backtest 3 origins × 13 weeks, step 4, score MASE, combination of the top 3, every candidate refitted on the full history and forecast 52 weeks. "Per core" = series ÷ CPU seconds of all threads, so it does not depend on the other load of the machine; the wall clock does.`,
      '',
      markdownTable(head, rows),
      '',
      `Peers, on an evenly spaced sample of the first size's series (${args.rSample} for R, ${args.sfSample} for statsforecast, at most ${args.peerMinutes} min each; "series measured" = those whose 4 fits all finished), each doing the same 3 origins + the full history with ${PEER_METHODS.join(', ')} (R: ets, auto.arima, thetaf, croston, naive, snaive with package defaults — its ets ignores seasonality above frequency 24; statsforecast: AutoETS, AutoARIMA, AutoTheta, CrostonClassic, Naive, SeasonalNaive, season_length 52), one process each, CPU time as the peer measured it per fit:`,
      '',
      peerRows.length ? markdownTable(peerHead, peerRows, peerHead.map((_, i) => (i === 0 || i === 6 ? 'l' : 'r'))) : 'No peer ran.',
      ...peers.filter((p) => !p.run.ok).map((p) => `\n${p.run.peer} unavailable: ${p.run.error}`),
      '',
      `Target: at least 5× R's per-series speed per core — ${peers.find((p) => p.run.peer === 'R' && p.run.ok) ? `measured ${fixed(oursPerCore * peers.find((p) => p.run.peer === 'R')!.cpuPerSeries, 1)}×` : 'R did not run'}. Note that the peers fit their 6 methods on every series while ours fits the characterization's recommendations (fewer methods on intermittent series, more on smooth seasonal ones).`,
      '',
      `Winners: ${bestList}. Series classes: ${classes}.`,
      '',
      `**Through the real pipeline** (jobs, PostgreSQL, Temporal, ${pipeline?.settings.workerProcesses ?? 1} worker process(es), one per core; bench/lib/forecastPipeline.ts): ${pipelineVerdict}.`,
      ...(pipeline ? ['', markdownTable(pipeHead, pipeRows, pipeHead.map((_, i) => (i === 0 ? 'l' : 'r')))] : []),
    ];
    const doc = path.join(REPO_ROOT, 'docs', 'BENCHMARKS.md');
    replaceBlock(doc, 'bench:forecast-speed', md.join('\n'), { skeleton: '# Benchmarks\n', heading: '## Forecast speed' });
    log(`updated ${path.relative(REPO_ROOT, doc)}`);
  }
  if (pipelineFailed.length) {
    process.stderr.write(`bench:forecast: pipeline step(s) failed: ${pipelineFailed.map((st) => `${st.step}: ${st.error}`).join('; ')}\n`);
    process.exitCode = 1;
  }
}

if (isMainThread) {
  // exit explicitly: a library's exit hook must not turn a failed run into status 0
  main().then(() => process.exit(process.exitCode ?? 0), (e) => {
    process.stderr.write(`bench:forecast failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exit(1);
  });
}
