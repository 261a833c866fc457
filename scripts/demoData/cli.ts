/**
 * Writes a synthetic tenant as one CSV per import staging table (plus truth.csv, the planted process per series).
 *
 *   node --import tsx scripts/demoData/cli.ts --seed 42 --items 200 --sites 10 --out /tmp/demo
 *
 * Demand is streamed series by series, so 100,000 series × 156 weeks (~10M rows) are written with flat memory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import {
  TABLE_COLUMNS, createDemoPlan, demandBySeries, generateMasterData,
  type DemoOptions, type Granularity, type SeriesTruth,
} from './generator';

const USAGE = `usage: node --import tsx scripts/demoData/cli.ts --seed N --items N --sites N --out DIR
  [--series N] [--weeks N] [--start YYYY-MM-DD] [--granularity weekly|daily] [--no-truth]`;

/** One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF; null/undefined → empty. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const s = Array.isArray(value) ? value.join(';') : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(columns: readonly string[], row: Record<string, unknown>): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) line += (i ? ',' : '') + csvField(row[columns[i]]);
  return line + '\r\n';
}

/** A buffered CSV writer that respects the stream's back-pressure. */
class CsvWriter {
  private readonly stream: fs.WriteStream;
  private buffer = '';
  rows = 0;

  constructor(file: string, readonly columns: readonly string[]) {
    this.stream = fs.createWriteStream(file, { highWaterMark: 1 << 20 });
    this.buffer = csvLine(columns, Object.fromEntries(columns.map((c) => [c, c])));
  }

  /** Appends a row; call `maybeFlush` now and then (per series) so the buffer is written out. */
  add(row: Record<string, unknown>): void {
    this.buffer += csvLine(this.columns, row);
    this.rows++;
  }

  async maybeFlush(): Promise<void> {
    if (this.buffer.length >= 1 << 20) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.buffer) return;
    const ok = this.stream.write(this.buffer);
    this.buffer = '';
    if (!ok) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await once(this.stream, 'finish');
  }
}

function intArg(values: Record<string, unknown>, name: string, required: boolean): number | undefined {
  const raw = values[name];
  if (raw === undefined) {
    if (required) throw new Error(`--${name} is required\n${USAGE}`);
    return undefined;
  }
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`--${name} must be an integer (got ${raw})`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      items: { type: 'string' },
      sites: { type: 'string' },
      series: { type: 'string' },
      weeks: { type: 'string' },
      start: { type: 'string' },
      granularity: { type: 'string' },
      out: { type: 'string' },
      'no-truth': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (!values.out) throw new Error(`--out is required\n${USAGE}`);
  const opts: DemoOptions = {
    seed: intArg(values, 'seed', true)!,
    items: intArg(values, 'items', true)!,
    sites: intArg(values, 'sites', true)!,
    seriesTarget: intArg(values, 'series', false),
    weeks: intArg(values, 'weeks', false),
    startWeek: values.start,
    granularity: values.granularity as Granularity | undefined,
  };

  const started = process.hrtime.bigint();
  const elapsed = (): string => `${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(2)} s`;
  let peakRss = process.memoryUsage().rss;
  const sampleMemory = (): void => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  };

  const out = path.resolve(values.out);
  fs.mkdirSync(out, { recursive: true });
  const plan = createDemoPlan(opts);
  const master = generateMasterData(plan);
  const counts: Record<string, number> = {};

  const tables = ['items', 'sites', 'item_site', 'routes', 'calendars', 'firm_orders', 'supersession'] as const;
  for (const table of tables) {
    const writer = new CsvWriter(path.join(out, `${table}.csv`), TABLE_COLUMNS[table]);
    for (const row of master[table]) {
      writer.add(row as unknown as Record<string, unknown>);
      await writer.maybeFlush();
    }
    await writer.close();
    counts[table] = writer.rows;
  }
  sampleMemory();

  const demand = new CsvWriter(path.join(out, 'demand_history.csv'), TABLE_COLUMNS.demand_history);
  const truth = values['no-truth'] ? null : new CsvWriter(path.join(out, 'truth.csv'), TABLE_COLUMNS.truth);
  const weekDs = plan.weekDs;
  const patterns: Record<string, number> = { smooth: 0, erratic: 0, intermittent: 0, lumpy: 0 };
  let series = 0;
  for (const s of demandBySeries(plan)) {
    for (const row of s.rows) demand.add(row as unknown as Record<string, unknown>);
    await demand.maybeFlush();
    if (truth) {
      truth.add(truthRow(s.truth, weekDs));
      await truth.maybeFlush();
    }
    patterns[s.truth.pattern]++;
    if (++series % 5000 === 0) sampleMemory();
  }
  await demand.close();
  counts.demand_history = demand.rows;
  if (truth) {
    await truth.close();
    counts.truth = truth.rows;
  }
  sampleMemory();

  const o = master.options;
  console.log(`demo data: seed ${o.seed}, ${o.items} items, ${o.sites} sites, ${series} series, ${o.weeks} weeks from ${o.startWeek} (${o.granularity}) → ${out}`);
  for (const [table, n] of Object.entries(counts)) console.log(`  ${`${table}.csv`.padEnd(20)} ${String(n).padStart(10)} rows`);
  console.log(`  planted patterns: ${Object.entries(patterns).map(([p, n]) => `${p} ${n}`).join(', ')}`);
  console.log(`elapsed ${elapsed()}, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
}

/** truth.csv: week lists as semicolon-separated dates. */
function truthRow(t: SeriesTruth, weekDs: string[]): Record<string, unknown> {
  return { ...t, promo_weeks: t.promo_weeks.map((w) => weekDs[w]), outlier_weeks: t.outlier_weeks.map((w) => weekDs[w]) };
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
