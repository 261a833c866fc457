/**
 * A fixed piece of work timed on this machine, so that benchmark runs of different hours can be told apart from
 * changes of code: this virtual machine's speed drifts by 20–50 % from hour to hour (docs/BENCHMARKS.md), and every
 * step's time drifts with it. The work uses none of our code (plain JavaScript arithmetic and sorting in Node, a fixed
 * query in PostgreSQL), so a change in the gauge is the host, whatever the commit. Lower is faster.
 */
import { createRng } from '../../domain/inventory/random';
import { median } from '../../domain/outlier/detect';
import { sql, type Db } from '../../db/pool';

export interface HostGauge {
  /** median milliseconds of the Node work (one thread) */
  node_ms: number;
  /** median milliseconds of the PostgreSQL work (one backend, measured by the client) */
  pg_ms: number | null;
}

const REPEATS = 5;
const MATRIX = 120;
const SORTED = 150_000;

/**
 * One round of the Node work: products of seeded matrices (floating point, cache-bound) and a sort of seeded numbers
 * (branches, allocation). Returns a checksum, so that the work cannot be optimised away and tests can pin it.
 */
export function nodeWork(seed = 42): number {
  const rng = createRng(seed);
  const a = new Float64Array(MATRIX * MATRIX).map(() => rng() - 0.5);
  const b = new Float64Array(MATRIX * MATRIX).map(() => rng() - 0.5);
  const c = new Float64Array(MATRIX * MATRIX);
  for (let rep = 0; rep < 3; rep++) {
    for (let i = 0; i < MATRIX; i++) {
      for (let k = 0; k < MATRIX; k++) {
        const aik = a[i * MATRIX + k];
        for (let j = 0; j < MATRIX; j++) c[i * MATRIX + j] += aik * b[k * MATRIX + j];
      }
    }
  }
  const xs = Array.from({ length: SORTED }, () => rng());
  xs.sort((x, y) => x - y);
  let sum = 0;
  for (let i = 0; i < c.length; i += 97) sum += c[i];
  return sum + xs[SORTED >> 1];
}

/**
 * The PostgreSQL work: hashing and de-duplicating generated strings (an aggregate that sorts), nothing read from or
 * written to a table. Its answer is always the row count, 200,000.
 */
const PG_WORK = sql.unsafe`SELECT count(DISTINCT md5(g::text))::int AS n FROM generate_series(1, 200000) g`;

export async function pgWork(db: Db): Promise<number> {
  return Number(await db.oneFirst(PG_WORK));
}

/** Median milliseconds of `repeats` rounds of `work`, after one round that warms up and is not counted. */
async function medianMs(work: () => unknown, repeats: number): Promise<number> {
  await work();
  const ms: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = process.hrtime.bigint();
    await work();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(ms);
}

export async function measureHostGauge(db: Db | null, repeats = REPEATS): Promise<HostGauge> {
  return { node_ms: await medianMs(() => nodeWork(), repeats), pg_ms: db ? await medianMs(() => pgWork(db), repeats) : null };
}

/** "Node 412 ms, PostgreSQL 288 ms" */
export function describeGauge(g: HostGauge | undefined): string {
  if (!g) return 'not measured';
  return `Node ${g.node_ms.toFixed(0)} ms, PostgreSQL ${g.pg_ms === null ? '—' : `${g.pg_ms.toFixed(0)} ms`}`;
}

// `node --import tsx bench/lib/hostGauge.ts`: the Node part alone, for a log that has to say how fast the machine was
// when it ran (scripts/test.sh prints it before and after the suites)
if (require.main === module) {
  measureHostGauge(null).then((g) => process.stdout.write(`Node ${g.node_ms.toFixed(0)} ms\n`));
}
