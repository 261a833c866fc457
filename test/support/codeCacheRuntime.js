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
 *   (@temporalio/proto's definitions) megabytes each time. The decoded source and the transformer's result are kept
 *   here for the worker; a file of ours whose size or modification time changed is read and transformed again.
 */
const fs = require('node:fs');
const vm = require('node:vm');
const JestRuntime = require('jest-runtime').default;

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
  if (fn.cachedDataProduced) compiled.set(key, { code, data: fn.cachedData });
  return fn;
};

/** filename → its decoded source, with the size and modification time it had when read */
const sources = new Map();

/**
 * The file's source as a string, read from disk only when the worker has not read this version of it before. Files
 * under node_modules are not looked at again (nothing installs packages during a run); the others are, since a test
 * may write a file it then requires.
 */
function sharedSource(filename) {
  const kept = sources.get(filename);
  if (kept && kept.packaged) return kept.source;
  const stat = fs.statSync(filename);
  if (kept && kept.size === stat.size && kept.mtimeMs === stat.mtimeMs) return kept.source;
  const source = fs.readFileSync(filename, 'utf8');
  sources.set(filename, { size: stat.size, mtimeMs: stat.mtimeMs, packaged: filename.includes('/node_modules/'), source });
  return source;
}

/** project, filename and the caller's module flags → the source Jest transformed and what it made of it */
const transformed = new Map();

/** project, requiring file and the name it asked for → the path it resolved to */
const resolved = new Map();

class SharedSourceRuntime extends JestRuntime {
  constructor(config, ...rest) {
    super(config, ...rest);
    // Jest resolves a name again in each test file; the answer depends only on the two paths and the project's
    // configuration (no module name mappers or mocks here), and no package moves during a run
    const resolution = this._resolution;
    const resolveCjs = resolution.resolveCjs.bind(resolution);
    resolution.resolveCjs = (from, to) => {
      const key = `${config.id}\0${from}\0${to}`;
      let found = resolved.get(key);
      if (found === undefined) {
        found = resolveCjs(from, to);
        resolved.set(key, found);
      }
      return found;
    };
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
    // Jest's transformer keeps its results for the worker too, but finds them by the file's modification time, one
    // stat per module per file; the source kept above is the same string as long as the file is unchanged
    const transformer = this.transformCache.scriptTransformer;
    const transform = transformer.transform.bind(transformer);
    transformer.transform = (filename, options, source) => {
      const key = `${config.id}\0${filename}\0${options.instrument}\0${options.supportsDynamicImport}\0${options.supportsStaticESM}\0${options.supportsExportNamespaceFrom}\0${options.supportsTopLevelAwait}`;
      const kept = transformed.get(key);
      if (kept && kept.source === source) return kept.result;
      const result = transform(filename, options, source);
      transformed.set(key, { source, result });
      return result;
    };
  }
}

module.exports = SharedSourceRuntime;
module.exports.sharedSource = sharedSource;
