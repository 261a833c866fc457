/**
 * Offline forecasting of a CSV of demand, through the same engines as the pipeline (characterize → the method
 * tournament with rolling-origin backtests → the best method's forecast), after the outlier step's correction. No
 * database, no Temporal.
 *
 *   npm run forecast:csv -- --input demand.csv --output forecasts.csv [--summary summary.csv] [--horizon 52]
 *     [--period 52] [--methods ets,arima,...] [--level 0.9] [--backtest-origins 3] [--backtest-horizon 13]
 *     [--backtest-step 4] [--min-train 26] [--score mase] [--outliers hampel] [--threads N] [--strict] [--rejects bad.csv]
 *     [--delimiter ,] [--no-progress]
 *
 * Input: a header row with item_id, site_id, ds (YYYY-MM-DD, any day: summed into Monday weeks) and y (>= 0); other
 * columns are ignored. Output: item_id, site_id, ds, method, yhat, yhat_lower, yhat_upper — one row per series and
 * future week; the summary: one row per series. docs/FORECASTING.md ("Offline forecasting from a CSV") has the rest.
 *
 * Exit codes: 0 done (bad rows, if any, were reported and skipped); 1 bad input with --strict, an unreadable file,
 * no valid row, or a series no method could forecast (the other series are still written); 2 usage error.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { dateOfDay, dayNumber } from '../domain/time/weeks';
import { isMetricName, METRIC_NAMES, type MetricName } from '../domain/forecast/metrics';
import { COMBINATION, isMethod, METHOD_NAMES } from '../domain/forecast/registry';
import { csvLine, FORECAST_HEADER, type ForecastSettings, SUMMARY_HEADER } from './forecastCsv/forecast';
import { checkRecord, type ColumnIndex, columnIndex, CsvReader, type CsvRecord, INPUT_COLUMNS, InputError, WeeklyAccumulator, type WeeklyInput } from './forecastCsv/parse';
import { Progress, type ProgressStream } from './forecastCsv/progress';
import { type BatchRequest, type BatchResult, runBatch } from './forecastCsv/worker';

const USAGE = `usage: forecastCli --input <demand.csv> --output <forecasts.csv> [--summary <summary.csv>]
  [--horizon 52] [--period 52] [--methods ets,arima,...] [--level 0.9] [--backtest-origins 3]
  [--backtest-horizon 13] [--backtest-step 4] [--min-train 26] [--score ${METRIC_NAMES.join('|')}]
  [--outliers hampel|iqr|none] [--threads <cores>] [--strict] [--rejects <bad_rows.csv>] [--delimiter ,] [--no-progress]
methods: ${[...METHOD_NAMES, COMBINATION].join(', ')}`;

/** Bad rows printed on stderr; the rest are counted (and all of them go to --rejects). */
export const MAX_REPORTED = 50;

export class UsageError extends Error {}

export interface CliOptions {
  input: string;
  output: string;
  summary?: string;
  rejects?: string;
  settings: ForecastSettings;
  threads: number;
  strict: boolean;
  delimiter: string;
  progress: boolean;
}

function intOption(name: string, v: string | undefined, dflt: number, min: number, max: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${v}'`);
  return n;
}

export function parseOptions(argv: string[]): CliOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        input: { type: 'string' }, output: { type: 'string' }, summary: { type: 'string' }, rejects: { type: 'string' },
        horizon: { type: 'string' }, period: { type: 'string' }, methods: { type: 'string' }, level: { type: 'string' },
        'backtest-origins': { type: 'string' }, 'backtest-horizon': { type: 'string' }, 'backtest-step': { type: 'string' },
        'min-train': { type: 'string' }, score: { type: 'string' }, threads: { type: 'string' }, strict: { type: 'boolean' },
        delimiter: { type: 'string' }, 'no-progress': { type: 'boolean' }, help: { type: 'boolean' }, outliers: { type: 'string' },
      },
    }));
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) throw new UsageError(USAGE);
  if (!values.input) throw new UsageError(`--input <demand.csv> is required\n${USAGE}`);
  if (!values.output) throw new UsageError(`--output <forecasts.csv> is required\n${USAGE}`);
  const files = [values.output, values.summary, values.rejects].filter((f): f is string => Boolean(f)).map((f) => path.resolve(f));
  if (files.includes(path.resolve(values.input)) || new Set(files).size !== files.length) {
    throw new UsageError('--input, --output, --summary and --rejects must be different files');
  }
  let methods: string[] | undefined;
  if (values.methods !== undefined) {
    methods = values.methods.split(',').map((m) => m.trim()).filter(Boolean);
    const unknown = methods.filter((m) => m !== COMBINATION && !isMethod(m));
    if (!methods.length || unknown.length) {
      throw new UsageError(`--methods: unknown method${unknown.length === 1 ? '' : 's'} ${unknown.join(', ') || '(none given)'} (known: ${[...METHOD_NAMES, COMBINATION].join(', ')})`);
    }
  }
  const level = values.level === undefined ? 0.9 : Number(values.level);
  if (!(level >= 0.5 && level <= 0.995)) throw new UsageError(`--level must be a number from 0.5 to 0.995, got '${values.level}'`);
  const score = values.score ?? 'mase';
  if (!isMetricName(score)) throw new UsageError(`--score must be one of ${METRIC_NAMES.join(', ')}, got '${score}'`);
  const outliers = values.outliers ?? 'hampel';
  if (outliers !== 'hampel' && outliers !== 'iqr' && outliers !== 'none') throw new UsageError(`--outliers must be hampel, iqr or none, got '${outliers}'`);
  const delimiter = values.delimiter ?? ',';
  if (delimiter.length !== 1 || /["\r\n]/.test(delimiter)) throw new UsageError(`--delimiter must be one character other than a quote or newline, got '${delimiter}'`);
  return {
    input: values.input,
    output: values.output,
    summary: values.summary,
    rejects: values.rejects,
    settings: {
      horizon: intOption('horizon', values.horizon, 52, 1, 520),
      period: intOption('period', values.period, 52, 1, 520),
      level,
      methods,
      backtest: {
        origins: intOption('backtest-origins', values['backtest-origins'], 3, 1, 52),
        horizon: intOption('backtest-horizon', values['backtest-horizon'], 13, 1, 104),
        step: intOption('backtest-step', values['backtest-step'], 4, 1, 52),
        minTrain: intOption('min-train', values['min-train'], 26, 1, 520),
      },
      score: score as MetricName,
      outliers,
    },
    threads: intOption('threads', values.threads, os.availableParallelism(), 1, 256),
    strict: Boolean(values.strict),
    delimiter,
    progress: !values['no-progress'],
  };
}

async function write(out: fs.WriteStream, s: string): Promise<void> {
  if (out.errored) throw out.errored;
  // once() rejects when 'error' comes while waiting, so a full disk fails the run instead of hanging it
  if (s && !out.write(s)) await once(out, 'drain');
}

async function close(out: fs.WriteStream): Promise<void> {
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

export interface ReadResult {
  acc: WeeklyAccumulator;
  rows: number;
  bad: number;
}

/** Streams the CSV into weekly series; bad rows go to `report` (line number, reason) and are not added. */
export async function readInput(file: string, delimiter: string, report: (line: number, reason: string, record: string[]) => Promise<void>): Promise<ReadResult> {
  const acc = new WeeklyAccumulator();
  const reader = new CsvReader(delimiter);
  let cols: ColumnIndex | undefined;
  let rows = 0;
  let bad = 0;
  const take = async (records: CsvRecord[]) => {
    for (const { line, fields } of records) {
      if (!cols) {
        cols = columnIndex(fields, line);
        continue;
      }
      rows += 1;
      const c = checkRecord(fields, cols);
      if (c.ok) acc.add(c.row);
      else {
        bad += 1;
        await report(line, c.reason, fields);
      }
    }
  };
  try {
    for await (const chunk of fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) await take(reader.push(chunk as string));
    await take(reader.end());
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'EISDIR') throw new InputError(`--input ${file}: ${err.message}`);
    throw e;
  }
  if (!cols) throw new InputError(`${file} is empty: expected a header with ${INPUT_COLUMNS.join(', ')}`);
  return { acc, rows, bad };
}

/**
 * Batches of series in output order: several per thread (for balance) and at most 10 series, since a seasonal series
 * takes about a second and the progress bar moves once per batch; messages are cheap next to that.
 */
function* batches(acc: WeeklyAccumulator, total: number, threads: number): Generator<BatchRequest> {
  const size = Math.max(1, Math.min(10, Math.ceil(total / (threads * 8))));
  let batch = 0;
  let series: WeeklyInput[] = [];
  for (const s of acc.drain()) {
    series.push(s);
    if (series.length === size) {
      yield { batch: batch++, series };
      series = [];
    }
  }
  if (series.length) yield { batch: batch++, series };
}

const WORKER_MODULE = path.join(__dirname, 'forecastCsv', 'worker');

/**
 * Runs the batches on `threads` worker threads (two batches in flight each, so a thread never waits for the main
 * thread) and hands results to `emit` strictly in batch order. Results that arrive early wait; the feed stops while
 * more than 4 batches per thread are waiting, which bounds memory when one batch is slow.
 */
async function runParallel(source: Generator<BatchRequest>, threads: number, settings: ForecastSettings, withSummary: boolean, emit: (r: BatchResult) => Promise<void>): Promise<void> {
  const workers = Array.from({ length: threads }, () => new Worker(`require('tsx/cjs'); require(${JSON.stringify(WORKER_MODULE)});`, {
    eval: true,
    workerData: { forecastCsvWorker: true, settings, withSummary },
  }));
  try {
    await new Promise<void>((resolve, reject) => {
      const slots: Worker[] = workers.flatMap((w) => [w, w]);
      const pending = new Map<number, BatchResult>();
      let sent = 0;
      let written = 0;
      let inflight = 0;
      let exhausted = false;
      let failed = false;
      let chain = Promise.resolve();
      const fail = (e: unknown) => {
        if (failed) return;
        failed = true;
        reject(e);
      };
      const pump = () => {
        while (!failed && !exhausted && slots.length && sent - written < 4 * threads) {
          const next = source.next();
          if (next.done) {
            exhausted = true;
            break;
          }
          slots.pop()!.postMessage(next.value);
          sent += 1;
          inflight += 1;
        }
        if (exhausted && inflight === 0 && pending.size === 0 && !failed) resolve();
      };
      const flush = async () => {
        while (pending.has(written)) {
          const r = pending.get(written)!;
          pending.delete(written);
          await emit(r);
          written += 1;
        }
        pump();
      };
      for (const w of workers) {
        w.on('message', (r: BatchResult) => {
          inflight -= 1;
          pending.set(r.batch, r);
          slots.push(w);
          chain = chain.then(flush).catch(fail);
        });
        w.on('error', fail);
        w.on('exit', (code) => {
          if (!exhausted || inflight > 0) fail(new Error(`a forecasting worker thread stopped (exit code ${code})`));
        });
      }
      pump();
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** Temporary files being written, removed on Ctrl-C or a kill as well as on errors. */
const liveTemps = new Set<string>();

export interface RunResult {
  input: string;
  output: string;
  summary: string | null;
  rows_read: number;
  bad_rows: number;
  series: number;
  forecast_rows: number;
  failed_series: number;
  first_forecast_week: string;
  threads: number;
  seconds: number;
}

export async function main(argv: string[], stderr: ProgressStream = process.stderr): Promise<RunResult> {
  const o = parseOptions(argv);
  const t0 = Date.now();
  const say = (s: string) => stderr.write(`${s}\n`);
  const temps: { tmp: string; final: string; out: fs.WriteStream }[] = [];
  // every file is written next to its destination and renamed at the end, so a failed run leaves no half file
  const open = (final: string) => {
    const tmp = path.join(path.dirname(path.resolve(final)), `.${path.basename(final)}.${process.pid}.tmp`);
    let fd: number;
    try {
      fd = fs.openSync(tmp, 'w');
    } catch (e) {
      throw new InputError(`cannot write ${final}: ${(e as Error).message}`);
    }
    liveTemps.add(tmp);
    const out = fs.createWriteStream(tmp, { fd });
    // kept on the stream (out.errored) and raised by write()/close(), instead of crashing the process
    out.on('error', () => undefined);
    temps.push({ tmp, final, out });
    return out;
  };
  try {
    const rejects = o.rejects ? open(o.rejects) : undefined;
    if (rejects) await write(rejects, csvLine(['line', 'reason', 'record']));
    let reported = 0;
    const { acc, rows, bad } = await readInput(o.input, o.delimiter, async (line, reason, record) => {
      if (reported < MAX_REPORTED) say(`line ${line}: ${reason}${o.strict ? '' : ' (row skipped)'}`);
      reported += 1;
      if (rejects) await write(rejects, csvLine([String(line), reason, record.join(o.delimiter)]));
    });
    if (rejects) {
      // the list of bad rows is the report a --strict run fails with, so it is kept whatever happens next
      await close(rejects);
      const t = temps.splice(temps.findIndex((x) => x.out === rejects), 1)[0];
      fs.renameSync(t.tmp, t.final);
      liveTemps.delete(t.tmp);
    }
    if (bad > MAX_REPORTED) say(`… and ${bad - MAX_REPORTED} more bad rows${o.rejects ? ` (all in ${o.rejects})` : ' (--rejects <file> lists them all)'}`);
    if (bad && o.strict) throw new InputError(`${bad} bad row${bad === 1 ? '' : 's'} in ${o.input}: nothing forecast (--strict)`);
    const total = acc.seriesCount;
    if (total === 0) throw new InputError(`${o.input}: no valid row${bad ? ` (${bad} bad row${bad === 1 ? '' : 's'})` : ''}`);
    const endWeek = acc.endWeek!;
    say(`read ${rows} rows${bad ? ` (${bad} skipped)` : ''}: ${total} series, history to the week of ${endWeek}`);

    const out = open(o.output);
    const summary = o.summary ? open(o.summary) : undefined;
    await write(out, csvLine(FORECAST_HEADER));
    if (summary) await write(summary, csvLine(SUMMARY_HEADER));
    const threads = Math.max(1, Math.min(o.threads, total));
    const progress = o.progress ? new Progress(total, stderr) : undefined;
    let forecastRows = 0;
    const failures: BatchResult['failures'] = [];
    let failedCount = 0;
    const emit = async (r: BatchResult) => {
      await write(out, r.forecasts);
      if (summary) await write(summary, r.summary);
      forecastRows += r.rows;
      failedCount += r.failures.length;
      for (const f of r.failures) if (failures.length < MAX_REPORTED) failures.push(f);
      progress?.tick(r.count);
    };
    const source = batches(acc, total, threads);
    if (threads === 1) {
      for (const req of source) {
        await emit(runBatch(req, o.settings, Boolean(summary)));
        // let the TTY redraw and stream events run between batches
        await new Promise((resolve) => setImmediate(resolve));
      }
    } else {
      await runParallel(source, threads, o.settings, Boolean(summary), emit);
    }
    progress?.finish();
    for (const t of temps) await close(t.out);
    for (const t of temps) {
      fs.renameSync(t.tmp, t.final);
      liveTemps.delete(t.tmp);
    }
    temps.length = 0;
    for (const f of failures) say(`series item_id=${f.item_id} site_id=${f.site_id}: not forecast: ${f.error}`);
    if (failedCount > failures.length) say(`… and ${failedCount - failures.length} more series not forecast${o.summary ? ` (see the error column of ${o.summary})` : ''}`);
    const result: RunResult = {
      input: o.input,
      output: o.output,
      summary: o.summary ?? null,
      rows_read: rows,
      bad_rows: bad,
      series: total,
      forecast_rows: forecastRows,
      failed_series: failedCount,
      first_forecast_week: dateOfDay(dayNumber(endWeek) + 7),
      threads,
      seconds: Math.round((Date.now() - t0) / 100) / 10,
    };
    if (failedCount) {
      const msg = failedCount === total ? `no series could be forecast` : `${failedCount} of ${total} series could not be forecast; the others were written`;
      throw Object.assign(new InputError(msg), { result });
    }
    return result;
  } finally {
    for (const t of temps) {
      t.out.destroy();
      fs.rmSync(t.tmp, { force: true });
      liveTemps.delete(t.tmp);
    }
  }
}

if (require.main === module) {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.on(signal, () => {
      for (const tmp of liveTemps) fs.rmSync(tmp, { force: true });
      process.stderr.write(`\ninterrupted (${signal}): nothing written\n`);
      process.exit(code);
    });
  }
  main(process.argv.slice(2)).then(
    (out) => {
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      process.exit(0);
    },
    (err) => {
      const known = err instanceof UsageError || err instanceof InputError;
      if (err?.result) process.stdout.write(`${JSON.stringify(err.result, null, 2)}\n`);
      process.stderr.write(`${known ? err.message : err?.stack ?? err}\n`);
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
