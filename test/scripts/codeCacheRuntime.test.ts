import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The V8 code a jest worker keeps between its test files (test/support/codeCacheRuntime.js) must not keep a test
 * file's context alive: each context holds every module object the file loaded, and a worker runs dozens of files.
 * Checked in a process of its own, which loads the runtime as jest does, so that garbage collection can be forced.
 */
const SCRIPT = `
const vm = require('node:vm');
require(${JSON.stringify(path.join(__dirname, '../support/codeCacheRuntime.js'))});
const source = 'return globalThis.payload.length';
const refs = [];
const cached = [];
// in a function of its own, so that no suspended frame below still holds the last context
function runFiles() {
  for (let i = 0; i < 4; i++) {
    // a file's context, with something of its own in it, compiling a module the way jest-runtime does
    const context = vm.createContext({ payload: new Array(100000).fill(i) });
    const fn = vm.compileFunction(source, [], { filename: '/virtual/module.js', parsingContext: context });
    cached.push(fn.cachedDataRejected === undefined ? 'produced' : fn.cachedDataRejected ? 'rejected' : 'used');
    if (fn() !== 100000) throw new Error('the module did not run in its context');
    refs.push(new WeakRef(context));
  }
}
(async () => {
  runFiles();
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    global.gc();
  }
  console.log(JSON.stringify({ cached, alive: refs.map((r) => r.deref() !== undefined) }));
})();
`;

test('every file context is collected once its file is over, the one whose compile produced the kept code included', () => {
  const res = spawnSync(process.execPath, ['--expose-gc', '-e', SCRIPT], { encoding: 'utf8' });
  expect(res.stderr).toBe('');
  // the first compile produced the code, the next three used it
  expect(JSON.parse(res.stdout)).toEqual({ cached: ['produced', 'used', 'used', 'used'], alive: [false, false, false, false] });
});
