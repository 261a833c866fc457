/**
 * Reads a jest `--json` report and writes what the test command is made of: test/support/suiteTimings.json (the
 * durations the sequencer orders suites by) and, on stdout, the markdown table of docs/TESTING.md.
 *
 *   npx jest --json --outputFile=/tmp/jest.json && npm run test:timings -- /tmp/jest.json [--top 25]
 */
import fs from 'node:fs';
import path from 'node:path';

interface JestReport {
  numTotalTests: number;
  numTotalTestSuites: number;
  startTime: number;
  testResults: Array<{ name: string; startTime: number; endTime: number; assertionResults: unknown[]; status: string }>;
}

const ROOT = path.join(__dirname, '..');

/** A suite's path in the repository, also for a report of another clone (CI runs the test command in a fresh one). */
function repoPath(absolute: string): string {
  const inThisTree = path.relative(ROOT, absolute);
  if (!inThisTree.startsWith('..')) return inThisTree;
  const at = absolute.lastIndexOf(`${path.sep}test${path.sep}`);
  return at >= 0 ? absolute.slice(at + 1) : inThisTree;
}

function main(argv: string[]): void {
  const file = argv.find((a) => !a.startsWith('--'));
  if (!file) throw new Error('usage: npm run test:timings -- <jest --json report> [--top N]');
  const top = Number(argv[argv.indexOf('--top') + 1]) || 25;
  const report = JSON.parse(fs.readFileSync(file, 'utf8')) as JestReport;
  const suites = report.testResults
    .map((r) => ({ file: repoPath(r.name), seconds: (r.endTime - r.startTime) / 1000, tests: r.assertionResults.length, status: r.status }))
    .sort((a, b) => b.seconds - a.seconds);
  const seconds = Object.fromEntries([...suites].sort((a, b) => (a.file < b.file ? -1 : 1)).map((s) => [s.file, Math.round(s.seconds * 10) / 10]));
  fs.writeFileSync(path.join(ROOT, 'test/support/suiteTimings.json'), `${JSON.stringify({ measured: new Date(report.startTime).toISOString().slice(0, 10), seconds }, null, 1)}\n`);
  const total = suites.reduce((s, x) => s + x.seconds, 0);
  const wall = (Math.max(...report.testResults.map((r) => r.endTime)) - report.startTime) / 1000;
  const lines = [
    `${report.numTotalTestSuites} suites, ${report.numTotalTests} tests; suite time ${total.toFixed(0)} s in all, jest wall time ${wall.toFixed(0)} s`,
    '',
    '| suite | tests | seconds | share of suite time |',
    '|---|---:|---:|---:|',
    ...suites.slice(0, top).map((s) => `| ${s.file} | ${s.tests} | ${s.seconds.toFixed(1)} | ${((100 * s.seconds) / total).toFixed(1)} % |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main(process.argv.slice(2));
