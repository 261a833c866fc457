/**
 * `npm run bench:allocation`: the allocation engines side by side on seeded instances with the pool's shape
 * (bench/lib/allocationInstances.ts: SO_/FIRM_ supplies, weeks 0–51, ABC lines, 10 lines per item-site): the greedy
 * allocator on 100,000 demand lines (target under 10 s), and the HiGHS LP against the greedy at growing sizes up to
 * the largest the LP solves within 60 s, with the greedy's objective as a percentage of the LP's.
 *
 *   npm run bench:allocation                   # 10k, 30k, 100k, 300k, 1M lines; writes docs/BENCHMARKS.md
 *   npm run bench:allocation -- --max 100000 --no-doc
 */
import os from 'node:os';
import path from 'node:path';
import { compareAllocations } from '../domain/allocation/compare';
import { allocateGreedy } from '../domain/allocation/greedy';
import { getHighs } from '../domain/allocation/lp';
import { checkAllocation } from '../domain/allocation/model';
import { REPO_ROOT } from '../lib/env';
import { randomInstance } from './lib/allocationInstances';
import { fixed, int, markdownTable, replaceBlock } from './lib/report';

const argValue = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

async function main(): Promise<void> {
  const max = argValue('max', 1_000_000);
  const doc = !process.argv.includes('--no-doc');
  await getHighs(); // the Wasm loads once, outside the timed solves
  const greedyProblem = randomInstance(100, { demands: 100_000 });
  const greedy = allocateGreedy(greedyProblem);
  const violations = checkAllocation(greedyProblem, greedy).length;
  const greedyLine = `greedy on 100,000 demand lines: ${int(greedy.elapsed_ms)} ms (target 10 s), ${int(greedy.allocations.length)} rows, ${fixed((100 * greedy.served_qty) / greedy.demand_qty, 1)} % of demand served, ${violations} conservation violations`;
  console.log(greedyLine);
  const rows: string[][] = [];
  for (const n of [10_000, 30_000, 100_000, 300_000, 1_000_000].filter((x) => x <= max)) {
    const problem = randomInstance(n + 10, { demands: n });
    const c = await compareAllocations(problem, {}, { timeLimitSeconds: 120 });
    rows.push([int(n), int(c.lp.lp.columns), int(c.lp.lp.batches), int(c.lp_ms), int(c.greedy_ms), fixed(c.lp.objective, 1), fixed(c.greedy.objective, 1), `${c.greedy_pct_of_lp.toFixed(2)} %`]);
    console.log(rows[rows.length - 1].join('  '));
    if (c.lp_ms > 60_000) break;
  }
  const head = ['demand lines', 'LP columns', 'LP batches', 'LP ms', 'greedy ms', 'LP objective', 'greedy objective', 'greedy / LP'];
  const table = markdownTable(head, rows);
  console.log(table);
  if (!doc) return;
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const body = [
    `Run ${date} UTC on ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'unknown'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}; HiGHS through the \`highs\` npm package (WebAssembly), (item, site) groups batched into models of up to 2,000 columns.`,
    '',
    `**${greedyLine}.**`,
    '',
    table,
  ].join('\n');
  replaceBlock(path.join(REPO_ROOT, 'docs/BENCHMARKS.md'), 'bench:allocation', body, { skeleton: '# Benchmarks\n', heading: '## Allocation (`npm run bench:allocation`)' });
  console.log('docs/BENCHMARKS.md updated');
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
