const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.join(__dirname, '../..');
const TIMINGS = path.join(__dirname, 'suiteTimings.json');

/**
 * Longest suite first (the LPT rule), so that the run ends when the workers run out of work together instead of one
 * worker finishing a long suite it picked up last. Jest's own sequencer does this only from its cache of earlier
 * runs in the same checkout, which a fresh clone (CI) does not have: the durations measured on this machine are
 * committed in suiteTimings.json (`npm run test:timings` rewrites it), and a suite that failed last time still goes
 * first. A suite new since the file was written counts as 20 s.
 */
class LongestFirst extends Sequencer {
  sort(tests) {
    const committed = fs.existsSync(TIMINGS) ? JSON.parse(fs.readFileSync(TIMINGS, 'utf8')).seconds : {};
    const weight = (test) => {
      const cached = this._getCache(test)[test.path];
      if (cached && cached[0] === 0) return Number.MAX_SAFE_INTEGER;
      const known = committed[path.relative(ROOT, test.path)];
      return known !== undefined ? known * 1000 : cached?.[1] ?? 20_000;
    };
    return [...tests].sort((a, b) => weight(b) - weight(a) || (a.path < b.path ? -1 : 1));
  }
}

module.exports = LongestFirst;
