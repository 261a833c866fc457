import { fuzzReport, fuzzSummary } from '../support/fuzzReport';

/** The fuzz test's report (test/api/fuzz.test.ts) from the lines its schemathesis hook writes, one per call. */
test('counts per operation what answered 2xx, 4xx, 404 and valid-by-schema 400s, and which operations were reached', () => {
  const lines = [
    'GET /api/a\t200\tfuzzing\tpositive\t',
    'GET /api/a\t400\tcoverage\tnegative\t',
    'GET /api/a\t400\tfuzzing\tpositive\tquery.x: not a Monday',
    'GET /api/a\t400\tfuzzing\tpositive\tquery.x: other',
    'GET /api/b/{id}\t404\tfuzzing\tpositive\t',
    'GET /api/b/{id}\t200\tstateful\tpositive\t',
    'POST /api/c\t503\tfuzzing\tpositive\t',
    // a method the path does not have (coverage sends them): no operation of the document
    'TRACE /api/a\t405\tcoverage\tnegative\t',
    '',
  ].join('\n');
  const r = fuzzReport(lines, { seed: '7', maxExamples: 20, operations: ['GET /api/a', 'GET /api/b/{id}', 'POST /api/c', 'DELETE /api/d'] });
  expect(r).toEqual({
    seed: '7', maxExamples: 20, operations: 4, reached2xx: 2, calls: 8,
    byOperation: {
      'GET /api/a': { calls: 4, '2xx': 1, '4xx': 3, '5xx': 0, positive400: 2, '404': 0, stateful: 0, positive400Detail: 'query.x: not a Monday' },
      'GET /api/b/{id}': { calls: 2, '2xx': 1, '4xx': 1, '5xx': 0, positive400: 0, '404': 1, stateful: 1 },
      'POST /api/c': { calls: 1, '2xx': 0, '4xx': 0, '5xx': 1, positive400: 0, '404': 0, stateful: 0 },
      'DELETE /api/d': { calls: 0, '2xx': 0, '4xx': 0, '5xx': 0, positive400: 0, '404': 0, stateful: 0 },
    },
  });
  const summary = fuzzSummary(r, '/tmp/r.json');
  expect(summary).toContain('fuzz (seed 7, max examples 20): 8 calls; 2 of 4 operations answered 2xx at least once; 1 reached by the stateful phase');
  expect(summary).toContain('never 2xx (1): POST /api/c [4xx 0, 404 0]');
  expect(summary).toContain('valid-by-schema cases refused with 400 (1 operations): GET /api/a 2');
});
