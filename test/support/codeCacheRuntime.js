/**
 * Jest's module runtime, with what a worker can keep between its test files without sharing any module between them.
 * Each test file gets a fresh module registry (the isolation Jest promises), so a worker reads, compiles and runs
 * the app's ~1,400 modules again for every file. The running stays per file; two things done before it need not be:
 *
 * - **Compiling.** V8 keeps no cache for `vm.compileFunction`, which Jest uses, so a worker parsed every module once
 *   per file: about a fifth of an API file's CPU. This keeps, per worker process, the code V8 produced for each
 *   module's source and hands it back on the next compile of the same source; V8 checks the source and its own
 *   version and flags before using it and compiles afresh when they differ.
 * - **Reading the sources.** Jest keeps each file's transformed code for the whole worker (keyed by path and
 *   modification time), but reads the module's source from disk and decodes it again in every test file before it
 *   asks for that code, and stats it to find the code: over 10,000 reads for eight workflow files, the largest
 *   (@temporalio/proto's definitions) megabytes each time. The decoded source, the transformer's result and where
 *   each name resolved to are kept for the worker (test/support/workerModuleCache.js); a file of ours whose size or
 *   modification time changed is read and transformed again.
 */
const vm = require('node:vm');
const JestRuntime = require('jest-runtime').default;
const { createResolutionCache, createSourceCache, createTransformCache } = require('./workerModuleCache');

const compileFunction = vm.compileFunction;
/** filename → the source compiled and V8's code for it */
const compiled = new Map();

vm.compileFunction = function compileFunctionWithCodeCache(code, params, options) {
  const key = options && options.filename;
  if (!key || options.cachedData || options.produceCachedData) return compileFunction.call(this, code, params, options);
  const hit = compiled.get(key);
  if (hit && hit.code === code) {
    const fn = compileFunction.call(this, code, params, { ...options, cachedData: hit.data });
    if (!fn.cachedDataRejected) return fn;
  }
  const fn = compileFunction.call(this, code, params, { ...options, produceCachedData: true });
  // a copy: V8 hands the code back as a buffer of the test file's own context, and keeping that one kept the whole
  // context (every module object of the file that first loaded this module) alive for the rest of the worker
  if (fn.cachedDataProduced) compiled.set(key, { code, data: Buffer.from(fn.cachedData) });
  return fn;
};

const sharedSource = createSourceCache();
const memoTransform = createTransformCache();
const memoResolve = createResolutionCache();

class SharedSourceRuntime extends JestRuntime {
  constructor(config, ...rest) {
    super(config, ...rest);
    const resolution = this._resolution;
    resolution.resolveCjs = memoResolve(config.id, resolution.resolveCjs.bind(resolution));
    // the test file's own cache of sources (Jest's cacheFS, which its transformer reads too) is filled from the
    // worker's instead of the disk
    const files = this.fileCache;
    files.readFile = (filename) => {
      let source = files.strings.get(filename);
      if (source === undefined) {
        source = sharedSource(filename);
        files.strings.set(filename, source);
      }
      return source;
    };
    const transformer = this.transformCache.scriptTransformer;
    transformer.transform = memoTransform(config.id, transformer.transform.bind(transformer));
  }
}

module.exports = SharedSourceRuntime;
