/**
 * What a schemathesis run reached, per operation: the fuzz hooks (test/api/fuzz.test.ts) append one line per call,
 * `METHOD /path<TAB>status<TAB>phase<TAB>mode`, and this turns them into counts. "Reached" means at least one 2xx: an
 * operation that only ever answered 400 or 404 was fuzzed at its door, not inside.
 */
export interface OperationCounts {
  calls: number;
  '2xx': number;
  '4xx': number;
  '5xx': number;
  /** 400s to cases schemathesis generated as valid: the published schema admitted what the handler refused */
  positive400: number;
  '404': number;
  /** calls of the stateful phase, whose ids come from earlier responses through OpenAPI links */
  stateful: number;
  /** the first answer to such a case: what the schema does not say */
  positive400Detail?: string;
}

export interface FuzzReport {
  seed: string;
  maxExamples: number;
  operations: number;
  reached2xx: number;
  calls: number;
  byOperation: Record<string, OperationCounts>;
}

const empty = (): OperationCounts => ({ calls: 0, '2xx': 0, '4xx': 0, '5xx': 0, positive400: 0, '404': 0, stateful: 0 });

export function fuzzReport(lines: string, meta: { seed: string; maxExamples: number; operations: string[] }): FuzzReport {
  const byOperation: Record<string, OperationCounts> = Object.fromEntries(meta.operations.map((o) => [o, empty()]));
  let calls = 0;
  for (const line of lines.split('\n')) {
    if (!line.trim()) continue;
    const [op, statusText, phase, mode, detail] = line.split('\t');
    const status = Number(statusText);
    calls += 1;
    // the coverage phase also sends methods a path does not have (answered 405): not an operation of the document
    const c = byOperation[op];
    if (!c) continue;
    c.calls += 1;
    if (status >= 200 && status < 300) c['2xx'] += 1;
    else if (status >= 400 && status < 500) c['4xx'] += 1;
    else if (status >= 500) c['5xx'] += 1;
    if (status === 400 && mode === 'positive') {
      c.positive400 += 1;
      c.positive400Detail ??= detail || undefined;
    }
    if (status === 404) c['404'] += 1;
    if (phase === 'stateful') c.stateful += 1;
  }
  const reached2xx = Object.values(byOperation).filter((c) => c['2xx'] > 0).length;
  return { seed: meta.seed, maxExamples: meta.maxExamples, operations: Object.keys(byOperation).length, reached2xx, calls, byOperation };
}

/** A few lines for the test output: the totals and the operations that never got past validation or lookup. */
export function fuzzSummary(r: FuzzReport, reportPath: string): string {
  const ops = Object.entries(r.byOperation);
  const never = ops.filter(([, c]) => c.calls > 0 && c['2xx'] === 0);
  const mostly400 = ops.filter(([, c]) => c.positive400 > 0).sort((a, b) => b[1].positive400 - a[1].positive400);
  const stateful = ops.filter(([, c]) => c.stateful > 0).length;
  return [
    `fuzz (seed ${r.seed}, max examples ${r.maxExamples}): ${r.calls} calls; ${r.reached2xx} of ${r.operations} operations answered 2xx at least once; ${stateful} reached by the stateful phase`,
    `never 2xx (${never.length}): ${never.map(([o, c]) => `${o} [4xx ${c['4xx']}, 404 ${c['404']}]`).join('; ')}`,
    `valid-by-schema cases refused with 400 (${mostly400.length} operations): ${mostly400.slice(0, 40).map(([o, c]) => `${o} ${c.positive400}`).join('; ')}`,
    `report: ${reportPath}`,
  ].join('\n');
}
