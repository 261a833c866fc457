/**
 * What a jest worker keeps between its test files about the modules they load, before any of them runs: the decoded
 * source, the transformer's result and where a `require` resolved to (test/support/codeCacheRuntime.js uses these).
 * No module instance is kept: every file still runs its modules in its own context. Plain functions over maps so that
 * test/scripts/workerModuleCache.test.ts can drive them without a jest runtime.
 */
const fs = require('node:fs');

/**
 * The file's source as a string, read from disk only when this cache has not read this version of it before: the same
 * string is handed back while the file keeps its size and modification time. Files under node_modules are not looked
 * at again (nothing installs packages during a run); the others are, since a test may write a file it then requires.
 */
function createSourceCache() {
  /** filename → its decoded source, with the size and modification time it had when read */
  const sources = new Map();
  return function sharedSource(filename) {
    const kept = sources.get(filename);
    if (kept && kept.packaged) return kept.source;
    const stat = fs.statSync(filename);
    if (kept && kept.size === stat.size && kept.mtimeMs === stat.mtimeMs) return kept.source;
    const source = fs.readFileSync(filename, 'utf8');
    sources.set(filename, { size: stat.size, mtimeMs: stat.mtimeMs, packaged: filename.includes('/node_modules/'), source });
    return source;
  };
}

/**
 * Jest's transformer wrapped so that a source it has transformed before (the same string from the source cache, or an
 * equal one) gets the same result without the transformer's own lookup, which stats the file each time. The result
 * depends on the project and on the module flags of the caller, which are part of the key.
 */
function createTransformCache() {
  /** project, filename and the caller's module flags → the source transformed and what it became */
  const transformed = new Map();
  return function memoTransform(projectId, transform) {
    return (filename, options, source) => {
      const key = `${projectId}\0${filename}\0${options.instrument}\0${options.supportsDynamicImport}\0${options.supportsStaticESM}\0${options.supportsExportNamespaceFrom}\0${options.supportsTopLevelAwait}`;
      const kept = transformed.get(key);
      if (kept && kept.source === source) return kept.result;
      const result = transform(filename, options, source);
      transformed.set(key, { source, result });
      return result;
    };
  };
}

/**
 * Jest's resolver wrapped so that a name is resolved once per requiring file and project: the answer depends only on
 * the two paths and the project's configuration (no module name mappers here), and no package moves during a run.
 * A name that does not resolve throws each time, as before.
 */
function createResolutionCache() {
  /** project, requiring file and the name it asked for → the path it resolved to */
  const resolved = new Map();
  return function memoResolve(projectId, resolve) {
    return (from, to) => {
      const key = `${projectId}\0${from}\0${to}`;
      let found = resolved.get(key);
      if (found === undefined) {
        found = resolve(from, to);
        resolved.set(key, found);
      }
      return found;
    };
  };
}

module.exports = { createSourceCache, createTransformCache, createResolutionCache };
