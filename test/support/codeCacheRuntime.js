/**
 * Jest's module runtime with V8's code cache. Jest compiles every module again for each test file (each file gets a
 * fresh module registry, which is the isolation it promises), and V8 keeps no cache for `vm.compileFunction`, so a
 * worker parsed the app's few hundred modules once per file: about a fifth of an API file's CPU. This keeps, per
 * worker process, the code V8 produced for each module's source and hands it back on the next compile of the same
 * source; V8 checks the source and its own version and flags before using it and compiles afresh when they differ.
 * Modules still run anew in each file: only the parse and compile are shared.
 */
const vm = require('node:vm');

const compileFunction = vm.compileFunction;
/** filename → the source compiled and V8's code for it */
const cache = new Map();

vm.compileFunction = function compileFunctionWithCodeCache(code, params, options) {
  const key = options && options.filename;
  if (!key || options.cachedData || options.produceCachedData) return compileFunction.call(this, code, params, options);
  const hit = cache.get(key);
  if (hit && hit.code === code) {
    const fn = compileFunction.call(this, code, params, { ...options, cachedData: hit.data });
    if (!fn.cachedDataRejected) return fn;
  }
  const fn = compileFunction.call(this, code, params, { ...options, produceCachedData: true });
  if (fn.cachedDataProduced) cache.set(key, { code, data: fn.cachedData });
  return fn;
};

module.exports = require('jest-runtime');
