/**
 * `npm run bench:meio`: the meio step on 10,000 SKU-sites through the real pipeline (target: under 60 s on this
 * machine). A throw-away stack (embedded PostgreSQL, Temporal dev server, one worker process per core), the demo
 * generator's tenant at 10,000 series (plants → DCs → stores, REPLENISHMENT routes for every item, RETURN and REPAIR
 * loops) loaded through import staging, an import run and etl, then the distribution step (the meio step's input)
 * and the meio step, each started as POST /api/pipeline/run/{step} starts it and timed: wall time, CPU seconds of the
 * workers and PostgreSQL, chunk utilisation. The meio step plans every item across its whole network (its series'
 * sites and every site its routes touch), so it writes more SKU-site rows than there are series.
 *
 *   npm run bench:meio                         # 10,000 series, writes docs/BENCHMARKS.md
 *   npm run bench:meio -- --series 1000 --no-doc
 *   options: --series N, --seed N, --weeks N, --workers N (worker processes, default one per core), --no-doc
 */
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../lib/env';
import { runForecastPipeline } from './lib/forecastPipeline';
import { fixed, int, markdownTable, replaceBlock, secs } from './lib/report';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const TARGET_SECONDS = 60;

async function main(): Promise<void> {
  const series = arg('series', 10_000);
  const workers = arg('workers', os.availableParallelism());
  const doc = !process.argv.includes('--no-doc');
  const log = (m: string) => console.log(`[bench:meio] ${m}`);
  const run = await runForecastPipeline({ series, seed: arg('seed', 42), weeks: arg('weeks', 156), backtestWindows: 3, workerProcesses: workers, log, steps: ['distribution', 'meio'] });
  const meio = run.steps.find((s) => s.step === 'meio')!;
  const rows = run.steps.map((s) => [
    s.step, s.ok ? 'ok' : `FAILED: ${s.error}`, int(s.series), int(s.rows), int(s.chunks), secs(s.seconds), fixed(s.cpu.worker, 1), fixed(s.cpu.postgres, 1),
    s.chunks_timeline ? `${fixed(100 * s.chunks_timeline.utilisation, 0)} %` : '–',
  ]);
  const head = ['step', 'status', 'series', 'rows (SKU-sites)', 'chunks', 'wall s', 'worker CPU s', 'PostgreSQL CPU s', 'workers busy'];
  const verdict = meio.ok && meio.seconds < TARGET_SECONDS
    ? `meio: ${int(meio.series)} series, ${int(meio.rows)} SKU-sites planned in ${secs(meio.seconds)} s (target ${TARGET_SECONDS} s: met, ${fixed(TARGET_SECONDS / meio.seconds, 1)}× under)`
    : `meio: ${meio.ok ? `${secs(meio.seconds)} s` : `failed (${meio.error})`} (target ${TARGET_SECONDS} s: NOT met)`;
  console.log(markdownTable(head, rows));
  console.log(verdict);
  if (!doc) return;
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  const body = [
    `Run ${date} UTC on ${os.availableParallelism()} × ${cpu}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}; ${workers} worker processes;`,
    `${int(run.series)} generated series (${run.shape.items} items × ${run.shape.sites} sites, ${run.shape.weeks} weeks, seed ${run.shape.seed}); chunk size ${run.settings.chunkSize} series, cut at item boundaries.`,
    `Prepared by load ${secs(run.prepare.loadSeconds)} s, import ${secs(run.prepare.importSeconds)} s, etl ${secs(run.prepare.etlSeconds)} s (not timed below).`,
    '',
    markdownTable(head, rows),
    '',
    `**${verdict}.**`,
  ].join('\n');
  replaceBlock(path.join(REPO_ROOT, 'docs/BENCHMARKS.md'), 'bench:meio-pipeline', body, { skeleton: '# Benchmarks\n', heading: '## MEIO through the pipeline (`npm run bench:meio`)' });
  log('docs/BENCHMARKS.md updated');
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
